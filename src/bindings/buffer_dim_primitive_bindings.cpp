// The buffer dimension primitives (exo2.primitives.buffer_dims).
#include <pybind11/pybind11.h>

#include "handles.hpp"

namespace exo2::bindings {

namespace py = pybind11;

void bind_buffer_dim_primitives(py::module_& m) { (void)m; }

}  // namespace exo2::bindings
