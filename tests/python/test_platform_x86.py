"""exo2.platforms.x86: every instruction's C template does what its body says.

For each instruction `I` the test builds, from `I`'s printed text, two
procedures and runs both through the JIT on the same random data:

- the *reference*: `I`'s own definition with every vector memory replaced
  by DRAM, run as a plain procedure (the body is the specification);
- the *wrapper*: a procedure over DRAM arrays that loads each vector
  argument into a register of its memory, calls `I`, and stores the
  registers back (compiled with `-Wall -Wextra -Werror`).

The loads and stores the wrappers use are themselves checked by the same
mechanism (their round trip, and the lane-dependent prefix forms).
Instructions run only where the CPU has their ISA; elsewhere their wrappers
are still compiled, so the generated C is checked everywhere.
"""

from __future__ import annotations

import ast
import itertools
import linecache
import re

import exo2
import exo2.platforms.x86 as x86
import numpy as np
import pytest
from exo2 import DRAM, Procedure, _core, compile_procs_to_strings, proc
from exo2.core.memory import MemGenError
from exo2.libs.memories import AVX2, AVX512

# --------------------------------------------------------------------------
# the CPU


def _cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


_FLAGS = _cpu_flags()
HAS_AVX2 = {"avx2", "fma"} <= _FLAGS
HAS_AVX512 = "avx512f" in _FLAGS
# Exo's text leaves ignored parameters (ctxt) unmarked
# (docs/compiling-and-calling.md, "Compiler warnings").
WARNINGS_AS_ERRORS = ("-Wall", "-Wextra", "-Wno-unused-parameter", "-Werror")


def _needs_avx512(instr):
    return instr.name().startswith(("mm512_", "avx512_"))


# --------------------------------------------------------------------------
# the instructions, and what Exo's module exposes

INSTRS = sorted(
    (v for v in vars(x86).values() if isinstance(v, Procedure) and v.is_instr()),
    key=lambda p: p.name(),
)

EXO_INSTRS = """prefetch mm256_setzero_ps mm256_setzero_pd mm256_loadu_ps mm256_loadu_pd
mm256_storeu_ps mm256_storeu_pd mm256_fmadd_ps mm256_fmadd_pd mm256_broadcast_ss
mm256_broadcast_sd mm256_broadcast_ss_scalar mm256_broadcast_sd_scalar
mm256_fmadd_ps_broadcast mm256_mul_ps mm256_mul_pd mm256_div_ps mm256_div_pd
mm256_add_ps mm256_add_pd mm256_sub_ps mm256_sub_pd mm256_loadu_si256
mm256_storeu_si256 mm256_add_epi16 mm512_setzero_ps mm512_add_ps mm512_mask_add_ps
mm512_loadu_ps mm512_storeu_ps mm512_maskz_loadu_ps mm512_mask_storeu_ps
mm512_fmadd_ps mm512_mask_fmadd_ps mm512_relu_ps mm512_mask_set1_ps mm512_set1_ps
avx2_set0_ps avx2_fmadd_memu_ps avx2_select_ps avx2_select_pd
avx2_assoc_reduce_add_ps avx2_assoc_reduce_add_pd avx2_sign_ps avx2_sign_pd
avx2_reduce_add_wide_ps avx2_reduce_add_wide_pd avx2_reg_copy_ps avx2_reg_copy_pd
avx2_mask_storeu_ps avx2_ui16_divide_by_3 mm256_prefix_load_ps
mm256_prefix_store_ps mm256_prefix_add_ps mm256_prefix_mul_ps mm256_prefix_sub_ps
mm256_prefix_div_ps mm256_prefix_broadcast_ss avx2_convert_f32_lower_to_f64
avx2_convert_f32_upper_to_f64""".split()

# (memory, precision) -> the load and store the wrappers move registers with
MOVES = {
    ("AVX2", "f32"): ("mm256_loadu_ps", "mm256_storeu_ps"),
    ("AVX2", "f64"): ("mm256_loadu_pd", "mm256_storeu_pd"),
    ("AVX2", "ui16"): ("mm256_loadu_si256", "mm256_storeu_si256"),
    ("AVX512", "f32"): ("mm512_loadu_ps", "mm512_storeu_ps"),
    ("AVX512", "f64"): ("mm512_loadu_pd", "mm512_storeu_pd"),
}

# Size parameters that C needs as constants: the wrapper passes a literal.
LITERAL_SIZES = {"prefetch": {"locality_hint": 3}}


# --------------------------------------------------------------------------
# building the reference and the wrapper from an instruction's text


