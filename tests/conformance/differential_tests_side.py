"""One side of the differential run of exo2's own tests
(docs/internals/conformance.md, "Differential runs"): imports a test module
of tests/python on exo2 or, through the import alias `exo2` -> `exo`, on
Exo, calls its `test_*` functions, and records per test what
differential_trace.py records for a program: every kernel the test file
defines and every scheduling operation it calls, with the printed result or
the error. Written as JSON.

    python differential_tests_side.py --side exo2|exo --out trace.json \\
        [--sizes-from EXO2_TRACE] tests/python/test_x.py

Tests run as pytest would run them, with what the differential needs
changed: `pytest.mark.parametrize` is expanded; `tmp_path`,
`tmp_path_factory`, `monkeypatch`, `capsys` and the module's own fixtures
are given, and a test needing any other fixture is skipped (counted);
`pytest.raises` catches any error, whatever its class or message (the two
compilers' classes and texts differ; both sides' errors are recorded as
events); the tests' `schedule_check.assert_same_results(before, after,
sizes)` (exo2's JIT) records the check as an event instead. A kernel the
compiler refuses while the module is imported is recorded and replaced by
a placeholder, so that the module's other tests still run (a test that
uses the placeholder stops; one whose code names it is flagged).

Results: after the tests, every procedure an event gave is compiled by its
own compiler (`compile_procs`, differential_c.py) and run on seeded random
inputs, on sizes exo2 chooses: the sizes the test gave its
`assert_same_results`, or, for any other procedure, the first of a list of
small candidates for which all of the procedure's preconditions hold by
exo2's own check (its JIT's): a run with a violated precondition is never
made. Exo's side runs a procedure on the sizes exo2 chose for the same
event (`--sizes-from`), when both printed the same procedure there.
"""

import argparse
import contextlib
import importlib.util
import inspect
import io
import itertools
import json
import random
import shutil
import signal
import sys
import tempfile
import time
import types
from collections import namedtuple
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from differential_c import (  # noqa: E402
    build_libraries,
    call_with,
    compile_libraries,
    deterministic_flags,
    error_text,
    fill_fresh_memory,
    generate_c,
    is_control,
    make_inputs,
    outputs,
    run_each_in_child,
    shape_value,
    signature,
)
from differential_c import cflags as c_flags  # noqa: E402
from differential_trace import (  # noqa: E402
    PROCEDURE_METHODS,
    Recorder,
    install_side,
    instrument,
    printed,
)

TEST_TIMEOUT_S = 60
CFLAGS = ("-O0", "-march=native")  # what the C means, not its speed
FILL_BYTES = (0x5A, 0x3C)  # for heap memory a kernel reads before writing it
MAX_ELEMENTS = 1 << 16  # of all array arguments together, for chosen sizes
# Sizes tried for a procedure's size arguments: every argument the same
# value first, then seeded random combinations.
SAME_SIZES = (8, 16, 4, 12, 6, 2, 32, 1, 3, 5, 7, 64, 24, 10, 9)
RANDOM_SIZES = (*range(1, 17), 24, 32, 48, 64)
RANDOM_TRIES = 200


class KernelRefused(BaseException):
    """A test used a kernel the compiler refused when the module was
    imported (a BaseException: `pytest.raises` must not catch it)."""


class TestTimeout(BaseException):
    pass


class RefusedKernel:
    """What `@proc` gives, while the module is imported, for a kernel the
    compiler refuses: any use stops the test."""

    def __init__(self, name):
        object.__setattr__(self, "_refused_name", name)

    def __getattr__(self, name):
        raise KernelRefused(self._refused_name)

    def __str__(self):
        raise KernelRefused(self._refused_name)

    __repr__ = __str__

    def __call__(self, *args, **kwargs):
        raise KernelRefused(self._refused_name)


# --------------------------------------------------------------------------- #
# Sizes (exo2's side) and results (both sides)


