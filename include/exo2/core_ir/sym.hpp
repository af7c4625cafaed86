// Symbols: variable names with a unique identity.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace exo2 {

// A variable of the object language. Two symbols are the same variable only
// when their ids are equal; the name is what the user wrote and is used for
// printing (with suffixes added when names collide).
class Sym {
 public:
  Sym() = default;
  // Creates a fresh symbol with a new unique id.
  explicit Sym(std::string name);

  const std::string& name() const { return *name_; }
  uint64_t id() const { return id_; }
  bool valid() const { return id_ != 0; }
  // A fresh symbol with the same name.
  Sym copy() const { return Sym(name()); }

  friend bool operator==(const Sym& a, const Sym& b) { return a.id_ == b.id_; }
  friend bool operator!=(const Sym& a, const Sym& b) { return a.id_ != b.id_; }
  friend bool operator<(const Sym& a, const Sym& b) { return a.id_ < b.id_; }

 private:
  std::shared_ptr<const std::string> name_ = empty_name();
  uint64_t id_ = 0;
  static std::shared_ptr<const std::string> empty_name();
};

}  // namespace exo2

template <>
struct std::hash<exo2::Sym> {
  size_t operator()(const exo2::Sym& s) const noexcept {
    return std::hash<uint64_t>()(s.id());
  }
};
