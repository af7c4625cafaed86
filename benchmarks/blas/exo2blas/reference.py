"""The oracle: every kernel computed from the BLAS definition, not from
the naive procs, in `numpy.longdouble` (64-bit significand on x86-64), so no
BLAS is involved, with the error bound each result must meet.

The functions take *logical* operands (dense NumPy arrays: band and
triangular storage already expanded, vectors without their increments;
`op(A)` already applied) and return an `Expected`: the exact value in
long double, rounded to the kernel's precision where the BLAS result must
match bit for bit, and a componentwise bound otherwise.

Bounds (Higham, *Accuracy and Stability of Numerical Algorithms*, ch. 3
and 8) hold for any summation order, blocking and FMA use: with u = 2^-24
(f32) or 2^-53 (f64) and gamma_k = k u / (1 - k u),

- element-wise updates (axpy, ger, syr, syr2, rot, rotm):
  |y^ - y| <= gamma_4 * (sum of |terms|);
- inner products of length k (dot, asum, gemv, gbmv, symv, sbmv, trmv,
  tbmv, gemm, symm, syrk, syr2k, trmm):
  |y^ - y| <= gamma_{k+2} * (|alpha| |op(A)| |x| + |beta| |y0|);
- dsdot, sdsdot: gamma_k in f64 times sum |terms|, plus u_s |y| for sdsdot;
- snrm2: (u_s + gamma_n^(f64)) y; dnrm2: gamma_{n+4} y;
- solvers (trsv, tbsv, trsm), a backward error:
  |alpha b - op(T) x^| <= gamma_{2n} * (|op(T)| |x^| + |alpha b|).

With beta = 0 the old output is not read (NaN or Inf in it do not
propagate), so the oracle takes it as 0; likewise alpha = 0 does not read
A and x.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

LD = np.longdouble
UNIT_ROUNDOFF = {np.dtype(np.float32): 2.0**-24, np.dtype(np.float64): 2.0**-53}


def gamma(k, dtype):
    u = UNIT_ROUNDOFF[np.dtype(dtype)]
    return LD(k * u / (1 - k * u))


@dataclass
class Expected:
    """`value` in long double; `bound` None means bit-exact (the value
    rounded to `dtype`), else the allowed |result - value| per element."""

    value: np.ndarray
    dtype: np.dtype
    bound: np.ndarray | None = None

    def failures(self, result):
        """Indices where `result` misses: a message per worst element."""
        result = np.asarray(result)
        if self.bound is None:
            want = self.value.astype(self.dtype)
            bad = ~((result == want) | (np.isnan(result) & np.isnan(want)))
            error = np.abs(result.astype(LD) - want.astype(LD))
        else:
            error = np.abs(result.astype(LD) - self.value)
            bad = ~(error <= self.bound)
            bad &= ~(np.isnan(result) & np.isnan(self.value))
            bad |= np.isnan(result) & ~np.isnan(self.value)
        if not bad.any():
            return None
        where = np.argwhere(np.atleast_1d(bad))
        index = tuple(where[0])
        worst = np.atleast_1d(error)[index]
        got = np.atleast_1d(result)[index]
        want = np.atleast_1d(self.value)[index]
        bound = (
            "exact"
            if self.bound is None
            else f"bound {np.atleast_1d(self.bound)[index]:.3g}"
        )
        return (
            f"{int(bad.sum())} element(s) wrong; first at {index}: got {got!r}, "
            f"expected {float(want)!r} (error {float(worst):.3g}, {bound})"
        )


def _ld(*arrays):
    return [np.asarray(a, dtype=LD) for a in arrays]


def _old(y0, beta):
    """The old output as read: not at all when beta is 0."""
    return np.zeros_like(y0) if beta == 0 else y0


# --- level 1 ---------------------------------------------------------------------


def dot(x, y, dtype, exact):
    x, y = _ld(x, y)
    value = np.sum(x * y)
    return Expected(
        value,
        dtype,
        None if exact else gamma(len(x) + 2, dtype) * np.sum(np.abs(x * y)),
    )


def asum(x, dtype, exact):
    (x,) = _ld(x)
    value = np.sum(np.abs(x))
    return Expected(value, dtype, None if exact else gamma(len(x) + 2, dtype) * value)


def nrm2(x, dtype):
    (x,) = _ld(x)
    value = np.sqrt(np.sum(x * x))
    n = len(x)
    if np.dtype(dtype) == np.float32:
        bound = (UNIT_ROUNDOFF[np.dtype(np.float32)] + gamma(n, np.float64)) * value
    else:
        bound = gamma(n + 4, dtype) * value
    return Expected(value, dtype, bound)


def iamax(x, dtype):
    x = np.asarray(x)
    return Expected(LD(int(np.argmax(np.abs(x))) if len(x) else 0), np.dtype(np.int64))


def axpy(alpha, x, y, dtype, exact):
    if alpha == 0:
        return Expected(np.asarray(y, LD), dtype)
    x, y = _ld(x, y)
    alpha = LD(alpha)
    return Expected(
        alpha * x + y,
        dtype,
        None if exact else gamma(4, dtype) * (np.abs(alpha * x) + np.abs(y)),
    )


def scal(alpha, x, dtype):
    """Bit-exact: one rounding of alpha x in the kernel's precision."""
    dt = np.dtype(dtype)
    return Expected((dt.type(alpha) * np.asarray(x, dt)).astype(LD), dtype)


