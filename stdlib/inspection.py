"""exo2.stdlib.inspection: traversal, navigation and predicate helpers over
cursors (docs/stdlib-inspection.md).

Written against the public API only, like all of exo2.stdlib. Every function
takes the procedure first (except `match_parent` and `expr_to_string`) and
forwards its cursor arguments into it, so cursors taken on an ancestor
procedure may be passed. `InvalidCursor()` as a scope means "the whole
procedure".
"""

import functools

# Exo's exo.stdlib.inspection has no __all__: `import *` of it also gives what it
# imports (DRAM, AVX2, cursor classes, ...), which Exo programs rely on;
# so does this module (docs/migrating-from-exo.md).
from exo2 import *  # noqa: E402, F401, F403
from exo2 import Procedure, SchedulingError
from exo2.API_cursors import *  # noqa: E402, F401, F403
from exo2.API_cursors import (
    AllocCursor,
    ArgCursor,
    AssignConfigCursor,
    AssignCursor,
    BinaryOpCursor,
    BlockCursor,
    CallCursor,
    ExprCursor,
    ExprListCursor,
    ExternFunctionCursor,
    ForCursor,
    IfCursor,
    InvalidCursor,
    LiteralCursor,
    PassCursor,
    ReadConfigCursor,
    ReadCursor,
    ReduceCursor,
    StmtCursor,
    StrideExprCursor,
    UnaryMinusCursor,
    WindowExprCursor,
    WindowStmtCursor,
)
from exo2.frontend.syntax import *  # noqa: E402, F401, F403
from exo2.libs.memories import *  # noqa: E402, F401, F403
from exo2.platforms.neon import *  # noqa: E402, F401, F403
from exo2.platforms.x86 import *  # noqa: E402, F401, F403
from exo2.stdlib.analysis import *  # noqa: E402, F401, F403
from exo2.stdlib.analysis import get_observed_stmts
from exo2.stdlib.scheduling import user_op

# The default scope: "the whole procedure".
_WHOLE_PROC = InvalidCursor()


class CursorNavigationError(Exception):
    """A navigation helper found no cursor of the kind asked for."""


class _CursorsOfDifferentProcsError(CursorNavigationError, AssertionError):
    """Two cursors that should belong to one procedure do not. Also an
    AssertionError, which is what Exo raises here and its users catch."""


# --------------------------------------------------------------------------- #
# Traversal


def _is_whole_proc(scope):
    return isinstance(scope, (InvalidCursor, Procedure))


def _forward_scope(proc, scope):
    """`scope` as a location of `proc`: the whole procedure (InvalidCursor or
    a Procedure), a cursor, or a list/tuple of cursors."""
    if _is_whole_proc(scope):
        return InvalidCursor()
    if isinstance(scope, (list, tuple)):
        return [proc.forward(c) for c in scope]
    return proc.forward(scope)


def _window_bounds(expr):
    # intervals contribute their two bounds, in order
    return [
        bound for w in expr.idx() for bound in (w if isinstance(w, tuple) else (w,))
    ]


def _if_children(stmt):
    orelse = stmt.orelse()
    return [stmt.cond(), *stmt.body(), *(orelse if orelse else ())]


def _no_children(node):
    return []


# The direct children of each kind of node, by class (a subclass takes its
# nearest listed base: `_children_function`). `with` blocks, frees and
# syncs have no public accessors for their parts.
_CHILDREN_OF = {
    # expressions
    ReadCursor: lambda e: list(e.idx()),
    WindowExprCursor: _window_bounds,
    UnaryMinusCursor: lambda e: [e.arg()],
    BinaryOpCursor: lambda e: [e.lhs(), e.rhs()],
    ExternFunctionCursor: lambda e: list(e.args()),
    LiteralCursor: _no_children,
    ReadConfigCursor: _no_children,
    StrideExprCursor: _no_children,
    # statements
    AllocCursor: lambda s: list(s.shape()) if s.is_tensor() else [],
    AssignCursor: lambda s: [*s.idx(), s.rhs()],
    ReduceCursor: lambda s: [*s.idx(), s.rhs()],
    ForCursor: lambda s: [s.lo(), s.hi(), *s.body()],
    IfCursor: _if_children,
    CallCursor: lambda s: list(s.args()),
    WindowStmtCursor: lambda s: [s.winexpr()],
    AssignConfigCursor: lambda s: [s.rhs()],
    PassCursor: _no_children,
    # lists and parameters
    ExprListCursor: list,
    BlockCursor: list,
    list: list,
    tuple: list,
    ArgCursor: lambda a: list(a.shape()) if a.is_tensor() else [],
}


