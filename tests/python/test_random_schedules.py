"""Random schedules keep what kernels compute (issue 14).

Each kernel of a corpus (random_schedules/corpus.py) gets random sequences
of scheduling primitives with random but well-formed arguments
(random_schedules/generators.py). A step counts as refused only when the
primitive raises SchedulingError or one of the documented argument errors
of random_schedules/refusals.py; any other exception is a crash and fails
the test. Every accepted step's procedure is compiled (with undefined
behaviour trapping), run on random inputs (odd and edge sizes, negative
index values, config start values, guard elements around every array,
strided windows) and compared with the kernel's meaning by a reference
interpreter, config fields included (random_schedules/checking.py). The
run asserts its own coverage (every primitive accepted
ACCEPTED_PER_PRIMITIVE times, topped up by sequences that pick a rare
primitive half the time; TOTAL_CHECKED steps checked) and prints the
per-primitive table (accepted, refused by reason) at the end of the pytest
session. Holes known and still open (random_schedules/known_holes.py, empty
today) are counted apart, and each has a reproducer here that must still
show it; the holes the test found have regression tests at the end.

Sanitizers: `test_random_schedules_under_sanitizers` runs the test again,
with another seed and SANITIZED_STEPS steps, in a process started with the
AddressSanitizer runtime preloaded (`LD_PRELOAD` of `cc
-print-file-name=libasan.so`, and of libstdc++: an instrumented shared
object cannot be loaded into Python otherwise, see
random_schedules/sanitizers.py). Every procedure is then compiled with
`-fsanitize=address,undefined -fno-sanitize-recover=all` and given arrays
without guard elements: an access out of bounds fails the test even when
every result stays the same. Kernels run in a forked child process, so a
crash or a sanitizer report is reported with the schedule that ran.

Seeds: EXO2_RANDOM_SEED (default 5; scripts/test.sh derives one from the
commit). A failure prints the seed and the schedule; `replay(kernel,
sequence)` of random_schedules.running schedules one sequence again:

    EXO2_RANDOM_SEED=7 python3 -m pytest tests/python/test_random_schedules.py -q
    EXO2_RANDOM_STEPS=10000 ...  # the long run (default 3000, for CI)
"""

from __future__ import annotations

import subprocess
import sys

import exo2.API_scheduling as S
import pytest
from exo2 import SchedulingError, instr, proc
from exo2.API_cursors import IfCursor
from exo2.errors import UnificationError
from exo2.libs.memories import DRAM_STATIC
from exo2.primitives.arguments import BlockCursorA, GapCursorA, sched_op
from random_schedules import running, sanitizers
from random_schedules.corpus import KERNELS, axpy, noop_at_least_four, noop_scalar
from random_schedules.generators import NOT_RANDOMIZED
from random_schedules.known_holes import KNOWN_HOLES
from random_schedules.refusals import refusal_reason
from schedule_check import assert_same_results


