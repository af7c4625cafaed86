"""Smoke tests of the Python frontend: kernels parse, check and print;
metaprogramming expands; syntax errors carry Exo's texts and locations."""

# ruff: noqa: F821, F841, F842, E501, E741, B007, B018

from __future__ import annotations

import inspect

import pytest
from exo2 import DRAM, Procedure, config, extern, instr, proc
from exo2.frontend.pyparser import ParseError
from exo2.libs.externs import relu
from exo2.libs.memories import AVX2


def _line_of(fn, text):
    """File line of the first source line of `fn` containing `text`."""
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def test_sgemm_prints_wrapped_signature():
    @proc
    def sgemm(
        M: size,
        N: size,
        K: size,
        A: f32[M, K] @ DRAM,
        B: f32[K, N] @ DRAM,
        C: f32[M, N] @ DRAM,
    ):
        for i in seq(0, M):
            for j in seq(0, N):
                for k in seq(0, K):
                    C[i, j] += A[i, k] * B[k, j]

    assert isinstance(sgemm, Procedure)
    assert sgemm.name() == "sgemm"
    assert not sgemm.is_instr()
    assert str(sgemm) == (
        "def sgemm(M: size, N: size, K: size, A: f32[M, K] @ DRAM, B: f32[K, N] @ DRAM,\n"
        "          C: f32[M, N] @ DRAM):\n"
        "    for i in seq(0, M):\n"
        "        for j in seq(0, N):\n"
        "            for k in seq(0, K):\n"
        "                C[i, j] += A[i, k] * B[k, j]"
    )


def test_windows_preconditions_and_literals():
    @proc
    def axpy(n: size, alpha: f32, x: [f32][n], y: f32[n]):
        assert stride(x, 0) == 1
        assert 0 < n < 100
        for i in par(0, n):
            y[i] += alpha * x[i] - -3
        w = y[:]
        w[0] = -2.0

    text = str(axpy)
    assert (
        "def axpy(n: size, alpha: f32 @ DRAM, x: [f32][n] @ DRAM, y: f32[n] @ DRAM):"
        in text
    )
    assert "    assert stride(x, 0) == 1" in text
    assert "    assert 0 < n and n < 100" in text
    assert "        y[i] += alpha * x[i] - -3" in text
    assert "    w = y[0:n]" in text


def test_allocation_if_call_extern_config():
    @config
    class TileCfg:
        ld: stride
        alpha: f32

    @proc
    def helper(n: size, x: f32[n]):
        for i in seq(0, n):
            x[i] = relu(x[i])

    @proc
    def caller(n: size, b: bool, x: f32[n, 8]):
        t: f32[8] @ AVX2
        if b:
            helper(8, x[0, :])
        elif n == 4:
            pass
        else:
            TileCfg.alpha = 2.0
        x[0, 0] = TileCfg.alpha

    text = str(caller)
    assert "    t: f32[8] @ AVX2" in text
    assert "        helper(8, x[0, 0:8])" in text
    assert "            TileCfg.alpha = 2.0" in text
    assert TileCfg.name() == "TileCfg" and TileCfg.has_field("ld")
    assert TileCfg.c_struct_def() == [
        "struct TileCfg {",
        "    int_fast32_t ld;",
        "    float alpha;",
        "} TileCfg;",
    ]


def test_instr_keeps_template():
    @instr("{dst_data} = _mm256_setzero_ps();")
    def setzero(dst: [f32][8] @ AVX2):
        assert stride(dst, 0) == 1
        for l in seq(0, 8):
            dst[l] = 0.0

    assert setzero.is_instr()
    assert setzero.get_instr() == "{dst_data} = _mm256_setzero_ps();"
    assert (
        str(setzero).splitlines()[1] == "    # @instr {dst_data} = _mm256_setzero_ps();"
    )


def test_extern_decorator_builds_an_extern():
    @extern("fmaxf({a}, {b})", c_global="#include <math.h>")
    def fmax2(a, b):
        return max(a, b)

    assert fmax2.name() == "fmax2"
    assert fmax2.compile(["x", "y"], "float") == "fmaxf((float)(x), (float)(y))"
    assert fmax2.interpret([1.0, 2.0]) == 2.0


