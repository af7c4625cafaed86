"""The buffer primitives (docs/primitives-buffers.md, with inline_window
and the legacy autolift_alloc / autofission): printed results, results of JIT runs before
and after, refusals with their texts, and forwarding of cursors taken
before each primitive."""

# ruff: noqa: F821, E501, B007

from __future__ import annotations

import pytest
from exo2 import ExoType, SchedulingError, _core, config, instr, proc
from exo2.API_cursors import InvalidCursorError
from exo2.stdlib.scheduling import (
    autofission,
    autolift_alloc,
    bind_expr,
    delete_buffer,
    divide_loop,
    inline_window,
    insert_pass,
    lift_alloc,
    reorder_loops,
    reuse_buffer,
    simplify,
    sink_alloc,
    stage_mem,
)
from schedule_check import assert_same_results


@config
class Cfg:
    k: index


def body_text(p):
    """The printed procedure without its `def` line and assertions."""
    lines = str(p).split("):\n", 1)[1].split("\n")
    return "\n".join(line for line in lines if not line.startswith("    assert"))


@proc
def matmul(M: size, N: size, K: size, A: f32[M, K], B: f32[K, N], C: f32[M, N]):
    assert M % 4 == 0
    assert N % 4 == 0
    for i in seq(0, M):
        for j in seq(0, N):
            for k in seq(0, K):
                C[i, j] += A[i, k] * B[k, j]


def tiled_matmul():
    p = divide_loop(matmul, "i", 4, ["io", "ii"], perfect=True)
    p = divide_loop(p, "j", 4, ["jo", "ji"], perfect=True)
    return reorder_loops(p, "ii jo")


MATMUL_SIZES = {"M": 8, "N": 12, "K": 5}
TILE = "C[4 * io:4 * io + 4, 4 * jo:4 * jo + 4]"


# ---- stage_mem ----------------------------------------------------------------


def test_stage_mem_accumulates_a_matmul_tile():
    p = tiled_matmul()
    tile = p.find_loop("ii")
    update = p.find("C[_] += _")
    q = stage_mem(p, tile, TILE, "Ctile", accum=True)
    assert body_text(simplify(q)) == (
        "    for io in seq(0, M / 4):\n"
        "        for jo in seq(0, N / 4):\n"
        "            Ctile: f32[4, 4] @ DRAM\n"
        "            for i0 in seq(0, 4):\n"
        "                for i1 in seq(0, 4):\n"
        "                    Ctile[i0, i1] = 0.0\n"
        "            for ii in seq(0, 4):\n"
        "                for ji in seq(0, 4):\n"
        "                    for k in seq(0, K):\n"
        "                        Ctile[ii, ji] += A[ii + 4 * io, k] * B[k, ji + 4 * jo]\n"
        "            for i0 in seq(0, 4):\n"
        "                for i1 in seq(0, 4):\n"
        "                    C[i0 + 4 * io, i1 + 4 * jo] += Ctile[i0, i1]"
    )
    # Block statements keep their identity; the nests are next to them.
    assert q.forward(tile) == q.find_loop("ii")
    assert q.forward(update) == q.find("Ctile[_] += _")
    assert q.forward(tile).prev() == q.find_loop("i0")
    assert q.forward(tile).prev().prev() == q.find("Ctile : _")
    assert q.forward(tile).next() == q.find_loop("i0 #1")
    assert_same_results(matmul, q, MATMUL_SIZES)


def test_stage_mem_loads_and_stores_a_matmul_tile():
    p = tiled_matmul()
    q = stage_mem(p, p.find_loop("ii"), TILE, "Ctile")
    text = body_text(q)
    assert (
        "            Ctile: f32[4 * io + 4 - 4 * io, 4 * jo + 4 - 4 * jo] @ DRAM\n"
        "            for i0 in seq(0, 4 * io + 4 - 4 * io):\n"
        "                for i1 in seq(0, 4 * jo + 4 - 4 * jo):\n"
        "                    Ctile[i0, i1] = C[i0 + 4 * io, i1 + 4 * jo]\n"
    ) in text
    assert ("                    C[i0 + 4 * io, i1 + 4 * jo] = Ctile[i0, i1]") in text
    assert "if " not in text  # every access provably in bounds: no guards
    assert_same_results(matmul, q, MATMUL_SIZES)


def test_stage_mem_drops_point_dimensions():
    p = tiled_matmul()
    loop = p.find_loop("ji")
    q = stage_mem(p, loop, "C[4 * io + ii, 4 * jo:4 * jo + 4]", "Crow")
    assert body_text(simplify(q)) == (
        "    for io in seq(0, M / 4):\n"
        "        for jo in seq(0, N / 4):\n"
        "            for ii in seq(0, 4):\n"
        "                Crow: f32[4] @ DRAM\n"
        "                for i0 in seq(0, 4):\n"
        "                    Crow[i0] = C[ii + 4 * io, i0 + 4 * jo]\n"
        "                for ji in seq(0, 4):\n"
        "                    for k in seq(0, K):\n"
        "                        Crow[ji] += A[ii + 4 * io, k] * B[k, ji + 4 * jo]\n"
        "                for i0 in seq(0, 4):\n"
        "                    C[ii + 4 * io, i0 + 4 * jo] = Crow[i0]"
    )
    assert_same_results(matmul, q, MATMUL_SIZES)


