// Emission of one analysed procedure as a C function
// (docs/reference/generated-c.md, "Shape of the generated C" to "Expressions").
// Internal to the C backend: c_library.cpp runs the analyses first and
// assembles the library.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "exo2/core_ir/proc.hpp"

namespace exo2 {

struct CFunction {
  std::string decl;  // comment + prototype
  std::string def;   // comment + definition
  // Window structs used, by struct name: the guarded definition.
  std::map<std::string, std::string> window_structs;
  // Which helpers and headers the function's C text uses.
  bool needs_floor_div = false;
  bool needs_floor_mod = false;
  bool needs_math_h = false;
  // Whether an allocation of the function declares `static` storage, and
  // the procedures the function calls (C names): a function reaching static
  // storage may not run on several threads at once.
  bool static_storage = false;
  std::vector<std::string> callees;
  // The calls inside `par` loops: (callee C name, message prefix naming the
  // call and the loop).
  std::vector<std::pair<std::string, std::string>> calls_in_parallel_loops;
  bool needs_bf16 = false;  // uses exo_bf16_to_f32 / exo_f32_to_bf16
  // (extern, C type) of every extern call, in emission order.
  std::vector<std::pair<ExternPtr, std::string>> externs;
};

// `p` has gone through lower_precision, promote_windows and place_frees.
// `ctxt_type` is `void` or the library's context struct name.
CFunction emit_c_function(const Proc& p, const std::string& ctxt_type,
                          bool is_public);

}  // namespace exo2
