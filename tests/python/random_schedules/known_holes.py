"""Soundness holes known and still open, that the randomized schedule test
counts apart so that it stays green until their fixes are merged.

The list is empty: every hole the test has found is fixed in its primitive
and has a regression test ("Holes the randomized test found" in
test_random_schedules.py). A hole found later, that cannot be fixed at
once, gets an entry here naming its class and what goes wrong: a wrong
result is then counted as this hole (and shown in the summary table)
instead of failing the test, when it comes from one of its `primitives` on
one of its `kernels`, or the wrong step matches its `step` predicate, or
the wrong procedure its `pattern`. Every entry needs a reproducer
(KNOWN_HOLE_REPRODUCERS in test_random_schedules.py) that must still show
the hole: once the fix is merged, `test_known_holes_are_still_open` fails
until the entry is removed, so the list can only shrink by fixes.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class KnownHole:
    issue_class: str
    what: str
    # A wrong result of these primitives on these kernels is this hole.
    primitives: frozenset = frozenset()
    kernels: frozenset = frozenset()
    step: object = None  # a predicate on the wrong step
    pattern: object = None  # a predicate on the wrong procedure


KNOWN_HOLES: dict[str, KnownHole] = {}
