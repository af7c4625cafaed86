"""The expression and statement primitives (docs/primitives-statements.md): printed
results, results of JIT runs before and after, refusals with Exo's texts,
and forwarding of cursors taken before each primitive."""

# ruff: noqa: F821, E501, B007

from __future__ import annotations

import pytest
from exo2 import SchedulingError, config, proc
from exo2.API_cursors import InvalidCursorError
from exo2.stdlib.scheduling import (
    bind_config,
    commute_expr,
    delete_pass,
    fold_into_reduce,
    inline_assign,
    insert_pass,
    left_reassociate_expr,
    lift_reduce_constant,
    make_instr,
    merge_writes,
    parallelize_loop,
    rename,
    reorder_stmts,
    rewrite_expr,
    split_write,
)
from schedule_check import assert_same_results


@proc
def axpy(n: size, a: f32, x: f32[n], y: f32[n]):
    for i in seq(0, n):
        y[i] = y[i] + a * x[i]


@proc
def two_writes(n: size, x: f32[n], y: f32[n]):
    for i in seq(0, n):
        x[i] = 1.0
        y[i] = 2.0


@proc
def dot_scaled(n: size, x: f32[n], y: f32[n], out: f32[1]):
    acc: f32
    acc = 0.0
    for i in seq(0, n):
        acc += x[0] * y[i]
    out[0] = acc


@proc
def temp_product(n: size, x: f32[n], y: f32[n]):
    for i in seq(0, n):
        t: f32
        t = x[i] + y[i]
        y[i] = t * t


def body_text(p):
    """The printed procedure without its `def` line."""
    return str(p).split("):\n", 1)[1]


# ---- rename / make_instr ----------------------------------------------------


def test_rename_changes_the_name_and_forwards_blocks():
    body = axpy.find_loop("i").body()
    p = rename(axpy, "axpy2")
    assert p.name() == "axpy2"
    assert str(p).startswith("def axpy2(")
    assert p.forward(body) == p.find_loop("i").body()
    assert_same_results(axpy, p, {"n": 6})
    with pytest.raises(
        TypeError, match="argument 1, 'name' to rename: expected a valid name"
    ):
        rename(axpy, "not a name")


def test_make_instr_sets_the_template():
    p = make_instr(axpy, "axpy({n}, {a}, {x}, {y});")
    assert p.is_instr()
    assert p.get_instr() == "axpy({n}, {a}, {x}, {y});"
    assert p.forward(axpy.find_loop("i")) == p.find_loop("i")
    with pytest.raises(TypeError, match="expected an instruction macro"):
        make_instr(axpy, 3)


# ---- insert_pass / delete_pass ----------------------------------------------


def test_insert_pass_then_delete_pass_round_trips():
    loop = two_writes.find_loop("i")
    p = insert_pass(two_writes, loop.body()[1].before())
    assert body_text(p) == (
        "    for i in seq(0, n):\n        x[i] = 1.0\n        pass\n        y[i] = 2.0"
    )
    assert p.forward(two_writes.find("y[_] = _")) == p.find("y[_] = _")
    q = delete_pass(p)
    assert str(q) == str(two_writes)
    assert q.forward(two_writes.find("y[_] = _")) == q.find("y[_] = _")
    assert_same_results(two_writes, q, {"n": 5})


def test_delete_pass_removes_loops_of_only_pass():
    @proc
    def padded(n: size, x: f32[n]):
        pass
        for i in seq(0, n):
            for j in seq(0, n):
                pass
        x[0] = 1.0

    p = delete_pass(padded)
    assert body_text(p) == "    x[0] = 1.0"
    with pytest.raises(InvalidCursorError, match="node no longer exists"):
        p.forward(padded.find_loop("i"))


# ---- reorder_stmts ------------------------------------------------------------


def test_reorder_stmts_swaps_independent_writes():
    x_write = two_writes.find("x[_] = _")
    p = reorder_stmts(two_writes, x_write.expand(0, 1))
    assert body_text(p) == (
        "    for i in seq(0, n):\n        y[i] = 2.0\n        x[i] = 1.0"
    )
    assert p.forward(x_write) == p.find_loop("i").body()[1]
    assert_same_results(two_writes, p, {"n": 7})


def test_reorder_stmts_refuses_dependent_statements():
    with pytest.raises(SchedulingError) as e:
        reorder_stmts(temp_product, temp_product.find("t = _").expand(0, 1))
    assert str(e.value).startswith("reorder_stmts: " + "Statements at ")
    assert str(e.value).endswith("do not commute.")


# ---- commute_expr / left_reassociate_expr / rewrite_expr --------------------


