"""exo2.stdlib.stdlib: high-level scheduling operations (docs/stdlib.md).

Every function here is a composition of primitives, written against the
public API only: it is exactly as safe as the primitives it calls, and a
failure inside names the function (`user_op`) and the primitive underneath.
Functions take the procedure first and return the new one; cursor arguments
may come from an ancestor procedure. With `rc=True` a function returns
`(proc, cursors)`, where `cursors` is a small dataclass that unpacks.

Ported from Exo's exo.stdlib.stdlib (MIT); the differences are noted where
they occur.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

# Exo's exo.stdlib.stdlib has no __all__: `import *` of it also gives what it
# imports (the primitives, cursor classes, inspection functions, combinators,
# rc wrappers, DRAM, ...), which Exo programs rely on
# (docs/migrating-from-exo.md); __all__ below lists those names too.
from exo2 import *  # noqa: E402, F401, F403
from exo2.API_cursors import (
    AllocCursor,
    AssignConfigCursor,
    AssignCursor,
    BlockCursor,
    CallCursor,
    ExprCursor,
    ForCursor,
    IfCursor,
    InvalidCursor,
    InvalidCursorError,
    LiteralCursor,
    PassCursor,
    ReadCursor,
    ReduceCursor,
    StmtCursor,
    WindowExprCursor,
    WindowStmtCursor,
)
from exo2.core.memory import Memory
from exo2.frontend.syntax import *  # noqa: E402, F401, F403
from exo2.libs.memories import DRAM
from exo2.rewrite.LoopIR_unification import UnificationError
from exo2.stdlib.higher_order import *  # noqa: E402, F401, F403
from exo2.stdlib.higher_order import (
    apply,
    attempt,
    lift_rc,
    make_pass,
    predicate,
    repeate,
)
from exo2.stdlib.inspection import *  # noqa: E402, F401, F403
from exo2.stdlib.inspection import (
    CursorNavigationError,
    are_exprs_equal,
    expr_to_string,
    get_bounding_block,
    get_children,
    get_declaration,
    get_distance,
    get_enclosing_loop,
    get_enclosing_loop_by_name,
    get_enclosing_stmt,
    get_parents,
    get_symbols,
    get_unique_names,
    is_access,
    is_add,
    is_assign,
    is_binop,
    is_copy,
    is_end_of_body,
    is_literal,
    is_loop,
    is_loop_bounds_const,
    is_mul,
    is_read,
    is_reduce,
    is_select,
    is_stmt,
    is_sub,
    is_unary_minus,
    lrn,
    lrn_stmts,
    nlr,
    nlr_stmts,
)
from exo2.stdlib.rc_wrappers import *  # noqa: E402, F401, F403
from exo2.stdlib.rc_wrappers import (
    cut_loop_,
    divide_loop_,
    fission_,
    specialize_,
    stage_mem_,
    stage_mem_cursors,
)
from exo2.stdlib.scheduling import *  # noqa: E402, F401, F403
from exo2.stdlib.scheduling import (
    FormattedExprStr,
    SchedulingError,
    add_loop,
    bind_expr,
    cut_loop,
    delete_buffer,
    delete_pass,
    divide_dim,
    divide_loop,
    eliminate_dead_code,
    expand_dim,
    fission,
    fold_into_reduce,
    fuse,
    inline_assign,
    lift_alloc,
    lift_scope,
    merge_writes,
    mult_loops,
    rearrange_dim,
    remove_loop,
    reorder_loops,
    reorder_stmts,
    replace,
    rewrite_expr,
    set_memory,
    set_precision,
    shift_loop,
    simplify,
    stage_mem,
    unroll_buffer,
    unroll_loop,
    user_op,
)
from exo2.stdlib.vector_forms import (
    describe_vector_stmt,
    stmt_text,
    unmatched_vector_stmts,
)

_OWN_NAMES = [
    "replace_cursors",
    "bind_and_set_expr",
    "bind_and_set_expr_cursors",
    "parallelize_and_lift_alloc",
    "parallelize_allocs",
    "interleave_loop",
    "hoist_stmt",
    "hoist_stmt_cursors",
    "hoist_from_loop",
    "hoist_from_loop_cursors",
    "jam_stmt",
    "jam_stmt_cursors",
    "parallelize_reduction",
    "parallelize_all_reductions",
    "unroll_and_jam",
    "unroll_and_jam_parent",
    "interleave_outer_loop_with_inner_loop",
    "fission_into_singles",
    "vectorize",
    "vectorize_predicate_tail",
    "vectorize_cursors",
    "accumulate_in_registers",
    "accumulate_in_registers_cursors",
    "tile_loops",
    "tile_loops_bottom_up",
    "auto_stage_mem",
    "ordered_stage_expr",
    "pack_mem",
    "dce",
    "unroll_buffers",
    "unfold_reduce",
    "fma_rule",
    "abs_rule",
    "stage_expr_into_memory",
    "stage_compute",
    "check_call_site",
    "checked_replace",
    "replace_all_stmts",
    "bound_loop_by_if",
    "undo_divide_and_guard_loop",
    "unroll_loops",
    "cleanup",
    "reorder_stmt_forward",
    "reorder_stmt_backwards",
    "divide_loop_recursive",
    "divide_loop_recursive_cursors",
    "binary_specialize",
    "binary_specialize_cursors",
    "cse",
    "inline_copies",
    "dealias",
    "dealiasing_pass",
    "round_loop",
    "cut_loop_and_unroll",
    "cut_loop_and_unroll_cursors",
]

# The default scope: "the whole procedure".
_WHOLE_PROC = InvalidCursor()


def _stmts_of(body):
    """The statements of a body (an `InvalidCursor` has none)."""
    return [] if isinstance(body, InvalidCursor) else list(body)


# --------------------------------------------------------------------------- #
# Binding expressions and giving allocations per-iteration copies


@dataclass
class bind_and_set_expr_cursors:
    alloc: AllocCursor
    bound_expr: ExprCursor
    expr_reads: ExprCursor

    def __iter__(self):
        yield self.alloc
        yield self.bound_expr
        yield self.expr_reads


@user_op
def bind_and_set_expr(proc, exprs, precision, memory, new_name=None, rc=False):
    """`bind_expr` of `exprs` (one expression or a list of equal ones) into
    a new buffer (named `new_name`, else a fresh `varK`), then sets its
    precision and memory. rc: `(alloc, bound_expr, expr_reads)`, the
    latter being the `exprs` given."""
    if new_name is None:
        new_name = next(get_unique_names(proc))
    expr = exprs if isinstance(exprs, ExprCursor) else exprs[0]
    stmt = get_enclosing_stmt(proc, proc.forward(expr))
    proc = bind_expr(proc, exprs, new_name)
    proc = set_precision(proc, new_name, precision)
    proc = set_memory(proc, new_name, memory)
    if not rc:
        return proc
    alloc = get_declaration(proc, proc.forward(stmt), new_name)
    bound_expr = alloc.next().rhs()
    return proc, bind_and_set_expr_cursors(alloc, bound_expr, exprs)


@user_op
def parallelize_and_lift_alloc(proc, alloc_cursor, n_lifts=1):
    """Lifts an allocation out of `n_lifts` scopes; out of a loop
    `for i in seq(lo, hi)` it first gains a leading dimension `hi` indexed
    by `i`, so that every iteration keeps its own copy."""
    for _ in range(n_lifts):
        alloc_cursor = proc.forward(alloc_cursor)
        scope = alloc_cursor.parent()
        if isinstance(scope, ForCursor):
            proc = expand_dim(
                proc, alloc_cursor, expr_to_string(scope.hi()), scope.name()
            )
        proc = lift_alloc(proc, alloc_cursor)
    return proc


@user_op
def parallelize_allocs(proc, cursor):
    """`parallelize_and_lift_alloc` of every allocation inside the loop or
    if `cursor`, lifted out of `cursor` (just above it)."""
    cursor = proc.forward(cursor)
    if not isinstance(cursor, (ForCursor, IfCursor)):
        raise SchedulingError(
            f"Got type {type(cursor)}, expected {ForCursor} or {IfCursor}"
        )
    allocs = [s for s in nlr_stmts(proc, cursor) if isinstance(s, AllocCursor)]

    def lift(proc, alloc):
        return parallelize_and_lift_alloc(
            proc, alloc, get_distance(proc, alloc, cursor)
        )

    return apply(lift)(proc, allocs)


# --------------------------------------------------------------------------- #
# Interleaving


def _interleave_rewrite(proc, loop, factor, par_reduce, memory, tail):
    if factor is not None:
        proc, (outer, loop, _) = divide_loop_(proc, loop, factor, tail=tail, rc=True)
    else:
        loop = proc.forward(loop)
        outer = loop.parent()
    if par_reduce:
        proc = parallelize_all_reductions(proc, outer, memory=memory, unroll=True)
        loop = proc.forward(outer).body()[0]
    loop = proc.forward(loop)
    allocs = [s for s in loop.body() if isinstance(s, AllocCursor)]
    proc = apply(parallelize_and_lift_alloc)(proc, allocs)
    stmts = list(proc.forward(loop).body())
    proc = apply(fission)(proc, [s.after() for s in stmts[:-1]])
    return apply(unroll_loop)(proc, [proc.forward(s).parent() for s in stmts])


@user_op
def interleave_loop(proc, loop, factor=None, par_reduce=False, memory=DRAM, tail="cut"):
    """Divides `loop` by `factor` (or takes it as the inner loop when
    `factor` is None), gives allocations per-iteration copies, fissions the
    body into single statements and unrolls each: every statement appears
    `factor` times in a row. `tail` ∈ `cut`, `cut_and_guard`, `recursive`
    (the tail divided again by halves), `specialize` (the tail specialized
    on each possible trip count). With `par_reduce`, reductions over the
    loop first get `factor` partial sums in `memory`."""
    if factor == 1:
        return proc
    loop = proc.forward(loop)
    if tail in {"cut", "cut_and_guard"}:
        return _interleave_rewrite(proc, loop, factor, par_reduce, memory, tail)
    if tail not in {"recursive", "specialize"}:
        raise SchedulingError(f"Unknown tail strategy: {tail}")
    if factor is None:
        raise SchedulingError(f"Cannot specify {tail} tail strategy and factor=None")

    def rewrite(proc, inner):
        return _interleave_rewrite(proc, inner, None, par_reduce, memory, "cut")

    if tail == "recursive":
        proc, (_, inners, _) = divide_loop_recursive(
            proc, loop, factor, tail="cut", rc=True
        )
        return apply(rewrite)(proc, inners)
    proc = _interleave_rewrite(proc, loop, factor, par_reduce, memory, "cut")
    tail_loop = proc.forward(loop).next()
    proc, leaves = _binary_specialize(proc, tail_loop, tail_loop.hi(), range(factor))
    # in the leaf for `v` the tail loop runs `v` times: say so, then unroll
    for value, leaf in leaves:
        if value is not None and isinstance(leaf, ForCursor):
            leaf = proc.forward(leaf)
            proc = rewrite_expr(proc, leaf.hi(), str(value))
            proc = rewrite(proc, leaf) if value else eliminate_dead_code(proc, leaf)
    return proc


# --------------------------------------------------------------------------- #
# Moving statements across loops


@dataclass
class hoist_stmt_cursors:
    allocs: list
    stmt: StmtCursor
    loop: ForCursor

    def __iter__(self):
        yield self.allocs
        yield self.stmt
        yield self.loop


@user_op
def hoist_stmt(proc, stmt, rc=False):
    """Moves a statement that does not depend on its enclosing loop out of
    it (in front): reorders it to the top of the body (lifting the
    allocations it uses), fissions it off and removes the loop around it.
    rc: `(allocs, stmt, loop)` (the lifted allocations, the statement, the
    loop with the rest)."""
    stmt = proc.forward(stmt)
    if not isinstance(stmt, StmtCursor):
        raise SchedulingError("Cannot hoist cursor that are not statements")
    loop = stmt.parent()
    if not isinstance(loop, ForCursor):
        raise SchedulingError("Statement is not within a loop")
    deps = set(get_symbols(proc, stmt))
    if loop.name() in deps:
        raise SchedulingError(
            "Cannot hoist cursor to a statement that depends on enclosing loop"
        )

    if isinstance(stmt, AllocCursor):
        proc = lift_alloc(proc, stmt)
        if not rc:
            return proc
        stmt = proc.forward(stmt)
        return proc, hoist_stmt_cursors([stmt], stmt, proc.forward(loop))

    allocs = []
    while not isinstance(stmt.prev(), InvalidCursor):
        prev_stmt = stmt.prev()
        if isinstance(prev_stmt, AllocCursor) and prev_stmt.name() in deps:
            proc = lift_alloc(proc, prev_stmt)
            allocs.append(prev_stmt)
        else:
            proc = reorder_stmts(proc, stmt.expand(1, 0))
        stmt = proc.forward(stmt)

    loop = proc.forward(loop)
    if len(loop.body()) > 1:
        proc, (_, loop) = fission_(proc, stmt.after(), rc=True)
        stmt = proc.forward(stmt)
    else:
        loop = InvalidCursor()
    proc = remove_loop(proc, stmt.parent())
    if not rc:
        return proc
    allocs = [proc.forward(a) for a in allocs]
    stmt = proc.forward(stmt)
    if not isinstance(loop, InvalidCursor):
        loop = proc.forward(loop)
    return proc, hoist_stmt_cursors(allocs, stmt, loop)


@dataclass
class hoist_from_loop_cursors:
    hoisted: list
    loop: ForCursor

    def __iter__(self):
        yield self.hoisted
        yield self.loop


@user_op
def hoist_from_loop(proc, loop, rc=False):
    """`hoist_stmt` of every statement of `loop` that can be hoisted
    (allocations stay unless a hoisted statement needs them). rc:
    `(hoisted, loop)`, `hoisted` a list of `(stmt, allocs)`."""
    loop = proc.forward(loop)
    if not is_loop(proc, loop):
        raise SchedulingError(f"loop must of type {ForCursor} not {type(loop)}")
    results = []

    def hoist_non_alloc(proc, stmt):
        stmt = proc.forward(stmt)
        if isinstance(stmt, AllocCursor):
            return proc
        proc, cursors = hoist_stmt(proc, stmt, rc=True)
        results.append(cursors)
        return proc

    proc = apply(attempt(hoist_non_alloc))(proc, list(loop.body()))
    if not rc:
        return proc
    # the loop left behind: the last hoist's (the original loop if none)
    loop = results[-1].loop if results else loop
    if not isinstance(loop, InvalidCursor):
        loop = proc.forward(loop)
    hoisted = [
        (proc.forward(c.stmt), tuple(proc.forward(a) for a in c.allocs))
        for c in results
    ]
    return proc, hoist_from_loop_cursors(hoisted, loop)


@dataclass
class jam_stmt_cursors:
    loop: ForCursor
    stmt: StmtCursor

    def __iter__(self):
        yield self.loop
        yield self.stmt


@user_op
def reorder_stmt_forward(proc, stmt):
    """Swaps `stmt` with the statement after it."""
    stmt = proc.forward(stmt)
    return reorder_stmts(proc, stmt.as_block().expand(0, 1))


@user_op
def reorder_stmt_backwards(proc, stmt):
    """Swaps `stmt` with the statement before it. (Exo's version expands the
    block by -1 and always raises ValueError.)"""
    stmt = proc.forward(stmt)
    return reorder_stmts(proc, stmt.as_block().expand(1, 0))


@user_op
def jam_stmt(proc, stmt, unsafe_disable_check=False, rc=False):
    """Pushes `stmt` into the loop that follows it, as the last statement of
    its body: wraps it in a loop of the same range (`add_loop` +
    `shift_loop`; the statement must be idempotent), fuses the two loops
    and moves it down. rc: `(loop, stmt)`."""
    stmt = proc.forward(stmt)
    loop = stmt.next()
    if not isinstance(loop, ForCursor):
        raise SchedulingError("Next statement must be a loop.")
    proc = add_loop(
        proc,
        stmt,
        loop.name(),
        FormattedExprStr("_ - _", loop.hi(), loop.lo()),
        unsafe_disable_check=unsafe_disable_check,
    )
    stmt_loop = proc.forward(stmt).parent()
    proc = shift_loop(proc, stmt_loop, FormattedExprStr("_", loop.lo()))
    proc = simplify(proc)
    proc = fuse(proc, stmt_loop, loop, unsafe_disable_check=unsafe_disable_check)
    proc = repeate(reorder_stmt_forward)(proc, stmt)
    if not rc:
        return proc
    return proc, jam_stmt_cursors(proc.forward(stmt_loop), proc.forward(stmt))


# --------------------------------------------------------------------------- #
# Reductions


@user_op
def parallelize_reduction(
    proc, reduce_stmt, factor=None, memory=DRAM, nth_loop=1, unroll=False
):
    """Turns the reduction `reduce_stmt` over its `nth_loop`-th enclosing
    loop into independent partial sums (one per iteration of that loop, or
    `factor` of them after dividing it), held in a buffer in `memory`,
    then combines them. `unroll` (a bool or a pair) unrolls the zeroing and
    the combining loop."""
    if isinstance(unroll, bool):
        unroll = (unroll, unroll)
    reduce_stmt = proc.forward(reduce_stmt)
    if not is_reduce(proc, reduce_stmt):
        raise TypeError(f"reduce_stmt must of type {ReduceCursor}")
    reduce_loop = get_enclosing_loop(proc, reduce_stmt, nth_loop)
    if reduce_loop.name() in set(get_symbols(proc, reduce_stmt.idx())):
        raise SchedulingError("Statement isn't a reduction over the specified loop.")

    if factor is not None:
        proc, (reduce_loop, _, _) = divide_loop_(
            proc, reduce_loop, factor, tail="guard", rc=True
        )
        proc = simplify(proc)

    # stage the reduction around the loop nest under the reduced-over loop
    proc = reorder_loops(proc, reduce_loop)
    proc = auto_stage_mem(proc, reduce_loop, reduce_stmt.name(), accum=True)
    proc = simplify(proc)
    reduce_loop = proc.forward(reduce_loop)
    alloc = reduce_loop.prev().prev()
    proc = set_memory(proc, alloc, memory)
    proc = parallelize_and_lift_alloc(proc, alloc)

    # the zero and store-back stages get loops of their own
    reduce_loop = proc.forward(reduce_loop)
    proc = fission(proc, reduce_loop.before())
    proc = fission(proc, reduce_loop.after())
    reduce_loop = proc.forward(reduce_loop)
    proc = reorder_loops(proc, reduce_loop.parent())

    reduce_loop = proc.forward(reduce_loop)
    if unroll[0]:
        proc = unroll_loop(proc, reduce_loop.prev())
    if unroll[1]:
        proc = unroll_loop(proc, reduce_loop.next())
    if factor is not None:
        proc = undo_divide_and_guard_loop(proc, reduce_loop)
    return proc


@user_op
def parallelize_all_reductions(proc, loop, factor=None, memory=DRAM, unroll=False):
    """`parallelize_reduction` of every reduction under `loop` that reduces
    over it (the others are left alone)."""
    loop = proc.forward(loop)

    def rewrite(proc, s):
        s = proc.forward(s)
        reduce_loop = proc.forward(loop)
        nth_loop = 0
        for parent in get_parents(proc, s):
            if is_loop(proc, parent):
                nth_loop += 1
            if parent == reduce_loop:
                break
        return parallelize_reduction(proc, s, factor, memory, nth_loop, unroll)

    def reductions(proc, block):
        return [s for s in nlr_stmts(proc, block) if isinstance(s, ReduceCursor)]

    return make_pass(attempt(rewrite), reductions)(proc, loop.body())


# --------------------------------------------------------------------------- #
# Unroll and jam, tiling


@user_op
def unroll_and_jam(proc, loop, factor, unroll=(True, True, True)):
    """Unroll-and-jam of `loop` around the one loop in its body."""
    loop = proc.forward(loop)
    inner_loops = [s for s in loop.body() if isinstance(s, ForCursor)]
    if len(inner_loops) > 1:
        raise SchedulingError("Multiple loops found, decision is ambigious")
    if not inner_loops:
        raise SchedulingError("No loops found")
    return interleave_outer_loop_with_inner_loop(
        proc, loop, inner_loops[0], factor, unroll=unroll
    )


@user_op
def unroll_and_jam_parent(proc, loop, factor, unroll=(True, True, True)):
    """Unroll-and-jam of `loop`'s parent loop around `loop`."""
    loop = proc.forward(loop)
    outer_loop = loop.parent()
    if not isinstance(outer_loop, ForCursor):
        raise SchedulingError("parent is not a loop")
    return interleave_outer_loop_with_inner_loop(
        proc, outer_loop, loop, factor, unroll=unroll
    )


