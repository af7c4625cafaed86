// The C emitter for one procedure (Exo's LoopIR_compiler.Compiler). Index
// arithmetic goes through a small "C index expression" tree (CIndex) that
// folds constants and units before printing, as Exo's CIR does.
#include "c_function.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <regex>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "exo2/analysis/config_state.hpp"
#include "exo2/analysis/written_buffers.hpp"
#include "exo2/analysis/z3_encoding.hpp"
#include "exo2/backends/c_names.hpp"
#include "exo2/backends/codegen_error.hpp"
#include "exo2/backends/codegen_passes.hpp"
#include "exo2/core_ir/instr_template.hpp"
#include "exo2/core_ir/ir_functor.hpp"
#include "exo2/core_ir/ir_visitor.hpp"
#include "exo2/core_ir/printer.hpp"

namespace exo2 {

namespace {

// C precedences (docs/reference/generated-c.md, "Shape of the generated C").
constexpr int kUnaryMinusPrecedence = 70;
int precedence(BinOpKind op) {
  switch (op) {
    case BinOpKind::Or:
      return 10;
    case BinOpKind::And:
      return 20;
    case BinOpKind::Eq:
      return 30;
    case BinOpKind::Lt:
    case BinOpKind::Gt:
    case BinOpKind::Le:
    case BinOpKind::Ge:
      return 40;
    case BinOpKind::Add:
    case BinOpKind::Sub:
      return 50;
    default:
      return 60;
  }
}

const char* c_operator(BinOpKind op) {
  if (op == BinOpKind::And) return "&&";
  if (op == BinOpKind::Or) return "||";
  return binop_text(op);
}

// Floor division and modulo of Python on constants.
int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// An index expression on its way to C text.
struct CIndex;
using CIndexPtr = std::shared_ptr<const CIndex>;
struct CIndex {
  enum class Kind { Read, Const, BinOp, USub, Stride } kind;
  std::string text;  // Read: the C expression; Stride: the window's C name
  int64_t value = 0;
  BinOpKind op = BinOpKind::Add;
  CIndexPtr lhs, rhs;
  int dim = 0;
  // The IR expression this node computes, asked about when it is the
  // dividend of a division; null when known non-negative.
  Expr source;

