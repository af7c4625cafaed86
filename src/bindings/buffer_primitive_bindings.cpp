// The buffer primitives for Python (exo2.primitives.buffers): each binding
// takes the provenance of the procedure being scheduled, internal cursors
// and plain values, calls the C++ primitive and returns the provenance of
// the new procedure. Argument processing happens in Python first;
// SchedulingError is translated in module.cpp.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "exo2/primitives/autofission.hpp"
#include "exo2/primitives/autolift_alloc.hpp"
#include "exo2/primitives/bind_expr.hpp"
#include "exo2/primitives/delete_buffer.hpp"
#include "exo2/primitives/inline_window.hpp"
#include "exo2/primitives/lift_alloc.hpp"
#include "exo2/primitives/reuse_buffer.hpp"
#include "exo2/primitives/sink_alloc.hpp"
#include "exo2/primitives/stage_mem.hpp"
#include "handles.hpp"
#include "user_errors.hpp"

namespace exo2::bindings {

namespace py = pybind11;
using namespace exo2::primitives;

namespace {

ProvenanceHandle derive(const ProvenanceHandle& parent, cursors::EditResult r) {
  return {cursors::Provenance::derived(std::move(r.proc), parent.node,
                                       std::move(r.forwarding))};
}

// A legacy op: the new procedure has no forwarding.
ProvenanceHandle derive_unforwarded(const ProvenanceHandle& parent, Proc p) {
  return {
      cursors::Provenance::derived(std::move(p), parent.node, std::nullopt)};
}

const Proc& proc_of(const ProvenanceHandle& p) { return p.node->proc(); }

}  // namespace

void bind_buffer_primitives(py::module_& m) {
  m.def(
      "bind_expr",
      [](const ProvenanceHandle& p, const std::vector<CursorHandle>& exprs,
         const std::string& new_name) {
        std::vector<cursors::Location> locs;
        for (const CursorHandle& c : exprs) locs.push_back(c.loc);
        return derive(p, bind_expr(proc_of(p), locs, new_name));
      },
      py::arg("proc"), py::arg("exprs"), py::arg("new_name"));
  m.def(
      "stage_mem",
      [](const ProvenanceHandle& p, const CursorHandle& block,
         const ExprHandle& window, const std::string& new_name, bool accum) {
        return derive(
            p, stage_mem(proc_of(p), block.loc, window.node, new_name, accum));
      },
      py::arg("proc"), py::arg("block"), py::arg("window"), py::arg("new_name"),
      py::arg("accum"));
  m.def(
      "lift_alloc",
      [](const ProvenanceHandle& p, const CursorHandle& alloc, int n_lifts) {
        return derive(p, lift_alloc(proc_of(p), alloc.loc, n_lifts));
      },
      py::arg("proc"), py::arg("alloc"), py::arg("n_lifts"));
  m.def(
      "autolift_alloc",
      [](const ProvenanceHandle& p, const CursorHandle& alloc, int n_lifts,
         const std::string& mode, std::optional<int64_t> size, bool keep_dims) {
        return derive_unforwarded(
            p, autolift_alloc(proc_of(p), alloc.loc, n_lifts, mode, size,
                              keep_dims));
      },
      py::arg("proc"), py::arg("alloc"), py::arg("n_lifts"), py::arg("mode"),
      py::arg("size"), py::arg("keep_dims"));
  m.def(
      "sink_alloc",
      [](const ProvenanceHandle& p, const CursorHandle& alloc) {
        try {
          return derive(p, sink_alloc(proc_of(p), alloc.loc));
        } catch (const SinkAllocTargetError& e) {
          throw_user_error(PyExc_ValueError, e.what());
        }
      },
      py::arg("proc"), py::arg("alloc"));
  m.def(
      "delete_buffer",
      [](const ProvenanceHandle& p, const CursorHandle& alloc) {
        return derive(p, delete_buffer(proc_of(p), alloc.loc));
      },
      py::arg("proc"), py::arg("alloc"));
  m.def(
      "reuse_buffer",
      [](const ProvenanceHandle& p, const CursorHandle& buffer,
         const CursorHandle& replaced) {
        return derive(p, reuse_buffer(proc_of(p), buffer.loc, replaced.loc));
      },
      py::arg("proc"), py::arg("buffer"), py::arg("replaced"));
  m.def(
      "inline_window",
      [](const ProvenanceHandle& p, const CursorHandle& window) {
        return derive(p, inline_window(proc_of(p), window.loc));
      },
      py::arg("proc"), py::arg("window"));
  m.def(
      "autofission",
      [](const ProvenanceHandle& p, const CursorHandle& gap, int n_lifts) {
        return derive_unforwarded(p, autofission(proc_of(p), gap.loc, n_lifts));
      },
      py::arg("proc"), py::arg("gap"), py::arg("n_lifts"));
}

}  // namespace exo2::bindings
