// Backend annotations and the Procedure methods partial_eval, transpose, add_assertion (exo2.primitives.backend, exo2.primitives.procedure_methods).
#include <pybind11/pybind11.h>

#include "handles.hpp"

namespace exo2::bindings {

namespace py = pybind11;

void bind_backend_primitives(py::module_& m) { (void)m; }

}  // namespace exo2::bindings
