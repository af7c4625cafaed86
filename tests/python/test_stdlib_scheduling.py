"""exo2.stdlib.scheduling's own operations (replace_all, replace_once,
call_site_mem_aware_replace, lift_if, loop_hack, MemoryError) and the
instruction-selection / cleanup helpers of exo2.stdlib.stdlib
(check_call_site, checked_replace, replace_all_stmts, cleanup, dce,
reorder_stmt_*, binary_specialize), plus the module conventions: explicit
__all__, every public function a `user_op` whose name appears in the
operation stack of errors raised below it."""

from __future__ import annotations

import inspect

import pytest
from exo2 import DRAM, SchedulingError, instr, proc
from exo2.API_cursors import InvalidCursorError
from exo2.libs.externs import select  # noqa: F401 (used by staged)
from exo2.libs.memories import AVX2
from exo2.stdlib import scheduling, stdlib
from exo2.stdlib.inspection import nlr_stmts
from exo2.stdlib.scheduling import (
    MemoryError,
    call_site_mem_aware_replace,
    is_atomic_scheduling_op,
    lift_if,
    loop_hack,
    replace_all,
    replace_once,
    unroll_loop,
)
from exo2.stdlib.stdlib import (
    binary_specialize,
    check_call_site,
    checked_replace,
    cleanup,
    dce,
    inline_instr,
    reorder_stmt_backwards,
    reorder_stmt_forward,
    replace_all_stmts,
)
from schedule_check import assert_same_results


def body(p):
    return str(p).split(":\n", 1)[1].splitlines()


@instr("for (int _i = 0; _i < 4; _i++) (&{dst_data})[_i] = (&{src_data})[_i];")
def copy4(dst: [f32][4] @ DRAM, src: [f32][4] @ DRAM):
    assert stride(dst, 0) == 1
    assert stride(src, 0) == 1
    for i in seq(0, 4):
        dst[i] = src[i]


@instr("for (int _i = 0; _i < 4; _i++) (&{dst_data})[_i] += (&{src_data})[_i];")
def acc4(dst: [f32][4] @ DRAM, src: [f32][4] @ DRAM):
    assert stride(dst, 0) == 1
    assert stride(src, 0) == 1
    for i in seq(0, 4):
        dst[i] += src[i]


@proc
def blocks(x: f32[12], y: f32[12]):
    for i in seq(0, 4):
        y[i] = x[i]
    for i in seq(0, 4):
        y[i + 4] += x[i + 4]
    for i in seq(0, 3):
        y[i + 8] = x[i]
    for i in seq(0, 4):
        y[i + 8] = x[i + 8]


# --------------------------------------------------------------------------- #
# replace_all, replace_once, call_site_mem_aware_replace


def test_replace_all_replaces_every_match_of_each_subproc():
    p = replace_all(blocks, [copy4, acc4])
    assert body(p) == [
        "    copy4(y[0:4], x[0:4])",
        "    acc4(y[4:8], x[4:8])",
        "    for i in seq(0, 3):",
        "        y[i + 8] = x[i]",
        "    copy4(y[8:12], x[8:12])",
    ]
    assert_same_results(blocks, p, {})


def test_replace_once_stops_after_the_first_match():
    p = replace_once(blocks, copy4)
    assert body(p)[0] == "    copy4(y[0:4], x[0:4])"
    assert body(p)[-2:] == ["    for i in seq(0, 4):", "        y[i + 8] = x[i + 8]"]
    assert_same_results(blocks, p, {})


def test_replace_all_skips_subprocs_starting_with_other_statements():
    @instr("")
    def nothing(x: f32[4]):
        pass

    assert replace_all(blocks, nothing) == blocks
    with pytest.raises(TypeError, match="expected Procedure"):
        replace_all(blocks, [copy4, "copy4"])


@proc
def to_register(x: f32[4]):
    t: f32[4] @ AVX2
    for i in seq(0, 4):
        t[i] = x[i]