@user_op
def interleave_outer_loop_with_inner_loop(
    proc,
    outer_loop_cursor,
    inner_loop_cursor,
    interleave_factor,
    unroll=(True, True, True),
):
    """Divides `outer` by `interleave_factor` (unless its trip count is that
    constant), isolates `inner` from the statements before and after it by
    fission, and moves the new `factor`-iteration loop inside `inner`.
    `unroll` selects which of the prologue, middle and epilogue loops of
    `factor` iterations are unrolled."""
    outer = proc.forward(outer_loop_cursor)
    inner = proc.forward(inner_loop_cursor)
    if inner.parent() != outer:
        raise SchedulingError("the inner loop must be in the body of the outer loop")
    if (
        isinstance(outer.hi(), LiteralCursor)
        and outer.hi().value() == interleave_factor
    ):
        middle = outer
    else:
        name = outer.name()
        proc = divide_loop(
            proc, outer, interleave_factor, (name + "o", name + "i"), tail="cut"
        )
        middle = proc.forward(outer).body()[0]
    middle_stmts = list(middle.body())
    proc = simplify(proc)
    for stmt in middle_stmts:
        if isinstance(stmt, AllocCursor):
            proc = parallelize_and_lift_alloc(proc, stmt)

    inner = proc.forward(inner)
    if not isinstance(inner.prev(), InvalidCursor):
        proc = fission(proc, inner.before())
        inner = proc.forward(inner)
        if unroll[0]:
            proc = unroll_loop(proc, inner.parent().prev())
    inner = proc.forward(inner)
    if not isinstance(inner.next(), InvalidCursor):
        proc = fission(proc, inner.after())
        inner = proc.forward(inner)
        if unroll[2]:
            proc = unroll_loop(proc, inner.parent().next())
    inner = proc.forward(inner)
    proc = reorder_loops(proc, inner.parent())
    if unroll[1]:
        # `inner` follows its loop, now outside the `factor`-iteration one
        proc = unroll_loop(proc, proc.forward(inner).body()[0])
    return proc


