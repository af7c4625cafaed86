"""exo2.stdlib.stdlib loop operations: tiling, unroll-and-jam,
interleaving, recursive division, trip-count rounding, peeling, unrolling,
guard removal. Each: the printed result, before/after runs through the JIT,
a refused case, and the cursors returned."""

from __future__ import annotations

import pytest
from exo2 import SchedulingError, proc
from exo2.API_cursors import ForCursor
from exo2.stdlib.scheduling import delete_pass, divide_loop, rename
from exo2.stdlib.stdlib import (
    bound_loop_by_if,
    clip_loop_to_guard,
    cut_loop_and_unroll,
    divide_loop_recursive,
    fission_into_singles,
    interleave_loop,
    interleave_outer_loop_with_inner_loop,
    round_loop,
    tile_loops,
    tile_loops_bottom_up,
    undo_divide_and_guard_loop,
    unroll_and_jam,
    unroll_and_jam_parent,
    unroll_loops,
)
from schedule_check import assert_same_results


@proc
def gemm(M: size, N: size, K: size, A: f32[M, K], B: f32[K, N], C: f32[M, N]):
    for i in seq(0, M):
        for j in seq(0, N):
            for k in seq(0, K):
                C[i, j] += A[i, k] * B[k, j]


GEMM_SIZES = [
    {"M": 7, "N": 19, "K": 5},
    {"M": 8, "N": 16, "K": 1},
    {"M": 1, "N": 1, "K": 3},
]


def same_on_gemm_sizes(p):
    before, after = gemm.jit(), p.jit()
    for sizes in GEMM_SIZES:
        assert_same_results(before, after, sizes)


HEADER = (
    "def gemm(M: size, N: size, K: size, A: f32[M, K] @ DRAM, B: f32[K, N] @ DRAM,\n"
    "         C: f32[M, N] @ DRAM):\n"
)


# --------------------------------------------------------------------------- #
# tile_loops, tile_loops_bottom_up


def test_tile_loops_puts_tile_loops_outside_point_loops():
    p, inner = tile_loops(gemm, [(gemm.find_loop("i"), 4), (gemm.find_loop("j"), 8)])
    assert str(p) == HEADER + (
        "    for io in seq(0, M / 4):\n"
        "        for jo in seq(0, N / 8):\n"
        "            for ii in seq(0, 4):\n"
        "                for ji in seq(0, 8):\n"
        "                    for k in seq(0, K):\n"
        "                        C[ii + 4 * io,\n"
        "                          ji + 8 * jo] += A[ii + 4 * io, k] * B[k, ji + 8 * jo]\n"
        "        for ii in seq(0, 4):\n"
        "            for ji in seq(0, N % 8):\n"
        "                for k in seq(0, K):\n"
        "                    C[ii + 4 * io, ji +\n"
        "                      N / 8 * 8] += A[ii + 4 * io, k] * B[k, ji + N / 8 * 8]\n"
        "    for ii in seq(0, M % 4):\n"
        "        for j in seq(0, N):\n"
        "            for k in seq(0, K):\n"
        "                C[ii + M / 4 * 4, j] += A[ii + M / 4 * 4, k] * B[k, j]"
    )
    assert [loop.name() for loop in inner] == ["ii", "ji"]
    assert all(isinstance(loop, ForCursor) for loop in inner)
    same_on_gemm_sizes(p)


@proc
def scale_16x32(A: f32[16, 32], B: f32[16, 32]):
    for i in seq(0, 16):
        for j in seq(0, 32):
            B[i, j] = A[i, j] * 2.0


def test_tile_loops_divides_constant_bounds_perfectly():
    p, _ = tile_loops(
        scale_16x32, [(scale_16x32.find_loop("i"), 4), (scale_16x32.find_loop("j"), 8)]
    )
    assert str(p).endswith(
        "    for io in seq(0, 4):\n"
        "        for jo in seq(0, 4):\n"
        "            for ii in seq(0, 4):\n"
        "                for ji in seq(0, 8):\n"
        "                    B[ii + 4 * io,\n"
        "                      ji + 8 * jo] = A[ii + 4 * io, ji + 8 * jo] * 2.0"
    )
    assert_same_results(scale_16x32, p, {})


