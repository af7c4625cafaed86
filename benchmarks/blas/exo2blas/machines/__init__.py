"""Machine models: what the generator and the schedules know about an ISA.

A `Machine` names an x86 vector ISA the library is built for, its vector
lanes per precision, and the C compiler flags of its generated code. Both
ISAs are generated and compiled into one library; the C layer picks one at
run time (benchmarks/blas/capi/isa.c).
"""

from __future__ import annotations

from dataclasses import dataclass

PRECISIONS = ("f32", "f64")
LETTER = {"f32": "s", "f64": "d"}
C_TYPE = {"f32": "float", "f64": "double"}


@dataclass(frozen=True)
class Machine:
    name: str
    lanes: dict  # precision -> elements per vector register
    cflags: tuple  # ISA flags for the generated C (no -ffast-math: see capi)
    interleave: int = 4  # vectors processed side by side by level-1 loops

    def block_lanes(self, prec):
        """Lanes of iamax's lane-blocked scan: one per element of the
        `interleave` vectors a level-1 loop keeps in flight."""
        return self.lanes[prec] * self.interleave


AVX2 = Machine("avx2", {"f32": 8, "f64": 4}, ("-mavx2", "-mfma"))
AVX512 = Machine(
    "avx512",
    {"f32": 16, "f64": 8},
    ("-mavx2", "-mfma", "-mavx512f", "-mavx512vl", "-mavx512dq"),
)
MACHINES = {m.name: m for m in (AVX2, AVX512)}


def machine(name):
    try:
        return MACHINES[name]
    except KeyError:
        raise ValueError(
            f"unknown ISA {name!r}; expected one of {', '.join(MACHINES)}"
        ) from None
