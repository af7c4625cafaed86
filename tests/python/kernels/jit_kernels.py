"""Kernels run through the JIT by test_jit_kernels.py (and compiled by the
golden and warning tests)."""

from __future__ import annotations

from exo2 import config, proc
from exo2.core.memory import DRAM as CoreDRAM
from exo2.libs.externs import expf, fmaxf, relu, select, sigmoid, sqrt
from exo2.libs.memories import DRAM_STACK, DRAM_STATIC


class TracedDRAM(CoreDRAM):
    """A user-defined memory: DRAM with a comment on every allocation."""

    @classmethod
    def alloc(cls, new_name, prim_type, shape, srcinfo):
        return f"/* traced */ {super().alloc(new_name, prim_type, shape, srcinfo)}"


@config
class ScaleCfg:
    alpha: f32
    count: size


@proc
def axpy(n: size, alpha: f32, x: [f32][n], y: f32[n]):
    assert stride(x, 0) == 1
    for i in seq(0, n):
        y[i] += alpha * x[i]


@proc
def axpy_win(n: size, alpha: f32, x: [f32][n], y: [f32][n]):
    for i in seq(0, n):
        y[i] += alpha * x[i]


@proc
def scale(n: size, alpha: f32, x: f32[n]):
    for i in seq(0, n):
        x[i] = alpha * x[i]


@proc
def dot(n: size, x: f32[n], y: f32[n], result: f32):
    result = 0.0
    for i in seq(0, n):
        result += x[i] * y[i]


@proc
def blur1d(n: size, x: f32[n + 2], y: f32[n]):
    for i in seq(0, n):
        y[i] = (x[i] + x[i + 1] + x[i + 2]) / 3.0


@proc
def blur2d(n: size, m: size, inp: f32[n + 2, m + 2], out: f32[n, m]):
    for i in seq(0, n):
        for j in seq(0, m):
            tmp: f32
            tmp = 0.0
            for di in seq(0, 3):
                for dj in seq(0, 3):
                    tmp += inp[i + di, j + dj]
            out[i, j] = tmp / 9.0


@proc
def conv1d(n: size, k: size, x: f32[n + k - 1], w: f32[k], y: f32[n]):
    for i in seq(0, n):
        y[i] = 0.0
        for j in seq(0, k):
            y[i] += x[i + j] * w[j]


@proc
def sgemm(m: size, n: size, k: size, A: f32[m, k], B: f32[k, n], C: f32[m, n]):
    for i in seq(0, m):
        for j in seq(0, n):
            for p in seq(0, k):
                C[i, j] += A[i, p] * B[p, j]


@proc
def gemv(m: size, n: size, A: f32[m, n], x: f32[n], y: f32[m]):
    for i in seq(0, m):
        y[i] = 0.0
        for j in seq(0, n):
            y[i] += A[i, j] * x[j]


@proc
def gemv_t(m: size, n: size, A: f32[m, n], x: f32[m], y: f32[n]):
    for j in seq(0, n):
        y[j] = 0.0
    for i in seq(0, m):
        for j in seq(0, n):
            y[j] += A[i, j] * x[i]


@proc
def transpose(m: size, n: size, A: f32[m, n], B: f32[n, m]):
    for i in seq(0, m):
        for j in seq(0, n):
            B[j, i] = A[i, j]


@proc
def add2d(m: size, n: size, A: f32[m, n], B: f32[m, n], C: f32[m, n]):
    for i in seq(0, m):
        for j in seq(0, n):
            C[i, j] = A[i, j] + B[i, j]


@proc
def relu_vec(n: size, x: f32[n], y: f32[n]):
    for i in seq(0, n):
        y[i] = relu(x[i])


@proc
def softmax(n: size, x: f32[n], y: f32[n]):
    mx: f32
    mx = x[0]
    for i in seq(0, n):
        mx = fmaxf(mx, x[i])
    total: f32
    total = 0.0
    for i in seq(0, n):
        y[i] = expf(x[i] - mx)
        total += y[i]
    for i in seq(0, n):
        y[i] = y[i] / total


