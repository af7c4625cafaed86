#include "exo2/core_ir/printer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <regex>
#include <unordered_map>

#include "exo2/core_ir/ir_functor.hpp"

namespace exo2 {

std::string python_float_repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // Shortest round-trip digits, in scientific form: "-1.25e-05".
  char buf[64];
  auto res =
      std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  const bool negative = sci[0] == '-';
  if (negative) sci.erase(0, 1);
  const size_t e = sci.find('e');
  std::string digits = sci.substr(0, e);
  const int exponent = std::stoi(sci.substr(e + 1));
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());

  std::string out;
  if (exponent < -4 || exponent >= 16) {
    // Python's repr switches to scientific notation here.
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    out +=
        fmt::format("e{}{:02d}", exponent < 0 ? '-' : '+', std::abs(exponent));
  } else if (exponent < 0) {
    out = "0." + std::string(-exponent - 1, '0') + digits;
  } else {
    const size_t int_digits = exponent + 1;
    if (digits.size() <= int_digits) {
      out = digits + std::string(int_digits - digits.size(), '0') + ".0";
    } else {
      out = digits.substr(0, int_digits) + "." + digits.substr(int_digits);
    }
  }
  return negative ? "-" + out : out;
}

namespace {

// Operator precedences (docs/reference/printing.md, "Expressions").
constexpr int kUnaryPrecedence = 60;

int precedence(BinOpKind op) {
  switch (op) {
    case BinOpKind::Or:
      return 10;
    case BinOpKind::And:
      return 20;
    case BinOpKind::Lt:
    case BinOpKind::Gt:
    case BinOpKind::Le:
    case BinOpKind::Ge:
    case BinOpKind::Eq:
      return 30;
    case BinOpKind::Add:
    case BinOpKind::Sub:
      return 40;
    case BinOpKind::Mul:
    case BinOpKind::Div:
    case BinOpKind::Mod:
      return 50;
  }
  return 0;
}

bool is_atomic(const Expr& e) {
  return e->kind != ExprKind::BinOp && e->kind != ExprKind::USub;
}

// Printed names of symbols, with suffixes for names shadowed in enclosing
// or the same scope (docs/reference/printing.md, "Names").
class NameScopes {
 public:
  // With `suffixes` false every symbol prints under its source name.
  explicit NameScopes(bool suffixes) : suffixes_(suffixes) { push(); }

  void push() { scopes_.emplace_back(); }
  void pop() { scopes_.pop_back(); }

  // Binds `sym` in the innermost scope and returns its printed name.
  std::string bind(const Sym& sym) {
    if (!suffixes_) return sym.name();
    if (const std::string* known = lookup(sym)) return *known;
    std::string name = sym.name();
    static const std::regex numbered("^(.*)_([0-9]+)$");
    while (in_use(name)) {
      std::smatch m;
      if (std::regex_match(name, m, numbered)) {
        name = fmt::format("{}_{}", m[1].str(), std::stoll(m[2].str()) + 1);
      } else {
        name += "_1";
      }
    }
    scopes_.back().names.emplace(name, sym);
    scopes_.back().printed.emplace(sym, name);
    return name;
  }

  // The printed name of a bound symbol, or its source name when unbound.
  std::string name(const Sym& sym) const {
    if (const std::string* known = lookup(sym)) return *known;
    return sym.name();
  }

 private:
  struct Scope {
    std::unordered_map<std::string, Sym> names;
    std::unordered_map<Sym, std::string> printed;
  };

  const std::string* lookup(const Sym& sym) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto found = it->printed.find(sym);
      if (found != it->printed.end()) return &found->second;
    }
    return nullptr;
  }

  bool in_use(const std::string& name) const {
    for (const auto& scope : scopes_)
      if (scope.names.count(name)) return true;
    return false;
  }

  bool suffixes_;
  std::vector<Scope> scopes_;
};

// The path of a statement: (index, which child block) per level.
using PrintPath = std::vector<std::pair<int, int>>;

