"""The parallel check (docs/cuda.md, "Checking a kernel").

`check_parallel(proc, sms=132, **sizes)` proves that the kernels of `proc`
compute, in parallel, what their sequential reading computes. Without sizes
it runs tier A (static rules, all sizes); with values for every size (and
index or bool) parameter it also runs tier B, the abstract machine, with
`sms` simulated multiprocessors (fewer SMs make each CTA run several tasks).
Violations raise `ParallelSafetyError` (a `TypeError`) listing each one.
"""

from dataclasses import dataclass

from ... import _core
from ...API_types import ProcedureBase


@dataclass(frozen=True)
class ParallelCheckReport:
    """What `check_parallel` did: the tiers run ("A", "B"), the kernels
    checked, the statement instances tier B executed, and the seconds."""

    tiers: tuple
    kernels: int
    events: int
    seconds: float


def check_parallel(proc, sms=132, **sizes):
    if not isinstance(proc, ProcedureBase):
        raise TypeError("check_parallel expects a Procedure")
    if not isinstance(sms, int) or isinstance(sms, bool) or sms < 1:
        raise ValueError(f"check_parallel: sms must be a positive int, got {sms!r}")
    values = {}
    for name, value in sizes.items():
        if isinstance(value, bool):
            value = int(value)
        if not isinstance(value, int):
            raise TypeError(f"check_parallel: {name} must be an int, got {value!r}")
        values[name] = value
    report = _core.check_parallel(proc.INTERNAL_proc(), values, bool(sizes), sms)
    return ParallelCheckReport(
        tuple(report["tiers"]), report["kernels"], report["events"], report["seconds"]
    )
