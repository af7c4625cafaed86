"""exo2.stdlib.inspection and exo2.stdlib.analysis: traversals, names,
predicates, navigation and structure helpers on small kernels."""

from __future__ import annotations

import itertools

import pytest
from exo2 import DRAM, Extern, SchedulingError, config, proc
from exo2.API_cursors import (
    BlockCursor,
    ForCursor,
    InvalidCursor,
    InvalidCursorError,
)
from exo2.libs.externs import relu, select, sin
from exo2.libs.memories import AVX2, DRAM_STATIC
from exo2.stdlib import inspection as I
from exo2.stdlib.analysis import check_call_mem_types, get_observed_stmts
from exo2.stdlib.inspection import CursorNavigationError
from exo2.stdlib.scheduling import cut_loop, divide_loop, rewrite_expr


@proc
def foo(n: size, x: f32[n], y: f32[n]):
    acc: f32
    acc = 0.0
    for i in seq(0, n):
        if i < 2:
            acc += x[i] * 2.0
        else:
            y[i] = -x[i]
    y[0] = acc


@proc
def nest(n: size, a: f32[n, 8], b: f32[n, 8]):
    for i in seq(0, n):
        for j in seq(0, 8):
            a[i, j] = b[i, j] + 1.0
        t: f32
        t = a[i, 0]
        for k in seq(0, 4):
            b[i, k] = t


@proc
def ops(x: f32[8], y: f32[8]):
    for i in seq(0, 8):
        y[i] = select(x[i], 0.0, relu(x[i]), sin(x[i]))
        y[i] = x[(i + 1) % 8] / 2.0 - x[i]


def describe(c):
    """`Class:name` (or just the class) of a cursor, for compact asserts."""
    kind = type(c).__name__.removesuffix("Cursor")
    name = getattr(c, "name", None)
    return f"{kind}:{name()}" if name else kind


# --------------------------------------------------------------------------- #
# Traversal


def test_get_children_of_the_procedure_statements_and_expressions():
    assert [describe(c) for c in I.get_children(foo)] == [
        "Arg:n",
        "Arg:x",
        "Arg:y",
        "Block",
    ]
    assert list(I.get_children(foo))[-1] == foo.body()
    loop = foo.find_loop("i")
    assert [describe(c) for c in I.get_children(foo, loop)] == [
        "Literal",
        "Read:n",
        "If",
    ]
    branch = foo.find("if _: _")
    children = list(I.get_children(foo, branch))
    assert children == [
        branch.cond(),
        foo.find("acc += _"),
        foo.find("y[i] = _"),
    ]
    assert list(I.get_children(foo, branch, lr=False)) == children[::-1]
    mul = foo.find("x[i] * 2.0")
    assert list(I.get_children(foo, mul)) == [mul.lhs(), mul.rhs()]
    assert [describe(c) for c in I.get_children(foo, foo.args()[1])] == ["Read:n"]
    assert list(I.get_children(foo, foo.find("acc: _"))) == []


def test_get_children_of_blocks_lists_and_externs():
    body = nest.find_loop("i").body()
    assert list(I.get_children(nest, body)) == list(body)
    write = nest.find("a[i, j] = _")
    assert list(I.get_children(nest, write.idx())) == list(write.idx())
    call = ops.find("select(_, _, _, _)")
    assert list(I.get_children(ops, call)) == list(call.args())


def test_traversal_orders_over_a_statement():
    write = foo.find("y[i] = _")
    assert [describe(c) for c in I.lrn(foo, write)] == [
        "Read:i",
        "Read:i",
        "Read:x",
        "UnaryMinus",
        "Assign:y",
    ]
    assert [describe(c) for c in I.nlr(foo, write)] == [
        "Assign:y",
        "Read:i",
        "UnaryMinus",
        "Read:x",
        "Read:i",
    ]
    assert [describe(c) for c in I.rln(foo, write)] == [
        "Read:i",
        "Read:x",
        "UnaryMinus",
        "Read:i",
        "Assign:y",
    ]
    assert [describe(c) for c in I.nrl(foo, write)] == [
        "Assign:y",
        "UnaryMinus",
        "Read:x",
        "Read:i",
        "Read:i",
    ]


