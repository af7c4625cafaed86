// Rewriting every use of one buffer throughout a procedure: its accesses,
// windows, strides and writes, and optionally those of the windows taken
// from it by window statements. What set_precision, set_window and
// transpose share: they change a declaration, then each use to match.
//
// The rewrite keeps the shape of the tree (every node stays at its path, so
// cursors forward unchanged) and shares every subtree without a use. A data
// operation whose operands changed gets its type recomputed as the
// typechecker does (the left operand's precision).
#pragma once

#include <unordered_set>

#include "exo2/core_ir/proc.hpp"
#include "exo2/cursors/location.hpp"

namespace exo2::primitives {

// A buffer's declaration: a parameter or an allocation.
struct Declaration {
  cursors::Location at;
  int param = -1;  // the parameter's position; -1 for an allocation
  Sym name;
  Type type;
  MemoryPtr mem;  // null for control parameters
  SrcInfo srcinfo;
};

// The declaration at `decl`, a node location of a parameter
// (`[(Param, k)]`) or an allocation; std::invalid_argument otherwise.
Declaration declaration_at(const Proc& proc, const cursors::Location& decl);

// `proc` with the declaration `d` given `type` and `mem`; nothing else
// changes.
Proc redeclare(const Proc& proc, const Declaration& d, Type type,
               MemoryPtr mem);

class BufferUseRewriter {
 public:
  // `follow_windows`: uses of `y` after `y = buffer[...]` count as uses.
  BufferUseRewriter(const Sym& buffer, bool follow_windows);
  virtual ~BufferUseRewriter() = default;

  // The procedure with every use in the body and preconditions rewritten;
  // the parameters are left as they are.
  Proc rewrite_uses(const Proc& proc);
  // `block` with every use rewritten.
  Block rewrite_uses(const Block& b) { return block(b); }

 protected:
  // Hooks, called on each use with its sub-expressions already rewritten;
  // each returns the replacement (the default keeps it).
  virtual Expr read(const Expr& read) { return read; }  // x, x[i, j]
  virtual Expr window(const Expr& window) { return window; }
  virtual Expr stride(const Expr& stride) { return stride; }
  virtual Stmt write(const Stmt& write) { return write; }  // x[i] = e, +=

 private:
  std::unordered_set<Sym> tracked_;
  bool follow_windows_;

  bool tracked(const Sym& s) const { return tracked_.count(s) > 0; }
  Expr expr(const Expr& e);
  std::vector<Expr> exprs(const std::vector<Expr>& es);
  Stmt stmt(const Stmt& s);
  Block block(const Block& b);
};

// Every use of `from` renamed to `to` (same type, so nothing else changes).
class BufferRename : public BufferUseRewriter {
 public:
  BufferRename(const Sym& from, Sym to)
      : BufferUseRewriter(from, /*follow_windows=*/false), to_(std::move(to)) {}

 protected:
  Expr read(const Expr& e) override {
    const auto& r = e->as<Read>();
    return make_read(to_, r.idx, r.srcinfo, e->type);
  }
  Expr window(const Expr& e) override {
    const auto& w = e->as<WindowExpr>();
    return make_window_expr(to_, w.idx, w.srcinfo, e->type);
  }
  Expr stride(const Expr& e) override {
    return make_stride_expr(to_, e->as<StrideExpr>().dim, e->srcinfo, e->type);
  }
  Stmt write(const Stmt& s) override {
    const auto& a = s->as<Assign>();
    return std::make_shared<const Assign>(s->kind, to_, a.type, a.idx, a.rhs,
                                          a.srcinfo);
  }

 private:
  Sym to_;
};

}  // namespace exo2::primitives
