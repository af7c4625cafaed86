"""exo2.stdlib.cuda: scheduling CUDA kernels (docs/cuda.md, "From a
sequential kernel" and "TMA and wgmma from a sequential tile algorithm").

Written on the public API only: the primitives, the GPU primitives of
`exo2.platforms.cuda`, and cursors. Every function is a `user_op`, takes
cursors of ancestor procedures, and with `rc=True` returns `(proc, cursors)`.
What these functions produce is checked like anything else: the primitives
prove the sequential meaning unchanged, and `check_parallel` (run by
`compile_cuda` and the JIT) proves the parallel execution right.
"""

from __future__ import annotations

from dataclasses import dataclass

from exo2.API_cursors import (
    AssignCursor,
    BinaryOpCursor,
    ForCursor,
    IfCursor,
    LiteralCursor,
    ReadCursor,
    ReduceCursor,
    WindowStmtCursor,
    WithCursor,
)
from exo2.API_scheduling import (
    SchedulingError,
    call_eqv,
    cut_loop,
    divide_loop,
    eliminate_dead_code,
    fuse,
    inline,
    inline_window,
    lift_scope,
    reorder_loops,
    reorder_stmts,
    replace,
    set_memory,
    simplify,
    specialize,
    stage_mem,
    unroll_loop,
    user_op,
)
from exo2.core.extensions import seq
from exo2.platforms.cuda import (
    CUDA_GMEM,
    CUDA_MBARRIER,
    CUDA_SMEM,
    CUDA_SMEM_SWIZZLED,
    CUDA_WGMMA_GROUP,
    CudaDeviceFunction,
    CudaWarps,
    alloc_barrier,
    bind_window,
    cuda_async_proxy,
    cuda_in_order,
    cuda_tasks,
    cuda_thread,
    cuda_threads,
    insert_arrive,
    insert_await,
    insert_fence,
    ring,
    set_dim_annotation,
    set_loop_mode,
    set_trailing_barrier,
    wgmma,
    wgmma_operands,
    wrap_with,
)
from exo2.platforms.cuda.sm90 import (
    CUDA_WGMMA_ACCUM,
    TMA_LOADS,
    WGMMA_SS,
    CudaTensorMap,
)
from exo2.rewrite.LoopIR_unification import UnificationError
from exo2.stdlib.inspection import expr_to_string, get_loop

__all__ = ["to_kernel", "to_threads", "stage_smem", "use_tma", "use_wgmma"]


@dataclass
class to_kernel_cursors:
    kernel: object  # the `with CudaDeviceFunction(...)` statement
    tasks: list  # the cuda_tasks loops, outermost first
    inner: list  # the loops over each tile, outermost first

    def __iter__(self):
        yield self.kernel
        yield self.tasks
        yield self.inner


def _loop_name(loop):
    return loop.name()


@user_op
def to_kernel(proc, loops, tiles, config, rc=False):
    """Makes a kernel of a perfect nest of loops: each loop is divided by
    its tile (`tail="guard"` for sizes that are not multiples), the outer
    parts become a nest of `cuda_tasks` loops (one task per tile) and the
    nest is wrapped in `with config:` (a `CudaDeviceFunction`). The loops
    over one tile stay `seq`; map them to threads with `to_threads`.

    `loops` are one or two nested loops, outermost first; rc: the `with`
    statement, the task loops and the loops over a tile."""
    if isinstance(loops, ForCursor) or isinstance(loops, str):
        loops = [loops]
    loops = list(loops)
    tiles = list(tiles) if isinstance(tiles, (list, tuple)) else [tiles]
    if not 1 <= len(loops) <= 2 or len(tiles) != len(loops):
        raise ValueError("to_kernel: give one or two loops and one tile per loop")
    names = [get_loop(proc, loop).name() for loop in loops]
    # Innermost first, so that the outer cursor stays the nest's root.
    for name, tile in reversed(list(zip(names, tiles, strict=True))):
        proc = divide_loop(
            proc, proc.find_loop(name), tile, [f"{name}o", f"{name}i"], tail="guard"
        )
    if len(names) == 2:
        inner_outer = proc.find_loop(f"{names[1]}o")
        proc = lift_scope(proc, inner_outer)
        proc = reorder_loops(proc, proc.find_loop(f"{names[0]}i"))
    tasks = [proc.find_loop(f"{name}o") for name in names]
    for task in tasks:
        proc = set_loop_mode(proc, task, cuda_tasks)
    proc = wrap_with(proc, proc.forward(tasks[0]), config)
    if not rc:
        return proc
    tasks = [proc.forward(t) for t in tasks]
    kernel = tasks[0].parent()
    inner = [proc.find_loop(f"{name}i") for name in names]
    return proc, to_kernel_cursors(kernel, tasks, inner)


