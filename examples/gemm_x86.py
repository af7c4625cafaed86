"""GEMM (`C += A B`, row-major) for x86 vector units, scheduled from the
naive triple loop with the scheduling library (`exo2.stdlib`) and the x86
instructions (`exo2.platforms.x86`); every step is a checked primitive.
One schedule serves four targets: f32 and f64 on AVX2 and on AVX-512
(`Target`: the vector width, the register memory and three instructions).

The schedule (`schedule_gemm`), with `VW` lanes per vector, an `MR` x `NR`
register tile (`NR = 2 VW`) and a `KC`-deep slice of K:

1. K blocking: `k` is divided by `KC` (tail cut) and the `KC`-deep slices
   become the outermost loop; the `K % KC` tail is a second nest that gets
   the same treatment (steps 2-5).
2. Packing B: the slice's rows of B (all `N / NR * NR` columns) are staged
   into `B_pack` and its dimensions divided and reordered to
   `[N / NR, KC, NR]`, so that a micro-kernel reads one contiguous
   `KC x NR` panel instead of `KC` rows `N` apart; the copy is vectorized.
3. Micro-kernels (`_micro_kernel`): `j` is divided by `NR` and `i` by `MR`
   (tails cut); the `MR x NR` block of C is staged into `MR x 2` vector
   registers across the whole K slice; per `k`, the two B vectors are
   loaded from `B_pack` before the rows, and each row does
   `C_tile[ii, jt] += B_vec[jt] * broadcast(A[row, k])`; rows and vectors
   are unrolled. The `M % MR` last rows get 2-row kernels, then a 1-row
   kernel for the odd one.
4. N blocking: the loop over `NR`-column panels is divided by `NB` and
   the blocks of `NB * NR` columns moved outside the row blocks, so that
   `KC x NB NR` of `B_pack` stays in L2 while all rows pass over it.
5. The `N % NR` last columns: one `VW`-wide micro-kernel when at least `VW`
   are left (reading B in place), then the `N % VW` last ones as dot
   products (`_dot_columns`): their rows of B packed transposed, each
   element of C a sum of `VW`-wide products over the K slice, added
   across once.

The constants are a `Blocking`: `MR`, `NR` in vectors, `KC`, `NB`, whether
A and B are packed, and the order of the loops over N blocks (`jc`), row
blocks (`io`) and `NR`-column panels (`jo`). `Blocking.default(t)` is the
hand-chosen one above; `examples/tune_gemm.py` searches the others with
`exo2.tune`.
"""

from __future__ import annotations

from dataclasses import dataclass

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
from exo2.platforms import x86
from exo2.stdlib.scheduling import replace_all
from exo2.stdlib.stdlib import fma_rule, pack_mem, vectorize

MR = 6  # rows of the register tile
NB = 16  # NR-column panels per N block
L1_PANEL = 16 * 1024  # bytes of the KC x NR panel of B a micro-kernel reads
LOOPS = ("jc", "io", "jo")  # N blocks, row blocks, NR-column panels


@dataclass(frozen=True)
class Target:
    """What the schedule needs to know about a vector unit."""

    name: str
    precision: str
    vec_width: int
    memory: type
    load: object  # vector <- DRAM
    store: object  # DRAM <- vector
    fma_broadcast: object  # vector += vector * broadcast(scalar in DRAM)
    dot: tuple  # vector += vector * vector; vector = 0; scalar += sum(vector)

    @property
    def nr(self):
        return 2 * self.vec_width

    @property
    def kc(self):
        itemsize = 4 if self.precision == "f32" else 8
        return L1_PANEL // (self.nr * itemsize)


