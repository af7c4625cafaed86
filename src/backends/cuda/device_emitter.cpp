#include "device_emitter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>

#include "commit_groups.hpp"
#include "exo2/analysis/z3_encoding.hpp"
#include "exo2/backends/codegen_error.hpp"
#include "exo2/backends/codegen_passes.hpp"
#include "exo2/core_ir/ir_functor.hpp"
#include "exo2/core_ir/ir_visitor.hpp"
#include "exo2/core_ir/printer.hpp"
#include "exo2/primitives/substitute.hpp"
#include "mbarriers.hpp"

namespace exo2::cuda {

namespace {

// C precedences, as in the C backend.
int precedence(BinOpKind op) {
  switch (op) {
    case BinOpKind::Or:
      return 10;
    case BinOpKind::And:
      return 20;
    case BinOpKind::Eq:
      return 30;
    case BinOpKind::Lt:
    case BinOpKind::Gt:
    case BinOpKind::Le:
    case BinOpKind::Ge:
      return 40;
    case BinOpKind::Add:
    case BinOpKind::Sub:
      return 50;
    default:
      return 60;
  }
}
constexpr int kUnaryPrecedence = 70;

const char* c_operator(BinOpKind op) {
  if (op == BinOpKind::And) return "&&";
  if (op == BinOpKind::Or) return "||";
  return binop_text(op);
}

// The device type of a data element.
std::string device_type(TypeKind k) {
  switch (k) {
    case TypeKind::F32:
    case TypeKind::R:
      return "float";
    case TypeKind::F64:
      return "double";
    case TypeKind::BF16:
      return "__nv_bfloat16";
    case TypeKind::F16:
      return "__half";
    case TypeKind::I8:
      return "int8_t";
    case TypeKind::UI8:
      return "uint8_t";
    case TypeKind::UI16:
      return "uint16_t";
    case TypeKind::I32:
      return "int32_t";
    default:
      return "void";
  }
}

// The type device arithmetic on a data type runs in: 16-bit floats compute
// in float (rounded only when stored), integers in int32_t.
std::string compute_type(TypeKind k) {
  switch (k) {
    case TypeKind::F64:
      return "double";
    case TypeKind::I8:
    case TypeKind::UI8:
    case TypeKind::UI16:
    case TypeKind::I32:
      return "int32_t";
    default:
      return "float";
  }
}

// `text` (a value of `compute_type(from)`) converted for storing into an
// element of type `to`.
std::string store_value(const std::string& text, TypeKind from, TypeKind to) {
  if (to == TypeKind::BF16) return "__float2bfloat16_rn(" + text + ")";
  if (to == TypeKind::F16) return "__float2half_rn(" + text + ")";
  if (compute_type(from) == device_type(to)) return text;
  return "(" + device_type(to) + ")(" + text + ")";
}

// An element read as a value of its compute type.
std::string load_value(const std::string& lvalue, TypeKind t) {
  if (t == TypeKind::BF16) return "__bfloat162float(" + lvalue + ")";
  if (t == TypeKind::F16) return "__half2float(" + lvalue + ")";
  return lvalue;
}

std::optional<int64_t> int_literal(const Expr& e) {
  if (e && e->kind == ExprKind::Const && e->as<Const>().is_int())
    return e->as<Const>().int_value();
  return std::nullopt;
}

bool is_ident(const std::string& s) {
  if (s.empty() || !(isalpha(s[0]) || s[0] == '_')) return false;
  for (char c : s)
    if (!(isalnum(c) || c == '_')) return false;
  return true;
}

// `a * b` of two C texts with literal folding.
std::string times(const std::string& a, const std::string& b) {
  if (a == "0" || b == "0") return "0";
  if (a == "1") return b;
  if (b == "1") return a;
  char* end = nullptr;
  const long x = std::strtol(a.c_str(), &end, 10);
  const bool a_lit = *end == '\0';
  const long y = std::strtol(b.c_str(), &end, 10);
  const bool b_lit = *end == '\0';
  if (a_lit && b_lit) return std::to_string(x * y);
  auto wrap = [](const std::string& s) {
    return is_ident(s) || std::all_of(s.begin(), s.end(), ::isdigit)
               ? s
               : "(" + s + ")";
  };
  return wrap(a) + " * " + wrap(b);
}

// `str.format`-style templates: `{name}`, `{{`, `}}`.
std::string fill_template(
    const std::string& tmpl,
    const std::unordered_map<std::string, std::string>& values,
    const std::string& instr) {
  std::string out;
  for (size_t k = 0; k < tmpl.size(); ++k) {
    const char c = tmpl[k];
    if ((c == '{' || c == '}') && k + 1 < tmpl.size() && tmpl[k + 1] == c) {
      out += c;
      ++k;
    } else if (c == '{') {
      const size_t close = tmpl.find('}', k);
      const std::string key =
          close == std::string::npos ? "" : tmpl.substr(k + 1, close - k - 1);
      auto it = values.find(key);
      if (close == std::string::npos || it == values.end())
        throw CodegenError(CodegenError::Kind::Value,
                           "the template of instruction " + instr +
                               " uses the unknown key '" + key + "'");
      out += it->second;
      k = close;
    } else {
      out += c;
    }
  }
  return out;
}

// How device code reaches a buffer.
struct DeviceBuffer {
  MemKind kind = MemKind::Gmem;
  TypeKind elem = TypeKind::F32;
  std::string name;
  // One stride per logical dimension (empty for distributed dimensions,
  // which code generation erases); ring dimensions have their depth.
  std::vector<std::string> strides;
  std::vector<int> ring;  // physical depth per dimension, 0 when none
  size_t distributed = 0;
  bool scalar = false;      // a C scalar (no brackets)
  int swizzle = 0;          // CUDA_SMEM_SWIZZLED(S): S bytes
  bool host_value = false;  // a host scalar received by value
};

// `w = buf[...]` inside the kernel: accesses of w are accesses of buf.
struct Alias {
  Sym base;
  std::vector<WindowAccess> idx;
};

class KernelEmitter : public StmtFunctor<void()> {
 public:
  KernelEmitter(const KernelAnalysis& ka, std::string lib)
      : k_(ka.kernel), cm_(ka.collectives), lib_(std::move(lib)) {}

