"""exo2blas: the exo2 BLAS suite (benchmarks/blas/README.md).

`import exo2blas` gives the NumPy entry points of libexo2blas
(exo2blas/numpy_entry.py): `exo2blas.gemv(alpha, A, x)`, `exo2blas.sgemv`,
`exo2blas.isamax`, ... and `exo2blas.procs[<variant>]`, the naive and the
scheduled `Procedure`s of every variant, for study and for your own
schedules (built on first use)."""

from __future__ import annotations

from collections.abc import Mapping

from . import numpy_entry
from .numpy_entry import *  # noqa: F403
from .numpy_entry import ROUTINES, aliases, dsdot, isa, rotg, rotmg, sdsdot

globals().update(aliases())


class _Procs(Mapping):
    """variant name -> `Variant` (its `.naive` proc and `.procs`, the public
    procs by case), for the machine of `exo2blas.machines` named `isa`."""

    def __init__(self, isa_name="avx512"):
        self._isa, self._variants = isa_name, None

    def _load(self):
        if self._variants is None:
            from .kernels import kernels
            from .machines import machine

            m = machine(self._isa)
            self._variants = {v.name: v for _, k in kernels() for v in k.variants(m)}
        return self._variants

    def __getitem__(self, name):
        return self._load()[name]

    def __iter__(self):
        return iter(self._load())

    def __len__(self):
        return len(self._load())


procs = _Procs()

__all__ = [*ROUTINES, *aliases(), "dsdot", "sdsdot", "rotg", "rotmg", "isa", "procs"]
_ = numpy_entry
