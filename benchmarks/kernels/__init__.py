"""The registry of benchmarked kernels.

A `Kernel` is one operation (sgemm, saxpy, blur, ...) with everything the
runner needs: its cases (sizes, flop and byte counts), how to make inputs,
a NumPy reference with an error bound, the library baselines, and its exo2
variants. Every module of this package that defines kernels lists them in
`KERNELS`; `kernels_of(suite)` collects those of one suite.

Adding an exo2 variant is one function returning the procedure (scheduled
lazily, only when the runner needs it)::

    from benchmarks.kernels.gemm import SGEMM

    @SGEMM.variant("stdlib")
    def _():
        return schedule_with_stdlib(sgemm)

The runner binds the procedure's arguments by name: each size parameter
from the case's `sizes`, each buffer or scalar from the inputs (scalars are
0-d arrays). A case whose sizes violate one of the procedure's assertions
is reported as `n/a` for that variant. A variant whose parameter names
differ passes `bind=lambda sizes, inputs: [...]`.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

SUITES = ("sgemm", "dgemm", "level1", "halide")

# Unit roundoff per dtype (round to nearest).
UNIT_ROUNDOFF = {np.dtype(np.float32): 2.0**-24, np.dtype(np.float64): 2.0**-53}


def gamma(k, dtype):
    """Higham's gamma_k = k u / (1 - k u): a bound on the relative error of
    k floating-point operations in any order."""
    u = UNIT_ROUNDOFF[np.dtype(dtype)]
    return k * u / (1 - k * u)


@dataclass
class Case:
    """One size of a kernel. `x` is the plot's abscissa and `group` the
    curve family (e.g. "square" and "skinny" GEMMs are plotted apart)."""

    label: str
    sizes: dict
    flops: float
    bytes: float
    x: float
    group: str = "default"


@dataclass
class Check:
    """The expected value of one output and the allowed elementwise error.
    NaN in `expected` marks elements left unchecked."""

    expected: np.ndarray
    bound: np.ndarray | float

    def failure(self, name, got):
        """None if `got` is within the bound everywhere, else a message."""
        mask = ~np.isnan(self.expected)
        error = np.abs(np.asarray(got, dtype=np.float64) - self.expected)[mask]
        bound = np.broadcast_to(self.bound, self.expected.shape)[mask]
        bad = ~(error <= bound)  # NaN in the output fails too
        if not np.any(bad):
            return None
        worst = int(np.argmax(np.where(bad, error - bound, -np.inf)))
        return (
            f"output {name}: {int(bad.sum())} of {bad.size} checked elements off by more "
            f"than the error bound (worst: error {error[worst]:.3g}, bound {bound[worst]:.3g})"
        )


def check_outputs(checks, inputs):
    """None if every output in `inputs` passes its `Check`, else a message."""
    for name, check in checks.items():
        problem = check.failure(name, inputs[name])
        if problem is not None:
            return problem
    return None


@dataclass
class Variant:
    name: str
    make: Callable  # () -> exo2 Procedure
    bind: Callable | None = None  # (sizes, inputs) -> argument list

    def arguments(self, procedure, sizes, inputs):
        """The procedure's arguments: by name from `sizes` and `inputs`,
        unless the variant has its own `bind`."""
        if self.bind is not None:
            return self.bind(sizes, inputs)
        return [
            sizes[a.name()] if a.name() in sizes else inputs[a.name()]
            for a in procedure.args()
        ]


@dataclass
class Kernel:
    """A benchmarked operation. See the module docstring.

    - `cases(quick, sizes)` -> list of `Case` (`sizes`: a list of n given
      on the command line, or None for the defaults);
    - `inputs(sizes, rng)` -> {name: array}; outputs are updated in place;
    - `reference(inputs)` -> {output name: Check}, from pristine inputs;
    - `baseline(library, inputs)` -> zero-argument callable, or None when
      the library lacks the operation;
    - `prec`: "f32" or "f64" (selects the peak of the roofs);
    - `metric`: "gflops" or "gbs", the unit of the Markdown table;
    - `libraries`: the baseline libraries that have the operation (None:
      all of them).
    """

    name: str
    suite: str
    prec: str
    cases: Callable
    inputs: Callable
    reference: Callable
    baseline: Callable
    metric: str = "gflops"
    description: str = ""
    libraries: tuple | None = None
    variants: dict = field(default_factory=dict)

    def variant(self, name, bind=None):
        """Decorator registering an exo2 variant: `make()` returns the
        procedure to time."""

        def register(make):
            self.variants[name] = Variant(name, make, bind)
            return make

        return register


def _modules():
    for info in pkgutil.iter_modules(__path__):
        yield info.name


def kernels_of(suite):
    """The kernels of `suite`, and a note for each module that failed to
    import."""
    kernels, notes = [], []
    for name in _modules():
        try:
            module = importlib.import_module(f"{__name__}.{name}")
        except Exception as error:  # a half-written module must not stop the others
            notes.append(f"benchmarks/kernels/{name}.py: import failed: {error!r}")
            continue
        # Modules without KERNELS are sources other modules wrap.
        kernels.extend(k for k in getattr(module, "KERNELS", ()) if k.suite == suite)
    return kernels, notes
