#include "exo2/backends/c_names.hpp"

#include <string_view>
#include <unordered_set>

namespace exo2 {

namespace {

// C keywords (C89 to C23) and C++ keywords: the header generated code ships
// declares the parameters by name and is included from C++ too.
// clang-format off
constexpr std::string_view kKeywords[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do",
    "double", "else", "enum", "extern", "float", "for", "goto", "if",
    "inline", "int", "long", "register", "restrict", "return", "short",
    "signed", "sizeof", "static", "struct", "switch", "typedef", "union",
    "unsigned", "void", "volatile", "while", "alignas", "alignof", "bool",
    "constexpr", "false", "nullptr", "static_assert", "thread_local", "true",
    "typeof", "typeof_unqual", "asm",
    // C++ only
    "and", "and_eq", "bitand", "bitor", "catch", "char8_t", "char16_t",
    "char32_t", "class", "compl", "concept", "consteval", "constinit",
    "const_cast", "co_await", "co_return", "co_yield", "decltype", "delete",
    "dynamic_cast", "explicit", "export", "friend", "mutable", "namespace",
    "new", "noexcept", "not", "not_eq", "operator", "or", "or_eq", "private",
    "protected", "public", "reinterpret_cast", "requires", "static_cast",
    "template", "this", "throw", "try", "typeid", "typename", "using",
    "virtual", "wchar_t", "xor", "xor_eq",
    // Names of the generated code itself (c_library.cpp, c_function.cpp),
    // and `main`, which C gives a fixed signature.
    "ctxt", "exo_floor_div", "exo_floor_mod", "EXO_ASSUME", "EXO_HAS_BUILTIN",
    "main",
    // Names of <stddef.h> that the headers above need not declare.
    "offsetof", "max_align_t",
};
// clang-format on

// The file-scope names of the included headers.
// clang-format off
constexpr std::string_view kHeaderNames[] = {
#include "c_header_names.inc"
};
// clang-format on

const std::unordered_set<std::string_view>& reserved_names() {
  static const std::unordered_set<std::string_view> names = [] {
    std::unordered_set<std::string_view> out(std::begin(kKeywords),
                                             std::end(kKeywords));
    out.insert(std::begin(kHeaderNames), std::end(kHeaderNames));
    return out;
  }();
  return names;
}

bool reserved_by_pattern(const std::string& name) {
  return name.size() >= 2 && name[0] == '_' &&
         (name[1] == '_' || (name[1] >= 'A' && name[1] <= 'Z'));
}

}  // namespace

bool is_reserved_c_name(const std::string& name) {
  return reserved_by_pattern(name) || reserved_names().count(name) > 0;
}

std::string c_identifier(const std::string& name) {
  std::string out = reserved_by_pattern(name) ? "exo" + name : name;
  while (is_reserved_c_name(out)) out += "_";
  return out;
}

}  // namespace exo2
