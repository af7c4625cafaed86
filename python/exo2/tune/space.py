"""Search spaces: the parameters of a schedule and the known constraints
between them.

A parameter has a finite list of values and knows three things about them:
how Optuna stores one (`distribution`, `to_optuna`, `from_optuna`), and
where it lies for the Bayesian model (`features`: a point of a Euclidean
space whose distances mean something for this kind of parameter):

- ordinal parameters (`Int`, `PowersOfTwo`, `Divisors`, `Ordinal`): the
  position in the ordered list, scaled to [0, 1] -- so 16 is as far from 32
  as 32 from 64 among powers of two; Optuna stores the position;
- `Categorical`: one-hot (every two choices equally far apart);
- `Permutation` (a loop order): one feature per pair of items, 1 when the
  first comes before the second, so that the squared distance of two
  orders is the number of pairs they order differently (Kendall's tau
  distance), scaled to [0, 1].

`Space(*parameters, constraints=[...])`: a constraint is a predicate of the
point (a dict by parameter name) that is True where the point is allowed;
points it refuses are never scheduled.
"""

from __future__ import annotations

import itertools
import math

import numpy as np


class Parameter:
    """One tunable value; see the module docstring."""

    kind = "parameter"

    def __init__(self, name, values):
        if not values:
            raise ValueError(f"parameter '{name}' has no values")
        self.name = name
        self.values = list(values)

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r}, {len(self.values)} values)"

    def index(self, value):
        try:
            return self.values.index(value)
        except ValueError:
            raise ValueError(
                f"parameter '{self.name}': {value!r} is not one of its values"
            ) from None

    # Optuna's view
    def distribution(self):
        import optuna

        return optuna.distributions.IntDistribution(0, len(self.values) - 1)

    def to_optuna(self, value):
        return self.index(value)

    def from_optuna(self, stored):
        return self.values[int(stored)]

    # the model's view
    def width(self):
        return 1

    def features(self, value):
        n = len(self.values)
        return [self.index(value) / (n - 1) if n > 1 else 0.0]


class Ordinal(Parameter):
    """One of ordered `values` (for instance tile sizes)."""

    kind = "ordinal"


class Int(Ordinal):
    """An integer in `range(low, high + 1, step)`."""

    def __init__(self, name, low, high, step=1):
        if high < low or step < 1:
            raise ValueError(f"parameter '{name}': empty range {low}..{high}")
        super().__init__(name, range(low, high + 1, step))


class PowersOfTwo(Ordinal):
    """A power of two from `low` to `high` (both powers of two)."""

    def __init__(self, name, low, high):
        if low < 1 or low & (low - 1) or high & (high - 1) or high < low:
            raise ValueError(
                f"parameter '{name}': {low} and {high} must be powers of two, low <= high"
            )
        super().__init__(
            name, [2**k for k in range(low.bit_length() - 1, high.bit_length())]
        )


class Divisors(Ordinal):
    """A divisor of `n`, between `low` and `high`."""

    def __init__(self, name, n, low=1, high=None):
        high = n if high is None else high
        super().__init__(name, [d for d in range(low, high + 1) if n % d == 0])


class Categorical(Parameter):
    """One of unordered `choices` (booleans, names of variants...)."""

    kind = "categorical"

    def distribution(self):
        import optuna

        return optuna.distributions.CategoricalDistribution(
            list(range(len(self.values)))
        )

    def width(self):
        return len(self.values)

    def features(self, value):
        one_hot = [0.0] * len(self.values)
        one_hot[self.index(value)] = math.sqrt(0.5)  # distance 1 between choices
        return one_hot


class Permutation(Parameter):
    """An order of `items` (for instance loop names); a value is a tuple."""

    kind = "permutation"

    def __init__(self, name, items):
        self.items = tuple(items)
        if len(set(self.items)) != len(self.items):
            raise ValueError(f"parameter '{name}': items must be distinct")
        super().__init__(name, list(itertools.permutations(self.items)))
        self._pairs = list(itertools.combinations(range(len(self.items)), 2))

    def index(self, value):
        return super().index(tuple(value))

    def distribution(self):
        import optuna

        return optuna.distributions.CategoricalDistribution(
            list(range(len(self.values)))
        )

    def width(self):
        return max(len(self._pairs), 1)

    def features(self, value):
        if not self._pairs:
            return [0.0]
        position = {item: i for i, item in enumerate(value)}
        scale = 1 / math.sqrt(len(self._pairs))
        return [
            scale * (position[self.items[a]] < position[self.items[b]])
            for a, b in self._pairs
        ]


class Space:
    """Parameters and known constraints; see the module docstring."""

    def __init__(self, *parameters, constraints=()):
        names = [p.name for p in parameters]
        if len(set(names)) != len(names):
            raise ValueError("parameter names must be distinct")
        self.parameters = list(parameters)
        self.constraints = list(constraints)

    def __iter__(self):
        return iter(self.parameters)

    def names(self):
        return [p.name for p in self.parameters]

    def size(self):
        """The number of points, constraints not applied."""
        return math.prod(len(p.values) for p in self.parameters)

    def allows(self, point):
        """Whether every known constraint holds at `point`."""
        return all(c(point) for c in self.constraints)

    def points(self):
        """Every point the constraints allow, in order."""
        for values in itertools.product(*(p.values for p in self.parameters)):
            point = dict(zip(self.names(), values, strict=True))
            if self.allows(point):
                yield point

    def random_point(self, rng, tries=10000):
        """A random allowed point (uniform over the parameters, rejection
        of what the constraints refuse)."""
        for _ in range(tries):
            point = {
                p.name: p.values[rng.integers(len(p.values))] for p in self.parameters
            }
            if self.allows(point):
                return point
        raise ValueError("the constraints refused every one of 10000 random points")

    def key(self, point):
        """A hashable identity of `point`."""
        return tuple(p.index(point[p.name]) for p in self.parameters)

    def distributions(self):
        return {p.name: p.distribution() for p in self.parameters}

    def to_optuna(self, point):
        return {p.name: p.to_optuna(point[p.name]) for p in self.parameters}

    def from_optuna(self, params):
        """The point of Optuna's stored `params`, or None if they are not of
        this space (a trial of an older space)."""
        try:
            return {p.name: p.from_optuna(params[p.name]) for p in self.parameters}
        except (KeyError, IndexError, TypeError, ValueError):
            return None

    def features(self, points):
        """The model's coordinates of `points` (an array, one row each)
        and the parameter each column belongs to."""
        rows = [
            [f for p in self.parameters for f in p.features(point[p.name])]
            for point in points
        ]
        groups = [i for i, p in enumerate(self.parameters) for _ in range(p.width())]
        return np.array(rows, dtype=float).reshape(len(rows), len(groups)), groups
