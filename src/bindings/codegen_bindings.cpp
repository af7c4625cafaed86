// C code generation for Python (docs/reference/generated-c.md), and the
// translation of code generation errors into the documented exceptions.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>

#include "exo2/analysis/written_buffers.hpp"
#include "exo2/backends/c_codegen.hpp"
#include "exo2/backends/c_names.hpp"
#include "exo2/backends/codegen_error.hpp"
#include "exo2/backends/codegen_passes.hpp"
#include "exo2/core_ir/printer.hpp"
#include "handles.hpp"
#include "python_objects.hpp"
#include "user_errors.hpp"

namespace exo2::bindings {

namespace py = pybind11;

namespace {

void raise_codegen_error(const CodegenError& e) {
  switch (e.kind()) {
    case CodegenError::Kind::Type:
      set_user_error(PyExc_TypeError, e.what());
      break;
    case CodegenError::Kind::Value:
      set_user_error(PyExc_ValueError, e.what());
      break;
    case CodegenError::Kind::MemGen:
      set_user_error("exo2.core.memory", "MemGenError", e.what());
      break;
    case CodegenError::Kind::Config:
      set_user_error("exo2.core.configs", "ConfigError", e.what());
      break;
  }
}

std::vector<Proc> unwrap(const std::vector<ProcHandle>& procs) {
  std::vector<Proc> out;
  for (const auto& p : procs) out.push_back(p.node);
  return out;
}

CodegenOptions options(const std::string& default_precision) {
  CodegenOptions o;
  if (!type_kind_from_name(default_precision, &o.default_precision))
    throw py::value_error("unknown precision: " + default_precision);
  return o;
}

}  // namespace

void bind_codegen(py::module_& m) {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const CodegenError& e) {
      raise_codegen_error(e);
    }
  });
  m.def(
      "compile_procs_to_strings",
      [](const std::vector<ProcHandle>& procs, const std::string& h_file_name,
         const std::string& default_precision) {
        return compile_procs_to_strings(unwrap(procs), h_file_name,
                                        options(default_precision));
      },
      py::arg("procs"), py::arg("h_file_name"),
      py::arg("default_precision") = "f32",
      "(c_text, h_text) of a library named after h_file_name's stem.");
  m.def(
      "compile_library",
      [](const std::string& lib_name, const std::vector<ProcHandle>& procs,
         const std::string& default_precision) {
        CLibrary lib = compile_library(lib_name, unwrap(procs),
                                       options(default_precision));
        py::list configs;
        for (const ConfigPtr& c : lib.configs)
          configs.append(python_object_of(*c));
        return py::make_tuple(lib.decls, lib.body, configs);
      },
      py::arg("lib_name"), py::arg("procs"),
      py::arg("default_precision") = "f32",
      "(declarations, body, configs) of a library: the header's "
      "declarations, the C file after its #include line, and the Config "
      "objects of the context struct in its order.");
  m.def(
      "config_struct_def",
      [](const PythonConfig& c) { return config_struct_def(c); },
      "The lines of the C struct holding a config's fields.");
  m.def("c_identifier", &c_identifier,
        "The C identifier of an object-language name: the name itself, or "
        "the name mangled when C, C++ or the included headers reserve it.");
  m.def(
      "proc_preconditions",
      [](const ProcHandle& p) {
        std::vector<std::string> out;
        for (const Expr& e : p.node->preds) out.push_back(print_expr(e));
        return out;
      },
      "The preconditions of a procedure, printed.");
  m.def(
      "written_params",
      [](const ProcHandle& p) {
        std::vector<std::string> out;
        const std::vector<Sym> written = written_buffers(p.node->body);
        for (const FnArg& a : p.node->args)
          if (std::find(written.begin(), written.end(), a.name) !=
              written.end())
            out.push_back(a.name.name());
        return out;
      },
      "Names of the parameters the procedure writes.");
}

}  // namespace exo2::bindings