@dataclass(frozen=True)
class Blocking:
    """The schedule's constants (see the module docstring). `order` lists
    `LOOPS` outermost first; `jc` must come before `jo` (it is `jo`'s outer
    half)."""

    mr: int = MR
    nr_vecs: int = 2
    kc: int = 256
    nb: int = NB
    pack_a: bool = True
    pack_b: bool = True
    order: tuple = LOOPS

    @classmethod
    def default(cls, t):
        """The hand-chosen constants for target `t`: 6 x 2-vector tiles,
        a 16 KB panel of B, 16 panels per N block, both operands packed."""
        return cls(kc=t.kc)

    def nr(self, t):
        return self.nr_vecs * t.vec_width


AVX2_F32 = Target(
    "avx2",
    "f32",
    8,
    x86.AVX2,
    x86.mm256_loadu_ps,
    x86.mm256_storeu_ps,
    x86.mm256_fmadd_ps_broadcast,
    (x86.mm256_fmadd_ps, x86.mm256_setzero_ps, x86.avx2_assoc_reduce_add_ps),
)
AVX2_F64 = Target(
    "avx2",
    "f64",
    4,
    x86.AVX2,
    x86.mm256_loadu_pd,
    x86.mm256_storeu_pd,
    x86.mm256_fmadd_pd_broadcast,
    (x86.mm256_fmadd_pd, x86.mm256_setzero_pd, x86.avx2_assoc_reduce_add_pd),
)
AVX512_F32 = Target(
    "avx512",
    "f32",
    16,
    x86.AVX512,
    x86.mm512_loadu_ps,
    x86.mm512_storeu_ps,
    x86.mm512_fmadd_ps_broadcast,
    (x86.mm512_fmadd_ps, x86.mm512_setzero_ps, x86.avx512_assoc_reduce_add_ps),
)
AVX512_F64 = Target(
    "avx512",
    "f64",
    8,
    x86.AVX512,
    x86.mm512_loadu_pd,
    x86.mm512_storeu_pd,
    x86.mm512_fmadd_pd_broadcast,
    (x86.mm512_fmadd_pd, x86.mm512_setzero_pd, x86.avx512_assoc_reduce_add_pd),
)
TARGETS = [AVX2_F32, AVX2_F64, AVX512_F32, AVX512_F64]


@proc
def sgemm(M: size, N: size, K: size, A: f32[M, K], B: f32[K, N], C: f32[M, N]):
    for i in seq(0, M):
        for j in seq(0, N):
            for k in seq(0, K):
                C[i, j] += A[i, k] * B[k, j]


@proc
def dgemm(M: size, N: size, K: size, A: f64[M, K], B: f64[K, N], C: f64[M, N]):
    for i in seq(0, M):
        for j in seq(0, N):
            for k in seq(0, K):
                C[i, j] += A[i, k] * B[k, j]


def _pack_b(p, nest, rows, name, t, nr):
    """Packs `B[rows, 0:N / NR * NR]`, read by `nest`, as `[N / NR, rows,
    NR]`: `NR`-column panels, one after the other; the copy is vectorized."""
    window = f"B[{rows}, 0:N / {nr} * {nr}]"
    p, packed = pack_mem(p, nest, window, name, {1: nr}, [1, 0, 2], rc=True)
    copy = packed.load_stage.body()[0].body()[0]  # i0 > i1o > i1i
    return vectorize(
        p, copy, t.vec_width, t.precision, t.memory, [t.load, t.store], tail="perfect"
    )


