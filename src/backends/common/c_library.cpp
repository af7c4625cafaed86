// Assembly of a C library from procedures (Exo's compile_to_strings and
// run_compile): the header's declarations, the body's groups and the
// context struct, in the byte-exact layout of procedure-and-codegen.md §4.
#include <algorithm>
#include <functional>
#include <map>
#include <regex>
#include <set>

#include "c_function.hpp"
#include "exo2/backends/c_codegen.hpp"
#include "exo2/backends/c_names.hpp"
#include "exo2/backends/codegen_error.hpp"
#include "exo2/backends/codegen_passes.hpp"
#include "exo2/core_ir/equality.hpp"

namespace exo2 {

namespace {

constexpr const char* kMacros = R"(
#include <stdint.h>
#include <stdbool.h>

// Compiler feature macros adapted from Hedley (public domain)
// https://github.com/nemequ/hedley

#if defined(__has_builtin)
#  define EXO_HAS_BUILTIN(builtin) __has_builtin(builtin)
#else
#  define EXO_HAS_BUILTIN(builtin) (0)
#endif

#if EXO_HAS_BUILTIN(__builtin_assume)
#  define EXO_ASSUME(expr) __builtin_assume(expr)
#elif EXO_HAS_BUILTIN(__builtin_unreachable)
#  define EXO_ASSUME(expr) \
      ((void)((expr) ? 1 : (__builtin_unreachable(), 1)))
#else
#  define EXO_ASSUME(expr) ((void)(expr))
#endif

)";

// Floor division and modulo, the object language's integer `/` and `%`
// (C's operators truncate toward zero). Emitted only when used.
constexpr const char* kFloorDiv = R"(
static inline int64_t exo_floor_div(int64_t num, int64_t quot) {
  int64_t q = num / quot;
  return (num % quot != 0 && (num < 0) != (quot < 0)) ? q - 1 : q;
})";
constexpr const char* kFloorMod = R"(
static inline int64_t exo_floor_mod(int64_t num, int64_t quot) {
  int64_t r = num % quot;
  return (r != 0 && (r < 0) != (quot < 0)) ? r + quot : r;
})";

// bf16 helpers: the upper half of a float, rounded to nearest even (NaNs
// stay NaNs).
constexpr const char* kBf16 = R"(
static inline float exo_bf16_to_f32(uint16_t x) {
  union { uint32_t u; float f; } v;
  v.u = (uint32_t)x << 16;
  return v.f;
}
static inline uint16_t exo_f32_to_bf16(float f) {
  union { uint32_t u; float f; } v;
  v.f = f;
  if ((v.u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((v.u >> 16) | 0x40u);
  v.u += 0x7fffu + ((v.u >> 16) & 1u);
  return (uint16_t)(v.u >> 16);
}
)";

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (size_t k = 0; k < items.size(); ++k) out += (k ? "\n" : "") + items[k];
  return out;
}

// Objects compared by identity, kept in first-seen order.
template <class T>
void add_unique(std::vector<std::shared_ptr<const T>>& out,
                const std::shared_ptr<const T>& obj) {
  for (const auto& o : out)
    if (o->same_as(*obj)) return;
  out.push_back(obj);
}

void collect_configs(const Expr& e, std::vector<ConfigPtr>& out) {
  switch (e->kind) {
    case ExprKind::ReadConfig:
      add_unique(out, e->as<ReadConfig>().config);
      break;
    case ExprKind::Read:
      for (const Expr& i : e->as<Read>().idx) collect_configs(i, out);
      break;
    case ExprKind::USub:
      collect_configs(e->as<USub>().arg, out);
      break;
    case ExprKind::BinOp:
      collect_configs(e->as<BinOp>().lhs, out);
      collect_configs(e->as<BinOp>().rhs, out);
      break;
    case ExprKind::ExternCall:
      for (const Expr& a : e->as<ExternCall>().args) collect_configs(a, out);
      break;
    case ExprKind::WindowExpr:
      for (const WindowAccess& w : e->as<WindowExpr>().idx) {
        collect_configs(w.lo, out);
        if (w.hi) collect_configs(w.hi, out);
      }
      break;
    default:
      break;
  }
}

void collect_configs(const Block& b, std::vector<ConfigPtr>& out) {
  for (const Stmt& s : b) {
    switch (s->kind) {
      case StmtKind::Assign:
      case StmtKind::Reduce:
        for (const Expr& i : s->as<Assign>().idx) collect_configs(i, out);
        collect_configs(s->as<Assign>().rhs, out);
        break;
      case StmtKind::WriteConfig:
        add_unique(out, s->as<WriteConfig>().config);
        collect_configs(s->as<WriteConfig>().rhs, out);
        break;
      case StmtKind::If:
        collect_configs(s->as<If>().cond, out);
        collect_configs(s->as<If>().body, out);
        collect_configs(s->as<If>().orelse, out);
        break;
      case StmtKind::For:
        collect_configs(s->as<For>().lo, out);
        collect_configs(s->as<For>().hi, out);
        collect_configs(s->as<For>().body, out);
        break;
      case StmtKind::With:
        collect_configs(s->as<With>().body, out);
        break;
      case StmtKind::Call:
        for (const Expr& a : s->as<Call>().args) collect_configs(a, out);
        break;
      case StmtKind::WindowStmt:
        collect_configs(s->as<WindowStmt>().rhs, out);
        break;
      default:
        break;
    }
  }
}

