// The module exo2._core: IR builders for the frontend, the definition-time
// checks, printing, and the translation of core errors into the documented
// Python exceptions (docs/errors.md).
#include <pybind11/pybind11.h>

#include "exo2/core_ir/diagnostics.hpp"
#include "exo2/core_ir/extension.hpp"
#include "python_objects.hpp"
#include "user_errors.hpp"

namespace py = pybind11;

namespace exo2::bindings {
void bind_ir(py::module_& m);
void bind_analysis(py::module_& m);
void bind_cursors(py::module_& m);
void bind_codegen(py::module_& m);
void bind_primitives(py::module_& m);
void bind_statement_primitives(py::module_& m);
void bind_buffer_primitives(py::module_& m);
void bind_buffer_dim_primitives(py::module_& m);
void bind_replace_primitives(py::module_& m);
void bind_subproc_config_primitives(py::module_& m);
void bind_backend_primitives(py::module_& m);
void bind_cuda(py::module_& m);

namespace {
// Python classes and factories registered at import time by exo2/errors.py.
// Held for the life of the process (never released at interpreter exit).
PyObject* scheduling_error_class = nullptr;
PyObject* check_error_factory = nullptr;
PyObject* user_error_factory = nullptr;

// Raises the Python exception for a failed definition-time check: the
// registered factory's result (a TypeError subclass carrying the
// diagnostics), or a plain TypeError before registration.
void raise_check_error(const CheckError& e) {
  if (!check_error_factory) {
    PyErr_SetString(PyExc_TypeError, e.what());
    return;
  }
  py::list diagnostics;
  for (const Diagnostic& d : e.diagnostics())
    diagnostics.append(py::make_tuple(d.srcinfo.file(), d.srcinfo.line,
                                      d.srcinfo.col, d.message));
  py::object exc = py::reinterpret_borrow<py::object>(check_error_factory)(
      e.what(), e.heading(), diagnostics);
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())), exc.ptr());
}

// Raises the registered SchedulingError class, built by its `_from_core`
// with the report of docs/errors.md.
void raise_scheduling_error(const SchedulingError& e) {
  if (!scheduling_error_class) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
    return;
  }
  const SchedulingReport& r = e.report();
  py::dict report;
  report["where"] = r.srcinfo.filename
                        ? py::object(py::make_tuple(
                              r.srcinfo.file(), r.srcinfo.line, r.srcinfo.col))
                        : py::object(py::none());
  report["condition"] = r.condition;
  report["formula"] = r.formula;
  report["counterexample"] = r.counterexample;
  py::list accesses;
  for (const std::string& a : r.conflicting_accesses) accesses.append(a);
  report["accesses"] = accesses;
  report["hint"] = r.hint;
  py::object exc = py::reinterpret_borrow<py::object>(scheduling_error_class)
                       .attr("_from_core")(e.what(), report);
  PyErr_SetObject(scheduling_error_class, exc.ptr());
}

void translate_exceptions() {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const CheckError& e) {
      raise_check_error(e);
    } catch (const SchedulingError& e) {
      raise_scheduling_error(e);
    } catch (const ExternTypecheckError& e) {
      set_user_error(PyExc_TypeError, e.message);
    } catch (const ArgumentError& e) {
      set_user_error(e.kind() == ArgumentError::Kind::Type ? PyExc_TypeError
                                                           : PyExc_ValueError,
                     e.what());
    }
  });
}

void replace(PyObject*& slot, py::object value) {
  Py_XDECREF(slot);
  slot = value.is_none() ? nullptr : value.release().ptr();
}
}  // namespace

void register_error_classes(py::object scheduling_error, py::object check_error,
                            py::object user_error) {
  replace(scheduling_error_class, std::move(scheduling_error));
  replace(check_error_factory, std::move(check_error));
  replace(user_error_factory, std::move(user_error));
}

void set_user_error(PyObject* cls, const std::string& message) {
  if (!user_error_factory) {
    PyErr_SetString(cls, message.c_str());
    return;
  }
  py::object exc = py::reinterpret_borrow<py::object>(user_error_factory)(
      py::reinterpret_borrow<py::object>(cls), message);
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())), exc.ptr());
}

void throw_user_error(PyObject* cls, const std::string& message) {
  set_user_error(cls, message);
  throw py::error_already_set();
}

void set_user_error(const char* module, const char* cls,
                    const std::string& message) {
  py::object type = py::module_::import(module).attr(cls);
  set_user_error(type.ptr(), message);
}

}  // namespace exo2::bindings

PYBIND11_MODULE(_core, m) {
  m.doc() = "exo2's C++ core: IR, checks and printing";
  exo2::bindings::translate_exceptions();
  m.def("register_error_classes", &exo2::bindings::register_error_classes,
        py::arg("scheduling_error"), py::arg("check_error") = py::none(),
        py::arg("user_error") = py::none(),
        "Tells the core what to raise for SchedulingError, which "
        "factory(message, heading, [(file, line, col, message)]) builds the "
        "exception of a failed typecheck or bounds check, and which "
        "factory(cls, message) builds the other exceptions for users' "
        "mistakes.");
  m.def(
      "set_default_memory",
      [](const py::object& mem) {
        exo2::set_default_memory(exo2::bindings::wrap_memory(mem));
      },
      py::arg("memory"),
      "Sets the memory of buffers declared without `@ mem` and of buffers "
      "that primitives create (exo2 sets it to DRAM at import).");
  exo2::bindings::bind_ir(m);
  exo2::bindings::bind_analysis(m);
  exo2::bindings::bind_cursors(m);
  exo2::bindings::bind_codegen(m);
  exo2::bindings::bind_primitives(m);
  exo2::bindings::bind_statement_primitives(m);
  exo2::bindings::bind_buffer_primitives(m);
  exo2::bindings::bind_buffer_dim_primitives(m);
  exo2::bindings::bind_replace_primitives(m);
  exo2::bindings::bind_subproc_config_primitives(m);
  exo2::bindings::bind_backend_primitives(m);
  exo2::bindings::bind_cuda(m);
}
