#include "exo2/primitives/data_locations.hpp"

#include <algorithm>

#include "exo2/core_ir/diagnostics.hpp"
#include "exo2/core_ir/equality.hpp"

namespace exo2::primitives {

std::vector<Location> locations_read(const Expr& e, const WindowEnv& env) {
  // The effects of assigning `e` to a fresh scalar are the reads of `e`,
  // plus that write, which is to a location nothing else names.
  Sym target("target");
  std::vector<Location> out;
  for (const Access& a :
       effects_of(make_assign(target, e->type, {}, e, e->srcinfo), env))
    if (a.kind == AccessKind::Read) out.push_back(a.location);
  return out;
}

Location location_written(const Stmt& write, const WindowEnv& env) {
  for (const Access& a : effects_of(write, env))
    if (a.modifies()) return a.location;
  throw ArgumentError("expected an assignment or reduction");
}

bool contains(const std::vector<Location>& locations, const Location& loc) {
  return std::any_of(locations.begin(), locations.end(),
                     [&](const Location& l) { return l.same_as(loc); });
}

bool reads_written_element(const Expr& e, const Stmt& write) {
  if (e->kind != ExprKind::Read) return false;
  const Read& r = e->as<Read>();
  const Assign& w = write->as<Assign>();
  if (r.name != w.name || r.idx.size() != w.idx.size()) return false;
  for (size_t k = 0; k < r.idx.size(); k++)
    if (!equal(r.idx[k], w.idx[k])) return false;
  return true;
}

}  // namespace exo2::primitives
