"""The fuzzer's corpus: small valid kernels covering the object language.

Each kernel is the source text of one `@proc` (mutations edit the text; they
also edit the instruction, config and extern of `DEFINITIONS`), all
sharing `PREAMBLE`: imports, a config, an extern, a no-op instruction and an
instruction for `replace`. `load()` writes the whole corpus to a file (exo2
parses kernels from their source file) and imports it once per process.
"""

import importlib.util
import sys
import tempfile
import textwrap
from pathlib import Path

PREAMBLE = """
from __future__ import annotations

from exo2 import DRAM, config, extern, instr, proc
from exo2.libs.externs import relu, select, sqrt
from exo2.libs.memories import DRAM_STACK, DRAM_STATIC


@config
class Knobs:
    k: size
    scale: f32
    flag: bool


@instr("{dst_data} = {src_data};")
def copy_one(dst: [f32][1], src: [f32][1]):
    dst[0] = src[0]


@instr("/* noop {n} */")
def noop(n: size, x: [f32][n]):
    pass


@proc
def helper(n: size, x: [f32][n], y: [f32][n]):
    for i in seq(0, n):
        y[i] += x[i]
"""

KERNELS = {
    "scale": """
@proc
def scale(n: size, alpha: f32, x: f32[n]):
    for i in seq(0, n):
        x[i] = alpha * x[i]
""",
    "axpy": """
@proc
def axpy(n: size, alpha: f32, x: [f32][n], y: f32[n]):
    assert stride(x, 0) == 1
    for i in seq(0, n):
        y[i] += alpha * x[i]
""",
    "gemv": """
@proc
def gemv(m: size, n: size, a: f32[m, n], x: f32[n], y: f32[m]):
    for i in seq(0, m):
        y[i] = 0.0
        for j in seq(0, n):
            y[i] += a[i, j] * x[j]
""",
    "matmul": """
@proc
def matmul(n: size, m: size, k: size, a: f64[n, k], b: f64[k, m], c: f64[n, m]):
    for i in seq(0, n):
        for j in seq(0, m):
            for p in seq(0, k):
                c[i, j] += a[i, p] * b[p, j]
""",
    "blur": """
@proc
def blur(n: size, x: f32[n + 2], y: f32[n]):
    for i in seq(0, n):
        tmp: f32
        tmp = x[i] + x[i + 1]
        y[i] = (tmp + x[i + 2]) / 3.0
""",
    "branches": """
@proc
def branches(n: size, lo: index, x: i32[n], y: i32[n]):
    assert lo >= 0
    assert lo < n
    for i in seq(0, n):
        if i < lo:
            y[i] = x[i]
        elif i == lo:
            y[i] = 0
        else:
            y[i] = x[i] + x[lo]
""",
    "staged": """
@proc
def staged(n: size, x: f32[n, 8], y: f32[n, 8]):
    buf: f32[8] @ DRAM_STACK
    for i in seq(0, n):
        for j in seq(0, 8):
            buf[j] = x[i, j]
        for j in seq(0, 8):
            y[i, j] = buf[j] * 2.0
""",
    "windows": """
@proc
def windows(n: size, x: f32[n, 4], y: f32[n, 4]):
    for i in seq(0, n):
        row = x[i, :]
        helper(4, row, y[i, 0:4])
""",
    "configs": """
@proc
def configs(n: size, x: f32[n]):
    Knobs.scale = 2.0
    for i in seq(0, n):
        x[i] = Knobs.scale * x[i]
""",
    "externs": """
@proc
def externs(n: size, x: f32[n], y: f32[n]):
    for i in seq(0, n):
        y[i] = relu(x[i]) + select(x[i], 0.5, x[i], 1.0)
""",
    "tiles": """
@proc
def tiles(n: size, x: f32[4 * n], y: f32[4 * n]):
    for io in seq(0, n):
        for ii in seq(0, 4):
            y[4 * io + ii] = x[4 * io + ii] + x[(4 * io + ii) / 2]
""",
    "modulo": """
@proc
def modulo(n: size, x: ui8[n], y: ui8[n]):
    assert n % 4 == 0
    for i in seq(0, n):
        y[i] = x[i / 4 * 4 + i % 4]
""",
    "reduce": """
@proc
def reduce(n: size, x: f32[n], result: f32):
    acc: f32 @ DRAM_STATIC
    acc = 0.0
    for i in seq(0, n):
        acc += x[i]
    result = acc
""",
    "parallel": """
@proc
def parallel(n: size, m: size, x: f64[n, m]):
    for i in par(0, n):
        for j in seq(0, m):
            x[i, j] = x[i, j] * x[i, j]
""",
    "flags": """
@proc
def flags(n: size, on: bool, x: i8[n]):
    for i in seq(0, n):
        if on and i > 1:
            x[i] = -x[i]
""",
    "calls": """
@proc
def calls(n: size, x: f32[n, 1], y: f32[n, 1]):
    for i in seq(0, n):
        copy_one(y[i, 0:1], x[i, 0:1])
""",
    "sqrt": """
@proc
def roots(n: size, x: f64[n]):
    for i in seq(0, n):
        x[i] = sqrt(x[i] * x[i] + 1.0)
""",
}


# Other definitions that mutations edit: an instruction, a config, an
# extern (their decorators' arguments stay as they are).
DEFINITIONS = {
    "instr": """
@instr("{dst_data}[0] = {src_data}[0] + {src_data}[1];")
def add_pair(dst: [f32][1], src: [f32][2]):
    dst[0] = src[0] + src[1]
""",
    "config": """
@config
class Tuning:
    width: size
    gain: f64
    on: bool
""",
    "extern": """
@extern("(({ctype})({a}) + ({ctype})({b}))")
def add2(a, b):
    return a + b
""",
}


def module_source(kernels):
    """The text of a module defining `PREAMBLE` and the kernel sources."""
    return PREAMBLE + "".join(
        "\n" + textwrap.dedent(text).strip() + "\n" for text in kernels
    )


def load_module(source, directory, name):
    """Writes `source` to `directory/name.py` and imports it as a fresh
    module (exceptions from defining its kernels propagate)."""
    path = Path(directory) / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    # inspect finds a class's source through sys.modules.
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[name]
    return module


_loaded = None


def load():
    """The corpus module (kernels as Procedures), imported once."""
    global _loaded
    if _loaded is None:
        directory = tempfile.mkdtemp(prefix="exo2_fuzz_corpus_")
        _loaded = load_module(module_source(KERNELS.values()), directory, "corpus")
    return _loaded


def kernel_names():
    """The names of the procedures of `KERNELS` (function names)."""
    return [text.split("def ", 1)[1].split("(", 1)[0] for text in KERNELS.values()]
