// Rewriting every access to one allocated buffer, for the buffer dimension
// primitives (resize_dim, expand_dim, rearrange_dim, divide_dim, mult_dim,
// unroll_buffer): they change a buffer's shape and must change every place
// the rest of the allocation's block names it the same way.
//
// The accesses of `x` are, in the statements after its allocation (nested
// ones included, in pre-order):
//  - points: reads `x[idx]` (`x` for a scalar), and the left-hand sides of
//    assignments and reductions;
//  - windows: `x[lo:hi, i, ...]` in window statements and call arguments;
//  - strides: `stride(x, d)`;
//  - whole-buffer call arguments: `f(x)` with no indices.
// Each kind has a callback that returns the replacement or refuses (throws
// SchedulingError). Every stride the code observes must keep its value
// (strides.hpp): `stride(x, d)` and its new dimension, and each dimension
// of a window whose stride a window statement's later code or a callee
// reads; otherwise `Cannot <action> x because the value of stride(x, d) at
// <loc> would change` (or `..., which the window at <loc> passes on, would
// change`). Every access is replaced by its own edit (a read or
// window by `replace_expr`, an assignment by `replace_stmt_attributes`), so
// cursors to the surrounding statements and expressions survive, and a
// cursor to a rewritten read names its replacement. Window and stride
// expressions keep their types: the primitives preserve window extents.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// Where an access is written.
struct AccessSite {
  SrcInfo srcinfo;
  // A call argument (the buffer or a window of it is passed to a callee).
  bool call_argument = false;
};

// The buffer and indices of a point access after the rewrite.
struct PointAccess {
  Sym name;
  std::vector<Expr> idx;
};
struct WindowedAccess {
  Sym name;
  std::vector<WindowAccess> idx;
};

struct BufferAccessRewrite {
  std::function<PointAccess(const std::vector<Expr>& idx, const AccessSite&)>
      point;
  std::function<WindowedAccess(const std::vector<WindowAccess>& idx,
                               const AccessSite&)>
      window;
  // The new dimension of `stride(x, dim)`; must refuse when it has none.
  std::function<int(int dim, const AccessSite&)> stride;
  // `x` passed whole to a call: must refuse (no primitive can keep the
  // callee's view of a reshaped buffer).
  std::function<void(const AccessSite&)> whole_buffer;
  // The buffer's shape after the rewrite (dense, row-major), and the
  // primitive's verb for refusals (`permute`, `resize`, ...).
  std::vector<Expr> new_shape;
  std::string action;
};

// Rewrites the accesses of the buffer allocated at `alloc` (a node
// location of an Alloc) in the rest of its block. The allocation itself is
// left as it is.
cursors::EditResult rewrite_buffer_accesses(const Proc& proc,
                                            const cursors::Location& alloc,
                                            const BufferAccessRewrite& rewrite);

// The statements after the allocation at `alloc`, in its block.
Block rest_of_block(const Proc& proc, const cursors::Location& alloc);

// A new expression `e` (an index or an offset, named `what` in the message)
// that every access of the buffer allocated at `alloc` will evaluate must
// mean the same at all of them: the rest of the block writes no config
// field it reads (ReadsUnchanged). Refuses otherwise.
void require_same_at_every_access(const Proc& proc,
                                  const cursors::Location& alloc, const Expr& e,
                                  const char* what);

// InBounds(x) over the rest of the block of the allocation at `alloc` in
// `proc` (the rewritten procedure): every access of `x` and every window of
// it lies inside `shape`. Refuses with `The buffer x is accessed
// out-of-bounds`.
void require_in_bounds(const Proc& proc, const cursors::Location& alloc,
                       const std::vector<Expr>& shape);

// A new control expression (a dimension's size, an offset or an index)
// typed in the scope just before the allocation at `alloc`; CheckError
// (Python: TypeError) when it does not typecheck or is not an integer
// expression.
Expr control_expr_before(const Proc& proc, const cursors::Location& alloc,
                         const Expr& untyped);

// The allocation at `alloc` with a new type: `x : T[shape] @ mem`, or the
// scalar `x : T @ mem` when `shape` is empty.
Stmt with_shape(const Stmt& alloc, const std::vector<Expr>& shape);

}  // namespace exo2::primitives
