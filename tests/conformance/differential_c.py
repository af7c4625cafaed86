"""Running procedures as the C their compiler generates, on either compiler
(the differential runs of docs/internals/conformance.md, and
benchmarks/compiler/exo_compat_benchmark.py): seeded random inputs from a
procedure's signature, `compile_procs` and the system C compiler into a
shared library, calls through ctypes (a zeroed context, windows as Exo's
window structs), and a forked child to run them in, so that a procedure
that crashes or hangs ends the child and not the run.

Everything here uses only the API exo2 shares with Exo (`exo2.compile_procs`,
`Procedure.args()`, the cursors of a signature), so the same code runs on
exo2 and, through the import alias `exo2` -> `exo` (exo_alias.py), on Exo.
"""

import ctypes
import json
import os
import re
import shlex
import signal
import subprocess
import tempfile
import traceback
from pathlib import Path

# A precision's NumPy dtype (`R`, the unspecified precision, is f32 in C).
DTYPES = {
    "F16": "float16",
    "F32": "float32",
    "F64": "float64",
    "R": "float32",
    "I8": "int8",
    "UI8": "uint8",
    "UI16": "uint16",
    "I32": "int32",
}
CONTEXT_BYTES = 4096  # the zeroed context: as many bytes as any configuration needs


def error_text(e):
    """The class and first line of an error (two when the first announces
    the second: `Errors occurred during effect checking:`)."""
    message = str(e).strip().splitlines() or [""]
    first = message[0]
    if first.endswith(":") and len(message) > 1:
        first += " " + re.sub(r"^\S*/(\w+\.py:)", r"\1", message[1].strip())
    return f"{type(e).__name__}: {first}"[:400]


def shape_value(expr, sizes):
    """The value of a shape expression cursor, given the size arguments."""
    import exo2.API_cursors as PC

    if isinstance(expr, PC.LiteralCursor):
        return expr.value()
    if isinstance(expr, PC.ReadCursor):
        return sizes[expr.name()]
    if isinstance(expr, PC.BinaryOpCursor):
        lhs, rhs = shape_value(expr.lhs(), sizes), shape_value(expr.rhs(), sizes)
        return {
            "+": lambda: lhs + rhs,
            "-": lambda: lhs - rhs,
            "*": lambda: lhs * rhs,
            "/": lambda: lhs // rhs if rhs else 0,
            "%": lambda: lhs % rhs if rhs else 0,
        }[expr.op()]()
    raise TypeError(f"cannot evaluate a shape expression of type {type(expr).__name__}")


def is_control(arg):
    """A size, index or int parameter (passed by value)."""
    return arg.type().name in ("Size", "Index", "Int")


def signature(p, sizes, text=None):
    """How to call `p` on `sizes`, as JSON: per parameter, its name and
    kind (`control` with its value, `bool`, or `data` with its dtype,
    shape and whether it is a window); None when `p` has a parameter this
    cannot give (a memory other than DRAM, a size not in `sizes`). `text`:
    `p` printed."""
    windows = window_parameters(p, text)
    spec = []
    for arg in p.args():
        kind, name = arg.type().name, arg.name()
        if is_control(arg):
            if name not in sizes:
                return None
            spec.append({"name": name, "kind": "control", "value": int(sizes[name])})
        elif kind == "Bool":
            spec.append({"name": name, "kind": "bool"})
        elif kind in DTYPES and arg.mem().name() == "DRAM":
            shape = (
                [shape_value(d, sizes) for d in arg.shape()] if arg.is_tensor() else []
            )
            spec.append(
                {
                    "name": name,
                    "kind": "data",
                    "dtype": DTYPES[kind],
                    "shape": shape,
                    "window": name in windows,
                }
            )
        else:
            return None
    return spec


def make_inputs(spec, seed):
    """Arguments for a call as `signature` describes it: ints for control
    parameters, seeded random NumPy arrays (0-d for scalars) for data."""
    import numpy as np

    rng = np.random.default_rng(seed)
    values = []
    for a in spec:
        if a["kind"] == "control":
            values.append(a["value"])
        elif a["kind"] == "bool":
            values.append(True)
        else:
            values.append(rng.uniform(-2, 2, size=a["shape"]).astype(a["dtype"]))
    return values


def inputs(p, sizes, seed):
    """The arguments of `p` for one run (`make_inputs`); None when `p` has a
    parameter this cannot give (a memory other than DRAM, a size not in
    `sizes`)."""
    spec = signature(p, sizes)
    return None if spec is None else make_inputs(spec, seed)


def window_parameters(p, text=None):
    """The names of `p`'s window parameters (`x: [f32][n]`), read from its
    printed signature (both compilers print it so; `text`: `p` printed)."""
    header = (str(p) if text is None else text).split("):\n", 1)[0]
    return set(re.findall(r"(\w+): \[", header))


def outputs(values):
    """Every data argument after a run, as lists of floats."""
    return [
        v.astype("float64").round(4).ravel().tolist()
        for v in values
        if hasattr(v, "ravel")
    ]