@proc
def prefix_sum_row(n: size, x: [f32][n], y: [f32][n]):
    y[0] = x[0]
    for i in seq(1, n):
        y[i] = y[i - 1] + x[i]


@proc
def prefix_sums(m: size, n: size, X: f32[m, n], Y: f32[m, n]):
    for i in seq(0, m):
        prefix_sum_row(n, X[i, :], Y[i, :])


@proc
def vec_sum(n: size, x: f32[n], result: f32):
    result = 0.0
    for i in seq(0, n):
        result += x[i]


@proc
def vec_max(n: size, x: f32[n], result: f32):
    result = x[0]
    for i in seq(0, n):
        result = select(result, x[i], x[i], result)


@proc
def sigmoid_vec(n: size, x: f32[n], y: f32[n]):
    for i in seq(0, n):
        y[i] = sigmoid(x[i])


@proc
def sqrt_vec(n: size, x: f64[n], y: f64[n]):
    for i in seq(0, n):
        y[i] = sqrt(x[i])


@proc
def axpy_f64(n: size, alpha: f64, x: f64[n], y: f64[n]):
    for i in seq(0, n):
        y[i] += alpha * x[i]


@proc
def add_i32(n: size, x: i32[n], y: i32[n], z: i32[n]):
    for i in seq(0, n):
        z[i] = x[i] + y[i] * 2


@proc
def add_i8(n: size, x: i8[n], y: i8[n]):
    for i in seq(0, n):
        y[i] += x[i]


@proc
def narrow_f64_to_f32(n: size, x: f64[n], y: f32[n]):
    for i in seq(0, n):
        y[i] = x[i]


@proc
def config_scale(n: size, x: f32[n]):
    for i in seq(0, n):
        x[i] = ScaleCfg.alpha * x[i]


@proc
def config_count(n: size, x: f32[n]):
    ScaleCfg.count = n
    for i in seq(0, n):
        x[i] = 1.0


@proc
def rows_axpy(m: size, n: size, alpha: f32, X: f32[m, n], Y: f32[m, n]):
    for i in seq(0, m):
        axpy_win(n, alpha, X[i, :], Y[i])


@proc
def promote_call(n: size, x: f32[n], y: f32[n]):
    prefix_sum_row(n, x, y)


@proc
def par_scale(n: size, alpha: f32, x: f32[n]):
    for i in par(0, n):
        x[i] = alpha * x[i]


@proc
def par_add2d(m: size, n: size, A: f32[m, n], B: f32[m, n], C: f32[m, n]):
    for i in par(0, m):
        for j in seq(0, n):
            C[i, j] = A[i, j] + B[i, j]


@proc
def par_gemv(m: size, n: size, A: f32[m, n], x: f32[n], y: f32[m]):
    for i in par(0, m):
        y[i] = 0.0
        for j in seq(0, n):
            y[i] += A[i, j] * x[j]


@proc
def clamp(n: size, lo: f32, hi: f32, x: f32[n]):
    for i in seq(0, n):
        if i < n:
            x[i] = fmaxf(x[i], lo)
            x[i] = -fmaxf(-x[i], -hi)


@proc
def even_odd(n: size, x: f32[n]):
    for i in seq(0, n):
        if i % 2 == 0:
            x[i] = 0.0
        else:
            x[i] = x[i] * 2.0


@proc
def downsample(n: size, x: f32[2 * n], y: f32[n]):
    for i in seq(0, n):
        y[i] = x[2 * i] + x[2 * i + 1]


@proc
def upsample(n: size, x: f32[n], y: f32[2 * n]):
    for i in seq(0, 2 * n):
        y[i] = x[i / 2]


@proc
def tiled_copy(n: size, x: f32[n, 8], y: f32[n, 8]):
    for i in seq(0, n):
        tile: f32[8]
        for j in seq(0, 8):
            tile[j] = x[i, j]
        for j in seq(0, 8):
            y[i, j] = tile[7 - j]


