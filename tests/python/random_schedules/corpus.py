"""The kernels the randomized schedule test schedules, and what some
primitives take as arguments: configurations, no-op instructions
(insert_noop_call) and procedures for replace.

Besides ordinary kernels, the corpus holds the shapes of code that
soundness holes hid in (docs/internals/soundness-randomized.md): config
fields read by conditions, loop bounds and callee preconditions and written
nearby; `/` and `%` in indices and loops starting below zero;
conditional writes and zero-trip loops; windows with offsets, strided
window parameters and stride reads; calls with preconditions; static
buffers and parallel loops. A kernel names the primitives it was written
for (`favored`): its sequences try them more often.
"""

from __future__ import annotations

from dataclasses import dataclass

from exo2 import config, instr, proc
from exo2.libs.memories import DRAM_STATIC


@proc
def scale(n: size, x: f32[n]):
    assert n % 4 == 0
    for i in seq(0, n):
        x[i] = 2.0 * x[i]


@proc
def axpy(n: size, a: f32, x: f32[n], y: f32[n]):
    for i in seq(0, n):
        y[i] = y[i] + a * x[i]


@proc
def row_sums(n: size, m: size, a: f32[n, m], y: f32[n]):
    for i in seq(0, n):
        y[i] = 0.0
        for j in seq(0, m):
            y[i] += a[i, j]


@proc
def matmul(n: size, A: f32[n, 8], B: f32[8, 4], C: f32[n, 4]):
    assert n % 2 == 0
    for i in seq(0, n):
        for j in seq(0, 4):
            for k in seq(0, 8):
                C[i, j] += A[i, k] * B[k, j]


@proc
def guarded(n: size, m: size, x: f32[n], y: f32[n]):
    for i in seq(0, n):
        if i < m:
            y[i] = x[i] * 3.0
        else:
            y[i] = x[i] + 1.0


@proc
def two_stages(n: size, x: f32[n], y: f32[n], z: f32[n]):
    for i in seq(0, n):
        x[i] = y[i] + 1.0
        z[i] = x[i] * y[i]
    for j in seq(0, n):
        y[j] = z[j] + x[j]


@proc
def blur(n: size, x: f32[n + 2], y: f32[n]):
    assert n % 4 == 0
    for i in seq(0, n):
        y[i] = x[i] + x[i + 1] + x[i + 2]


@proc
def windowed(n: size, m: size, a: f32[n, m + 2], y: f32[n, m]):
    for i in seq(0, n):
        row = a[i, 1 : m + 1]
        for j in seq(0, m):
            y[i, j] = row[j] * 0.5 + y[i, j]


@proc
def dot(n: size, x: f32[n], y: f32[n], out: f32[1]):
    acc: f32
    acc = 0.0
    for i in seq(0, n):
        acc += 2.0 * (x[i] * y[i])
    out[0] = acc


@proc
def staged(n: size, x: f32[n], y: f32[n]):
    assert n % 2 == 0
    tmp: f32[n]
    for i in seq(0, n):
        tmp[i] = x[i] * x[i]
    for i in seq(0, n):
        y[i] = tmp[i] + 1.0


@proc
def scale_row(m: size, row: [f32][m]):
    for j in seq(0, m):
        row[j] = 2.0 * row[j] + 1.0


@proc
def calls(n: size, m: size, a: f32[n, m], b: f32[n]):
    for i in seq(0, n):
        scale_row(m, a[i, :])
        b[i] = a[i, 0]


@proc
def constant_tiles(x: f32[8, 4], y: f32[8]):
    for i in seq(0, 8):
        for j in seq(0, 4):
            y[i] += x[i, j]


@proc
def writes(n: size, a: f32[n], b: f32[n], c: f32[n]):
    for i in seq(0, n):
        t: f32
        t = a[i] + b[i]
        c[i] = t * t
        c[i] += a[i]
        b[i] = b[i] + 1.0


@proc
def offset_loop(n: size, x: f32[n + 3]):
    assert n >= 2
    for i in seq(2, n + 2):
        x[i + 1] = x[i - 2] * 0.5


@config
class Knobs:
    gain: f32
    bias: f32
    on: bool


