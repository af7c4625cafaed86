#include "exo2/primitives/set_precision.hpp"

#include "exo2/primitives/buffer_uses.hpp"
#include "exo2/primitives/refusal.hpp"

namespace exo2::primitives {

namespace {

// `t` (a data scalar, tensor or window) with element type `kind`.
Type with_precision(const Type& t, TypeKind kind) {
  if (!t.is_tensor()) return Type(kind);
  return Type::tensor(Type(kind), t.shape(), t.is_window(),
                      t.dim_annotations());
}

class Retype : public BufferUseRewriter {
 public:
  Retype(const Sym& buffer, TypeKind kind)
      : BufferUseRewriter(buffer, /*follow_windows=*/true), kind_(kind) {}

 protected:
  Expr read(const Expr& e) override {
    return with_type(e, with_precision(e->type, kind_));
  }
  Expr window(const Expr& e) override {
    return with_type(e, with_precision(e->type, kind_));
  }
  Stmt write(const Stmt& s) override {
    const auto& a = s->as<Assign>();
    return std::make_shared<const Assign>(s->kind, a.name, Type(kind_), a.idx,
                                          a.rhs, a.srcinfo);
  }

 private:
  TypeKind kind_;
};

}  // namespace

cursors::EditResult set_precision(const Proc& proc,
                                  const cursors::Location& decl,
                                  TypeKind precision) {
  if (!is_data_kind(precision))
    throw ArgumentError("set_precision: expected a data type");
  const Declaration d = declaration_at(proc, decl);
  if (!d.type.is_numeric())
    refuse("cannot set the precision or memory of a control value",
           {.srcinfo = d.srcinfo});
  Proc out = redeclare(proc, d, with_precision(d.type, precision), d.mem);
  return {Retype(d.name, precision).rewrite_uses(out), cursors::Forwarding()};
}

}  // namespace exo2::primitives
