"""From one naive proc to its variants, with `Procedure` methods and
primitives only (no copied source).

A kernel's *axes* say how its variants differ:

- `Flag` (Uplo, Diag, a banded kernel's Trans): a `bool` parameter of the
  naive proc, fixed by `partial_eval`; `simplify` then drops the dead
  branch.
- `Choice` (rotm's flag, level 3's beta case): an `index` parameter fixed
  to one of a few values the same way.
- `Transposed` (Trans, Side): the variant is `transpose` of some matrix
  arguments of another variant (NoTrans, or Left), whose value of the
  `flips` axis is inverted: the transposed lower NoTrans problem is the
  upper Trans one, and Right-NoTrans trmm is Left-Trans with B transposed.
  Transposing keeps the parameter names, so a Trans variant's sizes keep the
  NoTrans meaning (`m` counts rows of op(A)); the C layer passes the sizes
  accordingly.
- `Emit`: the naive source is a Python function of this flag, returning
  the proc for each value (gbmv, whose argument shapes depend on Trans).

The precision comes from `set_precision` of every `R` buffer; the stride
case from `add_assertion` of unit strides (see `kernel` in
benchmarks/blas/exo2blas/variants/kernel.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from exo2 import ExoType, Procedure
from exo2.API_cursors import AllocCursor
from exo2.API_scheduling import rename, set_precision, simplify
from exo2.stdlib.inspection import nlr_stmts


@dataclass(frozen=True)
class _TwoLetters:
    """A yes-or-no axis: `letters` name its True and False variants."""

    param: str
    letters: tuple  # (letter when True, letter when False)

    @property
    def key(self):
        return self.param

    def values(self):
        return dict(zip(self.letters, (True, False), strict=True))


@dataclass(frozen=True)
class Flag(_TwoLetters):
    """A `bool` parameter of the naive proc."""


@dataclass(frozen=True)
class Choice:
    """An `index` parameter fixed to one value per letter; letters in `skip`
    need no proc (rotm's flag -2, the identity, is a quick return)."""

    param: str
    choices: dict  # letter -> int
    skip: tuple = ()

    @property
    def key(self):
        return self.param

    @property
    def letters(self):
        return tuple(self.choices)

    def values(self):
        return dict(self.choices)


@dataclass(frozen=True)
class Transposed:
    """The second letter's variant is the first letter's with `args`
    transposed, the `flips` axis (a key) taken at its other letter."""

    key: str
    args: tuple
    letters: tuple = ("n", "t")
    flips: str | None = None


@dataclass(frozen=True)
class Emit(_TwoLetters):
    """A flag the naive Python function takes to emit its proc (not a
    parameter of the proc: a `Flag` it is not)."""


def Uplo(param="upper"):  # noqa: N802 -- reads as the BLAS axis it is
    return Flag(param, ("u", "l"))


def Diag(param="unit"):  # noqa: N802
    return Flag(param, ("u", "n"))


def Trans(*args, key="trans", flips=None):  # noqa: N802
    return Transposed(key, tuple(args), ("n", "t"), flips)


def Side(*args, flips=None):  # noqa: N802
    return Transposed("side", tuple(args), ("l", "r"), flips)


def other(axis, letter):
    a, b = axis.letters
    return b if letter == a else a


def set_precisions(proc, prec):
    """`proc` with every `R` parameter and allocation in `prec`."""
    allocs = []
    if any(
        kind == "allocation" and type_.startswith("R")
        for _, kind, type_, *_ in proc.symbol_table()
    ):  # the walk over the statements only where it finds some
        allocs = [
            s
            for s in nlr_stmts(proc)
            if isinstance(s, AllocCursor) and s.type() == ExoType.R
        ]
    for arg in proc.args():
        if arg.type() == ExoType.R:
            proc = set_precision(proc, arg.name(), prec)
    for alloc in allocs:
        proc = set_precision(proc, proc.forward(alloc), prec)
    return proc


def fix(proc, values):
    """`partial_eval` of the flags in `values`, then `simplify`, which
    drops the branches the values make dead."""
    return simplify(proc.partial_eval(**values)) if values else proc


def window_params(proc):
    """Names of the window parameters (`x: [R][n]`), in order."""
    return [
        name
        for name, kind, type_, *_ in proc.symbol_table()
        if kind == "argument" and type_.startswith("[")
    ]


def assert_unit_strides(proc):
    """`proc` with `stride(x, last) == 1` asserted for every window `x`."""
    shapes = {a.name(): len(a.shape()) for a in proc.args() if a.is_tensor()}
    for name in window_params(proc):
        proc = proc.add_assertion(f"stride({name}, {shapes[name] - 1}) == 1")
    return proc


def named(proc, name):
    return rename(proc, name) if proc.name() != name else proc


def is_proc(obj):
    return isinstance(obj, Procedure)
