"""Extension points of the IR for backends: loop modes, `with` contexts,
dimension annotations, sync timelines and instruction metadata.

The core treats them as opaque Python objects that it asks a few questions
(printed text, identity). Backends read `backend_properties()`, a dict of
ints, strings and lists of them (docs/cuda.md).
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
    `extent @ annotation` (`K / 64 @ ring(4)`, docs/cuda.md). The core keeps
    the full logical extent; backends read the annotation. `str()` is the
    printed text."""

    def __str__(self):
        return f"{type(self).__name__}()"


class Timeline:
    """What a sync statement orders: `Fence(pre, post)`, `Arrive(pre)`,
    `Await(bar, post)` name timelines such as `cuda_in_order`. Printed by
    name; a backend gives the names their meaning."""

    def __init__(self, name):
        self._name = name

    def __str__(self):
        return self._name

    def __repr__(self):
        return self._name

    def backend_properties(self):
        return {"name": self._name}


class InstrMetadata:
    """What `@instr(..., unit=..., timeline=..., ...)` records for backends
    besides the C template (docs/cuda.md, "The constructs").

    - `unit`: the group of threads that must execute a call (an object
      with `backend_properties()`, such as `cuda_warp`);
    - `timeline`: how the instruction executes (`"cuda_in_order"`,
      `"cp_async"`, `"tma_load"`, `"wgmma"`, ...);
    - `access`: `{param: flags}` with flags among `"async_proxy"`, `"oob"`,
      `"atomic"`, `"out_of_order"`;
    - `trailing_barrier`: the barrier memory names the call may signal, and
      whether it must (`("CUDA_MBARRIER",), True`);
    - `numerics`: `"exact"`, `"reassociates"`, `"tf32"` or `"approx"`;
    - `cu_includes`: headers the device code needs;
    - `codegen`: a callable taking the compiled arguments (a dict) and
      returning the C++ text of one call, used instead of the template.
    """

    def __init__(
        self,
        unit=None,
        timeline="cuda_in_order",
        access=None,
        trailing_barrier=(),
        trailing_barrier_required=False,
        numerics="exact",
        cu_includes=(),
        codegen=None,
    ):
        self.unit = unit
        self.timeline = timeline
        self.access = dict(access or {})
        self.trailing_barrier = tuple(trailing_barrier)
        self.trailing_barrier_required = trailing_barrier_required
        self.numerics = numerics
        self.cu_includes = tuple(cu_includes)
        self.codegen = codegen

    def __str__(self):
        return f"InstrMetadata(unit={self.unit}, timeline={self.timeline})"

    def backend_properties(self):
        props = {
            "timeline": self.timeline,
            "numerics": self.numerics,
            "cu_includes": list(self.cu_includes),
            "trailing_barrier": list(self.trailing_barrier),
            "trailing_barrier_required": int(self.trailing_barrier_required),
        }
        if self.unit is not None:
            for key, value in self.unit.backend_properties().items():
                props[f"unit_{key}"] = value
        for param, flags in self.access.items():
            props[f"access_{param}"] = list(flags)
        return props

    def has_generator(self):
        return self.codegen is not None

    def generate(self, args):
        return self.codegen(args)
