"""rotm: the modified rotation (x, y) <- H (x, y), H given by `param`
(`[flag, h11, h21, h12, h22]`, as in the BLAS): flag -1 uses all four
entries, 0 has a unit diagonal, 1 has h12 = 1 and h21 = -1, and -2 is the
identity, a quick return of the C layer (no proc)."""

from __future__ import annotations

from exo2 import proc

from ...sched import streamed
from ...variants import Choice, kernel


@proc
def rotm(n: size, flag: index, x: [R][n], y: [R][n], param: R[5]):
    for i in seq(0, n):
        w: R
        z: R
        w = x[i]
        z = y[i]
        if flag == -1:
            x[i] = w * param[1] + z * param[3]
            y[i] = w * param[2] + z * param[4]
        elif flag == 0:
            x[i] = w + z * param[3]
            y[i] = w * param[2] + z
        elif flag == 1:
            x[i] = w * param[1] + z
            y[i] = -w + z * param[4]


KERNEL = kernel(
    rotm,
    axes=[Choice("flag", {"m1": -1, "0": 0, "1": 1, "m2": -2}, skip=("m2",))],
    schedule=streamed(),
)
