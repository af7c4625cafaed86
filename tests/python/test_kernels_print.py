"""Printing of well-formed kernels: `str(proc)` against hand-derived texts.

Every expected text below is derived by hand from spec/printing.md (raw
text of §1–§4, then the mechanical formatting of §5, or yapf's pep8 wrapping
for lines longer than 79 columns, §6).
"""

# ruff: noqa

from __future__ import annotations

import textwrap

from exo2 import DRAM, Procedure, instr, proc
from exo2.libs.externs import expf, fmaxf, relu, select, sigmoid, sin, sqrt
from exo2.libs.memories import AVX2, DRAM_STATIC

from kernels.configs import TileCfg


def text(s):
    return textwrap.dedent(s).strip("\n")


def check(p, expected):
    assert isinstance(p, Procedure)
    assert str(p) == text(expected)


# --------------------------------------------------------------------------
# loops


def test_loop_1d_copy():
    @proc
    def copy1(n: size, x: f32[n], y: f32[n]):
        for i in seq(0, n):
            y[i] = x[i]

    check(
        copy1,
        """
        def copy1(n: size, x: f32[n] @ DRAM, y: f32[n] @ DRAM):
            for i in seq(0, n):
                y[i] = x[i]
        """,
    )


def test_loop_2d_add():
    @proc
    def add2(m: size, n: size, a: f64[m, n], b: f64[m, n]):
        for i in seq(0, m):
            for j in seq(0, n):
                b[i, j] += a[i, j]

    check(
        add2,
        """
        def add2(m: size, n: size, a: f64[m, n] @ DRAM, b: f64[m, n] @ DRAM):
            for i in seq(0, m):
                for j in seq(0, n):
                    b[i, j] += a[i, j]
        """,
    )


def test_loop_3d_sgemm_wraps_signature():
    @proc
    def sgemm(M: size, N: size, K: size, A: f32[M, K], B: f32[K, N], C: f32[M, N]):
        for i in seq(0, M):
            for j in seq(0, N):
                for k in seq(0, K):
                    C[i, j] += A[i, k] * B[k, j]

    check(
        sgemm,
        """
        def sgemm(M: size, N: size, K: size, A: f32[M, K] @ DRAM, B: f32[K, N] @ DRAM,
                  C: f32[M, N] @ DRAM):
            for i in seq(0, M):
                for j in seq(0, N):
                    for k in seq(0, K):
                        C[i, j] += A[i, k] * B[k, j]
        """,
    )


def test_loop_nonzero_lower_bound():
    @proc
    def stencil(n: size, x: f32[n], y: f32[n]):
        assert n > 2
        for i in seq(1, n - 1):
            y[i] = x[i - 1] + x[i + 1]

    check(
        stencil,
        """
        def stencil(n: size, x: f32[n] @ DRAM, y: f32[n] @ DRAM):
            assert n > 2
            for i in seq(1, n - 1):
                y[i] = x[i - 1] + x[i + 1]
        """,
    )


def test_loop_triangular_bounds_depend_on_outer_iterator():
    @proc
    def lower(n: size, a: f32[n, n]):
        for i in seq(0, n):
            for j in seq(i, n):
                a[j, i] = 0.0

    check(
        lower,
        """
        def lower(n: size, a: f32[n, n] @ DRAM):
            for i in seq(0, n):
                for j in seq(i, n):
                    a[j, i] = 0.0
        """,
    )


def test_par_loop_outside_seq_loop():
    @proc
    def rowsum(m: size, n: size, a: f32[m, n], s: f32[m]):
        for i in par(0, m):
            for j in seq(0, n):
                s[i] += a[i, j]

    check(
        rowsum,
        """
        def rowsum(m: size, n: size, a: f32[m, n] @ DRAM, s: f32[m] @ DRAM):
            for i in par(0, m):
                for j in seq(0, n):
                    s[i] += a[i, j]
        """,
    )


def test_loop_with_constant_bounds_and_affine_index():
    @proc
    def interleave(x: i32[16]):
        for io in seq(0, 4):
            for ii in seq(0, 4):
                x[4 * io + ii] = 0

    check(
        interleave,
        """
        def interleave(x: i32[16] @ DRAM):
            for io in seq(0, 4):
                for ii in seq(0, 4):
                    x[4 * io + ii] = 0
        """,
    )


def test_tensor_dimensions_are_expressions():
    @proc
    def padded(n: size, m: size, x: f32[n + 1, 2 * m]):
        for i in seq(0, n + 1):
            for j in seq(0, 2 * m):
                x[i, j] = 1.0

    check(
        padded,
        """
        def padded(n: size, m: size, x: f32[n + 1, 2 * m] @ DRAM):
            for i in seq(0, n + 1):
                for j in seq(0, 2 * m):
                    x[i, j] = 1.0
        """,
    )


# --------------------------------------------------------------------------
# windows and strides


