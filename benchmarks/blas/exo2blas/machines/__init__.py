"""Machine models: what the generator and the schedules know about an ISA.

A `Machine` names an x86 vector ISA the library is built for: its vector
lanes per precision, how many vector registers it has, whether masked
instructions exist, its vector registers as a memory (registers.py), its
instruction table (instructions.py) and the C compiler flags of its
generated code. Both ISAs are generated and compiled into one library; the
C layer picks one at run time (benchmarks/blas/capi/isa.c). Nothing here
is read from the machine that generates: generated C must not depend on
where it is generated (its hashes are checked).
"""

from __future__ import annotations

from dataclasses import dataclass

from .instructions import OPERATIONS, instructions
from .registers import ZeroedAVX2, ZeroedAVX512

PRECISIONS = ("f32", "f64")
LETTER = {"f32": "s", "f64": "d"}


@dataclass(frozen=True)
class Machine:
    name: str
    lanes: dict  # precision -> elements per vector register
    cflags: tuple  # ISA flags for the generated C (no -ffast-math: see capi)
    memory: type  # the ISA's vector registers (registers.py)
    registers: int  # vector registers
    masking: bool  # mask registers (else masked loads and blends)
    interleave: int = 4  # vectors processed side by side by level-1 loops
    # The machine of half as wide vectors (None: there is none).
    narrower: Machine | None = None

    def instructions(self, prec, ops=None):
        """The instruction table of `prec` ("f32" or "f64"); with `ops`,
        only those operations (`OPERATIONS`' names), full and masked."""
        table = instructions(self.name, prec)
        if ops is None:
            return table
        unknown = set(ops) - set(OPERATIONS)
        if unknown:
            raise ValueError(f"unknown operations: {', '.join(sorted(unknown))}")
        names = {
            f"{self.name}_{op}{mask}_{prec}" for op in ops for mask in ("", "_mask")
        }
        return [i for i in table if i.name() in names]

    @property
    def tail(self):
        """How a vector loop over contiguous elements ends (the `tail` of
        `exo2.stdlib`'s `vectorize`): with mask registers, one masked
        vector iteration, which costs what a whole one does; without them,
        the last few elements one by one. AVX2's masked store
        (`vmaskmovps`) and the blends around it cost about 7 ns per loop on
        the AMD EPYC machine, more than seven scalar iterations."""
        return "cut_and_predicate" if self.masking else "cut"

    def block_vectors(self):
        """Vectors iamax's lane-blocked scan (`first_max`; `blockmax`, one
        register of state per vector, keeps twice as many: its kernel file)
        keeps side by side: each holds three registers of state (maximum, row,
        rows seen) and needs about two temporaries, so no more than the
        registers hold (AVX2's 16 hold 2: four spilled the state), and no more
        than 32 lanes of f32: the lanes are set before the scan and reduced
        after it, which costs at small n (AVX-512 on Zen 4: 19 ns from 2 to 64
        elements with four vectors, 12 ns with two, and two as fast above
        4096)."""
        return min(self.interleave, (self.registers - 2) // 5, 32 // self.lanes["f32"])

    def block_lanes(self, prec):
        """Lanes of iamax's lane-blocked scan: one per element of its
        `block_vectors()` vectors."""
        return self.lanes[prec] * self.block_vectors()


AVX2 = Machine(
    "avx2",
    {"f32": 8, "f64": 4},
    ("-mavx2", "-mfma"),
    ZeroedAVX2,
    registers=16,
    masking=False,
)
AVX512 = Machine(
    "avx512",
    {"f32": 16, "f64": 8},
    ("-mavx2", "-mfma", "-mavx512f", "-mavx512vl", "-mavx512dq"),
    ZeroedAVX512,
    registers=32,
    masking=True,
    narrower=AVX2,
)
MACHINES = {m.name: m for m in (AVX2, AVX512)}


def machine(name):
    try:
        return MACHINES[name]
    except KeyError:
        raise ValueError(
            f"unknown ISA {name!r}; expected one of {', '.join(MACHINES)}"
        ) from None
