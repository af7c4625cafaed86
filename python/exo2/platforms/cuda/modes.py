"""The CUDA loop modes (docs/cuda.md, "The constructs").

Read sequentially, both run their iterations in order like `seq`. In
parallel:

- `for m in cuda_tasks(lo, hi):` runs one iteration per task; a perfect nest
  of them is the body of a `CudaDeviceFunction`, and each task runs on one
  CTA (a persistent CTA runs several tasks one after the other);
- `for w in cuda_threads(lo, hi, unit=cuda_warp):` cuts the current
  collective into consecutive pieces shaped like `unit`; iteration `i` runs
  on piece `i`.
"""

from ...core.extensions import LoopMode
from .units import CudaUnit, cuda_thread


class CudaTasks(LoopMode):
    """The mode object `cuda_tasks` (use it as `cuda_tasks(lo, hi)`)."""

    def name(self):
        return "cuda_tasks"

    def __repr__(self):
        return "cuda_tasks"

    def backend_properties(self):
        return {"mode": "cuda_tasks"}


cuda_tasks = CudaTasks()


class cuda_threads(LoopMode):
    """`cuda_threads(lo, hi, unit=U)` in loops; `cuda_threads(unit=U)` is the
    mode object (for `set_loop_mode`). Interned per unit."""

    _interned = {}

    def __new__(cls, unit=cuda_thread):
        if not isinstance(unit, CudaUnit):
            raise TypeError(
                f"cuda_threads: expected a unit such as cuda_warp, got {unit!r}"
            )
        mode = cls._interned.get(unit)
        if mode is None:
            mode = super().__new__(cls)
            mode.unit = unit
            cls._interned[unit] = mode
        return mode

    def __init__(self, unit=cuda_thread):
        pass

    def name(self):
        return "cuda_threads"

    def extra_args(self):
        return f", unit={self.unit}"

    def __repr__(self):
        return f"cuda_threads(unit={self.unit})"

    def backend_properties(self):
        props = {"mode": "cuda_threads"}
        for key, value in self.unit.backend_properties().items():
            props[f"unit_{key}"] = value
        return props
