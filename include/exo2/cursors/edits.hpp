// The edits: the only way primitives change a procedure.
//
// Each edit takes a procedure and locations in it, and returns the new
// procedure (sharing every subtree off the edited path) with the
// `Forwarding` that maps each location of the old procedure to its
// counterpart in the new one, or throws InvalidCursorError with the reason
// it has none (docs/cursors.md, "Forwarding across rewrites"). A primitive made
// of several edits composes their forwardings with `Forwarding::then`, passing
// each edit the previous edit's result and forwarded locations.
//
// Edits check only that their locations exist and have the right kind
// (std::invalid_argument otherwise); proving that the result means the same
// as the input is the primitive's job.
#pragma once

#include <functional>

#include "exo2/core_ir/proc.hpp"
#include "exo2/cursors/forwarding.hpp"

namespace exo2::cursors {

struct EditResult {
  Proc proc;
  Forwarding forwarding;
};

// Inserts `stmts` (non-empty) at a gap.
// Forwarding: everything stays valid; statements after the gap shift; a
// block strictly containing the gap grows to include the new statements,
// one that starts or ends at the gap does not.
EditResult insert(const Proc& proc, const Location& gap, Block stmts);

// Replaces a block (or one statement, given as a node) with `stmts`; an
// empty `stmts` deletes it, and a statement list left empty gets a `pass`
// (with the owner's source location).
// Forwarding: nodes inside the block die (`node no longer exists`); blocks
// strictly inside it or overlapping one end die (`block no longer
// exists`); a block equal to it names the replacement (and dies when that
// is empty); enclosing blocks change length; blocks whose owner died die
// (`block no longer exists (parent deleted)`).
EditResult replace(const Proc& proc, const Location& block, Block stmts);
EditResult remove(const Proc& proc, const Location& block);

// Moves a block (or one statement) to a gap outside it. A gap at either
// edge of the block, or between its statements, leaves the procedure as it
// is. A statement list left empty gets a `pass`.
// Forwarding: cursors inside the block follow it; a block with exactly one
// end inside the moved block dies (`move cannot forward block because
// exactly one endpoint intersects with moved block`); other blocks keep
// their first and last statements (so a block strictly containing the gap
// grows, one containing the moved block shrinks).
EditResult move(const Proc& proc, const Location& block, const Location& gap);

// Replaces a block with the single statement `make_wrapper(stmts)` (a loop,
// if or with), whose list `wrapper_slot` must be exactly those statements.
// Forwarding: cursors inside move into the wrapper; a block inside the
// wrapped one moves with it; a block covering it shrinks to contain the
// wrapper; a partial overlap dies (`block no longer exists`).
EditResult wrap(const Proc& proc, const Location& block,
                const std::function<Stmt(Block)>& make_wrapper,
                Slot wrapper_slot = Slot::Body);

// Replaces the expression at a node location (of a statement, or of a
// parameter's shape) with `expr`.
// Forwarding: the location names the new expression; cursors to
// sub-expressions of the old one die (`node no longer exists`).
EditResult replace_expr(const Proc& proc, const Location& node, Expr expr);

// Replaces the statement at a node location with `stmt`: the same tree
// with some leaves of its expressions (reads without indices) replaced by
// other expressions, built in one pass (replace_reads.hpp).
// Forwarding: every location stays, since every node but the replaced
// leaves keeps its path and a leaf has nothing below it; a cursor to a
// replaced leaf names its replacement.
EditResult replace_leaves(const Proc& proc, const Location& node, Stmt stmt);

// Replaces the statement at a node location with `stmt`, a statement of the
// same kind with statement lists of the same lengths (e.g. a loop with new
// bounds, mode or iterator, an allocation with a new memory).
// Forwarding: the statement and everything in its lists stay; a cursor to
// one of its direct expression slots stays if `stmt` has that slot (naming
// the new expression), and cursors below those slots die.
EditResult replace_stmt_attributes(const Proc& proc, const Location& node,
                                   Stmt stmt);

}  // namespace exo2::cursors