def precondition_check(p):
    """A function telling whether every precondition of `p` holds for given
    sizes and contiguous array arguments, by exo2's own check (its JIT's,
    whose source each precondition is): one it cannot evaluate (it reads
    a configuration field) counts as violated."""
    from exo2 import _core
    from exo2.jit import _control_expr

    codes = [
        compile(_control_expr(text), "<precondition>", "eval")
        for text in _core.proc_preconditions(p.INTERNAL_proc())
    ]
    tensors = [a for a in p.args() if a.is_tensor()]

    def holds(sizes):
        if not codes:
            return True
        shapes = {a.name(): [shape_value(d, sizes) for d in a.shape()] for a in tensors}

        def stride(buf, dim):
            stride = 1
            for extent in shapes[buf][dim + 1 :]:
                stride *= extent
            return stride

        names = {**sizes, **{n: n for n in shapes}, "stride": stride}
        try:
            return all(eval(code, {}, names) for code in codes)  # noqa: S307
        except Exception:  # noqa: BLE001
            return False

    return holds


def _runnable(p, sizes):
    """Why `p` cannot run on `sizes` (None when it can): a parameter
    inputs() cannot give, an empty or too large array."""
    from differential_c import DTYPES

    elements = 0
    for arg in p.args():
        kind = arg.type().name
        if is_control(arg) or kind == "Bool":
            continue
        if kind not in DTYPES or arg.mem().name() != "DRAM":
            return f"a parameter of memory {arg.mem().name()} or type {kind}"
        if arg.is_tensor():
            count = 1
            for d in arg.shape():
                extent = shape_value(d, sizes)
                if extent < 1:
                    return "an empty array"
                count *= extent
            elements += count
    return "too large" if elements > MAX_ELEMENTS else None


def choose_sizes(p):
    """`(sizes, None)`: the first candidate sizes on which `p` can run with
    its preconditions holding; `(None, why)` when there is none."""
    names = [a.name() for a in p.args() if is_control(a)]
    rng = random.Random(0)
    candidates = itertools.chain(
        ({n: v for n in names} for v in SAME_SIZES),
        ({n: rng.choice(RANDOM_SIZES) for n in names} for _ in range(RANDOM_TRIES)),
    )
    holds = precondition_check(p)
    for sizes in candidates if names else [{}]:
        try:
            why = _runnable(p, sizes)
        except Exception as e:  # noqa: BLE001 (a shape it cannot evaluate)
            return None, f"a shape: {error_text(e)}"
        if why is not None and why.startswith("a parameter"):
            return None, why
        if why is None and holds(sizes):
            return sizes, None
    return None, "no candidate sizes satisfy its preconditions"


def _signature(p):
    """A procedure's parameters as printed."""
    return printed(p).split("):\n", 1)[0].split("(", 1)[1]


