"""The buffer dimension primitives (docs/primitives-buffer-dims.md): printed results,
results of JIT runs before and after, refusals with their texts, and
forwarding of cursors taken before each primitive."""

# ruff: noqa: F821, E501

from __future__ import annotations

import re

import pytest
from exo2 import SchedulingError, proc
from exo2.API_cursors import InvalidCursorError
from exo2.stdlib.scheduling import (
    autolift_alloc,
    divide_dim,
    expand_dim,
    fission,
    lift_alloc,
    mult_dim,
    rearrange_dim,
    resize_dim,
    simplify,
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
    assert message.startswith("Buffer folding failed because tmp[i] at ")
    assert "tmp[i + 2] at" in message


def test_resize_dim_fold_names_the_read_that_loses_its_value():
    @proc
    def reverse(x: f32[8], y: f32[8]):
        t: f32[8]
        for i in seq(0, 8):
            t[7 - i] = x[i]
        for i in seq(0, 8):
            y[i] = t[i]

    # t[7] (written at i = 0) shares a slot with t[5] (i = 2) before
    # y[7] = t[7] reads it. (Exo named the write t[7 - i] against itself.)
    message = refusal(resize_dim, reverse, "t", 0, 2, 0, fold=True)
    assert re.fullmatch(
        r"Buffer folding failed because t\[i\] at \S+ reads the value "
        r"t\[7 - i\] at \S+ wrote, but t\[7 - i\] at \S+, which runs between "
        r"them, writes 2 or more away from it\.",
        message,
    )


def test_resize_dim_fold_lets_writes_no_read_needs_wrap():
    @proc
    def reverse_each(x: f32[8], y: f32[8]):
        t: f32[8]
        for i in seq(0, 8):
            t[7 - i] = x[i]
            y[i] = 2.0 * t[7 - i]

    p = resize_dim(reverse_each, "t", 0, 1, 0, fold=True)
    assert "t: f32[1] @ DRAM" in str(p)
    assert_same_results(reverse_each, p, {})


def test_resize_dim_fold_accepts_reads_of_the_value_just_written():
    """Each read reads the element its own iteration has just written: the
    writes of other iterations in between are overwritten before any read
    needs them. (Exo refuses: "access window of iteration i + 1 in x[j]";
    docs/internals/conformance.md lists it as exo-conservative.)"""

    @proc
    def runs(n: size, y: f32[n + 4]):
        assert n > 4
        x: f32[n]
        for i in seq(0, n - 4):
            for j in seq(i, i + 4):
                x[j] = 1.0 + y[j]
                y[j] = x[j]

    for size in (1, 2, 3):
        p = resize_dim(runs, "x", 0, size, 0, fold=True)
        assert f"x[j % {size}] = 1.0 + y[j]" in str(p)
        for n in (5, 6, 9):
            assert_same_results(runs, p, {"n": n})


def test_resize_dim_fold_refuses_a_read_after_a_later_iteration_wrote():
    @proc
    def runs(n: size, y: f32[n + 4]):
        assert n > 4
        x: f32[n]
        for i in seq(0, n - 4):
            for j in seq(i, i + 4):
                x[j] = 1.0 + y[j]
                y[j] = x[i]

    message = refusal(resize_dim, runs, "x", 0, 2, 0, fold=True)
    assert re.fullmatch(
        r"Buffer folding failed because x\[i\] at \S+ reads the value x\[j\] "
        r"at \S+ wrote, but x\[j\] at \S+, which runs between them, writes 2 "
        r"or more away from it\.",
        message,
    )


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

    # a scalar argument must be a variable name: `s[0]` could not be passed
    message = refusal(expand_dim, calls, "s", 2, 0)
    assert message.startswith(
        "Cannot expand s: it is passed to a scalar parameter of a call, and there is "
        "no support for passing windows to scalar arguments: a scalar argument "
        "must be a variable name"
    )
    assert "copy the value into a scalar of its own around the call" in message
    assert "TODO" not in message

    @proc
    def set_row(m: size, a: f32[m]):
        a[0] = 1.0

    @proc
    def calls_with_row(n: size, m: size, x: f32[m]):
        for i in seq(0, n):  # noqa: B007
            a: f32[m]
            set_row(m, a)
            x[0] = a[0]

    # A tensor passed whole is refused with Exo's words.
    with pytest.raises(SchedulingError) as e:
        expand_dim(calls_with_row, "a : _", "n", "i")
    assert str(e.value).startswith(
        "expand_dim: Cannot expand a because buffer is passed as an argument"
    )
    assert "declare the parameter as a window" in str(e.value)


# A value per element of an n x m grid, computed into a scalar and used at once.
@proc
def shifted_squares(n: size, m: size, x: f32[n, m], y: f32[n, m]):
    for i in seq(0, n):
        for j in seq(0, m):
            t: f32
            t = x[i, j] * x[i, j]
            y[i, j] = t + 1.0


def test_expand_dim_with_a_product_flattens_a_grid_into_one_dimension():
    # One flat buffer of n * m elements, row-major: the checker proves the
    # nonlinear bound i * m + j < n * m, and fission after lifting proves
    # that distinct (i, j) never share an element ((i' - i) * m != j - j').
    p = expand_dim(shifted_squares, "t", "n * m", "i * m + j")
    assert "t: f32[n * m] @ DRAM" in str(p)
    assert "t[i * m + j] = x[i, j] * x[i, j]" in str(p)
    p = lift_alloc(p, "t", n_lifts=2)
    p = fission(p, p.find("t[_] = _").after(), n_lifts=2)
    p = simplify(p)
    assert body_text(p) == (
        "    t: f32[n * m] @ DRAM\n"
        "    for i in seq(0, n):\n"
        "        for j in seq(0, m):\n"
        "            t[i * m + j] = x[i, j] * x[i, j]\n"
        "    for i in seq(0, n):\n"
        "        for j in seq(0, m):\n"
        "            y[i, j] = t[i * m + j] + 1.0"
    )
    # simplify normalises the factors of a product and keeps it.
    q = expand_dim(shifted_squares, "t", "(n + 1) * (1 + m)", "i * m + j")
    assert "t: f32[(n + 1) * (1 + m)] @ DRAM" in str(q)
    assert "t: f32[(1 + n) * (1 + m)] @ DRAM" in str(simplify(q))
    assert_same_results(shifted_squares, simplify(q), {"n": 3, "m": 4})
    for sizes in (
        {"n": 1, "m": 1},
        {"n": 1, "m": 7},
        {"n": 5, "m": 1},
        {"n": 7, "m": 13},
    ):
        assert_same_results(shifted_squares, p, sizes)


def test_expand_dim_refuses_a_product_index_or_shape_that_does_not_fit():
    # One past the last element.
    assert (
        refusal(expand_dim, shifted_squares, "t", "n * m", "i * m + j + 1")
        == "The buffer t is accessed out-of-bounds"
    )
    # Rows of n elements where there are m of them: out of bounds once m > n.
    assert (
        refusal(expand_dim, shifted_squares, "t", "n * m", "i * n + j")
        == "The buffer t is accessed out-of-bounds"
    )
    # Too small a shape (m - 1 elements short), and one that is empty when
    # n = m = 1.
    assert (
        refusal(expand_dim, shifted_squares, "t", "(n - 1) * m + 1", "i * m + j")
        == "The buffer t is accessed out-of-bounds"
    )
    assert (
        refusal(expand_dim, shifted_squares, "t", "n * m - 1", "0")
        == "The expression n * m - 1 is not guaranteed to be greater than 0."
    )


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


# ---- strides: a stride the code reads keeps its value ----------------------


@proc
def stride_read(x: f32[4, 8]):
    t: f32[4, 8]
    for i in seq(0, 4):
        for j in seq(0, 8):
            t[i, j] = x[i, j]
    if stride(t, 0) == 8:
        t[0, 0] = 1.0
    for i in seq(0, 4):
        for j in seq(0, 8):
            x[i, j] = t[i, j]


@proc
def zero_column(n: size, a: [f32][n]):
    assert stride(a, 0) == 8
    for i in seq(0, n):
        a[i] = 0.0


@proc
def column_call(x: f32[4, 8]):
    t: f32[4, 8]
    for i in seq(0, 4):
        for j in seq(0, 8):
            t[i, j] = x[i, j]
    zero_column(4, t[0:4, 1])
    for i in seq(0, 4):
        for j in seq(0, 8):
            x[i, j] = t[i, j]


def test_rearrange_dim_refuses_a_stride_read_whose_value_changes():
    # stride(t, 0) would become stride(t, 1) == 1 of t: f32[8, 4].
    message = refusal(rearrange_dim, stride_read, "t", [1, 0])
    assert message.startswith("Cannot permute t because the value of stride(t, 0) at ")
    assert message.endswith(" would change")


def test_dimension_rewrites_keep_the_strides_the_code_reads():
    for p in (
        divide_dim(stride_read, "t", 1, 4),
        expand_dim(stride_read, "t", 2, 1),
        resize_dim(stride_read, "t", 0, 6, 0),
    ):
        assert_same_results(stride_read, p, {})
    assert "if stride(t, 1) == 8:" in str(expand_dim(stride_read, "t", 2, 1))
    message = refusal(resize_dim, stride_read, "t", 1, 9, 0)
    assert message.startswith("Cannot resize t because the value of stride(t, 0) at ")


def test_resize_dim_refuses_changing_a_stride_a_callee_asserts():
    message = refusal(resize_dim, column_call, "t", 1, 9, 0)
    assert message.startswith(
        "Cannot resize t because the value of stride(t, 0), which the window at "
    )
    assert message.endswith(" passes on, would change")
    p = resize_dim(column_call, "t", 0, 6, 0)
    assert_same_results(column_call, p, {})


def test_autolift_alloc_refuses_changing_read_strides():
    @proc
    def local_tile(x: f32[4, 8]):
        for k in seq(0, 2):
            t: f32[4, 8]
            for i in seq(0, 4):
                for j in seq(0, 8):
                    t[i, j] = x[i, j]
            if stride(t, 0) == 8:
                x[k, 0] = t[k, 1]

    with pytest.raises(SchedulingError, match="Cannot lift t with new dimensions"):
        autolift_alloc(local_tile, "t : _", 1, "col", keep_dims=True)


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


@proc
def padded_rows(n: size, m: size, y: f32[n, m]):
    x: f32[n, (m + 7) / 8 * 8]
    for i in seq(0, n):
        for j in seq(0, m):
            x[i, j] = y[i, j]
    for i in seq(0, n):
        for j in seq(0, m):
            y[i, j] = 2.0 * x[i, j]


def test_divide_dim_then_simplify_keeps_a_quotient_of_a_quotient_as_exo_prints_it():
    # The padded extent (m + 7) / 8 * 8 divided by 8 is (m + 7) / 8 * 8 / 8:
    # equal to (7 + m) / 8, but simplify keeps a numerator holding a quotient
    # as written, as Exo does (docs/reference/printing.md).
    p = simplify(divide_dim(padded_rows, "x", 1, 8))
    assert body_text(p) == (
        "    x: f32[n, (7 + m) / 8 * 8 / 8, 8] @ DRAM\n"
        "    for i in seq(0, n):\n"
        "        for j in seq(0, m):\n"
        "            x[i, j / 8, j % 8] = y[i, j]\n"
        "    for i in seq(0, n):\n"
        "        for j in seq(0, m):\n"
        "            y[i, j] = 2.0 * x[i, j / 8, j % 8]"
    )
    for m in [1, 7, 8, 13]:
        assert_same_results(padded_rows, p, {"n": 3, "m": m})


# ---- mult_dim ----------------------------------------------------------------------


def test_mult_dim_undoes_divide_dim():
    p = divide_dim(gemm_tile, "acc", 1, 8)
    store = p.find("C[_] = _")
    q = mult_dim(p, "acc", 1, 2)
    assert "acc: f32[6, 8 * 2] @ DRAM" in str(q)
    assert "C[6 * io + ii, 16 * jo + ji] = acc[ii, 8 * (ji / 8) + ji % 8]" in flat(q)
    assert_same_results(gemm_tile, q, GEMM_SIZES)
    assert q.forward(store) == q.find("C[_] = _")
    r = mult_dim(gemm_tile, "acc", 1, 0)
    assert "acc: f32[6 * 16] @ DRAM" in str(r)
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
