"""Explaining a kernel file without `from __future__ import annotations`
(docs/writing-kernels.md).

Kernel parameters are annotated with the object language's types (`n:
size`, `x: f32[n] @ DRAM`). With the future import, Python keeps each
annotation as text for exo2 to parse; without it, Python evaluates the
annotations when it runs the `def`, before `@proc` sees the function.
Three things can then happen, and each is explained here:

- a type name is not defined in the file (the usual case): Python raises
  `NameError: name 'size' is not defined` at the `def`, where no exo2
  code runs; `install_excepthook` adds the explanation to the report of
  such an uncaught error;
- the names are defined (`from exo2.frontend.syntax import *` defines
  them for editors) and a tensor type `f32[n]` is evaluated: the dummy
  type raises `TypeError` with the explanation (`subscripted`);
- every annotation evaluates: `@proc` finds values instead of text and
  raises `ParseError` (`check_annotations_are_text`).
"""

import __future__

import sys

# The object language's type names: the ones an annotation starts with.
TYPE_NAMES = frozenset(
    ["size", "index", "stride", "R", "f16", "bf16", "f32", "f64"]
    + ["i8", "ui8", "ui16", "i32", "barrier"]
)

EXPLANATION = (
    "exo2 kernels need `from __future__ import annotations` as the first "
    "statement of their file: without it Python evaluates annotations such "
    "as `n: size` and `x: f32[n]` when it runs the `def`, and they are not "
    "Python values; with it, they stay text that @proc parses "
    "(docs/writing-kernels.md)"
)


def subscripted(type_name):
    """The error for `f32[...]` evaluated by Python."""
    return TypeError(f"`{type_name}[...]` was evaluated by Python: {EXPLANATION}")


def check_annotations_are_text(f, source):
    """Raises ParseError at the `def` of `f` (its ast and SourceContext in
    `source`) when Python evaluated its annotations."""
    fdef, context = source
    evaluated = [n for n, a in f.__annotations__.items() if not isinstance(a, str)]
    if evaluated:
        context.error(
            fdef, f"the annotation of '{evaluated[0]}' was evaluated: {EXPLANATION}"
        )


def _without_future_annotations(tb):
    """Whether the innermost frame of traceback `tb` runs code compiled
    without `from __future__ import annotations`."""
    while tb.tb_next is not None:
        tb = tb.tb_next
    flag = __future__.annotations.compiler_flag
    return not tb.tb_frame.f_code.co_flags & flag


def _explain_name_error(hook):
    def excepthook(exc_type, exc, tb):
        hook(exc_type, exc, tb)
        if (
            issubclass(exc_type, NameError)
            and getattr(exc, "name", None) in TYPE_NAMES
            and tb is not None
            and _without_future_annotations(tb)
        ):
            print(
                f"\nexo2: '{exc.name}' is a type of the object language. {EXPLANATION}",
                file=sys.stderr,
            )

    excepthook.exo2_explains_name_errors = True
    return excepthook


def install_excepthook():
    """Makes the report of an uncaught `NameError` for a type name of the
    object language, raised by code without the future import, end with
    the explanation (once per process; other hooks still run first)."""
    if not getattr(sys.excepthook, "exo2_explains_name_errors", False):
        sys.excepthook = _explain_name_error(sys.excepthook)
