"""Names that programs written for Exo 1.0 import from its module layout
exist under the same paths in exo2 (docs/migrating-from-exo.md): private
aliases libraries use, and what Exo's modules without `__all__` give to
`import *`."""

import subprocess
import sys
import textwrap


def star_import(module):
    """The names `from module import *` binds, in a fresh interpreter."""
    code = textwrap.dedent(
        f"""
        from {module} import *
        print(" ".join(sorted(k for k in dir() if not k.startswith("__"))))
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return set(out.stdout.split())


def test_scheduling_keeps_exos_private_unification_error_alias():
    from exo2.rewrite.LoopIR_unification import UnificationError
    from exo2.stdlib.scheduling import _UnificationError

    assert _UnificationError is UnificationError


def test_range_analysis_star_import_gives_cursor_classes():
    names = star_import("exo2.stdlib.range_analysis")
    assert {"bounds_inference", "infer_range", "ForCursor", "get_parents"} <= names


def test_analysis_star_import_gives_what_exos_imports():
    assert {"DRAM", "Procedure", "SchedulingError"} <= star_import(
        "exo2.stdlib.analysis"
    )


def test_stdlib_has_exos_replace_cursors_record():
    from exo2.stdlib.stdlib import replace_cursors

    assert list(replace_cursors("call")) == ["call"]


def test_inspection_star_import_gives_every_platforms_names():
    names = star_import("exo2.stdlib.inspection")
    assert {"mm256_loadu_ps", "neon_vld_4xf32", "Neon", "AVX2", "DRAM"} <= names
