"""Instruction and memory libraries per target (`exo2.platforms.x86`).

Exo's `neon`, `rvv`, `sve_vla`, `sve_vls` and `gemmini` platforms are not
part of exo2 1.0: importing them raises ImportError naming the platform.
"""
