"""What the level-2 automations (`rows`, `columns`, `triangle`, `band`,
`skinny`) share: a loop shifted to start at 0, and vectorizing a loop with
the part of the machine's instruction table level-2 code uses (`vectorize` tries every
instruction on every statement of the proc, so a shorter table schedules
faster)."""

from __future__ import annotations

from exo2.API_scheduling import shift_loop
from exo2.stdlib.inspection import is_literal
from exo2.stdlib.stdlib import (
    abs_rule,
    fma_rule,
    vectorize,
    vectorize_predicate_head,
)

from ..machines.instructions import constant, suffix_instructions

# loads and stores, scalars into vectors, arithmetic, register copies, a
# dot product's sum into a scalar or an array element
OPS = (
    "load", "store", "zero", "broadcast", "broadcast_element", "add", "sub",
    "mul", "fma", "addmul", "muladd", "negate", "copy", "hsum", "hsum_element",
)  # fmt: skip


def from_zero(proc, loop):
    """`loop` shifted to start at 0 where it does not (`vectorize` divides
    a loop from 0)."""
    loop = proc.forward(loop)  # the caller's cursor may predate `proc`
    return proc if is_literal(proc, loop.lo(), 0) else shift_loop(proc, loop, 0)


def vectorize_loop(proc, loop, m, prec, tail):
    """`vectorize` of `loop` for machine `m` in precision `prec` with the
    level-2 operations (and zero set into the lanes of a masked vector:
    skinny's sums); returns `(proc, vector_loop)`. `tail="head"`: whole
    vectors aligned to the loop's end, after one masked vector over its
    first 1 to L elements that ends where they begin
    (`vectorize_predicate_head`, with the instructions masked over the last
    lanes): with a row that ends on a vector boundary (the upper
    triangle's, of a length a multiple of the vector) every whole vector of
    every row is aligned, and none crosses the masked one."""
    table = m.instructions(prec, OPS) + constant(m.name, prec, 0.0)
    if tail == "head":
        proc, (vector_loop,) = vectorize_predicate_head(
            proc, loop, m.lanes[prec], prec, m.memory,
            table + suffix_instructions(m.name, prec), (fma_rule, abs_rule),
            rc=True,
        )  # fmt: skip
        return proc, vector_loop
    proc, (vector_loop,) = vectorize(
        proc, loop, m.lanes[prec], prec, m.memory, table, (fma_rule, abs_rule),
        tail=tail, rc=True,
    )  # fmt: skip
    return proc, vector_loop


def vectorize_update(proc, loop, m, prec):
    """Vectorizes `loop`, an update in place (of a row of a matrix, or of
    y along a band), shifted to start at 0: whole vectors, then a vector of
    the machine's `narrower` machine where it has one, then scalars; no
    masked vector. A masked store spans a whole vector whatever its mask,
    and a later load that lies within that span waits until the store
    leaves the core: where rows lie less than a vector apart (a tight
    leading dimension) every row paid it (sger of 40 rows of 1 to 15
    elements, AVX-512 on the AMD EPYC Zen 4 machine: 320 ns with a masked
    last vector, 50 to 118 ns without).
    Returns `(proc, [(vector_loop, machine)])`: each vector loop and the
    machine of its instructions."""
    proc, vector_loop = vectorize_loop(from_zero(proc, loop), loop, m, prec, "cut")
    loops = [(vector_loop, m)]
    if m.narrower is not None:
        rest = proc.forward(vector_loop).next()
        proc, narrow_loop = vectorize_loop(proc, rest, m.narrower, prec, "cut")
        loops.append((narrow_loop, m.narrower))
    return proc, loops