// Expressions and statements print by one override per kind.
class Printer final
    : public ExprFunctor<std::string(int)>,
      public StmtFunctor<void(int, const std::string&, PrintPath&)> {
 public:
  Printer(bool suffixes, PrintMarker marker)
      : names_(suffixes), marker_(std::move(marker)) {}

  std::string proc(const Proc& p) {
    std::vector<std::string> args;
    for (const auto& a : p->args) {
      const std::string name = names_.bind(a.name);
      const TypeKind k = a.type.kind();
      if (k == TypeKind::Size || k == TypeKind::Index || !a.mem) {
        args.push_back(fmt::format("{}: {}", name, type(a.type)));
      } else {
        args.push_back(
            fmt::format("{}: {} @ {}", name, type(a.type), a.mem->name()));
      }
    }
    std::string def =
        fmt::format("def {}({}):", p->name, fmt::join(args, ", "));
    if (marker_.kind == PrintMarker::Kind::ProcRoot) def += "  # <-- NODE";
    lines_.push_back(def);

    // Cursors on statements print without preconditions and instr lines.
    const bool header = marker_.kind == PrintMarker::Kind::None ||
                        marker_.kind == PrintMarker::Kind::ProcRoot;
    if (header && p->instr) instr_lines(p->instr->c_instr);
    if (header)
      for (const auto& pred : p->preds) line(1, "assert " + expr(pred));
    std::vector<std::pair<int, int>> path;
    block(p->body, 1, path);
    return fmt::format("{}", fmt::join(lines_, "\n"));
  }

  std::string stmt_text(const Stmt& s) {
    block({s}, 0, {});
    return fmt::format("{}", fmt::join(lines_, "\n"));
  }

  std::string expr(const Expr& e, int context = 0) {
    return ExprFunctor::visit(e, context);
  }

  // One override per expression kind; `context` is the precedence of the
  // enclosing operator (0 at the top).
  std::string visit_read(const Expr& e, int) override {
    const auto& r = e->as<Read>();
    std::string text = names_.name(r.name);
    if (!r.idx.empty()) text += "[" + expr_list(r.idx) + "]";
    return text;
  }
  std::string visit_const(const Expr& e, int) override {
    return literal(e->as<Const>().value);
  }
  std::string visit_usub(const Expr& e, int context) override {
    const Expr& arg = e->as<USub>().arg;
    std::string text = expr(arg);
    if (!is_atomic(arg) && arg->kind != ExprKind::USub) text = "(" + text + ")";
    return parenthesize("-" + text, kUnaryPrecedence, context);
  }
  std::string visit_binop(const Expr& e, int context) override {
    const auto& b = e->as<BinOp>();
    const int prec = precedence(b.op);
    std::string text = fmt::format("{} {} {}", expr(b.lhs, prec),
                                   binop_text(b.op), expr(b.rhs, prec + 1));
    return parenthesize(text, prec, context);
  }
  std::string visit_extern_call(const Expr& e, int) override {
    const auto& c = e->as<ExternCall>();
    return fmt::format("{}({})", c.f->name(), expr_list(c.args));
  }
  std::string visit_window_expr(const Expr& e, int) override {
    const auto& w = e->as<WindowExpr>();
    std::vector<std::string> parts;
    for (const auto& a : w.idx) {
      if (!a.is_interval) {
        parts.push_back(expr(a.lo));
      } else {
        parts.push_back((a.lo ? expr(a.lo) : "") + ":" +
                        (a.hi ? expr(a.hi) : ""));
      }
    }
    return fmt::format("{}[{}]", names_.name(w.name), fmt::join(parts, ", "));
  }
  std::string visit_stride_expr(const Expr& e, int) override {
    const auto& s = e->as<StrideExpr>();
    return fmt::format("stride({}, {})", names_.name(s.name), s.dim);
  }
  std::string visit_read_config(const Expr& e, int) override {
    const auto& c = e->as<ReadConfig>();
    return fmt::format("{}.{}", c.config->name(), c.field);
  }

  std::string type(const Type& t) {
    if (!t.is_tensor()) return type_kind_name(t.kind());
    std::vector<std::string> dims;
    const auto& annotations = t.dim_annotations();
    for (size_t i = 0; i < t.shape().size(); i++) {
      const Expr& d = t.shape()[i];
      if (i < annotations.size() && annotations[i]) {
        // Annotated extents are parenthesised unless they bind tightly.
        std::string extent = expr(d);
        const bool tight =
            is_atomic(d) ||
            (d->kind == ExprKind::BinOp && precedence(d->as<BinOp>().op) == 50);
        if (!tight) extent = "(" + extent + ")";
        dims.push_back(extent + " @ " + annotations[i]->text());
      } else {
        dims.push_back(expr(d));
      }
    }
    const std::string elem = type_kind_name(t.basetype().kind());
    const std::string shape = fmt::format("[{}]", fmt::join(dims, ", "));
    return t.is_window() ? "[" + elem + "]" + shape : elem + shape;
  }

 private:
  static std::string parenthesize(std::string text, int prec, int context) {
    return prec < context ? "(" + text + ")" : text;
  }

  static std::string literal(const ConstValue& v) {
    if (const bool* b = std::get_if<bool>(&v)) return *b ? "True" : "False";
    if (const int64_t* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
    return python_float_repr(std::get<double>(v));
  }

  std::string expr_list(const std::vector<Expr>& es) {
    std::vector<std::string> parts;
    for (const auto& e : es) parts.push_back(expr(e));
    return fmt::format("{}", fmt::join(parts, ", "));
  }

  void line(int depth, const std::string& text) {
    lines_.push_back(std::string(4 * depth, ' ') + text);
  }

  // Template lines after `# @instr ` / `#        `, trailing spaces removed.
  void instr_lines(const std::string& c_instr) {
    size_t start = 0;
    bool first = true;
    while (true) {
      const size_t end = c_instr.find('\n', start);
      std::string text = (first ? "# @instr " : "#        ") +
                         c_instr.substr(start, end - start);
      text.erase(text.find_last_not_of(' ') + 1);
      line(1, text);
      first = false;
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }

  void block(const Block& b, int depth, std::vector<std::pair<int, int>> path) {
    const bool marked = marker_.kind != PrintMarker::Kind::None &&
                        marker_.kind != PrintMarker::Kind::ProcRoot &&
                        path == marker_.block_path;
    for (int i = 0; i < static_cast<int>(b.size()); i++) {
      using K = PrintMarker::Kind;
      if (marked && marker_.kind == K::GapBefore && i == marker_.lo)
        line(depth, "[GAP - Before]");
      if (marked && marker_.kind == K::Block && i == marker_.lo)
        line(depth, "# BLOCK START");
      const bool node = marked && marker_.kind == K::Node && i == marker_.lo;
      path.emplace_back(i, 0);
      stmt(b[i], depth, node, path);
      path.pop_back();
      if (marked && marker_.kind == K::Block && i == marker_.hi - 1)
        line(depth, "# BLOCK END");
      if (marked && marker_.kind == K::GapAfter && i == marker_.lo)
        line(depth, "[GAP - After]");
    }
  }

  // Prints a statement; `node` marks its first line. `path` ends with this
  // statement's (index, 0) step; child blocks replace the 0.
  void stmt(const Stmt& s, int depth, bool node, PrintPath& path) {
    StmtFunctor::visit(s, depth, node ? "  # <-- NODE" : "", path);
  }

  // Child block `which` (0: body, 1: else branch) of the statement that
  // `path` ends with, one level deeper.
  void child(const Block& body, int which, int depth, PrintPath& path) {
    names_.push();
    path.back().second = which;
    block(body, depth + 1, path);
    path.back().second = 0;
    names_.pop();
  }

  // One override per statement kind; `mark` ends the first line.
  void visit_assign(const Stmt& s, int depth, const std::string& mark,
                    PrintPath&) override {
    const auto& a = s->as<Assign>();
    std::string lhs = names_.name(a.name);
    if (!a.idx.empty()) lhs += "[" + expr_list(a.idx) + "]";
    const char* op = s->kind == StmtKind::Assign ? "=" : "+=";
    line(depth, fmt::format("{} {} {}{}", lhs, op, expr(a.rhs), mark));
  }
  void visit_write_config(const Stmt& s, int depth, const std::string& mark,
                          PrintPath&) override {
    const auto& w = s->as<WriteConfig>();
    line(depth, fmt::format("{}.{} = {}{}", w.config->name(), w.field,
                            expr(w.rhs), mark));
  }
  void visit_pass(const Stmt&, int depth, const std::string& mark,
                  PrintPath&) override {
    line(depth, "pass" + mark);
  }
  void visit_if(const Stmt& s, int depth, const std::string& mark,
                PrintPath& path) override {
    const auto& f = s->as<If>();
    line(depth, fmt::format("if {}:{}", expr(f.cond), mark));
    child(f.body, 0, depth, path);
    if (!f.orelse.empty()) {
      line(depth, "else:");
      child(f.orelse, 1, depth, path);
    }
  }
  void visit_for(const Stmt& s, int depth, const std::string& mark,
                 PrintPath& path) override {
    const auto& f = s->as<For>();
    // Bounds are printed before the iterator is bound.
    const std::string lo = expr(f.lo), hi = expr(f.hi);
    names_.push();
    const std::string iter = names_.bind(f.iter);
    line(depth, fmt::format("for {} in {}({}, {}{}):{}", iter, f.mode->name(),
                            lo, hi, f.mode->extra_args(), mark));
    block(f.body, depth + 1, path);
    names_.pop();
  }
  void visit_alloc(const Stmt& s, int depth, const std::string& mark,
                   PrintPath&) override {
    const auto& a = s->as<Alloc>();
    if (s->kind == StmtKind::Free) {
      line(depth, fmt::format("free({}){}", names_.name(a.name), mark));
      return;
    }
    const std::string t = type(a.type);
    line(depth, fmt::format("{}: {} @ {}{}", names_.bind(a.name), t,
                            a.mem->name(), mark));
  }
  void visit_call(const Stmt& s, int depth, const std::string& mark,
                  PrintPath&) override {
    const auto& c = s->as<Call>();
    line(depth, fmt::format("{}({}){}{}", c.f->name, expr_list(c.args),
                            trailing_barriers(c.barriers), mark));
  }
  void visit_window_stmt(const Stmt& s, int depth, const std::string& mark,
                         PrintPath&) override {
    const auto& w = s->as<WindowStmt>();
    std::string rhs = expr(w.rhs);
    if (w.mem) rhs += " @ " + w.mem->name();
    line(depth, fmt::format("{} = {}{}", names_.bind(w.name), rhs, mark));
  }
  void visit_with(const Stmt& s, int depth, const std::string& mark,
                  PrintPath& path) override {
    const auto& w = s->as<With>();
    line(depth, fmt::format("with {}:{}", w.ctx->text(), mark));
    child(w.body, 0, depth, path);
  }
  void visit_sync(const Stmt& s, int depth, const std::string& mark,
                  PrintPath&) override {
    line(depth, sync(s->as<Sync>()) + mark);
  }

  // ` >> b1 >> b2` (empty without barriers).
  std::string trailing_barriers(const std::vector<Expr>& barriers) {
    std::string out;
    for (const Expr& b : barriers) out += " >> " + expr(b);
    return out;
  }

  // `Fence(pre, post)`, `Arrive(pre) >> b...`, `Await(b, post)`.
  std::string sync(const Sync& y) {
    auto name = [](const SyncTimelinePtr& t) {
      return t ? t->name() : std::string("?");
    };
    switch (y.sync) {
      case SyncKind::Fence:
        return fmt::format("Fence({}, {})", name(y.pre), name(y.post));
      case SyncKind::Arrive:
        return fmt::format("Arrive({}){}", name(y.pre),
                           trailing_barriers(y.barriers));
      case SyncKind::Await:
        return fmt::format("Await({}, {})", expr_list(y.barriers),
                           name(y.post));
    }
    return "";
  }

  NameScopes names_;
  PrintMarker marker_;
  std::vector<std::string> lines_;
};

}  // namespace

std::string print_proc(const Proc& p) { return print_proc(p, PrintMarker{}); }

std::string print_proc(const Proc& p, const PrintMarker& marker) {
  return Printer(true, marker).proc(p);
}

std::string print_expr(const Expr& e) {
  return Printer(false, PrintMarker{}).expr(e);
}

std::string print_stmt(const Stmt& s) {
  return Printer(false, PrintMarker{}).stmt_text(s);
}

std::string print_type(const Type& t) {
  return Printer(false, PrintMarker{}).type(t);
}

}  // namespace exo2