@proc
def configured(n: size, a: f32, b: f32, x: f32[n], y: f32[n]):
    Knobs.bias = 0.0
    Knobs.gain = a
    Knobs.on = True
    for i in seq(0, n):
        y[i] = Knobs.gain * x[i] + y[i]
    Knobs.gain = 2.0
    Knobs.bias = b
    for i in seq(0, n):
        if Knobs.on:
            x[i] = Knobs.gain * x[i] + Knobs.bias


@proc
def transposed(n: size, x: f32[n, 4, 4], y: f32[n, 4, 4]):
    for k in seq(0, n):
        t: f32[4, 4]
        for i in seq(0, 4):
            for j in seq(0, 4):
                t[j, i] = x[k, i, j]
        for i in seq(0, 4):
            for j in seq(0, 4):
                y[k, i, j] = t[i, j] * 2.0


# Targets for primitives that need a particular shape of code: an unused
# buffer, a repeated idempotent loop, writes to merge, a constant to lift out
# of a reduction, a sum to reassociate, a buffer to unroll.
@proc
def patterns(n: size, x: f32[n], y: f32[n], out: f32[1]):
    assert n >= 1
    unused: f32[n]
    for r in seq(0, 3):  # noqa: B007
        for i in seq(0, n):
            y[i] = x[i] * 2.0
    s: f32
    s = 0.0
    for i in seq(0, n):
        s += 3.0 * (y[i] + (x[i] + 1.0))
    pair: f32[2]
    pair[0] = x[0]
    pair[0] += s
    pair[1] = s
    out[0] = pair[0] + pair[1]


# Instructions for insert_noop_call: a body of `pass`, a C comment.
@instr("// noop")
def noop():
    pass


@instr("// noop {i}")
def noop_index(i: index):
    pass


@instr("// noop {x}")
def noop_scalar(x: f32):
    pass


@instr("// noop {m} {row}")
def noop_window(m: size, row: [f32][m]):
    pass


@instr("// noop {n}, n >= 4")
def noop_at_least_four(n: size):
    assert n >= 4
    pass


NOOPS = [noop, noop_index, noop_scalar, noop_window, noop_at_least_four]


# Procedures for replace to unify with statements of the kernels (one
# element windows stand for scalars: a scalar parameter unifies only with
# a scalar).
@proc
def double_all(n: size, x: [f32][n]):
    for i in seq(0, n):
        x[i] = 2.0 * x[i]


@proc
def axpy_row(n: size, a: f32, x: [f32][n], y: [f32][n]):
    for i in seq(0, n):
        y[i] = y[i] + a * x[i]


@proc
def sum_into(m: size, row: [f32][m], out: [f32][1]):
    for j in seq(0, m):
        out[0] += row[j]


@proc
def sum3(x: [f32][3], y: [f32][1]):
    y[0] = x[0] + x[1] + x[2]


@proc
def mac(a: [f32][1], b: [f32][1], c: [f32][1]):
    c[0] += a[0] * b[0]


@proc
def set_zero(x: [f32][1]):
    x[0] = 0.0


@proc
def copy_row(n: size, dst: [f32][n], src: [f32][n]):
    for i in seq(0, n):
        dst[i] = src[i]


REPLACEMENTS = [
    double_all,
    axpy_row,
    sum_into,
    sum3,
    mac,
    set_zero,
    copy_row,
    scale_row,
]


@config
class Mode:
    k: index
    m: size
    on: bool


# Config state read by conditions (fuse, fission, simplify, specialize must
# see the writes between), by a callee's precondition (write_config,
# delete_config, reorder_stmts must keep it true) and by loop bounds.
@proc
def config_guards(n: size, x: f32[n], y: f32[n]):
    assert n >= 2
    if Mode.k == 0:
        x[0] = y[0] + 1.0
        Mode.k = 1
    if Mode.k == 0:
        x[1] = y[1] * 2.0
    for i in seq(0, n):
        if Mode.k == 1:
            y[i] = x[i] * 0.5
        if Mode.on:
            x[i] = x[i] + y[i]


