#include "exo2/core_ir/stmt.hpp"

#include "exo2/core_ir/proc.hpp"

namespace exo2 {

Stmt make_assign(Sym name, Type type, std::vector<Expr> idx, Expr rhs,
                 SrcInfo s) {
  return std::make_shared<const Assign>(StmtKind::Assign, std::move(name),
                                        std::move(type), std::move(idx),
                                        std::move(rhs), std::move(s));
}

Stmt make_reduce(Sym name, Type type, std::vector<Expr> idx, Expr rhs,
                 SrcInfo s) {
  return std::make_shared<const Reduce>(StmtKind::Reduce, std::move(name),
                                        std::move(type), std::move(idx),
                                        std::move(rhs), std::move(s));
}

Stmt make_write_config(ConfigPtr config, std::string field, Expr rhs,
                       SrcInfo s) {
  return std::make_shared<const WriteConfig>(
      std::move(config), std::move(field), std::move(rhs), std::move(s));
}

Stmt make_pass(SrcInfo s) { return std::make_shared<const Pass>(std::move(s)); }

Stmt make_if(Expr cond, Block body, Block orelse, SrcInfo s) {
  return std::make_shared<const If>(std::move(cond), std::move(body),
                                    std::move(orelse), std::move(s));
}

Stmt make_for(Sym iter, Expr lo, Expr hi, Block body, LoopModePtr mode,
              SrcInfo s) {
  return std::make_shared<const For>(std::move(iter), std::move(lo),
                                     std::move(hi), std::move(body),
                                     std::move(mode), std::move(s));
}

Stmt make_alloc(Sym name, Type type, MemoryPtr mem, SrcInfo s) {
  return std::make_shared<const Alloc>(StmtKind::Alloc, std::move(name),
                                       std::move(type), std::move(mem),
                                       std::move(s));
}

Stmt make_free(Sym name, Type type, MemoryPtr mem, SrcInfo s) {
  return std::make_shared<const Free>(StmtKind::Free, std::move(name),
                                      std::move(type), std::move(mem),
                                      std::move(s));
}

Stmt make_call(Proc f, std::vector<Expr> args, SrcInfo s,
               std::vector<Expr> barriers) {
  return std::make_shared<const Call>(std::move(f), std::move(args),
                                      std::move(barriers), std::move(s));
}

Stmt make_window_stmt(Sym name, Expr rhs, SrcInfo s, MemoryPtr mem) {
  return std::make_shared<const WindowStmt>(std::move(name), std::move(rhs),
                                            std::move(mem), std::move(s));
}

Stmt make_with(WithContextPtr ctx, Block body, SrcInfo s) {
  return std::make_shared<const With>(std::move(ctx), std::move(body),
                                      std::move(s));
}

Stmt make_sync(SyncKind kind, SyncTimelinePtr pre, SyncTimelinePtr post,
               std::vector<Expr> barriers, SrcInfo s) {
  return std::make_shared<const Sync>(kind, std::move(pre), std::move(post),
                                      std::move(barriers), std::move(s));
}

Stmt with_barriers(const Sync& s, std::vector<Expr> barriers) {
  return make_sync(s.sync, s.pre, s.post, std::move(barriers), s.srcinfo);
}

const char* sync_kind_name(SyncKind k) {
  switch (k) {
    case SyncKind::Fence:
      return "Fence";
    case SyncKind::Arrive:
      return "Arrive";
    case SyncKind::Await:
      return "Await";
  }
  return "?";
}

Proc make_proc(std::string name, std::vector<FnArg> args,
               std::vector<Expr> preds, Block body,
               std::optional<InstrInfo> instr, SrcInfo s) {
  return std::make_shared<const ProcNode>(std::move(name), std::move(args),
                                          std::move(preds), std::move(body),
                                          std::move(instr), std::move(s));
}

const char* kind_name(StmtKind k) {
  switch (k) {
    case StmtKind::Assign:
      return "Assign";
    case StmtKind::Reduce:
      return "Reduce";
    case StmtKind::WriteConfig:
      return "WriteConfig";
    case StmtKind::Pass:
      return "Pass";
    case StmtKind::If:
      return "If";
    case StmtKind::For:
      return "For";
    case StmtKind::Alloc:
      return "Alloc";
    case StmtKind::Free:
      return "Free";
    case StmtKind::Call:
      return "Call";
    case StmtKind::WindowStmt:
      return "WindowStmt";
    case StmtKind::With:
      return "With";
    case StmtKind::Sync:
      return "Sync";
  }
  return "?";
}

}  // namespace exo2