  KernelCode run() {
    for (const char* reserved :
         {"args", "smem", "task", "ntasks", "exo2_rest", "threadIdx",
          "blockIdx", "gridDim", "blockDim", "int32_t", "float", "double"})
      taken_.insert(reserved);
    for (const Expr& f : k_.facts)
      if (SmtEncoder::is_encodable(f)) smt_.assume(f);
    std::vector<Diagnostic> reported_by_tier_a;
    depths_ = commit_group_depths(k_, reported_by_tier_a);

    std::vector<std::string> fields, unpack;
    for (const KernelParam& p : k_.params) {
      param(p, fields, unpack);
      if (p.type.kind() == TypeKind::Size) smt_.assume(smt_.var(p.sym) >= 1);
    }

    // Task loops: assumptions for the body, decoding from the task index.
    std::vector<std::string> decode;
    std::string count = "1";
    // `hi - lo` of a task loop, parenthesised.
    auto extent_of = [&](const For& f) {
      const std::string lo = ctrl(f.lo, 50), hi = ctrl(f.hi, 50);
      const std::string e = lo == "0" ? hi : fmt::format("{} - {}", hi, lo);
      return is_ident(e) ? e : "(" + e + ")";
    };
    for (const For* f : k_.tasks)
      count = count == "1" ? extent_of(*f) : count + " * " + extent_of(*f);
    for (size_t i = k_.tasks.size(); i-- > 0;) {
      const For& f = *k_.tasks[i];
      const std::string it = bind_name(f.iter);
      const std::string lo = ctrl(f.lo, 50);
      const std::string base = lo == "0" ? "" : lo + " + ";
      if (i == 0) {
        decode.push_back(
            fmt::format("const int32_t {} = {}exo2_rest;", it, base));
      } else {
        decode.push_back(fmt::format("const int32_t {} = {}exo2_rest % {};", it,
                                     base, extent_of(f)));
        decode.push_back(fmt::format("exo2_rest /= {};", extent_of(f)));
      }
      if (SmtEncoder::is_encodable(f.lo) && SmtEncoder::is_encodable(f.hi)) {
        z3::expr v = smt_.var(f.iter);
        smt_.assume(smt_.encode(f.lo) <= v && v < smt_.encode(f.hi));
      }
    }

    // mbarriers: allocated and initialised once per CTA, before the tasks.
    std::vector<std::string> prologue, epilogue;
    mbarrier_prologue(prologue, epilogue);

    indent_ = "    ";
    block(*k_.body);
    std::vector<std::string> body = std::move(lines_);

    // .cuh: the kernel's namespace.
    std::string cuh = fmt::format("namespace {} {{\n\n", k_.name);
    cuh += fmt::format("constexpr int kThreads = {};\n", k_.config.threads);
    cuh += fmt::format("constexpr int kBlocksPerSm = {};\n",
                       k_.config.blocks_per_sm);
    cuh += fmt::format("constexpr unsigned kSmemBytes = {};\n\n", smem_bytes_);
    cuh += "struct Args {\n";
    for (const std::string& f : fields) cuh += "  " + f + "\n";
    if (fields.empty()) cuh += "  int32_t unused;\n";
    cuh += "};\n\n";
    cuh += "// The number of tasks of a launch.\n";
    cuh +=
        "__host__ __device__ inline int32_t task_count(const Args& args) {\n";
    for (const std::string& u : task_unpack_) cuh += "  " + u + "\n";
    cuh += fmt::format("  const int32_t count = {};\n", count);
    cuh += "  return count > 0 ? count : 0;\n}\n\n";
    cuh += "// Every CTA runs tasks blockIdx.x, blockIdx.x + gridDim.x, ...\n";
    cuh +=
        "__device__ __forceinline__ void run(const Args& args, char* smem) "
        "{\n";
    cuh += "  (void)smem;\n";
    for (const std::string& u : unpack) cuh += "  " + u + "\n";
    for (const std::string& l : prologue) cuh += "  " + l + "\n";
    cuh += "  const int32_t ntasks = task_count(args);\n";
    cuh +=
        "  for (int32_t task = blockIdx.x; task < ntasks; task += "
        "gridDim.x) {\n";
    cuh += "    int32_t exo2_rest = task;\n";
    for (const std::string& d : decode) cuh += "    " + d + "\n";
    for (const std::string& l : body) cuh += l + "\n";
    for (const std::string& l : epilogue) cuh += "    " + l + "\n";
    cuh += "  }\n}\n\n}  // namespace " + k_.name + "\n";

    KernelCode out;
    out.cuh = std::move(cuh);
    out.includes = std::move(includes_);
    out.uses_sm90 = uses_sm90_;
    out.uses_tensor_maps = uses_tensor_maps_;
    launch(out);
    return out;
  }

 private:
  const Kernel& k_;
  const CollectiveMap& cm_;
  std::string lib_;
  std::vector<std::string> lines_;
  std::string indent_;
  SmtEncoder smt_;
  std::unordered_map<Sym, std::string> names_;
  std::set<std::string> taken_;
  std::unordered_map<Sym, DeviceBuffer> buffers_;
  std::unordered_map<Sym, Alias> aliases_;
  std::unordered_map<const StmtNode*, int> depths_;
  std::vector<std::string> task_unpack_;
  unsigned smem_bytes_ = 0;
  std::set<std::string> includes_;
  bool uses_sm90_ = false;
  bool uses_tensor_maps_ = false;
  std::map<Sym, MBarrier> mbarriers_;
  // Launch stub: tensor map encodings (after the Args fields are set).
  std::vector<std::string> stub_encodes_;
  int next_named_barrier_ = 1;
  std::map<std::vector<const void*>, int> named_barriers_;
  // Launch stub: C parameters and how they fill the Args struct.
  std::vector<std::string> stub_params_, stub_fills_, call_keys_;

  // ---- names -------------------------------------------------------------
  std::string bind_name(const Sym& s) {
    std::string base = s.name();
    std::string name = base;
    for (int n = 1; taken_.count(name) || name.rfind("exo2_", 0) == 0; ++n)
      name = base + "_" + std::to_string(n);
    taken_.insert(name);
    names_[s] = name;
    return name;
  }
  const std::string& name_of(const Sym& s) {
    auto it = names_.find(s);
    if (it == names_.end())
      throw CodegenError(CodegenError::Kind::Value,
                         "internal: no device name for " + s.name());
    return it->second;
  }

  void line(const std::string& l) { lines_.push_back(indent_ + l); }
  void indent() { indent_ += "  "; }
  void dedent() { indent_.resize(indent_.size() - 2); }

  [[noreturn]] void fail(const SrcInfo& at, const std::string& message) {
    throw CodegenError(CodegenError::Kind::Type, at.str() + ": " + message);
  }

