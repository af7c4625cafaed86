"""exo2.stdlib.stdlib operations on reductions, buffers and statements:
parallelize_reduction, auto_stage_mem, hoisting and jamming statements,
cse / dealias, staging computations, binding, per-iteration allocations.
Each: the printed result, before/after runs through the JIT, a refused case
and the cursors returned."""

from __future__ import annotations

import pytest
from exo2 import DRAM, SchedulingError, proc
from exo2.API_cursors import AllocCursor, AssignCursor, InvalidCursor
from exo2.stdlib.scheduling import inline
from exo2.stdlib.stdlib import (
    auto_stage_mem,
    bind_and_set_expr,
    cse,
    dealias,
    dealiasing_pass,
    fma_rule,
    hoist_from_loop,
    hoist_stmt,
    inline_copies,
    jam_stmt,
    move_to_top,
    ordered_stage_expr,
    pack_mem,
    parallelize_all_reductions,
    parallelize_allocs,
    parallelize_and_lift_alloc,
    parallelize_reduction,
    stage_compute,
    stage_expr_into_memory,
    unfold_reduce,
    unroll_buffers,
)
from schedule_check import assert_same_results


def body(p):
    """The printed procedure without its signature line."""
    return str(p).split(":\n", 1)[1].splitlines()


def text(stmt):
    """The line of the statement a cursor points at."""
    line = next(s for s in str(stmt).splitlines() if s.endswith("# <-- NODE"))
    return line.removesuffix("# <-- NODE").strip()


@proc
def dot(n: size, x: f32[n], y: f32[n], r: f32):
    for i in seq(0, n):
        r += x[i] * y[i]


@proc
def mv(m: size, n: size, A: f32[m, n], x: f32[n], y: f32[m]):
    for i in seq(0, m):
        for j in seq(0, n):
            y[i] += A[i, j] * x[j]


@proc
def colsum(n: size, m: size, A: f32[n, m], s: f32[m]):
    for i in seq(0, n):
        for j in seq(0, m):
            s[j] += A[i, j]


# --------------------------------------------------------------------------- #
# parallelize_reduction


def test_parallelize_reduction_by_a_factor():
    p = parallelize_reduction(dot, dot.find("r += _"), 4)
    assert body(p) == [
        "    var0: f32[4] @ DRAM",
        "    for ii in seq(0, 4):",
        "        var0[ii] = 0.0",
        "    for i in seq(0, 0 + n):",
        "        var0[i % 4] += x[i] * y[i]",
        "    for ii in seq(0, 4):",
        "        r += var0[ii]",
    ]
    for n in [1, 3, 11]:
        assert_same_results(dot, p, {"n": n}, rtol=1e-4, atol=1e-5)


def test_parallelize_reduction_over_an_outer_loop():
    p = parallelize_reduction(colsum, colsum.find("s[_] += _"), nth_loop=2)
    assert body(p) == [
        "    var0: f32[m] @ DRAM",
        "    for j in seq(0, m):",
        "        var0[j] = 0.0",
        "    for i in seq(0, n):",
        "        for j in seq(0, m):",
        "            var0[j] += A[i, j]",
        "    for j in seq(0, m):",
        "        s[j] += var0[j]",
    ]
    assert_same_results(colsum, p, {"n": 3, "m": 5})


def test_parallelize_reduction_refusals():
    with pytest.raises(SchedulingError, match="isn't a reduction over the specified"):
        parallelize_reduction(colsum, colsum.find("s[_] += _"), nth_loop=1)
    with pytest.raises(TypeError, match="reduce_stmt must of type"):
        parallelize_reduction(colsum, colsum.find_loop("j"))


def test_parallelize_all_reductions_handles_each_reduction_under_the_loop():
    p = parallelize_all_reductions(mv, mv.find_loop("j"), 2)
    assert body(p) == [
        "    for i in seq(0, m):",
        "        var0: f32[2] @ DRAM",
        "        for ji in seq(0, 2):",
        "            var0[ji] = 0.0",
        "        for j in seq(0, 0 + n):",
        "            var0[j % 2] += A[i, j] * x[j]",
        "        for ji in seq(0, 2):",
        "            y[i] += var0[ji]",
    ]
    assert_same_results(mv, p, {"m": 3, "n": 5})
    # the reduction into y[i] is not over i: nothing changes
    assert parallelize_all_reductions(mv, mv.find_loop("i")) == mv


