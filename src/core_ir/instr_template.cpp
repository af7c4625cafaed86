#include "exo2/core_ir/instr_template.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace exo2 {

std::vector<std::string> instr_template_keys(const ProcNode& instr) {
  std::vector<std::string> keys;
  for (const FnArg& a : instr.args) {
    const std::string name = a.name.name();
    keys.push_back(name);
    keys.push_back(name + "_data");
    if (a.type.is_tensor()) keys.push_back(name + "_int");
  }
  return keys;
}

std::string fill_instr_template(
    const std::string& tmpl,
    const std::unordered_map<std::string, std::string>& values) {
  std::string out;
  for (size_t k = 0; k < tmpl.size(); ++k) {
    const char c = tmpl[k];
    if ((c == '{' || c == '}') && k + 1 < tmpl.size() && tmpl[k + 1] == c) {
      out += c;
      ++k;
    } else if (c == '{') {
      const size_t close = tmpl.find('}', k);
      if (close == std::string::npos)
        throw std::invalid_argument(
            fmt::format("a '{{' at offset {} is never closed (write '{{{{' "
                        "for a brace)",
                        k));
      const std::string key = tmpl.substr(k + 1, close - k - 1);
      auto it = values.find(key);
      if (it == values.end())
        throw std::invalid_argument(
            fmt::format("it uses the unknown key '{}'", key));
      out += it->second;
      k = close;
    } else {
      out += c;
    }
  }
  return out;
}

std::string instr_template_problem(const ProcNode& instr) {
  if (!instr.instr) return "";
  std::unordered_map<std::string, std::string> values;
  const std::vector<std::string> keys = instr_template_keys(instr);
  for (const std::string& key : keys) values[key] = key;
  try {
    fill_instr_template(instr.instr->c_instr, values);
  } catch (const std::invalid_argument& e) {
    return fmt::format(
        "the template of instruction {} cannot be filled: {}; the keys are "
        "{}",
        instr.name, e.what(),
        keys.empty() ? std::string("none")
                     : fmt::format("{}", fmt::join(keys, ", ")));
  }
  return "";
}

}  // namespace exo2
