"""The externs the BLAS kernels use: `select`, and `fabs` (iamax's absolute
values, below).

The library links the AVX2 and AVX-512 files of a level into one shared
object, and both use `select`: exo2's built-in emits its C helper
`_select_float` as a plain definition (as Exo does), which would be defined
twice. This `select` is the built-in with a `static inline` helper, one copy
per translation unit (docs/reference/memories-and-instructions.md,
"Externs"): guarded, as the level-1 files of one ISA are compiled together.
"""

from exo2 import Extern
from exo2.core.extern import Extern_Typecheck_Error
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


class _Fabs(Extern):
    """`fabs(x)`, |x| with the sign bit cleared: one AND on a vector, where
    `select(0.0, x, x, -x)` is a negation and a max. The two differ only in
    the sign of a zero (`select` gives -0 for +0) and of a NaN, which no
    comparison sees: iamax, which only compares and maximizes absolute
    values, uses either (benchmarks/blas/exo2blas/kernels/level1/iamax.py).
    The effect checker reads it, as every extern, as a function it knows
    nothing of but its arguments."""

    def __init__(self):
        super().__init__("fabs")

    def typecheck(self, args):
        if len(args) != 1 or not args[0].type.is_real_scalar():
            raise Extern_Typecheck_Error("fabs takes one real scalar argument")
        return args[0].type

    def globl(self, prim_type):
        return "#include <math.h>"

    def interpret(self, args):
        return abs(args[0])

    def compile(self, args, prim_type):
        suffix = "f" if prim_type == "float" else ""
        return f"fabs{suffix}(({prim_type})({args[0]}))"


fabs = _Fabs()
