"""Checking that a schedule keeps a kernel's results.

`assert_same_results(p_before, p_after, sizes)` JIT-compiles both
procedures, runs them on the same random NumPy arguments generated from the
signature (`sizes` gives every size / index / int parameter a value) and
compares every argument afterwards, outputs included. Either procedure may
be given as an already compiled `JitKernel`, to run it on several sizes
with a single compilation.
"""

import numpy as np
from exo2.API_cursors import BinaryOpCursor, LiteralCursor, ReadCursor
from exo2.API_types import ExoType
from exo2.jit import JitKernel

_DTYPES = {
    ExoType.F16: np.float16,
    ExoType.F32: np.float32,
    ExoType.F64: np.float64,
    ExoType.R: np.float32,
    ExoType.I8: np.int8,
    ExoType.UI8: np.uint8,
    ExoType.UI16: np.uint16,
    ExoType.I32: np.int32,
}

_OPERATORS = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a // b,
    "%": lambda a, b: a % b,
}


def _evaluate(expr, sizes):
    """The value of a shape expression given the size arguments."""
    if isinstance(expr, LiteralCursor):
        return expr.value()
    if isinstance(expr, ReadCursor):
        return sizes[expr.name()]
    if isinstance(expr, BinaryOpCursor):
        return _OPERATORS[expr.op()](
            _evaluate(expr.lhs(), sizes), _evaluate(expr.rhs(), sizes)
        )
    raise TypeError(f"cannot evaluate shape expression {expr!r}")


def random_arguments(proc, sizes, seed=0):
    """One value per parameter of `proc`: `sizes[name]` for control values,
    random arrays / scalars for data."""
    rng = np.random.default_rng(seed)
    args = []
    for arg in proc.args():
        typ = arg.type()
        if typ.is_indexable():
            args.append(sizes[arg.name()])
        elif typ == ExoType.Bool:
            args.append(bool(sizes.get(arg.name(), True)))
        else:
            dtype = _DTYPES[typ]
            shape = (
                [_evaluate(e, sizes) for e in arg.shape()] if arg.is_tensor() else ()
            )
            if np.issubdtype(dtype, np.integer):
                args.append(np.asarray(rng.integers(0, 8, size=shape)).astype(dtype))
            else:
                args.append(np.asarray(rng.uniform(-1, 1, size=shape)).astype(dtype))
    return args


def assert_same_results(p_before, p_after, sizes, seed=0, rtol=1e-5, atol=1e-6):
    """Runs both procedures on the same random arguments and asserts that
    every argument ends up equal (within `rtol`/`atol` for floats)."""
    k_before, k_after = (
        p if isinstance(p, JitKernel) else p.jit() for p in (p_before, p_after)
    )
    before = random_arguments(k_before.proc, sizes, seed)
    after = [a.copy() if isinstance(a, np.ndarray) else a for a in before]
    k_before(*before)
    k_after(*after)
    for arg, x, y in zip(k_before.proc.args(), before, after, strict=True):
        if isinstance(x, np.ndarray):
            np.testing.assert_allclose(
                y, x, rtol=rtol, atol=atol, err_msg=f"argument {arg.name()}"
            )
