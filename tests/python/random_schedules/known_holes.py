"""Soundness holes known and still open, that the randomized schedule test
steps around so that it stays green until their fixes are merged.

Each entry names its issue-14 class (or says that it is new), and is used
in one of three ways: a generator leaves out the option that trips it; a
kernel whose own C is wrong carries it as `known_hole` and is not
scheduled; or a wrong result is counted as this hole instead of failing the
test, when it comes from one of its `primitives` on one of its `kernels`,
or the wrong step matches its `step` predicate, or the wrong procedure its
`pattern`. Every entry has a reproducer (KNOWN_HOLE_REPRODUCERS in
test_random_schedules.py) that must still show the hole: once the fix is
merged, `test_known_hole_is_still_open` fails until the entry is removed.
"""

import re
from dataclasses import dataclass

from exo2.API_cursors import AssignConfigCursor, BinaryOpCursor, ForCursor, IfCursor
from exo2.API_types import ExoType

from .navigation import expressions_of, is_control, text, walk


@dataclass(frozen=True)
class KnownHole:
    issue_class: str
    what: str
    # A wrong result of these primitives on these kernels is this hole.
    primitives: frozenset = frozenset()
    kernels: frozenset = frozenset()
    step: object = None  # a predicate on the wrong step
    pattern: object = None  # a predicate on the wrong procedure


def division_of_a_possibly_negative_value(proc):
    """Whether an integer `/` or `%` divides a value that may be negative:
    a difference, a negation, or an index parameter."""
    index_params = {a.name() for a in proc.args() if a.type() == ExoType.Index}
    for stmt, _ in walk(proc.body()):
        for e in expressions_of(stmt):
            if isinstance(e, BinaryOpCursor) and e.op() in ("/", "%") and is_control(e):
                dividend = text(e.lhs())
                if "-" in dividend or set(re.findall(r"\w+", dividend)) & index_params:
                    return True
    return False


def loop_bound_written_in_body(proc):
    """Whether a loop's body writes a config field its bounds read."""
    for loop, _ in walk(proc.body()):
        if isinstance(loop, ForCursor):
            bounds = f"{text(loop.lo())} {text(loop.hi())}"
            for stmt, _ in walk(loop.body()):
                if (
                    isinstance(stmt, AssignConfigCursor)
                    and f"{stmt.config().name()}.{stmt.field()}" in bounds
                ):
                    return True
    return False


KNOWN_HOLES = {
    "loop_bounds_evaluated_once": KnownHole(
        "issue 14, class 1 (code generation)",
        "the C `for` evaluates its bound again after the body wrote a config "
        "field the bound reads",
        pattern=loop_bound_written_in_body,
    ),
    "config_writes_between_conditions": KnownHole(
        "issue 14, class 1",
        "fuse and fission prove the conditions equal but not that the code "
        "between them keeps the config fields they read",
        frozenset({"fuse", "fission", "autofission"}),
        frozenset({"config_guards", "config_facts"}),
    ),
    "condition_facts_after_config_writes": KnownHole(
        "issue 14, class 1",
        "simplify uses a condition's facts after the config fields it reads "
        "were written",
        frozenset({"simplify"}),
        frozenset({"config_guards", "config_facts"}),
    ),
    "callee_preconditions_on_config": KnownHole(
        "issue 14, class 1",
        "delete_config and write_config do not keep a callee's assert on a "
        "config field true",
        frozenset({"delete_config", "write_config", "reorder_stmts"}),
        frozenset({"config_calls"}),
    ),
    "floor_division_in_c": KnownHole(
        "issue 14, class 2",
        "C's `/` and `%` truncate where the object language floors",
        pattern=division_of_a_possibly_negative_value,
    ),
    "rearrange_dim_stride_reads": KnownHole(
        "issue 14, class 4",
        "rearrange_dim keeps `stride(t, d)` reads whose value it changes",
        frozenset({"rearrange_dim"}),
        frozenset({"stride_reads"}),
    ),
    "stage_mem_conditional_writes": KnownHole(
        "issue 14, class 3",
        "stage_mem skips the load of a window that a loop or an if writes "
        "only on some paths",
        step=lambda step: (
            step.primitive == "stage_mem"
            and isinstance(step.args[0], (ForCursor, IfCursor))
        ),
    ),
    "join_loops_empty_ranges": KnownHole(
        "issue 14, class 5",
        "join_loops does not prove lo <= mid <= hi",
        frozenset({"join_loops"}),
        frozenset({"split_ranges"}),
    ),
    "extract_subproc_asserts_after_config_writes": KnownHole(
        "issue 14, class 1 (new instance, not in the issue)",
        "extract_subproc(include_asserts=True) asserts the condition of an "
        "enclosing if after the block wrote a field it reads",
        frozenset({"extract_subproc", "replace"}),
        frozenset({"config_facts", "config_guards"}),
    ),
    "stage_mem_accum_of_a_window": KnownHole(
        "new, not in issue 14 (stage_mem)",
        "stage_mem(accum=True) of a window statement's variable does not "
        "check that the block only reduces into it",
        step=lambda step: step.primitive == "stage_mem" and step.kwargs.get("accum"),
    ),
    "insert_noop_call_preconditions": KnownHole(
        "issue 14, class 6",
        "insert_noop_call does not prove the callee's asserts",
    ),
    "static_buffer_in_parallel_loop": KnownHole(
        "issue 14, class 7",
        "a DRAM_STATIC buffer in a `par` loop is shared by the threads",
    ),
    "c_reserved_names": KnownHole(
        "issue 14, class 9",
        "names that C reserves (`int`, `malloc`) are not mangled",
    ),
}
