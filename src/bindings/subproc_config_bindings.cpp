// Sub-procedure and configuration primitives (exo2.primitives.subprocs, exo2.primitives.configs).
#include <pybind11/pybind11.h>

#include "handles.hpp"

namespace exo2::bindings {

namespace py = pybind11;

void bind_subproc_config_primitives(py::module_& m) { (void)m; }

}  // namespace exo2::bindings
