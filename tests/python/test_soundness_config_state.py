"""Config fields are mutable state: schedules that move, copy or split code
across a write of a field that a condition, a loop bound, an index or a
callee's precondition reads are refused; the values a field provably holds
are used in proofs (docs/internals/effect-analysis.md, "Config state").

Each unsafe schedule asserts its refusal and message; each safe neighbour
runs before and after on random data."""

# ruff: noqa: F821, B007

from __future__ import annotations

import re

import pytest
from exo2 import SchedulingError, config, proc
from exo2.API_scheduling import (
    autofission,
    cut_loop,
    delete_config,
    divide_loop,
    divide_with_recompute,
    eliminate_dead_code,
    expand_dim,
    extract_subproc,
    fission,
    fuse,
    inline,
    inline_assign,
    inline_window,
    join_loops,
    lift_alloc,
    reorder_stmts,
    rewrite_expr,
    shift_loop,
    simplify,
    stage_mem,
    widen_loop,
    write_config,
)
from schedule_check import assert_same_results

# A refusal starts with the name of the operation called ("fuse: ").
OPERATION_PREFIX = re.compile(r"[a-z_]+: ")


@config
class C:
    k: index
    m: index


def refusal(f):
    with pytest.raises(SchedulingError) as e:
        f()
    message = str(e.value)
    prefix = OPERATION_PREFIX.match(message)
    assert prefix, message
    return message[prefix.end() :]


def body(p, i):
    return p.body()[i]


# ---- fuse and fission of ifs ------------------------------------------------


@proc
def ifs_with_write_between(x: f32[2]):
    C.k = 0
    if C.k == 0:
        x[0] = 1.0
        C.k = 1
    if C.k == 0:
        x[1] = 2.0


def test_fuse_refuses_ifs_whose_first_body_writes_the_condition():
    message = refusal(
        lambda: fuse(
            ifs_with_write_between,
            body(ifs_with_write_between, 1),
            body(ifs_with_write_between, 2),
        )
    )
    assert message.startswith("Cannot fuse the if statements: the condition at ")
    assert "reads C.k, which is written at " in message


@proc
def ifs_reading_config(x: f32[2]):
    C.k = 0
    if C.k == 0:
        x[0] = 1.0
    if C.k == 0:
        x[1] = 2.0


def test_fuse_of_ifs_reading_an_unchanged_field_keeps_results():
    p = fuse(
        ifs_reading_config, body(ifs_reading_config, 1), body(ifs_reading_config, 2)
    )
    assert str(p).endswith("    if C.k == 0:\n        x[0] = 1.0\n        x[1] = 2.0")
    assert_same_results(ifs_reading_config, p, {})


@proc
def if_writing_its_condition(x: f32[2]):
    C.k = 0
    if C.k == 0:
        C.k = 1
        x[0] = 1.0


@pytest.mark.parametrize("op", [fission, autofission])
def test_fission_refuses_an_if_whose_first_part_writes_the_condition(op):
    gap = body(if_writing_its_condition, 1).body()[1].before()
    message = refusal(lambda: op(if_writing_its_condition, gap))
    assert message.startswith("Cannot fission the if statement: the condition at ")
    assert "reads C.k, which is written at " in message


@proc
def if_writing_another_field(x: f32[2]):
    C.k = 0
    if C.k == 0:
        C.m = 1
        x[0] = 1.0


@pytest.mark.parametrize("op", [fission, autofission])
def test_fission_of_an_if_writing_another_field_keeps_results(op):
    gap = body(if_writing_another_field, 1).body()[1].before()
    p = op(if_writing_another_field, gap)
    assert str(p).endswith(
        "    if C.k == 0:\n        C.m = 1\n    if C.k == 0:\n        x[0] = 1.0"
    )
    assert_same_results(if_writing_another_field, p, {})


# ---- loops whose bounds are evaluated again ----------------------------------


@proc
def bound_written_by_body(x: f32[20]):
    C.m = 7
    for i in seq(0, C.m):
        x[i] = 1.0
        C.m = 12


