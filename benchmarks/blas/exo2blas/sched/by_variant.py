"""Schedules chosen by the variant they schedule: `by_letter`, a schedule
per letter of one variant axis, for kernels whose variants need different
automations (gemv's NoTrans variant is a dot product per row, its Trans
variant is not); `by_case`, one per case (gemv's skinny shapes, symv's
short matrices); `on_narrower`, a schedule on the machine's narrower
vectors; `per_letter`, an automation's option per letter."""

from __future__ import annotations

import inspect
from dataclasses import replace


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


def by_case(case, case_schedule, schedule):
    """The schedule that runs `case_schedule` on the variant's `case` (its
    suffix: "skinny", "short") and `schedule` on its other cases."""

    def chosen(proc, v):
        return (case_schedule if v.case == case else schedule)(proc, v)

    return chosen


def on_narrower(schedule):
    """`schedule` run with the machine's `narrower` machine (half as wide
    vectors) where it has one, with the machine itself where not."""

    def narrowed(proc, v):
        narrower = v.machine.narrower
        return schedule(proc, v if narrower is None else replace(v, machine=narrower))

    return narrowed


def per_letter(axis, **values):
    """An option of an `on_variant` schedule whose value is, for each
    variant, the one named by its letter of `axis`:
    `by_band(chain=per_letter("upper", u="first", l="last"))`."""

    def value(v):
        letter = v.letters.get(axis)
        if letter not in values:
            raise ValueError(f"per_letter: {axis} = {letter!r} has no value ({v.name})")
        return values[letter]

    return value


def on_variant(automation, loop=None):
    """The schedules of `automation(proc, loop, m, prec, **options)`:
    `maker(loop, **options)` (`by_rows`, `by_band`, ...) is the schedule
    that runs it on `loop` (by default the given one) with the variant's
    machine and precision; an option whose value is a function (of a
    `VariantInfo`, as `per_letter` makes) takes its value for the variant."""
    default = loop

    def maker(loop=default, **options):
        # a missing or unknown option fails here, not when a variant is made
        inspect.signature(automation).bind(None, loop, None, None, **options)

        def schedule(proc, v):
            # an option that is a function of the variant (`per_letter`'s)
            chosen = {key: o(v) if callable(o) else o for key, o in options.items()}
            return automation(proc, loop, v.machine, v.prec, **chosen)

        return schedule

    return maker