@proc
def config_facts(x: f32[4], y: f32[4]):
    if Mode.k == 0:
        Mode.k = 1
        x[Mode.k] = 2.0
        for i in seq(0, 4):
            y[i] = x[Mode.k] + y[i]
    if Mode.k == 1:
        x[0] = x[Mode.k + 1]


@proc
def needs_mode(n: size, x: [f32][n]):
    assert Mode.k == 0
    for i in seq(0, n):
        x[i] = 2.0 * x[i]


@proc
def config_calls(n: size, x: f32[n], y: f32[n]):
    Mode.k = 0
    needs_mode(n, x[0:n])
    for i in seq(0, n):
        y[i] = x[i] + 1.0
    Mode.k = 1
    for i in seq(0, n):
        y[i] = y[i] * 2.0


@proc
def config_bounds(n: size, x: f32[n], y: f32[n]):
    assert n >= 2
    Mode.m = n
    for i in seq(0, Mode.m):
        x[i] = x[i] * 2.0
    Mode.m = 2
    for i in seq(0, Mode.m):
        y[i] = y[i] + x[i]
    for i in seq(0, n - Mode.m):
        y[i + 2] = x[i] * y[i + 2]


# The body writes the field its loop bound reads: the bound is evaluated
# once, before the first iteration.
@proc
def config_bound_written(n: size, x: f32[n]):
    Mode.m = n
    for i in seq(0, Mode.m):
        x[i] = x[i] * 2.0
        Mode.m = 1


# `/` and `%` are floor division and modulo: exact in the checker, and in C
# only where the dividend is non-negative.
@proc
def floor_ops(n: size, x: f32[n], y: f32[4], z: f32[n]):
    for i in seq(0, n):
        y[i % 4] += x[i]
        z[i / 2] += 0.5 * x[i]


@proc
def floor_ops_negative(n: size, x: f32[n], y: f32[4]):
    for i in seq(0, n):
        y[(i - 4) % 4] += x[i]


@proc
def negative_range(n: size, off: index, x: f32[n + 8], y: f32[n + 3]):
    assert off >= -4 and off <= 1
    for i in seq(-3, n):
        y[i + 3] = x[i + off + 7] * 2.0
    for i in seq(off, off + 4):
        x[i + 4] = x[i + 4] * 0.5 + 1.0


# Conditional writes (stage_mem must load what may not be written) and
# zero-trip loops (m == 0).
@proc
def conditional_writes(n: size, m: index, x: f32[n], y: f32[n]):
    assert n >= 4 and m >= 0 and m <= n
    if m > 3:
        x[0] = 2.0
    for i in seq(0, m):
        x[i] = x[i] + y[i]
    for i in seq(0, n):
        if i < m:
            y[i] = x[i]
        else:
            y[i] = 0.5 * y[i]


# Windows with offsets, a strided window parameter, a callee on a window.
@proc
def window_offsets(n: size, a: f32[n, 8], y: [f32][n], z: f32[n, 4]):
    for i in seq(0, n):
        w = a[i, 2:6]
        scale_row(4, w)
        y[i] = w[0] + w[3]
        for j in seq(0, 4):
            z[i, j] = w[j] * 0.5 + z[i, j]


# Code whose meaning depends on strides (rearrange_dim, divide_dim,
# mult_dim, resize_dim change them).
@proc
def stride_reads(n: size, x: f32[4, 8], y: f32[4, 8], v: [f32][n]):
    t: f32[4, 8]
    for i in seq(0, 4):
        for j in seq(0, 8):
            t[i, j] = x[i, j] * 2.0
    for i in seq(0, 4):
        for j in seq(0, 8):
            if stride(t, 0) == 8:
                y[i, j] = t[i, j]
            else:
                y[i, j] = 0.0
    for i in seq(0, n):
        if stride(v, 0) == 1:
            v[i] = v[i] + 1.0


# Calls whose callee has preconditions.
@proc
def needs_four(n: size, x: [f32][n]):
    assert n >= 4
    for i in seq(0, 4):
        x[i] = x[i] + 1.0


@proc
def scale_scalar(a: f32):
    a = a * 2.0