@pytest.mark.parametrize("tail", ["cut", "cut_and_guard", "guard"])
def test_divide_loop_refuses_a_bound_the_body_writes(tail):
    message = refusal(
        lambda: divide_loop(
            bound_written_by_body,
            bound_written_by_body.find_loop("i"),
            4,
            ["io", "ii"],
            tail=tail,
        )
    )
    what = "guard" if tail == "guard" else "tail loop"
    assert message.startswith(
        f"Cannot divide the loop over i with a {what}: the bound of the loop "
        "over i reads C.m, which is written at "
    )


def test_divide_loop_perfect_evaluates_the_written_bound_once():
    # C.m holds 8 where the loop starts: the division is perfect, and the
    # outer bound C.m / 4 is evaluated once, as the loop's bound was.
    @proc
    def eight(x: f32[20]):
        C.m = 8
        for i in seq(0, C.m):
            x[i] = 1.0
            C.m = 12

    p = divide_loop(eight, eight.find_loop("i"), 4, ["io", "ii"], perfect=True)
    assert "for io in seq(0, C.m / 4):" in str(p)


@proc
def bound_read_only(x: f32[20], y: f32[20]):
    C.m = 7
    for i in seq(0, C.m):
        x[i] = y[i]


@pytest.mark.parametrize("tail", ["cut", "cut_and_guard", "guard"])
def test_divide_loop_over_an_unchanged_config_bound_keeps_results(tail):
    p = divide_loop(
        bound_read_only, bound_read_only.find_loop("i"), 4, ["io", "ii"], tail=tail
    )
    assert_same_results(bound_read_only, p, {})


def test_cut_loop_refuses_a_bound_the_body_writes():
    message = refusal(
        lambda: cut_loop(bound_written_by_body, bound_written_by_body.find_loop("i"), 3)
    )
    assert message.startswith(
        "Cannot cut the loop over i: the bounds of the second loop over i read "
        "C.m, which is written at "
    )


def test_cut_loop_of_an_unchanged_config_bound_keeps_results():
    p = cut_loop(bound_read_only, bound_read_only.find_loop("i"), 3)
    assert "for i in seq(3, C.m):" in str(p)
    assert_same_results(bound_read_only, p, {})


@proc
def lower_bound_written_by_body(x: f32[20]):
    C.m = 2
    for i in seq(C.m, 9):
        x[i] = 1.0
        C.m = 5


def test_shift_loop_refuses_a_lower_bound_the_body_writes():
    message = refusal(
        lambda: shift_loop(
            lower_bound_written_by_body,
            lower_bound_written_by_body.find_loop("i"),
            0,
        )
    )
    assert message.startswith(
        "Cannot shift the loop over i: the shifted index of the loop over i "
        "reads C.m, which is written at "
    )


def test_widen_loop_refuses_a_lower_bound_the_body_writes():
    # the guard `C.m <= i` would read C.m after the body wrote it
    message = refusal(
        lambda: widen_loop(
            lower_bound_written_by_body,
            lower_bound_written_by_body.find_loop("i"),
            0,
        )
    )
    assert message.startswith(
        "Cannot widen the loop over i: the bounds the widened loop over i "
        "tests read C.m, which is written at "
    )


def test_widen_loop_of_an_unchanged_config_bound_keeps_results():
    @proc
    def from_config(x: f32[20], y: f32[20]):
        C.m = 2
        for i in seq(C.m, 9):
            x[i] = y[i]

    p = widen_loop(from_config, from_config.find_loop("i"), 0)
    assert "for i in seq(0, 9):\n        if C.m <= i:" in str(p)
    assert_same_results(from_config, p, {})


def test_shift_loop_of_an_unchanged_config_bound_keeps_results():
    @proc
    def from_config(x: f32[20], y: f32[20]):
        C.m = 2
        for i in seq(C.m, 9):
            x[i] = y[i]

    p = shift_loop(from_config, from_config.find_loop("i"), 0)
    assert_same_results(from_config, p, {})


def test_divide_with_recompute_refuses_a_bound_the_body_writes():
    message = refusal(
        lambda: divide_with_recompute(
            bound_written_by_body,
            bound_written_by_body.find_loop("i"),
            "C.m / 4",
            4,
            ["io", "ii"],
        )
    )
    assert "reads C.m, which is written at " in message