@user_op
def fission_into_singles(proc, cursor):
    """Fissions the loop or if `cursor` (and the scopes inside) until every
    innermost scope holds one statement; allocations first get
    per-iteration copies (`parallelize_allocs`)."""
    cursor = proc.forward(cursor)
    if not isinstance(cursor, (ForCursor, IfCursor)):
        raise SchedulingError(
            f"Got type {type(cursor)}, expected {ForCursor} or {IfCursor}"
        )

    def dfs(proc, cursor, n_lifts=0):
        cursor = proc.forward(cursor)
        if n_lifts and not is_end_of_body(proc, cursor):
            proc = fission(proc, cursor.after(), n_lifts)
        children = [c for c in get_children(proc, cursor) if isinstance(c, StmtCursor)]
        return apply(dfs)(proc, children, n_lifts + 1)

    proc = parallelize_allocs(proc, cursor)
    return dfs(proc, cursor)


@user_op
def tile_loops(proc, loop_tile_pairs, perfect=False):
    """Tiles a perfect loop nest given `[(loop, size), ...]`, outermost
    first: divides each loop (perfectly when `perfect` or when its constant
    trip count allows, else with a `cut` tail) and reorders so that all
    tile loops are outside all point loops. Returns `(proc, inner_loops)`,
    the point loops."""
    loop_tile_pairs = [(proc.forward(loop), size) for loop, size in loop_tile_pairs]
    inner_loops = []
    for loop, size in loop_tile_pairs:
        loop = proc.forward(loop)
        names = (loop.name() + "o", loop.name() + "i")
        if perfect or (
            isinstance(loop.hi(), LiteralCursor)
            and isinstance(loop.lo(), LiteralCursor)
            and (loop.hi().value() - loop.lo().value()) % size == 0
        ):
            proc = divide_loop(proc, loop, size, names, perfect=True)
        else:
            proc = divide_loop(proc, loop, size, names, tail="cut")
        inner_loops.append(proc.forward(loop).body()[0])

    for i in range(len(loop_tile_pairs) - 2, -1, -1):
        size = loop_tile_pairs[i][1]
        for j in range(i + 1, len(loop_tile_pairs)):
            proc = interleave_outer_loop_with_inner_loop(
                proc, inner_loops[i], loop_tile_pairs[j][0], size, (False, False, False)
            )
    return proc, [proc.forward(loop) for loop in inner_loops]


def _scope_depth(cursor):
    if not isinstance(cursor, (ForCursor, IfCursor)):
        return 0
    return max(_scope_depth(s) for s in cursor.body()) + 1


def _push_loop_in(proc, loop, depth):
    """Fissions `loop` and moves each piece inwards (`reorder_loops` past a
    loop, `lift_scope` of an if) until it has `depth` scopes inside."""
    loop = proc.forward(loop)
    if _scope_depth(loop) == depth:
        return proc
    count = len(loop.body())
    for stmt in list(loop.body())[:-1]:
        proc = fission(proc, stmt.after())
    loop = proc.forward(loop)
    pieces = []
    for _ in range(count):
        pieces.append(loop)
        loop = loop.next()
    for piece in pieces:
        piece = proc.forward(piece)
        if _scope_depth(piece) == depth:
            continue
        child = piece.body()[0]
        if isinstance(child, ForCursor):
            proc = reorder_loops(proc, piece)
            moved = proc.forward(piece)
        elif isinstance(child, IfCursor):
            proc = lift_scope(proc, child)
            moved = proc.forward(child).body()[0]
        else:
            raise SchedulingError("cannot push a loop into a statement")
        proc = _push_loop_in(proc, moved, depth)
    return proc


@user_op
def tile_loops_bottom_up(proc, loop, tiles):
    """Tiles the perfect nest starting at `loop` with `tiles`, the tile
    sizes from the outermost loop to the innermost (`None`: untiled),
    dividing with `cut_and_guard` tails, innermost loop first."""
    loop = proc.forward(loop)
    cur_loop = loop
    for _ in tiles[:-1]:
        if len(cur_loop.body()) != 1:
            raise SchedulingError("All loop must have a body length of 1")
        if not isinstance(cur_loop.body()[0], ForCursor):
            raise SchedulingError("Did not find a nested loop")
        cur_loop = cur_loop.body()[0]

    loops = []
    cur_loop = loop
    for tile in tiles:
        loops.append((cur_loop, tile))
        cur_loop = cur_loop.body()[0]

    for depth, (cur_loop, tile) in enumerate(loops[::-1]):
        if tile is not None:
            proc, (_, inner, tail) = divide_loop_(
                proc, cur_loop, tile, tail="cut_and_guard", rc=True
            )
            proc = _push_loop_in(proc, inner, depth + 1)
            proc = _push_loop_in(proc, proc.forward(tail).body()[0], depth + 1)
        else:
            proc = _push_loop_in(proc, cur_loop, depth + 1)
    return proc


# --------------------------------------------------------------------------- #
# Staging


