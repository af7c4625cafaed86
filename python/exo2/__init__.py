"""exo2: a user-schedulable kernel language with a C++ core.

The names here are Exo's public API (spec/README.md, module map); they are
defined in `exo2.API`.
"""

from . import API
from .API import *  # noqa: F403

__version__ = "0.1.0"

__all__ = list(API.__all__)