@proc
def joined_after_a_write(x: f32[20]):
    C.m = 4
    for i in seq(0, C.m):
        if i < 20:
            x[i] = 1.0
        C.m = 6
    for i in seq(C.m, C.m + 2):
        if i >= 0 and i < 20:
            x[i] = 1.0
        C.m = 6


def test_join_loops_refuses_bounds_the_first_body_writes():
    loops = joined_after_a_write.find_loop("i", many=True)
    message = refusal(lambda: join_loops(joined_after_a_write, loops[0], loops[1]))
    assert message.startswith(
        "Cannot join the loops: the bounds of the second loop over i read C.m, "
        "which is written at "
    )


# ---- simplify and the facts of enclosing ifs --------------------------------


@proc
def fact_overwritten(x: f32[2]):
    C.k = 0
    if C.k == 0:
        C.k = 1
        x[C.k] = 1.0


def test_simplify_drops_a_condition_fact_after_its_field_is_written():
    p = simplify(fact_overwritten)
    assert "x[C.k] = 1.0" in str(p)
    assert_same_results(fact_overwritten, p, {})


def test_simplify_uses_a_condition_fact_while_its_field_is_unchanged():
    @proc
    def fact_kept(x: f32[2]):
        C.k = 0
        if C.k == 0:
            x[C.k] = 1.0

    p = simplify(fact_kept)
    assert "x[0] = 1.0" in str(p)
    assert_same_results(fact_kept, p, {})


def test_rewrite_expr_refuses_a_condition_fact_after_its_field_is_written():
    read = fact_overwritten.find("x[_] = _").idx()[0]
    message = refusal(lambda: rewrite_expr(fact_overwritten, read, "0"))
    assert message.startswith("Expressions are not equivalent:\nC.k\nvs.\n0")


def test_eliminate_dead_code_decides_with_the_value_after_a_write():
    @proc
    def rechecked(x: f32[2]):
        C.k = 0
        if C.k == 0:
            C.k = 1
            if C.k == 0:
                x[0] = 1.0
        x[1] = 2.0

    p = eliminate_dead_code(rechecked, body(rechecked, 1).body()[1])
    assert "x[0]" not in str(p)
    assert_same_results(rechecked, p, {})


# ---- values a field provably holds -------------------------------------------


@proc
def bound_just_written(x: f32[20], y: f32[20]):
    C.k = 1
    for i in seq(0, C.k):
        x[i] = y[i]


def test_rewrite_expr_proves_with_the_value_just_written():
    p = rewrite_expr(bound_just_written, bound_just_written.find_loop("i").hi(), "1")
    assert "for i in seq(0, 1):" in str(p)
    assert_same_results(bound_just_written, p, {})


def test_fuse_proves_equal_bounds_with_the_value_just_written():
    @proc
    def two_loops(x: f32[20], y: f32[20]):
        C.k = 1
        for i in seq(0, C.k):
            x[i] = y[i]
        for j in seq(0, 1):
            y[j] = 2.0

    p = fuse(two_loops, body(two_loops, 1), body(two_loops, 2))
    assert str(p).endswith(
        "    for i in seq(0, C.k):\n        x[i] = y[i]\n        y[i] = 2.0"
    )
    assert_same_results(two_loops, p, {})


def test_rewrite_expr_still_refuses_a_different_value():
    message = refusal(
        lambda: rewrite_expr(
            bound_just_written, bound_just_written.find_loop("i").hi(), "2"
        )
    )
    assert message.startswith("Expressions are not equivalent:\nC.k\nvs.\n2")


def test_eliminate_dead_code_uses_the_value_just_written():
    @proc
    def checked(x: f32[2]):
        C.k = 1
        if C.k == 1:
            x[0] = 1.0

    p = eliminate_dead_code(checked, body(checked, 1))
    assert str(p).endswith("    C.k = 1\n    x[0] = 1.0")
    assert_same_results(checked, p, {})


@proc
def field_read_later(x: f32[20], y: f32[20]):
    C.k = 1
    for i in seq(0, 4):
        x[i] = y[i]
    for i in seq(0, C.k):
        y[i] = 0.0