class _Bound:
    """An index bound `text + const` (`text` empty for a constant), kept
    apart so that windows print as `n`, not `n - 1 + 1`."""

    def __init__(self, text="", const=0):
        self.text, self.const = text, const

    def __eq__(self, other):
        return (self.text, self.const) == (other.text, other.const)

    def __hash__(self):
        return hash((self.text, self.const))

    def plus(self, k):
        return _Bound(self.text, self.const + k)

    def __add__(self, other):
        text = " + ".join(t for t in (self.text, other.text) if t)
        return _Bound(text, self.const + other.const)

    def neg(self):
        return _Bound(f"-{_atom(self.text)}" if self.text else "", -self.const)

    def scale(self, k):
        if not self.text or k == 1:
            return _Bound(self.text, self.const * k)
        return _Bound(f"{k} * {_atom(self.text)}", self.const * k)

    def __str__(self):
        if not self.text:
            return str(self.const)
        if self.const == 0:
            return self.text
        sign = "+" if self.const > 0 else "-"
        return f"{self.text} {sign} {abs(self.const)}"


def _atom(text):
    return f"({text})" if " " in text else text


def _index_range(proc, expr, env):
    """`(lo, hi)`, the smallest and largest value (`_Bound`s) of the control
    expression `expr` when each iterator `x` in `env` takes the values
    `env[x][0]` to `env[x][1]`."""
    if is_add(proc, expr) or is_sub(proc, expr):
        lhs = _index_range(proc, expr.lhs(), env)
        rhs = _index_range(proc, expr.rhs(), env)
        if is_add(proc, expr):
            return (lhs[0] + rhs[0], lhs[1] + rhs[1])
        return (lhs[0] + rhs[1].neg(), lhs[1] + rhs[0].neg())
    if is_mul(proc, expr):
        literal, other = (
            (expr.lhs(), expr.rhs())
            if is_literal(proc, expr.lhs())
            else (expr.rhs(), expr.lhs())
        )
        if not is_literal(proc, literal):
            raise SchedulingError(f"cannot bound the index {expr_to_string(expr)}")
        k = literal.value()
        lo, hi = _index_range(proc, other, env)
        return (lo.scale(k), hi.scale(k)) if k >= 0 else (hi.scale(k), lo.scale(k))
    if is_binop(proc, expr) and is_literal(proc, expr.rhs()):
        # `/` and `%` by a positive constant: monotone (`/`) or bounded (`%`)
        lo, hi = _index_range(proc, expr.lhs(), env)
        k = expr.rhs().value()
        if lo == hi:
            point = _Bound(f"{_atom(str(lo))} {expr.op()} {k}")
            return (point, point)
        if expr.op() == "%":
            return (_Bound(), _Bound(const=k - 1))
        return (
            _Bound(f"{_atom(str(lo))} / {k}"),
            _Bound(f"{_atom(str(hi))} / {k}"),
        )
    if is_unary_minus(proc, expr):
        lo, hi = _index_range(proc, expr.arg(), env)
        return (hi.neg(), lo.neg())
    if is_read(proc, expr):
        name = expr.name()
        return env.get(name, (_Bound(name), _Bound(name)))
    if is_literal(proc, expr):
        return (_Bound(const=expr.value()), _Bound(const=expr.value()))
    raise SchedulingError(f"cannot bound the index {expr_to_string(expr)}")


@user_op
def auto_stage_mem(proc, block, buff, new_buff_name=None, accum=False, rc=False):
    """`stage_mem` of `buff` over `block` with the window inferred from the
    accesses to `buff` inside the block: a dimension every access indexes
    with one value is a point; otherwise each side starts at the whole
    dimension and takes, among the bounds of the accesses, the tightest one
    for which `stage_mem` succeeds. rc: as `stage_mem_`."""
    if new_buff_name is None:
        new_buff_name = next(get_unique_names(proc))
    block = proc.forward(block)
    if not isinstance(block, BlockCursor):
        block = block.as_block()

    declaration = get_declaration(proc, block[0], buff)
    if not declaration.is_tensor():
        return stage_mem_(proc, block, buff, new_buff_name, accum, rc=rc)

    nodes = list(lrn(proc, block))
    block_loops = [c for c in nodes if is_loop(proc, c)]
    accesses = [c for c in nodes if is_access(proc, c) and c.name() == buff]

    def access_window(access):
        loops = [p for p in get_parents(proc, access) if p in block_loops][::-1]
        env = {}
        for loop in loops:
            lo = _index_range(proc, loop.lo(), env)[0]
            hi = _index_range(proc, loop.hi(), env)[1]
            env[loop.name()] = (lo, hi.plus(-1))
        return [_index_range(proc, idx, env) for idx in access.idx()]

    # candidate (smallest, largest) index per dimension and side
    candidates = [(set(), set()) for _ in declaration.shape()]
    for access in accesses:
        for i, (lo, hi) in enumerate(access_window(access)):
            candidates[i][0].add(lo)
            candidates[i][1].add(hi)

    def window_text(window):
        dims = [str(lo) if lo == hi else f"{lo}:{hi.plus(1)}" for lo, hi in window]
        return f"{buff}[{', '.join(dims)}]"

    def stages(window):
        _, ok = attempt(stage_mem, errs=(SchedulingError,))(
            proc, block, window_text(window), new_buff_name, accum, rs=True
        )
        return ok

    window = []
    for (lo_set, hi_set), dim in zip(candidates, declaration.shape(), strict=True):
        if len(lo_set) == 1 and lo_set == hi_set:
            point = next(iter(lo_set))
            window.append((point, point))
        else:
            window.append((_Bound(const=0), _Bound(expr_to_string(dim)).plus(-1)))
    for i, (lo_set, hi_set) in enumerate(candidates):
        if window[i][0] == window[i][1]:
            continue
        for side, options in ((0, lo_set), (1, hi_set)):
            for option in sorted(options, key=str):
                trial = list(window[i])
                trial[side] = option
                if len(options) == 1:
                    window[i] = tuple(trial)
                    break
                candidate = window[:i] + [tuple(trial)] + window[i + 1 :]
                if stages(candidate):
                    window[i] = tuple(trial)
    return stage_mem_(proc, block, window_text(window), new_buff_name, accum, rc=rc)


@user_op
def ordered_stage_expr(proc, expr_cursors, new_buff_name, precision, n_lifts=1):
    """Binds the expressions into `new_buff_name` (of `precision`) and
    hoists the binding out of `n_lifts` loops as a loop nest of its own,
    before the code that reads it."""
    if not isinstance(expr_cursors, list):
        expr_cursors = [expr_cursors]
    if not all(isinstance(c, ExprCursor) for c in expr_cursors):
        raise SchedulingError("auto_stage_mem expects a read a cursor")
    expr_cursors = [proc.forward(c) for c in expr_cursors]
    original_stmt = get_enclosing_stmt(proc, expr_cursors[0])

    proc = bind_expr(proc, expr_cursors, new_buff_name)
    original_stmt = proc.forward(original_stmt)
    assign_cursor = original_stmt.prev()
    alloc_cursor = assign_cursor.prev()
    deps = set(get_symbols(proc, assign_cursor.rhs()))

    def hoist_as_loop(proc, stmt):
        stmt = proc.forward(stmt)
        while not isinstance(stmt.prev(), InvalidCursor):
            proc = reorder_stmts(proc, stmt.expand(1, 0))
            stmt = proc.forward(stmt)
        return fission(proc, stmt.after())

    anchor = assign_cursor
    for _ in range(n_lifts):
        anchor = proc.forward(anchor)
        parent = anchor.parent()
        if not isinstance(parent, ForCursor):
            raise SchedulingError("Not implemented yet")
        if parent.name() in deps:
            proc = parallelize_and_lift_alloc(proc, alloc_cursor)
        else:
            proc = lift_alloc(proc, alloc_cursor)
        proc = hoist_as_loop(proc, anchor)
        anchor = proc.forward(anchor).parent()

    def try_removing_loops(proc, loop):
        loop = proc.forward(loop)
        child = loop.body()[0]
        if isinstance(child, ForCursor):
            proc = try_removing_loops(proc, child)
        return attempt(remove_loop)(proc, loop)

    alloc_cursor = proc.forward(alloc_cursor)
    proc = try_removing_loops(proc, alloc_cursor.next())
    alloc_cursor = proc.forward(alloc_cursor)
    proc = set_precision(proc, alloc_cursor, precision)

    def lift_all_ifs(proc, scope, depth=0):
        scope = proc.forward(scope)
        if isinstance(scope, IfCursor):
            for _ in range(depth):
                proc = lift_scope(proc, scope)
        scope = proc.forward(scope)
        child = scope.body()[0]
        if isinstance(child, (ForCursor, IfCursor)):
            proc = lift_all_ifs(proc, child, depth + 1)
        return proc

    scope = proc.forward(alloc_cursor).next()
    if isinstance(scope, (ForCursor, IfCursor)):
        proc = lift_all_ifs(proc, scope)
    return proc


