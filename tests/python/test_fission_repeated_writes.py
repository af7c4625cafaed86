"""Fission and fusion past writes that a split loop repeats without effect
(docs/internals/effect-analysis.md, "Repeated writes"): a write storing the
same value in the same elements at every iteration, a reload of a staged
buffer that reads back what the previous iteration stored, a store whose
value the next iteration overwrites, and writes of a config field nobody
reads that the second part's unconditional write at the last iteration
shadows. Each accepted schedule runs before and after on random data (config
fields included); each unsafe neighbour is refused with the conflict."""

# ruff: noqa: F821, B007, E501

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from exo2 import SchedulingError, config, proc
from exo2.API_scheduling import autofission, fission, fuse
from schedule_check import assert_same_results


def text(s):
    return textwrap.dedent(s).strip()


@config
class Scale:
    factor: f32


@config
class Cursor:
    j: index


@config
class Mark:
    v: f32


def refused(f, *conflict_words):
    with pytest.raises(SchedulingError, match="Cannot fission loop over") as e:
        f()
    message = "\n".join([str(e.value), *getattr(e.value, "__notes__", [])])
    for words in conflict_words:
        assert words in message, message


# ---- invariant writes ----------------------------------------------------------


@proc
def scaled(n: size, m: size, s: f32, x: f32[n, m], y: f32[n, m]):
    for i in seq(0, n):
        for j in seq(0, m):
            Scale.factor = s
            y[i, j] = x[i, j] * Scale.factor


def test_autofission_moves_a_loop_invariant_config_write_out_of_the_nest():
    p = autofission(scaled, scaled.find("Scale.factor = _").after(), n_lifts=2)
    assert str(p) == text("""
        def scaled(n: size, m: size, s: f32 @ DRAM, x: f32[n, m] @ DRAM,
                   y: f32[n, m] @ DRAM):
            Scale.factor = s
            for i in seq(0, n):
                for j in seq(0, m):
                    y[i, j] = x[i, j] * Scale.factor
        """)
    for sizes in [{"n": 1, "m": 1}, {"n": 3, "m": 5}]:
        assert_same_results(scaled, p, sizes)


@proc
def weighted(n: size, x: f32[n], y: f32[n]):
    t: f32[1]
    for i in seq(0, n):
        t[0] = 0.299
        y[i] = t[0] * x[i]


def test_fission_after_a_constant_write_read_by_later_iterations():
    p = fission(weighted, weighted.find("t[_] = _").after())
    assert str(p) == text("""
        def weighted(n: size, x: f32[n] @ DRAM, y: f32[n] @ DRAM):
            t: f32[1] @ DRAM
            for i in seq(0, n):
                t[0] = 0.299
            for i in seq(0, n):
                y[i] = t[0] * x[i]
        """)
    for n in [1, 2, 7]:
        assert_same_results(weighted, p, {"n": n})


@proc
def iteration_dependent(n: size, x: f32[n], y: f32[n]):
    t: f32[1]
    for i in seq(0, n):
        t[0] = x[i]
        y[i] = t[0] * 2.0


@proc
def guarded_by_the_iterator(n: size, y: f32[n]):
    t: f32[1]
    for i in seq(0, n):
        t[0] = 1.0
        if i == 0:
            t[0] = 5.0
        y[i] = t[0]


@proc
def reads_what_the_loop_changes(n: size, x: f32[n], y: f32[n], u: f32[1]):
    t: f32[1]
    for i in seq(0, n):
        t[0] = u[0]
        y[i] = t[0]
        u[0] = x[i]


@proc
def second_part_stores_another_value(n: size, y: f32[n]):
    t: f32[1]
    for i in seq(0, n):
        t[0] = 2.0
        y[i] = t[0]
        t[0] = 3.0


@pytest.mark.parametrize(
    "p, gap, conflict",
    [
        (iteration_dependent, "t[_] = _", "t[0] written at"),
        (guarded_by_the_iterator, "if _: _", "t[0] written at"),
        # the value reads u[0], which the loop changes
        (reads_what_the_loop_changes, "t[_] = _", "u[0] read at"),
        (second_part_stores_another_value, "t[_] = 2.0", "t[0] written at"),
    ],
)
def test_fission_refuses_writes_that_change_across_iterations(p, gap, conflict):
    refused(lambda: fission(p, p.find(gap).after()), conflict)


