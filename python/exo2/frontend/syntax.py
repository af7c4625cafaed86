"""Dummy definitions of kernel syntax for editors and linters.

`from exo2.frontend.syntax import *` keeps IDEs from flagging kernel code.
None of these objects is used by the parser, which reads kernel source text.
"""

# The single-letter names below are the documented dummies.
# ruff: noqa: E741

from typing import TypeVar as _TypeVar

from .future_annotations import subscripted as _subscripted


def _fail_dummy():
    raise SyntaxError("Exo Python dummy functions should never be called directly.")


class _Dummy:
    def __init__(self, *_):
        raise SyntaxError("Exo Python dummy objects should never be instantiated")

    def __class_getitem__(cls, _):
        # `f32[n]` evaluated: the file lacks `from __future__ import annotations`
        raise _subscripted(cls.__name__)


class size(_Dummy, int):
    """A positive extent (control type)."""


class index(_Dummy, int):
    """An integer used for indexing and loop iterators (control type)."""


class f16(_Dummy, float):
    """A 16-bit float value."""


class bf16(_Dummy, float):
    """A bfloat16 value."""


class f32(_Dummy, float):
    """A 32-bit float value."""


class f64(_Dummy, float):
    """A 64-bit float value."""


class i8(_Dummy, int):
    """A signed 8-bit integer value."""


class ui8(_Dummy, int):
    """A unsigned 8-bit integer value."""


class ui16(_Dummy, int):
    """A unsigned 16-bit integer value."""


class i32(_Dummy, int):
    """A signed 32-bit integer value."""


class barrier(_Dummy):
    """A synchronisation barrier (CUDA)."""


def stride(tensor, dimension):
    """The stride of `tensor` in `dimension` (kernel code only)."""
    _fail_dummy()


def seq(lo, hi):
    """Sequential range lo <= i < hi (for-loop bounds only)."""


def par(lo, hi):
    """Parallel range lo <= i < hi (for-loop bounds only)."""


# Single-letter size variables; A, B, C, i, j, k stay free for user names.
D = _TypeVar("D", bound=size)
E = _TypeVar("E", bound=size)
F = _TypeVar("F", bound=size)
G = _TypeVar("G", bound=size)
H = _TypeVar("H", bound=size)
I = _TypeVar("I", bound=size)
J = _TypeVar("J", bound=size)
K = _TypeVar("K", bound=size)
L = _TypeVar("L", bound=size)
M = _TypeVar("M", bound=size)
N = _TypeVar("N", bound=size)
O = _TypeVar("O", bound=size)
P = _TypeVar("P", bound=size)
Q = _TypeVar("Q", bound=size)
R = _TypeVar("R", bound=size)
S = _TypeVar("S", bound=size)
T = _TypeVar("T", bound=size)
U = _TypeVar("U", bound=size)
V = _TypeVar("V", bound=size)
W = _TypeVar("W", bound=size)
X = _TypeVar("X", bound=size)
Y = _TypeVar("Y", bound=size)
Z = _TypeVar("Z", bound=size)
a = _TypeVar("a", bound=size)
b = _TypeVar("b", bound=size)
c = _TypeVar("c", bound=size)
d = _TypeVar("d", bound=size)
e = _TypeVar("e", bound=size)
f = _TypeVar("f", bound=size)
g = _TypeVar("g", bound=size)
h = _TypeVar("h", bound=size)
l = _TypeVar("l", bound=size)
m = _TypeVar("m", bound=size)
n = _TypeVar("n", bound=size)
o = _TypeVar("o", bound=size)
p = _TypeVar("p", bound=size)
q = _TypeVar("q", bound=size)
r = _TypeVar("r", bound=size)
s = _TypeVar("s", bound=size)
t = _TypeVar("t", bound=size)
u = _TypeVar("u", bound=size)
v = _TypeVar("v", bound=size)
w = _TypeVar("w", bound=size)
x = _TypeVar("x", bound=size)
y = _TypeVar("y", bound=size)
z = _TypeVar("z", bound=size)