def test_tile_loops_perfect_is_refused_when_sizes_may_not_divide():
    with pytest.raises(SchedulingError, match="cannot perfectly divide") as info:
        tile_loops(gemm, [(gemm.find_loop("i"), 4)], perfect=True)
    assert [entry[0] for entry in info.value.op_stack] == ["tile_loops", "divide_loop"]


def test_tile_loops_bottom_up_uses_guarded_tails():
    p = tile_loops_bottom_up(gemm, gemm.find_loop("i"), [4, 8, None])
    text = str(p)
    assert text.startswith(
        HEADER + "    for io in seq(0, M / 4):\n"
        "        for jo in seq(0, N / 8):\n"
        "            for ii in seq(0, 4):\n"
        "                for ji in seq(0, 8):\n"
        "                    for k in seq(0, K):\n"
    )
    assert "        if N % 8 > 0:\n" in text
    assert "    if M % 4 > 0:\n        for jo in seq(0, N / 8):\n" in text
    same_on_gemm_sizes(p)


def test_tile_loops_bottom_up_needs_a_perfect_nest():
    @proc
    def two(n: size, x: f32[n], y: f32[n]):
        for i in seq(0, n):
            x[i] = 1.0
            y[i] = 2.0

    with pytest.raises(SchedulingError, match="All loop must have a body length of 1"):
        tile_loops_bottom_up(two, two.find_loop("i"), [4, 4])


# --------------------------------------------------------------------------- #
# unroll_and_jam and its engine


def test_unroll_and_jam_interleaves_two_outer_iterations():
    p = unroll_and_jam(gemm, gemm.find_loop("i"), 2)
    assert str(p) == HEADER + (
        "    for io in seq(0, M / 2):\n"
        "        for j in seq(0, N):\n"
        "            for k in seq(0, K):\n"
        "                C[0 + 2 * io, j] += A[0 + 2 * io, k] * B[k, j]\n"
        "            for k in seq(0, K):\n"
        "                C[1 + 2 * io, j] += A[1 + 2 * io, k] * B[k, j]\n"
        "    for ii in seq(0, M % 2):\n"
        "        for j in seq(0, N):\n"
        "            for k in seq(0, K):\n"
        "                C[ii + M / 2 * 2, j] += A[ii + M / 2 * 2, k] * B[k, j]"
    )
    same_on_gemm_sizes(p)


def test_unroll_and_jam_parent_jams_into_the_inner_loop_body():
    p = unroll_and_jam_parent(gemm, gemm.find_loop("k"), 2)
    assert str(p) == HEADER + (
        "    for i in seq(0, M):\n"
        "        for jo in seq(0, N / 2):\n"
        "            for k in seq(0, K):\n"
        "                C[i, 0 + 2 * jo] += A[i, k] * B[k, 0 + 2 * jo]\n"
        "                C[i, 1 + 2 * jo] += A[i, k] * B[k, 1 + 2 * jo]\n"
        "        for ji in seq(0, N % 2):\n"
        "            for k in seq(0, K):\n"
        "                C[i, ji + N / 2 * 2] += A[i, k] * B[k, ji + N / 2 * 2]"
    )
    same_on_gemm_sizes(p)


@proc
def rows_with_prologue(n: size, m: size, x: f32[n, m], s: f32[n]):
    for i in seq(0, n):
        s[i] = 0.0
        for j in seq(0, m):
            s[i] += x[i, j]
        s[i] = s[i] * 2.0


def test_interleave_outer_with_inner_fissions_prologue_and_epilogue():
    p = interleave_outer_loop_with_inner_loop(
        rows_with_prologue,
        rows_with_prologue.find_loop("i"),
        rows_with_prologue.find_loop("j"),
        2,
        unroll=(True, False, True),
    )
    assert str(p).splitlines()[2:11] == [
        "    for io in seq(0, n / 2):",
        "        s[0 + 2 * io] = 0.0",
        "        s[1 + 2 * io] = 0.0",
        "        for j in seq(0, m):",
        "            for ii in seq(0, 2):",
        "                s[ii + 2 * io] += x[ii + 2 * io, j]",
        "        s[0 + 2 * io] = s[0 + 2 * io] * 2.0",
        "        s[1 + 2 * io] = s[1 + 2 * io] * 2.0",
        "    for ii in seq(0, n % 2):",
    ]
    assert_same_results(rows_with_prologue, p, {"n": 5, "m": 3})


