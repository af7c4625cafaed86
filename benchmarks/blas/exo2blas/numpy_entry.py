"""The NumPy entry points: BLAS routines called on NumPy arrays, through
libexo2blas's CBLAS interface.

Each routine has a dtype-generic function (`gemv`) and prefixed aliases
(`sgemv`, `dgemv`, `isamax`): float32 arrays call the s routine, float64
the d one; mixed dtypes raise TypeError. Signatures read like the math:
`dot(x, y)` returns a value, `axpy(alpha, x, y)` updates and returns y,
`gemv(alpha, A, x, beta=0.0, y=None, trans=False)` returns y (allocated
when None).

Strides: a 1-D array of any stride is passed as a BLAS increment (for a
negative one, its lowest address). A 2-D array with unit stride in its
last dimension is row-major (`lda = strides[0] / itemsize`), with unit
stride in its first dimension column-major; other inputs are copied, other
outputs raise ValueError. Matrices of one call may mix layouts: an input
whose layout differs from the output's is passed transposed (its Trans or
triangle flipped), or copied where the routine has no such flag.
"""

from __future__ import annotations

import numpy as np

from . import library as lib
from .library import (
    COL_MAJOR,
    LEFT,
    LOWER,
    NO_TRANS,
    NON_UNIT,
    RIGHT,
    ROW_MAJOR,
    TRANS,
    UNIT,
    UPPER,
)

_LETTER = {np.dtype(np.float32): "s", np.dtype(np.float64): "d"}


def _precision(*arrays):
    dtypes = {np.asarray(a).dtype for a in arrays if a is not None}
    if len(dtypes) != 1:
        raise TypeError(
            f"exo2blas: arrays of one dtype expected, got {sorted(map(str, dtypes))}"
        )
    (dtype,) = dtypes
    if dtype not in _LETTER:
        raise TypeError(f"exo2blas: float32 or float64 expected, got {dtype}")
    return dtype, _LETTER[dtype]


def _routine(kernel, letter):
    return getattr(lib.load(), lib.routine_name(kernel, letter))


class _Vector:
    """A 1-D array as (pointer, increment); inputs the BLAS cannot take as
    they are (a stride not a multiple of the element size, or 0 where the
    routine forbids it) are copied."""

    def __init__(self, x, name, writable, zero_ok=True):
        if x.ndim != 1:
            raise ValueError(f"exo2blas: {name} must be 1-D, got shape {x.shape}")
        stride, item = x.strides[0], x.itemsize
        if stride % item or (stride == 0 and not zero_ok and len(x) > 1):
            if writable:
                raise ValueError(
                    f"exo2blas: {name} has stride {stride} bytes, which no BLAS "
                    "increment describes; pass a copy"
                )
            x = np.ascontiguousarray(x)
            stride = item
        if writable and not x.flags.writeable:
            raise ValueError(f"exo2blas: {name} is read-only")
        self.array, self.n = x, len(x)
        self.inc = stride // item if self.n > 1 else 1
        low = (self.n - 1) * stride if stride < 0 and self.n else 0
        self.ptr = x.ctypes.data + low


class _Matrix:
    """A 2-D array as (pointer, layout, leading dimension)."""

    def __init__(self, A, name, writable):
        if A.ndim != 2:
            raise ValueError(f"exo2blas: {name} must be 2-D, got shape {A.shape}")
        item = A.itemsize
        rows, cols = A.shape
        s0, s1 = A.strides
        if (s1 == item or cols <= 1) and s0 % item == 0 and s0 // item >= max(1, cols):
            self.layout, self.ld = ROW_MAJOR, s0 // item
        elif (
            (s0 == item or rows <= 1) and s1 % item == 0 and s1 // item >= max(1, rows)
        ):
            self.layout, self.ld = COL_MAJOR, s1 // item
        elif writable:
            raise ValueError(
                f"exo2blas: {name} (strides {A.strides}) is neither row- nor "
                "column-major with unit inner stride; pass a copy"
            )
        else:
            A = np.ascontiguousarray(A)
            self.layout, self.ld = ROW_MAJOR, max(1, cols)
        if rows == 0 or cols == 0:
            self.ld = max(self.ld, 1, cols if self.layout == ROW_MAJOR else rows)
        if writable and not A.flags.writeable:
            raise ValueError(f"exo2blas: {name} is read-only")
        self.array, self.shape, self.ptr = A, A.shape, A.ctypes.data

    def as_layout(self, layout, name):
        """This matrix copied into `layout` if it is not in it."""
        if self.layout == layout:
            return self
        order = "C" if layout == ROW_MAJOR else "F"
        return _Matrix(
            np.asarray(self.array, order=order).copy(order=order), name, False
        )


