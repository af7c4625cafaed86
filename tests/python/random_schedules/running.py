"""Running random schedules and checking every procedure they produce.

A sequence starts from a kernel and applies random steps until
STEPS_PER_SEQUENCE are accepted; a primitive that raises anything but a
refusal (refusals.py) fails the test. Every accepted step's procedure is
then checked against the kernel's meaning (checking.py), the procedures of
several sequences compiled together with one compiler run. A wrong step is
reported with the seed, the schedule and the procedures before and after
it, unless it is a known hole (known_holes.py).
"""

import math
import os
import random
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field

import exo2.API_scheduling as S
from exo2.API_cursors import AllocCursor, CallCursor
from exo2.core import equivalence
from exo2.core.memory import MemGenError
from exo2.libs.memories import DRAM_STACK, DRAM_STATIC

from . import sanitizers
from .checking import compile_procedures, expected_runs, mismatch, run_in_child
from .corpus import KERNELS
from .generators import (
    CHECKED_WHEN_COMPILING,
    GENERATORS,
    CalleeCrash,
    Sequence,
    Step,
    has_parallel_loop,
    has_static_buffer,
)
from .known_holes import KNOWN_HOLES
from .navigation import View, walk
from .refusals import refusal_reason

SEED = int(os.environ.get("EXO2_RANDOM_SEED", "5"))
# Accepted steps a run checks, over all kernels; a few more are scheduled,
# since the steps after a known hole go unchecked.
# The default keeps CI within a few minutes; EXO2_RANDOM_STEPS=10000 (or
# more) is the long run.
TOTAL_CHECKED = int(os.environ.get("EXO2_RANDOM_STEPS", "3000"))
STEPS_PER_SEQUENCE = 10  # accepted steps before starting again from the kernel
ATTEMPTS_PER_SEQUENCE = 40
MAX_SEQUENCES = 200  # per kernel, in case most steps are refused
BATCH_STEPS = 100  # accepted steps compiled together
FAVORED_SHARE = 0.4  # of the steps of a kernel that names favored primitives
MAX_STATEMENTS = 80  # a sequence stops when the procedure grows past this
ACCEPTED_PER_PRIMITIVE = 20  # coverage every run must reach
SANITIZED_STEPS = 600  # accepted steps of the run under sanitizers
TOP_UP_SHARE = 0.5  # of the picks of a top-up sequence, its primitive's
MAX_TOP_UP = 200  # top-up sequences per primitive

PRIMITIVES = sorted(name for name in GENERATORS if hasattr(S, name))
LAST_SUMMARY = []  # the tables of the runs, printed at the end of the session


def accepted_per_kernel():
    return math.ceil(1.1 * TOTAL_CHECKED / len(KERNELS))


# --------------------------------------------------------------------------
# Statistics


@dataclass
class Statistics:
    accepted: Counter = field(default_factory=Counter)
    refused: Counter = field(default_factory=Counter)  # (primitive, reason)
    no_target: Counter = field(default_factory=Counter)
    known_holes: Counter = field(default_factory=Counter)  # (key, primitive)
    kernels: set = field(default_factory=set)
    checked: int = 0  # procedures run and compared
    top_ups: int = 0  # top-up sequences scheduled
    batches: int = 0
    started: float = field(default_factory=time.perf_counter)

    def summary(self):
        elapsed = time.perf_counter() - self.started
        reasons = sorted({r for _, r in self.refused})
        lines = [
            f"random schedules (EXO2_RANDOM_SEED={SEED}"
            f"{', sanitizers' if sanitizers.enabled() else ''}): {elapsed:.1f} s, "
            f"{self.checked} procedures checked in {self.batches} batches "
            f"({self.top_ups} top-up sequences)",
            f"{'primitive':<22}{'accepted':>9}{'refused':>8}{'no target':>10}  "
            "refused by reason",
        ]
        for name in PRIMITIVES:
            refused = {r: self.refused[(name, r)] for r in reasons}
            by_reason = ", ".join(f"{r} {n}" for r, n in refused.items() if n)
            lines.append(
                f"{name:<22}{self.accepted[name]:>9}{sum(refused.values()):>8}"
                f"{self.no_target[name]:>10}  {by_reason}"
            )
        lines.append(
            f"{'total':<22}{self.accepted.total():>9}{self.refused.total():>8}"
            f"{self.no_target.total():>10}"
        )
        for (key, primitive), n in sorted(self.known_holes.items()):
            lines.append(f"known hole {key} ({primitive}): {n} wrong results skipped")
        return "\n".join(lines)


