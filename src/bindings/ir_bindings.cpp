// Builders of untyped IR for the frontend (docs/internals/frontend-to-core.md)
// and the operations on whole procedures that Python needs.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "exo2/analysis/bounds_check.hpp"
#include "exo2/core_ir/equality.hpp"
#include "exo2/core_ir/printer.hpp"
#include "exo2/core_ir/symbol_table.hpp"
#include "exo2/core_ir/typecheck.hpp"
#include "handles.hpp"
#include "python_objects.hpp"

namespace exo2::bindings {

namespace {

std::vector<Expr> unwrap(const std::vector<ExprHandle>& es) {
  std::vector<Expr> out;
  out.reserve(es.size());
  for (const auto& e : es) out.push_back(e.node);
  return out;
}

Block unwrap(const std::vector<StmtHandle>& ss) {
  Block out;
  out.reserve(ss.size());
  for (const auto& s : ss) out.push_back(s.node);
  return out;
}

ExprHandle wrap(Expr e) { return {std::move(e)}; }
StmtHandle wrap(Stmt s) { return {std::move(s)}; }

Type scalar_type(const std::string& name) {
  TypeKind kind;
  if (!type_kind_from_name(name, &kind))
    throw py::value_error("unknown type name: " + name);
  return Type(kind);
}

// A window access from ("point", e) or ("interval", lo|None, hi|None).
WindowAccess window_access(const py::tuple& t) {
  const std::string tag = py::str(t[0]);
  auto expr_or_null = [](const py::handle& h) -> Expr {
    return h.is_none() ? nullptr : h.cast<ExprHandle>().node;
  };
  if (tag == "point") return WindowAccess::point(t[1].cast<ExprHandle>().node);
  if (tag == "interval")
    return WindowAccess::interval(expr_or_null(t[1]), expr_or_null(t[2]));
  throw py::value_error("window access must be 'point' or 'interval'");
}

// seq and par are the core's own modes (by name, or as the Python objects
// exo2.core.extensions.seq / par); any other LoopMode object is wrapped.
LoopModePtr loop_mode(const py::object& mode) {
  const bool builtin =
      py::isinstance<py::str>(mode) ||
      py::str(py::type::of(mode).attr("__name__")).cast<std::string>() ==
          "BuiltinLoopMode";
  if (builtin) {
    const std::string name =
        py::isinstance<py::str>(mode)
            ? mode.cast<std::string>()
            : py::str(mode.attr("name")()).cast<std::string>();
    if (name == "seq") return LoopMode::seq();
    if (name == "par") return LoopMode::par();
    throw py::value_error("unknown loop mode: " + name);
  }
  return wrap_loop_mode(mode);
}

MemoryPtr memory_or_null(const py::object& mem) {
  return mem.is_none() ? nullptr : wrap_memory(mem);
}

ConfigPtr config_of(const py::object& cfg) {
  return cfg.cast<std::shared_ptr<PythonConfig>>();
}

void bind_types(py::module_& m) {
  py::class_<SrcInfo>(m, "SrcInfo")
      .def(py::init<std::string, int, int>(), py::arg("file"), py::arg("line"),
           py::arg("col") = -1)
      .def_property_readonly("filename", &SrcInfo::file)
      .def_readonly("lineno", &SrcInfo::line)
      .def_readonly("col_offset", &SrcInfo::col)
      .def("__str__", &SrcInfo::str);

  py::class_<Sym>(m, "Sym")
      .def(py::init<std::string>())
      .def("name", &Sym::name)
      .def("id", &Sym::id)
      .def("copy", &Sym::copy)
      .def("__eq__", [](const Sym& a, const Sym& b) { return a == b; })
      .def("__hash__", [](const Sym& s) { return std::hash<Sym>()(s); })
      .def("__repr__",
           [](const Sym& s) { return s.name() + "_" + std::to_string(s.id()); })
      .def("__str__", &Sym::name);

  py::class_<Type>(m, "Type")
      .def_static("scalar", &scalar_type)
      .def_static(
          "tensor",
          [](const Type& elem, const std::vector<ExprHandle>& shape,
             bool is_window, const std::vector<py::object>& annotations) {
            std::vector<DimAnnotationPtr> annots;
            for (const auto& a : annotations)
              annots.push_back(a.is_none() ? nullptr : wrap_dim_annotation(a));
            return Type::tensor(elem, unwrap(shape), is_window,
                                std::move(annots));
          },
          py::arg("elem"), py::arg("shape"), py::arg("is_window"),
          py::arg("annotations") = std::vector<py::object>{},
          "A tensor or window type; `annotations` holds one object (or None) "
          "per dimension (`K / 64 @ ring(4)`).")
      .def("kind_name", [](const Type& t) { return type_kind_name(t.kind()); })
      .def("is_numeric", &Type::is_numeric)
      .def("is_real_scalar", &Type::is_real_scalar)
      .def("is_indexable", &Type::is_indexable)
      .def("is_bool", &Type::is_bool)
      .def("is_stride", &Type::is_stride)
      .def("is_tensor", &Type::is_tensor)
      .def("is_window", &Type::is_window)
      .def("is_win", &Type::is_window, "Exo's name for is_window().")
      .def("ctype", &Type::ctype)
      .def("basetype", &Type::basetype)
      .def("shape",
           [](const Type& t) {
             std::vector<ExprHandle> out;
             for (const auto& e : t.shape()) out.push_back(wrap(e));
             return out;
           })
      .def("__eq__", [](const Type& a, const Type& b) { return equal(a, b); })
      .def("__str__", &Type::str)
      .def("__repr__", &Type::str);

  py::class_<PythonConfig, std::shared_ptr<PythonConfig>>(m, "CoreConfig")
      .def(py::init<std::string, std::vector<std::pair<std::string, Type>>,
                    bool, py::object>(),
           py::arg("name"), py::arg("fields"), py::arg("allow_rw"),
           py::arg("pyobj"))
      .def("name", &PythonConfig::name);
}

void bind_exprs(py::module_& m) {
  py::class_<ExprHandle>(m, "Expr")
      .def("__str__", [](const ExprHandle& e) { return print_expr(e.node); })
      .def_property_readonly("type",
                             [](const ExprHandle& e) { return e.node->type; })
      .def_property_readonly(
          "srcinfo", [](const ExprHandle& e) { return e.node->srcinfo; });

  m.def("read",
        [](const Sym& name, const std::vector<ExprHandle>& idx,
           const SrcInfo& s) { return wrap(make_read(name, unwrap(idx), s)); });
  m.def("const", [](const py::object& value, const SrcInfo& s) {
    // bool first: Python bools are ints too.
    if (py::isinstance<py::bool_>(value))
      return wrap(make_const(ConstValue(value.cast<bool>()), s));
    if (py::isinstance<py::int_>(value))
      return wrap(make_const(ConstValue(value.cast<int64_t>()), s));
    return wrap(make_const(ConstValue(value.cast<double>()), s));
  });
  m.def("usub", [](const ExprHandle& arg, const SrcInfo& s) {
    return wrap(make_usub(arg.node, s));
  });
  m.def("binop", [](const std::string& op, const ExprHandle& lhs,
                    const ExprHandle& rhs, const SrcInfo& s) {
    BinOpKind kind;
    if (!binop_from_text(op, &kind))
      throw py::value_error("unknown binary operator: " + op);
    return wrap(make_binop(kind, lhs.node, rhs.node, s));
  });
  m.def("extern_call",
        [](const py::object& f, const std::vector<ExprHandle>& args,
           const SrcInfo& s) {
          return wrap(make_extern_call(wrap_extern(f), unwrap(args), s));
        });
  m.def("window_expr",
        [](const Sym& name, const std::vector<py::tuple>& accesses,
           const SrcInfo& s) {
          std::vector<WindowAccess> idx;
          for (const auto& a : accesses) idx.push_back(window_access(a));
          return wrap(make_window_expr(name, std::move(idx), s));
        });
  m.def("stride_expr", [](const Sym& name, int dim, const SrcInfo& s) {
    return wrap(make_stride_expr(name, dim, s));
  });
  m.def("read_config",
        [](const py::object& cfg, const std::string& field, const SrcInfo& s) {
          return wrap(make_read_config(config_of(cfg), field, s));
        });
}

void bind_stmts(py::module_& m) {
  py::class_<StmtHandle>(m, "Stmt")
      .def("__str__", [](const StmtHandle& s) { return print_stmt(s.node); })
      .def_property_readonly(
          "srcinfo", [](const StmtHandle& s) { return s.node->srcinfo; });

  m.def("assign", [](const Sym& name, const std::vector<ExprHandle>& idx,
                     const ExprHandle& rhs, const SrcInfo& s) {
    return wrap(make_assign(name, Type(), unwrap(idx), rhs.node, s));
  });
  m.def("reduce", [](const Sym& name, const std::vector<ExprHandle>& idx,
                     const ExprHandle& rhs, const SrcInfo& s) {
    return wrap(make_reduce(name, Type(), unwrap(idx), rhs.node, s));
  });
  m.def("write_config", [](const py::object& cfg, const std::string& field,
                           const ExprHandle& rhs, const SrcInfo& s) {
    return wrap(make_write_config(config_of(cfg), field, rhs.node, s));
  });
  m.def("pass_", [](const SrcInfo& s) { return wrap(make_pass(s)); });
  m.def("if_", [](const ExprHandle& cond, const std::vector<StmtHandle>& body,
                  const std::vector<StmtHandle>& orelse, const SrcInfo& s) {
    return wrap(make_if(cond.node, unwrap(body), unwrap(orelse), s));
  });
  m.def("for_", [](const Sym& iter, const ExprHandle& lo, const ExprHandle& hi,
                   const std::vector<StmtHandle>& body, const py::object& mode,
                   const SrcInfo& s) {
    return wrap(
        make_for(iter, lo.node, hi.node, unwrap(body), loop_mode(mode), s));
  });
  m.def("loop_mode_seq", [] { return py::str("seq"); });
  m.def("loop_mode_par", [] { return py::str("par"); });
  m.def("alloc", [](const Sym& name, const Type& type, const py::object& mem,
                    const SrcInfo& s) {
    return wrap(make_alloc(name, type, wrap_memory(mem), s));
  });
  m.def(
      "call",
      [](const ProcHandle& callee, const std::vector<ExprHandle>& args,
         const SrcInfo& s, const std::vector<ExprHandle>& barriers) {
        return wrap(make_call(callee.node, unwrap(args), s, unwrap(barriers)));
      },
      py::arg("callee"), py::arg("args"), py::arg("srcinfo"),
      py::arg("barriers") = std::vector<ExprHandle>{});
  m.def(
      "window_stmt",
      [](const Sym& name, const ExprHandle& rhs, const SrcInfo& s,
         const py::object& mem) {
        return wrap(make_window_stmt(name, rhs.node, s, memory_or_null(mem)));
      },
      py::arg("sym"), py::arg("rhs"), py::arg("srcinfo"),
      py::arg("mem") = py::none());
  m.def(
      "sync",
      [](const std::string& kind, const py::object& pre, const py::object& post,
         const std::vector<ExprHandle>& barriers, const SrcInfo& s) {
        SyncKind k;
        if (kind == "Fence")
          k = SyncKind::Fence;
        else if (kind == "Arrive")
          k = SyncKind::Arrive;
        else if (kind == "Await")
          k = SyncKind::Await;
        else
          throw py::value_error("unknown sync statement kind: " + kind);
        auto timeline = [](const py::object& t) {
          return t.is_none() ? nullptr : wrap_sync_timeline(t);
        };
        return wrap(
            make_sync(k, timeline(pre), timeline(post), unwrap(barriers), s));
      },
      py::arg("kind"), py::arg("pre"), py::arg("post"), py::arg("barriers"),
      py::arg("srcinfo"),
      "Fence(pre, post), Arrive(pre) >> barriers..., Await(barrier, post); "
      "pre and post are Timeline objects or None.");
  m.def("with_", [](const py::object& ctx, const std::vector<StmtHandle>& body,
                    const SrcInfo& s) {
    return wrap(make_with(wrap_with_context(ctx), unwrap(body), s));
  });
}

using ArgTuple = std::tuple<Sym, Type, py::object, SrcInfo>;

void bind_procs(py::module_& m) {
  py::class_<ProcHandle>(m, "CoreProc")
      .def("name", [](const ProcHandle& p) { return p.node->name; })
      .def("is_instr", [](const ProcHandle& p) { return p.node->is_instr(); })
      .def("c_instr",
           [](const ProcHandle& p) -> py::object {
             if (!p.node->instr) return py::none();
             return py::str(p.node->instr->c_instr);
           })
      .def("instr_metadata",
           [](const ProcHandle& p) -> py::object {
             if (!p.node->instr || !p.node->instr->metadata) return py::none();
             return python_object_of(*p.node->instr->metadata);
           })
      .def("c_global",
           [](const ProcHandle& p) -> py::object {
             if (!p.node->instr) return py::none();
             return py::str(p.node->instr->c_global);
           })
      .def("arg_names",
           [](const ProcHandle& p) {
             std::vector<std::string> names;
             for (const auto& a : p.node->args) names.push_back(a.name.name());
             return names;
           })
      .def("arg_types",
           [](const ProcHandle& p) {
             std::vector<Type> types;
             for (const auto& a : p.node->args) types.push_back(a.type);
             return types;
           })
      .def_property_readonly(
          "srcinfo", [](const ProcHandle& p) { return p.node->srcinfo; })
      .def("__eq__", [](const ProcHandle& a, const ProcHandle& b) {
        return equal(a.node, b.node);
      });

  m.def("make_proc",
        [](const std::string& name, const std::vector<ArgTuple>& args,
           const std::vector<ExprHandle>& preds,
           const std::vector<StmtHandle>& body,
           const std::optional<py::tuple>& instr, const SrcInfo& s) {
          std::vector<FnArg> fnargs;
          for (const auto& [sym, type, mem, src] : args)
            fnargs.push_back(FnArg{sym, type, memory_or_null(mem), src});
          // (c_instr, c_global) or (c_instr, c_global, metadata).
          std::optional<InstrInfo> info;
          if (instr) {
            InstrMetadataPtr metadata;
            if (instr->size() > 2 && !(*instr)[2].is_none())
              metadata = wrap_instr_metadata((*instr)[2]);
            info = InstrInfo{(*instr)[0].cast<std::string>(),
                             (*instr)[1].cast<std::string>(), metadata};
          }
          return ProcHandle{make_proc(name, std::move(fnargs), unwrap(preds),
                                      unwrap(body), std::move(info), s)};
        });
  m.def(
      "check_proc",
      [](const ProcHandle& untyped) {
        Proc typed = typecheck(untyped.node);
        check_bounds(typed);
        return ProcHandle{typed};
      },
      "Typechecks and bounds-checks an untyped procedure.");
  m.def("print_proc", [](const ProcHandle& p) { return print_proc(p.node); });
  m.def(
      "symbol_table",
      [](const ProcHandle& p) {
        py::list rows;
        for (const auto& info : symbol_table(p.node)) {
          py::object mem = py::none();
          if (info.mem) mem = py::str(info.mem->name());
          rows.append(py::make_tuple(info.sym.name(),
                                     symbol_kind_name(info.kind),
                                     info.type.str(), mem, info.srcinfo));
        }
        return rows;
      },
      "(name, kind, type, memory, srcinfo) for every variable of a proc.");
  m.def(
      "variables",
      [](const ProcHandle& p) {
        py::list rows;
        for (const auto& info : symbol_table(p.node))
          rows.append(
              py::make_tuple(info.sym.name(), symbol_kind_name(info.kind)));
        return rows;
      },
      "(name, kind) for every variable of a proc: symbol_table's first two "
      "columns, without the cost of the others.");
  m.def(
      "extern_names", [](const ProcHandle& p) { return extern_names(p.node); },
      "The names of the extern functions a proc calls, sorted.");
}

}  // namespace

void bind_ir(py::module_& m) {
  bind_types(m);
  bind_exprs(m);
  bind_stmts(m);
  bind_procs(m);
}

}  // namespace exo2::bindings
