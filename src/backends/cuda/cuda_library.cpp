// Assembly of a CUDA library (docs/cuda.md, "Running a kernel"). Each kernel
// becomes device code (device_emitter.hpp) and, in the host procedure, a
// call of its launch stub: the kernel's `with` block is replaced by a call
// of an instruction whose template is the stub call, so the host code goes
// through the C backend unchanged.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <regex>
#include <unordered_map>

#include "abstract_machine.hpp"
#include "device_emitter.hpp"
#include "exo2/backends/c_codegen.hpp"
#include "exo2/backends/codegen_passes.hpp"
#include "exo2/backends/cuda_codegen.hpp"
#include "exo2/core_ir/ir_visitor.hpp"
#include "static_check.hpp"

namespace exo2 {

namespace {

using cuda::KernelAnalysis;
using cuda::KernelCode;

// Replaces each kernel block by the call of its launch instruction, and
// calls of rewritten procedures by calls of their rewritten versions.
class HostRewriter : public IRMutator {
 public:
  HostRewriter(std::unordered_map<const StmtNode*, Proc> launches,
               const std::unordered_map<const ProcNode*, Proc>& rewritten)
      : IRMutator(Visits::StatementsOnly),
        launches_(std::move(launches)),
        rewritten_(rewritten) {}

 protected:
  // A kernel becomes its launch; other `with` blocks are left as they are.
  Stmt mutate_with(const Stmt& s) override {
    auto launch = launches_.find(s.get());
    if (launch == launches_.end()) return s;
    std::vector<Expr> args;
    for (const FnArg& a : launch->second->args)
      args.push_back(make_read(a.name, {}, s->srcinfo, a.type));
    return make_call(launch->second, std::move(args), s->srcinfo);
  }
  Stmt mutate_call(const Stmt& s) override {
    const auto& c = s->as<Call>();
    auto it = rewritten_.find(c.f.get());
    if (it == rewritten_.end()) return s;
    return make_call(it->second, c.args, s->srcinfo, c.barriers);
  }