def test_traversal_of_the_whole_procedure_does_not_yield_the_procedure():
    nodes = list(I.nlr(foo))
    assert describe(nodes[0]) == "Arg:n" and nodes[-1] == foo.find("acc", many=True)[-1]
    assert not any(isinstance(c, InvalidCursor) for c in nodes)
    assert len(nodes) == len(list(I.lrn(foo))) == 29
    assert list(I.lrn(foo))[-1] == foo.body()


def test_statement_traversals():
    assert [describe(s) for s in I.nlr_stmts(foo)] == [
        "Alloc:acc",
        "Assign:acc",
        "For:i",
        "If",
        "Reduce:acc",
        "Assign:y",
        "Assign:y",
    ]
    assert [describe(s) for s in I.lrn_stmts(foo, foo.find_loop("i"))] == [
        "Reduce:acc",
        "Assign:y",
        "If",
        "For:i",
    ]
    block = nest.find_loop("i").body()[1:3]
    assert list(I.nlr_stmts(nest, block)) == list(block)
    loops = [nest.find_loop("k"), nest.find_loop("j")]
    assert [describe(c) for c in I.nlr(nest, loops)][:3] == [
        "For:k",
        "Literal",
        "Literal",
    ]
    assert list(I.lrn_stmts(nest, loops)) == [
        nest.find("b[i, k] = _"),
        loops[0],
        nest.find("a[i, j] = _"),
        loops[1],
    ]


def test_traversals_forward_cursors_of_an_ancestor():
    divided = divide_loop(nest, "i", 2, ["io", "ii"], tail="cut")
    old_write = nest.find("t = _")
    stmts = list(I.nlr_stmts(divided, old_write))
    assert stmts == [divided.find("t = _")]
    assert stmts[0].proc() is divided


# --------------------------------------------------------------------------- #
# Names


def test_get_symbols_lists_names_in_lrn_order():
    assert list(I.get_symbols(foo, foo.find("acc += _"))) == ["i", "x", "acc"]
    assert list(I.get_symbols(foo, foo.find("acc += _").idx())) == []
    assert list(I.get_symbols(ops, ops.find("select(_, _, _, _)"))) == [
        "i",
        "x",
        "i",
        "x",
        "relu",
        "i",
        "x",
        "sin",
        "select",
    ]
    assert set(I.get_symbols(foo)) == {"n", "x", "y", "acc", "i"}


def test_get_declaration_finds_the_innermost_allocation_or_the_parameter():
    read = nest.find("t", many=True)[-1]
    assert I.get_declaration(nest, read, "t") == nest.find("t: _")
    assert I.get_declaration(nest, read, "a") == nest.args()[1]
    assert I.get_declaration(nest, nest.find_loop("k").body(), "t") == nest.find("t: _")
    with pytest.raises(SchedulingError, match="Declaration not found!"):
        I.get_declaration(nest, nest.find("a[i, j] = _"), "t")


def test_get_unique_names_skips_names_in_use():
    @proc
    def uses_var0(var0: f32, var2: f32):
        var0 = var2

    names = I.get_unique_names(uses_var0)
    assert [next(names), next(names), next(names)] == ["var1", "var3", "var4"]
    # without end: the 201st name free of var0 and var2 is var202
    assert list(itertools.islice(I.get_unique_names(uses_var0), 201))[-1] == "var202"


class _Var1(Extern):
    """An extern whose name is a candidate of get_unique_names."""

    def __init__(self):
        super().__init__("var1")

    def typecheck(self, args):
        return args[0].type

    def compile(self, args, prim_type):
        return f"({args[0]})"


var1 = _Var1()


def test_get_unique_names_skips_the_names_of_externs_called():
    @proc
    def calls_var1(var0: f32, y: f32, z: f32):
        var0 = var1(y)
        z = sin(y)

    names = I.get_unique_names(calls_var1)
    assert [next(names), next(names)] == ["var2", "var3"]


