"""What counts as a refusal in the randomized schedule test.

A primitive refuses an unsafe step with `SchedulingError`. Before any
analysis, it may also reject arguments that do not fit, with the documented
argument errors below. Any other exception from a primitive (a `TypeError`,
`ValueError`, `IndexError`, `KeyError`, `NotImplementedError`, ...) is a crash:
the test fails, so a primitive cannot hide a hole behind an exception.

The argument errors, precisely:
- the argument processors of `exo2.primitives.arguments` (and those of the
  other `exo2.primitives` modules), docs/errors.md "Arguments of primitives
  and methods": a `TypeError` / `ValueError` raised by an
  `ArgumentProcessor` method itself, worded `argument <i>, '<name>' to
  <op>: ...`;
- a new expression or window string that does not parse, or names nothing
  in scope: `ParseFragmentError`, raised while an argument processor runs;
- a new expression that does not typecheck in its scope or is of the wrong
  kind: `KernelCheckError` raised by an argument processor (`argument <i>,
  ...`), or one whose every diagnostic points at the primitive's call,
  where the new expression was written;
- the documented argument shapes of single primitives, `DOCUMENTED_ERRORS`.
"""

import re
import traceback
from dataclasses import dataclass

from exo2 import SchedulingError
from exo2.errors import KernelCheckError, UnificationError
from exo2.frontend.parse_fragment import ParseFragmentError
from exo2.primitives.arguments import ArgumentProcessor


@dataclass(frozen=True)
class DocumentedError:
    """An argument error one primitive raises before any analysis."""

    primitive: str
    cls: type
    message: str  # a regular expression matched at the start of the message
    reason: str  # the name of the refusal in the summary table
    doc: str  # where the docs state it


DOCUMENTED_ERRORS = [
    DocumentedError(
        "replace",
        UnificationError,
        r"",
        "no unification",
        "docs/instruction-selection.md",
    ),
    DocumentedError(
        "sink_alloc",
        ValueError,
        r"Cannot sink alloc because the statement after the allocation is not a "
        r"loop or if statement",
        "no loop or if next",
        "docs/primitives-buffers.md",
    ),
    DocumentedError(
        "merge_writes",
        ValueError,
        r"expected the two statements' left hand sides to have the same name & type",
        "two buffers",
        "docs/primitives-statements.md",
    ),
    DocumentedError(
        "bind_config",
        TypeError,
        r"expected type of expression to bind \(\w+\) to match type of Config "
        r"variable",
        "field type",
        "docs/primitives-subprocs-configs.md",
    ),
    DocumentedError(
        "write_config",
        TypeError,
        r"expected type of expression to write \(\w+\) to match type of Config "
        r"variable",
        "field type",
        "docs/primitives-subprocs-configs.md",
    ),
    DocumentedError(
        "write_config",
        TypeError,
        r"cannot write non-real-scalar non-boolean value .* to configuration "
        r"states",
        "value kind",
        "docs/primitives-subprocs-configs.md",
    ),
    DocumentedError(
        "lift_reduce_constant",
        NotImplementedError,
        r"unsupported stmt type in loop body: ",
        "statement kind",
        "docs/primitives-statements.md",
    ),
]


def refusal_reason(primitive, exc):
    """Why `primitive` refused a step by raising `exc` (a label for the
    summary table), or None when `exc` is a crash."""
    if isinstance(exc, SchedulingError):
        return "SchedulingError"
    frames = traceback.extract_tb(exc.__traceback__)
    names_argument = re.match(rf"argument \d+, '\w+' to {primitive}: ", str(exc))
    if isinstance(exc, ParseFragmentError) and _in_processor(exc):
        return "new expression"
    if isinstance(exc, KernelCheckError) and (
        (names_argument and _raised_by_processor(exc))
        or _new_expression_type_error(exc, frames)
    ):
        return "new expression type"
    if isinstance(exc, (TypeError, ValueError)) and _raised_by_processor(exc):
        if names_argument:
            return "argument"
    for documented in DOCUMENTED_ERRORS:
        if (
            documented.primitive == primitive
            and type(exc) is documented.cls
            and re.match(documented.message, str(exc))
        ):
            return documented.reason
    return None


def _processor_frames(exc):
    """The frames of the traceback that run an argument processor."""
    tb, frames = exc.__traceback__, []
    while tb is not None:
        if isinstance(tb.tb_frame.f_locals.get("self"), ArgumentProcessor):
            frames.append(tb.tb_frame)
        tb = tb.tb_next
    return frames


def _raised_by_processor(exc):
    """Whether the innermost frame is a method of an `ArgumentProcessor`
    (its `err`, or a `raise` of its own), not code it calls."""
    tb = exc.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    return isinstance(tb.tb_frame.f_locals.get("self"), ArgumentProcessor)


def _in_processor(exc):
    return bool(_processor_frames(exc))


def _new_expression_type_error(exc, frames):
    """Whether a typechecking error is about a new expression: every
    diagnostic points at the line that called the primitive (new expressions
    are located where they are written)."""
    if not str(exc).startswith("Errors occurred during typechecking:"):
        return False
    call_sites = {(f.filename, f.lineno) for f in frames}
    return bool(exc.diagnostics) and all(
        (file, line) in call_sites for file, line, _col, _text in exc.diagnostics
    )