def test_unroll_and_jam_refusals():
    with pytest.raises(SchedulingError, match="No loops found"):
        unroll_and_jam(gemm, gemm.find_loop("k"), 2)
    with pytest.raises(SchedulingError, match="parent is not a loop"):
        unroll_and_jam_parent(gemm, gemm.find_loop("i"), 2)
    with pytest.raises(SchedulingError, match="must be in the body of the outer loop"):
        interleave_outer_loop_with_inner_loop(
            gemm, gemm.find_loop("i"), gemm.find_loop("k"), 2
        )


# --------------------------------------------------------------------------- #
# interleave_loop


@proc
def scaled_add(n: size, x: f32[n], y: f32[n]):
    for i in seq(0, n):
        tmp: f32
        tmp = x[i] * 2.0
        y[i] += tmp


def test_interleave_loop_cut_gives_each_iteration_its_temporary():
    p = interleave_loop(scaled_add, scaled_add.find_loop("i"), 4)
    assert str(p).splitlines()[1:] == [
        "    for io in seq(0, n / 4):",
        "        tmp: f32[4] @ DRAM",
        "        tmp[0] = x[4 * io + 0] * 2.0",
        "        tmp[1] = x[4 * io + 1] * 2.0",
        "        tmp[2] = x[4 * io + 2] * 2.0",
        "        tmp[3] = x[4 * io + 3] * 2.0",
        "        y[4 * io + 0] += tmp[0]",
        "        y[4 * io + 1] += tmp[1]",
        "        y[4 * io + 2] += tmp[2]",
        "        y[4 * io + 3] += tmp[3]",
        "    for ii in seq(0, n % 4):",
        "        tmp: f32 @ DRAM",
        "        tmp = x[ii + n / 4 * 4] * 2.0",
        "        y[ii + n / 4 * 4] += tmp",
    ]
    for n in [1, 4, 11]:
        assert_same_results(scaled_add, p, {"n": n})


@pytest.mark.parametrize("tail", ["cut_and_guard", "recursive", "specialize"])
def test_interleave_loop_tails_compute_the_same(tail):
    p = interleave_loop(scaled_add, scaled_add.find_loop("i"), 4, tail=tail)
    text = str(p)
    if tail == "cut_and_guard":
        assert "    if n % 4 > 0:\n" in text
    elif tail == "recursive":
        assert "    for iio in seq(0, n % 4 / 2):\n        tmp: f32[2] @ DRAM\n" in text
    else:
        # the tail is specialized on n % 4 and each case unrolled
        assert "    if n % 4 < 2:\n" in text
        assert "            tmp: f32[3] @ DRAM\n" in text
        assert "for ii" not in text
    for n in [1, 2, 3, 4, 11]:
        assert_same_results(scaled_add, p, {"n": n})


@proc
def dot(n: size, x: f32[n], y: f32[n], r: f32):
    for i in seq(0, n):
        r += x[i] * y[i]


def test_interleave_loop_par_reduce_keeps_partial_sums():
    p = interleave_loop(dot, dot.find_loop("i"), 4, par_reduce=True)
    assert str(p).splitlines()[1:13] == [
        "    var0: f32[4] @ DRAM",
        "    var0[0] = 0.0",
        "    var0[1] = 0.0",
        "    var0[2] = 0.0",
        "    var0[3] = 0.0",
        "    for io in seq(0, n / 4):",
        "        var0[0] += x[0 + 4 * io] * y[0 + 4 * io]",
        "        var0[1] += x[1 + 4 * io] * y[1 + 4 * io]",
        "        var0[2] += x[2 + 4 * io] * y[2 + 4 * io]",
        "        var0[3] += x[3 + 4 * io] * y[3 + 4 * io]",
        "    r += var0[0]",
        "    r += var0[1]",
    ]
    for n in [1, 11]:
        assert_same_results(dot, p, {"n": n}, rtol=1e-4, atol=1e-5)