@user_op
def to_threads(proc, loop, unit=cuda_thread):
    """Runs the iterations of a loop with literal bounds on consecutive
    pieces of `unit` threads (`cuda_threads(lo, hi, unit=unit)`)."""
    return set_loop_mode(proc, get_loop(proc, loop), cuda_threads(unit=unit))


@user_op
def stage_smem(proc, block, window, name, memory=CUDA_SMEM):
    """Stages `window` (`"x[16 * t : 16 * t + 16]"`) through a new buffer
    `name` in shared memory around `block` (`stage_mem`, then the memory).
    The load nest it adds runs on the block's collective: map it to threads
    (`to_threads`) and order it before the block's reads with a
    `Fence(cuda_in_order, cuda_in_order)`; `check_parallel` says when a
    fence is missing."""
    proc = stage_mem(proc, block, window, name)
    # Shared memory has literal extents: `32 * io + 33 - (32 * io + 1)`
    # becomes 32.
    proc = simplify(proc)
    return set_memory(proc, name, memory)


# ---- TMA loads ----------------------------------------------------------------


@dataclass
class use_tma_cursors:
    loads: list  # the TMA instruction calls, in order
    warps: object  # the `with CudaWarps(0, 1):` around them
    wait: object  # the `Await(full[k], cuda_async_proxy)` after it
    barrier: object  # the mbarrier allocation

    def __iter__(self):
        yield self.loads
        yield self.warps
        yield self.wait
        yield self.barrier


def _precision(decl):
    return decl.type().name.lower()


def _literal(expr):
    return expr.value() if isinstance(expr, LiteralCursor) else None


def _copy_nest(proc, load):
    """`for i in seq(0, R): for j in seq(0, C): dst[i, j] = src[e0, e1]`:
    (inner loop, copy statement, R, C), or a SchedulingError."""
    shape = (
        "use_tma: expected a copy nest `for i in seq(0, R): for j in seq(0, C): "
        "dst[i, j] = src[r + i, c + j]`"
    )
    if not isinstance(load, ForCursor) or len(load.body()) != 1:
        raise SchedulingError(shape)
    inner = load.body()[0]
    if not isinstance(inner, ForCursor) or len(inner.body()) != 1:
        raise SchedulingError(shape)
    copy = inner.body()[0]
    if not isinstance(copy, AssignCursor) or not isinstance(copy.rhs(), ReadCursor):
        raise SchedulingError(shape)
    rows, cols = _literal(load.hi()), _literal(inner.hi())
    if _literal(load.lo()) != 0 or _literal(inner.lo()) != 0 or None in (rows, cols):
        raise SchedulingError(f"{shape}, with literal loop bounds")
    if len(copy.idx()) != 2 or len(copy.rhs().idx()) != 2:
        raise SchedulingError(f"{shape}: two-dimensional tiles only")
    dst_idx = [e.name() if isinstance(e, ReadCursor) else None for e in copy.idx()]
    if dst_idx != [load.name(), inner.name()]:
        raise SchedulingError(
            f"use_tma: the copy nest must write {copy.name()}[{load.name()}, "
            f"{inner.name()}]: a TMA load fills the whole destination tile"
        )
    return inner, copy, rows, cols