def test_variables_and_extern_names_list_the_names_a_procedure_uses():
    @proc
    def calls_var1(var0: f32, y: f32[4], z: f32):
        t: f32
        for i in seq(0, 4):
            w = y[i:4]
            t = var1(w[0])
        z = sin(t) + var1(var0)

    assert calls_var1.variables() == [
        ("var0", "argument"), ("y", "argument"), ("z", "argument"),
        ("t", "allocation"), ("i", "loop iterator"), ("w", "window"),
    ]  # fmt: skip
    assert [entry[:2] for entry in calls_var1.symbol_table()] == calls_var1.variables()
    assert calls_var1.extern_names() == ["sin", "var1"]


def test_get_declaration_of_a_name_declared_twice_is_the_innermost_visible():
    @proc
    def twice(n: size, x: f32[n]):
        for i in seq(0, n):
            t: f32
            t = x[i]
            x[i] = t
        for j in seq(0, n):
            t: f32
            t = x[j]
            x[j] = t

    first, second = twice.find("t: _", many=True)
    assert I.get_declaration(twice, twice.find("x[i] = t"), "t") == first
    assert I.get_declaration(twice, twice.find("x[j] = t"), "t") == second
    assert I.get_declaration(twice, twice.find("x[j] = t"), "x") == twice.args()[1]
    with pytest.raises(SchedulingError, match="Declaration not found!"):
        I.get_declaration(twice, twice.find_loop("j"), "t")


# --------------------------------------------------------------------------- #
# Predicates


@proc
def rows_and_columns(n: size, A: f32[n, n], x: f32[n]):
    for i in seq(0, n):
        for j in seq(0, n):
            x[j] += A[i, j]


@proc
def columns(n: size, A: f32[n, n], y: f32[n]):
    for i in seq(0, n):
        for j in seq(0, n):
            y[i] += A[j, i]  # over j: down a column


def test_statement_and_loop_predicates():
    loop, branch = foo.find_loop("i"), foo.find("if _: _")
    assert I.is_stmt(foo, loop) and not I.is_stmt(foo, loop.hi())
    assert I.is_if(foo, branch) and not I.is_if(foo, loop)
    assert I.is_loop(foo, loop) and not I.is_loop(foo, branch)
    I.check_is_loop(foo, loop)
    with pytest.raises(TypeError, match="loop is not a <class .*ForCursor'>"):
        I.check_is_loop(foo, branch)
    assert not I.is_loop_bounds_const(foo, loop)
    assert I.is_loop_bounds_const(nest, nest.find_loop("j"))
    assert I.loop_body_len(nest, nest.find_loop("i")) == 4
    assert I.is_single_stmt_loop(foo, loop)
    assert not I.is_single_stmt_loop(nest, nest.find_loop("i"))
    assert I.is_contiguous_loop(rows_and_columns, rows_and_columns.find_loop("j"))
    assert not I.is_contiguous_loop(rows_and_columns, rows_and_columns.find_loop("i"))
    assert not I.is_contiguous_loop(columns, columns.find_loop("j"))
    with pytest.raises(TypeError):
        I.loop_body_len(foo, branch)


def test_predicates_refuse_an_invalid_cursor():
    with pytest.raises(InvalidCursorError):
        I.is_loop(foo, InvalidCursor())


# --------------------------------------------------------------------------- #
# Enclosing scopes


def test_match_parent_lifts_both_cursors_to_siblings():
    inner = nest.find("a[i, j] = _")
    assert I.match_parent(inner, nest.find("b[i, k] = _")) == (
        nest.find_loop("j"),
        nest.find_loop("k"),
    )
    assert I.match_parent(inner, nest.find("t = _")) == (
        nest.find_loop("j"),
        nest.find("t = _"),
    )
    assert I.match_parent(foo.find("acc = _"), foo.find("acc += _")) == (
        foo.find("acc = _"),
        foo.find_loop("i"),
    )
    with pytest.raises(CursorNavigationError, match="different procs"):
        I.match_parent(inner, foo.find_loop("i"))
    # Exo raises AssertionError here: code catching that keeps working.
    with pytest.raises(AssertionError, match="different procs"):
        I.match_parent(inner, foo.find_loop("i"))


