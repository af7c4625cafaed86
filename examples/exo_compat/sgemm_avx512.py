"""An AVX-512 SGEMM micro-kernel scheduled the way Exo's x86 SGEMM app does
it, written against Exo's API only (it runs on Exo with `exo` in the
imports; the differential run compares both compilers).

The 6 x 64 block of C is staged in registers (`C_reg`), `k` is moved
outermost, and `autofission` splits each `k` iteration into loads of
`C_reg`, the multiply-adds and the stores. That split is valid here because
each reload reads back the value the previous iteration stored unchanged;
exo2 does not prove that yet (it refuses the split; see
tests/conformance/expected_differences.toml), Exo accepts it without
checking (it accepts it too when the store changes the value, which breaks
the kernel).
"""

from __future__ import annotations

from exo2 import proc
from exo2.libs.memories import AVX512
from exo2.platforms.x86 import (
    mm512_fmadd_ps,
    mm512_loadu_ps,
    mm512_set1_ps,
    mm512_storeu_ps,
)
from exo2.stdlib.scheduling import (
    autofission,
    autolift_alloc,
    bind_expr,
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
def sgemm_6x64(K: size, C: f32[6, 64], A: f32[6, K], B: f32[K, 64]):
    for i in seq(0, 6):
        for j in seq(0, 64):
            for k in seq(0, K):
                C[i, j] += A[i, k] * B[k, j]


def fission_after(p, pattern, n_lifts):
    for c in p.find(pattern, many=True):
        p = autofission(p, p.forward(c).after(), n_lifts=n_lifts)
    return p


def schedule_sgemm(p=sgemm_6x64):
    p = rename(p, "sgemm_6x64_avx512")
    p = stage_mem(p, p.find("C[_] += _"), "C[i, j]", "C_reg")
    p = divide_loop(p, "j", 16, ["jo", "ji"], perfect=True)
    p = reorder_loops(p, "ji k")
    p = reorder_loops(p, "jo k")
    p = reorder_loops(p, "i k")
    p = autolift_alloc(p, p.find("C_reg : _"), n_lifts=3, keep_dims=True)
    p = set_memory(p, "C_reg", AVX512)
    # the loads, the multiply-adds and the stores of C_reg, each in its nest
    p = fission_after(p, "C_reg = _", 3)
    p = fission_after(p, "C_reg[_] += _", 3)
    p = autolift_alloc(p, p.find("C_reg : _"), n_lifts=1)
    p = autofission(p, p.find_loop("i").after(), n_lifts=1)
    p = autofission(p, p.find_loop("i #1").after(), n_lifts=1)
    # the B row and the broadcast A element of a k step in registers
    p = bind_expr(p, p.find("B[_]"), "b_vec")
    p = expand_dim(p, "b_vec : _", 16, "ji")
    p = lift_alloc(p, "b_vec : _")
    p = autofission(p, p.find("b_vec[_] = _").after())
    p = set_memory(p, "b_vec", AVX512)
    p = bind_expr(p, p.find("A[_]"), "a_vec")
    p = expand_dim(p, "a_vec : _", 16, "ji")
    p = lift_alloc(p, "a_vec : _")
    p = autofission(p, p.find("a_vec[_] = _").after())
    p = set_memory(p, "a_vec", AVX512)
    p = replace_all(p, [mm512_loadu_ps, mm512_storeu_ps, mm512_fmadd_ps, mm512_set1_ps])
    p = unroll_loop(p, "jo")
    return simplify(p)
