// Rewriting variables in copied code: substituting expressions for control
// variables, and giving duplicated code fresh bound symbols.
#pragma once

#include <unordered_map>

#include "exo2/core_ir/proc.hpp"

namespace exo2::primitives {

// Control variables (loop iterators, sizes, index parameters) and the
// expressions that replace their reads.
using Substitution = std::unordered_map<Sym, Expr>;

// `e`, `s` or `block` with every read of a variable of `subst` (a `Read`
// without indices, also inside shapes and windows) replaced.
Expr substitute(const Expr& e, const Substitution& subst);
Stmt substitute(const Stmt& s, const Substitution& subst);
Block substitute(const Block& block, const Substitution& subst);

// A copy of `block` in which every variable it binds (loop iterators,
// allocations, window statements) is a fresh symbol of the same name, with
// `subst` applied: what a primitive inserts when it duplicates code (the
// tail loop of divide_loop, the copies of unroll_loop). `renames` renames
// free symbols everywhere (buffers included: inline's parameters).
Block fresh_copy(const Block& block, const Substitution& subst = {},
                 const std::unordered_map<Sym, Sym>& renames = {});

// Whether `sym` occurs in `e` or `block` (read, written, windowed, or in a
// type's shape).
bool mentions(const Expr& e, const Sym& sym);
bool mentions(const Block& block, const Sym& sym);

}  // namespace exo2::primitives
