#include "python_objects.hpp"

#include <pybind11/stl.h>

#include <unordered_map>
#include <variant>

namespace exo2::bindings {

py::object python_object_of(const ExternalObject& obj) {
  if (auto* view = dynamic_cast<const PythonBacked*>(&obj))
    return view->object();
  return py::none();
}

bool same_python_object(const ExternalObject& a, const ExternalObject& b) {
  if (&a == &b) return true;
  py::object pa = python_object_of(a);
  return !pa.is_none() && pa.is(python_object_of(b));
}

Properties python_properties(const py::object& obj) {
  if (!py::hasattr(obj, "backend_properties")) return {};
  py::object values = obj.attr("backend_properties")();
  Properties out;
  for (auto item : py::cast<py::dict>(values)) {
    const std::string key = py::str(item.first);
    py::handle v = item.second;
    if (py::isinstance<py::bool_>(v) || py::isinstance<py::int_>(v)) {
      out.set(key, v.cast<int64_t>());
    } else if (py::isinstance<py::str>(v)) {
      out.set(key, v.cast<std::string>());
    } else if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
      py::sequence seq = py::reinterpret_borrow<py::sequence>(v);
      bool all_ints = true;
      for (auto e : seq) all_ints &= py::isinstance<py::int_>(e);
      if (all_ints && py::len(seq) > 0)
        out.set(key, seq.cast<std::vector<int64_t>>());
      else {
        std::vector<std::string> strs;
        for (auto e : seq) strs.push_back(py::str(e));
        out.set(key, strs);
      }
    } else if (!v.is_none()) {
      out.set(key, std::string(py::str(v)));
    }
  }
  return out;
}

py::dict to_python(const Properties& props) {
  py::dict out;
  for (const auto& [key, value] : props.values())
    std::visit([&](const auto& v) { out[py::str(key)] = py::cast(v); }, value);
  return out;
}

std::string PythonMemory::name() const {
  return py::str(object().attr("name")());
}

std::string PythonMemory::global_() const {
  return py::str(object().attr("global_")());
}

std::string PythonMemory::alloc(const std::string& name,
                                const std::string& ctype,
                                const std::vector<std::string>& shape,
                                const SrcInfo& srcinfo) const {
  return py::str(object().attr("alloc")(name, ctype, shape, srcinfo));
}

std::string PythonMemory::free(const std::string& name,
                               const std::string& ctype,
                               const std::vector<std::string>& shape,
                               const SrcInfo& srcinfo) const {
  return py::str(object().attr("free")(name, ctype, shape, srcinfo));
}

std::string PythonMemory::window(const Type& basetype,
                                 const std::string& baseptr,
                                 const std::vector<std::string>& indices,
                                 const std::vector<std::string>& strides,
                                 const SrcInfo& srcinfo) const {
  return py::str(
      object().attr("window")(basetype, baseptr, indices, strides, srcinfo));
}

bool PythonMemory::can_read() const {
  return object().attr("can_read")().cast<bool>();
}

namespace {
// What Exo's memories read from the statement: its name and location.
py::object access_object(const Memory::Access& s) {
  return py::module_::import("types").attr("SimpleNamespace")(
      py::arg("name") = s.buffer, py::arg("srcinfo") = s.srcinfo);
}
}  // namespace

std::string PythonMemory::write(const Access& s, const std::string& lhs,
                                const std::string& rhs) const {
  return py::str(object().attr("write")(access_object(s), lhs, rhs));
}

std::string PythonMemory::reduce(const Access& s, const std::string& lhs,
                                 const std::string& rhs) const {
  return py::str(object().attr("reduce")(access_object(s), lhs, rhs));
}

bool PythonMemory::is_static() const {
  py::object base =
      py::module_::import("exo2.core.memory").attr("StaticMemory");
  return PyObject_IsSubclass(object().ptr(), base.ptr()) == 1;
}