@dataclass
class _TmaLoad:
    instr: object  # the TMA load instruction
    dst: object  # the destination tile's allocation
    src: object  # the source tensor's parameter or allocation
    box: tuple  # (rows, cols)
    swizzle: int


def _declaration(proc, name):
    """The parameter or allocation `name`, or None."""
    try:
        return proc.find_alloc_or_arg(name)
    except SchedulingError:
        return None


def _is_memory(mem, kind):
    return isinstance(mem, type) and issubclass(mem, kind)


def _tma_load(proc, load):
    """The TMA load a copy nest becomes, after checking its shape, memories
    and precisions."""
    _, copy, rows, cols = _copy_nest(proc, load)
    dst = proc.find_alloc_or_arg(copy.name())
    src_name = copy.rhs().name()
    src = _declaration(proc, src_name)
    if src is None:
        raise SchedulingError(
            f"use_tma: the copy reads {src_name}, which is not a parameter or an "
            "allocation (a window?); a TMA load reads a CUDA_GMEM tensor directly"
        )
    mem = dst.mem()
    if not _is_memory(mem, CUDA_SMEM_SWIZZLED):
        raise SchedulingError(
            f"use_tma: the destination {dst.name()} is in {mem.name()}, but a TMA "
            "load writes swizzled shared memory: set_memory(p, "
            f'"{dst.name()}", CUDA_SMEM_SWIZZLED(128)) first'
        )
    if not _is_memory(src.mem(), CUDA_GMEM):
        raise SchedulingError(
            f"use_tma: the source {src_name} is in {src.mem().name()}, but a TMA "
            "load reads global memory (CUDA_GMEM)"
        )
    precision, src_precision = _precision(dst), _precision(src)
    if precision != src_precision:
        raise SchedulingError(
            f"use_tma: the copy converts {src_name} ({src_precision}) to "
            f"{dst.name()} ({precision}); a TMA load copies bits unchanged"
        )
    if [_literal(e) for e in dst.shape()] != [rows, cols]:
        raise SchedulingError(
            f"use_tma: the copy nest writes a {rows} x {cols} part of "
            f"{dst.name()}; a TMA load writes the whole destination tile"
        )
    swizzle = mem.backend_properties()["swizzle"]
    instr = TMA_LOADS.get((precision, (rows, cols), swizzle))
    if instr is None:
        provided = "; ".join(
            f"{p} {r} x {c} in the {s}-byte swizzle" for p, (r, c), s in TMA_LOADS
        )
        raise SchedulingError(
            f"use_tma: no TMA load for a {rows} x {cols} box of {precision} in "
            f"the {swizzle}-byte swizzle; the instructions provided load {provided}"
        )
    return _TmaLoad(instr, dst, src, (rows, cols), swizzle)


# Per TMA instruction, two procedures recorded equivalent to each other:
# its body under the precondition that the box lies inside the tensor
# (`in_bounds`), and that body with the guard's else branch also copying
# (`unguarded`: what a plain copy nest becomes with `specialize`).
_IN_BOUNDS_COPIES = {}


def _in_bounds_copies(instr, rows, cols):
    key = instr.name()
    if key not in _IN_BOUNDS_COPIES:
        M, K, _, _, r, c = (a.name() for a in instr.args())
        in_bounds = instr.add_assertion(
            f"0 <= {r} and {r} + {rows} <= {M} and 0 <= {c} and {c} + {cols} <= {K}"
        )
        guard = in_bounds.find("if _: _")
        cond = expr_to_string(guard.cond())
        unguarded = eliminate_dead_code(in_bounds, guard)
        copy = unguarded.body()[0].body()[0].body()[0]
        unguarded = specialize(unguarded, copy, [cond])
        _IN_BOUNDS_COPIES[key] = (in_bounds, unguarded)
    return _IN_BOUNDS_COPIES[key]


def _kernel_of(stmt):
    cursor = stmt.parent()
    while isinstance(cursor, (ForCursor, WithCursor, IfCursor)):
        if isinstance(cursor, WithCursor) and isinstance(
            cursor.ctx(), CudaDeviceFunction
        ):
            return cursor
        cursor = cursor.parent()
    raise SchedulingError("use_tma: the copy nest is not inside a CudaDeviceFunction")


