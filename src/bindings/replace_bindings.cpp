// Instruction selection: replace and insert_noop_call (exo2.primitives.unification).
#include <pybind11/pybind11.h>

#include "handles.hpp"

namespace exo2::bindings {

namespace py = pybind11;

void bind_replace_primitives(py::module_& m) { (void)m; }

}  // namespace exo2::bindings