# ---- reloads of a staged buffer ------------------------------------------------


@proc
def staged(K: size, C: f32[4], A: f32[4, K]):
    C_reg: f32[4]
    for k in seq(0, K):
        for i in seq(0, 4):
            C_reg[i] = C[i]
        for i in seq(0, 4):
            C_reg[i] += A[i, k]
        for i in seq(0, 4):
            C[i] = C_reg[i]


@proc
def staged_scaled(K: size, C: f32[4], A: f32[4, K]):
    C_reg: f32[4]
    for k in seq(0, K):
        for i in seq(0, 4):
            C_reg[i] = C[i]
        for i in seq(0, 4):
            C_reg[i] += A[i, k]
        for i in seq(0, 4):
            C[i] = 2.0 * C_reg[i]


def test_autofission_splits_the_reload_that_reads_back_the_stored_value():
    p0 = staged
    p = autofission(p0, p0.find_loop("i").after())
    p = autofission(p, p.find_loop("i #1").after())
    assert str(p) == text("""
        def staged(K: size, C: f32[4] @ DRAM, A: f32[4, K] @ DRAM):
            C_reg: f32[4] @ DRAM
            for i in seq(0, 4):
                C_reg[i] = C[i]
            for k in seq(0, K):
                for i in seq(0, 4):
                    C_reg[i] += A[i, k]
            for i in seq(0, 4):
                C[i] = C_reg[i]
        """)
    for K in [1, 2, 9]:
        assert_same_results(p0, p, {"K": K})


def test_fission_refuses_a_reload_when_the_store_changes_the_value():
    p = staged_scaled
    refused(
        lambda: autofission(p, p.find_loop("i").after()),
        "C[i] read at",
        "C[i] written at",
    )
    # What the split would compute (K = 2, all ones: 10 before, 6 after).
    C, A = np.ones(4, np.float32), np.ones((4, 2), np.float32)
    p.jit()(2, C, A)
    assert C[0] == 10.0


@proc
def stored_then_changed(K: size, C: f32[4], A: f32[4, K]):
    C_reg: f32[4]
    for k in seq(0, K):
        for i in seq(0, 4):
            C_reg[i] = C[i]
        for i in seq(0, 4):
            C_reg[i] += A[i, k]
        for i in seq(0, 4):
            C[i] = C_reg[i]
        for i in seq(0, 4):
            C_reg[i] += 1.0


@proc
def store_read_later(K: size, C: f32[4], A: f32[4, K], D: f32[K]):
    C_reg: f32[4]
    for i in seq(0, 4):
        C_reg[i] = C[i]
    for k in seq(0, K):
        for i in seq(0, 4):
            C_reg[i] += A[i, k]
        for i in seq(0, 4):
            C[i] = C_reg[i]
        D[k] = C[0]


def test_fission_refuses_a_reload_when_the_staged_buffer_changes_after_the_store():
    p = stored_then_changed
    refused(
        lambda: autofission(p, p.find_loop("i").after()),
        "C[i] read at",
        "C[i] written at",
    )


def test_fission_refuses_to_drop_a_store_whose_value_is_read_before_the_next():
    p = store_read_later
    refused(
        lambda: autofission(p, p.find_loop("i #1").after()),
        "C_reg[i] reduced at",
        "C_reg[i] read at",
    )


@proc
def store_in_the_update_loop(C: f32[4], A: f32[4], B: f32[4]):
    C_reg: f32[4]
    for k in seq(0, 4):
        for i in seq(0, 4):
            C_reg[i] = C[i]
        for i in seq(0, 4):
            C_reg[i] += A[i] * B[k]
            C[i] = C_reg[i]


@proc
def changed_after_a_later_store(C: f32[4], A: f32[4], B: f32[4]):
    C_reg: f32[4]
    for k in seq(0, 4):
        for i in seq(0, 4):
            C_reg[i] = C[i]
        for i in seq(0, 4):
            if i > 0:
                C_reg[i - 1] += B[k]
            C[i] = C_reg[i]


