"""exo2: a user-schedulable kernel language with a C++ core.

The names here are Exo's public API (spec/README.md, module map).
"""

from .API import (
    DRAM,
    Config,
    ExoType,
    Extern,
    Memory,
    ParseFragmentError,
    Procedure,
    SchedulingError,
    config,
    extern,
    instr,
    proc,
)

__version__ = "0.1.0"

__all__ = [
    "Procedure",
    "proc",
    "instr",
    "config",
    "extern",
    "Config",
    "Memory",
    "Extern",
    "DRAM",
    "SchedulingError",
    "ParseFragmentError",
    "ExoType",
]