@user_op
def pack_mem(proc, block, buff, new_buff_name, tiles, order=None, rc=False):
    """`stage_mem` of the window `buff` over `block` into `new_buff_name`,
    laid out for streaming reads: each dimension `d` of `tiles` (a dict
    `{d: size}`) is divided into `[extent / size, size]` (`divide_dim`),
    then the dimensions are permuted by `order` (`rearrange_dim`; indices
    into the divided shape). The copy loops are divided alike, so that the
    copies index the packed buffer without `/` and `%`. Each tiled extent
    must be provably a multiple of its size, and `block` may only access
    `buff` element by element (no windows). rc: `stage_mem_cursors`."""
    proc, staged = stage_mem_(proc, block, buff, new_buff_name, rc=True)
    proc = simplify(proc)
    for dim in sorted(tiles, reverse=True):  # later dims keep their index
        proc = divide_dim(proc, proc.forward(staged.alloc), dim, tiles[dim])
    if order is not None:
        proc = rearrange_dim(proc, proc.forward(staged.alloc), list(order))
    for stage in (staged.load_stage, staged.store_stage):
        if isinstance(stage, InvalidCursor):
            continue
        loops = [proc.forward(stage)]
        while isinstance(loops[-1].body()[0], ForCursor):
            loops.append(loops[-1].body()[0])
        for dim, size in tiles.items():
            inner = f"{loops[dim].name()}i"
            names = [f"{loops[dim].name()}o", inner]
            proc = divide_loop(proc, loops[dim], size, names, perfect=True)
    proc = simplify(proc)
    if not rc:
        return proc
    return proc, stage_mem_cursors(*(_forward_valid(proc, c) for c in staged))


def _forward_valid(proc, cursor):
    return cursor if isinstance(cursor, InvalidCursor) else proc.forward(cursor)


def _eliminate_dead_code_pruned(proc, s):
    s = proc.forward(s)
    if isinstance(s, ForCursor) and is_loop_bounds_const(proc, s):
        return proc
    return eliminate_dead_code(proc, s)


_dce_pass = make_pass(attempt(_eliminate_dead_code_pruned))


@user_op
def dce(proc, block=_WHOLE_PROC):
    """Dead-code elimination over every statement of `block` (default: the
    whole procedure): ifs with a constant condition lose their dead branch,
    loops that never run (other than constant-bound ones) disappear."""
    return _dce_pass(proc, block)


@user_op
def unroll_buffers(proc, block=_WHOLE_PROC, mem=None):
    """`unroll_buffer` of the leading dimension of every allocation in
    `block` whose leading dimension is a literal and whose accesses index
    it with constants, until nothing changes; a buffer in `mem` keeps its
    last dimension (its vector lanes)."""

    def rewrite(proc, alloc):
        alloc = proc.forward(alloc)
        if not isinstance(alloc, AllocCursor) or not alloc.is_tensor():
            return proc
        keep = int(alloc.mem() is mem)
        if len(alloc.shape()) - keep and isinstance(alloc.shape()[0], LiteralCursor):
            # buffers indexed by a variable there stay as they are
            return attempt(unroll_buffer, errs=(SchedulingError,))(proc, alloc, 0)
        return proc

    while True:
        new_proc = make_pass(rewrite)(proc, block)
        if new_proc == proc:
            return proc
        proc = new_proc


@user_op
def unfold_reduce(proc, reduce):
    """`x[i] += e` → `x[i] = x[i] + e` through a staged temporary
    (`stage_mem`, `merge_writes`, `inline_assign`, `delete_buffer`)."""
    reduce = proc.forward(reduce)
    if not isinstance(reduce, ReduceCursor):
        raise SchedulingError("Expected a reduce cursor")
    proc = auto_stage_mem(proc, reduce, reduce.name())
    reduce = proc.forward(reduce)
    alloc = reduce.prev().prev()
    proc = merge_writes(proc, reduce.as_block().expand(1, 0))
    assign = proc.forward(alloc).next()
    proc = inline_assign(proc, assign)
    return delete_buffer(proc, alloc)


@user_op
def fma_rule(proc, expr):
    """Staging rule: the operands `[a, b, c]` of `a * b + c` or
    `c + a * b`, else None."""
    expr = proc.forward(expr)
    if is_add(proc, expr):
        if is_mul(proc, expr.lhs()):
            return [expr.lhs().lhs(), expr.lhs().rhs(), expr.rhs()]
        if is_mul(proc, expr.rhs()):
            return [expr.lhs(), expr.rhs().lhs(), expr.rhs().rhs()]
    return None


@user_op
def abs_rule(proc, expr):
    """Staging rule: for `select(0.0, x, x, -x)` (abs), one operand group
    `[[x, x, x]]` (the three occurrences of `x`, staged together), else
    None."""
    expr = proc.forward(expr)
    if is_select(proc, expr):
        args = expr.args()
        if (
            is_literal(proc, args[0], 0.0)
            and is_unary_minus(proc, args[3])
            and are_exprs_equal(proc, args[1], args[2])
            and are_exprs_equal(proc, args[1], args[3].arg())
        ):
            return [[args[1], args[2], args[3].arg()]]
    return None


@user_op
def stage_expr_into_memory(proc, exprs, precision, memory):
    """Binds `exprs` (one expression or a list of equal ones) into a new
    buffer of `precision` in `memory`, unless the expression is already
    assigned to, or read from, a buffer in `memory`. Returns `(proc, expr)`,
    `expr` the expression as now bound."""
    exprs = [proc.forward(e) for e in (exprs if isinstance(exprs, list) else [exprs])]
    expr = exprs[0]
    parent = expr.parent()
    if isinstance(parent, AssignCursor) and (
        get_declaration(proc, expr, parent.name()).mem() is memory
    ):
        return proc, expr
    if isinstance(expr, ReadCursor) and (
        get_declaration(proc, expr, expr.name()).mem() is memory
    ):
        return proc, expr
    return lift_rc(bind_and_set_expr, "bound_expr")(proc, exprs, precision, memory)


def _numeric_children(proc, cursor):
    return [
        c
        for c in get_children(proc, cursor)
        if hasattr(c, "type") and c.type().is_numeric()
    ]


@user_op
def stage_compute(
    proc, block=_WHOLE_PROC, precision="R", memory=DRAM, children_ops=None
):
    """Stages every operand and result of the computations in `block` into
    buffers of `precision` in `memory`: allocations move to `memory`,
    reductions are unfolded, each right-hand side is bound (recursively, its
    operands too; a rule of `children_ops` such as `fma_rule` chooses the
    operand groups of an expression, else its numeric children are used),
    then reductions are folded back and aliasing reads dealiased."""
    children_ops = list(children_ops or [])
    children_ops.append(_numeric_children)
    grouped = set()

    def stage(proc, exprs):
        proc, expr = stage_expr_into_memory(proc, exprs, precision, memory)
        children = []
        for children_op in children_ops:
            children = children_op(proc, expr)
            if children:
                break
        # a child is an expression or a group of equal ones (a list), which
        # a rule wants in one buffer: dealiasing must not split it again
        for child in children:
            if isinstance(child, list) and len(child) > 1:
                proc, staged = stage_expr_into_memory(proc, child, precision, memory)
                # the group now reads one buffer: the one bound to `staged`
                binding = staged.parent()
                grouped.add(
                    binding.name() if is_assign(proc, binding) else staged.name()
                )
                child = staged
            proc = stage(proc, child)
        return proc

    allocs = [s for s in nlr_stmts(proc, block) if isinstance(s, AllocCursor)]
    proc = apply(set_memory)(proc, allocs, memory)
    proc = make_pass(attempt(unfold_reduce))(proc, block)
    assigns = [s for s in lrn_stmts(proc, block) if isinstance(s, AssignCursor)]
    proc = apply(stage)(proc, [a.rhs() for a in assigns])
    proc = make_pass(attempt(fold_into_reduce))(proc, block)
    return dealiasing_pass(proc, block, keep=grouped)


# --------------------------------------------------------------------------- #
# Instruction selection


def _memory_and_type(proc, stmt, name):
    decl = get_declaration(proc, stmt, name)
    return decl.mem(), decl.type()


@user_op
def check_call_site(proc, call_cursor):
    """Whether every data argument of the call is a buffer whose memory is
    (a subclass of) the memory of the callee's parameter and whose
    precision is the parameter's."""
    call_cursor = proc.forward(call_cursor)
    if not isinstance(call_cursor, CallCursor):
        raise TypeError("call_cursor must be a CallCursor")
    for arg, param in zip(
        call_cursor.args(), call_cursor.subproc().args(), strict=True
    ):
        if not param.type().is_numeric():
            continue
        arg_mem, arg_type = _memory_and_type(proc, call_cursor, arg.name())
        if not issubclass(arg_mem, param.mem()) or arg_type != param.type():
            return False
    return True


@user_op
def checked_replace(proc, stmt, subproc, quiet=False):
    """`replace` of one statement by a call to `subproc`, then
    `check_call_site` on the call."""
    stmt = proc.forward(stmt)
    try:
        new_proc = replace(proc, stmt, subproc, quiet=quiet)
    except (SchedulingError, UnificationError, TypeError, ValueError) as e:
        raise SchedulingError("failed to replace") from e
    # the block of the replaced statement forwards to the call
    call = new_proc.forward(stmt.as_block())[0]
    if not check_call_site(new_proc, call):
        raise SchedulingError("Call site inconsistency")
    return new_proc


@dataclass
class replace_cursors:
    """The call a replacement made (Exo's cursor record for it); iterating
    yields the call."""

    call: CallCursor

    def __iter__(self):
        yield self.call


