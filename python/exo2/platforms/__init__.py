"""Instruction and memory libraries per target: `exo2.platforms.x86`
(AVX2, AVX-512), `exo2.platforms.neon` (Arm Neon) and `exo2.platforms.rvv`
(RISC-V vectors), with Exo's names; `exo2.platforms.cuda` (exo2 only).

Exo's `sve_vla`, `sve_vls` and `gemmini` platforms are not part of exo2 yet:
importing them raises ImportError naming the platform.
"""
