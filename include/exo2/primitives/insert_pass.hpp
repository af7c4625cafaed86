// insert_pass (docs/primitives-statements.md): inserts `pass` at a gap.
//
// Rewrite: `s1; s2` with the gap between them → `s1; pass; s2`.
// Safety: none needed; `pass` does nothing.
// Forwarding: as cursors::insert (everything stays valid).
#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

cursors::EditResult insert_pass(const Proc& proc, const cursors::Location& gap);

}  // namespace exo2::primitives
