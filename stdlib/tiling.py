"""Tiling loop nests (docs/stdlib.md).

Part of exo2.stdlib.stdlib, which re-exports the public names.
"""

from __future__ import annotations

from exo2.API_cursors import (
    ForCursor,
    IfCursor,
    LiteralCursor,
)
from exo2.stdlib.interleaving import interleave_outer_loop_with_inner_loop
from exo2.stdlib.rc_wrappers import divide_loop_
from exo2.stdlib.scheduling import (
    SchedulingError,
    divide_loop,
    fission,
    lift_scope,
    reorder_loops,
    user_op,
)


@user_op
def tile_loops(proc, loop_tile_pairs, perfect=False):
    """Tiles a perfect loop nest given `[(loop, size), ...]`, outermost
    first: divides each loop (perfectly when `perfect` or when its constant
    trip count allows, else with a `cut` tail) and reorders so that all
    tile loops are outside all point loops. Returns `(proc, inner_loops)`,
    the point loops."""
    loop_tile_pairs = [(proc.forward(loop), size) for loop, size in loop_tile_pairs]
    inner_loops = []
    for loop, size in loop_tile_pairs:
        loop = proc.forward(loop)
        names = (loop.name() + "o", loop.name() + "i")
        if perfect or (
            isinstance(loop.hi(), LiteralCursor)
            and isinstance(loop.lo(), LiteralCursor)
            and (loop.hi().value() - loop.lo().value()) % size == 0
        ):
            proc = divide_loop(proc, loop, size, names, perfect=True)
        else:
            proc = divide_loop(proc, loop, size, names, tail="cut")
        inner_loops.append(proc.forward(loop).body()[0])

    for i in range(len(loop_tile_pairs) - 2, -1, -1):
        size = loop_tile_pairs[i][1]
        for j in range(i + 1, len(loop_tile_pairs)):
            proc = interleave_outer_loop_with_inner_loop(
                proc, inner_loops[i], loop_tile_pairs[j][0], size, (False, False, False)
            )
    return proc, [proc.forward(loop) for loop in inner_loops]


def _scope_depth(cursor):
    if not isinstance(cursor, (ForCursor, IfCursor)):
        return 0
    return max(_scope_depth(s) for s in cursor.body()) + 1


def _push_loop_in(proc, loop, depth):
    """Fissions `loop` and moves each piece inwards (`reorder_loops` past a
    loop, `lift_scope` of an if) until it has `depth` scopes inside."""
    loop = proc.forward(loop)
    if _scope_depth(loop) == depth:
        return proc
    count = len(loop.body())
    for stmt in list(loop.body())[:-1]:
        proc = fission(proc, stmt.after())
    loop = proc.forward(loop)
    pieces = []
    for _ in range(count):
        pieces.append(loop)
        loop = loop.next()
    for piece in pieces:
        piece = proc.forward(piece)
        if _scope_depth(piece) == depth:
            continue
        child = piece.body()[0]
        if isinstance(child, ForCursor):
            proc = reorder_loops(proc, piece)
            moved = proc.forward(piece)
        elif isinstance(child, IfCursor):
            proc = lift_scope(proc, child)
            moved = proc.forward(child).body()[0]
        else:
            raise SchedulingError("cannot push a loop into a statement")
        proc = _push_loop_in(proc, moved, depth)
    return proc


@user_op
def tile_loops_bottom_up(proc, loop, tiles):
    """Tiles the perfect nest starting at `loop` with `tiles`, the tile
    sizes from the outermost loop to the innermost (`None`: untiled),
    dividing with `cut_and_guard` tails, innermost loop first."""
    loop = proc.forward(loop)
    cur_loop = loop
    for _ in tiles[:-1]:
        if len(cur_loop.body()) != 1:
            raise SchedulingError("All loop must have a body length of 1")
        if not isinstance(cur_loop.body()[0], ForCursor):
            raise SchedulingError("Did not find a nested loop")
        cur_loop = cur_loop.body()[0]

    loops = []
    cur_loop = loop
    for tile in tiles:
        loops.append((cur_loop, tile))
        cur_loop = cur_loop.body()[0]

    for depth, (cur_loop, tile) in enumerate(loops[::-1]):
        if tile is not None:
            proc, (_, inner, tail) = divide_loop_(
                proc, cur_loop, tile, tail="cut_and_guard", rc=True
            )
            proc = _push_loop_in(proc, inner, depth + 1)
            proc = _push_loop_in(proc, proc.forward(tail).body()[0], depth + 1)
        else:
            proc = _push_loop_in(proc, cur_loop, depth + 1)
    return proc