def test_stage_mem_stages_a_scalar_and_reads_panels():
    q = stage_mem(matmul, matmul.find_loop("k"), "C[i, j]", "acc")
    q = stage_mem(q, q.find_loop("k"), "A[i, 0:K]", "Arow")
    assert body_text(q) == (
        "    for i in seq(0, M):\n"
        "        for j in seq(0, N):\n"
        "            acc: f32 @ DRAM\n"
        "            acc = C[i, j]\n"
        "            Arow: f32[K - 0] @ DRAM\n"
        "            for i0 in seq(0, K - 0):\n"
        "                Arow[i0] = A[i, i0 + 0]\n"
        "            for k in seq(0, K):\n"
        "                acc += Arow[k - 0] * B[k, j]\n"
        "            C[i, j] = acc"
    )
    assert_same_results(matmul, q, MATMUL_SIZES)


@proc
def scale_tail(n: size, x: f32[n], y: f32[n]):
    for io in seq(0, (n + 3) / 4):
        for ii in seq(0, 4):
            if 4 * io + ii < n:
                y[4 * io + ii] = x[4 * io + ii] * 2.0


def test_stage_mem_guards_loads_and_stores_out_of_bounds():
    loop = scale_tail.find_loop("ii")
    p = stage_mem(scale_tail, loop, "x[4 * io:4 * io + 4]", "xs")
    p = stage_mem(p, p.forward(loop), "y[4 * io:4 * io + 4]", "ys")
    assert body_text(simplify(p)) == (
        "    for io in seq(0, (3 + n) / 4):\n"
        "        xs: f32[4] @ DRAM\n"
        "        for i0 in seq(0, 4):\n"
        "            if i0 + 4 * io < n:\n"
        "                xs[i0] = x[i0 + 4 * io]\n"
        "        ys: f32[4] @ DRAM\n"
        "        for ii in seq(0, 4):\n"
        "            if ii + 4 * io < n:\n"
        "                ys[ii] = xs[ii] * 2.0\n"
        "        for i0 in seq(0, 4):\n"
        "            if i0 + 4 * io < n:\n"
        "                y[i0 + 4 * io] = ys[i0]"
    )
    # The read-only stage has no store nest. The block writes every element
    # of y's window inside y, the only ones the store copies back: no load.
    for n in (1, 4, 10):
        assert_same_results(scale_tail, p, {"n": n})


def test_stage_mem_loads_a_tail_window_the_block_writes_only_in_part():
    @proc
    def scale_short(n: size, x: f32[n], y: f32[n]):
        for io in seq(0, (n + 3) / 4):
            for ii in seq(0, 4):
                if 4 * io + ii < n - 1:
                    y[4 * io + ii] = x[4 * io + ii] * 2.0

    p = stage_mem(
        scale_short, scale_short.find_loop("ii"), "y[4 * io:4 * io + 4]", "ys"
    )
    # y[n - 1] is inside y and never written: the store copies back what the
    # load read
    assert "                ys[i0] = y[i0 + 4 * io]\n" in body_text(simplify(p))
    for n in (1, 4, 10):
        assert_same_results(scale_short, p, {"n": n})


@proc
def fill(n: size, y: f32[n, 4]):
    for i in seq(0, n):
        for j in seq(0, 4):
            y[i, j] = 2.0


def test_stage_mem_write_only_block_has_no_load():
    loop = fill.find_loop("j")
    p = stage_mem(fill, loop, "y[i, 0:4]", "row")
    assert body_text(p) == (
        "    for i in seq(0, n):\n"
        "        row: f32[4 - 0] @ DRAM\n"
        "        for j in seq(0, 4):\n"
        "            row[j - 0] = 2.0\n"
        "        for i0 in seq(0, 4 - 0):\n"
        "            y[i, i0 + 0] = row[i0]"
    )
    assert p.forward(loop).next() == p.find_loop("i0")
    assert_same_results(fill, p, {"n": 3})


def test_stage_mem_point_window_written_first_has_no_load():
    @proc
    def twice(x: f32[4]):
        x[1] = 3.0
        x[1] += x[1]

    p = stage_mem(twice, twice.body(), "x[1]", "t")
    assert body_text(p) == ("    t: f32 @ DRAM\n    t = 3.0\n    t += t\n    x[1] = t")
    assert_same_results(twice, p, {})


def test_stage_mem_loads_a_point_written_only_under_an_if():
    @proc
    def maybe(m: size, x: f32[4]):
        if m > 3:
            x[0] = 2.0

    p = stage_mem(maybe, maybe.body()[0], "x[0]", "t")
    # When m <= 3 the store writes back what the load read.
    assert body_text(p) == (
        "    t: f32 @ DRAM\n    t = x[0]\n    if m > 3:\n        t = 2.0\n    x[0] = t"
    )
    for m in (1, 3, 4, 7):
        assert_same_results(maybe, p, {"m": m})


