// Sub-procedure and configuration primitives (exo2.primitives.subprocs,
// exo2.primitives.configs), and the procedure identities that equivalence
// tracking (exo2.core.equivalence) keys on. Config fields cross the binding
// as (config, field) pairs: CoreConfig objects going in, the user's Config
// objects coming out.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "exo2/primitives/add_unsafe_guard.hpp"
#include "exo2/primitives/bind_config.hpp"
#include "exo2/primitives/call_eqv.hpp"
#include "exo2/primitives/delete_config.hpp"
#include "exo2/primitives/extract_subproc.hpp"
#include "exo2/primitives/inline_call.hpp"
#include "exo2/primitives/write_config.hpp"
#include "handles.hpp"
#include "python_objects.hpp"
#include "user_errors.hpp"

namespace exo2::bindings {

namespace py = pybind11;
using namespace exo2::primitives;

namespace {

using CoreField = std::pair<std::shared_ptr<PythonConfig>, std::string>;

ProvenanceHandle derive(const ProvenanceHandle& parent, cursors::EditResult r) {
  return {cursors::Provenance::derived(std::move(r.proc), parent.node,
                                       std::move(r.forwarding))};
}

const Proc& proc_of(const ProvenanceHandle& p) { return p.node->proc(); }

py::list fields_to_python(const std::vector<Location>& fields) {
  py::list out;
  for (const Location& f : fields)
    out.append(py::make_tuple(python_object_of(*f.config), f.field));
  return out;
}

// A config primitive's result: the derived provenance and the fields modulo
// which it is equivalent to its parent.
py::tuple config_result(const ProvenanceHandle& p, ConfigEditResult r) {
  return py::make_tuple(derive(p, std::move(r.edit)),
                        fields_to_python(r.visible_fields));
}

// Runs `f`, turning ConfigTypeError into Python's TypeError.
template <class F>
auto with_type_errors(F&& f) {
  try {
    return f();
  } catch (const ConfigTypeError& e) {
    throw_user_error(PyExc_TypeError, e.what());
  }
}

// A weak reference to a procedure's IR: whether it is still alive.
struct WeakProc {
  std::weak_ptr<const ProcNode> node;
};

}  // namespace

void bind_subproc_config_primitives(py::module_& m) {
  m.def(
      "extract_subproc",
      [](const ProvenanceHandle& p, const CursorHandle& block,
         const std::string& name, bool include_asserts) {
        ExtractedSubproc r =
            extract_subproc(proc_of(p), block.loc, name, include_asserts);
        return py::make_tuple(derive(p, std::move(r.edit)),
                              ProcHandle{r.subproc});
      },
      py::arg("proc"), py::arg("block"), py::arg("name"),
      py::arg("include_asserts"));
  m.def(
      "inline_call",
      [](const ProvenanceHandle& p, const CursorHandle& call) {
        return derive(p, inline_call(proc_of(p), call.loc));
      },
      py::arg("proc"), py::arg("call"));
  m.def(
      "call_eqv",
      [](const ProvenanceHandle& p, const CursorHandle& call,
         const ProcHandle& eqv, bool equivalent,
         const std::vector<CoreField>& modulo) {
        std::vector<Location> fields;
        for (const auto& [config, field] : modulo)
          fields.push_back(Location{Sym(), config, field});
        CallSwapResult r =
            call_eqv(proc_of(p), call.loc, eqv.node, equivalent, fields);
        return py::make_tuple(derive(p, std::move(r.edit)),
                              fields_to_python(r.visible_fields));
      },
      py::arg("proc"), py::arg("call"), py::arg("eqv_proc"),
      py::arg("equivalent"), py::arg("modulo"));
  m.def(
      "bind_config",
      [](const ProvenanceHandle& p, const CursorHandle& expr,
         const std::shared_ptr<PythonConfig>& config,
         const std::string& field) {
        return with_type_errors([&] {
          return config_result(
              p, bind_config(proc_of(p), expr.loc, config, field));
        });
      },
      py::arg("proc"), py::arg("expr"), py::arg("config"), py::arg("field"));
  m.def(
      "write_config",
      [](const ProvenanceHandle& p, const CursorHandle& gap,
         const std::shared_ptr<PythonConfig>& config, const std::string& field,
         const ExprHandle& rhs) {
        return with_type_errors([&] {
          return config_result(
              p, write_config(proc_of(p), gap.loc, config, field, rhs.node));
        });
      },
      py::arg("proc"), py::arg("gap"), py::arg("config"), py::arg("field"),
      py::arg("rhs"));
  m.def(
      "delete_config",
      [](const ProvenanceHandle& p, const CursorHandle& stmt) {
        return config_result(p, delete_config(proc_of(p), stmt.loc));
      },
      py::arg("proc"), py::arg("stmt"));
  m.def(
      "add_unsafe_guard",
      [](const ProvenanceHandle& p, const CursorHandle& block,
         const ExprHandle& cond) {
        // Legacy: no forwarding across this step.
        return ProvenanceHandle{cursors::Provenance::derived(
            add_unsafe_guard(proc_of(p), block.loc, cond.node), p.node,
            std::nullopt)};
      },
      py::arg("proc"), py::arg("block"), py::arg("cond"));

  m.def(
      "proc_identity",
      [](const ProcHandle& p) {
        return reinterpret_cast<std::uintptr_t>(p.node.get());
      },
      "The identity of a procedure's IR (its address; unique while alive).");
  py::class_<WeakProc>(m, "WeakProc", "A weak reference to a procedure's IR.")
      .def(py::init([](const ProcHandle& p) { return WeakProc{p.node}; }))
      .def("alive", [](const WeakProc& w) { return !w.node.expired(); });
}

}  // namespace exo2::bindings
