"""The search loop: propose a point, schedule, compile, check and time it,
record it in the study; as many worker processes as asked, sharing the
study through its storage.

Each evaluation of a point:

1. the known constraints: a point they refuse is recorded (`constraint`)
   and never scheduled (only samplers that ignore them propose one);
2. `schedule(point)` -> a procedure; `SchedulingError` marks the point
   infeasible, as does a C compiler error from the JIT;
3. the check: the scheduled kernel and the unscheduled `reference` run
   on the same random inputs, and every array must agree (relative
   tolerance 1e-3 in f32, 1e-9 in f64); a mismatch raises `WrongResult`
   and stops the search -- a schedule that computes something else is a
   bug, not a slow point;
4. the timing: `exo2.bench` repetitions under a machine-wide lock (a file
   lock in the cache directory), so that workers compile in parallel but
   time one at a time; the point's value is the median seconds per call.

A point proposed again (samplers without memory do that) is answered from
the study, and counts neither as an evaluation nor against the budget.
The budget is the number of evaluations of the study, all workers and
earlier runs included, so running `search` again resumes it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import multiprocessing
import os
import random
import socket
import time
from dataclasses import dataclass, field

import numpy as np

from ..bench import as_call, interleaved, machine_key
from ..errors import SchedulingError
from ..jit import JitCompileError, cache_dir, jit
from .sampler import STATUS, BayesianSampler, observations, under_way


class Infeasible(Exception):
    """A point that cannot be built (raised by an objective, or for a
    SchedulingError or a compile error)."""


class WrongResult(Exception):
    """A scheduled kernel that computes something else than the reference."""


def _optuna():
    try:
        import optuna
    except ImportError as error:
        raise ImportError("exo2.tune needs optuna (pip install optuna)") from error
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    return optuna


def default_storage():
    """The tuning database when none is given: an SQLite file in the cache
    directory (`exo2.jit.cache_dir() / "tune" / "studies.db"`)."""
    path = cache_dir() / "tune" / "studies.db"
    path.parent.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{path}"


def study_name(kernel, sizes, machine=None):
    """The study of `kernel` (a name) at `sizes` (a dict) on `machine`
    (default: this one, `exo2.bench.machine_key()`)."""
    sizes_text = ",".join(f"{k}={v}" for k, v in sorted(dict(sizes).items()))
    return f"{kernel}|{sizes_text}|{machine or machine_key()}"


def _storage(url):
    """An Optuna storage for `url` (a storage object passes through)."""
    optuna = _optuna()
    if isinstance(url, str) and url.startswith("sqlite"):
        # concurrent workers wait for the file lock instead of failing
        return optuna.storages.RDBStorage(
            url, engine_kwargs={"connect_args": {"timeout": 60}}
        )
    return url


def _sampler(strategy, space, seed, warm_start):
    optuna = _optuna()
    if strategy in (None, "bayes"):
        return BayesianSampler(space, seed=seed, warm_start=warm_start)
    if strategy == "tpe":
        return optuna.samplers.TPESampler(seed=seed)
    if strategy == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    if strategy == "gp":
        return optuna.samplers.GPSampler(seed=seed)  # needs torch and scipy
    if isinstance(strategy, optuna.samplers.BaseSampler):
        return strategy
    raise ValueError(
        f"exo2.tune: unknown strategy {strategy!r} (bayes, tpe, random, gp, "
        "or an optuna sampler)"
    )


@contextlib.contextmanager
def timing_lock():
    """Held while a worker times a kernel: one timing at a time on this
    machine, whichever process or study it belongs to."""
    path = cache_dir() / "tune" / "timing.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


# ---- the objective of a kernel ------------------------------------------------


def _inputs(args, seed):
    if callable(args):
        return tuple(args(np.random.default_rng(seed)))
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def _tolerance(array):
    return 1e-9 if array.dtype == np.float64 else 1e-3


class KernelObjective:
    """Seconds per call of `schedule(point)`, checked against `reference`;
    see the module docstring."""

    def __init__(self, schedule, reference, args, check=True, repeat=5, min_time=0.005):
        self.schedule = schedule
        self.reference = reference
        self.args = args
        self.check = check
        self.repeat = repeat
        self.min_time = min_time
        self._expected = None

    def _reference_outputs(self):
        if self._expected is None:
            inputs = _inputs(self.args, 0)
            jit(self.reference)(*inputs)
            self._expected = inputs
        return self._expected

    def _check(self, kernel, point):
        expected = self._reference_outputs()
        inputs = _inputs(self.args, 0)
        kernel(*inputs)
        names = [a.name() for a in self.reference.args()]
        for name, got, want in zip(names, inputs, expected, strict=False):
            if not isinstance(want, np.ndarray):
                continue
            tol = _tolerance(want)
            scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
            if not np.allclose(got, want, rtol=tol, atol=tol * scale, equal_nan=True):
                worst = float(np.max(np.abs(got.astype(float) - want.astype(float))))
                raise WrongResult(
                    f"exo2.tune: the schedule at {point} computes a wrong '{name}' "
                    f"(largest difference {worst:.3g} from the unscheduled "
                    f"{self.reference.name()}); a schedule must keep the results"
                )

    def build(self, point):
        """The checked `JitKernel` of `point`; raises `Infeasible` or
        `WrongResult`."""
        try:
            proc = self.schedule(point)
            kernel = jit(proc)
        except (SchedulingError, JitCompileError) as error:
            raise Infeasible(f"{type(error).__name__}: {error}") from error
        if self.check:
            self._check(kernel, point)
        return kernel

    def time(self, kernel):
        """Median seconds per call of `kernel`, under the timing lock."""
        call = as_call(kernel, _inputs(self.args, 1))
        with timing_lock():
            (timing,) = interleaved(
                [call], repeat=self.repeat, warmup=1, min_time=self.min_time
            )
        return timing.median

    def __call__(self, point):
        return self.time(self.build(point))

    def compare(self, points, repeat=9):
        """`[(point, Timing)]` of `points` timed together, their
        repetitions interleaved, fastest median first: the confirmation of
        a search's best few on a noisy machine, where one evaluation's
        median can be a lucky one."""
        calls = [as_call(self.build(p), _inputs(self.args, 1)) for p in points]
        with timing_lock():
            timings = interleaved(
                calls, repeat=repeat, warmup=1, min_time=self.min_time
            )
        return sorted(zip(points, timings, strict=True), key=lambda pt: pt[1].median)


# ---- the loop ---------------------------------------------------------------------


def _evaluations(study):
    """Trials that cost an evaluation (feasible, infeasible or wrong), and
    the ones under way."""

    done = running = 0
    for trial in study.get_trials(deepcopy=False):
        status = trial.user_attrs.get(STATUS)
        if under_way(trial):
            running += 1
        elif status in ("ok", "infeasible", "wrong"):
            done += 1
    return done, running


def _taken(study, space, key, number):
    """Whether a trial other than `number` is evaluating the point `key`
    now (the parameters of a trial are stored when it is asked, before this
    check, so two workers that asked for one point cannot both miss the
    other)."""
    from optuna.trial import TrialState

    for trial in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        if (
            trial.number != number
            and under_way(trial)
            and STATUS not in trial.user_attrs
        ):
            point = space.from_optuna(trial.params)
            if point is not None and space.key(point) == key:
                return True
    return False


def _wrong_trial(study):
    for trial in study.get_trials(deepcopy=False):
        if trial.user_attrs.get(STATUS) == "wrong":
            return trial
    return None


def _open_study(optuna, name, storage, sampler, tries=5):
    """The study, created if missing. Workers that start together on
    several machines may race to create the database's tables or the
    study: the loser tries again."""
    for attempt in range(tries):
        try:
            return optuna.create_study(
                study_name=name,
                storage=_storage(storage),
                sampler=sampler,
                load_if_exists=True,
            )
        except Exception:  # the race surfaces as the database's own errors
            if attempt == tries - 1:
                raise
            time.sleep(0.2 * (attempt + 1) + random.random() * 0.3)


def _work(
    space, objective, storage, name, strategy, seed, warm_start, budget, progress
):
    """One worker: evaluates points until the study has `budget`
    evaluations. Raises WrongResult on a wrong schedule."""
    optuna = _optuna()
    from optuna.trial import TrialState

    sampler = _sampler(strategy, space, seed, warm_start)
    study = _open_study(optuna, name, storage, sampler)
    distributions = space.distributions()
    asks = 0
    while True:
        done, running = _evaluations(study)
        if progress is not None:
            progress(study, done)
        if done + running >= budget or asks > 20 * budget + 100:
            return study
        if _wrong_trial(study) is not None:
            return study
        asks += 1
        trial = study.ask(distributions)
        point = space.from_optuna(trial.params)
        if not space.allows(point):
            trial.set_user_attr(STATUS, "constraint")
            study.tell(trial, state=TrialState.FAIL)
            continue
        key = space.key(point)
        # first whether another worker has it, then whether it is done: the
        # other order misses a point finished between the two reads
        if _taken(study, space, key, trial.number):
            trial.set_user_attr(STATUS, "repeat")
            study.tell(trial, state=TrialState.FAIL)
            continue
        known, failed, _ = observations(study, space)
        if key in known or key in failed:  # answered from the study
            trial.set_user_attr(STATUS, "repeat")
            if key in known:
                study.tell(trial, known[key][1])
            else:
                study.tell(trial, state=TrialState.FAIL)
            continue
        trial.set_user_attr("point", json.dumps(point, default=list))
        trial.set_user_attr("worker", f"{socket.gethostname()}:{os.getpid()}")
        try:
            seconds = objective(point)
        except Infeasible as error:
            trial.set_user_attr(STATUS, "infeasible")
            trial.set_user_attr("error", str(error)[:2000])
            study.tell(trial, state=TrialState.FAIL)
            continue
        except WrongResult as error:
            trial.set_user_attr(STATUS, "wrong")
            trial.set_user_attr("error", str(error)[:2000])
            study.tell(trial, state=TrialState.FAIL)
            raise
        except BaseException:
            study.tell(trial, state=TrialState.FAIL)
            raise
        trial.set_user_attr(STATUS, "ok")
        study.tell(trial, seconds)


def _child(*args):
    try:
        _work(*args, None)
    except WrongResult:
        os._exit(3)
    except BaseException:
        import traceback

        traceback.print_exc()
        os._exit(1)
    os._exit(0)


@dataclass
class Result:
    """What a search found: the best point and its seconds per call, every
    evaluation in order (`history`: `(point, seconds or None if
    infeasible)`), and the Optuna study."""

    study: object
    space: object
    best_point: dict | None
    best_seconds: float | None
    history: list = field(default_factory=list)

    def top(self, k):
        """The `k` fastest feasible points, fastest first."""
        feasible = sorted(
            (s, i) for i, (_, s) in enumerate(self.history) if s is not None
        )
        return [self.history[i][0] for _, i in feasible[:k]]

    @property
    def evaluations(self):
        return len(self.history)

    @property
    def infeasible(self):
        return sum(1 for _, s in self.history if s is None)

    def best_so_far(self):
        """The best seconds after each evaluation (None before the first
        feasible one)."""
        out, best = [], None
        for _, seconds in self.history:
            if seconds is not None and (best is None or seconds < best):
                best = seconds
            out.append(best)
        return out


def result_of(study, space):
    """The `Result` recorded in `study`."""
    history = []
    for trial in sorted(study.get_trials(deepcopy=False), key=lambda t: t.number):
        status = trial.user_attrs.get(STATUS)
        point = space.from_optuna(trial.params)
        if status == "ok":
            history.append((point, trial.value))
        elif status == "infeasible":
            history.append((point, None))
    feasible = [(p, s) for p, s in history if s is not None]
    best_point, best_seconds = min(feasible, key=lambda ps: ps[1], default=(None, None))
    return Result(study, space, best_point, best_seconds, history)


def _bar(budget, enabled):
    if not enabled:
        return None, None
    try:
        from tqdm import tqdm
    except ImportError as error:
        raise ImportError(
            "exo2.tune: the progress bar needs tqdm (pip install tqdm), "
            "or pass progress=False"
        ) from error
    bar = tqdm(total=budget, unit="eval", desc="tuning")

    def update(study, done):
        bar.n = min(done, budget)
        try:
            value = study.best_value
            bar.set_postfix_str(f"best {value * 1e6:.4g} us")
        except ValueError:
            pass
        bar.refresh()

    return bar, update


def search(
    space,
    schedule=None,
    reference=None,
    args=None,
    *,
    objective=None,
    budget=30,
    strategy="bayes",
    kernel=None,
    sizes=None,
    storage=None,
    study=None,
    jobs=1,
    seed=None,
    warm_start=(),
    check=True,
    repeat=5,
    min_time=0.005,
    progress=True,
):
    """Searches `space` for the fastest schedule; returns a `Result`.

    `schedule(point)` returns the scheduled procedure of a point (a dict by
    parameter name); `reference` is the unscheduled procedure, and `args`
    its arguments (a tuple, or a function of a NumPy `Generator` returning
    one: fresh random inputs). Or give `objective(point) -> seconds`
    (raising `Infeasible`) instead of the three.

    `budget`: evaluations of the study in all (earlier runs included).
    `strategy`: "bayes" (`BayesianSampler`, the default), "tpe" (Optuna's
    default sampler), "random", "gp", or an Optuna sampler. `storage`: an
    Optuna storage URL (default `default_storage()`, an SQLite file;
    "postgresql://..." for workers on several machines). The study is
    named `study_name(kernel, sizes)`: `kernel` defaults to the reference's
    name and `sizes` to its size arguments in `args`; `study=` names it
    outright. `jobs`: worker processes on this machine (they schedule and
    compile in parallel and time one at a time). `warm_start`: points to
    evaluate first (e.g. the hand-chosen constants, or
    `best(...)` of another size)."""
    if objective is None:
        if schedule is None or reference is None or args is None:
            raise TypeError(
                "exo2.tune.search: give schedule, reference and args, or objective"
            )
        objective = KernelObjective(
            schedule, reference, args, check=check, repeat=repeat, min_time=min_time
        )
        if sizes is None:
            values = _inputs(args, 0)
            sizes = {
                a.name(): int(v)
                for a, v in zip(reference.args(), values, strict=False)
                if a.type().is_indexable()
            }
        kernel = kernel or reference.name()
    if study is None:
        if kernel is None:
            raise TypeError("exo2.tune.search: name the study (study=) or the kernel")
        study = study_name(kernel, sizes or {})
    storage = storage or default_storage()
    children = []
    if jobs > 1:
        # The study (and the database's tables) exist before the workers
        # start, so that they do not race to create them; the connection
        # is closed, as forked processes must not share it.
        created = _storage(storage)
        _optuna().create_study(study_name=study, storage=created, load_if_exists=True)
        engine = getattr(created, "engine", None)
        if engine is not None:
            engine.dispose()
        context = multiprocessing.get_context("fork")
        for j in range(1, jobs):
            worker_seed = None if seed is None else seed + 1000 * j
            process = context.Process(
                target=_child,
                args=(space, objective, storage, study, strategy, worker_seed,
                      warm_start, budget),
            )  # fmt: skip
            process.start()
            children.append(process)
    bar, update = _bar(budget, progress)
    try:
        result_study = _work(
            space, objective, storage, study, strategy, seed, warm_start, budget, update
        )
    finally:
        for process in children:
            process.join()
        if bar is not None:
            bar.close()
    wrong = _wrong_trial(result_study)
    if wrong is not None:
        raise WrongResult(wrong.user_attrs.get("error", "a wrong schedule"))
    for process in children:
        if process.exitcode not in (0, 3):
            raise RuntimeError(
                f"exo2.tune: a worker process failed ({process.exitcode})"
            )
    return result_of(result_study, space)


def load(space, study, storage=None):
    """The `Result` recorded in the study named `study`."""
    optuna = _optuna()
    loaded = optuna.load_study(
        study_name=study, storage=_storage(storage or default_storage())
    )
    return result_of(loaded, space)


def best(kernel, sizes, space=None, storage=None, machine=None):
    """The best point recorded for `kernel` (a name or the reference
    procedure) at `sizes` on `machine` (default: this one), or None when
    nothing was tuned there. Without `space`, the point is read from the
    trial's record."""
    optuna = _optuna()
    name = kernel if isinstance(kernel, str) else kernel.name()
    try:
        loaded = optuna.load_study(
            study_name=study_name(name, sizes, machine),
            storage=_storage(storage or default_storage()),
        )
    except KeyError:
        return None
    trials = [
        t
        for t in loaded.get_trials(deepcopy=False)
        if t.user_attrs.get(STATUS) == "ok" and t.value is not None
    ]
    if not trials:
        return None
    trial = min(trials, key=lambda t: t.value)
    if space is not None:
        return space.from_optuna(trial.params)
    point = json.loads(trial.user_attrs["point"])
    return {k: tuple(v) if isinstance(v, list) else v for k, v in point.items()}
