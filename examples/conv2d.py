"""A 3 x 3 convolution (`out[k, y, x] += w[k, c, r, s] * inp[c, y + r, x + s]`,
channels first, no padding) scheduled for AVX2 with a register tile whose
shape is a parameter -- the kernel `examples/tune_conv.py` tunes.

`schedule_conv(p, tile)` with a `ConvTile`:

1. `k` (output channels) is divided by `kt` and `x` by `xv` vectors of 8
   (tails cut: the last channels and columns stay scalar loops);
2. the tile loops move inside the reduction loops `c > r > s` (whose order
   is `tile.order`), so a `kt x 8 xv` block of `out` is an accumulator for
   the whole reduction;
3. that block is staged into `kt x xv` AVX2 registers, the `xv` input
   vectors of a step are loaded once for the `kt` channels, and each
   channel does `acc += inp_vec * broadcast(w)`; the tile loops are
   unrolled, and with `unroll` the innermost reduction loop too (which
   fails, `SchedulingError`, when that loop is `c`: its bound is not a
   constant -- an infeasible region for the tuner to learn).
"""

from __future__ import annotations

from dataclasses import dataclass

from exo2 import proc
from exo2.API_cursors import loop_pattern
from exo2.API_scheduling import (
    commute_expr,
    divide_dim,
    divide_loop,
    fission,
    reorder_loops,
    set_memory,
    simplify,
    stage_mem,
    unroll_loop,
)
from exo2.platforms import x86
from exo2.stdlib.scheduling import replace_all

VW = 8  # f32 lanes of an AVX2 vector


@proc
def conv2d(
    C: size,
    K: size,
    H: size,
    W: size,
    inp: f32[C, H + 2, W + 2],
    w: f32[K, C, 3, 3],
    out: f32[K, H, W],
):
    for k in seq(0, K):
        for y in seq(0, H):
            for x in seq(0, W):
                for c in seq(0, C):
                    for r in seq(0, 3):
                        for s in seq(0, 3):
                            out[k, y, x] += w[k, c, r, s] * inp[c, y + r, x + s]


@dataclass(frozen=True)
class ConvTile:
    """`kt` output channels x `xv` vectors of 8 columns; `order` of the
    reduction loops, outermost first; `unroll`: unroll the innermost."""

    kt: int = 4
    xv: int = 2
    order: tuple = ("c", "r", "s")
    unroll: bool = False


def _loop(p, name):
    return p.find(loop_pattern(name))


def _move_in(p, name, past):
    """Moves loop `name` inside each loop of `past`, in turn."""
    for _ in past:
        p = reorder_loops(p, _loop(p, name))
    return p


def schedule_conv(p, tile=None):
    """The scheduled convolution; see the module docstring."""
    t = tile or ConvTile()
    width = VW * t.xv
    p = divide_loop(p, "x", width, ["xo", "xi"], tail="cut")
    p = fission(p, _loop(p, "xo").after())  # the last columns: their own y loop
    p = divide_loop(p, "k", t.kt, ["ko", "ki"], tail="cut")
    p = fission(p, _loop(p, "y").after())  # ... and their own ki loop
    # ko > ki > y > xo > xi > c > r > s  ->  ko > y > xo > c > r > s > ki > xi
    p = _move_in(p, "ki", ["y", "xo"])
    p = _move_in(p, "xi", ["c", "r", "s"])
    p = _move_in(p, "ki", ["c", "r", "s"])
    # the reduction loops in `t.order`
    current = ["c", "r", "s"]
    target = list(t.order)
    while current != target:
        d = next(
            d
            for d in range(2)
            if target.index(current[d]) > target.index(current[d + 1])
        )
        p = reorder_loops(p, _loop(p, current[d]))
        current[d], current[d + 1] = current[d + 1], current[d]
    outer, inner = _loop(p, target[0]), _loop(p, target[2])
    p = divide_loop(p, _loop(p, "xi"), VW, ["xt", "xv"], perfect=True)
    # the kt x xv accumulator tile across the whole reduction
    window = f"out[{t.kt}*ko:{t.kt}*ko+{t.kt}, y, {width}*xo:{width}*xo+{width}]"
    p = stage_mem(p, outer, window, "acc")
    p = divide_dim(p, p.find("acc : _"), 1, VW)
    for _ in range(2):  # the load and the store loops of the tile
        p = divide_loop(p, _loop(p, "i1"), VW, ["i1o", "i1i"], perfect=True)
    p = set_memory(p, p.find("acc : _"), x86.AVX2)
    # the input vectors of a reduction step, loaded once for the channels
    ki = p.forward(inner).body()[0]
    window = f"inp[c, y + r, {width}*xo + s:{width}*xo + s + {width}]"
    p = stage_mem(p, ki, window, "vec")
    p = divide_dim(p, p.find("vec : _"), 0, VW)
    p = divide_loop(p, p.find("vec[_] = _").parent(), VW, ["i0o", "i0i"], perfect=True)
    p = set_memory(p, p.find("vec : _"), x86.AVX2)
    p = commute_expr(p, [p.find("acc[_] += _").rhs()])
    p = simplify(p)
    p = replace_all(
        p, [x86.mm256_loadu_ps, x86.mm256_storeu_ps, x86.mm256_fmadd_ps_broadcast]
    )
    for name in ["xt", "ki", "i0o", "i1o", "i1o", "i0", "i0"]:
        p = unroll_loop(p, _loop(p, name))
    if t.unroll:
        p = unroll_loop(p, p.forward(inner))
    return simplify(p)