# --------------------------------------------------------------------------- #
# auto_stage_mem


def test_auto_stage_mem_infers_the_window():
    p, (alloc, load, block, store) = auto_stage_mem(
        mv, mv.find_loop("j"), "x", "xs", rc=True
    )
    assert body(p) == [
        "    for i in seq(0, m):",
        "        xs: f32[n - 0] @ DRAM",
        "        for i0 in seq(0, n - 0):",
        "            xs[i0] = x[i0 + 0]",
        "        for j in seq(0, n):",
        "            y[i] += A[i, j] * xs[j - 0]",
    ]
    assert isinstance(alloc, AllocCursor) and alloc.name() == "xs"
    assert load.name() == "i0" and block[0].name() == "j"
    assert isinstance(store, InvalidCursor)
    assert_same_results(mv, p, {"m": 3, "n": 5})


def test_auto_stage_mem_makes_points_of_single_index_dimensions():
    p = auto_stage_mem(mv, mv.find_loop("j"), "y", "acc", accum=True)
    assert body(p) == [
        "    for i in seq(0, m):",
        "        acc: f32 @ DRAM",
        "        acc = 0.0",
        "        for j in seq(0, n):",
        "            acc += A[i, j] * x[j]",
        "        y[i] += acc",
    ]
    assert_same_results(mv, p, {"m": 3, "n": 5})


@proc
def shifted(n: size, x: f32[n + 4], y: f32[n]):
    for i in seq(0, n):
        y[i] = x[i + 1] + x[i + 3]


def test_auto_stage_mem_takes_the_tightest_window():
    p = auto_stage_mem(shifted, shifted.find_loop("i"), "x", "xw")
    assert body(p)[:3] == [
        "    xw: f32[n + 3 - 1] @ DRAM",
        "    for i0 in seq(0, n + 3 - 1):",
        "        xw[i0] = x[i0 + 1]",
    ]
    assert_same_results(shifted, p, {"n": 5})


def test_auto_stage_mem_names_a_fresh_buffer():
    p = auto_stage_mem(dot, dot.find_loop("i"), "r", accum=True)
    assert body(p)[0] == "    var0: f32 @ DRAM"
    assert_same_results(dot, p, {"n": 4}, rtol=1e-4, atol=1e-5)


# --------------------------------------------------------------------------- #
# hoist_stmt, hoist_from_loop, jam_stmt


@proc
def invariant(n: size, a: f32, x: f32[n], c: f32[2]):
    for i in seq(0, n):
        x[i] = a
        c[0] = a * 2.0
        c[1] = a


def test_hoist_stmt_moves_an_invariant_statement_out():
    p, (allocs, stmt, loop) = hoist_stmt(invariant, invariant.find("c[0] = _"), rc=True)
    assert body(p) == [
        "    c[0] = a * 2.0",
        "    for i in seq(0, n):",
        "        x[i] = a",
        "        c[1] = a",
    ]
    assert allocs == [] and isinstance(stmt, AssignCursor)
    assert text(stmt) == "c[0] = a * 2.0" and loop.name() == "i"
    assert_same_results(invariant, p, {"n": 3})


def test_hoist_stmt_refusals():
    with pytest.raises(SchedulingError, match="depends on enclosing loop"):
        hoist_stmt(invariant, invariant.find("x[_] = _"))
    with pytest.raises(SchedulingError, match="Statement is not within a loop"):
        hoist_stmt(invariant, invariant.find_loop("i"))


@proc
def scratch_last(n: size, a: f32, x: f32[n]):
    for i in seq(0, n):
        x[i] = a
        t: f32
        x[0] = 1.0
        t = a * 2.0
        x[i] += t


