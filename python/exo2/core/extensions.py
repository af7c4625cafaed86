"""Extension points of the IR for backends: loop modes and `with` contexts.

The core treats both as opaque Python objects that it asks a few questions
(spec/cuda.md §2.1–2.2).
"""


class LoopMode:
    """How a loop runs. A subclass is a *factory*: the kernel code
    `for i in Mode(lo, hi, k=v):` builds the mode `Mode(k=v)` at parse time
    (keyword values are Python expressions); an instance may also be used
    directly, as in `for i in my_mode(lo, hi):`.
    """

    def name(self):
        """The name printed before `(lo, hi...)`."""
        return type(self).__name__

    def extra_args(self):
        """Text printed after `lo, hi` inside the parentheses (e.g.
        `", unit=cuda_warp"`)."""
        return ""

    def is_parallel(self):
        """Whether iterations may run concurrently (needs a race check)."""
        return False


class BuiltinLoopMode(LoopMode):
    """`seq` and `par`, the modes every backend knows."""

    def __init__(self, name, parallel):
        self._name = name
        self._parallel = parallel

    def name(self):
        return self._name

    def is_parallel(self):
        return self._parallel

    def __repr__(self):
        return self._name


seq = BuiltinLoopMode("seq", parallel=False)
par = BuiltinLoopMode("par", parallel=True)


class WithContext:
    """The context object of `with <ctx>:` statements in kernels.

    `str(ctx)` is the printed text; `check(collective_info)` enforces the
    structural rules of the context (none by default).
    """

    def check(self, collective_info):
        """Raise if the statement is misplaced; the default accepts all."""

    def __str__(self):
        return f"{type(self).__name__}()"


class DimAnnotation:
    """An annotation on one dimension of an allocation, written
    `extent @ annotation` (`K / 64 @ ring(4)`, cuda.md §2.4). The core keeps
    the full logical extent; backends read the annotation. `str()` is the
    printed text."""

    def __str__(self):
        return f"{type(self).__name__}()"
