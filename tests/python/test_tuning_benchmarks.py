"""benchmarks/tuning/search_efficiency.py replays a recorded table: run on
a small made-up table of the convolution space, it reports every strategy
and writes its JSON, Markdown and chart."""

import json
import pathlib
import sys

import pytest

pytest.importorskip("optuna")
ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks" / "tuning"))

import search_efficiency  # noqa: E402
import spaces  # noqa: E402


def test_search_efficiency_replays_a_table(tmp_path):
    problem = spaces.conv_problem()
    points = []
    for point in problem.space.points():
        infeasible = point["unroll"] and point["order"][-1] == "c"
        seconds = 1e-3 * (1 + abs(point["kt"] - 6) + 2 * abs(point["xv"] - 2))
        points.append({"point": point, "seconds": None if infeasible else seconds})
    table = tmp_path / "conv_table.json"
    table.write_text(
        json.dumps(
            {
                "problem": "conv",
                "sizes": problem.sizes,
                "machine": {"model": "made up"},
                "points": points,
            },
            default=list,
        )
    )
    search_efficiency.main([str(table), "--seeds", "2", "--budget", "12"])
    out = json.loads((tmp_path / "conv_table.efficiency.json").read_text())
    assert set(out["strategies"]) == {"bayes", "tpe", "random"}
    assert out["points"] == len(points)
    for strategy in out["strategies"].values():
        assert len(strategy["evaluations_to_target"]) == 2
    assert (tmp_path / "conv_table.efficiency.md").exists()