# --------------------------------------------------------------------------
# Scheduling a sequence


@dataclass
class Record:
    """One sequence: `history[k]` is the procedure after `steps[:k]`."""

    kernel: object
    sequence_id: int
    steps: list
    history: list

    def report(self, index, why):
        """The failure report for `history[index]`."""
        steps = self.steps[:index]
        lines = [
            f"EXO2_RANDOM_SEED={SEED}, kernel {self.kernel.proc.name()}, "
            f"sequence {self.sequence_id}: step {index} is wrong",
            why,
            "schedule:",
            *(f"  {k + 1}. {step}" for k, step in enumerate(steps)),
            "before the last step:",
            str(self.history[index - 1]) if index else "(the kernel)",
            "after:",
            str(self.history[index]),
            f"reproduce: random_schedules.running.replay('{self.kernel.proc.name()}', "
            f"{self.sequence_id!r}) with EXO2_RANDOM_SEED={SEED}",
        ]
        return "\n".join(lines)


class Failure(AssertionError):
    """A step crashed or changed what the kernel computes."""


def allocations(p, seen=None):
    """The allocations of `p` and of the procedures it calls."""
    seen = set() if seen is None else seen
    seen.add(p.name())
    for stmt, _ in walk(p.body()):
        if isinstance(stmt, AllocCursor):
            yield stmt
        elif isinstance(stmt, CallCursor) and stmt.subproc().name() not in seen:
            yield from allocations(stmt.subproc(), seen)


# What code generation refuses, for what it checks rather than the
# primitives (docs/compiling-and-calling.md): a data race in a `par` loop,
# precisions, a call argument no longer in the callee's memory.
CODEGEN_REFUSALS = (
    "not parallelizable because of potential data races",
    "Errors occurred during precision checking",
    "expected argument in ",
)


def refused_when_compiling(p):
    """Whether code generation refuses `p` for what it checks."""
    # As in Exo, these memories declare a scalar as `float x[];`, which the
    # C compiler refuses.
    if any(
        not a.is_tensor() and a.mem() in (DRAM_STACK, DRAM_STATIC)
        for a in allocations(p)
    ):
        return True
    try:
        p.c_code_str()
    except MemGenError:
        return True
    except TypeError as e:
        # Other errors are left to the run, which reports them with the
        # schedule that led there.
        return any(message in str(e) for message in CODEGEN_REFUSALS)
    return False


def pick_primitive(kernel, seq):
    favored = [p for p in kernel.favored if p in GENERATORS]
    if favored and seq.rng.random() < FAVORED_SHARE:
        return seq.choice(favored)
    return seq.choice(PRIMITIVES)


def top_up_id(primitive, number):
    return f"{primitive}_{number}"


def pick_for(sequence_id):
    """How a sequence picks its primitives: a numbered one as
    `pick_primitive`; a top-up sequence (`top_up_id`) picks its primitive
    half the time."""
    if isinstance(sequence_id, int):
        return pick_primitive
    primitive = sequence_id.rsplit("_", 1)[0]

    def pick(kernel, seq):
        if seq.rng.random() < TOP_UP_SHARE:
            return primitive
        return pick_primitive(kernel, seq)

    return pick