def test_commute_expr_swaps_operands():
    product = axpy.find("a * x[_]")
    p = commute_expr(axpy, [product])
    assert body_text(p) == "    for i in seq(0, n):\n        y[i] = y[i] + x[i] * a"
    assert p.forward(product).lhs().name() == "x"
    assert_same_results(axpy, p, {"n": 6})


def test_commute_expr_refuses_control_and_other_operators():
    with pytest.raises(TypeError, match="only '\\+' or '\\*' can commute, got -"):

        @proc
        def minus(x: f32[2]):
            x[0] = x[0] - x[1]

        commute_expr(minus, [minus.find("x[0] - x[1]")])
    with pytest.raises(
        TypeError, match="only numeric \\(not index or size\\) expressions"
    ):

        @proc
        def index_sum(n: size, x: f32[n]):
            for i in seq(0, n - 1):
                x[i + 1] = 0.0

        commute_expr(index_sum, [index_sum.find("i + 1")])


def test_left_reassociate_expr_regroups():
    @proc
    def sum3(x: f32[4]):
        x[0] = x[1] + (x[2] + x[3])

    p = left_reassociate_expr(sum3, sum3.find("x[1] + (x[2] + x[3])"))
    assert body_text(p) == "    x[0] = x[1] + x[2] + x[3]"
    assert_same_results(sum3, p, {})
    with pytest.raises(
        TypeError,
        match="The rhs of the expression must be the same binary operation as the expression \\(\\+\\)",
    ):
        left_reassociate_expr(p, p.find("x[1] + x[2] + x[3]"))


def test_rewrite_expr_needs_an_equivalent_expression():
    @proc
    def shifted(n: size, x: f32[n]):
        for i in seq(0, n):
            x[i] = 1.0

    idx = shifted.find("x[_] = _").idx()[0]
    p = rewrite_expr(shifted, idx, "i + 1 - 1")
    assert body_text(p) == "    for i in seq(0, n):\n        x[i + 1 - 1] = 1.0"
    assert_same_results(shifted, p, {"n": 4})
    with pytest.raises(SchedulingError) as e:
        rewrite_expr(shifted, idx, "i + 1")
    assert (
        str(e.value)
        == "rewrite_expr: " + "Expressions are not equivalent:\ni\nvs.\ni + 1"
    )


def test_rewrite_expr_may_write_an_index_as_a_product():
    # As every new expression, a rewritten index may multiply control values;
    # its equivalence is a nonlinear query.
    @proc
    def grid(n: size, m: size, x: f32[n, m], y: f32[n, m]):
        for i in seq(0, n):
            for j in seq(0, m):
                y[i, j] = x[i, j]

    idx = grid.find("y[_] = _").rhs().idx()[1]
    p = rewrite_expr(grid, idx, "(i + 1) * m - i * m + j - m")
    assert "y[i, j] = x[i, (i + 1) * m - i * m + j - m]" in str(p)
    assert_same_results(grid, p, {"n": 3, "m": 5})
    with pytest.raises(SchedulingError, match="Expressions are not equivalent"):
        rewrite_expr(grid, idx, "i * m + j - i * n")


def test_rewrite_expr_proves_data_identities_in_real_arithmetic():
    """Found by the differential run against Exo: a data expression rewritten
    into an equal one (in real arithmetic, as Exo proves it) was refused."""

    @proc
    def scaled(n: size, a: f32, x: f32[n], y: f32[n]):
        s: f32
        s = a * 2.0
        for i in seq(0, n):
            y[i] = s * x[i] + a

    assign = scaled.find("y[_] = _")
    sizes = {"n": 7}
    for cursor, new in [
        (assign.rhs().rhs(), "a + 0.0"),
        (assign.rhs().lhs().lhs(), "s * 1.0"),
        (assign.rhs().lhs().rhs(), "x[i] + 0.0"),
        (assign.rhs().lhs(), "x[i] * s"),
        (assign.rhs(), "a + s * x[i]"),
        (scaled.find("s = _").rhs(), "a + a"),
        (assign.rhs().lhs().rhs(), "x[i + 1 - 1] * 0.5 + x[i] / 2.0"),
    ]:
        p = rewrite_expr(scaled, cursor, new)
        assert_same_results(scaled, p, sizes)
    # Not equal as reals: another value, another element, another variable.
    for cursor, new in [
        (assign.rhs().rhs(), "a + 1.0"),
        (assign.rhs().lhs().rhs(), "x[n - 1 - i]"),
        (assign.rhs().lhs().lhs(), "a * 2.0"),
        (assign.rhs().lhs(), "s * s"),
    ]:
        with pytest.raises(SchedulingError, match="Expressions are not equivalent"):
            rewrite_expr(scaled, cursor, new)