@user_op
def replace_all_stmts(proc, instructions):
    """Tries `checked_replace` with each instruction (in order) on every
    statement, in pre-order; the first that succeeds replaces it."""
    if not isinstance(instructions, list):
        instructions = [instructions]
    for stmt in list(nlr_stmts(proc)):
        try:
            stmt = proc.forward(stmt)
        except InvalidCursorError:
            continue
        for instr in instructions:
            try:
                proc = checked_replace(proc, stmt, instr, quiet=True)
                break
            except SchedulingError:
                pass
    return proc


# --------------------------------------------------------------------------- #
# Vectorization


@dataclass
class vectorize_cursors:
    loop: ForCursor

    def __iter__(self):
        yield self.loop


def _check_tail(tail):
    tails = {
        "cut_and_predicate",
        "predicate",
        "cut",
        "cut_and_guard",
        "guard",
        "perfect",
    }
    if tail not in tails:
        raise ValueError(f"tail must be one of {sorted(tails)}, not {tail!r}")


def _check_vectorizable(proc, loop, vec_width, mem_type):
    """`vectorize`'s preconditions on its arguments and on what the loop
    contains, checked before anything is rewritten: assignments,
    reductions, allocations, ifs and loops whose bounds do not depend on the
    vector loop's iterator (the vector loop moves inside them)."""
    if not isinstance(loop, ForCursor):
        raise SchedulingError(
            f"vectorize: expected a loop, got a {type(loop).__name__}"
        )
    if isinstance(vec_width, bool) or not isinstance(vec_width, int) or vec_width < 1:
        raise SchedulingError(
            f"vectorize: vec_width must be a positive int, not {vec_width!r}"
        )
    if not (isinstance(mem_type, type) and issubclass(mem_type, Memory)):
        raise SchedulingError(
            f"vectorize: mem_type must be a memory class such as AVX2, not {mem_type!r}"
        )
    name = loop.name()
    for s in nlr_stmts(proc, loop.body()):
        why = None
        if isinstance(s, CallCursor):
            why = (
                f"calls {s.subproc().name()}, which cannot be split into "
                "lanes (inline it first, or vectorize inside it)"
            )
        elif isinstance(s, WindowStmtCursor):
            why = "defines a window (inline_window it first)"
        elif isinstance(s, AssignConfigCursor):
            why = "writes a config field, which all lanes would share"
        elif isinstance(s, ForCursor) and name in set(
            [*get_symbols(proc, s.lo()), *get_symbols(proc, s.hi())]
        ):
            why = (
                f"has a loop whose bounds depend on '{name}': the vector loop "
                "moves inside inner loops, which needs bounds that do not"
            )
        if why:
            raise SchedulingError(
                f"vectorize: cannot vectorize the loop over '{name}': its body "
                f"{why}: {stmt_text(s)}"
            )


def _lane_loops(proc, loop, lifted=None):
    """Moves the vector loop `loop` inside the scopes of its body until each
    copy holds one statement that is not a loop (under the ifs of a guard):
    allocations of the body get a copy per lane (their names are added to
    `lifted`), the body is fissioned into one loop per statement, a loop
    whose body is one loop is reordered with it, and one whose body is an
    `if` around a loop lifts that loop above the if. Returns `(proc,
    loops)`, the copies of the vector loop."""
    lifted = [] if lifted is None else lifted
    loop = proc.forward(loop)
    allocs = [s for s in loop.body() if isinstance(s, AllocCursor)]
    if allocs and len(loop.body()) > 1:
        lifted += [a.name() for a in allocs]
        proc = apply(parallelize_and_lift_alloc)(proc, allocs)
        loop = proc.forward(loop)
    body = list(loop.body())
    if len(body) > 1:
        proc = apply(fission)(proc, [s.after() for s in body[:-1]])
        loops = []
        for s in body:
            proc, inner = _lane_loops(proc, proc.forward(s).parent(), lifted)
            loops += inner
        return proc, loops
    child = body[0]
    if isinstance(child, ForCursor):
        proc = reorder_loops(proc, loop)  # the cursor follows the lane loop
        return _lane_loops(proc, loop, lifted)
    if isinstance(child, IfCursor) and not child.orelse():
        guarded = list(child.body())
        allocs = [s for s in guarded if isinstance(s, AllocCursor)]
        if allocs and len(guarded) > 1:
            # out of the guard and the lane loop: a copy per lane
            lifted += [a.name() for a in allocs]
            lift = functools.partial(parallelize_and_lift_alloc, n_lifts=2)
            proc = apply(lift)(proc, allocs)
            guarded = list(proc.forward(loop).body()[0].body())
        if len(guarded) > 1:
            proc = apply(fission)(proc, [s.after() for s in guarded[:-1]], n_lifts=2)
            loops = []
            for s in guarded:
                proc, inner = _lane_loops(
                    proc, proc.forward(s).parent().parent(), lifted
                )
                loops += inner
            return proc, loops
        if isinstance(guarded[0], ForCursor):
            proc = lift_scope(proc, guarded[0])
            return _lane_loops(proc, loop, lifted)
    return proc, [loop]


def _vectorize_lanes(proc, vector_loop, loops, lifted, precision, mem_type, rules):
    """Stages the computation of each lane loop into `mem_type` vectors and
    fissions it into one loop per statement. The per-lane copies of the
    body's allocations (`lifted`, their names) are vectors too: a value
    private to one iteration never goes through memory."""
    allocs = [
        s
        for s in nlr_stmts(proc, proc.forward(vector_loop).body())
        if isinstance(s, AllocCursor) and s.name() in lifted and s.mem() is DRAM
    ]
    proc = apply(set_memory)(proc, allocs, mem_type)
    for lane_loop in loops:
        proc = stage_compute(proc, lane_loop, precision, mem_type, list(rules))
        proc = fission_into_singles(proc, lane_loop)
    return proc


def _vector_stmts(proc, mem_type, outside=None):
    """The statements of `proc` on `mem_type` vectors, which C cannot access
    directly (none when it can), except those inside the loop `outside`."""
    if mem_type.can_read():
        return []
    stmts = unmatched_vector_stmts(proc, mem_type)
    return [s for s in stmts if not (outside and outside.is_ancestor_of(s))]


def _left_on_vectors(proc, before, mem_type):
    """The statements on `mem_type` vectors not among `before` (cursors
    into an ancestor of `proc`)."""
    kept = set()
    for s in before:
        try:
            kept.add(proc.forward(s))
        except InvalidCursorError:
            pass
    return [s for s in _vector_stmts(proc, mem_type) if s not in kept]


def _replace_lanes(proc, before, instructions, mem_type):
    """`replace_all_stmts`; when statements are left, once more after
    `simplify`, which puts indices such as `(8 * i + l) / 8` (left by
    `divide_dim`) into the form an instruction's window unifies with."""
    proc = replace_all_stmts(proc, list(instructions))
    if _left_on_vectors(proc, before, mem_type):
        proc = replace_all_stmts(simplify(proc), list(instructions))
    return proc


def _check_all_replaced(proc, before, mem_type, vec_width, op="vectorize"):
    """Raises SchedulingError naming every statement on `mem_type` vectors
    that vectorizing left (`before`: those there before, which are not
    vectorize's) and the instruction form it needs: the C code generator
    would refuse them."""
    left = _left_on_vectors(proc, before, mem_type)
    if not left:
        return
    lines = []
    for s in left:
        text, need = describe_vector_stmt(proc, s, mem_type)
        lines.append(f"  {text}\n    needs {need}")
    count = f"{len(left)} statement{'s' if len(left) > 1 else ''}"
    message = (
        f"{op}: no instruction given matches {count} on "
        f"{mem_type.name()} vectors, which C cannot access directly; each "
        f"needs an instruction of {vec_width} lanes of the form named:\n"
        + "\n".join(lines)
    )
    if any("needs a masked" in line for line in lines):
        message += (
            "\nA masked instruction whose precondition bounds its lane count "
            "(`N <= 8`) matches only where that is provable: with "
            'tail="cut_and_predicate", the last vector iteration.'
        )
    raise SchedulingError(message)


@user_op
def vectorize_predicate_tail(
    proc,
    loop,
    vec_width,
    precision,
    mem_type,
    instructions=(),
    rules=(),
    tail="cut_and_predicate",
    rc=False,
):
    """`vectorize` with a predicated tail: the loop is divided with a guard
    (`i < n` in every vector iteration), which masked (prefix) instructions
    absorb; with `cut_and_predicate`, the last vector iteration is cut off
    so that only it runs the masked instructions."""
    if tail not in {"predicate", "cut_and_predicate"}:
        raise ValueError(f"expected tail predicate or cut_and_predicate, not {tail!r}")
    loop = proc.forward(loop)
    _check_vectorizable(proc, loop, vec_width, mem_type)
    before = _vector_stmts(proc, mem_type, outside=loop)
    proc = parallelize_all_reductions(proc, loop, factor=vec_width, memory=mem_type)
    proc, (outer, inner, _) = divide_loop_(proc, loop, vec_width, rc=True)
    proc = simplify(proc)
    lifted = []
    proc, lane_loops = _lane_loops(proc, inner, lifted)
    proc = _vectorize_lanes(proc, outer, lane_loops, lifted, precision, mem_type, rules)
    if tail == "cut_and_predicate":
        outer = proc.forward(outer)
        cut = FormattedExprStr("_ - 1", outer.hi())
        proc = attempt(cut_loop)(proc, outer, cut)
        proc = dce(proc, proc.forward(outer).body())
    proc = _replace_lanes(proc, before, instructions, mem_type)
    _check_all_replaced(proc, before, mem_type, vec_width)
    if not rc:
        return proc
    return proc, vectorize_cursors(proc.forward(outer))


