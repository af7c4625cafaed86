"""Running the randomized schedule test's kernels under AddressSanitizer and
UndefinedBehaviorSanitizer.

With EXO2_RANDOM_SANITIZE=1, every procedure is compiled with CFLAGS. An
instrumented shared object can only be loaded into a process whose first
library is the ASan runtime, and Python is not linked with it: the process
must start with `LD_PRELOAD=<libasan.so>` (the compiler tells where it is:
`cc -print-file-name=libasan.so`). The C++ runtime is preloaded too: ASan
intercepts `__cxa_throw` only if libstdc++ is there when it starts, and
exo2's core (loaded later) throws its refusals as C++ exceptions.
`environment()` gives the environment for such a process;
`test_random_schedules_under_sanitizers` starts pytest in it. Leak
detection is off (Python does not free everything at exit);
`-fno-sanitize-recover=all` makes every UBSan finding fatal. A finding kills
the forked child that runs the kernels, and the parent reports it with the
schedule that was running.
"""

import os
import subprocess

CFLAGS = (
    "-fsanitize=address,undefined",
    "-fno-sanitize-recover=all",
    "-fno-omit-frame-pointer",
)


def enabled():
    """Whether this run compiles kernels with sanitizers."""
    if os.environ.get("EXO2_RANDOM_SANITIZE") != "1":
        return False
    if not runtime_loaded():
        raise RuntimeError(
            "EXO2_RANDOM_SANITIZE=1 needs the ASan runtime preloaded: run "
            "under sanitizers.environment() (LD_PRELOAD=$(cc "
            "-print-file-name=libasan.so))"
        )
    return True


def runtime_loaded():
    with open("/proc/self/maps") as maps:
        return "libasan" in maps.read()


def _library(name):
    """The path of a runtime library of the C compiler the JIT uses, or None."""
    cc = os.environ.get("CC") or "cc"
    result = subprocess.run(
        [cc, f"-print-file-name={name}"], capture_output=True, text=True
    )
    path = result.stdout.strip()
    if result.returncode != 0 or not os.path.isabs(path):
        return None  # the compiler prints the bare name when it has none
    return os.path.realpath(path)


def preloaded_libraries():
    """The libraries to preload, ASan's runtime first; None when the
    compiler has no ASan runtime."""
    asan, cxx = _library("libasan.so"), _library("libstdc++.so")
    if asan is None:
        return None
    return [asan, cxx] if cxx else [asan]


def environment(libraries):
    """The environment of a process whose kernels run under sanitizers."""
    env = dict(os.environ)
    env.update(
        {
            "LD_PRELOAD": " ".join(libraries),
            "EXO2_RANDOM_SANITIZE": "1",
            "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=0:exitcode=86",
            "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1:exitcode=87",
        }
    )
    return env
