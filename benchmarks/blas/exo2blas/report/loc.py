"""Schedule sizes, counted as ExoBLAS counted them: non-blank,
non-comment, non-import lines (docstrings excluded), per kernel file split
into the algorithm (the naive source and its constants), the variants (the
`kernel(...)` call without its schedule) and the schedule (the `schedule=`
argument and any function the file defines for it); the scheduling
library (exo2blas/sched and exo2blas/machines) apart, and the variant
expansion (exo2blas/variants: `kernel(...)` and the axes) beside it."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent


def _code_lines(source_lines, first, last, skip=()):
    """Lines first..last (1-based) that hold code, minus `skip`."""
    count = 0
    for number in range(first, last + 1):
        text = source_lines[number - 1].strip()
        if text and not text.startswith("#") and number not in skip:
            count += 1
    return count


def _docstring_lines(tree):
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                lines.update(range(first.lineno, first.end_lineno + 1))
    return lines


def _is_naive(node):
    """A @proc, or a function that emits one (gbmv's, iamax's)."""
    return isinstance(node, ast.FunctionDef) and any(
        isinstance(d, ast.Name) and d.id == "proc" for n in ast.walk(node)
        if isinstance(n, ast.FunctionDef) for d in n.decorator_list
    )  # fmt: skip


def kernel_file(path):
    source = path.read_text()
    lines, tree = source.splitlines(), ast.parse(source)
    docs = _docstring_lines(tree)
    counts = {"algorithm": 0, "variants": 0, "schedule": 0}
    for node in tree.body:
        decorators = getattr(node, "decorator_list", [])
        span = (min([node.lineno] + [d.lineno for d in decorators]), node.end_lineno)
        if isinstance(node, ast.Import | ast.ImportFrom) or (
            isinstance(node, ast.Expr)
            and isinstance(getattr(node, "value", None), ast.Constant)
        ):
            continue
        call = node.value if isinstance(node, ast.Assign) else None
        if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "kernel":
            schedule = [k.value for k in call.keywords if k.arg == "schedule"]
            inner = set()
            for s in schedule:
                inner.update(range(s.lineno, s.end_lineno + 1))
                counts["schedule"] += _code_lines(lines, s.lineno, s.end_lineno, docs)
            counts["variants"] += _code_lines(lines, *span, docs | inner)
        elif isinstance(node, ast.FunctionDef) and not _is_naive(node):
            counts["schedule"] += _code_lines(lines, *span, docs)
        else:
            counts["algorithm"] += _code_lines(lines, *span, docs)
    return counts


def library(directories=("sched", "machines")):
    """The code lines of the packages `directories`, docstrings and imports
    apart."""
    total = 0
    for directory in directories:
        for path in sorted((PACKAGE / directory).glob("*.py")):
            source = path.read_text()
            tree = ast.parse(source)
            skip = _docstring_lines(tree)
            for node in tree.body:
                if isinstance(node, ast.Import | ast.ImportFrom):
                    skip.update(range(node.lineno, node.end_lineno + 1))
            total += _code_lines(source.splitlines(), 1, len(source.splitlines()), skip)
    return total


def count():
    """loc.json's content: per kernel file, and the library."""
    kernels = {}
    for path in sorted((PACKAGE / "kernels").glob("level*/*.py")):
        if path.name != "__init__.py":
            kernels[f"{path.parent.name}/{path.stem}"] = kernel_file(path)
    levels = {}
    for name, c in kernels.items():
        level = levels.setdefault(
            name.split("/")[0], {"algorithm": 0, "variants": 0, "schedule": 0}
        )
        for key, value in c.items():
            level[key] += value
    return {
        "kernels": kernels,
        "levels": levels,
        "library": library(),
        "variants": library(("variants",)),
    }
