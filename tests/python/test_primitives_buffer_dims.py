"""The buffer dimension primitives (primitives.md §5): printed results,
results of JIT runs before and after, refusals with the spec's texts, and
forwarding of cursors taken before each primitive."""

# ruff: noqa: F821, E501

from __future__ import annotations

import pytest
from exo2 import SchedulingError, proc
from exo2.API_cursors import InvalidCursorError
from exo2.stdlib.scheduling import (
    divide_dim,
    expand_dim,
    mult_dim,
    rearrange_dim,
    resize_dim,
    unroll_buffer,
)
from schedule_check import assert_same_results


def body_text(p):
    """The printed procedure without its `def` line and preconditions."""
    lines = str(p).split("):\n", 1)[1].splitlines()
    return "\n".join(line for line in lines if not line.startswith("    assert "))


def flat(p):
    """The printed procedure on one line, for substring checks."""
    return " ".join(str(p).split())


def refusal(op, *args, **kwargs):
    with pytest.raises(SchedulingError) as e:
        op(*args, **kwargs)
    # the message starts with the operation called
    prefix = op.__name__ + ": "
    assert str(e.value).startswith(prefix)
    return str(e.value)[len(prefix) :]


# A staged 6x16 tile of C inside a tiled loop nest, as an x86 SGEMM
# micro-kernel stages its accumulators.
@proc
def gemm_tile(M: size, N: size, K: size, A: f32[M, K], B: f32[K, N], C: f32[M, N]):
    assert M % 6 == 0
    assert N % 16 == 0
    for io in seq(0, M / 6):
        for jo in seq(0, N / 16):
            acc: f32[6, 16]
            for ii in seq(0, 6):
                for ji in seq(0, 16):
                    acc[ii, ji] = C[6 * io + ii, 16 * jo + ji]
            for k in seq(0, K):
                for ii in seq(0, 6):
                    for ji in seq(0, 16):
                        acc[ii, ji] += A[6 * io + ii, k] * B[k, 16 * jo + ji]
            for ii in seq(0, 6):
                for ji in seq(0, 16):
                    C[6 * io + ii, 16 * jo + ji] = acc[ii, ji]


GEMM_SIZES = {"M": 12, "N": 32, "K": 3}


@proc
def tile_copy(n: size, x: f32[n], y: f32[n]):
    assert n % 4 == 0
    for io in seq(0, n / 4):
        tmp: f32[n]
        for ii in seq(0, 4):
            tmp[4 * io + ii] = x[4 * io + ii] * 2.0
        for ii in seq(0, 4):
            y[4 * io + ii] = tmp[4 * io + ii]


@proc
def stencil(n: size, x: f32[n + 2], y: f32[n]):
    tmp: f32[n + 2]
    tmp[0] = x[0]
    tmp[1] = x[1]
    for i in seq(0, n):
        tmp[i + 2] = x[i + 2]
        y[i] = tmp[i] + tmp[i + 1] + tmp[i + 2]


@proc
def scale_row(v: [f32][4]):
    for j in seq(0, 4):
        v[j] = 2.0 * v[j]


@proc
def windowed(n: size, x: f32[n, 8]):
    for i in seq(0, n):
        t: f32[4, 8]
        for j in seq(0, 8):
            t[1, j] = x[i, j]
        scale_row(t[1, 2:6])
        row = t[1, 0:8]
        for j in seq(0, 8):
            x[i, j] = row[j]


@proc
def rows(x: f32[4, 8]):
    t: f32[4, 8]
    r = t[0:2, 0:8]
    for i in seq(0, 2):
        for j in seq(0, 8):
            r[i, j] = 0.0
    for i in seq(0, 4):
        for j in seq(0, 8):
            x[i, j] = t[i, j]


@proc
def pair(x: f32[2], y: f32[2]):
    t: f32[2, 3]
    t[0, 1] = x[0]
    t[1, 2] = x[1]
    y[0] = t[1, 2]
    y[1] = t[0, 1]


# ---- resize_dim ---------------------------------------------------------------


def test_resize_dim_shrinks_a_tile_buffer_to_the_tile():
    read = tile_copy.find("tmp[_]")
    store = tile_copy.find("y[_] = _")
    p = resize_dim(tile_copy, "tmp", 0, 4, "4 * io")
    assert body_text(p) == (
        "    for io in seq(0, n / 4):\n"
        "        tmp: f32[4] @ DRAM\n"
        "        for ii in seq(0, 4):\n"
        "            tmp[4 * io + ii - 4 * io] = x[4 * io + ii] * 2.0\n"
        "        for ii in seq(0, 4):\n"
        "            y[4 * io + ii] = tmp[4 * io + ii - 4 * io]"
    )
    assert_same_results(tile_copy, p, {"n": 8})
    assert p.forward(store) == p.find("y[_] = _")
    assert p.forward(read) == p.find("tmp[_]")
    assert p.forward(read).name() == "tmp"


