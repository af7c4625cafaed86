// What the CUDA backend reads from the objects of a procedure: loop modes,
// `with` contexts, memories, dimension annotations, sync timelines and
// instruction metadata (docs/cuda.md). Each object describes itself with
// backend properties (core_ir/extension.hpp); this file is the one place
// that knows their keys.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "exo2/core_ir/proc.hpp"

namespace exo2::cuda {

// A group of `threads` consecutive threads of a CTA starting at a multiple
// of `align` (cuda_thread, cuda_warp, cuda_warpgroup, n * U).
struct Unit {
  int threads = 1;
  int align = 1;
  std::string name = "cuda_thread";
};

enum class LoopKind { Seq, Par, Tasks, Threads, Other };
LoopKind loop_kind(const For& f);
// The unit of a `cuda_threads` loop.
Unit loop_unit(const For& f);

// A role of a warp-specialised kernel.
struct Role {
  std::string name;
  int first_warp = 0;
  int warps = 0;
  int regs = 0;  // 0: no setmaxnreg
};

// `with CudaDeviceFunction(...)`.
struct DeviceFunction {
  int threads = 0;
  int blocks_per_sm = 1;
  int cluster = 1;
  std::vector<Role> roles;  // empty for `blockDim=`
};
std::optional<DeviceFunction> device_function(const With& w);

// `with CudaWarps(lo, hi, name)`; -1 for an absent bound.
struct WarpRange {
  int lo = -1, hi = -1;
  std::string role;
};
std::optional<WarpRange> warp_range(const With& w);

// Where a buffer lives, as far as the CUDA backend cares.
enum class MemKind {
  Host,  // DRAM and other non-CUDA memories
  Gmem,
  Smem,
  Rmem,
  MBarrier,
  CpAsyncGroup,
  WgmmaGroup,
  Fragment,   // tensor-core fragments and accumulators (instructions only)
  TensorMap,  // special windows encoded as TMA tensor maps
  Other,      // a CUDA memory this version does not know
};
MemKind mem_kind(const MemoryPtr& mem);
bool is_barrier_memory(MemKind k);
// `prearrive` of a CUDA_MBARRIER, `swizzle` of CUDA_SMEM_SWIZZLED (0 else).
int mem_param(const MemoryPtr& mem, const std::string& key);

// A dimension annotation: a unit (distributed dimension) or `ring(D)`.
struct DimFacts {
  bool is_ring = false;
  int depth = 0;  // ring
  std::optional<Unit> unit;
};
std::optional<DimFacts> dim_facts(const DimAnnotationPtr& a);

// The timelines named by sync statements.
enum class Timeline {
  InOrder,
  Temporal,
  AsyncProxy,
  CpAsync,
  Wgmma,
  WgmmaOperands,
  Unknown,
};
Timeline timeline_of(const SyncTimelinePtr& t);
const char* timeline_name(Timeline t);

// What an instruction declares: the unit that executes it and how.
struct InstrFacts {
  Unit unit;             // cuda_thread when not declared
  std::string timeline;  // "cuda_in_order", "cp_async", ...
  std::vector<std::string> cu_includes;
  std::vector<std::string> trailing_barrier_memories;
  bool trailing_barrier_required = false;
  Properties properties;  // everything, for per-parameter flags
  bool has_generator = false;
  // Flags of one parameter ("async_proxy", "oob", ...).
  std::vector<std::string> access_flags(const std::string& param) const;
};
InstrFacts instr_facts(const ProcNode& instr);

}  // namespace exo2::cuda