def test_interleave_loop_refusals():
    assert interleave_loop(dot, dot.find_loop("i"), 1) is dot
    with pytest.raises(SchedulingError, match="Unknown tail strategy: wrap"):
        interleave_loop(dot, dot.find_loop("i"), 4, tail="wrap")
    with pytest.raises(SchedulingError, match="factor=None"):
        interleave_loop(dot, dot.find_loop("i"), None, tail="recursive")


# --------------------------------------------------------------------------- #
# Dividing and rounding


@proc
def double_add(n: size, x: f32[n], y: f32[n]):
    for i in seq(0, n):
        y[i] += x[i] * 2.0


def test_divide_loop_recursive_halves_the_tail():
    p, (outer, inner, tail) = divide_loop_recursive(
        double_add, double_add.find_loop("i"), 8, rc=True
    )
    assert [loop.name() for loop in outer] == ["io", "iio", "iiio"]
    assert [loop.name() for loop in inner] == ["ii", "iii", "iiii"]
    assert tail.name() == "iiii" and tail.hi().op() == "%"
    assert str(p).splitlines()[4] == "    for iio in seq(0, n % 8 / 4):"
    for n in [1, 7, 15, 16]:
        assert_same_results(double_add, p, {"n": n})
    with pytest.raises(SchedulingError, match="tail strategy must be cut or"):
        divide_loop_recursive(double_add, double_add.find_loop("i"), 8, tail="guard")


def test_round_loop_up_and_down():
    up = round_loop(double_add, double_add.find_loop("i"), 4)
    assert str(up).splitlines()[1:] == [
        "    for i in seq(0, (n + 3) / 4 * 4):",
        "        if 4 * (i / 4) + i % 4 < n:",
        "            y[4 * (i / 4) + i % 4] += x[4 * (i / 4) + i % 4] * 2.0",
    ]
    down = round_loop(double_add, double_add.find_loop("i"), 4, up=False)
    assert str(down).splitlines()[1:] == [
        "    for i in seq(0, n / 4 * 4):",
        "        y[4 * (i / 4) + i % 4] += x[4 * (i / 4) + i % 4] * 2.0",
        "    for ii in seq(0, n % 4):",
        "        y[ii + n / 4 * 4] += x[ii + n / 4 * 4] * 2.0",
    ]
    for p in (up, down):
        for n in [1, 6, 8]:
            assert_same_results(double_add, p, {"n": n})


def test_cut_loop_and_unroll_peels_the_first_or_last_iteration():
    front, (rest,) = cut_loop_and_unroll(
        double_add, double_add.find_loop("i"), 1, rc=True
    )
    assert str(front).splitlines()[1:] == [
        "    y[0] += x[0] * 2.0",
        "    for i in seq(0, 0 + (n - 1)):",
        "        y[i + (1 - 0)] += x[i + (1 - 0)] * 2.0",
    ]
    assert rest.name() == "i" and front.forward(rest) == rest
    back = cut_loop_and_unroll(double_add, double_add.find_loop("i"), 1, front=False)
    assert str(back).splitlines()[-1] == "    y[-1 + 0 + n] += x[-1 + 0 + n] * 2.0"
    for p in (front, back):
        for n in [1, 2, 9]:
            assert_same_results(double_add, p, {"n": n})


# --------------------------------------------------------------------------- #
# unroll_loops, bound_loop_by_if, undo_divide_and_guard_loop, fission


@proc
def fill_2x4(x: f32[8]):
    for i in seq(0, 2):
        for j in seq(0, 4):
            x[4 * i + j] = 1.0


def test_unroll_loops_respects_the_threshold():
    two = unroll_loops(fill_2x4, threshold=2)
    assert str(two).splitlines()[1:] == [
        "    for j in seq(0, 4):",
        "        x[4 * 0 + j] = 1.0",
        "    for j in seq(0, 4):",
        "        x[4 * 1 + j] = 1.0",
    ]
    everything = unroll_loops(fill_2x4)
    assert len(str(everything).splitlines()) == 9
    assert "seq" not in str(everything)
    for p in (two, everything):
        assert_same_results(fill_2x4, p, {})


@proc
def guarded_fill(n: size, x: f32[n + 8]):
    for i in seq(0, n + 8):
        if i < n:
            x[i] = 1.0


