"""exo2.stdlib is a user of exo2 (DESIGN.md): it may import only the public
modules of spec/README.md's module map, never exo2._core or internals."""

from __future__ import annotations

import ast
from pathlib import Path

STDLIB = Path(__file__).resolve().parents[2] / "stdlib"

PUBLIC_MODULES = {
    "exo2",
    "exo2.API",
    "exo2.API_cursors",
    "exo2.API_scheduling",
    "exo2.API_types",
    "exo2.core.memory",
    "exo2.core.extern",
    "exo2.core.configs",
    "exo2.core.extensions",
    "exo2.core.internal_cursors",
    "exo2.frontend.pyparser",
    "exo2.frontend.syntax",
    "exo2.frontend.pattern_match",
    "exo2.frontend.parse_fragment",
    "exo2.libs.memories",
    "exo2.libs.externs",
    "exo2.platforms.x86",
    "exo2.platforms.neon",
    "exo2.platforms.rvv",
    "exo2.platforms.cuda",
    "exo2.rewrite.LoopIR_scheduling",
    "exo2.rewrite.LoopIR_unification",
    "exo2.backend.prec_analysis",
}


def imported_modules(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: within exo2.stdlib itself
                continue
            yield node.lineno, node.module


def test_stdlib_imports_only_public_exo2_modules():
    offending = [
        f"{path.name}:{line}: {module}"
        for path in sorted(STDLIB.rglob("*.py"))
        for line, module in imported_modules(path)
        if module.split(".")[0] == "exo2"
        and module not in PUBLIC_MODULES
        and not module.startswith("exo2.stdlib")
    ]
    assert not offending, "stdlib imports internals:\n" + "\n".join(offending)


def test_the_check_sees_the_stdlib_sources():
    assert (STDLIB / "scheduling.py").exists()