bool PythonMemory::is_subclass_of(const Memory& other) const {
  py::object base = python_object_of(other);
  if (base.is_none()) return same_as(other);
  const int r = PyObject_IsSubclass(object().ptr(), base.ptr());
  if (r < 0) throw py::error_already_set();
  return r == 1;
}

std::string PythonExtern::name() const {
  return py::str(object().attr("name")());
}

Type PythonExtern::typecheck(const std::vector<Type>& arg_types) const {
  // Exo's externs receive argument expressions and read their `.type`.
  py::module_ types = py::module_::import("types");
  py::list args;
  for (const Type& t : arg_types)
    args.append(types.attr("SimpleNamespace")(py::arg("type") = t));
  try {
    return object().attr("typecheck")(args).cast<Type>();
  } catch (py::error_already_set& e) {
    py::object error_class =
        py::module_::import("exo2.core.extern").attr("Extern_Typecheck_Error");
    if (e.matches(error_class)) throw ExternTypecheckError{py::str(e.value())};
    throw;
  }
}

std::string PythonExtern::compile(const std::vector<std::string>& args,
                                  const std::string& ctype) const {
  return py::str(object().attr("compile")(args, ctype));
}

std::string PythonExtern::globl(const std::string& ctype) const {
  return py::str(object().attr("globl")(ctype));
}

std::string PythonLoopMode::name() const {
  return py::str(object().attr("name")());
}

std::string PythonLoopMode::extra_args() const {
  return py::str(object().attr("extra_args")());
}

bool PythonLoopMode::is_parallel() const {
  return object().attr("is_parallel")().cast<bool>();
}

std::string PythonWithContext::name() const {
  return py::str(py::type::of(object()).attr("__name__"));
}

std::string PythonWithContext::text() const { return py::str(object()); }

std::string PythonDimAnnotation::name() const {
  return py::str(py::type::of(object()).attr("__name__"));
}

std::string PythonDimAnnotation::text() const { return py::str(object()); }

std::string PythonSyncTimeline::name() const { return py::str(object()); }

std::string PythonInstrMetadata::name() const { return py::str(object()); }

bool PythonInstrMetadata::has_generator() const {
  return object().attr("has_generator")().cast<bool>();
}

std::string PythonInstrMetadata::generate(const Properties& args) const {
  return py::str(object().attr("generate")(to_python(args)));
}

namespace {
// Wrappers are kept alive for the life of the process, like the user
// objects they wrap (memories, externs and modes are module-level objects).
template <class Wrapper>
std::shared_ptr<const Wrapper> wrap(const py::object& obj) {
  // Deliberately leaked: destroying it at exit would release Python objects
  // after the interpreter has shut down.
  static auto* cache =
      new std::unordered_map<PyObject*, std::shared_ptr<const Wrapper>>();
  auto found = cache->find(obj.ptr());
  if (found != cache->end()) return found->second;
  auto wrapper = std::make_shared<const Wrapper>(obj);
  cache->emplace(obj.ptr(), wrapper);
  return wrapper;
}
}  // namespace

MemoryPtr wrap_memory(const py::object& cls) { return wrap<PythonMemory>(cls); }

ExternPtr wrap_extern(const py::object& obj) { return wrap<PythonExtern>(obj); }

LoopModePtr wrap_loop_mode(const py::object& obj) {
  return wrap<PythonLoopMode>(obj);
}

WithContextPtr wrap_with_context(const py::object& obj) {
  return wrap<PythonWithContext>(obj);
}

DimAnnotationPtr wrap_dim_annotation(const py::object& obj) {
  return wrap<PythonDimAnnotation>(obj);
}

SyncTimelinePtr wrap_sync_timeline(const py::object& obj) {
  return wrap<PythonSyncTimeline>(obj);
}

InstrMetadataPtr wrap_instr_metadata(const py::object& obj) {
  return wrap<PythonInstrMetadata>(obj);
}

}  // namespace exo2::bindings