def test_write_config_of_the_value_the_field_holds_is_accepted():
    gap = body(field_read_later, 1).after()
    p = write_config(field_read_later, gap, C, "k", "1")
    assert "    C.k = 1\n    for i in seq(0, C.k):" in str(p)
    assert_same_results(field_read_later, p, {})


def test_write_config_of_another_value_is_still_refused():
    gap = body(field_read_later, 1).after()
    message = refusal(lambda: write_config(field_read_later, gap, C, "k", "2"))
    assert message.startswith("Cannot change configuration value of C_k at ")


def test_delete_config_of_a_repeated_write_is_accepted():
    @proc
    def repeated(x: f32[20], y: f32[20]):
        C.k = 1
        for i in seq(0, 4):
            x[i] = y[i]
        C.k = 1
        for i in seq(0, C.k):
            y[i] = 0.0

    p = delete_config(repeated, body(repeated, 2))
    assert_same_results(repeated, p, {})


@config
class Scale:
    s: f32


def test_write_config_of_the_data_value_the_field_holds_is_accepted():
    @proc
    def scaled(n: size, a: f32, x: f32[n]):
        Scale.s = a
        for i in seq(0, n):
            x[i] = Scale.s * x[i]
        for i in seq(0, n):
            x[i] = Scale.s * x[i]

    p = write_config(scaled, body(scaled, 1).after(), Scale, "s", "a")
    assert_same_results(scaled, p, {"n": 5})


# ---- callee preconditions ----------------------------------------------------


@proc
def needs_k_zero(x: f32[2]):
    assert C.k == 0
    x[0] = 3.0


@proc
def calls_with_k_zero(x: f32[2]):
    C.k = 0
    needs_k_zero(x)


def test_write_config_before_a_call_refuses_a_value_the_precondition_reads():
    gap = calls_with_k_zero.find("needs_k_zero(_)").before()
    message = refusal(lambda: write_config(calls_with_k_zero, gap, C, "k", "1"))
    assert message.startswith("Cannot change configuration value of C_k at ")


def test_write_config_before_a_call_keeping_the_precondition_is_accepted():
    gap = calls_with_k_zero.find("needs_k_zero(_)").before()
    p = write_config(calls_with_k_zero, gap, C, "k", "0")
    assert_same_results(calls_with_k_zero, p, {})


def test_delete_config_refuses_a_write_the_precondition_reads():
    message = refusal(
        lambda: delete_config(calls_with_k_zero, body(calls_with_k_zero, 0))
    )
    assert message.startswith("Cannot change configuration value of C_k at ")


@proc
def call_then_write(x: f32[2]):
    C.k = 0
    needs_k_zero(x)
    C.k = 1
    C.m = 1


def test_reorder_stmts_refuses_moving_a_write_the_precondition_reads():
    block = call_then_write.find("needs_k_zero(_)").expand(0, 1)
    message = refusal(lambda: reorder_stmts(call_then_write, block))
    assert message.startswith("Statements at ")
    assert message.endswith("do not commute.")


def test_reorder_stmts_moves_a_call_past_an_unrelated_write():
    @proc
    def unrelated(x: f32[2]):
        C.k = 0
        needs_k_zero(x)
        C.m = 1

    block = unrelated.find("needs_k_zero(_)").expand(0, 1)
    p = reorder_stmts(unrelated, block)
    assert str(p).endswith("    C.m = 1\n    needs_k_zero(x)")
    assert_same_results(unrelated, p, {})


def test_reorder_stmts_refuses_moving_an_allocation_above_a_write_its_extent_reads():
    # Found by the randomized schedule test under ASan: above C.m = 2 the
    # extent n - C.m + 1 is 1, and the loop wrote n - 2 elements into it.
    @proc
    def sized_by_field(n: size, x: f32[n], y: f32[n]):
        assert n >= 2
        C.m = n
        C.m = 2
        t: f32[n - C.m + 1]
        for i in seq(0, n - C.m):
            t[i] = x[i]
            y[i] = t[i]

    write = sized_by_field.body()[1]  # C.m = 2 (patterns ignore the value written)
    block = write.expand(0, 1)
    assert block[1].name() == "t"
    message = refusal(lambda: reorder_stmts(sized_by_field, block))
    assert message.endswith("do not commute.")


