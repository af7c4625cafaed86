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
import ctypes
import functools
import json
import os
import runpy
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def install_side(side):
    if side == "exo":
        sys.path.insert(0, str(HERE))
        import exo_alias

        exo_alias.install("exo2", "exo")


# --------------------------------------------------------------------------- #
# Running a procedure


def _evaluate(expr, sizes):
    """The value of a shape expression cursor, given the sizes."""
    import exo2.API_cursors as PC

    if isinstance(expr, PC.LiteralCursor):
        return expr.value()
    if isinstance(expr, PC.ReadCursor):
        return sizes[expr.name()]
    if isinstance(expr, PC.BinaryOpCursor):
        lhs, rhs = _evaluate(expr.lhs(), sizes), _evaluate(expr.rhs(), sizes)
        return {
            "+": lhs + rhs,
            "-": lhs - rhs,
            "*": lhs * rhs,
            "/": lhs // rhs if rhs else 0,
            "%": lhs % rhs if rhs else 0,
        }[expr.op()]
    raise TypeError(f"cannot evaluate {expr}")


_DTYPES = {
    "F16": "float16",
    "F32": "float32",
    "F64": "float64",
    "R": "float32",
    "I8": "int8",
    "UI8": "uint8",
    "UI16": "uint16",
    "I32": "int32",
}


def run_procedure(p, sizes, workdir, seed=0):
    """The arguments of `p` after running its C on seeded random inputs, as
    lists; None when `p` cannot be run here (a size not given, a window or
    non-DRAM argument)."""
    import exo2
    import numpy as np

    rng = np.random.default_rng(seed)
    args, outputs = [], []
    for arg in p.args():
        kind = arg.type().name
        if kind in ("Size", "Index", "Int"):
            if arg.name() not in sizes:
                return None
            args.append(ctypes.c_long(sizes[arg.name()]))
            continue
        if kind == "Bool":
            args.append(ctypes.c_bool(True))
            continue
        if kind not in _DTYPES or arg.mem().name() != "DRAM":
            return None
        shape = [_evaluate(d, sizes) for d in arg.shape()] if arg.is_tensor() else [1]
        if arg.is_tensor() and "[" in str(arg.type()):  # a window parameter
            return None
        values = rng.uniform(-2, 2, size=shape).astype(_DTYPES[kind])
        outputs.append(values)
        args.append(ctypes.c_void_p(values.ctypes.data))
    out = Path(tempfile.mkdtemp(dir=workdir))
    exo2.compile_procs([p], out, "k.c", "k.h")
    library = out / "k.so"
    flags = shlex.split(os.environ.get("EXO_DIFFERENTIAL_CFLAGS", "-O1 -march=native"))
    subprocess.run(
        [
            "cc",
            "-std=gnu11",
            *flags,
            "-fPIC",
            "-shared",
            str(out / "k.c"),
            "-I",
            str(out),
        ]
        + ["-o", str(library), "-lm"],
        check=True,
        capture_output=True,
    )
    function = getattr(ctypes.CDLL(str(library)), p.name())
    function(ctypes.c_void_p(None), *args)
    return [v.astype("float64").round(4).ravel().tolist() for v in outputs]


# --------------------------------------------------------------------------- #
# Recording


class Recorder:
    def __init__(self, script_dir, sizes, workdir):
        self.events = []
        self.depth = 0
        self.script_dir = script_dir
        self.sizes = sizes
        self.workdir = workdir

    def called_from_program(self):
        """The program's own frame calling the operation, or None when a
        library inside an operation called it."""
        frame = sys._getframe(2)
        path = Path(frame.f_code.co_filename).resolve()
        if self.depth == 0 and str(path).startswith(str(self.script_dir)):
            return f"{path.name}:{frame.f_lineno}"
        return None

    def record(self, kind, name, site, fn):
        self.depth += 1
        try:
            result = fn()
        except Exception as e:
            self.depth -= 1
            if site:
                message = str(e).splitlines()[0] if str(e) else ""
                self.events.append(
                    {
                        "kind": kind,
                        "name": name,
                        "site": site,
                        "outcome": "error",
                        "text": f"{type(e).__name__}: {message}",
                    }
                )
            raise
        self.depth -= 1
        if site:
            procs = [r for r in (result if isinstance(result, tuple) else (result,))]
            import exo2

            procs = [r for r in procs if isinstance(r, exo2.Procedure)]
            event = {
                "kind": kind,
                "name": name,
                "site": site,
                "outcome": "ok",
                "text": "\n\n".join(str(r) for r in procs),
            }
            if self.sizes and procs:
                try:
                    event["results"] = run_procedure(procs[0], self.sizes, self.workdir)
                except Exception as e:
                    event["results"] = f"cannot run: {type(e).__name__}: {e}"[:300]
            self.events.append(event)
        return result

    def wrap(self, kind, fn, name):
        def wrapper(*args, **kwargs):
            site = self.called_from_program()
            return self.record(kind, name, site, lambda: fn(*args, **kwargs))

        wrapper.__name__ = name
        wrapper.__wrapped__ = fn
        return wrapper


def instrument(recorder):
    """Wraps `proc` and every scheduling operation of the public modules
    (before the program imports them)."""
    import importlib

    import exo2

    modules = []
    for path in (
        "exo2.API_scheduling",
        "exo2.stdlib.scheduling",
        "exo2.stdlib.stdlib",
        "exo2.stdlib.halide_scheduling_ops",
    ):
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
    original_proc = exo2.proc

    @functools.wraps(original_proc)
    def proc(f):
        return recorder.record(
            "proc",
            f.__name__,
            recorder.called_from_program() or "?",
            lambda: original_proc(f),
        )

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
