// The CUDA backend for Python (docs/cuda.md): the library compiler, the
// parallel check, and the GPU primitives (exo2.platforms.cuda). Argument
// processing happens in Python first; SchedulingError, CheckError
// (ParallelSafetyError) and CodegenError are translated in one place
// (module.cpp, codegen_bindings.cpp).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "exo2/backends/cuda_codegen.hpp"
#include "exo2/primitives/gpu_annotations.hpp"
#include "handles.hpp"
#include "python_objects.hpp"

namespace exo2::bindings {

namespace py = pybind11;
using namespace exo2::primitives;

namespace {

ProvenanceHandle derive(const ProvenanceHandle& parent, cursors::EditResult r) {
  return {cursors::Provenance::derived(std::move(r.proc), parent.node,
                                       std::move(r.forwarding))};
}

const Proc& proc_of(const ProvenanceHandle& p) { return p.node->proc(); }

std::vector<Expr> exprs(const std::vector<ExprHandle>& es) {
  std::vector<Expr> out;
  for (const auto& e : es) out.push_back(e.node);
  return out;
}

SyncTimelinePtr timeline(const py::object& t) {
  return t.is_none() ? nullptr : wrap_sync_timeline(t);
}

LoopModePtr mode_of(const py::object& mode) {
  if (py::isinstance<py::str>(mode)) {
    const std::string name = mode.cast<std::string>();
    if (name == "seq") return LoopMode::seq();
    if (name == "par") return LoopMode::par();
    throw py::value_error("unknown loop mode: " + name);
  }
  return wrap_loop_mode(mode);
}

}  // namespace

void bind_cuda(py::module_& m) {
  m.def(
      "compile_cuda_library",
      [](const std::vector<ProcHandle>& procs, const std::string& stem) {
        std::vector<Proc> ps;
        for (const auto& p : procs) ps.push_back(p.node);
        CudaLibrary lib = compile_cuda_library(ps, stem);
        return py::make_tuple(lib.files, lib.needs_sm90);
      },
      py::arg("procs"), py::arg("stem"),
      "({file name: text}, needs_sm90) of a CUDA library.");
  m.def(
      "check_parallel",
      [](const ProcHandle& p, const std::map<std::string, int64_t>& sizes,
         bool tier_b, int sms) {
        ParallelCheckReport r = check_parallel(p.node, sizes, tier_b, sms);
        py::dict out;
        out["tiers"] = r.tiers;
        out["kernels"] = r.kernels;
        out["events"] = r.events;
        out["seconds"] = r.seconds;
        return out;
      },
      py::arg("proc"), py::arg("sizes"), py::arg("tier_b"), py::arg("sms"),
      "Tier A, and tier B with the sizes; a dict report.");

  m.def("set_loop_mode", [](const ProvenanceHandle& p, const CursorHandle& loop,
                            const py::object& mode) {
    return derive(p, set_loop_mode(proc_of(p), loop.loc, mode_of(mode)));
  });
  m.def("wrap_with", [](const ProvenanceHandle& p, const CursorHandle& block,
                        const py::object& ctx) {
    return derive(p, wrap_with(proc_of(p), block.loc, wrap_with_context(ctx)));
  });
  m.def("unwrap_with", [](const ProvenanceHandle& p, const CursorHandle& w) {
    return derive(p, unwrap_with(proc_of(p), w.loc));
  });
  m.def("insert_fence", [](const ProvenanceHandle& p, const CursorHandle& gap,
                           const py::object& pre, const py::object& post) {
    return derive(
        p, insert_fence(proc_of(p), gap.loc, timeline(pre), timeline(post)));
  });
  m.def("insert_arrive", [](const ProvenanceHandle& p, const CursorHandle& gap,
                            const py::object& pre,
                            const std::vector<ExprHandle>& targets) {
    return derive(
        p, insert_arrive(proc_of(p), gap.loc, timeline(pre), exprs(targets)));
  });
  m.def("insert_await", [](const ProvenanceHandle& p, const CursorHandle& gap,
                           const ExprHandle& target, const py::object& post) {
    return derive(
        p, insert_await(proc_of(p), gap.loc, target.node, timeline(post)));
  });
  m.def("delete_sync", [](const ProvenanceHandle& p, const CursorHandle& s) {
    return derive(p, delete_sync(proc_of(p), s.loc));
  });
  m.def("set_trailing_barrier",
        [](const ProvenanceHandle& p, const CursorHandle& call,
           const std::vector<ExprHandle>& targets) {
          return derive(
              p, set_trailing_barrier(proc_of(p), call.loc, exprs(targets)));
        });
  m.def("alloc_barrier",
        [](const ProvenanceHandle& p, const CursorHandle& gap,
           const std::string& name, const std::vector<ExprHandle>& shape,
           const py::object& mem) {
          return derive(p, alloc_barrier(proc_of(p), gap.loc, name,
                                         exprs(shape), wrap_memory(mem)));
        });
  m.def("set_dim_annotation", [](const ProvenanceHandle& p,
                                 const CursorHandle& alloc, int dim,
                                 const py::object& annotation) {
    return derive(p, set_dim_annotation(proc_of(p), alloc.loc, dim,
                                        annotation.is_none()
                                            ? nullptr
                                            : wrap_dim_annotation(annotation)));
  });
}

}  // namespace exo2::bindings