def test_stage_mem_loads_a_window_a_loop_may_not_write():
    @proc
    def zero_trip(m: size, x: f32[4]):
        for i in seq(0, m - 1):
            x[0] = 2.0

    p = stage_mem(zero_trip, zero_trip.find_loop("i"), "x[0]", "t")
    assert "    t = x[0]\n" in body_text(p)
    for m in (1, 2, 5):
        assert_same_results(zero_trip, p, {"m": m})

    @proc
    def one_short(x: f32[8]):
        for i in seq(0, 7):
            x[i] = 2.0

    p = stage_mem(one_short, one_short.find_loop("i"), "x[0:8]", "t")
    assert "t[i0] = x[i0 + 0]" in body_text(p)
    assert_same_results(one_short, p, {})


def test_stage_mem_loads_what_a_later_iteration_reads_first():
    @proc
    def backwards(x: f32[8]):
        for i in seq(0, 8):
            x[i] = 2.0
            x[7 - i] += 1.0

    p = stage_mem(backwards, backwards.find_loop("i"), "x[0:8]", "t")
    assert "t[i0] = x[i0 + 0]" in body_text(p)
    assert_same_results(backwards, p, {})


def test_stage_mem_leaves_out_the_load_a_block_overwrites_on_every_path():
    @proc
    def both_branches(m: size, x: f32[4]):
        if m > 3:
            x[0] = 2.0
        else:
            x[0] = 3.0
        x[0] += 1.0

    p = stage_mem(both_branches, both_branches.body(), "x[0]", "t")
    assert body_text(p) == (
        "    t: f32 @ DRAM\n"
        "    if m > 3:\n"
        "        t = 2.0\n"
        "    else:\n"
        "        t = 3.0\n"
        "    t += 1.0\n"
        "    x[0] = t"
    )
    for m in (1, 4):
        assert_same_results(both_branches, p, {"m": m})

    @proc
    def prefix_sum(x: f32[8], y: f32[8]):
        for i in seq(0, 8):
            if i < 4:
                x[i] = y[i]
            else:
                x[i] = 0.0
            if i > 0:
                x[i] += x[i - 1]

    p = stage_mem(prefix_sum, prefix_sum.find_loop("i"), "x[0:8]", "t")
    assert "= x[" not in body_text(p)
    assert_same_results(prefix_sum, p, {})


def test_stage_mem_leaves_out_the_load_of_a_zeroed_accumulator():
    @proc
    def row_sums(n: size, x: f32[n, 8], y: f32[n, 8]):
        for i in seq(0, n):
            for k in seq(0, 8):
                y[i, k] = 0.0
            for j in seq(0, n):
                for k in seq(0, 8):
                    y[i, k] += x[j, k]

    p = stage_mem(row_sums, row_sums.find_loop("i").body(), "y[i, 0:8]", "acc")
    assert body_text(simplify(p)) == (
        "    for i in seq(0, n):\n"
        "        acc: f32[8] @ DRAM\n"
        "        for k in seq(0, 8):\n"
        "            acc[k] = 0.0\n"
        "        for j in seq(0, n):\n"
        "            for k in seq(0, 8):\n"
        "                acc[k] += x[j, k]\n"
        "        for i0 in seq(0, 8):\n"
        "            y[i, i0] = acc[i0]"
    )
    for n in (1, 2, 5):
        assert_same_results(row_sums, p, {"n": n})


def test_stage_mem_refuses_a_window_the_block_moves():
    @proc
    def moving(x: f32[8]):
        for i in seq(0, 4):
            x[Cfg.k % 8] = 1.0
            Cfg.k = Cfg.k + 1

    # The store after the loop would write x[Cfg.k % 8] for the new Cfg.k.
    with pytest.raises(SchedulingError) as e:
        stage_mem(moving, moving.find_loop("i"), "x[Cfg.k % 8]", "t")
    assert str(e.value).startswith(
        "stage_mem: "
        + "Cannot stage 'x': the staged window reads Cfg.k, which is written at "
    )


def test_stage_mem_refuses_changing_a_stride_a_callee_asserts():
    @proc
    def zero_column(n: size, a: [f32][n]):
        assert stride(a, 0) == 8
        for i in seq(0, n):
            a[i] = 0.0

    @proc
    def column_call(x: f32[4, 8]):
        zero_column(4, x[0:4, 1])

    call = column_call.find("zero_column(_)")
    # Staged alone, the column would be a dense f32[4] with stride 1.
    with pytest.raises(SchedulingError) as e:
        stage_mem(column_call, call, "x[0:4, 1]", "col")
    assert str(e.value).startswith(
        "stage_mem: " + "Cannot stage 'x': the window x[0:4, 1] at "
    )
    assert str(e.value).endswith(
        "passes on stride(x, 0), which the staging buffer would change"
    )
    p = stage_mem(column_call, call, "x[0:4, 0:8]", "tile")
    assert "zero_column(4, tile[0 - 0:4 - 0, 1 - 0])" in str(p)
    assert_same_results(column_call, p, {})


