// Raising the documented Python exceptions for users' mistakes from the
// bindings (docs/errors.md). Every such exception is built by exo2's Python
// factory, so it carries the report attributes (`op`, `location`, `hint`,
// ...) like the exceptions the Python layer raises; an exception without
// them comes from somewhere else (pybind11's own conversions) and is a bug.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

namespace exo2::bindings {

// Sets the Python error `cls(message)` (cls a Python exception class).
void set_user_error(PyObject* cls, const std::string& message);

// Sets it and throws pybind11::error_already_set, from inside a binding.
[[noreturn]] void throw_user_error(PyObject* cls, const std::string& message);

// The same for a class defined in exo2's Python package.
void set_user_error(const char* module, const char* cls,
                    const std::string& message);

}  // namespace exo2::bindings
