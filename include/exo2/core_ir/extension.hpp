// Objects the core refers to but does not define: memories, externs, configs,
// loop modes and `with` contexts. Users define them in Python; the bindings
// wrap each Python object in one of these classes. C++ tests use the small
// concrete classes at the end of this file.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "exo2/core_ir/srcinfo.hpp"
#include "exo2/core_ir/types.hpp"

namespace exo2 {

// Facts a backend reads from the objects it knows (the CUDA backend reads
// the `threads` of a loop mode's unit, the `role` of a memory): ints,
// strings, and lists of them, by key. The core never looks at them.
using PropertyValue = std::variant<int64_t, std::string, std::vector<int64_t>,
                                   std::vector<std::string>>;
class Properties {
 public:
  Properties() = default;
  explicit Properties(std::map<std::string, PropertyValue> values)
      : values_(std::move(values)) {}
  bool has(const std::string& key) const { return values_.count(key) > 0; }
  // The value of `key`, or `fallback` when it is absent or of another kind.
  int64_t get_int(const std::string& key, int64_t fallback = 0) const;
  std::string get_string(const std::string& key,
                         const std::string& fallback = "") const;
  std::vector<int64_t> get_ints(const std::string& key) const;
  std::vector<std::string> get_strings(const std::string& key) const;
  void set(const std::string& key, PropertyValue value) {
    values_[key] = std::move(value);
  }
  const std::map<std::string, PropertyValue>& values() const { return values_; }

 private:
  std::map<std::string, PropertyValue> values_;
};

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
  // Backend facts about the object (none by default).
  virtual Properties properties() const { return {}; }
};

// Where a buffer lives (`@ DRAM`, `@ AVX2`, ...). Code generation asks the
// memory for the C text of each operation on its buffers
// (memories-and-instructions.md §1); the defaults behave like DRAM.
class Memory : public ExternalObject {
 public:
  // What `write`/`reduce` are told about the statement they compile.
  struct Access {
    std::string buffer;  // the buffer's name as written
    SrcInfo srcinfo;
  };

  // C text emitted once in any library that uses the memory.
  virtual std::string global_() const;
  // C statement(s) allocating / releasing `name` (`shape` empty for scalars).
  virtual std::string alloc(const std::string& name, const std::string& ctype,
                            const std::vector<std::string>& shape,
                            const SrcInfo& srcinfo) const;
  virtual std::string free(const std::string& name, const std::string& ctype,
                           const std::vector<std::string>& shape,
                           const SrcInfo& srcinfo) const;
  // C l-value of the element at a window's origin. `base_is_window` says
  // whether `baseptr` names a window struct.
  virtual std::string window(const Type& basetype, const std::string& baseptr,
                             const std::vector<std::string>& indices,
                             const std::vector<std::string>& strides,
                             const SrcInfo& srcinfo) const;
  virtual bool can_read() const { return true; }
  virtual std::string write(const Access& s, const std::string& lhs,
                            const std::string& rhs) const;
  virtual std::string reduce(const Access& s, const std::string& lhs,
                             const std::string& rhs) const;
  // Register-like memories with a fixed number of slots (StaticMemory).
  virtual bool is_static() const { return false; }
  // Whether a buffer in this memory may be passed where `other` is expected
  // (Python: `issubclass`).
  virtual bool is_subclass_of(const Memory& other) const {
    return same_as(other);
  }
};
using MemoryPtr = std::shared_ptr<const Memory>;

// `generate_offset` of memories-and-instructions.md §1: the C offset
// `Σ index * stride` with zero terms dropped and units folded.
std::string generate_offset(const std::vector<std::string>& indices,
                            const std::vector<std::string>& strides);

// Thrown by `Extern::typecheck`; reported as a typechecking error at the call.
struct ExternTypecheckError {
  std::string message;
};

// A scalar C function usable in data expressions (`relu(x[i])`).
class Extern : public ExternalObject {
 public:
  // The result type for these argument types, or throws ExternTypecheckError.
  virtual Type typecheck(const std::vector<Type>& arg_types) const = 0;
  // The C expression of a call on compiled `args`, of C result type `ctype`.
  virtual std::string compile(const std::vector<std::string>& args,
                              const std::string& ctype) const;
  // C text emitted once per C type the library uses the extern at.
  virtual std::string globl(const std::string& ctype) const;
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

// What a sync statement orders (`cuda_in_order`, `cuda_async_proxy`, ...):
// a named object of the backend, printed by name (docs/cuda.md).
class SyncTimeline : public ExternalObject {};
using SyncTimelinePtr = std::shared_ptr<const SyncTimeline>;

// Backend metadata of an instruction (`@instr(..., unit=cuda_warp)`): its
// properties, and for instructions whose text needs more than a template,
// a generator of that text from the compiled arguments.
class InstrMetadata : public ExternalObject {
 public:
  virtual bool has_generator() const { return false; }
  // The lines emitted for one call; `args` holds what the backend compiled
  // for each parameter (keys documented by the backend).
  virtual std::string generate(const Properties& args) const;
};
using InstrMetadataPtr = std::shared_ptr<const InstrMetadata>;

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

// The memory of a buffer declared without `@ mem` and of the buffers that
// primitives create: the Python layer sets it to its `DRAM` class at import
// (so that every DRAM buffer has the same memory object), C++ alone uses
// NamedMemory::dram().
MemoryPtr default_memory();
void set_default_memory(MemoryPtr mem);

}  // namespace exo2
