"""The Sm90a (H100 class) instructions: TMA loads with tensor maps and
`wgmma` (docs/cuda.md, "Sm90a: TMA and wgmma").

- `CudaTensorMap(swizzle, box)` is the memory of a special window in host
  code (`A_tm = A[0:M, 0:K] @ CudaTensorMap(swizzle=128, box=(64, 64))`):
  the host encodes a TMA tensor map for it before the launch. Kernels pass
  it only to TMA instructions.
- `tma_load_*` copies a box of a tensor-mapped global tensor into swizzled
  shared memory, asynchronously; the copy itself signals its trailing
  barrier (`tma(...) >> full[k]`), an mbarrier.
- `wgmma_ss_*` multiplies two tiles of swizzled shared memory into an
  accumulator held by a warpgroup (`CUDA_WGMMA_ACCUM`), asynchronously:
  `Fence(cuda_in_order, wgmma_operands)` before it, `Arrive(wgmma) >> g[k]`
  commits it, `Await(g[k], cuda_in_order)` waits for it.
"""

# ruff: noqa: F821  (kernel bodies use the object language's names)
from __future__ import annotations

from ...API import instr
from .memories import CUDA_GMEM, CUDA_SMEM_SWIZZLED, CudaMemory
from .units import cuda_warp, cuda_warpgroup


class CudaTensorMap(CudaMemory):
    """The memory of a special window encoded as a TMA tensor map:
    `CudaTensorMap(swizzle=128, box=(rows, cols))`."""

    _role = "tensor_map"
    _params = {"swizzle": 0, "box": ()}
    _variants = {}

    @classmethod
    def _variant(cls, swizzle, box):
        box = tuple(box)
        if swizzle not in (0, 32, 64, 128):
            raise ValueError(
                f"CudaTensorMap: swizzle must be 0, 32, 64 or 128, got {swizzle!r}"
            )
        if not 1 <= len(box) <= 5 or not all(
            isinstance(b, int) and 1 <= b <= 256 for b in box
        ):
            raise ValueError(
                f"CudaTensorMap: box must be 1 to 5 extents in [1, 256], got {box!r}"
            )
        key = (swizzle, box)
        found = CudaTensorMap._variants.get(key)
        if found is None:
            found = type(
                "CudaTensorMap",
                (CudaTensorMap,),
                {"_params": {"swizzle": swizzle, "box": box}, "_variants": {}},
            )
            CudaTensorMap._variants[key] = found
        return found

    @classmethod
    def name(cls):
        p = cls._params
        return f"CudaTensorMap(swizzle={p['swizzle']}, box={p['box']})"

    @classmethod
    def backend_properties(cls):
        return {
            "cuda": "tensor_map",
            "swizzle": cls._params["swizzle"],
            "box": list(cls._params["box"]),
        }


class CUDA_WGMMA_ACCUM(CudaMemory):
    """A wgmma accumulator: a [64, N] f32 tile held by a warpgroup, N / 2
    registers per thread (thread t holds rows 16 (t / 32) + (t % 32) / 4
    and 8 more, and per 8-column chunk the columns 2 (t % 4) and + 1)."""

    _role = "fragment"

    @classmethod
    def backend_properties(cls):
        return {
            "cuda": "fragment",
            "frag_regs": 0,  # one register per element and thread
            "frag_ctype": "float",
            "unit_threads": 128,
            "unit_align": 128,
        }


def _smem(pointer):
    return f"(uint32_t)__cvta_generic_to_shared({pointer})"


def _tma_load(rows, cols):
    """A 2-D TMA load of a (rows, cols) box; the elected lane of the warp
    expects the bytes on the trailing mbarrier and issues the copy."""
    nbytes = rows * cols * 2

    def generate(args):
        return "\n".join(
            [
                "if (threadIdx.x % 32 == 0) {",
                f"  const uint32_t exo2_bar = {args['barrier']};",
                '  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"'
                f' :: "r"(exo2_bar), "r"({nbytes}) : "memory");',
                '  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile'
                '.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"'
                f' :: "r"({_smem(args["dst"])}), "l"({args["src_map"]}),'
                f' "r"((int)({args["c"]})), "r"((int)({args["r"]})), "r"(exo2_bar)'
                ' : "memory");',
                "}",
            ]
        )

    return generate


def _tma_body_doc(rows, cols):
    return f"copies A[r:r+{rows}, c:c+{cols}] (zeros outside A)"


@instr(
    "",
    unit=cuda_warp,
    timeline="tma_load",
    access={"dst": ["async_proxy"], "src": ["tensor_map", "oob"]},
    trailing_barrier=("CUDA_MBARRIER",),
    trailing_barrier_required=True,
    codegen=_tma_load(64, 64),
)
def tma_load_bf16_64x64(
    M: size,
    K: size,
    dst: [bf16][64, 64] @ CUDA_SMEM_SWIZZLED(128),
    src: [bf16][M, K] @ CUDA_GMEM,
    r: index,
    c: index,
):
    assert stride(src, 1) == 1
    for i in seq(0, 64):
        for j in seq(0, 64):
            if 0 <= r + i and r + i < M and 0 <= c + j and c + j < K:
                dst[i, j] = src[r + i, c + j]
            else:
                dst[i, j] = 0.0