def test_enclosing_scopes():
    reduce = foo.find("acc += _")
    rhs = reduce.rhs()
    assert I.get_top_level_stmt(foo, rhs) == foo.find_loop("i")
    assert I.get_enclosing_scope(foo, reduce, ForCursor) == foo.find_loop("i")
    assert I.get_enclosing_loop(foo, rhs) == foo.find_loop("i")
    assert I.get_enclosing_if(foo, rhs) == foo.find("if _: _")
    assert I.get_enclosing_stmt(foo, rhs) == reduce
    assert I.get_enclosing_stmt(foo, rhs, n=2) == foo.find("if _: _")
    assert I.get_my_stmt(foo, rhs) == reduce
    assert I.get_my_stmt(foo, reduce) == reduce
    b_write = nest.find("b[i, k] = _")
    assert I.get_enclosing_loop(nest, b_write, n=2) == nest.find_loop("i")
    assert I.get_enclosing_loop_by_name(nest, b_write.rhs(), "i") == nest.find_loop("i")
    assert I.get_enclosing_loop_by_name(nest, nest.find_loop("k"), "k") == (
        nest.find_loop("k")
    )
    with pytest.raises(SchedulingError, match="No enclosing scope found"):
        I.get_enclosing_loop(foo, foo.find_loop("i"))
    with pytest.raises(SchedulingError, match="No enclosing scope found"):
        I.get_enclosing_if(nest, b_write)
    with pytest.raises(CursorNavigationError, match="no enclosing loop found"):
        I.get_enclosing_loop_by_name(nest, b_write, "j")


# --------------------------------------------------------------------------- #
# Positions


def test_positions_in_bodies():
    body = nest.find_loop("i").body()
    assert [I.get_index_in_body(nest, s) for s in body] == [0, 1, 2, 3]
    assert [I.get_index_in_body(nest, s, from_top=False) for s in body] == [
        -4,
        -3,
        -2,
        -1,
    ]
    # a statement of an else-branch counts within the else-branch
    assert I.get_index_in_body(foo, foo.find("y[i] = _"), from_top=False) == -1
    assert I.get_parent(nest, body[2]) == nest.find_loop("i")
    assert I.get_parent(foo, foo.find("acc = _")) is foo


def test_get_parents():
    write = nest.find("b[i, k] = _")
    assert list(I.get_parents(nest, write.rhs())) == [
        write,
        nest.find_loop("k"),
        nest.find_loop("i"),
    ]
    assert list(I.get_parents(nest, write, up_to=nest.find_loop("k"))) == [
        nest.find_loop("k")
    ]
    assert list(I.get_parents(nest, write, up_to=write)) == []
    with pytest.raises(CursorNavigationError, match="is not an ancestor of"):
        list(I.get_parents(nest, write, up_to=nest.find_loop("j")))


def test_inner_loops():
    outer = nest.find_loop("i")
    assert I.get_inner_loop(nest, outer) == nest.find_loop("j")
    assert I.get_nth_inner_loop(nest, outer, 1) == nest.find_loop("k")
    with pytest.raises(
        SchedulingError, match="Expected exactly at least 3 loops, found 2"
    ):
        I.get_nth_inner_loop(nest, outer, 2)
    with pytest.raises(TypeError, match="expected a ForCursor or IfCursor"):
        I.get_inner_loop(nest, nest.find("t: _"))


@proc
def two_loops(n: size, a: f32[n], b: f32[n, 4]):
    for i in seq(0, n):
        a[i] = 0.0
    for i in seq(0, n):
        for j in seq(0, 4):
            b[i, j] = a[i]


@proc
def no_loop(x: f32[1]):
    x[0] = 0.0


def test_get_only_inner_loop():
    rows = two_loops.find_loop("i #1")
    assert I.get_only_inner_loop(two_loops, rows) == two_loops.find_loop("j")
    with pytest.raises(
        SchedulingError,
        match="expected one loop in the body of the loop over i, found 2",
    ):
        I.get_only_inner_loop(nest, nest.find_loop("i"))
    with pytest.raises(
        SchedulingError,
        match="expected one loop in the body of the loop over i, found 0",
    ):
        I.get_only_inner_loop(two_loops, two_loops.find_loop("i"))


