#include "exo2/core_ir/extension.hpp"

#include <stdexcept>

namespace exo2 {

int64_t Properties::get_int(const std::string& key, int64_t fallback) const {
  auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  const auto* v = std::get_if<int64_t>(&it->second);
  return v ? *v : fallback;
}

std::string Properties::get_string(const std::string& key,
                                   const std::string& fallback) const {
  auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  const auto* v = std::get_if<std::string>(&it->second);
  return v ? *v : fallback;
}

std::vector<int64_t> Properties::get_ints(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end()) return {};
  const auto* v = std::get_if<std::vector<int64_t>>(&it->second);
  return v ? *v : std::vector<int64_t>{};
}

std::vector<std::string> Properties::get_strings(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end()) return {};
  const auto* v = std::get_if<std::vector<std::string>>(&it->second);
  return v ? *v : std::vector<std::string>{};
}

std::string InstrMetadata::generate(const Properties&) const { return ""; }

namespace {
class BuiltinLoopMode : public LoopMode {
 public:
  BuiltinLoopMode(const char* name, bool parallel)
      : name_(name), parallel_(parallel) {}
  std::string name() const override { return name_; }
  bool is_parallel() const override { return parallel_; }

 private:
  const char* name_;
  bool parallel_;
};
}  // namespace

std::shared_ptr<const LoopMode> LoopMode::seq() {
  static const auto mode =
      std::make_shared<const BuiltinLoopMode>("seq", false);
  return mode;
}

std::shared_ptr<const LoopMode> LoopMode::par() {
  static const auto mode = std::make_shared<const BuiltinLoopMode>("par", true);
  return mode;
}

bool Config::has_field(const std::string& field) const {
  for (const auto& [name, type] : fields_)
    if (name == field) return true;
  return false;
}

const Type& Config::lookup_type(const std::string& field) const {
  for (const auto& [name, type] : fields_)
    if (name == field) return type;
  throw std::out_of_range("config " + name_ + " has no field " + field);
}

std::string generate_offset(const std::vector<std::string>& indices,
                            const std::vector<std::string>& strides) {
  std::string out;
  for (size_t k = 0; k < indices.size() && k < strides.size(); ++k) {
    const std::string& i = indices[k];
    const std::string& s = strides[k];
    if (i == "0" || s == "0") continue;
    std::string term;
    if (s == "1")
      term = i;
    else if (i == "1")
      term = s;
    else if (s.size() == 1)
      term = "(" + i + ") * " + s;
    else
      term = "(" + i + ") * (" + s + ")";
    out += (out.empty() ? "" : " + ") + term;
  }
  return out.empty() ? "0" : out;
}

std::string Memory::global_() const {
  return "#include <stdio.h>\n#include <stdlib.h>\n";
}

std::string Memory::alloc(const std::string& name, const std::string& ctype,
                          const std::vector<std::string>& shape,
                          const SrcInfo&) const {
  if (shape.empty()) return ctype + " " + name + ";";
  std::string size;
  for (const auto& d : shape) size += (size.empty() ? "" : " * ") + d;
  return ctype + " *" + name + " = (" + ctype + "*) malloc(" + size +
         " * sizeof(*" + name + "));";
}

std::string Memory::free(const std::string& name, const std::string&,
                         const std::vector<std::string>& shape,
                         const SrcInfo&) const {
  return shape.empty() ? "" : "free(" + name + ");";
}

std::string Memory::window(const Type& basetype, const std::string& baseptr,
                           const std::vector<std::string>& indices,
                           const std::vector<std::string>& strides,
                           const SrcInfo&) const {
  const std::string base = basetype.is_window() ? baseptr + ".data" : baseptr;
  return base + "[" + generate_offset(indices, strides) + "]";
}

std::string Memory::write(const Access&, const std::string& lhs,
                          const std::string& rhs) const {
  return lhs + " = " + rhs + ";";
}

std::string Memory::reduce(const Access&, const std::string& lhs,
                           const std::string& rhs) const {
  return lhs + " += " + rhs + ";";
}

std::string Extern::compile(const std::vector<std::string>& args,
                            const std::string&) const {
  std::string out = name() + "(";
  for (size_t k = 0; k < args.size(); ++k) out += (k ? ", " : "") + args[k];
  return out + ")";
}

std::string Extern::globl(const std::string&) const { return ""; }

MemoryPtr NamedMemory::dram() {
  static const MemoryPtr mem = std::make_shared<const NamedMemory>("DRAM");
  return mem;
}

namespace {
MemoryPtr& default_memory_slot() {
  static MemoryPtr mem = NamedMemory::dram();
  return mem;
}
}  // namespace

MemoryPtr default_memory() { return default_memory_slot(); }

void set_default_memory(MemoryPtr mem) {
  default_memory_slot() = std::move(mem);
}

}  // namespace exo2
