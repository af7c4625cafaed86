"""The `with` contexts of CUDA kernels (docs/cuda.md, "The constructs").

Read sequentially, `with ctx:` means its body. In parallel:

- `with CudaDeviceFunction(blockDim=256):` is a kernel launch: its body is
  a nest of `cuda_tasks` loops, and every task runs on one CTA of
  `blockDim` threads;
- `with CudaWarps(lo, hi, name=None):` runs its body only on warps
  [lo, hi) of the role `name` (of the whole CTA when `name` is None).

Contexts are interned: equal parameters give the same object, so printed
procedures parse back into equal procedures.
"""

from ...core.extensions import WithContext


class _Interned:
    """Instances equal by their parameters are the same object."""

    _interned = {}

    @classmethod
    def _make(cls, key, init):
        key = (cls, key)
        found = _Interned._interned.get(key)
        if found is None:
            found = object.__new__(cls)
            init(found)
            _Interned._interned[key] = found
        return found


def _keywords(pairs):
    """`a=1, b=2` for the pairs whose value is not the default."""
    return ", ".join(
        f"{name}={value!r}" for name, value, default in pairs if value != default
    )


class CudaWarpConfig(_Interned):
    """A named role of `count` warps; `regs` (reserved for warp
    specialisation) requests a register count with `setmaxnreg`."""

    def __new__(cls, name, count, regs=None):
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"CudaWarpConfig: expected a role name, got {name!r}")
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise ValueError(
                f"CudaWarpConfig: expected a positive warp count, got {count!r}"
            )
        if regs is not None and (
            not isinstance(regs, int) or regs % 8 or not 24 <= regs <= 256
        ):
            raise ValueError(
                f"CudaWarpConfig: regs must be a multiple of 8 in [24, 256], got {regs!r}"
            )

        def init(self):
            self.name, self.count, self.regs = name, count, regs

        return cls._make((name, count, regs), init)

    def __repr__(self):
        regs = "" if self.regs is None else f", regs={self.regs}"
        return f'CudaWarpConfig("{self.name}", {self.count}{regs})'


class CudaDeviceFunction(WithContext, _Interned):
    """A kernel launch. Exactly one of `blockDim` (threads per CTA, a
    multiple of 32 up to 1024) and `warp_config` (a list of roles). Clusters
    (`clusterDim > 1`) are not supported yet."""

    def __new__(cls, blockDim=None, clusterDim=1, blocks_per_sm=1, warp_config=None):
        if (blockDim is None) == (warp_config is None):
            raise ValueError(
                "CudaDeviceFunction: give exactly one of blockDim and warp_config"
            )
        if warp_config is not None:
            warp_config = tuple(warp_config)
            if not warp_config or not all(
                isinstance(w, CudaWarpConfig) for w in warp_config
            ):
                raise ValueError(
                    "CudaDeviceFunction: warp_config must be a list of CudaWarpConfig"
                )
            names = [w.name for w in warp_config]
            if len(set(names)) != len(names):
                raise ValueError(f"CudaDeviceFunction: role names repeat: {names}")
            threads = 32 * sum(w.count for w in warp_config)
        else:
            threads = blockDim
        if (
            not isinstance(threads, int)
            or isinstance(threads, bool)
            or threads < 32
            or threads > 1024
            or threads % 32
        ):
            raise ValueError(
                f"CudaDeviceFunction: blockDim must be a multiple of 32 in [32, 1024], got {threads!r}"
            )
        if clusterDim != 1:
            raise ValueError("CudaDeviceFunction: clusterDim > 1 is not supported yet")
        if not isinstance(blocks_per_sm, int) or blocks_per_sm < 1:
            raise ValueError(
                f"CudaDeviceFunction: blocks_per_sm must be a positive int, got {blocks_per_sm!r}"
            )

        def init(self):
            self.blockDim = blockDim
            self.clusterDim = clusterDim
            self.blocks_per_sm = blocks_per_sm
            self.warp_config = warp_config
            self.threads = threads

        return cls._make((blockDim, clusterDim, blocks_per_sm, warp_config), init)

    def __init__(self, *args, **kwargs):
        pass

    def __str__(self):
        warp_config = None if self.warp_config is None else list(self.warp_config)
        args = _keywords(
            [
                ("blockDim", self.blockDim, None),
                ("clusterDim", self.clusterDim, 1),
                ("blocks_per_sm", self.blocks_per_sm, 1),
                ("warp_config", warp_config, None),
            ]
        )
        return f"CudaDeviceFunction({args})"

    def backend_properties(self):
        roles = self.warp_config or ()
        return {
            "context": "CudaDeviceFunction",
            "threads": self.threads,
            "cluster": self.clusterDim,
            "blocks_per_sm": self.blocks_per_sm,
            "role_names": [w.name for w in roles],
            "role_warps": [w.count for w in roles],
            "role_regs": [w.regs or 0 for w in roles],
        }


class CudaWarps(WithContext, _Interned):
    """The body runs on warps [lo, hi) of role `name` (of the CTA when
    `name` is None); `lo`/`hi` default to the whole role."""

    def __new__(cls, lo=None, hi=None, name=None):
        for bound in (lo, hi):
            if bound is not None and (not isinstance(bound, int) or bound < 0):
                raise ValueError(
                    f"CudaWarps: warp bounds must be non-negative ints, got {bound!r}"
                )
        if lo is not None and hi is not None and hi <= lo:
            raise ValueError(f"CudaWarps: empty warp range [{lo}, {hi})")

        def init(self):
            self.lo, self.hi, self.name = lo, hi, name

        return cls._make((lo, hi, name), init)

    def __init__(self, *args, **kwargs):
        pass

    def __str__(self):
        args = _keywords(
            [("lo", self.lo, None), ("hi", self.hi, None), ("name", self.name, None)]
        )
        return f"CudaWarps({args})"

    def backend_properties(self):
        return {
            "context": "CudaWarps",
            "lo": -1 if self.lo is None else self.lo,
            "hi": -1 if self.hi is None else self.hi,
            "role": self.name or "",
        }
