// The collective analysis (docs/cuda.md, "The constructs"): which threads of a
// CTA execute each statement of a kernel's task body.
//
// The task body runs on the whole CTA. `with CudaWarps(lo, hi, name)`
// narrows it to a range of warps; `for i in cuda_threads(lo, hi, unit=U)`
// cuts the current collective into consecutive pieces of U, and iteration
// i runs on piece i. So every statement instance runs on a contiguous range
// of threads whose start depends on the enclosing cuda_threads iterators:
//   start = base + sum(i_k * unit_k.threads),   size = threads
// `if`s never narrow a statement's collective: a condition on a
// cuda_threads iterator selects whole pieces, and every other condition is
// uniform over the collective (control values do not depend on data).
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "kernels.hpp"

namespace exo2::cuda {

// One cuda_threads loop enclosing a statement.
struct ThreadCut {
  const For* loop = nullptr;
  Unit unit;
  int lo = 0, hi = 0;
  int parent_size = 0;  // threads of the collective the loop cuts
};

struct Collective {
  int threads = 0;
  int base = 0;  // the start when every cut iterator is 0
  // Every possible start is a multiple of `align` (1024 when the start is
  // always 0: a CTA has at most 1024 threads).
  int align = 1024;
  std::vector<ThreadCut> cuts;
  const With* warps = nullptr;  // the enclosing CudaWarps block
  SrcInfo origin;               // the construct that made it
  bool from_loop = false;       // origin is a cuda_threads loop

  // "one thread", "one warp", "one warpgroup", "the whole CTA", "64
  // threads", "warps 4-7"...
  std::string describe(int cta_threads) const;
  // ` (cuda_threads loop at file:line:col)` or ` (CudaWarps at ...)`, empty
  // for the whole CTA.
  std::string origin_note() const;
};

// The collective of every statement of a kernel's task body (a loop's own
// collective is the one its bounds are evaluated by; its body has the cut
// collective). Structural errors (cuda_threads bounds that are not
// literals, pieces that do not fit, misplaced CudaWarps, par or cuda_tasks
// loops inside the body) are appended to `errors`.
using CollectiveMap = std::unordered_map<const StmtNode*, Collective>;
CollectiveMap analyze_collectives(const Kernel& k,
                                  std::vector<Diagnostic>& errors);

// The collective of the whole CTA of a kernel.
Collective cta_collective(const Kernel& k);

}  // namespace exo2::cuda
