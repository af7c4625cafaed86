"""`kernel(...)`: a naive proc, its variant axes and its schedule, expanded
per machine into the public procs of the library.

A *variant* is one (kernel, precision, letter of every axis) combination,
named as BLAS names it: `sgemv_t`, `dtrsm_rlnu`. Each variant has one or
more *cases*, each a public proc `exo2_<isa>_<variant>_<case>`:

- `STRIDES` (levels 1 and 2): `stride_1` asserts unit strides on every
  window and is scheduled; `stride_any` is the variant as it is (any
  increment, negative or zero on read-only vectors) and stays unscheduled.
- `beta_cases(param)` (gemm, symm, syrk, syr2k): `b0`, `b1` and `bx` fix
  the kernel's beta-case parameter to 0 (C is written, never read), 1 (C
  is accumulated) and 2 (general beta); all are unit-strided and scheduled.
- `UNIT` (trmm, trsm): one case, unit-strided and scheduled, no suffix.
- `ANY`: one case, `stride_any`, unscheduled.
- `Case("skinny")` (gemv, ger): a unit-strided case scheduled for a short
  dimension (benchmarks/blas/exo2blas/sched/skinny.py); the C layer calls
  it for the short shapes. `Case("short")` (symv): one scheduled for small
  matrices, on the narrower machine's vectors (`on_narrower`); the C
  layer calls it for them. `Case("large")` (gemv NoTrans, ger, syr): one
  scheduled for matrices past the caches (eight rows jammed; one row at a
  time on the narrower vectors); the C layer calls it for them.
  `Case(..., narrowed=True)`: the kernel's own schedule run on the
  narrower machine's vectors, on machines that have one (AVX-512):
  dsdot's, sdsdot's and snrm2's `narrow` case (short vectors; CPUs that
  widen f32 to f64 faster in them), dot's and axpy's (past the caches on
  Zen 4), trmv's and trsv's `short` one (short rows), rot's (vectors of 64
  to 192 bytes). `by_case` (benchmarks/blas/exo2blas/sched/by_variant.py)
  names a case's own schedule.
  `Case(..., only=((axis, letter), ...))` gives a case to the variants of
  those letters only; `("prec", "f32")` to those of that precision.
"""

from __future__ import annotations

import inspect
import itertools
from dataclasses import dataclass, field

from ..machines import LETTER, PRECISIONS
from .axes import (
    Choice,
    Emit,
    Flag,
    Transposed,
    assert_unit_strides,
    fix,
    is_proc,
    named,
    other,
    set_precisions,
)


@dataclass(frozen=True)
class Case:
    suffix: str
    fixes: tuple = ()  # (param, value) pairs fixed by partial_eval
    unit: bool = True  # unit strides asserted
    scheduled: bool = True
    only: tuple = ()  # (axis key or "prec", letter or precision) pairs
    # True: scheduled on the machine's narrower one (only machines with one
    # have the case)
    narrowed: bool = False


STRIDES = (Case("stride_1"), Case("stride_any", unit=False, scheduled=False))
UNIT = (Case(""),)
ANY = (Case("stride_any", unit=False, scheduled=False),)


def beta_cases(param="beta_case"):
    return tuple(Case(s, ((param, v),)) for s, v in (("b0", 0), ("b1", 1), ("bx", 2)))


@dataclass(frozen=True)
class VariantInfo:
    """What a schedule is told about the variant it schedules (`v`)."""

    kernel: str  # the naive source's name: "gemv"
    name: str  # "sgemv_t"
    prec: str | None  # "f32", "f64", or None for explicit types
    letters: dict  # axis key -> letter
    case: str  # "stride_1", "b0", ...
    machine: object  # exo2blas.machines.Machine


@dataclass
class Variant:
    name: str
    kernel: str
    prec: str | None
    letters: dict
    naive: object  # the variant's proc before its cases (None if skipped)
    procs: dict = field(default_factory=dict)  # case suffix -> public proc


