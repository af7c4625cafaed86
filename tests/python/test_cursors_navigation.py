"""Cursors: getting, navigating and inspecting them on a dozen kernels
(spec/cursors.md §1–§5, §8)."""

# ruff: noqa: F821, F841, E501, E712

from __future__ import annotations

import pytest
from exo2 import DRAM, ExoType, Procedure, SchedulingError, proc
from exo2.API_cursors import (
    AllocCursor,
    ArgCursor,
    AssignConfigCursor,
    AssignCursor,
    BinaryOpCursor,
    BlockCursor,
    CallCursor,
    Cursor,
    ExprCursor,
    ExprListCursor,
    ExternFunctionCursor,
    ForCursor,
    GapCursor,
    IfCursor,
    InvalidCursor,
    InvalidCursorError,
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
from exo2.core.internal_cursors import GapType
from exo2.libs.externs import relu
from kernels.configs import TileCfg


@proc
def foo(n: size, x: f32[n]):
    assert n % 4 == 0
    for i in seq(0, n):
        x[i] = 0.0
        x[i] += 1.0


@proc
def sgemm(M: size, N: size, K: size, A: f32[M, K], B: f32[K, N], C: f32[M, N]):
    for i in seq(0, M):
        for j in seq(0, N):
            for k in seq(0, K):
                C[i, j] += A[i, k] * B[k, j]


@proc
def branches(n: size, x: f32[n], flag: bool):
    if n < 4:
        x[0] = 1.0
    else:
        x[0] = 2.0
        x[1] = 3.0
    if flag:
        pass


@proc
def allocs(n: size, x: f32[n]):
    tmp: f32[n, 4] @ DRAM
    acc: R
    acc = 0.0
    for i in seq(0, n):
        tmp[i, 0] = x[i]
        acc += tmp[i, 0]


@proc
def windows(n: size, x: f32[n, 8]):
    y = x[0:n, 2]
    for i in seq(0, n):
        y[i] = 1.0


@proc
def configs(x: f32[4]):
    TileCfg.alpha = 2.0
    x[0] = TileCfg.alpha


@proc
def callee(n: size, x: f32[n]):
    for i in seq(0, n):
        x[i] = 0.0


@proc
def caller(n: size, x: f32[n]):
    callee(n, x)
    callee(n, x[0:n])


@proc
def externs(n: size, x: f32[n]):
    for i in seq(0, n):
        x[i] = relu(x[i])


@proc
def strides(n: size, x: [f32][n, n]):
    for i in seq(0, n):
        if stride(x, 1) == 1:
            x[i, 0] = 1.0


@proc
def literals(n: size, x: f32[n], b: bool):
    assert n > 4
    for i in seq(0, n):
        if b == True:
            x[i] = 3.5
    for j in seq(2, n - 1):
        x[j] = -x[j]


@proc
def nest(n: size, x: f32[n, n]):
    for i in seq(0, n):
        for j in seq(0, n):
            x[i, j] = 0.0
        for j in seq(0, n):
            x[i, j] += 1.0
    x[0, 0] = 2.0


@proc
def noargs():
    pass


# --- getting cursors ----------------------------------------------------


def test_args_list_parameters_and_empty_signature_gives_list():
    args = sgemm.args()
    assert [a.name() for a in args] == ["M", "N", "K", "A", "B", "C"]
    assert len(args) == 6
    assert isinstance(args[3], ArgCursor)
    assert [a.name() for a in args[1:3]] == ["N", "K"]
    assert args[-1].name() == "C"
    assert noargs.args() == []


def test_body_is_a_block_over_the_whole_body():
    body = branches.body()
    assert isinstance(body, BlockCursor)
    assert len(body) == 2
    assert all(isinstance(s, IfCursor) for s in body)
    assert body.parent() == InvalidCursor()
    assert not body.anchor()


def test_find_returns_the_most_specific_cursor():
    assert isinstance(foo.find("x[_] = _"), AssignCursor)
    assert isinstance(foo.find("x[_] += _"), ReduceCursor)
    block = foo.find("x[_] = _; x[_] += _")
    assert isinstance(block, BlockCursor) and len(block) == 2
    assert isinstance(foo.find("for i in _: _"), ForCursor)


def test_find_many_and_numbered_matches():
    loops = nest.find("for j in _: _", many=True)
    assert len(loops) == 2
    assert nest.find("for j in _: _ #1") == loops[1]
    assert nest.find_all("for _ in _: _") == [nest.find_loop("i"), *loops]
    assert nest.find_loop("j #1") == loops[1]
    assert nest.find("for j in _: _ #1", many=True) == [loops[1]]


def test_find_failure_names_find_and_the_pattern():
    with pytest.raises(SchedulingError) as e:
        foo.find("y = _")
    assert str(e.value) == (
        "find: failed to find matches\nPattern: y = _\nHint: buffers here: x"
    )
    with pytest.raises(SchedulingError, match="find: failed"):
        foo.find_loop("k")
    with pytest.raises(TypeError, match="expected a pattern string"):
        foo.find_loop(3)
    with pytest.raises(TypeError, match="expected a pattern string"):
        foo.find(None)


def test_find_alloc_or_arg_prefers_parameters():
    assert isinstance(allocs.find_alloc_or_arg("x"), ArgCursor)
    assert isinstance(allocs.find_alloc_or_arg("tmp"), AllocCursor)
    assert allocs.find_alloc_or_arg("acc").name() == "acc"
    assert allocs.find_alloc_or_arg("acc: _").name() == "acc"


def test_cursor_find_searches_its_subtree_and_blocks_search_each_statement():
    inner = nest.find_loop("j #1")
    assert inner.find("x[_] += _").name() == "x"
    with pytest.raises(SchedulingError):
        inner.find("x[_] = _")
    body = nest.find_loop("i").body()
    assert len(body.find("x[_] = _", many=True)) == 1
    assert isinstance(nest.find("x[_] += _").find("1.0"), LiteralCursor)


def test_cursors_cannot_be_constructed_directly():
    with pytest.raises(TypeError, match="Do not try to directly construct a Cursor"):
        Cursor(None, foo)
    with pytest.raises(TypeError, match="Do not try to directly construct a Cursor"):
        ForCursor("loop", foo)


# --- navigation ---------------------------------------------------------


def test_parent_of_statements_expressions_gaps_and_blocks():
    red = sgemm.find("C[_] += _")
    k_loop = sgemm.find_loop("k")
    assert red.parent() == k_loop
    assert k_loop.parent() == sgemm.find_loop("j")
    assert sgemm.find_loop("i").parent() == InvalidCursor()
    mul = red.rhs()
    assert mul.parent() == red
    assert mul.lhs().parent() == mul
    assert red.before().parent() == k_loop
    assert k_loop.body().parent() == k_loop
    assert sgemm.args()[0].parent() == InvalidCursor()


def test_parent_of_window_bounds_is_the_window_expression():
    win = windows.find("y = _").winexpr()
    lo, hi = win.idx()[0]
    assert lo.parent() == win
    assert win.idx()[1].parent() == win


def test_next_and_prev_with_distances():
    first = allocs.body()[0]
    assert first.next() == allocs.body()[1]
    assert first.next(3) == allocs.find_loop("i")
    assert first.next(4) == InvalidCursor()
    assert first.prev() == InvalidCursor()
    assert allocs.find_loop("i").prev(2) == allocs.body()[1]
    assert not first.prev(1)


def test_gaps_are_anchored_to_statements():
    red = foo.find("x[_] += _")
    before, after = red.before(), red.after()
    assert isinstance(before, GapCursor)
    assert before.type() == GapType.Before
    assert after.type() == GapType.After
    assert before.anchor() == red
    body = foo.find_loop("i").body()
    assert body.before() == foo.find("x[_] = _").before()
    assert body.after() == red.after()


def test_blocks_index_slice_and_iterate():
    body = allocs.body()
    assert len(body) == 4
    assert body[-1] == allocs.find_loop("i")
    assert isinstance(body[1:3], BlockCursor)
    assert list(body[1:3]) == [body[1], body[2]]
    with pytest.raises(IndexError):
        body[4]
    with pytest.raises(IndexError, match="block cursors must be contiguous"):
        body[0:4:2]
    assert body.as_block() is body


def test_expand_grows_to_edges_and_rejects_negative_deltas():
    s = allocs.body()[1]
    assert s.expand(1, 0) == allocs.body()[0:2]
    assert s.expand(0, 10) == allocs.body()[1:4]
    assert s.expand() == allocs.body()
    assert s.as_block().expand(delta_lo=0) == allocs.body()[1:]
    with pytest.raises(ValueError, match="delta_lo must be non-negative"):
        s.expand(-1)
    with pytest.raises(ValueError, match="delta_hi must be non-negative"):
        s.expand(0, -1)


def test_block_anchor_is_the_owning_statement():
    loop = nest.find_loop("i")
    assert loop.body().anchor() == loop
    orelse = branches.find("if n < 4: _").orelse()
    assert orelse.anchor() == branches.body()[0]
    assert len(orelse) == 2


def test_is_ancestor_of_nodes_blocks_and_gaps():
    outer = sgemm.find_loop("i")
    red = sgemm.find("C[_] += _")
    assert outer.is_ancestor_of(red)
    assert outer.is_ancestor_of(outer)
    assert outer.is_ancestor_of(red.after())
    assert outer.is_ancestor_of(sgemm.find_loop("k").body())
    assert not red.is_ancestor_of(outer)


def test_if_orelse_is_invalid_without_else():
    assert branches.body()[1].orelse() == InvalidCursor()
    assert isinstance(branches.body()[1].body()[0], PassCursor)


# --- inspection ---------------------------------------------------------


def test_arg_inspection():
    n, x = foo.args()
    assert n.name() == "n" and not n.is_tensor()
    assert n.type() == ExoType.Size
    assert x.is_tensor() and x.type() == ExoType.F32
    assert x.mem() is DRAM
    shape = x.shape()
    assert isinstance(shape, ExprListCursor) and len(shape) == 1
    assert shape[0].name() == "n"
    with pytest.raises(AssertionError):
        n.mem()
    with pytest.raises(AssertionError):
        n.shape()


def test_alloc_inspection():
    tmp = allocs.find("tmp : _")
    assert tmp.name() == "tmp" and tmp.is_tensor()
    assert tmp.type() == ExoType.F32 and tmp.mem() is DRAM
    assert [
        str(d.name()) if isinstance(d, ReadCursor) else d.value() for d in tmp.shape()
    ] == ["n", 4]
    acc = allocs.find("acc : _")
    assert acc.type() == ExoType.R and not acc.is_tensor()
    with pytest.raises(AssertionError):
        acc.shape()


def test_assign_and_reduce_inspection():
    a = allocs.find("tmp[_] = _")
    assert a.name() == "tmp" and a.type() == ExoType.F32
    assert [i.name() if isinstance(i, ReadCursor) else i.value() for i in a.idx()] == [
        "i",
        0,
    ]
    assert isinstance(a.rhs(), ReadCursor) and a.rhs().name() == "x"
    r = allocs.find("acc += _")
    assert r.name() == "acc" and len(r.idx()) == 0
    assert r.rhs().idx()[1].value() == 0


def test_loop_and_if_inspection():
    loop = literals.find_loop("j")
    assert loop.name() == "j"
    assert loop.lo().value() == 2
    hi = loop.hi()
    assert isinstance(hi, BinaryOpCursor) and hi.op() == "-"
    assert hi.lhs().name() == "n" and hi.rhs().value() == 1
    assert hi.type() == ExoType.Index or hi.type() == ExoType.Size
    cond = literals.find("if _: _").cond()
    assert cond.op() == "==" and cond.rhs().value() is True
    assert cond.type() == ExoType.Bool


def test_literal_values_have_python_types():
    assert literals.find("3.5").value() == 3.5
    assert isinstance(literals.find("3.5").value(), float)
    assert isinstance(literals.find_loop("j").lo().value(), int)
    zero = foo.find("x[_] = _").rhs()
    assert isinstance(zero, LiteralCursor) and zero.value() == 0.0
    assert zero.type() == ExoType.F32 or zero.type() == ExoType.R


def test_unary_minus_and_binary_op_inspection():
    neg = literals.find("-x[_]")
    assert isinstance(neg, UnaryMinusCursor)
    assert neg.arg().name() == "x"
    mul = sgemm.find("A[_] * B[_]")
    assert mul.op() == "*" and mul.lhs().name() == "A" and mul.rhs().name() == "B"


def test_config_cursors():
    w = configs.find("TileCfg.alpha = _")
    assert isinstance(w, AssignConfigCursor)
    assert w.config() is TileCfg and w.field() == "alpha"
    assert w.rhs().value() == 2.0
    r = configs.find("TileCfg.alpha")
    assert isinstance(r, ReadConfigCursor)
    assert r.config() is TileCfg and r.field() == "alpha"


def test_call_cursors():
    c = caller.find("callee(_)")
    assert isinstance(c, CallCursor)
    sub = c.subproc()
    assert isinstance(sub, Procedure) and sub.name() == "callee"
    assert str(sub) == str(callee)
    assert [a.name() for a in c.args()] == ["n", "x"]
    win = caller.find("callee(_) #1").args()[1]
    assert isinstance(win, WindowExprCursor)
    lo, hi = win.idx()[0]
    assert lo.value() == 0 and hi.name() == "n"


def test_window_statement_cursors():
    w = windows.find("y = _")
    assert isinstance(w, WindowStmtCursor) and w.name() == "y"
    win = w.winexpr()
    assert win.name() == "x"
    interval, point = win.idx()
    assert isinstance(interval, tuple)
    assert point.value() == 2
    assert windows.find("x[_]") == win


def test_extern_cursors():
    e = externs.find("relu(_)")
    assert isinstance(e, ExternFunctionCursor)
    assert e.name() == "relu"
    assert e.args()[0].name() == "x"
    assert e.type() == ExoType.F32


def test_stride_cursors():
    s = strides.find("stride(x, 1)")
    assert isinstance(s, StrideExprCursor)
    assert s.name() == "x" and s.dim() == 1
    assert s.type() == ExoType.Stride


def test_accessors_exist_only_on_their_class():
    with pytest.raises(AttributeError):
        foo.find("x[_] = _").body()
    with pytest.raises(AttributeError):
        foo.find_loop("i").rhs()


# --- invalid cursors and equality ---------------------------------------


def test_invalid_cursor_semantics():
    inv = foo.body()[0].prev()
    assert isinstance(inv, InvalidCursor) and not inv
    assert inv.parent() is inv
    with pytest.raises(
        InvalidCursorError, match="Cannot get the Procedure of an invalid cursor"
    ):
        inv.proc()
    with pytest.raises(InvalidCursorError, match="Trying to print the Invalid Cursor!"):
        str(inv)


def test_equality_needs_same_class_location_and_procedure():
    assert foo.find_loop("i") == foo.find_loop("i")
    assert foo.find_loop("i") != foo.find_loop("i").as_block()
    assert foo.find_loop("i") != nest.find_loop("i")
    assert hash(foo.find_loop("i")) == hash(foo.find_loop("i"))
    assert foo.find_loop("i").proc() is foo


# --- printing (printing.md §7) -------------------------------------------


def test_printing_marks_statements_gaps_and_blocks():
    c = foo.find("x[_] += _")
    head = "def foo(n: size, x: f32[n] @ DRAM):\n    for i in seq(0, n):\n"
    assert str(c) == head + "        x[i] = 0.0\n        x[i] += 1.0  # <-- NODE"
    assert str(c.before()) == (
        head + "        x[i] = 0.0\n        [GAP - Before]\n        x[i] += 1.0"
    )
    assert str(foo.find_loop("i").after()) == (
        head + "        x[i] = 0.0\n        x[i] += 1.0\n    [GAP - After]"
    )
    assert str(foo.find_loop("i").body()) == (
        head
        + "        # BLOCK START\n        x[i] = 0.0\n        x[i] += 1.0\n"
        + "        # BLOCK END"
    )
    assert str(foo.find_loop("i")).splitlines()[1].endswith("  # <-- NODE")


def test_printing_an_else_branch_statement():
    text = str(branches.find("x[1] = _"))
    assert "        x[1] = 3.0  # <-- NODE" in text.splitlines()


def test_expression_and_argument_cursors_do_not_print():
    message = "Cursor printing is only implemented for procs and statements"
    with pytest.raises(NotImplementedError, match=message):
        str(foo.find("x[_] = _").rhs())
    with pytest.raises(NotImplementedError, match=message):
        str(foo.args()[0])
    assert isinstance(foo.find("x[_] = _").rhs(), ExprCursor)
    assert isinstance(foo.find("x[_] = _"), StmtCursor)