class _Param:
    """One parameter of a printed signature: `name: size`, `name: f32 @ M`
    or `name: [f32][e1, e2] @ M`."""

    def __init__(self, arg):
        self.name = arg.arg
        ann = arg.annotation
        self.memory = None
        if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.MatMult):
            self.memory = ann.right.id
            ann = ann.left
        if isinstance(ann, ast.Subscript):  # [prec][dims]
            self.kind = "window"
            self.prec = ann.value.elts[0].id
            dims = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
            self.dims = [ast.unparse(d) for d in dims]
        else:
            self.kind = "size" if ann.id in ("size", "index", "int") else "scalar"
            self.prec = ann.id

    @property
    def is_vector(self):
        return self.memory in ("AVX2", "AVX512")


def _text(instr):
    # The core's text: the same as str(instr) before long lines are wrapped.
    return _core.print_proc(instr.INTERNAL_proc())


def _signature(instr):
    fdef = ast.parse(_text(instr)).body[0]
    return [_Param(a) for a in fdef.args.args]


def _load_procs(source, name):
    """Executes generated kernel source (registered with linecache so that
    exo2 can read it back) and returns its namespace."""
    filename = f"<x86 instruction check: {name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {}
    exec(compile(source, filename, "exec"), namespace)
    return namespace


HEADER = """from __future__ import annotations
from exo2 import DRAM, proc
from exo2.libs.externs import relu, select
from exo2.libs.memories import AVX2, AVX512
from exo2.platforms.x86 import *
"""


def reference_and_wrapper(instr):
    """The reference (body with DRAM memories) and wrapper of `instr`."""
    name = instr.name()
    params = _signature(instr)
    literals = LITERAL_SIZES.get(name, {})
    text = _text(instr)
    reference = re.sub(r"@ AVX(2|512)\b", "@ DRAM", text)
    reference = reference.replace(f"def {name}(", "def reference(", 1)

    asserts = [
        line.strip()
        for line in text.splitlines()
        if line.strip().startswith("assert ")
        and "stride(" not in line
        and not any(lit in line for lit in literals)
    ]
    header, loads, stores, call = [], [], [], []
    for p in params:
        if p.name in literals:
            call.append(str(literals[p.name]))
        elif p.kind == "size":
            header.append(f"{p.name}: size")
            call.append(p.name)
        elif p.kind == "scalar":
            header.append(f"{p.name}: {p.prec}")
            call.append(p.name)
        else:
            shape = ", ".join(p.dims)
            header.append(f"{p.name}: {p.prec}[{shape}]")
            window = ", ".join(f"0:{d}" for d in p.dims)
            if p.is_vector:
                load, store = MOVES[(p.memory, p.prec)]
                reg = f"{p.name}_reg"
                loads += [
                    f"{reg}: {p.prec}[{shape}] @ {p.memory}",
                    f"{load}({reg}[{window}], {p.name}[{window}])",
                ]
                stores.append(f"{store}({p.name}[{window}], {reg}[{window}])")
                call.append(f"{reg}[{window}]")
            else:
                call.append(f"{p.name}[{window}]")
    body = asserts + loads + [f"{name}({', '.join(call)})"] + stores
    wrapper = f"def wrapper({', '.join(header)}):\n" + "".join(
        f"    {line}\n" for line in body
    )
    source = f"{HEADER}\n@proc\n{reference}\n\n@proc\n{wrapper}"
    namespace = _load_procs(source, name)
    return namespace["reference"], namespace["wrapper"], params


# --------------------------------------------------------------------------
# random data


def _size_values(name, params):
    """Values to try for the size parameters (some violate preconditions
    and are skipped)."""
    names = [
        p.name
        for p in params
        if p.kind == "size" and p.name not in LITERAL_SIZES.get(name, {})
    ]
    return names, list(itertools.product(range(1, 18), repeat=len(names)))


def _data(prec, shape, rng):
    if prec == "ui16":
        return rng.integers(0, 20000, size=shape, dtype=np.uint16)
    dtype = np.float32 if prec in ("f32", "R") else np.float64
    # Magnitudes in [0.5, 2) of either sign: safe divisors, no cancellation.
    values = rng.uniform(0.5, 2.0, size=shape) * rng.choice([-1.0, 1.0], size=shape)
    return np.array(values, dtype=dtype)  # 0-d arrays for (written) scalars


def _arguments(params, sizes, literals, rng):
    args = {}
    for p in params:
        if p.name in literals:
            continue
        if p.kind == "size":
            args[p.name] = sizes[p.name]
        elif p.kind == "scalar":
            args[p.name] = _data(p.prec, (), rng)
        else:
            shape = tuple(eval(d, {}, dict(sizes)) for d in p.dims)
            args[p.name] = _data(p.prec, shape, rng)
    return args


def _copy(args):
    return {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in args.items()}


