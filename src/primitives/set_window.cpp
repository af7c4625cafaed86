#include "exo2/primitives/set_window.hpp"

#include <fmt/format.h>

#include "exo2/primitives/buffer_uses.hpp"
#include "exo2/primitives/refusal.hpp"

namespace exo2::primitives {

namespace {

// Whole-buffer reads of the parameter carry its declared type.
class RetypeWholeReads : public BufferUseRewriter {
 public:
  RetypeWholeReads(const Sym& buffer, Type type)
      : BufferUseRewriter(buffer, /*follow_windows=*/false),
        type_(std::move(type)) {}

 protected:
  Expr read(const Expr& e) override {
    return e->as<Read>().idx.empty() ? with_type(e, type_) : e;
  }

 private:
  Type type_;
};

// A call in `b` passing the whole of `x` to a dense tensor parameter, which
// a window cannot be passed to; null when there is none.
const Stmt* call_needing_dense(const Block& b, const Sym& x, size_t* param) {
  for (const Stmt& s : b) {
    const Stmt* found = nullptr;
    if (s->kind == StmtKind::Call) {
      const auto& c = s->as<Call>();
      for (size_t k = 0; k < c.args.size() && !found; k++) {
        const Expr& a = c.args[k];
        const Type& t = c.f->args[k].type;
        if (a->kind == ExprKind::Read && a->as<Read>().name == x &&
            t.is_tensor() && !t.is_window()) {
          *param = k;
          found = &s;
        }
      }
    } else if (s->kind == StmtKind::For) {
      found = call_needing_dense(s->as<For>().body, x, param);
    } else if (s->kind == StmtKind::If) {
      found = call_needing_dense(s->as<If>().body, x, param);
      if (!found) found = call_needing_dense(s->as<If>().orelse, x, param);
    } else if (s->kind == StmtKind::With) {
      found = call_needing_dense(s->as<With>().body, x, param);
    }
    if (found) return found;
  }
  return nullptr;
}

}  // namespace

cursors::EditResult set_window(const Proc& proc, const cursors::Location& param,
                               bool is_window) {
  const Declaration d = declaration_at(proc, param);
  if (d.param < 0) throw ArgumentError("set_window: expected a parameter");
  if (!d.type.is_tensor())
    refuse("cannot change windowing of a non-tensor/window argument",
           {.srcinfo = d.srcinfo});
  size_t k = 0;
  if (const Stmt* call =
          is_window ? call_needing_dense(proc->body, d.name, &k) : nullptr) {
    const Call& c = (*call)->as<Call>();
    refuse(fmt::format("cannot make {} a window: it is passed to {} at {}, "
                       "whose parameter {} is not a window",
                       d.name.name(), c.f->name, c.srcinfo.str(),
                       c.f->args[k].name.name()),
           {.srcinfo = c.srcinfo});
  }
  Type type = Type::tensor(d.type.basetype(), d.type.shape(), is_window,
                           d.type.dim_annotations());
  Proc out = redeclare(proc, d, type, d.mem);
  return {RetypeWholeReads(d.name, type).rewrite_uses(out),
          cursors::Forwarding()};
}

}  // namespace exo2::primitives
