// Must-write analysis for stage_mem (docs/primitives-buffers.md): whether a
// block, on every path through it, writes each element of a window before
// it reads that element, and has written the whole window when it ends.
// Then copying the window into the staging buffer before the block is dead
// code, and the store after it writes back only values the block wrote.
//
// What is known to be written is a disjunction of cubes over the element
// `e` (one symbol per buffer dimension): `x[i, j] = v` adds the cube
// `e0 == i and e1 == j`. Through the block's structure:
// - an if adds `c and A` and `c == False and B` for the cubes A and B its
//   branches add (the cubes both add, A and B, when `c` reads a config
//   field, whose value the code may change);
// - a loop over `i` in [lo, hi) turns each cube that its body adds on every
//   iteration into one without `i`, by solving an equality `e_d == i + c`
//   for `i` and adding `lo <= e_d - c < hi` (a cube without `i` gets
//   `lo < hi`; a cube without such an equality is dropped), so a loop that
//   may run no iteration adds nothing; inside the body, the cubes of the
//   earlier iterations (`i'` in [lo, i)) count as written too;
// - a read of `x[idx]` (or of every element of a window `x[lo:hi]`, or of a
//   scalar passed to a callee that reads it) must lie in some cube: one Z3
//   query in the context of the enclosing loops and ifs;
// - at the end, every element of the window must lie in some cube.
// Indices, bounds and conditions that read a config field add no cube and
// no fact (the block may write the field), and the reads among them count as
// reads of unknown elements; so do accesses through windows made inside the
// block. Writes by callees add nothing. Everything left out only makes the
// answer "no", which keeps the load.
#pragma once

#include <vector>

#include "exo2/analysis/queries.hpp"
#include "exo2/cursors/location.hpp"

namespace exo2::primitives {

// One access of the staged buffer inside the window, found in the block.
struct StagedAccess {
  // An assignment or reduction statement, or the expression of the access.
  cursors::Path path;
  // An assignment `x[idx] = v`: it writes exactly `access->idx`.
  bool assigns = false;
  // The elements touched in the buffer's coordinates, with the block's loops
  // around (the intervals of a window expression are extra trailing loops);
  // null when unknown (an access through a window made in the block).
  const Access* access = nullptr;
  // Whether it reads (a read, a reduction, a window or scalar passed to a
  // callee that reads it, a window statement).
  bool reads = false;
};

// Whether `block` (whose first statement is at `first`, in the procedure of
// `ctx`, a context just before the block) writes every element of `window`
// before reading it. `accesses`: every access of the buffer inside the
// window.
bool overwrites_window_before_reading(
    QueryContext& ctx, const Block& block, const cursors::Path& first,
    const std::vector<WindowAccess>& window,
    const std::vector<StagedAccess>& accesses);

}  // namespace exo2::primitives
