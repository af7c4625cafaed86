"""One side of a differential run (docs/internals/conformance.md): runs a
program written for exo2 on exo2 itself or, through the import alias
`exo2` -> `exo`, on Exo, and records what happened as JSON.

    python differential_trace.py --side exo2|exo --out trace.json \\
        [--call FUNCTION]... [--sizes JSON] SCRIPT

Recorded, in order: every kernel the program defines (`@proc`: its printed
text, or its error), every scheduling operation called from the program's
own files (not those a library calls inside an operation): its name, where
it was called, and its printed result or its error's class and first line.
With `--sizes`, each procedure an operation returns whose size arguments
are all given is also compiled and run on seeded random inputs; its
outputs are recorded, so that the two sides' results can be compared.
"""

import argparse
import functools
import json
import runpy
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from differential_c import (  # noqa: E402
    call,
    cflags,
    compile_library,
    error_text,
    inputs,
    outputs,
)


def install_side(side):
    if side == "exo":
        sys.path.insert(0, str(HERE))
        import exo_alias

        exo_alias.install("exo2", "exo")
        probe_smt_solvers_once()


def probe_smt_solvers_once():
    """Exo makes a new pysmt solver factory for every query, and each one
    probes the installed solvers by importing their modules again (those
    that fail to import run again each time): most of the time of Exo's
    code generation. The probe's answer cannot change within a process:
    it is remembered after the first one."""
    try:
        import pysmt.factory as factory
    except ImportError:
        return
    for probe, attributes in (
        ("_get_available_solvers", ("_all_solvers", "_all_unsat_core_solvers")),
        ("_get_available_qe", ("_all_qelims",)),
        ("_get_available_interpolators", ("_all_interpolators",)),
    ):
        original, answer = getattr(factory.Factory, probe), {}

        def once(self, original=original, attributes=attributes, answer=answer):
            if not answer:
                original(self)
                answer.update({a: dict(getattr(self, a)) for a in attributes})
            for a in attributes:
                setattr(self, a, dict(answer[a]))

        setattr(factory.Factory, probe, once)


# --------------------------------------------------------------------------- #
# Running a procedure


def run_procedure(p, sizes, workdir, seed=0):
    """The data arguments of `p` after running its C on seeded random
    inputs, as lists; None when `p` cannot be run here (a size not given, a
    memory other than DRAM)."""
    values = inputs(p, sizes, seed)
    if values is None:
        return None
    library = compile_library([p], workdir, cflags(("-O1", "-march=native")))
    if isinstance(library, str):
        raise RuntimeError(library)
    call(p, getattr(library, p.name()), values)
    return outputs(values)


# --------------------------------------------------------------------------- #
# Recording


_PRINTED = {}  # id(procedure) -> (procedure, its text)


def printed(p):
    """`str(p)`, printed once per procedure object (printing long lines
    takes a while on either compiler)."""
    known = _PRINTED.get(id(p))
    if known is None or known[0] is not p:
        known = _PRINTED[id(p)] = (p, str(p))
    return known[1]


class Recorder:
    """Records the operations the program calls (`events`). With `sizes`,
    runs each resulting procedure at once (run_procedure); `on_event`, when
    set, is called instead with each event, its procedures and the one the
    operation was given (the test suite's run, differential_tests_side.py,
    runs them later), and
    `refused_kernel`, when set, makes `@proc` give its value for a kernel
    the compiler refuses instead of raising."""

    def __init__(self, script_dir, sizes, workdir):
        self.events = []
        self.depth = 0
        self.script_dir = script_dir
        self.sizes = sizes
        self.workdir = workdir
        self.on_event = None
        # kernels defined by libraries are not recorded
        self.program_kernels_only = False
        # what `@proc` gives for a kernel the compiler refuses, instead of
        # raising (set while a test module is imported)
        self.refused_kernel = None

    def called_from_program(self):
        """The program's own frame calling the operation, or None when a
        library inside an operation called it."""
        frame = sys._getframe(2)
        path = Path(frame.f_code.co_filename).resolve()
        if self.depth == 0 and str(path).startswith(str(self.script_dir)):
            return f"{path.name}:{frame.f_lineno}"
        return None

    def record(self, kind, name, site, fn, subject=None):
        """Runs `fn` (the operation) and records it when `site` is the
        program's; `subject` is the procedure the operation was given."""
        import exo2

        self.depth += 1
        try:
            result = fn()
        except Exception as e:
            self.depth -= 1
            if site:
                event = {
                    "kind": kind,
                    "name": name,
                    "site": site,
                    "outcome": "error",
                    "text": error_text(e),
                }
                self.events.append(event)
                if self.on_event is not None:
                    self.on_event(event, [], subject)
            raise
        self.depth -= 1
        if site:
            procs = list(result) if isinstance(result, (tuple, list)) else [result]
            procs = [r for r in procs if isinstance(r, exo2.Procedure)]
            event = {
                "kind": kind,
                "name": name,
                "site": site,
                "outcome": "ok",
                "text": "\n\n".join(printed(r) for r in procs),
            }
            self.events.append(event)
            if self.on_event is not None:
                self.on_event(event, procs, subject)
            elif self.sizes and procs:
                try:
                    event["results"] = run_procedure(procs[0], self.sizes, self.workdir)
                except Exception as e:
                    event["results"] = f"cannot run: {type(e).__name__}: {e}"[:300]
        return result

    def wrap(self, kind, fn, name):
        import exo2

        def wrapper(*args, **kwargs):
            site = self.called_from_program()
            subject = args[0] if args and isinstance(args[0], exo2.Procedure) else None
            return self.record(kind, name, site, lambda: fn(*args, **kwargs), subject)

        try:  # the operation's attributes (exo2 marks primitives so)
            functools.update_wrapper(wrapper, fn)
        except (AttributeError, TypeError):
            wrapper.__wrapped__ = fn
        wrapper.__name__ = name
        return wrapper


