"""benchmarks/compiler/exo_compat_benchmark.py (exo2 against Exo 1.0 on
examples/exo_compat) in its quick mode on one program, so that it keeps
running; skipped where Exo's environment (made by scripts/exo_env.sh,
which the test command runs) is absent."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "compiler" / "exo_compat_benchmark.py"
# where scripts/exo_env.sh makes it
EXO_PYTHON = (
    Path(
        os.environ.get("EXO2_CONFORMANCE_CACHE")
        or Path.home() / ".cache" / "exo2-conformance"
    )
    / f"venv-exo-{os.environ.get('EXO_VERSION', '1.0.0')}"
    / "bin"
    / "python"
)


def _exo_importable():
    if not EXO_PYTHON.exists():
        return False
    check = subprocess.run(
        [str(EXO_PYTHON), "-c", "import exo, numpy"], capture_output=True
    )
    return check.returncode == 0


@pytest.mark.skipif(
    not _exo_importable(),
    reason=f"no Exo environment at {EXO_PYTHON} (scripts/exo_env.sh makes it)",
)
def test_quick_benchmark_of_one_program_times_both_compilers(tmp_path):
    out = tmp_path / "bench.json"
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--programs", "unsharp"]
        + ["--exo-python", str(EXO_PYTHON), "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    assert "| unsharp |" in result.stdout
    record = json.loads(out.read_text())["records"][0]
    assert record["program"] == "unsharp"
    for side in ("exo", "exo2"):
        assert record[side]["schedule_cold_s"] > 0
        assert len(record[side]["schedule_warm_s"]) == 1
    kernel = record["kernel"]
    assert isinstance(kernel, dict), kernel
    assert kernel["outputs_agree"], kernel
    assert kernel["exo_s"] > 0 and kernel["exo2_s"] > 0