def test_call_site_mem_aware_replace_checks_memories():
    assert is_atomic_scheduling_op(call_site_mem_aware_replace)
    with pytest.raises(MemoryError, match="memory type mismatch between block and"):
        call_site_mem_aware_replace(to_register, to_register.find_loop("i"), copy4)
    assert issubclass(MemoryError, Exception) and MemoryError is not __builtins__.get(
        "MemoryError", None
    )
    ok = call_site_mem_aware_replace(blocks, blocks.find_loop("i"), copy4)
    assert body(ok)[0] == "    copy4(y[0:4], x[0:4])"
    # the memory-blind variant replaces anyway
    assert replace_all(to_register, copy4) == to_register
    blind = replace_all(to_register, copy4, mem_aware=False)
    assert body(blind)[-1] == "    copy4(t[0:4], x[0:4])"


# --------------------------------------------------------------------------- #
# lift_if, loop_hack


@proc
def inner_if(n: size, m: size, x: f32[n, m]):
    for i in seq(0, n):
        for j in seq(0, m):
            if n > 2:
                x[i, j] = 1.0


def test_lift_if_lifts_through_both_loops():
    p = lift_if(inner_if, inner_if.find("if _: _"), 2)
    assert body(p) == [
        "    if n > 2:",
        "        for i in seq(0, n):",
        "            for j in seq(0, m):",
        "                x[i, j] = 1.0",
    ]
    assert_same_results(inner_if, p, {"n": 3, "m": 2})


def test_lift_if_reports_the_lifts_left_and_both_procedures():
    with pytest.raises(SchedulingError) as info:
        lift_if(inner_if, inner_if.find("if _: _"), 3)
    message = str(info.value)
    assert "Could not fully lift if statement! 1 lift(s) remain!" in message
    assert "Cannot lift scope of top-level statement" in message
    assert "\nOrig: def inner_if(" in message and "\nProc: def inner_if(" in message


@proc
def fill_2x4(x: f32[8]):
    for i in seq(0, 2):
        for j in seq(0, 4):
            x[4 * i + j] = 1.0


def test_loop_hack_refinds_the_cursors_after_each_step():
    unroll_all_j = loop_hack(unroll_loop, lambda p: p.find_loop("j", many=True))
    assert unroll_all_j.__name__ == "loop_hack_unroll_loop"
    p = unroll_all_j(fill_2x4)
    assert body(p) == [
        "    for i in seq(0, 2):",
        "        x[4 * i + 0] = 1.0",
        "        x[4 * i + 1] = 1.0",
        "        x[4 * i + 2] = 1.0",
        "        x[4 * i + 3] = 1.0",
    ]


# --------------------------------------------------------------------------- #
# check_call_site, checked_replace, replace_all_stmts


def test_checked_replace_and_check_call_site():
    p = checked_replace(blocks, blocks.find_loop("i"), copy4)
    assert check_call_site(p, p.body()[0])
    with pytest.raises(SchedulingError, match="Call site inconsistency"):
        checked_replace(to_register, to_register.find_loop("i"), copy4)
    with pytest.raises(SchedulingError, match="failed to replace") as info:
        checked_replace(blocks, blocks.find_loop("i"), acc4, quiet=True)
    assert info.value.__cause__ is not None
    with pytest.raises(TypeError, match="call_cursor must be a CallCursor"):
        check_call_site(blocks, blocks.find_loop("i"))


def test_inline_instr_undoes_replace():
    # the call inlined with its windows: the loop over the caller's buffers
    replaced = replace_all_stmts(blocks, [acc4, copy4])
    call = replaced.body()[1]
    p, (stmt, instruction) = inline_instr(replaced, call, rc=True)
    assert body(p)[1:3] == [
        "    for i in seq(0, 4):",
        "        y[i + 4] += x[i + 4]",
    ]
    assert instruction.name() == "acc4" and stmt == p.body()[1]
    assert body(checked_replace(p, stmt, instruction)) == body(replaced)
    assert_same_results(blocks, p, {})
    with pytest.raises(SchedulingError, match="expected a call, not ForCursor"):
        inline_instr(blocks, blocks.find_loop("i"))


def test_replace_all_stmts_tries_each_instruction_on_each_statement():
    p = replace_all_stmts(blocks, [acc4, copy4])
    assert body(p) == body(replace_all(blocks, [copy4, acc4]))
    assert replace_all_stmts(to_register, copy4) == to_register


