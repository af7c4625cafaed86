#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// eliminate_dead_code (docs/primitives-loops.md). An if whose condition is
// provably always true (false) in its context is replaced by its then
// (else) branch; a loop whose `lo >= hi` always holds is deleted. Refused
// otherwise. Forwarding: the if dies and the kept branch's statements
// follow; a deleted loop dies with its body.
cursors::EditResult eliminate_dead_code(const Proc& proc,
                                        const cursors::Location& stmt);

}  // namespace exo2::primitives
