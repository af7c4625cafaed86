"""pytest plugin for running Exo's test suite, copied as `conftest.py` next to
the downloaded tests by `scripts/conformance.sh` (docs/internals/conformance.md).

Exo's tests use two fixtures its source distribution does not ship:

- `golden`: the expected text of a printed procedure or of generated C. The
  distribution has no golden files, so the control run (Exo itself,
  EXO_CONFORMANCE_MODE=control) records the text Exo produces, and the exo2
  run (EXO_CONFORMANCE_MODE=exo2) compares exo2's text with it. Printed
  procedures must match exactly. Generated C may differ from Exo's (its
  layout and calling convention are kept, its text need not be): a C text
  that differs is recorded and the test goes on, so its other checks (the
  kernels it compiles and runs) still count; the report then shows the test
  as `passed-c-text-differs`.
- `compiler`: writes a procedure's C with `exo.compile_procs`, compiles it
  into a shared library with the system C compiler and loads it with ctypes;
  `lib(None, *args)` calls the first procedure (NumPy arrays by pointer,
  integers as `int_fast32_t`), `lib.name(...)` any other function.

Every test's outcome (passed / failed / error / skipped, with the first line
of the failure) is written as JSON to EXO_CONFORMANCE_RESULTS.
"""

import ctypes
import difflib
import json
import os
import platform
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

MODE = os.environ.get("EXO_CONFORMANCE_MODE", "control")

if MODE == "exo2":
    sys.path.insert(0, os.environ["EXO_CONFORMANCE_HARNESS"])
    import exo_alias

    exo_alias.install()

# --------------------------------------------------------------------------- #
# Outcomes


class _Recorder:
    def __init__(self):
        self.tests = {}  # nodeid -> {"outcome", "message"}
        self.goldens = {}  # nodeid -> [text, ...] (control mode)
        self.c_text_differs = {}  # nodeid -> [diff, ...] (exo2 mode)
        self.text_differs = {}  # nodeid -> [diff, ...] (exo2 mode)
        self.collect_errors = {}  # test file -> message

    def report(self, rep):
        entry = self.tests.setdefault(rep.nodeid, {"outcome": "passed", "message": ""})
        if rep.skipped:
            if entry["outcome"] == "passed":
                entry["outcome"] = "skipped"
                entry["message"] = _skip_reason(rep)
        elif rep.failed:
            entry["outcome"] = "failed" if rep.when == "call" else "error"
            if not entry["message"] or entry["outcome"] == "failed":
                entry["message"] = _failure_line(rep)

    def write(self, path):
        for nodeid, diffs in self.c_text_differs.items():
            entry = self.tests.get(nodeid)
            if entry and entry["outcome"] == "passed":
                entry["outcome"] = "passed-c-text-differs"
                entry["message"] = diffs[0][:2000]
        for nodeid, diffs in self.text_differs.items():
            entry = self.tests.get(nodeid)
            if entry and entry["outcome"] == "failed":
                entry["diff"] = diffs[0][:4000]
        data = {
            "mode": MODE,
            "tests": self.tests,
            "collect_errors": self.collect_errors,
            "goldens": self.goldens,
        }
        Path(path).write_text(json.dumps(data, indent=1, sort_keys=True))


def _skip_reason(rep):
    longrepr = rep.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


def _failure_line(rep):
    crash = getattr(rep.longrepr, "reprcrash", None)
    if crash is not None:
        return crash.message[:2000]
    lines = str(rep.longrepr).strip().splitlines()
    errors = [line[1:].strip() for line in lines if line.startswith("E ")]
    return (errors[-1] if errors else lines[-1])[:2000]


RECORDER = _Recorder()


def pytest_runtest_logreport(report):
    RECORDER.report(report)


def pytest_collectreport(report):
    if report.failed:
        RECORDER.collect_errors[report.nodeid] = _failure_line(report)


