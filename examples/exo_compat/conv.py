"""A 3 x 3 convolution over 16 output channels vectorized with AVX2,
written against Exo's API only (it runs on Exo with `exo` in the imports;
the differential run compares both compilers step by step).

The 16 channels of an output pixel are staged in two AVX2 registers
(`out_reg`) for the whole reduction over `ky`, `kx` and `ic`; each step of
the reduction loads 16 weights, broadcasts one input element and issues two
fused multiply-adds, as the inner kernel of Exo's x86 conv app does.

The input element is first staged in a one-element buffer `in_s` and
broadcast from there: Exo's `replace` solves a window whose index sums two
loop variables (`inp[y + ky, x + kx, ic:ic + 1]`) in an order, and even over
a dimension, that depends on where its symbols lie in memory (they hash by
address), so its printed result changes from run to run.
"""

from __future__ import annotations

from exo2 import proc
from exo2.libs.memories import AVX2
from exo2.platforms.x86 import (
    mm256_broadcast_ss,
    mm256_fmadd_ps,
    mm256_loadu_ps,
    mm256_storeu_ps,
)
from exo2.stdlib.scheduling import (
    autofission,
    bind_expr,
    divide_dim,
    divide_loop,
    expand_dim,
    lift_alloc,
    rename,
    reorder_loops,
    replace_all,
    set_memory,
    simplify,
    stage_mem,
    unroll_loop,
)


@proc
def conv3x3(
    H: size,
    W: size,
    IC: size,
    inp: f32[H + 2, W + 2, IC],
    w: f32[3, 3, IC, 16],
    out: f32[H, W, 16],
):
    for y in seq(0, H):
        for x in seq(0, W):
            for oc in seq(0, 16):
                for ky in seq(0, 3):
                    for kx in seq(0, 3):
                        for ic in seq(0, IC):
                            out[y, x, oc] += inp[y + ky, x + kx, ic] * w[ky, kx, ic, oc]


def stage_in_register(p, name):
    """The bound value `name` as an 8-lane AVX2 register over `oci`."""
    p = expand_dim(p, f"{name} : _", 8, "oci")
    p = lift_alloc(p, f"{name} : _")
    p = autofission(p, p.find(f"{name}[_] = _").after())
    return set_memory(p, name, AVX2)


def schedule_conv(p=conv3x3):
    p = rename(p, "conv3x3_avx2")
    # the output channels innermost, staged in registers for the whole
    # reduction over ky, kx and ic
    for outer in ["ky", "kx", "ic"]:
        p = reorder_loops(p, f"oc {outer}")
    p = stage_mem(p, p.find_loop("ky"), "out[y, x, 0:16]", "out_reg")
    p = divide_dim(p, "out_reg", 0, 8)
    p = set_memory(p, "out_reg", AVX2)
    for loop in ["i0", "oc", "i0"]:  # the load, the reduction, the store
        p = divide_loop(p, loop, 8, [f"{loop}o", f"{loop}i"], perfect=True)
    p = simplify(p)
    # 8 weights and the broadcast input element of a step in registers
    p = stage_in_register(bind_expr(p, p.find("w[_]"), "w_vec"), "w_vec")
    # the input element of a step in a one-element buffer, broadcast from there
    p = stage_mem(p, p.find_loop("oco"), "inp[y + ky, x + kx, ic:ic + 1]", "in_s")
    p = stage_in_register(bind_expr(p, p.find("in_s[_]"), "in_vec"), "in_vec")
    p = replace_all(
        p, [mm256_loadu_ps, mm256_storeu_ps, mm256_fmadd_ps, mm256_broadcast_ss]
    )
    p = unroll_loop(p, "oco")
    return simplify(p)
