// The buffer dimension primitives for Python (exo2.primitives.buffer_dims):
// each binding takes the provenance of the procedure being scheduled, the
// allocation's cursor and plain values (untyped new expressions as
// ExprHandle), calls the C++ primitive and returns the provenance of the
// new procedure. Argument processing happens in Python first.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <vector>

#include "exo2/primitives/divide_dim.hpp"
#include "exo2/primitives/expand_dim.hpp"
#include "exo2/primitives/mult_dim.hpp"
#include "exo2/primitives/rearrange_dim.hpp"
#include "exo2/primitives/resize_dim.hpp"
#include "exo2/primitives/unroll_buffer.hpp"
#include "handles.hpp"

namespace exo2::bindings {

namespace py = pybind11;
using namespace exo2::primitives;

namespace {

ProvenanceHandle derive(const ProvenanceHandle& parent, cursors::EditResult r) {
  return {cursors::Provenance::derived(std::move(r.proc), parent.node,
                                       std::move(r.forwarding))};
}

const Proc& proc_of(const ProvenanceHandle& p) { return p.node->proc(); }

}  // namespace

void bind_buffer_dim_primitives(py::module_& m) {
  m.def(
      "resize_dim",
      [](const ProvenanceHandle& p, const CursorHandle& alloc, int dim,
         const ExprHandle& size, const ExprHandle& offset, bool fold) {
        return derive(p, resize_dim(proc_of(p), alloc.loc, dim, size.node,
                                    offset.node, fold));
      },
      py::arg("proc"), py::arg("alloc"), py::arg("dim"), py::arg("size"),
      py::arg("offset"), py::arg("fold"));
  m.def(
      "expand_dim",
      [](const ProvenanceHandle& p, const CursorHandle& alloc,
         const ExprHandle& alloc_dim, const ExprHandle& index) {
        return derive(
            p, expand_dim(proc_of(p), alloc.loc, alloc_dim.node, index.node));
      },
      py::arg("proc"), py::arg("alloc"), py::arg("alloc_dim"),
      py::arg("index"));
  m.def(
      "rearrange_dim",
      [](const ProvenanceHandle& p, const CursorHandle& alloc,
         const std::vector<int>& permutation) {
        return derive(p, rearrange_dim(proc_of(p), alloc.loc, permutation));
      },
      py::arg("proc"), py::arg("alloc"), py::arg("permutation"));
  m.def(
      "divide_dim",
      [](const ProvenanceHandle& p, const CursorHandle& alloc, int dim,
         int64_t quotient) {
        return derive(p, divide_dim(proc_of(p), alloc.loc, dim, quotient));
      },
      py::arg("proc"), py::arg("alloc"), py::arg("dim"), py::arg("quotient"));
  m.def(
      "mult_dim",
      [](const ProvenanceHandle& p, const CursorHandle& alloc, int hi, int lo) {
        return derive(p, mult_dim(proc_of(p), alloc.loc, hi, lo));
      },
      py::arg("proc"), py::arg("alloc"), py::arg("hi"), py::arg("lo"));
  m.def(
      "unroll_buffer",
      [](const ProvenanceHandle& p, const CursorHandle& alloc, int dim) {
        return derive(p, unroll_buffer(proc_of(p), alloc.loc, dim));
      },
      py::arg("proc"), py::arg("alloc"), py::arg("dim"));
}

}  // namespace exo2::bindings
