"""**[exo2]** Measuring kernels: medians, GFLOP/s, GB/s, a baseline ratio in
the same run, and the machine's roofline.

    m = exo2.bench.measure(kernel, M, N, K, A, B, C, baseline=numpy_gemm)
    print(m)        # median, min, IQR, GFLOP/s, GB/s, ratio, roofline bound

See docs/tuning-and-measuring.md. The probe (`probe()`) measures the clock,
the FMA rates and the bandwidth of each memory level once per machine and
caches them; `count(proc, sizes)` derives flop and byte counts from a
procedure; `interleaved` and `as_call` are the timing loop itself, for
harnesses that time many implementations (benchmarks/run.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from .counts import CountError, Counts, count
from .machine import Machine, machine_key, probe
from .roofline import Roof, roof
from .roofline import plot as plot_roofline
from .timing import Timing, as_call, calibrate, interleaved, time_batch

__all__ = [
    "CountError",
    "Counts",
    "Machine",
    "Measurement",
    "Roof",
    "Timing",
    "as_call",
    "calibrate",
    "count",
    "interleaved",
    "machine_key",
    "measure",
    "plot_roofline",
    "probe",
    "roof",
    "time_batch",
]

_PRECISIONS = {"F32": "f32", "F64": "f64", "F16": "f32", "R": "f32"}


@dataclass(frozen=True)
class Measurement:
    """What `measure` found. Times are seconds per call; `ratio` is
    baseline median / kernel median (above 1: the kernel is faster)."""

    name: str
    timing: Timing
    flops: float | None
    bytes: float | None
    baseline: Timing | None = None
    roof: Roof | None = None

    median = property(lambda self: self.timing.median)
    min = property(lambda self: self.timing.min)
    iqr = property(lambda self: self.timing.iqr)

    @property
    def gflops(self):
        return self.flops / self.median / 1e9 if self.flops is not None else None

    @property
    def gbs(self):
        return self.bytes / self.median / 1e9 if self.bytes is not None else None

    @property
    def ratio(self):
        return self.baseline.median / self.median if self.baseline else None

    @property
    def fraction(self):
        """GFLOP/s reached as a fraction of the roofline bound."""
        if self.roof is None or self.gflops is None:
            return None
        return self.gflops / self.roof.gflops

    def __str__(self):
        parts = [
            f"{self.name}: median {_seconds(self.median)}, min {_seconds(self.min)}, "
            f"IQR {_seconds(self.iqr)} ({len(self.timing.times)} x "
            f"{self.timing.calls_per_repeat} calls)"
        ]
        if self.gflops is not None:
            parts.append(f"{self.gflops:.3g} GFLOP/s")
        if self.gbs is not None:
            parts.append(f"{self.gbs:.3g} GB/s")
        if self.roof is not None and self.fraction is not None:
            parts.append(
                f"{100 * self.fraction:.0f}% of the {self.roof.limit} roof "
                f"({self.roof.gflops:.3g} GFLOP/s, {self.roof.level})"
            )
        if self.ratio is not None:
            parts.append(f"baseline / kernel = {self.ratio:.3g}")
        return "; ".join(parts)


def _seconds(t):
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6)):
        if t >= scale:
            return f"{t / scale:.3g} {unit}"
    return f"{t / 1e-9:.3g} ns"


def _proc_of(target):
    from ..API import Procedure
    from ..jit import JitKernel

    if isinstance(target, Procedure):
        return target
    if isinstance(target, JitKernel):
        return target.proc
    return None


def _bound_arguments(proc, args, kwargs):
    names = [a.name() for a in proc.args()]
    values = dict(zip(names, args, strict=False))
    values.update(kwargs)
    return values


def measure(
    target,
    *args,
    flops=None,
    bytes=None,  # noqa: A002 -- the documented keyword
    baseline=None,
    repeat=7,
    warmup=1,
    min_time=0.01,
    machine=None,
    plot=None,
    **kwargs,
):
    """Times `target(*args, **kwargs)` and returns a `Measurement`.

    `target`: an exo2 `Procedure` (JIT-compiled), a `JitKernel`, or any
    callable. Each of `repeat` repetitions makes enough calls to last
    `min_time` seconds (from a C loop for exo2 kernels, with the arguments
    checked once); `warmup` batches run first. `flops` and `bytes` default
    to the counts of the procedure (`exo2.bench.count`). `baseline`, a
    callable taking the same arguments (or a `Procedure` / `JitKernel`),
    is timed in the same run, its repetitions alternating with the
    kernel's. The roofline bound comes from `machine` (default: this
    machine's cached `probe()`); `plot=path` draws the roofline chart with
    the kernel (and the baseline) as points (needs matplotlib)."""
    proc = _proc_of(target)
    counts = None
    if proc is not None and (flops is None or bytes is None):
        values = _bound_arguments(proc, args, kwargs)
        sizes = {
            a.name(): int(values[a.name()])
            for a in proc.args()
            if a.type().is_indexable() and a.name() in values
        }
        try:
            counts = count(proc, sizes)
        except CountError:
            counts = None
        if counts is not None:
            flops = counts.flops if flops is None else flops
            bytes = counts.bytes if bytes is None else bytes
    calls = [as_call(target, args, kwargs)]
    if baseline is not None:
        calls.append(as_call(baseline, args, kwargs))
    timings = interleaved(calls, repeat=repeat, warmup=warmup, min_time=min_time)
    bound = None
    if flops is not None and bytes:
        machine = machine or probe()
        prec, working_set, writes = "f32", bytes, True
        if proc is not None:
            tensors = [a for a in proc.args() if a.type().is_numeric()]
            if tensors:
                prec = _PRECISIONS.get(tensors[0].type().name, "f32")
            if counts is not None:
                writes = bool(counts.writes)
        bound = roof(machine, flops, bytes, prec, working_set, writes)
    name = proc.name() if proc is not None else getattr(target, "__name__", "kernel")
    result = Measurement(
        name=name,
        timing=timings[0],
        flops=flops,
        bytes=bytes,
        baseline=timings[1] if baseline is not None else None,
        roof=bound,
    )
    if plot is not None:
        if bound is None:
            raise ValueError("exo2.bench.measure: plot= needs flop and byte counts")
        points = [(name, bound.intensity, result.gflops)]
        if result.baseline is not None:
            points.append(
                ("baseline", bound.intensity, flops / result.baseline.median / 1e9)
            )
        plot_roofline(machine, points, plot, prec=prec)
    return result
