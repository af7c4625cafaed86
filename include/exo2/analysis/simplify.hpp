// `simplify`: the affine normal form of control expressions, constant
// folding and removal of code that cannot run (primitives.md §10,
// printing.md §6).
//
// Two steps per expression, in Exo's order:
// 1. Normal form. An index, size or stride expression without `/`, `%`,
//    config reads or strides becomes `c + a1 * v1 + ...`: the constant first
//    (omitted when zero), then one term per variable by ascending
//    coefficient, ties by name; `- c * v` for negative coefficients, a
//    leading negative term as unary minus (`-(2 * j) + i`). Other
//    expressions are normalised operand by operand (`ii + n / 8 * 8`).
//    `e / c` and `e % c` drop the part of `e` that the range facts of the
//    context (enclosing loops and ifs, preconditions) prove in [0, c)
//    (`(4 * io + ii) / 4` → `io` for 0 <= ii < 4), or split the divisor to
//    get there; `(n / a) / b` → `n / (a * b)`.
// 2. Folding. Literal operations (control, bool, and data literals of
//    f16/f32/f64), the identities `x + 0`, `x - 0`, `0 - x` → `-x`,
//    `(a + b) - b` → `a`, `x * 0`, `x * 1`, `x / 1`, `x % 1`, `and`/`or`
//    with literals, `n % k + k * (n / k)` → `n`; inside `if e == c:` the
//    expression `e` reads as `c` (and `X % M` as `X` when `X / M == 0`)
//    until a config field `e` or `c` reads may have been written. The
//    range facts of the context follow config state the same way
//    (config_state.hpp).
// Statements: an if with a literal condition is replaced by the branch that
// runs, a loop with equal literal bounds or an empty body is deleted, and a
// block left empty holds `pass`. The result is equivalent by construction.
#pragma once

#include <map>

#include "exo2/core_ir/proc.hpp"
#include "exo2/cursors/location.hpp"

namespace exo2 {

struct SimplifyOptions {
  // Also remove ifs whose condition the context facts prove always true or
  // always false, and loops they prove empty (`lo >= hi`). Off by default:
  // Exo's simplify only removes literal cases, and printed results must
  // match Exo's.
  bool remove_provably_dead_code = false;
};

// Where the statements simplify keeps went: the path of each one in the
// input to its path in the result (statement steps only). The statements of
// an if replaced by its branch move up one level; deleted statements and
// replaced ifs are absent.
using KeptStatements = std::map<cursors::Path, cursors::Path>;

Proc simplify(const Proc& p, const SimplifyOptions& options = {},
              KeptStatements* kept = nullptr);

}  // namespace exo2