def test_rewrite_expr_of_integer_data_keeps_c_division():
    @proc
    def halve(n: size, x: i32[n], y: i32[n]):
        for i in seq(0, n):
            y[i] = x[i] + x[i]

    rhs = halve.find("y[_] = _").rhs()
    p = rewrite_expr(halve, rhs, "x[i] * 2.0")
    assert_same_results(halve, p, {"n": 5})
    # Equal as reals, not in C's truncating integer division, nor with a
    # fraction of an integer.
    for new in ("x[i] * 4.0 / 2.0", "x[i] * 0.5 * 4.0"):
        with pytest.raises(SchedulingError, match="Expressions are not equivalent"):
            rewrite_expr(halve, rhs, new)


def test_rewrite_expr_reports_only_problems_of_the_new_expression():
    """Found by the differential run against Exo: bind_config left a config
    write reading a loop iterator (which the frontend refuses), and every
    later rewrite_expr reported it."""

    @config
    class Gains:
        g: f32

    @proc
    def halves(n: size, x: f32[n], y: f32[n]):
        for i in seq(0, n):
            t: f32
            t = x[i]
            y[i / 2] = t * 2.0

    p = bind_config(halves, halves.find("y[_] = _").rhs().lhs(), Gains, "g")
    assert "        Gains.g = t\n" in str(p)
    # The frontend refuses that procedure:
    with pytest.raises(
        TypeError,
        match="expected writes to configuration Gains.g does not depend on loop iterations",
    ):

        @proc
        def written(n: size, x: f32[n], y: f32[n]):
            for i in seq(0, n):
                t: f32
                t = x[i]
                Gains.g = t
                y[i / 2] = Gains.g * 2.0

    q = rewrite_expr(p, p.find_loop("i").hi(), "n + 0")
    assert "seq(0, n + 0)" in str(q)
    assert_same_results(p, q, {"n": 5})
    # A divisor that is no longer a literal is still the new expression's.
    divisor = p.find("y[_] = _").idx()[0].rhs()
    with pytest.raises(SchedulingError) as e:
        rewrite_expr(p, divisor, "2 + 1 - 1")
    assert str(e.value) == (
        "rewrite_expr: cannot rewrite 2 as 2 + 1 - 1 here: "
        "cannot divide or modulo by a non-constant value"
    )


# ---- merge_writes / split_write / fold_into_reduce --------------------------


def test_split_write_then_merge_writes_round_trips():
    p = split_write(axpy, axpy.find("y[_] = _"))
    assert body_text(p) == (
        "    for i in seq(0, n):\n        y[i] = y[i]\n        y[i] += a * x[i]"
    )
    assert_same_results(axpy, p, {"n": 5})
    q = merge_writes(p, p.find("y[_] = _").expand(0, 1))
    assert body_text(q) == "    for i in seq(0, n):\n        y[i] = y[i] + a * x[i]"
    assert_same_results(p, q, {"n": 5})
    loop = p.find_loop("i")
    assert q.forward(loop) == q.find_loop("i")


def test_split_write_refuses_a_second_operand_reading_the_buffer():
    @proc
    def double(x: f32[2]):
        x[0] = x[1] + x[0]

    with pytest.raises(SchedulingError) as e:
        split_write(double, double.find("x[_] = _"))
    assert str(e.value) == (
        "split_write: "
        + "Expected the second operand of the addition to not read the buffer x."
    )


def test_merge_writes_refuses_different_elements_and_dependent_values():
    @proc
    def writes(x: f32[2], y: f32[2]):
        x[0] = y[0]
        x[1] += y[1]
        x[1] = x[1]

    with pytest.raises(SchedulingError) as e:
        merge_writes(writes, writes.body()[0].expand(0, 1))
    assert (
        str(e.value)
        == "merge_writes: " + "expected the left hand side's indices to be the same."
    )
    with pytest.raises(SchedulingError) as e:
        merge_writes(writes, writes.body()[1].expand(0, 1))
    assert str(e.value) == "merge_writes: " + (
        "expected the right hand side of the second statement to not depend "
        "on the left hand side of the first statement."
    )
    with pytest.raises(ValueError) as e:
        merge_writes(dot_scaled, dot_scaled.find("acc = _").expand(0, 1))
    assert str(e.value) == (
        "expected two consecutive assign/reduce statements, got "
        "<class 'exo2.API_cursors.AssignCursor'> and "
        "<class 'exo2.API_cursors.ForCursor'> instead."
    )


