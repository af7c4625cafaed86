"""The level-3 sweep: every routine, precision and enum value through the
NumPy entry; each of m, n, k over the profile's dimensions with the others
at a middle value, plus random triples; C (or B) in either layout and the
inputs in random layouts (the NumPy entry flips Trans or the triangle for
an input stored in the other layout), ld padded by 0 or 5; alpha and beta
of the tier; the unreferenced triangle and unit diagonal poisoned."""

from __future__ import annotations

import itertools
import zlib

import numpy as np
import pytest
from arena import matrix
from exo2blas import numpy_entry as blas
from exo2blas import reference as ref
from sweep import DTYPES, Case, Failures, scalars, values


def _seed(*key):
    return zlib.crc32(" ".join(map(str, key)).encode()) % 2**16


def _triples(profile, rng):
    dims, middle = profile.level3_dims, 9
    triples = {(d, middle, middle) for d in dims}
    triples |= {(middle, d, middle) for d in dims} | {(middle, middle, d) for d in dims}
    triples |= {
        tuple(int(v) for v in rng.choice(dims, 3))
        for _ in range(profile.level3_triples)
    }
    return sorted(triples)


def _settings(profile, rng):
    for tier in profile.tiers:
        if tier == "special":
            continue
        for m, n, k in _triples(profile, rng):
            layout = "RC"[int(rng.integers(2))]
            yield (
                tier,
                m,
                n,
                k,
                layout,
                int(rng.choice([0, 5])),
                int(rng.integers(0, 16)),
            )


def _layout(rng):
    return "RC"[int(rng.integers(2))]


def _scalar_pairs(tier, rng, count=3):
    pairs = list(itertools.product(scalars(tier, "alpha"), scalars(tier, "beta")))
    return [pairs[i] for i in rng.choice(len(pairs), count, replace=False)]


def _update(alpha, op_a, op_b, beta, c0, dtype, exact, inner=None):
    """The reference BLAS leaves C alone when m or n is 0, or when alpha or
    k is 0 and beta is 1; otherwise C <- alpha op(A) op(B) + beta C."""
    k = op_a.shape[1]
    if 0 in c0.shape or ((alpha == 0 or k == 0) and beta == 1):
        return ref.Expected(c0.astype(ref.LD), dtype)
    return ref.matmul_update(alpha, op_a, op_b, beta, c0, dtype, exact, inner)


@pytest.mark.parametrize("p", ["s", "d"])
@pytest.mark.parametrize("trans_a", [False, True])
@pytest.mark.parametrize("trans_b", [False, True])
def test_gemm(p, trans_a, trans_b, profile):
    dtype, seed = DTYPES[p], _seed("gemm", p, trans_a, trans_b)
    rng, failures = np.random.default_rng(seed), Failures()
    for tier, m, n, k, layout, pad, off in _settings(profile, rng):
        for alpha, beta in _scalar_pairs(tier, rng):
            a = values(rng, tier, (k, m) if trans_a else (m, k), dtype)
            b = values(rng, tier, (n, k) if trans_b else (k, n), dtype)
            c = values(rng, tier, (m, n), dtype)
            la, lb = _layout(rng), _layout(rng)
            case = Case(
                f"{p}gemm ta={trans_a} tb={trans_b} {tier} m={m} n={n} k={k} C:{layout} "
                f"A:{la} B:{lb} pad={pad} alpha={alpha} beta={beta}", seed,
            )  # fmt: skip
            A = case.input(matrix(a, la, pad, offset=off))
            B = case.input(matrix(b, lb, pad, offset=off))
            C = case.output(matrix(c, layout, pad, offset=off))
            blas.gemm(alpha, A, B, beta, C, trans_a=trans_a, trans_b=trans_b)
            op_a, op_b = (a.T if trans_a else a), (b.T if trans_b else b)
            case.expect(
                "C", _update(alpha, op_a, op_b, beta, c, dtype, tier == "exact"), C
            )
            failures.add(case)
    failures.assert_none()