@functools.cache
def _children_function(cls):
    for base in cls.__mro__:
        if base in _CHILDREN_OF:
            return _CHILDREN_OF[base]
    return None


def _expr_children(expr):
    if not isinstance(expr, ExprCursor):
        raise SchedulingError(f"Got an instance of {type(expr)} which is unsupported.")
    return _children(None, expr)


def _children(proc, node):
    """The direct children of `node`, a location of `proc` already
    forwarded."""
    if isinstance(node, InvalidCursor):
        return [*proc.args(), proc.body()]
    children_of = _children_function(type(node))
    if children_of is None:
        raise SchedulingError(f"Got an instance of {type(node)} which is unsupported.")
    return children_of(node)


@user_op
def get_children(proc, cursor=_WHOLE_PROC, lr=True):
    """The direct children of `cursor` (left to right, or right to left with
    `lr=False`): for the whole procedure its arguments then its body (one
    BlockCursor); for a statement its index expressions, right-hand side,
    bounds, condition, body (and else) statements or call arguments; for an
    expression its operands; for a block or list its items."""
    children = _children(proc, _forward_scope(proc, cursor))
    return iter(children if lr else children[::-1])


def _traverse(proc, cursor, node_first, lr):
    """Depth-first walk over `cursor` and everything below it (the whole
    procedure and a list of cursors yield their parts, not themselves)."""
    root = _forward_scope(proc, cursor)
    # stack entries: (node, expanded); an expanded node is emitted post-order
    stack = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            yield node
            continue
        if not isinstance(node, (InvalidCursor, list)):
            if node_first:
                yield node
            else:
                stack.append((node, True))
        children = _children(proc, node)
        if lr:
            children.reverse()
        stack.extend((child, False) for child in children)


@user_op
def lrn(proc, cursor=_WHOLE_PROC):
    """Post-order, left to right: children before their parent."""
    return _traverse(proc, cursor, node_first=False, lr=True)


@user_op
def nlr(proc, cursor=_WHOLE_PROC):
    """Pre-order, left to right: a node before its children."""
    return _traverse(proc, cursor, node_first=True, lr=True)


@user_op
def rln(proc, cursor=_WHOLE_PROC):
    """Post-order, right to left."""
    return _traverse(proc, cursor, node_first=False, lr=False)


@user_op
def nrl(proc, cursor=_WHOLE_PROC):
    """Pre-order, right to left."""
    return _traverse(proc, cursor, node_first=True, lr=False)


@user_op
def lrn_stmts(proc, block=_WHOLE_PROC):
    """The statements of `lrn(proc, block)`."""
    return (s for s in lrn(proc, block) if isinstance(s, StmtCursor))


# Statements without statements inside them.
_LEAF_STMTS = (
    AllocCursor,
    AssignCursor,
    ReduceCursor,
    CallCursor,
    WindowStmtCursor,
    AssignConfigCursor,
    PassCursor,
)


