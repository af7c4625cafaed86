"""The CUDA memories (docs/cuda.md, "The constructs").

A memory is a class (the annotation value, as `@ DRAM`). The CUDA backend
reads `backend_properties()` (`{"cuda": "smem", ...}`); the C hooks below
serve host code only: host code may allocate `CUDA_GMEM` and pass it to
kernels, but never read or write it, and every other CUDA memory lives only
inside kernels.

Parameterised memories are made by calling the base memory
(`CUDA_MBARRIER(prearrive=4)`, `CUDA_SMEM_SWIZZLED(128)`); the variants are
cached classes whose `name()` is the call text.
"""

from abc import ABCMeta

from ...core.memory import MemGenError, Memory


class _MemoryFamily(ABCMeta):
    """Calling a memory class with parameters gives its cached variant."""

    def __call__(cls, *args, **params):
        return cls._variant(*args, **params)


class CudaMemory(Memory, metaclass=_MemoryFamily):
    """Base of the CUDA memories: kernels only, unless a subclass says
    otherwise."""

    # What the CUDA backend reads: the kind of storage.
    _role = None
    # Parameters of a variant (`{"swizzle": 128}`).
    _params = {}

    @classmethod
    def _variant(cls, *args, **params):
        raise TypeError(f"{cls.name()} takes no parameters")

    @classmethod
    def backend_properties(cls):
        return {"cuda": cls._role, **cls._params}

    @classmethod
    def alloc(cls, new_name, prim_type, shape, srcinfo):
        raise MemGenError(
            f"{srcinfo}: {cls.name()} buffers can only be allocated inside a CUDA kernel "
            f"(a `with CudaDeviceFunction(...)` block), not in host code"
        )

    @classmethod
    def free(cls, new_name, prim_type, shape, srcinfo):
        return ""

    @classmethod
    def can_read(cls):
        return False


class CUDA_GMEM(CudaMemory):
    """Global memory. Parameters and host allocations (`cudaMalloc`); read
    and written by kernels; host code passes it on but never touches it."""

    _role = "gmem"

    @classmethod
    def global_(cls):
        return "#include <cuda_runtime_api.h>\n"

    @classmethod
    def alloc(cls, new_name, prim_type, shape, srcinfo):
        if not shape:
            raise MemGenError(
                f"{srcinfo}: CUDA_GMEM scalars are not supported; use a tensor"
            )
        size = " * ".join(shape)
        return (
            f"{prim_type} *{new_name} = 0;\n"
            f"cudaMalloc((void**)&{new_name}, {size} * sizeof(*{new_name}));"
        )

    @classmethod
    def free(cls, new_name, prim_type, shape, srcinfo):
        return f"cudaFree({new_name});"


class CUDA_SMEM(CudaMemory):
    """Shared memory of one CTA, row-major, constant extents."""

    _role = "smem"


class CUDA_RMEM(CudaMemory):
    """Registers of one thread: constant extents, indices constant after
    the loops that index them are unrolled."""

    _role = "rmem"


class CUDA_CP_ASYNC_GROUP(CudaMemory):
    """Commit groups of `cp.async` copies: `Arrive(cp_async) >> g[i]`
    commits the copies issued so far as group i, `Await(g[i], ...)` waits
    for it (`cp.async.wait_group N`)."""

    _role = "cp_async_group"


class CUDA_WGMMA_GROUP(CudaMemory):
    """Commit groups of `wgmma` operations of one warpgroup."""

    _role = "wgmma_group"


class CUDA_MBARRIER(CudaMemory):
    """mbarriers in shared memory: `Arrive` and trailing barriers signal an
    element, `Await` waits for it. `CUDA_MBARRIER(prearrive=D)` starts the
    first D elements of a ring of depth D already arrived."""

    _role = "mbarrier"
    _params = {"prearrive": 0}
    _variants = {}

    @classmethod
    def _variant(cls, prearrive=0):
        if not isinstance(prearrive, int) or prearrive < 0:
            raise ValueError(
                f"CUDA_MBARRIER: prearrive must be a non-negative int, got {prearrive!r}"
            )
        if prearrive == 0:
            return CUDA_MBARRIER
        found = CUDA_MBARRIER._variants.get(prearrive)
        if found is None:
            found = type(
                "CUDA_MBARRIER",
                (CUDA_MBARRIER,),
                {"_params": {"prearrive": prearrive}, "_variants": {}},
            )
            CUDA_MBARRIER._variants[prearrive] = found
        return found

    @classmethod
    def name(cls):
        p = cls._params["prearrive"]
        return "CUDA_MBARRIER" if p == 0 else f"CUDA_MBARRIER(prearrive={p})"


class CUDA_SMEM_SWIZZLED(CudaMemory):
    """Shared memory in the hardware swizzle of TMA and wgmma, S in
    {32, 64, 128} bytes: the innermost extent times the element size is S;
    16-byte chunks of each S-byte row are permuted by the row index."""

    _role = "smem"
    _params = {"swizzle": 0}
    _variants = {}

    @classmethod
    def _variant(cls, swizzle):
        if swizzle not in (32, 64, 128):
            raise ValueError(
                f"CUDA_SMEM_SWIZZLED: swizzle must be 32, 64 or 128, got {swizzle!r}"
            )
        found = CUDA_SMEM_SWIZZLED._variants.get(swizzle)
        if found is None:
            found = type(
                "CUDA_SMEM_SWIZZLED",
                (CUDA_SMEM_SWIZZLED,),
                {"_params": {"swizzle": swizzle}, "_variants": {}},
            )
            CUDA_SMEM_SWIZZLED._variants[swizzle] = found
        return found

    @classmethod
    def name(cls):
        return f"CUDA_SMEM_SWIZZLED({cls._params['swizzle']})"


CUDA_MEMORIES = (
    CUDA_GMEM,
    CUDA_SMEM,
    CUDA_RMEM,
    CUDA_MBARRIER,
    CUDA_CP_ASYNC_GROUP,
    CUDA_WGMMA_GROUP,
    CUDA_SMEM_SWIZZLED,
)
