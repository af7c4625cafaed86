// rename (docs/primitives-statements.md): gives the procedure a new name.
//
// Rewrite: `def f(...)` → `def name(...)`; nothing else changes.
// Safety: none needed; what a procedure computes does not depend on its
// name (the Python layer checks that `name` is a valid identifier).
// Forwarding: identity, blocks included.
#pragma once

#include <string>

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

cursors::EditResult rename(const Proc& proc, const std::string& name);

}  // namespace exo2::primitives