def _nlr_stmts(proc, node):
    """The statements of `nlr(proc, node)` (`node` forwarded), found
    without visiting the expressions, which hold none."""
    if isinstance(node, (InvalidCursor, BlockCursor, list, tuple)):
        for child in proc.body() if isinstance(node, InvalidCursor) else node:
            yield from _nlr_stmts(proc, child)
        return
    if isinstance(node, (ExprCursor, ExprListCursor, ArgCursor)):
        return
    if isinstance(node, StmtCursor):
        yield node
    if isinstance(node, ForCursor):
        yield from _nlr_stmts(proc, node.body())
    elif isinstance(node, IfCursor):
        yield from _nlr_stmts(proc, _children(proc, node))
    elif not isinstance(node, _LEAF_STMTS):
        _children(proc, node)  # raises as `nlr` does on what it cannot walk


@user_op
def nlr_stmts(proc, block=_WHOLE_PROC):
    """The statements of `nlr(proc, block)`."""
    # a generator, so that `block` is forwarded when the walk starts, as in nlr
    yield from _nlr_stmts(proc, _forward_scope(proc, block))


# --------------------------------------------------------------------------- #
# Names


@user_op
def get_symbols(proc, cursor=_WHOLE_PROC):
    """The names of every named node below `cursor` (arguments, allocations,
    writes, loop iterators, reads, externs, windows), in `lrn` order."""
    return (c.name() for c in lrn(proc, cursor) if hasattr(c, "name"))


def _context_stmt(proc, ctxt):
    """The statement whose point of view `ctxt` (a statement, block or
    expression) stands for."""
    ctxt = proc.forward(ctxt)
    if isinstance(ctxt, BlockCursor):
        return ctxt[0]
    return get_my_stmt(proc, ctxt)


# The kinds of variables that statements declare, as the symbol table names
# them (allocations and window statements).
_DECLARED_BY_STATEMENTS = ("allocation", "window")

# The procedure last asked about and the names its statements declare: a
# procedure never changes, and the lookups of one rewrite ask about one
# procedure many times.
_declared = (None, frozenset())


def _declared_names(proc):
    global _declared
    last, names = _declared  # one read: another thread may replace it
    if last is not proc:
        variables = proc.variables()
        names = frozenset(n for n, kind in variables if kind in _DECLARED_BY_STATEMENTS)
        _declared = (proc, names)
    return names


def _find_declaration(proc, stmt, name, kinds):
    # a name no statement declares is a parameter's: no walk needed
    if name in _declared_names(stmt.proc()):
        for observed in get_observed_stmts(stmt):
            if isinstance(observed, kinds) and observed.name() == name:
                return observed
    for arg in proc.args():
        if arg.name() == name:
            return arg
    raise SchedulingError("Declaration not found!")


@user_op
def get_declaration(proc, ctxt, name):
    """The allocation of `name` visible at `ctxt` (the innermost one), else
    the parameter `name`."""
    return _find_declaration(proc, _context_stmt(proc, ctxt), name, AllocCursor)


@user_op
def get_unique_names(proc):
    """Generator of `var0`, `var1`, ... that no name in `proc` uses, without
    end (a kernel vectorized with many rows jammed names more than a
    hundred vectors)."""
    used = {name for name, _ in proc.variables()}
    used.update(proc.extern_names())

    def names():
        k = 0
        while True:
            if f"var{k}" not in used:
                yield f"var{k}"
            k += 1

    return names()


# --------------------------------------------------------------------------- #
# Predicates


@user_op
def is_stmt(proc, stmt):
    return isinstance(proc.forward(stmt), StmtCursor)


@user_op
def is_if(proc, if_c):
    return isinstance(proc.forward(if_c), IfCursor)


@user_op
def is_loop(proc, loop):
    return isinstance(proc.forward(loop), ForCursor)


@user_op
def check_is_loop(proc, loop):
    """`TypeError` unless `loop` is a loop."""
    if not is_loop(proc, loop):
        raise TypeError(f"loop is not a {ForCursor}")


@user_op
def is_loop_bounds_const(proc, loop):
    check_is_loop(proc, loop)
    loop = proc.forward(loop)
    return isinstance(loop.lo(), LiteralCursor) and isinstance(loop.hi(), LiteralCursor)