void collect_memories(const Block& b, std::vector<MemoryPtr>& out) {
  for (const Stmt& s : b) {
    if (s->kind == StmtKind::Alloc && s->as<Alloc>().mem)
      add_unique(out, s->as<Alloc>().mem);
    if (s->kind == StmtKind::If) {
      collect_memories(s->as<If>().body, out);
      collect_memories(s->as<If>().orelse, out);
    }
    if (s->kind == StmtKind::For) collect_memories(s->as<For>().body, out);
    if (s->kind == StmtKind::With) collect_memories(s->as<With>().body, out);
  }
}

// The context struct lines and its type name (`void` without configs);
// `configs` must be sorted by name.
std::pair<std::string, std::vector<std::string>> context_struct(
    const std::vector<ConfigPtr>& configs, const std::string& lib_name) {
  if (configs.empty()) return {"void", {}};
  const std::string name = lib_name + "_Context";
  std::vector<std::string> lines = {"typedef struct " + name + " { ", ""};
  std::set<std::string> seen;
  for (const ConfigPtr& c : configs) {
    if (!seen.insert(c->name()).second)
      throw CodegenError(CodegenError::Kind::Type,
                         "multiple configs named " + c->name());
    if (c->is_allow_rw()) {
      for (const std::string& l : config_struct_def(*c))
        lines.push_back("    " + l);
      lines.push_back("");
    } else {
      lines.push_back("// config '" + c->name() + "' not materialized");
      lines.push_back("");
    }
  }
  lines.push_back("} " + name + ";");
  return {name, lines};
}

// A call inside a `par` loop runs on several threads at once: the callee
// and everything it calls must not allocate `static` storage.
void check_no_static_storage_in_parallel_loops(
    const std::map<std::string, CFunction>& functions) {
  std::map<std::string, bool> reaches;  // memo; false while being visited
  std::function<bool(const std::string&)> reaches_static =
      [&](const std::string& name) {
        auto it = functions.find(name);
        if (it == functions.end()) return false;
        auto [memo, fresh] = reaches.emplace(name, false);
        if (!fresh) return memo->second;
        bool out = it->second.static_storage;
        for (const std::string& callee : it->second.callees)
          out = out || reaches_static(callee);
        reaches[name] = out;
        return out;
      };
  for (const auto& [name, f] : functions)
    for (const auto& [callee, message] : f.calls_in_parallel_loops)
      if (reaches_static(callee))
        throw CodegenError(CodegenError::Kind::MemGen, message);
}

}  // namespace

std::vector<std::string> config_struct_def(const Config& config) {
  const std::string name = c_identifier(config.name());
  std::vector<std::string> lines = {"struct " + name + " {"};
  for (const auto& [field, type] : config.fields())
    lines.push_back(std::string("    ") + type.ctype() + " " +
                    c_identifier(field) + ";");
  lines.push_back("} " + name + ";");
  return lines;
}

