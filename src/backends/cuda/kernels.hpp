// The kernels of a procedure: each `with CudaDeviceFunction(...)` block,
// with its task nest, its task body and the host variables it uses
// (docs/cuda.md, "The constructs").
#pragma once

#include <string>
#include <vector>

#include "cuda_facts.hpp"
#include "exo2/core_ir/diagnostics.hpp"

namespace exo2::cuda {

// A variable of the host code that a kernel reads or writes.
struct KernelParam {
  enum class Kind {
    Control,     // size, index, bool: passed by value
    HostScalar,  // a data scalar of host memory: its value, read-only
    Tensor,      // a CUDA_GMEM tensor: its pointer
    Window,      // a window of CUDA_GMEM: pointer to its origin + strides
    TensorMap,   // a window of CUDA_GMEM encoded as a TMA tensor map
  };
  Kind kind = Kind::Control;
  Sym sym;
  Type type;
  MemoryPtr mem;
  bool written = false;
  Stmt window_def;  // Window: the host window statement defining it
  MemoryPtr map;    // TensorMap: its CudaTensorMap memory
};

struct Kernel {
  std::string name;  // `<stem>_<proc>_k<n>`
  Stmt with;         // the `with CudaDeviceFunction(...)` statement
  DeviceFunction config;
  std::vector<const For*> tasks;  // the cuda_tasks nest, outermost first
  const Block* body = nullptr;    // the innermost task loop's body
  std::vector<KernelParam> params;
  // What holds where the kernel is launched: the procedure's
  // preconditions and the ranges of enclosing host loops.
  std::vector<Expr> facts;
};

// The errors of the parallel check (docs/cuda.md, "Checking a kernel"),
// raised together as ParallelSafetyError.
CheckError parallel_check_error(std::vector<Diagnostic> diagnostics);

// The kernels of `p`, in program order, named `<prefix>_k<n>`. Throws the
// parallel check's error when a kernel is malformed (nested kernels, a body
// that is not a nest of cuda_tasks loops, kernel-only constructs in host
// code).
std::vector<Kernel> find_kernels(const Proc& p, const std::string& prefix);

// Whether `p` launches kernels or uses CUDA constructs at all.
bool uses_cuda(const Proc& p);

}  // namespace exo2::cuda
