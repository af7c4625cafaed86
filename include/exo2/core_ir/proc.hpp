// Procedures: the unit users define, schedule and compile.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "exo2/core_ir/stmt.hpp"

namespace exo2 {

struct FnArg {
  Sym name;
  Type type;
  MemoryPtr mem;  // null for size and index parameters
  SrcInfo srcinfo;
};

// What makes a procedure an instruction: the C text emitted at each call.
// `metadata` holds backend-specific fields (the CUDA unit and timeline);
// null for plain instructions.
struct InstrInfo {
  std::string c_instr;
  std::string c_global;
  InstrMetadataPtr metadata;
};

class ProcNode {
 public:
  std::string name;
  std::vector<FnArg> args;
  std::vector<Expr> preds;  // preconditions (`assert` at the top)
  Block body;
  std::optional<InstrInfo> instr;
  SrcInfo srcinfo;

  ProcNode(std::string n, std::vector<FnArg> a, std::vector<Expr> p, Block b,
           std::optional<InstrInfo> i, SrcInfo s)
      : name(std::move(n)),
        args(std::move(a)),
        preds(std::move(p)),
        body(std::move(b)),
        instr(std::move(i)),
        srcinfo(std::move(s)) {}
  bool is_instr() const { return instr.has_value(); }
};

Proc make_proc(std::string name, std::vector<FnArg> args,
               std::vector<Expr> preds, Block body,
               std::optional<InstrInfo> instr, SrcInfo s);

}  // namespace exo2