def _out(y, n, dtype, name):
    if y is None:
        return np.zeros(n, dtype)
    if y.shape != (n,):
        raise ValueError(f"exo2blas: {name} must have shape ({n},), got {y.shape}")
    return y


def _flip(flag, a, b):
    return b if flag == a else a


# --- level 1 -------------------------------------------------------------------


def dot(x, y):
    x, y = np.asarray(x), np.asarray(y)
    _, p = _precision(x, y)
    _same_length(x, y)
    vx, vy = _Vector(x, "x", False), _Vector(y, "y", False)
    return _routine("dot", p)(vx.n, vx.ptr, vx.inc, vy.ptr, vy.inc)


def dsdot(x, y):
    """x . y of float32 vectors, accumulated and returned in float64."""
    x, y = np.asarray(x), np.asarray(y)
    _require_dtype(np.float32, x, y)
    _same_length(x, y)
    vx, vy = _Vector(x, "x", False), _Vector(y, "y", False)
    return lib.load().cblas_dsdot(vx.n, vx.ptr, vx.inc, vy.ptr, vy.inc)


def sdsdot(sb, x, y):
    """sb + x . y of float32 vectors, accumulated in float64."""
    x, y = np.asarray(x), np.asarray(y)
    _require_dtype(np.float32, x, y)
    _same_length(x, y)
    vx, vy = _Vector(x, "x", False), _Vector(y, "y", False)
    return lib.load().cblas_sdsdot(vx.n, sb, vx.ptr, vx.inc, vy.ptr, vy.inc)


def _one_vector(kernel, x):
    """A routine of one vector, which the BLAS skips for an increment <= 0:
    a negative one is passed reversed (asum, nrm2) or copied (iamax, whose
    ties depend on the order), a zero one copied."""
    x = np.asarray(x)
    _, p = _precision(x)
    v = _Vector(x, "x", False)
    if v.inc < 0 and kernel != "amax":
        v = _Vector(x[::-1], "x", False)
    elif v.inc <= 0:
        v = _Vector(x.copy(), "x", False)
    return _routine(kernel, p)(v.n, v.ptr, v.inc)


def asum(x):
    return _one_vector("asum", x)


def nrm2(x):
    return _one_vector("nrm2", x)


def iamax(x):
    """The 0-based index of the first element of largest absolute value."""
    return _one_vector("amax", x)


def axpy(alpha, x, y):
    _, p = _precision(x, y)
    _same_length(x, y)
    vx, vy = _Vector(np.asarray(x), "x", False), _Vector(y, "y", True)
    _routine("axpy", p)(vx.n, alpha, vx.ptr, vx.inc, vy.ptr, vy.inc)
    return y


def copy(x, y):
    _, p = _precision(x, y)
    _same_length(x, y)
    vx, vy = _Vector(np.asarray(x), "x", False), _Vector(y, "y", True)
    _routine("copy", p)(vx.n, vx.ptr, vx.inc, vy.ptr, vy.inc)
    return y


def swap(x, y):
    _, p = _precision(x, y)
    _same_length(x, y)
    vx, vy = _Vector(x, "x", True), _Vector(y, "y", True)
    _routine("swap", p)(vx.n, vx.ptr, vx.inc, vy.ptr, vy.inc)
    return x, y


def scal(alpha, x):
    _, p = _precision(x)
    v = _Vector(x, "x", True)
    if v.inc < 0:  # the BLAS ignores a negative increment; the values agree
        v = _Vector(x[::-1], "x", True)
    _routine("scal", p)(v.n, alpha, v.ptr, v.inc)
    return x