@user_op
def vectorize(
    proc,
    loop,
    vec_width,
    precision,
    mem_type,
    instructions=(),
    rules=(),
    tail="cut_and_predicate",
    rc=False,
):
    """Vectorizes `loop` by `vec_width` lanes: divides it, gives reductions
    over it `vec_width` partial sums, moves the lane loop inside the loops
    of the body, stages every computation into `mem_type` vectors of
    `precision` (operand groups chosen by `rules` such as `fma_rule`),
    fissions into single statements and replaces each by one of
    `instructions`; a statement no instruction matches is a SchedulingError
    naming the form it needs. `tail`: `cut_and_predicate` / `predicate`
    (masked instructions, `vectorize_predicate_tail`), or a `divide_loop`
    tail (`cut`, `cut_and_guard`, `guard`, `perfect`). rc: `(loop,)`, the
    vector loop."""
    _check_tail(tail)
    loop = proc.forward(loop)
    _check_vectorizable(proc, loop, vec_width, mem_type)
    if tail in {"predicate", "cut_and_predicate"}:
        return vectorize_predicate_tail(
            proc, loop, vec_width, precision, mem_type, instructions, rules, tail, rc
        )
    before = _vector_stmts(proc, mem_type, outside=loop)
    proc, (outer, inner, _) = divide_loop_(proc, loop, vec_width, tail=tail, rc=True)
    proc = parallelize_all_reductions(proc, outer, memory=mem_type)
    lifted = []
    proc, lane_loops = _lane_loops(proc, proc.forward(outer).body()[0], lifted)
    proc = _vectorize_lanes(proc, outer, lane_loops, lifted, precision, mem_type, rules)
    proc = _replace_lanes(proc, before, instructions, mem_type)
    _check_all_replaced(proc, before, mem_type, vec_width)
    if not rc:
        return proc
    return proc, vectorize_cursors(proc.forward(outer))


# --------------------------------------------------------------------------- #
# Register tiles


@dataclass
class accumulate_in_registers_cursors:
    alloc: AllocCursor

    def __iter__(self):
        yield self.alloc


def _accesses(proc, region, name):
    """The statements and reads of `region` (statements) that access
    `name`."""
    found = []
    for stmt in region:
        for c in nlr(proc, stmt):
            if isinstance(c, (AssignCursor, ReduceCursor, ReadCursor)) and (
                c.name() == name and len(c.idx()) > 0
            ):
                found.append(c)
    return found


def _lane_loop_of(proc, access, name):
    """The loop whose iterator indexes the last dimension of `name` at
    `access`: the loop over the lanes."""
    iterators = [n for n in get_symbols(proc, access.idx()[-1]) if n != name]
    loops = []
    for iterator in iterators:
        try:
            loops.append(get_enclosing_loop_by_name(proc, access, iterator))
        except CursorNavigationError:
            pass  # a size or an index from outside
    if len(loops) != 1:
        stmt = (
            access
            if isinstance(access, StmtCursor)
            else get_enclosing_stmt(proc, access)
        )
        raise SchedulingError(
            f"accumulate_in_registers: the last dimension of the tile must be "
            f"indexed by one loop (its lanes), but {stmt_text(stmt)} indexes it "
            f"with {len(loops)}: keep the tile's last dimension for the loop "
            "that runs along it (for a sum over a loop, such as a dot product, "
            "use vectorize, which keeps partial sums in registers)"
        )
    return loops[0]


def _register_loops(proc, region, name):
    """The loops with constant bounds whose iterators index the registers
    of `name` (any dimension but the lanes) in the calls of `region`."""
    for stmt in region:
        for call in nlr_stmts(proc, stmt):
            if not isinstance(call, CallCursor):
                continue
            for arg in call.args():
                if not (isinstance(arg, WindowExprCursor) and arg.name() == name):
                    continue
                for iterator in get_symbols(proc, arg):
                    try:
                        loop = get_enclosing_loop_by_name(proc, call, iterator)
                    except CursorNavigationError:
                        continue
                    if is_loop_bounds_const(proc, loop):
                        return loop
    return None


def _scope_of(proc, alloc):
    """The statements of the block that declares `alloc`."""
    parent = proc.forward(alloc).parent()
    return list(proc.body() if isinstance(parent, InvalidCursor) else parent.body())


@user_op
def accumulate_in_registers(
    proc,
    block,
    tile,
    vec_width,
    precision,
    mem_type,
    instructions,
    rules=(fma_rule,),
    name="acc",
    unroll=True,
    rc=False,
):
    """Keeps `tile`, a window of an output (`C[6 * io:6 * io + 6, 16 * jo:
    16 * jo + 16]`), in `mem_type` vector registers across `block`, the code
    that accumulates into it (a reduction loop, or the loop nest that
    initialises and then reduces into the tile): `stage_mem` loads the tile
    into `name` before the block and stores it after; its last dimension,
    a constant multiple of `vec_width`, is divided into vectors
    (`divide_dim`) put in `mem_type`; every loop that runs along that
    dimension (the copies' and the block's) is moved inside the loops of
    its body, so that each of their steps updates the whole tile, and
    vectorized with `instructions` and `rules` (tail "perfect": it must
    provably divide);
    and with `unroll`, the loops over registers are unrolled, so that each
    register has a constant index. rc: `(alloc,)`."""
    block = proc.forward(block)
    before = _vector_stmts(proc, mem_type)
    proc, staged = stage_mem_(proc, block, tile, name, rc=True)
    proc = simplify(proc)  # extents such as `8 * jo + 8 - 8 * jo`
    alloc = proc.forward(staged.alloc)
    region = [staged.load_stage, *staged.block, staged.store_stage]
    region = [proc.forward(s) for s in region if not isinstance(s, InvalidCursor)]
    last = alloc.shape()[-1]
    if not (isinstance(last, LiteralCursor) and last.value() % vec_width == 0):
        raise SchedulingError(
            f"accumulate_in_registers: the tile {tile} must have a constant "
            f"last extent that is a multiple of vec_width = {vec_width}, so that "
            "it splits into whole vectors"
        )
    lanes = []
    for access in _accesses(proc, region, name):
        loop = _lane_loop_of(proc, access, name)
        if loop not in lanes:
            lanes.append(loop)
    proc = divide_dim(proc, alloc, len(alloc.shape()) - 1, vec_width)
    proc = set_memory(proc, alloc, mem_type)
    for loop in lanes:
        try:
            loop = proc.forward(loop)
        except InvalidCursorError:
            continue  # an earlier vectorize's replace_all already matched it
        # the whole lane loop moves inside inner loops (a conv's ky, kx), so
        # that each of their steps updates every register of the tile
        proc, copies = _lane_loops(proc, loop)
        for copy in copies:
            proc = vectorize(
                proc,
                copy,
                vec_width,
                precision,
                mem_type,
                instructions,
                rules,
                tail="perfect",
            )
    _check_all_replaced(proc, before, mem_type, vec_width, "accumulate_in_registers")
    if unroll:
        while loop := _register_loops(proc, _scope_of(proc, alloc), name):
            proc = unroll_loop(proc, loop)
        proc = simplify(proc)
    if not rc:
        return proc
    return proc, accumulate_in_registers_cursors(proc.forward(alloc))


# --------------------------------------------------------------------------- #
# Loop bounds and small loops


@user_op
def bound_loop_by_if(proc, loop):
    """`for i in seq(lo, hi): if i < e: s` → `for i in seq(lo, lo + e): s`
    (a `cut_loop` at `lo + e`, then dead-code elimination of the ifs that
    became constant and of the second loop; `pass` statements elsewhere in
    the procedure are deleted too)."""
    loop = proc.forward(loop)
    err = (
        "Expected loop to be of the following structure:\n"
        "for iter in seq(lo, hi):\n\t if iter < e:"
    )
    if len(loop.body()) != 1 or not isinstance(loop.body()[0], IfCursor):
        raise SchedulingError(err)
    if_c = loop.body()[0]
    cond = if_c.cond()
    if (
        not isinstance(if_c.orelse(), InvalidCursor)
        or not is_binop(proc, cond)
        or cond.op() != "<"
        or not isinstance(cond.lhs(), ReadCursor)
        or cond.lhs().name() != loop.name()
    ):
        raise SchedulingError(err)
    proc = cut_loop(proc, loop, FormattedExprStr("_ + _", loop.lo(), cond.rhs()))
    loop1 = proc.forward(loop)
    loop2 = loop1.next()
    proc = eliminate_dead_code(proc, loop1.body()[0])
    proc, success = attempt(eliminate_dead_code)(proc, loop2, rs=True)
    if success:
        return proc
    # the second loop may run: its if is always false, leaving a loop of
    # `pass`, which `delete_pass` deletes (with every other `pass`)
    proc = eliminate_dead_code(proc, proc.forward(loop2).body()[0])
    return delete_pass(proc)