@user_op
def use_tma(proc, loads, barrier="full", rc=False):
    """Turns copy nests `for i: for j: dst[i, j] = src[r + i, c + j]` from
    global into swizzled shared memory, consecutive statements of a loop
    over k-steps, into TMA loads signalling one mbarrier per iteration:

        A_tm = A[0:M, 0:K] @ CudaTensorMap(swizzle=128, box=(64, 64))  # host
        ...
        with CudaWarps(lo=0, hi=1):
            tma_load_bf16_64x64(M, K, sA[0:64, 0:64], A_tm[0:M, 0:K], 64 * m,
                                64 * k) >> full[k]
        Await(full[k], cuda_async_proxy)

    The instruction is chosen by the tile's precision, shape and swizzle
    (`exo2.platforms.cuda.sm90.TMA_LOADS`); the tensor map covers the whole
    source (`bind_window` on the kernel); the mbarrier `barrier`, one
    element per k-step in a ring of one slot, is allocated after the last
    destination tile. A TMA load fills zeros outside the tensor, a copy nest
    does not: the copy must be proven inside the tensor (`replace` proves
    it while swapping the nest for the instruction through its in-bounds
    form). rc: the calls, the `with`, the `Await` and the barrier."""
    loads = [loads] if not isinstance(loads, (list, tuple)) else list(loads)
    if not loads:
        raise SchedulingError("use_tma: no copy nest given")
    loads = [proc.forward(load) for load in loads]
    loop = loads[0].parent()
    if not isinstance(loop, ForCursor) or loop.mode() is not seq:
        raise SchedulingError(
            "use_tma: the copy nests must be in a seq loop over k-steps"
        )
    if _literal(loop.lo()) != 0:
        raise SchedulingError(
            f"use_tma: the loop {loop.name()} must start at 0 (barrier indices are "
            "its iterations)"
        )
    for a, b in zip(loads, loads[1:], strict=False):
        if a.next() != b:
            raise SchedulingError(
                "use_tma: the copy nests must be consecutive statements"
            )
    found = [_tma_load(proc, load) for load in loads]
    for dst in (f.dst for f in found):
        if loop.is_ancestor_of(dst):
            raise SchedulingError(
                f"use_tma: {dst.name()} is allocated inside the loop "
                f"{loop.name()}; allocate it before the loop (lift_alloc)"
            )
    kernel = _kernel_of(loop)
    first = _index_in(loop, loads[0])

    # The tensor maps, one per source tensor, in host code.
    bound = {}
    for f in found:
        name = f.src.name()
        if name not in bound:
            proc = bind_window(
                proc,
                proc.forward(kernel),
                name,
                f"{name}_tm",
                CudaTensorMap(swizzle=f.swizzle, box=f.box),
            )
        elif bound[name] != (f.box, f.swizzle):
            raise SchedulingError(
                f"use_tma: {name} is loaded in boxes of two shapes; one tensor map "
                "per tensor for now"
            )
        bound[name] = (f.box, f.swizzle)

    # Each nest: into its in-bounds form (proving the box inside the
    # tensor), then the instruction's own body, then the instruction.
    for n, f in enumerate(found):
        in_bounds, unguarded = _in_bounds_copies(f.instr, *f.box)
        at = first + n
        nest = proc.forward(loop).body()[at]
        copy = nest.body()[0].body()[0]
        e0, e1 = (expr_to_string(e) for e in copy.rhs().idx())
        M, K = (expr_to_string(e) for e in f.src.shape())
        proc = specialize(
            proc, copy, [f"0 <= {e0} and {e0} < {M} and 0 <= {e1} and {e1} < {K}"]
        )
        try:
            proc = replace(proc, proc.forward(loop).body()[at], unguarded)
        except (SchedulingError, UnificationError) as e:
            raise SchedulingError(
                f"use_tma: the copy into {f.dst.name()} is not "
                f"{f.dst.name()}[i, j] = {f.src.name()}[r + i, c + j] with the "
                f"{f.box[0]} x {f.box[1]} box proven inside {f.src.name()} (a TMA "
                f"load fills zeros outside the tensor, the copy does not): {e}"
            ) from None
        proc = call_eqv(proc, proc.forward(loop).body()[at], in_bounds)
        proc = inline(proc, proc.forward(loop).body()[at])
        while isinstance(proc.forward(loop).body()[at], WindowStmtCursor):
            proc = inline_window(proc, proc.forward(loop).body()[at])
        proc = replace(proc, proc.forward(loop).body()[at], f.instr)

    # The mbarrier, the trailing barriers, the issuing warp and the wait.
    k = loop.name()
    bar = _declaration(proc, barrier)
    if bar is not None and not _is_memory(bar.mem(), CUDA_MBARRIER):
        raise SchedulingError(
            f"use_tma: {barrier} is taken by a buffer in {bar.mem().name()}; name "
            "the mbarrier differently (barrier=...)"
        )
    if bar is None:
        last = max((f.dst for f in found), key=lambda d: _index_in(d.parent(), d))
        extent = expr_to_string(proc.forward(loop).hi())
        proc = alloc_barrier(
            proc, proc.forward(last).after(), barrier, [extent], CUDA_MBARRIER
        )
        bar = proc.forward(last).next()
        proc = set_dim_annotation(proc, bar, 0, ring(1))
    calls = [proc.forward(loop).body()[first + n] for n in range(len(found))]
    for call in calls:
        proc = set_trailing_barrier(proc, call, [f"{barrier}[{k}]"])
    block = proc.forward(calls[0]).as_block().expand(0, len(calls) - 1)
    proc = wrap_with(proc, block, CudaWarps(0, 1))
    warps = proc.forward(loop).body()[first]
    proc = insert_await(proc, warps.after(), f"{barrier}[{k}]", cuda_async_proxy)
    # `replace` solves arguments as `M + 0`.
    proc = simplify(proc)
    if not rc:
        return proc
    warps = proc.forward(warps)
    return proc, use_tma_cursors(
        [proc.forward(c) for c in calls],
        warps,
        warps.next(),
        proc.forward(bar),
    )


