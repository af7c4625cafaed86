"""The conformance harness (tests/conformance, docs/internals/conformance.md) itself:
the `exo` -> `exo2` import alias, and the report that compares the control
run on Exo with the run on exo2. The conformance run proper needs PyPI and
runs as its own CI step (scripts/conformance.sh)."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

HARNESS = Path(__file__).resolve().parents[1] / "conformance"
sys.path.insert(0, str(HARNESS))
import report  # noqa: E402


def run_with_alias(code):
    program = f"import sys; sys.path.insert(0, {str(HARNESS)!r})\n"
    program += "import exo_alias; exo_alias.install()\n" + textwrap.dedent(code)
    return subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True
    )


def test_alias_imports_the_same_module_objects_as_exo2():
    result = run_with_alias(
        """
        import exo, exo2
        import exo.stdlib.scheduling as S
        from exo.platforms.x86 import mm256_loadu_ps
        import exo2.stdlib.scheduling
        import exo2.platforms.x86
        assert exo is exo2
        assert S is exo2.stdlib.scheduling
        assert mm256_loadu_ps is exo2.platforms.x86.mm256_loadu_ps
        assert S.__spec__.name == "exo2.stdlib.scheduling"
        from exo import SchedulingError
        assert SchedulingError is exo2.SchedulingError
        print("ok")
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_alias_reports_a_missing_module_under_its_exo_name():
    result = run_with_alias("import exo.core.LoopIR\n")
    assert result.returncode != 0
    assert "ModuleNotFoundError: No module named 'exo.core.LoopIR'" in result.stderr


def write_run(path, tests, collect_errors=None):
    path.write_text(
        json.dumps(
            {
                "tests": {
                    k: {"outcome": v, "message": f"{v}!"} for k, v in tests.items()
                },
                "collect_errors": collect_errors or {},
                "goldens": {},
            }
        )
    )


def run_report(tmp_path, exo, exo2, expected, collect_errors=None):
    write_run(tmp_path / "exo.json", exo)
    write_run(tmp_path / "exo2.json", exo2, collect_errors)
    (tmp_path / "expected.toml").write_text(textwrap.dedent(expected))
    status = report.main(
        [
            "--exo", str(tmp_path / "exo.json"),
            "--exo2", str(tmp_path / "exo2.json"),
            "--expected", str(tmp_path / "expected.toml"),
            "--out", str(tmp_path / "report.md"),
        ]
    )  # fmt: skip
    return status, (tmp_path / "report.md").read_text()


def test_report_accepts_differences_that_are_listed_with_a_fitting_category(tmp_path):
    status, text = run_report(
        tmp_path,
        {"t.py::same": "passed", "t.py::c": "passed", "u.py::a": "passed"},
        {"t.py::same": "passed", "t.py::c": "passed-c-text-differs"},
        """
        ["t.py::c"]
        category = "generated-c-text"
        reason = "the C text differs"

        ["u.py::*"]
        category = "exo-internal"
        reason = "imports LoopIR"
        """,
        collect_errors={
            "u.py": "ModuleNotFoundError: No module named 'exo.core.LoopIR'"
        },
    )
    assert status == 0
    assert "| t.py | 2 | 2 | 1 | 1 | 0 |" in text
    assert "| u.py | 1 | 1 | 0 | 1 | 0 |" in text
    assert "Problems (unlisted, stale or misfiled): 0" in text


@pytest.mark.parametrize(
    "exo2_outcome, category, problem",
    [
        ("failed", None, "unlisted difference"),
        ("passed", "todo", "stale entry"),
        ("failed", "generated-c-text", "category does not fit"),
        ("passed-c-text-differs", "todo", "category does not fit"),
    ],
)
def test_report_fails_on_unlisted_stale_or_misfiled_differences(
    tmp_path, exo2_outcome, category, problem
):
    expected = (
        f'["t.py::a"]\ncategory = "{category}"\nreason = "why"\n' if category else ""
    )
    status, text = run_report(
        tmp_path, {"t.py::a": "passed"}, {"t.py::a": exo2_outcome}, expected
    )
    assert status == 1
    assert f"| t.py::a | passed | {exo2_outcome} |" in text
    assert problem in text


def test_report_refuses_an_unknown_category(tmp_path):
    with pytest.raises(SystemExit, match="category 'flaky'"):
        run_report(
            tmp_path,
            {"t.py::a": "passed"},
            {"t.py::a": "failed"},
            '["t.py::a"]\ncategory = "flaky"\nreason = "why"\n',
        )
