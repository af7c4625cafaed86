"""Checking that a schedule keeps a kernel's results.

`assert_same_results(p_before, p_after, sizes)` JIT-compiles both
procedures, runs them on the same random NumPy arguments generated from the
signature (`sizes` gives every size / index / int parameter a value) and
compares every argument afterwards, outputs included. Either procedure may
be given as an already compiled `JitKernel`, to run it on several sizes
with a single compilation.

Every array argument is a view into a larger array with `GUARD` random
elements before and after it, and window parameters get strided views (every
other element of a larger array, unless the procedure asserts a stride):
comparing the whole arrays also catches a write outside the argument, or
between the elements of a strided window, that leaves the argument itself
right.
"""

from dataclasses import dataclass

import numpy as np
from exo2 import _core
from exo2.API_cursors import BinaryOpCursor, LiteralCursor, ReadCursor
from exo2.API_types import ExoType
from exo2.jit import JitKernel

GUARD = 3  # random elements before and after every array argument

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


@dataclass
class GuardedArray:
    """An array argument: `view` (what the kernel gets) lies inside `base`,
    `step` elements apart, after `guard` elements."""

    base: np.ndarray
    shape: tuple
    step: int
    guard: int = GUARD

    @property
    def view(self):
        size = int(np.prod(self.shape, dtype=np.int64))
        flat = self.base[self.guard : self.guard + self.step * size : self.step]
        view = flat.view()
        view.shape = self.shape  # never a copy
        return view

    def copy(self):
        return GuardedArray(self.base.copy(), self.shape, self.step, self.guard)

    def outside(self):
        """The elements of `base` that are not in the view."""
        size = int(np.prod(self.shape, dtype=np.int64))
        keep = np.ones(len(self.base), bool)
        keep[self.guard : self.guard + self.step * size : self.step] = False
        return self.base[keep]


def _random_values(rng, dtype, count):
    if np.issubdtype(dtype, np.integer):
        low = -8 if np.issubdtype(dtype, np.signedinteger) else 0
        return rng.integers(low, 8, size=count).astype(dtype)
    return rng.uniform(-1, 1, size=count).astype(dtype)


def _asserts_stride(proc):
    return any(
        "stride(" in text for text in _core.proc_preconditions(proc.INTERNAL_proc())
    )


def random_arguments(proc, sizes, seed=0, guard=GUARD):
    """One value per parameter of `proc`: `sizes[name]` for control values,
    random data otherwise (a `GuardedArray` for each tensor or window,
    strided for windows unless `proc` asserts a stride)."""
    rng = np.random.default_rng(seed)
    strided_windows = not _asserts_stride(proc)
    args = []
    core_types = proc.INTERNAL_proc().arg_types()
    for arg, core_type in zip(proc.args(), core_types, strict=True):
        typ = arg.type()
        if typ.is_indexable():
            args.append(sizes[arg.name()])
        elif typ == ExoType.Bool:
            args.append(bool(sizes.get(arg.name(), True)))
        elif not arg.is_tensor():
            args.append(np.asarray(_random_values(rng, _DTYPES[typ], 1)[0]))
        else:
            shape = tuple(_evaluate(e, sizes) for e in arg.shape())
            step = 2 if strided_windows and core_type.is_window() else 1
            size = int(np.prod(shape, dtype=np.int64))
            base = _random_values(rng, _DTYPES[typ], 2 * guard + step * size)
            args.append(GuardedArray(base, shape, step, guard))
    return args


def copy_arguments(args):
    return [a.copy() if isinstance(a, (GuardedArray, np.ndarray)) else a for a in args]


def call_values(args):
    """What to pass to a JitKernel for `args`."""
    return [a.view if isinstance(a, GuardedArray) else a for a in args]


def assert_same_arguments(names, expected, actual, rtol=1e-5, atol=1e-6):
    """Asserts that every array argument (guard elements included) and
    written scalar ended equal."""
    for name, x, y in zip(names, expected, actual, strict=True):
        if isinstance(x, GuardedArray):
            np.testing.assert_allclose(
                y.view, x.view, rtol=rtol, atol=atol, err_msg=f"argument {name}"
            )
            np.testing.assert_array_equal(
                y.outside(), x.outside(), err_msg=f"argument {name}: elements around it"
            )
        elif isinstance(x, np.ndarray):
            np.testing.assert_allclose(
                y, x, rtol=rtol, atol=atol, err_msg=f"argument {name}"
            )


def assert_same_results(p_before, p_after, sizes, seed=0, rtol=1e-5, atol=1e-6):
    """Runs both procedures on the same random arguments and asserts that
    every argument ends up equal (within `rtol`/`atol` for floats)."""
    k_before, k_after = (
        p if isinstance(p, JitKernel) else p.jit() for p in (p_before, p_after)
    )
    before = random_arguments(k_before.proc, sizes, seed)
    after = copy_arguments(before)
    k_before(*call_values(before))
    k_after(*call_values(after))
    names = [arg.name() for arg in k_before.proc.args()]
    assert_same_arguments(names, before, after, rtol, atol)
