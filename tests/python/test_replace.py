"""Instruction selection (docs/instruction-selection.md: `replace`, `insert_noop_call`):
blocks that unify with a sub-procedure (printed call, JIT runs before and
after, forwarding), blocks that must not (readable UnificationError texts),
and the preconditions replace proves at the new call."""

# ruff: noqa: F821, E501

from __future__ import annotations

import re

import numpy as np
import pytest
from exo2 import SchedulingError, instr, proc
from exo2.API_cursors import InvalidCursorError
from exo2.libs.externs import relu
from exo2.libs.memories import AVX2, DRAM
from exo2.rewrite.LoopIR_unification import UnificationError
from exo2.stdlib.scheduling import cut_loop, insert_noop_call, replace, stage_mem
from schedule_check import assert_same_results

# ---------------------------------------------------------------------------
# Sub-procedures: instructions modeled on exo's x86 platform (C templates
# written as plain loops so the JIT compiles them on any machine), and plain
# procedures, which compile as function calls.


@instr("for (int _i = 0; _i < 8; _i++) (&{dst_data})[_i] = (&{src_data})[_i];")
def loadu8(dst: [f32][8] @ DRAM, src: [f32][8] @ DRAM):
    assert stride(src, 0) == 1
    assert stride(dst, 0) == 1
    for i in seq(0, 8):
        dst[i] = src[i]


@instr("for (int _i = 0; _i < 8; _i++) (&{dst_data})[_i] = (&{src_data})[_i];")
def storeu8(dst: [f32][8] @ DRAM, src: [f32][8] @ DRAM):
    assert stride(src, 0) == 1
    assert stride(dst, 0) == 1
    for i in seq(0, 8):
        dst[i] = src[i]


@instr(
    "for (int _i = 0; _i < 8; _i++) (&{dst_data})[_i] += (&{a_data})[_i] * (&{b_data})[_i];"
)
def fmadd8(dst: [f32][8] @ DRAM, a: [f32][8] @ DRAM, b: [f32][8] @ DRAM):
    assert stride(dst, 0) == 1
    assert stride(a, 0) == 1
    assert stride(b, 0) == 1
    for i in seq(0, 8):
        dst[i] += a[i] * b[i]


@instr(
    "for (int _i = 0; _i < 8; _i++) (&{dst_data})[_i] += (&{lhs_data})[_i] * {rhs_data};"
)
def fmadd8_broadcast(dst: [f32][8] @ DRAM, lhs: [f32][8] @ DRAM, rhs: [f32][1] @ DRAM):
    assert stride(dst, 0) == 1
    assert stride(lhs, 0) == 1
    for i in seq(0, 8):
        dst[i] += lhs[i] * rhs[0]


@instr("for (int _i = 0; _i < 8; _i++) (&{out_data})[_i] = {val_data};")
def broadcast8(out: [f32][8] @ DRAM, val: [f32][1] @ DRAM):
    assert stride(out, 0) == 1
    for i in seq(0, 8):
        out[i] = val[0]


@instr("for (int _i = 0; _i < 8; _i++) (&{out_data})[_i] = *{val_data};")
def broadcast8_scalar(out: [f32][8] @ DRAM, val: f32):
    assert stride(out, 0) == 1
    for i in seq(0, 8):
        out[i] = val


@instr("for (int _i = 0; _i < 8; _i++) *{dst_data} += (&{src_data})[_i];")
def reduce_add8(dst: f32 @ DRAM, src: [f32][8] @ DRAM):
    assert stride(src, 0) == 1
    for i in seq(0, 8):
        dst += src[i]


@instr("for (int _i = 0; _i < {n}; _i++) (&{dst_data})[_i] = 0.0f;")
def zero_n(n: size, dst: [f32][n] @ DRAM):
    assert stride(dst, 0) == 1
    for i in seq(0, n):
        dst[i] = 0.0


@instr("for (int _i = 0; _i < 8; _i++) (&{dst_data})[_i] = 0.0f;")
def zero_exactly8(n: size, dst: [f32][n] @ DRAM):
    assert n == 8
    assert stride(dst, 0) == 1
    for i in seq(0, n):
        dst[i] = 0.0


@instr("{dst_data} = _mm256_loadu_ps(&{src_data});")
def mm256_loadu_ps(dst: [f32][8] @ AVX2, src: [f32][8] @ DRAM):
    assert stride(src, 0) == 1
    assert stride(dst, 0) == 1
    for i in seq(0, 8):
        dst[i] = src[i]