def test_window_statement_row_of_matrix():
    @proc
    def row_scale(m: size, n: size, a: f32[m, n]):
        for i in seq(0, m):
            r = a[i, 0:n]
            for j in seq(0, n):
                r[j] = 2.0 * r[j]

    check(
        row_scale,
        """
        def row_scale(m: size, n: size, a: f32[m, n] @ DRAM):
            for i in seq(0, m):
                r = a[i, 0:n]
                for j in seq(0, n):
                    r[j] = 2.0 * r[j]
        """,
    )


def test_window_omitted_bounds_print_explicitly():
    @proc
    def omitted(n: size, m: size, x: f32[n]):
        assert n >= 2
        assert m <= n
        a = x[:]
        b = x[1:]
        c = x[:m]
        a[0] = b[0]
        c[0] = 0.0

    check(
        omitted,
        """
        def omitted(n: size, m: size, x: f32[n] @ DRAM):
            assert n >= 2
            assert m <= n
            a = x[0:n]
            b = x[1:n]
            c = x[0:m]
            a[0] = b[0]
            c[0] = 0.0
        """,
    )


def test_window_omitted_bounds_two_dimensions():
    @proc
    def omitted2(n: size, A: f32[n, 4]):
        assert n >= 2
        col = A[:, 1]
        sub = A[1:, :]
        col[0] = sub[0, 3]

    check(
        omitted2,
        """
        def omitted2(n: size, A: f32[n, 4] @ DRAM):
            assert n >= 2
            col = A[0:n, 1]
            sub = A[1:n, 0:4]
            col[0] = sub[0, 3]
        """,
    )


def test_window_of_window():
    @proc
    def nested_window(x: f32[16]):
        y = x[2:10]
        z = y[1:3]
        w = z[:1]
        z[0] = 1.0
        w[0] = y[7]

    check(
        nested_window,
        """
        def nested_window(x: f32[16] @ DRAM):
            y = x[2:10]
            z = y[1:3]
            w = z[0:1]
            z[0] = 1.0
            w[0] = y[7]
        """,
    )


def test_window_parameter_with_stride_precondition():
    @proc
    def axpy(n: size, alpha: f32, x: [f32][n], y: f32[n]):
        assert stride(x, 0) == 1
        for i in seq(0, n):
            y[i] += alpha * x[i]

    check(
        axpy,
        """
        def axpy(n: size, alpha: f32 @ DRAM, x: [f32][n] @ DRAM, y: f32[n] @ DRAM):
            assert stride(x, 0) == 1
            for i in seq(0, n):
                y[i] += alpha * x[i]
        """,
    )


def test_stride_parameter_and_stride_comparisons():
    @proc
    def strided(n: size, s: stride, x: [i8][n, n]):
        assert stride(x, 1) == 1
        assert stride(x, 0) == s
        TileCfg.ld = stride(x, 0)
        x[0, 0] = 0

    check(
        strided,
        """
        def strided(n: size, s: stride @ DRAM, x: [i8][n, n] @ DRAM):
            assert stride(x, 1) == 1
            assert stride(x, 0) == s
            TileCfg.ld = stride(x, 0)
            x[0, 0] = 0
        """,
    )


def test_window_expression_with_point_and_interval():
    @proc
    def col_copy(n: size, A: f32[n, 8], B: f32[8, n]):
        for i in seq(0, n):
            a = A[i, 2:6]
            b = B[4:8, i]
            for j in seq(0, 4):
                b[j] = a[j]

    check(
        col_copy,
        """
        def col_copy(n: size, A: f32[n, 8] @ DRAM, B: f32[8, n] @ DRAM):
            for i in seq(0, n):
                a = A[i, 2:6]
                b = B[4:8, i]
                for j in seq(0, 4):
                    b[j] = a[j]
        """,
    )


# --------------------------------------------------------------------------
# configurations


def test_config_writes_of_several_field_types():
    @proc
    def set_cfg(n: size, k: index, x: f32[n]):
        assert 0 <= k < n
        TileCfg.tiles = n
        TileCfg.pos = k
        TileCfg.flag = True
        TileCfg.alpha = x[k]
        TileCfg.ld = stride(x, 0)

    check(
        set_cfg,
        """
        def set_cfg(n: size, k: index, x: f32[n] @ DRAM):
            assert 0 <= k and k < n
            TileCfg.tiles = n
            TileCfg.pos = k
            TileCfg.flag = True
            TileCfg.alpha = x[k]
            TileCfg.ld = stride(x, 0)
        """,
    )


def test_config_reads_in_data_and_control():
    @proc
    def use_cfg(n: size, x: f32[n], y: f64[n]):
        for i in seq(0, n):
            if TileCfg.flag:
                x[i] = TileCfg.alpha * x[i]
            y[i] += TileCfg.beta

    check(
        use_cfg,
        """
        def use_cfg(n: size, x: f32[n] @ DRAM, y: f64[n] @ DRAM):
            for i in seq(0, n):
                if TileCfg.flag:
                    x[i] = TileCfg.alpha * x[i]
                y[i] += TileCfg.beta
        """,
    )


