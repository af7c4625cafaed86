"""The externs the BLAS kernels use.

The library links the AVX2 and AVX-512 files of a level into one shared
object, and both use `select`: exo2's built-in emits its C helper
`_select_float` as a plain definition (as Exo does), which would be defined
twice. This `select` is the built-in with a `static inline` helper, one copy
per translation unit (docs/reference/memories-and-instructions.md,
"Externs"): guarded, as the level-1 files of one ISA are compiled together.
"""

from exo2.libs.externs import select as _builtin_select


class _FileLocalSelect(type(_builtin_select)):
    def globl(self, prim_type):
        # guarded: the C layer compiles a level's files of one ISA in one
        # translation unit (benchmarks/blas/capi/level1_isa.inc)
        guard = f"EXO2BLAS_SELECT_{prim_type.upper()}"
        return (
            f"#ifndef {guard}\n#define {guard}\n"
            + "static inline "
            + super().globl(prim_type)
            + "#endif\n"
        )


select = _FileLocalSelect()
