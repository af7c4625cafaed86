"""exo2.tune: search spaces, the Bayesian sampler, and the search loop --
infeasible points learned and not fatal, wrong schedules reported as
errors, studies resumed and shared by worker processes, results read back
with `best`. Budgets are tiny: most tests use a Python objective; the
kernel tests schedule a small matrix product."""

from __future__ import annotations

import itertools
import os

import numpy as np
import pytest

optuna = pytest.importorskip("optuna")

from exo2 import proc, tune  # noqa: E402
from exo2.API_scheduling import divide_loop, reorder_loops, simplify  # noqa: E402
from exo2.tune.sampler import BayesianSampler  # noqa: E402
from kernels.tune_synthetic import SYNTHETIC, slow_synthetic  # noqa: E402
from kernels.tune_synthetic import synthetic as _synthetic  # noqa: E402


@proc
def matmul(M: size, N: size, K: size, A: f32[M, K], B: f32[K, N], C: f32[M, N]):
    assert M % 4 == 0
    for i in seq(0, M):
        for j in seq(0, N):
            for k in seq(0, K):
                C[i, j] += A[i, k] * B[k, j]


@proc
def matmul_short(M: size, N: size, K: size, A: f32[M, K], B: f32[K, N], C: f32[M, N]):
    assert M % 4 == 0
    for i in seq(0, M):
        for j in seq(0, N):
            for k in seq(0, K - 1):  # the bug: misses the last k
                C[i, j] += A[i, k] * B[k, j]


def matmul_args(rng):
    M, N, K = 8, 10, 6
    return (
        M,
        N,
        K,
        rng.uniform(-1, 1, (M, K)).astype(np.float32),
        rng.uniform(-1, 1, (K, N)).astype(np.float32),
        rng.uniform(-1, 1, (M, N)).astype(np.float32),
    )


def schedule_matmul(point):
    """`ti` must divide M = 8 (perfect division): 3, 5, 6 and 7 are
    infeasible and raise SchedulingError."""
    p = divide_loop(matmul, "i", point["ti"], ["io", "ii"], perfect=True)
    if point["swap"]:
        p = reorder_loops(p, "ii j")
    return simplify(p)


@pytest.fixture
def storage(tmp_path, monkeypatch):
    monkeypatch.setenv("EXO2_CACHE_DIR", str(tmp_path / "cache"))
    return f"sqlite:///{tmp_path / 'studies.db'}"


# ---- spaces ---------------------------------------------------------------------


def test_ordinal_parameters_list_their_values_in_order():
    assert tune.PowersOfTwo("t", 4, 64).values == [4, 8, 16, 32, 64]
    assert tune.Divisors("t", 12).values == [1, 2, 3, 4, 6, 12]
    assert tune.Divisors("t", 12, low=2, high=6).values == [2, 3, 4, 6]
    assert tune.Int("t", 2, 10, step=4).values == [2, 6, 10]
    with pytest.raises(ValueError, match="powers of two"):
        tune.PowersOfTwo("t", 3, 16)
    with pytest.raises(ValueError, match="has no values"):
        tune.Ordinal("t", [])


def test_permutation_features_measure_kendall_distance():
    order = tune.Permutation("order", "abcd")
    space = tune.Space(order)
    for a, b in itertools.combinations(order.values, 2):
        x, _ = space.features([{"order": a}, {"order": b}])
        discordant = sum(
            (a.index(p) < a.index(q)) != (b.index(p) < b.index(q))
            for p, q in itertools.combinations("abcd", 2)
        )
        assert np.sum((x[0] - x[1]) ** 2) == pytest.approx(discordant / 6)


def test_space_enumerates_only_what_the_constraints_allow():
    space = tune.Space(
        tune.Int("a", 1, 4),
        tune.Categorical("b", [False, True]),
        constraints=[lambda p: p["a"] * (2 if p["b"] else 1) <= 4],
    )
    points = list(space.points())
    assert len(points) == 4 + 2 and space.size() == 8
    assert all(space.allows(p) for p in points)
    assert space.from_optuna(space.to_optuna(points[-1])) == points[-1]


# ---- the sampler on a known objective ---------------------------------------------


def test_bayesian_search_finds_the_optimum_and_learns_the_infeasible_region(storage):
    result = tune.search(
        SYNTHETIC,
        objective=_synthetic,
        budget=24,
        study="synthetic",
        storage=storage,
        seed=3,
        progress=False,
    )
    assert result.best_point == {"tile": 16, "order": ("c", "a", "b"), "unroll": True}
    points = [p for p, _ in result.history]
    assert len(points) == 24
    assert len({SYNTHETIC.key(p) for p in points}) == 24  # never the same point twice
    assert all(p["tile"] != 2 for p in points)  # the known constraint
    # the infeasible corner is tried at most once or twice once it is known
    assert sum(1 for p in points if p["tile"] == 64 and p["unroll"]) <= 2
    assert 0 <= result.infeasible <= 2


def test_samplers_without_the_constraints_are_refused_without_evaluation(storage):
    calls = []

    def objective(point):
        calls.append(point)
        return _synthetic(point)

    result = tune.search(
        SYNTHETIC,
        objective=objective,
        budget=10,
        strategy="random",
        study="random",
        storage=storage,
        seed=0,
        progress=False,
    )
    assert result.evaluations == 10 and len(calls) == 10
    assert all(p["tile"] != 2 for p in calls)
    assert len({SYNTHETIC.key(p) for p in calls}) == 10


