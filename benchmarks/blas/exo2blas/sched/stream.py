"""`stream`: the level-1 automation. One innermost loop over contiguous
vectors becomes a vector loop of the machine's width with a masked last
iteration, `interleave` vectors side by side (reductions get that many
partial sums), every statement an instruction of the machine's table."""

from __future__ import annotations

from exo2.API_scheduling import user_op
from exo2.stdlib.stdlib import abs_rule, fma_rule, interleave_loop, vectorize


@user_op
def stream(proc, loop, m, prec, interleave=None, tail="cut_and_predicate"):
    """Vectorizes `loop` (a cursor or its iterator's name) for machine `m`
    in precision `prec` ("f32"/"f64"): fused multiply-adds and absolute
    values staged by `fma_rule` and `abs_rule`, a predicated tail, then
    `interleave` (default `m.interleave`) vector iterations interleaved with
    privatized reductions."""
    if isinstance(loop, str):
        loop = proc.find_loop(loop)
    proc, (vector_loop,) = vectorize(
        proc,
        loop,
        m.lanes[prec],
        prec,
        m.memory,
        m.instructions(prec),
        [fma_rule, abs_rule],
        tail=tail,
        rc=True,
    )
    factor = m.interleave if interleave is None else interleave
    return interleave_loop(proc, vector_loop, factor, par_reduce=True, memory=m.memory)


def streamed(loop="i", **options):
    """The schedule `kernel(..., schedule=streamed())` names: `stream` of
    `loop` with the variant's machine and precision."""

    def schedule(proc, v):
        return stream(proc, loop, v.machine, v.prec, **options)

    return schedule