def rot(x, y, c, s):
    _, p = _precision(x, y)
    _same_length(x, y)
    vx, vy = _Vector(x, "x", True), _Vector(y, "y", True)
    _routine("rot", p)(vx.n, vx.ptr, vx.inc, vy.ptr, vy.inc, c, s)
    return x, y


def rotm(x, y, param):
    dtype, p = _precision(x, y)
    _same_length(x, y)
    param = np.ascontiguousarray(param, dtype=dtype)
    if param.shape != (5,):
        raise ValueError(
            "exo2blas: param must have 5 elements [flag, h11, h21, h12, h22]"
        )
    vx, vy = _Vector(x, "x", True), _Vector(y, "y", True)
    _routine("rotm", p)(vx.n, vx.ptr, vx.inc, vy.ptr, vy.inc, param.ctypes.data)
    return x, y


def rotg(a, b, dtype=np.float64):
    """`(r, z, c, s)` of the Givens rotation zeroing b."""
    p = _LETTER[np.dtype(dtype)]
    v = np.array([a, b, 0, 0], dtype=dtype)
    addresses = [v.ctypes.data + i * v.itemsize for i in range(4)]
    _routine("rotg", p)(*addresses)
    return tuple(v.tolist())


def rotmg(d1, d2, b1, b2, dtype=np.float64):
    """`(d1, d2, b1, param)` of the modified Givens rotation."""
    p = _LETTER[np.dtype(dtype)]
    v, param = np.array([d1, d2, b1], dtype=dtype), np.zeros(5, dtype)
    addresses = [v.ctypes.data + i * v.itemsize for i in range(3)]
    _routine("rotmg", p)(*addresses, b2, param.ctypes.data)
    return (*v.tolist(), param)


def _same_length(x, y):
    if np.shape(x) != np.shape(y):
        raise ValueError(
            f"exo2blas: x and y differ in shape, {np.shape(x)} and {np.shape(y)}"
        )


def _require_dtype(dtype, *arrays):
    for a in arrays:
        if a.dtype != dtype:
            raise TypeError(f"exo2blas: {np.dtype(dtype)} expected, got {a.dtype}")


# --- level 2 -------------------------------------------------------------------


def gemv(alpha, A, x, beta=0.0, y=None, trans=False):
    """y <- alpha op(A) x + beta y."""
    dtype, p = _precision(A, x, y)
    M = _Matrix(np.asarray(A), "A", False)
    m, n = M.shape
    y = _out(y, m if not trans else n, dtype, "y")
    vx = _Vector(np.asarray(x), "x", False, zero_ok=False)
    _expect(vx.n, n if not trans else m, "x")
    vy = _Vector(y, "y", True, zero_ok=False)
    _routine("gemv", p)(
        M.layout, TRANS if trans else NO_TRANS, m, n, alpha, M.ptr, M.ld,
        vx.ptr, vx.inc, beta, vy.ptr, vy.inc,
    )  # fmt: skip
    return y


def gbmv(alpha, A, x, kl, ku, beta=0.0, y=None, trans=False, n=None):
    """y <- alpha op(A) x + beta y for the m x n band matrix A with kl sub-
    and ku super-diagonals, given as CBLAS row-major band storage (m rows of
    kl + ku + 1: row i holds A(i, j) at column kl + j - i). n defaults to
    len(x) (NoTrans) or len(y) (Trans)."""
    dtype, p = _precision(A, x, y)
    A = np.asarray(A)
    m = A.shape[0]
    if n is None:
        if trans and y is None:
            raise ValueError("exo2blas: gbmv with trans=True needs y or n")
        n = len(x) if not trans else len(y)
    M = _Matrix(A, "A", False).as_layout(ROW_MAJOR, "A")
    y = _out(y, m if not trans else n, dtype, "y")
    vx = _Vector(np.asarray(x), "x", False, zero_ok=False)
    _expect(vx.n, n if not trans else m, "x")
    vy = _Vector(y, "y", True, zero_ok=False)
    _routine("gbmv", p)(
        ROW_MAJOR, TRANS if trans else NO_TRANS, m, n, kl, ku, alpha, M.ptr, M.ld,
        vx.ptr, vx.inc, beta, vy.ptr, vy.inc,
    )  # fmt: skip
    return y


