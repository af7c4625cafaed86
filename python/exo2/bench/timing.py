"""Timing calls: batches of calls, calibration, interleaved repetitions and
their statistics.

A *call* is a zero-argument callable; where it has `repeat(number)` (a C
loop making `number` calls, see `as_call`), a batch is timed through it, so
a kernel of a microsecond is not timed as Python's call overhead. Several
calls are timed *interleaved*: repetition r of every call runs before
repetition r + 1 of any, so that drift of a loaded machine (clock, other
jobs) hits them alike and their ratio stays fair.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

from . import native


def as_call(target, args=(), kwargs=None):
    """A zero-argument call of `target(*args, **kwargs)`, as cheap as it can
    be made: an exo2 `Procedure` is JIT-compiled, and a `JitKernel` bound
    (its arguments checked once, see `JitKernel.bind`) and repeated from a C
    loop where its arguments are machine words; any other callable is
    called from Python (a zero-argument one with `repeat(number)` keeps
    it)."""
    from ..API import Procedure
    from ..jit import JitKernel, jit

    kwargs = kwargs or {}
    if isinstance(target, Procedure):
        target = jit(target)
    if isinstance(target, JitKernel):
        bound = target.bind(*args, **kwargs)
        if bound.function is not None:
            repeat = native.word_loop(bound.function, bound.c_args)
            if repeat is not None:
                bound.repeat = repeat
        return bound
    if not callable(target):
        raise TypeError(
            f"exo2.bench: expected a Procedure, a JitKernel or a callable, "
            f"got {type(target).__name__}"
        )
    if not args and not kwargs:
        return target
    return lambda: target(*args, **kwargs)


def time_batch(call, number):
    """Seconds per call of `number` calls (through `call.repeat` if any)."""
    repeat = getattr(call, "repeat", None)
    t0 = time.perf_counter()
    if repeat is not None:
        repeat(number)
    else:
        for _ in range(number):
            call()
    return (time.perf_counter() - t0) / number


def calibrate(call, min_time):
    """`(number, first)`: calls per repetition so that one repetition lasts
    at least `min_time` seconds, and the time of the first call."""
    first = time_batch(call, 1)
    number, per_call = 1, first
    while per_call * number < min_time:
        number = max(number * 2, int(min_time / max(per_call, 1e-9) * 1.1))
        per_call = time_batch(call, number)
    return number, first


@dataclass(frozen=True)
class Timing:
    """Per-call seconds of each repetition, and their statistics."""

    times: tuple
    calls_per_repeat: int

    @property
    def median(self):
        return statistics.median(self.times)

    @property
    def min(self):
        return min(self.times)

    @property
    def max(self):
        return max(self.times)

    @property
    def quartiles(self):
        """The first and third quartiles (the repetitions themselves when
        there are fewer than 4)."""
        if len(self.times) < 4:
            return min(self.times), max(self.times)
        q1, _, q3 = statistics.quantiles(self.times, n=4, method="inclusive")
        return q1, q3

    @property
    def iqr(self):
        q1, q3 = self.quartiles
        return q3 - q1


def interleaved(calls, repeat=7, warmup=1, min_time=0.01):
    """A `Timing` per call: after `warmup` batches each, `repeat`
    repetitions, each at least `min_time` seconds, interleaved."""
    numbers = []
    for call in calls:
        number, _ = calibrate(call, min_time)
        numbers.append(number)
        for _ in range(warmup):
            time_batch(call, number)
    times = [[] for _ in calls]
    for _ in range(repeat):
        for call, number, out in zip(calls, numbers, times, strict=True):
            out.append(time_batch(call, number))
    return [Timing(tuple(t), n) for t, n in zip(times, numbers, strict=True)]