@proc
def copy_window(n: size, dst: [f32][n], src: [f32][n]):
    for i in seq(0, n):
        dst[i] = src[i]


@proc
def scale2(n: size, x: [f32][n]):
    for i in seq(0, n):
        x[i] = 2.0 * x[i]


@proc
def zero_then_add(dst: [f32][4], src: [f32][4]):
    for i in seq(0, 4):
        dst[i] = 0.0
    for i in seq(0, 4):
        dst[i] += src[i]


@proc
def copy_tile(dst: [f32][4, 4], src: [f32][4, 4]):
    for i in seq(0, 4):
        for j in seq(0, 4):
            dst[i, j] = src[i, j]


@proc
def fill_range(lo: index, hi: index, n: size, x: f32[n]):
    assert 0 <= lo
    assert lo <= hi
    assert hi <= n
    for i in seq(lo, hi):
        x[i] = 1.0


@proc
def add_at(n: size, off: index, x: f32[n], y: [f32][4]):
    assert 0 <= off
    assert off + 4 <= n
    for i in seq(0, 4):
        x[off + i] += y[i]


@proc
def masked_zero(b: bool, x: [f32][8]):
    for i in seq(0, 8):
        if b:
            x[i] = 0.0


@proc
def prefix_zero(n: index, x: [f32][8]):
    assert n <= 8
    for i in seq(0, 8):
        if i < n:
            x[i] = 0.0


@proc
def swap_through_temp(x: [f32][1], y: [f32][1]):
    t: f32
    t = x[0]
    x[0] = y[0]
    y[0] = t


@proc
def relu8(x: [f32][8]):
    for i in seq(0, 8):
        x[i] = relu(x[i])


@proc
def zero_strided(n: size, s: stride, x: [f32][n]):
    assert stride(x, 0) == s
    for i in seq(0, n):
        x[i] = 0.0


@proc
def copy_tensor8(dst: f32[8], src: f32[8]):
    for i in seq(0, 8):
        dst[i] = src[i]


@proc
def even_elements(x: [f32][16]):
    for i in seq(0, 8):
        x[2 * i] = 0.0


@proc
def zero_column(x: [f32][8]):
    for i in seq(0, 8):
        x[i] = 0.0


# ---------------------------------------------------------------------------
# Kernels and the blocks that unify.


@proc
def k_offset_row(m: size, A: f32[m, 16]):
    for k in seq(0, m):
        for j in seq(0, 8):
            A[k, j + 4] = 0.0


@proc
def k_load(A: f32[16], B: f32[8]):
    for i in seq(0, 8):
        B[i] = A[i + 8]


@proc
def k_store_rows(n: size, C: f32[n, 8], T: f32[8]):
    for i in seq(0, n):
        for j in seq(0, 8):
            C[i, j] = T[j]


@proc
def k_fmadd(n: size, C: f32[n, 8], A: f32[n, 8], B: f32[8]):
    for i in seq(0, n):
        for j in seq(0, 8):
            C[i, j] += A[i, j] * B[j]


@proc
def k_fmadd_broadcast(n: size, C: f32[n, 8], A: f32[n, 8], s: f32[n]):
    for i in seq(0, n):
        for j in seq(0, 8):
            C[i, j] += A[i, j] * s[i]


@proc
def k_broadcast(n: size, A: f32[n], B: f32[8]):
    assert n >= 4
    for i in seq(0, 8):
        B[i] = A[3]


@proc
def k_broadcast_scalar(s: f32, B: f32[8]):
    for i in seq(0, 8):
        B[i] = s


@proc
def k_reduce(acc: f32, x: f32[16]):
    for i in seq(0, 8):
        acc += x[i + 8]


@proc
def k_sized(m: size, A: f32[m]):
    assert m > 2
    for j in seq(0, m - 2):
        A[j + 1] = 0.0


@proc
def k_copy_n(n: size, A: f32[n], B: f32[n]):
    for i in seq(0, n):
        B[i] = A[i]


@proc
def k_scale_rows(n: size, A: f32[n, 4]):
    for r in seq(0, n):
        for i in seq(0, 4):
            A[r, i] = 2.0 * A[r, i]


@proc
def k_two_loops(A: f32[8], B: f32[8]):
    for i in seq(0, 4):
        A[i + 4] = 0.0
    for i in seq(0, 4):
        A[i + 4] += B[i]


@proc
def k_tile(A: f32[8, 8], B: f32[8, 8]):
    for i in seq(0, 4):
        for j in seq(0, 4):
            B[i, j + 4] = A[i + 4, j]