def ger(alpha, x, y, A):
    """A <- alpha x y^T + A."""
    _, p = _precision(A, x, y)
    M = _Matrix(A, "A", True)
    vx = _Vector(np.asarray(x), "x", False, zero_ok=False)
    vy = _Vector(np.asarray(y), "y", False, zero_ok=False)
    _expect(vx.n, M.shape[0], "x")
    _expect(vy.n, M.shape[1], "y")
    _routine("ger", p)(
        M.layout,
        M.shape[0],
        M.shape[1],
        alpha,
        vx.ptr,
        vx.inc,
        vy.ptr,
        vy.inc,
        M.ptr,
        M.ld,
    )
    return A


def _uplo(lower):
    return LOWER if lower else UPPER


def symv(alpha, A, x, beta=0.0, y=None, lower=False):
    """y <- alpha A x + beta y, A symmetric, its upper (or lower) triangle read."""
    dtype, p = _precision(A, x, y)
    M = _Matrix(np.asarray(A), "A", False)
    n = _square(M)
    y = _out(y, n, dtype, "y")
    vx = _Vector(np.asarray(x), "x", False, zero_ok=False)
    _expect(vx.n, n, "x")
    vy = _Vector(y, "y", True, zero_ok=False)
    _routine("symv", p)(
        M.layout,
        _uplo(lower),
        n,
        alpha,
        M.ptr,
        M.ld,
        vx.ptr,
        vx.inc,
        beta,
        vy.ptr,
        vy.inc,
    )
    return y


def sbmv(alpha, A, x, k, beta=0.0, y=None, lower=False):
    """y <- alpha A x + beta y for the symmetric band matrix A with k
    off-diagonals, CBLAS row-major band storage of its upper (lower)
    band: n rows of k + 1."""
    dtype, p = _precision(A, x, y)
    M = _Matrix(np.asarray(A), "A", False).as_layout(ROW_MAJOR, "A")
    n = M.shape[0]
    y = _out(y, n, dtype, "y")
    vx = _Vector(np.asarray(x), "x", False, zero_ok=False)
    _expect(vx.n, n, "x")
    vy = _Vector(y, "y", True, zero_ok=False)
    _routine("sbmv", p)(
        ROW_MAJOR, _uplo(lower), n, k, alpha, M.ptr, M.ld, vx.ptr, vx.inc, beta,
        vy.ptr, vy.inc,
    )  # fmt: skip
    return y


def syr(alpha, x, A, lower=False):
    """A <- alpha x x^T + A on the upper (lower) triangle."""
    _, p = _precision(A, x)
    M = _Matrix(A, "A", True)
    n = _square(M)
    vx = _Vector(np.asarray(x), "x", False, zero_ok=False)
    _expect(vx.n, n, "x")
    _routine("syr", p)(M.layout, _uplo(lower), n, alpha, vx.ptr, vx.inc, M.ptr, M.ld)
    return A


def syr2(alpha, x, y, A, lower=False):
    """A <- alpha (x y^T + y x^T) + A on the upper (lower) triangle."""
    _, p = _precision(A, x, y)
    M = _Matrix(A, "A", True)
    n = _square(M)
    vx = _Vector(np.asarray(x), "x", False, zero_ok=False)
    vy = _Vector(np.asarray(y), "y", False, zero_ok=False)
    _expect(vx.n, n, "x")
    _expect(vy.n, n, "y")
    _routine("syr2", p)(
        M.layout, _uplo(lower), n, alpha, vx.ptr, vx.inc, vy.ptr, vy.inc, M.ptr, M.ld
    )
    return A


def _triangular(kernel, A, x, lower, trans, unit_diag, k=None):
    _, p = _precision(A, x)
    M = _Matrix(np.asarray(A), "A", False)
    if k is not None:
        M = M.as_layout(ROW_MAJOR, "A")
        n = M.shape[0]
    else:
        n = _square(M)
    vx = _Vector(x, "x", True, zero_ok=False)
    _expect(vx.n, n, "x")
    flags = (
        _uplo(lower),
        TRANS if trans else NO_TRANS,
        UNIT if unit_diag else NON_UNIT,
    )
    sizes = (n,) if k is None else (n, k)
    _routine(kernel, p)(M.layout, *flags, *sizes, M.ptr, M.ld, vx.ptr, vx.inc)
    return x


