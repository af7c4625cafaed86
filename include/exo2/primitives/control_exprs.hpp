// Typed control expressions that primitives build (`4 * io + ii`,
// `(n + 3) / 4`, `8 * io + ii < n`). New nodes carry the source location of
// the code they come from.
#pragma once

#include <optional>

#include "exo2/core_ir/expr.hpp"

namespace exo2::primitives {

// An `int` literal.
Expr control_int(int64_t value, const SrcInfo& srcinfo);
// A read of a loop iterator (`index`).
Expr iterator_read(const Sym& iter, const SrcInfo& srcinfo);
// `lhs op rhs`, typed as the typechecker would: `bool` for comparisons and
// logical operators, `size` for `+`/`*` of sizes and literals, otherwise
// `index`.
Expr control_binop(BinOpKind op, const Expr& lhs, const Expr& rhs,
                   const SrcInfo& srcinfo);

// The integer value of a literal, or nothing.
std::optional<int64_t> int_literal(const Expr& e);

}  // namespace exo2::primitives