def test_autofission_reload_when_the_store_shares_a_loop_with_the_update():
    p = autofission(
        store_in_the_update_loop, store_in_the_update_loop.find_loop("i").after()
    )
    assert str(p) == text("""
        def store_in_the_update_loop(C: f32[4] @ DRAM, A: f32[4] @ DRAM,
                                     B: f32[4] @ DRAM):
            C_reg: f32[4] @ DRAM
            for i in seq(0, 4):
                C_reg[i] = C[i]
            for k in seq(0, 4):
                for i in seq(0, 4):
                    C_reg[i] += A[i] * B[k]
                    C[i] = C_reg[i]
        """)
    assert_same_results(store_in_the_update_loop, p, {})


def test_fission_refuses_a_reload_when_a_later_iteration_changes_a_stored_element():
    # at i = 1 the loop adds to C_reg[0] after C[0] = C_reg[0] was stored
    p = changed_after_a_later_store
    refused(
        lambda: autofission(p, p.find_loop("i").after()),
        "C[i] read at",
        "C[i] written at",
    )


# ---- fusion of loops writing a config field -----------------------------------


@proc
def same_constant(n: size, x: f32[n]):
    for i in seq(0, n):
        Cursor.j = 0
        x[i] = 1.0
    for j in seq(0, n):
        Cursor.j = 0
        x[Cursor.j] += 2.0


@proc
def different_constants(n: size, x: f32[n]):
    for i in seq(0, n):
        Cursor.j = 0
        x[i] = 1.0
    for j in seq(0, n):
        Cursor.j = 1
        x[j] += 2.0


def test_fuse_two_loops_that_store_the_same_constant_in_a_config():
    p0 = same_constant
    p = fuse(p0, p0.find_loop("i"), p0.find_loop("j"))
    assert str(p) == text("""
        def same_constant(n: size, x: f32[n] @ DRAM):
            for i in seq(0, n):
                Cursor.j = 0
                x[i] = 1.0
                Cursor.j = 0
                x[Cursor.j] += 2.0
        """)
    for n in [1, 2, 6]:
        assert_same_results(p0, p, {"n": n})


def final_config(p, sizes, cfg, field, start):
    """The value of `cfg.field` after running `p(*sizes, x)` (the kernels
    below take their sizes, then x: f32[sizes[0]]) from `cfg.field == start`:
    assert_same_results compares the arguments only."""
    kernel = p.jit()
    kernel.set_config(cfg, **{field: start})
    kernel(*sizes, np.zeros(sizes[0], np.float32))
    return kernel.get_config(cfg, field)


def test_fuse_two_loops_that_store_different_constants_nobody_reads():
    # Both orders end with Cursor.j == 1, the second loop's value at the
    # last iteration, and nothing reads Cursor.j in between.
    p0 = different_constants
    p = fuse(p0, p0.find_loop("i"), p0.find_loop("j"))
    assert str(p) == text("""
        def different_constants(n: size, x: f32[n] @ DRAM):
            for i in seq(0, n):
                Cursor.j = 0
                x[i] = 1.0
                Cursor.j = 1
                x[i] += 2.0
        """)
    for n in [1, 2, 7]:
        assert_same_results(p0, p, {"n": n})
    for n in [1, 2, 7]:
        assert [final_config(q, (n,), Cursor, "j", 5) for q in (p0, p)] == [1, 1]


@proc
def different_constants_up_to(n: size, m: index, x: f32[n]):
    assert 0 <= m and m <= n
    for i in seq(0, m):
        Cursor.j = 0
        x[i] = 1.0
    for j in seq(0, m):
        Cursor.j = 1
        x[j] += 2.0


def test_fuse_loops_that_store_different_constants_for_any_trip_count():
    p0 = different_constants_up_to
    p = fuse(p0, p0.find_loop("i"), p0.find_loop("j"))
    for m in [0, 1, 2, 7]:
        assert_same_results(p0, p, {"n": 7, "m": m})
    # With m == 0 neither loop writes Cursor.j.
    for m, end in [(0, 5), (1, 1), (2, 1), (7, 1)]:
        assert [final_config(q, (7, m), Cursor, "j", 5) for q in (p0, p)] == [end, end]