@user_op
def loop_body_len(proc, loop):
    check_is_loop(proc, loop)
    return len(proc.forward(loop).body())


@user_op
def is_single_stmt_loop(proc, loop):
    return loop_body_len(proc, loop) == 1


@user_op
def is_contiguous_loop(proc, loop):
    """Whether every buffer access in `loop` (reads, windows, and the
    targets of writes) uses its iterator in the last index only, the one
    of unit stride: `A[i, j]` over `j`, not `A[j, i]`."""
    loop = proc.forward(loop)
    check_is_loop(proc, loop)
    reads = [e for e in lrn(proc, loop) if isinstance(e, ReadCursor | WindowExprCursor)]
    writes = [s for s in nlr_stmts(proc, loop.body()) if is_write(proc, s)]
    return not any(
        loop.name() in {str(v) for v in get_symbols(proc, index)}
        for access in reads + writes
        for index in list(access.idx())[:-1]
    )


# --------------------------------------------------------------------------- #
# Enclosing scopes


def _ancestors(cursor):
    """`cursor` and its ancestors, innermost first (the procedure, an
    InvalidCursor, excluded)."""
    chain = []
    while not isinstance(cursor, InvalidCursor):
        chain.append(cursor)
        cursor = cursor.parent()
    return chain


@user_op
def match_parent(cursor1, cursor2):
    """`(a1, a2)`: the ancestors-or-selves of the two cursors that are
    siblings (same parent; top-level statements have the procedure as
    parent)."""
    if cursor1.proc() != cursor2.proc():
        raise _CursorsOfDifferentProcsError("cursors originate from different procs")
    chain1, chain2 = _ancestors(cursor1)[::-1], _ancestors(cursor2)[::-1]
    # outermost first: the first position where the chains differ
    k = 0
    while k < min(len(chain1), len(chain2)) - 1 and chain1[k] == chain2[k]:
        k += 1
    return chain1[k], chain2[k]


@user_op
def get_top_level_stmt(proc, c):
    """The top-level statement holding `c`."""
    return _ancestors(proc.forward(c))[-1]


@user_op
def get_enclosing_scope(proc, cursor, scope_type):
    """The innermost strict ancestor of `cursor` that is a `scope_type`."""
    for ancestor in _ancestors(proc.forward(cursor))[1:]:
        if isinstance(ancestor, scope_type):
            return ancestor
    raise SchedulingError("No enclosing scope found")


@user_op
def get_enclosing_loop(proc, cursor, n=1):
    """The `n`-th enclosing loop of `cursor` (1: the innermost)."""
    cursor = proc.forward(cursor)
    for _ in range(n):
        cursor = get_enclosing_scope(proc, cursor, ForCursor)
    return cursor


@user_op
def get_enclosing_loop_by_name(proc, cursor, loop_iter):
    """The loop with iterator `loop_iter` holding `cursor` (or `cursor`
    itself)."""
    for ancestor in _ancestors(proc.forward(cursor)):
        if isinstance(ancestor, ForCursor) and ancestor.name() == loop_iter:
            return ancestor
    raise CursorNavigationError("no enclosing loop found")


@user_op
def get_enclosing_if(proc, cursor, n=1):
    cursor = proc.forward(cursor)
    for _ in range(n):
        cursor = get_enclosing_scope(proc, cursor, IfCursor)
    return cursor


@user_op
def get_enclosing_stmt(proc, cursor, n=1):
    cursor = proc.forward(cursor)
    for _ in range(n):
        cursor = get_enclosing_scope(proc, cursor, StmtCursor)
    return cursor


@user_op
def get_my_stmt(proc, cursor):
    """`cursor` if it is a statement, else its enclosing statement."""
    cursor = proc.forward(cursor)
    if isinstance(cursor, StmtCursor):
        return cursor
    return get_enclosing_stmt(proc, cursor)


# --------------------------------------------------------------------------- #
# Positions


