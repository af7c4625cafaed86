#include "exo2/primitives/simplify.hpp"

#include "exo2/analysis/simplify.hpp"
#include "exo2/cursors/navigation.hpp"

namespace exo2::primitives {

using cursors::Location;

namespace {

// Keeps a location when the statements along its path have the same kinds
// and their statement lists the same lengths in both procedures, so the
// path names the same (simplified) code.
class SameShapeForwarding : public cursors::ForwardingStep {
 public:
  SameShapeForwarding(Proc before, Proc after)
      : before_(std::move(before)), after_(std::move(after)) {}

  Location forward(const Location& loc) const override {
    Stmt old_owner, new_owner;
    for (const cursors::Step& step : loc.path) {
      if (!cursors::is_statement_slot(step.slot)) break;
      const Block& old_list =
          cursors::statement_list(before_, old_owner, step.slot);
      const Block* new_list = nullptr;
      try {
        new_list = &cursors::statement_list(after_, new_owner, step.slot);
      } catch (const cursors::PathError&) {
      }
      if (!new_list || new_list->size() != old_list.size() ||
          old_list.at(step.index)->kind != (*new_list)[step.index]->kind)
        throw cursors::InvalidCursorError("node no longer exists");
      old_owner = old_list[step.index];
      new_owner = (*new_list)[step.index];
    }
    if (!cursors::is_valid(after_, loc))
      throw cursors::InvalidCursorError("node no longer exists");
    return loc;
  }

 private:
  Proc before_, after_;
};

}  // namespace

cursors::EditResult simplify(const Proc& proc) {
  Proc result = exo2::simplify(proc);
  return {result, cursors::Forwarding(
                      std::make_shared<SameShapeForwarding>(proc, result))};
}

}  // namespace exo2::primitives