@proc
def row_sums(m: size, n: size, X: f32[m, n], s: f32[m]):
    for i in seq(0, m):
        row = X[i, :]
        s[i] = 0.0
        for j in seq(0, n):
            s[i] += row[j]


@proc
def nested_window(n: size, X: f32[n, 4, 4], y: f32[n]):
    for i in seq(0, n):
        plane = X[i, :, :]
        diag = plane[1:3, 2]
        y[i] = diag[0] + diag[1]


@proc
def strided_sum(n: size, x: [f32][n], result: f32):
    result = 0.0
    for i in seq(0, n):
        result += x[i]


@proc
def maybe_negate(n: size, flag: bool, x: f32[n]):
    for i in seq(0, n):
        if flag:
            x[i] = -x[i]


@proc
def shift_from(n: size, off: index, x: f32[n], y: f32[n]):
    assert off >= 0
    assert off < n
    for i in seq(0, n - off):
        y[i] = x[i + off]


@proc
def gemv_blocked(m: size, n: size, A: f32[m, n], x: f32[n], y: f32[m]):
    assert n % 4 == 0
    for i in seq(0, m):
        y[i] = 0.0
        for jo in seq(0, n / 4):
            for ji in seq(0, 4):
                y[i] += A[i, 4 * jo + ji] * x[4 * jo + ji]


@proc
def outer(m: size, n: size, x: f32[m], y: f32[n], A: f32[m, n]):
    for i in seq(0, m):
        for j in seq(0, n):
            A[i, j] = x[i] * y[j]


@proc
def lower_sum(n: size, A: f32[n, n], result: f32):
    result = 0.0
    for i in seq(0, n):
        for j in seq(0, n):
            if j <= i:
                result += A[i, j]


@proc
def reverse(n: size, x: f32[n], y: f32[n]):
    for i in seq(0, n):
        y[i] = x[n - 1 - i]


@proc
def fill(n: size, x: f64[n]):
    for i in seq(0, n):
        x[i] = 2.5


@proc
def sum_axis1(a: size, b: size, c: size, X: f32[a, b, c], Y: f32[a, c]):
    for i in seq(0, a):
        for k in seq(0, c):
            Y[i, k] = 0.0
        for j in seq(0, b):
            for k in seq(0, c):
                Y[i, k] += X[i, j, k]


@proc
def mean_f64_acc(n: size, x: f32[n], result: f32):
    acc: f64
    acc = 0.0
    for i in seq(0, n):
        acc += x[i]
    result = acc


@proc
def static_buffers(n: size, x: f32[n, 4], y: f32[n, 4]):
    for i in seq(0, n):
        s: f32[4] @ DRAM_STATIC
        t: f32[4] @ DRAM_STACK
        for j in seq(0, 4):
            s[j] = x[i, j]
        for j in seq(0, 4):
            t[j] = s[j] + 1.0
        for j in seq(0, 4):
            y[i, j] = t[j]


@proc
def traced_memory(n: size, x: f32[n], y: f32[n]):
    buf: f32[n] @ TracedDRAM
    for i in seq(0, n):
        buf[i] = x[i] * x[i]
    for i in seq(0, n):
        y[i] = buf[i]


@proc
def par_rows_axpy(m: size, n: size, alpha: f32, X: f32[m, n], Y: f32[m, n]):
    for i in par(0, m):
        axpy_win(n, alpha, X[i, :], Y[i])


@proc
def par_blur_rows(n: size, m: size, inp: f32[n, m + 2], out: f32[n, m]):
    for i in par(0, n):
        for j in seq(0, m):
            out[i, j] = (inp[i, j] + inp[i, j + 1] + inp[i, j + 2]) / 3.0


@proc
def interleaved_sum(A: f32[8], C: f32[1]):
    for k in seq(0, 8):
        C[0] += A[k / 2 + 4 * (k % 2)] * A[7 - (k - k % 4)]