@pytest.fixture(scope="module")
def statistics(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("EXO2_CACHE_DIR", str(tmp_path_factory.mktemp("exo2_cache")))
    stats = running.Statistics()
    yield stats
    mp.undo()
    if stats.kernels:
        running.LAST_SUMMARY.append(stats.summary())


@pytest.fixture
def jit_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("EXO2_CACHE_DIR", str(tmp_path))


@pytest.mark.parametrize(
    "kernel",
    KERNELS,
    ids=[k.proc.name() for k in KERNELS],
)
def test_random_schedules_keep_results(kernel, statistics):
    target = running.accepted_per_kernel()
    accepted = running.run_kernel(kernel, statistics, target)
    assert accepted >= target, (
        f"only {accepted} accepted steps in {running.MAX_SEQUENCES} sequences"
    )


def test_every_primitive_is_accepted_often(statistics):
    """The run cannot pass by refusing everything: top-up sequences (which
    pick a rare primitive half the time, checked as the others) give each
    primitive its ACCEPTED_PER_PRIMITIVE accepted steps, or fail."""
    if statistics.kernels != {k.proc.name() for k in KERNELS}:
        pytest.skip("needs the run over every kernel")
    running.top_up(statistics)
    rare = {
        name: statistics.accepted[name]
        for name in running.PRIMITIVES
        if statistics.accepted[name] < running.ACCEPTED_PER_PRIMITIVE
    }
    assert not rare, (
        f"accepted fewer than {running.ACCEPTED_PER_PRIMITIVE} times: {rare}"
    )
    assert statistics.checked >= running.TOTAL_CHECKED


def test_every_exported_primitive_has_a_generator():
    exported = {
        name for name in S.__all__ if S.is_atomic_scheduling_op(getattr(S, name, None))
    }
    assert exported - set(NOT_RANDOMIZED) == set(running.PRIMITIVES)


# --------------------------------------------------------------------------
# The harness fails when it must


def kernel_named(name):
    return next(k for k in KERNELS if k.proc.name() == name)


def test_a_type_error_from_inside_a_primitive_fails_the_test(monkeypatch, jit_cache):
    @sched_op([BlockCursorA])
    def reorder_stmts(proc, block_cursor):
        raise TypeError("an internal error")

    monkeypatch.setattr(S, "reorder_stmts", reorder_stmts)
    with pytest.raises(running.Failure, match="(?s)a crash, not a refusal.*TypeError"):
        running.schedule_sequence(
            kernel_named("two_stages"),
            0,
            running.Statistics(),
            pick=lambda kernel, seq: "reorder_stmts",
        )


def test_argument_errors_before_any_analysis_are_refusals(jit_cache):
    with pytest.raises(TypeError) as info:
        S.divide_loop(axpy, axpy.find_loop("i"), 0, ["io", "ii"])
    assert refusal_reason("divide_loop", info.value) == "argument"
    assert refusal_reason("reorder_loops", info.value) is None  # another primitive's
    with pytest.raises(ValueError) as info:
        S.sink_alloc(kernel_named("dot").proc, "acc : _")
    assert refusal_reason("sink_alloc", info.value) == "no loop or if next"
    assert refusal_reason("sink_alloc", TypeError("internal")) is None
    assert refusal_reason("sink_alloc", IndexError("unordered_map::at")) is None


def test_a_primitive_returning_a_wrong_procedure_fails_the_test(monkeypatch, jit_cache):
    @proc
    def axpy(n: size, a: f32, x: f32[n], y: f32[n]):
        for i in seq(0, n):
            y[i] = y[i] - a * x[i]

    @sched_op([GapCursorA])
    def insert_pass(proc, gap_cursor):
        return axpy

    monkeypatch.setattr(S, "insert_pass", insert_pass)
    kernel = kernel_named("axpy")
    stats = running.Statistics()
    record = running.schedule_sequence(
        kernel, 0, stats, pick=lambda kernel, seq: "insert_pass"
    )
    reports = running.check_batch([record], running.expected_runs(kernel), stats)
    assert len(reports) == 1
    assert "step 1 is wrong" in reports[0] and "argument y" in reports[0]


# Instructions whose C (trusted, not checked) touches the element after the
# window it gets.
@instr("(&{x_data})[{n}] = 0.0f;")
def write_past(n: size, x: [f32][n]):
    pass


@instr("{{ volatile float t = (&{x_data})[{n}]; (void)t; }}")
def read_past(n: size, x: [f32][n]):
    pass


def test_a_write_next_to_an_argument_fails_the_test(jit_cache):
    kernel = kernel_named("axpy")
    p = kernel.proc
    wrong = S.insert_noop_call(p, p.find_loop("i").after(), write_past, ["n", "y[0:n]"])
    expected = "AddressSanitizer" if sanitizers.enabled() else "elements around it"
    with pytest.raises(running.Failure, match=expected):
        running.check_schedule(kernel, [wrong])


def test_sanitizers_catch_a_read_out_of_bounds(jit_cache):
    """The read leaves every result unchanged: only AddressSanitizer sees it."""
    kernel = kernel_named("axpy")
    p = kernel.proc
    wrong = S.insert_noop_call(p, p.find_loop("i").after(), read_past, ["n", "y[0:n]"])
    if not sanitizers.enabled():
        running.check_schedule(kernel, [wrong])  # unseen without sanitizers
        return
    with pytest.raises(running.Failure, match="AddressSanitizer"):
        running.check_schedule(kernel, [wrong])


def test_random_schedules_under_sanitizers():
    if sanitizers.enabled():
        pytest.skip("already under sanitizers")
    libraries = sanitizers.preloaded_libraries()
    assert libraries, "the C compiler has no AddressSanitizer runtime (libasan)"
    env = sanitizers.environment(libraries)
    env["EXO2_RANDOM_SEED"] = str(running.SEED + 1)
    env["EXO2_RANDOM_STEPS"] = str(running.SANITIZED_STEPS)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            __file__,
            "-q",
            "-p",
            "no:cacheprovider",
            "-k",
            "keep_results or sanitizers_catch or write_next",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert result.returncode == 0, result.stdout[-20000:] + result.stderr[-5000:]
    running.LAST_SUMMARY.append(
        result.stdout[result.stdout.find("random schedules (") :]
    )


# --------------------------------------------------------------------------
# Known holes: each still shows, until its fix is merged


# One reproducer per KNOWN_HOLES entry: true while the hole shows.
KNOWN_HOLE_REPRODUCERS = {}


def stale_holes(reproducers):
    """The entries whose hole no longer shows."""
    return [key for key, shows in reproducers.items() if not shows()]


def test_known_holes_are_still_open(jit_cache):
    """A stale entry fails the test (it cannot outlive its hole), and so
    does an entry without a reproducer."""
    assert set(KNOWN_HOLE_REPRODUCERS) == set(KNOWN_HOLES)
    stale = stale_holes(KNOWN_HOLE_REPRODUCERS)
    assert not stale, (
        f"{stale} no longer show: remove them from random_schedules/known_holes.py"
    )


def test_a_fixed_known_hole_is_stale():
    assert stale_holes({"fixed": lambda: False, "open": lambda: True}) == ["fixed"]


# --------------------------------------------------------------------------
# Holes the randomized test found (issue 14): each kernel is one of the
# corpus, the schedule the one the test found; now refused, or kept right.


def ifs_of(p):
    return [s for s in p.body() if isinstance(s, IfCursor)]


def joined_ranges(p):
    """`for i in seq(0, 4)` and `for i in seq(4, n)` lifted out of `if n >=
    4`, joined into `seq(0, n)`."""
    p = S.lift_scope(p, p.find_loop("i #1"))
    p = S.eliminate_dead_code(p, p.body()[1].body()[0])
    return S.join_loops(p, p.body()[0], p.body()[1])


def scheduled_right(kernel_name, schedule):
    """`schedule(proc)` on the kernel keeps its results on every run of the
    kernel's sizes (guard elements, config start values, trapping UB)."""
    kernel = kernel_named(kernel_name)
    running.check_schedule(kernel, [schedule(kernel.proc)])


def test_names_c_reserves_are_mangled(jit_cache):
    scheduled_right(
        "axpy", lambda p: S.divide_loop(p, p.find_loop("i"), 4, ["int", "ii"])
    )


def test_fuse_refuses_conditions_whose_field_the_first_body_writes():
    p = kernel_named("config_guards").proc
    with pytest.raises(SchedulingError, match="reads Mode.k, which is written"):
        S.fuse(p, *ifs_of(p)[:2])


def test_simplify_forgets_condition_facts_once_their_field_is_written(jit_cache):
    scheduled_right("config_facts", S.simplify)


def test_delete_config_keeps_a_callee_precondition_on_the_field():
    p = kernel_named("config_calls").proc
    with pytest.raises(SchedulingError, match="Cannot change configuration value"):
        S.delete_config(p, p.body()[0])


def test_extract_subproc_asserts_no_condition_a_block_falsifies():
    """The enclosing `if Mode.k == 0` no longer holds once the block wrote
    Mode.k: without it the new procedure may write out of bounds."""
    p = kernel_named("config_facts").proc
    with pytest.raises(SchedulingError, match="would not be safe on its own"):
        S.extract_subproc(p, p.find("x[_] = 2.0"), "sub")


def test_floor_division_of_a_negative_loop_bound(jit_cache):
    scheduled_right(
        "negative_range",
        lambda p: S.rewrite_expr(p, p.body()[0].lo(), "-3 / 2 * 2 + -3 % 2"),
    )


def test_floor_modulo_of_a_negative_index_unscheduled(jit_cache):
    kernel = kernel_named("floor_ops_negative")
    assert running.check_kernel_itself(kernel, running.expected_runs(kernel)) is None


def test_insert_noop_call_proves_the_callee_precondition():
    with pytest.raises(SchedulingError, match="Could not verify assertion n >= 4"):
        S.insert_noop_call(
            axpy, axpy.find_loop("i").before(), noop_at_least_four, ["1"]
        )


def test_join_loops_proves_both_ranges_non_empty():
    with pytest.raises(SchedulingError, match=r"expected 0 <= 4 <= n"):
        joined_ranges(kernel_named("split_ranges").proc)


def test_loop_bound_is_evaluated_once_in_c(jit_cache):
    kernel = kernel_named("config_bound_written")
    assert running.check_kernel_itself(kernel, running.expected_runs(kernel)) is None


def test_rearrange_dim_refuses_a_stride_read_it_changes():
    p = kernel_named("stride_reads").proc
    with pytest.raises(SchedulingError, match=r"stride\(t, 0\) .* would change"):
        S.rearrange_dim(p, p.find("t : _"), [1, 0])


def test_stage_mem_loads_a_conditionally_written_window(jit_cache):
    scheduled_right(
        "conditional_writes", lambda p: S.stage_mem(p, p.body()[0], "x[0]", "s")
    )


def test_static_buffer_in_a_parallel_loop_is_refused():
    p = kernel_named("static_and_parallel").proc
    static = S.set_memory(p, p.find("u : _"), DRAM_STATIC)
    assert running.refused_when_compiling(static)


def test_stage_mem_accum_of_a_window_refuses_a_read_through_it(jit_cache):
    """The block reads w[0]: accumulating into a zeroed buffer would read 0.
    The check looked for accesses named w, but the effect analysis names
    them after the buffer w views."""
    p = kernel_named("window_offsets").proc
    with pytest.raises(SchedulingError, match="other than simply reducing"):
        S.stage_mem(p, p.find("y[_] = _"), "w[0]", "s", accum=True)

    @proc
    def sums(n: size, a: f32[n, 8], x: f32[n]):
        for i in seq(0, n):
            w = a[i, 2:6]
            for j in seq(0, 4):
                w[j] += x[i]

    staged = S.stage_mem(sums, sums.find_loop("j"), "w[0:4]", "s", accum=True)
    assert "w[i0 + 0] += s[i0]" in str(staged)
    assert_same_results(sums, staged, {"n": 3})


# --------------------------------------------------------------------------
# Bugs found by random schedules


def test_commute_expr_of_nested_expressions():
    """Found by a random schedule: commuting an expression and one inside it
    crashed. Both swap, innermost first."""

    @proc
    def blur(n: size, x: f32[n + 2], y: f32[n]):
        for i in seq(0, n):
            y[i] = x[i] + x[i + 1] + x[i + 2]

    outer = blur.find("y[_] = _").rhs()
    swapped = S.commute_expr(blur, [outer, outer.lhs()])
    assert "y[i] = x[i + 2] + (x[i + 1] + x[i])" in str(swapped)
    assert_same_results(blur, swapped, {"n": 7})


def test_specialize_of_a_window_statement():
    """Found by a random schedule: specialize copied a window statement into
    the branches, out of reach of its later uses."""

    @proc
    def windowed(n: size, m: size, a: f32[n, m + 2], y: f32[n, m]):
        for i in seq(0, n):
            row = a[i, 1 : m + 1]
            for j in seq(0, m):
                y[i, j] = row[j] * 0.5

    with pytest.raises(SchedulingError):
        S.specialize(windowed, windowed.find("row = _"), "m < 4")


def test_reorder_stmts_of_a_window_statement():
    """Found by a random schedule: a use of a window moved before it."""

    @proc
    def windowed(n: size, a: f32[n, 4], y: f32[n, 4]):
        for i in seq(0, n):
            row = a[i, 0:4]
            y[i, 0] = row[0]

    with pytest.raises(SchedulingError):
        S.reorder_stmts(windowed, windowed.find("row = _").expand(0, 1))


def test_fission_after_a_window_statement():
    """Found by a random schedule: fission split a window statement from a
    later use."""

    @proc
    def windowed(n: size, a: f32[n, 4], y: f32[n, 4]):
        for i in seq(0, n):
            row = a[i, 0:4]
            y[i, 0] = row[0]

    with pytest.raises(SchedulingError):
        S.fission(windowed, windowed.find("row = _").after())


def test_sink_alloc_into_an_else_renames_the_copy():
    """Found by a random schedule: after sinking an allocation into an if
    with an else, the C code of the else branch freed the buffer right after
    allocating it (a use after free, which corrupted the heap)."""

    @proc
    def branches(n: size, x: f32[n], y: f32[n]):
        s: f32[n]
        if n < 2:
            y[0] = 1.0
        else:
            for i in seq(0, n):
                s[i] = x[i]
            for i in seq(0, n):
                y[i] = s[i]

    sunk = S.sink_alloc(branches, branches.find("s : _"))
    code = sunk.c_code_str()
    orelse = code[code.index("} else {") :]
    assert orelse.index("free(s);") > orelse.index("y[i] = s[i];")
    assert_same_results(branches, sunk, {"n": 5})


def test_autolift_alloc_of_the_only_statement_of_a_loop():
    """Found by a random schedule: walking the loop's body afterwards raised
    a TypeError from the cursor API."""

    @proc
    def alone(n: size, y: f32[n]):
        for i in seq(0, n):  # noqa: B007
            tmp: f32[n]
        for i in seq(0, n):
            y[i] = 1.0

    lifted = S.autolift_alloc(alone, alone.find("tmp : _"))
    assert len(lifted.body()[1].body()) == 1
    assert "for i in seq(0, n):\n        pass" in str(lifted)


def test_bind_expr_buffer_passed_to_a_call():
    """Found by a random schedule: code generation refused the call with
    `expected argument in DRAM but got an argument in DRAM`."""

    @proc
    def twice(x: f32[4]):
        x[0] = 2.0 * x[1]

    bound = S.bind_expr(twice, [twice.find("x[0] = _").rhs().lhs()], "b")
    called = S.insert_noop_call(
        bound, bound.find("x[0] = _").before(), noop_scalar, ["b"]
    )
    assert "noop_scalar(b)" in str(called)
    called.c_code_str()


def test_autolift_alloc_keeping_dims_of_a_buffer_passed_to_a_call():
    """Found by a random schedule: the result did not compile (`expected a
    non-window tensor`). A buffer whose values depend on the lifted loop and
    that is passed whole to a tensor parameter is refused; one holding the
    same values in every iteration gets no dimension and stays passable."""

    @proc
    def fill(t: f32[4]):
        for j in seq(0, 4):
            t[j] = 1.0

    @proc
    def rows(n: size, y: f32[n, 4]):
        for i in seq(0, n):
            t: f32[4]
            fill(t)
            t[0] = y[i, 0]
            for j in seq(0, 4):
                y[i, j] = t[j]

    with pytest.raises(SchedulingError, match="buffer is passed as an argument"):
        S.autolift_alloc(rows, rows.find("t : _"), keep_dims=True)

    @proc
    def same_rows(n: size, y: f32[n, 4]):
        for i in seq(0, n):
            t: f32[4]
            fill(t)
            for j in seq(0, 4):
                y[i, j] = t[j]

    lifted = S.autolift_alloc(same_rows, same_rows.find("t : _"), keep_dims=True)
    assert "    t: f32[4] @ DRAM\n" in str(lifted)
    assert_same_results(same_rows, lifted, {"n": 3})


def test_replace_refuses_a_window_for_a_tensor_parameter():
    """Found by a random schedule: replace passed a window to a callee's
    tensor parameter, and code generation refused the result (`expected a
    non-window tensor`)."""

    @proc
    def copies(n: size, y: [f32][n]):
        s: f32[n]
        for i in seq(0, n):
            s[i] = y[i]
        for i in seq(0, n):
            y[i] = s[i]

    p, copy_out = S.extract_subproc(copies, copies.find("y[_] = _"), "copy_out")
    with pytest.raises(
        UnificationError, match="cannot pass the window y .* to the tensor parameter s"
    ):
        S.replace(p, p.find("s[_] = _"), copy_out)
    replaced = S.replace(copies, copies.find("y[_] = _"), copy_out)
    assert_same_results(copies, replaced, {"n": 5})


def test_resize_dim_fold_after_fission():
    """Found by a random schedule: after fission, both loops bind the same
    iterator, and the fold check took them for one loop, so it folded a
    buffer whose every value is read after all are written."""

    @proc
    def twice(n: size, x: f32[n], y: f32[n]):
        t: f32[n]
        for i in seq(0, n):
            t[i] = x[i] * 3.0
            y[i] = t[i]

    split = S.fission(twice, twice.find("t[_] = _").after())
    with pytest.raises(SchedulingError, match="Buffer folding failed because t"):
        S.resize_dim(split, split.find("t : _"), 0, 8, 0, fold=True)
    folded = S.resize_dim(twice, twice.find("t : _"), 0, 1, 0, fold=True)
    assert_same_results(twice, folded, {"n": 9})