 private:
  std::unordered_map<const StmtNode*, Proc> launches_;
  const std::unordered_map<const ProcNode*, Proc>& rewritten_;
};

// The launch instruction of a kernel: parameters are the host variables
// the kernel uses (the same symbols, so the call passes them by name), the
// body is the kernel (so the C backend sees what it writes).
Proc launch_instruction(const KernelAnalysis& ka, const KernelCode& code) {
  std::vector<FnArg> args;
  for (const cuda::KernelParam& p : ka.kernel.params)
    args.push_back(FnArg{p.sym, p.type, p.mem, ka.kernel.with->srcinfo});
  return make_proc(ka.kernel.name, std::move(args), {}, {ka.kernel.with},
                   InstrInfo{code.launch_call, code.launch_decl, nullptr},
                   ka.kernel.with->srcinfo);
}

std::string join(const std::vector<std::string>& items,
                 const std::string& sep) {
  std::string out;
  for (size_t k = 0; k < items.size(); ++k) out += (k ? sep : "") + items[k];
  return out;
}

}  // namespace

CudaLibrary compile_cuda_library(const std::vector<Proc>& procs,
                                 const std::string& stem) {
  const std::string lib =
      std::regex_replace(stem, std::regex("[^A-Za-z0-9_]"), "_");
  std::vector<Proc> all = reachable_procs(procs);
  std::stable_sort(all.begin(), all.end(), [](const Proc& a, const Proc& b) {
    return a->name < b->name;
  });

  std::vector<KernelCode> kernels;
  std::unordered_map<const ProcNode*, std::unordered_map<const StmtNode*, Proc>>
      launches;
  std::unordered_map<const ProcNode*, Proc> lowered;
  for (const Proc& p : all) {
    if (p->is_instr() || !cuda::uses_cuda(p)) continue;
    Proc q = lower_precision(p, TypeKind::F32);
    lowered[p.get()] = q;
    for (const KernelAnalysis& ka :
         cuda::analyze_kernels(q, lib + "_" + p->name)) {
      KernelCode code = cuda::emit_kernel(ka, lib);
      launches[p.get()][ka.kernel.with.get()] = launch_instruction(ka, code);
      kernels.push_back(std::move(code));
    }
  }

  // Host procedures with launches instead of kernels; callers follow.
  std::unordered_map<const ProcNode*, Proc> rewritten;
  for (int round = 0; round < 2; ++round) {
    for (const Proc& p : all) {
      if (p->is_instr()) continue;
      auto base = lowered.count(p.get()) ? lowered[p.get()] : p;
      HostRewriter rw(launches[p.get()], rewritten);
      rewritten[p.get()] =
          make_proc(p->name, base->args, base->preds, rw.mutate(base->body),
                    std::nullopt, p->srcinfo);
    }
  }
  std::vector<Proc> host;
  for (const Proc& p : procs) host.push_back(rewritten.at(p.get()));
  CLibrary c = compile_library(lib, host);

  std::string guard = lib + "_H";
  std::transform(guard.begin(), guard.end(), guard.begin(), ::toupper);
  const std::string cuda_decls = fmt::format(
      "// The stream of every launch (default 0, the legacy stream).\n"
      "void {0}_set_cuda_stream(void *stream);\n"
      "// The first CUDA error since the last call (a cudaError_t), or 0.\n"
      "int {0}_cuda_last_error(void);\n",
      lib);
  CudaLibrary out;
  out.files[stem + ".h"] =
      "\n#pragma once\n#ifndef " + guard + "\n#define " + guard +
      "\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n" + c.decls + "\n" +
      cuda_decls + "\n#ifdef __cplusplus\n}\n#endif\n#endif  // " + guard +
      "\n";
  out.files[stem + ".c"] = "#include \"" + stem + ".h\"\n\n" + c.body;

  std::set<std::string> includes = {"<cuda_runtime.h>", "<cuda_bf16.h>",
                                    "<cuda_fp16.h>", "<stdint.h>"};
  std::vector<std::string> namespaces, kernel_defs;
  bool tensor_maps = false;
  for (const KernelCode& k : kernels) {
    includes.insert(k.includes.begin(), k.includes.end());
    namespaces.push_back(k.cuh);
    kernel_defs.push_back(k.cu);
    out.needs_sm90 |= k.uses_sm90;
    tensor_maps |= k.uses_tensor_maps;
  }
  // TMA tensor maps are encoded by the driver, reached through the runtime
  // so that nothing links libcuda.
  const std::string encode =
      !tensor_maps
          ? ""
          : fmt::format(
                "#include <cudaTypedefs.h>\n\n"
                "static bool {0}_encode_tensor_map(CUtensorMap* map, "
                "CUtensorMapDataType type, cuuint32_t rank, void* base, const "
                "cuuint64_t* dims, const cuuint64_t* strides, const "
                "cuuint32_t* box, const cuuint32_t* elements, "
                "CUtensorMapSwizzle swizzle) {{\n"
                "  static PFN_cuTensorMapEncodeTiled_v12000 encode = "
                "nullptr;\n"
                "  if (!encode) {{\n"
                "    void* fn = nullptr;\n"
                "    cudaDriverEntryPointQueryResult status;\n"
                "    if ({0}_note_error(cudaGetDriverEntryPointByVersion("
                "\"cuTensorMapEncodeTiled\", &fn, 12000, cudaEnableDefault, "
                "&status))) return false;\n"
                "    if (status != cudaDriverEntryPointSuccess || !fn) {{\n"
                "      {0}_note_error(cudaErrorSymbolNotFound);\n"
                "      return false;\n    }}\n"
                "    encode = (PFN_cuTensorMapEncodeTiled_v12000)fn;\n  }}\n"
                "  const CUresult r = encode(map, type, rank, base, dims, "
                "strides, box, elements, CU_TENSOR_MAP_INTERLEAVE_NONE, "
                "swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_128B, "
                "CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);\n"
                "  if (r != CUDA_SUCCESS) {{\n"
                "    {0}_note_error(cudaErrorInvalidValue);\n"
                "    return false;\n  }}\n"
                "  return true;\n}}\n\n",
                lib);
  std::vector<std::string> include_lines;
  for (const std::string& i : includes)
    include_lines.push_back("#include " + (i.front() == '<' || i.front() == '"'
                                               ? i
                                               : "<" + i + ">"));
  const std::string cuh_guard = guard + "_CUH";
  out.files[stem + ".cuh"] =
      "// Device code of " + stem + " (generated by exo2).\n#pragma once\n" +
      "#ifndef " + cuh_guard + "\n#define " + cuh_guard + "\n\n" +
      join(include_lines, "\n") + "\n\n" + cuda::device_helpers(lib) + "\n" +
      join(namespaces, "\n") + "\n#endif  // " + cuh_guard + "\n";

  out.files[stem + ".cu"] = fmt::format(
      "// Kernels and launch stubs of {0} (generated by exo2).\n"
      "#include \"{0}.h\"\n#include \"{0}.cuh\"\n\n"
      "static cudaStream_t {1}_stream = 0;\n"
      "static cudaError_t {1}_last_error = cudaSuccess;\n\n"
      "// Keeps the first error; true when `e` is an error.\n"
      "static bool {1}_note_error(cudaError_t e) {{\n"
      "  if (e != cudaSuccess && {1}_last_error == cudaSuccess) "
      "{1}_last_error = e;\n"
      "  return e != cudaSuccess;\n}}\n\n"
      "// CTAs of a persistent launch: one per task, at most the resident "
      "ones.\n"
      "static int {1}_grid_size(int32_t tasks, int blocks_per_sm, const void* "
      "kernel, unsigned smem) {{\n"
      "  static int device = -1, sms = 0;\n"
      "  int current = 0;\n"
      "  if ({1}_note_error(cudaGetDevice(&current))) return 0;\n"
      "  if (current != device) {{\n"
      "    if ({1}_note_error(cudaDeviceGetAttribute(&sms, "
      "cudaDevAttrMultiProcessorCount, current))) return 0;\n"
      "    device = current;\n  }}\n"
      "  if (smem > 48 * 1024 && {1}_note_error(cudaFuncSetAttribute(kernel, "
      "cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem))) return 0;\n"
      "  const long long resident = (long long)sms * blocks_per_sm;\n"
      "  return (int)(tasks < resident ? tasks : resident);\n}}\n\n"
      "{3}{2}\n"
      "extern \"C\" void {1}_set_cuda_stream(void *stream) {{\n"
      "  {1}_stream = (cudaStream_t)stream;\n}}\n\n"
      "extern \"C\" int {1}_cuda_last_error(void) {{\n"
      "  const cudaError_t e = {1}_last_error;\n"
      "  {1}_last_error = cudaSuccess;\n  return (int)e;\n}}\n",
      stem, lib, join(kernel_defs, "\n"), encode);
  return out;
}

ParallelCheckReport check_parallel(const Proc& p,
                                   const std::map<std::string, int64_t>& sizes,
                                   bool run_tier_b, int sms) {
  const auto start = std::chrono::steady_clock::now();
  ParallelCheckReport report;
  Proc q = lower_precision(p, TypeKind::F32);
  std::vector<KernelAnalysis> kernels = cuda::analyze_kernels(q, p->name);
  report.tiers.push_back("A");
  report.kernels = static_cast<int64_t>(kernels.size());
  if (run_tier_b) {
    report.tiers.push_back("B");
    report.events = cuda::run_abstract_machine(q, kernels, sizes, sms);
  }
  report.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return report;
}

}  // namespace exo2