def test_config_integer_fields_as_data():
    @proc
    def int_cfg(a: i8[4], b: i32[4]):
        TileCfg.small = a[0]
        TileCfg.acc = b[1]
        b[2] = TileCfg.acc
        a[3] = TileCfg.small

    check(
        int_cfg,
        """
        def int_cfg(a: i8[4] @ DRAM, b: i32[4] @ DRAM):
            TileCfg.small = a[0]
            TileCfg.acc = b[1]
            b[2] = TileCfg.acc
            a[3] = TileCfg.small
        """,
    )


# --------------------------------------------------------------------------
# externs


def test_extern_relu():
    @proc
    def relu_k(n: size, x: f32[n], y: f32[n]):
        for i in seq(0, n):
            y[i] = relu(x[i])

    check(
        relu_k,
        """
        def relu_k(n: size, x: f32[n] @ DRAM, y: f32[n] @ DRAM):
            for i in seq(0, n):
                y[i] = relu(x[i])
        """,
    )


def test_extern_select():
    @proc
    def select_k(n: size, x: f32[n], y: f32[n]):
        for i in seq(0, n):
            y[i] = select(x[i], 0.0, x[i], -x[i])

    check(
        select_k,
        """
        def select_k(n: size, x: f32[n] @ DRAM, y: f32[n] @ DRAM):
            for i in seq(0, n):
                y[i] = select(x[i], 0.0, x[i], -x[i])
        """,
    )


def test_extern_sin():
    @proc
    def sin_k(x: f64[8]):
        for i in seq(0, 8):
            x[i] = sin(x[i] * 0.5)

    check(
        sin_k,
        """
        def sin_k(x: f64[8] @ DRAM):
            for i in seq(0, 8):
                x[i] = sin(x[i] * 0.5)
        """,
    )


def test_extern_expf():
    @proc
    def expf_k(n: size, x: f32[n]):
        for i in seq(0, n):
            x[i] = expf(-x[i])

    check(
        expf_k,
        """
        def expf_k(n: size, x: f32[n] @ DRAM):
            for i in seq(0, n):
                x[i] = expf(-x[i])
        """,
    )


def test_extern_fmaxf():
    @proc
    def fmaxf_k(n: size, x: f32[n], y: f32[n]):
        for i in seq(0, n):
            y[i] = fmaxf(x[i], y[i] + 1.0)

    check(
        fmaxf_k,
        """
        def fmaxf_k(n: size, x: f32[n] @ DRAM, y: f32[n] @ DRAM):
            for i in seq(0, n):
                y[i] = fmaxf(x[i], y[i] + 1.0)
        """,
    )


def test_extern_sigmoid():
    @proc
    def sigmoid_k(n: size, x: f32[n]):
        for i in seq(0, n):
            x[i] = sigmoid(x[i])

    check(
        sigmoid_k,
        """
        def sigmoid_k(n: size, x: f32[n] @ DRAM):
            for i in seq(0, n):
                x[i] = sigmoid(x[i])
        """,
    )


def test_extern_sqrt_nested_in_other_externs():
    @proc
    def sqrt_k(n: size, x: f64[n]):
        for i in seq(0, n):
            x[i] = sqrt(relu(x[i]) * x[i])

    check(
        sqrt_k,
        """
        def sqrt_k(n: size, x: f64[n] @ DRAM):
            for i in seq(0, n):
                x[i] = sqrt(relu(x[i]) * x[i])
        """,
    )


# --------------------------------------------------------------------------
# instructions


def test_instr_single_line_template():
    @instr("{dst_data} = _mm256_loadu_ps(&{src_data});")
    def load8(dst: [f32][8] @ AVX2, src: [f32][8] @ DRAM):
        assert stride(dst, 0) == 1
        assert stride(src, 0) == 1
        for l in seq(0, 8):
            dst[l] = src[l]

    assert load8.is_instr()
    check(
        load8,
        """
        def load8(dst: [f32][8] @ AVX2, src: [f32][8] @ DRAM):
            # @instr {dst_data} = _mm256_loadu_ps(&{src_data});
            assert stride(dst, 0) == 1
            assert stride(src, 0) == 1
            for l in seq(0, 8):
                dst[l] = src[l]
        """,
    )


def test_instr_multi_line_template():
    @instr("for (int l = 0; l < 4; l++) {{\n  {dst_data}[l] = 0;\n}}")
    def zero4(dst: [i32][4]):
        for l in seq(0, 4):
            dst[l] = 0

    check(
        zero4,
        """
        def zero4(dst: [i32][4] @ DRAM):
            # @instr for (int l = 0; l < 4; l++) {{
            #          {dst_data}[l] = 0;
            #        }}
            for l in seq(0, 4):
                dst[l] = 0
        """,
    )


def test_instr_template_with_empty_first_and_middle_lines():
    @instr("\nfoo({x_data});\n\nbar();", c_global="#include <foo.h>")
    def foo_bar(x: [f64][2]):
        x[0] = 0.0

    check(
        foo_bar,
        """
        def foo_bar(x: [f64][2] @ DRAM):
            # @instr
            #        foo({x_data});
            #
            #        bar();
            x[0] = 0.0
        """,
    )


