"""exo2.stdlib.rc_wrappers: primitives that also return the cursors of what
they made (docs/stdlib-inspection.md).

Each `op_(proc, ..., rc=False)` applies the primitive `op`; with `rc=True` it
returns `(proc, cursors)`, where `cursors` is a small dataclass (iterable,
so it unpacks) of cursors into the new procedure. Written against the public
API only, like all of exo2.stdlib.
"""

from dataclasses import dataclass

# Exo's exo.stdlib.rc_wrappers has no __all__: `import *` of it also gives what it
# imports (DRAM, AVX2, cursor classes, ...), which Exo programs rely on;
# so does this module (docs/migrating-from-exo.md).
from exo2 import *  # noqa: E402, F401, F403
from exo2.API_cursors import *  # noqa: E402, F401, F403
from exo2.API_cursors import (
    AllocCursor,
    BlockCursor,
    Cursor,
    ForCursor,
    IfCursor,
    InvalidCursor,
)
from exo2.core.internal_cursors import GapType
from exo2.frontend.syntax import *  # noqa: E402, F401, F403
from exo2.stdlib import scheduling
from exo2.stdlib.inspection import *  # noqa: E402, F401, F403
from exo2.stdlib.inspection import get_index_in_body, get_loop
from exo2.stdlib.scheduling import *  # noqa: E402, F401, F403
from exo2.stdlib.scheduling import (
    cut_loop,
    divide_loop,
    fission,
    specialize,
    user_op,
)


def _block(proc, stmts):
    """A block cursor of `proc`: a statement or block forwarded, or found by
    pattern."""
    found = proc.find(stmts) if isinstance(stmts, str) else proc.forward(stmts)
    return found.as_block()


@dataclass
class fission_cursors:
    scope1: ForCursor | IfCursor
    scope2: ForCursor | IfCursor

    def __iter__(self):
        yield self.scope1
        yield self.scope2


@user_op
def fission_(proc, gap, rc=False):
    """`fission` at `gap`; `scope1` / `scope2` are the loops (or ifs) holding
    the statements before / after the gap."""
    gap = proc.forward(gap)
    anchor, anchor_goes_first = gap.anchor(), gap.type() == GapType.After
    proc = fission(proc, gap)
    if not rc:
        return proc
    # the gap's anchor statement went to the copy on its side of the gap
    scope = proc.forward(anchor).parent()
    if anchor_goes_first:
        return proc, fission_cursors(scope, scope.next())
    return proc, fission_cursors(scope.prev(), scope)


@dataclass
class divide_loop_cursors:
    outer_loop: ForCursor
    inner_loop: ForCursor
    tail_loop: Cursor

    def __iter__(self):
        yield self.outer_loop
        yield self.inner_loop
        yield self.tail_loop


@user_op
def divide_loop_(proc, loop_cursor, div_const, tail="guard", rc=False):
    """`divide_loop` with iterators `<i>o` and `<i>i`; `tail="perfect"`
    means `perfect=True`. `tail_loop` is the statement after the outer loop
    (the tail loop for `cut`, its guard for `cut_and_guard`), InvalidCursor
    for `guard` and `perfect`."""
    loop_cursor = get_loop(proc, loop_cursor)
    perfect = tail == "perfect"
    iterator = loop_cursor.name()
    proc = divide_loop(
        proc,
        loop_cursor,
        div_const,
        (iterator + "o", iterator + "i"),
        tail="cut" if perfect else tail,
        perfect=perfect,
    )
    if not rc:
        return proc
    outer_loop = proc.forward(loop_cursor)
    tail_loop = InvalidCursor() if perfect or tail == "guard" else outer_loop.next()
    return proc, divide_loop_cursors(outer_loop, outer_loop.body()[0], tail_loop)


@dataclass
class stage_mem_cursors:
    alloc: AllocCursor
    load_stage: Cursor
    block: BlockCursor
    store_stage: Cursor

    def __iter__(self):
        yield self.alloc
        yield self.load_stage
        yield self.block
        yield self.store_stage


@user_op
def stage_mem_(proc, block, buff, new_buff_name, accum=False, rc=False):
    """`stage_mem` of the window `buff` over `block` (a block or one
    statement). `load_stage` / `store_stage` are the load and store nests,
    InvalidCursor where `stage_mem` made none (nothing read / written)."""
    block = _block(proc, block)
    first, last = block[0], block[-1]
    above = get_index_in_body(proc, first)
    below = get_index_in_body(proc, last, from_top=False)
    # looked up when called: the primitive joins exo2.stdlib.scheduling late
    proc = scheduling.stage_mem(proc, block, buff, new_buff_name, accum)
    if not rc:
        return proc
    # stage_mem puts the allocation and the load nest (if any) just above
    # the block and the store nest (if any) just below it
    first, last = proc.forward(first), proc.forward(last)
    inserted_above = get_index_in_body(proc, first) - above
    inserted_below = below - get_index_in_body(proc, last, from_top=False)
    alloc = first.prev(inserted_above)
    load_stage = first.prev() if inserted_above == 2 else InvalidCursor()
    store_stage = last.next() if inserted_below else InvalidCursor()
    new_block = first.expand(0, len(block) - 1)
    return proc, stage_mem_cursors(alloc, load_stage, new_block, store_stage)


@dataclass
class cut_loop_cursors:
    loop1: ForCursor
    loop2: ForCursor

    def __iter__(self):
        yield self.loop1
        yield self.loop2


@user_op
def cut_loop_(proc, loop, expr, rc=False):
    """`cut_loop` at `expr`; `loop1` / `loop2` run before / after the cut."""
    loop = get_loop(proc, loop)
    proc = cut_loop(proc, loop, expr)
    if not rc:
        return proc
    loop1 = proc.forward(loop)
    return proc, cut_loop_cursors(loop1, loop1.next())


@dataclass
class specialize_cursors:
    if_stmt: IfCursor

    def __iter__(self):
        yield self.if_stmt


@user_op
def specialize_(proc, stmt, cond, rc=False):
    """`specialize` of `stmt` (a statement or a block) on `cond` (one
    condition or a list); `if_stmt` is the new if."""
    block = _block(proc, stmt)
    proc = specialize(proc, block, cond)
    if not rc:
        return proc
    # a block equal to the specialized one forwards to the new if
    return proc, specialize_cursors(proc.forward(block)[0])
