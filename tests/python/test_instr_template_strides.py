"""The `{stride(p, d)}` key of instruction templates
(docs/reference/memories-and-instructions.md): each call fills it with the
stride of dimension d of its argument for `p` (a window's kept dimensions
counted), so an instruction can walk a window of any row stride. Shown by
JIT runs of kernels whose row copies became the instruction, the C each
call gets, and the keys a template may not use."""

# ruff: noqa: F821, E501

from __future__ import annotations

import pytest
from exo2 import compile_procs_to_strings, config, instr, proc
from exo2.errors import KernelCheckError, SchedulingError
from exo2.stdlib.scheduling import replace, write_config
from schedule_check import assert_same_results

# Written as plain C loops so that the JIT compiles it on any machine. The
# spaces inside the keys are free: `{stride(src,0)}` names the same key.
COPY_ROWS = (
    "for (int _r = 0; _r < {n}; _r++)\n"
    "  for (int _c = 0; _c < {m}; _c++)\n"
    "    (&{dst_data})[_r * {stride(dst, 0)} + _c] ="
    " (&{src_data})[_r * {stride(src,0)} + _c];"
)


@instr(COPY_ROWS)
def copy_rows(n: size, m: size, dst: [f32][n, m], src: [f32][n, m]):
    assert stride(dst, 1) == 1
    assert stride(src, 1) == 1
    for r in seq(0, n):
        for c in seq(0, m):
            dst[r, c] = src[r, c]


@proc
def copy_plane(n: size, m: size, y: f32[n + 1, m + 2], x: f32[3, n, m]):
    # a window of y (row stride m + 2) from a plane of x (row stride m)
    for r in seq(0, n):
        for c in seq(0, m):
            y[1 + r, 2 + c] = x[1, r, c]


@proc
def copy_window(n: size, m: size, y: [f32][n, m], x: [f32][n, m]):
    assert stride(y, 1) == 1
    assert stride(x, 1) == 1
    for r in seq(0, n):
        for c in seq(0, m):
            y[r, c] = x[r, c]


@pytest.mark.parametrize("n, m", [(1, 1), (3, 5), (4, 8)])
def test_a_stride_key_walks_windows_of_buffers_by_their_row_stride(n, m):
    p = replace(copy_plane, "for r in _: _", copy_rows)
    assert (
        "copy_rows(n + 0, m + 0, y[1:n + 1, 2:m + 2], x[1, 0:n + 0, 0:m + 0])" in str(p)
    )
    assert_same_results(copy_plane, p, {"n": n, "m": m})


@pytest.mark.parametrize("n, m", [(1, 1), (3, 5)])
def test_a_stride_key_of_a_window_parameter_reads_its_strides(n, m):
    p = replace(copy_window, "for r in _: _", copy_rows)
    assert_same_results(copy_window, p, {"n": n, "m": m})


def test_each_call_gets_its_arguments_strides_in_c():
    plane = replace(copy_plane, "for r in _: _", copy_rows)
    window = replace(copy_window, "for r in _: _", copy_rows)
    c_text, _ = compile_procs_to_strings([plane, window], "strides.h")
    # y: f32[n + 1, m + 2] has row stride m + 2; the plane x[1, 0:n, 0:m]
    # of x: f32[3, n, m] keeps x's last two dimensions, row stride m.
    assert "(&y[m + 2 + 2])[_r * (m + 2) + _c] = (&x[n * m])[_r * (m) + _c];" in c_text
    # window parameters: the strides their callers passed
    assert (
        "(&y.data[0])[_r * (y.strides[0]) + _c] = (&x.data[0])[_r * (x.strides[0]) + _c];"
        in c_text
    )


@pytest.mark.parametrize(
    "template, key",
    [
        ("f({stride(src, 1)});", "stride(src, 1)"),  # src has one dimension
        ("f({stride(n, 0)});", "stride(n, 0)"),  # n is a size
        ("f({stride(x, 0)});", "stride(x, 0)"),  # no parameter x
    ],
)
def test_a_stride_key_needs_a_dimension_of_a_buffer_parameter(template, key):
    with pytest.raises(KernelCheckError) as e:

        @instr(template)
        def f(n: size, src: [f32][n]):
            src[0] = 1.0

    assert (
        f"uses the unknown key '{key}'; the keys are n, n_data, src, src_data, src_int, stride(src, 0)"
        in str(e.value)
    )


@config
class RowStride:
    src: stride


@instr(COPY_ROWS)
def copy_rows_configured(n: size, m: size, dst: [f32][n, m], src: [f32][n, m]):
    assert stride(dst, 1) == 1
    assert stride(src, 1) == 1
    assert stride(src, 0) == RowStride.src  # a unit programmed beforehand
    for r in seq(0, n):
        for c in seq(0, m):
            dst[r, c] = src[r, c]


def test_replace_proves_a_stride_precondition_from_a_config_written_before():
    # Exo's test_ld schedule: the row stride is written to the config, then
    # the copy becomes an instruction that requires it there.
    p = write_config(
        copy_plane, copy_plane.body()[0].before(), RowStride, "src", "stride(x, 1)"
    )
    q = replace(p, "for r in _: _", copy_rows_configured)
    assert "RowStride.src = stride(x, 1)" in str(q)
    assert "copy_rows_configured(n + 0, m + 0, y[1:n + 1, 2:m + 2]," in str(q)
    for n, m in [(1, 1), (3, 5)]:
        assert_same_results(copy_plane, q, {"n": n, "m": m})
    # the stride of another dimension is not the one written
    wrong = write_config(
        copy_plane, copy_plane.body()[0].before(), RowStride, "src", "stride(x, 0)"
    )
    with pytest.raises(SchedulingError, match="Could not verify assertion stride"):
        replace(wrong, "for r in _: _", copy_rows_configured)


@instr("set_row_stride({s});")
def set_row_stride(s: stride):
    RowStride.src = s


def test_replace_passes_a_stride_parameter_the_stride_it_unified_with():
    p = write_config(
        copy_plane, copy_plane.body()[0].before(), RowStride, "src", "stride(x, 1)"
    )
    q = replace(p, "RowStride.src = _", set_row_stride)
    assert "    set_row_stride(stride(x, 1))\n" in str(q)
    c_text, _ = compile_procs_to_strings([q], "row_stride.h")
    assert "set_row_stride((m));" in c_text
