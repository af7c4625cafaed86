// Names in generated C (docs/writing-kernels.md, "Names in the generated
// C"). An object-language name that C, C++ or the headers the generated code
// includes already use is mangled wherever it becomes a C identifier:
// procedures, parameters, buffers, loop iterators, configs and their fields.
#pragma once

#include <string>

namespace exo2 {

// Whether generated C may not use `name` as an identifier: a C or C++
// keyword, a name declared by the headers generated code includes or
// predefined by the compiler, a name of the generated code's own helpers,
// or a name C reserves for the implementation (`__x`, `_X`).
bool is_reserved_c_name(const std::string& name);

// The C identifier of an object-language name: the name itself unless it is
// reserved; `int` becomes `int_`, `__x` becomes `exo__x`.
std::string c_identifier(const std::string& name);

}  // namespace exo2