@instr("for (int _i = 0; _i < 4; _i++) (&{dst_data})[_i] = (&{src_data})[_i];")
def to_register4(dst: [f32][4] @ AVX2, src: [f32][4] @ DRAM):
    assert stride(dst, 0) == 1
    assert stride(src, 0) == 1
    for i in seq(0, 4):
        dst[i] = src[i]


def test_replace_all_stmts_skips_instructions_whose_memories_the_statement_lacks(
    monkeypatch,
):
    from exo2.stdlib import instruction_selection

    tried = []

    tries = instruction_selection._replace_checked

    def recorded(proc, stmt, instr, quiet, call_site_ok):
        tried.append(instr.name())
        return tries(proc, stmt, instr, quiet, call_site_ok)

    monkeypatch.setattr(instruction_selection, "_replace_checked", recorded)
    # blocks' statements are all in DRAM: to_register4 writes an AVX2 buffer
    p = replace_all_stmts(blocks, [to_register4, copy4])
    assert "to_register4" not in tried
    assert body(p) == body(replace_all_stmts(blocks, copy4))
    tried.clear()
    p = replace_all_stmts(to_register, [copy4, to_register4])
    assert tried == ["copy4", "to_register4"]  # both memories are there
    assert body(p)[-1] == "    to_register4(t[0:4], x[0:4])"


@proc
def copies_f64(x: f64[4], y: f64[4]):
    for i in seq(0, 4):
        y[i] = x[i]


@proc
def two_ts(x: f32[4]):
    if True:
        t: f32[4] @ DRAM
        for i in seq(0, 4):
            t[i] = x[i]
    t: f32[4] @ AVX2
    for i in seq(0, 4):
        t[i] = x[i]


def test_replace_all_stmts_checks_each_call_site_as_check_call_site_does():
    # an f32 instruction unifies with the f64 copy, but its call site fails
    assert replace_all_stmts(copies_f64, [copy4]) == copies_f64
    # `t` is declared twice, in two memories: each call is checked where it is
    p = replace_all_stmts(two_ts, [to_register4, copy4])
    assert body(p)[-3:] == [
        "        copy4(t[0:4], x[0:4])",
        "    t: f32[4] @ AVX2",
        "    to_register4(t[0:4], x[0:4])",
    ]


@proc
def staged(n: size, x: [f32][n], y: [f32][n], s: f32):
    assert n % 8 == 0
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1
    for io in seq(0, n / 8):
        a: f32[8] @ AVX2
        b: f32[8] @ AVX2
        c: f32[8] @ AVX2
        for k in seq(0, 8):
            a[k] = x[8 * io + k]
        for k in seq(0, 8):
            b[k] = s
        for k in seq(0, 8):
            c[k] = -0.0
        for k in seq(0, 8):
            c[k] += a[k] * b[k]
        for k in seq(0, 8):
            c[k] = select(0.0, a[k], a[k], -a[k])
        for k in seq(0, 8):
            c[k] = -a[k]
        for k in seq(0, 8):
            c[k] = a[k] + b[k]
        for k in seq(0, 8):
            c[k] = a[k] - b[k] * c[k]
        for k in seq(0, 8):
            a[k] = b[k]
            b[k] = a[k]
        if n > 8:
            for k in seq(0, 8):
                y[8 * io + k] = c[k]
        for k in seq(0, 8):
            y[8 * io + k] = c[k]


def _x86_instructions():
    from exo2 import Procedure
    from exo2.platforms import x86

    return [v for v in vars(x86).values() if isinstance(v, Procedure) and v.is_instr()]


def test_replace_all_stmts_skips_only_instructions_that_cannot_unify():
    # replace_all_stmts tries an instruction on a statement only when their
    # shapes (statement kinds, loop bodies, operators, externs) agree: every
    # pair it skips is one that replace refuses.
    from exo2.stdlib.instruction_selection import _stmt_shape

    instructions = _x86_instructions()
    shapes = {id(i): _stmt_shape(i.body()[0]) for i in instructions}
    skipped = tried = 0
    for stmt in nlr_stmts(staged):
        for i in instructions:
            if len(i.body()) == 1 and shapes[id(i)] == _stmt_shape(stmt):
                tried += 1
                continue
            skipped += 1
            with pytest.raises(SchedulingError):
                checked_replace(staged, stmt, i, quiet=True)
    assert tried and skipped > 10 * tried
    # the result is that of trying every instruction on every statement
    expected = staged
    for stmt in list(nlr_stmts(staged)):
        try:
            stmt = expected.forward(stmt)
        except InvalidCursorError:
            continue
        for i in instructions:
            try:
                expected = checked_replace(expected, stmt, i, quiet=True)
                break
            except SchedulingError:
                pass
    p = replace_all_stmts(staged, instructions)
    assert str(p) == str(expected)
    assert "mm256_fmadd_ps(c" in str(p) and "avx2_abs_ps(c" in str(p)