@user_op
def get_index_in_body(proc, stmt, from_top=True):
    """The position of `stmt` in its body: from 0 at the top, or from -1 at
    the bottom with `from_top=False`."""
    stmt = proc.forward(stmt)
    if from_top:
        return len(stmt.expand(None, 0)) - 1
    return -len(stmt.expand(0, None))


@user_op
def get_parent(proc, stmt):
    """The parent of `stmt`, or the procedure for a top-level statement."""
    parent = proc.forward(stmt).parent()
    return proc if isinstance(parent, InvalidCursor) else parent


@user_op
def get_parents(proc, stmt, up_to=None):
    """Generator of the strict ancestors of `stmt`, innermost first, up to
    and including `up_to` (default: up to the top-level statement)."""
    chain = _ancestors(proc.forward(stmt))
    if up_to is not None:
        up_to = proc.forward(up_to)
        if up_to not in chain:
            raise CursorNavigationError(f"{up_to!r} is not an ancestor of {stmt!r}")
        chain = chain[: chain.index(up_to) + 1]
    return iter(chain[1:])


@user_op
def get_nth_inner_loop(proc, loop, n):
    """The `n`-th loop (from 0) among the body statements of `loop`."""
    loop = proc.forward(loop)
    if not isinstance(loop, (ForCursor, IfCursor)):
        raise TypeError(f"expected a ForCursor or IfCursor, not {type(loop)}")
    inner_loops = [s for s in loop.body() if isinstance(s, ForCursor)]
    if n >= len(inner_loops):
        raise SchedulingError(
            f"Expected exactly at least {n + 1} loops, found {len(inner_loops)}"
        )
    return inner_loops[n]


@user_op
def get_inner_loop(proc, loop):
    """The first loop among the body statements of `loop`."""
    return get_nth_inner_loop(proc, loop, 0)


@user_op
def get_only_inner_loop(proc, loop):
    """The one loop among the body statements of `loop`; SchedulingError
    where there are none or several."""
    loop = proc.forward(loop)
    inner = [s for s in loop.body() if isinstance(s, ForCursor)]
    if len(inner) != 1:
        raise SchedulingError(
            f"expected one loop in the body of the loop over {loop.name()}, "
            f"found {len(inner)}"
        )
    return inner[0]


@user_op
def get_loop(proc, loop=None):
    """The loop `loop` names, as a library's operation takes it: a cursor
    (forwarded), an iterator's name (`find_loop`), or None for the one loop
    among the procedure's top-level statements (SchedulingError where there
    are none or several: the caller must then name one)."""
    if isinstance(loop, str):
        return proc.find_loop(loop)
    if loop is not None:
        return proc.forward(loop)
    loops = [s for s in proc.body() if isinstance(s, ForCursor)]
    if len(loops) != 1:
        raise SchedulingError(
            f"{proc.name()} has {len(loops)} top-level loops; name the loop"
        )
    return loops[0]


# --------------------------------------------------------------------------- #
# Expression tests


@user_op
def is_binop(proc, expr, op=None):
    expr = proc.forward(expr)
    return isinstance(expr, BinaryOpCursor) and (op is None or expr.op() == op)


@user_op
def is_add(proc, expr):
    return is_binop(proc, expr, "+")


@user_op
def is_sub(proc, expr):
    return is_binop(proc, expr, "-")


@user_op
def is_mul(proc, expr):
    return is_binop(proc, expr, "*")


@user_op
def is_div(proc, expr):
    return is_binop(proc, expr, "/")


@user_op
def is_mod(proc, expr):
    return is_binop(proc, expr, "%")


@user_op
def is_builtin(proc, expr, name):
    expr = proc.forward(expr)
    return isinstance(expr, ExternFunctionCursor) and expr.name() == name


@user_op
def is_select(proc, expr):
    return is_builtin(proc, expr, "select")


@user_op
def is_relu(proc, expr):
    return is_builtin(proc, expr, "relu")


