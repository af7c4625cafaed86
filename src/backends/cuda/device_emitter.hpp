// Device code of one kernel (docs/cuda.md, "Running a kernel"): its
// configuration, argument struct, task decoder and persistent task loop in
// the `.cuh`, and its `__global__` function and `extern "C"` launch stub in
// the `.cu`. The kernel has passed tier A (static_check.hpp).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "static_check.hpp"

namespace exo2::cuda {

struct KernelCode {
  std::string cuh;  // namespace <name> { ... }
  std::string cu;   // kernel + launch stub
  // The launch stub's C prototype (`void <name>_launch(...)`) and the
  // template of its call in host C: `<name>_launch({n}, {x});`.
  std::string launch_decl;
  std::string launch_call;
  std::set<std::string> includes;  // headers the device code needs
  bool uses_sm90 = false;          // needs sm_90a (wgmma, TMA, setmaxnreg)
  bool uses_tensor_maps = false;   // the launch encodes TMA tensor maps
};

// `lib` is the library name (prefix of helpers and of the stream global).
KernelCode emit_kernel(const KernelAnalysis& ka, const std::string& lib);

// The helpers every generated `.cuh` starts with (floor division, ...),
// named after the library.
std::string device_helpers(const std::string& lib);

}  // namespace exo2::cuda