def test_fold_into_reduce_folds_a_self_addition():
    stmt = axpy.find("y[_] = _")
    p = fold_into_reduce(axpy, stmt)
    assert body_text(p) == "    for i in seq(0, n):\n        y[i] += a * x[i]"
    assert_same_results(axpy, p, {"n": 9})
    with pytest.raises(InvalidCursorError):
        p.forward(stmt)
    with pytest.raises(SchedulingError) as e:
        fold_into_reduce(two_writes, two_writes.find("x[_] = _"))
    assert (
        str(e.value)
        == "fold_into_reduce: " + "The rhs of the assignment must be an add."
    )


# ---- inline_assign ------------------------------------------------------------


def test_inline_assign_forwards_the_value():
    use = temp_product.find("y[_] = _")
    p = inline_assign(temp_product, temp_product.find("t = _"))
    assert body_text(p) == (
        "    for i in seq(0, n):\n"
        "        t: f32 @ DRAM\n"
        "        y[i] = (x[i] + y[i]) * (x[i] + y[i])"
    )
    assert p.forward(use) == p.find("y[_] = _")
    assert_same_results(temp_product, p, {"n": 8})


def test_inline_assign_refuses_changed_inputs_and_visible_buffers():
    @proc
    def changes(x: f32[2], y: f32[2]):
        t: f32
        t = x[0]
        x[0] = 2.0
        y[0] = t

    with pytest.raises(SchedulingError) as e:
        inline_assign(changes, changes.find("t = _"))
    assert str(e.value) == (
        "inline_assign: "
        + "Cannot inline assign t = x[0] because a value it reads is written afterwards."
    )
    with pytest.raises(SchedulingError) as e:
        inline_assign(two_writes, two_writes.find("x[_] = _"))
    assert "The variable x can potentially be used after the statement at" in str(
        e.value
    )


@proc
def pair_sum(n: size, z: f32[n], y: f32[n]):
    for i in seq(0, n):
        x: f32[2]
        x[0] = z[i]
        x[1] = 2.0 * z[i]
        y[i] = x[0] + x[1]


@proc
def doubled_plus_one(n: size, z: f32[n], y: f32[n]):
    x: f32[n]
    for i in seq(0, n):
        x[i] = 2.0 * z[i]
        y[i] = x[i] + 1.0


def test_inline_assign_leaves_other_elements_read_later():
    p = inline_assign(pair_sum, pair_sum.find("x[1] = _"))
    assert body_text(p) == (
        "    for i in seq(0, n):\n"
        "        x: f32[2] @ DRAM\n"
        "        x[0] = z[i]\n"
        "        y[i] = x[0] + 2.0 * z[i]"
    )
    for n in (1, 7):
        assert_same_results(pair_sum, p, {"n": n})


def test_inline_assign_lets_later_iterations_read_their_own_elements():
    # iteration i' > i reads x[i'], never the x[i] no longer written
    p = inline_assign(doubled_plus_one, doubled_plus_one.find("x = _"))
    assert body_text(p) == (
        "    x: f32[n] @ DRAM\n    for i in seq(0, n):\n        y[i] = 2.0 * z[i] + 1.0"
    )
    for n in (1, 9):
        assert_same_results(doubled_plus_one, p, {"n": n})


def _refused_as_read_later(p, stmt):
    with pytest.raises(SchedulingError) as e:
        inline_assign(p, p.find(stmt))
    assert "The variable x can potentially be used after the statement at" in str(
        e.value
    )
    assert e.value.condition == "ElementDeadAfter(x[idx], s)"
    return e.value


def test_inline_assign_refuses_a_read_of_the_element_not_replaced():
    @proc
    def summed(n: size, z: f32[n], y: f32[n]):
        for i in seq(0, n):
            x: f32[2]
            x[0] = z[i]
            x[1] = 2.0 * z[i]
            for j in seq(0, 2):
                y[i] += x[j]

    # x[j] reads x[1] at j = 1 but is not the text x[1]: it would read the
    # element the assignment no longer writes
    assert _refused_as_read_later(summed, "x[1] = _").counterexample["j'"] == 1


def test_inline_assign_refuses_a_read_of_the_element_in_a_later_iteration():
    @proc
    def with_previous(n: size, z: f32[n], y: f32[n]):
        x: f32[n]
        for i in seq(0, n):
            x[i] = 2.0 * z[i]
            y[i] = x[i]
            if i > 0:
                y[i] += x[i - 1]

    e = _refused_as_read_later(with_previous, "x = _")
    assert e.counterexample["i'"] == e.counterexample["i"] + 1


