#include "exo2/primitives/make_instr.hpp"

#include "exo2/core_ir/instr_template.hpp"
#include "exo2/primitives/refusal.hpp"

namespace exo2::primitives {

cursors::EditResult make_instr(const Proc& proc, const std::string& c_instr,
                               const std::string& c_global) {
  // Backend metadata of an existing instruction (CUDA thread groups) stays.
  InstrInfo instr{c_instr, c_global,
                  proc->instr ? proc->instr->metadata : nullptr};
  Proc result = make_proc(proc->name, proc->args, proc->preds, proc->body,
                          std::move(instr), proc->srcinfo);
  // A template code generation could not fill is refused now, not at the
  // first call's code generation.
  if (std::string problem = instr_template_problem(*result); !problem.empty())
    refuse(problem, {.srcinfo = proc->srcinfo});
  return {std::move(result), cursors::Forwarding()};
}

}  // namespace exo2::primitives