def _index_in(parent, stmt):
    for n, s in enumerate(parent.body()):
        if s == stmt:
            return n
    raise SchedulingError("internal: statement not found in its parent")


# ---- wgmma ---------------------------------------------------------------------


@dataclass
class use_wgmma_cursors:
    mma: object  # the wgmma call in the loop over k-steps
    first: object  # the zero-initialising wgmma of the peeled first k-step, or None
    done: object  # the commit-group barrier allocation

    def __iter__(self):
        yield self.mma
        yield self.first
        yield self.done


def _mma_nest(proc, nest):
    """`for i in seq(0, M): for j in seq(0, N): for kk in seq(0, K):
    d[i, j] += a[i, kk] * b[j, kk]`: the declarations of d, a, b and the
    extents M, N, K, or a SchedulingError."""
    shape = (
        "use_wgmma: expected a matrix-multiply nest `for i in seq(0, 64): for j in "
        "seq(0, N): for kk in seq(0, K): d[i, j] += a[i, kk] * b[j, kk]`"
    )
    loops = [nest]
    for _ in range(2):
        if not isinstance(loops[-1], ForCursor) or len(loops[-1].body()) != 1:
            raise SchedulingError(shape)
        loops.append(loops[-1].body()[0])
    if not isinstance(loops[-1], ForCursor) or len(loops[-1].body()) != 1:
        raise SchedulingError(shape)
    update = loops[-1].body()[0]
    if not isinstance(update, ReduceCursor):
        raise SchedulingError(shape)
    product = update.rhs()
    if not (
        isinstance(product, BinaryOpCursor)
        and product.op() == "*"
        and isinstance(product.lhs(), ReadCursor)
        and isinstance(product.rhs(), ReadCursor)
    ):
        raise SchedulingError(shape)
    extents = [_literal(loop.hi()) for loop in loops]
    if None in extents or any(_literal(loop.lo()) != 0 for loop in loops):
        raise SchedulingError(f"{shape}, with literal loop bounds")
    i, j, kk = (loop.name() for loop in loops)
    reads = [update, product.lhs(), product.rhs()]
    expected = [[i, j], [i, kk], [j, kk]]
    for read, idx in zip(reads, expected, strict=True):
        got = [e.name() if isinstance(e, ReadCursor) else None for e in read.idx()]
        if got != idx:
            raise SchedulingError(f"{shape}: {read.name()} is indexed differently")
    d, a, b = (proc.find_alloc_or_arg(r.name()) for r in reads)
    rows, n, k = extents
    return d, a, b, rows, n, k


