// The CUDA backend (docs/cuda.md): a library of procedures whose kernels
// (`with CudaDeviceFunction(...)` blocks) run on NVIDIA GPUs, and the
// parallel check that proves the kernels compute what their sequential
// reading computes.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "exo2/core_ir/proc.hpp"

namespace exo2 {

// The files of a CUDA library named `stem` (docs/cuda.md, "Generated
// files"), by file name: `stem.h` (public C header), `stem.c` (host C),
// `stem.cuh` (device code) and `stem.cu` (kernels and launch stubs).
// Every kernel first passes tier A of the parallel check; a violation
// throws CheckError with the heading of ParallelSafetyError.
struct CudaLibrary {
  std::map<std::string, std::string> files;
  // Whether some kernel needs sm_90a (wgmma, TMA); otherwise sm_80 works.
  bool needs_sm90 = false;
};
CudaLibrary compile_cuda_library(const std::vector<Proc>& procs,
                                 const std::string& stem);

// What `check_parallel` did.
struct ParallelCheckReport {
  std::vector<std::string> tiers;  // "A", and "B" when sizes were given
  int64_t kernels = 0;
  int64_t events = 0;  // statement instances tier B executed
  double seconds = 0;
};

// Tier A for every kernel of `p`, and with `sizes` (values of its size
// parameters) tier B: the abstract machine runs every kernel with `sms`
// simulated multiprocessors. Throws CheckError (ParallelSafetyError) listing
// every violation.
ParallelCheckReport check_parallel(const Proc& p,
                                   const std::map<std::string, int64_t>& sizes,
                                   bool run_tier_b, int sms);

}  // namespace exo2
