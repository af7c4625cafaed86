"""Built-in memories beyond DRAM (docs/reference/memories-and-instructions.md)."""

from ..core.memory import DRAM, MemGenError, Memory, StaticMemory, generate_offset


def _is_const_size(extent, value):
    return extent.isdecimal() and int(extent) == value


def _require_constant_shape(shape):
    """DRAM_STATIC and DRAM_STACK need literal extents ([compat] message)."""
    for extent in shape:
        try:
            int(extent)
        except ValueError as e:
            raise MemGenError(
                f"DRAM_STATIC requires constant shapes. Saw: {extent}"
            ) from e


def _product_last_first(shape):
    """`dN * ... * d1`: the extents multiplied in reverse order."""
    size = shape[0]
    for extent in shape[1:]:
        size = f"{extent} * {size}"
    return size


class MDRAM(DRAM):
    """DRAM allocated through a user-provided `malloc_dram`/`free_dram`."""

    @classmethod
    def global_(cls):
        return '#include "custom_malloc.h"'

    @classmethod
    def alloc(cls, new_name, prim_type, shape, srcinfo):
        if len(shape) == 0:
            return f"{prim_type} {new_name};"
        return (
            f"{prim_type} *{new_name} = "
            f"({prim_type}*) malloc_dram ({_product_last_first(shape)} "
            f"* sizeof({prim_type}));"
        )

    @classmethod
    def free(cls, new_name, prim_type, shape, srcinfo):
        if len(shape) == 0:
            return ""
        return f"free_dram({new_name});"


class DRAM_STATIC(DRAM):
    """Statically allocated DRAM (constant extents only)."""

    @classmethod
    def alloc(cls, new_name, prim_type, shape, srcinfo):
        _require_constant_shape(shape)
        if not shape:  # [fix] Exo declares a scalar as `float x[];`
            return f"static {prim_type} {new_name};"
        return f"static {prim_type} {new_name}[{' * '.join(shape)}];"

    @classmethod
    def free(cls, new_name, prim_type, shape, srcinfo):
        return ""


class DRAM_STACK(DRAM):
    """Stack-allocated DRAM (constant extents only); safe in `par` loops."""

    @classmethod
    def alloc(cls, new_name, prim_type, shape, srcinfo):
        _require_constant_shape(shape)
        if not shape:  # [fix] Exo declares a scalar as `float x[];`
            return f"{prim_type} {new_name};"
        return f"{prim_type} {new_name}[{' * '.join(shape)}];"

    @classmethod
    def free(cls, new_name, prim_type, shape, srcinfo):
        return ""


def _gemmini_window(basetyp, baseptr, indices, strides):
    """Gemmini addresses rows of 16 elements: divide the offset by 16."""
    assert len(indices) == len(strides) and len(strides) >= 2
    prim_type = basetyp.basetype().ctype()
    offset = generate_offset(indices, strides)
    return (
        f"*({prim_type}*)((uint64_t)( "
        f"((uint32_t)((uint64_t){baseptr})) + "
        f"({offset})/16))"
    )


class _GemminiMemory(Memory):
    """Gemmini's scratchpad and accumulator: rows of 16 elements allocated
    through Gemmini's allocator (kept for import compatibility)."""

    _label = ""  # how messages name the memory
    _malloc = ""  # allocator and free functions of gemmini's runtime
    _free = ""
    _address_type = ""  # integer type of the allocator's addresses

    @classmethod
    def global_(cls):
        return f'#include <include/gemmini.h>\n#include "{cls._malloc}.h"'

    @classmethod
    def alloc(cls, new_name, prim_type, shape, srcinfo):
        if len(shape) == 0:
            return f"{prim_type} {new_name};"
        if not _is_const_size(shape[-1], 16):
            raise MemGenError(
                f"{srcinfo}: Cannot allocate GEMMINI {cls._label} Memory unless "
                f"innermost dimension is exactly 16.  got {shape[-1]}"
            )
        return (
            f"{prim_type} *{new_name} = ({prim_type}*) "
            f"(({cls._address_type}){cls._malloc} "
            f"({_product_last_first(shape)} * sizeof({prim_type})));"
        )

    @classmethod
    def can_read(cls):
        return False

    @classmethod
    def free(cls, new_name, prim_type, shape, srcinfo):
        if len(shape) == 0:
            return ""
        return f"{cls._free}(({cls._address_type})({new_name}));"

    @classmethod
    def window(cls, basetyp, baseptr, indices, strides, srcinfo):
        return _gemmini_window(basetyp, baseptr, indices, strides)


class GEMM_SCRATCH(_GemminiMemory):
    """Gemmini scratchpad."""

    _label = "Scratchpad"
    _malloc = "gemm_malloc"
    _free = "gemm_free"
    _address_type = "uint64_t"


class GEMM_ACCUM(_GemminiMemory):
    """Gemmini accumulator."""

    _label = "Accumulator"
    _malloc = "gemm_acc_malloc"
    _free = "gemm_acc_free"
    _address_type = "uint32_t"


def _vector_register_window(baseptr, indices, strides):
    """A register array is indexed by every index but the lane index."""
    assert strides[-1] == "1"
    leading = indices[:-1]
    return baseptr + ("[" + "][".join(leading) + "]" if leading else "")


