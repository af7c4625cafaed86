#include "exo2/primitives/call_checks.hpp"

#include <fmt/format.h>

#include <set>
#include <string>

#include "exo2/analysis/bounds_check.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/refusal.hpp"

namespace exo2::primitives {

void require_call_safe(const Proc& proc, const cursors::Path& call,
                       const Proc* before) {
  const Stmt s = cursors::resolve_stmt(proc, call);
  std::vector<CheckFailure> failures = check_call(proc, *s);
  if (failures.empty()) return;
  if (before) {
    std::set<std::string> already;
    for (const CheckFailure& f :
         check_call(*before, *cursors::resolve_stmt(*before, call)))
      already.insert(f.what);
    std::erase_if(failures,
                  [&](const CheckFailure& f) { return already.count(f.what); });
    if (failures.empty()) return;
  }
  const CheckFailure& f = failures.front();
  const std::string& callee = s->as<Call>().f->name;
  refuse(f.what,
         {.srcinfo = s->srcinfo,
          .condition = fmt::format("the call to {} at {} is well-formed",
                                   callee, s->srcinfo.str()),
          .counterexample = f.counterexample,
          .hint = fmt::format("{}'s preconditions and argument shapes must "
                              "hold where it is called",
                              callee)});
}

}  // namespace exo2::primitives
