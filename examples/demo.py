"""exo2's main job, for now: define kernels, check them, print them.

Run with `bash scripts/demo.sh`. Later releases schedule, compile and time
the kernel here too.
"""

from __future__ import annotations

import textwrap

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
    print(f"    {'variable':<10} {'kind':<14} {'type':<30} {'memory':<7} line")
    for name, kind, typ, mem, srcinfo in p.symbol_table():
        print(f"    {name:<10} {kind:<14} {typ:<30} {mem or '-':<7} {srcinfo.lineno}")
    print()


def show_refused_kernel():
    """A kernel that reads past the end of its input is refused at definition,
    with a counterexample found by Z3."""
    try:

        @proc
        def shifted_copy(n: size, src: f32[n], dst: f32[n]):
            for i in seq(0, n):
                dst[i] = src[i + 1]

    except TypeError as e:
        print("A wrong kernel is refused when it is defined:")
        print(textwrap.indent(str(e), "    "))
        print(textwrap.indent("\n".join(e.__notes__), "    "))
        print()


if __name__ == "__main__":
    for kernel in (sgemm, blur1d, tiled_scale):
        show(kernel)
    show_refused_kernel()
    print("All kernels typechecked and proven in bounds (Z3).")