# ---- expressions evaluated at every use --------------------------------------


@proc
def index_callee(n: index, x: f32[20]):
    assert n >= 0 and n < 10
    C.k = 5
    x[n] = 1.0
    x[n + 1] = 2.0


@proc
def calls_with_config_argument(x: f32[20]):
    C.k = 2
    index_callee(C.k, x)


def test_inline_refuses_an_argument_the_callee_body_writes():
    message = refusal(
        lambda: inline(
            calls_with_config_argument,
            calls_with_config_argument.find("index_callee(_)"),
        )
    )
    assert message.startswith(
        "Cannot inline index_callee: the arguments of the call at "
    )
    assert "read C.k, which is written at " in message


def test_inline_of_an_argument_the_callee_leaves_alone_keeps_results():
    @proc
    def leaves_k(n: index, x: f32[20]):
        assert n >= 0 and n < 10
        C.m = 5
        x[n] = 1.0

    @proc
    def calls_leaves_k(x: f32[20]):
        C.k = 2
        leaves_k(C.k, x)

    p = inline(calls_leaves_k, calls_leaves_k.find("leaves_k(_)"))
    assert "x[C.k] = 1.0" in str(p)
    assert_same_results(calls_leaves_k, p, {})


@proc
def window_then_write(x: f32[20]):
    C.k = 2
    w = x[C.k : C.k + 4]
    C.k = 7
    w[0] = 1.0


def test_inline_window_refuses_bounds_written_after_the_window():
    message = refusal(
        lambda: inline_window(window_then_write, window_then_write.find("w = _"))
    )
    assert message.startswith(
        "Cannot inline the window w: the window w reads C.k, which is written at "
    )


def test_inline_window_with_unchanged_bounds_keeps_results():
    @proc
    def window_only(x: f32[20]):
        C.k = 2
        w = x[C.k : C.k + 4]
        w[0] = 1.0

    p = inline_window(window_only, window_only.find("w = _"))
    assert "x[0 + C.k] = 1.0" in str(p)
    assert_same_results(window_only, p, {})


def test_stage_mem_refuses_a_window_the_block_writes():
    @proc
    def staged(x: f32[20]):
        C.k = 2
        x[C.k] = 1.0
        C.k = 3

    block = body(staged, 1).expand(0, 1)
    message = refusal(lambda: stage_mem(staged, block, "x[C.k]", "t"))
    assert message.startswith(
        "Cannot stage 'x': the staged window reads C.k, which is written at "
    )


def test_expand_dim_refuses_an_index_written_between_accesses():
    @proc
    def temporaries(x: f32[20]):
        C.k = 0
        t: f32
        t = x[0]
        C.k = 1
        x[1] = t

    message = refusal(
        lambda: expand_dim(temporaries, temporaries.find("t: _"), 4, "C.k")
    )
    assert message.startswith(
        "Cannot use C.k as the index of every access of t: the index reads "
        "C.k, which is written at "
    )


def test_lift_alloc_refuses_a_size_written_before_the_allocation():
    @proc
    def sized(n: size, x: f32[20]):
        C.m = 2
        if n > 4:
            C.m = 3
            t: f32[C.m]
            t[2] = x[0]
            x[0] = t[2]

    message = refusal(lambda: lift_alloc(sized, sized.find("t: _")))
    assert message.startswith(
        "Cannot lift the allocation of t: the size of t reads C.m, which is written at "
    )


def test_lift_alloc_past_writes_after_the_allocation_keeps_results():
    @proc
    def sized_then_written(n: size, x: f32[20]):
        C.m = 3
        if n > 4:
            t: f32[C.m]
            t[2] = x[0]
            x[0] = t[2]
            C.m = 5

    p = lift_alloc(sized_then_written, sized_then_written.find("t: _"))
    assert "    t: f32[C.m] @ DRAM\n    if n > 4:" in str(p)
    assert_same_results(sized_then_written, p, {"n": 5})


