// Objects the core refers to but does not define: memories, externs, configs,
// loop modes and `with` contexts. Users define them in Python; the bindings
// wrap each Python object in one of these classes. C++ tests use the small
// concrete classes at the end of this file.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "exo2/core_ir/types.hpp"

namespace exo2 {

// Base of every externally defined object. Identity matters (two memories
// with the same name are different memories), so equality is `same_as`.
class ExternalObject {
 public:
  virtual ~ExternalObject() = default;
  // The name used in printing and messages.
  virtual std::string name() const = 0;
  // Whether `other` denotes the same user object.
  virtual bool same_as(const ExternalObject& other) const {
    return this == &other;
  }
};

// Where a buffer lives (`@ DRAM`, `@ AVX2`, ...). Code generation calls back
// into the user's class; the core only needs the name and identity.
class Memory : public ExternalObject {};
using MemoryPtr = std::shared_ptr<const Memory>;

// Thrown by `Extern::typecheck`; reported as a typechecking error at the call.
struct ExternTypecheckError {
  std::string message;
};

// A scalar C function usable in data expressions (`relu(x[i])`).
class Extern : public ExternalObject {
 public:
  // The result type for these argument types, or throws ExternTypecheckError.
  virtual Type typecheck(const std::vector<Type>& arg_types) const = 0;
};
using ExternPtr = std::shared_ptr<const Extern>;

// How a loop runs: `seq`, `par`, and modes defined by backends
// (`cuda_threads(lo, hi, unit=cuda_warp)`). An open set by design.
class LoopMode : public ExternalObject {
 public:
  // Text printed after `lo, hi` inside the parentheses, e.g.
  // ", unit=cuda_warp"; empty for seq and par.
  virtual std::string extra_args() const { return ""; }
  // Whether iterations may run concurrently (needs a race check).
  virtual bool is_parallel() const { return false; }

  static std::shared_ptr<const LoopMode> seq();
  static std::shared_ptr<const LoopMode> par();
};
using LoopModePtr = std::shared_ptr<const LoopMode>;

// The context object of a `with <ctx>:` statement (kernel launches, warp
// roles). Printed as `with <text()>:`.
class WithContext : public ExternalObject {
 public:
  virtual std::string text() const { return name(); }
};
using WithContextPtr = std::shared_ptr<const WithContext>;

// Annotation on one dimension of an allocation (`K / 64 @ ring(4)`), reserved
// for the CUDA backend. Printed as `extent @ text()`.
class DimAnnotation : public ExternalObject {
 public:
  virtual std::string text() const { return name(); }
};
using DimAnnotationPtr = std::shared_ptr<const DimAnnotation>;

// A `@config` class: named, typed global fields.
class Config : public ExternalObject {
 public:
  Config(std::string name, std::vector<std::pair<std::string, Type>> fields,
         bool allow_rw)
      : name_(std::move(name)),
        fields_(std::move(fields)),
        allow_rw_(allow_rw) {}
  std::string name() const override { return name_; }
  const std::vector<std::pair<std::string, Type>>& fields() const {
    return fields_;
  }
  bool has_field(const std::string& field) const;
  // The type of `field`; the field must exist.
  const Type& lookup_type(const std::string& field) const;
  bool is_allow_rw() const { return allow_rw_; }

 private:
  std::string name_;
  std::vector<std::pair<std::string, Type>> fields_;
  bool allow_rw_;
};
using ConfigPtr = std::shared_ptr<const Config>;

// A memory known only by its name (C++ tests, and the default DRAM when no
// Python object is attached).
class NamedMemory : public Memory {
 public:
  explicit NamedMemory(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return name_; }
  static MemoryPtr dram();

 private:
  std::string name_;
};

}  // namespace exo2