def _assert_close(name, got, want):
    for key, value in want.items():
        if not isinstance(value, np.ndarray):
            continue
        if value.dtype == np.uint16:
            np.testing.assert_array_equal(got[key], value, err_msg=f"{name}: {key}")
        else:
            tol = 1e-5 if value.dtype == np.float32 else 1e-12
            np.testing.assert_allclose(
                got[key], value, rtol=tol, atol=tol, err_msg=f"{name}: {key}"
            )


# --------------------------------------------------------------------------
# the semantic check of every instruction


@pytest.mark.parametrize("instr", INSTRS, ids=lambda p: p.name())
def test_instruction_template_matches_its_body(instr):
    name = instr.name()
    avx512 = _needs_avx512(instr)
    reference, wrapper, params = reference_and_wrapper(instr)
    flags = WARNINGS_AS_ERRORS + (("-mavx512f",) if avx512 else ())
    # Compiles warning-free whether or not this CPU can run it.
    ref_kernel = exo2.jit(reference, extra_cflags=WARNINGS_AS_ERRORS)
    wrap_kernel = exo2.jit(wrapper, extra_cflags=flags)
    if not (HAS_AVX512 if avx512 else HAS_AVX2):
        pytest.skip(f"this CPU cannot run {name}")

    rng = np.random.default_rng(7)
    literals = LITERAL_SIZES.get(name, {})
    size_names, size_values = _size_values(name, params)
    runs = 0
    for values in size_values:
        sizes = dict(zip(size_names, values, strict=True))
        for _ in range(3):
            args = _arguments(params, sizes, literals, rng)
            want, got = _copy(args), _copy(args)
            try:
                ref_kernel(**want, **literals)
            except ValueError as e:
                assert "precondition violated" in str(e)
                break
            wrap_kernel(**got)
            _assert_close(f"{name}{sizes}", got, want)
            runs += 1
    assert runs > 0


# --------------------------------------------------------------------------
# the module


def test_module_exposes_exo_names():
    names = set(dir(x86))
    assert set(EXO_INSTRS) <= names
    assert {"instr", "DRAM", "AVX2", "AVX512", "relu", "select"} <= names
    assert len(EXO_INSTRS) == 60
    assert len(INSTRS) == 125


@pytest.mark.parametrize("instr", INSTRS, ids=lambda p: p.name())
def test_instruction_prints(instr):
    text = str(instr)
    assert text.startswith(f"def {instr.name()}(")
    assert "\n    # @instr" in text


def test_star_import_brings_instructions_and_memories():
    namespace = {}
    exec("from exo2.platforms.x86 import *", namespace)
    assert namespace["mm256_fmadd_ps"] is x86.mm256_fmadd_ps
    assert namespace["AVX512"] is AVX512 and namespace["DRAM"] is DRAM


def test_exo_signatures_are_kept():
    def signature(instr):
        return [(p.name, p.kind, p.prec, p.memory) for p in _signature(instr)]

    assert signature(x86.mm512_fmadd_ps) == [
        ("A", "window", "f32", "AVX512"),
        ("B", "window", "f32", "AVX512"),
        ("C", "window", "f32", "AVX512"),
    ]
    assert signature(x86.mm256_prefix_load_ps) == [
        ("dst", "window", "f32", "AVX2"),
        ("src", "window", "f32", "DRAM"),
        ("bound", "size", "size", None),
    ]
    assert signature(x86.mm512_mask_storeu_ps)[0] == ("N", "size", "size", None)
    assert (
        x86.mm256_loadu_ps.get_instr() == "{dst_data} = _mm256_loadu_ps(&{src_data});"
    )


@pytest.mark.parametrize(
    "platform", ["neon", "rvv", "sve_vla", "sve_vls", "gemmini", "amx"]
)
def test_the_other_platforms_import(platform):
    """A scheduling library imports every platform, whatever it targets."""
    __import__(f"exo2.platforms.{platform}")


# --------------------------------------------------------------------------
# generated C


@proc
def two_masked_stores(n: size, x: f32[8], y: f32[8]):
    assert n <= 8
    v: f32[8] @ AVX2
    x86.mm256_loadu_ps(v[0:8], x[0:8])
    x86.avx2_mask_storeu_ps(n, y[0:n], v[0:8])
    x86.avx2_mask_storeu_ps(n, y[0:n], v[0:8])


def test_multi_statement_templates_are_blocks():
    # Exo's avx2_mask_storeu_ps declared a variable in the caller's scope:
    # two calls did not compile.
    kernel = exo2.jit(two_masked_stores, extra_cflags=WARNINGS_AS_ERRORS)
    if not HAS_AVX2:
        pytest.skip("this CPU cannot run AVX2")
    x = np.arange(1, 9, dtype=np.float32)
    y = np.zeros(8, dtype=np.float32)
    kernel(3, x, y)
    assert y.tolist() == [1, 2, 3, 0, 0, 0, 0, 0]


