// The module exo2._core: IR builders for the frontend, the definition-time
// checks, printing, and the translation of core errors into the documented
// Python exceptions (spec/errors.md).
#include <pybind11/pybind11.h>

#include "exo2/core_ir/diagnostics.hpp"
#include "exo2/core_ir/extension.hpp"

namespace py = pybind11;

namespace exo2::bindings {
void bind_ir(py::module_& m);

namespace {
// Python classes of errors defined in the Python package, registered at
// import time by exo2/errors.py.
// Held for the life of the process (never released at interpreter exit).
PyObject* scheduling_error_class = nullptr;

void translate_exceptions() {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const CheckError& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const SchedulingError& e) {
      PyErr_SetString(
          scheduling_error_class ? scheduling_error_class : PyExc_RuntimeError,
          e.what());
    } catch (const ExternTypecheckError& e) {
      PyErr_SetString(PyExc_TypeError, e.message.c_str());
    }
  });
}
}  // namespace

void register_error_classes(py::object scheduling_error) {
  Py_XDECREF(scheduling_error_class);
  scheduling_error_class = scheduling_error.release().ptr();
}

}  // namespace exo2::bindings

PYBIND11_MODULE(_core, m) {
  m.doc() = "exo2's C++ core: IR, checks and printing";
  exo2::bindings::translate_exceptions();
  m.def("register_error_classes", &exo2::bindings::register_error_classes,
        py::arg("scheduling_error"),
        "Tells the core which Python class to raise for SchedulingError.");
  exo2::bindings::bind_ir(m);
}
