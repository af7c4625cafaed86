"""exo2.stdlib.stdlib: high-level scheduling operations (docs/stdlib.md).

Every function here is a composition of primitives, written against the
public API only: it is exactly as safe as the primitives it calls, and a
failure inside names the function (`user_op`) and the primitive underneath.
Functions take the procedure first and return the new one; cursor arguments
may come from an ancestor procedure. With `rc=True` a function returns
`(proc, cursors)`, where `cursors` is a small dataclass that unpacks.

Ported from Exo's exo.stdlib.stdlib (MIT); the differences are noted where
they occur.

The operations live in modules by concern (binding, loop_bounds, cleanup,
statement_motion, staging, aliasing, reductions, interleaving, tiling,
compute_staging, instruction_selection, vectorization, register_tiles); this
module re-exports them, with everything Exo's module gives to `import *`.
"""

# Nothing here is used: every import is a re-export (see __all__ below).
# ruff: noqa: F401

from __future__ import annotations

import functools
from dataclasses import dataclass

# Exo's exo.stdlib.stdlib has no __all__: `import *` of it also gives what it
# imports (the primitives, cursor classes, inspection functions, combinators,
# rc wrappers, DRAM, ...), which Exo programs rely on
# (docs/migrating-from-exo.md); __all__ below lists those names too.
from exo2 import *  # noqa: E402, F401, F403
from exo2.API_cursors import (
    AllocCursor,
    AssignConfigCursor,
    AssignCursor,
    BlockCursor,
    CallCursor,
    ExprCursor,
    ForCursor,
    IfCursor,
    InvalidCursor,
    InvalidCursorError,
    LiteralCursor,
    PassCursor,
    ReadCursor,
    ReduceCursor,
    StmtCursor,
    WindowExprCursor,
    WindowStmtCursor,
)
from exo2.core.memory import Memory
from exo2.frontend.syntax import *  # noqa: E402, F401, F403
from exo2.libs.memories import DRAM
from exo2.rewrite.LoopIR_unification import UnificationError
from exo2.stdlib.aliasing import cse, dealias, dealiasing_pass, inline_copies
from exo2.stdlib.binding import (
    bind_and_set_expr,
    bind_and_set_expr_cursors,
    parallelize_allocs,
    parallelize_and_lift_alloc,
)
from exo2.stdlib.cleanup import cleanup, dce, unroll_buffers, unroll_loops
from exo2.stdlib.compute_staging import (
    abs_rule,
    fma_rule,
    max_rule,
    stage_compute,
    stage_expr_into_memory,
)
from exo2.stdlib.higher_order import *  # noqa: E402, F401, F403
from exo2.stdlib.higher_order import (
    apply,
    attempt,
    lift_rc,
    make_pass,
    predicate,
    repeate,
)
from exo2.stdlib.inspection import *  # noqa: E402, F401, F403
from exo2.stdlib.inspection import (
    CursorNavigationError,
    are_exprs_equal,
    expr_to_string,
    get_bounding_block,
    get_children,
    get_declaration,
    get_distance,
    get_enclosing_loop,
    get_enclosing_loop_by_name,
    get_enclosing_stmt,
    get_parents,
    get_symbols,
    get_unique_names,
    is_access,
    is_add,
    is_assign,
    is_binop,
    is_copy,
    is_end_of_body,
    is_literal,
    is_loop,
    is_loop_bounds_const,
    is_mul,
    is_read,
    is_reduce,
    is_select,
    is_stmt,
    is_sub,
    is_unary_minus,
    lrn,
    lrn_stmts,
    nlr,
    nlr_stmts,
)
from exo2.stdlib.instruction_selection import (
    check_call_site,
    checked_replace,
    inline_instr,
    inline_instr_cursors,
    replace_all_stmts,
    replace_cursors,
)
from exo2.stdlib.interleaving import (
    interleave_loop,
    interleave_outer_loop_with_inner_loop,
    unroll_and_jam,
    unroll_and_jam_parent,
)
from exo2.stdlib.loop_bounds import (
    binary_specialize,
    binary_specialize_cursors,
    bound_loop_by_if,
    clip_loop_to_guard,
    cut_loop_and_unroll,
    cut_loop_and_unroll_cursors,
    divide_loop_recursive,
    divide_loop_recursive_cursors,
    round_loop,
    undo_divide_and_guard_loop,
)
from exo2.stdlib.rc_wrappers import *  # noqa: E402, F401, F403
from exo2.stdlib.rc_wrappers import (
    cut_loop_,
    divide_loop_,
    fission_,
    specialize_,
    stage_mem_,
    stage_mem_cursors,
)
from exo2.stdlib.reductions import parallelize_all_reductions, parallelize_reduction
from exo2.stdlib.register_tiles import (
    accumulate_in_registers,
    accumulate_in_registers_cursors,
)
from exo2.stdlib.scheduling import *  # noqa: E402, F401, F403
from exo2.stdlib.scheduling import (
    FormattedExprStr,
    SchedulingError,
    add_loop,
    bind_expr,
    cut_loop,
    delete_buffer,
    delete_pass,
    divide_dim,
    divide_loop,
    eliminate_dead_code,
    expand_dim,
    fission,
    fold_into_reduce,
    fuse,
    inline_assign,
    lift_alloc,
    lift_scope,
    merge_writes,
    mult_loops,
    rearrange_dim,
    remove_loop,
    reorder_loops,
    reorder_stmts,
    replace,
    rewrite_expr,
    set_memory,
    set_precision,
    shift_loop,
    simplify,
    stage_mem,
    unroll_buffer,
    unroll_loop,
    user_op,
)
from exo2.stdlib.staging import (
    auto_stage_mem,
    ordered_stage_expr,
    pack_mem,
    unfold_reduce,
)
from exo2.stdlib.statement_motion import (
    fission_into_singles,
    hoist_from_loop,
    hoist_from_loop_cursors,
    hoist_stmt,
    hoist_stmt_cursors,
    jam_stmt,
    jam_stmt_cursors,
    move_to_top,
    move_to_top_cursors,
    reorder_stmt_backwards,
    reorder_stmt_forward,
)
from exo2.stdlib.tiling import tile_loops, tile_loops_bottom_up
from exo2.stdlib.vector_forms import (
    describe_vector_stmt,
    stmt_text,
    unmatched_vector_stmts,
)
from exo2.stdlib.vectorization import (
    vectorize,
    vectorize_cursors,
    vectorize_predicate_head,
    vectorize_predicate_tail,
)

