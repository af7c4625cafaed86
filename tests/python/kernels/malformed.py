"""Malformed kernels, one per factory function.

Each factory defines (and so checks) one kernel when called; the line that
the expected error points at ends with the marker comment `# ERR`.
test_kernels_malformed.py computes the expected `file:line:col` from the
marker line and an anchor text on it.
"""

# ruff: noqa

from __future__ import annotations

from exo2 import DRAM, config, instr, proc
from exo2.libs.externs import fmaxf, relu, select, sqrt

from kernels.configs import TileCfg

# --------------------------------------------------------------------------
# signatures and preconditions


def unannotated_param():
    @proc
    def f(n: size, x):  # ERR
        pass


def return_annotation():
    @proc
    def f(n: size, x: f32[n]) -> None:  # ERR
        x[0] = 0.0


def default_value():
    @proc
    def f(n: size, m: size = 4):  # ERR
        pass


def varargs():
    @proc
    def f(n: size, *rest):  # ERR
        pass


def keyword_only():
    @proc
    def f(n: size, *, m: size):  # ERR
        pass


def kwargs():
    @proc
    def f(n: size, **opts):  # ERR
        pass


def memory_on_size():
    @proc
    def f(n: size @ DRAM, x: f32[n]):  # ERR
        x[0] = 0.0


def memory_on_index():
    @proc
    def f(k: index @ DRAM, x: f32[4]):  # ERR
        x[0] = 0.0


def memory_on_bool():
    @proc
    def f(b: bool @ DRAM, x: f32[4]):  # ERR
        x[0] = 0.0


def memory_on_stride():
    @proc
    def f(s: stride @ DRAM, x: f32[4]):  # ERR
        x[0] = 0.0


def assert_with_message():
    @proc
    def f(n: size, x: f32[n]):
        assert n > 1, "n must be large"  # ERR
        x[0] = 0.0


def assert_after_start():
    @proc
    def f(n: size, x: f32[n]):
        x[0] = 0.0
        assert n > 1  # ERR


def unsatisfiable_precondition():
    @proc
    def f(n: size, x: f32[n]):
        assert n < 1  # ERR
        x[0] = 0.0


def precondition_not_bool():
    @proc
    def f(n: size, x: f32[n]):
        assert n + 1  # ERR
        x[0] = 0.0


# --------------------------------------------------------------------------
# statements


def alloc_with_value():
    @proc
    def f(x: f32[4]):
        t: f32 = 0.0  # ERR
        x[0] = t


def alloc_target_not_name():
    @proc
    def f(x: f32[4]):
        x[0]: f32  # ERR
        x[0] = 0.0


def alloc_of_size():
    @proc
    def f(x: f32[4]):
        t: size  # ERR
        x[0] = 0.0


def alloc_of_window_type():
    @proc
    def f(x: f32[4]):
        t: [f32][4]  # ERR
        x[0] = 0.0


def assign_undefined_not_window():
    @proc
    def f(x: f32[4]):
        y = x[0]  # ERR


def slice_on_lhs():
    @proc
    def f(x: f32[4]):
        x[0:2] = 0.0  # ERR


def minus_equals():
    @proc
    def f(x: f32[4]):
        x[0] -= 1.0  # ERR


def times_equals():
    @proc
    def f(x: f32[4]):
        x[0] *= 2.0  # ERR


def for_else():
    @proc
    def f(n: size, x: f32[n]):
        for i in seq(0, n):  # ERR
            x[i] = 0.0
        else:
            pass


def loop_over_range():
    @proc
    def f(n: size, x: f32[n]):
        for i in range(n):  # ERR
            x[i] = 0.0


def seq_with_three_args():
    @proc
    def f(n: size, x: f32[n]):
        for i in seq(0, n, 2):  # ERR
            x[i] = 0.0


def seq_with_named_args():
    @proc
    def f(n: size, x: f32[n]):
        for i in seq(0, hi=n):  # ERR
            x[i] = 0.0


def while_loop():
    @proc
    def f(x: f32[4]):
        while True:  # ERR
            x[0] = 0.0


def write_to_size():
    @proc
    def f(n: size, x: f32[n]):
        n = 3  # ERR


def write_to_index():
    @proc
    def f(k: index, x: f32[4]):
        k = 3  # ERR


def loop_bounds_reversed():
    @proc
    def f(n: size, x: f32[n]):
        for i in seq(2, n):  # ERR
            x[i] = 0.0


def loop_bounds_from_a_config_field():
    # No argument or iterator: the counterexample is the field's value.
    @proc
    def f(x: f32[8]):
        for i in seq(0, TileCfg.pos):  # ERR
            x[0] = 0.0