def test_call_of_instr_on_avx2_registers():
    @instr("{dst_data} = _mm256_loadu_ps(&{src_data});")
    def load8(dst: [f32][8] @ AVX2, src: [f32][8] @ DRAM):
        assert stride(dst, 0) == 1
        assert stride(src, 0) == 1
        for l in seq(0, 8):
            dst[l] = src[l]

    @proc
    def use_load(n: size, A: f32[n, 16]):
        for io in par(0, n):
            r: f32[8] @ AVX2
            load8(r[0:8], A[io, 8:16])

    check(
        use_load,
        """
        def use_load(n: size, A: f32[n, 16] @ DRAM):
            for io in par(0, n):
                r: f32[8] @ AVX2
                load8(r[0:8], A[io, 8:16])
        """,
    )


# --------------------------------------------------------------------------
# calls


def test_call_passing_windows_sizes_and_scalars():
    @proc
    def scal(n: size, alpha: f32, x: [f32][n]):
        for i in seq(0, n):
            x[i] = alpha * x[i]

    @proc
    def scal_rows(m: size, n: size, alpha: f32, A: f32[m, n]):
        for i in seq(0, m):
            scal(n, alpha, A[i, 0:n])

    check(
        scal_rows,
        """
        def scal_rows(m: size, n: size, alpha: f32 @ DRAM, A: f32[m, n] @ DRAM):
            for i in seq(0, m):
                scal(n, alpha, A[i, 0:n])
        """,
    )


def test_call_passing_tensor_and_partial_index_sugar():
    @proc
    def zero(n: size, x: [f32][n]):
        for i in seq(0, n):
            x[i] = 0.0

    @proc
    def zero_all(m: size, n: size, A: f32[m, n], v: f32[n]):
        zero(n, v)
        for i in seq(0, m):
            zero(n, A[i])

    check(
        zero_all,
        """
        def zero_all(m: size, n: size, A: f32[m, n] @ DRAM, v: f32[n] @ DRAM):
            zero(n, v)
            for i in seq(0, m):
                zero(n, A[i, 0:n])
        """,
    )


def test_call_with_expression_arguments_and_precondition():
    @proc
    def blocks(n: size, x: f32[n]):
        assert n % 4 == 0
        for i in seq(0, n / 4):
            x[4 * i] = 1.0

    @proc
    def caller(m: size, k: index, flag: bool, x: f32[8 * m]):
        assert 0 <= k < m
        blocks(8 * m, x)
        blocks(4 * m, x[0 : 4 * m])
        if flag:
            blocks(4, x[4 * k : 4 * k + 4])

    check(
        caller,
        """
        def caller(m: size, k: index, flag: bool @ DRAM, x: f32[8 * m] @ DRAM):
            assert 0 <= k and k < m
            blocks(8 * m, x)
            blocks(4 * m, x[0:4 * m])
            if flag:
                blocks(4, x[4 * k:4 * k + 4])
        """,
    )


def test_call_with_stride_and_config_arguments():
    @proc
    def takes(s: stride, a: f32, x: [f32][4]):
        x[0] = a

    @proc
    def gives(x: f32[4, 4]):
        takes(stride(x, 0), TileCfg.alpha, x[0:4, 1])

    check(
        gives,
        """
        def gives(x: f32[4, 4] @ DRAM):
            takes(stride(x, 0), TileCfg.alpha, x[0:4, 1])
        """,
    )


# --------------------------------------------------------------------------
# control flow and preconditions


def test_if_elif_else_nests_in_else_block():
    @proc
    def classify(n: size, k: index, x: i32[3]):
        assert k < 10
        if k < 3:
            x[0] = 1
        elif k == 5:
            x[1] = 2
        elif k >= 7 and k <= 8:
            x[2] = 3
        else:
            pass

    check(
        classify,
        """
        def classify(n: size, k: index, x: i32[3] @ DRAM):
            assert k < 10
            if k < 3:
                x[0] = 1
            else:
                if k == 5:
                    x[1] = 2
                else:
                    if k >= 7 and k <= 8:
                        x[2] = 3
                    else:
                        pass
        """,
    )


def test_if_without_else_and_nested_ifs_in_loops():
    @proc
    def guards(n: size, x: f32[n]):
        for i in seq(0, n):
            if i > 0:
                if i < n - 1:
                    x[i] = 0.5 * (x[i - 1] + x[i + 1])

    check(
        guards,
        """
        def guards(n: size, x: f32[n] @ DRAM):
            for i in seq(0, n):
                if i > 0:
                    if i < n - 1:
                        x[i] = 0.5 * (x[i - 1] + x[i + 1])
        """,
    )