# Procedure methods that are scheduling operations (they return a new
# procedure), recorded as operations where `instrument` is asked to.
PROCEDURE_METHODS = ("partial_eval", "transpose", "add_assertion")


class _FrameSkippingHarness:
    """A frame whose `f_back` skips the recorder's own frames."""

    def __init__(self, frame):
        self._frame = frame

    def __getattr__(self, name):
        return getattr(self._frame, name)

    @property
    def f_back(self):
        frame = self._frame.f_back
        while frame is not None and _in_harness(frame):
            frame = frame.f_back
        return frame


def _in_harness(frame):
    return frame.f_code.co_filename.startswith(str(HERE) + "/")


class _InspectSkippingHarness:
    """`inspect` for the compiler's kernel decorators, minus the recorder's
    frames: `@proc` reads the free names of a kernel from its caller's frame
    (exo2: `currentframe().f_back`; Exo: `inspect.stack()[2]`), which the
    recorder's wrapper would otherwise be."""

    def __getattr__(self, name):
        import inspect

        return getattr(inspect, name)

    def currentframe(self):
        return _FrameSkippingHarness(sys._getframe(1))

    def stack(self, context=1):
        import inspect

        return [f for f in inspect.stack(context)[1:] if not _in_harness(f.frame)]


def _hide_harness_frames():
    """Makes the compiler look past the recorder's wrappers for the caller
    whose names a kernel or a new expression sees (else a kernel defined in
    a function could not name that function's locals)."""
    import importlib

    import exo2

    if exo2.__name__ == "exo":  # the decorators' get_src_locals
        importlib.import_module(
            "exo.frontend.pyparser"
        ).inspect = _InspectSkippingHarness()
        return
    importlib.import_module("exo2.API").inspect = _InspectSkippingHarness()
    # new expressions and patterns see the innermost frame outside exo2's
    # package: count the recorder's frames as inside it
    expressions = importlib.import_module("exo2.primitives.new_expressions")
    place = expressions._place
    expressions._place = lambda code: (
        "exo2" if code.co_filename.startswith(str(HERE) + "/") else place(code)
    )
    cursors = importlib.import_module("exo2.API_cursors")
    cursors._PACKAGE_DIR = (cursors._PACKAGE_DIR, str(HERE) + "/")
    # errors name the user's call of each operation
    operations = importlib.import_module("exo2.primitives.operation_stack")

    def call_site(depth=2):
        frame = first = sys._getframe(depth)
        while frame is not None and _in_harness(frame):
            frame = frame.f_back
        frame = frame or first  # the harness's own call
        return frame.f_code.co_filename, frame.f_lineno

    operations.call_site = call_site


def instrument(recorder, methods=(), modules=()):
    """Wraps `proc` and every scheduling operation of the public modules
    (before the program imports them), the `Procedure` methods named in
    `methods`, and the operations of the further `modules`."""
    import importlib

    import exo2

    _hide_harness_frames()
    paths = [
        "exo2.API_scheduling",
        "exo2.stdlib.scheduling",
        "exo2.stdlib.stdlib",
        "exo2.stdlib.halide_scheduling_ops",
        *modules,
    ]
    modules = []
    for path in paths:
        try:
            modules.append(importlib.import_module(path))
        except ImportError:
            pass
    wrapped = {}
    for module in modules:
        names = getattr(module, "__all__", None) or [
            n for n in vars(module) if not n.startswith("_")
        ]
        for name in names:
            fn = getattr(module, name, None)
            if (
                not callable(fn)
                or isinstance(fn, type)
                or name in ("proc", "instr", "config", "extern")
                or not getattr(fn, "__module__", "").startswith(exo2.__name__)
            ):
                continue
            if id(fn) not in wrapped:  # Exo's operations are not hashable
                wrapped[id(fn)] = recorder.wrap("op", fn, name)
            setattr(module, name, wrapped[id(fn)])
    for name in methods:
        method = getattr(exo2.Procedure, name, None)
        if method is not None:
            setattr(exo2.Procedure, name, recorder.wrap("op", method, name))
    original_proc = exo2.proc

    @functools.wraps(original_proc)
    def proc(f):
        site = recorder.called_from_program()
        if site is None and recorder.program_kernels_only:
            return original_proc(f)
        name = getattr(f, "__name__", repr(f))
        try:
            return recorder.record("proc", name, site or "?", lambda: original_proc(f))
        except Exception as e:
            if recorder.refused_kernel is None:
                raise
            return recorder.refused_kernel(name, e)

    exo2.proc = proc


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--side", choices=["exo2", "exo"], required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--call", action="append", default=[])
    parser.add_argument("--sizes", default="{}")
    parser.add_argument("script")
    args = parser.parse_args(argv)

    install_side(args.side)
    script = Path(args.script).resolve()
    sys.path.insert(0, str(script.parent))
    workdir = tempfile.mkdtemp(prefix="exo2-differential-")
    recorder = Recorder(script.parent, json.loads(args.sizes), workdir)
    status = "completed"
    try:
        instrument(recorder)
        namespace = runpy.run_path(str(script), run_name="differential_program")
        for name in args.call:
            namespace[name]()
    except BaseException as e:  # noqa: BLE001 (the program's failure is data)
        message = str(e).splitlines()[0] if str(e) else ""
        status = f"stopped: {type(e).__name__}: {message}"[:500]
    Path(args.out).write_text(
        json.dumps(
            {"side": args.side, "status": status, "events": recorder.events}, indent=1
        )
    )


if __name__ == "__main__":
    main()
