"""Staging buffers: the window a block accesses, expressions in order,
packed tiles, and reductions unfolded through a staged temporary
(docs/stdlib.md).

Part of exo2.stdlib.stdlib, which re-exports the public names.
"""

from __future__ import annotations

from exo2.API_cursors import (
    BlockCursor,
    ExprCursor,
    ForCursor,
    IfCursor,
    InvalidCursor,
    ReduceCursor,
)
from exo2.stdlib.binding import parallelize_and_lift_alloc
from exo2.stdlib.higher_order import attempt
from exo2.stdlib.inspection import (
    expr_to_string,
    get_declaration,
    get_enclosing_stmt,
    get_parents,
    get_symbols,
    get_unique_names,
    is_access,
    is_add,
    is_binop,
    is_literal,
    is_loop,
    is_mul,
    is_read,
    is_sub,
    is_unary_minus,
    lrn,
)
from exo2.stdlib.rc_wrappers import (
    stage_mem_,
    stage_mem_cursors,
)
from exo2.stdlib.scheduling import (
    SchedulingError,
    bind_expr,
    delete_buffer,
    divide_dim,
    divide_loop,
    fission,
    inline_assign,
    lift_alloc,
    lift_scope,
    merge_writes,
    rearrange_dim,
    remove_loop,
    reorder_stmts,
    set_precision,
    simplify,
    stage_mem,
    user_op,
)


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


@user_op
def unfold_reduce(proc, reduce):
    """`x[i] += e` → `x[i] = x[i] + e` through a staged temporary
    (`stage_mem`, `merge_writes`, `inline_assign`, `delete_buffer`)."""
    reduce = proc.forward(reduce)
    if not isinstance(reduce, ReduceCursor):
        raise SchedulingError("Expected a reduce cursor")
    # the element the reduction writes: inferred from every access to the
    # buffer, the window could be another element the right-hand side reads
    # (`x[j + 1] += a * x[0]`)
    idx = [expr_to_string(i) for i in reduce.idx()]
    element = f"{reduce.name()}[{', '.join(idx)}]" if idx else reduce.name()
    proc = stage_mem_(proc, reduce, element, next(get_unique_names(proc)))
    reduce = proc.forward(reduce)
    alloc = reduce.prev().prev()
    proc = merge_writes(proc, reduce.as_block().expand(1, 0))
    assign = proc.forward(alloc).next()
    proc = inline_assign(proc, assign)
    return delete_buffer(proc, alloc)
