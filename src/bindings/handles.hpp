// Python-visible handles on immutable IR nodes. pybind11 cannot hold
// `shared_ptr<const T>`, so each node kind is wrapped in a small value.
#pragma once

#include "exo2/core_ir/proc.hpp"

namespace exo2::bindings {

struct ExprHandle {
  Expr node;
};
struct StmtHandle {
  Stmt node;
};
struct ProcHandle {
  Proc node;
};

}  // namespace exo2::bindings
