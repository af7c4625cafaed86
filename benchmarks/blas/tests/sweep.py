"""What the correctness sweep shares: profiles, data tiers, and checking
one call (outputs against the oracle, every arena intact).

Profiles (`--blas-profile`, or $EXO2BLAS_PROFILE):
- `smoke` (CI): the exact tier at small sizes, every variant, the host ISA;
- `quick`: every tier, more sizes;
- `full`: every tier and size of docs/blas-library.md, run once per ISA
  by `python -m exo2blas.run` (EXO2BLAS_ISA).

Tiers:
- `exact`: small integers (|v| <= 4; alpha, beta in {-2, 1, 3} and 0 for
  the quick returns): every product and partial sum is an exact integer,
  so results must match the oracle bit for bit whatever the summation
  order (solvers and nrm2 excepted, checked against their bounds);
- `rounding`: uniform in [-1, 1]; alpha in {0, 1, -2.5}, beta in
  {0, 1, 0.5}; results within the oracle's bounds;
- `special`: NaN and Inf where beta = 0 or alpha = 0 must hide them, and
  where they must propagate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TIERS = ("exact", "rounding")
DTYPES = {"s": np.dtype(np.float32), "d": np.dtype(np.float64)}


@dataclass(frozen=True)
class Profile:
    name: str
    tiers: tuple
    level1_sizes: tuple
    level2_sizes: tuple
    level2_pairs: int  # random (m, n) pairs besides the equal ones
    level3_dims: tuple
    level3_triples: int
    band_widths: tuple


PROFILES = {
    "smoke": Profile(
        "smoke", ("exact",), (*range(0, 34), 63, 64, 65, 100, 257, 4099), (0, 1, 2, 3, 7, 8, 9, 17),
        4, (0, 1, 2, 5, 8, 17), 4, (0, 1, 2, 5),
    ),
    "quick": Profile(
        "quick", ("exact", "rounding", "special"), (*range(0, 130), 257, 1000, 4099, 65537),
        (0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 65), 12, (0, 1, 2, 3, 5, 7, 8, 9, 17, 33),
        20, (0, 1, 2, 5, 9),
    ),
    "full": Profile(
        "full", ("exact", "rounding", "special"), (*range(0, 258), 1000, 4099, 65537, 2**20 + 3),
        (0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 100, 257), 40,
        (0, 1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 257), 100,
        (0, 1, 2, 5, 17),
    ),
}  # fmt: skip


def scalars(tier, kind):
    """alpha or beta values of a tier."""
    if tier == "exact":
        return (0.0, -2.0, 1.0, 3.0)
    return (0.0, 1.0, -2.5) if kind == "alpha" else (0.0, 1.0, 0.5)


def values(rng, tier, shape, dtype):
    if tier == "exact":
        return rng.integers(-4, 5, size=shape).astype(dtype)
    return rng.uniform(-1, 1, size=shape).astype(dtype)


class Case:
    """One call: its description (for failure messages), the arenas of its
    inputs and outputs, and the expectations to check."""

    def __init__(self, what, seed):
        self.what, self.seed = what, seed
        self.inputs, self.outputs, self.problems = [], [], []

    def input(self, pair):
        self.inputs.append(pair[0])
        return pair[1]

    def output(self, pair):
        self.outputs.append(pair[0])
        return pair[1]

    def expect(self, name, expected, result):
        message = expected.failures(result)
        if message:
            self.problems.append(f"{name}: {message}")

    def check(self):
        for arena in self.inputs:
            message = arena.intact(output=False)
            if message:
                self.problems.append(f"an input changed: {message}")
        for arena in self.outputs:
            message = arena.intact(output=True)
            if message:
                self.problems.append(f"an output's poisoned cell changed: {message}")
        if self.problems:
            return f"{self.what} (seed {self.seed}): " + "; ".join(self.problems)
        return None


class Failures:
    """Collects the failures of a sweep; `assert_none` reports the first
    ones and the count."""

    def __init__(self):
        self.messages, self.cases = [], 0

    def add(self, case):
        self.cases += 1
        message = case.check()
        if message:
            self.messages.append(message)

    def assert_none(self, minimum_cases=1):
        assert self.cases >= minimum_cases, f"only {self.cases} cases ran"
        if self.messages:
            shown = "\n".join(self.messages[:10])
            raise AssertionError(
                f"{len(self.messages)} of {self.cases} cases failed:\n{shown}"
            )
