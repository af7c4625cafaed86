"""Register tiles: an output tile kept in vector registers across a
reduction loop (docs/stdlib.md).

Part of exo2.stdlib.stdlib, which re-exports the public names.
"""

from __future__ import annotations

from dataclasses import dataclass

from exo2.API_cursors import (
    AllocCursor,
    AssignCursor,
    CallCursor,
    InvalidCursor,
    InvalidCursorError,
    LiteralCursor,
    ReadCursor,
    ReduceCursor,
    StmtCursor,
    WindowExprCursor,
)
from exo2.stdlib.compute_staging import fma_rule
from exo2.stdlib.inspection import (
    CursorNavigationError,
    get_enclosing_loop_by_name,
    get_enclosing_stmt,
    get_symbols,
    is_loop_bounds_const,
    nlr,
    nlr_stmts,
)
from exo2.stdlib.rc_wrappers import stage_mem_
from exo2.stdlib.scheduling import (
    SchedulingError,
    divide_dim,
    set_memory,
    simplify,
    unroll_loop,
    user_op,
)
from exo2.stdlib.vector_forms import stmt_text
from exo2.stdlib.vectorization import (
    _check_all_replaced,
    _lane_loops,
    _left_on_vectors,
    _vector_stmts_before,
    vectorize,
)


@dataclass
class accumulate_in_registers_cursors:
    alloc: AllocCursor

    def __iter__(self):
        yield self.alloc


def _accesses(proc, region, name):
    """The statements and reads of `region` (statements) that access
    `name`."""
    found = []
    for stmt in region:
        for c in nlr(proc, stmt):
            if isinstance(c, (AssignCursor, ReduceCursor, ReadCursor)) and (
                c.name() == name and len(c.idx()) > 0
            ):
                found.append(c)
    return found


def _lane_loop_of(proc, access, name):
    """The loop whose iterator indexes the last dimension of `name` at
    `access`: the loop over the lanes."""
    iterators = [n for n in get_symbols(proc, access.idx()[-1]) if n != name]
    loops = []
    for iterator in iterators:
        try:
            loops.append(get_enclosing_loop_by_name(proc, access, iterator))
        except CursorNavigationError:
            pass  # a size or an index from outside
    if len(loops) != 1:
        stmt = (
            access
            if isinstance(access, StmtCursor)
            else get_enclosing_stmt(proc, access)
        )
        raise SchedulingError(
            f"accumulate_in_registers: the last dimension of the tile must be "
            f"indexed by one loop (its lanes), but {stmt_text(stmt)} indexes it "
            f"with {len(loops)}: keep the tile's last dimension for the loop "
            "that runs along it (for a sum over a loop, such as a dot product, "
            "use vectorize, which keeps partial sums in registers)"
        )
    return loops[0]


def _register_loops(proc, region, name):
    """The loops with constant bounds whose iterators index the registers
    of `name` (any dimension but the lanes) in the calls of `region`."""
    for stmt in region:
        for call in nlr_stmts(proc, stmt):
            if not isinstance(call, CallCursor):
                continue
            for arg in call.args():
                if not (isinstance(arg, WindowExprCursor) and arg.name() == name):
                    continue
                for iterator in get_symbols(proc, arg):
                    try:
                        loop = get_enclosing_loop_by_name(proc, call, iterator)
                    except CursorNavigationError:
                        continue
                    if is_loop_bounds_const(proc, loop):
                        return loop
    return None


def _scope_of(proc, alloc):
    """The statements of the block that declares `alloc`."""
    parent = proc.forward(alloc).parent()
    return list(proc.body() if isinstance(parent, InvalidCursor) else parent.body())


@user_op
def accumulate_in_registers(
    proc,
    block,
    tile,
    vec_width,
    precision,
    mem_type,
    instructions,
    rules=(fma_rule,),
    name="acc",
    unroll=True,
    rc=False,
):
    """Keeps `tile`, a window of an output (`C[6 * io:6 * io + 6, 16 * jo:
    16 * jo + 16]`), in `mem_type` vector registers across `block`, the code
    that accumulates into it (a reduction loop, or the loop nest that
    initialises and then reduces into the tile): `stage_mem` loads the tile
    into `name` before the block and stores it after; its last dimension,
    a constant multiple of `vec_width`, is divided into vectors
    (`divide_dim`) put in `mem_type`; every loop that runs along that
    dimension (the copies' and the block's) is moved inside the loops of
    its body, so that each of their steps updates the whole tile, and
    vectorized with `instructions` and `rules` (tail "perfect": it must
    provably divide);
    and with `unroll`, the loops over registers are unrolled, so that each
    register has a constant index. rc: `(alloc,)`."""
    block = proc.forward(block)
    before = _vector_stmts_before(proc, mem_type)
    proc, staged = stage_mem_(proc, block, tile, name, rc=True)
    proc = simplify(proc)  # extents such as `8 * jo + 8 - 8 * jo`
    alloc = proc.forward(staged.alloc)
    region = [staged.load_stage, *staged.block, staged.store_stage]
    region = [proc.forward(s) for s in region if not isinstance(s, InvalidCursor)]
    last = alloc.shape()[-1]
    if not (isinstance(last, LiteralCursor) and last.value() % vec_width == 0):
        raise SchedulingError(
            f"accumulate_in_registers: the tile {tile} must have a constant "
            f"last extent that is a multiple of vec_width = {vec_width}, so that "
            "it splits into whole vectors"
        )
    lanes = []
    for access in _accesses(proc, region, name):
        loop = _lane_loop_of(proc, access, name)
        if loop not in lanes:
            lanes.append(loop)
    proc = divide_dim(proc, alloc, len(alloc.shape()) - 1, vec_width)
    proc = set_memory(proc, alloc, mem_type)
    for loop in lanes:
        try:
            loop = proc.forward(loop)
        except InvalidCursorError:
            continue  # an earlier vectorize's replace_all already matched it
        # the whole lane loop moves inside inner loops (a conv's ky, kx), so
        # that each of their steps updates every register of the tile
        proc, copies = _lane_loops(proc, loop)
        for copy in copies:
            proc = vectorize(
                proc,
                copy,
                vec_width,
                precision,
                mem_type,
                instructions,
                rules,
                tail="perfect",
            )
    left = _left_on_vectors(proc, before, mem_type)
    _check_all_replaced(proc, left, mem_type, vec_width, "accumulate_in_registers")
    if unroll:
        while loop := _register_loops(proc, _scope_of(proc, alloc), name):
            proc = unroll_loop(proc, loop)
        proc = simplify(proc)
    if not rc:
        return proc
    return proc, accumulate_in_registers_cursors(proc.forward(alloc))
