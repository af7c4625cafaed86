"""The externs the BLAS kernels use.

The library links the AVX2 and AVX-512 files of a level into one shared
object, and both use `select`: exo2's built-in emits its C helper
`_select_float` as a plain definition (as Exo does), which would be defined
twice. This `select` is the built-in with a `static inline` helper, one copy
per file (docs/reference/memories-and-instructions.md, "Externs").
"""

from exo2.libs.externs import select as _builtin_select


class _FileLocalSelect(type(_builtin_select)):
    def globl(self, prim_type):
        return "static inline " + super().globl(prim_type)


select = _FileLocalSelect()