@proc
def k_fill_range(n: size, x: f32[n]):
    assert n >= 3
    for i in seq(2, n):
        x[i] = 1.0


@proc
def k_add_at(n: size, x: f32[n], y: f32[4]):
    assert n >= 8
    for i in seq(0, 4):
        x[4 + i] += y[i]


@proc
def k_masked(flag: bool, x: f32[8]):
    for i in seq(0, 8):
        if flag:
            x[i] = 0.0


@proc
def k_prefix(m: size, x: f32[8]):
    assert m <= 9
    assert m >= 1
    for i in seq(0, 8):
        if i < m - 1:
            x[i] = 0.0


@proc
def k_swap(A: f32[4], B: f32[4]):
    t: f32
    t = A[1]
    A[1] = B[2]
    B[2] = t


@proc
def k_relu(n: size, x: f32[n, 8]):
    for r in seq(0, n):
        for i in seq(0, 8):
            x[r, i] = relu(x[r, i])


@proc
def k_zero_column(A: f32[8, 4]):
    for i in seq(0, 8):
        A[i, 2] = 0.0


@proc
def k_strided(A: f32[8, 4]):
    for i in seq(0, 8):
        A[i, 1] = 0.0


@proc
def k_tensor(A: f32[8], B: f32[8]):
    for i in seq(0, 8):
        B[i] = A[i]


@proc
def k_even(A: f32[20]):
    for j in seq(0, 8):
        A[2 * j + 1] = 0.0


@proc
def k_window_param(n: size, W: [f32][n, 8]):
    for r in seq(0, n):
        for i in seq(0, 8):
            W[r, i] = 0.0


@proc
def k_window_stmt(A: f32[4, 16]):
    row = A[2, 0:16]
    for i in seq(0, 8):
        row[i + 8] = 0.0


@proc
def k_longer_block(A: f32[16], B: f32[8]):
    for i in seq(0, 8):
        B[i] = A[i]
    A[0] = 1.0


@proc
def k_bound_by_assert(n: size, A: f32[n]):
    assert n == 8
    for i in seq(0, n):
        A[i] = 0.0


@proc
def k_avx_load(A: f32[8]):
    v: f32[8] @ AVX2
    for i in seq(0, 8):
        v[i] = A[i]


# (kernel, block pattern, sub-procedure, expected call, sizes for a run or
# None when the call cannot run on this host)
ACCEPTED = [
    (k_offset_row, "for j in _: _", zero_n, "zero_n(8, A[k + 0, 4:12])", {"m": 3}),
    (k_load, "for i in _: _", loadu8, "loadu8(B[0:8], A[8:16])", {}),
    (
        k_store_rows,
        "for j in _: _",
        storeu8,
        "storeu8(C[i + 0, 0:8], T[0:8])",
        {"n": 3},
    ),
    (
        k_fmadd,
        "for j in _: _",
        fmadd8,
        "fmadd8(C[i + 0, 0:8], A[i + 0, 0:8], B[0:8])",
        {"n": 2},
    ),
    (
        k_fmadd_broadcast,
        "for j in _: _",
        fmadd8_broadcast,
        "fmadd8_broadcast(C[i + 0, 0:8], A[i + 0, 0:8], s[i + 0:i + 1])",
        {"n": 3},
    ),
    (k_broadcast, "for i in _: _", broadcast8, "broadcast8(B[0:8], A[3:4])", {"n": 5}),
    (
        k_broadcast_scalar,
        "for i in _: _",
        broadcast8_scalar,
        "broadcast8_scalar(B[0:8], s)",
        {},
    ),
    (k_reduce, "for i in _: _", reduce_add8, "reduce_add8(acc, x[8:16])", {}),
    (k_sized, "for j in _: _", zero_n, "zero_n(m + -2, A[1:m + -1])", {"m": 7}),
    (
        k_copy_n,
        "for i in _: _",
        copy_window,
        "copy_window(n + 0, B[0:n + 0], A[0:n + 0])",
        {"n": 5},
    ),
    (k_scale_rows, "for i in _: _", scale2, "scale2(4, A[r + 0, 0:4])", {"n": 3}),
    (k_tile, "for i in _: _", copy_tile, "copy_tile(B[0:4, 4:8], A[4:8, 0:4])", {}),
    (
        k_fill_range,
        "for i in _: _",
        fill_range,
        "fill_range(2, n + 0, n + 0, x)",
        {"n": 6},
    ),
    (k_add_at, "for i in _: _", add_at, "add_at(n + 0, 4, x, y[0:4])", {"n": 9}),
    (
        k_masked,
        "for i in _: _",
        masked_zero,
        "masked_zero(flag, x[0:8])",
        {"flag": True},
    ),
    (k_prefix, "for i in _: _", prefix_zero, "prefix_zero(m + -1, x[0:8])", {"m": 5}),
    (k_relu, "for i in _: _", relu8, "relu8(x[r + 0, 0:8])", {"n": 2}),
    (k_zero_column, "for i in _: _", zero_column, "zero_column(A[0:8, 2])", {}),
    (
        k_strided,
        "for i in _: _",
        zero_strided,
        "zero_strided(8, stride(A, 0), A[0:8, 1])",
        {},
    ),
    (k_tensor, "for i in _: _", copy_tensor8, "copy_tensor8(B, A)", {}),
    (k_even, "for j in _: _", even_elements, "even_elements(A[1:17])", {}),
    (
        k_window_param,
        "for i in _: _",
        zero_column,
        "zero_column(W[r + 0, 0:8])",
        {"n": 3},
    ),
    (k_window_stmt, "for i in _: _", zero_column, "zero_column(row[8:16])", {}),
    (k_bound_by_assert, "for i in _: _", zero_column, "zero_column(A[0:8])", {"n": 8}),
    (
        k_avx_load,
        "for i in _: _",
        mm256_loadu_ps,
        "mm256_loadu_ps(v[0:8], A[0:8])",
        None,
    ),
]