def _micro_kernel(p, nest, t, tag, rows, row, col, width, b_vectors):
    """`nest`: `io > ii > jo > ji > k` (`ii`: `rows` rows from `row`; `ji`:
    `width` columns from `col`, a multiple of `VW`) into a `rows x ji` tile of
    vector registers; `b_vectors`: the window of B a `k` step reads."""
    vw = t.vec_width

    def loop(name):
        return p.forward(nest).find(loop_pattern(name))

    p = divide_loop(p, loop("ji"), vw, ["jt", "jv"], perfect=True)
    for outer in ["ii", "jv", "jt", "ii"]:  # io > jo > k > ii > jt > jv
        p = reorder_loops(p, loop(outer))
    c, b = f"C_reg{tag}", f"B_reg{tag}"
    k = p.forward(nest).body()[0].body()[0]
    p = stage_mem(p, k, f"C[{row}:{row}+{rows}, {col}:{col}+{width}]", c)
    p = divide_dim(p, p.find(f"{c} : _"), 1, vw)
    for _ in range(2):  # the load and the store loops of the tile
        p = divide_loop(p, loop("i1"), vw, ["i1o", "i1i"], perfect=True)
    p = set_memory(p, p.find(f"{c} : _"), t.memory)
    # The B vectors of a k step, loaded once for all the rows.
    p = stage_mem(p, k.body()[0], b_vectors, b)
    p = divide_dim(p, p.find(f"{b} : _"), 0, vw)
    p = divide_loop(p, p.find(f"{b}[_] = _").parent(), vw, ["i0o", "i0i"], perfect=True)
    p = set_memory(p, p.find(f"{b} : _"), t.memory)
    # C_tile[ii, jt, :] += B_vec[jt, :] * broadcast(A[row, k]).
    p = commute_expr(p, [p.forward(nest).find(f"{c}[_] += _").rhs()])
    p = simplify(p)
    p = replace_all(p, [t.load, t.store, t.fma_broadcast])
    for name in ["jt", "ii", "i0o", "i1o", "i1o", "i0", "i0"]:
        p = unroll_loop(p, loop(name))
    return simplify(p)


def _row_tiles(p, i, t, tag, col, width, b_vectors, a_rows=None, mr=MR):
    """`i`: `for i: for jo: for ji: for k` into `MR`-row micro-kernels, then
    2-row and 1-row ones for the `M % MR` last rows. With `a_rows` (the K
    rows of A read), the `MR`-row kernels read A packed as
    `[M / MR, KC, MR]`: the `MR` values a `k` step broadcasts are adjacent."""
    if mr == 1:  # no last rows
        p = divide_loop(p, i, 1, ["io", "ii"], perfect=True)
    else:
        p = divide_loop(p, i, mr, ["io", "ii"], tail="cut")
        rest = p.forward(i).next()
    if a_rows:
        window = f"A[0:M / {mr} * {mr}, {a_rows}]"
        p = pack_mem(p, p.forward(i), window, f"A_pack{tag}", {0: mr}, [0, 2, 1])
    p = _micro_kernel(p, p.forward(i), t, tag, mr, f"{mr}*io", col, width, b_vectors)
    if mr == 1:
        return p
    last, first_single = rest, f"M / {mr} * {mr}"
    if mr > 2:
        # pairs of rows (4 FMA chains per k step rather than 2), then one row
        p = divide_loop(p, rest, 2, ["io", "ii"], tail="cut")
        last = p.forward(rest).next()
        row = f"2*io + M / {mr} * {mr}"
        p = _micro_kernel(
            p, p.forward(rest), t, f"{tag}2", 2, row, col, width, b_vectors
        )
        first_single += f" + M % {mr} / 2 * 2"
    p = divide_loop(p, last, 1, ["io", "ii"], perfect=True)
    return _micro_kernel(
        p,
        p.forward(last),
        t,
        f"{tag}1",
        1,
        f"io + {first_single}",
        col,
        width,
        b_vectors,
    )


def _dot_columns(p, nest, t, tag, krows, nr):
    """`nest`: `i > j > k` over the `N % VW` last columns. Their rows of B are
    packed transposed (`B_t[N % VW, KC]`), so that each element of C is a
    dot product of two contiguous vectors, vectorized over `k`."""
    first = f"N / {nr} * {nr} + N % {nr} / {t.vec_width} * {t.vec_width}"
    p = pack_mem(p, nest, f"B[{krows}, {first}:N]", f"B_t{tag}", {}, [1, 0])
    k = p.forward(nest).body()[0].body()[0]
    # the sum in a scalar, for the horizontal add of the vector sums
    p = stage_mem(p, k, f"C[i, ji + {first}]", f"C_sum{tag}", accum=True)
    return vectorize(
        p,
        k,
        t.vec_width,
        t.precision,
        t.memory,
        [t.load, *t.dot],
        [fma_rule],
        tail="cut",
    )


