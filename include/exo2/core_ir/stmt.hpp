// Statements of the object language. Immutable and shared, like expressions.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "exo2/core_ir/expr.hpp"

namespace exo2 {

class ProcNode;
using Proc = std::shared_ptr<const ProcNode>;

enum class StmtKind {
  Assign,       // x[i] = e
  Reduce,       // x[i] += e
  WriteConfig,  // Cfg.field = e
  Pass,         // pass
  If,           // if c: ... else: ...
  For,          // for i in seq(lo, hi): ...
  Alloc,        // x : f32[n] @ DRAM
  Free,         // made by code generation only
  Call,         // f(args)
  WindowStmt,   // y = x[0:n, i]
  With,         // with <ctx>: ...  (reserved for the CUDA backend)
  Sync,         // Fence / Arrive / Await (reserved for the CUDA backend)
};

// The kind's name, as in the IR class names (`Assign`, `ExternCall`).
const char* kind_name(StmtKind k);

class StmtNode;
using Stmt = std::shared_ptr<const StmtNode>;
using Block = std::vector<Stmt>;

class StmtNode {
 public:
  StmtKind kind;
  SrcInfo srcinfo;

  template <class T>
  const T& as() const {
    return static_cast<const T&>(*this);
  }
  virtual ~StmtNode() = default;

 protected:
  StmtNode(StmtKind k, SrcInfo s) : kind(k), srcinfo(std::move(s)) {}
};

// Assign and Reduce share their shape. `type` is the element type of the
// written buffer.
struct Assign : StmtNode {
  Sym name;
  Type type;
  std::vector<Expr> idx;
  Expr rhs;
  Assign(StmtKind k, Sym n, Type t, std::vector<Expr> i, Expr r, SrcInfo s)
      : StmtNode(k, std::move(s)),
        name(std::move(n)),
        type(std::move(t)),
        idx(std::move(i)),
        rhs(std::move(r)) {}
};
using Reduce = Assign;

struct WriteConfig : StmtNode {
  ConfigPtr config;
  std::string field;
  Expr rhs;
  WriteConfig(ConfigPtr c, std::string f, Expr r, SrcInfo s)
      : StmtNode(StmtKind::WriteConfig, std::move(s)),
        config(std::move(c)),
        field(std::move(f)),
        rhs(std::move(r)) {}
};

struct Pass : StmtNode {
  explicit Pass(SrcInfo s) : StmtNode(StmtKind::Pass, std::move(s)) {}
};

struct If : StmtNode {
  Expr cond;
  Block body;
  Block orelse;  // empty when there is no else branch
  If(Expr c, Block b, Block o, SrcInfo s)
      : StmtNode(StmtKind::If, std::move(s)),
        cond(std::move(c)),
        body(std::move(b)),
        orelse(std::move(o)) {}
};

struct For : StmtNode {
  Sym iter;
  Expr lo, hi;
  Block body;
  LoopModePtr mode;
  For(Sym i, Expr l, Expr h, Block b, LoopModePtr m, SrcInfo s)
      : StmtNode(StmtKind::For, std::move(s)),
        iter(std::move(i)),
        lo(std::move(l)),
        hi(std::move(h)),
        body(std::move(b)),
        mode(std::move(m)) {}
};

// Alloc and Free share their shape.
struct Alloc : StmtNode {
  Sym name;
  Type type;
  MemoryPtr mem;
  Alloc(StmtKind k, Sym n, Type t, MemoryPtr m, SrcInfo s)
      : StmtNode(k, std::move(s)),
        name(std::move(n)),
        type(std::move(t)),
        mem(std::move(m)) {}
};
using Free = Alloc;

// `f(args)`, or with trailing barriers `f(args) >> bar[i] >> bar2[j]`: an
// asynchronous instruction that signals the barrier elements itself when it
// completes (docs/cuda.md). Barriers have no sequential meaning.
struct Call : StmtNode {
  Proc f;
  std::vector<Expr> args;
  std::vector<Expr> barriers;
  Call(Proc fn, std::vector<Expr> a, std::vector<Expr> b, SrcInfo s)
      : StmtNode(StmtKind::Call, std::move(s)),
        f(std::move(fn)),
        args(std::move(a)),
        barriers(std::move(b)) {}
};

// `name = rhs` where rhs is a WindowExpr. `mem` is null except for special
// windows (`A_tm = A[...] @ CudaTensorMap(...)`).
struct WindowStmt : StmtNode {
  Sym name;
  Expr rhs;
  MemoryPtr mem;
  WindowStmt(Sym n, Expr r, MemoryPtr m, SrcInfo s)
      : StmtNode(StmtKind::WindowStmt, std::move(s)),
        name(std::move(n)),
        rhs(std::move(r)),
        mem(std::move(m)) {}
};

struct With : StmtNode {
  WithContextPtr ctx;
  Block body;
  With(WithContextPtr c, Block b, SrcInfo s)
      : StmtNode(StmtKind::With, std::move(s)),
        ctx(std::move(c)),
        body(std::move(b)) {}
};

// The three synchronisation statements (docs/cuda.md):
//   Fence(pre, post)               pre and post set, no barriers
//   Arrive(pre) >> b1 >> b2 ...    pre set, one or more barrier elements
//   Await(b, post)                 post set, exactly one barrier element
enum class SyncKind { Fence, Arrive, Await };
// "Fence", "Arrive", "Await".
const char* sync_kind_name(SyncKind k);

// A synchronisation statement. Its sequential meaning is a no-op; the
// parallel meaning belongs to the backend. `barriers` are reads of
// barrier-typed buffers (logical elements).
struct Sync : StmtNode {
  SyncKind sync;
  SyncTimelinePtr pre, post;  // null where the kind has none
  std::vector<Expr> barriers;
  Sync(SyncKind k, SyncTimelinePtr pr, SyncTimelinePtr po, std::vector<Expr> b,
       SrcInfo s)
      : StmtNode(StmtKind::Sync, std::move(s)),
        sync(k),
        pre(std::move(pr)),
        post(std::move(po)),
        barriers(std::move(b)) {}
};

Stmt make_assign(Sym name, Type type, std::vector<Expr> idx, Expr rhs,
                 SrcInfo s);
Stmt make_reduce(Sym name, Type type, std::vector<Expr> idx, Expr rhs,
                 SrcInfo s);
Stmt make_write_config(ConfigPtr config, std::string field, Expr rhs,
                       SrcInfo s);
Stmt make_pass(SrcInfo s);
Stmt make_if(Expr cond, Block body, Block orelse, SrcInfo s);
Stmt make_for(Sym iter, Expr lo, Expr hi, Block body, LoopModePtr mode,
              SrcInfo s);
Stmt make_alloc(Sym name, Type type, MemoryPtr mem, SrcInfo s);
Stmt make_free(Sym name, Type type, MemoryPtr mem, SrcInfo s);
Stmt make_call(Proc f, std::vector<Expr> args, SrcInfo s,
               std::vector<Expr> barriers = {});
Stmt make_window_stmt(Sym name, Expr rhs, SrcInfo s, MemoryPtr mem = nullptr);
Stmt make_with(WithContextPtr ctx, Block body, SrcInfo s);
Stmt make_sync(SyncKind kind, SyncTimelinePtr pre, SyncTimelinePtr post,
               std::vector<Expr> barriers, SrcInfo s);
// The same synchronisation statement with other barrier expressions.
Stmt with_barriers(const Sync& s, std::vector<Expr> barriers);

}  // namespace exo2