# A test that runs longer than this fails (a hang must not stall the run).
TIMEOUT_S = int(os.environ.get("EXO_CONFORMANCE_TIMEOUT", "600"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    def on_alarm(signum, frame):
        raise TimeoutError(f"the test ran longer than {TIMEOUT_S} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(TIMEOUT_S)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def pytest_sessionfinish(session):
    path = os.environ.get("EXO_CONFORMANCE_RESULTS")
    if path:
        RECORDER.write(path)


# --------------------------------------------------------------------------- #
# golden


def _looks_like_c(text):
    return "#include" in text or "#pragma once" in text


def _recorded_goldens():
    path = os.environ.get("EXO_CONFORMANCE_GOLDENS")
    if not path or not Path(path).exists():
        return {}
    return json.loads(Path(path).read_text())["goldens"]


_RECORDED = _recorded_goldens() if MODE == "exo2" else {}


class GoldenText:
    """Compares equal to the text the control run recorded for this test
    (the n-th comparison of a test with the n-th recorded text)."""

    def __init__(self, nodeid):
        self.nodeid = nodeid
        self.count = 0

    def _expected(self):
        texts = _RECORDED.get(self.nodeid, [])
        return texts[self.count] if self.count < len(texts) else None

    def __eq__(self, actual):
        if not isinstance(actual, str):
            return NotImplemented
        index = self.count
        if MODE == "control":
            RECORDER.goldens.setdefault(self.nodeid, []).append(actual)
            self.count += 1
            return True
        expected = self._expected()
        self.count += 1
        if expected is None:
            raise AssertionError(
                f"no text recorded by Exo for comparison #{index} of this test"
            )
        if actual == expected:
            return True
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(True), actual.splitlines(True), "exo", "exo2", n=1
            )
        )
        if _looks_like_c(expected):
            RECORDER.c_text_differs.setdefault(self.nodeid, []).append(diff)
            return True
        RECORDER.text_differs.setdefault(self.nodeid, []).append(diff)
        return False

    def __ne__(self, actual):
        result = self.__eq__(actual)
        return result if result is NotImplemented else not result

    def __hash__(self):
        return id(self)

    def __repr__(self):
        expected = self._expected() if MODE == "exo2" else None
        return f"<Exo's text>\n{expected}" if expected is not None else "<golden>"


@pytest.fixture
def golden(request):
    return GoldenText(request.node.nodeid)


# --------------------------------------------------------------------------- #
# compiler


def _cc():
    return os.environ.get("CC", "cc")


def _cpu_flags():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


# What a machine must have to run code compiled for an -march target.
_MARCH_NEEDS = {
    "skylake": {"avx2", "fma"},
    "skylake-avx512": {"avx2", "fma", "avx512f"},
}


class CompiledLibrary:
    """A loaded shared library; calling it calls the first procedure."""

    def __init__(self, lib, entry):
        self._lib = lib
        self._entry = entry

    def __call__(self, *args):
        return getattr(self, self._entry)(*args)

    def __getattr__(self, name):
        function = getattr(self._lib, name)
        function.restype = None

        def call(*args):
            return function(*[_c_argument(a) for a in args])

        return call


def _c_argument(value):
    if value is None:
        return ctypes.c_void_p(None)
    if isinstance(value, np.ndarray):
        return ctypes.c_void_p(value.ctypes.data)
    if isinstance(value, (bool, np.bool_)):
        return ctypes.c_bool(bool(value))
    if isinstance(value, (int, np.integer)):
        # int_fast32_t: 64 bits under glibc on 64-bit targets.
        return ctypes.c_long(int(value))
    if isinstance(value, (float, np.floating)):
        return ctypes.c_double(float(value))
    return value


class Compiler:
    def __init__(self, workdir):
        self.workdir = Path(workdir)
        self.count = 0

    def compile(
        self,
        procs,
        *,
        include_dir=None,
        additional_file=None,
        compile_only=False,
        skip_on_fail=False,
        CMAKE_C_FLAGS="",
        **_options,
    ):
        import exo

        if not isinstance(procs, (list, tuple)):
            procs = [procs]
        self.count += 1
        out = self.workdir / f"build{self.count}"
        out.mkdir(parents=True, exist_ok=True)
        exo.compile_procs(list(procs), out, "test.c", "test.h")

        flags = shlex.split(CMAKE_C_FLAGS)
        for flag in flags:
            if flag.startswith("-march="):
                needed = _MARCH_NEEDS.get(flag[len("-march=") :])
                if needed is not None and not needed <= _cpu_flags():
                    pytest.skip(f"this machine cannot run {flag} code")
        sources = [str(out / "test.c")]
        if additional_file:
            sources.append(str(additional_file))
        # Relative paths name files of the test's own folder (tmp_path).
        includes = [f"-I{out}", f"-I{self.workdir}"]
        includes += [f"-I{include_dir}"] if include_dir else []
        library = out / "libtest.so"
        command = [
            _cc(),
            "-std=gnu11",
            "-O1",
            "-fPIC",
            "-shared",
            *flags,
            *includes,
            *sources,
            "-o",
            str(library),
            "-lm",
        ]
        result = subprocess.run(
            command, capture_output=True, text=True, cwd=self.workdir
        )
        if result.returncode != 0:
            if skip_on_fail:
                pytest.skip(f"the C compiler refused {CMAKE_C_FLAGS or 'the code'}")
            raise AssertionError("C compilation failed:\n" + result.stderr[-3000:])
        if compile_only:
            return None
        return CompiledLibrary(ctypes.CDLL(str(library)), procs[0].name())


@pytest.fixture
def compiler(tmp_path):
    return Compiler(tmp_path)


def pytest_report_header(config):
    return f"exo conformance harness: mode={MODE}, machine={platform.machine()}"
