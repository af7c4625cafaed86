"""Instruction and memory libraries per target: `exo2.platforms.x86`
(AVX2, AVX-512), `exo2.platforms.neon` (Arm Neon) and `exo2.platforms.rvv`
(RISC-V vectors) and `exo2.platforms.gemmini` (the Gemmini accelerator),
with Exo's names; `exo2.platforms.cuda` (exo2 only).

`sve_vla` and `sve_vls` are not part of exo2 yet: importing them raises
ImportError naming the platform.
"""
