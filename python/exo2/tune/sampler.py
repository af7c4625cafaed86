"""`BayesianSampler`: an Optuna sampler with the ideas of BaCO (Bayesian
compiler optimisation) that Optuna's own samplers lack.

- Parameters keep their structure (`exo2.tune.space`): ordinal positions,
  one-hot categories, and loop orders compared by Kendall distance.
- Known constraints: only points they allow are proposed.
- Unknown constraints: points that failed to schedule or compile are
  learned by a feasibility model, and the acquisition is expected
  improvement times the probability of feasibility (`exo2.tune.model`).
- Warm start: given points (the best of an earlier study, an expert's
  choice) are evaluated first, before the initial design.
- A space-filling initial design: each of the first few points is the one
  farthest, in the model's features, from every point evaluated or under
  way, so a handful of points spans the space (the ends of the ordinal
  ranges, different categories and loop orders) instead of clustering as
  random points do.
- A point already evaluated, or being evaluated by another worker, is
  never proposed again; in a finite space (up to 50,000 points) the
  acquisition is maximised over every remaining point.

It reads the whole study at each proposal, so any number of workers (and
machines) sharing the study's storage cooperate without talking to each
other.
"""

from __future__ import annotations

import datetime

import numpy as np
import optuna
from optuna.samplers import BaseSampler
from optuna.trial import TrialState

from .model import GaussianProcess, feasibility, log_expected_improvement

ENUMERATE_LIMIT = 50_000
STATUS = "exo2_status"  # user attribute: ok, infeasible, constraint, repeat, wrong


# A trial under way for longer than this is taken for one whose worker died
# (killed, or its machine lost): its point is free again.
STALE_SECONDS = 1800


def under_way(trial):
    """Whether `trial` is being evaluated now (not stale)."""
    if trial.state != TrialState.RUNNING or trial.datetime_start is None:
        return False
    age = (datetime.datetime.now() - trial.datetime_start).total_seconds()
    return age < STALE_SECONDS


def observations(study, space):
    """`(done, failed, pending)`: {key: (point, seconds)} of the feasible
    evaluated points, {key: point} of the infeasible ones and of the
    points being evaluated now, read from the study."""
    done, failed, pending = {}, {}, {}
    for trial in study.get_trials(deepcopy=False):
        point = space.from_optuna(trial.params)
        if point is None:
            continue
        key = space.key(point)
        status = trial.user_attrs.get(STATUS)
        if trial.state == TrialState.COMPLETE and trial.value is not None:
            previous = done.get(key)
            if previous is None or trial.value < previous[1]:
                done[key] = (point, trial.value)
        elif trial.state == TrialState.FAIL and status == "infeasible":
            failed[key] = point
        elif under_way(trial) and trial.params:
            pending[key] = point
    return done, failed, pending


def initial_design_size(space):
    """Half the parameters that can vary, plus one: the tuner's budgets are
    tens of evaluations, every point of the initial design is one the model
    does not choose, and with the length-scale prior (`exo2.tune.model`)
    the model ranks sensibly from a few spread points. (On the recorded
    GEMM table of `benchmarks/tuning`, 3 to 6 initial points reach 95% of
    the best in 8 to 10 evaluations, the classic D + 1 = 7 in 11; on the
    convolution's, 2 to 5 points all take 3: benchmarks/README.md.)"""
    varying = sum(len(p.values) > 1 for p in space.parameters)
    return varying // 2 + 1


