"""The procedure a primitive returns."""

from ..API import Procedure
from ..core import equivalence


def derived_procedure(provenance, modulo=()):
    """The Procedure for a `_core.Provenance` returned by a primitive's
    binding: the new IR, with its parent and forwarding recorded so that
    `forward` carries cursors across the step, and recorded as equivalent to
    its parent modulo `modulo`, the (Config, field) pairs whose final value
    may differ (docs/reference/generated-c.md, "Procedures")."""
    proc = Procedure(provenance.proc(), _provenance=provenance)
    parent = provenance.parent()
    if parent is not None:
        equivalence.record(parent.proc(), proc.INTERNAL_proc(), frozenset(modulo))
    return proc
