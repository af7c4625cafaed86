// A callee's control expression (a parameter's shape, a precondition) as
// the caller sees it at one call.
#pragma once

#include <unordered_map>

#include "exo2/core_ir/expr.hpp"

namespace exo2 {

// `e` with the callee's parameters replaced by the call's arguments
// (`args`: parameter -> argument). `stride(p, d)` of a data parameter
// becomes the stride of the buffer passed: for a window argument
// `x[i, lo:hi]`, dimension d of the window is the d-th interval dimension of
// x. Subexpressions that mention no parameter are shared with `e`.
Expr at_call_site(const Expr& e, const std::unordered_map<Sym, Expr>& args);

}  // namespace exo2
