// The buffers a block writes: assigned or reduced buffers, and arguments
// bound to callee parameters the callee writes. Writes through a window
// statement's name count as writes of the windowed buffer. Used by the C
// backend (`const` parameters, read-only window structs) and by primitives
// that must know whether a callee writes a parameter (bind_config).
#pragma once

#include <vector>

#include "exo2/core_ir/stmt.hpp"

namespace exo2 {

std::vector<Sym> written_buffers(const Block& body);

}  // namespace exo2