def test_get_loop():
    outer = nest.find_loop("i")
    assert I.get_loop(nest, outer) == outer
    assert I.get_loop(nest, "k") == nest.find_loop("k")
    assert I.get_loop(nest) == outer  # the one top-level loop
    # a cursor of an earlier procedure of the schedule is forwarded
    later = divide_loop(nest, nest.find_loop("j"), 4, ["jo", "ji"], perfect=True)
    assert I.get_loop(later, outer) == later.find_loop("i")
    with pytest.raises(SchedulingError, match="two_loops has 2 top-level loops; name"):
        I.get_loop(two_loops)
    with pytest.raises(SchedulingError, match="no_loop has 0 top-level loops"):
        I.get_loop(no_loop)


# --------------------------------------------------------------------------- #
# Expression tests


def test_expression_tests():
    select_call = ops.find("select(_, _, _, _)")
    cond, zero, relu_call, sin_call = select_call.args()
    assert I.is_select(ops, select_call) and I.is_builtin(ops, select_call, "select")
    assert I.is_relu(ops, relu_call) and I.is_sin(ops, sin_call)
    assert not I.is_relu(ops, sin_call) and not I.is_select(ops, cond)
    assert I.is_literal(ops, zero) and I.is_literal(ops, zero, 0.0)
    assert not I.is_literal(ops, zero, 1.0) and not I.is_literal(ops, cond)
    sub = ops.find("_ / 2.0 - _")
    div, read = sub.lhs(), sub.rhs()
    assert I.is_sub(ops, sub) and I.is_binop(ops, sub) and I.is_binop(ops, sub, "-")
    assert I.is_div(ops, div) and not I.is_add(ops, div) and not I.is_mul(ops, div)
    index = div.lhs().idx()[0]
    assert I.is_mod(ops, index) and I.is_add(ops, index.lhs())
    assert I.is_mul(foo, foo.find("x[i] * 2.0"))
    assert I.is_read(ops, read) and I.is_read(ops, read, "x")
    assert not I.is_read(ops, read, "y") and not I.is_read(ops, sub)
    assert I.is_unary_minus(foo, foo.find("-x[i]"))
    assert not I.is_unary_minus(foo, foo.find("x[i] * 2.0"))


@proc
def band_rows(n: size, k: size, A: f32[n, 8], x: f32[n], y: f32[n]):
    for i in seq(0, n):
        acc: f32
        acc = 0.0
        for d in seq(0, 8):
            if i + d >= k and i + d < n and d < 7:
                acc += A[i, d] * x[i + d - k]
                y[i + d - k] += A[i, d]
        if i < k:
            y[i] += acc


def test_get_conjuncts():
    guard = band_rows.find("if _: _ #0").cond()
    parts = I.get_conjuncts(band_rows, guard)
    assert [I.expr_to_string(c) for c in parts] == [
        "(((i)+(d))>=(k))",
        "(((i)+(d))<(n))",
        "((d)<(7))",
    ]
    one = band_rows.find("if _: _ #1").cond()
    assert I.get_conjuncts(band_rows, one) == [one]


def test_get_loop_carried_reductions():
    row = band_rows.find_loop("d")
    assert I.get_loop_carried_reductions(band_rows, row) == [band_rows.find("acc += _")]
    rows = band_rows.find_loop("i")
    assert I.get_loop_carried_reductions(band_rows, rows) == []
    assert I.get_loop_carried_reductions(foo, foo.find_loop("i")) == [
        foo.find("acc += _")
    ]


def test_access_tests():
    reduce, assign = foo.find("acc += _"), foo.find("y[i] = _")
    assert I.is_reduce(foo, reduce) and not I.is_reduce(foo, assign)
    assert I.is_assign(foo, assign) and not I.is_assign(foo, reduce)
    assert I.is_write(foo, reduce) and I.is_write(foo, assign)
    assert not I.is_write(foo, foo.find("acc: _"))
    assert I.is_access(foo, reduce) and I.is_access(foo, reduce.rhs().lhs())
    assert not I.is_access(foo, reduce.rhs())


# --------------------------------------------------------------------------- #
# Structure


