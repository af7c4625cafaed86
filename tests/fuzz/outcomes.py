"""What a fuzz case's exception means: a documented error, or a leak.

An exception is a *documented error* when its class is listed in
docs/errors.md (the public reference) and exo2 raised it on purpose: the
class is exo2's own, or the exception carries exo2's report attributes (the
core raises built-in classes that way), or the innermost frame of its
traceback is a `raise` (or a compatibility `assert`) statement in exo2's
code. Anything
else is a *leak*: an undocumented class (`AttributeError`, `KeyError`,
`RuntimeError` from pybind11 or Z3), or a documented built-in class raised
by Python or the C++ bindings rather than by an explicit check
(`TypeError: unsupported operand`, pybind11's "incompatible function
arguments").
"""

import ast
import functools
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ERRORS_DOC = ROOT / "docs" / "errors.md"

# The outcomes of a case, from best to worst; the last five fail a run.
DOCUMENTED = "documented error"
ACCEPTED = "accepted"
WRONG = "wrong result"
UNCOMPILABLE = "uncompilable C"
LEAK = "leak"
CRASH = "crash"
HANG = "hang"
KNOWN_FAILURE = "known failure"  # a failure listed in known.py
ORDER = [ACCEPTED, DOCUMENTED, KNOWN_FAILURE, WRONG, UNCOMPILABLE, LEAK, CRASH, HANG]
FAILURES = {WRONG, UNCOMPILABLE, LEAK, CRASH, HANG}

_CLASS_ROW = re.compile(r"^\|\s*`([A-Za-z_][\w.]*)`", re.MULTILINE)


@functools.cache
def documented_classes():
    """The exception class names of the class table of docs/errors.md."""
    text = ERRORS_DOC.read_text()
    table = text.split("## Error classes", 1)[1].split("\n## ", 1)[0]
    return frozenset(_CLASS_ROW.findall(table))


def _exo2_directories():
    import exo2
    import exo2.stdlib

    return [os.path.dirname(os.path.abspath(m.__file__)) for m in (exo2, exo2.stdlib)]


@functools.cache
def _statements(path):
    """The statements of a source file, as (first line, last line, node)."""
    tree = ast.parse(Path(path).read_text())
    return [
        (node.lineno, node.end_lineno, node)
        for node in ast.walk(tree)
        if isinstance(node, ast.stmt)
    ]


def _is_raise_statement(path, line):
    """Whether the innermost statement of `path` spanning `line` is a
    `raise` or an `assert`."""
    spanning = [
        (hi - lo, node) for lo, hi, node in _statements(path) if lo <= line <= hi
    ]
    if not spanning:
        return False
    node = min(spanning, key=lambda entry: entry[0])[1]
    return isinstance(node, (ast.Raise, ast.Assert))


def _innermost_frame(exc):
    tb = exc.__traceback__
    if tb is None:
        return None, None
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_code.co_filename, tb.tb_lineno


def classify(exc):
    """`(outcome, class name, where)` for an exception a case raised."""
    from exo2.jit import JitCompileError

    name = type(exc).__name__
    path, line = _innermost_frame(exc)
    where = f"{_short(path)}:{line}" if path else "?"
    if isinstance(exc, JitCompileError):
        return UNCOMPILABLE, name, where
    if name not in documented_classes():
        return LEAK, name, where
    if _is_exo2_class(type(exc)) or hasattr(exc, "op_stack"):
        return DOCUMENTED, name, where
    deliberate = (
        path is not None
        and any(
            os.path.abspath(path).startswith(d + os.sep) for d in _exo2_directories()
        )
        and _is_raise_statement(path, line)
    )
    return (DOCUMENTED if deliberate else LEAK), name, where


def _is_exo2_class(cls):
    return any(
        c.__module__.split(".")[0] == "exo2" for c in cls.__mro__ if c is not Exception
    )


def _short(path):
    """`path` relative to the repository when inside it."""
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return path
