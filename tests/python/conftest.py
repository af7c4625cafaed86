"""Shared setup of the Python tests: kernel helper modules in `kernels/`
are importable as `kernels.<name>`, and the BLAS suite's package
(`benchmarks/blas/exo2blas`) as `exo2blas`, for the examples of
docs/blas-library.md."""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
_BLAS_SUITE = os.path.join(_HERE, "..", "..", "benchmarks", "blas")
if os.path.abspath(_BLAS_SUITE) not in map(os.path.abspath, sys.path):
    sys.path.append(os.path.abspath(_BLAS_SUITE))