def test_start_and_end_of_body_and_depth():
    body = nest.find_loop("i").body()
    assert I.is_start_of_body(nest, body[0]) and not I.is_start_of_body(nest, body[1])
    assert I.is_end_of_body(nest, body[3]) and not I.is_end_of_body(nest, body[2])
    assert I.get_depth(nest, InvalidCursor()) == 1
    assert I.get_depth(nest, nest.find_loop("i")) == 2
    assert I.get_depth(nest, body[0]) == 3
    assert I.get_depth(nest, nest.find("a[i, j] = _").rhs().lhs()) == 6


def test_lowest_common_ancestor_and_distance():
    a_write, b_write = nest.find("a[i, j] = _"), nest.find("b[i, k] = _")
    assert I.get_lca(nest, a_write, b_write) == nest.find_loop("i")
    assert I.get_lca(nest, a_write.rhs(), a_write.idx()[0]) == a_write
    assert I.get_lca(nest, a_write, nest.find_loop("j")) == nest.find_loop("j")
    assert I.get_distance(nest, a_write, b_write) == 4
    assert I.get_distance(nest, a_write.rhs().lhs(), a_write) == 2
    assert I.get_distance(nest, a_write, a_write) == 0
    with pytest.raises(
        CursorNavigationError, match="these cursors do not have a common ancestor"
    ):
        I.get_lca(foo, foo.find("acc = _"), foo.find_loop("i"))


def test_are_exprs_equal_compares_structure():
    reads = foo.find("x[i]", many=True)
    assert I.are_exprs_equal(foo, reads[0], reads[1])
    assert not I.are_exprs_equal(foo, reads[0], foo.find("y[i] = _").idx()[0])
    assert not I.are_exprs_equal(foo, foo.find("x[i] * 2.0"), foo.find("-x[i]"))
    sin_args = ops.find("sin(_)").args()[0]
    assert I.are_exprs_equal(ops, ops.find("relu(_)").args()[0], sin_args)
    # a control literal 2 differs from the data literal 2.0
    assert not I.are_exprs_equal(
        foo, foo.find("i < 2").rhs(), foo.find("x[i] * 2.0").rhs()
    )


def test_are_exprs_equal_tells_points_from_intervals():
    @proc
    def windows(x: f32[8, 8]):
        w1 = x[0:4, 4]
        w2 = x[0, 4:4]
        w3 = x[0:4, 4]

    w1, w2, w3 = [windows.find(f"w{k} = _").winexpr() for k in (1, 2, 3)]
    stmt = windows.find("w1 = _")
    assert list(I.get_children(windows, stmt)) == [w1]
    # an interval gives both bounds, a point one expression
    assert [c.value() for c in I.get_children(windows, w1)] == [0, 4, 4]
    assert list(I.get_symbols(windows, stmt)) == ["x", "w1"]
    assert I.are_exprs_equal(windows, w1, w3)
    assert not I.are_exprs_equal(windows, w1, w2)


def test_is_copy_compares_memories_of_the_buffers():
    @proc
    def copies(x: f32[8] @ DRAM, y: f32[8] @ DRAM_STATIC):
        t: f32[8] @ DRAM
        for i in seq(0, 8):
            t[i] = x[i]
            t[i] = y[i]
            t[i] = x[i] + 1.0
            t[i] = 0.0
        w = x[2:6]
        for i in seq(0, 4):
            t[i] = w[i]

    assigns = copies.find("t = _", many=True)
    assert [I.is_copy(copies, a) for a in assigns] == [True, False, False, False, True]
    assert not I.is_copy(copies, copies.find_loop("i"))


def test_get_bounding_block():
    a_write, b_write = nest.find("a[i, j] = _"), nest.find("b[i, k] = _")
    block = I.get_bounding_block(nest, [b_write.rhs(), a_write])
    assert isinstance(block, BlockCursor)
    assert list(block) == list(nest.find_loop("i").body()[0:4])
    assert (
        I.get_bounding_block(nest, [nest.find("t = _")])
        == nest.find("t = _").as_block()
    )
    block = I.get_bounding_block(nest, [nest.find("t = _"), nest.find("t: _")])
    assert list(block) == [nest.find("t: _"), nest.find("t = _")]