  // ---- parameters ---------------------------------------------------------
  void param(const KernelParam& p, std::vector<std::string>& fields,
             std::vector<std::string>& unpack) {
    const std::string name = bind_name(p.sym);
    const std::string key = p.sym.name();
    call_keys_.push_back(key);
    switch (p.kind) {
      case KernelParam::Kind::Control: {
        const bool is_bool = p.type.is_bool();
        const std::string t = is_bool ? "bool" : "int32_t";
        fields.push_back(fmt::format("{} {};", t, name));
        unpack.push_back(fmt::format("const {} {} = args.{}; (void){};", t,
                                     name, name, name));
        task_unpack_.push_back(fmt::format("const {} {} = args.{}; (void){};",
                                           t, name, name, name));
        stub_params_.push_back(
            fmt::format("{} {}", is_bool ? "bool" : "int_fast32_t", name));
        stub_fills_.push_back(fmt::format("args.{} = ({}){};", name, t, name));
        return;
      }
      case KernelParam::Kind::HostScalar: {
        const TypeKind t = p.type.basetype().kind();
        if (t == TypeKind::BF16 || t == TypeKind::F16)
          throw CodegenError(CodegenError::Kind::Type,
                             fmt::format("kernel {}: 16-bit host scalars ({}) "
                                         "cannot be passed to kernels yet",
                                         k_.name, key));
        const std::string dt = device_type(t);
        fields.push_back(fmt::format("{} {};", dt, name));
        unpack.push_back(fmt::format("const {} {} = args.{};", dt, name, name));
        stub_params_.push_back(
            fmt::format("const {}* {}", p.type.basetype().ctype(), name));
        stub_fills_.push_back(fmt::format("args.{} = *{};", name, name));
        DeviceBuffer b;
        b.kind = MemKind::Host;
        b.elem = t;
        b.name = name;
        b.scalar = true;
        b.host_value = true;
        buffers_[p.sym] = b;
        return;
      }
      case KernelParam::Kind::TensorMap:
        tensor_map_param(p, name, fields, unpack);
        return;
      case KernelParam::Kind::Tensor:
      case KernelParam::Kind::Window: {
        const TypeKind t = p.type.basetype().kind();
        if (t == TypeKind::F16)
          throw CodegenError(CodegenError::Kind::Type,
                             fmt::format("kernel {}: f16 buffers ({}) are "
                                         "not supported in kernels yet",
                                         k_.name, key));
        const std::string dt = device_type(t);
        const std::string cst = p.written ? "" : "const ";
        fields.push_back(fmt::format("{}{}* {};", cst, dt, name));
        unpack.push_back(fmt::format("{}{}* __restrict__ {} = args.{};", cst,
                                     dt, name, name));
        DeviceBuffer b;
        b.kind = MemKind::Gmem;
        b.elem = t;
        b.name = name;
        const size_t rank = p.type.shape().size();
        b.ring.assign(rank, 0);
        if (p.kind == KernelParam::Kind::Tensor) {
          stub_params_.push_back(
              fmt::format("{}{}* {}", cst, p.type.basetype().ctype(), name));
          stub_fills_.push_back(
              fmt::format("args.{} = ({}{}*){};", name, cst, dt, name));
          b.strides = dense_strides(p.type.shape());
        } else {
          fields.push_back(fmt::format("int32_t {}_stride[{}];", name, rank));
          const std::string wt = fmt::format(
              "struct exo_win_{}{}{}", rank,
              type_kind_name(p.type.basetype().kind()), p.written ? "" : "c");
          stub_params_.push_back(fmt::format("{} {}", wt, name));
          stub_fills_.push_back(
              fmt::format("args.{} = ({}{}*){}.data;", name, cst, dt, name));
          for (size_t d = 0; d < rank; ++d) {
            stub_fills_.push_back(fmt::format(
                "args.{0}_stride[{1}] = (int32_t){0}.strides[{1}];", name, d));
            const std::string s = fmt::format("{}_stride{}", name, d);
            taken_.insert(s);
            unpack.push_back(fmt::format(
                "const int32_t {} = args.{}_stride[{}];", s, name, d));
            b.strides.push_back(s);
          }
        }
        buffers_[p.sym] = b;
        return;
      }
    }
  }

  // A tensor map: the Args field the launch encodes (64-byte aligned, in
  // the kernel's __grid_constant__ parameter, where TMA reads it), and the
  // window the host passes.
  void tensor_map_param(const KernelParam& p, const std::string& name,
                        std::vector<std::string>& fields,
                        std::vector<std::string>& unpack) {
    uses_tensor_maps_ = true;
    uses_sm90_ = true;
    includes_.insert("<cuda.h>");
    // CUtensorMap carries its own alignment (64 bytes or more).
    fields.push_back(fmt::format("CUtensorMap {};", name));
    unpack.push_back(fmt::format("const CUtensorMap* {0} = &args.{0};", name));
    const size_t rank = p.type.shape().size();
    const TypeKind t = p.type.basetype().kind();
    stub_params_.push_back(
        fmt::format("struct exo_win_{}{}c {}", rank, type_kind_name(t), name));
    const Properties props = p.map->properties();
    std::vector<int64_t> box = props.get_ints("box");
    const int swizzle = static_cast<int>(props.get_int("swizzle", 0));
    if (box.size() != rank)
      throw CodegenError(CodegenError::Kind::Type,
                         fmt::format("kernel {}: the tensor map {} has a box "
                                     "of rank {} for a window of rank {}",
                                     k_.name, p.sym.name(), box.size(), rank));
    // Global extents and boxes innermost first; byte strides of the outer
    // dimensions (the innermost stride must be 1).
    std::string dims, strides, boxes, ones;
    for (size_t d = rank; d-- > 0;) {
      dims += fmt::format("{}(cuuint64_t)({})", dims.empty() ? "" : ", ",
                          ctrl(p.type.shape()[d]));
      boxes += fmt::format("{}{}", boxes.empty() ? "" : ", ", box[d]);
      ones += std::string(ones.empty() ? "" : ", ") + "1";
      if (d + 1 < rank)
        strides +=
            fmt::format("{}(cuuint64_t){}.strides[{}] * {}",
                        strides.empty() ? "" : ", ", name, d, elem_bytes(t));
    }
    const char* swizzles[] = {
        "CU_TENSOR_MAP_SWIZZLE_NONE", "CU_TENSOR_MAP_SWIZZLE_32B",
        "CU_TENSOR_MAP_SWIZZLE_64B", "CU_TENSOR_MAP_SWIZZLE_128B"};
    const int sw = swizzle == 32    ? 1
                   : swizzle == 64  ? 2
                   : swizzle == 128 ? 3
                                    : 0;
    stub_encodes_.push_back(fmt::format(
        "{{\n"
        "    const cuuint64_t dims[{1}] = {{{2}}};\n"
        "    const cuuint64_t strides[{1}] = {{{3}}};\n"
        "    const cuuint32_t box[{1}] = {{{4}}};\n"
        "    const cuuint32_t elements[{1}] = {{{5}}};\n"
        "    if ({0}.strides[{6}] != 1) {{\n"
        "      {7}_note_error(cudaErrorInvalidValue);  // TMA needs unit "
        "inner strides\n"
        "      return;\n    }}\n"
        "    if (!{7}_encode_tensor_map(&args.{0}, {8}, {1}, (void*){0}.data, "
        "dims, strides, box, elements, {9})) return;\n"
        "  }}",
        name, rank, dims, strides.empty() ? "0" : strides, boxes, ones,
        rank - 1, lib_, tensor_map_type(t), swizzles[sw]));
    DeviceBuffer b;
    b.kind = MemKind::TensorMap;
    b.elem = t;
    b.name = name;
    buffers_[p.sym] = b;
  }

  static const char* tensor_map_type(TypeKind t) {
    switch (t) {
      case TypeKind::BF16:
        return "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16";
      case TypeKind::F16:
        return "CU_TENSOR_MAP_DATA_TYPE_FLOAT16";
      case TypeKind::F64:
        return "CU_TENSOR_MAP_DATA_TYPE_FLOAT64";
      case TypeKind::I32:
        return "CU_TENSOR_MAP_DATA_TYPE_INT32";
      case TypeKind::UI8:
      case TypeKind::I8:
        return "CU_TENSOR_MAP_DATA_TYPE_UINT8";
      default:
        return "CU_TENSOR_MAP_DATA_TYPE_FLOAT32";
    }
  }