def test_stage_mem_refuses_accum_with_a_read():
    @proc
    def copy_add(n: size, x: f32[n], y: f32[n]):
        for i in seq(0, n):
            y[i] = y[i] + x[i]

    with pytest.raises(SchedulingError) as e:
        stage_mem(copy_add, copy_add.find_loop("i"), "y[0:n]", "ys", accum=True)
    assert str(e.value) == (
        "stage_mem: "
        + "The buffer y is accessed in a way other than simply reducing into it"
    )


def test_stage_mem_refuses_accesses_partly_in_the_window():
    with pytest.raises(SchedulingError) as e:
        stage_mem(fill, fill.find_loop("j"), "y[i, 0:2]", "half")
    assert str(e.value) == "stage_mem: " + (
        "Buffer has accesses which are neither fully within nor disjoint "
        "from the window"
    )


def test_stage_mem_refuses_wrong_index_count_and_unaccessed_buffer():
    with pytest.raises(SchedulingError) as e:
        stage_mem(fill, fill.find_loop("j"), "y[i]", "row")
    assert str(e.value) == (
        "stage_mem: " + "expected windowing of 'y' to have 2 indices, but only got 1"
    )
    with pytest.raises(SchedulingError) as e:
        stage_mem(fill, fill.find_loop("j"), "y[i + 1, 0:4]", "row")
    assert str(e.value) == "stage_mem: " + (
        "Cannot stage 'y' with the given window shape. Wrong window shape, "
        "or 'y' not accessed in the given scope?"
    )


def test_stage_mem_refuses_bad_window_strings():
    with pytest.raises(ValueError, match="expected windowing string of the form"):
        stage_mem(fill, fill.find_loop("j"), "y[i, :4]", "row")
    with pytest.raises(ValueError, match="expected windowing string of the form"):
        stage_mem(fill, fill.find_loop("j"), "y + 1", "row")
    with pytest.raises(TypeError, match="argument 3, 'new_buf_name' to stage_mem"):
        stage_mem(fill, fill.find_loop("j"), "y[i, 0:4]", "not a name")


def test_stage_mem_refuses_an_access_through_another_window():
    @proc
    def through_window(x: f32[8]):
        w = x[0:4]
        for i in seq(0, 4):
            x[i] = w[i] + 1.0

    with pytest.raises(SchedulingError, match="through 'w'"):
        stage_mem(through_window, through_window.find_loop("i"), "x[0:4]", "xs")


# ---- bind_expr ----------------------------------------------------------------


@proc
def doubled(n: size, x: f32[n], y: f32[n], z: f32[n]):
    for i in seq(0, n):
        y[i] = x[i] * 2.0 + 1.0
        z[i] = x[i] * 2.0
        x[i] = 0.0
        y[i] += x[i] * 2.0


def test_bind_expr_replaces_copies_up_to_a_write():
    exprs = doubled.find("x[_] * 2.0", many=True)
    p = bind_expr(doubled, exprs[:2], "b")
    assert body_text(p) == (
        "    for i in seq(0, n):\n"
        "        b: f32 @ DRAM\n"
        "        b = x[i] * 2.0\n"
        "        y[i] = b + 1.0\n"
        "        z[i] = b\n"
        "        x[i] = 0.0\n"
        "        y[i] += x[i] * 2.0"
    )
    assert p.forward(exprs[1]).parent() == p.find("z[_] = _")
    assert p.forward(doubled.find("x[_] = 0.0")) == p.find("x[_] = 0.0")
    assert_same_results(doubled, p, {"n": 6})


def test_bind_expr_buffer_has_the_type_of_the_expression():
    """A data operation mixing `R` and a precision has its left operand's
    type, as in Exo: `2.0 * a` is `R`, so its binding is an `R` buffer."""

    @proc
    def scale(n: size, a: i8[n], b: i8[n]):
        for i in seq(0, n):
            b[i] = 2.0 * a[i]
            a[i] = a[i] * 2.0

    assert scale.find("b[_] = _").rhs().type() == ExoType.R
    assert scale.find("a[_] = _").rhs().type() == ExoType.I8
    p = bind_expr(scale, scale.find("2.0 * a[_]"), "t")
    assert "        t: R @ DRAM\n        t = 2.0 * a[i]\n" in str(p)
    q = bind_expr(scale, scale.find("a[_] * 2.0"), "t")
    assert "        t: i8 @ DRAM\n        t = a[i] * 2.0\n" in str(q)
    assert_same_results(scale, p, {"n": 5})
    assert_same_results(scale, q, {"n": 5})


def test_bind_expr_refuses_a_copy_after_a_write_and_control_exprs():
    with pytest.raises(SchedulingError) as e:
        bind_expr(doubled, doubled.find("x[_] * 2.0", many=True), "b")
    assert str(e.value) == "bind_expr: " + "Unsafe to bind all of the provided exprs."
    with pytest.raises(TypeError, match="only numeric \\(not index or size\\)"):
        bind_expr(doubled, doubled.find("x[_]").idx()[0], "b")


def test_bind_expr_refuses_lifting_past_the_iterator_it_reads():
    @proc
    def two_loops(n: size, x: f32[n], y: f32[n]):
        for i in seq(0, n):
            y[i] = x[i] * 3.0
        for i in seq(0, n):
            x[i] = x[i] * 3.0

    with pytest.raises(SchedulingError, match="Unsafe to bind"):
        bind_expr(two_loops, two_loops.find("x[_] * 3.0", many=True), "b")


