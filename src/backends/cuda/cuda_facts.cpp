#include "cuda_facts.hpp"

namespace exo2::cuda {

namespace {

Unit unit_from(const Properties& p, const std::string& prefix) {
  Unit u;
  u.threads = static_cast<int>(p.get_int(prefix + "threads", 1));
  u.align = static_cast<int>(p.get_int(prefix + "align", 1));
  u.name = p.get_string(prefix + "name", "cuda_thread");
  return u;
}

}  // namespace

LoopKind loop_kind(const For& f) {
  if (!f.mode || f.mode == LoopMode::seq()) return LoopKind::Seq;
  if (f.mode == LoopMode::par()) return LoopKind::Par;
  const std::string mode = f.mode->properties().get_string("mode");
  if (mode == "cuda_tasks") return LoopKind::Tasks;
  if (mode == "cuda_threads") return LoopKind::Threads;
  return f.mode->is_parallel() ? LoopKind::Other : LoopKind::Seq;
}

Unit loop_unit(const For& f) {
  return unit_from(f.mode->properties(), "unit_");
}

std::optional<DeviceFunction> device_function(const With& w) {
  const Properties p = w.ctx->properties();
  if (p.get_string("context") != "CudaDeviceFunction") return std::nullopt;
  DeviceFunction d;
  d.threads = static_cast<int>(p.get_int("threads"));
  d.blocks_per_sm = static_cast<int>(p.get_int("blocks_per_sm", 1));
  d.cluster = static_cast<int>(p.get_int("cluster", 1));
  const auto names = p.get_strings("role_names");
  const auto warps = p.get_ints("role_warps");
  const auto regs = p.get_ints("role_regs");
  int first = 0;
  for (size_t k = 0; k < names.size() && k < warps.size(); ++k) {
    d.roles.push_back({names[k], first, static_cast<int>(warps[k]),
                       k < regs.size() ? static_cast<int>(regs[k]) : 0});
    first += static_cast<int>(warps[k]);
  }
  return d;
}

std::optional<WarpRange> warp_range(const With& w) {
  const Properties p = w.ctx->properties();
  if (p.get_string("context") != "CudaWarps") return std::nullopt;
  return WarpRange{static_cast<int>(p.get_int("lo", -1)),
                   static_cast<int>(p.get_int("hi", -1)), p.get_string("role")};
}

MemKind mem_kind(const MemoryPtr& mem) {
  if (!mem) return MemKind::Host;
  const std::string role = mem->properties().get_string("cuda");
  if (role.empty()) return MemKind::Host;
  if (role == "gmem") return MemKind::Gmem;
  if (role == "smem") return MemKind::Smem;
  if (role == "rmem") return MemKind::Rmem;
  if (role == "mbarrier") return MemKind::MBarrier;
  if (role == "cp_async_group") return MemKind::CpAsyncGroup;
  if (role == "wgmma_group") return MemKind::WgmmaGroup;
  if (role == "fragment") return MemKind::Fragment;
  if (role == "tensor_map") return MemKind::TensorMap;
  return MemKind::Other;
}

bool is_barrier_memory(MemKind k) {
  return k == MemKind::MBarrier || k == MemKind::CpAsyncGroup ||
         k == MemKind::WgmmaGroup;
}

int mem_param(const MemoryPtr& mem, const std::string& key) {
  return mem ? static_cast<int>(mem->properties().get_int(key, 0)) : 0;
}

std::optional<DimFacts> dim_facts(const DimAnnotationPtr& a) {
  if (!a) return std::nullopt;
  const Properties p = a->properties();
  DimFacts d;
  if (p.get_string("annotation") == "ring") {
    d.is_ring = true;
    d.depth = static_cast<int>(p.get_int("depth", 1));
    return d;
  }
  if (p.get_string("unit") == "threads") {
    d.unit = unit_from(p, "");
    return d;
  }
  return std::nullopt;
}

Timeline timeline_of(const SyncTimelinePtr& t) {
  if (!t) return Timeline::Unknown;
  const std::string n = t->name();
  if (n == "cuda_in_order") return Timeline::InOrder;
  if (n == "cuda_temporal") return Timeline::Temporal;
  if (n == "cuda_async_proxy") return Timeline::AsyncProxy;
  if (n == "cp_async") return Timeline::CpAsync;
  if (n == "wgmma") return Timeline::Wgmma;
  if (n == "wgmma_operands") return Timeline::WgmmaOperands;
  return Timeline::Unknown;
}

const char* timeline_name(Timeline t) {
  switch (t) {
    case Timeline::InOrder:
      return "cuda_in_order";
    case Timeline::Temporal:
      return "cuda_temporal";
    case Timeline::AsyncProxy:
      return "cuda_async_proxy";
    case Timeline::CpAsync:
      return "cp_async";
    case Timeline::Wgmma:
      return "wgmma";
    case Timeline::WgmmaOperands:
      return "wgmma_operands";
    case Timeline::Unknown:
      break;
  }
  return "?";
}

std::vector<std::string> InstrFacts::access_flags(
    const std::string& param) const {
  return properties.get_strings("access_" + param);
}

InstrFacts instr_facts(const ProcNode& instr) {
  InstrFacts f;
  f.timeline = "cuda_in_order";
  if (!instr.instr || !instr.instr->metadata) return f;
  const InstrMetadata& m = *instr.instr->metadata;
  f.properties = m.properties();
  if (f.properties.has("unit_threads"))
    f.unit = unit_from(f.properties, "unit_");
  f.timeline = f.properties.get_string("timeline", "cuda_in_order");
  f.cu_includes = f.properties.get_strings("cu_includes");
  f.trailing_barrier_memories = f.properties.get_strings("trailing_barrier");
  f.trailing_barrier_required =
      f.properties.get_int("trailing_barrier_required", 0) != 0;
  f.has_generator = m.has_generator();
  return f;
}

}  // namespace exo2::cuda