def test_preconditions_chained_comparison_and_modulus():
    @proc
    def pre(n: size, m: size, x: f32[n, m]):
        assert n % 4 == 0
        assert 0 < m <= 16
        assert n >= m or m == 16
        x[0, 0] = 0.0

    check(
        pre,
        """
        def pre(n: size, m: size, x: f32[n, m] @ DRAM):
            assert n % 4 == 0
            assert 0 < m and m <= 16
            assert n >= m or m == 16
            x[0, 0] = 0.0
        """,
    )


def test_bool_parameters_in_conditions():
    @proc
    def flags(a: bool, b: bool, k: index, x: f32[1]):
        if a and k == 0 or b:
            x[0] = 1.0
        if a and (k == 0 or b):
            x[0] = 2.0
        if a == b:
            pass

    check(
        flags,
        """
        def flags(a: bool @ DRAM, b: bool @ DRAM, k: index, x: f32[1] @ DRAM):
            if a and k == 0 or b:
                x[0] = 1.0
            if a and (k == 0 or b):
                x[0] = 2.0
            if a == b:
                pass
        """,
    )


# --------------------------------------------------------------------------
# allocations, memories, precisions


def test_allocations_in_several_memories():
    @proc
    def allocs(n: size, x: f32[n]):
        t: f32[4, 4] @ DRAM
        s: f32[16] @ DRAM_STATIC
        v: f32[2, 8] @ AVX2
        acc: f32
        acc = 0.0
        for i in seq(0, n):
            acc += x[i]
        t[0, 0] = acc
        s[0] = t[0, 0]

    check(
        allocs,
        """
        def allocs(n: size, x: f32[n] @ DRAM):
            t: f32[4, 4] @ DRAM
            s: f32[16] @ DRAM_STATIC
            v: f32[2, 8] @ AVX2
            acc: f32 @ DRAM
            acc = 0.0
            for i in seq(0, n):
                acc += x[i]
            t[0, 0] = acc
            s[0] = t[0, 0]
        """,
    )


def test_allocation_with_symbolic_size_and_memory_expression():
    mems = [DRAM_STATIC, DRAM]

    @proc
    def stage(n: size, x: R[n]):
        tmp: R[n + 1] @ mems[1]
        buf: R[8] @ mems[0]
        for i in seq(0, n):
            tmp[i + 1] = x[i]
        buf[0] = tmp[n]

    check(
        stage,
        """
        def stage(n: size, x: R[n] @ DRAM):
            tmp: R[n + 1] @ DRAM
            buf: R[8] @ DRAM_STATIC
            for i in seq(0, n):
                tmp[i + 1] = x[i]
            buf[0] = tmp[n]
        """,
    )


def test_all_precisions_in_signature_wrap():
    @proc
    def precisions(a: R, b: f16, c: f32, d: f64, e: i8, f: ui8, g: ui16, h: i32):
        a = a + 1.0
        h = h + 1

    check(
        precisions,
        """
        def precisions(a: R @ DRAM, b: f16 @ DRAM, c: f32 @ DRAM, d: f64 @ DRAM,
                       e: i8 @ DRAM, f: ui8 @ DRAM, g: ui16 @ DRAM, h: i32 @ DRAM):
            a = a + 1.0
            h = h + 1
        """,
    )


def test_all_precisions_in_allocations():
    @proc
    def locals_(x: f32[1]):
        a: R[2]
        b: f16[2]
        c: f32[2]
        d: f64[2]
        e: i8[2]
        f: ui8[2]
        g: ui16[2]
        h: i32[2]
        x[0] = 0.0

    check(
        locals_,
        """
        def locals_(x: f32[1] @ DRAM):
            a: R[2] @ DRAM
            b: f16[2] @ DRAM
            c: f32[2] @ DRAM
            d: f64[2] @ DRAM
            e: i8[2] @ DRAM
            f: ui8[2] @ DRAM
            g: ui16[2] @ DRAM
            h: i32[2] @ DRAM
            x[0] = 0.0
        """,
    )


def test_blur_ui16_divides_by_data_literal():
    @proc
    def blur1d(n: size, src: ui16[n + 2], dst: ui16[n]):
        for i in seq(0, n):
            dst[i] = (src[i] + src[i + 1] + src[i + 2]) / 3.0

    check(
        blur1d,
        """
        def blur1d(n: size, src: ui16[n + 2] @ DRAM, dst: ui16[n] @ DRAM):
            for i in seq(0, n):
                dst[i] = (src[i] + src[i + 1] + src[i + 2]) / 3.0
        """,
    )


# --------------------------------------------------------------------------
# literals and operators


def test_literal_zero_int_versus_float():
    @proc
    def zeros(x: f32[4], y: f64[4], z: i8[4]):
        x[0] = 0
        x[1] = 0.0
        y[0] = 0
        y[1] = 0.0
        z[0] = 0
        z[1] = 0.0

    check(
        zeros,
        """
        def zeros(x: f32[4] @ DRAM, y: f64[4] @ DRAM, z: i8[4] @ DRAM):
            x[0] = 0
            x[1] = 0.0
            y[0] = 0
            y[1] = 0.0
            z[0] = 0
            z[1] = 0.0
        """,
    )