def same_outputs(a, b, tolerance=1e-3):
    """Whether two lists of `outputs` agree element by element within a
    relative `tolerance` (equal infinities and two NaNs agree)."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        if len(x) != len(y):
            return False
        for u, v in zip(x, y, strict=True):
            if u == v or (u != u and v != v):
                continue
            if not abs(u - v) <= tolerance * max(1.0, abs(u), abs(v)):
                return False
    return True


def cflags(default):
    """The C compiler's flags: EXO_DIFFERENTIAL_CFLAGS, or `default`."""
    text = os.environ.get("EXO_DIFFERENTIAL_CFLAGS")
    return shlex.split(text) if text is not None else list(default)


def cc_library(c_file, library, flags):
    """Compiles `c_file` into the shared library `library` and loads it
    (subprocess.CalledProcessError when the C compiler refuses it)."""
    c_file = Path(c_file)
    subprocess.run(
        ["cc", "-std=gnu11", *flags, "-fPIC", "-shared", str(c_file)]
        + ["-I", str(c_file.parent), "-o", str(library), "-lm"],
        check=True,
        capture_output=True,
        text=True,
    )
    return ctypes.CDLL(str(library))


def compile_library(procs, workdir, flags):
    """The procedures' C (`compile_procs`, one file) as a loaded library, or
    a string "does not compile: ..." saying which step refused it."""
    import exo2

    out = Path(tempfile.mkdtemp(dir=workdir))
    try:
        exo2.compile_procs(procs, out, "k.c", "k.h")
        return cc_library(out / "k.c", out / "k.so", flags)
    except subprocess.CalledProcessError as e:
        errors = [line for line in e.stderr.splitlines() if "error:" in line]
        return "does not compile: C compiler: " + (
            errors[0].split("error:", 1)[1].strip() if errors else e.stderr[-300:]
        )
    except OSError as e:  # loading it: an undefined symbol
        return f"does not compile: loading: {str(e).split(': ', 1)[-1]}"
    except Exception as e:  # noqa: BLE001 (code generation's refusal is data)
        return f"does not compile: {error_text(e)}"


def compile_libraries(procs, workdir, flags, batch=True):
    """A loaded library, or a string "does not compile: ...", for each
    procedure (their names distinct): with `batch`, one C file for all
    those whose code generation succeeds (tried one by one when the whole
    does not), when the C compiler accepts it; else one per procedure
    (`generate_c`, `build_libraries`)."""
    import exo2

    results = [None] * len(procs)
    if batch and len(procs) > 1:
        library = compile_library(procs, workdir, flags)
        if isinstance(library, str) and not library.startswith(
            "does not compile: C compiler"
        ):  # code generation refuses some: all but those
            for k, p in enumerate(procs):
                try:
                    exo2.compile_procs_to_strings([p], "k.h")
                except Exception as e:  # noqa: BLE001
                    results[k] = f"does not compile: {error_text(e)}"
            rest = [k for k in range(len(procs)) if results[k] is None]
            library = compile_library([procs[k] for k in rest], workdir, flags)
        if not isinstance(library, str):
            return [library if r is None else r for r in results]
    generated = [
        r if r is not None else generate_c(p, workdir)
        for p, r in zip(procs, results, strict=True)
    ]
    return build_libraries(generated, flags)


def generate_c(p, workdir):
    """`p`'s C (`compile_procs`) in a new folder: the folder, or a string
    "does not compile: ..." when code generation refuses it."""
    import exo2

    out = Path(tempfile.mkdtemp(dir=workdir))
    try:
        exo2.compile_procs([p], out, "k.c", "k.h")
        return out
    except Exception as e:  # noqa: BLE001 (code generation's refusal is data)
        return f"does not compile: {error_text(e)}"


def build_libraries(generated, flags):
    """The loaded library of each folder `generate_c` made (strings pass
    through), the C compiler running on a few at a time; a string "does
    not compile: ..." for C it rejects or a library that does not load."""
    results, running = list(generated), []

    def finish(k, out, process):
        _, stderr = process.communicate()
        if process.returncode == 0:
            try:
                results[k] = ctypes.CDLL(str(out / "k.so"))
            except OSError as e:  # an undefined symbol
                results[k] = f"does not compile: loading: {str(e).split(': ', 1)[-1]}"
            return
        errors = [line for line in stderr.splitlines() if "error:" in line]
        results[k] = "does not compile: C compiler: " + (
            errors[0].split("error:", 1)[1].strip() if errors else stderr[-300:]
        )

    for k, out in enumerate(generated):
        if isinstance(out, str):
            continue
        if len(running) >= (os.cpu_count() or 2):
            finish(*running.pop(0))
        command = ["cc", "-std=gnu11", *flags, "-fPIC", "-shared", str(out / "k.c")]
        command += ["-I", str(out), "-o", str(out / "k.so"), "-lm"]
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        running.append((k, out, process))
    for job in running:
        finish(*job)
    return results


# glibc's malloc fills what it hands out and what is freed only without its
# per-thread cache: the environment of a process that runs kernels
# (`fill_fresh_memory`).
MALLOC_TUNABLES = "glibc.malloc.tcache_count=0"


