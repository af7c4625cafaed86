// delete_pass (docs/primitives-statements.md, deprecated): deletes every
// `pass`.
//
// Rewrite: each `pass` is deleted, together with every loop whose body is
// only that `pass` (recursively: `for i: for j: pass` disappears whole). A
// statement list left empty keeps one `pass` (cursors::remove).
// Safety: none needed; `pass` does nothing, and neither does a loop whose
// body does nothing.
// Forwarding: cursors to deleted statements die; everything else follows.
#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

cursors::EditResult delete_pass(const Proc& proc);

}  // namespace exo2::primitives
