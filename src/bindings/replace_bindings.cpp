// Instruction selection for Python (exo2.primitives.unification): replace
// and insert_noop_call. Each binding takes the provenance of the procedure
// being scheduled, internal cursors, the sub-procedure and plain values, and
// returns the provenance of the new procedure. A failed unification becomes
// exo2.errors.UnificationError here; SchedulingError is translated in
// module.cpp.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "exo2/core_ir/printer.hpp"
#include "exo2/primitives/insert_noop_call.hpp"
#include "exo2/primitives/replace.hpp"
#include "exo2/primitives/unification.hpp"
#include "handles.hpp"
#include "user_errors.hpp"

namespace exo2::bindings {

namespace py = pybind11;

namespace {

ProvenanceHandle derive(const ProvenanceHandle& parent, cursors::EditResult r) {
  return {cursors::Provenance::derived(std::move(r.proc), parent.node,
                                       std::move(r.forwarding))};
}

void translate_unification_errors() {
  py::register_exception_translator([](std::exception_ptr e) {
    try {
      if (e) std::rethrow_exception(e);
    } catch (const primitives::UnificationError& err) {
      set_user_error("exo2.errors", "UnificationError", err.what());
    }
  });
}

}  // namespace

void bind_replace_primitives(py::module_& m) {
  translate_unification_errors();
  m.def(
      "replace",
      [](const ProvenanceHandle& p, const CursorHandle& block,
         const ProcHandle& subproc) {
        return derive(
            p, primitives::replace(p.node->proc(), block.loc, subproc.node));
      },
      py::arg("proc"), py::arg("block"), py::arg("subproc"));
  m.def(
      "insert_noop_call",
      [](const ProvenanceHandle& p, const CursorHandle& gap,
         const ProcHandle& instr, const std::vector<ExprHandle>& args) {
        std::vector<Expr> exprs;
        for (const ExprHandle& a : args) exprs.push_back(a.node);
        return derive(p, primitives::insert_noop_call(p.node->proc(), gap.loc,
                                                      instr.node, exprs));
      },
      py::arg("proc"), py::arg("gap"), py::arg("instr"), py::arg("args"));
  m.def(
      "block_statements_text",
      [](const CursorHandle& block) {
        std::vector<std::string> out;
        const Block& list = cursors::enclosing_list(block.proc, block.loc.path);
        for (int k = block.loc.lo(); k < block.loc.hi; k++)
          out.push_back(print_stmt(list[static_cast<size_t>(k)]));
        return out;
      },
      py::arg("block"),
      "The printed statements of a block location (replace's failure "
      "report).");
}

}  // namespace exo2::bindings