class Results:
    """The procedures to run, gathered while the tests run: each event's
    procedures and sizes (one run per distinct procedure text and sizes).
    Exo's side generates each one's C at once: a later operation may change
    a procedure of Exo's in place (its `mult_dim` does)."""

    def __init__(self, side, workdir):
        self.side, self.workdir = side, workdir
        self.jobs = {}  # (text, sizes) -> [procedure or its C, its signature]
        self.events = []  # (event, [(text, sizes) per procedure])
        self.seconds = {}

    def add(self, event, procs, sizes):
        import exo2.API_scheduling as S

        event["results_of"] = ["result", "given"][: len(procs)]
        if event["kind"] == "check":
            event["results_of"] = ["before", "after"]
        keys = []
        for p in procs:
            text = printed(p)
            key = (text, json.dumps(sizes, sort_keys=True))
            if key not in self.jobs:
                rename = getattr(S.rename, "__wrapped__", S.rename)
                q = rename(p, f"dt_{len(self.jobs)}")
                spec = signature(q, sizes, text)
                c = q if self.side == "exo2" else generate_c(q, self.workdir)
                self.jobs[key] = (c, spec, q.name())
            keys.append(key)
        self.events.append((event, keys))

    def run(self):
        """Compiles the procedures' C (exo2's in one C file, Exo's one by
        one) and runs each in a forked child; fills in the events'
        `results`: per procedure, its outputs or why it has none."""
        started = time.perf_counter()
        keys = list(self.jobs)
        flags = deterministic_flags(c_flags(CFLAGS))
        if self.side == "exo2":
            procs = [self.jobs[k][0] for k in keys]
            libraries = compile_libraries(procs, self.workdir, flags)
        else:
            libraries = build_libraries([self.jobs[k][0] for k in keys], flags)

        def work(n):
            library, (_, spec, name) = libraries[n], self.jobs[keys[n]]
            if isinstance(library, str):
                return library
            if spec is None:
                return "not run: a parameter this cannot give"
            try:
                function = getattr(library, name)
            except AttributeError:  # an instruction: no C function
                return "not run: no C function"
            runs = []
            for byte in FILL_BYTES:  # twice, memory never written filled apart
                fill_fresh_memory(byte)
                values = make_inputs(spec, seed=0)
                call_with(spec, function, values)
                runs.append(outputs(values))
            if runs[0] != runs[1]:
                return "reads memory it never wrote (or freed): its results vary"
            return runs[0]

        compiled = time.perf_counter()
        everything = run_each_in_child(len(keys), work)
        self.seconds = {
            "compiling": round(compiled - started, 1),
            "running": round(time.perf_counter() - compiled, 1),
        }
        by_key = dict(zip(keys, everything, strict=True))
        for event, event_keys in self.events:
            event["results"] = [by_key[k] for k in event_keys]


# --------------------------------------------------------------------------- #
# pytest's pieces the tests use


class Raises:
    """`pytest.raises` for the differential: any error (an Exception)
    passes, whatever its class and message. A block that raises nothing
    but checked results (assert_same_results, recorded to run later) marks
    those checks as expected to differ."""

    def __init__(self, expected, checks):
        self.expected, self.checks = expected, checks
        self.value = self.type = self.tb = None

    def __enter__(self):
        self.mark = len(self.checks)
        return self

    def __exit__(self, typ, value, tb):
        if typ is None:
            if len(self.checks) > self.mark:
                for event in self.checks[self.mark :]:
                    event["expect"] = "differ"
                return False
            raise AssertionError(f"DID NOT RAISE {self.expected}")
        if issubclass(typ, Exception):
            self.type, self.value, self.tb = typ, value, tb
            return True
        return False

    @property
    def typename(self):
        return self.type.__name__ if self.type else None

    def match(self, regexp):
        return True

    def errisinstance(self, exc):
        return isinstance(self.value, exc)


def patch_pytest(checks):
    import pytest

    def raises(expected, *args, **kwargs):
        kwargs.pop("match", None)
        kwargs.pop("check", None)
        context = Raises(expected, checks)
        if args:
            with context:
                args[0](*args[1:], **kwargs)
        return context

    pytest.raises = raises


CaptureResult = namedtuple("CaptureResult", "out err")


class Capsys:
    """`capsys`: what the test prints, read with `readouterr()`."""

    def __init__(self):
        self.out, self.err = io.StringIO(), io.StringIO()
        self._stack = contextlib.ExitStack()
        self._stack.enter_context(contextlib.redirect_stdout(self.out))
        self._stack.enter_context(contextlib.redirect_stderr(self.err))

    def readouterr(self):
        result = CaptureResult(self.out.getvalue(), self.err.getvalue())
        for stream in (self.out, self.err):
            stream.seek(0)
            stream.truncate()
        return result

    def close(self):
        self._stack.close()


class TmpPathFactory:
    def __init__(self, root):
        self.root = root

    def mktemp(self, name, numbered=True):
        return Path(tempfile.mkdtemp(prefix=name, dir=self.root))

    def getbasetemp(self):
        return Path(self.root)


