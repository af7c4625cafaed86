// The backend annotations (exo2.primitives.backend) and the Procedure
// methods partial_eval, transpose and add_assertion
// (exo2.primitives.procedure_methods). The annotations take the provenance
// of the procedure being scheduled and return the derived one; the methods
// take a procedure and return a new one without provenance. Argument
// processing happens in Python first; SchedulingError is translated in
// module.cpp, std::invalid_argument becomes ValueError (pybind11).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "exo2/primitives/add_assertion.hpp"
#include "exo2/primitives/partial_eval.hpp"
#include "exo2/primitives/set_memory.hpp"
#include "exo2/primitives/set_precision.hpp"
#include "exo2/primitives/set_window.hpp"
#include "exo2/primitives/transpose.hpp"
#include "handles.hpp"
#include "python_objects.hpp"

namespace exo2::bindings {

namespace py = pybind11;
using namespace exo2::primitives;

namespace {

ProvenanceHandle derive(const ProvenanceHandle& parent, cursors::EditResult r) {
  return {cursors::Provenance::derived(std::move(r.proc), parent.node,
                                       std::move(r.forwarding))};
}

const Proc& proc_of(const ProvenanceHandle& p) { return p.node->proc(); }

// A Python value given to partial_eval: bool and int keep their kind; any
// other value is refused by the primitive as a non-int, non-bool value.
ConstValue parameter_value(const py::handle& value) {
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>();
  if (py::isinstance<py::int_>(value)) {
    try {
      return value.cast<int64_t>();
    } catch (const py::cast_error&) {
      throw std::invalid_argument("partial_eval: integer value out of range");
    }
  }
  return 0.0;
}

}  // namespace

void bind_backend_primitives(py::module_& m) {
  m.def(
      "set_precision",
      [](const ProvenanceHandle& p, const CursorHandle& decl,
         const std::string& precision) {
        TypeKind kind;
        if (!type_kind_from_name(precision, &kind) || !is_data_kind(kind))
          throw std::invalid_argument("set_precision: unknown precision " +
                                      precision);
        return derive(p, set_precision(proc_of(p), decl.loc, kind));
      },
      py::arg("proc"), py::arg("decl"), py::arg("precision"));
  m.def(
      "set_window",
      [](const ProvenanceHandle& p, const CursorHandle& param, bool is_window) {
        return derive(p, set_window(proc_of(p), param.loc, is_window));
      },
      py::arg("proc"), py::arg("param"), py::arg("is_window"));
  m.def(
      "set_memory",
      [](const ProvenanceHandle& p, const CursorHandle& decl,
         const py::object& memory) {
        return derive(p, set_memory(proc_of(p), decl.loc, wrap_memory(memory)));
      },
      py::arg("proc"), py::arg("decl"), py::arg("memory"),
      "`memory` is a Memory subclass (the class object).");

  m.def(
      "partial_eval",
      [](const ProcHandle& p,
         const std::vector<std::pair<int, py::object>>& values) {
        std::vector<ParameterValue> fixed;
        for (const auto& [param, value] : values)
          fixed.push_back({param, parameter_value(value)});
        return ProcHandle{partial_eval(p.node, fixed)};
      },
      py::arg("proc"), py::arg("values"),
      "`values` are (parameter position, value) pairs, in the order given.");
  m.def(
      "transpose",
      [](const ProcHandle& p, const CursorHandle& param) {
        return ProcHandle{transpose(p.node, param.loc)};
      },
      py::arg("proc"), py::arg("param"));
  m.def(
      "add_assertion",
      [](const ProcHandle& p, const ExprHandle& assertion) {
        return ProcHandle{add_assertion(p.node, assertion.node)};
      },
      py::arg("proc"), py::arg("assertion"));
}

}  // namespace exo2::bindings
