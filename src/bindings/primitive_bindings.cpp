// The scheduling primitives for Python (exo2.primitives): each binding takes
// the provenance of the procedure being scheduled, internal cursors and
// plain values, calls the C++ primitive, and returns the provenance of the
// new procedure (its parent and forwarding recorded). Argument processing
// happens in Python before; SchedulingError is translated in module.cpp.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <stdexcept>

#include "exo2/core_ir/symbol_table.hpp"
#include "exo2/primitives/add_loop.hpp"
#include "exo2/primitives/cut_loop.hpp"
#include "exo2/primitives/divide_loop.hpp"
#include "exo2/primitives/divide_with_recompute.hpp"
#include "exo2/primitives/eliminate_dead_code.hpp"
#include "exo2/primitives/fission.hpp"
#include "exo2/primitives/fuse.hpp"
#include "exo2/primitives/join_loops.hpp"
#include "exo2/primitives/lift_scope.hpp"
#include "exo2/primitives/mult_loops.hpp"
#include "exo2/primitives/new_expressions.hpp"
#include "exo2/primitives/remove_loop.hpp"
#include "exo2/primitives/reorder_loops.hpp"
#include "exo2/primitives/shift_loop.hpp"
#include "exo2/primitives/simplify.hpp"
#include "exo2/primitives/specialize.hpp"
#include "exo2/primitives/unroll_loop.hpp"
#include "exo2/primitives/widen_loop.hpp"
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

ExprCategory category_named(const std::string& name) {
  if (name == "control") return ExprCategory::Control;
  if (name == "bool") return ExprCategory::Bool;
  if (name == "data") return ExprCategory::Data;
  if (name == "any") return ExprCategory::Any;
  throw std::invalid_argument("unknown expression category " + name);
}

const char* category_name(ExprCategory category) {
  switch (category) {
    case ExprCategory::Control:
      return "control";
    case ExprCategory::Bool:
      return "bool";
    case ExprCategory::Data:
      return "data";
    case ExprCategory::Any:
      break;
  }
  return "any";
}

TailStrategy tail_strategy(const std::string& name) {
  if (name == "cut") return TailStrategy::Cut;
  if (name == "cut_and_guard") return TailStrategy::CutAndGuard;
  return TailStrategy::Guard;
}

}  // namespace

