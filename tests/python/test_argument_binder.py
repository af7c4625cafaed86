"""The argument binder of the checked methods and scheduling operations
(exo2.api_arguments.argument_binder): it binds positional and keyword
arguments as `inspect.Signature.bind` does, or declines (None) where only
`bind` can say what is wrong."""

from __future__ import annotations

import inspect

import pytest
from exo2.api_arguments import argument_binder


def op(proc, cursor, n=1, quiet=False):
    pass


def positional_only(proc, cursor, /, n=1):
    pass


def bound(fn, args, kwargs, defaults):
    """`signature.bind`'s pairs, or None where it raises."""
    try:
        b = inspect.signature(fn).bind(*args, **kwargs)
    except TypeError:
        return None
    if defaults:
        b.apply_defaults()
    return list(b.arguments.items())


CALLS = [
    ((1, 2), {}),
    ((1, 2, 3), {}),
    ((1, 2, 3, True), {}),
    ((1, 2), {"quiet": True}),
    ((1,), {"cursor": 2, "n": 5}),
    ((), {"proc": 1, "cursor": 2}),
    ((1, 2, 3), {"quiet": True}),
]


@pytest.mark.parametrize("defaults", [False, True])
@pytest.mark.parametrize(("args", "kwargs"), CALLS)
def test_binds_as_signature_bind_does(args, kwargs, defaults):
    bind = argument_binder(inspect.signature(op), defaults=defaults)
    assert list(bind(args, kwargs)) == bound(op, args, kwargs, defaults)


@pytest.mark.parametrize(
    ("fn", "args", "kwargs"),
    [
        (op, (1,), {}),  # too few
        (op, (1, 2, 3, 4, 5), {}),  # too many
        (op, (1, 2), {"n": 1, "m": 2}),  # unknown keyword
        (op, (1, 2, 3), {"n": 4}),  # given twice
        (op, (1,), {"n": 4}),  # a required one missing
        (positional_only, (1,), {"cursor": 2}),  # positional-only by keyword
    ],
)
def test_declines_what_signature_bind_refuses(fn, args, kwargs):
    assert bound(fn, args, kwargs, True) is None
    assert argument_binder(inspect.signature(fn), defaults=True)(args, kwargs) is None