CLibrary compile_library(const std::string& lib_name,
                         const std::vector<Proc>& procs,
                         const CodegenOptions& options) {
  std::vector<Proc> all = reachable_procs(procs);
  std::stable_sort(all.begin(), all.end(), [](const Proc& a, const Proc& b) {
    return a->name < b->name;
  });
  for (size_t k = 1; k < all.size(); ++k)
    if (all[k]->name == all[k - 1]->name && !equal(all[k], all[k - 1]))
      throw CodegenError(CodegenError::Kind::Type,
                         "multiple procs named " + all[k]->name);
  all.erase(std::unique(all.begin(), all.end(),
                        [](const Proc& a, const Proc& b) {
                          return a->name == b->name;
                        }),
            all.end());
  std::map<std::string, std::string> c_names;  // C name -> proc name
  for (const Proc& p : all) {
    if (p->is_instr()) continue;
    auto [it, fresh] = c_names.emplace(c_identifier(p->name), p->name);
    if (!fresh)
      throw CodegenError(CodegenError::Kind::Type,
                         "procs " + it->second + " and " + p->name +
                             " would both be the C function " + it->first +
                             " (a name C reserves is mangled with a "
                             "trailing '_'); rename one of them");
  }
  auto is_public = [&](const Proc& p) {
    for (const Proc& q : procs)
      if (q.get() == p.get() || (q->name == p->name && equal(q, p)))
        return true;
    return false;
  };

  std::vector<ConfigPtr> configs;
  std::vector<MemoryPtr> memories;
  for (const Proc& p : all) {
    collect_configs(p->body, configs);
    for (const FnArg& a : p->args)
      if (a.mem) add_unique(memories, a.mem);
    collect_memories(p->body, memories);
  }
  std::stable_sort(configs.begin(), configs.end(),
                   [](const ConfigPtr& a, const ConfigPtr& b) {
                     return a->name() < b->name();
                   });
  auto [ctxt_type, ctxt_lines] = context_struct(configs, lib_name);

  std::map<std::string, std::string> structs;
  std::vector<std::string> public_decls, private_decls, bodies, instr_globals;
  std::vector<std::pair<ExternPtr, std::string>> externs;
  bool needs_floor_div = false, needs_floor_mod = false, needs_math_h = false;
  bool needs_bf16 = false;
  std::map<std::string, CFunction> functions;  // by C name, for the checks
  for (const Proc& p : all) {
    if (p->is_instr()) {
      std::string params;
      for (size_t k = 0; k < p->args.size(); ++k)
        params += (k ? "," : "") + p->args[k].name.name();
      bodies.insert(bodies.end(),
                    {"", "/* relying on the following instruction...\"",
                     p->name + "(" + params + ")", p->instr->c_instr, "*/"});
      if (!p->instr->c_global.empty())
        instr_globals.push_back(p->instr->c_global);
      continue;
    }
    check_parallel_loops(p);
    Proc q = lower_precision(p, options.default_precision);
    q = promote_windows(q);
    q = place_frees(q);
    const bool pub = is_public(p);
    CFunction f = emit_c_function(q, ctxt_type, pub);
    structs.insert(f.window_structs.begin(), f.window_structs.end());
    needs_floor_div |= f.needs_floor_div;
    needs_floor_mod |= f.needs_floor_mod;
    needs_math_h |= f.needs_math_h;
    needs_bf16 |= f.needs_bf16;
    for (auto& e : f.externs) {
      bool seen = false;
      for (const auto& [g, t] : externs)
        seen |= g->same_as(*e.first) && t == e.second;
      if (!seen) externs.push_back(e);
    }
    (pub ? public_decls : private_decls).push_back(f.decl);
    bodies.push_back(f.def);
    functions.emplace(c_identifier(p->name), std::move(f));
  }
  check_no_static_storage_in_parallel_loops(functions);

  std::vector<std::string> struct_defs;
  for (const auto& [name, def] : structs) struct_defs.push_back(def);

  CLibrary lib;
  lib.configs = configs;
  lib.decls = std::string("\n") + kMacros + join(ctxt_lines) + "\n" +
              join(struct_defs) + "\n" + join(public_decls) + "\n";

  std::stable_sort(memories.begin(), memories.end(),
                   [](const MemoryPtr& a, const MemoryPtr& b) {
                     return a->name() < b->name();
                   });
  std::vector<std::string> memory_code;
  for (const MemoryPtr& m : memories) memory_code.push_back(m->global_());
  std::stable_sort(
      externs.begin(), externs.end(), [](const auto& a, const auto& b) {
        return a.first->name() + a.second < b.first->name() + b.second;
      });
  std::vector<std::string> extern_code;
  for (const auto& [f, ctype] : externs)
    if (std::string g = f->globl(ctype); !g.empty()) extern_code.push_back(g);

  std::vector<std::string> helpers;
  if (needs_math_h) helpers.push_back("#include <math.h>");
  if (needs_floor_div) helpers.push_back(kFloorDiv);
  if (needs_floor_mod) helpers.push_back(kFloorMod);
  if (needs_bf16) helpers.push_back(kBf16);
  std::vector<std::string> groups;
  for (const auto* group : {&helpers, &instr_globals, &memory_code,
                            &extern_code, &private_decls, &bodies})
    if (!group->empty()) groups.push_back(join(*group));
  lib.body = join(groups) + "\n";
  return lib;
}

std::pair<std::string, std::string> compile_procs_to_strings(
    const std::vector<Proc>& procs, const std::string& h_file_name,
    const CodegenOptions& options) {
  std::string stem = h_file_name;
  if (size_t slash = stem.find_last_of('/'); slash != std::string::npos)
    stem = stem.substr(slash + 1);
  if (size_t dot = stem.find_last_of('.'); dot != std::string::npos && dot > 0)
    stem = stem.substr(0, dot);
  const std::string lib_name =
      std::regex_replace(stem, std::regex("[^A-Za-z0-9_]"), "_");
  CLibrary lib = compile_library(lib_name, procs, options);
  std::string guard = lib_name + "_H";
  std::transform(guard.begin(), guard.end(), guard.begin(), ::toupper);
  std::string c_text = "#include \"" + h_file_name + "\"\n\n" + lib.body;
  std::string h_text =
      "\n#pragma once\n#ifndef " + guard + "\n#define " + guard +
      "\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n" + lib.decls +
      "\n\n#ifdef __cplusplus\n}\n#endif\n#endif  // " + guard + "\n";
  return {c_text, h_text};
}

}  // namespace exo2
