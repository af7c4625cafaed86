// C++ views of user objects defined in Python: memories, externs, configs,
// loop modes and `with` contexts. Each holds the Python object and answers
// the core's questions by calling it. Identity is Python identity (`is`).
#pragma once

#include <pybind11/pybind11.h>

#include "exo2/core_ir/extension.hpp"

namespace exo2::bindings {

namespace py = pybind11;

// Whether two core objects wrap the same Python object.
bool same_python_object(const ExternalObject& a, const ExternalObject& b);

// The Python object a core object wraps, or None.
py::object python_object_of(const ExternalObject& obj);

// A `Memory` subclass (the class object itself is the annotation value).
class PythonMemory : public Memory {
 public:
  explicit PythonMemory(py::object cls) : cls_(std::move(cls)) {}
  std::string name() const override;
  bool same_as(const ExternalObject& other) const override {
    return same_python_object(*this, other);
  }
  const py::object& object() const { return cls_; }

 private:
  py::object cls_;
};

// An `exo2.Extern` instance.
class PythonExtern : public Extern {
 public:
  explicit PythonExtern(py::object obj) : obj_(std::move(obj)) {}
  std::string name() const override;
  Type typecheck(const std::vector<Type>& arg_types) const override;
  bool same_as(const ExternalObject& other) const override {
    return same_python_object(*this, other);
  }
  const py::object& object() const { return obj_; }

 private:
  py::object obj_;
};

// An `exo2.core.extensions.LoopMode` object (anything but seq and par).
class PythonLoopMode : public LoopMode {
 public:
  explicit PythonLoopMode(py::object obj) : obj_(std::move(obj)) {}
  std::string name() const override;
  std::string extra_args() const override;
  bool is_parallel() const override;
  bool same_as(const ExternalObject& other) const override {
    return same_python_object(*this, other);
  }
  const py::object& object() const { return obj_; }

 private:
  py::object obj_;
};

// An `exo2.core.extensions.WithContext` object.
class PythonWithContext : public WithContext {
 public:
  explicit PythonWithContext(py::object obj) : obj_(std::move(obj)) {}
  std::string name() const override;
  std::string text() const override;
  bool same_as(const ExternalObject& other) const override {
    return same_python_object(*this, other);
  }
  const py::object& object() const { return obj_; }

 private:
  py::object obj_;
};

// A dimension annotation object (`ring(4)`, a CUDA unit), printed with str().
class PythonDimAnnotation : public DimAnnotation {
 public:
  explicit PythonDimAnnotation(py::object obj) : obj_(std::move(obj)) {}
  std::string name() const override;
  std::string text() const override;
  bool same_as(const ExternalObject& other) const override {
    return same_python_object(*this, other);
  }
  const py::object& object() const { return obj_; }

 private:
  py::object obj_;
};

// Backend data of a sync statement (fence, arrive, await).
class PythonSyncInfo : public ExternalObject {
 public:
  explicit PythonSyncInfo(py::object obj) : obj_(std::move(obj)) {}
  std::string name() const override;
  bool same_as(const ExternalObject& other) const override {
    return same_python_object(*this, other);
  }
  const py::object& object() const { return obj_; }

 private:
  py::object obj_;
};

// The core's view of a `@config` class; `object` is the user's Config.
class PythonConfig : public Config {
 public:
  PythonConfig(std::string name,
               std::vector<std::pair<std::string, Type>> fields, bool allow_rw,
               py::object obj)
      : Config(std::move(name), std::move(fields), allow_rw),
        obj_(std::move(obj)) {}
  bool same_as(const ExternalObject& other) const override {
    return same_python_object(*this, other);
  }
  const py::object& object() const { return obj_; }

 private:
  py::object obj_;
};

// Wrapping functions that return one shared wrapper per Python object, so
// that wrappers of one object compare equal cheaply.
MemoryPtr wrap_memory(const py::object& cls);
ExternPtr wrap_extern(const py::object& obj);
LoopModePtr wrap_loop_mode(const py::object& obj);
WithContextPtr wrap_with_context(const py::object& obj);
DimAnnotationPtr wrap_dim_annotation(const py::object& obj);
std::shared_ptr<const ExternalObject> wrap_sync_info(const py::object& obj);

}  // namespace exo2::bindings
