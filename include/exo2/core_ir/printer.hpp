// Prints procedures, statements and expressions in Exo's textual format
// (docs/reference/printing.md). The output is already in the "mechanical"
// form of that page (four-space indentation, `x: f32[n] @ DRAM`); lines longer
// than 79 columns still need the yapf pass done by the Python layer.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "exo2/core_ir/proc.hpp"

namespace exo2 {

// A location to mark when printing a procedure (how cursors print). The
// marked statements are found by position, not identity, because unchanged
// subtrees are shared and one node may occur twice.
struct PrintMarker {
  enum class Kind { None, ProcRoot, Node, GapBefore, GapAfter, Block };
  Kind kind = Kind::None;
  // The block holding the marked statements: (statement index, child block)
  // steps from the procedure body; child block 0 is a loop/if/with body, 1
  // an if's else branch.
  std::vector<std::pair<int, int>> block_path;
  // Node: statement `lo`. Gaps: anchored at statement `lo`. Block:
  // statements [lo, hi).
  int lo = 0;
  int hi = 0;
};

std::string print_proc(const Proc& p);
std::string print_proc(const Proc& p, const PrintMarker& marker);
// One expression, with names as written (no suffixes).
std::string print_expr(const Expr& e);
std::string print_stmt(const Stmt& s);
// A type as printed in a signature (`f32[n, 4]`), names as written.
std::string print_type(const Type& t);
// A Python `repr` of a float (`2.0`, `1e-05`).
std::string python_float_repr(double v);

}  // namespace exo2
