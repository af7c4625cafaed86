"""Exo's scheduling module: every primitive, the argument processors that
library authors use with `sched_op`, and the combinators `repeat` and
`sched_seq` (docs/reference/primitives.md, docs/combinators.md)."""

from .errors import SchedulingError
from .primitives.arguments import (
    ArgOrAllocCursorA,
    BlockCursorA,
    BoolA,
    ProcA,
    is_atomic_scheduling_op,
    sched_op,
)
from .primitives.backend import *  # noqa: F403
from .primitives.backend import __all__ as _backend_ops
from .primitives.buffer_dims import *  # noqa: F403
from .primitives.buffer_dims import __all__ as _buffer_dims_ops
from .primitives.buffers import *  # noqa: F403
from .primitives.buffers import __all__ as _buffers_ops
from .primitives.composition import repeat, sched_seq
from .primitives.configs import *  # noqa: F403
from .primitives.configs import __all__ as _configs_ops
from .primitives.loops import (
    add_loop,
    cut_loop,
    divide_loop,
    divide_with_recompute,
    eliminate_dead_code,
    fission,
    fuse,
    join_loops,
    lift_scope,
    mult_loops,
    remove_loop,
    reorder_loops,
    shift_loop,
    simplify,
    specialize,
    unroll_loop,
    widen_loop,
)
from .primitives.new_expressions import FormattedExprStr
from .primitives.operation_stack import user_op
from .primitives.statements import *  # noqa: F403
from .primitives.statements import __all__ as _statement_ops
from .primitives.subprocs import *  # noqa: F403
from .primitives.subprocs import __all__ as _subprocs_ops
from .primitives.unification import *  # noqa: F403
from .primitives.unification import __all__ as _unification_ops

__all__ = [
    "FormattedExprStr",
    "SchedulingError",
    "ArgOrAllocCursorA",
    "BlockCursorA",
    "BoolA",
    "ProcA",
    "is_atomic_scheduling_op",
    "sched_op",
    "repeat",
    "sched_seq",
    "user_op",
    "add_loop",
    "cut_loop",
    "divide_loop",
    "divide_with_recompute",
    "eliminate_dead_code",
    "fission",
    "fuse",
    "join_loops",
    "lift_scope",
    "mult_loops",
    "remove_loop",
    "reorder_loops",
    "shift_loop",
    "simplify",
    "specialize",
    "unroll_loop",
    "widen_loop",
]
__all__ += _statement_ops
__all__ += _buffers_ops
__all__ += _buffer_dims_ops
__all__ += _unification_ops
__all__ += _subprocs_ops
__all__ += _configs_ops
__all__ += _backend_ops
