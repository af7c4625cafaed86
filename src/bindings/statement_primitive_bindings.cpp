// The expression and statement primitives for Python
// (exo2.primitives.statements): each binding takes the provenance of the
// procedure being scheduled, internal cursors and plain values, calls the
// C++ primitive and returns the provenance of the new procedure. Argument
// processing happens in Python first; SchedulingError is translated in
// module.cpp, std::invalid_argument becomes ValueError (pybind11).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "exo2/primitives/commute_expr.hpp"
#include "exo2/primitives/delete_pass.hpp"
#include "exo2/primitives/fold_into_reduce.hpp"
#include "exo2/primitives/inline_assign.hpp"
#include "exo2/primitives/insert_pass.hpp"
#include "exo2/primitives/left_reassociate_expr.hpp"
#include "exo2/primitives/lift_reduce_constant.hpp"
#include "exo2/primitives/make_instr.hpp"
#include "exo2/primitives/merge_writes.hpp"
#include "exo2/primitives/parallelize_loop.hpp"
#include "exo2/primitives/rename.hpp"
#include "exo2/primitives/reorder_stmts.hpp"
#include "exo2/primitives/rewrite_expr.hpp"
#include "exo2/primitives/split_write.hpp"
#include "handles.hpp"
#include "user_errors.hpp"

namespace exo2::bindings {

namespace py = pybind11;
using namespace exo2::primitives;

namespace {

ProvenanceHandle derive(const ProvenanceHandle& parent, cursors::EditResult r) {
  return {cursors::Provenance::derived(std::move(r.proc), parent.node,
                                       std::move(r.forwarding))};
}

const Proc& proc_of(const ProvenanceHandle& p) { return p.node->proc(); }

// A primitive of (procedure, one location).
template <class F>
void bind_at(py::module_& m, const char* name, F primitive) {
  m.def(
      name,
      [primitive](const ProvenanceHandle& p, const CursorHandle& at) {
        return derive(p, primitive(proc_of(p), at.loc));
      },
      py::arg("proc"), py::arg("at"));
}

}  // namespace

void bind_statement_primitives(py::module_& m) {
  m.def(
      "rename",
      [](const ProvenanceHandle& p, const std::string& name) {
        return derive(p, rename(proc_of(p), name));
      },
      py::arg("proc"), py::arg("name"));
  m.def(
      "make_instr",
      [](const ProvenanceHandle& p, const std::string& c_instr,
         const std::string& c_global) {
        return derive(p, make_instr(proc_of(p), c_instr, c_global));
      },
      py::arg("proc"), py::arg("c_instr"), py::arg("c_global"));
  m.def(
      "delete_pass",
      [](const ProvenanceHandle& p) {
        return derive(p, delete_pass(proc_of(p)));
      },
      py::arg("proc"));
  m.def(
      "commute_expr",
      [](const ProvenanceHandle& p, const std::vector<CursorHandle>& exprs) {
        std::vector<cursors::Location> locs;
        for (const CursorHandle& c : exprs) locs.push_back(c.loc);
        return derive(p, commute_expr(proc_of(p), locs));
      },
      py::arg("proc"), py::arg("exprs"));
  m.def(
      "rewrite_expr",
      [](const ProvenanceHandle& p, const CursorHandle& expr,
         const ExprHandle& new_expr) {
        return derive(p, rewrite_expr(proc_of(p), expr.loc, new_expr.node));
      },
      py::arg("proc"), py::arg("expr"), py::arg("new_expr"));
  m.def(
      "lift_reduce_constant",
      [](const ProvenanceHandle& p, const CursorHandle& block) {
        try {
          return derive(p, lift_reduce_constant(proc_of(p), block.loc));
        } catch (const UnsupportedStatementError& e) {
          throw_user_error(PyExc_NotImplementedError, e.what());
        }
      },
      py::arg("proc"), py::arg("block"));
  bind_at(m, "insert_pass", insert_pass);
  bind_at(m, "reorder_stmts", reorder_stmts);
  bind_at(m, "left_reassociate_expr", left_reassociate_expr);
  bind_at(m, "merge_writes", merge_writes);
  bind_at(m, "split_write", split_write);
  bind_at(m, "fold_into_reduce", fold_into_reduce);
  bind_at(m, "inline_assign", inline_assign);
  bind_at(m, "parallelize_loop", parallelize_loop);
}

}  // namespace exo2::bindings
