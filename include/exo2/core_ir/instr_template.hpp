// Instruction templates: the C text of an `@instr`, with `{key}` escapes
// that each call fills (docs/instruction-selection.md). The keys of a
// parameter `x` are `x` and `x_data`, and `x_int` (the buffer's name) for a
// tensor or window parameter; `{{` and `}}` stand for braces.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "exo2/core_ir/proc.hpp"

namespace exo2 {

// The keys a call of the instruction `instr` fills.
std::vector<std::string> instr_template_keys(const ProcNode& instr);

// The template with every `{key}` replaced by `values.at(key)`, as Python's
// `str.format` does for plain names. Throws std::invalid_argument naming the
// key on a key without value or a `{` never closed.
std::string fill_instr_template(
    const std::string& tmpl,
    const std::unordered_map<std::string, std::string>& values);

// Why the template of `instr` cannot be filled at every call (an unknown
// key, with the keys it may use), or "" when it can.
std::string instr_template_problem(const ProcNode& instr);

}  // namespace exo2
