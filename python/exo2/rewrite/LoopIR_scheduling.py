"""Compatibility path of Exo's scheduling module: exports `SchedulingError`."""

from ..errors import SchedulingError as SchedulingError
