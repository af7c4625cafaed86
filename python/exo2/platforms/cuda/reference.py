"""`sequential_reference(proc)` (docs/cuda.md, "Running a kernel"): the
procedure that the C backend can compile and run on the CPU, derived from a
CUDA procedure by primitives only, so it is recorded equivalent to it.

Instruction calls are inlined (their bodies are their meaning), sync
statements deleted, `with` blocks unwrapped, loops made `seq`, CUDA
memories set to DRAM, dimension annotations dropped and the barriers (now
unused) deleted. Every CUDA schedule can so be tested for its arithmetic on
a machine without a GPU.
"""

from ... import API_cursors as PC
from ...API_scheduling import delete_buffer, inline, set_memory
from ...API_types import ExoType
from ...core.extensions import seq
from ...core.memory import DRAM
from .memories import CudaMemory
from .primitives import delete_sync, set_dim_annotation, set_loop_mode, unwrap_with


def _statements(block):
    """Every statement cursor of a block, in pre-order."""
    for s in block:
        yield s
        if isinstance(s, (PC.ForCursor, PC.WithCursor)):
            yield from _statements(s.body())
        elif isinstance(s, PC.IfCursor):
            yield from _statements(s.body())
            orelse = s.orelse()
            if orelse:
                yield from _statements(orelse)


def _first(proc, wanted):
    for s in _statements(proc.body()):
        if wanted(s):
            return s
    return None


_CONTROL = (ExoType.Size, ExoType.Index, ExoType.Bool, ExoType.Stride)


def _is_cuda_memory(mem):
    return isinstance(mem, type) and issubclass(mem, CudaMemory)


def _rewrite_all(proc, wanted, rewrite):
    while (s := _first(proc, wanted)) is not None:
        proc = rewrite(proc, s)
    return proc


def sequential_reference(proc):
    """The sequential procedure equivalent to `proc` (see the module)."""
    p = _rewrite_all(
        proc,
        lambda s: isinstance(s, PC.CallCursor) and s.subproc().is_instr(),
        inline,
    )
    p = _rewrite_all(p, lambda s: isinstance(s, PC.SyncCursor), delete_sync)
    p = _rewrite_all(p, lambda s: isinstance(s, PC.WithCursor), unwrap_with)
    p = _rewrite_all(
        p,
        lambda s: isinstance(s, PC.ForCursor) and s.mode() is not seq,
        lambda q, s: set_loop_mode(q, s, seq),
    )
    for arg in p.args():
        if arg.type() not in _CONTROL and _is_cuda_memory(arg.mem()):
            p = set_memory(p, arg, DRAM)
    p = _rewrite_all(
        p,
        lambda s: isinstance(s, PC.AllocCursor) and s.type() == ExoType.Barrier,
        delete_buffer,
    )
    p = _rewrite_all(
        p,
        lambda s: (
            isinstance(s, PC.AllocCursor)
            and any(a is not None for a in s.dim_annotations())
        ),
        lambda q, s: set_dim_annotation(
            q,
            s,
            next(i for i, a in enumerate(s.dim_annotations()) if a is not None),
            None,
        ),
    )
    p = _rewrite_all(
        p,
        lambda s: isinstance(s, PC.AllocCursor) and _is_cuda_memory(s.mem()),
        lambda q, s: set_memory(q, s, DRAM),
    )
    return p
