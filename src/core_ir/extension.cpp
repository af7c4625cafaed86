#include "exo2/core_ir/extension.hpp"

#include <stdexcept>

namespace exo2 {

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

MemoryPtr NamedMemory::dram() {
  static const MemoryPtr mem = std::make_shared<const NamedMemory>("DRAM");
  return mem;
}

}  // namespace exo2