@pytest.mark.parametrize(
    "kernel, pattern, subproc, call, sizes",
    ACCEPTED,
    ids=[f"{a[0].name()}-{a[2].name()}" for a in ACCEPTED],
)
def test_replace_unifies_and_keeps_results(kernel, pattern, subproc, call, sizes):
    after = replace(kernel, kernel.find(pattern), subproc)
    assert call in str(after), str(after)
    assert f" {subproc.name()}(" not in str(kernel)
    if sizes is not None:
        assert_same_results(kernel, after, sizes)


def test_replace_prints_expected_procedure():
    """Solved arguments print in Exo's form, the constant always last
    (`k + 0`): checked against exo-lang 1.0 on the same kernel."""
    after = replace(k_offset_row, k_offset_row.find_loop("j"), zero_n)
    assert str(after) == (
        "def k_offset_row(m: size, A: f32[m, 16] @ DRAM):\n"
        "    for k in seq(0, m):\n"
        "        zero_n(8, A[k + 0, 4:12])"
    )


def test_replace_passes_exo_values_for_unused_control_parameters():
    """Unused bool and index parameters get False and 0 (as Exo, checked
    against exo-lang 1.0); an unused size would be 0 and is refused."""

    @proc
    def copy_flagged(flag: bool, n: size, dst: f32[n], src: f32[n], k: index):
        for i in seq(0, n):
            dst[i] = src[i]

    @proc
    def k_copy(x: f32[5], y: f32[5]):
        for i in seq(0, 5):
            x[i] = y[i]

    after = replace(k_copy, k_copy.find_loop("i"), copy_flagged)
    assert str(after).endswith("    copy_flagged(False, 5, x, y, 0)")
    assert_same_results(k_copy, after, {})

    @proc
    def copy8(m: size, dst: f32[8], src: f32[8]):
        for i in seq(0, 8):
            dst[i] = src[i]

    @proc
    def k_copy8(x: f32[8], y: f32[8]):
        for i in seq(0, 8):
            x[i] = y[i]

    with pytest.raises(SchedulingError, match="0 is not guaranteed to be greater"):
        replace(k_copy8, k_copy8.find_loop("i"), copy8)


def test_replace_multi_statement_body():
    block = k_two_loops.find_loop("i").as_block().expand(0, 1)
    after = replace(k_two_loops, block, zero_then_add)
    assert str(after) == (
        "def k_two_loops(A: f32[8] @ DRAM, B: f32[8] @ DRAM):\n"
        "    zero_then_add(A[4:8], B[0:4])"
    )
    assert_same_results(k_two_loops, after, {})


def test_replace_body_with_allocation():
    block = k_swap.body()[0].as_block().expand(0, 3)
    after = replace(k_swap, block, swap_through_temp)
    assert str(after) == (
        "def k_swap(A: f32[4] @ DRAM, B: f32[4] @ DRAM):\n"
        "    swap_through_temp(A[1:2], B[2:3])"
    )
    assert_same_results(k_swap, after, {})