  // Row-major strides of a shape.
  std::vector<std::string> dense_strides(const std::vector<Expr>& shape) {
    std::vector<std::string> out(shape.size());
    std::string s = "1";
    for (size_t d = shape.size(); d-- > 0;) {
      out[d] = s;
      s = times(ctrl(shape[d], 60), s);
    }
    return out;
  }

  // ---- launch stub --------------------------------------------------------
  void launch(KernelCode& out) {
    std::string params;
    for (size_t i = 0; i < stub_params_.size(); ++i)
      params += (i ? ", " : "") + stub_params_[i];
    if (params.empty()) params = "void";
    out.launch_decl = fmt::format("void {}_launch({});", k_.name, params);
    std::string call;
    for (size_t i = 0; i < call_keys_.size(); ++i)
      call += (i ? ", " : "") + std::string("{") + call_keys_[i] + "}";
    out.launch_call = fmt::format("{}_launch({});", k_.name, call);

    std::string cu;
    cu += fmt::format(
        "extern \"C\" __global__ void __launch_bounds__({0}::kThreads, "
        "{0}::kBlocksPerSm)\n{0}_kernel(const __grid_constant__ {0}::Args "
        "args) {{\n"
        "  extern __shared__ __align__(1024) char exo2_smem[];\n"
        "  {0}::run(args, exo2_smem);\n}}\n\n",
        k_.name);
    cu += fmt::format("extern \"C\" void {}_launch({}) {{\n", k_.name, params);
    cu += fmt::format("  {}::Args args;\n", k_.name);
    for (const std::string& f : stub_fills_) cu += "  " + f + "\n";
    for (const std::string& e : stub_encodes_) cu += "  " + e + "\n";
    cu += fmt::format(
        "  const int32_t tasks = {0}::task_count(args);\n"
        "  if (tasks == 0) return;\n"
        "  const int grid = {1}_grid_size(tasks, {0}::kBlocksPerSm, "
        "(const void*){0}_kernel, {0}::kSmemBytes);\n"
        "  if (grid == 0) return;\n"
        "  {0}_kernel<<<grid, {0}::kThreads, {0}::kSmemBytes, "
        "{1}_stream>>>(args);\n"
        "  {1}_note_error(cudaGetLastError());\n}}\n",
        k_.name, lib_);
    out.cu = std::move(cu);
  }

  // ---- expressions --------------------------------------------------------
  bool non_negative(const Expr& e) {
    if (!SmtEncoder::is_encodable(e)) return false;
    try {
      return smt_.prove(smt_.encode(e) >= 0).yes();
    } catch (const std::invalid_argument&) {
      return false;
    }
  }

  // A control expression, as C text that binds at least as tightly as
  // precedence `prec` needs.
  class ControlText : public ExprFunctor<std::string(int)> {
   public:
    explicit ControlText(KernelEmitter& emitter) : emitter_(emitter) {}

   protected:
    std::string visit_read(const Expr& e, int) override {
      const auto& r = e->as<Read>();
      if (!r.idx.empty() || e->type.is_numeric())
        emitter_.fail(e->srcinfo,
                      "expected a control value, got " + print_expr(e));
      return emitter_.name_of(r.name);
    }
    std::string visit_const(const Expr& e, int prec) override {
      const auto& c = e->as<Const>();
      if (c.is_bool()) return std::get<bool>(c.value) ? "true" : "false";
      const int64_t v = c.is_int()
                            ? c.int_value()
                            : static_cast<int64_t>(std::get<double>(c.value));
      return v < 0 && prec > 0 ? "(" + std::to_string(v) + ")"
                               : std::to_string(v);
    }
    std::string visit_usub(const Expr& e, int) override {
      return "-" + visit(e->as<USub>().arg, kUnaryPrecedence);
    }
    std::string visit_binop(const Expr& e, int prec) override {
      const auto& b = e->as<BinOp>();
      if (b.op == BinOpKind::Div || b.op == BinOpKind::Mod) {
        const bool positive_divisor = int_literal(b.rhs).value_or(0) > 0 ||
                                      emitter_.non_negative_strict(b.rhs);
        if (positive_divisor && emitter_.non_negative(b.lhs)) {
          const std::string s = visit(b.lhs, 60) +
                                (b.op == BinOpKind::Div ? " / " : " % ") +
                                visit(b.rhs, 61);
          return prec > 60 ? "(" + s + ")" : s;
        }
        return fmt::format("{}_{}({}, {})", emitter_.lib_,
                           b.op == BinOpKind::Div ? "floor_div" : "floor_mod",
                           visit(b.lhs, 0), visit(b.rhs, 0));
      }
      const int local = precedence(b.op);
      const std::string s = visit(b.lhs, local) + " " + c_operator(b.op) + " " +
                            visit(b.rhs, local + 1);
      return local < prec ? "(" + s + ")" : s;
    }
    std::string visit_stride_expr(const Expr& e, int) override {
      const auto& st = e->as<StrideExpr>();
      const DeviceBuffer& b = emitter_.buffer(st.name, e->srcinfo);
      return b.strides.at(st.dim);
    }
    std::string visit_expr_default(const Expr& e, int) override {
      emitter_.fail(e->srcinfo,
                    "unsupported expression in a kernel: " + print_expr(e));
    }

   private:
    KernelEmitter& emitter_;
  };
  ControlText control_text_{*this};

  std::string ctrl(const Expr& e, int prec = 0) {
    return control_text_.visit(e, prec);
  }

  bool non_negative_strict(const Expr& e) {
    if (!SmtEncoder::is_encodable(e)) return false;
    try {
      return smt_.prove(smt_.encode(e) > 0).yes();
    } catch (const std::invalid_argument&) {
      return false;
    }
  }

  const DeviceBuffer& buffer(const Sym& s, const SrcInfo& at) {
    auto it = buffers_.find(s);
    if (it == buffers_.end())
      fail(at, "internal: no device buffer for " + s.name());
    return it->second;
  }

  // The buffer an access reaches through window aliases, and its indices.
  std::pair<Sym, std::vector<Expr>> resolve(Sym name, std::vector<Expr> idx) {
    for (auto it = aliases_.find(name); it != aliases_.end();
         it = aliases_.find(name)) {
      std::vector<Expr> full;
      size_t next = 0;
      for (const WindowAccess& w : it->second.idx) {
        if (!w.is_interval) {
          full.push_back(w.lo);
        } else {
          const Expr& i = next < idx.size() ? idx[next] : make_int(0);
          ++next;
          full.push_back(make_binop(BinOpKind::Add, w.lo, i, i->srcinfo,
                                    Type(TypeKind::Index)));
        }
      }
      name = it->second.base;
      idx = std::move(full);
    }
    return {name, std::move(idx)};
  }

  // The C++ l-value of `name[idx]`.
  std::string lvalue(const Sym& name, const std::vector<Expr>& idx,
                     const SrcInfo& at) {
    auto [base, full] = resolve(name, idx);
    const DeviceBuffer& b = buffer(base, at);
    if (b.scalar) return b.name;
    std::string off;
    for (size_t d = b.distributed; d < full.size() && d < b.strides.size();
         ++d) {
      std::string i = ctrl(full[d], b.ring[d] ? 60 : 0);
      if (b.ring[d]) i = fmt::format("{} % {}", i, b.ring[d]);
      if (i == "0" || b.strides[d] == "0") continue;
      const std::string term = b.strides[d] == "1" ? i : times(i, b.strides[d]);
      off += (off.empty() ? "" : " + ") + term;
    }
    if (off.empty()) off = "0";
    if (b.swizzle)
      off = fmt::format("{}_swizzle<{}, {}>({})", lib_, b.swizzle,
                        elem_bytes(b.elem), off);
    return b.name + "[" + off + "]";
  }