# --------------------------------------------------------------------------- #
# cleanup, dce, reorder_stmt_*


@proc
def messy(n: size, x: f32[n]):
    for i in seq(0, 1):
        x[i] = 2.0
    if n > 0:
        x[0] += 1.0
    pass
    for j in seq(0, n):
        x[j] = x[j] * (2.0 + 0.0)


def test_cleanup_simplifies_unrolls_and_removes_dead_code():
    p = cleanup(messy)
    assert body(p) == [
        "    x[0] = 2.0",
        "    x[0] += 1.0",
        "    for j in seq(0, n):",
        "        x[j] = x[j] * 2.0",
    ]
    assert_same_results(messy, p, {"n": 5})


@proc
def dead(n: size, x: f32[n]):
    if n < 1:
        x[0] = 1.0
    for i in seq(0, 4):
        if i > 5:
            x[0] = 2.0


def test_dce_removes_dead_branches_but_keeps_constant_loops():
    p = dce(dead)
    assert body(p) == ["    for i in seq(0, 4):", "        pass"]
    assert_same_results(dead, p, {"n": 3})
    block_only = dce(dead, dead.find_loop("i"))
    assert body(block_only)[:2] == ["    if n < 1:", "        x[0] = 1.0"]


@proc
def two_writes(x: f32[4], y: f32[4]):
    x[0] = 1.0
    y[0] = 2.0


def test_reorder_stmt_forward_and_backwards():
    expected = ["    y[0] = 2.0", "    x[0] = 1.0"]
    assert (
        body(reorder_stmt_forward(two_writes, two_writes.find("x[_] = _"))) == expected
    )
    # [fix] Exo's version always raised ValueError
    assert (
        body(reorder_stmt_backwards(two_writes, two_writes.find("y[_] = _")))
        == expected
    )
    with pytest.raises(ValueError, match="expected a block of size 2"):
        reorder_stmt_backwards(two_writes, two_writes.find("x[_] = _"))


# --------------------------------------------------------------------------- #
# binary_specialize


@proc
def upto3(n: size, x: f32[n]):
    assert n < 4
    for i in seq(0, n):
        x[i] = 1.0


def test_binary_specialize_builds_a_tree_of_specialized_copies():
    p, (stmts,) = binary_specialize(
        upto3, upto3.find_loop("i"), "n", [1, 2, 3], rc=True
    )
    assert body(p) == [
        "    assert n < 4",
        "    if n < 2:",
        "        for i in seq(0, 1):",
        "            x[i] = 1.0",
        "    else:",
        "        if n < 3:",
        "            for i in seq(0, 2):",
        "                x[i] = 1.0",
        "        else:",
        "            for i in seq(0, 3):",
        "                x[i] = 1.0",
    ]
    assert [s.hi().value() for s in stmts] == [1, 2, 3]
    for n in [1, 2, 3]:
        assert_same_results(upto3, p, {"n": n})
    by_cursor = binary_specialize(
        upto3, upto3.find_loop("i"), upto3.find_loop("i").hi(), [3, 1, 2]
    )
    assert str(by_cursor) == str(p)


def test_binary_specialize_refusals():
    with pytest.raises(SchedulingError, match="Cannot specialize given one value!"):
        binary_specialize(upto3, upto3.find_loop("i"), "n", [1])
    # the values must cover every value of n
    with pytest.raises(SchedulingError, match="always True or always False") as info:
        binary_specialize(upto3, upto3.find_loop("i"), "n", [1, 2])
    assert [e[0] for e in info.value.op_stack] == [
        "binary_specialize",
        "eliminate_dead_code",
    ]


