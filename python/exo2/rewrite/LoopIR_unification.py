"""Compatibility path of Exo's unification module: exports `UnificationError`."""

from ..errors import UnificationError as UnificationError