def test_move_to_top_passes_statements_and_lifts_the_allocations_it_uses():
    stmt = scratch_last.find("t = _")
    p, (allocs, moved) = move_to_top(scratch_last, stmt, rc=True)
    assert body(p) == [
        "    t: f32 @ DRAM",
        "    for i in seq(0, n):",
        "        t = a * 2.0",
        "        x[i] = a",
        "        x[0] = 1.0",
        "        x[i] += t",
    ]
    assert [a.name() for a in allocs] == ["t"] and text(moved) == "t = a * 2.0"
    assert_same_results(scratch_last, p, {"n": 3})
    # a write that may hit what one before it writes does not pass it
    with pytest.raises(SchedulingError, match="do not commute"):
        move_to_top(scratch_last, scratch_last.find("x[0] = _"))
    with pytest.raises(SchedulingError, match="expected a statement, not"):
        move_to_top(scratch_last, scratch_last.find("t = _").rhs())


@proc
def copy4(dst: f32[4], src: f32[4]):
    for i in seq(0, 4):
        dst[i] = src[i]


@proc
def copies_into_each_row(n: size, src: f32[4], x: f32[n, 4], t: f32[4]):
    for i in seq(0, n):
        copy4(t, src)
        for j in seq(0, 4):
            x[i, j] = t[j]


def test_hoist_stmt_moves_a_loop_whose_iterator_shadows_the_enclosing_one():
    # inlined, copy4's loop over i sits in the loop over i: its i is its own,
    # so the copy does not depend on the enclosing loop and is hoisted
    p = inline(copies_into_each_row, copies_into_each_row.find("copy4(_)"))
    p = hoist_stmt(p, p.body()[0].body()[0])
    assert body(p) == [
        "    for i in seq(0, 4):",
        "        t[i] = src[i]",
        "    for i in seq(0, n):",
        "        for j in seq(0, 4):",
        "            x[i, j] = t[j]",
    ]
    assert_same_results(copies_into_each_row, p, {"n": 3})


@proc
def bounded_by_the_row(n: size, x: f32[n, n], t: f32[n]):
    for i in seq(0, n):
        for j in seq(0, i):
            t[j] = 0.0
        for j in seq(0, n):
            x[i, j] = t[j]


def test_hoist_stmt_refuses_a_loop_whose_bounds_use_the_enclosing_iterator():
    with pytest.raises(SchedulingError, match="depends on enclosing loop"):
        hoist_stmt(bounded_by_the_row, bounded_by_the_row.find_loop("j"))


@proc
def reads_invariant(n: size, a: f32, x: f32[n], b: f32):
    for i in seq(0, n):
        b = a * 2.0
        x[i] += b


def test_hoist_stmt_moves_a_write_every_iteration_repeats():
    # every iteration stores the same a * 2.0 into b, so the reads of later
    # iterations see the value of the hoisted write
    # (docs/internals/effect-analysis.md, "Repeated writes")
    p = hoist_stmt(reads_invariant, reads_invariant.find("b = _"))
    assert body(p) == [
        "    b = a * 2.0",
        "    for i in seq(0, n):",
        "        x[i] += b",
    ]
    assert_same_results(reads_invariant, p, {"n": 3})


@proc
def reads_its_own_result(n: size, x: f32[n], b: f32):
    for i in seq(0, n):
        b = b * 2.0
        x[i] += b


def test_hoist_stmt_is_refused_when_later_iterations_need_it():
    # b doubles every iteration: fission would let `x[i] += b` of iteration
    # 0 run after `b = ...` of iteration 1
    with pytest.raises(SchedulingError, match="Cannot fission loop") as info:
        hoist_stmt(reads_its_own_result, reads_its_own_result.find("b = _"))
    assert [e[0] for e in info.value.op_stack] == ["hoist_stmt", "fission_", "fission"]


def test_hoist_from_loop_hoists_what_it_can():
    p, (hoisted, loop) = hoist_from_loop(invariant, invariant.find_loop("i"), rc=True)
    assert body(p) == [
        "    c[0] = a * 2.0",
        "    c[1] = a",
        "    for i in seq(0, n):",
        "        x[i] = a",
    ]
    assert [text(stmt) for stmt, _ in hoisted] == ["c[0] = a * 2.0", "c[1] = a"]
    assert loop.name() == "i" and text(loop.body()[0]) == "x[i] = a"
    assert_same_results(invariant, p, {"n": 3})


