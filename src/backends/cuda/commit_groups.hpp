// The depth of each wait on a commit group (docs/cuda.md, "Commit
// groups"). cp.async and wgmma commit groups are per-thread hardware
// queues: `Arrive(cp_async) >> g[i]` commits group i, and `Await(g[j])`
// lowers to `wait_group N`, which waits until at most N groups are
// pending. N is not written: it is the index of the latest Arrive on `g`
// executed before the Await, minus j, and must be the same constant >= 0
// every time the Await runs:
//   - an Arrive earlier in the same block gives its index;
//   - at the top of a loop body, the last Arrive of the body in the
//     previous iteration (k - 1) and, for the first iteration, the latest
//     Arrive before the loop must both give the same N.
// The last index of a barrier is its group number; other indices (a
// warpgroup) must be written the same in the Arrive and the Await.
#pragma once

#include <unordered_map>

#include "kernels.hpp"

namespace exo2::cuda {

// N for every Await on a commit-group barrier of the kernel; the Awaits
// whose N is not a provable non-negative constant get an error instead.
std::unordered_map<const StmtNode*, int> commit_group_depths(
    const Kernel& k, std::vector<Diagnostic>& errors);

}  // namespace exo2::cuda