@instr(
    "",
    unit=cuda_warp,
    timeline="tma_load",
    access={"dst": ["async_proxy"], "src": ["tensor_map", "oob"]},
    trailing_barrier=("CUDA_MBARRIER",),
    trailing_barrier_required=True,
    codegen=_tma_load(256, 64),
)
def tma_load_bf16_256x64(
    N: size,
    K: size,
    dst: [bf16][256, 64] @ CUDA_SMEM_SWIZZLED(128),
    src: [bf16][N, K] @ CUDA_GMEM,
    r: index,
    c: index,
):
    assert stride(src, 1) == 1
    for i in seq(0, 256):
        for j in seq(0, 64):
            if 0 <= r + i and r + i < N and 0 <= c + j and c + j < K:
                dst[i, j] = src[r + i, c + j]
            else:
                dst[i, j] = 0.0


def _descriptor(pointer, k_bytes):
    """The wgmma descriptor of a K-major tile in 128-byte swizzle: start
    address, leading byte offset 16 (unused), stride byte offset 1024
    (8 rows of 128 bytes), layout 128B."""
    return (
        f"((uint64_t)((({_smem(pointer)} + {k_bytes}) & 0x3FFFF) >> 4)"
        " | ((uint64_t)1 << 16) | ((uint64_t)(1024 >> 4) << 32) | ((uint64_t)1 << 62))"
    )


def _wgmma_ss(n, k, scale_d):
    """K / 16 `wgmma.mma_async.m64nNk16` on the tiles, accumulating
    (scale-d 1) or, with `scale_d=0`, overwriting on the first (whose
    accumulator registers are then outputs only)."""
    regs = n // 2

    def generate(args):
        d, a, b = args["d"], args["a"], args["b"]
        lines = []
        operands = ", ".join(f"%{i}" for i in range(regs))
        for step in range(k // 16):
            scale = scale_d if step == 0 else 1
            mode = "+f" if scale else "=f"
            outs = ", ".join(f'"{mode}"(({d})[{i}])' for i in range(regs))
            lines.append(
                'asm volatile("{\\n.reg .pred p;\\nsetp.ne.b32 p, %'
                f"{regs + 2}, 0;\\n"
                f"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.bf16.bf16 "
                f'{{{operands}}}, %{regs}, %{regs + 1}, p, 1, 1, 0, 0;\\n}}\\n"'
                f" : {outs}"
                f' : "l"({_descriptor(a, 32 * step)}), "l"({_descriptor(b, 32 * step)}),'
                f' "n"({scale}));'
            )
        return "\n".join(lines)

    return generate


@instr(
    "",
    unit=cuda_warpgroup,
    timeline="wgmma",
    numerics="reassociates",
    access={"a": ["async_proxy"], "b": ["async_proxy"]},
    codegen=_wgmma_ss(256, 64, 1),
)
def wgmma_ss_bf16_n256_k64(
    d: [f32][64, 256] @ CUDA_WGMMA_ACCUM,
    a: [bf16][64, 64] @ CUDA_SMEM_SWIZZLED(128),
    b: [bf16][256, 64] @ CUDA_SMEM_SWIZZLED(128),
):
    for i in seq(0, 64):
        for j in seq(0, 256):
            for k in seq(0, 64):
                d[i, j] += a[i, k] * b[j, k]


@instr(
    "",
    unit=cuda_warpgroup,
    timeline="wgmma",
    numerics="reassociates",
    access={"a": ["async_proxy"], "b": ["async_proxy"]},
    codegen=_wgmma_ss(256, 64, 0),
)
def wgmma_ss_bf16_n256_k64_zero_init(
    d: [f32][64, 256] @ CUDA_WGMMA_ACCUM,
    a: [bf16][64, 64] @ CUDA_SMEM_SWIZZLED(128),
    b: [bf16][256, 64] @ CUDA_SMEM_SWIZZLED(128),
):
    for i in seq(0, 64):
        for j in seq(0, 256):
            d[i, j] = 0.0
            for k in seq(0, 64):
                d[i, j] += a[i, k] * b[j, k]


def _acc_store(n):
    def generate(args):
        dst, src = args["dst"], args["src"]
        ld = args["dst_strides"][0]
        lines = [
            "{",
            "  const unsigned exo2_t = threadIdx.x % 128;",
            "  const unsigned exo2_row = 16 * (exo2_t / 32) + (exo2_t % 32) / 4;",
            f"  float* exo2_d = {dst} + exo2_row * ({ld}) + 2 * (exo2_t % 4);",
        ]
        for c in range(n // 8):
            base = 4 * c
            lines += [
                f"  exo2_d[{8 * c}] = ({src})[{base}];",
                f"  exo2_d[{8 * c + 1}] = ({src})[{base + 1}];",
                f"  exo2_d[8 * ({ld}) + {8 * c}] = ({src})[{base + 2}];",
                f"  exo2_d[8 * ({ld}) + {8 * c + 1}] = ({src})[{base + 3}];",
            ]
        lines.append("}")
        return "\n".join(lines)

    return generate


@instr("", unit=cuda_warpgroup, codegen=_acc_store(256))
def wgmma_acc_store_f32_n256(
    dst: [f32][64, 256] @ CUDA_GMEM, src: [f32][64, 256] @ CUDA_WGMMA_ACCUM
):
    assert stride(dst, 1) == 1
    for i in seq(0, 64):
        for j in seq(0, 256):
            dst[i, j] = src[i, j]