def test_replace_keeps_statements_past_the_body():
    block = k_longer_block.find_loop("i").as_block().expand(0, 1)
    after = replace(k_longer_block, block, loadu8)
    assert str(after) == (
        "def k_longer_block(A: f32[16] @ DRAM, B: f32[8] @ DRAM):\n"
        "    loadu8(B[0:8], A[0:8])\n"
        "    A[0] = 1.0"
    )
    assert_same_results(k_longer_block, after, {})


def test_replace_forwards_cursors_outside_the_block():
    outer = k_store_rows.find_loop("i")
    inner = k_store_rows.find_loop("j")
    assign = k_store_rows.find("C[_] = _")
    after = replace(k_store_rows, inner, storeu8)
    assert str(after.forward(outer)).startswith("def k_store_rows")
    assert after.forward(outer).name() == "i"
    call = after.find("storeu8(_)")
    assert call.parent() == after.forward(outer)
    with pytest.raises(InvalidCursorError, match="node no longer exists"):
        after.forward(assign)


def test_replace_repeated_on_every_row():
    p = k_fmadd
    after = replace(p, p.find_loop("j"), fmadd8)
    # The new call is reachable and can be scheduled further.
    assert after.find("fmadd8(_)").parent().name() == "i"


# ---------------------------------------------------------------------------
# Blocks that do not unify.


@proc
def k_assign_loop(A: f32[8]):
    for i in seq(0, 8):
        A[i] = 0.0


@proc
def k_reduce_loop(A: f32[8], B: f32[8]):
    for i in seq(0, 8):
        A[i] += B[i]


@proc
def k_two_stmt_body(A: f32[8], B: f32[8]):
    for i in seq(0, 8):
        A[i] = B[i]
        B[i] = 0.0


@proc
def k_add_instead(A: f32[8], B: f32[8], C: f32[8]):
    for i in seq(0, 8):
        C[i] += A[i] + B[i]


@proc
def k_other_constant(A: f32[8]):
    for i in seq(0, 8):
        A[i] = 1.0


@proc
def k_f64(A: f64[8], B: f64[8]):
    for i in seq(0, 8):
        B[i] = A[i]


@proc
def k_short_loop(A: f32[8], B: f32[8]):
    for i in seq(0, 4):
        B[i] = A[i]


@proc
def k_scalar_target(s: f32, A: f32[8]):
    for i in seq(0, 8):
        s += A[i]


@proc
def k_two_buffers(A: f32[8], B: f32[8]):
    for i in seq(0, 4):
        A[i] = 0.0
    for i in seq(0, 4):
        B[i] += A[i]


@proc
def k_diagonal(A: f32[8, 8]):
    for i in seq(0, 8):
        A[i, i] = 0.0


@proc
def k_bool_bound(x: f32[8]):
    for i in seq(0, 8):
        if i < 4:
            x[i] = 0.0


@proc
def k_cut_candidate(A: f32[8]):
    for i in seq(0, 8):
        A[i] = 0.0


@proc
def k_column_copy(A: f32[8, 8], B: f32[8]):
    for i in seq(0, 8):
        B[i] = A[i, 0]


@proc
def k_aliased(A: f32[16]):
    for i in seq(0, 8):
        A[i] = A[i + 8]


@proc
def k_unknown_size(m: size, A: f32[m]):
    assert m >= 2
    for j in seq(0, m - 2):
        A[j] = 0.0


@proc
def k_out_of_bounds(n: size, A: f32[n]):
    assert n >= 1
    A[0] = 0.0


@proc
def k_unproven_bound(n: size, A: f32[n]):
    for i in seq(0, n):
        A[i] = 0.0


@proc
def k_uses_temp_after(A: f32[4], B: f32[4]):
    t: f32
    t = A[1]
    A[1] = B[2]
    B[2] = t
    A[0] = t


@proc
def first_element_only(x: [f32][8]):
    x[0] = 0.0


@proc
def unused_parameter(x: [f32][8], y: [f32][8]):
    for i in seq(0, 8):
        x[i] = 0.0


@proc
def halves(x: [f32][8]):
    for i in seq(0, 8):
        x[i / 2] = 0.0


@proc
def copy_same_buffer(x: [f32][8], y: [f32][8]):
    for i in seq(0, 4):
        x[i] = 0.0
    for i in seq(0, 4):
        x[i] += y[i]


