"""Built-in externs (docs/reference/memories-and-instructions.md).

All take real scalars of one precision and return it; `prim_type` is the C
type of that precision. Helper functions emitted into the generated C are
plain definitions, as Exo's are: a program linking two generated files that
use the same helper defines an extern of its own whose `globl` makes it
`static inline` (docs/reference/memories-and-instructions.md, "Externs").
"""

import math as _math

from ..core.extern import Extern
from ..core.extern import check_real_scalar_args as _check_args


class _Sin(Extern):
    def __init__(self):
        super().__init__("sin")

    def typecheck(self, args):
        return _check_args(args, 1, "argument")

    def globl(self, prim_type):
        return "#include <math.h>"

    def interpret(self, args):
        return _math.sin(args[0])

    def compile(self, args, prim_type):
        return f"sin(({prim_type}){args[0]})"


class _Relu(Extern):
    def __init__(self):
        super().__init__("relu")

    def typecheck(self, args):
        return _check_args(args, 1, "argument")

    def globl(self, prim_type):
        return (
            f"{prim_type} _relu_{prim_type}({prim_type} x) {{\n"
            "    if (x > 0.0) return x;\n"
            "    else return 0.0;\n"
            "}\n"
        )

    def interpret(self, args):
        return args[0] if args[0] > 0 else 0

    def compile(self, args, prim_type):
        return f"_relu_{prim_type}(({prim_type}){args[0]})"


class _Select(Extern):
    def __init__(self):
        super().__init__("select")

    def typecheck(self, args):
        return _check_args(args, 4)

    def globl(self, prim_type):
        t = prim_type
        return (
            f"{t} _select_{t}({t} x,{t} v,{t} y,{t} z) {{\n"
            "    if (x < v) return y;\n"
            "    else return z;\n"
            "}\n"
        )

    def interpret(self, args):
        x, v, y, z = args
        return y if x < v else z

    def compile(self, args, prim_type):
        t = prim_type
        return (
            f"_select_{t}(({t}){args[0]}, ({t}){args[1]}, "
            f"({t}){args[2]}, ({t}){args[3]})"
        )


class _Expf(Extern):
    def __init__(self):
        super().__init__("expf")

    def typecheck(self, args):
        return _check_args(args, 1, "argument")

    def globl(self, prim_type):
        return "#include <math.h>"

    def interpret(self, args):
        return _math.exp(args[0])

    def compile(self, args, prim_type):
        return f"expf(({prim_type})({args[0]}))"


class _FmaxF(Extern):
    def __init__(self):
        super().__init__("fmaxf")

    def typecheck(self, args):
        # [compat] Exo's message says "argument" for two arguments.
        return _check_args(args, 2, "argument")

    def globl(self, prim_type):
        return "#include <math.h>"

    def interpret(self, args):
        return max(args[0], args[1])

    def compile(self, args, prim_type):
        return f"fmaxf(({prim_type})({args[0]}), ({prim_type})({args[1]}))"


class _Sigmoid(Extern):
    def __init__(self):
        super().__init__("sigmoid")

    def typecheck(self, args):
        return _check_args(args, 1, "argument")

    def globl(self, prim_type):
        return (
            "\n#include <math.h>\n"
            f"{prim_type} sigmoid({prim_type} x) {{\n"
            "    return 1 / (1 + exp(-x));\n"
            "}\n"
        )

    def interpret(self, args):
        return 1 / (1 + _math.exp(-args[0]))

    def compile(self, args, prim_type):
        return f"sigmoid(({prim_type})({args[0]}))"


class _Sqrt(Extern):
    def __init__(self):
        super().__init__("sqrt")

    def typecheck(self, args):
        return _check_args(args, 1, "argument")

    def globl(self, prim_type):
        return "#include <math.h>"

    def interpret(self, args):
        return _math.sqrt(args[0])

    def compile(self, args, prim_type):
        return f"sqrt(({prim_type})({args[0]}))"


sin = _Sin()
relu = _Relu()
select = _Select()
expf = _Expf()
fmaxf = _FmaxF()
sigmoid = _Sigmoid()
sqrt = _Sqrt()