@proc
def before_loop(n: size, x: f32[n], y: f32[n], c: f32[1]):
    c[0] = 3.0
    for i in seq(0, n):
        y[i] = x[i] * 2.0


def test_jam_stmt_pushes_a_statement_into_the_next_loop():
    p, (loop, stmt) = jam_stmt(before_loop, before_loop.find("c[_] = _"), rc=True)
    assert body(p) == [
        "    for i in seq(0, n):",
        "        y[i] = x[i] * 2.0",
        "        c[0] = 3.0",
    ]
    assert loop.name() == "i" and text(stmt) == "c[0] = 3.0"
    assert_same_results(before_loop, p, {"n": 4})
    with pytest.raises(SchedulingError, match="Next statement must be a loop."):
        jam_stmt(before_loop, before_loop.find_loop("i"))


@proc
def reads_before_loop(n: size, x: f32[n], y: f32[n], c: f32[1]):
    c[0] = 3.0
    for i in seq(0, n):
        y[i] = x[i] * c[0]


def test_jam_stmt_of_a_constant_write_the_loop_reads():
    # every iteration then stores 3.0 before reading it
    p = jam_stmt(reads_before_loop, reads_before_loop.find("c[_] = _"))
    assert body(p) == [
        "    for i in seq(0, n):",
        "        c[0] = 3.0",
        "        y[i] = x[i] * c[0]",
    ]
    assert_same_results(reads_before_loop, p, {"n": 4})


@proc
def reads_what_the_loop_writes(n: size, x: f32[n], y: f32[n], c: f32[1]):
    c[0] = y[0]
    for i in seq(0, n):
        y[i] = x[i] * c[0]


def test_jam_stmt_is_refused_when_the_loop_reads_the_statement():
    p = reads_what_the_loop_writes
    with pytest.raises(SchedulingError, match="Cannot fission loop over i") as info:
        jam_stmt(p, p.find("c[_] = _"))
    assert [e[0] for e in info.value.op_stack] == ["jam_stmt", "fuse"]


# --------------------------------------------------------------------------- #
# cse, dealias, inline_copies


@proc
def shared_reads(n: size, x: f32[n], y: f32[n], z: f32[n]):
    for i in seq(0, n):
        y[i] = x[i] * x[i] + z[i]
        z[i] = x[i] + 1.0


def test_cse_binds_repeated_reads_and_stages_read_write_groups():
    p = cse(shared_reads, shared_reads.find_loop("i").body(), "f32")
    assert body(p) == [
        "    for i in seq(0, n):",
        "        var0: f32 @ DRAM",
        "        var0 = x[i]",
        "        var1: f32 @ DRAM",
        "        var1 = z[i]",
        "        y[i] = var0 * var0 + var1",
        "        var1 = var0 + 1.0",
        "        z[i] = var1",
    ]
    assert_same_results(shared_reads, p, {"n": 4})


@proc
def square(n: size, y: f32[n]):
    for i in seq(0, n):
        y[i] = y[i] * y[i]


def test_dealias_separates_repeated_and_self_reads():
    p = dealias(square, square.find("y[_] = _"))
    assert body(p) == [
        "    for i in seq(0, n):",
        "        var0: f32 @ DRAM",
        "        var0 = y[i]",
        "        var1: f32 @ DRAM",
        "        var1 = var0 * y[i]",
        "        y[i] = var1",
    ]
    assert_same_results(square, p, {"n": 4})
    assert str(dealiasing_pass(square)) == str(p)
    with pytest.raises(TypeError, match="stmt must be an assign or reduce"):
        dealias(square, square.find_loop("i"))


@proc
def copies(n: size, x: f32[n], y: f32[n]):
    for i in seq(0, n):
        t: f32
        t = x[i]
        y[i] = t + 1.0


def test_inline_copies_inlines_same_memory_copies():
    p = inline_copies(copies)
    assert body(p) == [
        "    for i in seq(0, n):",
        "        t: f32 @ DRAM",
        "        y[i] = x[i] + 1.0",
    ]
    assert_same_results(copies, p, {"n": 4})


