#include "exo2/primitives/rename.hpp"

namespace exo2::primitives {

cursors::EditResult rename(const Proc& proc, const std::string& name) {
  // The name is a procedure attribute, not a location, so no location edit
  // applies; every location stays where it was.
  return {make_proc(name, proc->args, proc->preds, proc->body, proc->instr,
                    proc->srcinfo),
          cursors::Forwarding()};
}

}  // namespace exo2::primitives