  // A data expression: (text, type kind of its value).
  class DataText : public ExprFunctor<std::pair<std::string, TypeKind>(int)> {
   public:
    explicit DataText(KernelEmitter& emitter) : emitter_(emitter) {}

   protected:
    using Text = std::pair<std::string, TypeKind>;
    static TypeKind kind_of(const Expr& e) { return e->type.basetype().kind(); }

    Text visit_read(const Expr& e, int) override {
      const auto& r = e->as<Read>();
      return {
          load_value(emitter_.lvalue(r.name, r.idx, e->srcinfo), kind_of(e)),
          kind_of(e)};
    }
    Text visit_const(const Expr& e, int prec) override {
      const TypeKind t = kind_of(e);
      const auto& c = e->as<Const>();
      const double v = c.is_int()     ? static_cast<double>(c.int_value())
                       : c.is_float() ? std::get<double>(c.value)
                                      : 0.0;
      const std::string ct = compute_type(t);
      if (ct == "int32_t") return {std::to_string(static_cast<int64_t>(v)), t};
      std::string s = python_float_repr(v);
      if (s.find_first_of(".en") == std::string::npos) s += ".0";
      if (ct == "float") s += "f";
      if (v < 0 && prec > 0) s = "(" + s + ")";
      return {s, t};
    }
    Text visit_usub(const Expr& e, int) override {
      auto [a, at] = visit(e->as<USub>().arg, kUnaryPrecedence);
      return {"-" + a, kind_of(e)};
    }
    Text visit_binop(const Expr& e, int prec) override {
      const TypeKind t = kind_of(e);
      const auto& b = e->as<BinOp>();
      const int local = precedence(b.op);
      auto [l, lt] = visit(b.lhs, local);
      auto [r, rt] = visit(b.rhs, local + 1);
      const std::string ct = compute_type(t);
      if (compute_type(lt) != ct) l = "(" + ct + ")(" + l + ")";
      if (compute_type(rt) != ct) r = "(" + ct + ")(" + r + ")";
      const std::string s = l + " " + c_operator(b.op) + " " + r;
      return {local < prec ? "(" + s + ")" : s, t};
    }
    Text visit_expr_default(const Expr& e, int) override {
      emitter_.fail(e->srcinfo, "unsupported data expression in a kernel: " +
                                    print_expr(e));
    }

   private:
    KernelEmitter& emitter_;
  };
  DataText data_text_{*this};

  std::pair<std::string, TypeKind> data(const Expr& e, int prec = 0) {
    return data_text_.visit(e, prec);
  }

  // ---- statements ---------------------------------------------------------
  void block(const Block& b) {
    for (const Stmt& s : b) visit(s);
  }

  const Collective& collective(const Stmt& s) { return cm_.at(s.get()); }

  void visit_pass(const Stmt&) override { line(";"); }
  void visit_assign(const Stmt& s) override { assign(s); }
  void visit_if(const Stmt& s) override {
    const auto& i = s->as<If>();
    line("if (" + ctrl(i.cond) + ") {");
    scoped([&] { block(i.body); }, i.cond, true);
    if (!i.orelse.empty()) {
      line("} else {");
      scoped([&] { block(i.orelse); }, i.cond, false);
    }
    line("}");
  }
  void visit_for(const Stmt& s) override { loop(s); }
  void visit_with(const Stmt& s) override { warps(s); }
  // Frees emit nothing: the storage of a kernel's buffers ends with it.
  void visit_alloc(const Stmt& s) override {
    if (s->kind == StmtKind::Alloc) alloc(s);
  }
  void visit_window_stmt(const Stmt& s) override {
    const auto& w = s->as<WindowStmt>();
    const auto& rhs = w.rhs->as<WindowExpr>();
    aliases_[w.name] = Alias{rhs.name, rhs.idx};
  }
  void visit_call(const Stmt& s) override { call(s); }
  void visit_sync(const Stmt& s) override { sync(s); }
  // The one kind left: configuration writes.
  void visit_stmt_default(const Stmt& s) override {
    fail(s->srcinfo, "kernels cannot write configuration fields");
  }

  template <class F>
  void scoped(F&& body, const Expr& cond, bool positive) {
    smt_.push();
    if (SmtEncoder::is_encodable(cond)) {
      z3::expr c = smt_.encode(cond);
      smt_.assume(positive ? c : !c);
    }
    indent();
    body();
    dedent();
    smt_.pop();
  }

  void assign(const Stmt& s) {
    const auto& a = s->as<Assign>();
    auto [base, full] = resolve(a.name, a.idx);
    const DeviceBuffer& b = buffer(base, s->srcinfo);
    const std::string lhs = lvalue(a.name, a.idx, s->srcinfo);
    auto [rhs, rt] = data(a.rhs);
    if (s->kind == StmtKind::Assign) {
      line(lhs + " = " + store_value(rhs, rt, b.elem) + ";");
      return;
    }
    if (b.elem == TypeKind::BF16 || b.elem == TypeKind::F16) {
      line(lhs + " = " +
           store_value(load_value(lhs, b.elem) + " + " + rhs, b.elem, b.elem) +
           ";");
      return;
    }
    line(lhs + " += " + store_value(rhs, rt, b.elem) + ";");
  }

  // Whether a register buffer is indexed by the loop's iterator somewhere
  // in its body: such loops are fully unrolled so that register indices are
  // constants.
  bool indexes_registers(const For& f) {
    RegisterIndexSearch search(*this, f.iter);
    search.visit(f.body);
    return search.found;
  }

  // What `indexes_registers` looks at: the accesses of assignments and the
  // arguments of instructions, in loops and branches (not in their bounds
  // and conditions, nor in `with` blocks).
  class RegisterIndexSearch : public IRVisitor {
   public:
    RegisterIndexSearch(KernelEmitter& emitter, const Sym& iter)
        : emitter_(emitter), iter_(iter) {}
    bool found = false;

   protected:
    void visit_read(const Read& e) override {
      access(e.name, e.idx);
      IRVisitor::visit_read(e);
    }
    void visit_extern_call(const ExternCall&) override {}
    void visit_window_expr(const WindowExpr&) override {}
    void visit_assign(const Assign& s) override {
      access(s.name, s.idx);
      IRVisitor::visit_assign(s);
    }
    void visit_if(const If& s) override {
      visit(s.body);
      visit(s.orelse);
    }
    void visit_for(const For& s) override { visit(s.body); }
    void visit_call(const Call& s) override {
      for (const Expr& a : s.args) {
        if (a->kind != ExprKind::WindowExpr) {
          visit(a);
          continue;
        }
        const auto& w = a->as<WindowExpr>();
        const MemKind kind = memory_of(w.name);
        if (kind == MemKind::Rmem || kind == MemKind::Fragment)
          for (const WindowAccess& d : w.idx) found_if_mentioned(d.lo);
      }
    }
    void visit_alloc(const Alloc&) override {}
    void visit_window_stmt(const WindowStmt&) override {}
    void visit_with(const With&) override {}
    void visit_sync(const Sync&) override {}

