// Structural equality of IR trees, with symbols compared by identity.
#pragma once

#include <unordered_map>

#include "exo2/core_ir/proc.hpp"

namespace exo2 {

bool equal(const Expr& a, const Expr& b);
bool equal(const Stmt& a, const Stmt& b);
bool equal(const Block& a, const Block& b);
bool equal(const Type& a, const Type& b);

// Symbols of one tree and the symbols of another they stand for.
using SymRenaming = std::unordered_map<Sym, Sym>;
// Whether `a` and `b` are equal once the free symbols of `b` in `renaming`
// are replaced by their images and each symbol `b` binds (loop iterator,
// allocation, window statement) by the one `a` binds at the same place.
bool equal_up_to_renaming(const Block& a, const Block& b, SymRenaming renaming);
// Same name, arguments, preconditions, body and instruction info. Callees
// are compared by identity of their IR.
bool equal(const Proc& a, const Proc& b);

}  // namespace exo2