@proc
def different_constants_fused(n: size, x: f32[n]):
    for i in seq(0, n):
        Cursor.j = 0
        x[i] = 1.0
        Cursor.j = 1
        x[i] += 2.0


def test_fission_between_two_writes_of_different_constants_nobody_reads():
    p0 = different_constants_fused
    p = fission(p0, p0.find("x[_] = _").after())
    assert str(p) == text("""
        def different_constants_fused(n: size, x: f32[n] @ DRAM):
            for i in seq(0, n):
                Cursor.j = 0
                x[i] = 1.0
            for i in seq(0, n):
                Cursor.j = 1
                x[i] += 2.0
        """)
    for n in [1, 2, 7]:
        assert_same_results(p0, p, {"n": n})
    for n in [1, 2, 7]:
        assert [final_config(q, (n,), Cursor, "j", 5) for q in (p0, p)] == [1, 1]


@proc
def first_write_guarded(n: size, x: f32[n]):
    Cursor.j = 0
    for i in seq(0, n):
        if Cursor.j == 0:
            Mark.v = 0.0
        Cursor.j = 1 - Cursor.j
        x[i] = 1.0
    for j in seq(0, n):
        Mark.v = 1.0
        x[j] += 2.0


def test_fuse_when_only_the_first_loop_writes_under_an_if():
    # The first loop writes Mark.v at even i: fused, after the second's
    # writes at smaller i; the second's unconditional write at the last
    # iteration still comes last in both orders.
    p0 = first_write_guarded
    p = fuse(p0, p0.find_loop("i"), p0.find_loop("j"))
    for n in [1, 2, 7]:
        assert_same_results(p0, p, {"n": n})
    for n in [1, 2, 7]:
        assert [final_config(q, (n,), Mark, "v", 5.0) for q in (p0, p)] == [1.0, 1.0]


@proc
def scalar_stores(n: size, x: f32[n], s: f32):
    for i in seq(0, n):
        s = 0.0
        x[i] = 1.0
    for j in seq(0, n):
        s = x[j]
        x[j] += 2.0


def test_fuse_two_loops_that_store_into_a_scalar_nobody_reads():
    # s ends with x[n - 1] == 1.0 as the second loop reads it at the last
    # iteration, in both orders (assert_same_results compares s).
    p0 = scalar_stores
    p = fuse(p0, p0.find_loop("i"), p0.find_loop("j"))
    assert str(p) == text("""
        def scalar_stores(n: size, x: f32[n] @ DRAM, s: f32 @ DRAM):
            for i in seq(0, n):
                s = 0.0
                x[i] = 1.0
                s = x[i]
                x[i] += 2.0
        """)
    for n in [1, 2, 7]:
        assert_same_results(p0, p, {"n": n})


# ---- the refused neighbours: Mark.v ends in out[0], where a run sees it -------


# Config writes cannot depend on the loop iterators (the typechecker's rule,
# as in Exo): a write of the second loop that runs at some iterations only
# depends on a config field the loop changes.


@proc
def second_write_guarded(n: size, x: f32[n], out: f32[1]):
    Cursor.j = 0
    for i in seq(0, n):
        Mark.v = 0.0
        x[i] = 1.0
    for j in seq(0, n):
        if Cursor.j == 0:
            Mark.v = 1.0
        Cursor.j = 1
        x[j] += 2.0
    out[0] = Mark.v


@proc
def second_write_in_an_inner_loop(n: size, x: f32[n], out: f32[1]):
    Cursor.j = 1
    for i in seq(0, n):
        Mark.v = 0.0
        x[i] = 1.0
    for j in seq(0, n):
        for k in seq(0, Cursor.j % 2):
            Mark.v = 1.0
        Cursor.j = 0
        x[j] += 2.0
    out[0] = Mark.v


@proc
def second_loop_reads_the_field(n: size, x: f32[n], out: f32[1]):
    for i in seq(0, n):
        Mark.v = 0.0
        x[i] = 1.0
    for j in seq(0, n):
        x[j] += Mark.v
        Mark.v = 1.0
    out[0] = Mark.v


