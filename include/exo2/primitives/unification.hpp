// unification (docs/instruction-selection.md, used by `replace`): the arguments
// that make a call to a sub-procedure do what a block of statements does.
//
// The sub-procedure's parameters are the unknowns; the block's free
// variables are known. Statements and data expressions must match
// structurally, the sub-procedure's bound variables (loop iterators,
// allocations, window statements) standing for the block's at the same
// place. Control expressions give linear equations over the unknowns with
// rational coefficients, solved exactly by Gaussian elimination: a solution
// is a linear combination of the block's free control values (and of its
// `/`, `%`, `stride` and config subterms, kept whole). An equation left
// without unknowns must hold identically, or — when it only relates free
// values (a loop bound `8` against `n`) — is returned as a side condition
// the caller proves in its context.
//
// Buffers: a non-window parameter (`x: f32[8]`, `s: f32`) takes a free
// buffer of the block with the same number of dimensions (shapes give
// equations). A window parameter (`x: [f32][8]`) takes a window of a free
// buffer with at least as many dimensions: which of the buffer's dimensions
// are points is chosen by trying each choice in order (leading dimensions
// first); points and interval offsets are unknowns; the interval ends are
// the offsets plus the parameter's extents. A stride parameter that the body
// does not determine is taken from a precondition `stride(x, d) == s`.
//
// The structural walk comes first and fails fast, so a mismatch costs no
// solving; nothing here calls the SMT solver.
#pragma once

#include <string>
#include <vector>

#include "exo2/core_ir/diagnostics.hpp"
#include "exo2/core_ir/symbol_table.hpp"

namespace exo2::primitives {

// The block cannot be unified with the sub-procedure. Python:
// exo2.rewrite.LoopIR_unification.UnificationError.
class UnificationError : public UserError {
 public:
  using UserError::UserError;
};

// `lhs == rhs` over the block's free control values, with the message to
// give when it cannot be proven.
struct SideCondition {
  Expr lhs, rhs;
  std::string message;
};

struct UnificationResult {
  // One typed argument per parameter of the sub-procedure.
  std::vector<Expr> args;
  std::vector<SideCondition> side_conditions;
};

// Unifies `subproc`'s body with `block` (of the same length), whose free
// variables have the types in `scope` (variables_in_scope before the
// block). Throws UnificationError with a readable reason.
UnificationResult unify(const Proc& subproc, const Block& block,
                        const std::vector<SymbolInfo>& scope);

}  // namespace exo2::primitives