def _wgmma_instructions(proc, nest):
    d, a, b, rows, n, k = _mma_nest(proc, nest)
    if not _is_memory(d.mem(), CUDA_WGMMA_ACCUM):
        raise SchedulingError(
            f"use_wgmma: the accumulator {d.name()} is in {d.mem().name()}, but "
            f"wgmma accumulates in registers of the warpgroup: set_memory(p, "
            f'"{d.name()}", CUDA_WGMMA_ACCUM) first'
        )
    for operand in (a, b):
        mem = operand.mem()
        if not (
            _is_memory(mem, CUDA_SMEM_SWIZZLED)
            and mem.backend_properties()["swizzle"] == 128
        ):
            raise SchedulingError(
                f"use_wgmma: the operand {operand.name()} is in {mem.name()}, but "
                "wgmma_ss reads its operands from shared memory in the 128-byte "
                "swizzle (CUDA_SMEM_SWIZZLED(128))"
            )
    if _precision(d) != "f32":
        raise SchedulingError(
            f"use_wgmma: the accumulator {d.name()} is {_precision(d)}; the wgmma "
            "instructions provided accumulate in f32"
        )
    precision = _precision(a)
    if _precision(b) != precision:
        raise SchedulingError(
            f"use_wgmma: the operands {a.name()} ({precision}) and {b.name()} "
            f"({_precision(b)}) differ in precision"
        )
    shapes = {
        d.name(): [rows, n],
        a.name(): [rows, k],
        b.name(): [n, k],
    }
    for decl in (d, a, b):
        if [_literal(e) for e in decl.shape()] != shapes[decl.name()]:
            raise SchedulingError(
                f"use_wgmma: the nest uses part of {decl.name()}; wgmma reads and "
                "writes whole tiles ([64, N] accumulator, [64, K] and [N, K] operands)"
            )
    found = WGMMA_SS.get((precision, n, k)) if rows == 64 else None
    if found is None:
        raise SchedulingError(
            f"use_wgmma: no wgmma for a {rows} x {n} x {k} step on {precision}; the "
            "instructions provided compute "
            + "; ".join(f"64 x {nn} x {kk} on {p}" for p, nn, kk in WGMMA_SS)
            + " (M x N x K, 64 rows per warpgroup)"
        )
    return found, d


def _zero_nest(stmt, acc, rows, cols):
    """Whether `stmt` is `for i in seq(0, rows): for j in seq(0, cols):
    acc[i, j] = 0.0`."""
    if not isinstance(stmt, ForCursor) or len(stmt.body()) != 1:
        return False
    inner = stmt.body()[0]
    if not isinstance(inner, ForCursor) or len(inner.body()) != 1:
        return False
    zero = inner.body()[0]
    return (
        [
            _literal(stmt.lo()),
            _literal(stmt.hi()),
            _literal(inner.lo()),
            _literal(inner.hi()),
        ]
        == [0, rows, 0, cols]
        and isinstance(zero, AssignCursor)
        and zero.name() == acc
        and _literal(zero.rhs()) == 0.0
        and [e.name() if isinstance(e, ReadCursor) else None for e in zero.idx()]
        == [stmt.name(), inner.name()]
    )