def _k_slice(p, i, t, b, tag, krow, krows):
    """The nest `i > j > k` over the K rows `krows` (one of them: `krow`),
    with the constants of the `Blocking` `b`."""
    nr, vw = b.nr(t), t.vec_width
    p = divide_loop(p, p.forward(i).body()[0], nr, ["jo", "ji"], tail="cut")
    p = fission(p, p.forward(i).body()[0].after())
    columns = p.forward(i).next()  # the N % NR last columns
    if b.pack_b:
        pack = f"B_pack{tag}"
        p = _pack_b(p, p.forward(i), krows, pack, t, nr)
        b_vectors = f"{pack}[jo, ki, 0:{nr}]"
    else:
        b_vectors = f"B[{krow}, {nr}*jo:{nr}*jo+{nr}]"
    a_rows = krows if b.pack_a else None
    p = _row_tiles(p, i, t, tag, f"{nr}*jo", nr, b_vectors, a_rows, b.mr)
    # N blocking: NB panels (of B_pack) stay in L2 while the rows pass.
    io = p.forward(i)
    p = divide_loop(p, io.body()[0], b.nb, ["jc", "jo"], tail="cut")
    p = fission(p, p.forward(io).body()[0].after())
    p = _order_loops(p, io, b.order)
    # The N % NR columns: a VW-wide kernel if VW are left, then dot products.
    p = divide_loop(p, p.forward(columns).body()[0], vw, ["jo", "ji"], tail="cut")
    p = fission(p, p.forward(columns).body()[0].after())
    dots = p.forward(columns).next()
    col = f"N / {nr} * {nr} + {vw}*jo"
    b_vectors = f"B[{krow}, {col}:{col}+{vw}]"
    p = _row_tiles(p, columns, t, f"{tag}_n", col, vw, b_vectors, mr=b.mr)
    return _dot_columns(p, dots, t, tag, krows, nr)


def _order_loops(p, io, order):
    """`io > jc > jo` (followed by the `io > jo` nest of the panels after
    the last block) into `order`, by swaps of adjacent loops."""
    target = list(order)
    if sorted(target) != sorted(LOOPS) or target.index("jc") > target.index("jo"):
        raise ValueError(f"loop order {order}: a permutation of {LOOPS}, jc before jo")
    tail = p.forward(io).next()
    current = ["io", "jc", "jo"]
    while current != target:
        d = next(
            d
            for d in range(2)
            if target.index(current[d]) > target.index(current[d + 1])
        )
        loop = p.forward(tail).prev()
        for _ in range(d):
            loop = loop.body()[0]
        p = reorder_loops(p, loop)
        current[d], current[d + 1] = current[d + 1], current[d]
    if target.index("jo") < target.index("io"):
        p = reorder_loops(p, p.forward(tail))
    return p


def schedule_gemm(p, t, blocking=None):
    """The scheduled GEMM for target `t` (any M, N, K) with the constants of
    `blocking` (default `Blocking.default(t)`); see the module docstring.
    `p`: `sgemm` or `dgemm` (the precision of `t`)."""
    b = blocking or Blocking.default(t)
    kc = b.kc
    p = divide_loop(p, "k", kc, ["ko", "ki"], tail="cut")
    p = fission(p, p.find_loop("ko").after(), n_lifts=2)
    p = reorder_loops(p, "j ko")
    p = reorder_loops(p, "i ko")
    k_tail = p.body()[1]
    p = _k_slice(
        p,
        p.find_loop("ko").body()[0],
        t,
        b,
        "",
        f"{kc}*ko + ki",
        f"{kc}*ko:{kc}*ko+{kc}",
    )
    return _k_slice(
        p, k_tail, t, b, "_k", f"ki + K / {kc} * {kc}", f"K / {kc} * {kc}:K"
    )