def schedule_sequence(kernel, sequence_id, stats, pick=None):
    """Applies random steps to the kernel until STEPS_PER_SEQUENCE are
    accepted; raises Failure when a primitive crashes."""
    pick = pick or pick_for(sequence_id)
    seq = Sequence(
        random.Random(f"{SEED}:{kernel.proc.name()}:{sequence_id}"),
        tag=f"_{sequence_id}",
    )
    record = Record(kernel, sequence_id, [], [kernel.proc])
    # Code generation checks what a kernel's `par` loops and memories need.
    codegen_checks = has_parallel_loop(View(kernel.proc)) or has_static_buffer(
        View(kernel.proc)
    )
    for _ in range(ATTEMPTS_PER_SEQUENCE):
        if len(record.steps) == STEPS_PER_SEQUENCE:
            break
        name = pick(kernel, seq)
        current = record.history[-1]
        try:
            step = GENERATORS[name](View(current), seq)
        except CalleeCrash as e:
            raise Failure(_crash_report(record, e.step, e.__cause__)) from e
        if step is None:
            stats.no_target[name] += 1
            continue
        try:
            after = step.apply(current)
        except Exception as e:
            reason = refusal_reason(name, e)
            if reason is None:
                raise Failure(_crash_report(record, step, e)) from e
            stats.refused[(name, reason)] += 1
            continue
        codegen_checks |= name in CHECKED_WHEN_COMPILING
        try:
            refused = codegen_checks and refused_when_compiling(after)
        except Exception as e:  # code generation crashed
            raise Failure(_crash_report(record, step, e, after)) from e
        if refused:
            stats.refused[(name, "code generation")] += 1
            continue
        stats.accepted[name] += 1
        record.history.append(after)
        record.steps.append(step)
        if len(View(after).sites) > MAX_STATEMENTS:
            break
    return record


def _crash_report(record, step, exc, after="(none: the primitive crashed)"):
    trace = "".join(traceback.format_exception(exc)[-6:])
    record = Record(
        record.kernel,
        record.sequence_id,
        [*record.steps, step],
        [*record.history, after],
    )
    return record.report(len(record.steps), f"a crash, not a refusal:\n{trace}")


# --------------------------------------------------------------------------
# Checking the procedures of sequences


def check_records(records, runs, stats):
    """Runs every procedure of `records` (in history order); returns
    `[(record, index, why)]`, the first wrong procedure of each wrong
    record."""
    jobs = []  # (record number, history index, renamed procedure, modulo)
    for r, record in enumerate(records):
        kernel = record.kernel.proc.INTERNAL_proc()
        for index in range(1, len(record.history)):
            p = record.history[index]
            fields = equivalence.fields_modulo(kernel, p.INTERNAL_proc())
            modulo = [] if fields is None else [(c.name(), f) for c, f in fields]
            jobs.append((r, index, S.rename(p, f"checked{r}_{index}"), modulo))
    if not jobs:
        return []
    stats.batches += 1

    def work(send):
        compiled = compile_procedures([p for _, _, p, _ in jobs])
        bad = set()
        for (r, index, _p, modulo), kernel in zip(jobs, compiled, strict=True):
            if r in bad:
                continue
            send({"running": [r, index]})
            why = mismatch(kernel, runs, modulo)
            if why:
                bad.add(r)
                send({"wrong": [r, index], "why": why})

    values, crash = run_in_child(work)
    stats.checked += sum(1 for v in values if "running" in v)
    failures = [
        (records[v["wrong"][0]], v["wrong"][1], v["why"])
        for v in values
        if "wrong" in v
    ]
    if crash:
        running = [v["running"] for v in values if "running" in v]
        if not running:
            raise Failure(f"checking a batch crashed before any run:\n{crash}")
        r, index = running[-1]
        failures.append((records[r], index, f"a crash while running it: {crash}"))
    return failures


