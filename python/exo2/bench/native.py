"""Small C helpers of the measuring library, compiled once per machine.

`compile_shared(source, stem, flags)` compiles C text with the system
compiler into a shared library kept under the JIT's cache directory
(`exo2.jit.cache_dir()`) by content hash, and loads it; None when no C
compiler works (callers fall back to Python).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import subprocess
import tempfile

from ..jit import cache_dir


def compile_shared(source, stem, flags=("-O2",)):
    """`source` compiled by `$CC` (or cc) into a loaded shared library; None
    if the compiler fails."""
    cc = os.environ.get("CC") or "cc"
    flags = [*flags, "-shared", "-fPIC"]
    key = hashlib.sha256("\0".join([source, cc, *flags]).encode()).hexdigest()[:16]
    directory = cache_dir() / "bench"
    directory.mkdir(parents=True, exist_ok=True)
    so_path = directory / f"{stem}_{key}.so"
    if not so_path.exists():
        c_path = directory / f"{stem}_{key}.c"
        c_path.write_text(source)
        fd, tmp = tempfile.mkstemp(suffix=".so", dir=directory)
        os.close(fd)
        try:
            result = subprocess.run(
                [cc, *flags, str(c_path), "-o", tmp], capture_output=True
            )
        except OSError:
            os.unlink(tmp)
            return None
        if result.returncode != 0:
            os.unlink(tmp)
            return None
        os.replace(tmp, so_path)
    return ctypes.CDLL(str(so_path))


# `repeat_words(f, reps, n, args)` calls `f(args[0], ..., args[n-1])` `reps`
# times: timing a batch of calls then costs one foreign call from Python
# (1-2 us each, more than a small kernel). Every parameter must be a machine
# word (an integer or a pointer), as on x86-64 and AArch64 an int, a bool or
# a pointer argument all travel in one integer register or stack slot.
MAX_WORDS = 16


def _repeat_source():
    lines = [
        "#include <stdint.h>",
        "typedef intptr_t W;",
        "int repeat_words(void *f, long reps, int n, const W *a) {",
        "  switch (n) {",
    ]
    for n in range(0, MAX_WORDS + 1):
        params = ", ".join(["W"] * n) or "void"
        args = ", ".join(f"a[{i}]" for i in range(n))
        lines.append(
            f"  case {n}: {{ void (*g)({params}) = (void (*)({params}))f;"
            f" for (long r = 0; r < reps; r++) g({args}); return 0; }}"
        )
    lines += ["  }", "  return -1;", "}"]
    return "\n".join(lines) + "\n"


_LOOPS = []


def repeat_loops():
    """The compiled `repeat_words` library, or None without a C compiler."""
    if not _LOOPS:
        library = compile_shared(_repeat_source(), "repeat_words")
        if library is not None:
            loop = library.repeat_words
            loop.argtypes = [
                ctypes.c_void_p,
                ctypes.c_long,
                ctypes.c_int,
                ctypes.c_void_p,
            ]
            loop.restype = ctypes.c_int
        _LOOPS.append(library)
    return _LOOPS[0]


def word_loop(function, c_args):
    """A `repeat(number)` calling the ctypes `function` `number` times from C
    with `c_args`, or None if the loop is unavailable or an argument is not
    a machine word (a window structure passed by value, for instance)."""
    loops = repeat_loops()
    if loops is None or len(c_args) > MAX_WORDS:
        return None
    words = []
    for arg in c_args:
        if arg is None:
            words.append(0)
        elif isinstance(arg, bool):
            words.append(int(arg))
        elif isinstance(arg, int):
            words.append(arg)
        elif isinstance(arg, ctypes.c_void_p):
            words.append(arg.value or 0)
        else:
            return None
    array = (ctypes.c_ssize_t * max(len(words), 1))(*words)
    address = ctypes.cast(function, ctypes.c_void_p).value
    loop = loops.repeat_words

    def repeat(number):
        loop(address, number, len(words), array)

    return repeat
