"""The conformance harness (tests/conformance, docs/internals/conformance.md) itself:
the `exo` -> `exo2` import alias, and the report that compares the control
run on Exo with the run on exo2. The conformance run proper needs PyPI and
runs as its own CI step (scripts/conformance.sh)."""

import json
import re
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
    # neither side can run it here (e.g. AVX-512 on a CPU without it): the
    # messages differ (temporary paths) but that is no disagreement
    rows = differential.compare(
        run(event("ok", "x", "cannot run: CalledProcessError: cc /tmp/a/k.c")),
        run(event("ok", "x", "cannot run: CalledProcessError: cc /tmp/b/k.c")),
    )
    assert rows[0]["differences"] == [] and rows[0]["results"] == "not run"


def test_differential_entry_lists_exactly_the_window_choice_exo_varies_on():
    # Exo's replace_all windows A[i, k] either way from run to run; the
    # entry's `match` accepts that swap of the set1 line and nothing else
    import differential

    entries = report.load_expected(HARNESS / "expected_differences.toml")
    key = "differential:examples/exo_compat/sgemm_avx512.py:sgemm_avx512.py:82"
    before = "    a_vec: f32[16] @ AVX512\n{}\n    mm512_fmadd_ps(a_vec)\n"
    exo_line = "    mm512_set1_ps(a_vec[0:16], A[i + 0:i + 1, k + 0])"
    exo2_line = "    mm512_set1_ps(a_vec[0:16], A[i + 0, k + 0:k + 1])"

    def differences(exo_text, exo2_text):
        def run(text):
            event = {"kind": "op", "name": "replace_all", "site": "sgemm_avx512.py:82"}
            return {
                "status": "completed",
                "events": [dict(event, outcome="ok", text=text)],
            }

        (row,) = differential.compare(run(exo_text), run(exo2_text))
        return "\n".join(row["differences"])

    listed = differences(before.format(exo_line), before.format(exo2_line))
    assert report.find_entry(entries, key, listed)["category"] == "documented"
    other_offset = exo2_line.replace("A[i + 0,", "A[i + 1,")
    assert not report.find_entry(
        entries, key, differences(before.format(exo_line), before.format(other_offset))
    )
    two_lines = before.format(exo_line).replace("fmadd", "fmsub")
    assert not report.find_entry(
        entries, key, differences(two_lines, before.format(exo2_line))
    )


def test_differential_reports_print_their_unlisted_disagreements(tmp_path, capsys):
    path = tmp_path / "differential.md"
    path.write_text(
        "## Disagreements\n\n"
        "### differential:p.py:p.py:3 (divide_loop): PROBLEM\n\n"
        "```text\nacceptance: Exo ok (ok), exo2 error (SchedulingError: no)\n```\n\n"
        "### differential:p.py:p.py:4 (simplify): listed (todo: why)\n\n"
        "```text\nprinted text differs:\n```\n"
    )
    report.print_problems(path)
    assert capsys.readouterr().out == (
        "  differential:p.py:p.py:3 (divide_loop): PROBLEM\n"
        "    acceptance: Exo ok (ok), exo2 error (SchedulingError: no)\n"
    )