class Fixtures:
    """The fixtures a test asks for: pytest's own that the differential
    gives, and the module's (`@pytest.fixture` functions)."""

    BUILTIN = ("tmp_path", "tmp_path_factory", "monkeypatch", "capsys")

    def __init__(self, module, workdir):
        self.module = module
        self.factory = TmpPathFactory(workdir)
        self.module_values = {}
        self.module_finalizers = []
        self.fixtures = {}
        for name, value in vars(module).items():
            if isinstance(value, RefusedKernel):
                continue
            marker = getattr(value, "_fixture_function_marker", None)
            if marker is not None:
                self.fixtures[marker.name or name] = (value, marker)

    def missing(self, names):
        """The first name no fixture gives (None when all are given)."""
        for name in names:
            if name in self.BUILTIN:
                continue
            if name not in self.fixtures:
                return name
            fixture, marker = self.fixtures[name]
            if marker.params is not None:
                return name
            inner = inspect.signature(fixture._get_wrapped_function()).parameters
            missing = self.missing(list(inner))
            if missing:
                return missing
        return None

    def autouse(self):
        return [n for n, (_, marker) in self.fixtures.items() if marker.autouse]

    def value(self, name, finalizers, values):
        if name in values:
            return values[name]
        if name in self.module_values:
            return self.module_values[name]
        if name == "tmp_path":
            value = self.factory.mktemp("test")
        elif name == "tmp_path_factory":
            value = self.factory
        elif name == "monkeypatch":
            import pytest

            value = pytest.MonkeyPatch()
            finalizers.append(value.undo)
        elif name == "capsys":
            value = Capsys()
            finalizers.append(value.close)
        else:
            fixture, marker = self.fixtures[name]
            function = fixture._get_wrapped_function()
            module_scope = marker.scope in ("module", "session", "package")
            here = self.module_finalizers if module_scope else finalizers
            args = {
                n: self.value(n, here, values)
                for n in inspect.signature(function).parameters
            }
            value = function(**args)
            if inspect.isgenerator(value):
                generator = value
                value = next(generator)
                here.append(lambda g=generator: next(g, None))
            if module_scope:
                self.module_values[name] = value
        values[name] = value
        return value

    def close(self):
        for finalize in reversed(self.module_finalizers):
            with contextlib.suppress(Exception):
                finalize()


def _simple_id(value, argname, k):
    if isinstance(value, (int, float, str, bool)) or value is None:
        text = str(value)
        if len(text) <= 40 and text.isprintable():
            return text
    return f"{argname}{k}"


def expand(name, function):
    """The cases of a test function: `(id, arguments, skip reason)` for each
    combination of its `parametrize` marks."""
    marks = list(getattr(function, "pytestmark", []))
    skip = None
    for mark in marks:
        if mark.name == "skip":
            skip = mark.kwargs.get("reason", "skip")
        elif mark.name == "skipif":
            condition = mark.args[0] if mark.args else mark.kwargs.get("condition")
            if isinstance(condition, str):
                condition = eval(condition, function.__globals__)  # noqa: S307
            if condition:
                skip = mark.kwargs.get("reason", "skipif")
    cases = [("", {}, skip)]
    for mark in [m for m in marks if m.name == "parametrize"]:
        argnames = mark.args[0]
        if isinstance(argnames, str):
            argnames = [a.strip() for a in argnames.split(",") if a.strip()]
        argvalues = mark.args[1] if len(mark.args) > 1 else mark.kwargs["argvalues"]
        ids = mark.kwargs.get("ids")
        expanded = []
        for k, value in enumerate(argvalues):
            param_skip, param_id = None, None
            if hasattr(value, "values") and hasattr(value, "marks"):  # pytest.param
                param_id = value.id
                for m in value.marks:
                    m = getattr(m, "mark", m)
                    if m.name == "skip" or (
                        m.name == "skipif" and m.args and m.args[0]
                    ):
                        param_skip = m.kwargs.get("reason", m.name)
                value = value.values
            elif len(argnames) == 1:
                value = (value,)
            values = dict(zip(argnames, value, strict=True))
            if param_id is None and isinstance(ids, (list, tuple)):
                param_id = ids[k]
            elif param_id is None and callable(ids):
                parts = [ids(v) for v in values.values()]
                param_id = "-".join(
                    str(p) if p is not None else _simple_id(v, a, k)
                    for p, (a, v) in zip(parts, values.items(), strict=True)
                )
            if param_id is None:
                param_id = "-".join(_simple_id(v, a, k) for a, v in values.items())
            expanded.append((param_id, values, param_skip))
        cases = [
            (f"{cid}-{pid}" if cid else pid, {**cargs, **pargs}, cskip or pskip)
            for cid, cargs, cskip in cases
            for pid, pargs, pskip in expanded
        ]
    return [
        (f"{name}[{cid}]" if cid else name, args, skip) for cid, args, skip in cases
    ]