def test_resize_dim_refuses_too_small_or_empty_sizes():
    assert (
        refusal(resize_dim, tile_copy, "tmp", 0, 3, "4 * io")
        == "The buffer tmp is accessed out-of-bounds"
    )
    assert (
        refusal(resize_dim, tile_copy, "tmp", 0, 4, "4 * io + 1")
        == "The buffer tmp is accessed out-of-bounds"
    )
    assert (
        refusal(resize_dim, tile_copy, "tmp", 0, 0, 0)
        == "The expression 0 is not guaranteed to be greater than 0."
    )


def test_resize_dim_argument_errors():
    with pytest.raises(AssertionError, match="Dimension index must be non-negative"):
        resize_dim(tile_copy, "tmp", -1, 4, 0)
    with pytest.raises(
        ValueError, match="Cannot resize out-of-bounds dimension index 1"
    ):
        resize_dim(tile_copy, "tmp", 1, 4, 0)
    with pytest.raises(AssertionError):
        resize_dim(tile_copy, "tmp", 0, "n", 0, fold=True)
    with pytest.raises(
        TypeError, match="argument 2, 'dim_idx' to resize_dim: expected an integer"
    ):
        resize_dim(tile_copy, "tmp", "0", 4, 0)
    with pytest.raises(TypeError, match="expected size or index type expression"):
        resize_dim(tile_copy, "tmp", 0, 4.0, 0)


def test_resize_dim_fold_makes_a_circular_buffer():
    loop = stencil.find_loop("i")
    p = resize_dim(stencil, "tmp", 0, 3, 0, fold=True)
    assert body_text(p) == (
        "    tmp: f32[3] @ DRAM\n"
        "    tmp[0 % 3] = x[0]\n"
        "    tmp[1 % 3] = x[1]\n"
        "    for i in seq(0, n):\n"
        "        tmp[(i + 2) % 3] = x[i + 2]\n"
        "        y[i] = tmp[i % 3] + tmp[(i + 1) % 3] + tmp[(i + 2) % 3]"
    )
    assert_same_results(stencil, p, {"n": 9})
    assert p.forward(loop) == p.find_loop("i")


def test_resize_dim_fold_refuses_overwriting_live_values():
    message = refusal(resize_dim, stencil, "tmp", 0, 2, 0, fold=True)
    assert message.startswith(
        "Buffer folding failed because access window of tmp[i] at "
    )
    assert "tmp[i + 2] at" in message


def test_resize_dim_fold_refuses_an_iteration_overwriting_the_previous_ones():
    """The same access in a later iteration lands a fold or more below: said
    in Exo's words ("access window of iteration")."""

    @proc
    def runs(n: size, y: f32[n + 4]):
        assert n > 4
        x: f32[n]
        for i in seq(0, n - 4):
            for j in seq(i, i + 4):
                x[j] = 1.0
                y[j] = x[j]

    message = refusal(resize_dim, runs, "x", 0, 2, 0, fold=True)
    assert message.startswith(
        "Buffer folding failed because access window of iteration i + 1 in x[j]"
    )
    p = resize_dim(runs, "x", 0, 3, 0, fold=True)
    assert_same_results(runs, p, {"n": 9})


def test_resize_dim_fold_refuses_calls_and_windows_that_wrap():
    message = refusal(resize_dim, windowed, "t", 1, 8, 0, fold=True)
    assert message.startswith(
        "Buffer folding failed because t is passed to a sub-procedure"
    )


def test_resize_dim_shifts_windows_and_call_arguments():
    p = resize_dim(windowed, "t", 0, 1, 1)
    assert "scale_row(t[1 - 1, 2:6])" in str(p)
    assert "row = t[1 - 1, 0:8]" in str(p)
    assert_same_results(windowed, p, {"n": 3})
    q = resize_dim(windowed, "t", 1, 9, "0 - 1")
    assert "scale_row(t[1, 2 - (0 - 1):6 - (0 - 1)])" in str(q)
    assert_same_results(windowed, q, {"n": 3})
    assert (
        refusal(resize_dim, windowed, "t", 1, 6, 1)
        == "The buffer t is accessed out-of-bounds"
    )


# ---- expand_dim -----------------------------------------------------------------


