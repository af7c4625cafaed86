"""Infinite and NaN literals (`1e400`, or what `simplify` folds from
`1e400 - 1e400`) compile to <math.h>'s INFINITY and NAN, converted exactly
to the buffer's precision, instead of C text such as `inff` that does not
compile."""

from __future__ import annotations

import numpy as np
import pytest
from exo2 import proc
from exo2.API_scheduling import simplify


@pytest.fixture(scope="module", autouse=True)
def jit_cache(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("EXO2_CACHE_DIR", str(tmp_path_factory.mktemp("exo2_cache")))
    yield
    mp.undo()


@proc
def specials(x: f32[3], y: f64[3]):
    x[0] = 1e400
    x[1] = -1e400
    x[2] = 1e400 - 1e400
    y[0] = 1e400
    y[1] = -1e400
    y[2] = 1e400 - 1e400


def test_infinities_and_nan_compile_and_run_in_f32_and_f64():
    folded = simplify(specials)
    assert "x[2] = nan" in str(folded)
    c = folded.c_code_str()
    assert "#include <math.h>" in c
    for line in (
        "x[0] = INFINITY;",
        "x[1] = -INFINITY;",
        "x[2] = NAN;",
        "y[0] = ((double) INFINITY);",
        "y[1] = ((double) -INFINITY);",
        "y[2] = ((double) NAN);",
    ):
        assert line in c
    for p in (specials, folded):
        x, y = np.zeros(3, np.float32), np.zeros(3, np.float64)
        p.jit()(x, y)
        for a in (x, y):
            assert a[0] == np.inf and a[1] == -np.inf and np.isnan(a[2])


def test_finite_literals_need_no_math_header():
    @proc
    def ones(x: f32[2]):
        x[0] = 1e38
        x[1] = 1.0

    c = ones.c_code_str()
    assert "x[0] = 1e+38f;" in c
    assert "math.h" not in c