@user_op
def is_sin(proc, expr):
    return is_builtin(proc, expr, "sin")


@user_op
def is_literal(proc, expr, value=None):
    expr = proc.forward(expr)
    return isinstance(expr, LiteralCursor) and (value is None or expr.value() == value)


@user_op
def is_reduce(proc, reduce):
    return isinstance(proc.forward(reduce), ReduceCursor)


@user_op
def get_conjuncts(proc, cond):
    """The conditions that the condition `cond` joins with `and` (`cond`
    itself when it is not an `and`), left to right."""
    cond = proc.forward(cond)
    if isinstance(cond, BinaryOpCursor) and cond.op() == "and":
        return get_conjuncts(proc, cond.lhs()) + get_conjuncts(proc, cond.rhs())
    return [cond]


@user_op
def get_loop_carried_reductions(proc, loop):
    """The reductions below `loop` that sum from one of its iterations
    into the next: their target is declared outside `loop` and its indices
    do not read the iterator (a dot product's `acc += x[i] * y[i]`, or
    `out[j] += A[j, i]`, in a loop over `i`), in `nlr_stmts` order."""
    loop = proc.forward(loop)
    stmts = list(nlr_stmts(proc, loop.body()))
    inside = {s.name() for s in stmts if isinstance(s, AllocCursor)}
    return [
        s
        for s in stmts
        if isinstance(s, ReduceCursor)
        and s.name() not in inside
        and loop.name() not in {str(v) for i in s.idx() for v in get_symbols(proc, i)}
    ]


@user_op
def is_assign(proc, assign):
    return isinstance(proc.forward(assign), AssignCursor)


@user_op
def is_read(proc, read, name=None):
    read = proc.forward(read)
    return isinstance(read, ReadCursor) and (name is None or read.name() == name)


@user_op
def is_write(proc, write):
    """An assignment or a reduction."""
    return is_reduce(proc, write) or is_assign(proc, write)


@user_op
def is_access(proc, access):
    """A read, an assignment or a reduction."""
    return is_read(proc, access) or is_write(proc, access)


@user_op
def is_unary_minus(proc, expr):
    return isinstance(proc.forward(expr), UnaryMinusCursor)


# --------------------------------------------------------------------------- #
# Structure


@user_op
def is_start_of_body(proc, stmt):
    return not proc.forward(stmt).prev()


@user_op
def is_end_of_body(proc, stmt):
    return not proc.forward(stmt).next()


@user_op
def get_depth(proc, cursor):
    """1 for the procedure, 2 for a top-level statement or argument, one
    more per level below."""
    if isinstance(cursor, InvalidCursor):
        return 1
    return len(_ancestors(proc.forward(cursor))) + 1


@user_op
def get_lca(proc, cursor1, cursor2):
    """The lowest common ancestor of the two cursors (a cursor is its own
    ancestor)."""
    chain1 = _ancestors(proc.forward(cursor1))
    chain2 = set(_ancestors(proc.forward(cursor2)))
    for ancestor in chain1:
        if ancestor in chain2:
            return ancestor
    raise CursorNavigationError("these cursors do not have a common ancestor")


@user_op
def get_distance(proc, cursor1, cursor2):
    """The number of parent steps from one cursor to the other through their
    lowest common ancestor."""
    lca = get_lca(proc, cursor1, cursor2)
    return (
        get_depth(proc, cursor1) + get_depth(proc, cursor2) - 2 * get_depth(proc, lca)
    )


_COMPARED_ATTRIBUTES = ("name", "value", "op", "config", "field", "dim")