@proc
def two_in_loop(x: [f32][8], y: [f32][8]):
    for i in seq(0, 8):
        x[i] = y[i]
        y[i] = 0.0


REFUSED = [
    (k_assign_loop, "A[_] = _", loadu8, "cannot unify a For statement (@"),
    (k_reduce_loop, "for i in _: _", loadu8, "cannot unify a Assign statement (@"),
    (k_two_stmt_body, "for i in _: _", loadu8, "cannot unify 1 statement(s) (@"),
    (k_add_instead, "for i in _: _", fmadd8, "cannot unify a '*' (@"),
    (k_other_constant, "for i in _: _", zero_column, "cannot unify 0.0 (@"),
    (k_f64, "for i in _: _", loadu8, "cannot unify type f32 (@"),
    (
        k_short_loop,
        "for i in _: _",
        loadu8,
        "Unification of various index expressions failed: 8 (@",
    ),
    (
        k_scalar_target,
        "for i in _: _",
        fmadd8,
        "has too many indices (1, compared to 0)",
    ),
    (k_assign_loop, "for i in _: _", two_in_loop, "cannot unify 2 statement(s) (@"),
    (
        k_assign_loop,
        "for i in _: _",
        unused_parameter,
        "Cannot perform unification due to an un-unused argument: y",
    ),
    (
        k_diagonal,
        "for i in _: _",
        zero_column,
        "Unification of various index expressions failed",
    ),
    (
        k_assign_loop,
        "for i in _: _",
        halves,
        "unification with sub-procedures making use of '%' or '/' operations is not currently supported",
    ),
    (
        k_bool_bound,
        "for i in _: _",
        masked_zero,
        "because it contains variables that are not free in the code being replaced",
    ),
    (
        k_unproven_bound,
        "for i in _: _",
        zero_column,
        "cannot be proven equal where the block is",
    ),
    (
        k_column_copy,
        "for i in _: _",
        first_element_only,
        "cannot unify a Assign statement",
    ),
]


@pytest.mark.parametrize(
    "kernel, pattern, subproc, message",
    REFUSED,
    ids=[f"{r[0].name()}-{r[2].name()}" for r in REFUSED],
)
def test_replace_refuses_with_readable_unification_error(
    kernel, pattern, subproc, message, capsys
):
    with pytest.raises(UnificationError) as e:
        replace(kernel, kernel.find(pattern), subproc, quiet=True)
    assert message in str(e.value)
    assert capsys.readouterr().out == ""


def test_replace_same_buffer_for_two_windows_of_different_buffers():
    block = k_two_buffers.find_loop("i").as_block().expand(0, 1)
    with pytest.raises(
        UnificationError,
        match="cannot be unified to both the buffer A, and the buffer B",
    ):
        replace(k_two_buffers, block, copy_same_buffer, quiet=True)


def test_replace_prints_failure_unless_quiet(capsys):
    with pytest.raises(UnificationError):
        replace(k_reduce_loop, k_reduce_loop.find_loop("i"), zero_column)
    out = capsys.readouterr().out
    assert out.startswith(
        "Failed to unify the following:\nSubproc:\ndef zero_column(x: [f32][8] @ DRAM):\n"
    )
    assert out.endswith("Statements:\nfor i in seq(0, 8):\n    A[i] += B[i]\n")


def test_replace_not_enough_statements():
    with pytest.raises(SchedulingError, match="Not enough statements to match"):
        replace(k_assign_loop, k_assign_loop.find_loop("i"), zero_then_add)


def test_replace_refuses_size_assertion_after_cut():
    # Exo accepts this: the body matches, but `n == 8` no longer holds.
    cut = cut_loop(k_cut_candidate, k_cut_candidate.find_loop("i"), 4)
    with pytest.raises(SchedulingError) as e:
        replace(cut, cut.find_loop("i"), zero_exactly8)
    assert str(e.value).startswith(
        "replace: " + "Could not verify assertion n == 8 in zero_exactly8 at "
    )
    # The whole loop still has 8 iterations.
    after = replace(k_cut_candidate, k_cut_candidate.find_loop("i"), zero_exactly8)
    assert "zero_exactly8(8, A[0:8])" in str(after)


def test_replace_refuses_unit_stride_assertion():
    with pytest.raises(SchedulingError) as e:
        replace(k_column_copy, k_column_copy.find_loop("i"), loadu8)
    assert str(e.value).startswith(
        "replace: " + "Could not verify assertion stride(src, 0) == 1 in loadu8 at "
    )