# ---- lift_alloc / autolift_alloc / sink_alloc / delete_buffer -----------------


@proc
def temp(n: size, x: f32[n, 4], y: f32[n, 4]):
    for i in seq(0, n):
        for j in seq(0, 4):
            t: f32
            t = x[i, j] * 2.0
            y[i, j] = t + 1.0


def test_lift_alloc_moves_the_allocation_out_of_loops():
    alloc = temp.find("t : _")
    p = lift_alloc(temp, alloc, n_lifts=2)
    assert body_text(p) == (
        "    t: f32 @ DRAM\n"
        "    for i in seq(0, n):\n"
        "        for j in seq(0, 4):\n"
        "            t = x[i, j] * 2.0\n"
        "            y[i, j] = t + 1.0"
    )
    assert p.forward(alloc) == p.find("t : _")
    assert p.forward(temp.find("y[_] = _")) == p.find("y[_] = _")
    assert_same_results(temp, p, {"n": 3})
    with pytest.raises(SchedulingError) as e:
        lift_alloc(temp, alloc, n_lifts=3)
    assert str(e.value) == "lift_alloc: " + (
        "specified lift level 3 is more than 2, the number of loops and ifs "
        "above the allocation"
    )


def test_lift_alloc_refuses_a_shape_depending_on_the_loop():
    @proc
    def ragged(n: size, x: f32[n]):
        for i in seq(0, n):
            t: f32[i + 1]
            t[0] = x[i]
            x[i] = t[0]

    with pytest.raises(SchedulingError, match="past loop with iteration variable i"):
        lift_alloc(ragged, ragged.find("t : _"))


def test_autolift_alloc_of_a_scalar_passed_to_a_scalar_parameter_is_refused():
    # s's value depends on i, so the lifted buffer keeps a dimension per i.
    @proc
    def copy_in(a: f32, v: [f32][1]):
        a = v[0]

    @proc
    def calls(n: size, x: f32[n]):
        for i in seq(0, n):
            s: f32
            copy_in(s, x[i : i + 1])
            x[i] = s + 1.0

    with pytest.raises(SchedulingError) as info:
        autolift_alloc(calls, calls.find("s : _"), keep_dims=True)
    assert (
        "Cannot lift s: it is passed to a scalar parameter of a call, and there is "
        "no support for passing windows to scalar arguments: a scalar argument "
        "must be a variable name"
    ) in str(info.value)
    assert "TODO" not in str(info.value)


def test_autolift_alloc_keeps_dimensions_without_forwarding():
    """Exo's legacy extents (checked against exo-lang 1.0): a loop from 0 to
    a literal gives its bound, to any other bound `hi + 1`."""
    alloc = temp.find("t : _")
    p = autolift_alloc(temp, alloc, n_lifts=2, keep_dims=True)
    assert body_text(p) == (
        "    t: f32[n + 1, 4] @ DRAM\n"
        "    for i in seq(0, n):\n"
        "        for j in seq(0, 4):\n"
        "            t[i, j] = x[i, j] * 2.0\n"
        "            y[i, j] = t[i, j] + 1.0"
    )
    assert_same_results(temp, p, {"n": 3})
    q = autolift_alloc(temp, alloc, keep_dims=True, mode="col", size=8)
    assert "        t: f32[8] @ DRAM\n" in body_text(q)
    assert "            t[j] = x[i, j] * 2.0\n" in body_text(q)
    assert_same_results(temp, q, {"n": 3})
    with pytest.raises(NotImplementedError, match="This forwarding function"):
        p.forward(alloc)
    with pytest.raises(SchedulingError) as e:
        autolift_alloc(temp, alloc, n_lifts=3)
    assert str(e.value) == (
        "autolift_alloc: "
        + "specified lift level 3 is higher than the number of loop 2"
    )
    with pytest.raises(SchedulingError, match="Lift size cannot be less than"):
        autolift_alloc(temp, alloc, n_lifts=2, keep_dims=True, size=8)
    with pytest.raises(ValueError, match="expected one of the following values"):
        autolift_alloc(temp, alloc, mode="diagonal")


def test_autolift_alloc_keeps_only_the_dimensions_its_values_depend_on():
    """A lifted loop adds a dimension only when the buffer's values depend
    on its iterator (`k` here does not: `t` holds the same values in every
    iteration of `k`), as Exo; a loop from a literal lo indexes by its own
    iterator."""

    @proc
    def nodep(n: size, x: f32[n + 3], y: f32[n + 3]):
        for i in seq(2, n + 2):
            for k in seq(0, 3):  # noqa: B007
                t: f32
                t = x[i] * 2.0
                y[i] += t

    p = autolift_alloc(nodep, nodep.find("t : _"), n_lifts=2, keep_dims=True)
    assert body_text(p) == (
        "    t: f32[n + 2 + 1] @ DRAM\n"
        "    for i in seq(2, n + 2):\n"
        "        for k in seq(0, 3):\n"
        "            t[i] = x[i] * 2.0\n"
        "            y[i] += t[i]"
    )
    assert_same_results(nodep, p, {"n": 5})


