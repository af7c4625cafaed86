#include "exo2/primitives/rearrange_dim.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "exo2/primitives/buffer_accesses.hpp"
#include "exo2/primitives/edit_sequence.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"

namespace exo2::primitives {

cursors::EditResult rearrange_dim(const Proc& proc,
                                  const cursors::Location& alloc,
                                  const std::vector<int>& permutation) {
  const Stmt alloc_stmt = stmt_of_kind(proc, alloc, StmtKind::Alloc);
  const auto& a = alloc_stmt->as<Alloc>();
  const std::string x = a.name.name();
  std::vector<int> sorted = permutation;
  std::sort(sorted.begin(), sorted.end());
  for (size_t k = 0; k < sorted.size(); k++)
    if (sorted[k] != static_cast<int>(k))
      throw ArgumentError("rearrange_dim: not a permutation");
  if (sorted.size() != a.type.shape().size())
    throw ArgumentError("rearrange_dim: not a permutation");

  auto permute = [&](const auto& list) {
    std::remove_cvref_t<decltype(list)> out;
    for (int p : permutation) out.push_back(list[static_cast<size_t>(p)]);
    return out;
  };
  auto refuse_call = [&](const AccessSite& site) {
    if (site.call_argument)
      refuse(fmt::format("Cannot permute buffer '{}' because it is passed as "
                         "a sub-procedure argument at {}",
                         x, site.srcinfo.str()),
             {.srcinfo = site.srcinfo});
  };

  BufferAccessRewrite rewrite;
  rewrite.point = [&](const std::vector<Expr>& idx, const AccessSite& site) {
    refuse_call(site);
    return PointAccess{a.name, permute(idx)};
  };
  rewrite.window = [&](const std::vector<WindowAccess>& idx,
                       const AccessSite& site) {
    refuse_call(site);
    // The window's dimensions are its intervals in order: they must keep it.
    int last = -1;
    for (int p : permutation) {
      if (!idx[static_cast<size_t>(p)].is_interval) continue;
      if (p < last)
        refuse(fmt::format(
                   "Permuting the window expression at {} would change the "
                   "meaning of the window; propagating dimension "
                   "rearrangement through windows is not currently supported",
                   site.srcinfo.str()),
               {.srcinfo = site.srcinfo});
      last = p;
    }
    return WindowedAccess{a.name, permute(idx)};
  };
  rewrite.stride = [&](int d, const AccessSite&) {
    return static_cast<int>(
        std::find(permutation.begin(), permutation.end(), d) -
        permutation.begin());
  };
  rewrite.whole_buffer = refuse_call;
  rewrite.new_shape = permute(a.type.shape());
  rewrite.action = "permute";

  EditSequence edits(proc);
  edits.apply(rewrite_buffer_accesses(proc, alloc, rewrite));
  edits.apply(cursors::replace_stmt_attributes(
      edits.proc(), alloc, with_shape(alloc_stmt, rewrite.new_shape)));
  return edits.result();
}

}  // namespace exo2::primitives