# loadu8's template (contiguous C loads) with no precondition on the strides:
# what Exo's replace, which does not prove a callee's preconditions, uses.
@instr("for (int _i = 0; _i < 8; _i++) (&{dst_data})[_i] = (&{src_data})[_i];")
def loadu8_unchecked(dst: [f32][8] @ DRAM, src: [f32][8] @ DRAM):
    for i in seq(0, 8):
        dst[i] = src[i]


@proc
def double_rows(C: [f32][2, 8]):  # a window parameter: any strides
    C_reg: f32[2, 8]
    for i in seq(0, 2):
        for j in seq(0, 8):
            C_reg[i, j] = C[i, j]
    for i in seq(0, 2):
        for j in seq(0, 8):
            C[i, j] = 2.0 * C_reg[i, j]


def test_replace_refuses_contiguous_loads_of_a_window_parameter_of_any_stride():
    """Exo's x86 SGEMM schedule replaces the loads of its window C: [f32][6, 16]
    by mm256_loadu_ps without proving its stride(src, 0) == 1. The kernel may
    be called with C = X[0:6, 0:16, 1] of X: f32[6, 16, 2] (strides 32, 2):
    its signature allows it. Exo refuses such a call only from another Exo
    procedure; called from C, its scheduled kernel loads 8 contiguous floats,
    the wrong elements. exo2 refuses the replace; with the precondition
    dropped, the same schedule changes the results of a stride-2 window."""
    with pytest.raises(SchedulingError) as e:
        replace(double_rows, double_rows.find_loop("j"), loadu8)
    assert str(e.value).startswith(
        "replace: Could not verify assertion stride(src, 0) == 1 in loadu8 at "
    )
    exo_like = replace(double_rows, double_rows.find_loop("j"), loadu8_unchecked)
    assert "        loadu8_unchecked(C_reg[i + 0, 0:8], C[i + 0, 0:8])" in str(exo_like)
    X = np.random.default_rng(0).standard_normal((2, 8, 2)).astype(np.float32)
    before, after = X.copy(), X.copy()
    double_rows.jit()(before[:, :, 1])
    exo_like.jit()(after[:, :, 1])
    np.testing.assert_array_equal(before[:, :, 1], 2.0 * X[:, :, 1])
    assert not np.array_equal(after[:, :, 1], before[:, :, 1])
    # With unit-stride rows, as its C holds, the same replace is proven.
    unit = double_rows.add_assertion("stride(C, 1) == 1")
    p = replace(unit, unit.find_loop("j"), loadu8)
    assert_same_results(unit, p, {})


def test_replace_refuses_aliased_arguments():
    with pytest.raises(SchedulingError) as e:
        replace(k_aliased, k_aliased.find_loop("i"), loadu8)
    assert str(e.value) == (
        "replace: " + "Cannot Pass the same buffer 'A' via multiple arguments in call "
        "to loadu8, since doing so would introduce aliased arguments.  Please "
        "contact the Exo developers if you need support for aliased arguments."
    )


def test_replace_refuses_size_that_may_not_be_positive():
    with pytest.raises(SchedulingError) as e:
        replace(k_unknown_size, k_unknown_size.find_loop("j"), zero_n)
    assert str(e.value) == "replace: " + (
        "The expression m + -2 is not guaranteed to be greater than 0."
    )


def test_replace_refuses_window_out_of_bounds():
    with pytest.raises(SchedulingError) as e:
        replace(k_out_of_bounds, k_out_of_bounds.find("A[_] = _"), first_element_only)
    assert str(e.value) == "replace: " + "The buffer A is accessed out-of-bounds"


@proc
def copy_below(dst: [f32][8], src: [f32][8], bound: size):
    for i in seq(0, 8):
        if i < bound:
            dst[i] = src[i]