def test_expand_dim_gives_each_iteration_its_own_element():
    @proc
    def scaled_sum(n: size, x: f32[n, 4], y: f32[n]):
        for i in seq(0, n):
            t: f32
            t = 0.0
            for j in seq(0, 4):
                t += x[i, j]
            y[i] = 2.0 * t

    write = scaled_sum.find("y[_] = _")
    p = expand_dim(scaled_sum, "t", "n", "i")
    assert body_text(p) == (
        "    for i in seq(0, n):\n"
        "        t: f32[n] @ DRAM\n"
        "        t[i] = 0.0\n"
        "        for j in seq(0, 4):\n"
        "            t[i] += x[i, j]\n"
        "        y[i] = 2.0 * t[i]"
    )
    assert p.forward(write) == p.find("y[_] = _")
    assert_same_results(scaled_sum, p, {"n": 5})


def test_expand_dim_in_a_tiled_nest_and_windows():
    p = expand_dim(gemm_tile, "acc", 2, "jo % 2")
    assert "acc: f32[2, 6, 16] @ DRAM" in str(p)
    assert "acc[jo % 2, ii, ji] += A[6 * io + ii, k] * B[k, 16 * jo + ji]" in flat(p)
    assert_same_results(gemm_tile, p, GEMM_SIZES)
    q = expand_dim(windowed, "t", 2, 1)
    assert "scale_row(t[1, 1, 2:6])" in str(q)
    assert_same_results(windowed, q, {"n": 2})


def test_expand_dim_refusals():
    assert (
        refusal(expand_dim, gemm_tile, "acc", 2, "jo")
        == "The buffer acc is accessed out-of-bounds"
    )
    assert (
        refusal(expand_dim, gemm_tile, "acc", "io - io", 0)
        == "The expression io - io is not guaranteed to be greater than 0."
    )

    @proc
    def set_one(a: f32):
        a = 1.0

    @proc
    def calls(x: f32[2]):
        s: f32
        set_one(s)
        x[0] = s

    assert "support for passing windows to scalar arguments" in refusal(
        expand_dim, calls, "s", 2, 0
    )

    @proc
    def set_row(m: size, a: f32[m]):
        a[0] = 1.0

    @proc
    def calls_with_row(n: size, m: size, x: f32[m]):
        for i in seq(0, n):  # noqa: B007
            a: f32[m]
            set_row(m, a)
            x[0] = a[0]

    # A tensor passed whole is refused with Exo's words; the hint says why.
    with pytest.raises(SchedulingError) as e:
        expand_dim(calls_with_row, "a : _", "n", "i")
    assert "support for passing windows to scalar arguments" in str(e.value)
    assert e.value.hint == "Cannot expand a because buffer is passed as an argument"


# ---- rearrange_dim -------------------------------------------------------------


def test_rearrange_dim_permutes_shape_and_indices():
    p = divide_dim(gemm_tile, "acc", 1, 8)
    acc_write = p.find("acc[_] = _")
    q = rearrange_dim(p, "acc", [1, 0, 2])
    assert "acc: f32[2, 6, 8] @ DRAM" in str(q)
    assert "acc[ji / 8, ii, ji % 8] = C[6 * io + ii, 16 * jo + ji]" in str(q)
    assert_same_results(gemm_tile, q, GEMM_SIZES)
    assert q.forward(acc_write) == q.find("acc[_] = _")


def test_rearrange_dim_errors():
    with pytest.raises(
        ValueError,
        match=r"permute_vector argument \(\[1, 1\]\) was not a permutation of \{0, 1\}",
    ):
        rearrange_dim(gemm_tile, "acc", [1, 1])
    message = refusal(rearrange_dim, windowed, "t", [1, 0])
    assert message.startswith(
        "Cannot permute buffer 't' because it is passed as a sub-procedure argument at "
    )

    message = refusal(rearrange_dim, rows, "t", [1, 0])
    assert message.startswith("Permuting the window expression at ")
    assert "would change the meaning of the window" in message


# ---- divide_dim ------------------------------------------------------------------


def test_divide_dim_splits_a_register_tile_into_vectors():
    read = gemm_tile.find("acc[_]")
    p = divide_dim(gemm_tile, "acc", 1, 8)
    assert body_text(p) == (
        "    for io in seq(0, M / 6):\n"
        "        for jo in seq(0, N / 16):\n"
        "            acc: f32[6, 2, 8] @ DRAM\n"
        "            for ii in seq(0, 6):\n"
        "                for ji in seq(0, 16):\n"
        "                    acc[ii, ji / 8, ji % 8] = C[6 * io + ii, 16 * jo + ji]\n"
        "            for k in seq(0, K):\n"
        "                for ii in seq(0, 6):\n"
        "                    for ji in seq(0, 16):\n"
        "                        acc[ii, ji / 8,\n"
        "                            ji % 8] += A[6 * io + ii, k] * B[k, 16 * jo + ji]\n"
        "            for ii in seq(0, 6):\n"
        "                for ji in seq(0, 16):\n"
        "                    C[6 * io + ii, 16 * jo + ji] = acc[ii, ji / 8, ji % 8]"
    )
    assert_same_results(gemm_tile, p, GEMM_SIZES)
    assert p.forward(read) == p.find("acc[_]")
    assert p.forward(gemm_tile.find_loop("k")) == p.find_loop("k")


