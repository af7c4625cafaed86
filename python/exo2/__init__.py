"""exo2: a user-schedulable kernel language with a C++ core.

The names here are Exo's public API (spec/README.md, module map), defined in
`exo2.API`, plus two exo2 extensions: `jit` and `cmake_dir`.
"""

from pathlib import Path

from . import API
from .API import *  # noqa: F403
from .frontend.future_annotations import install_excepthook
from .jit import jit

__version__ = "0.1.0"

# An uncaught NameError for `size`, `f32`, ... raised where a file lacks
# `from __future__ import annotations` gets the explanation.
install_excepthook()


def cmake_dir():
    """The directory holding exo2's CMake package (`exo2Config.cmake`,
    `AddExo2Library.cmake`): pass it as `exo2_DIR` to `find_package`."""
    return str(Path(__file__).resolve().parent / "cmake")


__all__ = [*API.__all__, "jit", "cmake_dir"]
