// Prints procedures, statements and expressions in Exo's textual format
// (spec/printing.md). The output is already in the "mechanical" form of
// printing.md §5 (four-space indentation, `x: f32[n] @ DRAM`); lines longer
// than 79 columns still need the yapf pass done by the Python layer.
#pragma once

#include <string>

#include "exo2/core_ir/proc.hpp"

namespace exo2 {

// A marker to print inside a procedure: a node, a gap or a block, given by
// the statements it touches. Used to print cursors.
struct PrintMarker {
  enum class Kind { None, Node, GapBefore, GapAfter, Block } kind = Kind::None;
  // Node / gap anchor: the statement (by identity). Block: first and last.
  const StmtNode* first = nullptr;
  const StmtNode* last = nullptr;
  // Marks the `def` line itself.
  bool proc_root = false;
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