def loop_bounds_constant_and_reversed():
    # Nothing varies: the message says so instead of an empty list.
    @proc
    def f(x: f32[8]):
        for i in seq(0, 3 - 5):  # ERR
            x[0] = 0.0


def config_write_depends_on_loop():
    @proc
    def f(n: size, x: f32[n]):
        for i in seq(0, n):
            TileCfg.pos = i  # ERR


# --------------------------------------------------------------------------
# expressions


def unknown_name():
    @proc
    def f(n: size, x: f32[n]):
        x[0] = qqq  # ERR


def not_equal():
    @proc
    def f(n: size, x: f32[n]):
        if n != 4:  # ERR
            x[0] = 0.0


def floor_division():
    @proc
    def f(n: size, x: f32[n]):
        x[n // 2] = 0.0  # ERR


def power():
    @proc
    def f(x: f32[4]):
        x[0] = x[1] ** 2.0  # ERR


def bit_and():
    @proc
    def f(n: size, x: f32[n]):
        x[n & 1] = 0.0  # ERR


def is_operator():
    @proc
    def f(n: size, x: f32[n]):
        if n is n:  # ERR
            x[0] = 0.0


def unary_not():
    @proc
    def f(n: size, x: f32[n]):
        if not n == 4:  # ERR
            x[0] = 0.0


def unary_plus():
    @proc
    def f(x: f32[4]):
        x[0] = +x[1]  # ERR


def unary_invert():
    @proc
    def f(n: size, x: f32[n]):
        x[~n] = 0.0  # ERR


def conditional_expression():
    @proc
    def f(b: bool, x: f32[4]):
        x[0] = 1.0 if b else 2.0  # ERR


def non_affine_index():
    @proc
    def f(n: size, x: f32[n]):
        for i in seq(0, n):
            x[i * i] = 0.0  # ERR


def divide_by_zero():
    @proc
    def f(n: size, x: f32[n]):
        for i in seq(0, n):
            x[i / 0] = 0.0  # ERR


def modulo_by_negative():
    @proc
    def f(n: size, x: f32[n]):
        for i in seq(0, n):
            x[i % -2] = 0.0  # ERR


def divide_by_non_constant():
    @proc
    def f(n: size, x: f32[n]):
        for i in seq(0, n):
            x[i / n] = 0.0  # ERR


def modulus_of_real():
    @proc
    def f(x: R[4]):
        x[0] = x[1] % x[2]  # ERR


def arithmetic_on_bool():
    @proc
    def f(b: bool, x: f32[4]):
        x[b + 1] = 0.0  # ERR


def arithmetic_on_stride():
    @proc
    def f(x: [f32][4]):
        assert stride(x, 0) + 1 == 2  # ERR
        x[0] = 0.0


def data_mixed_with_control():
    @proc
    def f(n: size, x: f32[n]):
        x[0] = x[0] + n  # ERR


def data_dependent_if():
    @proc
    def f(x: f32[4]):
        if x[0] > 0.0:  # ERR
            x[1] = 0.0


def comparing_data_values():
    @proc
    def f(x: f32[4]):
        if x[0] < x[1]:  # ERR
            x[2] = 0.0


def logical_op_on_size():
    @proc
    def f(n: size, b: bool, x: f32[n]):
        if n and b:  # ERR
            x[0] = 0.0


def index_with_data():
    @proc
    def f(x: R[4], y: R[4]):
        x[y[0]] = 0.0  # ERR


def lvalue_too_few_indices():
    @proc
    def f(n: size, m: size, x: f32[n, m]):
        x[0] = 0.0  # ERR


def read_too_many_indices():
    @proc
    def f(n: size, x: f32[n], y: f32[n]):
        y[0] = x[0, 1]  # ERR


def window_wrong_arity():
    @proc
    def f(n: size, x: f32[n, n]):
        y = x[0:2]  # ERR
        y[0, 0] = 0.0


def window_with_step():
    @proc
    def f(x: f32[8]):
        y = x[0:8:2]  # ERR
        y[0] = 0.0


def stride_dim_not_literal():
    @proc
    def f(n: size, x: [f32][n, n]):
        assert stride(x, n) == 1  # ERR
        x[0, 0] = 0.0


def stride_dim_out_of_range():
    @proc
    def f(n: size, x: [f32][n, n]):
        assert stride(x, 2) == 1  # ERR
        x[0, 0] = 0.0


# --------------------------------------------------------------------------
# bounds


def out_of_bounds_read():
    @proc
    def f(n: size, x: f32[n], y: f32[n]):
        assert n == 4
        for i in seq(0, n):
            y[i] = x[i + 1]  # ERR


def out_of_bounds_write():
    @proc
    def f(n: size, x: f32[n], y: f32[n]):
        assert n == 4
        for i in seq(0, n):
            x[i + 1] = y[i]  # ERR


def out_of_bounds_reduce():
    @proc
    def f(n: size, x: f32[n], y: f32[n]):
        assert n == 4
        for i in seq(0, n):
            x[i + 1] += y[i]  # ERR


def non_positive_allocation():
    @proc
    def f(n: size, x: f32[n]):
        assert n == 4
        t: f32[n - 4]  # ERR
        x[0] = 0.0


# --------------------------------------------------------------------------
# calls


def _callee2():
    @proc
    def g(n: size, x: f32[n]):
        x[0] = 0.0

    return g


def call_too_few_arguments():
    g = _callee2()

    @proc
    def f(n: size, x: f32[n]):
        g(n)  # ERR


def call_too_many_arguments():
    g = _callee2()

    @proc
    def f(n: size, x: f32[n]):
        g(n, x, n)  # ERR


def call_wrong_rank():
    g = _callee2()

    @proc
    def f(n: size, y: f32[n, 8]):
        g(n, y)  # ERR


def call_wrong_shape():
    @proc
    def g(n: size, x: f32[n, 16]):
        x[0, 0] = 0.0

    @proc
    def f(n: size, y: f32[n, 8]):
        assert n == 4
        g(n, y)  # ERR


def call_scalar_not_a_name():
    @proc
    def g(a: f32, x: f32[4]):
        x[0] = a

    @proc
    def f(x: f32[4]):
        g(2.0, x)  # ERR


def call_precondition_violated():
    @proc
    def g(n: size, x: f32[n]):
        assert n % 4 == 0
        x[0] = 0.0

    @proc
    def f(m: size, x: f32[m]):
        assert m == 6
        g(m, x)  # ERR


def call_aliased_arguments():
    @proc
    def g(n: size, x: f32[n], y: f32[n]):
        for i in seq(0, n):
            y[i] = x[i]

    @proc
    def f(n: size, x: f32[n]):
        g(n, x, x)  # ERR


# --------------------------------------------------------------------------
# externs


def relu_two_args():
    @proc
    def f(x: f32[4]):
        x[0] = relu(x[1], x[2])  # ERR


def fmaxf_one_arg():
    @proc
    def f(x: f32[4]):
        x[0] = fmaxf(x[1])  # ERR


def select_three_args():
    @proc
    def f(x: f32[4]):
        x[0] = select(x[1], x[2], x[3])  # ERR


def select_three_args_one_failing():
    @proc
    def f(y: f32[16], z: f32[16]):
        for i in seq(0, 16):
            z[i] = select(i * 2, y[i], z[i])


def select_four_args_one_failing():
    @proc
    def f(y: f32[16], z: f32[16]):
        for i in seq(0, 16):
            z[i] = select(i * 2, y[i], z[i], y[i])


def sqrt_of_index():
    @proc
    def f(k: index, x: f32[4]):
        x[0] = sqrt(k)  # ERR


# --------------------------------------------------------------------------
# configurations


def config_field_of_type_r():
    @config
    class BadCfg:
        a: f32
        b: R  # ERR


def config_field_ui8():
    @config
    class BadCfg:
        a: ui8  # ERR


def config_field_ui16():
    @config
    class BadCfg:
        a: ui16  # ERR


def config_field_with_value():
    @config
    class BadCfg:
        a: f32
        b = 3  # ERR


def config_with_base_class():
    class Base:
        pass

    @config
    class BadCfg(Base):  # ERR
        a: f32


# --------------------------------------------------------------------------
# metaprogramming


def meta_nonlocal():
    z = 1

    @proc
    def f(x: f32[4]):
        with python:
            nonlocal z  # ERR
            z = 2
        x[0] = 0.0


def meta_return():
    @proc
    def f(x: f32[4]):
        with python:
            return 3  # ERR
        x[0] = 0.0


def meta_unquote_two_values():
    @proc
    def f(x: f32[4]):
        x[0] = {1.0, 2.0}  # ERR


def meta_statement_unquote_not_statements():
    @proc
    def f(x: f32[4]):
        x[0] = 0.0
        {3}  # ERR


def meta_unquote_string_value():
    @proc
    def f(x: f32[4]):
        x[0] = {"hello"}  # ERR


def meta_unquote_bad_type():
    @proc
    def f(x: f32[4]):
        t: {"q32"}[4]  # ERR
        x[0] = 0.0


def meta_unquote_slice_with_step():
    @proc
    def f(x: f32[8]):
        y = x[{slice(0, 8, 2)}]  # ERR
        y[0] = 0.0


def meta_with_other_than_python():
    @proc
    def f(x: f32[4]):
        with open("file"):  # ERR
            x[0] = 0.0
