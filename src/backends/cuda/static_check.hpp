// Tier A of the parallel check (docs/cuda.md, "Checking a kernel"): rules
// that hold for all sizes, checked whenever a kernel is compiled or
// checked.
//
// 1. structure: kernels, task nests, cuda_threads loops, CudaWarps blocks
//    (collectives.hpp), sync statements only in kernels;
// 2. tasks are independent: no two tasks touch the same element of a
//    buffer of the host when one of them writes it (proven with Z3, like
//    the `par` loops of the C backend);
// 3. scope: every instruction runs on exactly one piece of its unit, plain
//    statements that write shared or global memory run on one thread;
// 4. memories: what kernels may allocate, read and write; registers are
//    touched by their own thread only (distributed dimensions indexed by
//    the iterator of the cuda_threads loop of their unit); shared memory
//    and registers have constant extents;
// 5. barriers: each kind of barrier is used by the statements that can
//    signal and wait for it.
#pragma once

#include "collectives.hpp"

namespace exo2::cuda {

struct KernelAnalysis {
  Kernel kernel;
  CollectiveMap collectives;
};

// The kernels of `p` (named `<prefix>_k<n>`), each checked by tier A.
// Throws the parallel check's error (ParallelSafetyError) listing every
// violation of every kernel.
std::vector<KernelAnalysis> analyze_kernels(const Proc& p,
                                            const std::string& prefix);

}  // namespace exo2::cuda