def malloc_environment(environ):
    """`environ` with glibc's per-thread malloc cache off (MALLOC_TUNABLES),
    for a process started with it."""
    tunables = environ.get("GLIBC_TUNABLES")
    value = f"{tunables}:{MALLOC_TUNABLES}" if tunables else MALLOC_TUNABLES
    return dict(environ, GLIBC_TUNABLES=value)


def fill_fresh_memory(byte):
    """Makes glibc's malloc fill the memory it hands out with `~byte` and
    what is freed with `byte` (M_PERTURB; in a process started with
    `malloc_environment`), so that a kernel reading memory it never wrote,
    or freed, reads those bytes: two runs with two bytes tell whether its
    results depend on them (stack variables: see `deterministic_flags`)."""
    try:
        ctypes.CDLL(None).mallopt(ctypes.c_int(-6), ctypes.c_int(byte))
    except (AttributeError, OSError):
        pass


def deterministic_flags(flags):
    """`flags` and, where the C compiler has it, the flag that fills stack
    variables with a fixed pattern."""
    extra = "-ftrivial-auto-var-init=pattern"
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "t.c"
        source.write_text("int f(void) { int x; return x; }\n")
        probe = subprocess.run(
            ["cc", extra, "-c", str(source), "-o", str(Path(tmp) / "t.o")],
            capture_output=True,
        )
    return [*flags, extra] if probe.returncode == 0 else list(flags)


def c_arguments(windows, args):
    """The ctypes arguments of a call (after the context) on `args` (as
    `inputs` gives them); `windows`: per argument, whether its parameter is
    a window (passed as Exo's window struct)."""
    c_args = []
    for window, a in zip(windows, args, strict=True):
        if window:  # struct {T *data; int_fast32_t strides[d];}
            strides = [s // a.itemsize for s in a.strides]

            class Window(ctypes.Structure):
                _fields_ = [
                    ("data", ctypes.c_void_p),
                    ("strides", ctypes.c_long * len(strides)),
                ]

            c_args.append(
                Window(a.ctypes.data, (ctypes.c_long * len(strides))(*strides))
            )
        elif isinstance(a, bool):
            c_args.append(ctypes.c_bool(a))
        elif isinstance(a, int):
            c_args.append(ctypes.c_long(a))
        else:
            c_args.append(ctypes.c_void_p(a.ctypes.data))
    return c_args


def call(p, function, args):
    """Calls `p`'s C function on `args`, with a fresh zeroed context."""
    windows = window_parameters(p)
    call_with([{"window": a.name() in windows} for a in p.args()], function, args)


def call_with(spec, function, args):
    """Calls a C function as `signature` describes it, on `args`, with a
    fresh zeroed context."""
    context = ctypes.create_string_buffer(CONTEXT_BYTES)
    function(context, *c_arguments([a.get("window", False) for a in spec], args))


def run_each_in_child(count, work, timeout=10):
    """`[work(0), ..., work(count - 1)]` (JSON values), computed in a forked
    child: one child for all of them while none crashes; a crash, or a
    call running longer than `timeout` seconds, ends the child, that value
    becomes a string saying how, and a new child goes on with the next."""
    results, start = {}, 0
    while start < count:
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(read_fd)
                with os.fdopen(write_fd, "w") as out:
                    for k in range(start, count):
                        signal.alarm(timeout)
                        try:
                            value = work(k)
                        except Exception as e:  # noqa: BLE001
                            value = f"cannot run: {error_text(e)}"
                        out.write(json.dumps([k, value]) + "\n")
                        out.flush()
            finally:
                os._exit(0)
        os.close(write_fd)
        with os.fdopen(read_fd) as pipe:
            for line in pipe:
                try:
                    k, value = json.loads(line)
                except ValueError:
                    break
                results[k] = value
        _, status = os.waitpid(pid, 0)
        start = next((k for k in range(start, count) if k not in results), count)
        if start < count:
            if os.WIFSIGNALED(status):
                signal_name = signal.Signals(os.WTERMSIG(status)).name
                how = f"crashed: killed by signal {signal_name}"
            else:
                how = f"crashed: exit status {os.WEXITSTATUS(status)}"
            results[start] = how
            start += 1
    return [results[k] for k in range(count)]


def run_in_child(work, timeout=60):
    """`work()`'s JSON value, computed in a forked child: a procedure that
    crashes or hangs ends the child, not the run (then a string saying
    how it ended)."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.close(read_fd)
            signal.alarm(timeout)
            with os.fdopen(write_fd, "w") as out:
                out.write(json.dumps(work()))
        except BaseException:  # noqa: BLE001
            traceback.print_exc()
            code = 3
        finally:
            os._exit(code)
    os.close(write_fd)
    with os.fdopen(read_fd) as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    if status == 0 and data:
        return json.loads(data)
    if os.WIFSIGNALED(status):
        return f"crashed: killed by signal {signal.Signals(os.WTERMSIG(status)).name}"
    return f"crashed: exit status {os.WEXITSTATUS(status)}"