def _names_used(code, module, seen=None):
    """The global names a function's code reads, through the module's own
    functions it calls."""
    seen = set() if seen is None else seen
    if code in seen:
        return set()
    seen.add(code)
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names_used(const, module, seen)
    for name in list(names):
        value = vars(module).get(name)
        if (
            isinstance(value, types.FunctionType)
            and value.__module__ == module.__name__
        ):
            names |= _names_used(value.__code__, module, seen)
    return names


# --------------------------------------------------------------------------- #
# Running a test module


def _on_alarm(signum, frame):
    raise TestTimeout()


def install_schedule_check(recorder, checks, on_check):
    """`schedule_check` for the tests: `assert_same_results` records the
    check (run after the tests) instead of running exo2's JIT."""
    import exo2

    module = types.ModuleType("schedule_check")

    def assert_same_results(p_before, p_after, sizes, seed=0, rtol=1e-5, atol=1e-6):
        procs = [
            p if isinstance(p, exo2.Procedure) else getattr(p, "proc", p)
            for p in (p_before, p_after)
        ]
        frame = sys._getframe(1)
        event = {
            "kind": "check",
            "name": "assert_same_results",
            "site": f"{Path(frame.f_code.co_filename).name}:{frame.f_lineno}",
            "outcome": "ok",
            "text": "\n\n".join(printed(p) for p in procs),
        }
        recorder.events.append(event)
        checks.append(event)
        on_check(event, procs, None, dict(sizes))

    module.assert_same_results = assert_same_results
    sys.modules["schedule_check"] = module