@proc
def sgemv_row(n: size, a: f32[n, 8], x: f32[n], y: f32[8]):
    acc: f32[8] @ AVX2
    x86.mm256_loadu_ps(acc[0:8], y[0:8])
    for i in seq(0, n):
        row: f32[8] @ AVX2
        x86.mm256_loadu_ps(row[0:8], a[i, 0:8])
        x86.mm256_fmadd_ps_broadcast(acc[0:8], row[0:8], x[i : i + 1])
    x86.mm256_storeu_ps(y[0:8], acc[0:8])


def test_fmadd_broadcast_in_a_loop():
    kernel = exo2.jit(sgemv_row, extra_cflags=WARNINGS_AS_ERRORS)
    c_code, _ = compile_procs_to_strings([sgemv_row], "sgemv_row.h")
    assert "_mm256_fmadd_ps(row, _mm256_broadcast_ss(&x[i]), acc);" in c_code
    if not HAS_AVX2:
        pytest.skip("this CPU cannot run AVX2")
    rng = np.random.default_rng(0)
    a = rng.standard_normal((5, 8), dtype=np.float32)
    x = rng.standard_normal(5, dtype=np.float32)
    y = rng.standard_normal(8, dtype=np.float32)
    want = y + x @ a
    kernel(5, a, x, y)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)


# --------------------------------------------------------------------------
# vector memories


def test_vector_register_declarations():
    @proc
    def regs(x: f64[8], y: f32[16]):
        a: f64[2, 8] @ AVX512
        b: f32[16] @ AVX512
        c: f64[3, 4] @ AVX2
        x86.mm512_loadu_pd(a[1, 0:8], x[0:8])
        x86.mm512_storeu_pd(x[0:8], a[1, 0:8])
        x86.mm512_loadu_ps(b[0:16], y[0:16])
        x86.mm512_storeu_ps(y[0:16], b[0:16])
        x86.mm256_loadu_pd(c[2, 0:4], x[4:8])
        x86.mm256_storeu_pd(x[0:4], c[2, 0:4])

    c_code, _ = compile_procs_to_strings([regs], "regs.h")
    assert "__m512d a[2];" in c_code
    assert "__m512 b;" in c_code
    assert "__m256d c[3];" in c_code
    assert "a[1] = _mm512_loadu_pd(&x[0]);" in c_code
    assert "_mm256_storeu_pd(&x[0], c[2]);" in c_code
    assert "#include <immintrin.h>" in c_code


@pytest.mark.parametrize(
    "memory, prim_type, shape, message",
    [
        (AVX512, "float", [], "<loc>: AVX512 vectors are not scalar values"),
        (AVX512, "float", ["8"], "<loc>: AVX512 vectors must be 16-wide"),
        (
            AVX512,
            "double",
            ["16"],
            "<loc>: AVX512 vectors of type double must be 8-wide, got ['16']",
        ),
        (
            AVX512,
            "int8_t",
            ["16"],
            "<loc>: AVX512 vectors must be f32/f64 (for now), got int8_t",
        ),
        (
            AVX2,
            "double",
            ["8"],
            "<loc>: AVX2 vectors of type double must be 4-wide, got ['8']",
        ),
        (
            AVX2,
            "int8_t",
            ["32"],
            "<loc>: AVX2 vectors must be f32/f64/ui16 (for now), got int8_t",
        ),
        (AVX2, "float", [], "<loc>: AVX2 vectors are not scalar values"),
    ],
)
def test_vector_memory_refusals(memory, prim_type, shape, message):
    with pytest.raises(MemGenError) as e:
        memory.alloc("v", prim_type, shape, "<loc>")
    assert str(e.value) == message


def test_vector_memory_allocations_and_windows():
    assert AVX512.alloc("v", "double", ["2", "8"], "") == "__m512d v[2];"
    assert AVX512.alloc("v", "float", ["16"], "") == "__m512 v;"
    assert AVX2.alloc("v", "uint16_t", ["4", "16"], "") == "__m256i v[4];"
    assert AVX2.window(None, "v", ["i", "j", "0"], ["64", "8", "1"], "") == "v[i][j]"
    assert AVX512.window(None, "v", ["0"], ["1"], "") == "v"
    assert not AVX2.can_read() and not AVX512.can_read()
    assert AVX2.global_() == AVX512.global_() == "#include <immintrin.h>"


def test_vector_registers_cannot_be_written_by_plain_statements():
    @proc
    def bad(x: f64[8]):
        v: f64[8] @ AVX512
        for i in seq(0, 8):
            v[i] = x[i]

    with pytest.raises(
        MemGenError, match="cannot write to buffer 'v' in memory 'AVX512'"
    ):
        compile_procs_to_strings([bad], "bad.h")
