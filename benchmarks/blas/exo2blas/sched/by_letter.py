"""`by_letter`: a schedule per letter of one variant axis, for kernels
whose variants need different automations (gemv's NoTrans variant is a
dot product per row, its Trans variant is not)."""

from __future__ import annotations


def by_letter(axis, **schedules):
    """The schedule that applies `schedules[letter]`, `letter` being the
    variant's letter of `axis` (a key: "trans", "upper"); `None` leaves
    that letter's variants as they are."""

    def schedule(proc, v):
        letter = v.letters[axis]
        if letter not in schedules:
            raise ValueError(
                f"by_letter: no schedule for {axis} = {letter!r} ({v.name}); "
                f"given: {', '.join(schedules)}"
            )
        chosen = schedules[letter]
        return chosen(proc, v) if chosen else proc

    return schedule


def by_trans(n, t):
    """`by_letter("trans", n=n, t=t)`: one schedule for the NoTrans
    variants, one for the Trans variants."""
    return by_letter("trans", n=n, t=t)