@user_op
def use_wgmma(proc, mma, done="done", rc=False):
    """Turns a matrix-multiply nest `for i: for j: for kk: acc[i, j] +=
    sA[i, kk] * sB[j, kk]` in a seq loop over k-steps into an asynchronous
    wgmma of the warpgroup, ordered and retired by a commit group:

        Fence(cuda_in_order, wgmma_operands)
        wgmma_ss_bf16_n256_k64(acc[0:64, 0:256], sA[0:64, 0:64], sB[0:256, 0:64])
        Arrive(wgmma) >> done[k]
        Await(done[k], cuda_in_order)

    The instruction is chosen by precision and shape
    (`exo2.platforms.cuda.sm90.WGMMA_SS`); the accumulator must be in
    `CUDA_WGMMA_ACCUM` and the operands in `CUDA_SMEM_SWIZZLED(128)`; the
    commit-group barrier `done` is allocated before the accumulator. When
    the statement before the loop zeroes the accumulator, the first k-step
    is peeled (`cut_loop`, `unroll_loop`) and the zeroing fused into its
    multiply, which becomes the zero-initialising wgmma (scale-d 0), so
    that every wgmma has an immediate scale-d (call `use_tma` first: the
    peeled step copies the loads too). rc: the loop's wgmma call, the
    peeled one (or None) and the barrier."""
    mma = proc.forward(mma)
    loop = mma.parent()
    if not isinstance(loop, ForCursor) or loop.mode() is not seq:
        raise SchedulingError("use_wgmma: the nest must be in a seq loop over k-steps")
    (accumulate, zero_init), acc = _wgmma_instructions(proc, mma)
    if loop.is_ancestor_of(acc):
        raise SchedulingError(
            f"use_wgmma: {acc.name()} is allocated inside the loop {loop.name()}; "
            "allocate it before the loop (lift_alloc)"
        )
    k = loop.name()
    proc = alloc_barrier(
        proc,
        proc.forward(acc).before(),
        done,
        [expr_to_string(loop.hi())],
        CUDA_WGMMA_GROUP,
    )
    bar = proc.forward(acc).prev()
    proc = insert_fence(proc, proc.forward(mma).before(), cuda_in_order, wgmma_operands)
    proc = insert_arrive(proc, proc.forward(mma).after(), wgmma, [f"{done}[{k}]"])
    proc = insert_await(
        proc, proc.forward(mma).next().after(), f"{done}[{k}]", cuda_in_order
    )
    at = _index_in(proc.forward(loop), proc.forward(mma))
    zero = proc.forward(loop).prev()
    first = None
    rows, cols = (_literal(e) for e in acc.shape())
    if _zero_nest(zero, acc.name(), rows, cols) and _literal(loop.lo()) is not None:
        # Peel k = lo: its statements replace the loop's first iteration.
        parent = zero.parent()
        z = _index_in(parent, zero)
        proc = cut_loop(proc, proc.forward(loop), _literal(loop.lo()) + 1)
        peel = proc.forward(parent).body()[z + 1]
        length = len(peel.body())
        proc = unroll_loop(proc, peel)
        # Move the zeroing down to the peeled multiply and fuse it in.
        for n in range(at):
            stmt = proc.forward(parent).body()[z + n]
            proc = reorder_stmts(proc, stmt.as_block().expand(0, 1))
        zero = proc.forward(parent).body()[z + at]
        proc = fuse(proc, zero, zero.next())
        outer = proc.forward(parent).body()[z + at]
        proc = fuse(proc, outer.body()[0], outer.body()[1])
        proc = replace(proc, proc.forward(parent).body()[z + at], zero_init)
        first = proc.forward(parent).body()[z + at]
        loop = proc.forward(parent).body()[z + length]
        # The peeled k-step's indices: `64 * 0` becomes 0.
        proc = simplify(proc)
    proc = replace(proc, proc.forward(loop).body()[at], accumulate)
    if not rc:
        return proc
    return proc, use_wgmma_cursors(
        proc.forward(loop).body()[at],
        proc.forward(first) if first is not None else None,
        proc.forward(bar),
    )