# --------------------------------------------------------------------------- #
# Staging computations


@proc
def axpy(n: size, a: f32, x: f32[n], y: f32[n]):
    for i in seq(0, n):
        y[i] = a * x[i] + y[i]


def test_stage_compute_binds_every_operation():
    p = stage_compute(axpy, axpy.find_loop("i"), "f32", DRAM)
    assert body(p) == [
        "    for i in seq(0, n):",
        "        var0: f32 @ DRAM",
        "        var0 = a * x[i]",
        "        var1: f32 @ DRAM",
        "        var1 = var0 + y[i]",
        "        y[i] = var1",
    ]
    assert_same_results(axpy, p, {"n": 4})


def test_stage_compute_with_fma_rule_keeps_the_fma_whole():
    p = stage_compute(axpy, axpy.find_loop("i"), "f32", DRAM, [fma_rule])
    assert body(p) == [
        "    for i in seq(0, n):",
        "        var0: f32 @ DRAM",
        "        var0 = a * x[i] + y[i]",
        "        y[i] = var0",
    ]
    assert_same_results(axpy, p, {"n": 4})


def test_stage_expr_into_memory_binds_unless_already_there():
    p, expr = stage_expr_into_memory(axpy, axpy.find("a * x[_]"), "f32", DRAM)
    assert body(p)[1:3] == ["        var0: f32 @ DRAM", "        var0 = a * x[i]"]
    assert expr.op() == "*" and expr.parent().name() == "var0"
    # the right-hand side of an assignment to DRAM is already staged
    same, whole = stage_expr_into_memory(
        axpy, axpy.find("a * x[_] + y[_]"), "f32", DRAM
    )
    assert same is axpy and whole.op() == "+"


@proc
def accumulate(n: size, x: f32[n], y: f32[n]):
    for i in seq(0, n):
        y[i] += x[i] * 2.0


def test_unfold_reduce_writes_the_sum_out():
    p = unfold_reduce(accumulate, accumulate.find("y[_] += _"))
    assert body(p) == ["    for i in seq(0, n):", "        y[i] = y[i] + x[i] * 2.0"]
    assert_same_results(accumulate, p, {"n": 4})
    with pytest.raises(SchedulingError, match="Expected a reduce cursor"):
        unfold_reduce(accumulate, accumulate.find_loop("i"))


@proc
def accumulate_total(n: size, x: f32[n], total: f32):
    for i in seq(0, n):
        total += x[i] * 2.0


@proc
def add_the_first(n: size, x: f32[n], y: f32[n + 1]):
    for i in seq(0, n):
        y[i + 1] += y[0] * x[i]


def test_unfold_reduce_of_a_scalar_and_beside_a_read_of_another_element():
    p = unfold_reduce(accumulate_total, accumulate_total.find("total += _"))
    assert body(p) == ["    for i in seq(0, n):", "        total = total + x[i] * 2.0"]
    assert_same_results(accumulate_total, p, {"n": 5})
    # the element written, not the y[0] the right-hand side reads
    p = unfold_reduce(add_the_first, add_the_first.find("y[_] += _"))
    assert body(p) == [
        "    for i in seq(0, n):",
        "        y[i + 1] = y[i + 1] + y[0] * x[i]",
    ]
    assert_same_results(add_the_first, p, {"n": 5})


def test_bind_and_set_expr_sets_precision_and_memory():
    p, (alloc, bound, reads) = bind_and_set_expr(
        accumulate, accumulate.find("x[_] * 2.0"), "f64", DRAM, rc=True
    )
    assert body(p) == [
        "    for i in seq(0, n):",
        "        var0: f64 @ DRAM",
        "        var0 = x[i] * 2.0",
        "        y[i] += var0",
    ]
    assert alloc.name() == "var0" and bound.op() == "*"
    assert reads == accumulate.find("x[_] * 2.0")


@proc
def row_pairs(n: size, m: size, A: f32[n, m], y: f32[n]):
    for i in seq(0, n):
        for j in seq(0, m):
            y[i] += A[i, j] * A[i, j]