def test_autolift_alloc_shifts_a_loop_from_a_non_literal_lo():
    @proc
    def window(n: size, m: size, x: f32[n], y: f32[n]):
        assert m < n
        for i in seq(m, n):
            t: f32
            t = x[i] + 1.0
            y[i] = t

    p = autolift_alloc(window, window.find("t : _"), keep_dims=True)
    assert body_text(p) == (
        "    t: f32[n - m] @ DRAM\n"
        "    for i in seq(m, n):\n"
        "        t[i - m] = x[i] + 1.0\n"
        "        y[i] = t[i - m]"
    )
    assert_same_results(window, p, {"n": 7, "m": 3})


def test_sink_alloc_moves_into_the_next_loop():
    alloc = temp.find("t : _")
    p = lift_alloc(temp, alloc, n_lifts=2)
    q = sink_alloc(p, p.forward(alloc))
    assert body_text(q) == (
        "    for i in seq(0, n):\n"
        "        t: f32 @ DRAM\n"
        "        for j in seq(0, 4):\n"
        "            t = x[i, j] * 2.0\n"
        "            y[i, j] = t + 1.0"
    )
    assert q.forward(alloc) == q.find("t : _")
    assert_same_results(temp, q, {"n": 3})
    with pytest.raises(ValueError) as e:
        sink_alloc(temp, alloc)
    assert str(e.value) == (
        "Cannot sink alloc because the statement after the allocation is not "
        "a loop or if statement, it is t = x[i, j] * 2.0"
    )


def test_sink_alloc_copies_into_else_and_refuses_later_uses():
    @proc
    def branches(c: size, x: f32[2]):
        t: f32
        if c > 2:
            t = 1.0
            x[0] = t
        else:
            t = 2.0
            x[1] = t

    p = sink_alloc(branches, branches.find("t : _"))
    assert body_text(p) == (
        "    if c > 2:\n"
        "        t: f32 @ DRAM\n"
        "        t = 1.0\n"
        "        x[0] = t\n"
        "    else:\n"
        "        t: f32 @ DRAM\n"
        "        t = 2.0\n"
        "        x[1] = t"
    )
    assert_same_results(branches, p, {"c": 3})

    @proc
    def used_after(x: f32[2]):
        t: f32
        for i in seq(0, 2):
            t = x[i]
        x[0] = t

    with pytest.raises(SchedulingError) as e:
        sink_alloc(used_after, used_after.find("t : _"))
    assert str(e.value).startswith("sink_alloc: " + "Cannot sink allocation t: f32")
    assert str(e.value).endswith(
        "because the buffer is accessed outside of the scope provided."
    )


def test_delete_buffer_deletes_unused_and_refuses_used():
    @proc
    def unused(x: f32[2]):
        t: f32
        u: f32
        u = 1.0
        x[0] = u

    alloc = unused.find("t : _")
    p = delete_buffer(unused, alloc)
    assert body_text(p) == "    u: f32 @ DRAM\n    u = 1.0\n    x[0] = u"
    with pytest.raises(InvalidCursorError, match="node no longer exists"):
        p.forward(alloc)
    assert p.forward(unused.find("u = _")) == p.find("u = _")
    assert_same_results(unused, p, {})
    with pytest.raises(SchedulingError) as e:
        delete_buffer(unused, unused.find("u : _"))
    assert str(e.value).startswith(
        "delete_buffer: " + "The variable u can potentially be used"
    )


def test_stage_mem_after_an_earlier_statement_in_the_same_body():
    @proc
    def scaled(n: size, x: f32[n], y: f32[n]):
        for i in seq(0, n):
            y[i] = 2.0 * x[i]

    p = insert_pass(scaled, scaled.find("y[_] = _").before())
    read = scaled.find("2.0 * x[_]").rhs()
    q = stage_mem(p, scaled.find("y[_] = _"), "x[i]", "xs")
    assert body_text(q) == (
        "    for i in seq(0, n):\n"
        "        pass\n"
        "        xs: f32 @ DRAM\n"
        "        xs = x[i]\n"
        "        y[i] = 2.0 * xs"
    )
    assert q.forward(read) == q.find("2.0 * xs").rhs()
    assert_same_results(scaled, q, {"n": 5})


def test_sink_alloc_refuses_a_value_carried_to_the_next_iteration():
    @proc
    def carried(n: size, x: f32[n], y: f32[n]):
        t: f32
        for i in seq(0, n):
            y[i] = t
            t = x[i]

    with pytest.raises(SchedulingError) as e:
        sink_alloc(carried, "t")
    assert str(e.value).split("\n")[0] == (
        "sink_alloc: " + "Cannot sink allocation t: f32 @ DRAM because values of t "
        "may flow from one iteration of the loop to the next."
    )


# ---- reuse_buffer / inline_window / autofission -------------------------------


@proc
def two_temps(n: size, x: f32[n], y: f32[n]):
    for i in seq(0, n):
        a: f32
        a = x[i] * 2.0
        y[i] = a
        b: f32
        b = x[i] + 1.0
        y[i] += b


