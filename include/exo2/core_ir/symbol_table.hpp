// Every variable a procedure binds, with its type and where it comes from,
// and the other names it uses: the externs it calls.
#pragma once

#include <string>
#include <vector>

#include "exo2/core_ir/proc.hpp"

namespace exo2 {

struct SymbolInfo {
  enum class Kind { Argument, Allocation, LoopIterator, Window };
  Kind kind;
  Sym sym;
  // Loop iterators are `index`; windows have the type of their expression.
  Type type;
  MemoryPtr mem;  // null for control values and windows
  SrcInfo srcinfo;
};

// The variables bound by `p` in definition order (arguments first, then a
// pre-order walk of the body).
std::vector<SymbolInfo> symbol_table(const Proc& p);
const char* symbol_kind_name(SymbolInfo::Kind kind);

// The names of the extern functions `p` calls, sorted, each once.
std::vector<std::string> extern_names(const Proc& p);

// The variable a statement declares for the statements after it (an
// allocation's buffer, a window statement's window), or null.
const Sym* declared_name(const Stmt& s);

}  // namespace exo2