@proc
def precondition_calls(n: size, x: f32[n], y: f32[n]):
    assert n >= 4
    needs_four(n, x[0:n])
    s: f32
    s = y[0]
    scale_scalar(s)
    for i in seq(0, n):
        y[i] = x[i] + s


# A static buffer next to a parallel loop, and a buffer inside it.
@proc
def static_and_parallel(n: size, x: f32[n, 4], y: f32[n, 4]):
    t: f32[4] @ DRAM_STATIC
    for j in seq(0, 4):
        t[j] = x[0, j]
    for i in par(0, n):
        u: f32[4]
        for j in seq(0, 4):
            u[j] = x[i, j] * 2.0 + t[j]
        for j in seq(0, 4):
            y[i, j] = u[j] * u[j]


# Loops over split ranges (join_loops must prove lo <= mid <= hi), made by
# hand as cut_loop and lift_scope make them.
@proc
def split_ranges(n: size, x: f32[n + 4]):
    for i in seq(0, 4):
        x[i] = x[i] * 2.0
    if n >= 4:
        for i in seq(4, n):
            x[i] = x[i] * 2.0
    for i in seq(0, n):
        x[i + 4] = x[i + 4] + 1.0


# Sums and products to reassociate, commute and fold.
@proc
def nested_sums(n: size, x: f32[n], y: f32[n], z: f32[n]):
    for i in seq(0, n):
        z[i] = x[i] + (y[i] + (z[i] + 1.0))
        y[i] = x[i] * (y[i] * (2.0 * x[i]))
        z[i] = z[i] + x[i] * y[i]


# Buffers to reuse, delete, sink and inline; loops to remove.
@proc
def buffers(n: size, x: f32[n], y: f32[n]):
    t: f32[n]
    for i in seq(0, n):
        t[i] = x[i] * 2.0
    for i in seq(0, n):
        y[i] = t[i] + 1.0
    u: f32[n]
    for i in seq(0, n):
        u[i] = y[i] * y[i]
        x[i] = u[i] - 1.0
    v: f32[n]
    for i in seq(0, n):
        v[i] = x[i] + 1.0
    for i in seq(0, n):
        y[i] = y[i] + v[i]
    dead: f32[4]
    for r in seq(0, 2):  # noqa: B007
        for i in seq(0, n):
            y[i] = x[i] * 3.0
    s: f32
    s = x[0]
    y[0] = s + y[0]


@dataclass
class Kernel:
    proc: object
    # One run per entry: the values of the size, index and bool parameters,
    # and of config fields at the start ("Mode.k"; unlisted fields start at
    # zero / False).
    sizes: list
    favored: tuple = ()  # primitives its sequences try more often


LOOPS = ("divide_loop", "cut_loop", "fission", "fuse", "lift_scope", "join_loops")
CONFIGS = ("write_config", "delete_config", "bind_config", "reorder_stmts")