def test_differential_random_writes_steps_that_run_as_the_generator_built_them():
    """Random steps written as source (differential_random.Writer) give the
    procedure the step itself gives, or the same refusal: cursors into
    statements, expressions, gaps and blocks, corpus procedures, and
    procedures a generator derives (replace, call_eqv)."""
    import random

    import differential_random as D
    from random_schedules.generators import GENERATORS, Sequence
    from random_schedules.navigation import View

    corpus = D.load_corpus()
    names = D.namespace(corpus)
    kinds, derived = set(), 0
    for kernel in corpus.KERNELS[:: len(corpus.KERNELS) // 8 or 1]:
        seq = Sequence(random.Random(f"writer:{kernel.proc.name()}"), tag="_w")
        p = kernel.proc
        for _ in range(25):
            name = seq.choice(sorted(GENERATORS))
            writer = D.Writer(p, corpus)
            step = D.generate_step(GENERATORS[name], View(p), seq, writer, GENERATORS)
            if step is None:
                continue
            lines = writer.step(step)
            derived += len(lines) > 1
            kinds.update(
                re.findall(r"\.(before|after|expand|rhs|idx|lhs)\(", lines[-1])
            )
            try:
                expected = step.apply(p)
            except Exception as e:  # noqa: BLE001
                with pytest.raises(type(e)):
                    D.apply_step(lines, p, names)
                continue
            after = D.apply_step(lines, p, names)
            assert str(after) == str(expected), lines
            p = after
    assert {"before", "after", "expand", "rhs"} <= kinds
    assert derived


def test_differential_random_compares_acceptance_text_and_results():
    import differential_random as D

    def step(outcome, text="t", error="SchedulingError: no"):
        side = {"outcome": outcome}
        side.update({"text": text} if outcome == "ok" else {"error": error})
        return {"primitive": "op", "source": ["p = op(p)"], "exo2": side}

    def exo(outcome, text="t", error="SchedulingError: no"):
        return (
            {"outcome": outcome, "text": text}
            if outcome == "ok"
            else {
                "outcome": outcome,
                "error": error,
            }
        )

    sequences = [
        {
            "kernel": "k",
            "steps": [step("ok"), step("refused"), step("refused"), step("ok")],
        }
    ]
    kernel, changed = [[[1.0, 2.0]]], [[[1.0, 3.0]]]
    replays = [
        {
            "outcomes": [exo("ok"), exo("refused"), exo("ok")],
            "results": {"-1": kernel, "0": kernel, "2": changed},
        }
    ]
    rows, kernel_rows = D.compare(sequences, replays, {0: {-1: kernel, 0: kernel}})
    assert [r["class"] for r in rows] == ["same", "both-refuse", "exo2-refuses"]
    assert rows[0]["results"] == "same" and not kernel_rows
    assert rows[2]["exo_sound"] == "CHANGES its kernel's results"
    # the kernels differ already: each side against its own kernel
    replays[0]["outcomes"] = [exo("ok")]
    replays[0]["results"] = {"-1": changed, "0": changed}
    rows, kernel_rows = D.compare(sequences, replays, {0: {-1: kernel, 0: kernel}})
    assert rows[0]["class"] == "same" and rows[0]["results"] == "same"
    assert kernel_rows[0]["class"] == "results-differ"
    # the step compiles on one side only
    replays[0]["results"] = {"-1": kernel, "0": "does not compile: TypeError: race"}
    rows, _ = D.compare(sequences, replays, {0: {-1: kernel, 0: kernel}})
    assert rows[0]["class"] == "codegen-differs"
    assert "race" in rows[0]["detail"]
    replays[0]["outcomes"] = [exo("ok", text="u")]
    rows, _ = D.compare(sequences, replays, {})
    assert rows[0]["class"] == "text-differs" and rows[0]["results"] == "not run"
    entries = {
        "differential:random:op:exo-refuses:*": {
            "category": "exo-conservative",
            "reason": "r",
            "match": "bad case",
        }
    }
    key = "differential:random:op:exo-refuses:k"
    assert D.find_entry(entries, key, "Exo: AssertionError: bad case")
    assert D.find_entry(entries, key, "Exo: SchedulingError: other") is None


# --------------------------------------------------------------------------- #
# The differential run of exo2's own tests (differential_tests.py)


def test_differential_tests_expand_parametrize_marks_like_pytest():
    import differential_tests_side as S

    @pytest.mark.parametrize("b", [pytest.param(3, id="three"), 4])
    @pytest.mark.parametrize(
        "a, name", [(1, "x"), pytest.param(2, "y", marks=pytest.mark.skip)]
    )
    def test_f(a, name, b):
        pass

    cases = S.expand("test_f", test_f)
    assert [c[0] for c in cases] == [
        "test_f[1-x-three]",
        "test_f[1-x-4]",
        "test_f[2-y-three]",
        "test_f[2-y-4]",
    ]
    assert cases[0][1] == {"a": 1, "name": "x", "b": 3}
    assert [c[2] is not None for c in cases] == [False, False, True, True]


def test_differential_tests_choose_sizes_that_satisfy_the_preconditions(tmp_path):
    """Sizes are chosen so that every precondition holds by exo2's own
    check; a precondition it cannot evaluate (a config field) means no run."""
    source = tmp_path / "kernels_for_sizes.py"
    source.write_text(
        textwrap.dedent(
            """
            from __future__ import annotations
            from exo2 import config, proc

            @config
            class Cfg:
                k: index

            @proc
            def tiles(n: size, m: size, x: f32[n, m]):
                assert n % 4 == 0
                assert n >= 12
                assert m == n + 1
                assert stride(x, 1) == 1
                for i in seq(0, n):
                    x[i, 0] = 1.0

            @proc
            def configured(n: size, x: f32[n]):
                assert Cfg.k == n
                for i in seq(0, n):
                    x[i] = 1.0
            """
        )
    )
    sys.path.insert(0, str(tmp_path))
    try:
        import differential_tests_side as S
        import kernels_for_sizes as K
    finally:
        sys.path.remove(str(tmp_path))
    sizes, why = S.choose_sizes(K.tiles)
    assert why is None and sizes["n"] % 4 == 0 and sizes["n"] >= 12
    assert sizes["m"] == sizes["n"] + 1
    assert not S.precondition_check(K.tiles)({"n": 8, "m": 9})
    assert S.choose_sizes(K.configured) == (
        None,
        "no candidate sizes satisfy its preconditions",
    )


def test_differential_tests_compare_events_up_to_the_first_disagreement():
    import differential_tests as D

    def event(outcome, text="def f():\n    pass", results=None, **more):
        e = {"kind": "op", "name": "op", "site": "t.py:3", "outcome": outcome}
        return dict(e, text=text, results=results, **more)

    same = event("ok", results=[[[1.0, 2.0]]])
    rows, disagreement = D.compare_events([same, same], [same, same])
    assert disagreement is None and [r["results"] for r in rows] == ["same"] * 2
    # Exo accepts, exo2 refuses: Exo's procedure against the one it was given
    exo = event("ok", results=[[[1.0, 3.0]], [[1.0, 2.0]]])
    exo2 = event("error", text="SchedulingError: no")
    rows, (cls, row) = D.compare_events([same, exo, same], [same, exo2, exo2])
    assert cls == "exo2-refuses" and len(rows) == 2
    assert "Exo's procedure CHANGES the results" in row["detail"]
    # the same text, results that differ or compile on one side only
    _, (cls, _) = D.compare_events([event("ok", results=[[[1.5]]])], [same])
    assert cls == "results-differ"
    failing = event("ok", results=["does not compile: C compiler: error"])
    _, (cls, _) = D.compare_events([failing], [same])
    assert cls == "codegen-differs"
    # both read memory they never wrote: nothing to compare
    garbage = event("ok", results=["reads memory it never wrote (or freed): ..."])
    rows, disagreement = D.compare_events([garbage], [garbage])
    assert disagreement is None and rows[0]["results"] == "not run"
    _, (cls, _) = D.compare_events([event("ok", text="x")], [same])
    assert cls == "text-differs"


def test_differential_tests_side_runs_a_test_module(tmp_path):
    """exo2's side of the run on a small test module: parametrized tests,
    fixtures, pytest.raises, assert_same_results and the results."""
    module = tmp_path / "test_tiny.py"
    module.write_text(
        textwrap.dedent(
            """
            from __future__ import annotations
            import pytest
            from exo2 import SchedulingError, proc
            from exo2.stdlib.scheduling import divide_loop
            from schedule_check import assert_same_results

            @proc
            def scale(n: size, x: f32[n]):
                assert n % 4 == 0
                for i in seq(0, n):
                    x[i] = 2.0 * x[i]

            @pytest.mark.parametrize("q", [2, 4])
            def test_divide(q, tmp_path):
                assert tmp_path.is_dir()
                p = divide_loop(scale, "i", q, ["io", "ii"], perfect=True)
                assert_same_results(scale, p, {"n": 8})

            def test_refused():
                with pytest.raises(SchedulingError, match="another message"):
                    divide_loop(scale, "i", 3, ["io", "ii"], perfect=True)

            def test_needs_an_unknown_fixture(request):
                pass
            """
        )
    )
    import differential_c

    subprocess.run(
        [sys.executable, str(HARNESS / "differential_tests_side.py")]
        + ["--side", "exo2", "--out", str(tmp_path), str(module)],
        check=True,
        env=differential_c.malloc_environment(__import__("os").environ),
    )
    trace = json.loads((tmp_path / "test_tiny.exo2.json").read_text())
    assert trace["import"]["status"] == "passed"
    (kernel,) = trace["import"]["events"]
    assert kernel["name"] == "scale" and kernel["sizes"] == {"n": 8}
    assert len(kernel["results"][0][0]) == 8
    tests = {t["id"]: t for t in trace["tests"]}
    assert list(tests) == [
        "test_divide[2]",
        "test_divide[4]",
        "test_refused",
        "test_needs_an_unknown_fixture",
    ]
    assert tests["test_needs_an_unknown_fixture"]["status"].startswith("not run")
    op, check = tests["test_divide[2]"]["events"]
    assert (op["name"], op["outcome"], op["results_of"]) == (
        "divide_loop",
        "ok",
        ["result", "given"],
    )
    assert op["results"][0] == op["results"][1] == kernel["results"][0]
    assert check["kind"] == "check" and check["sizes"] == {"n": 8}
    (refusal,) = tests["test_refused"]["events"]
    assert tests["test_refused"]["status"] == "passed"
    assert refusal["outcome"] == "error" and refusal["subject_sizes"] == {"n": 8}
