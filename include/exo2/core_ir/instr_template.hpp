// Instruction templates: the C text of an `@instr`, with `{key}` escapes
// that each call fills (docs/reference/memories-and-instructions.md). The
// keys of a parameter `x` are `x` and `x_data`, and for a tensor or window
// parameter `x_int` (the buffer's name) and `stride(x, d)` per dimension d
// (the argument's stride there); `{{` and `}}` stand for braces.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "exo2/core_ir/proc.hpp"

namespace exo2 {

// The key of the stride of dimension `dim` of parameter `param`.
std::string instr_stride_key(const std::string& param, size_t dim);

// The keys a call of the instruction `instr` fills.
std::vector<std::string> instr_template_keys(const ProcNode& instr);

// The template with every `{key}` replaced by `values.at(key)`, as Python's
// `str.format` does for plain names (spaces in a key do not matter). Throws
// std::invalid_argument naming the key on a key without value or a `{` never
// closed.
std::string fill_instr_template(
    const std::string& tmpl,
    const std::unordered_map<std::string, std::string>& values);

// Why the template of `instr` cannot be filled at every call (an unknown
// key, with the keys it may use), or "" when it can.
std::string instr_template_problem(const ProcNode& instr);

}  // namespace exo2
