"""The vector registers of the generated kernels: exo2's AVX2 and AVX512
memories, each register declared with the value zero.

exo2's memories declare a register without a value (`__m256 t;`). A masked
load or blend writes only a register's first lanes and keeps the others
(its semantics say so, and its C reads the register:
`_mm512_mask_loadu_ps(t, m, p)`, `_mm256_blendv_ps(t, ..., m)`), so the
first masked write of a tail's register read lanes that were never set.
In C that is undefined behaviour, and gcc says `-Wmaybe-uninitialized`.
Zero is as good a value as any for lanes nothing reads afterwards. It costs
nothing where the first write covers every lane (the compiler drops the
zero) and one zeroing idiom where it does not.

The instructions' parameters keep exo2's memories: a register of a
subclass is accepted wherever its base is.
"""

from __future__ import annotations

from exo2.libs.memories import AVX2, AVX512


class _Zeroed:
    """A vector memory's registers, declared zero: `__m256 t;` → `__m256 t =
    {0};` (every element of an array too)."""

    @classmethod
    def alloc(cls, new_name, prim_type, shape, srcinfo):
        declaration = super().alloc(new_name, prim_type, shape, srcinfo)
        assert declaration.endswith(";"), declaration
        return declaration[:-1] + " = {0};"


class ZeroedAVX2(_Zeroed, AVX2):
    """AVX2's registers, declared zero."""


class ZeroedAVX512(_Zeroed, AVX512):
    """AVX-512's registers, declared zero."""