def test_inline_assign_refuses_an_index_written_before_the_read():
    @proc
    def forwarded(x: f32[20], y: f32[20]):
        C.k = 0
        x[C.k] = y[0]
        C.k = 1
        y[1] = x[C.k]

    message = refusal(lambda: inline_assign(forwarded, body(forwarded, 1)))
    assert message.startswith("Cannot inline assign ")
    assert message.endswith("because a value it reads is written afterwards.")


# ---- accesses whose indices depend on config values -------------------------


@proc
def loop_after_write(x: f32[20]):
    C.m = 2
    for r in seq(0, 1):
        C.m = 10
        for j in seq(0, C.m):
            x[j] = 1.0
    x[5] = 2.0


def test_reorder_stmts_sees_the_value_written_inside_the_moved_code():
    # The loop over j runs to 10, not to the 2 C.m holds before it.
    block = body(loop_after_write, 1).expand(0, 1)
    message = refusal(lambda: reorder_stmts(loop_after_write, block))
    assert message.endswith("do not commute.")


def test_reorder_stmts_past_an_access_outside_the_written_range_keeps_results():
    @proc
    def beyond(x: f32[20]):
        C.m = 2
        for r in seq(0, 1):
            C.m = 10
            for j in seq(0, C.m):
                x[j] = 1.0
        x[15] = 2.0

    p = reorder_stmts(beyond, body(beyond, 1).expand(0, 1))
    assert_same_results(beyond, p, {})


def test_fission_refuses_an_index_an_earlier_iteration_changed():
    @proc
    def moving(x: f32[8], y: f32[8]):
        C.k = 0
        for i in seq(0, 6):
            x[C.k % 8] = 1.0
            C.k = C.k + 1
            y[i] = x[3]

    gap = moving.find("y[_] = _").before()
    message = refusal(lambda: fission(moving, gap))
    assert message.startswith("Cannot fission loop over i at ")


# ---- facts carried into an extracted procedure ------------------------------


def test_extract_subproc_keeps_config_facts_only_where_they_still_hold():
    @proc
    def guarded(x: f32[2]):
        C.k = 0
        if C.k == 0:
            x[0] = 1.0
            C.k = 1
            x[1] = 2.0

    inner = body(guarded, 1).body()
    _, before_write = extract_subproc(guarded, inner[0], "first")
    assert "assert C.k == 0" in str(before_write)
    p, after_write = extract_subproc(guarded, inner[2], "second")
    assert "assert" not in str(after_write)
    assert_same_results(guarded, p, {})


# ---- a field written under an if, read through `%` --------------------------


def bound_by_a_field_set_under_an_if(back):
    """A loop over `n - C.m % 3` elements of y (n - 2 when n < 3, else
    n - 1), then a write of y[n - back]."""

    @proc
    def bounded(n: size, y: f32[n]):
        assert n >= 2
        if n < 3:
            C.m = 2
        else:
            C.m = 1
        for i in seq(0, n - C.m % 3):
            y[i] = 1.0
        y[n - back] = 3.0

    return bounded


@pytest.mark.parametrize("n", [2, 3, 7])
def test_a_field_set_under_an_if_bounds_a_loop_through_a_remainder(n):
    """The bound's quotient `C.m / 3` has an `if`'s value as its numerator,
    and the fact `i < n - C.m % 3` holds that quotient: deciding the `if`'s
    condition from the facts used to recurse until the stack overflowed."""
    p = bound_by_a_field_set_under_an_if(1)
    p2 = reorder_stmts(p, p.body()[1].expand(0, 1))
    assert str(p2).endswith(
        "    y[n - 1] = 3.0\n    for i in seq(0, n - C.m % 3):\n        y[i] = 1.0"
    )
    assert_same_results(p, p2, {"n": n})


def test_reorder_stmts_refuses_a_write_the_loop_bounded_by_a_remainder_makes():
    """n - C.m % 3 is n - 1 when n >= 3: the loop writes y[n - 2] then."""
    overlapping = bound_by_a_field_set_under_an_if(2)
    message = refusal(
        lambda: reorder_stmts(overlapping, overlapping.body()[1].expand(0, 1))
    )
    assert message.startswith("Statements at ")
    assert "do not commute" in message