   private:
    KernelEmitter& emitter_;
    const Sym& iter_;

    // The memory of the buffer `name` reaches through aliases (Other when
    // it is no device buffer).
    MemKind memory_of(const Sym& name) {
      auto it = emitter_.buffers_.find(emitter_.resolve(name, {}).first);
      return it == emitter_.buffers_.end() ? MemKind::Other : it->second.kind;
    }
    void access(const Sym& name, const std::vector<Expr>& idx) {
      if (memory_of(name) != MemKind::Rmem) return;
      for (const Expr& i : emitter_.resolve(name, idx).second)
        found_if_mentioned(i);
    }
    void found_if_mentioned(const Expr& e) {
      if (!primitives::mentions(e, iter_)) return;
      found = true;
      stop();
    }
  };

  void assume_range(const For& f) {
    if (SmtEncoder::is_encodable(f.lo) && SmtEncoder::is_encodable(f.hi)) {
      z3::expr v = smt_.var(f.iter);
      smt_.assume(smt_.encode(f.lo) <= v && v < smt_.encode(f.hi));
    }
  }

  void loop(const Stmt& s) {
    const For& f = s->as<For>();
    if (loop_kind(f) == LoopKind::Threads) {
      thread_loop(s);
      return;
    }
    const std::string lo = ctrl(f.lo), hi = ctrl(f.hi);
    const std::string it = bind_name(f.iter);
    if (int_literal(f.lo) && int_literal(f.hi) && indexes_registers(f))
      line("#pragma unroll");
    line(fmt::format("for (int32_t {0} = {1}; {0} < {2}; {0}++) {{", it, lo,
                     hi));
    smt_.push();
    assume_range(f);
    indent();
    block(f.body);
    dedent();
    smt_.pop();
    line("}");
  }

  // `for i in cuda_threads(lo, hi, unit=U)`: every thread computes which
  // piece of the current collective it is in; threads of pieces outside
  // [lo, hi) skip the body.
  void thread_loop(const Stmt& s) {
    const For& f = s->as<For>();
    const Collective& outer = collective(s);
    const Collective& inner = collective(f.body.front());
    const ThreadCut& cut = inner.cuts.back();
    const std::string it = bind_name(f.iter);
    line("{");
    indent();
    line(fmt::format("const int32_t {0} = {1}; (void){0};", it,
                     piece_index(outer, cut.unit.threads)));
    const bool all = cut.lo == 0 && cut.hi * cut.unit.threads == outer.threads;
    smt_.push();
    assume_range(f);
    if (!all) {
      line(fmt::format("if ({0} >= {1} && {0} < {2}) {{", it, cut.lo, cut.hi));
      indent();
    }
    block(f.body);
    if (!all) {
      dedent();
      line("}");
    }
    smt_.pop();
    dedent();
    line("}");
  }

  // The index of the piece of `unit` threads that this thread is in, within
  // collective `c`: (position in c) / unit.
  std::string piece_index(const Collective& c, int unit) {
    std::string pos = position(c);
    if (unit == 1) return pos;
    const bool simple = is_ident(pos) || pos == "threadIdx.x";
    return (simple ? pos : "(" + pos + ")") + " / " + std::to_string(unit);
  }

  // This thread's position within collective `c`: its offset from the
  // start of the piece it belongs to.
  std::string position(const Collective& c) {
    std::string pos =
        c.base == 0 ? "threadIdx.x" : fmt::format("(threadIdx.x - {})", c.base);
    if (!c.cuts.empty()) {
      // Each cut keeps the position modulo its unit; when units divide
      // each other (always, for the units of this version) the innermost
      // one suffices.
      const int unit = c.cuts.back().unit.threads;
      if (c.base % unit == 0) pos = "threadIdx.x";
      pos = fmt::format("{} % {}", pos, unit);
    }
    return pos;
  }

  void warps(const Stmt& s) {
    const With& w = s->as<With>();
    if (device_function(w)) fail(s->srcinfo, "nested CudaDeviceFunction");
    const Collective& inner =
        w.body.empty() ? collective(s) : collective(w.body.front());
    const std::string lower =
        inner.base == 0 ? "" : fmt::format("threadIdx.x >= {} && ", inner.base);
    line(fmt::format("if ({}threadIdx.x < {}) {{  // {}", lower,
                     inner.base + inner.threads, w.ctx->text()));
    indent();
    block(w.body);
    dedent();
    line("}");
  }

  void alloc(const Stmt& s) {
    const auto& a = s->as<Alloc>();
    const MemKind kind = mem_kind(a.mem);
    if (kind == MemKind::MBarrier) {
      line(fmt::format("// {}: mbarriers, initialised before the tasks",
                       name_of(a.name)));
      return;
    }
    const std::string name = bind_name(a.name);
    DeviceBuffer b;
    b.kind = kind;
    b.elem = a.type.basetype().kind();
    b.name = name;
    const auto& shape = a.type.shape();
    const auto& annotations = a.type.dim_annotations();
    std::vector<int64_t> extents;
    for (size_t d = 0; d < shape.size(); ++d) {
      auto facts = d < annotations.size() ? dim_facts(annotations[d])
                                          : std::optional<DimFacts>();
      if (facts && facts->unit) {
        b.distributed = d + 1;
        extents.push_back(0);
        b.ring.push_back(0);
        continue;
      }
      if (facts && facts->is_ring) {
        extents.push_back(facts->depth);
        b.ring.push_back(facts->depth);
        continue;
      }
      extents.push_back(int_literal(shape[d]).value_or(1));
      b.ring.push_back(0);
    }
    int64_t count = 1;
    b.strides.assign(shape.size(), "");
    for (size_t d = shape.size(); d-- > b.distributed;) {
      b.strides[d] = std::to_string(count);
      count *= extents[d];
    }
    const std::string dt = device_type(b.elem);
    switch (kind) {
      case MemKind::Smem: {
        const unsigned bytes =
            static_cast<unsigned>(count) * elem_bytes(b.elem);
        b.swizzle = mem_param(a.mem, "swizzle");
        // Swizzled tiles start at a multiple of their 8-row atom.
        const unsigned align = b.swizzle ? 8 * b.swizzle : 128;
        smem_bytes_ = (smem_bytes_ + align - 1) / align * align;
        line(fmt::format("{}* {} = reinterpret_cast<{}*>(smem + {});", dt, name,
                         dt, smem_bytes_));
        smem_bytes_ += bytes;
        break;
      }
      case MemKind::Rmem:
        if (count == 1 && shape.size() == b.distributed) {
          b.scalar = true;
          line(fmt::format("{} {};", dt, name));
        } else {
          line(fmt::format("{} {}[{}];", dt, name, count));
        }
        break;
      case MemKind::Fragment: {
        // Leading dimensions index tiles; a tile is `frag_regs` registers
        // of each thread of the warp(group) (docs/cuda.md, "From a naive GEMM
        // to TMA and wgmma").
        const Properties props = a.mem->properties();
        const size_t tile_dims = 2;
        const size_t leading = shape.size() - std::min(shape.size(), tile_dims);
        // frag_regs 0: one register per element and thread.
        int64_t regs = props.get_int("frag_regs", 1);
        if (regs == 0) {
          regs = 1;
          for (size_t d = leading; d < shape.size(); ++d) regs *= extents[d];
          regs /= std::max<int64_t>(1, props.get_int("unit_threads", 1));
        }
        int64_t tiles = 1;
        for (size_t d = leading; d-- > 0;) {
          b.strides[d] = std::to_string(tiles * regs);
          tiles *= extents[d];
        }
        for (size_t d = leading; d < shape.size(); ++d) b.strides[d] = "0";
        line(fmt::format("{} {}[{}];", props.get_string("frag_ctype", "float"),
                         name, tiles * regs));
        break;
      }
      case MemKind::CpAsyncGroup:
      case MemKind::WgmmaGroup:
        line(fmt::format("// {}: commit groups of {} (no storage)", name,
                         a.mem->name()));
        break;

      default:
        fail(s->srcinfo, fmt::format("{} buffers are not supported by this "
                                     "version of the CUDA backend",
                                     a.mem->name()));
    }
    buffers_[a.name] = b;
  }

