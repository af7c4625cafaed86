"""The procedure a primitive returns."""

from ..API import Procedure


def derived_procedure(provenance):
    """The Procedure for a `_core.Provenance` returned by a primitive's
    binding: the new IR, with its parent and forwarding recorded so that
    `forward` carries cursors across the step."""
    return Procedure(provenance.proc(), _provenance=provenance)
