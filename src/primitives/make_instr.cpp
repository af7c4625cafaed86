#include "exo2/primitives/make_instr.hpp"

namespace exo2::primitives {

cursors::EditResult make_instr(const Proc& proc, const std::string& c_instr,
                               const std::string& c_global) {
  // Backend metadata of an existing instruction (CUDA thread groups) stays.
  InstrInfo instr{c_instr, c_global,
                  proc->instr ? proc->instr->metadata : nullptr};
  return {make_proc(proc->name, proc->args, proc->preds, proc->body,
                    std::move(instr), proc->srcinfo),
          cursors::Forwarding()};
}

}  // namespace exo2::primitives
