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


def test_differential_trace_records_kernels_operations_and_results(tmp_path):
    import differential_trace  # noqa: F401 (the module the run executes)

    program = tmp_path / "program.py"
    program.write_text(
        textwrap.dedent(
            """
            from __future__ import annotations
            from exo2 import proc
            from exo2.stdlib.scheduling import divide_loop

            @proc
            def scale(n: size, x: f32[n]):
                for i in seq(0, n):
                    x[i] = 2.0 * x[i]

            def schedule():
                p = divide_loop(scale, "i", 4, ["io", "ii"], tail="cut")
                return divide_loop(scale, "i", 4, ["io", "ii"], perfect=True)
            """
        )
    )
    out = tmp_path / "trace.json"
    subprocess.run(
        [sys.executable, str(HARNESS / "differential_trace.py"), "--side", "exo2"]
        + [
            "--out",
            str(out),
            "--call",
            "schedule",
            "--sizes",
            '{"n": 9}',
            str(program),
        ],
        check=True,
    )
    trace = json.loads(out.read_text())
    assert trace["status"] == (
        "stopped: SchedulingError: divide_loop: cannot perfectly divide 'n' by 4"
    )
    kinds = [(e["kind"], e["name"], e["outcome"]) for e in trace["events"]]
    assert kinds == [
        ("proc", "scale", "ok"),
        ("op", "divide_loop", "ok"),
        ("op", "divide_loop", "error"),
    ]
    before, after = trace["events"][0]["results"], trace["events"][1]["results"]
    assert before == after and len(before[0]) == 9


def test_differential_compare_reports_acceptance_text_and_results():
    import differential

    def event(outcome, text, results=None):
        return (
            {"kind": "op", "name": "op", "site": "p.py:3", "outcome": outcome},
            text,
            results,
        )

    def run(*events):
        out = []
        for e, text, results in events:
            out.append(dict(e, text=text, results=results))
        return {"status": "completed", "events": out}

    rows = differential.compare(
        run(event("ok", "def f():\n    pass", [[1.0]]), event("ok", "a", [[1.0]])),
        run(
            event("ok", "def f():\n    pass", [[1.0]]),
            event("error", "SchedulingError: no"),
        ),
    )
    assert rows[0]["differences"] == [] and rows[0]["results"] == "equal"
    assert rows[1]["differences"][0].startswith("acceptance: Exo ok")
    rows = differential.compare(
        run(event("ok", "x = 1", [[1.0]])), run(event("ok", "x = 2", [[1.5]]))
    )
    assert rows[0]["differences"][0].startswith("printed text differs")
    assert rows[0]["differences"][1] == "results differ on the same inputs"