def test_bound_loop_by_if_drops_the_guard():
    p = bound_loop_by_if(guarded_fill, guarded_fill.find_loop("i"))
    assert str(p).splitlines()[1:] == [
        "    for i in seq(0, 0 + n):",
        "        x[i] = 1.0",
    ]
    assert_same_results(guarded_fill, p, {"n": 5})
    with pytest.raises(SchedulingError, match="Expected loop to be of the following"):
        bound_loop_by_if(double_add, double_add.find_loop("i"))


@proc
def window_sum(s: index, x: f32[12], y: f32):
    assert s >= 0
    assert s <= 4
    for d in seq(0, 8):
        if d + s >= 4 and d + s < 12:
            y += x[d + s]


def test_clip_loop_to_guard_runs_the_loop_where_its_guard_holds():
    # cut where d + s >= 4 starts to hold; d + s < 12 holds throughout the
    # rest (d < 8 and s <= 4), so its cut is refused and the guard dropped
    p, (loop,) = clip_loop_to_guard(window_sum, window_sum.find_loop("d"), rc=True)
    assert str(p).splitlines()[3:] == [
        "    for d in seq(0, 4 - (0 + s)):",
        "        pass",
        "    for d in seq(4 - (0 + s), 8):",
        "        y += x[d + s]",
    ]
    assert loop.lo().op() == "-" and loop.hi().value() == 8
    assert str(delete_pass(p)).splitlines()[3] == "    for d in seq(4 - (0 + s), 8):"
    for s in (0, 3, 4):
        assert_same_results(window_sum, p, {"s": s})


@proc
def window_sum_unbounded(s: index, x: f32[12], y: f32):
    assert s >= 0
    for d in seq(0, 8):
        if d + s >= 4 and d + s < 12:
            y += x[d + s]


@proc
def scaled_guard(n: size, x: f32[n]):
    for d in seq(0, n):
        if 2 * d < n:
            x[d] = 0.0


def test_clip_loop_to_guard_refusals():
    # without s <= 4 neither cut lies in the loop in every case, and the
    # guard does not hold throughout it
    with pytest.raises(SchedulingError):
        clip_loop_to_guard(window_sum_unbounded, window_sum_unbounded.find_loop("d"))
    # 2 * d is not the iterator with coefficient 1: no cut, the guard stays
    with pytest.raises(SchedulingError):
        clip_loop_to_guard(scaled_guard, scaled_guard.find_loop("d"))
    with pytest.raises(SchedulingError, match="one if without else"):
        clip_loop_to_guard(double_add, double_add.find_loop("i"))
    with pytest.raises(SchedulingError, match="expected a loop, not ReduceCursor"):
        clip_loop_to_guard(window_sum, window_sum.find("y += _"))


def test_undo_divide_and_guard_loop_restores_one_loop():
    divided = divide_loop(double_add, double_add.find_loop("i"), 4, ("io", "ii"))
    p = undo_divide_and_guard_loop(divided, divided.find_loop("io"))
    assert str(p).splitlines()[1:] == [
        "    for i in seq(0, 0 + n):",
        "        y[i] += x[i] * 2.0",
    ]
    assert_same_results(double_add, p, {"n": 7})


@proc
def two_statements(n: size, x: f32[n], y: f32[n]):
    for i in seq(0, n):
        t: f32
        t = x[i] * 2.0
        y[i] = t + 1.0


def test_fission_into_singles_gives_every_statement_its_loop():
    p = fission_into_singles(two_statements, two_statements.find_loop("i"))
    assert str(p).splitlines()[1:] == [
        "    t: f32[n] @ DRAM",
        "    for i in seq(0, n):",
        "        t[i] = x[i] * 2.0",
        "    for i in seq(0, n):",
        "        y[i] = t[i] + 1.0",
    ]
    assert_same_results(two_statements, p, {"n": 4})
    with pytest.raises(SchedulingError, match="expected"):
        fission_into_singles(two_statements, two_statements.find("t = _"))


def test_cursors_from_an_earlier_procedure_are_forwarded():
    renamed = rename(gemm, "gemm2")
    p = unroll_and_jam(renamed, gemm.find_loop("i"), 2)
    assert str(p).splitlines()[2] == "    for io in seq(0, M / 2):"
    q, _ = tile_loops(renamed, [(gemm.find_loop("j"), 4)])
    assert "        for jo in seq(0, N / 4):" in str(q)