@user_op
def undo_divide_and_guard_loop(proc, loop):
    """Undoes `divide_loop(..., tail="guard")` on the outer loop `loop`:
    `mult_loops`, `simplify`, `bound_loop_by_if`."""
    loop = proc.forward(loop)
    proc = mult_loops(proc, loop, loop.name()[:-1])
    proc = simplify(proc)
    return bound_loop_by_if(proc, loop)


@user_op
def unroll_loops(proc, block=_WHOLE_PROC, threshold=None):
    """`unroll_loop` of every loop in `block` with constant bounds and at
    most `threshold` iterations (any number when None), innermost first."""

    def pred(proc, s):
        s = proc.forward(s)
        if not (is_loop(proc, s) and is_loop_bounds_const(proc, s)):
            return False
        return threshold is None or s.hi().value() - s.lo().value() <= threshold

    return make_pass(predicate(unroll_loop, pred), lrn_stmts)(proc, block)


@user_op
def cleanup(proc):
    """`simplify`, unrolling of one-iteration loops, `dce`, and
    `delete_pass` when a `pass` is left."""
    proc = simplify(proc)
    proc = unroll_loops(proc, threshold=1)
    proc = dce(proc)
    if any(isinstance(s, PassCursor) for s in nlr_stmts(proc)):
        proc = delete_pass(proc)
    return proc


@dataclass
class divide_loop_recursive_cursors:
    outer_loops: list
    inner_loops: list
    tail_loop: ForCursor

    def __iter__(self):
        yield self.outer_loops
        yield self.inner_loops
        yield self.tail_loop


@user_op
def divide_loop_recursive(proc, loop, factor, tail="cut", rc=False):
    """Divides `loop` by `factor`, its tail by `factor // 2`, and so on
    down to 2. rc: `(outer_loops, inner_loops, tail_loop)`."""
    if tail not in {"cut", "cut_and_guard"}:
        raise SchedulingError("tail strategy must be cut or cut_and_guard")
    outer_loops, inner_loops = [], []
    tail_loop = loop
    while factor > 1:
        proc, (outer, inner, tail_loop) = divide_loop_(
            proc, tail_loop, factor, tail=tail, rc=True
        )
        outer_loops.append(outer)
        inner_loops.append(inner)
        factor //= 2
    if not rc:
        return proc
    return proc, divide_loop_recursive_cursors(
        [proc.forward(c) for c in outer_loops],
        [proc.forward(c) for c in inner_loops],
        proc.forward(tail_loop),
    )


@dataclass
class binary_specialize_cursors:
    stmts: list

    def __iter__(self):
        yield self.stmts


def _binary_specialize(proc, stmt, expr, values):
    """`binary_specialize`, returning the new procedure and the leaves
    `[(value, stmt), ...]` (`value` None for the general else branches)."""
    stmt = proc.forward(stmt)
    if isinstance(expr, ExprCursor):
        expr = expr_to_string(proc.forward(expr))
    if len(values) == 1:
        raise SchedulingError("Cannot specialize given one value!")
    leaves = []

    def rewrite(proc, stmt, values):
        if len(values) == 1:
            proc, (if_stmt,) = specialize_(
                proc, stmt, f"{expr} == {values[0]}", rc=True
            )
            proc = simplify(proc)
            if_stmt = proc.forward(if_stmt)
            leaves.append((values[0], if_stmt.body()[0]))
            leaves.append((None, if_stmt.orelse()[0]))
            # the context decides the test when `values` cover the range
            return eliminate_dead_code(proc, if_stmt)
        md = len(values) // 2
        proc, (if_stmt,) = specialize_(proc, stmt, f"{expr} < {values[md]}", rc=True)
        proc = rewrite(proc, if_stmt.body()[0], values[:md])
        if_stmt = proc.forward(if_stmt)
        return rewrite(proc, if_stmt.orelse()[0], values[md:])

    proc = rewrite(proc, stmt, sorted(values))
    live = []
    for value, leaf in leaves:
        try:
            leaf = proc.forward(leaf)
        except InvalidCursorError:
            continue
        if not isinstance(leaf, PassCursor):
            live.append((value, leaf))
    return proc, live


@user_op
def binary_specialize(proc, stmt, expr, values, rc=False):
    """Specializes `stmt` with a binary tree of `if expr < v` ending in
    `if expr == v` tests, so that each leaf sees one value of `values`;
    the values must cover every value `expr` can take (the last test is
    then decided by the context and removed), else `eliminate_dead_code`
    refuses. rc: `(stmts,)`, the specialized copies."""
    proc, leaves = _binary_specialize(proc, stmt, expr, values)
    if not rc:
        return proc
    return proc, binary_specialize_cursors([leaf for _, leaf in leaves])


# --------------------------------------------------------------------------- #
# Common subexpressions, aliasing, copies


@user_op
def cse(proc, block, precision):
    """Common-subexpression elimination of repeated buffer accesses in
    `block`: reads of the same element, all reads, are bound into one
    `precision` temporary; a group with a write is staged (`auto_stage_mem`
    over the smallest block holding it)."""
    if not isinstance(block, BlockCursor):
        block = proc.forward(block).as_block()
    accesses = [
        c
        for c in lrn(proc, block)
        if is_access(proc, c) and (is_stmt(proc, c) or c.type().is_numeric())
    ]
    groups = {}
    for access in accesses:
        key = (access.name(), expr_to_string(access.idx()))
        groups.setdefault(key, []).append(access)
    for (buff, _), group in groups.items():
        if len(group) < 2:
            continue
        if all(is_read(proc, c) for c in group):
            proc = bind_and_set_expr(proc, group, precision, DRAM)
        else:
            proc = auto_stage_mem(proc, get_bounding_block(proc, group), buff)
    return proc


@user_op
def dealias(proc, stmt, keep=()):
    """Binds all but the last of the repeated reads of a buffer in the
    right-hand side of an assignment or reduction, and the whole right-hand
    side when it reads the buffer written, into temporaries of the buffers'
    precision and memory. Repeated reads of the buffers named in `keep`
    stay (**[exo2]**)."""
    stmt = proc.forward(stmt)
    if not is_assign(proc, stmt) and not is_reduce(proc, stmt):
        raise TypeError("stmt must be an assign or reduce")
    accesses = [
        c
        for c in lrn(proc, stmt.rhs())
        if is_access(proc, c) and (is_stmt(proc, c) or c.type().is_numeric())
    ]
    by_buffer = {}
    for access in accesses:
        by_buffer.setdefault(access.name(), []).append(access)
    for name, buff_accesses in by_buffer.items():
        if name in keep:
            continue
        for access in buff_accesses[:-1]:
            decl = get_declaration(proc, stmt, access.name())
            proc = bind_and_set_expr(proc, access, decl.type(), decl.mem())
    if stmt.name() in by_buffer:
        stmt = proc.forward(stmt)
        decl = get_declaration(proc, stmt, stmt.name())
        proc = bind_and_set_expr(proc, stmt.rhs(), decl.type(), decl.mem())
    return proc


_dealiasing_pass = make_pass(attempt(dealias, errs=(TypeError,)))


@user_op
def dealiasing_pass(proc, block=_WHOLE_PROC, keep=()):
    """`dealias` of every assignment and reduction in `block`."""
    return _dealiasing_pass(proc, block, keep=keep)


def _inline_copy(proc, assign):
    return inline_assign(proc, assign)


_inline_copies = make_pass(predicate(attempt(_inline_copy), is_copy))


@user_op
def inline_copies(proc, block=_WHOLE_PROC):
    """`inline_assign` of every copy `x[...] = y[...]` between buffers of
    the same memory in `block`, where it is allowed."""
    return _inline_copies(proc, block)


# --------------------------------------------------------------------------- #
# Loop trip counts


@user_op
def round_loop(proc, loop, factor, up=True):
    """Rounds the trip count of `loop` up (a guarded division) or down (a
    cut one, the remainder in a tail loop) to a multiple of `factor`."""
    tail = "guard" if up else "cut"
    proc, (loop, _, _) = divide_loop_(proc, loop, factor, tail=tail, rc=True)
    return mult_loops(proc, loop, loop.name()[:-1])


@dataclass
class cut_loop_and_unroll_cursors:
    loop: ForCursor

    def __iter__(self):
        yield self.loop


@user_op
def cut_loop_and_unroll(proc, loop, const, front=True, rc=False):
    """Peels the first (`front`) or last iteration off `loop` and unrolls
    it; the rest of the loop starts at 0. rc: `(loop,)`, the rest."""
    loop = proc.forward(loop)
    cut = (
        FormattedExprStr("_ + 1", loop.lo())
        if front
        else FormattedExprStr("_ - 1", loop.hi())
    )
    proc, (const_loop, loop) = cut_loop_(proc, loop, cut, rc=True)
    if not front:
        const_loop, loop = loop, const_loop
    proc = shift_loop(proc, const_loop, 0)
    proc = simplify(proc)
    proc = unroll_loop(proc, const_loop)
    proc = shift_loop(proc, loop, 0)
    if not rc:
        return proc
    return proc, cut_loop_and_unroll_cursors(proc.forward(loop))


__all__ = _OWN_NAMES + sorted(
    name for name in set(globals()) - set(_OWN_NAMES) if not name.startswith("_")
)
