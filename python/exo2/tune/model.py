"""The Bayesian model of the tuner: a Gaussian process over a search
space's features, a feasibility estimate, and expected improvement.

- The GP models log(time) of the evaluated points (an infeasible one
  counted as slow as the slowest feasible one, so that the search moves
  away from it): Matérn 5/2 kernel with
  one length scale per parameter (a parameter's features share it), a
  constant mean and a noise term; the length scales and the noise are
  chosen by maximising the marginal likelihood over a grid, coordinate by
  coordinate. Any stationary kernel of the features is a valid kernel,
  which is what makes the permutation features (Kendall distance) usable.
- Feasibility: every evaluated point is feasible (1) or not (0); the
  probability at a new point is their kernel-weighted average under a
  Beta(1, 1) prior, with the GP's length scales, so a point near failures
  is unlikely to work and a point far from everything is even odds. This
  learns the unknown constraints (schedules that raise SchedulingError, C
  that does not compile) as BaCO does with its feasibility classifier.
- Acquisition: expected improvement over the best time, times the
  probability of feasibility (added as logarithms). Timings on a shared
  machine are noisy, so the noise term may be large, and the best time
  improved on is the GP's mean at the best evaluated point rather than the
  luckiest measurement (the "plug-in" incumbent).
"""

from __future__ import annotations

import math

import numpy as np

_SCALES = (0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.4)
_NOISES = (1e-4, 1e-3, 1e-2, 0.05, 0.2, 0.5, 1.0)


def _matern52(distance):
    r = math.sqrt(5) * distance
    return (1 + r + r * r / 3) * np.exp(-r)


def _scaled_distance(a, b, groups, scales):
    """Euclidean distance with column j divided by scales[groups[j]]."""
    inv = 1 / np.asarray(scales)[groups]
    a, b = a * inv, b * inv
    sq = (a * a).sum(1)[:, None] + (b * b).sum(1)[None, :] - 2 * a @ b.T
    return np.sqrt(np.maximum(sq, 0))


def _erf(x):
    # Abramowitz and Stegun 7.1.26: |error| < 1.5e-7
    sign = np.sign(x)
    x = np.abs(x)
    t = 1 / (1 + 0.3275911 * x)
    poly = t * (
        0.254829592
        + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    return sign * (1 - poly * np.exp(-x * x))


class GaussianProcess:
    """A GP fitted to `(x, y)` (see the module docstring)."""

    def __init__(self, x, y, groups):
        self.x = x
        self.groups = groups
        self.mean = float(np.mean(y))
        self.std = float(np.std(y)) or 1.0
        self.y = (y - self.mean) / self.std
        n_groups = max(groups) + 1 if groups else 1
        scales = [0.4] * n_groups
        noise = 1e-2
        best = self._likelihood(scales, noise)
        for _ in range(2):  # coordinate sweeps
            for g in range(n_groups):
                for s in _SCALES:
                    trial = scales[:g] + [s] + scales[g + 1 :]
                    value = self._likelihood(trial, noise)
                    if value > best:
                        best, scales = value, trial
            for v in _NOISES:
                value = self._likelihood(scales, v)
                if value > best:
                    best, noise = value, v
        self.scales, self.noise = scales, noise
        k = _matern52(_scaled_distance(x, x, groups, scales)) + noise * np.eye(len(x))
        self._chol = np.linalg.cholesky(k)
        self._alpha = np.linalg.solve(self._chol.T, np.linalg.solve(self._chol, self.y))

    def _likelihood(self, scales, noise):
        k = _matern52(_scaled_distance(self.x, self.x, self.groups, scales))
        k += noise * np.eye(len(self.x))
        try:
            chol = np.linalg.cholesky(k)
        except np.linalg.LinAlgError:
            return -np.inf
        alpha = np.linalg.solve(chol.T, np.linalg.solve(chol, self.y))
        return float(-0.5 * self.y @ alpha - np.log(np.diag(chol)).sum())

    def predict(self, x):
        """Mean and standard deviation of log(time) at the rows of `x`."""
        ks = _matern52(_scaled_distance(x, self.x, self.groups, self.scales))
        mu = ks @ self._alpha
        v = np.linalg.solve(self._chol, ks.T)
        var = np.maximum(1 - (v * v).sum(0), 1e-12)
        return mu * self.std + self.mean, np.sqrt(var) * self.std


def feasibility(x, evaluated, feasible, groups, scales):
    """Probability that each row of `x` is feasible, from the evaluated
    points' outcomes (see the module docstring)."""
    if len(evaluated) == 0:
        return np.full(len(x), 0.5)
    w = _matern52(_scaled_distance(x, evaluated, groups, scales))
    return (1 + w @ feasible) / (2 + w.sum(1))


def log_expected_improvement(mu, sigma, best):
    """log of the expected improvement below `best` (minimisation), exact
    where it is large and by its asymptotic form where it underflows, so
    that far-from-best candidates are still ranked (and the feasibility
    factor still counts) instead of all being 0."""
    z = (best - mu) / sigma
    log_pdf = -0.5 * z * z - 0.5 * math.log(2 * math.pi)
    with np.errstate(divide="ignore", invalid="ignore"):
        cdf = 0.5 * (1 + _erf(z / math.sqrt(2)))
        exact = np.log(np.maximum(z * cdf + np.exp(log_pdf), 1e-300))
        # z Phi(z) + phi(z) ~ phi(z) / z^2 for z -> -inf
        tail = log_pdf - 2 * np.log(np.abs(z))
    return np.log(sigma) + np.where(z > -5, exact, tail)
