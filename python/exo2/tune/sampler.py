"""`BayesianSampler`: an Optuna sampler with the ideas of BaCO (Bayesian
compiler optimisation) that Optuna's own samplers lack.

- Parameters keep their structure (`exo2.tune.space`): ordinal positions,
  one-hot categories, and loop orders compared by Kendall distance.
- Known constraints: only points they allow are proposed.
- Unknown constraints: points that failed to schedule or compile are
  learned by a feasibility model, and the acquisition is expected
  improvement times the probability of feasibility (`exo2.tune.model`).
- Warm start: given points (the best of an earlier study, an expert's
  choice) are evaluated first, before the random initial design.
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


class BayesianSampler(BaseSampler):
    """See the module docstring. `n_initial` random points (default: one
    more than the parameters, at most 8) come after the `warm_start`
    points; `seed` makes the proposals reproducible."""

    def __init__(
        self, space, n_initial=None, warm_start=(), seed=None, candidates=3000
    ):
        self.space = space
        self.n_initial = n_initial or min(len(space.parameters) + 1, 8)
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
            for _ in range(1000):
                point = self.space.random_point(rng)
                if self.space.key(point) not in seen:
                    return point
            return point
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