class Kernel:
    """See `kernel`."""

    def __init__(
        self, naive, axes, schedule, precisions, cases, name, helpers, counted=True
    ):
        self.naive = naive
        self.axes = tuple(axes)
        self.schedule = schedule
        self.precisions = tuple(precisions)
        self.cases = tuple(cases)
        self.name = name or "{p}" + _source_name(naive)
        self.counted = counted  # False: a helper, not BLAS variants of its own
        self.helpers = tuple(
            _helper(h, self, f"{self.name}_{s}") for s, h in helpers.items()
        )
        self._axis = {a.key: a for a in self.axes}
        self._built = {}

    @property
    def source_name(self):
        return _source_name(self.naive)

    def variant_name(self, prec, letters):
        base = self.name.format(p=LETTER[prec] if prec else "")
        suffix = "".join(letters[a.key] for a in self.axes)
        return f"{base}_{suffix}" if suffix else base

    def combinations(self):
        """Every assignment of a letter to each axis, in BLAS name order."""
        for combo in itertools.product(*(a.letters for a in self.axes)):
            yield dict(zip((a.key for a in self.axes), combo, strict=True))

    def variants(self, machine):
        """The `Variant`s for `machine`, with their public procs."""
        key = machine.name
        if key not in self._built:
            memos = {prec: {} for prec in self.precisions}
            self._built[key] = [
                self._variant(machine, prec, letters, memos[prec])
                for prec in self.precisions
                for letters in self.combinations()
            ]
        return self._built[key]

    def _variant(self, machine, prec, letters, memo):
        name = self.variant_name(prec, letters)
        variant = Variant(name, self.source_name, prec, letters, None)
        if any(isinstance(a, Choice) and letters[a.key] in a.skip for a in self.axes):
            return variant
        variant.naive = self._derive(machine, prec, letters, memo)
        for case in self.cases:
            if any({"prec": prec, **letters}[k] != value for k, value in case.only):
                continue
            if case.narrowed and machine.narrower is None:
                continue
            proc = fix(variant.naive, dict(case.fixes))
            if case.unit:
                proc = assert_unit_strides(proc)
            if case.scheduled and self.schedule is not None:
                on = machine.narrower if case.narrowed else machine
                info = VariantInfo(
                    self.source_name, name, prec, letters, case.suffix, on
                )
                proc = self.schedule(proc, info)
            public = f"exo2_{machine.name}_{name}" + (
                f"_{case.suffix}" if case.suffix else ""
            )
            variant.procs[case.suffix] = named(proc, public)
        return variant

    def _derive(self, machine, prec, letters, memo):
        """The variant proc of `letters`: the emitted naive source with its
        flags fixed, or a `Transposed` axis's source variant transposed."""
        key = tuple(sorted(letters.items()))
        if key in memo:
            return memo[key]
        for axis in self.axes:
            if isinstance(axis, Transposed) and letters[axis.key] != axis.letters[0]:
                source = dict(letters)
                source[axis.key] = axis.letters[0]
                if axis.flips:
                    flipped = self._axis[axis.flips]
                    source[axis.flips] = other(flipped, source[axis.flips])
                proc = self._derive(machine, prec, source, memo)
                for arg in axis.args:
                    proc = proc.transpose(_arg(proc, arg))
                break
        else:
            flags = {
                a.param: a.values()[letters[a.key]]
                for a in self.axes
                if isinstance(a, Flag | Choice)
            }
            proc = fix(self._emit(machine, prec, letters), flags)
            if prec is not None:
                proc = set_precisions(proc, prec)
        memo[key] = proc
        return proc

    def _emit(self, machine, prec, letters):
        naive = self.naive
        if isinstance(naive, dict):
            naive = naive[prec]
        if is_proc(naive):
            return naive
        wanted = inspect.signature(naive).parameters
        args = {
            a.param: a.values()[letters[a.key]]
            for a in self.axes
            if isinstance(a, Emit)
        }
        if "lanes" in wanted:
            args["lanes"] = machine.block_lanes(prec)
        if "width" in wanted:
            args["width"] = machine.lanes[prec]
        return naive(**args)


def _helper(helper, parent, name):
    """The helper kernel `name` of `parent`: `helper` (a naive source) with
    `parent`'s axes, schedule, precisions and cases, or a `Kernel` with its
    own."""
    own = isinstance(helper, Kernel)
    base = helper if own else parent
    naive = helper.naive if own else helper
    return Kernel(
        naive, base.axes, base.schedule, base.precisions, base.cases, name, {}, False
    )


def _source_name(naive):
    if isinstance(naive, dict):
        naive = next(iter(naive.values()))
    return naive.name() if is_proc(naive) else naive.__name__


def _arg(proc, name):
    for a in proc.args():
        if a.name() == name:
            return a
    raise ValueError(f"{proc.name()} has no argument {name!r}")


def kernel(
    naive,
    axes=(),
    schedule=None,
    precisions=PRECISIONS,
    cases=STRIDES,
    name=None,
    helpers=None,
):
    """A BLAS kernel: `naive` (a proc; a dict precision -> proc with
    explicit types; or a Python function emitting the proc from its `Emit`
    axes and, when it takes `lanes`, the machine's iamax lanes), its `axes`
    (benchmarks/blas/exo2blas/variants/axes.py), and `schedule(proc, v)`
    applied to every scheduled case (`v` is a `VariantInfo`). `precisions`
    `(None,)` keeps the source's explicit types. `name` is the variant
    name's template, `{p}` standing for the precision letter (default:
    `{p}` + the source's name). `helpers` (suffix -> naive source) are
    kernels the C layer calls besides this one for the same routine
    (iamax's `blockmax` and `scan`), with its axes, cases and schedule,
    named `name` + `_suffix`, not BLAS variants of their own; a helper that
    is a `kernel(...)` of its own keeps its axes, cases and schedule
    (tbmv's `diagonals`, Trans only)."""
    return Kernel(naive, axes, schedule, precisions, cases, name, helpers or {})
