"""Compatibility path for names Exo users import from its internal cursors."""

import enum


class InvalidCursorError(Exception):
    """A cursor was forwarded to, or used at, a location that no longer exists."""


class GapType(enum.Enum):
    """Which side of a statement a gap cursor denotes."""

    Before = 0
    After = 1
