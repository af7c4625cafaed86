"""A made-up objective over a small space for the tests of exo2.tune (the
search logic without kernels): best at tile 16, order (c, a, b), unroll on;
tile 64 with unroll is infeasible; tile 2 is refused by a constraint."""

import time

import numpy as np
from exo2 import tune

SYNTHETIC = tune.Space(
    tune.PowersOfTwo("tile", 1, 64),
    tune.Permutation("order", "abc"),
    tune.Categorical("unroll", [False, True]),
    constraints=[lambda p: p["tile"] != 2],
)


def synthetic(point):
    """Seconds of a made-up kernel: best at tile 16, order (c, a, b),
    unroll on; tile 64 with unroll cannot be built."""
    if point["tile"] == 64 and point["unroll"]:
        raise tune.Infeasible("too many registers")
    order_penalty = {("c", "a", "b"): 0.0, ("a", "c", "b"): 0.3}.get(
        point["order"], 0.8
    )
    return (
        1e-3
        * (1 + abs(np.log2(point["tile"]) - 4) ** 2 + order_penalty)
        * (0.8 if point["unroll"] else 1.0)
    )


def slow_synthetic(point):
    """`synthetic`, taking 50 ms as a real evaluation takes seconds."""
    time.sleep(0.05)
    return synthetic(point)