  static CIndexPtr constant(int64_t v) {
    auto c = std::make_shared<CIndex>();
    c->kind = Kind::Const;
    c->value = v;
    return c;
  }
  static CIndexPtr binop(BinOpKind op, CIndexPtr l, CIndexPtr r, Expr src) {
    auto c = std::make_shared<CIndex>();
    c->kind = Kind::BinOp;
    c->op = op;
    c->lhs = std::move(l);
    c->rhs = std::move(r);
    c->source = std::move(src);
    return c;
  }
};

bool is_const(const CIndexPtr& e, int64_t v) {
  return e->kind == CIndex::Kind::Const && e->value == v;
}

CIndexPtr simplify(const CIndexPtr& e) {
  using K = CIndex::Kind;
  if (e->kind == K::USub) {
    CIndexPtr arg = simplify(e->lhs);
    if (arg->kind == K::USub) return arg->lhs;
    if (arg->kind == K::Const) return CIndex::constant(-arg->value);
    auto out = std::make_shared<CIndex>(*e);
    out->lhs = arg;
    return out;
  }
  if (e->kind != K::BinOp) return e;
  CIndexPtr lhs = simplify(e->lhs), rhs = simplify(e->rhs);
  const BinOpKind op = e->op;
  if (lhs->kind == K::Const && rhs->kind == K::Const) {
    const int64_t a = lhs->value, b = rhs->value;
    switch (op) {
      case BinOpKind::Add:
        return CIndex::constant(a + b);
      case BinOpKind::Sub:
        return CIndex::constant(a - b);
      case BinOpKind::Mul:
        return CIndex::constant(a * b);
      case BinOpKind::Div:
        if (b != 0) return CIndex::constant(floor_div(a, b));
        break;
      case BinOpKind::Mod:
        if (b != 0) return CIndex::constant(a - b * floor_div(a, b));
        break;
      default:
        break;
    }
  }
  if (is_const(lhs, 0)) {
    if (op == BinOpKind::Add) return rhs;
    if (op == BinOpKind::Mul || op == BinOpKind::Div)
      return CIndex::constant(0);
  }
  if (is_const(rhs, 0)) {
    if (op == BinOpKind::Add || op == BinOpKind::Sub) return lhs;
    if (op == BinOpKind::Mul) return CIndex::constant(0);
  }
  if (is_const(lhs, 1) && op == BinOpKind::Mul) return rhs;
  if (is_const(rhs, 1) && (op == BinOpKind::Mul || op == BinOpKind::Div))
    return lhs;
  return CIndex::binop(op, lhs, rhs, e->source);
}

std::string window_struct_name(TypeKind elem, size_t dims, bool is_const) {
  return fmt::format("exo_win_{}{}{}", dims, type_kind_name(elem),
                     is_const ? "c" : "");
}

std::string window_struct_def(TypeKind elem, size_t dims, bool is_const) {
  const std::string name = window_struct_name(elem, dims, is_const);
  std::string guard = name;
  std::transform(guard.begin(), guard.end(), guard.begin(), ::toupper);
  return fmt::format(
      "#ifndef {0}\n#define {0}\nstruct {1}{{\n    {2}{3} * const data;\n"
      "    const int_fast32_t strides[{4}];\n}};\n#endif",
      guard, name, is_const ? "const " : "", Type(elem).ctype(), dims);
}

// Statements are emitted as lines (`visit(stmt)`), expressions printed as C
// text at a precedence (`visit(expr, precedence)`): Halide's CodeGen_C.
class CFunctionEmitter : private StmtFunctor<void()>,
                         private ExprFunctor<std::string(int)> {
  using StmtEmitter = StmtFunctor<void()>;
  using ExprPrinter = ExprFunctor<std::string(int)>;

 public:
  CFunctionEmitter(const Proc& p, std::string ctxt_type, bool is_public)
      : proc_(p), ctxt_type_(std::move(ctxt_type)), is_public_(is_public) {}

  CFunction run() {
    names_.emplace_back();
    // `ctxt` is reserved (c_names.cpp), so no other name can take it.
    names_.back()["ctxt"] = env_[ctxt_] = "ctxt";
    reserve_callee_names(proc_->body);
    written_fields_ = config_fields_written(proc_->body);
    for (const Sym& s : written_buffers(proc_->body)) non_const_.insert(s);

    std::vector<std::string> arg_strs = {ctxt_type_ + " *ctxt"};
    std::vector<std::string> comments;
    for (const FnArg& a : proc_->args) {
      const std::string name = new_name(a.name);
      types_[a.name] = a.type;
      if (!a.type.is_numeric()) {
        if (a.type.kind() == TypeKind::Size ||
            a.type.kind() == TypeKind::Index || a.type.is_bool() ||
            a.type.is_stride()) {
          arg_strs.push_back(std::string(a.type.ctype()) + " " + name);
          comments.push_back(name + " : " + a.type.str());
        }
        continue;
      }
      mems_[a.name] = a.mem;
      if (a.type.is_real_scalar()) scalar_refs_.insert(a.name);
      if (a.type.is_window()) {
        arg_strs.push_back("struct " +
                           window_type(a.type, !non_const_.count(a.name)) +
                           " " + name);
      } else {
        arg_strs.push_back(
            std::string(non_const_.count(a.name) ? "" : "const ") +
            a.type.ctype() + "* " + name);
      }
      comments.push_back(name + " : " + a.type.str() +
                         (a.mem ? " @" + a.mem->name() : ""));
    }

    for (const FnArg& a : proc_->args)
      if (a.type.kind() == TypeKind::Size) smt_.assume(smt_.var(a.name) >= 1);
    for (const Expr& pred : proc_->preds) {
      if (pred->kind == ExprKind::Const) continue;
      if (holds_throughout(pred)) smt_.assume(pred);
      if (pred->kind == ExprKind::BinOp) {
        const auto& b = pred->as<BinOp>();
        if (b.op == BinOpKind::Eq && b.lhs->kind == ExprKind::StrideExpr &&
            b.rhs->kind == ExprKind::Const) {
          const auto& s = b.lhs->as<StrideExpr>();
          known_strides_[{s.name, s.dim}] = b.rhs->as<Const>().int_value();
          add_line("// assert " + print_expr(pred));
          continue;
        }
      }
      add_line("EXO_ASSUME(" + expr(pred) + ");");
    }

    StaticMemoryUse static_use;
    static_use.visit(proc_->body);
    if (static_use.allocates_static && static_use.calls_procedures)
      throw CodegenError(CodegenError::Kind::MemGen,
                         "Cannot generate static memory in non-leaf procs");

    block(proc_->body);

    const std::string stat = is_public_ ? "" : "static ";
    const std::string fn_name = c_identifier(proc_->name);
    std::string comment = "// " + proc_->name + "(\n";
    for (size_t k = 0; k < comments.size(); ++k)
      comment += (k ? ",\n" : "") + std::string("//     ") + comments[k];
    comment += "\n// )\n";
    std::string args;
    for (size_t k = 0; k < arg_strs.size(); ++k)
      args += (k ? ", " : "") + arg_strs[k];
    result_.decl = comment + stat + "void " + fn_name + "( " + args + " );\n";
    std::string body;
    for (size_t k = 0; k < lines_.size(); ++k)
      body += (k ? "\n" : "") + lines_[k];
    result_.def = comment + stat + "void " + fn_name + "( " + args + " ) {\n" +
                  body + "\n}\n";
    return std::move(result_);
  }

 private:
  const Proc& proc_;
  std::string ctxt_type_;
  bool is_public_;
  CFunction result_;
  std::vector<std::string> lines_;
  std::string tab_;
  // C names: symbol -> name, and per scope the names taken.
  std::unordered_map<Sym, std::string> env_;
  // The context pointer. Like Exo's, the C text leaves a parameter it does
  // not name unmarked (docs/compiling-and-calling.md, "Compiler warnings").
  Sym ctxt_{"ctxt"};
  std::vector<std::unordered_map<std::string, std::string>> names_;
  std::unordered_map<Sym, Type> types_;
  std::unordered_map<Sym, MemoryPtr> mems_;
  std::unordered_map<Sym, Sym> window_root_;
  std::unordered_set<Sym> scalar_refs_;
  std::unordered_set<Sym> non_const_;
  std::map<std::pair<Sym, int>, int64_t> known_strides_;
  // Facts for proving dividends non-negative: sizes, preconditions and loop
  // ranges, less those reading a config field the procedure writes (a fact
  // about such a field may be stale where it is used).
  SmtEncoder smt_;
  std::vector<Location> written_fields_;
  // Allocation extents kept in locals (alloc_extent), by (buffer, dim).
  std::map<std::pair<Sym, size_t>, std::string> fixed_extents_;
  // Lower bounds of the loop iterators in scope whose start has one.
  std::unordered_map<Sym, int64_t> iter_lower_bounds_;
  // The `par` loops around the statement being emitted, innermost last.
  std::vector<const For*> parallel_loops_;

  // ---- bf16 ---------------------------------------------------------------
  // bf16 is 16-bit storage (uint16_t) with arithmetic in float: reads
  // convert to float, writes round to nearest even (helpers in c_library).
  static bool is_bf16(const Type& t) {
    return t.basetype().kind() == TypeKind::BF16;
  }
  std::string bf16_to_f32(const std::string& value) {
    result_.needs_bf16 = true;
    return "exo_bf16_to_f32(" + value + ")";
  }
  std::string f32_to_bf16(const std::string& value) {
    result_.needs_bf16 = true;
    return "exo_f32_to_bf16(" + value + ")";
  }

  // ---- names and lines ---------------------------------------------------
  const std::string* taken(const std::string& n) const {
    for (auto it = names_.rbegin(); it != names_.rend(); ++it) {
      auto f = it->find(n);
      if (f != it->end()) return &f->second;
    }
    return nullptr;
  }

  // Exo's deduplication: `x`, then `x_1`, `x_2`, ... per scope chain.
  std::string new_name(const Sym& sym) {
    std::string name = c_identifier(sym.name());
    if (const std::string* prev = taken(name)) {
      std::string s = *prev;
      static const std::regex suffix("^(.*)_([0-9]+)$");
      while (taken(s)) {
        std::smatch m;
        if (std::regex_match(s, m, suffix))
          s = m[1].str() + "_" + std::to_string(std::stoll(m[2].str()) + 1);
        else
          s += "_1";
      }
      names_.back()[name] = s;
      name = s;
    }
    names_.back()[name] = name;
    env_[sym] = name;
    return name;
  }

  // The procedures the body calls are C functions that no local name may
  // hide (a subprocedure named like a loop iterator around its call).
  class CalleeNames : public IRVisitor {
   public:
    explicit CalleeNames(CFunctionEmitter& c)
        : IRVisitor(Visits::StatementsOnly), c_(c) {}

   protected:
    void visit_call(const Call& call) override {
      if (call.f->is_instr()) return;
      const std::string name = c_identifier(call.f->name);
      c_.names_.back()[name] = name;
      c_.result_.callees.push_back(name);
    }

   private:
    CFunctionEmitter& c_;
  };
  void reserve_callee_names(const Block& b) { CalleeNames(*this).visit(b); }

  // The C name of a symbol.
  const std::string& c_name(const Sym& s) { return env_.at(s); }

  void add_line(const std::string& line) {
    if (!line.empty()) lines_.push_back(tab_ + line);
  }
  void push_scope() { names_.emplace_back(); }
  void pop_scope() { names_.pop_back(); }
  void indent() { tab_ += "  "; }
  void dedent() { tab_.resize(tab_.size() - 2); }

  const MemoryPtr& memory(const Sym& s) const { return mems_.at(s); }
  Sym root(const Sym& s) const {
    auto it = window_root_.find(s);
    return it == window_root_.end() ? s : it->second;
  }

  // ---- static memory -----------------------------------------------------
  // Whether a body allocates in a static memory, and whether it calls a
  // procedure (an instruction is no call in C). With blocks are left out:
  // the emitter refuses them.
  class StaticMemoryUse : public IRVisitor {
   public:
    StaticMemoryUse() : IRVisitor(Visits::StatementsOnly) {}
    bool allocates_static = false;
    bool calls_procedures = false;

   protected:
    void visit_alloc(const Alloc& a) override {
      if (a.kind == StmtKind::Alloc && a.mem && a.mem->is_static())
        allocates_static = true;
    }
    void visit_call(const Call& c) override {
      if (!c.f->is_instr()) calls_procedures = true;
    }
    void visit_with(const With&) override {}
  };

  // ---- index arithmetic --------------------------------------------------
  // Integer `/` and `%` are floor division and floor modulo
  // (docs/writing-kernels.md, "Integer arithmetic"). C's operators truncate
  // toward zero, which agrees only for a non-negative dividend and a
  // positive divisor; elsewhere the C calls exo_floor_div / exo_floor_mod.

  // Whether a fact holds wherever it is assumed: it reads no config field
  // the procedure writes.
  bool holds_throughout(const Expr& fact) const {
    return SmtEncoder::is_encodable(fact) &&
           !reads_any_field(fact, written_fields_);
  }

  // A lower bound of `e` from sizes (at least 1), loop iterators (at least
  // their start's bound) and literals, or nullopt: the cheap test that
  // settles ordinary index arithmetic without the solver.
  class LowerBound : public ExprFunctor<std::optional<int64_t>()> {
   public:
    explicit LowerBound(const CFunctionEmitter& c) : c_(c) {}

   protected:
    std::optional<int64_t> visit_const(const Expr& e) override {
      if (!e->as<Const>().is_int()) return std::nullopt;
      return e->as<Const>().int_value();
    }
    std::optional<int64_t> visit_read(const Expr& e) override {
      const Sym& name = e->as<Read>().name;
      auto it = c_.iter_lower_bounds_.find(name);
      if (it != c_.iter_lower_bounds_.end()) return it->second;
      auto t = c_.types_.find(name);
      if (t != c_.types_.end() && t->second.kind() == TypeKind::Size) return 1;
      return std::nullopt;
    }
    std::optional<int64_t> visit_binop(const Expr& e) override {
      const auto& b = e->as<BinOp>();
      const std::optional<int64_t> divisor = positive_literal(b.rhs);
      if (b.op == BinOpKind::Mod && divisor) return 0;
      const std::optional<int64_t> l = visit(b.lhs);
      if (!l) return std::nullopt;
      if (b.op == BinOpKind::Div && divisor) return floor_div(*l, *divisor);
      const std::optional<int64_t> r = visit(b.rhs);
      if (!r) return std::nullopt;
      int64_t out = 0;
      if (b.op == BinOpKind::Add && !__builtin_add_overflow(*l, *r, &out))
        return out;
      // A product of two non-negative bounds bounds the product.
      if (b.op == BinOpKind::Mul && *l >= 0 && *r >= 0 &&
          !__builtin_mul_overflow(*l, *r, &out))
        return out;
      return std::nullopt;
    }
    std::optional<int64_t> visit_expr_default(const Expr&) override {
      return std::nullopt;
    }

   private:
    const CFunctionEmitter& c_;
  };
  std::optional<int64_t> lower_bound(const Expr& e) const {
    return LowerBound(*this).visit(e);
  }

  static std::optional<int64_t> positive_literal(const Expr& e) {
    if (e->kind != ExprKind::Const || !e->as<Const>().is_int() ||
        e->as<Const>().int_value() <= 0)
      return std::nullopt;
    return e->as<Const>().int_value();
  }

  bool non_negative(const Expr& e) {
    if (std::optional<int64_t> lo = lower_bound(e); lo && *lo >= 0) return true;
    if (!SmtEncoder::is_encodable(e)) return false;
    try {
      return smt_.prove(smt_.encode(e) >= 0).yes();
    } catch (const std::invalid_argument&) {
      return false;
    }
  }

  // Whether C's `/` and `%` compute the floor operation on (lhs, rhs).
  bool truncation_is_floor(const Expr& lhs, const Expr& rhs) {
    return positive_literal(rhs) && non_negative(lhs);
  }

  // `exo_floor_div(lhs, rhs)` or `exo_floor_mod(lhs, rhs)`.
  std::string floor_call(BinOpKind op, const std::string& lhs,
                         const std::string& rhs) {
    if (op == BinOpKind::Div) {
      result_.needs_floor_div = true;
      return "exo_floor_div(" + lhs + ", " + rhs + ")";
    }
    result_.needs_floor_mod = true;
    return "exo_floor_mod(" + lhs + ", " + rhs + ")";
  }

  // The CIndex tree of an index expression.
  class IndexLifter : public ExprFunctor<CIndexPtr()> {
   public:
    explicit IndexLifter(CFunctionEmitter& c) : c_(c) {}

   protected:
    CIndexPtr visit_read(const Expr& e) override {
      return read(e, c_.c_name(e->as<Read>().name));
    }
    CIndexPtr visit_read_config(const Expr& e) override {
      return read(e, c_.expr(e));
    }
    CIndexPtr visit_const(const Expr& e) override {
      return CIndex::constant(e->as<Const>().int_value());
    }
    CIndexPtr visit_binop(const Expr& e) override {
      const auto& b = e->as<BinOp>();
      return CIndex::binop(b.op, visit(b.lhs), visit(b.rhs), e);
    }
    CIndexPtr visit_usub(const Expr& e) override {
      auto c = std::make_shared<CIndex>();
      c->source = e;
      c->kind = CIndex::Kind::USub;
      c->lhs = visit(e->as<USub>().arg);
      return c;
    }
    CIndexPtr visit_stride_expr(const Expr& e) override {
      const auto& s = e->as<StrideExpr>();
      return c_.strides(s.name)[s.dim];
    }
    CIndexPtr visit_expr_default(const Expr& e) override {
      throw CodegenError(
          CodegenError::Kind::Type,
          e->srcinfo.str() + ": unsupported index expression " + print_expr(e));
    }

   private:
    static CIndexPtr read(const Expr& e, std::string text) {
      auto c = std::make_shared<CIndex>();
      c->source = e;
      c->kind = CIndex::Kind::Read;
      c->text = std::move(text);
      return c;
    }
    CFunctionEmitter& c_;
  };
  CIndexPtr lift(const Expr& e) { return IndexLifter(*this).visit(e); }

  std::string cindex(const CIndexPtr& e, int prec) {
    using K = CIndex::Kind;
    switch (e->kind) {
      case K::Read:
        return e->text;
      case K::Const:
        return std::to_string(e->value);
      case K::Stride:
        return fmt::format("{}.strides[{}]", e->text, e->dim);
      case K::USub:
        return "-" + cindex(e->lhs, kUnaryMinusPrecedence);
      case K::BinOp: {
        const int local = precedence(e->op);
        const std::string lhs = cindex(e->lhs, local);
        std::string rhs = cindex(e->rhs, local);
        // A right operand of equal precedence needs parentheses (`4 * (k %
        // 2)`, `a - (b + c)`), except for `+` in `+` and `*` in `*`.
        const bool associative =
            e->rhs->op == e->op &&
            (e->op == BinOpKind::Add || e->op == BinOpKind::Mul);
        if (e->rhs->kind == K::BinOp && precedence(e->rhs->op) == local &&
            !associative)
          rhs = "(" + rhs + ")";
        if (e->op == BinOpKind::Div || e->op == BinOpKind::Mod) {
          if (!truncation_is_floor(e))
            return floor_call(e->op, cindex(e->lhs, 0), cindex(e->rhs, 0));
          if (e->op == BinOpKind::Div) return "(" + lhs + " / " + rhs + ")";
        }
        std::string s = lhs + " " + binop_text(e->op) + " " + rhs;
        return local < prec ? "(" + s + ")" : s;
      }
    }
    return "";
  }

  // The CIndex form of truncation_is_floor.
  bool truncation_is_floor(const CIndexPtr& e) {
    using K = CIndex::Kind;
    if (e->rhs->kind != K::Const || e->rhs->value <= 0) return false;
    const CIndexPtr& dividend = e->lhs;
    switch (dividend->kind) {
      case K::Const:
        return dividend->value >= 0;
      case K::Stride:  // window strides may be negative
        return false;
      default:
        // Nodes without a source are products of tensor extents, which are
        // positive.
        return !dividend->source || non_negative(dividend->source);
    }
  }

  std::string index_text(const Expr& e, int prec = 0) {
    return cindex(simplify(lift(e)), prec);
  }

  std::vector<CIndexPtr> strides(const Sym& name) {
    const Type& t = types_.at(name);
    std::vector<CIndexPtr> out;
    if (t.is_window()) {
      for (size_t d = 0; d < t.shape().size(); ++d) {
        auto it = known_strides_.find({name, static_cast<int>(d)});
        if (it != known_strides_.end()) {
          out.push_back(CIndex::constant(it->second));
        } else {
          auto s = std::make_shared<CIndex>();
          s->kind = CIndex::Kind::Stride;
          s->text = c_name(name);
          s->dim = static_cast<int>(d);
          out.push_back(s);
        }
      }
      return out;
    }
    // Row-major: each stride is the product of the later extents.
    const auto& shape = t.shape();
    out.push_back(CIndex::constant(1));
    if (shape.empty()) return out;
    auto extent = [&](size_t k) {
      auto fixed = fixed_extents_.find({name, k});
      if (fixed == fixed_extents_.end()) return lift(shape[k]);
      auto c = std::make_shared<CIndex>();  // no source: extents are positive
      c->kind = CIndex::Kind::Read;
      c->text = fixed->second;
      return CIndexPtr(c);
    };
    CIndexPtr s = extent(shape.size() - 1);
    for (size_t k = shape.size() - 1; k-- > 0;) {
      out.push_back(s);
      s = CIndex::binop(BinOpKind::Mul, extent(k), s, nullptr);
    }
    std::reverse(out.begin(), out.end());
    return out;
  }

  std::string access(const Sym& name, const std::vector<Expr>& idx) {
    const std::vector<CIndexPtr> st = strides(name);
    CIndexPtr acc;
    for (size_t k = 0; k < idx.size(); ++k) {
      CIndexPtr term =
          CIndex::binop(BinOpKind::Mul, lift(idx[k]), st[k], nullptr);
      acc = acc ? CIndex::binop(BinOpKind::Add, acc, term, nullptr) : term;
    }
    const std::string off = cindex(simplify(acc), 0);
    const std::string& buf = c_name(name);
    return types_.at(name).is_window() ? buf + ".data[" + off + "]"
                                       : buf + "[" + off + "]";
  }

  // ---- windows -----------------------------------------------------------
  std::string window_type(const Type& t, bool is_const) {
    const TypeKind elem = t.basetype().kind();
    const size_t dims = t.shape().size();
    result_.window_structs[window_struct_name(elem, dims, is_const)] =
        window_struct_def(elem, dims, is_const);
    return window_struct_name(elem, dims, is_const);
  }

  // (data l-value, strides) of a window expression over `name`.
  std::pair<std::string, std::string> window_fields(
      const Sym& name, const std::vector<WindowAccess>& idx,
      const SrcInfo& srcinfo) {
    std::vector<std::string> lows, all_strides;
    for (const WindowAccess& w : idx) lows.push_back(index_text(w.lo));
    for (const CIndexPtr& s : strides(name))
      all_strides.push_back(cindex(simplify(s), 0));
    const std::string data = memory(name)->window(types_.at(name), c_name(name),
                                                  lows, all_strides, srcinfo);
    std::string kept;
    for (size_t k = 0; k < idx.size(); ++k) {
      if (!idx[k].is_interval) continue;
      kept += (kept.empty() ? "" : ", ") + all_strides[k];
    }
    return {data, kept};
  }

  std::string window_literal(const WindowExpr& w, const Type& t,
                             bool is_const) {
    const std::string wt = window_type(t, is_const);
    auto [data, st] = window_fields(w.name, w.idx, w.srcinfo);
    return "(struct " + wt + "){ &" + data + ", { " + st + " } }";
  }

  // ---- expressions -------------------------------------------------------
  std::string constant(const Const& c) {
    if (c.is_bool()) return std::get<bool>(c.value) ? "true" : "false";
    if (c.type.is_indexable() || c.type.is_bool())
      return std::to_string(
          c.is_int() ? c.int_value()
                     : static_cast<int64_t>(std::get<double>(c.value)));
    const double v = c.is_int() ? static_cast<double>(c.int_value())
                                : std::get<double>(c.value);
    if (!std::isfinite(v)) return non_finite_constant(v, c.type);
    if (c.type.kind() == TypeKind::F64) return python_float_repr(v);
    // bf16 arithmetic is done in float (see bf16_to_f32).
    if (c.type.kind() == TypeKind::F32 || c.type.kind() == TypeKind::BF16)
      return python_float_repr(v) + "f";
    const std::string text =
        c.is_int() ? std::to_string(c.int_value()) : python_float_repr(v);
    return std::string("((") + c.type.ctype() + ") " + text + ")";
  }

  // Infinities and NaN through <math.h>'s INFINITY and NAN (floats), which
  // convert exactly to the other precisions.
  std::string non_finite_constant(double v, const Type& t) {
    result_.needs_math_h = true;
    const std::string text =
        std::isnan(v) ? "NAN" : (v > 0 ? "INFINITY" : "-INFINITY");
    if (t.kind() == TypeKind::F32) return text;
    return std::string("((") + t.ctype() + ") " + text + ")";
  }

  // `ctxt->Cfg.field`.
  std::string config_field(const ConfigPtr& config, const std::string& field) {
    return c_name(ctxt_) + "->" + c_identifier(config->name()) + "." +
           c_identifier(field);
  }

  std::string config_read(const ReadConfig& r) {
    if (!r.config->is_allow_rw())
      throw CodegenError(CodegenError::Kind::Config,
                         r.srcinfo.str() + ": cannot read from config '" +
                             r.config->name() + "'");
    return config_field(r.config, r.field);
  }

  // `e` as C text, parenthesized where an operator around it binds at
  // precedence `prec` or tighter.
  std::string expr(const Expr& e, int prec = 0) {
    return ExprPrinter::visit(e, prec);
  }

  std::string visit_read(const Expr& e, int) override {
    const auto& r = e->as<Read>();
    const Type& t = types_.at(r.name);
    if (!t.is_numeric()) return c_name(r.name);
    const MemoryPtr& mem = memory(r.name);
    if (!mem->can_read())
      throw CodegenError(CodegenError::Kind::MemGen,
                         e->srcinfo.str() + ": cannot read from buffer '" +
                             r.name.name() + "' in memory '" + mem->name() +
                             "'");
    std::string value;
    if (scalar_refs_.count(r.name))
      value = "*" + c_name(r.name);
    else if (!t.is_tensor())
      value = c_name(r.name);
    else
      value = access(r.name, r.idx);
    return is_bf16(t) ? bf16_to_f32(value) : value;
  }

  std::string visit_window_expr(const Expr& e, int) override {
    const auto& w = e->as<WindowExpr>();
    return window_literal(w, e->type, !non_const_.count(root(w.name)));
  }

  std::string visit_const(const Expr& e, int) override {
    return constant(e->as<Const>());
  }

  std::string visit_binop(const Expr& e, int prec) override {
    const auto& b = e->as<BinOp>();
    const bool int_div_mod =
        (b.op == BinOpKind::Div || b.op == BinOpKind::Mod) &&
        !e->type.is_numeric();
    if (int_div_mod && !truncation_is_floor(b.lhs, b.rhs))
      return floor_call(b.op, expr(b.lhs), expr(b.rhs));
    if (int_div_mod && b.op == BinOpKind::Div)
      return "((" + expr(b.lhs) + ") / (" + expr(b.rhs) + "))";
    const int local = precedence(b.op);
    const std::string lhs = expr(b.lhs, local);
    const std::string rhs = expr(b.rhs, local + 1);
    std::string s = lhs + " " + c_operator(b.op) + " " + rhs;
    return local < prec ? "(" + s + ")" : s;
  }

  std::string visit_usub(const Expr& e, int) override {
    return "-" + expr(e->as<USub>().arg, kUnaryMinusPrecedence);
  }

  std::string visit_extern_call(const Expr& e, int) override {
    const auto& x = e->as<ExternCall>();
    std::vector<std::string> args;
    for (const Expr& a : x.args) args.push_back(expr(a));
    const std::string ctype = e->type.basetype().ctype();
    result_.externs.emplace_back(x.f, ctype);
    return x.f->compile(args, ctype);
  }

  std::string visit_stride_expr(const Expr& e, int) override {
    const auto& s = e->as<StrideExpr>();
    return cindex(simplify(strides(s.name)[s.dim]), 0);
  }

  std::string visit_read_config(const Expr& e, int) override {
    return config_read(e->as<ReadConfig>());
  }

  // A call argument: buffers and scalar parameters pass through, local
  // scalars by address, windows as compound literals. A window variable
  // whose struct is writable, passed to a parameter the callee only reads,
  // is copied into the read-only struct (C does not convert structs).
  std::string call_arg(const Expr& e, const Proc& callee, size_t k) {
    const auto callee_reads_only = [&] {
      const std::vector<Sym> written = written_buffers(callee->body);
      return std::find(written.begin(), written.end(), callee->args[k].name) ==
             written.end();
    };
    if (e->kind == ExprKind::Read && e->as<Read>().idx.empty()) {
      const Sym& name = e->as<Read>().name;
      const Type& t = types_.at(name);
      if (t.is_window() && non_const_.count(root(name)) && callee_reads_only())
        return read_only_window(name, t);
      if (!t.is_real_scalar() || scalar_refs_.count(name)) return c_name(name);
      return "&" + c_name(name);
    }
    if (e->kind == ExprKind::WindowExpr)
      return window_literal(e->as<WindowExpr>(), e->type, callee_reads_only());
    // A config field passed to a scalar data parameter is passed by
    // reference, as a scalar variable is: the callee may write it.
    if (e->kind == ExprKind::ReadConfig && callee->args[k].type.is_numeric())
      return "&" + config_read(e->as<ReadConfig>());
    return expr(e);
  }

  // `(struct exo_win_2f32c){ w.data, { w.strides[0], w.strides[1] } }`.
  std::string read_only_window(const Sym& name, const Type& t) {
    const std::string& var = c_name(name);
    std::string st;
    for (size_t d = 0; d < t.shape().size(); ++d)
      st += (d ? ", " : "") + var + ".strides[" + std::to_string(d) + "]";
    return "(struct " + window_type(t, true) + "){ " + var + ".data, { " + st +
           " } }";
  }

  // ---- allocation extents --------------------------------------------------
  // A buffer's extents are evaluated once, at its allocation. An extent
  // reading a config field the procedure writes is kept in a local, so that
  // the buffer's size and strides do not change with the field.
  std::string alloc_extent(const Sym& buffer, size_t k, const Expr& extent) {
    if (!reads_any_field(extent, written_fields_))
      return index_text(extent, 100);
    const std::string local =
        new_name(Sym(buffer.name() + "_dim" + std::to_string(k)));
    add_line("const int_fast32_t " + local + " = " + index_text(extent) + ";");
    fixed_extents_[{buffer, k}] = local;
    return local;
  }

  std::string extent_text(const Sym& buffer, size_t k, const Expr& extent) {
    auto fixed = fixed_extents_.find({buffer, k});
    return fixed == fixed_extents_.end() ? index_text(extent, 100)
                                         : fixed->second;
  }

  // ---- static storage ------------------------------------------------------
  // A `static` variable is one object shared by every thread (and every
  // call), so it cannot hold per-iteration data of a parallel loop. Memories
  // choose their C text, so the test is on that text: the storage class
  // `static`, unless also thread-local.
  static bool declares_static_storage(const std::string& alloc_text) {
    static const std::regex storage("(^|[^A-Za-z0-9_])static([^A-Za-z0-9_]|$)");
    static const std::regex thread_local_storage(
        "_Thread_local|thread_local|__thread");
    return std::regex_search(alloc_text, storage) &&
           !std::regex_search(alloc_text, thread_local_storage);
  }

  static std::string static_in_parallel_loop(const For& loop) {
    return "one object that all threads of the parallel loop over " +
           loop.iter.name() + " at " + loop.srcinfo.str() +
           " would share. Allocate the buffer outside the loop (with a "
           "dimension per iteration if each needs its own), or in a memory "
           "that allocates per call, such as DRAM or DRAM_STACK";
  }

  // ---- statements --------------------------------------------------------
  // Whether `body` may change `bound`: the bound reads a config field the
  // body writes (the procedure-wide set first, as the cheap filter).
  bool bound_may_change(const Expr& bound, const Block& body) const {
    return reads_any_field(bound, written_fields_) &&
           reads_any_field(bound, config_fields_written(body));
  }

  void block(const Block& b) {
    for (const Stmt& s : b) stmt(s);
  }

  // The C strides of a tensor or window call argument, one per dimension
  // the callee sees (a window expression's point dimensions dropped); none
  // for a scalar. Each is in parentheses, as `{p}` is.
  std::vector<std::string> argument_strides(const Expr& a) {
    std::vector<std::string> out;
    if (!a->type.is_tensor()) return out;
    const bool is_window = a->kind == ExprKind::WindowExpr;
    const Sym& name = is_window ? a->as<WindowExpr>().name : a->as<Read>().name;
    const std::vector<CIndexPtr> st = strides(name);
    for (size_t d = 0; d < st.size(); ++d) {
      if (is_window && !a->as<WindowExpr>().idx[d].is_interval) continue;
      out.push_back("(" + cindex(simplify(st[d]), 0) + ")");
    }
    return out;
  }

  void instr_call(const Call& c, const std::vector<std::string>& args) {
    std::unordered_map<std::string, std::string> values;
    for (size_t k = 0; k < args.size(); ++k) {
      const std::string pname = c.f->args[k].name.name();
      values[pname] = "(" + args[k] + ")";
      const Expr& a = c.args[k];
      const std::vector<std::string> arg_strides = argument_strides(a);
      for (size_t d = 0; d < arg_strides.size(); ++d)
        values[instr_stride_key(pname, d)] = arg_strides[d];
      if (!a->type.is_window()) {
        values[pname + "_data"] = "(" + args[k] + ")";
        if (a->kind == ExprKind::Read && a->type.is_tensor())
          values[pname + "_int"] = c_name(a->as<Read>().name);
        continue;
      }
      if (a->kind == ExprKind::WindowExpr) {
        const auto& w = a->as<WindowExpr>();
        values[pname + "_data"] = window_fields(w.name, w.idx, w.srcinfo).first;
        values[pname + "_int"] = c_name(w.name);
      } else {
        // A window variable: its origin is the window's own element 0.
        const Sym& name = a->as<Read>().name;
        std::vector<WindowAccess> idx;
        for (const Expr& n : types_.at(name).shape())
          idx.push_back(WindowAccess::interval(make_int(0), n));
        values[pname + "_data"] = window_fields(name, idx, a->srcinfo).first;
        values[pname + "_int"] = c_name(name);
      }
    }
    try {
      add_line(fill_instr_template(c.f->instr->c_instr, values));
    } catch (const std::invalid_argument& e) {
      // Unreachable for checked procedures (typecheck refuses such
      // templates); kept as an error, not a crash.
      throw CodegenError(CodegenError::Kind::Value,
                         "the template of instruction " + c.f->name +
                             " cannot be filled: " + e.what());
    }
  }

  void stmt(const Stmt& s) { StmtEmitter::visit(s); }

  void visit_pass(const Stmt&) override { add_line("; // NO-OP"); }

  void visit_assign(const Stmt& s) override {
    const auto& a = s->as<Assign>();
    std::string lhs;
    if (scalar_refs_.count(a.name))
      lhs = "*" + c_name(a.name);
    else if (types_.at(a.name).is_real_scalar())
      lhs = c_name(a.name);
    else
      lhs = access(a.name, a.idx);
    std::string rhs = expr(a.rhs);
    const Type lt = a.type.basetype(), rt = a.rhs->type.basetype();
    const Memory::Access info{a.name.name(), s->srcinfo};
    const MemoryPtr& mem = memory(a.name);
    if (is_bf16(lt)) {
      // 16-bit storage, float arithmetic, rounded once when stored.
      if (s->kind == StmtKind::Reduce) rhs = bf16_to_f32(lhs) + " + " + rhs;
      add_line(mem->write(info, lhs, f32_to_bf16(rhs)));
      return;
    }
    if (lt.kind() != rt.kind())
      rhs = std::string("(") + lt.ctype() + ")(" + rhs + ")";
    add_line(s->kind == StmtKind::Assign ? mem->write(info, lhs, rhs)
                                         : mem->reduce(info, lhs, rhs));
  }

  void visit_write_config(const Stmt& s) override {
    const auto& w = s->as<WriteConfig>();
    if (!w.config->is_allow_rw())
      throw CodegenError(CodegenError::Kind::Config,
                         s->srcinfo.str() + ": cannot write to config '" +
                             w.config->name() + "'");
    std::string rhs = expr(w.rhs);
    const Type& lt = w.config->lookup_type(w.field);
    if (lt.kind() != w.rhs->type.kind() && !lt.is_indexable() &&
        lt.is_real_scalar())
      rhs = std::string("(") + lt.ctype() + ")(" + rhs + ")";
    add_line(config_field(w.config, w.field) + " = " + rhs + ";");
  }

  void visit_window_stmt(const Stmt& s) override {
    const auto& w = s->as<WindowStmt>();
    const auto& rhs = w.rhs->as<WindowExpr>();
    const Sym base = root(rhs.name);
    const std::string text =
        window_literal(rhs, w.rhs->type, !non_const_.count(base));
    const std::string wt = window_type(w.rhs->type, !non_const_.count(base));
    const std::string name = new_name(w.name);
    types_[w.name] = w.rhs->type;
    mems_[w.name] = memory(rhs.name);
    window_root_[w.name] = base;
    add_line("struct " + wt + " " + name + " = " + text + ";");
  }

  void visit_if(const Stmt& s) override {
    const auto& i = s->as<If>();
    add_line("if (" + expr(i.cond) + ") {");
    push_scope();
    indent();
    block(i.body);
    dedent();
    pop_scope();
    if (!i.orelse.empty()) {
      add_line("} else {");
      push_scope();
      indent();
      block(i.orelse);
      dedent();
      pop_scope();
    }
    add_line("}");
  }

  void visit_for(const Stmt& s) override {
    const auto& f = s->as<For>();
    const bool parallel = f.mode && f.mode->is_parallel();
    const std::string lo = expr(f.lo), hi = expr(f.hi);
    push_scope();
    const std::string it = new_name(f.iter);
    types_[f.iter] = Type(TypeKind::Index);
    smt_.push();
    z3::expr i = smt_.var(f.iter);
    if (holds_throughout(f.lo)) smt_.assume(smt_.encode(f.lo) <= i);
    if (holds_throughout(f.hi)) smt_.assume(i < smt_.encode(f.hi));
    if (std::optional<int64_t> lb = lower_bound(f.lo))
      iter_lower_bounds_[f.iter] = *lb;
    if (parallel) {
      add_line("#pragma omp parallel for");
      parallel_loops_.push_back(&f);
    }
    // The object language evaluates a loop's bounds once. C's condition
    // is evaluated every iteration, so a bound the body may change (it
    // reads a config field the body writes) is kept in a local. `par`
    // bodies write no config field (check_parallel_loops).
    if (!parallel && bound_may_change(f.hi, f.body)) {
      const std::string end = new_name(Sym(f.iter.name() + "_hi"));
      add_line(fmt::format(
          "for (int_fast32_t {0} = {1}, {2} = {3}; {0} < {2}; {0}++) {{", it,
          lo, end, hi));
    } else {
      add_line(fmt::format("for (int_fast32_t {0} = {1}; {0} < {2}; {0}++) {{",
                           it, lo, hi));
    }
    indent();
    block(f.body);
    dedent();
    if (parallel) parallel_loops_.pop_back();
    iter_lower_bounds_.erase(f.iter);
    smt_.pop();
    pop_scope();
    add_line("}");
  }

  void visit_alloc(const Stmt& s) override {
    const auto& a = s->as<Alloc>();
    const std::string name =
        s->kind == StmtKind::Alloc ? new_name(a.name) : c_name(a.name);
    if (s->kind == StmtKind::Alloc) {
      types_[a.name] = a.type;
      mems_[a.name] = a.mem;
    }
    std::vector<std::string> shape;
    for (size_t k = 0; k < a.type.shape().size(); ++k)
      shape.push_back(s->kind == StmtKind::Alloc
                          ? alloc_extent(a.name, k, a.type.shape()[k])
                          : extent_text(a.name, k, a.type.shape()[k]));
    const std::string ctype = a.type.basetype().ctype();
    if (s->kind == StmtKind::Free) {
      add_line(a.mem->free(name, ctype, shape, s->srcinfo));
      return;
    }
    const std::string text = a.mem->alloc(name, ctype, shape, s->srcinfo);
    if (declares_static_storage(text)) {
      result_.static_storage = true;
      if (!parallel_loops_.empty())
        throw CodegenError(
            CodegenError::Kind::MemGen,
            s->srcinfo.str() + ": buffer '" + a.name.name() + "' in memory " +
                a.mem->name() + " is a C `static` variable: " +
                static_in_parallel_loop(*parallel_loops_.back()));
    }
    add_line(text);
  }

  void visit_call(const Stmt& s) override {
    const auto& c = s->as<Call>();
    std::vector<std::string> args;
    for (size_t k = 0; k < c.args.size(); ++k)
      args.push_back(call_arg(c.args[k], c.f, k));
    if (c.f->is_instr()) {
      instr_call(c, args);
      return;
    }
    std::string joined = c_name(ctxt_);
    for (const auto& a : args) joined += "," + a;
    const std::string callee = c_identifier(c.f->name);
    if (!parallel_loops_.empty())
      result_.calls_in_parallel_loops.emplace_back(
          callee, s->srcinfo.str() + ": the call of " + c.f->name +
                      " allocates a C `static` variable (directly or "
                      "in a procedure it calls): " +
                      static_in_parallel_loop(*parallel_loops_.back()));
    add_line(callee + "(" + joined + ");");
  }

  // The C backend compiles no CUDA construct.
  void visit_with(const Stmt& s) override { cuda_construct(s); }
  void visit_sync(const Stmt& s) override { cuda_construct(s); }
  [[noreturn]] static void cuda_construct(const Stmt& s) {
    throw CodegenError(CodegenError::Kind::Type,
                       s->srcinfo.str() +
                           ": the C backend cannot compile CUDA "
                           "constructs (with blocks, sync statements)");
  }
};

}  // namespace

CFunction emit_c_function(const Proc& p, const std::string& ctxt_type,
                          bool is_public) {
  return CFunctionEmitter(p, ctxt_type, is_public).run();
}

}  // namespace exo2
