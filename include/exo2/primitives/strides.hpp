// Strides that code can observe, and keeping their values across a rewrite.
//
// `stride(x, d)` is the only way the object language sees a buffer's
// layout: in expressions and conditions, in preconditions (`assert
// stride(x, 0) == 1`), and through windows of x, whose interval dimensions
// keep x's strides, passed to callees that read their parameters' strides
// in turn. A primitive that changes the layout of a buffer (the buffer
// dimension primitives) or replaces a window of it by a window of another
// buffer (stage_mem) must keep the value of every stride the code observes;
// otherwise conditions and preconditions on strides change meaning.
// Allocations and non-window tensor arguments are dense and row-major:
// stride d is the product of the extents after d.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "exo2/analysis/queries.hpp"
#include "exo2/core_ir/symbol_table.hpp"
#include "exo2/cursors/location.hpp"

namespace exo2::primitives {

// The dimensions of `name` (a buffer, window or parameter in scope of
// `block`) whose stride `block` observes: `stride(name, d)` anywhere in it,
// and through windows of `name` (window statements, call arguments) and the
// parameters they are passed to.
std::set<int> observed_strides(const Block& block, const Sym& name);
// The dimensions of the data parameter `param` of `callee` whose stride its
// preconditions or body observe.
std::set<int> observed_strides(const Proc& callee, const Sym& param);
// The dimensions of the window expression at argument `arg` of `call`
// (dimension k: its k-th interval) whose stride the callee observes.
std::set<int> observed_strides(const Call& call, size_t arg);
// The dimensions of the window expression at `path` in `proc` (a call
// argument, or the right-hand side of a window statement) whose stride the
// callee, or the code after the window statement, observes.
std::set<int> observed_window_strides(const Proc& proc,
                                      const cursors::Path& path);

// The dense stride of dimension `d` of `shape`: the product of the extents
// after it (the literal 1 for the last dimension).
Expr dense_stride(const std::vector<Expr>& shape, size_t d,
                  const SrcInfo& srcinfo);

// Whether the products `a` and `b` of extents are provably equal in `ctx`
// (the same factors, or equal to Z3 when linear).
bool same_stride(QueryContext& ctx, const Expr& a, const Expr& b);

// Binds, in `ctx`, the strides the code in scope knows: dense tensors
// (allocations and non-window arguments) are row-major, and a window
// statement keeps the strides of its buffer's interval dimensions.
void bind_known_strides(QueryContext& ctx,
                        const std::vector<SymbolInfo>& scope);

// The position of the k-th interval of `idx`, or -1.
int interval_position(const std::vector<WindowAccess>& idx, int k);

}  // namespace exo2::primitives