def test_float_literals_print_as_python_repr():
    @proc
    def floats(x: f64[8]):
        x[0] = 1e-5
        x[1] = 0.00001
        x[2] = 2.5e10
        x[3] = 1e20
        x[4] = 0.1
        x[5] = 3.0
        x[6] = 1.5e-300
        x[7] = 123456.75

    check(
        floats,
        """
        def floats(x: f64[8] @ DRAM):
            x[0] = 1e-05
            x[1] = 1e-05
            x[2] = 25000000000.0
            x[3] = 1e+20
            x[4] = 0.1
            x[5] = 3.0
            x[6] = 1.5e-300
            x[7] = 123456.75
        """,
    )


def test_negative_literals():
    @proc
    def negatives(n: size, x: f32[n + 4], y: i32[4]):
        for i in seq(1, n):
            x[i + -1] = -2.5
            x[i + 2] += x[i] - -3
            x[i] = x[i] * -0.5
        y[0] = -7
        y[1] = 3 + -1

    check(
        negatives,
        """
        def negatives(n: size, x: f32[n + 4] @ DRAM, y: i32[4] @ DRAM):
            for i in seq(1, n):
                x[i + -1] = -2.5
                x[i + 2] += x[i] - -3
                x[i] = x[i] * -0.5
            y[0] = -7
            y[1] = 3 + -1
        """,
    )


def test_unary_minus_parenthesisation():
    @proc
    def tiny_neg(a: i8, t: i8[4]):
        t[0] = -a - (a - a) - -(a * a)
        t[1] = --a
        t[2] = -(a + a)
        t[3] = -t[0] * a

    check(
        tiny_neg,
        """
        def tiny_neg(a: i8 @ DRAM, t: i8[4] @ DRAM):
            t[0] = -a - (a - a) - -(a * a)
            t[1] = --a
            t[2] = -(a + a)
            t[3] = -t[0] * a
        """,
    )


def test_binary_operator_precedence_on_data():
    @proc
    def prec(a: f32, b: f32, c: f32, x: f32[8]):
        x[0] = a - b - c
        x[1] = a - (b - c)
        x[2] = a * (b * c)
        x[3] = (a + b) * c
        x[4] = a / b * c
        x[5] = a / (b * c)
        x[6] = a * b + c * a
        x[7] = (a - b) / (c + a)

    check(
        prec,
        """
        def prec(a: f32 @ DRAM, b: f32 @ DRAM, c: f32 @ DRAM, x: f32[8] @ DRAM):
            x[0] = a - b - c
            x[1] = a - (b - c)
            x[2] = a * (b * c)
            x[3] = (a + b) * c
            x[4] = a / b * c
            x[5] = a / (b * c)
            x[6] = a * b + c * a
            x[7] = (a - b) / (c + a)
        """,
    )


def test_control_operator_precedence_in_indices():
    @proc
    def idx(n: size, x: f32[n]):
        assert n % 8 == 0
        for i in seq(0, n / 8):
            x[8 * i + (3 - 1)] = 0.0
            x[(i + 1) * 8 - 1] = 0.0
            x[n / 8 * 8 - 1 - i] = 0.0
            x[i % 4 + 4 * (i / 4)] = 0.0
            x[(8 * i + 5) % 8] = 0.0

    check(
        idx,
        """
        def idx(n: size, x: f32[n] @ DRAM):
            assert n % 8 == 0
            for i in seq(0, n / 8):
                x[8 * i + (3 - 1)] = 0.0
                x[(i + 1) * 8 - 1] = 0.0
                x[n / 8 * 8 - 1 - i] = 0.0
                x[i % 4 + 4 * (i / 4)] = 0.0
                x[(8 * i + 5) % 8] = 0.0
        """,
    )


# --------------------------------------------------------------------------
# names: shadowing and scopes


def test_shadowed_loop_iterators_get_suffix():
    @proc
    def shadow(n: size, x: R[n, n]):
        for i in seq(0, n):
            for i in seq(0, n):
                x[i, i] = 0.0

    check(
        shadow,
        """
        def shadow(n: size, x: R[n, n] @ DRAM):
            for i in seq(0, n):
                for i_1 in seq(0, n):
                    x[i_1, i_1] = 0.0
        """,
    )


def test_triple_shadowing_takes_first_free_suffix():
    @proc
    def shadow3(x: f32[2, 2, 2]):
        for i in seq(0, 2):
            for i in seq(0, 2):
                for i in seq(0, 2):
                    x[i, i, i] = 1.0

    check(
        shadow3,
        """
        def shadow3(x: f32[2, 2, 2] @ DRAM):
            for i in seq(0, 2):
                for i_1 in seq(0, 2):
                    for i_2 in seq(0, 2):
                        x[i_2, i_2, i_2] = 1.0
        """,
    )