@proc
def first_loop_reads_the_field(n: size, x: f32[n], out: f32[1]):
    for i in seq(0, n):
        x[i] = Mark.v
        Mark.v = 0.0
    for j in seq(0, n):
        Mark.v = 1.0
        x[j] += 2.0
    out[0] = Mark.v


@pytest.mark.parametrize(
    "p, conflict, x_before, out_fused",
    [
        # the second loop writes Mark.v at j == 0 only: fused, the first
        # loop's write at i = 1 comes last
        (second_write_guarded, "Mark.v written at", [3.0, 3.0, 3.0], 0.0),
        # the inner loop runs at j == 0 only, zero times at the last iteration
        (second_write_in_an_inner_loop, "Mark.v written at", [3.0, 3.0, 3.0], 0.0),
        # x[1] adds 1.0 unfused, 0.0 fused (the read alone is harmless: the
        # first loop stores 0.0 at every iteration; the second's write of
        # 1.0 is what it must not see)
        (second_loop_reads_the_field, "Mark.v written at", [1.0, 2.0, 2.0], 1.0),
        # x[1] copies 0.0 unfused, 1.0 fused
        (first_loop_reads_the_field, "Mark.v read at", [7.0, 2.0, 2.0], 1.0),
    ],
    ids=["guarded", "inner_loop", "second_reads", "first_reads"],
)
def test_fuse_refuses_a_field_write_that_may_not_be_last_or_is_read(
    p, conflict, x_before, out_fused
):
    refused(lambda: fuse(p, p.find_loop("i"), p.find_loop("j")), conflict)
    # What each order computes (n = 3, Mark.v starts at 5.0).
    unsafe = fuse(p, p.find_loop("i"), p.find_loop("j"), unsafe_disable_check=True)
    results = []
    for q in (p, unsafe):
        kernel = q.jit()
        kernel.set_config(Mark, v=5.0)
        x, out = np.zeros(3, np.float32), np.zeros(1, np.float32)
        kernel(3, x, out)
        results.append((x.tolist(), float(out[0])))
    assert results[0] == (x_before, 1.0)
    assert results[1] != results[0]
    assert results[1][1] == out_fused


@proc
def control_read(n: size, x: f32[n]):
    for i in seq(0, n):
        Cursor.j = 0
        x[i] = 1.0
    for j in seq(0, n):
        if Cursor.j == 0:
            x[j] += 2.0
        Cursor.j = 1


def test_fuse_refuses_when_a_condition_reads_the_field():
    # Unfused, only x[0] gets 2.0 (Cursor.j is 1 from j = 1 on); fused, all.
    # As above, the write of 1 is refused, since the condition reads it.
    p = control_read
    refused(lambda: fuse(p, p.find_loop("i"), p.find_loop("j")), "Cursor.j written at")


@proc
def array_element(n: size, x: f32[n], y: f32[n]):
    for i in seq(0, n):
        y[0] = 0.0
        x[i] = 1.0
    for j in seq(0, n):
        y[j] = 1.0
        x[j] += 2.0


def test_fuse_refuses_an_element_the_second_loop_writes_at_one_iteration():
    # y[0] is last written by the second loop at j == 0 only: fused, the
    # first loop's y[0] = 0.0 at i = 1 comes after it.
    p = array_element
    refused(lambda: fuse(p, p.find_loop("i"), p.find_loop("j")), "y[0] written at")


@proc
def fused_with_a_guarded_write(n: size, x: f32[n], out: f32[1]):
    Cursor.j = 0
    for i in seq(0, n):
        Mark.v = 0.0
        x[i] = 1.0
        if Cursor.j == 0:
            Mark.v = 1.0
        Cursor.j = 1
        x[i] += 2.0
    out[0] = Mark.v


def test_fission_refuses_a_guarded_write_of_the_second_part():
    # Split, the second loop's write at i == 0 would be the last (out[0] is
    # 1.0 instead of 0.0 for n >= 2).
    p = fused_with_a_guarded_write
    refused(lambda: fission(p, p.find("x[_] = _").after()), "Mark.v written at")
