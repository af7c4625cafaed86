"""What a kernel means on its runs, and running compiled procedures
against it in a child process.

A kernel's runs (`Kernel.sizes`) get random inputs; the reference
interpreter (reference.py) says what the kernel computes on them. A
procedure is right when, compiled and run on the same inputs, it leaves
every argument (guard elements included, schedule_check.py) and every
config field (bar those it may change) as the reference does.

Kernels run in a forked child process: a kernel that crashes, traps on
undefined behaviour or trips a sanitizer kills the child, not the test, and
the parent reports what was running.
"""

import faulthandler
import json
import os
import signal
import sys
import tempfile
import traceback
from dataclasses import dataclass

import numpy as np
from exo2.jit import DEFAULT_CFLAGS, jit, jit_library
from schedule_check import (
    GUARD,
    assert_same_arguments,
    call_values,
    copy_arguments,
    random_arguments,
)

from . import sanitizers
from .corpus import CONFIGS_USED
from .reference import run_reference

RTOL, ATOL = 1e-4, 1e-5  # reassociation changes float rounding


def jit_flags():
    """-O0 compiles fastest. Undefined behaviour (a false EXO_ASSUME of a
    precondition, an overflow, an access past a fixed-size array) traps even
    without sanitizers: that needs no runtime library. Under sanitizers,
    -O1 as they recommend."""
    if sanitizers.enabled():
        return ("-O1", *sanitizers.CFLAGS)
    return ("-O0", "-fsanitize=undefined", "-fsanitize-undefined-trap-on-error")


def guard():
    """No guard elements under AddressSanitizer: every access past an
    array then lands in a red zone."""
    return 0 if sanitizers.enabled() else GUARD


@dataclass
class Run:
    sizes: dict
    inputs: list  # schedule_check arguments
    configs: dict  # {(config name, field): value} at the start
    expected: list  # the arguments after the reference run
    expected_configs: dict


def initial_configs(sizes):
    values = {}
    for config in CONFIGS_USED:
        for name, typ in config.fields():
            start = sizes.get(f"{config.name()}.{name}", 0)
            values[(config.name(), name)] = bool(start) if str(typ) == "bool" else start
    return values


def expected_runs(kernel):
    runs = []
    for index, sizes in enumerate(kernel.sizes):
        inputs = random_arguments(kernel.proc, sizes, seed=index, guard=guard())
        expected, configs = copy_arguments(inputs), initial_configs(sizes)
        run_reference(kernel.proc, call_values(expected), configs)
        runs.append(
            Run(
                sizes=sizes,
                inputs=inputs,
                configs=initial_configs(sizes),
                expected=expected,
                expected_configs=configs,
            )
        )
    return runs


def run_in_child(work):
    """Runs `work(send)` in a forked child; `send(obj)` passes a JSON value
    back. Returns (values, crash): crash is None or the child's exit status
    and the end of its standard error (a sanitizer's report)."""
    read_fd, write_fd = os.pipe()
    with tempfile.TemporaryFile() as err:
        pid = os.fork()
        if pid == 0:  # the child: never returns
            code = 0
            try:
                os.close(read_fd)
                faulthandler.disable()  # a crash is reported by the parent
                os.dup2(err.fileno(), 2)
                sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
                out = os.fdopen(write_fd, "w", buffering=1)
                work(lambda value: print(json.dumps(value), file=out, flush=True))
                out.close()
            except BaseException:
                traceback.print_exc()
                code = 3
            finally:
                os._exit(code)
        os.close(write_fd)
        with os.fdopen(read_fd) as pipe:
            values = [json.loads(line) for line in pipe]
        _, status = os.waitpid(pid, 0)
        if status == 0:
            return values, None
        err.seek(0)
        text = err.read().decode(errors="replace")
        return values, f"the child process {_ending(status)}:\n{text[-4000:]}"


def _ending(status):
    if os.WIFSIGNALED(status):
        signal_number = os.WTERMSIG(status)
        name = signal.Signals(signal_number).name
        if signal_number == signal.SIGILL:
            name += ", a trap for undefined behaviour"
        return f"was killed by signal {signal_number} ({name})"
    return f"exited with status {os.WEXITSTATUS(status)}"


def compile_procedures(procs):
    """JitKernels for `procs`, or the error of each that does not compile.

    Without OpenMP: `par` loops run in order, which is what they mean.
    Threads would show a data race only by chance (code generation's race
    check is what guards them), and OpenMP hangs in a child forked from a
    process that used it, as earlier tests of a session do."""
    cflags = (*DEFAULT_CFLAGS, *jit_flags())
    try:
        return jit_library(procs, cflags=cflags)
    except Exception:  # find the procedures that do not compile
        compiled = []
        for p in procs:
            try:
                compiled.append(jit(p, cflags=cflags))
            except Exception as e:
                compiled.append(f"does not compile: {type(e).__name__}: {e}")
        return compiled


def mismatch(compiled, runs, modulo):
    """Why a compiled procedure (or the error that it does not compile)
    does not compute what its kernel means on `runs`, or None."""
    if isinstance(compiled, str):
        return compiled
    names = [a.name() for a in compiled.proc.args()]
    for run in runs:
        args = copy_arguments(run.inputs)
        for config in CONFIGS_USED:
            fields = {f: v for (c, f), v in run.configs.items() if c == config.name()}
            try:
                compiled.set_config(config, **fields)
            except KeyError:  # not in this library
                pass
        try:
            compiled(*call_values(args))
            assert_same_arguments(names, run.expected, args, RTOL, ATOL)
            for (c, f), value in run.expected_configs.items():
                if (c, f) in modulo:
                    continue
                config = next(k for k in CONFIGS_USED if k.name() == c)
                try:
                    actual = compiled.get_config(config, f)
                except KeyError:
                    actual = run.configs[(c, f)]
                if not np.isclose(actual, value, rtol=RTOL, atol=ATOL):
                    raise AssertionError(f"config {c}.{f} is {actual}, not {value}")
        except Exception as e:
            return f"sizes {run.sizes}: {type(e).__name__}: {e}"
    return None