@pytest.mark.parametrize("p", ["s", "d"])
@pytest.mark.parametrize("lower", [False, True])
def test_symm_syrk_syr2k(p, lower, profile):
    dtype, seed = DTYPES[p], _seed("sym3", p, lower)
    rng, failures = np.random.default_rng(seed), Failures()
    for tier, m, n, k, layout, pad, off in _settings(profile, rng):
        exact = tier == "exact"
        for alpha, beta in _scalar_pairs(tier, rng, 2):
            for side in ("L", "R"):
                order = m if side == "L" else n
                tri = (
                    np.tril(np.ones((order, order), bool))
                    if lower
                    else np.triu(np.ones((order, order), bool))
                )
                a = values(rng, tier, (order, order), dtype)
                b, c = (
                    values(rng, tier, (m, n), dtype),
                    values(rng, tier, (m, n), dtype),
                )
                la = _layout(rng)
                case = Case(
                    f"{p}symm side={side} lower={lower} {tier} m={m} n={n} C:{layout} A:{la} "
                    f"pad={pad} alpha={alpha} beta={beta}", seed,
                )  # fmt: skip
                A = case.input(matrix(a, la, pad, mask=tri, offset=off))
                B = case.input(matrix(b, _layout(rng), pad, offset=off))
                C = case.output(matrix(c, layout, pad, offset=off))
                blas.symm(alpha, A, B, beta, C, side=side, lower=lower)
                full = ref.symmetric(np.where(tri, a, 0), lower)
                left, right = (full, b) if side == "L" else (b, full)
                case.expect("C", _update(alpha, left, right, beta, c, dtype, exact), C)
                failures.add(case)
            for trans in (False, True):
                tri = (
                    np.tril(np.ones((n, n), bool))
                    if lower
                    else np.triu(np.ones((n, n), bool))
                )
                a = values(rng, tier, (k, n) if trans else (n, k), dtype)
                b = values(rng, tier, (k, n) if trans else (n, k), dtype)
                c = values(rng, tier, (n, n), dtype)
                op_a, op_b = (a.T if trans else a), (b.T if trans else b)
                for kind in ("syrk", "syr2k"):
                    la = _layout(rng)
                    case = Case(
                        f"{p}{kind} lower={lower} trans={trans} {tier} n={n} k={k} C:{layout} "
                        f"A:{la} pad={pad} alpha={alpha} beta={beta}", seed,
                    )  # fmt: skip
                    A = case.input(matrix(a, la, pad, offset=off))
                    C = case.output(matrix(c, layout, pad, mask=tri, offset=off))
                    if kind == "syrk":
                        blas.syrk(alpha, A, beta, C, lower=lower, trans=trans)
                        expected = _update(alpha, op_a, op_a.T, beta, c, dtype, exact)
                    else:
                        B = case.input(matrix(b, la, pad, offset=off))
                        blas.syr2k(alpha, A, B, beta, C, lower=lower, trans=trans)
                        both = np.hstack([op_a, op_b]), np.vstack([op_b.T, op_a.T])
                        expected = _update(
                            alpha, *both, beta, c, dtype, exact, inner=2 * k
                        )
                    bound = None if expected.bound is None else expected.bound[tri]
                    expected = ref.Expected(expected.value[tri], dtype, bound)
                    case.expect("C", expected, np.asarray(C)[tri])
                    failures.add(case)
    failures.assert_none()


@pytest.mark.parametrize("p", ["s", "d"])
@pytest.mark.parametrize("side", ["L", "R"])
@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("trans_a", [False, True])
@pytest.mark.parametrize("unit", [False, True])
def test_trmm_trsm(p, side, lower, trans_a, unit, profile):
    """trmm against the oracle; trsm by its backward error."""
    dtype, seed = DTYPES[p], _seed("tri3", p, side, lower, trans_a, unit)
    rng, failures = np.random.default_rng(seed), Failures()
    for tier, m, n, _, layout, pad, off in _settings(profile, rng):
        exact = tier == "exact"
        order = m if side == "L" else n
        tri = (
            np.tril(np.ones((order, order), bool))
            if lower
            else np.triu(np.ones((order, order), bool))
        )
        if unit:
            tri &= ~np.eye(order, dtype=bool)
        flags = dict(side=side, lower=lower, trans_a=trans_a, unit_diag=unit)
        for alpha in scalars(tier, "alpha")[:3]:
            a, b = (
                values(rng, tier, (order, order), dtype),
                values(rng, tier, (m, n), dtype),
            )
            la = _layout(rng)
            what = f"{p}%s side={side} lower={lower} ta={trans_a} unit={unit} {tier} m={m} n={n} B:{layout} A:{la} pad={pad} alpha={alpha}"
            case = Case(what % "trmm", seed)
            A = case.input(matrix(a, la, pad, mask=tri, offset=off))
            B = case.output(matrix(b, layout, pad, offset=off))
            blas.trmm(alpha, A, B, **flags)
            t = ref.triangular(a, lower, unit)
            op = t.T if trans_a else t
            left, right = (op, b) if side == "L" else (b, op)
            expected = (
                ref.Expected(b.astype(ref.LD), dtype) if 0 in b.shape
                else ref.matmul_update(alpha, left, right, 0, b, dtype, exact)
            )  # fmt: skip
            case.expect("B", expected, B)
            failures.add(case)
            s = (rng.uniform(-1, 1, (order, order)) / max(order, 1)).astype(dtype)
            s[np.diag_indices(order)] = rng.uniform(1, 2, order) * rng.choice(
                [-1, 1], order
            )
            case = Case(what % "trsm", seed)
            A = case.input(matrix(s, la, pad, mask=tri, offset=off))
            B = case.output(matrix(b, layout, pad, offset=off))
            blas.trsm(alpha, A, B, **flags)
            t = ref.triangular(s, lower, unit)
            op = t.T if trans_a else t
            x_hat = np.asarray(B)
            if side == "L":
                residual, bound = ref.solve_residual(alpha, op, b, x_hat, dtype)
            else:
                residual, bound = ref.solve_residual(alpha, op.T, b.T, x_hat.T, dtype)
            zero = ref.Expected(np.zeros_like(residual), dtype, bound)
            case.expect("residual", zero, residual)
            failures.add(case)
    failures.assert_none()