def test_replace_refuses_a_window_past_a_buffer_the_callee_may_stage():
    """Exo builds `copy_below(out[0:8], x[0:8], n - m)` for a 2-element x,
    then accepts swapping in the callee staged by its own contract (it loads
    all of src[0:8]): the result reads past x (a fault when x ends a page).
    exo2 refuses the window, and replaces once x holds the 8 elements."""

    @proc
    def tail_copy(n: size, m: size, x: f32[n], out: f32[8]):
        assert n - m >= 1
        assert n - m <= 8
        for i in seq(0, 8):
            if i + m < n:
                out[i] = x[i]

    with pytest.raises(SchedulingError) as e:
        replace(tail_copy, tail_copy.find_loop("i"), copy_below)
    assert str(e.value) == "replace: The buffer x is accessed out-of-bounds"
    assert e.value.counterexample["n"] < 8
    # the callee's contract lets its own schedule read the whole window
    staged = stage_mem(copy_below, copy_below.find_loop("i"), "src[0:8]", "t")
    assert "t[i0] = src[i0 + 0]" in str(staged)

    @proc
    def long_tail_copy(n: size, m: size, x: f32[n], out: f32[8]):
        assert n >= 8
        assert n - m >= 1
        assert n - m <= 8
        for i in seq(0, 8):
            if i + m < n:
                out[i] = x[i]

    p = replace(long_tail_copy, long_tail_copy.find_loop("i"), copy_below)
    assert "    copy_below(out[0:8], x[0:8], -1 * m + n + 0)" in str(p)
    for n, m in ((8, 1), (9, 5), (15, 7)):
        assert_same_results(long_tail_copy, p, {"n": n, "m": m})


def test_replace_refuses_when_later_code_uses_a_replaced_allocation():
    block = k_uses_temp_after.body()[0].as_block().expand(0, 3)
    with pytest.raises(
        SchedulingError, match="'t', which they declare, is used after them"
    ):
        replace(k_uses_temp_after, block, swap_through_temp)


def test_replace_argument_errors():
    with pytest.raises(
        TypeError, match="argument 2, 'subproc' to replace: expected a Procedure object"
    ):
        replace(k_assign_loop, k_assign_loop.find_loop("i"), "loadu8")


# ---------------------------------------------------------------------------
# insert_noop_call


@instr("(void)({n});")
def hint(n: size, x: [f32][n]):
    pass


@instr("(void)({b});")
def flag_hint(b: bool):
    pass


def test_insert_noop_call_inserts_call():
    loop = k_assign_loop.find_loop("i")
    after = insert_noop_call(k_assign_loop, loop.before(), hint, ["4", "A[0:4]"])
    assert str(after) == (
        "def k_assign_loop(A: f32[8] @ DRAM):\n"
        "    hint(4, A[0:4])\n"
        "    for i in seq(0, 8):\n"
        "        A[i] = 0.0"
    )
    assert after.forward(loop).name() == "i"
    assert_same_results(k_assign_loop, after, {})


def test_insert_noop_call_refuses_non_pass_body():
    gap = k_assign_loop.find_loop("i").before()
    with pytest.raises(
        SchedulingError, match="Cannot insert a proc whose body is not pass"
    ):
        insert_noop_call(k_assign_loop, gap, zero_column, ["A[0:8]"])


@instr("(void)({n});")
def big_hint(n: size, x: [f32][n]):
    assert n > 100
    pass


def test_insert_noop_call_proves_the_callee_preconditions():
    # The generated C assumes n > 100 (EXO_ASSUME): a false assumption is
    # undefined behaviour, so the call is refused where it may not hold.
    @proc
    def small(n: size, x: f32[n]):
        for i in seq(0, n):
            x[i] = 1.0

    gap = small.find_loop("i").after()
    with pytest.raises(SchedulingError) as e:
        insert_noop_call(small, gap, big_hint, ["n", "x"])
    assert re.fullmatch(
        re.escape("insert_noop_call: ")
        + r"Could not verify assertion n > 100 in big_hint at \S+:\d+:11",
        str(e.value),
    )
    assert e.value.counterexample["n"] <= 100
    with pytest.raises(SchedulingError, match="x is read out-of-bounds"):
        insert_noop_call(small, gap, big_hint, ["n + 1", "x[0:n + 1]"])

    @proc
    def large(n: size, x: f32[n]):
        assert n > 200
        for i in seq(0, n):
            x[i] = 1.0

    p = insert_noop_call(large, large.find_loop("i").after(), big_hint, ["n", "x"])
    assert str(p).endswith("    big_hint(n, x)")
    assert_same_results(large, p, {"n": 201})


def test_insert_noop_call_argument_count():
    gap = k_assign_loop.find_loop("i").before()
    with pytest.raises(TypeError, match="Function argument count mismatch"):
        insert_noop_call(k_assign_loop, gap, hint, ["4"])


def test_insert_noop_call_argument_type():
    gap = k_assign_loop.find_loop("i").before()
    with pytest.raises(SchedulingError) as e:
        insert_noop_call(k_assign_loop, gap, flag_hint, ["4"])
    assert str(e.value) == "insert_noop_call: " + (
        "Function argument type mismatch:expected bool-type variable, but got type int"
    )
