// set_memory (docs/primitives-backend.md): changes the memory annotation of a
// buffer.
//
// Rewrite: `x : f32[n] @ DRAM` → `x : f32[n] @ M` (a parameter or an
// allocation).
// Safety: where a buffer lives does not change what the procedure
// computes; code generation checks what the memory allows (reads, writes,
// static shapes, the memories of call arguments). **[fix]** A control-typed
// parameter is refused (`cannot set the precision or memory of a control
// value`); Exo fails an assertion.
// Forwarding: everything stays.
#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// `decl` is a parameter or an allocation (std::invalid_argument otherwise).
cursors::EditResult set_memory(const Proc& proc, const cursors::Location& decl,
                               MemoryPtr mem);

}  // namespace exo2::primitives