def test_loop_iterator_shadowing_index_parameter():
    @proc
    def shadow_param(n: size, i: index, x: f32[n]):
        assert 0 <= i < n
        x[i] = 1.0
        for i in seq(0, n):
            x[i] = 2.0

    check(
        shadow_param,
        """
        def shadow_param(n: size, i: index, x: f32[n] @ DRAM):
            assert 0 <= i and i < n
            x[i] = 1.0
            for i_1 in seq(0, n):
                x[i_1] = 2.0
        """,
    )


def test_sibling_scopes_do_not_conflict():
    @proc
    def siblings(n: size, x: f32[n]):
        for i in seq(0, n):
            t: f32
            t = x[i]
            x[i] = t * t
        for i in seq(0, n):
            t: f32
            t = x[i]
            x[i] = t + t

    check(
        siblings,
        """
        def siblings(n: size, x: f32[n] @ DRAM):
            for i in seq(0, n):
                t: f32 @ DRAM
                t = x[i]
                x[i] = t * t
            for i in seq(0, n):
                t: f32 @ DRAM
                t = x[i]
                x[i] = t + t
        """,
    )


def test_shadowed_allocation_in_loop_and_outer_use():
    @proc
    def shadow_alloc(x: f32[4]):
        t: f32
        t = x[0]
        for i in seq(0, 4):
            t: f32
            t = x[i]
            x[i] = t
        x[0] = t

    check(
        shadow_alloc,
        """
        def shadow_alloc(x: f32[4] @ DRAM):
            t: f32 @ DRAM
            t = x[0]
            for i in seq(0, 4):
                t_1: f32 @ DRAM
                t_1 = x[i]
                x[i] = t_1
            x[0] = t
        """,
    )


def test_if_branches_are_sibling_scopes_under_outer_name():
    @proc
    def branches(k: index, x: f32[2]):
        t: f32
        t = 0.0
        if k < 1:
            t: f32
            t = x[0]
            x[1] = t
        else:
            t: f32
            t = x[1]
            x[0] = t
        x[0] += t

    check(
        branches,
        """
        def branches(k: index, x: f32[2] @ DRAM):
            t: f32 @ DRAM
            t = 0.0
            if k < 1:
                t_1: f32 @ DRAM
                t_1 = x[0]
                x[1] = t_1
            else:
                t_1: f32 @ DRAM
                t_1 = x[1]
                x[0] = t_1
            x[0] += t
        """,
    )


def test_redeclaration_in_same_block_gets_suffix():
    @proc
    def redeclare(x: f32[2]):
        t: f32
        t = x[0]
        t: f32
        t = x[1]
        x[0] = t

    check(
        redeclare,
        """
        def redeclare(x: f32[2] @ DRAM):
            t: f32 @ DRAM
            t = x[0]
            t_1: f32 @ DRAM
            t_1 = x[1]
            x[0] = t_1
        """,
    )


# --------------------------------------------------------------------------
# long lines


def test_long_statement_is_split_by_yapf():
    @proc
    def long_stmt(n: size, alpha: f32, beta: f32, xs: f32[n], ys: f32[n], zs: f32[n]):
        for i in seq(0, n):
            zs[i] = (
                alpha * xs[i] * xs[i]
                + beta * ys[i] * ys[i]
                + alpha * beta * xs[i] * ys[i]
            )

    check(
        long_stmt,
        """
        def long_stmt(n: size, alpha: f32 @ DRAM, beta: f32 @ DRAM, xs: f32[n] @ DRAM,
                      ys: f32[n] @ DRAM, zs: f32[n] @ DRAM):
            for i in seq(0, n):
                zs[i] = alpha * xs[i] * xs[i] + beta * ys[i] * ys[
                    i] + alpha * beta * xs[i] * ys[i]
        """,
    )


def test_long_window_signature_and_long_assert():
    @proc
    def long_window_sig(
        n: size, m: size, input_matrix: [f32][n, m], output_matrix: [f32][m, n]
    ):
        assert (
            n % 4 == 0
            and n >= 16
            and n <= 1024
            and n % 16 == 0
            and n % 8 == 0
            and n >= 64
        )
        output_matrix[0, 0] = input_matrix[0, 0]

    check(
        long_window_sig,
        """
        def long_window_sig(n: size, m: size, input_matrix: [f32][n, m] @ DRAM,
                            output_matrix: [f32][m, n] @ DRAM):
            assert n % 4 == 0 and n >= 16 and n <= 1024 and n % 16 == 0 and n % 8 == 0 and n >= 64
            output_matrix[0, 0] = input_matrix[0, 0]
        """,
    )


# --------------------------------------------------------------------------
# metaprogramming


def test_python_loop_emits_exo_blocks_with_unquoted_indices():
    @proc
    def unrolled(x: f32[4]):
        with python:
            for k in range(4):
                with exo:
                    x[k] = 0.0

    check(
        unrolled,
        """
        def unrolled(x: f32[4] @ DRAM):
            x[0] = 0.0
            x[1] = 0.0
            x[2] = 0.0
            x[3] = 0.0
        """,
    )