def trmv(A, x, lower=False, trans=False, unit_diag=False):
    """x <- op(A) x, A triangular."""
    return _triangular("trmv", A, x, lower, trans, unit_diag)


def trsv(A, x, lower=False, trans=False, unit_diag=False):
    """Solves op(A) z = x, z overwriting x, A triangular."""
    return _triangular("trsv", A, x, lower, trans, unit_diag)


def tbmv(A, x, k, lower=False, trans=False, unit_diag=False):
    """x <- op(A) x, A triangular band with k off-diagonals (CBLAS
    row-major band storage: n rows of k + 1)."""
    return _triangular("tbmv", A, x, lower, trans, unit_diag, k)


def tbsv(A, x, k, lower=False, trans=False, unit_diag=False):
    """Solves op(A) z = x for the triangular band A, z overwriting x."""
    return _triangular("tbsv", A, x, lower, trans, unit_diag, k)


# --- level 3 -------------------------------------------------------------------


def _out_matrix(C, shape, dtype):
    if C is None:
        return np.zeros(shape, dtype)
    if C.shape != shape:
        raise ValueError(f"exo2blas: C must have shape {shape}, got {C.shape}")
    return C


def _trans_in(M, layout, trans):
    """Trans flag for input M in a call of `layout`: flipped if M is stored
    in the other layout (it is then the transpose's storage)."""
    return trans != (M.layout != layout)


def gemm(alpha, A, B, beta=0.0, C=None, trans_a=False, trans_b=False):
    """C <- alpha op(A) op(B) + beta C."""
    dtype, p = _precision(A, B, C)
    MA, MB = _Matrix(np.asarray(A), "A", False), _Matrix(np.asarray(B), "B", False)
    m, k = MA.shape[::-1] if trans_a else MA.shape
    k2, n = MB.shape[::-1] if trans_b else MB.shape
    _expect(k2, k, "the inner dimension of B")
    C = _out_matrix(C, (m, n), dtype)
    MC = _Matrix(C, "C", True)
    ta, tb = _trans_in(MA, MC.layout, trans_a), _trans_in(MB, MC.layout, trans_b)
    _routine("gemm", p)(
        MC.layout, TRANS if ta else NO_TRANS, TRANS if tb else NO_TRANS, m, n, k, alpha,
        MA.ptr, MA.ld, MB.ptr, MB.ld, beta, MC.ptr, MC.ld,
    )  # fmt: skip
    return C


def symm(alpha, A, B, beta=0.0, C=None, side="L", lower=False):
    """C <- alpha A B + beta C (side "L") or alpha B A + beta C ("R"), A
    symmetric, its upper (lower) triangle read."""
    dtype, p = _precision(A, B, C)
    MA = _Matrix(np.asarray(A), "A", False)
    _square(MA)
    MB = _Matrix(np.asarray(B), "B", False)
    C = _out_matrix(C, MB.shape, dtype)
    MC = _Matrix(C, "C", True)
    MB = MB.as_layout(MC.layout, "B")
    uplo = _uplo(lower) if MA.layout == MC.layout else _flip(_uplo(lower), UPPER, LOWER)
    m, n = MC.shape
    _expect(MA.shape[0], m if side == "L" else n, "the order of A")
    _routine("symm", p)(
        MC.layout, LEFT if side == "L" else RIGHT, uplo, m, n, alpha, MA.ptr, MA.ld,
        MB.ptr, MB.ld, beta, MC.ptr, MC.ld,
    )  # fmt: skip
    return C


def syrk(alpha, A, beta=0.0, C=None, lower=False, trans=False):
    """C <- alpha A A^T + beta C (A^T A with trans), upper (lower) triangle."""
    dtype, p = _precision(A, C)
    MA = _Matrix(np.asarray(A), "A", False)
    n, k = MA.shape[::-1] if trans else MA.shape
    C = _out_matrix(C, (n, n), dtype)
    MC = _Matrix(C, "C", True)
    t = _trans_in(MA, MC.layout, trans)
    _routine("syrk", p)(
        MC.layout, _uplo(lower), TRANS if t else NO_TRANS, n, k, alpha, MA.ptr, MA.ld,
        beta, MC.ptr, MC.ld,
    )  # fmt: skip
    return C