def test_inline_assign_refuses_a_read_of_the_element_after_the_loop():
    @proc
    def last_again(n: size, z: f32[n], y: f32[n]):
        x: f32[n]
        for i in seq(0, n):
            x[i] = 2.0 * z[i]
            y[i] = x[i] + 1.0
        y[0] = x[n - 1]

    _refused_as_read_later(last_again, "x = _")


# ---- lift_reduce_constant -----------------------------------------------------


def test_lift_reduce_constant_factors_the_scale():
    loop = dot_scaled.find_loop("i")
    p = lift_reduce_constant(dot_scaled, dot_scaled.find("acc = _").expand(0, 1))
    assert body_text(p) == (
        "    acc: f32 @ DRAM\n"
        "    acc = 0.0\n"
        "    for i in seq(0, n):\n"
        "        acc += y[i]\n"
        "    acc = x[0] * acc\n"
        "    out[0] = acc"
    )
    assert p.forward(loop).next() == p.find("acc = x[0] * acc")
    assert_same_results(dot_scaled, p, {"n": 10})


def test_lift_reduce_constant_refuses_a_nonzero_start():
    @proc
    def start_one(n: size, x: f32[n], out: f32[1]):
        acc: f32
        acc = 1.0
        for i in seq(0, n):
            acc += 2.0 * x[i]
        out[0] = acc

    with pytest.raises(SchedulingError) as e:
        lift_reduce_constant(start_one, start_one.find("acc = _").expand(0, 1))
    assert str(e.value) == (
        "lift_reduce_constant: "
        + "cannot lift constant because the buffer is not initialized to zero"
    )


def test_lift_reduce_constant_refuses_different_scales():
    @proc
    def two_scales(n: size, x: f32[n], out: f32[1]):
        acc: f32
        acc = 0.0
        for i in seq(0, n):
            acc += 2.0 * x[i]
            acc += 3.0 * x[i]
        out[0] = acc

    with pytest.raises(SchedulingError) as e:
        lift_reduce_constant(two_scales, two_scales.find("acc = _").expand(0, 1))
    assert str(e.value) == "lift_reduce_constant: " + (
        "cannot lift constant because the reduces to buffer acc in the loop "
        "body have different constants"
    )


# ---- parallelize_loop ---------------------------------------------------------


def test_parallelize_loop_sets_par():
    body = axpy.find_loop("i").body()
    p = parallelize_loop(axpy, "i")
    assert body_text(p) == "    for i in par(0, n):\n        y[i] = y[i] + a * x[i]"
    assert p.forward(body) == p.find_loop("i").body()
    assert_same_results(axpy, p, {"n": 6})


def test_left_reassociate_expr_and_split_write_forward_cursors():
    @proc
    def sum3(n: size, x: f32[n + 3]):
        for i in seq(0, n):
            x[i] = x[i + 1] + (x[i + 2] + x[i + 3])

    loop, stmt = sum3.find_loop("i"), sum3.find("x[_] = _")
    p = left_reassociate_expr(sum3, stmt.rhs())
    assert p.forward(loop) == p.find_loop("i")
    assert p.forward(stmt) == p.find("x[_] = _")

    q = split_write(axpy, axpy.find("y[_] = _"))
    assert q.forward(axpy.find_loop("i")) == q.find_loop("i")


def test_rewrite_expr_keeps_divisors_literal():
    """Found by a random schedule: an equal but non-literal divisor made a
    kernel that no longer typechecks (or compiles)."""

    @proc
    def halves(n: size, x: f32[n]):
        for i in seq(0, n):
            x[i / 2] = 1.0

    divisor = halves.find("x[_] = _").idx()[0].rhs()
    with pytest.raises(SchedulingError) as e:
        rewrite_expr(halves, divisor, "2 + 1 - 1")
    assert str(e.value) == (
        "rewrite_expr: " + "cannot rewrite 2 as 2 + 1 - 1 here: "
        "cannot divide or modulo by a non-constant value"
    )


def test_reorder_stmts_refuses_moving_a_use_above_its_declaration():
    # The call's effects on `s` commute with the allocation's (it has none),
    # but after the swap the call would name a buffer not yet declared (found
    # by the randomized schedule test: the C generator then failed).
    @proc
    def noop_scalar(s: f32):
        pass

    @proc
    def use_after_alloc(n: size, y: f32[n]):
        assert n >= 1
        s: f32
        noop_scalar(s)
        s = y[0]
        y[0] = s

    with pytest.raises(SchedulingError, match="uses s, which the statement"):
        reorder_stmts(use_after_alloc, use_after_alloc.find("s: _").expand(0, 1))