def test_divide_dim_errors():
    assert (
        refusal(divide_dim, gemm_tile, "acc", 1, 5)
        == "cannot perfectly divide '16' by 5"
    )
    with pytest.raises(
        ValueError, match="Cannot divide out-of-bounds dimension index 3"
    ):
        divide_dim(gemm_tile, "acc", 3, 2)
    with pytest.raises(
        TypeError,
        match="argument 3, 'quotient' to divide_dim: expected a positive integer",
    ):
        divide_dim(gemm_tile, "acc", 1, 0)
    assert (
        refusal(divide_dim, windowed, "t", 1, 2)
        == "Cannot divide t because the buffer is windowed later on"
    )

    @proc
    def whole(x: [f32][4]):
        t: f32[4]
        for i in seq(0, 4):
            t[i] = x[i]
        scale_row(t)
        for i in seq(0, 4):
            x[i] = t[i]

    assert (
        refusal(divide_dim, whole, "t", 0, 2)
        == "Cannot divide t because buffer is passed as an argument"
    )


# ---- mult_dim ----------------------------------------------------------------------


def test_mult_dim_undoes_divide_dim():
    p = divide_dim(gemm_tile, "acc", 1, 8)
    store = p.find("C[_] = _")
    q = mult_dim(p, "acc", 1, 2)
    assert "acc: f32[6, 16] @ DRAM" in str(q)
    assert "C[6 * io + ii, 16 * jo + ji] = acc[ii, 8 * (ji / 8) + ji % 8]" in flat(q)
    assert_same_results(gemm_tile, q, GEMM_SIZES)
    assert q.forward(store) == q.find("C[_] = _")
    r = mult_dim(gemm_tile, "acc", 1, 0)
    assert "acc: f32[96] @ DRAM" in str(r)
    assert "acc[6 * ji + ii] = C[6 * io + ii, 16 * jo + ji]" in flat(r)
    assert_same_results(gemm_tile, r, GEMM_SIZES)


def test_mult_dim_errors():
    with pytest.raises(
        ValueError, match="Cannot multiply out-of-bounds dimension index 3"
    ):
        mult_dim(gemm_tile, "acc", 3, 0)
    with pytest.raises(ValueError, match="Cannot multiply dimension 1 by itself"):
        mult_dim(gemm_tile, "acc", 1, 1)

    @proc
    def var_rows(n: size, x: f32[4, n]):
        t: f32[4, n]
        for i in seq(0, 4):
            for j in seq(0, n):
                t[i, j] = x[i, j]

    assert (
        refusal(mult_dim, var_rows, "t", 0, 1)
        == "Cannot multiply with non-literal second dimension: n"
    )
    assert (
        refusal(mult_dim, windowed, "t", 0, 1)
        == "Cannot multiply t because the buffer is windowed later on"
    )


# ---- unroll_buffer -------------------------------------------------------------


def test_unroll_buffer_splits_into_used_buffers():
    y_write = pair.find("y[0] = _")
    p = unroll_buffer(pair, "t", 0)
    assert body_text(p) == (
        "    t_0: f32[3] @ DRAM\n"
        "    t_1: f32[3] @ DRAM\n"
        "    t_0[1] = x[0]\n"
        "    t_1[2] = x[1]\n"
        "    y[0] = t_1[2]\n"
        "    y[1] = t_0[1]"
    )
    assert_same_results(pair, p, {})
    assert p.forward(y_write) == p.find("y[0] = _")
    with pytest.raises(InvalidCursorError):
        p.forward(pair.find("t : _"))
    q = unroll_buffer(p, "t_0", 0)
    assert "    t_0_1: f32 @ DRAM" in str(q)
    assert "    t_0_1 = x[0]" in str(q)
    assert_same_results(pair, q, {})


def test_unroll_buffer_errors():
    assert (
        refusal(unroll_buffer, gemm_tile, "acc", 0)
        == "Expected a constant buffer access, got ii at 0'th dimension. Try unrolling the loop. "
    )
    assert (
        refusal(unroll_buffer, rows, "t", 0)
        == "Cannot unroll a buffer at a dimension used as a window."
    )

    @proc
    def scalar(x: f32[1]):
        s: f32
        s = 1.0
        x[0] = s

    assert refusal(unroll_buffer, scalar, "s", 0) == "Cannot unroll a scalar buffer"

    @proc
    def var_buffer(n: size, x: f32[n]):
        t: f32[n]
        t[0] = 1.0
        x[0] = t[0]

    assert (
        refusal(unroll_buffer, var_buffer, "t", 0)
        == "Expected a constant buffer dimension, got n at 0'th dimension."
    )