def _register_array(c_type, new_name, shape):
    if shape:
        return f"{c_type} {new_name}[{']['.join(map(str, shape))}];"
    return f"{c_type} {new_name};"


class AVX2(Memory):
    """256-bit vector registers: the last extent is the lane count."""

    _VECTOR_TYPES = {
        "float": (8, "__m256"),
        "double": (4, "__m256d"),
        "uint16_t": (16, "__m256i"),
    }

    @classmethod
    def global_(cls):
        return "#include <immintrin.h>"

    @classmethod
    def c_flags(cls):
        # the x86 AVX2 instructions include FMA (`_mm256_fmadd_ps`)
        return ("-mavx2", "-mfma")

    @classmethod
    def alloc(cls, new_name, prim_type, shape, srcinfo):
        if not shape:
            raise MemGenError(f"{srcinfo}: AVX2 vectors are not scalar values")
        if prim_type not in cls._VECTOR_TYPES:
            raise MemGenError(
                f"{srcinfo}: AVX2 vectors must be f32/f64/ui16 (for now), "
                f"got {prim_type}"
            )
        width, c_type = cls._VECTOR_TYPES[prim_type]
        if not _is_const_size(shape[-1], width):
            raise MemGenError(
                f"{srcinfo}: AVX2 vectors of type {prim_type} must be "
                f"{width}-wide, got {shape}"
            )
        return _register_array(c_type, new_name, shape[:-1])

    @classmethod
    def can_read(cls):
        return False

    @classmethod
    def free(cls, new_name, prim_type, shape, srcinfo):
        return ""

    @classmethod
    def window(cls, basetyp, baseptr, indices, strides, srcinfo):
        return _vector_register_window(baseptr, indices, strides)


class AVX512(Memory):
    """512-bit vector registers: 16 floats (`__m512`) or, **[exo2]**, 8
    doubles (`__m512d`); the last extent is the lane count."""

    _VECTOR_TYPES = {
        "float": (16, "__m512"),
        "double": (8, "__m512d"),
    }

    @classmethod
    def global_(cls):
        return "#include <immintrin.h>"

    @classmethod
    def c_flags(cls):
        return ("-mavx512f",)

    @classmethod
    def can_read(cls):
        return False

    @classmethod
    def alloc(cls, new_name, prim_type, shape, srcinfo):
        if not shape:
            raise MemGenError(f"{srcinfo}: AVX512 vectors are not scalar values")
        if prim_type not in cls._VECTOR_TYPES:
            raise MemGenError(
                f"{srcinfo}: AVX512 vectors must be f32/f64 (for now), got {prim_type}"
            )
        width, c_type = cls._VECTOR_TYPES[prim_type]
        if not _is_const_size(shape[-1], width):
            # Exo's f32 message, kept word for word; f64 names its width.
            if prim_type == "float":
                raise MemGenError(f"{srcinfo}: AVX512 vectors must be 16-wide")
            raise MemGenError(
                f"{srcinfo}: AVX512 vectors of type {prim_type} must be "
                f"{width}-wide, got {shape}"
            )
        return _register_array(c_type, new_name, shape[:-1])

    @classmethod
    def free(cls, new_name, prim_type, shape, srcinfo):
        return ""

    @classmethod
    def window(cls, basetyp, baseptr, indices, strides, srcinfo):
        return _vector_register_window(baseptr, indices, strides)


class AMX_TILE(StaticMemory):
    """The 8 AMX tile registers, named by `#define` while allocated."""

    NUM_AMX_TILES = 8
    _BYTES_PER_ELEMENT = {
        "float": 4,
        "double": 8,
        "int8_t": 1,
        "uint8_t": 1,
        "uint16_t": 2,
        "int32_t": 4,
        "int_fast32_t": 4,
    }
    tile_dict = {}

    @classmethod
    def reset_allocations(cls):
        """Forget every allocated tile (after a failed compilation)."""
        cls.init_state(cls.NUM_AMX_TILES)
        cls.tile_dict = {}

    @classmethod
    def global_(cls):
        return "#include <immintrin.h>"

    @classmethod
    def c_flags(cls):
        return ("-mamx-tile", "-mamx-int8")

    @classmethod
    def can_read(cls):
        return False

    @classmethod
    def alloc(cls, new_name, prim_type, shape, srcinfo):
        if not (shape[0].isdecimal() and int(shape[0]) <= 16):
            raise MemGenError("Number of tile rows must be a constant and <= 16.")
        row_bytes = (
            int(shape[1]) * cls._BYTES_PER_ELEMENT[prim_type]
            if shape[1].isdecimal()
            else None
        )
        if row_bytes is None or row_bytes > 64:
            raise MemGenError(
                "Number of bytes per row must be a constant and <= 64, currently "
                f"trying to allocate {row_bytes} bytes per row."
            )
        tile = cls.find_free_chunk()
        cls.mark(tile)
        cls.tile_dict[new_name] = tile
        return f"#define {new_name} {tile}"

    @classmethod
    def free(cls, new_name, prim_type, shape, srcinfo):
        cls.unmark(cls.tile_dict.pop(new_name))
        return f"#undef {new_name}"


AMX_TILE.reset_allocations()
