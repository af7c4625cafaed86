// Python-visible handles on immutable IR nodes. pybind11 cannot hold
// `shared_ptr<const T>`, so each node kind is wrapped in a small value.
#pragma once

#include "exo2/core_ir/proc.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/cursors/provenance.hpp"

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

// A location in one procedure (Python's Cursor holds one plus its
// Procedure).
struct CursorHandle {
  Proc proc;
  cursors::Location loc;

  CursorHandle at(cursors::Location l) const { return {proc, std::move(l)}; }
  cursors::NodeRef node() const { return cursors::resolve(proc, loc.path); }
  Stmt stmt() const { return cursors::resolve_stmt(proc, loc.path); }
  Expr expr() const { return cursors::resolve_expr(proc, loc.path); }
};

// pybind11 cannot hold `shared_ptr<const Provenance>` directly.
struct ProvenanceHandle {
  cursors::ProvenancePtr node;
};

}  // namespace exo2::bindings