def test_reuse_buffer_renames_the_later_buffer():
    add = two_temps.find("y[_] += _")
    read = two_temps.find("y[_] += _").rhs()
    p = reuse_buffer(two_temps, "a", "b")
    assert body_text(p) == (
        "    for i in seq(0, n):\n"
        "        a: f32 @ DRAM\n"
        "        a = x[i] * 2.0\n"
        "        y[i] = a\n"
        "        a = x[i] + 1.0\n"
        "        y[i] += a"
    )
    assert p.forward(add) == p.find("y[_] += _")
    assert p.forward(read) == p.find("y[_] += _").rhs()
    with pytest.raises(InvalidCursorError, match="node no longer exists"):
        p.forward(two_temps.find("b : _"))
    assert_same_results(two_temps, p, {"n": 5})


def test_reuse_buffer_refuses_a_live_buffer_and_a_wrong_order():
    @proc
    def both_live(n: size, x: f32[n], y: f32[n]):
        for i in seq(0, n):
            a: f32
            a = x[i] * 2.0
            b: f32
            b = x[i] + 1.0
            y[i] = a + b

    with pytest.raises(SchedulingError) as e:
        reuse_buffer(both_live, "a", "b")
    assert str(e.value).startswith(
        "reuse_buffer: "
        + "The variable a can potentially be used after the statement at "
    )
    with pytest.raises(SchedulingError) as e:
        reuse_buffer(two_temps, "b", "a")
    assert str(e.value).split("\n")[0] == (
        "reuse_buffer: "
        + "Cannot reuse buffer b for a because a is not allocated after "
        "b in the scope of b"
    )


@proc
def windowed(n: size, m: size, x: f32[n, m], z: f32[m]):
    assert m >= 5
    for i in seq(0, n):
        w = x[i, 2:m]
        for j in seq(0, m - 2):
            w[j] = 1.0
            if stride(w, 0) == 1:
                z[j] = w[j]
        v = w[1:3]
        v[0] = 2.0


def test_inline_window_rewrites_accesses_windows_and_strides():
    write = windowed.find("w[_] = _")
    p = inline_window(windowed, "w = _")
    assert body_text(p) == (
        "    for i in seq(0, n):\n"
        "        for j in seq(0, m - 2):\n"
        "            x[i, j + 2] = 1.0\n"
        "            if stride(x, 1) == 1:\n"
        "                z[j] = x[i, j + 2]\n"
        "        v = x[i, 1 + 2:3 + 2]\n"
        "        v[0] = 2.0"
    )
    assert p.forward(write) == p.find("x[_] = _")
    with pytest.raises(InvalidCursorError, match="node no longer exists"):
        p.forward(windowed.find("w = _"))
    assert_same_results(windowed, p, {"n": 3, "m": 6})
    q = inline_window(windowed, "v = _")
    assert body_text(q).endswith("        w[0 + 1] = 2.0")
    assert_same_results(windowed, q, {"n": 3, "m": 6})
    with pytest.raises(TypeError, match="expected a WindowStmtCursor"):
        inline_window(windowed, windowed.find("v[_] = _"))


def test_autofission_splits_and_drops_a_loop_that_runs_once():
    @proc
    def split(n: size, x: f32[n], y: f32[n], s: f32):
        for i in seq(0, n):
            y[i] = x[i]
            s = 3.0

    gap = split.find("y[_] = _").after()
    p = autofission(split, gap)
    assert body_text(p) == ("    for i in seq(0, n):\n        y[i] = x[i]\n    s = 3.0")
    assert_same_results(split, p, {"n": 4})
    with pytest.raises(NotImplementedError) as e:
        p.forward(gap)
    assert str(e.value) == "This forwarding function has not been implemented"
    with pytest.raises(ValueError) as e:
        autofission(split, split.find("y[_] = _").before())
    assert str(e.value) == (
        "expected cursor to point to a gap between statements, not at an edge"
    )


def test_autofission_of_an_instruction_gives_a_plain_procedure():
    # As in Exo: the split body is the instruction's, its C template is not.
    @instr("copy_two({dst_data}, {src_data});")
    def copy_two(n: size, src: [f32][n], dst: [f32][n]):
        for i in seq(0, n):
            dst[i] = src[i]
            dst[i] = src[i]

    p = autofission(copy_two, copy_two.find("dst[_] = _").after())
    assert copy_two.is_instr() and not p.is_instr()
    assert str(p) == (
        "def copy_two(n: size, src: [f32][n] @ DRAM, dst: [f32][n] @ DRAM):\n"
        "    for i in seq(0, n):\n"
        "        dst[i] = src[i]\n"
        "    for i in seq(0, n):\n"
        "        dst[i] = src[i]"
    )
    assert "# @instr copy_two" in str(copy_two)


def test_autofission_refuses_unsafe_splits_and_buried_allocations():
    @proc
    def shifted(n: size, x: f32[n + 1], y: f32[n]):
        for i in seq(0, n):
            y[i] = x[i]
            x[i + 1] = 1.0

    with pytest.raises(SchedulingError) as e:
        autofission(shifted, shifted.find("y[_] = _").after())
    assert str(e.value).startswith("autofission: " + "Cannot fission loop over i at ")

    @proc
    def buried(n: size, y: f32[n]):
        for i in seq(0, n):
            t: f32
            t = 1.0
            y[i] = t

    with pytest.raises(SchedulingError) as e:
        autofission(buried, buried.find("t = _").before())
    assert str(e.value).split("\n")[0] == (
        "autofission: " + "Will not fission here, because an allocation might be "
        "buried in a different scope than some use-site"
    )