def test_expr_to_string_is_fully_parenthesised_and_reparses():
    assert I.expr_to_string(foo.find("x[i] * 2.0")) == "((x[(i)])*(2.0))"
    assert I.expr_to_string(foo.find("-x[i]")) == "(-(x[(i)]))"
    assert I.expr_to_string(foo.find("i < 2")) == "((i)<(2))"
    assert I.expr_to_string(foo.find("x[i] * 2.0"), {"i": "k + 1"}) == (
        "((x[(k + 1)])*(2.0))"
    )
    assert I.expr_to_string(ops.find("relu(_)")) == "(relu((x[(i)])))"
    assert I.expr_to_string(nest.find("a[i, j] = _").idx()) == "[(i), (j)]"
    assert I.expr_to_string(foo.find("y[0] = _").rhs().idx()) == ""
    loop = foo.find_loop("i")
    hi_text = I.expr_to_string(loop.hi(), {"n": "n - 1"})
    assert hi_text == "(n - 1)"
    assert "for i in seq(0, n - 1):" in str(cut_loop(foo, loop, hi_text))
    index = ops.find("x[(i + 1) % 8]").idx()[0]
    assert I.expr_to_string(index) == "(((i)+(1))%(8))"
    rewritten = rewrite_expr(ops, index, I.expr_to_string(index))
    assert str(rewritten) == str(ops)


def test_expr_to_string_refusals():
    @config
    class Cfg:
        scale: f32

    @proc
    def uses_config(x: f32[8]):
        x[0] = Cfg.scale
        w = x[0:4]

    with pytest.raises(SchedulingError, match="ReadConfigCursor is not supported"):
        I.expr_to_string(uses_config.find("x[0] = _").rhs())
    with pytest.raises(SchedulingError, match="WindowExprCursor is not supported"):
        I.expr_to_string(uses_config.find("w = _").winexpr())
    with pytest.raises(SchedulingError, match="Cursor must be an ExprCursor"):
        I.expr_to_string(uses_config.find("w = _"))


# --------------------------------------------------------------------------- #
# exo2.stdlib.analysis


def test_get_observed_stmts_walks_backwards_and_outwards():
    b_write = nest.find("b[i, k] = _")
    assert list(get_observed_stmts(b_write)) == [
        nest.find_loop("k"),
        nest.find("t = _"),
        nest.find("t: _"),
        nest.find_loop("j"),
        nest.find_loop("i"),
    ]
    # the else-branch does not see the then-branch
    assert list(get_observed_stmts(foo.find("y[i] = _"))) == [
        foo.find("if _: _"),
        foo.find_loop("i"),
        foo.find("acc = _"),
        foo.find("acc: _"),
    ]
    assert list(get_observed_stmts(foo.find("acc: _"))) == []
    with pytest.raises(TypeError, match="stmt_cursor must be an instance of"):
        get_observed_stmts(foo.find("x[i] * 2.0"))


@proc
def in_dram(n: size, a: [f32][n] @ DRAM):
    a[0] = 0.0


@proc
def in_avx2(a: [f32][8] @ AVX2):
    a[0] = 0.0


def test_check_call_mem_types():
    @proc
    def caller(n: size, x: f32[n] @ DRAM_STATIC, z: f32[8] @ DRAM):
        in_dram(n, x)
        in_avx2(z)
        v: f32[8] @ AVX2
        in_avx2(v)
        w = x[0:n]
        in_dram(n, w)
        if n > 2:
            x: f32[8] @ AVX2
            in_avx2(x)

    calls = caller.find("_(_)", many=True)
    assert [check_call_mem_types(c) for c in calls] == [True, False, True, True, True]
    with pytest.raises(TypeError, match="call_cursor must be a CallCursor"):
        check_call_mem_types(caller.find("v: _"))


def test_star_import_gives_what_exo_programs_use():
    # Exo's module has no __all__, so `import *` also gives what it imports.
    names = {}
    exec("from exo2.stdlib.inspection import *", names)
    for name in ["CursorNavigationError", "get_children", "lrn", "get_enclosing_loop"]:
        assert names[name] is getattr(I, name)
    for name in [
        "DRAM",
        "AVX2",
        "ForCursor",
        "SchedulingError",
        "proc",
        "mm256_loadu_ps",
    ]:
        assert name in names