class BayesianSampler(BaseSampler):
    """See the module docstring. `n_initial` space-filling points (default:
    `initial_design_size`) come after the `warm_start` points; `seed` makes
    the proposals reproducible."""

    def __init__(
        self, space, n_initial=None, warm_start=(), seed=None, candidates=3000
    ):
        self.space = space
        self.n_initial = n_initial or initial_design_size(space)
        self.warm_start = list(warm_start)
        self.seed = seed
        self.n_candidates = candidates
        self._all = None  # the enumerated allowed points of a finite space
        self._fallback = optuna.samplers.RandomSampler(seed=seed)

    # ---- Optuna's interface ------------------------------------------------
    def infer_relative_search_space(self, study, trial):
        return self.space.distributions()

    def sample_relative(self, study, trial, search_space):
        if not search_space:
            return {}
        rng = np.random.default_rng(
            None if self.seed is None else [self.seed, trial.number]
        )
        point = self.propose(study, rng)
        return self.space.to_optuna(point)

    def sample_independent(self, study, trial, param_name, param_distribution):
        return self._fallback.sample_independent(
            study, trial, param_name, param_distribution
        )

    # ---- the proposal --------------------------------------------------------
    def _enumerated(self):
        if self._all is None:
            if self.space.size() <= ENUMERATE_LIMIT:
                points = list(self.space.points())
                self._all = (points, self.space.features(points)[0])
            else:
                self._all = False
        return self._all

    def _spread_point(self, rng, seen, taken):
        """A point of the initial design: of the allowed points not `seen`
        (all of them in a finite space, else 500 random ones), the one
        farthest from the points `taken` (evaluated or under way); ties and
        the first point are drawn at random."""
        enumerated = self._enumerated()
        if enumerated:
            points, features = enumerated
            keep = [i for i, p in enumerate(points) if self.space.key(p) not in seen]
            pool, x = [points[i] for i in keep], features[keep]
        else:
            pool = [self.space.random_point(rng) for _ in range(500)]
            pool = [p for p in pool if self.space.key(p) not in seen]
            x = self.space.features(pool)[0]
        if not pool:
            return self.space.random_point(rng)
        order = rng.permutation(len(pool))
        if not taken:
            return pool[order[0]]
        nearest = np.full(len(pool), np.inf)
        for row in self.space.features(taken)[0]:
            nearest = np.minimum(nearest, ((x - row) ** 2).sum(1))
        return pool[order[int(np.argmax(nearest[order]))]]

    def _candidates(self, rng, seen, best_points):
        enumerated = self._enumerated()
        if enumerated:
            points, features = enumerated
            keep = [i for i, p in enumerate(points) if self.space.key(p) not in seen]
            return [points[i] for i in keep], features[keep]
        points, keys = [], set(seen)

        def add(point):
            key = self.space.key(point)
            if key not in keys and self.space.allows(point):
                keys.add(key)
                points.append(point)

        for point in best_points:  # neighbours: one parameter changed
            for p in self.space.parameters:
                for value in p.values:
                    add({**point, p.name: value})
        for _ in range(self.n_candidates):
            add(self.space.random_point(rng))
        return points, self.space.features(points)[0] if points else None

    def propose(self, study, rng):
        """The next point to evaluate."""
        done, failed, pending = observations(study, self.space)
        seen = set(done) | set(failed) | set(pending)
        for point in self.warm_start:
            if self.space.key(point) not in seen and self.space.allows(point):
                return point
        evaluated = len(done) + len(failed)
        if evaluated < self.n_initial or not done:
            taken = [p for p, _ in done.values()]
            taken += list(failed.values()) + list(pending.values())
            return self._spread_point(rng, seen, taken)
        best = sorted(done.values(), key=lambda pv: pv[1])[:5]
        candidates, features = self._candidates(rng, seen, [p for p, _ in best])
        if not candidates:  # everything was evaluated
            return best[0][0]
        # The GP sees the infeasible points too, as slow as the slowest
        # feasible one: expected improvement then fades around them.
        outcomes = [p for p, _ in done.values()] + list(failed.values())
        x, groups = self.space.features(outcomes)
        y = np.log([t for _, t in done.values()])
        y_all = np.concatenate([y, np.full(len(failed), y.max())])
        gp = GaussianProcess(x, y_all, groups)
        mu, sigma = gp.predict(features)
        incumbent = float(gp.predict(x[: len(done)])[0].min())
        score = log_expected_improvement(mu, sigma, incumbent)
        if failed:
            labels = np.array([1.0] * len(done) + [0.0] * len(failed))
            score = score + np.log(feasibility(features, x, labels, groups, gp.scales))
        return candidates[int(np.argmax(score))]
