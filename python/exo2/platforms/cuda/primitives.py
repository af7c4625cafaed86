"""The GPU primitives (docs/cuda.md, "GPU primitives").

Loop modes, `with` blocks, sync statements, trailing barriers, barrier
allocations and dimension annotations have no sequential meaning, so these
primitives keep what a procedure computes; they only check the typing and
bounds of what they add. Whether the parallel execution is right is
`check_parallel`'s job.
"""

import inspect

from ... import API_cursors as PC
from ... import _core
from ...core.extensions import (
    BuiltinLoopMode,
    DimAnnotation,
    LoopMode,
    Timeline,
    WithContext,
)
from ...core.memory import Memory
from ...primitives.arguments import (
    AllocCursorA,
    ArgumentProcessor,
    BlockCursorA,
    CallCursorA,
    ForCursorA,
    GapCursorA,
    IntA,
    NameA,
    StmtCursorA,
    sched_op,
)
from ...primitives.new_expressions import parse_new_expr
from ...primitives.results import derived_procedure

__all__ = [
    "set_loop_mode",
    "wrap_with",
    "unwrap_with",
    "insert_fence",
    "insert_arrive",
    "insert_await",
    "delete_sync",
    "set_trailing_barrier",
    "alloc_barrier",
    "set_dim_annotation",
]


class LoopModeA(ArgumentProcessor):
    """`seq`, `par` or a loop mode object (`cuda_tasks`,
    `cuda_threads(unit=cuda_warp)`)."""

    def __call__(self, mode, all_args):
        if isinstance(mode, BuiltinLoopMode):
            return mode.name()
        if inspect.isclass(mode) and issubclass(mode, LoopMode):
            try:
                mode = mode()
            except TypeError:
                self.err(f"{mode.__name__} needs parameters: call it")
        if not isinstance(mode, LoopMode):
            self.err(
                "expected a loop mode such as seq, cuda_tasks or cuda_threads(unit=cuda_warp)"
            )
        return mode


class WithContextA(ArgumentProcessor):
    def __call__(self, ctx, all_args):
        if not isinstance(ctx, WithContext):
            self.err("expected a with context such as CudaDeviceFunction(blockDim=256)")
        return ctx


class TimelineA(ArgumentProcessor):
    def __call__(self, timeline, all_args):
        if not isinstance(timeline, Timeline):
            self.err("expected a timeline such as cuda_in_order")
        return timeline


class MemoryClassA(ArgumentProcessor):
    def __call__(self, mem, all_args):
        if not (inspect.isclass(mem) and issubclass(mem, Memory)):
            self.err("expected a Memory subclass")
        return mem


class DimAnnotationA(ArgumentProcessor):
    def __call__(self, annotation, all_args):
        if annotation is not None and not isinstance(annotation, DimAnnotation):
            self.err(
                "expected a dimension annotation (a unit such as cuda_warp, or ring(D)) or None"
            )
        return annotation


class WithCursorA(StmtCursorA):
    def __call__(self, arg, all_args):
        cursor = super().__call__(arg, all_args)
        if not isinstance(cursor, PC.WithCursor):
            self.err("expected a WithCursor")
        return cursor


class SyncCursorA(StmtCursorA):
    def __call__(self, arg, all_args):
        cursor = super().__call__(arg, all_args)
        if not isinstance(cursor, PC.SyncCursor):
            self.err("expected a SyncCursor (Fence, Arrive or Await)")
        return cursor


class BarrierExprA(ArgumentProcessor):
    """Barrier elements as text (`"empty[k + 3]"`), parsed in the scope of
    the cursor argument `cursor_arg`; one string, or a list with `many`."""

    def __init__(self, cursor_arg, many=False):
        self.cursor_arg = cursor_arg
        self.many = many

    def __call__(self, arg, all_args):
        items = arg if self.many and isinstance(arg, (list, tuple)) else [arg]
        if self.many and not isinstance(arg, (list, tuple)):
            items = [arg]
        out = []
        for item in items:
            if not isinstance(item, str):
                self.err("expected barrier elements as strings, such as 'full[k]'")
            out.append(parse_new_expr(item, all_args[self.cursor_arg]))
        return out if self.many else out[0]


class ExtentA(ArgumentProcessor):
    """Extents: ints or expression strings, parsed in the scope of a gap."""

    def __init__(self, cursor_arg):
        self.cursor_arg = cursor_arg

    def __call__(self, shape, all_args):
        if not isinstance(shape, (list, tuple)):
            shape = [shape]
        return [parse_new_expr(e, all_args[self.cursor_arg]) for e in shape]


def _derive(provenance):
    return derived_procedure(provenance)


@sched_op([ForCursorA, LoopModeA])
def set_loop_mode(proc, loop, mode):
    """`for i in seq(lo, hi)` → `for i in mode(lo, hi)`: `seq`, `par`,
    `cuda_tasks` or `cuda_threads(unit=U)`; bounds unchanged."""
    return _derive(_core.set_loop_mode(proc._provenance, loop._impl, mode))


@sched_op([BlockCursorA, WithContextA])
def wrap_with(proc, block, ctx):
    """Wraps a block in `with ctx:` (read sequentially, `with` means its
    body)."""
    return _derive(_core.wrap_with(proc._provenance, block._impl, ctx))


@sched_op([WithCursorA])
def unwrap_with(proc, with_cursor):
    """Replaces `with ctx: body` by `body`."""
    return _derive(_core.unwrap_with(proc._provenance, with_cursor._impl))


@sched_op([GapCursorA, TimelineA, TimelineA])
def insert_fence(proc, gap, pre, post):
    """Inserts `Fence(pre, post)` at a gap."""
    return _derive(_core.insert_fence(proc._provenance, gap._impl, pre, post))


@sched_op([GapCursorA, TimelineA, BarrierExprA("gap", many=True)])
def insert_arrive(proc, gap, pre, targets):
    """Inserts `Arrive(pre) >> targets[0] >> ...`; targets are strings such
    as `"empty[k + 3]"`."""
    return _derive(_core.insert_arrive(proc._provenance, gap._impl, pre, targets))


@sched_op([GapCursorA, BarrierExprA("gap"), TimelineA])
def insert_await(proc, gap, target, post):
    """Inserts `Await(target, post)`."""
    return _derive(_core.insert_await(proc._provenance, gap._impl, target, post))


@sched_op([SyncCursorA])
def delete_sync(proc, stmt):
    """Removes a sync statement."""
    return _derive(_core.delete_sync(proc._provenance, stmt._impl))


@sched_op([CallCursorA, BarrierExprA("call", many=True)])
def set_trailing_barrier(proc, call, targets):
    """`f(args)` → `f(args) >> targets...` (an empty list removes them)."""
    return _derive(_core.set_trailing_barrier(proc._provenance, call._impl, targets))


@sched_op([GapCursorA, NameA, ExtentA("gap"), MemoryClassA])
def alloc_barrier(proc, gap, name, shape, memory):
    """Inserts `name: barrier[shape] @ memory` at a gap."""
    return _derive(
        _core.alloc_barrier(proc._provenance, gap._impl, name, shape, memory)
    )


@sched_op([AllocCursorA, IntA, DimAnnotationA])
def set_dim_annotation(proc, alloc, dim, annotation):
    """Sets the annotation of one dimension of an allocation (a unit for a
    distributed dimension, `ring(D)`, or None to remove it)."""
    return _derive(
        _core.set_dim_annotation(proc._provenance, alloc._impl, dim, annotation)
    )
