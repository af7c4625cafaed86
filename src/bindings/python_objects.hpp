// C++ views of user objects defined in Python: memories, externs, configs,
// loop modes, `with` contexts, dimension annotations and sync data. Each
// holds the Python object and answers the core's questions by calling it.
// Identity is Python identity (`is`).
#pragma once

#include <pybind11/pybind11.h>

#include <optional>

#include "exo2/core_ir/extension.hpp"

namespace exo2::bindings {

namespace py = pybind11;

// What every view shares: the Python object it wraps.
class PythonBacked {
 public:
  explicit PythonBacked(py::object obj) : obj_(std::move(obj)) {}
  virtual ~PythonBacked() = default;
  const py::object& object() const { return obj_; }

 private:
  py::object obj_;
};

// The Python object a core object wraps, or None.
py::object python_object_of(const ExternalObject& obj);

// Whether two core objects wrap the same Python object.
bool same_python_object(const ExternalObject& a, const ExternalObject& b);

// The backend properties of a Python object: its `backend_properties()`
// dict (ints, strings and lists of them), or none without that method.
Properties python_properties(const py::object& obj);
// The Python dict of core properties (the argument of generators).
py::dict to_python(const Properties& props);

// A core interface `Base` implemented by a Python object.
template <class Base>
class PythonView : public Base, public PythonBacked {
 public:
  template <class... Args>
  explicit PythonView(py::object obj, Args&&... base_args)
      : Base(std::forward<Args>(base_args)...), PythonBacked(std::move(obj)) {}
  bool same_as(const ExternalObject& other) const override {
    return same_python_object(*this, other);
  }
  Properties properties() const override {
    if (!properties_) properties_ = python_properties(object());
    return *properties_;
  }

 private:
  // Read once: the objects are immutable descriptions.
  mutable std::optional<Properties> properties_;
};

// A `Memory` subclass (the class object itself is the annotation value).
// Code generation calls its classmethods (memories-and-instructions.md §1);
// a MemGenError they raise reaches the user unchanged.
class PythonMemory : public PythonView<Memory> {
 public:
  using PythonView::PythonView;
  std::string name() const override;
  std::string global_() const override;
  std::string alloc(const std::string& name, const std::string& ctype,
                    const std::vector<std::string>& shape,
                    const SrcInfo& srcinfo) const override;
  std::string free(const std::string& name, const std::string& ctype,
                   const std::vector<std::string>& shape,
                   const SrcInfo& srcinfo) const override;
  std::string window(const Type& basetype, const std::string& baseptr,
                     const std::vector<std::string>& indices,
                     const std::vector<std::string>& strides,
                     const SrcInfo& srcinfo) const override;
  bool can_read() const override;
  std::string write(const Access& s, const std::string& lhs,
                    const std::string& rhs) const override;
  std::string reduce(const Access& s, const std::string& lhs,
                     const std::string& rhs) const override;
  bool is_static() const override;
  bool is_subclass_of(const Memory& other) const override;
};

// An `exo2.Extern` instance.
class PythonExtern : public PythonView<Extern> {
 public:
  using PythonView::PythonView;
  std::string name() const override;
  Type typecheck(const std::vector<Type>& arg_types) const override;
  std::string compile(const std::vector<std::string>& args,
                      const std::string& ctype) const override;
  std::string globl(const std::string& ctype) const override;
};

// An `exo2.core.extensions.LoopMode` object (anything but seq and par).
class PythonLoopMode : public PythonView<LoopMode> {
 public:
  using PythonView::PythonView;
  std::string name() const override;
  std::string extra_args() const override;
  bool is_parallel() const override;
};

// An `exo2.core.extensions.WithContext` object; printed with str().
class PythonWithContext : public PythonView<WithContext> {
 public:
  using PythonView::PythonView;
  std::string name() const override;
  std::string text() const override;
};

// An `exo2.core.extensions.DimAnnotation` (`ring(4)`); printed with str().
class PythonDimAnnotation : public PythonView<DimAnnotation> {
 public:
  using PythonView::PythonView;
  std::string name() const override;
  std::string text() const override;
};

// A timeline named by sync statements (`cuda_in_order`); printed with
// str().
class PythonSyncTimeline : public PythonView<SyncTimeline> {
 public:
  using PythonView::PythonView;
  std::string name() const override;
};

// The backend metadata of an `@instr` (exo2.core.extensions.InstrMetadata).
class PythonInstrMetadata : public PythonView<InstrMetadata> {
 public:
  using PythonView::PythonView;
  std::string name() const override;
  bool has_generator() const override;
  std::string generate(const Properties& args) const override;
};

// The core's view of a `@config` class; the object is the user's Config.
class PythonConfig : public PythonView<Config> {
 public:
  PythonConfig(std::string name,
               std::vector<std::pair<std::string, Type>> fields, bool allow_rw,
               py::object obj)
      : PythonView(std::move(obj), std::move(name), std::move(fields),
                   allow_rw) {}
};

// One shared view per Python object, so views of one object compare equal
// cheaply.
MemoryPtr wrap_memory(const py::object& cls);
ExternPtr wrap_extern(const py::object& obj);
LoopModePtr wrap_loop_mode(const py::object& obj);
WithContextPtr wrap_with_context(const py::object& obj);
DimAnnotationPtr wrap_dim_annotation(const py::object& obj);
SyncTimelinePtr wrap_sync_timeline(const py::object& obj);
InstrMetadataPtr wrap_instr_metadata(const py::object& obj);

}  // namespace exo2::bindings