def syr2k(alpha, A, B, beta=0.0, C=None, lower=False, trans=False):
    """C <- alpha (A B^T + B A^T) + beta C (A^T B + B^T A with trans)."""
    dtype, p = _precision(A, B, C)
    MA = _Matrix(np.asarray(A), "A", False)
    MB = _Matrix(np.asarray(B), "B", False).as_layout(MA.layout, "B")
    n, k = MA.shape[::-1] if trans else MA.shape
    C = _out_matrix(C, (n, n), dtype)
    MC = _Matrix(C, "C", True)
    t = _trans_in(MA, MC.layout, trans)
    _routine("syr2k", p)(
        MC.layout, _uplo(lower), TRANS if t else NO_TRANS, n, k, alpha, MA.ptr, MA.ld,
        MB.ptr, MB.ld, beta, MC.ptr, MC.ld,
    )  # fmt: skip
    return C


def _triangular3(kernel, alpha, A, B, side, lower, trans_a, unit_diag):
    _, p = _precision(A, B)
    MA = _Matrix(np.asarray(A), "A", False)
    _square(MA)
    MB = _Matrix(B, "B", True)
    m, n = MB.shape
    _expect(MA.shape[0], m if side == "L" else n, "the order of A")
    same = MA.layout == MB.layout
    uplo = _uplo(lower) if same else _flip(_uplo(lower), UPPER, LOWER)
    t = trans_a if same else not trans_a
    _routine(kernel, p)(
        MB.layout, LEFT if side == "L" else RIGHT, uplo, TRANS if t else NO_TRANS,
        UNIT if unit_diag else NON_UNIT, m, n, alpha, MA.ptr, MA.ld, MB.ptr, MB.ld,
    )  # fmt: skip
    return B


def trmm(alpha, A, B, side="L", lower=False, trans_a=False, unit_diag=False):
    """B <- alpha op(A) B (side "L") or alpha B op(A) ("R"), A triangular."""
    return _triangular3("trmm", alpha, A, B, side, lower, trans_a, unit_diag)


def trsm(alpha, A, B, side="L", lower=False, trans_a=False, unit_diag=False):
    """Solves op(A) X = alpha B ("L") or X op(A) = alpha B ("R"), X
    overwriting B."""
    return _triangular3("trsm", alpha, A, B, side, lower, trans_a, unit_diag)


def _square(M):
    if M.shape[0] != M.shape[1]:
        raise ValueError(f"exo2blas: a square matrix expected, got shape {M.shape}")
    return M.shape[0]


def _expect(got, want, name):
    if got != want:
        raise ValueError(f"exo2blas: {name} has length {got}, expected {want}")


def isa():
    """The ISA libexo2blas dispatches to ("avx512" or "avx2")."""
    return lib.load().exo2blas_isa().decode()


ROUTINES = (
    "dot", "asum", "nrm2", "iamax", "axpy", "copy", "swap", "scal", "rot", "rotm",
    "gemv", "gbmv", "ger", "symv", "sbmv", "syr", "syr2", "trmv", "trsv", "tbmv",
    "tbsv", "gemm", "symm", "syrk", "syr2k", "trmm", "trsm",
)  # fmt: skip


def _prefixed(function, dtype):
    def call(*args, **kwargs):
        arrays = [a for a in args if isinstance(a, np.ndarray)]
        arrays += [a for a in kwargs.values() if isinstance(a, np.ndarray)]
        for a in arrays:
            if a.dtype != dtype:
                raise TypeError(
                    f"exo2blas: {call.__name__} takes {np.dtype(dtype)} arrays, got {a.dtype}"
                )
        return function(*args, **kwargs)

    return call


def aliases():
    """`{sgemv: ..., dgemv: ..., isamax: ..., ...}`."""
    found = {}
    for name in ROUTINES:
        for letter, dtype in (("s", np.float32), ("d", np.float64)):
            alias = f"i{letter}amax" if name == "iamax" else f"{letter}{name}"
            call = _prefixed(globals()[name], dtype)
            call.__name__ = call.__qualname__ = alias
            call.__doc__ = f"{globals()[name].__doc__ or name} ({np.dtype(dtype)} only)"
            found[alias] = call
    return found