_OWN_NAMES = [
    "replace_cursors",
    "bind_and_set_expr",
    "bind_and_set_expr_cursors",
    "parallelize_and_lift_alloc",
    "parallelize_allocs",
    "interleave_loop",
    "hoist_stmt",
    "move_to_top",
    "move_to_top_cursors",
    "hoist_stmt_cursors",
    "hoist_from_loop",
    "hoist_from_loop_cursors",
    "jam_stmt",
    "jam_stmt_cursors",
    "parallelize_reduction",
    "parallelize_all_reductions",
    "unroll_and_jam",
    "unroll_and_jam_parent",
    "interleave_outer_loop_with_inner_loop",
    "fission_into_singles",
    "vectorize",
    "vectorize_predicate_tail",
    "vectorize_cursors",
    "vectorize_predicate_head",
    "accumulate_in_registers",
    "accumulate_in_registers_cursors",
    "tile_loops",
    "tile_loops_bottom_up",
    "auto_stage_mem",
    "ordered_stage_expr",
    "pack_mem",
    "dce",
    "unroll_buffers",
    "unfold_reduce",
    "fma_rule",
    "abs_rule",
    "max_rule",
    "stage_expr_into_memory",
    "stage_compute",
    "check_call_site",
    "checked_replace",
    "inline_instr",
    "inline_instr_cursors",
    "replace_all_stmts",
    "bound_loop_by_if",
    "clip_loop_to_guard",
    "undo_divide_and_guard_loop",
    "unroll_loops",
    "cleanup",
    "reorder_stmt_forward",
    "reorder_stmt_backwards",
    "divide_loop_recursive",
    "divide_loop_recursive_cursors",
    "binary_specialize",
    "binary_specialize_cursors",
    "cse",
    "inline_copies",
    "dealias",
    "dealiasing_pass",
    "round_loop",
    "cut_loop_and_unroll",
    "cut_loop_and_unroll_cursors",
]


__all__ = _OWN_NAMES + sorted(
    name for name in set(globals()) - set(_OWN_NAMES) if not name.startswith("_")
)