KERNELS = [
    Kernel(scale, [{"n": 4}, {"n": 8}, {"n": 12}], ("cut_loop", "join_loops")),
    Kernel(axpy, [{"n": 1}, {"n": 7}, {"n": 12}], ("fold_into_reduce", "split_write")),
    Kernel(row_sums, [{"n": 5, "m": 6}, {"n": 8, "m": 3}, {"n": 1, "m": 1}]),
    Kernel(matmul, [{"n": 2}, {"n": 6}]),
    Kernel(guarded, [{"n": 9, "m": 4}, {"n": 6, "m": 10}, {"n": 1, "m": 1}]),
    Kernel(two_stages, [{"n": 1}, {"n": 5}, {"n": 8}], ("fuse", "fission")),
    Kernel(blur, [{"n": 4}, {"n": 12}], ("cut_loop", "join_loops")),
    Kernel(windowed, [{"n": 3, "m": 5}, {"n": 1, "m": 8}], ("inline_window",)),
    Kernel(dot, [{"n": 1}, {"n": 6}, {"n": 9}], ("lift_reduce_constant",)),
    Kernel(staged, [{"n": 2}, {"n": 6}, {"n": 8}], ("reuse_buffer", "sink_alloc")),
    Kernel(calls, [{"n": 3, "m": 4}, {"n": 1, "m": 7}], ("inline", "call_eqv")),
    Kernel(constant_tiles, [{}], ("mult_loops", "unroll_loop", "mult_dim")),
    Kernel(writes, [{"n": 1}, {"n": 5}, {"n": 8}], ("merge_writes", "inline_assign")),
    Kernel(offset_loop, [{"n": 2}, {"n": 7}], ("shift_loop",)),
    Kernel(configured, [{"n": 1}, {"n": 5}, {"n": 8}], CONFIGS),
    Kernel(transposed, [{"n": 1}, {"n": 3}], ("rearrange_dim", "mult_dim")),
    Kernel(
        patterns,
        [{"n": 1}, {"n": 6}],
        ("delete_buffer", "remove_loop", "merge_writes", "unroll_buffer"),
    ),
    Kernel(
        config_guards,
        [{"n": 2, "Mode.k": 0}, {"n": 5, "Mode.k": 1, "Mode.on": True}],
        ("fuse", "fission", "simplify", "specialize", "lift_scope", *CONFIGS),
    ),
    Kernel(
        config_facts,
        [{"Mode.k": 0}, {"Mode.k": 1}, {"Mode.k": 2}],
        ("simplify", "specialize", "eliminate_dead_code", "lift_scope"),
    ),
    Kernel(
        config_calls,
        [{"n": 1, "Mode.k": 3}, {"n": 7}],
        ("inline", "call_eqv", "extract_subproc", *CONFIGS),
    ),
    Kernel(
        config_bounds,
        [{"n": 2}, {"n": 7, "Mode.m": 3}],
        (*LOOPS, *CONFIGS),
    ),
    Kernel(
        config_bound_written,
        [{"n": 1}, {"n": 5}],
        LOOPS,
    ),
    Kernel(
        floor_ops,
        [{"n": 1}, {"n": 7}, {"n": 9}],
        ("rewrite_expr", "simplify", "divide_loop", "shift_loop"),
    ),
    Kernel(
        floor_ops_negative,
        [{"n": 1}, {"n": 9}],
        ("rewrite_expr", "simplify"),
    ),
    Kernel(
        negative_range,
        [{"n": 1, "off": -4}, {"n": 5, "off": 1}, {"n": 8, "off": -1}],
        ("shift_loop", "cut_loop", "divide_loop", "rewrite_expr", "simplify"),
    ),
    Kernel(
        conditional_writes,
        [{"n": 4, "m": 0}, {"n": 7, "m": 5}, {"n": 5, "m": 2}],
        ("stage_mem", "specialize", "eliminate_dead_code", "lift_scope", "fission"),
    ),
    Kernel(
        window_offsets,
        [{"n": 1}, {"n": 4}],
        ("inline", "inline_window", "stage_mem", "set_window", "replace"),
    ),
    Kernel(
        stride_reads,
        [{"n": 3}, {"n": 1}],
        ("rearrange_dim", "divide_dim", "mult_dim", "resize_dim", "expand_dim"),
    ),
    Kernel(
        precondition_calls,
        [{"n": 4}, {"n": 9}],
        ("insert_noop_call", "extract_subproc", "replace", "inline", "call_eqv"),
    ),
    Kernel(
        static_and_parallel,
        [{"n": 1}, {"n": 5}],
        ("set_memory", "sink_alloc", "lift_alloc", "parallelize_loop"),
    ),
    Kernel(
        split_ranges,
        [{"n": 1}, {"n": 3}, {"n": 7}],
        ("lift_scope", "eliminate_dead_code", "join_loops", "simplify", "cut_loop"),
    ),
    Kernel(
        nested_sums,
        [{"n": 1}, {"n": 7}],
        ("left_reassociate_expr", "commute_expr", "fold_into_reduce", "split_write"),
    ),
    Kernel(
        buffers,
        [{"n": 1}, {"n": 6}],
        ("reuse_buffer", "delete_buffer", "sink_alloc", "remove_loop", "inline_assign"),
    ),
]

# Configurations whose fields start each run at the values of the sizes.
CONFIGS_USED = [Knobs, Mode]
