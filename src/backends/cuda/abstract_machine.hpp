// Tier B of the parallel check (docs/cuda.md, "Checking a kernel"): an
// abstract machine runs each kernel once, in sequential order, for concrete
// sizes, and tracks what the parallel machine would know.
//
// Every access becomes a record: the threads that made it (a range of one
// CTA), its timeline (in order, cp.async, wgmma, ...), and its visibility —
// the (threads, access classes) it happens before. A thread's in-order
// accesses are visible to its own later in-order accesses; everything else
// comes from sync statements: a Fence makes the records its `pre` selects
// visible to its collective under its `post`; an Arrive snapshots what it
// selects on a barrier element and the matching Await releases it. Each
// access must find every conflicting earlier record (at least one a write)
// visible to all its threads; otherwise the check reports the two
// statements, their threads and the task.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "static_check.hpp"

namespace exo2::cuda {

// Runs every kernel of `p` with the given sizes on `sms` simulated
// multiprocessors (each holding the kernel's blocks_per_sm CTAs). Returns the
// number of statement instances executed; throws the parallel check's
// error listing the violations.
int64_t run_abstract_machine(const Proc& p,
                             const std::vector<KernelAnalysis>& kernels,
                             const std::map<std::string, int64_t>& sizes,
                             int sms);

}  // namespace exo2::cuda
