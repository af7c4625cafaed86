"""A shared scheduling library for BLAS kernels, in the shape of the
libraries people write over Exo (ExoBLAS and the like): one module that
imports every platform, describes each target machine by its vector width,
memory and instructions, and offers a few kernel-level scheduling
operations built on the standard library (`vectorize`, `interleave_loop`,
`divide_loop`, `replace_all`, ...). Kernels (blas_kernels.py) only call
these operations with a machine.

Written against Exo's API only: with `exo` in place of `exo2` in the imports
it runs on Exo 1.0 unchanged (the differential run checks that both
compilers print the same procedures and compute the same results).
"""

# The star imports are the point: such libraries pull in every platform
# and the scheduling operations as a whole.
# ruff: noqa: F403, F405

from __future__ import annotations

from dataclasses import dataclass

from exo2 import *
from exo2.API_cursors import ReduceCursor
from exo2.libs.memories import AVX2
from exo2.platforms.neon import *
from exo2.platforms.rvv import *
from exo2.platforms.x86 import *
from exo2.stdlib.inspection import expr_to_string, get_symbols
from exo2.stdlib.scheduling import *
from exo2.stdlib.stdlib import (
    fma_rule,
    interleave_loop,
    interleave_outer_loop_with_inner_loop,
    vectorize,
)

# --------------------------------------------------------------------------- #
# Instructions the platforms lack


# `vectorize` with `fma_rule` stages `y + a * x` into `dst = a + b * c` (the
# addend need not be the destination); x86's `mm256_fmadd_ps` only
# accumulates into its destination.
@instr("{dst_data} = _mm256_fmadd_ps({b_data}, {c_data}, {a_data});")
def avx2_fmadd3_ps(
    dst: [f32][8] @ AVX2, a: [f32][8] @ AVX2, b: [f32][8] @ AVX2, c: [f32][8] @ AVX2
):
    assert stride(dst, 0) == 1
    assert stride(a, 0) == 1
    assert stride(b, 0) == 1
    assert stride(c, 0) == 1
    for i in seq(0, 8):
        dst[i] = a[i] + b[i] * c[i]


@instr("{dst_data} = _mm256_fmadd_pd({b_data}, {c_data}, {a_data});")
def avx2_fmadd3_pd(
    dst: [f64][4] @ AVX2, a: [f64][4] @ AVX2, b: [f64][4] @ AVX2, c: [f64][4] @ AVX2
):
    assert stride(dst, 0) == 1
    assert stride(a, 0) == 1
    assert stride(b, 0) == 1
    assert stride(c, 0) == 1
    for i in seq(0, 4):
        dst[i] = a[i] + b[i] * c[i]


# --------------------------------------------------------------------------- #
# Machines


@dataclass
class Machine:
    """What the library needs to know of a vector ISA, per precision: the
    lanes of a register, the memory of registers and the instructions that
    `vectorize` may select from (loads, stores, arithmetic, broadcasts of a
    scalar, a zeroing and a horizontal sum for reductions)."""

    name: str
    mem_type: type
    lanes: dict
    instructions: dict

    def vec_width(self, precision):
        return self.lanes[precision]

    def instrs(self, precision):
        # a fresh list each time: stdlib operations may extend what they get
        return list(self.instructions[precision])


avx2 = Machine(
    "avx2",
    AVX2,
    {"f32": 8, "f64": 4},
    {
        "f32": [
            mm256_loadu_ps,
            mm256_storeu_ps,
            mm256_fmadd_ps,
            avx2_fmadd3_ps,
            mm256_mul_ps,
            mm256_add_ps,
            mm256_broadcast_ss_scalar,
            mm256_setzero_ps,
            avx2_assoc_reduce_add_ps,
        ],
        "f64": [
            mm256_loadu_pd,
            mm256_storeu_pd,
            mm256_fmadd_pd,
            avx2_fmadd3_pd,
            mm256_mul_pd,
            mm256_add_pd,
            mm256_broadcast_sd_scalar,
            mm256_setzero_pd,
            avx2_assoc_reduce_add_pd,
        ],
    },
)

neon = Machine(
    "neon",
    Neon,
    {"f32": 4, "f64": 2},
    {
        "f32": [
            neon_vld_4xf32,
            neon_vst_4xf32,
            neon_vfmadd_4xf32_4xf32,
            neon_vmul_4xf32,
            neon_vadd_4xf32,
            neon_broadcast_4xf32_scalar,
            neon_zero_4xf32,
            neon_assoc_reduce_add_instr_4xf32,
        ],
        "f64": [
            neon_vld_2xf64,
            neon_vst_2xf64,
            neon_vfmadd_2xf64_2xf64,
            neon_vmul_2xf64,
            neon_vadd_2xf64,
            neon_broadcast_2xf64_scalar,
            neon_zero_2xf64,
            neon_assoc_reduce_add_instr_2xf64,
        ],
    },
)