# --------------------------------------------------------------------------- #
# Conventions


def test_stdlib_defines_all_and_every_function_is_a_user_op():
    assert len(stdlib.__all__) == len(set(stdlib.__all__))
    own = [
        getattr(stdlib, name)
        for name in stdlib.__all__
        if inspect.isfunction(getattr(stdlib, name)) and name in stdlib._OWN_NAMES
    ]
    assert len(own) >= 43
    for function in own:
        # functools.wraps of user_op's wrapper
        assert hasattr(function, "__wrapped__"), function.__name__


def test_star_import_gives_what_exo_programs_expect():
    # Exo's module has no __all__: its star import also gives what it imports
    namespace = {}
    exec("from exo2.stdlib.stdlib import *", namespace)
    for name in [
        "vectorize",
        "fma_rule",
        "divide_loop",
        "DRAM",
        "ForCursor",
        "get_children",
        "attempt",
        "divide_loop_",
        "SchedulingError",
        "replace_all",
        "proc",
    ]:
        assert name in namespace, name
    assert "_OWN_NAMES" not in namespace


def test_scheduling_module_exports_its_operations():
    for name in [
        "loop_hack",
        "MemoryError",
        "call_site_mem_aware_replace",
        "replace_all",
        "replace_once",
        "lift_if",
        "user_op",
        "repeat",
        "sched_seq",
        "divide_loop",
        "Procedure",
        "ForCursor",
    ]:
        assert name in scheduling.__all__, name
    for function in (replace_all, replace_once, lift_if):
        assert hasattr(function, "__wrapped__")


def test_an_error_names_the_stdlib_function_and_the_primitive():
    @proc
    def odd(n: size, x: f32[n]):
        for i in seq(0, n):
            x[i] = 1.0

    with pytest.raises(SchedulingError) as info:
        stdlib.tile_loops(odd, [(odd.find_loop("i"), 4)], perfect=True)
    error = info.value
    assert error.op == "divide_loop"
    names = [name for name, _, _ in error.op_stack]
    assert names == ["tile_loops", "divide_loop"]
    _, file, line = error.op_stack[0]
    assert file == __file__ and line > 0
    notes = "\n".join(getattr(error, "__notes__", []))
    assert "Operation: tile_loops (test_stdlib_scheduling.py:" in notes
    assert "> divide_loop (tiling.py:" in notes


def test_an_error_message_starts_with_the_operation_the_user_called():
    """Exo prefixed most refusals with `<<<unknown directive>>>`; exo2 names
    the operation the user called: the primitive, the outermost library
    function, or a Procedure method (`find`, as in Exo)."""

    @proc
    def odd(n: size, x: f32[n]):
        for i in seq(0, n):
            x[i] = 1.0

    with pytest.raises(SchedulingError) as info:
        scheduling.divide_loop(odd, "i", 4, ["io", "ii"], perfect=True)
    assert str(info.value) == "divide_loop: cannot perfectly divide 'n' by 4"
    with pytest.raises(SchedulingError) as info:
        stdlib.tile_loops(odd, [(odd.find_loop("i"), 4)], perfect=True)
    assert str(info.value) == "tile_loops: cannot perfectly divide 'n' by 4"
    with pytest.raises(SchedulingError) as info:
        odd.find("y = _")
    assert str(info.value).startswith("find: failed to find matches")
    # a library's own refusal gets the library function's name, once
    with pytest.raises(SchedulingError) as info:
        binary_specialize(upto3, upto3.find_loop("i"), "n", [1])
    assert str(info.value) == "binary_specialize: Cannot specialize given one value!"
    from exo2.stdlib.halide_scheduling_ops import compute_at

    @proc
    def two_stages(n: size, y: f32[n]):
        t: f32[n]
        for i in seq(0, n):
            t[i] = 1.0
        for j in seq(0, n):
            y[j] = t[n - 1 - j]

    with pytest.raises(SchedulingError) as info:
        compute_at(two_stages, two_stages.find("t = _"), two_stages.find_loop("j"))
    assert str(info.value).startswith("compute_at: ")
    assert not str(info.value).startswith("compute_at: compute_at:")