def test_sink_alloc_accepts_a_buffer_each_iteration_fills_in_a_sibling_nest():
    @proc
    def rows(n: size, m: size, x: f32[n, m], y: f32[n, m]):
        t: f32[m]
        for i in seq(0, n):
            for j in seq(0, m):
                t[j] = 2.0 * x[i, j]
            for k in seq(0, m):
                y[i, k] = t[k] + 1.0

    sunk = sink_alloc(rows, rows.find("t : _"))
    assert str(sunk).startswith(
        "def rows(n: size, m: size, x: f32[n, m] @ DRAM, y: f32[n, m] @ DRAM):\n"
        "    for i in seq(0, n):\n"
        "        t: f32[m] @ DRAM\n"
    )
    assert_same_results(rows, sunk, {"n": 3, "m": 5})

    @proc
    def partial(n: size, m: size, x: f32[n, m], y: f32[n, m]):
        assert m > 1
        t: f32[m]
        for i in seq(0, n):
            for j in seq(1, m):
                t[j] = 2.0 * x[i, j]
            for k in seq(0, m):
                y[i, k] = t[k] + 1.0

    with pytest.raises(SchedulingError, match="may flow from one iteration"):
        sink_alloc(partial, partial.find("t : _"))


def test_sink_alloc_finds_the_write_of_each_shifted_read():
    # each iteration writes rows 0..3 of t, then reads rows r + 2 and 3 - r:
    # the write's own iterator is determined by the read's row (w = r + 2,
    # w = 3 - r), which the check substitutes instead of quantifying
    @proc
    def rows(n: size, x: f32[n, 4], y: f32[n, 2]):
        t: f32[4]
        for i in seq(0, n):
            for w in seq(0, 4):
                t[w] = 2.0 * x[i, w]
            for r in seq(0, 2):
                y[i, r] = t[r + 2] + t[3 - r]

    _core.reset_query_counters()
    sunk = sink_alloc(rows, rows.find("t : _"))
    counters = _core.query_counters()
    # answered by the variables' intervals once the quantifier is gone
    assert counters["queries"] == counters["interval_answers"]
    assert "    for i in seq(0, n):\n        t: f32[4] @ DRAM\n" in str(sunk)
    for n in (1, 3):
        assert_same_results(rows, sunk, {"n": n})

    # row 3 is not written: t[r + 2] at r = 1 and t[3 - r] at r = 0 read
    # what the previous iteration left
    @proc
    def short(n: size, x: f32[n, 4], y: f32[n, 2]):
        t: f32[4]
        for i in seq(0, n):
            for w in seq(0, 3):
                t[w] = 2.0 * x[i, w]
            for r in seq(0, 2):
                y[i, r] = t[r + 2] + t[3 - r]

    with pytest.raises(SchedulingError, match="may flow from one iteration"):
        sink_alloc(short, short.find("t : _"))


def test_stage_mem_around_a_window_statement_written_through():
    # found by the randomized schedule test: the write through `row` was
    # rewritten as an access of `a` itself (a crash)
    @proc
    def rows(n: size, a: f32[n, 8], y: f32[n]):
        for i in seq(0, n):
            row = a[i, 2:6]
            for j in seq(0, 4):
                row[j] = 2.0 * row[j] + 1.0
            y[i] = a[i, 2] + a[i, 5]

    p = stage_mem(rows, rows.body()[0], "a[0:n, 0:8]", "s")
    assert "        row = s[i - 0, 2 - 0:6 - 0]\n" in str(p)
    assert "            row[j] = 2.0 * row[j] + 1.0\n" in str(p)
    for n in (1, 2, 7):
        assert_same_results(rows, p, {"n": n})


def test_autolift_alloc_refuses_an_extent_reading_a_lifted_iterator():
    # found by the randomized schedule test: `seq(i, i + m)` gave the kept
    # dimension the extent `i + m - i`, allocated outside the loop over i
    @proc
    def row_sums(n: size, m: size, a: f32[n, m], y: f32[n]):
        for i in seq(0, n):
            y[i] = 0.0
            for j in seq(i, i + m):
                s: f64
                s = 0.0
                s += a[i, j - i]
                y[i] += s

    alloc = row_sums.find("s : _")
    with pytest.raises(
        SchedulingError, match="the extent i \\+ m - i of the dimension"
    ):
        autolift_alloc(row_sums, alloc, n_lifts=2, keep_dims=True)
    p = autolift_alloc(row_sums, alloc, n_lifts=1, keep_dims=True)
    assert "        s: f64[i + m - i] @ DRAM\n" in str(p)
    for n, m in ((1, 1), (3, 5)):
        assert_same_results(row_sums, p, {"n": n, "m": m}, rtol=1e-5, atol=1e-5)