rvv = Machine(
    "rvv",
    RVV,
    {"f32": 4},
    {
        "f32": [
            rvv_vld_4xf32,
            rvv_vst_4xf32,
            rvv_vfmacc_4xf32_4xf32,
            rvv_broadcast_4xf32_scalar,
            rvv_broadcast_4xf32_0,
        ],
    },
)

MACHINES = {m.name: m for m in (avx2, neon, rvv)}


# --------------------------------------------------------------------------- #
# Operations


def loop_of(p, loop):
    """`loop` as a cursor of `p`: a name, or a cursor of an earlier proc."""
    if isinstance(loop, str):
        return p.find_loop(loop)
    return p.forward(loop)


def vectorize_level_1(p, loop, precision, machine):
    """`vectorize` for `machine`, the remainder left as a scalar loop; the
    new vector loop."""
    return vectorize(
        p,
        loop_of(p, loop),
        machine.vec_width(precision),
        precision,
        machine.mem_type,
        machine.instrs(precision),
        [fma_rule],
        tail="cut",
        rc=True,
    )


def optimize_level_1(p, loop, precision, machine, interleave_factor=1):
    """Vectorizes a level-1 loop for `machine` (its remainder left scalar)
    and interleaves `interleave_factor` vector iterations."""
    p, (vloop,) = vectorize_level_1(p, loop, precision, machine)
    if interleave_factor > 1:
        p = interleave_loop(p, vloop, interleave_factor)
    return simplify(p)


def stage_row_sums(p, loop):
    """Each element that a statement of `loop` reduces into at an index
    independent of the loop gets a scalar accumulator around the loop
    (`stage_mem`), so that the horizontal sum of a vectorized reduction has
    a scalar destination."""
    loop = loop_of(p, loop)
    reduces = [s for s in loop.body() if isinstance(s, ReduceCursor)]
    for k, stmt in enumerate(reduces):
        stmt = p.forward(stmt)
        if loop.name() in get_symbols(p, stmt.idx()):
            continue
        window = stmt.name() + expr_to_string(stmt.idx())
        p = stage_mem(p, p.forward(loop), window, f"{stmt.name()}_{k}", accum=True)
    return p


def optimize_level_2_rows(p, row_loop, precision, machine, rows):
    """A row-major level-2 nest (`for i: for j: y[i] += A[i, j] * x[j]`):
    interleaves `rows` rows inside each column step, gives each of those
    rows a scalar accumulator, then vectorizes the columns of the block of
    rows (a vector of partial sums per row) and of the remaining rows."""
    row_loop = loop_of(p, row_loop)
    col_loop = row_loop.body()[0]
    p = interleave_outer_loop_with_inner_loop(p, row_loop, col_loop, rows)
    block = p.forward(row_loop).body()[0]
    tail = p.forward(row_loop).next().body()[0]
    for loop in (block, tail):
        p = stage_row_sums(p, loop)
        p, _ = vectorize_level_1(p, loop, precision, machine)
    return simplify(p)


def stage_in_register(p, expr, name, lane_loop, precision, machine):
    """Binds `expr` (inside the lane loop `lane_loop` of `machine`'s vector
    width) to a register `name` of `machine` holding all lanes, computed by
    a loop of its own before the loop's other statements."""
    p = bind_expr(p, expr, name)
    p = expand_dim(p, f"{name} : _", machine.vec_width(precision), lane_loop)
    p = lift_alloc(p, f"{name} : _")
    p = autofission(p, p.find(f"{name}[_] = _").after())
    return set_memory(p, name, machine.mem_type)


def vectorize_map_by_primitives(p, loop, precision, machine):
    """The same as `vectorize` on an element-wise loop `x[i] = a * x[i]`
    (`a` a scalar), spelled with primitives: the product, the vector of `x`
    and the broadcast `a` in registers, then `replace_all` picks the
    machine's instructions. The remainder is left as a scalar loop."""
    loop = loop_of(p, loop)
    i = loop.name()
    p = divide_loop(
        p, loop, machine.vec_width(precision), [f"{i}o", f"{i}i"], tail="cut"
    )
    stmt = p.forward(loop).body()[0].body()[0]
    x = stmt.name()
    p = stage_in_register(p, stmt.rhs(), f"{x}_prod", f"{i}i", precision, machine)
    product = p.find(f"{x}_prod[_] = _").rhs()
    p = stage_in_register(p, product.rhs(), f"{x}_vec", f"{i}i", precision, machine)
    product = p.find(f"{x}_prod[_] = _").rhs()
    scalar = product.lhs().name()
    p = stage_in_register(
        p, product.lhs(), f"{scalar}_vec", f"{i}i", precision, machine
    )
    p = replace_all(p, machine.instrs(precision))
    return simplify(p)
