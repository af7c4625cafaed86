"""SGEMM for AVX2 + FMA, scheduled from the naive triple loop with the
scheduling library (`exo2.stdlib`) and the x86 instructions
(`exo2.platforms.x86`); every step is a checked primitive.

The schedule (`schedule_sgemm_avx2`):

1. K blocking: `k` is divided by `KC` (tail cut) and the `KC`-deep slices
   become the outermost loop, so a slice of B stays in cache while the
   whole of A and C pass over it; the `K % KC` tail is a second nest.
2. In each nest, register-blocked micro-kernels (`_register_block`,
   `_micro_kernel`): `j` is divided by 16 and `i` by 6 (tails cut); the
   6 x 16 block of C is staged into `C_reg: f32[6, 2, 8] @ AVX2` (twelve
   `__m256` registers, loaded and stored with `mm256_loadu/storeu_ps`)
   across the whole K slice; per `k`, the two B vectors are staged into
   `B_reg: f32[2, 8] @ AVX2` before the six rows (`mm256_loadu_ps`), and
   each row does `C_reg[ii, jt] += B_reg[jt] * broadcast(A[row, k])`
   (`mm256_fmadd_ps_broadcast`; the C compiler keeps one broadcast per
   row); the 6 rows and the 2 column vectors are unrolled.
3. N blocking: the loop over 16-column blocks is divided by `NC / 16`
   and the `NC`-column blocks moved outside the row blocks, so that a
   `KC` x `NC` block of B (256 KB) stays in L2.

Any M, N, K: the `M % 6` last rows get the same kernel with a 1 x 16
tile; the `N % 16` last columns stay scalar loops (correct, not fast:
vectorizing them 8 wide with the same kernel needs `simplify` to cancel
`8 * jo + N / 16 * 16` against itself, which it does not do yet).
"""

from __future__ import annotations

from exo2 import proc
from exo2.API_cursors import loop_pattern
from exo2.API_scheduling import (
    commute_expr,
    divide_dim,
    divide_loop,
    fission,
    reorder_loops,
    set_memory,
    simplify,
    stage_mem,
    unroll_loop,
)
from exo2.platforms.x86 import (
    AVX2,
    mm256_fmadd_ps_broadcast,
    mm256_loadu_ps,
    mm256_storeu_ps,
)
from exo2.stdlib.scheduling import replace_all

MR, NR, VW = 6, 16, 8  # register tile rows and columns, vector width
KC, NC = 256, 256  # cache blocks of K and N


@proc
def sgemm(M: size, N: size, K: size, A: f32[M, K], B: f32[K, N], C: f32[M, N]):
    for i in seq(0, M):
        for j in seq(0, N):
            for k in seq(0, K):
                C[i, j] += A[i, k] * B[k, j]


def _register_block(p, scope, idx, tag, krow):
    """The micro-kernels for the nest `i > j > k` at `scope(p)[idx]`
    (`krow`: the B row read at a `k` step): 6 x 16 tiles, then 1 x 16
    tiles for the `M % 6` rows; the `N % 16` columns stay a scalar nest."""
    p = divide_loop(p, scope(p)[idx].body()[0], NR, ["jo", "ji"], tail="cut")
    p = fission(p, scope(p)[idx].body()[0].after())  # the N % 16 columns
    p = divide_loop(p, scope(p)[idx], MR, ["io", "ii"], tail="cut")
    p = _micro_kernel(p, lambda p: scope(p)[idx], tag, krow, MR, f"{MR}*io")
    p = divide_loop(p, scope(p)[idx + 1], 1, ["io", "ii"], perfect=True)
    row = f"io + M / {MR} * {MR}"
    return _micro_kernel(p, lambda p: scope(p)[idx + 1], tag + "1", krow, 1, row)


def _micro_kernel(p, nest, tag, krow, mr, row):
    """`io > ii > jo > ji > k` (`ii`: `mr` rows from `row`; `ji`: 16
    columns) into an `mr` x 16 tile of C in AVX2 registers."""
    col = f"{NR}*jo"

    def loop(name):
        return nest(p).find(loop_pattern(name))

    p = divide_loop(p, loop("ji"), VW, ["jt", "jv"], perfect=True)
    for outer in ["ii", "jv", "jt", "ii"]:  # io > jo > k > ii > jt > jv
        p = reorder_loops(p, loop(outer))
    c, b = f"C_{tag}", f"B_{tag}"
    k = nest(p).body()[0].body()[0]
    p = stage_mem(p, k, f"C[{row}:{row}+{mr}, {col}:{col}+{NR}]", c)
    p = divide_dim(p, p.find(f"{c} : _"), 1, VW)
    for _ in range(2):  # the load and the store loops of the tile
        p = divide_loop(p, loop("i1"), VW, ["i1o", "i1i"], perfect=True)
    p = set_memory(p, p.find(f"{c} : _"), AVX2)
    # The two B vectors of a k step, loaded once for the six rows.
    ii = k.body()[0]
    p = stage_mem(p, ii, f"B[{krow}, {col}:{col}+{NR}]", b)
    p = divide_dim(p, p.find(f"{b} : _"), 0, VW)
    p = divide_loop(p, p.find(f"{b}[_] = _").parent(), VW, ["i0o", "i0i"], perfect=True)
    p = set_memory(p, p.find(f"{b} : _"), AVX2)
    # C_tile[ii, jt, :] += B_vec[jt, :] * broadcast(A[row, k]).
    p = commute_expr(p, [nest(p).find(f"{c}[_] += _").rhs()])
    p = simplify(p)
    p = replace_all(p, [mm256_loadu_ps, mm256_storeu_ps, mm256_fmadd_ps_broadcast])
    for name in ["jt", "ii", "i0o", "i1o", "i1o", "i0", "i0"]:
        p = unroll_loop(p, loop(name))
    return simplify(p)


def schedule_sgemm_avx2(p=sgemm):
    """The scheduled SGEMM (any M, N, K); see the module docstring."""
    p = divide_loop(p, "k", KC, ["ko", "ki"], tail="cut")
    p = fission(p, p.find_loop("ko").after(), n_lifts=2)
    p = reorder_loops(p, "j ko")
    p = reorder_loops(p, "i ko")
    for scope, idx, tag, krow in [
        (lambda p: p.find_loop("ko").body(), 0, "reg", f"{KC}*ko + ki"),
        (lambda p: p.body(), 1, "tail", f"ki + K / {KC} * {KC}"),
    ]:
        p = _register_block(p, scope, idx, tag, krow)
        # N blocking: `NC` columns of the B slice (256 KB) stay in L2 while
        # all the row blocks pass over them.
        io = scope(p)[idx]
        p = divide_loop(p, io.body()[0], NC // NR, ["jc", "jo"], tail="cut")
        p = fission(p, p.forward(io).body()[0].after())
        p = reorder_loops(p, p.forward(io))
    return p