  static unsigned elem_bytes(TypeKind t) {
    switch (t) {
      case TypeKind::F64:
        return 8;
      case TypeKind::BF16:
      case TypeKind::F16:
      case TypeKind::UI16:
        return 2;
      case TypeKind::I8:
      case TypeKind::UI8:
        return 1;
      default:
        return 4;
    }
  }

  // An instruction call: its template (or its generator) filled with the
  // compiled arguments.
  void call(const Stmt& s) {
    const auto& c = s->as<Call>();
    const InstrFacts facts = instr_facts(*c.f);
    for (const std::string& inc : facts.cu_includes) includes_.insert(inc);
    std::unordered_map<std::string, std::string> values;
    Properties props;
    for (size_t k = 0; k < c.args.size(); ++k) {
      const std::string p = c.f->args[k].name.name();
      const Expr& a = c.args[k];
      if (!a->type.is_numeric()) {
        values[p] = ctrl(a);
        props.set(p, values[p]);
        continue;
      }
      Sym name;
      std::vector<Expr> origin;
      std::vector<size_t> kept;  // dimensions of the buffer the window keeps
      if (a->kind == ExprKind::WindowExpr) {
        const auto& w = a->as<WindowExpr>();
        name = w.name;
        for (size_t d = 0; d < w.idx.size(); ++d) {
          origin.push_back(w.idx[d].lo);
          if (w.idx[d].is_interval) kept.push_back(d);
        }
      } else {
        name = a->as<Read>().name;
        origin = a->as<Read>().idx;
      }
      auto [base, full] = resolve(name, origin);
      const DeviceBuffer& b = buffer(base, a->srcinfo);
      if (b.kind == MemKind::TensorMap) {
        // TMA reads the map: a pointer into the kernel's parameter.
        values[p] = b.name;
        props.set(p, b.name);
        props.set(p + "_map", b.name);
        continue;
      }
      if (full.empty())
        for (size_t d = 0; d < b.strides.size(); ++d)
          full.push_back(make_int(0));
      const std::string lv = lvalue(base, full, a->srcinfo);
      values[p] = b.scalar ? lv : "&" + lv;
      values[p + "_data"] = values[p];
      props.set(p, values[p]);
      props.set(p + "_type", device_type(b.elem));
      props.set(p + "_memory", c.f->args[k].mem ? c.f->args[k].mem->name()
                                                : std::string("DRAM"));
      std::vector<std::string> strides;
      for (size_t d : kept)
        if (d < b.strides.size()) strides.push_back(b.strides[d]);
      props.set(p + "_strides", strides);
      for (size_t i = 0; i < strides.size(); ++i)
        values[fmt::format("{}_stride{}", p, i)] = strides[i];
    }
    if (c.barriers.size() > 1)
      fail(s->srcinfo, "an instruction signals one barrier in this version");
    for (const Expr& b : c.barriers) {
      const DeviceBuffer& bar = buffer(b->as<Read>().name, b->srcinfo);
      if (bar.kind != MemKind::MBarrier)
        fail(b->srcinfo, "trailing barriers are mbarriers in this version");
      const std::string addr = mbarrier_element(b).first;
      values["barrier"] = addr;
      props.set("barrier", addr);
    }
    std::string text;
    if (facts.has_generator)
      text = c.f->instr->metadata->generate(props);
    else
      text = fill_template(c.f->instr->c_instr, values, c.f->name);
    size_t start = 0;
    while (start <= text.size()) {
      const size_t end = text.find('\n', start);
      const std::string l = text.substr(start, end - start);
      if (!l.empty()) line(l);
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }

  // ---- synchronisation ----------------------------------------------------
  void sync(const Stmt& s) {
    const auto& y = s->as<Sync>();
    const Collective& c = collective(s);
    line("// " + print_stmt(s));
    if (y.sync == SyncKind::Fence) {
      fence(s, y, c);
      return;
    }
    const Sym& g = y.barriers.front()->as<Read>().name;
    const DeviceBuffer& b = buffer(g, s->srcinfo);
    switch (b.kind) {
      case MemKind::CpAsyncGroup:
        if (y.sync == SyncKind::Arrive)
          line("asm volatile(\"cp.async.commit_group;\" ::: \"memory\");");
        else
          line(
              fmt::format("asm volatile(\"cp.async.wait_group {};\" ::: "
                          "\"memory\");",
                          depth(s)));
        return;
      case MemKind::WgmmaGroup:
        uses_sm90_ = true;
        if (y.sync == SyncKind::Arrive)
          line(
              "asm volatile(\"wgmma.commit_group.sync.aligned;\" ::: "
              "\"memory\");");
        else
          line(
              fmt::format("asm volatile(\"wgmma.wait_group.sync.aligned "
                          "{};\" ::: \"memory\");",
                          depth(s)));
        return;
      case MemKind::MBarrier:
        mbarrier_sync(y, c);
        return;
      default:
        fail(s->srcinfo,
             "this barrier is not supported by this version of "
             "the CUDA backend");
    }
  }

  // Shared memory and initialisation of the kernel's mbarriers, and the
  // running counters of their elements (mbarriers.hpp).
  void mbarrier_prologue(std::vector<std::string>& prologue,
                         std::vector<std::string>& epilogue) {
    std::vector<Diagnostic> reported_by_tier_a;
    mbarriers_ = mbarriers_of(k_, cm_, reported_by_tier_a);
    if (mbarriers_.empty()) return;
    uses_sm90_ = true;
    std::vector<std::string> init;
    for (const auto& [sym, m] : mbarriers_) {
      const std::string name = bind_name(sym);
      smem_bytes_ = (smem_bytes_ + 7) / 8 * 8;
      prologue.push_back(fmt::format(
          "uint64_t* {0} = reinterpret_cast<uint64_t*>(smem + {1});  // {2} "
          "mbarrier(s)",
          name, smem_bytes_, m.depth));
      prologue.push_back(fmt::format("int32_t {}_base = 0;", name));
      smem_bytes_ += 8 * m.depth;
      init.push_back(fmt::format(
          "  for (int exo2_i = 0; exo2_i < {0}; ++exo2_i) asm volatile("
          "\"mbarrier.init.shared::cta.b64 [%0], %1;\" :: \"r\"("
          "(uint32_t)__cvta_generic_to_shared(&{1}[exo2_i])), \"r\"({2}) : "
          "\"memory\");",
          m.depth, name, m.arrivals));
      epilogue.push_back(fmt::format("{}_base += {};", name, ctrl(m.extent)));
      DeviceBuffer b;
      b.kind = MemKind::MBarrier;
      b.name = name;
      buffers_[sym] = b;
    }
    prologue.push_back("if (threadIdx.x == 0) {");
    prologue.insert(prologue.end(), init.begin(), init.end());
    prologue.push_back(
        "  asm volatile(\"fence.mbarrier_init.release.cluster;\" ::: "
        "\"memory\");");
    prologue.push_back("}");
    prologue.push_back("asm volatile(\"bar.sync 0;\" ::: \"memory\");");
  }

  // (shared address of the slot, phase parity) of mbarrier element `b`.
  std::pair<std::string, std::string> mbarrier_element(const Expr& b) {
    const Sym& g = b->as<Read>().name;
    const MBarrier& m = mbarriers_.at(g);
    const std::string& name = name_of(g);
    const std::string global =
        fmt::format("({}_base + {})", name, ctrl(b->as<Read>().idx.front()));
    const std::string slot =
        m.depth == 1 ? "0" : fmt::format("{} % {}", global, m.depth);
    // A prearrived ring reports its first `depth` elements complete: they
    // wait on the previous phase.
    const std::string parity =
        m.prearrive ? fmt::format("(({} / {} + 1) & 1)", global, m.depth)
                    : fmt::format("(({} / {}) & 1)", global, m.depth);
    return {
        fmt::format("(uint32_t)__cvta_generic_to_shared(&{}[{}])", name, slot),
        parity};
  }

  void mbarrier_sync(const Sync& y, const Collective& c) {
    if (y.sync == SyncKind::Await) {
      auto [addr, parity] = mbarrier_element(y.barriers.front());
      line("{");
      line(fmt::format("  const uint32_t exo2_bar = {};", addr));
      line(fmt::format("  const uint32_t exo2_parity = {};", parity));
      line(
          "  asm volatile(\"{\\n.reg .pred P1;\\nWAIT:\\n"
          "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\\n"
          "@!P1 bra WAIT;\\n}\\n\" :: \"r\"(exo2_bar), "
          "\"r\"(exo2_parity) : \"memory\");");
      line("}");
      return;
    }
    // One arrival per warp of the collective, by its elected lane after
    // the warp's earlier accesses (docs/cuda.md, "The constructs").
    if (c.threads > 1) line("__syncwarp();");
    for (const Expr& b : y.barriers) {
      const std::string addr = mbarrier_element(b).first;
      line(fmt::format(
          "{}asm volatile(\"mbarrier.arrive.shared::cta.b64 _, [%0];\" :: "
          "\"r\"({}) : \"memory\");",
          c.threads > 1 ? "if (threadIdx.x % 32 == 0) " : "", addr));
    }
  }

  // N of `wait_group N` (commit_groups.hpp; tier A reported the others).
  int depth(const Stmt& s) {
    auto it = depths_.find(s.get());
    if (it == depths_.end())
      fail(s->srcinfo,
           "cannot tell how many commit groups this Await leaves "
           "pending");
    return it->second;
  }

  void fence(const Stmt& s, const Sync& y, const Collective& c) {
    const Timeline pre = timeline_of(y.pre), post = timeline_of(y.post);
    if (pre == Timeline::CpAsync)
      line("asm volatile(\"cp.async.wait_all;\" ::: \"memory\");");
    if (pre == Timeline::Wgmma) {
      line(
          "asm volatile(\"wgmma.wait_group.sync.aligned 0;\" ::: "
          "\"memory\");");
      uses_sm90_ = true;
    }
    if (post == Timeline::AsyncProxy) {
      line("asm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\");");
      uses_sm90_ = true;
    }
    barrier(s, c);
    if (post == Timeline::WgmmaOperands) {
      line("asm volatile(\"wgmma.fence.sync.aligned;\" ::: \"memory\");");
      uses_sm90_ = true;
    }
  }

  // The barrier among the threads of collective `c` (docs/cuda.md, "Fence
  // lowering").
  void barrier(const Stmt& s, const Collective& c) {
    if (c.threads == 1) return;
    if (c.threads == 32) {
      line("__syncwarp();");
      return;
    }
    if (c.threads == k_.config.threads && c.base == 0 && c.cuts.empty()) {
      line("asm volatile(\"bar.sync 0;\" ::: \"memory\");");
      return;
    }
    // A named barrier per piece: ids [first, first + pieces).
    std::vector<const void*> key;
    if (c.warps) key.push_back(c.warps);
    int pieces = 1;
    std::string index = "0";
    for (const ThreadCut& cut : c.cuts) {
      key.push_back(cut.loop);
      index = fmt::format("({}) * {} + ({} - {})", index, cut.hi - cut.lo,
                          name_of(cut.loop->iter), cut.lo);
      pieces *= cut.hi - cut.lo;
    }
    auto found = named_barriers_.find(key);
    int first;
    if (found == named_barriers_.end()) {
      first = next_named_barrier_;
      next_named_barrier_ += pieces;
      if (next_named_barrier_ > 16)
        fail(s->srcinfo, "the kernel needs more than 15 named barriers");
      named_barriers_[key] = first;
    } else {
      first = found->second;
    }
    const std::string id = pieces == 1 ? std::to_string(first)
                                       : fmt::format("{} + {}", first, index);
    line(
        fmt::format("asm volatile(\"bar.sync %0, %1;\" :: \"r\"({}), "
                    "\"n\"({}) : \"memory\");",
                    id, c.threads));
  }
};

}  // namespace

KernelCode emit_kernel(const KernelAnalysis& ka, const std::string& lib) {
  return KernelEmitter(ka, lib).run();
}

std::string device_helpers(const std::string& lib) {
  return fmt::format(
      "// Floor division and modulo of the object language (the divisor "
      "is\n// positive): C's `/` and `%` round towards zero.\n"
      "__host__ __device__ inline int32_t {0}_floor_div(int32_t a, int32_t "
      "b) {{\n"
      "  return a >= 0 ? a / b : -((-a + b - 1) / b);\n}}\n"
      "__host__ __device__ inline int32_t {0}_floor_mod(int32_t a, int32_t "
      "b) {{\n"
      "  return a - b * {0}_floor_div(a, b);\n}}\n"
      "// Element `i` of a tile in the hardware swizzle of S bytes (TMA, "
      "wgmma):\n// 16-byte chunks of each S-byte row permuted by the row "
      "index.\n"
      "template <int S, int E>\n"
      "__device__ __forceinline__ int32_t {0}_swizzle(int32_t i) {{\n"
      "  const int32_t o = i * E;\n"
      "  return (o ^ (((o >> 7) % (S / 16)) << 4)) / E;\n}}\n",
      lib);
}

}  // namespace exo2::cuda