def test_metaprogramming_unrolls_and_unquotes():
    def make(T, n):
        @proc
        def unrolled(a: {T}[n], b: {T}):
            with python:
                for k in range(3):
                    with exo:
                        a[{k}] = b * {k + 1}
                with exo as s:
                    a[0] = b
                with exo:
                    {s}
                    w = a[{slice(1, 3)}]
            for i in seq(0, {n}):
                a[i] = {~{b} if n > 3 else 0.0}

        return unrolled

    lines = str(make("f64", 8)).splitlines()
    assert lines[0] == "def unrolled(a: f64[8] @ DRAM, b: f64 @ DRAM):"
    assert lines[1:4] == ["    a[0] = b * 1", "    a[1] = b * 2", "    a[2] = b * 3"]
    assert lines[4:6] == ["    a[0] = b", "    w = a[1:3]"]
    assert lines[6:] == ["    for i in seq(0, 8):", "        a[i] = b"]


def test_python_names_are_unquoted_and_exo_names_quoted():
    x = 3

    @proc
    def scoped(a: i8, b: i8):
        with python:
            y = 2
            with exo:
                a = {~{b} if x == 3 and y == 2 else ~{a}}
        b = a * x

    assert str(scoped).splitlines()[1:] == ["    a = b", "    b = a * 3"]


def test_equality_is_structural_identity():
    @proc
    def f(x: f32):
        x = 0.0

    @proc
    def g(x: f32):
        x = 0.0

    assert f == f
    assert f != g
    assert f != "f"


@pytest.mark.parametrize(
    "kernel, needle, message",
    [
        ("not_equal", "!=", "unsupported binary operator: !="),
        ("floor_div", "//", "unsupported binary operator: //"),
        (
            "late_assert",
            "assert n",
            "predicate assert should happen at the beginning of a function",
        ),
        (
            "bad_loop",
            "range",
            "expected for loop condition to be in the form 'par(...,...)' or 'seq(...,...)'",
        ),
        ("undefined", "= y", "variable 'y' undefined"),
        ("size_write", "n = 3", "cannot write to size variable 'n'"),
        ("python_return", "return 3", "cannot return from metalanguage fragment"),
        ("two_unquotes", "{1, 2}", "Unquote must take 1 argument"),
    ],
)
def test_parse_errors_name_location_and_text(kernel, needle, message):
    fn = _ERROR_KERNELS[kernel]
    with pytest.raises(ParseError) as info:
        proc(fn)
    line = _line_of(fn, needle)
    text = str(info.value)
    assert text.startswith(f"{inspect.getsourcefile(fn)}:{line}:")
    assert text.endswith(": " + message)


def _not_equal(n: size):
    if n != 3:
        pass


def _floor_div(n: size, x: f32[n]):
    x[n // 2] = 0.0


def _late_assert(n: size):
    pass
    assert n > 1


def _bad_loop(n: size):
    for i in range(0, n):
        pass


def _undefined(x: f32):
    x = y  # noqa: F821


def _size_write(n: size):
    n = 3


def _python_return(n: size):
    with python:  # noqa: F821
        return 3
    pass


def _two_unquotes(x: f32):
    x = {1, 2}


_ERROR_KERNELS = {
    "not_equal": _not_equal,
    "floor_div": _floor_div,
    "late_assert": _late_assert,
    "bad_loop": _bad_loop,
    "undefined": _undefined,
    "size_write": _size_write,
    "python_return": _python_return,
    "two_unquotes": _two_unquotes,
}


def test_decorator_misuse_raises_type_error():
    with pytest.raises(
        TypeError, match="@proc decorator must be applied to a function"
    ):
        proc(3)
    with pytest.raises(
        TypeError, match=r"@instr decorator must be @instr\(<your instruction>\)"
    ):
        instr(3)
    with pytest.raises(TypeError, match="@config decorator must be applied to a class"):
        config(3)


def test_config_rejects_unsupported_field_types():
    with pytest.raises(
        ParseError,
        match="expected one of the following types: "
        "bool, size, index, stride, f16, f32, f64, i8, i32$",
    ):

        @config
        class Narrow:
            a: ui8


def test_kernel_without_source_file_gets_a_clear_error():
    namespace = {}
    exec(
        compile("def f(n: size):\n    pass\n", "<string>", "exec"),
        namespace,
    )
    with pytest.raises(OSError, match="define them in a file"):
        proc(namespace["f"])
