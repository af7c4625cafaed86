"""exo2's main job, for now: define kernels, check them, print them.

Run with `bash scripts/demo.sh`. Later releases schedule, compile and time
the kernel here too.
"""

from __future__ import annotations

from exo2 import proc


@proc
def sgemm(M: size, N: size, K: size, A: f32[M, K], B: f32[K, N], C: f32[M, N]):
    for i in seq(0, M):
        for j in seq(0, N):
            for k in seq(0, K):
                C[i, j] += A[i, k] * B[k, j]


@proc
def blur1d(n: size, src: f32[n + 2], dst: f32[n]):
    for i in seq(0, n):
        dst[i] = (src[i] + src[i + 1] + src[i + 2]) / 3.0


@proc
def tiled_scale(n: size, x: f32[n]):
    assert n % 8 == 0
    for io in seq(0, n / 8):
        row = x[8 * io : 8 * io + 8]
        for ii in seq(0, 8):
            row[ii] = 2.0 * row[ii]


def show(p):
    print(p)
    print()
    print(f"  typed IR of {p.name()}:")
    print(f"    {'variable':<10} {'kind':<14} {'type':<14} {'memory':<8} defined at")
    for name, kind, typ, mem, srcinfo in p.symbol_table():
        where = f"line {srcinfo.lineno}"
        print(f"    {name:<10} {kind:<14} {typ:<14} {mem or '-':<8} {where}")
    print()


if __name__ == "__main__":
    for kernel in (sgemm, blur1d, tiled_scale):
        show(kernel)
    print("All kernels typechecked and proven in bounds (Z3).")