def rot(x, y, c, s, dtype, exact):
    x, y = _ld(x, y)
    c, s = LD(c), LD(s)
    bx = np.abs(c * x) + np.abs(s * y)
    by = np.abs(c * y) + np.abs(s * x)
    g = gamma(4, dtype)
    return (
        Expected(c * x + s * y, dtype, None if exact else g * bx),
        Expected(c * y - s * x, dtype, None if exact else g * by),
    )


def rotm(x, y, param, dtype, exact):
    x, y = _ld(x, y)
    flag = param[0]
    if flag == -2:
        return Expected(x, dtype), Expected(y, dtype)
    h11, h21, h12, h22 = (LD(v) for v in param[1:])
    if flag == 0:
        h11 = h22 = LD(1)
    elif flag > 0:
        h21, h12 = LD(-1), LD(1)
    g = gamma(4, dtype)
    return (
        Expected(
            h11 * x + h12 * y,
            dtype,
            None if exact else g * (np.abs(h11 * x) + np.abs(h12 * y)),
        ),
        Expected(
            h21 * x + h22 * y,
            dtype,
            None if exact else g * (np.abs(h21 * x) + np.abs(h22 * y)),
        ),
    )


def dsdot(x, y, exact, sb=None):
    """dsdot (f64 result) or, with `sb`, sdsdot (f32 result)."""
    x, y = _ld(x, y)
    terms = x * y
    value = np.sum(terms) + (LD(sb) if sb is not None else 0)
    dtype = np.float64 if sb is None else np.float32
    if exact:
        return Expected(value, dtype)
    bound = gamma(len(x) + 1, np.float64) * (np.sum(np.abs(terms)) + abs(LD(sb or 0)))
    if sb is not None:
        bound += UNIT_ROUNDOFF[np.dtype(np.float32)] * abs(value) * 2
    return Expected(value, dtype, bound)


# --- levels 2 and 3 --------------------------------------------------------------


def matmul_update(alpha, op_a, op_b, beta, c0, dtype, exact, inner=None):
    """alpha op(A) op(B) + beta C0 (op_b a vector or a matrix), with the
    inner-product bound; `inner` overrides the inner length (syr2k)."""
    op_a, op_b, c0 = _ld(op_a, op_b, c0)
    alpha, beta = LD(alpha), LD(beta)
    c0 = _old(c0, beta)
    if alpha == 0:
        product = abs_product = np.zeros_like(c0)
    else:
        product, abs_product = op_a @ op_b, np.abs(op_a) @ np.abs(op_b)
    value = alpha * product + beta * c0
    if exact:
        return Expected(value, dtype)
    k = inner if inner is not None else op_a.shape[-1]
    return Expected(
        value,
        dtype,
        gamma(k + 2, dtype) * (abs(alpha) * abs_product + abs(beta) * np.abs(c0)),
    )


def rank_update(a0, terms, dtype, exact):
    """a0 + sum(terms), element-wise (ger, syr, syr2)."""
    a0 = np.asarray(a0, LD)
    terms = [np.asarray(t, LD) for t in terms]
    value = a0 + sum(terms)
    if exact:
        return Expected(value, dtype)
    return Expected(
        value, dtype, gamma(4, dtype) * (np.abs(a0) + sum(np.abs(t) for t in terms))
    )


def solve_residual(alpha, op_t, b, x_hat, dtype):
    """The backward-error check of a triangular solve: the residual
    alpha b - op(T) x^ as `Expected` zero within the bound."""
    op_t, b, x_hat = _ld(op_t, b, x_hat)
    alpha = LD(alpha)
    residual = alpha * b - op_t @ x_hat
    n = op_t.shape[0]
    bound = gamma(2 * n + 2, dtype) * (np.abs(op_t) @ np.abs(x_hat) + np.abs(alpha * b))
    return residual, bound


# --- storage -----------------------------------------------------------------------


def band_to_dense(band, m, n, kl, ku):
    """The m x n matrix of a CBLAS row-major band array (row i holds
    A(i, j) at column kl + j - i)."""
    dense = np.zeros((m, n), dtype=band.dtype)
    for i in range(m):
        for j in range(max(0, i - kl), min(n, i + ku + 1)):
            dense[i, j] = band[i, kl + j - i]
    return dense


def band_mask(m, n, kl, ku):
    """Which cells of an m x (kl + ku + 1) band array hold matrix entries."""
    i = np.arange(m)[:, None]
    d = np.arange(kl + ku + 1)[None, :]
    j = i - kl + d
    return (j >= 0) & (j < n)


def symmetric(stored, lower):
    """The full symmetric matrix of a stored upper (lower) triangle."""
    t = np.tril(stored) if lower else np.triu(stored)
    return t + (np.tril(stored, -1) if lower else np.triu(stored, 1)).T


def triangular(stored, lower, unit):
    t = np.tril(stored) if lower else np.triu(stored)
    if unit:
        t = t.copy()
        np.fill_diagonal(t, 1)
    return t