class Side:
    """One compiler's process: instruments it once, then runs test modules
    one after the other."""

    def __init__(self, side, test_dir):
        install_side(side)
        sys.path.insert(0, str(test_dir))
        self.side = side
        self.workdir = tempfile.mkdtemp(prefix="exo2-differential-tests-")
        self.recorder = Recorder(test_dir, {}, self.workdir)
        self.recorder.program_kernels_only = True
        self.recorder.on_event = self.on_event
        self.checks = []  # the assert_same_results events of the current test
        self.exo2_events = {}  # Exo's side: exo2's events, per test
        self.current = "<import>"
        self.results = Results(self.side, self.workdir)
        instrument(
            self.recorder,
            methods=PROCEDURE_METHODS,
            modules=("exo2.stdlib.rc_wrappers",),
        )
        patch_pytest(self.checks)
        install_schedule_check(self.recorder, self.checks, self.on_event)
        signal.signal(signal.SIGALRM, _on_alarm)

    # exo2 chooses the sizes; Exo uses exo2's for the same event
    def on_event(self, event, procs, subject=None, given=None):
        """Plans the runs of an event's procedure (and of the procedure the
        operation was given, when their signatures are the same: whether
        the operation kept its results) or of a check's two procedures."""
        try:
            if self.side == "exo2":
                self._plan_exo2(event, procs, subject, given)
            else:
                self._plan_exo(event, procs, subject)
        except KernelRefused:
            raise
        except Exception as e:  # noqa: BLE001
            event["not_run"] = f"choosing sizes: {error_text(e)}"

    def _plan_exo2(self, event, procs, subject, given):
        if event["kind"] == "check":
            bad = [p.name() for p in procs if not precondition_check(p)(given)]
            if bad:
                event["not_run"] = f"a precondition of {bad[0]} is violated"
                return
            event["sizes"] = given
            self.results.add(event, procs, given)
            return
        if not procs:  # a refusal: sizes for Exo's procedure, if Exo accepts
            if subject is not None:
                sizes, _ = choose_sizes(subject)
                if sizes is not None:
                    event["subject_sizes"] = sizes
            return
        sizes, why = choose_sizes(procs[0])
        if sizes is None:
            event["not_run"] = why
            return
        event["sizes"] = sizes
        run = [procs[0]]
        if (
            subject is not None
            and _signature(subject) == _signature(procs[0])
            and precondition_check(subject)(sizes)
        ):
            run.append(subject)
        self.results.add(event, run, sizes)

    def _plan_exo(self, event, procs, subject):
        mine = self.exo2_events.get(self.current, [])
        index = len(self.recorder.events) - 1
        other = mine[index] if index < len(mine) else None
        if other is None or (other["site"], other["name"]) != (
            event["site"],
            event["name"],
        ):
            event["not_run"] = "exo2's event here differs"
            return
        if not procs:
            return
        same = (other["outcome"], other["text"]) == (event["outcome"], event["text"])
        if same and "sizes" in other:
            run = procs if event["kind"] == "check" else [procs[0]]
            if (
                event["kind"] != "check"
                and subject is not None
                and len(other.get("results_of", [])) > 1
            ):
                run.append(subject)
            event["sizes"] = other["sizes"]
            self.results.add(event, run, other["sizes"])
        elif (
            other["outcome"] == "error"
            and "subject_sizes" in other
            and subject is not None
            and _signature(subject) == _signature(procs[0])
        ):
            # exo2 refuses: does Exo's procedure keep the results of the
            # procedure it was given?
            event["sizes"] = other["subject_sizes"]
            self.results.add(event, [procs[0], subject], other["subject_sizes"])
        else:
            event["not_run"] = "exo2 chose no sizes"

    def run_module(self, path, out, sizes_from=None, import_only=False):
        """Runs the test module `path` and writes its trace to `out`."""
        started, cpu = time.perf_counter(), time.process_time()
        recorder = self.recorder
        self.results = Results(self.side, self.workdir)
        self.exo2_events = {}
        if sizes_from:
            trace = json.loads(Path(sizes_from).read_text())
            for test in [trace["import"], *trace["tests"]]:
                self.exo2_events[test["id"]] = test["events"]
        self.current = "<import>"
        recorder.events = []
        # the module, with the kernels the compiler refuses as placeholders
        refused = {}

        def refused_kernel(name, error):
            refused[name] = error_text(error)
            return RefusedKernel(name)

        recorder.refused_kernel = refused_kernel
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[path.stem] = module
        imported = {"id": "<import>", "status": "passed", "events": recorder.events}
        try:
            signal.alarm(4 * TEST_TIMEOUT_S)
            spec.loader.exec_module(module)
        except BaseException as e:  # noqa: BLE001 (the module's failure is data)
            imported["status"] = f"stopped: {error_text(e)}"
        finally:
            signal.alarm(0)
        recorder.refused_kernel = None
        imported["refused"] = refused
        tests = []
        if imported["status"] == "passed" and not import_only:
            tests = self.run_tests(module, set(refused))
        recorder.events = []
        ran = time.perf_counter()
        self.results.run()
        Path(out).write_text(
            json.dumps(
                {
                    "side": self.side,
                    "module": path.name,
                    "import": imported,
                    "tests": tests,
                    "seconds": {
                        "tests": round(ran - started, 1),
                        "results": round(time.perf_counter() - ran, 1),
                        "procedures run": len(self.results.jobs),
                        **self.results.seconds,
                        "cpu": round(time.process_time() - cpu, 1),
                    },
                },
                indent=1,
            )
        )

    def run_tests(self, module, refused):
        import exo2

        recorder, tests = self.recorder, []
        fixtures = Fixtures(module, self.workdir)
        functions = [
            (name, value)
            for name, value in vars(module).items()
            if name.startswith("test")
            and isinstance(value, types.FunctionType)
            and value.__module__ == module.__name__
        ]
        kernels = {
            n: v for n, v in vars(module).items() if isinstance(v, exo2.Procedure)
        }
        mutated = set()  # the module's kernels a test changed in place
        for name, function in functions:
            uses = _names_used(function.__code__, module)
            uses_refused = sorted(uses & refused)
            parameters = list(inspect.signature(function).parameters)
            for test_id, params, skip in expand(name, function):
                record = {"id": test_id, "events": []}
                tests.append(record)
                if uses_refused:
                    record["uses_refused"] = uses_refused
                if uses & mutated:
                    record["uses_mutated"] = sorted(uses & mutated)
                wanted = [p for p in parameters if p not in params]
                missing = fixtures.missing(wanted + fixtures.autouse())
                if skip is not None or missing is not None:
                    record["status"] = (
                        f"skipped: {skip}"
                        if skip is not None
                        else f"not run: needs the fixture {missing}"
                    )
                    continue
                recorder.events = record["events"]
                self.checks.clear()
                self.current = test_id
                record["status"] = run_test(function, parameters, params, fixtures)
                # a kernel of the module the test changed in place (Exo's
                # mult_dim does): later tests naming it are not compared
                changeable = set(kernels) if self.side == "exo" else set()
                for kernel in sorted(uses & changeable - mutated):
                    if str(kernels[kernel]) != printed(kernels[kernel]):
                        record.setdefault("mutated", []).append(kernel)
                        mutated.add(kernel)
        fixtures.close()
        return tests


