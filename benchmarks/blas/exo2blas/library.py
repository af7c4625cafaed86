"""Loading libexo2blas with ctypes, and the C signature of every routine.

The library is found at `$EXO2BLAS_LIBRARY`, else in the build directory
the README's commands create (`build/blas/libexo2blas.so` at the top of the
repository). `load()` returns the `ctypes.CDLL` with `argtypes` and
`restype` set for every `cblas_*` routine.
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

# CBLAS enum values (exo2blas/cblas.h).
ROW_MAJOR, COL_MAJOR = 101, 102
NO_TRANS, TRANS = 111, 112
UPPER, LOWER = 121, 122
NON_UNIT, UNIT = 131, 132
LEFT, RIGHT = 141, 142

# Argument codes: i int (sizes, increments, leading dimensions and enums),
# T a scalar of the routine's precision, P a pointer; f/d fixed scalars.
_SIGNATURES = {
    "dot": ("T", "iPiPi"),
    "asum": ("T", "iPi"),
    "nrm2": ("T", "iPi"),
    "amax": ("z", "iPi"),
    "axpy": (None, "iTPiPi"),
    "copy": (None, "iPiPi"),
    "swap": (None, "iPiPi"),
    "scal": (None, "iTPi"),
    "rot": (None, "iPiPiTT"),
    "rotm": (None, "iPiPiP"),
    "rotg": (None, "PPPP"),
    "rotmg": (None, "PPPTP"),
    "gemv": (None, "iiiiTPiPiTPi"),
    "gbmv": (None, "iiiiiiTPiPiTPi"),
    "trmv": (None, "iiiiiPiPi"),
    "trsv": (None, "iiiiiPiPi"),
    "tbmv": (None, "iiiiiiPiPi"),
    "tbsv": (None, "iiiiiiPiPi"),
    "symv": (None, "iiiTPiPiTPi"),
    "sbmv": (None, "iiiiTPiPiTPi"),
    "ger": (None, "iiiTPiPiPi"),
    "syr": (None, "iiiTPiPi"),
    "syr2": (None, "iiiTPiPiPi"),
    "gemm": (None, "iiiiiiTPiPiTPi"),
    "symm": (None, "iiiiiTPiPiTPi"),
    "syrk": (None, "iiiiiTPiTPi"),
    "syr2k": (None, "iiiiiTPiPiTPi"),
    "trmm": (None, "iiiiiiiTPiPi"),
    "trsm": (None, "iiiiiiiTPiPi"),
}
_MIXED = {
    "cblas_dsdot": ("d", "iPiPi"),
    "cblas_sdsdot": ("f", "ifPiPi"),
}
_CTYPES = {
    "i": ctypes.c_int,
    "P": ctypes.c_void_p,
    "z": ctypes.c_size_t,
    "f": ctypes.c_float,
    "d": ctypes.c_double,
}


def routine_name(kernel, letter):
    """`cblas_<letter><kernel>`, or `cblas_i<letter>amax`."""
    return f"cblas_i{letter}amax" if kernel == "amax" else f"cblas_{letter}{kernel}"


def default_path():
    root = Path(__file__).resolve().parents[3]
    return root / "build" / "blas" / "libexo2blas.so"


def _declare(function, restype, argtypes, scalar):
    def ctype(code):
        return scalar if code == "T" else _CTYPES[code]

    function.restype = None if restype is None else ctype(restype)
    function.argtypes = [ctype(c) for c in argtypes]


_LOADED = {}


def load(path=None):
    """The loaded library (once per path), or FileNotFoundError naming
    what to build."""
    path = Path(path or os.environ.get("EXO2BLAS_LIBRARY") or default_path())
    if path not in _LOADED:
        if not path.exists():
            raise FileNotFoundError(
                f"exo2blas: {path} not found; build it with "
                "`cmake -S benchmarks/blas -B build/blas && cmake --build build/blas -j2`"
                " or set EXO2BLAS_LIBRARY"
            )
        library = ctypes.CDLL(str(path))
        for kernel, (restype, argtypes) in _SIGNATURES.items():
            for letter, scalar in (("s", ctypes.c_float), ("d", ctypes.c_double)):
                function = getattr(library, routine_name(kernel, letter))
                _declare(function, restype, argtypes, scalar)
        for name, (restype, argtypes) in _MIXED.items():
            _declare(getattr(library, name), restype, argtypes, None)
        library.exo2blas_isa.restype = ctypes.c_char_p
        library.exo2blas_isa.argtypes = []
        _LOADED[path] = library
    return _LOADED[path]