def known_hole(record, index):
    """The KNOWN_HOLES key of a wrong step, or None."""
    step = record.steps[index - 1]
    for key, hole in KNOWN_HOLES.items():
        if (
            step.primitive in hole.primitives
            and record.kernel.proc.name() in hole.kernels
        ):
            return key
        if hole.step and hole.step(step):
            return key
        if hole.pattern and hole.pattern(record.history[index]):
            return key
    return None


def check_batch(records, runs, stats):
    """Checks the records; returns the reports of the wrong steps that are
    not a known hole."""
    reports = []
    for record, index, why in check_records(records, runs, stats):
        key = known_hole(record, index)
        if key:
            stats.known_holes[(key, record.steps[index - 1].primitive)] += 1
        else:
            reports.append(record.report(index, why))
    return reports


def check_kernel_itself(kernel, runs):
    """Why the kernel's own C does not compute what it means, or None."""
    values, crash = run_in_child(
        lambda send: send(
            {"why": mismatch(compile_procedures([kernel.proc])[0], runs, [])}
        )
    )
    return crash or (values[0]["why"] if values else "no result")


def run_kernel(kernel, stats, accepted_target):
    """Schedules and checks random sequences on `kernel` until it has
    `accepted_target` accepted steps; returns how many it got."""
    stats.kernels.add(kernel.proc.name())
    runs = expected_runs(kernel)
    why = check_kernel_itself(kernel, runs)
    if why:
        raise Failure(f"the kernel {kernel.proc.name()} itself is wrong: {why}")
    accepted, pending, reports = 0, [], []
    for sequence_id in range(MAX_SEQUENCES):
        if accepted >= accepted_target:
            break
        try:
            record = schedule_sequence(kernel, sequence_id, stats)
        except Failure as e:
            reports.append(str(e))
            continue
        accepted += len(record.steps)
        pending.append(record)
        if sum(len(r.steps) for r in pending) >= BATCH_STEPS:
            reports += check_batch(pending, runs, stats)
            pending = []
    reports += check_batch(pending, runs, stats)
    if reports:
        raise Failure(f"{len(reports)} wrong steps:\n\n" + "\n\n".join(reports))
    return accepted


def top_up(stats):
    """Top-up sequences, over every kernel in turn, for each primitive
    accepted fewer than ACCEPTED_PER_PRIMITIVE times (some apply to few
    procedures, or are mostly refused), checked as the others (in one batch
    per kernel); at most MAX_TOP_UP sequences per primitive."""
    pending, reports = {}, []
    for primitive in PRIMITIVES:
        for number in range(MAX_TOP_UP):
            if stats.accepted[primitive] >= ACCEPTED_PER_PRIMITIVE:
                break
            kernel = KERNELS[number % len(KERNELS)]
            try:
                record = schedule_sequence(kernel, top_up_id(primitive, number), stats)
            except Failure as e:
                reports.append(str(e))
                continue
            stats.top_ups += 1
            pending.setdefault(kernel.proc.name(), []).append(record)
    for records in pending.values():
        reports += check_batch(records, expected_runs(records[0].kernel), stats)
    if reports:
        raise Failure(f"{len(reports)} wrong steps:\n\n" + "\n\n".join(reports))


def replay(kernel_name, sequence_id):
    """Schedules one sequence again and prints its steps and procedures
    (sequences depend only on EXO2_RANDOM_SEED, the kernel and their
    number or top-up name)."""
    kernel = next(k for k in KERNELS if k.proc.name() == kernel_name)
    record = schedule_sequence(kernel, sequence_id, Statistics())
    for step, p in zip(record.steps, record.history[1:], strict=True):
        print(f"{step}\n{p}\n")
    return record


def check_schedule(kernel, procedures):
    """Checks procedures given as the results of successive steps on
    `kernel` (for tests of the harness itself)."""
    steps = [Step("given") for _ in procedures]
    record = Record(kernel, 0, steps, [kernel.proc, *procedures])
    failures = check_records([record], expected_runs(kernel), Statistics())
    if failures:  # known holes included: this checks what is given
        raise Failure("\n\n".join(r.report(index, why) for r, index, why in failures))
