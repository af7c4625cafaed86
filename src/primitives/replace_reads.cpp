#include "exo2/primitives/replace_reads.hpp"

#include "exo2/core_ir/ir_visitor.hpp"
#include "exo2/cursors/navigation.hpp"

namespace exo2::primitives {

namespace {

class ReadReplacer : public IRMutator {
 public:
  ReadReplacer(const Sym& var,
               const std::function<Expr(const Expr& read)>& make)
      : var_(var), make_(make) {}

 protected:
  Expr mutate_read(const Expr& e) override {
    const auto& r = e->as<Read>();
    if (r.name == var_ && r.idx.empty()) return make_(e);
    return IRMutator::mutate_read(e);
  }

 private:
  const Sym& var_;
  const std::function<Expr(const Expr& read)>& make_;
};

}  // namespace

cursors::EditResult replace_reads(
    const Proc& proc, const cursors::Path& stmt, const Sym& var,
    const std::function<Expr(const Expr& read)>& make) {
  const Stmt old = cursors::resolve_stmt(proc, stmt);
  Stmt replaced = ReadReplacer(var, make).mutate(old);
  if (replaced == old) return {proc, {}};
  return cursors::replace_leaves(proc, cursors::Location::node(stmt),
                                 std::move(replaced));
}

}  // namespace exo2::primitives