void bind_primitives(py::module_& m) {
  m.def(
      "variables_in_scope",
      [](const CursorHandle& c) {
        py::list out;
        for (const SymbolInfo& v : variables_in_scope(c.proc, c.loc.path))
          out.append(py::make_tuple(v.sym.name(), v.sym,
                                    v.type.kind() == TypeKind::Size));
        return out;
      },
      "(name, Sym, is_size) of the variables visible before the statement "
      "at a cursor, outermost first: the scope of new expressions.");
  m.def(
      "check_new_expr",
      [](const CursorHandle& stmt, const ExprHandle& untyped,
         const std::string& category) {
        typecheck_in_scope(stmt.proc, stmt.loc.path, untyped.node,
                           category_named(category));
      },
      py::arg("stmt"), py::arg("expr"), py::arg("category"),
      "Types a new expression in the scope before the statement at a "
      "cursor; TypeError (KernelCheckError) when it does not typecheck or is "
      "not of the category: 'control' (index), 'bool', 'data' or 'any'.");
  m.def(
      "expr_category",
      [](const CursorHandle& expr) {
        return category_name(category_of(expr.expr()->type));
      },
      "The category ('control', 'bool', 'data' or 'any') of the expression "
      "at a cursor: what an expression replacing it must be.");

  m.def(
      "divide_loop",
      [](const ProvenanceHandle& p, const CursorHandle& loop, int64_t quotient,
         const std::string& outer, const std::string& inner,
         const std::string& tail, bool perfect) {
        return derive(p, divide_loop(proc_of(p), loop.loc, quotient, outer,
                                     inner, tail_strategy(tail), perfect));
      },
      py::arg("proc"), py::arg("loop"), py::arg("quotient"), py::arg("outer"),
      py::arg("inner"), py::arg("tail"), py::arg("perfect"));
  m.def("reorder_loops",
        [](const ProvenanceHandle& p, const CursorHandle& outer) {
          return derive(p, reorder_loops(proc_of(p), outer.loc));
        });
  m.def("unroll_loop", [](const ProvenanceHandle& p, const CursorHandle& loop) {
    return derive(p, unroll_loop(proc_of(p), loop.loc));
  });
  m.def("mult_loops", [](const ProvenanceHandle& p, const CursorHandle& outer,
                         const std::string& new_iter) {
    return derive(p, mult_loops(proc_of(p), outer.loc, new_iter));
  });
  m.def("join_loops", [](const ProvenanceHandle& p, const CursorHandle& loop1,
                         const CursorHandle& loop2) {
    return derive(p, join_loops(proc_of(p), loop1.loc, loop2.loc));
  });
  m.def(
      "divide_with_recompute",
      [](const ProvenanceHandle& p, const CursorHandle& loop,
         const ExprHandle& outer_hi, int64_t outer_stride,
         const std::string& outer, const std::string& inner) {
        return derive(p,
                      divide_with_recompute(proc_of(p), loop.loc, outer_hi.node,
                                            outer_stride, outer, inner));
      },
      py::arg("proc"), py::arg("loop"), py::arg("outer_hi"),
      py::arg("outer_stride"), py::arg("outer"), py::arg("inner"));
  m.def("cut_loop", [](const ProvenanceHandle& p, const CursorHandle& loop,
                       const ExprHandle& cut) {
    return derive(p, cut_loop(proc_of(p), loop.loc, cut.node));
  });
  m.def("shift_loop", [](const ProvenanceHandle& p, const CursorHandle& loop,
                         const ExprHandle& new_lo) {
    return derive(p, shift_loop(proc_of(p), loop.loc, new_lo.node));
  });
  m.def("widen_loop", [](const ProvenanceHandle& p, const CursorHandle& loop,
                         const std::optional<ExprHandle>& new_lo,
                         const std::optional<ExprHandle>& new_hi) {
    auto node = [](const std::optional<ExprHandle>& e) {
      return e ? std::optional<Expr>(e->node) : std::nullopt;
    };
    return derive(p,
                  widen_loop(proc_of(p), loop.loc, node(new_lo), node(new_hi)));
  });
  m.def("remove_loop", [](const ProvenanceHandle& p, const CursorHandle& loop,
                          bool unsafe_disable_check) {
    return derive(p, remove_loop(proc_of(p), loop.loc, unsafe_disable_check));
  });
  m.def("fission", [](const ProvenanceHandle& p, const CursorHandle& gap,
                      int n_lifts, bool unsafe_disable_checks) {
    return derive(p,
                  fission(proc_of(p), gap.loc, n_lifts, unsafe_disable_checks));
  });
  m.def("fuse", [](const ProvenanceHandle& p, const CursorHandle& first,
                   const CursorHandle& second, bool unsafe_disable_check) {
    return derive(
        p, fuse(proc_of(p), first.loc, second.loc, unsafe_disable_check));
  });
  m.def("add_loop", [](const ProvenanceHandle& p, const CursorHandle& stmt,
                       const std::string& iter, const ExprHandle& hi,
                       bool guard, bool unsafe_disable_check) {
    return derive(p, add_loop(proc_of(p), stmt.loc, iter, hi.node, guard,
                              unsafe_disable_check));
  });
  m.def("eliminate_dead_code",
        [](const ProvenanceHandle& p, const CursorHandle& stmt) {
          return derive(p, eliminate_dead_code(proc_of(p), stmt.loc));
        });
  m.def("lift_scope", [](const ProvenanceHandle& p, const CursorHandle& scope) {
    return derive(p, lift_scope(proc_of(p), scope.loc));
  });
  m.def("specialize", [](const ProvenanceHandle& p, const CursorHandle& block,
                         const std::vector<ExprHandle>& conds) {
    std::vector<Expr> exprs;
    for (const ExprHandle& c : conds) exprs.push_back(c.node);
    return derive(p, specialize(proc_of(p), block.loc, exprs));
  });
  m.def("simplify", [](const ProvenanceHandle& p) {
    return derive(p, primitives::simplify(proc_of(p)));
  });
}

}  // namespace exo2::bindings
