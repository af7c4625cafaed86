// C code generation (procedure-and-codegen.md §2, §4): a library of
// procedures becomes one header and one C file.
//
// The procedures given are public; every procedure they call, transitively,
// is compiled as a `static` function and instructions are expanded at their
// call sites. Per procedure, in name order: parallel check, precision
// analysis, window promotion, memory analysis, emission. Memories, externs
// and configs produce their own C text through their interfaces
// (core_ir/extension.hpp). Errors are CodegenError (codegen_error.hpp).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "exo2/core_ir/proc.hpp"

namespace exo2 {

struct CodegenOptions {
  // The precision the generic real type `R` is lowered to.
  TypeKind default_precision = TypeKind::F32;
};

// The two halves of a library: `decls` is the header's declarations (the
// text between the header's `extern "C"` guards), `body` the C file after
// its `#include` line.
struct CLibrary {
  std::string decls;
  std::string body;
  // The configs of the context struct, in its order (by name).
  std::vector<ConfigPtr> configs;
};

CLibrary compile_library(const std::string& lib_name,
                         const std::vector<Proc>& procs,
                         const CodegenOptions& options = {});

// The lines of the C struct holding a config's fields in the context struct
// (`struct C {`, `    float f;`, `} C;`), names mangled as c_names.hpp says.
std::vector<std::string> config_struct_def(const Config& config);

// `(c_text, h_text)` of `compile_procs_to_strings`: the library is named
// after `h_file_name`'s stem, non-word characters replaced by `_`.
std::pair<std::string, std::string> compile_procs_to_strings(
    const std::vector<Proc>& procs, const std::string& h_file_name,
    const CodegenOptions& options = {});

}  // namespace exo2
