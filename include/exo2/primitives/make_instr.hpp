// make_instr (docs/primitives-statements.md): turns the procedure into an
// instruction.
//
// Rewrite: the procedure gets the instruction templates `c_instr` (emitted
// at each call site) and `c_global` (emitted once, e.g. includes); its body
// stays as the instruction's meaning.
// Safety: none needed; the body, and so the meaning, is unchanged.
// Forwarding: identity, blocks included.
#pragma once

#include <string>

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

cursors::EditResult make_instr(const Proc& proc, const std::string& c_instr,
                               const std::string& c_global);

}  // namespace exo2::primitives
