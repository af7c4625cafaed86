"""Instruction and memory libraries per target: `exo2.platforms.x86`
(AVX2, AVX-512), `exo2.platforms.neon` (Arm Neon), `exo2.platforms.rvv`
(RISC-V vectors) and `exo2.platforms.gemmini` (the Gemmini accelerator),
with Exo's names; `exo2.platforms.sve_vla` and `sve_vls` (Arm SVE, vector
length agnostic and specific), `exo2.platforms.amx` (instructions for Exo's
AMX_TILE memory) and `exo2.platforms.cuda` (exo2 only).
"""