def test_ordered_stage_expr_hoists_the_binding_as_a_loop_nest():
    p = ordered_stage_expr(row_pairs, row_pairs.find("A[_]"), "As", "f32", 2)
    assert body(p) == [
        "    As: f32[n, m] @ DRAM",
        "    for i in seq(0, n):",
        "        for j in seq(0, m):",
        "            As[i, j] = A[i, j]",
        "    for i in seq(0, n):",
        "        for j in seq(0, m):",
        "            y[i] += As[i, j] * A[i, j]",
    ]
    assert_same_results(row_pairs, p, {"n": 3, "m": 4})


# --------------------------------------------------------------------------- #
# Allocations


@proc
def temp_in_loop(n: size, x: f32[n], y: f32[n]):
    for i in seq(0, n):
        t: f32
        t = x[i] * 2.0
        y[i] = t + 1.0


def test_parallelize_and_lift_alloc_gives_each_iteration_a_slice():
    expected = [
        "    t: f32[n] @ DRAM",
        "    for i in seq(0, n):",
        "        t[i] = x[i] * 2.0",
        "        y[i] = t[i] + 1.0",
    ]
    p = parallelize_and_lift_alloc(temp_in_loop, temp_in_loop.find("t : _"))
    assert body(p) == expected
    assert (
        body(parallelize_allocs(temp_in_loop, temp_in_loop.find_loop("i"))) == expected
    )
    assert_same_results(temp_in_loop, p, {"n": 4})
    with pytest.raises(SchedulingError, match="expected"):
        parallelize_allocs(temp_in_loop, temp_in_loop.find("t = _"))


@proc
def two_rows(x: f32[4]):
    t: f32[2, 3]
    for i in seq(0, 3):
        t[0, i] = x[i]
    for i in seq(0, 3):
        t[1, i] = x[i + 1]
    for i in seq(0, 3):
        x[i] = t[0, i] + t[1, i]


def test_unroll_buffers_splits_constant_leading_dimensions():
    p = unroll_buffers(two_rows)
    assert body(p)[:2] == ["    t_0: f32[3] @ DRAM", "    t_1: f32[3] @ DRAM"]
    assert "x[i] = t_0[i] + t_1[i]" in str(p)
    assert_same_results(two_rows, p, {})
    # a leading dimension indexed by a variable stays
    assert unroll_buffers(temp_in_loop) == temp_in_loop


@proc
def mm_n4(M: size, N: size, K: size, A: f32[M, K], B: f32[K, N], C: f32[M, N]):
    assert N % 4 == 0
    for i in seq(0, M):
        for j in seq(0, N):
            for k in seq(0, K):
                C[i, j] += A[i, k] * B[k, j]


def test_pack_mem_lays_out_panels():
    p, (alloc, load, block, store) = pack_mem(
        mm_n4, mm_n4.find_loop("i"), "B[0:K, 0:N]", "Bp", {1: 4}, [1, 0, 2], rc=True
    )
    assert body(p) == [
        "    assert N % 4 == 0",
        "    Bp: f32[N / 4, K, 4] @ DRAM",
        "    for i0 in seq(0, K):",
        "        for i1o in seq(0, N / 4):",
        "            for i1i in seq(0, 4):",
        "                Bp[i1o, i0, i1i] = B[i0, i1i + 4 * i1o]",
        "    for i in seq(0, M):",
        "        for j in seq(0, N):",
        "            for k in seq(0, K):",
        "                C[i, j] += A[i, k] * Bp[j / 4, k, j % 4]",
    ]
    assert isinstance(alloc, AllocCursor) and alloc.name() == "Bp"
    assert load.name() == "i0" and block[0].name() == "i"
    assert isinstance(store, InvalidCursor)
    assert_same_results(mm_n4, p, {"M": 3, "N": 8, "K": 5})


def test_pack_mem_refuses_a_tile_that_does_not_divide_the_extent():
    with pytest.raises(SchedulingError, match="divide_dim"):
        pack_mem(mm_n4, mm_n4.find_loop("i"), "A[0:M, 0:K]", "Ap", {0: 4})
