"""exo2.stdlib.range_analysis: the values an index expression can take
(stdlib.md §6), computed from cursors alone.

An index expression is analysed as `base + [lo, hi]`: `base` a linear
combination of the variables left free (sizes, and iterators of loops outside
the scope of the question), `[lo, hi]` an inclusive interval of integers
contributed by the iterators bound inside the scope. `bounds_inference` uses
it to say which region of a buffer one iteration of a loop reads or writes,
which is what Halide-style scheduling (halide_scheduling_ops) needs.

Written against the public API only, like all of exo2.stdlib.
"""

from __future__ import annotations

from exo2.API_cursors import *  # noqa: F403
from exo2.API_cursors import (
    AssignCursor,
    BinaryOpCursor,
    Cursor,
    ExprCursor,
    ForCursor,
    LiteralCursor,
    ReadCursor,
    ReduceCursor,
    UnaryMinusCursor,
)
from exo2.API_cursors import __all__ as _cursor_names
from exo2.stdlib.inspection import get_parents, lrn
from exo2.stdlib.scheduling import user_op

# Exo's module has no __all__: `import *` of it also gives the cursor
# classes and get_parents, which it imports; so does this one.
__all__ = [
    "IndexRange",
    "index_range_analysis",
    "constant_bound",
    "infer_range",
    "bounds_inference",
    "get_parents",
    *_cursor_names,
]


def _add(a, b):
    return None if a is None or b is None else a + b


class IndexRange:
    """`base + [lo, hi]`: `base` maps variable names to integer coefficients
    (an empty dict for a constant range), `lo`/`hi` are inclusive integer
    offsets, `None` where unbounded. `base=None` means nothing is known (a
    non-affine expression)."""

    def __init__(self, base, lo, hi):
        self.base = None if base is None else {v: c for v, c in base.items() if c}
        self.lo = lo
        self.hi = hi

    @staticmethod
    def unknown():
        return IndexRange(None, None, None)

    @staticmethod
    def create_int(lo, hi):
        return IndexRange({}, lo, hi)

    @staticmethod
    def variable(name):
        return IndexRange({name: 1}, 0, 0)

    def is_constant(self):
        return self.base == {} and self.lo is not None and self.lo == self.hi

    def __eq__(self, other):
        return isinstance(other, IndexRange) and (self.base, self.lo, self.hi) == (
            other.base,
            other.lo,
            other.hi,
        )

    def __hash__(self):
        base = None if self.base is None else tuple(sorted(self.base.items()))
        return hash((base, self.lo, self.hi))

    # ---- arithmetic (ints are constant ranges)

    def __add__(self, other):
        other = _as_range(other)
        if self.base is None or other.base is None:
            return IndexRange.unknown()
        base = dict(self.base)
        for v, c in other.base.items():
            base[v] = base.get(v, 0) + c
        return IndexRange(base, _add(self.lo, other.lo), _add(self.hi, other.hi))

    __radd__ = __add__

    def __neg__(self):
        if self.base is None:
            return self
        return IndexRange(
            {v: -c for v, c in self.base.items()},
            None if self.hi is None else -self.hi,
            None if self.lo is None else -self.lo,
        )

    def __sub__(self, other):
        return self + -_as_range(other)

    def __rsub__(self, other):
        return _as_range(other) - self

    def __mul__(self, other):
        other = _as_range(other)
        if other.is_constant():
            return self._scale(other.lo)
        if self.is_constant():
            return other._scale(self.lo)
        if self.base == {} and other.base == {}:
            bounds = (self.lo, self.hi, other.lo, other.hi)
            if None in bounds:
                return IndexRange({}, None, None)
            products = [a * b for a in bounds[:2] for b in bounds[2:]]
            return IndexRange({}, min(products), max(products))
        return IndexRange.unknown()

    __rmul__ = __mul__

    def _scale(self, k):
        if self.base is None:
            return self
        lo = None if self.lo is None else self.lo * k
        hi = None if self.hi is None else self.hi * k
        if k < 0:
            lo, hi = hi, lo
        return IndexRange({v: c * k for v, c in self.base.items()}, lo, hi)

    def __floordiv__(self, other):
        other = _as_range(other)
        if self.base is None or not other.is_constant() or other.lo <= 0:
            return IndexRange.unknown()
        q = other.lo
        # (q * k * v + [lo, hi]) / q == k * v + [lo / q, hi / q]
        if any(c % q for c in self.base.values()):
            return IndexRange.unknown()
        return IndexRange(
            {v: c // q for v, c in self.base.items()},
            None if self.lo is None else self.lo // q,
            None if self.hi is None else self.hi // q,
        )

    def __mod__(self, other):
        other = _as_range(other)
        if self.base is None or not other.is_constant() or other.lo <= 0:
            return IndexRange.unknown()
        q = other.lo
        if (
            self.base == {}
            and None not in (self.lo, self.hi)
            and self.lo // q == self.hi // q
        ):
            return IndexRange({}, self.lo % q, self.hi % q)
        return IndexRange({}, 0, q - 1)

    def __or__(self, other):
        """The smallest range holding both (unknown if the bases differ)."""
        if self.base is None or other.base is None or self.base != other.base:
            return IndexRange.unknown()
        lo = None if None in (self.lo, other.lo) else min(self.lo, other.lo)
        hi = None if None in (self.hi, other.hi) else max(self.hi, other.hi)
        return IndexRange(self.base, lo, hi)

    # ---- queries

    def get_stride_of(self, name):
        """The coefficient of the variable `name` in the base (0 if absent)."""
        return 0 if self.base is None else self.base.get(name, 0)

    def get_size(self):
        """The number of values, `hi - lo + 1`, or None if unbounded."""
        if self.base is None or None in (self.lo, self.hi):
            return None
        return self.hi - self.lo + 1

    def get_bounds(self):
        """`(lo, hi)` as new-expression strings: the inclusive lower bound
        and the exclusive upper bound, e.g. `("4 * yo", "4 * yo + 6")`."""
        if self.get_size() is None:
            raise ValueError(f"the range {self} is unbounded")
        return _affine_str(self.base, self.lo), _affine_str(self.base, self.hi + 1)

    def __str__(self):
        if self.base is None:
            return "unknown"
        lo = "-inf" if self.lo is None else self.lo
        hi = "inf" if self.hi is None else self.hi
        if not self.base:
            return f"[{lo}, {hi}]"
        return f"{_affine_str(self.base, 0)} + [{lo}, {hi}]"

    def __repr__(self):
        return f"IndexRange({self.base!r}, {self.lo!r}, {self.hi!r})"


def _as_range(value):
    return (
        value if isinstance(value, IndexRange) else IndexRange.create_int(value, value)
    )


def _affine_str(base, constant):
    terms = []
    for v, c in base.items():
        term = v if abs(c) == 1 else f"{abs(c)} * {v}"
        terms.append((c < 0, term))
    if constant or not terms:
        terms.append((constant < 0, str(abs(constant))))
    text = ("-" if terms[0][0] else "") + terms[0][1]
    for negative, term in terms[1:]:
        text += (" - " if negative else " + ") + term
    return text


_BINOPS = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a // b,
    "%": lambda a, b: a % b,
}