def test_python_loop_emits_reductions_into_local():
    @proc
    def accum(a: i8):
        b: i8
        b = 0
        with python:
            for _ in range(3):
                with exo:
                    b += a

    check(
        accum,
        """
        def accum(a: i8 @ DRAM):
            b: i8 @ DRAM
            b = 0
            b += a
            b += a
            b += a
        """,
    )


def test_python_condition_selects_emitted_block():
    def make(cond):
        @proc
        def cond_k(x: f32[2]):
            with python:
                if cond:
                    with exo:
                        x[0] = 1.0
                else:
                    with exo:
                        x[1] = 2.0

        return cond_k

    check(
        make(True),
        """
        def cond_k(x: f32[2] @ DRAM):
            x[0] = 1.0
        """,
    )
    check(
        make(False),
        """
        def cond_k(x: f32[2] @ DRAM):
            x[1] = 2.0
        """,
    )


def test_python_loop_emits_loops_and_float_unquotes():
    @proc
    def gen_loops(n: size, x: f32[n, 3]):
        with python:
            for c in range(3):
                with exo:
                    for i in seq(0, n):
                        x[i, c] = {float(c) + 0.5}

    check(
        gen_loops,
        """
        def gen_loops(n: size, x: f32[n, 3] @ DRAM):
            for i in seq(0, n):
                x[i, 0] = 0.5
            for i in seq(0, n):
                x[i, 1] = 1.5
            for i in seq(0, n):
                x[i, 2] = 2.5
        """,
    )


def test_unquote_numbers_and_types():
    T = "f64"
    N = 8
    scale = 0.25

    @proc
    def typed(x: {T}[{N}]):
        tmp: {T}[{N // 2}]
        for i in seq(0, {N // 2}):
            tmp[i] = {scale} * x[2 * i]

    check(
        typed,
        """
        def typed(x: f64[8] @ DRAM):
            tmp: f64[4] @ DRAM
            for i in seq(0, 4):
                tmp[i] = 0.25 * x[2 * i]
        """,
    )


def test_type_positions_take_python_values_naming_a_precision():
    """A type position takes a Python value naming a precision, unquoted or
    bare: a string, the `exo2.frontend.syntax` class, an `ExoType`."""
    from exo2 import ExoType
    from exo2.frontend import syntax

    Elem = syntax.f64
    Acc = ExoType.F32
    Idx = "i32"

    @proc
    def typed(n: size, x: [Elem][n], y: {Acc}[n], k: Idx):
        t: {Elem}
        w: Acc[2]
        for i in seq(0, n):
            t = x[i]
            y[i] = t

    check(
        typed,
        """
        def typed(n: size, x: [f64][n] @ DRAM, y: f32[n] @ DRAM, k: i32 @ DRAM):
            t: f64 @ DRAM
            w: f32[2] @ DRAM
            for i in seq(0, n):
                t = x[i]
                y[i] = t
        """,
    )


def test_quoted_expressions_are_printed_structurally():
    @proc
    def quoted(a: f32, b: f32, x: f32[2]):
        with python:
            s = ~{a + b}
            d = ~{a * b}
        x[0] = {s} * {d}
        x[1] = -{s}

    check(
        quoted,
        """
        def quoted(a: f32 @ DRAM, b: f32 @ DRAM, x: f32[2] @ DRAM):
            x[0] = (a + b) * (a * b)
            x[1] = -(a + b)
        """,
    )


def test_quoted_index_expression_over_loop_iterator():
    @proc
    def quoted_index(x: f32[5]):
        for i in seq(0, 4):
            with python:
                nxt = ~{i + 1}
            x[{nxt}] = x[i]

    check(
        quoted_index,
        """
        def quoted_index(x: f32[5] @ DRAM):
            for i in seq(0, 4):
                x[i + 1] = x[i]
        """,
    )


def test_statement_list_unquotes():
    @proc
    def stmts(a: i32):
        with python:
            with exo as s1:
                a += 1
                a += 2
            with exo as s2:
                a += 3
        {s1}
        {s2}
        {s1}

    check(
        stmts,
        """
        def stmts(a: i32 @ DRAM):
            a += 1
            a += 2
            a += 3
            a += 1
            a += 2
        """,
    )


def test_unquote_index_tuple_and_slice():
    @proc
    def idx_unquote(A: f32[4, 4]):
        with python:
            pos = (1, 2)
            rows = slice(0, 2)
        A[{pos}] = 1.0
        w = A[{rows}, 3]
        w[0] = 0.0

    check(
        idx_unquote,
        """
        def idx_unquote(A: f32[4, 4] @ DRAM):
            A[1, 2] = 1.0
            w = A[0:2, 3]
            w[0] = 0.0
        """,
    )


def test_python_helper_function_emits_statements():
    @proc
    def helper(x: f32[4]):
        with python:

            def emit(k):
                with exo:
                    x[k] = 1.0

            emit(0)
            emit(2)

    check(
        helper,
        """
        def helper(x: f32[4] @ DRAM):
            x[0] = 1.0
            x[2] = 1.0
        """,
    )