def run_test(function, parameters, params, fixtures):
    """Calls a test function with its arguments and fixtures: how it
    ended."""
    import pytest

    finalizers, values = [], dict(params)
    try:
        signal.alarm(TEST_TIMEOUT_S)
        for fixture in fixtures.autouse():
            fixtures.value(fixture, finalizers, values)
        function(**{p: fixtures.value(p, finalizers, values) for p in parameters})
        return "passed"
    except KernelRefused as e:
        return f"stopped: uses the refused kernel {e}"
    except TestTimeout:
        return f"stopped: timeout after {TEST_TIMEOUT_S} s"
    except KeyboardInterrupt:
        raise
    except BaseException as e:  # noqa: BLE001 (the test's failure is data)
        if isinstance(e, pytest.skip.Exception):
            return f"skipped: {e}"
        return f"stopped: {error_text(e)}"
    finally:
        signal.alarm(0)
        for finalize in reversed(finalizers):
            with contextlib.suppress(Exception):
                finalize()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--side", choices=["exo2", "exo"], required=True)
    parser.add_argument("--out", required=True, help="the folder of the traces")
    parser.add_argument(
        "--sizes-from", action="store_true", help="read exo2's traces in --out"
    )
    parser.add_argument(
        "--import-only", action="store_true", help="import the modules only"
    )
    parser.add_argument("modules", nargs="+")
    args = parser.parse_args(argv)

    paths = [Path(m).resolve() for m in args.modules]
    side = Side(args.side, paths[0].parent)
    for path in paths:
        side.recorder.script_dir = path.parent
        out = Path(args.out) / f"{path.stem}.{args.side}.json"
        exo2 = Path(args.out) / f"{path.stem}.exo2.json"
        side.run_module(path, out, exo2 if args.sizes_from else None, args.import_only)
    shutil.rmtree(side.workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
