// Cursors for Python (exo2.API_cursors): navigation and inspection over
// (procedure, location) pairs, pattern search, provenance, and the
// translation of cursor errors into Python's InvalidCursorError,
// PatternMatchError and NotImplementedError.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "exo2/core_ir/ir_functor.hpp"
#include "exo2/core_ir/printer.hpp"
#include "exo2/cursors/edits.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/cursors/pattern.hpp"
#include "exo2/cursors/provenance.hpp"
#include "handles.hpp"
#include "python_objects.hpp"
#include "user_errors.hpp"

namespace exo2::bindings {

namespace py = pybind11;
using namespace exo2::cursors;

namespace {

using MaybeCursor = std::optional<CursorHandle>;

MaybeCursor wrap(const CursorHandle& c, std::optional<Location> loc) {
  if (!loc) return std::nullopt;
  return c.at(std::move(*loc));
}

// "Proc", "Param", "Block", "Gap", or the statement / expression kind.
std::string kind_of(const CursorHandle& c) {
  if (c.loc.kind == LocationKind::Block) return "Block";
  if (c.loc.kind == LocationKind::Gap) return "Gap";
  NodeRef n = c.node();
  switch (n.kind) {
    case NodeRef::Kind::Proc:
      return "Proc";
    case NodeRef::Kind::Param:
      return "Param";
    case NodeRef::Kind::Stmt:
      return kind_name(n.stmt->kind);
    case NodeRef::Kind::Expr:
      return kind_name(n.expr->kind);
  }
  return "?";
}

Slot slot_named(const std::string& name) {
  static const std::pair<const char*, Slot> names[] = {
      {"body", Slot::Body},   {"orelse", Slot::Orelse},
      {"cond", Slot::Cond},   {"lo", Slot::Lo},
      {"hi", Slot::Hi},       {"rhs", Slot::Rhs},
      {"lhs", Slot::Lhs},     {"arg", Slot::Operand},
      {"idx", Slot::Idx},     {"args", Slot::Arg},
      {"shape", Slot::Shape}, {"barriers", Slot::Barrier}};
  for (const auto& [n, s] : names)
    if (name == n) return s;
  throw py::value_error("unknown slot: " + name);
}

CursorHandle child(const CursorHandle& c, const std::string& slot, int index) {
  Path p = c.loc.path;
  p.push_back(Step{slot_named(slot), index});
  resolve(c.proc, p);
  return c.at(Location::node(std::move(p)));
}

// The cursors of a list slot (`idx`, `args`, `shape`), in order.
std::vector<CursorHandle> children(const CursorHandle& c,
                                   const std::string& slot) {
  std::vector<CursorHandle> out;
  const Slot s = slot_named(slot);
  NodeRef n = c.node();
  for (int i = 0;; i++) {
    const Step step{s, i};
    Expr e = n.kind == NodeRef::Kind::Param  ? child_expr(*n.param, step)
             : n.kind == NodeRef::Kind::Stmt ? child_expr(n.stmt, step)
                                             : child_expr(n.expr, step);
    if (!e) break;
    Path p = c.loc.path;
    p.push_back(step);
    out.push_back(c.at(Location::node(std::move(p))));
  }
  return out;
}

// WindowExpr idx: a cursor per point, a (lo, hi) pair per interval.
py::list window_idx(const CursorHandle& c) {
  py::list out;
  const auto& w = c.expr()->as<WindowExpr>();
  for (int i = 0; i < static_cast<int>(w.idx.size()); i++) {
    auto sub = [&](Slot s) {
      Path p = c.loc.path;
      p.push_back(Step{s, i});
      return c.at(Location::node(std::move(p)));
    };
    if (w.idx[i].is_interval)
      out.append(py::make_tuple(sub(Slot::WindowLo), sub(Slot::WindowHi)));
    else
      out.append(sub(Slot::Idx));
  }
  return out;
}

// The name a cursor's `name()` reports: what a statement or expression
// declares, writes, reads or calls.
class StmtName final : public StmtFunctor<std::string()> {
 protected:
  std::string visit_assign(const Stmt& s) override {
    return s->as<Assign>().name.name();
  }
  std::string visit_for(const Stmt& s) override {
    return s->as<For>().iter.name();
  }
  std::string visit_alloc(const Stmt& s) override {
    return s->as<Alloc>().name.name();
  }
  std::string visit_window_stmt(const Stmt& s) override {
    return s->as<WindowStmt>().name.name();
  }
  std::string visit_call(const Stmt& s) override {
    return s->as<Call>().f->name;
  }
  std::string visit_stmt_default(const Stmt&) override {
    throw py::type_error("this cursor has no name");
  }
};

class ExprName final : public ExprFunctor<std::string()> {
 protected:
  std::string visit_read(const Expr& e) override {
    return e->as<Read>().name.name();
  }
  std::string visit_window_expr(const Expr& e) override {
    return e->as<WindowExpr>().name.name();
  }
  std::string visit_stride_expr(const Expr& e) override {
    return e->as<StrideExpr>().name.name();
  }
  std::string visit_extern_call(const Expr& e) override {
    return e->as<ExternCall>().f->name();
  }
  std::string visit_expr_default(const Expr&) override {
    throw py::type_error("this cursor has no name");
  }
};

std::string name_of(const CursorHandle& c) {
  NodeRef n = c.node();
  if (n.kind == NodeRef::Kind::Param) return n.param->name.name();
  if (n.kind == NodeRef::Kind::Stmt) return StmtName().visit(n.stmt);
  if (n.kind == NodeRef::Kind::Expr) return ExprName().visit(n.expr);
  throw py::type_error("this cursor has no name");
}

// The type a cursor's `type()` reports: an argument's or allocation's
// element type, an assignment's buffer element type, an expression's type.
Type type_of(const CursorHandle& c) {
  NodeRef n = c.node();
  if (n.kind == NodeRef::Kind::Param) return n.param->type;
  if (n.kind == NodeRef::Kind::Expr) return n.expr->type;
  const Stmt& s = n.stmt;
  if (s->kind == StmtKind::Assign || s->kind == StmtKind::Reduce)
    return s->as<Assign>().type;
  if (s->kind == StmtKind::Alloc || s->kind == StmtKind::Free)
    return s->as<Alloc>().type;
  throw py::type_error("this cursor has no type");
}

py::object mem_of(const CursorHandle& c) {
  NodeRef n = c.node();
  MemoryPtr mem =
      n.kind == NodeRef::Kind::Param ? n.param->mem : n.stmt->as<Alloc>().mem;
  return mem ? python_object_of(*mem) : py::none();
}

py::object config_of(const CursorHandle& c) {
  NodeRef n = c.node();
  const ConfigPtr& cfg = n.kind == NodeRef::Kind::Stmt
                             ? n.stmt->as<WriteConfig>().config
                             : n.expr->as<ReadConfig>().config;
  return python_object_of(*cfg);
}

std::string field_of(const CursorHandle& c) {
  NodeRef n = c.node();
  return n.kind == NodeRef::Kind::Stmt ? n.stmt->as<WriteConfig>().field
                                       : n.expr->as<ReadConfig>().field;
}

// bool, int for control literals, float for data literals.
py::object literal_value(const CursorHandle& c) {
  const Expr e = c.expr();
  const ConstValue& v = e->as<Const>().value;
  if (const bool* b = std::get_if<bool>(&v)) return py::bool_(*b);
  if (e->type.is_real_scalar() || e->type.is_numeric())
    return py::float_(std::holds_alternative<int64_t>(v)
                          ? static_cast<double>(std::get<int64_t>(v))
                          : std::get<double>(v));
  if (const int64_t* i = std::get_if<int64_t>(&v)) return py::int_(*i);
  return py::float_(std::get<double>(v));
}

// How the printer marks a location (docs/reference/printing.md, "Printing a
// cursor").
PrintMarker marker_of(const Location& loc) {
  PrintMarker m;
  if (loc.path.empty()) {
    m.kind = PrintMarker::Kind::ProcRoot;
    return m;
  }
  for (size_t i = 0; i + 1 < loc.path.size(); i++)
    m.block_path.emplace_back(loc.path[i].index,
                              loc.path[i + 1].slot == Slot::Orelse ? 1 : 0);
  m.lo = loc.path.back().index;
  switch (loc.kind) {
    case LocationKind::Node:
      m.kind = PrintMarker::Kind::Node;
      break;
    case LocationKind::Gap:
      m.kind = loc.side == GapSide::Before ? PrintMarker::Kind::GapBefore
                                           : PrintMarker::Kind::GapAfter;
      break;
    case LocationKind::Block:
      m.kind = PrintMarker::Kind::Block;
      m.hi = loc.hi;
      break;
  }
  return m;
}

// --- pattern descriptions from Python tuples (exo2.frontend.pattern_match)

ExprPattern expr_pattern(const py::handle& h) {
  const py::tuple t = py::reinterpret_borrow<py::tuple>(h);
  const std::string tag = py::str(t[0]);
  ExprPattern p;
  auto all = [](const py::handle& list) {
    std::vector<ExprPattern> out;
    for (const auto& item : list) out.push_back(expr_pattern(item));
    return out;
  };
  using K = ExprPattern::Kind;
  if (tag == "hole") {
    p.kind = K::Hole;
  } else if (tag == "read") {
    p.kind = K::Read;
    p.name = py::str(t[1]);
    p.children = all(t[2]);
  } else if (tag == "const") {
    p.kind = K::Const;
    p.value = t[1].cast<double>();
  } else if (tag == "usub") {
    p.kind = K::USub;
    p.children.push_back(expr_pattern(t[1]));
  } else if (tag == "binop") {
    p.kind = K::BinOp;
    if (!binop_from_text(py::str(t[1]), &p.op))
      throw py::value_error("unknown operator");
    p.children.push_back(expr_pattern(t[2]));
    p.children.push_back(expr_pattern(t[3]));
  } else if (tag == "extern") {
    p.kind = K::Extern;
    p.name = py::str(t[1]);
    p.children = all(t[2]);
  } else if (tag == "stride") {
    p.kind = K::Stride;
    p.name = py::str(t[1]);
    if (!t[2].is_none()) p.dim = t[2].cast<int>();
  } else if (tag == "config") {
    p.kind = K::Config;
    p.name = py::str(t[1]);
    p.field = py::str(t[2]);
  } else {
    throw py::value_error("unknown expression pattern: " + tag);
  }
  return p;
}

std::vector<StmtPattern> stmt_patterns(const py::handle& list);

StmtPattern stmt_pattern(const py::handle& h) {
  const py::tuple t = py::reinterpret_borrow<py::tuple>(h);
  const std::string tag = py::str(t[0]);
  StmtPattern p;
  using K = StmtPattern::Kind;
  auto exprs = [](const py::handle& list) {
    std::vector<ExprPattern> out;
    for (const auto& item : list) out.push_back(expr_pattern(item));
    return out;
  };
  if (tag == "hole") {
    p.kind = K::Hole;
  } else if (tag == "assign" || tag == "reduce") {
    p.kind = tag == "assign" ? K::Assign : K::Reduce;
    p.name = py::str(t[1]);
    p.exprs = exprs(t[2]);
    p.exprs.push_back(expr_pattern(t[3]));
  } else if (tag == "alloc") {
    p.kind = K::Alloc;
    p.name = py::str(t[1]);
    p.exprs = exprs(t[2]);
  } else if (tag == "for") {
    p.kind = K::For;
    p.name = py::str(t[1]);
    p.exprs = {expr_pattern(t[2]), expr_pattern(t[3])};
    p.body = stmt_patterns(t[4]);
  } else if (tag == "if") {
    p.kind = K::If;
    p.exprs = {expr_pattern(t[1])};
    p.body = stmt_patterns(t[2]);
    p.orelse = stmt_patterns(t[3]);
  } else if (tag == "call") {
    p.kind = K::Call;
    p.name = py::str(t[1]);
  } else if (tag == "write_config") {
    p.kind = K::WriteConfig;
    p.name = py::str(t[1]);
    p.field = py::str(t[2]);
  } else if (tag == "pass") {
    p.kind = K::Pass;
  } else if (tag == "with") {
    p.kind = K::With;
    p.body = stmt_patterns(t[1]);
  } else if (tag == "sync") {
    p.kind = K::Sync;
    p.name = py::str(t[1]);
  } else {
    throw py::value_error("unknown statement pattern: " + tag);
  }
  return p;
}

std::vector<StmtPattern> stmt_patterns(const py::handle& list) {
  std::vector<StmtPattern> out;
  for (const auto& item : list) out.push_back(stmt_pattern(item));
  return out;
}

// ("expr", e) or ("stmts", [s, ...]).
Pattern pattern_of(const py::tuple& t) {
  if (py::str(t[0]).cast<std::string>() == "expr") return expr_pattern(t[1]);
  return stmt_patterns(t[1]);
}

// --- test-only edits, so Python can check forwarding end to end ---------

ProvenanceHandle apply_test_edit(const ProvenanceHandle& parent,
                                 const std::string& edit,
                                 const std::vector<CursorHandle>& cursors) {
  const ProvenancePtr& from = parent.node;
  const Proc& p = from->proc();
  auto loc = [&](size_t i) { return cursors.at(i).loc; };
  EditResult r;
  if (edit == "insert_pass") {
    r = insert(p, loc(0), {make_pass({})});
  } else if (edit == "remove") {
    r = remove(p, loc(0));
  } else if (edit == "move") {
    r = move(p, loc(0), loc(1));
  } else if (edit == "wrap_in_loop") {
    r = wrap(p, loc(0), [](Block b) {
      return make_for(Sym("w"), make_int(0),
                      make_int(1, {}, Type(TypeKind::Int)), std::move(b),
                      LoopMode::seq(), {});
    });
  } else if (edit == "no_forwarding") {
    return {Provenance::derived(p, from, std::nullopt)};
  } else {
    throw py::value_error("unknown test edit: " + edit);
  }
  return {Provenance::derived(r.proc, from, r.forwarding)};
}

void translate_cursor_errors() {
  py::register_exception_translator([](std::exception_ptr e) {
    try {
      if (e) std::rethrow_exception(e);
    } catch (const InvalidCursorError& err) {
      set_user_error("exo2.core.internal_cursors", "InvalidCursorError",
                     err.what());
    } catch (const PatternMatchError& err) {
      set_user_error("exo2.frontend.pattern_match", "PatternMatchError",
                     err.what());
    } catch (const ForwardingNotImplemented& err) {
      set_user_error(PyExc_NotImplementedError, err.what());
    } catch (const PathError& err) {
      set_user_error(PyExc_IndexError, err.what());
    }
  });
}

}  // namespace

void bind_cursors(py::module_& m) {
  translate_cursor_errors();

  py::class_<CursorHandle>(m, "CoreCursor",
                           "A location in one procedure (internal cursor).")
      .def_static("root",
                  [](const ProcHandle& p) {
                    return CursorHandle{p.node, {}};
                  })
      .def("proc", [](const CursorHandle& c) { return ProcHandle{c.proc}; })
      .def("kind", &kind_of,
           "Proc, Param, Block, Gap, or the statement / expression kind")
      .def(
          "key",
          [](const CursorHandle& c) {
            return py::make_tuple(to_string(c.loc));
          },
          "A hashable description of the location.")
      .def("same_location",
           [](const CursorHandle& a, const CursorHandle& b) {
             return a.loc == b.loc;
           })
      .def(
          "srcinfo",
          [](const CursorHandle& c) -> py::object {
            if (c.loc.kind != LocationKind::Node) return py::none();
            const NodeRef n = c.node();
            const SrcInfo* s = n.kind == NodeRef::Kind::Stmt ? &n.stmt->srcinfo
                               : n.kind == NodeRef::Kind::Expr
                                   ? &n.expr->srcinfo
                                   : nullptr;
            if (s == nullptr || !s->filename) return py::none();
            return py::make_tuple(s->file(), s->line, s->col);
          },
          "(file, line, col) of the source a statement or expression came "
          "from, or None (other locations, code built without a source).")
      // Navigation.
      .def("parent",
           [](const CursorHandle& c) { return wrap(c, parent(c.loc)); })
      .def("sibling",
           [](const CursorHandle& c, int dist) {
             return wrap(c, sibling(c.proc, c.loc, dist));
           })
      .def("child_block",
           [](const CursorHandle& c, const std::string& slot) {
             return wrap(c, child_block(c.proc, c.loc.path, slot_named(slot)));
           })
      .def("child", &child)
      .def("children", &children)
      .def(
          "params",
          [](const CursorHandle& c) {
            std::vector<CursorHandle> out;
            for (int i = 0; i < static_cast<int>(c.proc->args.size()); i++)
              out.push_back(c.at(Location::node({Step{Slot::Param, i}})));
            return out;
          },
          "Cursors of the procedure's parameters.")
      .def("window_idx", &window_idx)
      .def("as_block",
           [](const CursorHandle& c) { return c.at(as_block(c.loc)); })
      .def("expand",
           [](const CursorHandle& c, std::optional<int> lo,
              std::optional<int> hi) {
             return c.at(expand(c.proc, c.loc, lo, hi));
           })
      .def("before",
           [](const CursorHandle& c) { return c.at(gap_before(c.loc)); })
      .def("after",
           [](const CursorHandle& c) { return c.at(gap_after(c.loc)); })
      .def(
          "anchor",
          [](const CursorHandle& c) -> MaybeCursor {
            if (c.loc.kind == LocationKind::Gap)
              return c.at(Location::node(c.loc.path));
            return wrap(c, parent(c.loc));
          },
          "A gap's statement, or the owner of a block (the procedure for "
          "the top level).")
      .def("gap_side",
           [](const CursorHandle& c) {
             return c.loc.side == GapSide::Before ? "Before" : "After";
           })
      .def("block_range",
           [](const CursorHandle& c) {
             return py::make_tuple(c.loc.lo(), c.loc.hi);
           })
      .def(
          "block_slice",
          [](const CursorHandle& c, int lo, int hi) {
            Path first = c.loc.path;
            first.back().index = lo;
            return c.at(Location::block(std::move(first), hi));
          },
          "The sub-block [lo, hi) in list positions.")
      .def("block_item",
           [](const CursorHandle& c, int index) {
             Path p = c.loc.path;
             p.back().index = index;
             return c.at(Location::node(std::move(p)));
           })
      .def("is_ancestor_of",
           [](const CursorHandle& c, const CursorHandle& other) {
             return is_ancestor_of(c.loc.path, other.loc);
           })
      // Inspection.
      .def("name", &name_of)
      .def(
          "read_sym",
          [](const CursorHandle& c) {
            const Expr& e = c.expr();
            return e->kind == ExprKind::Read ? e->as<Read>().name
                                             : e->as<StrideExpr>().name;
          },
          "The variable a read or stride expression names.")
      .def("type_name",
           [](const CursorHandle& c) {
             return std::string(type_kind_name(type_of(c).basetype().kind()));
           })
      .def("is_tensor",
           [](const CursorHandle& c) { return type_of(c).is_tensor(); })
      .def("is_indexable",
           [](const CursorHandle& c) { return type_of(c).is_indexable(); })
      .def("mem", &mem_of)
      .def("config", &config_of)
      .def("field", &field_of)
      .def("value", &literal_value)
      .def(
          "expr", [](const CursorHandle& c) { return ExprHandle{c.expr()}; },
          "The expression at an expression location (for new expressions "
          "built from cursors).")
      .def("op",
           [](const CursorHandle& c) {
             return std::string(binop_text(c.expr()->as<BinOp>().op));
           })
      .def("dim",
           [](const CursorHandle& c) { return c.expr()->as<StrideExpr>().dim; })
      .def("has_orelse",
           [](const CursorHandle& c) {
             return !c.stmt()->as<If>().orelse.empty();
           })
      .def("subproc",
           [](const CursorHandle& c) {
             return ProcHandle{c.stmt()->as<Call>().f};
           })
      // CUDA constructs (docs/cuda.md).
      .def(
          "loop_mode",
          [](const CursorHandle& c) -> py::object {
            const LoopModePtr& mode = c.stmt()->as<For>().mode;
            if (mode == LoopMode::seq()) return py::str("seq");
            if (mode == LoopMode::par()) return py::str("par");
            return python_object_of(*mode);
          },
          "A loop's mode: 'seq', 'par' or the Python LoopMode object.")
      .def(
          "with_context",
          [](const CursorHandle& c) {
            return python_object_of(*c.stmt()->as<With>().ctx);
          },
          "The context object of a `with` statement.")
      .def("sync_kind",
           [](const CursorHandle& c) {
             return std::string(sync_kind_name(c.stmt()->as<Sync>().sync));
           })
      .def("sync_timelines",
           [](const CursorHandle& c) {
             const Sync& y = c.stmt()->as<Sync>();
             auto obj = [](const SyncTimelinePtr& t) {
               return t ? python_object_of(*t) : py::none();
             };
             return py::make_tuple(obj(y.pre), obj(y.post));
           })
      .def(
          "dim_annotations",
          [](const CursorHandle& c) {
            py::list out;
            const Type& t = type_of(c);
            const auto& annotations = t.dim_annotations();
            for (size_t d = 0; d < t.shape().size(); ++d)
              out.append(d < annotations.size() && annotations[d]
                             ? python_object_of(*annotations[d])
                             : py::none());
            return out;
          },
          "One annotation object or None per dimension of an allocation.")
      .def(
          "print",
          [](const CursorHandle& c) {
            return print_proc(c.proc, marker_of(c.loc));
          },
          "The whole procedure with this location marked.")
      .def(
          "find",
          [](const CursorHandle& c, const py::tuple& pattern,
             std::optional<int> match_no) {
            std::vector<CursorHandle> out;
            for (Location& l :
                 find_matches(c.proc, c.loc, pattern_of(pattern), match_no))
              out.push_back(c.at(std::move(l)));
            return out;
          },
          py::arg("pattern"), py::arg("match_no"),
          "Matches of a pattern description within this location.")
      .def("__repr__", [](const CursorHandle& c) {
        return "<CoreCursor " + to_string(c.loc) + ">";
      });

  py::class_<ProvenanceHandle>(
      m, "Provenance",
      "A procedure's IR, its parent and the forwarding from the parent.")
      .def_static("root",
                  [](const ProcHandle& p) {
                    return ProvenanceHandle{Provenance::root(p.node)};
                  })
      .def("proc",
           [](const ProvenanceHandle& p) { return ProcHandle{p.node->proc()}; })
      .def("parent",
           [](const ProvenanceHandle& p) -> std::optional<ProvenanceHandle> {
             if (!p.node->parent()) return std::nullopt;
             return ProvenanceHandle{p.node->parent()};
           })
      .def(
          "forward",
          [](const ProvenanceHandle& self, const ProvenanceHandle& origin,
             const CursorHandle& c) {
            return CursorHandle{self.node->proc(),
                                self.node->forward(*origin.node, c.loc)};
          },
          "A cursor of `origin` (this procedure or an ancestor) as a cursor "
          "of this procedure.");

  m.def("apply_test_edit", &apply_test_edit,
        "Test-only: applies one edit (insert_pass, remove, move, "
        "wrap_in_loop, no_forwarding) and returns the derived provenance.");
}

}  // namespace exo2::bindings