def _same_expr(e1, e2):
    if type(e1) is not type(e2):
        return False
    for attr in _COMPARED_ATTRIBUTES:
        if hasattr(e1, attr) and getattr(e1, attr)() != getattr(e2, attr)():
            return False
    if isinstance(e1, LiteralCursor) and type(e1.value()) is not type(e2.value()):
        return False
    if isinstance(e1, WindowExprCursor):
        shape1 = [isinstance(w, tuple) for w in e1.idx()]
        if shape1 != [isinstance(w, tuple) for w in e2.idx()]:
            return False
    kids1, kids2 = _expr_children(e1), _expr_children(e2)
    return len(kids1) == len(kids2) and all(map(_same_expr, kids1, kids2))


@user_op
def are_exprs_equal(proc, expr1, expr2):
    """Whether the two expressions are structurally identical (same
    classes, names, literal values and operators, same operands)."""
    return _same_expr(proc.forward(expr1), proc.forward(expr2))


def _memory_of(proc, stmt, name):
    """The memory of the buffer `name` seen at `stmt`, looking through window
    statements to the buffer they window."""
    decl = _find_declaration(proc, stmt, name, (AllocCursor, WindowStmtCursor))
    if isinstance(decl, WindowStmtCursor):
        return _memory_of(proc, decl, decl.winexpr().name())
    return decl.mem()


@user_op
def is_copy(proc, assign):
    """Whether `assign` is `x[...] = y[...]` with `x` and `y` in the same
    memory."""
    assign = proc.forward(assign)
    if not isinstance(assign, AssignCursor) or not isinstance(assign.rhs(), ReadCursor):
        return False
    return _memory_of(proc, assign, assign.name()) is _memory_of(
        proc, assign, assign.rhs().name()
    )


@user_op
def get_bounding_block(proc, cursors):
    """The smallest block holding every cursor of `cursors` (statements or
    expressions)."""
    stmts = [get_my_stmt(proc, c) for c in cursors]
    if not stmts:
        raise SchedulingError("expected at least one cursor")
    lifted = stmts[0]
    for stmt in stmts[1:]:
        lifted, _ = match_parent(lifted, stmt)
    ends = [match_parent(lifted, stmt)[1] for stmt in stmts]
    positions = [get_index_in_body(proc, s) for s in ends]
    first = ends[positions.index(min(positions))]
    return first.expand(0, max(positions) - min(positions))


@user_op
def expr_to_string(expr_cursor, subst=None):
    """The expression as fully parenthesised text (`((i)+(1))`) that parses
    back as a new expression; reads of names in the dict `subst` become
    `(subst[name])`. An expression list becomes `[e1, e2]` (empty: "")."""
    subst = subst or {}
    if isinstance(expr_cursor, ExprListCursor):
        return _expr_list_to_string(expr_cursor, subst)
    if not isinstance(expr_cursor, ExprCursor):
        raise SchedulingError("Cursor must be an ExprCursor")
    return _expr_to_string(expr_cursor, subst)


def _expr_list_to_string(exprs, subst):
    texts = [_expr_to_string(e, subst) for e in exprs]
    return f"[{', '.join(texts)}]" if texts else ""


def _expr_to_string(e, subst):
    if isinstance(e, ReadCursor):
        name = e.name()
        if name in subst:
            return f"({subst[name]})"
        return f"({name}{_expr_list_to_string(e.idx(), subst)})"
    if isinstance(e, LiteralCursor):
        return f"({e.value()})"
    if isinstance(e, UnaryMinusCursor):
        return f"(-{_expr_to_string(e.arg(), subst)})"
    if isinstance(e, BinaryOpCursor):
        lhs, rhs = _expr_to_string(e.lhs(), subst), _expr_to_string(e.rhs(), subst)
        return f"({lhs}{e.op()}{rhs})"
    if isinstance(e, ExternFunctionCursor):
        args = ", ".join(_expr_to_string(a, subst) for a in e.args())
        return f"({e.name()}({args}))"
    if isinstance(e, StrideExprCursor):
        return f"(stride({e.name()}, {e.dim()}))"
    if isinstance(e, ReadConfigCursor):
        raise SchedulingError("ReadConfigCursor is not supported")
    raise SchedulingError("WindowExprCursor is not supported")
