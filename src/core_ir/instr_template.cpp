#include "exo2/core_ir/instr_template.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace exo2 {

std::string instr_stride_key(const std::string& param, size_t dim) {
  return fmt::format("stride({}, {})", param, dim);
}

std::vector<std::string> instr_template_keys(const ProcNode& instr) {
  std::vector<std::string> keys;
  for (const FnArg& a : instr.args) {
    const std::string name = a.name.name();
    keys.push_back(name);
    keys.push_back(name + "_data");
    if (!a.type.is_tensor()) continue;
    keys.push_back(name + "_int");
    for (size_t d = 0; d < a.type.shape().size(); ++d)
      keys.push_back(instr_stride_key(name, d));
  }
  return keys;
}

namespace {

// A key as written, spaces dropped and one put after each comma, so that
// `{stride(src,0)}` and `{stride( src, 0 )}` name `stride(src, 0)`.
std::string canonical_key(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == ' ' || c == '\t' || c == '\n') continue;
    out += c;
    if (c == ',') out += ' ';
  }
  return out;
}

}  // namespace

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
      const std::string key = canonical_key(tmpl.substr(k + 1, close - k - 1));
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
