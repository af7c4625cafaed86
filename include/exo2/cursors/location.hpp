// Internal cursors: locations in a procedure, written as paths.
//
// A path is a short sequence of steps from the procedure down to a node.
// Statement steps name a position in a statement list (`Body`, `Orelse`);
// expression steps name a slot of the node above (`Rhs`, `Idx k`, ...).
// Examples, for `for i in seq(0, n): x[i] = y[i] + 1.0` as statement 2:
//   the loop                  [(Body,2)]
//   its upper bound `n`       [(Body,2), (Hi,0)]
//   the assignment            [(Body,2), (Body,0)]
//   `y[i]`                    [(Body,2), (Body,0), (Rhs,0), (Lhs,0)]
//   parameter 1's dim 0       [(Param,1), (Shape,0)]
// Resolving a path costs O(depth). A `Location` is a path plus what it
// denotes: one node, a block of statements, or a gap beside a statement.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace exo2::cursors {

// The child a step enters; `Step::index` says which one where there are
// several.
enum class Slot : uint8_t {
  Body,      // statement `index` of the proc body or a loop/if/with body
  Orelse,    // statement `index` of an if's else branch
  Param,     // parameter `index` of the procedure (first step only)
  Cond,      // an if's condition
  Lo,        // a loop's lower bound
  Hi,        // a loop's upper bound
  Rhs,       // right-hand side (assign, reduce, config write, window
             // statement, binary operator)
  Lhs,       // left operand of a binary operator
  Operand,   // operand of unary minus
  Idx,       // index `index` of an access, or point `index` of a window
  Arg,       // argument `index` of a call or extern call
  Barrier,   // barrier `index` of a sync statement or a call's trailing
             // barriers
  WindowLo,  // lower bound of interval `index` of a window expression
  WindowHi,  // upper bound of interval `index` of a window expression
  Shape,     // dimension `index` of a parameter's or allocation's type
};

const char* slot_name(Slot slot);
inline bool is_statement_slot(Slot slot) {
  return slot == Slot::Body || slot == Slot::Orelse;
}

struct Step {
  Slot slot = Slot::Body;
  int index = 0;
  friend auto operator<=>(const Step&, const Step&) = default;
};

using Path = std::vector<Step>;

// Whether `prefix` is a prefix of `path` (equal paths included).
bool starts_with(const Path& path, const Path& prefix);

enum class LocationKind : uint8_t { Node, Block, Gap };
enum class GapSide : uint8_t { Before, After };

// What a cursor points at, independent of any particular procedure.
//  - Node: the node at `path` (the empty path is the procedure itself).
//  - Block: statements [path.back().index, hi) of one statement list;
//    `path` leads to the first of them. Never empty.
//  - Gap: the space before or after the statement at `path` (its anchor).
struct Location {
  LocationKind kind = LocationKind::Node;
  Path path;
  int hi = 0;
  GapSide side = GapSide::Before;

  static Location node(Path p) { return {LocationKind::Node, std::move(p)}; }
  static Location block(Path first, int hi) {
    return {LocationKind::Block, std::move(first), hi};
  }
  static Location gap(Path anchor, GapSide side) {
    return {LocationKind::Gap, std::move(anchor), 0, side};
  }

  // Block: index of the first statement.
  int lo() const { return path.back().index; }
  // Gap: index, in its statement list, of the statement just after it.
  int gap_index() const {
    return path.back().index + (side == GapSide::After ? 1 : 0);
  }
  // Block and gap: the path to the statement list that holds them (the
  // owner statement's path plus the list's step, whose index is unused).
  friend bool operator==(const Location&, const Location&) = default;
};

// `Node [(Body,2), (Hi,0)]`, `Block [(Body,0)]..3`, `Gap After [(Body,1)]`:
// for tests and debugging.
std::string to_string(const Path& path);
std::string to_string(const Location& loc);

}  // namespace exo2::cursors