@user_op
def index_range_analysis(expr, env):
    """The range of the index expression `expr` (an ExprCursor): an int when
    it is a constant, else an IndexRange. `env` maps the names of bound
    variables to inclusive `(lo, hi)` bounds (None where unknown); every
    other variable is kept symbolic in the base."""
    if not isinstance(expr, ExprCursor):
        raise TypeError("expr must be an ExprCursor")
    if not isinstance(env, dict):
        raise TypeError("env must be a dict from names to (lo, hi)")

    def analyse(e):
        if isinstance(e, LiteralCursor):
            value = e.value()
            if isinstance(value, bool) or not isinstance(value, int):
                return IndexRange.unknown()
            return value
        if isinstance(e, ReadCursor):
            if len(e.idx()):  # a data value, not an index
                return IndexRange.unknown()
            if e.name() in env:
                lo, hi = env[e.name()]
                return IndexRange.create_int(lo, hi)
            return IndexRange.variable(e.name())
        if isinstance(e, UnaryMinusCursor):
            return -analyse(e.arg())
        if isinstance(e, BinaryOpCursor) and e.op() in _BINOPS:
            lhs, rhs = analyse(e.lhs()), analyse(e.rhs())
            if isinstance(lhs, int) and isinstance(rhs, int):
                if e.op() in "/%" and rhs <= 0:
                    return IndexRange.unknown()
                return _BINOPS[e.op()](lhs, rhs)
            return _BINOPS[e.op()](_as_range(lhs), rhs)
        return IndexRange.unknown()

    return analyse(expr)


@user_op
def constant_bound(expr, env):
    """Inclusive constant bounds `(lo, hi)` of `expr` (an ExprCursor or an
    int) under `env`; `(None, None)` when the expression depends on a free
    variable, and None on a side that is unbounded."""
    if isinstance(expr, int):
        return (expr, expr)
    rng = index_range_analysis(expr, env)
    if isinstance(rng, int):
        return (rng, rng)
    if rng.base != {}:
        return (None, None)
    return (rng.lo, rng.hi)


@user_op
def infer_range(idx_expr, scope):
    """The range of `idx_expr` over the iterations of the loops between it
    and `scope` (both cursors of the same procedure; `scope` an ancestor).
    The iterator of `scope` itself, outer iterators and sizes stay symbolic.
    Always an IndexRange (a constant gives `[c, c]`)."""
    if not isinstance(idx_expr, Cursor) or not isinstance(scope, Cursor):
        raise TypeError("idx_expr and scope must be cursors")
    env = {}
    ancestors = list(get_parents(idx_expr.proc(), idx_expr, up_to=scope))[:-1]
    # outermost first: an inner loop's bounds may use an outer iterator
    for loop in reversed(ancestors):
        if isinstance(loop, ForCursor):
            lo, _ = constant_bound(loop.lo(), env)
            _, hi = constant_bound(loop.hi(), env)
            env[loop.name()] = (lo, None if hi is None else hi - 1)
    rng = index_range_analysis(idx_expr, env)
    return IndexRange.create_int(rng, rng) if isinstance(rng, int) else rng


def _accesses(loop, buffer_name, include):
    for node in lrn(loop.proc(), loop):
        if isinstance(node, ReadCursor) and "R" in include:
            if node.name() == buffer_name and len(node.idx()):
                yield node
        elif isinstance(node, (AssignCursor, ReduceCursor)) and "W" in include:
            if node.name() == buffer_name:
                yield node


@user_op
def bounds_inference(loop, buffer_name, buffer_dim, include=("W",)):
    """The range of the `buffer_dim`-th index of the accesses to
    `buffer_name` inside `loop` ("R": reads, "W": assignments and
    reductions), with `loop`'s iterator symbolic: the region one iteration
    touches is `loop.name()`-stride times the iterator plus `[lo, hi]`.
    None when there is no such access."""
    if not isinstance(loop, ForCursor):
        raise TypeError("loop must be a ForCursor")
    if not set(include) <= {"R", "W"}:
        raise ValueError('include must hold "R" and/or "W"')
    bound = None
    for access in _accesses(loop, buffer_name, include):
        rng = infer_range(access.idx()[buffer_dim], loop)
        bound = rng if bound is None else bound | rng
    return bound