def test_warm_start_points_are_evaluated_first(storage):
    start = [{"tile": 8, "order": ("a", "b", "c"), "unroll": False}]
    sampler = BayesianSampler(SYNTHETIC, warm_start=start, seed=0)
    study = optuna.create_study(sampler=sampler)
    trial = study.ask(SYNTHETIC.distributions())
    assert SYNTHETIC.from_optuna(trial.params) == start[0]


# ---- the search loop on kernels -----------------------------------------------------


def test_search_over_infeasible_schedules_does_not_crash(storage):
    space = tune.Space(tune.Int("ti", 1, 8), tune.Categorical("swap", [False, True]))
    result = tune.search(
        space,
        schedule_matmul,
        matmul,
        matmul_args,
        budget=7,
        storage=storage,
        seed=5,
        warm_start=[{"ti": 3, "swap": False}],  # infeasible: 3 does not divide 8
        progress=False,
    )
    assert result.evaluations == 7
    assert result.infeasible >= 1
    assert result.history[0] == ({"ti": 3, "swap": False}, None)
    assert 8 % result.best_point["ti"] == 0
    trials = result.study.get_trials()
    assert any(
        "cannot perfectly divide" in t.user_attrs.get("error", "") for t in trials
    )
    # the study is keyed by kernel, sizes and machine
    assert result.study.study_name.startswith("matmul|K=6,M=8,N=10|")
    assert (
        tune.best(matmul, {"M": 8, "N": 10, "K": 6}, storage=storage)
        == result.best_point
    )
    assert tune.best(matmul, {"M": 16, "N": 10, "K": 6}, storage=storage) is None
    # confirming the fastest few: timed again together, fastest first
    top = result.top(2)
    assert top[0] == result.best_point and len(top) == 2
    objective = tune.KernelObjective(schedule_matmul, matmul, matmul_args)
    compared = objective.compare(top, repeat=3)
    assert sorted(p["ti"] for p, _ in compared) == sorted(p["ti"] for p in top)
    assert compared[0][1].median <= compared[1][1].median


def test_a_wrong_schedule_is_an_error_not_a_result(storage):
    space = tune.Space(tune.Int("ti", 1, 2))
    with pytest.raises(tune.WrongResult, match="computes a wrong 'C'"):
        tune.search(
            space,
            lambda point: matmul_short,  # not derived from matmul: a bug
            matmul,
            matmul_args,
            budget=2,
            storage=storage,
            progress=False,
        )
    study = optuna.load_study(
        study_name=tune.study_name("matmul", {"M": 8, "N": 10, "K": 6}), storage=storage
    )
    assert [t.user_attrs["exo2_status"] for t in study.get_trials()] == ["wrong"]
    assert tune.best(matmul, {"M": 8, "N": 10, "K": 6}, storage=storage) is None


def test_resuming_a_study_reuses_its_points(storage):
    calls = []

    def objective(point):
        calls.append(point)
        return _synthetic(point)

    first = tune.search(
        SYNTHETIC, objective=objective, budget=5, study="resume", storage=storage,
        seed=1, progress=False,
    )  # fmt: skip
    assert len(calls) == 5
    second = tune.search(
        SYNTHETIC, objective=objective, budget=8, study="resume", storage=storage,
        seed=1, progress=False,
    )  # fmt: skip
    assert len(calls) == 8  # 3 new evaluations only
    assert second.history[:5] == first.history
    assert len({SYNTHETIC.key(p) for p, _ in second.history}) == 8
    again = tune.search(
        SYNTHETIC, objective=objective, budget=8, study="resume", storage=storage,
        progress=False,
    )  # fmt: skip
    assert len(calls) == 8 and again.best_point == second.best_point


def test_two_worker_processes_share_one_study(storage):
    result = tune.search(
        SYNTHETIC,
        objective=slow_synthetic,
        budget=10,
        study="shared",
        storage=storage,
        jobs=2,
        seed=2,
        progress=False,
    )
    assert 10 <= result.evaluations <= 11  # a worker may start as the other ends
    assert len({SYNTHETIC.key(p) for p, _ in result.history}) == result.evaluations
    assert (
        len({t.user_attrs.get("worker") for t in result.study.get_trials()} - {None})
        == 2
    )


def test_progress_bar_and_convergence_plot(storage, tmp_path, capsys):
    pytest.importorskip("tqdm")
    pytest.importorskip("matplotlib")
    result = tune.search(
        SYNTHETIC, objective=_synthetic, budget=4, study="bar", storage=storage, seed=0
    )
    assert "best" in capsys.readouterr().err
    curve = result.best_so_far()
    assert len(curve) == 4 and all(
        a >= b for a, b in zip(curve[1:], curve[2:], strict=False) if a and b
    )
    path = tune.plot_convergence({"bayes": [curve, curve]}, tmp_path / "c.png")
    assert os.path.getsize(path) > 1000


def test_a_trial_left_running_by_a_dead_worker_frees_its_point(storage, monkeypatch):
    import exo2.tune.sampler as sampler_module

    point = {"tile": 8, "order": ("b", "a", "c"), "unroll": True}
    study = optuna.create_study(study_name="stale", storage=storage)
    study.enqueue_trial(SYNTHETIC.to_optuna(point))
    trial = study.ask(SYNTHETIC.distributions())  # never told: its worker died
    assert SYNTHETIC.from_optuna(trial.params) == point
    monkeypatch.setattr(sampler_module, "STALE_SECONDS", 0)
    result = tune.search(
        SYNTHETIC,
        objective=_synthetic,
        budget=2,
        study="stale",
        storage=storage,
        warm_start=[point],
        progress=False,
    )
    assert result.history[0][0] == point
