"""The Sm80 (A100 class) instructions: `cp.async`, `ldmatrix` and
`mma.sync` with their fragment memories (docs/cuda.md, "From a naive GEMM to TMA and wgmma").

Each instruction's body is its sequential meaning; its `unit` says which
threads execute it (one thread for `cp.async`, a warp for `ldmatrix` and
`mma.sync`), its `timeline` how: `cp.async` copies complete asynchronously,
in commit groups (`Arrive(cp_async) >> g[i]`, `Await(g[i], ...)`).

Fragments are per-warp tiles held in registers in the PTX layout of
`mma.sync.m16n8k16`: `SM80_MMA_A` (16 x 16 bf16, 4 registers per thread),
`SM80_MMA_B` (8 x 16 bf16 — B given n-major, k contiguous — 2 registers),
`SM80_MMA_D` (16 x 8 f32, 4 registers). A fragment buffer's last two
dimensions are one tile; leading dimensions index tiles
(`acc: f32[4, 8, 16, 8] @ SM80_MMA_D`). Only instructions touch them.
"""

# ruff: noqa: F821  (kernel bodies use the object language's names)
from __future__ import annotations

from ...API import instr
from .memories import CUDA_GMEM, CUDA_SMEM, CudaMemory
from .units import cuda_thread, cuda_warp


class _Fragment(CudaMemory):
    """Registers of a warp in an mma.sync fragment layout."""

    _role = "fragment"
    _tile = (16, 16)
    _regs = 4
    _ctype = "uint32_t"

    @classmethod
    def backend_properties(cls):
        return {
            "cuda": "fragment",
            "frag_rows": cls._tile[0],
            "frag_cols": cls._tile[1],
            "frag_regs": cls._regs,
            "frag_ctype": cls._ctype,
            "unit_threads": 32,
            "unit_align": 32,
        }


class SM80_MMA_A(_Fragment):
    """The A operand of mma.sync.m16n8k16: a 16 x 16 bf16 tile."""

    _tile, _regs, _ctype = (16, 16), 4, "uint32_t"


class SM80_MMA_B(_Fragment):
    """The B operand of mma.sync.m16n8k16, n-major: an 8 x 16 bf16 tile."""

    _tile, _regs, _ctype = (8, 16), 2, "uint32_t"


class SM80_MMA_D(_Fragment):
    """The accumulator of mma.sync.m16n8k16: a 16 x 8 f32 tile."""

    _tile, _regs, _ctype = (16, 8), 4, "float"


def _shared(pointer):
    return f"(uint32_t)__cvta_generic_to_shared({pointer})"


def _cp_async_16(args):
    return (
        'asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: '
        f'"r"({_shared(args["dst"])}), "l"({args["src"]}) : "memory");'
    )


@instr(
    "",
    unit=cuda_thread,
    timeline="cp_async",
    codegen=_cp_async_16,
    trailing_barrier=(),
)
def sm80_cp_async_bf16x8(dst: [bf16][8] @ CUDA_SMEM, src: [bf16][8] @ CUDA_GMEM):
    assert stride(dst, 0) == 1
    assert stride(src, 0) == 1
    for i in seq(0, 8):
        dst[i] = src[i]


def _ldmatrix(count, row_of_lane, col_of_lane):
    """`ldmatrix.x<count>`: lane l gives the address of row `row_of_lane`,
    column `col_of_lane` of the tile."""
    regs = ", ".join(f"%{i}" for i in range(count))

    def generate(args):
        dst, src = args["dst"], args["src"]
        row_stride = args["src_strides"][0]
        outs = ", ".join(f'"=r"(({dst})[{i}])' for i in range(count))
        return (
            "{\n"
            "  const unsigned exo2_lane = threadIdx.x % 32;\n"
            f"  const uint32_t exo2_row = {_shared(f'{src} + ({row_of_lane}) * ({row_stride}) + ({col_of_lane})')};\n"
            f'  asm volatile("ldmatrix.sync.aligned.m8n8.x{count}.shared.b16 '
            f'{{{regs}}}, [%{count}];" : {outs} : "r"(exo2_row));\n'
            "}"
        )

    return generate


@instr(
    "",
    unit=cuda_warp,
    codegen=_ldmatrix(4, "exo2_lane % 16", "exo2_lane / 16 * 8"),
)
def sm80_ldmatrix_a_bf16(
    dst: [bf16][16, 16] @ SM80_MMA_A, src: [bf16][16, 16] @ CUDA_SMEM
):
    assert stride(src, 1) == 1
    for i in seq(0, 16):
        for k in seq(0, 16):
            dst[i, k] = src[i, k]


@instr(
    "",
    unit=cuda_warp,
    codegen=_ldmatrix(2, "exo2_lane % 8", "exo2_lane / 8 % 2 * 8"),
)
def sm80_ldmatrix_b_bf16(
    dst: [bf16][8, 16] @ SM80_MMA_B, src: [bf16][8, 16] @ CUDA_SMEM
):
    assert stride(src, 1) == 1
    for j in seq(0, 8):
        for k in seq(0, 16):
            dst[j, k] = src[j, k]


def _mma(args):
    d, a, b = args["d"], args["a"], args["b"]
    outs = ", ".join(f'"+f"(({d})[{i}])' for i in range(4))
    ins = ", ".join(
        [f'"r"(({a})[{i}])' for i in range(4)] + [f'"r"(({b})[{i}])' for i in range(2)]
    )
    return (
        'asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 '
        '{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};" : '
        f"{outs} : {ins});"
    )


@instr("", unit=cuda_warp, numerics="reassociates", codegen=_mma)
def sm80_mma_bf16(
    d: [f32][16, 8] @ SM80_MMA_D,
    a: [bf16][16, 16] @ SM80_MMA_A,
    b: [bf16][8, 16] @ SM80_MMA_B,
):
    for i in seq(0, 16):
        for j in seq(0, 8):
            for k in seq(0, 16):
                d[i, j] += a[i, k] * b[j, k]


def _zero(args):
    d = args["d"]
    return " ".join(f"({d})[{i}] = 0.0f;" for i in range(4))


@instr("", unit=cuda_warp, codegen=_zero)
def sm80_frag_zero_f32(d: [f32][16, 8] @ SM80_MMA_D):
    for i in seq(0, 16):
        for j in seq(0, 8):
            d[i, j] = 0.0


def _store(args):
    dst, src = args["dst"], args["src"]
    row_stride = args["dst_strides"][0]
    lines = [
        "{",
        "  const unsigned exo2_lane = threadIdx.x % 32;",
        f"  float* exo2_d = {dst} + (exo2_lane / 4) * ({row_stride}) + exo2_lane % 4 * 2;",
        f"  exo2_d[0] = ({src})[0];",
        f"  exo2_d[1] = ({src})[1];",
        f"  exo2_d[8 * ({row_stride})] = ({src})[2];",
        f"  exo2_d[8 * ({row_stride}) + 1] = ({src})[3];",
        "}",
    ]
    return "\n".join(lines)


@instr("", unit=cuda_warp, codegen=_store)
def sm80_frag_store_f32(dst: [f32][16, 8] @ CUDA_GMEM, src: [f32][16, 8] @ SM80_MMA_D):
    assert stride(dst, 1) == 1
    for i in seq(0, 16):
        for j in seq(0, 8):
            dst[i, j] = src[i, j]
