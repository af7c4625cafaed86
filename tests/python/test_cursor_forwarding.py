"""`Procedure.forward` end to end, through the core's test-only edits
(`_core.apply_test_edit`) until primitives exist (docs/cursors.md,
"Forwarding across rewrites")."""

# ruff: noqa: F821, E501

from __future__ import annotations

import pytest
from exo2 import Procedure, _core, proc
from exo2.API_cursors import InvalidCursorError


@proc
def foo(n: size, x: f32[n]):
    x[0] = 1.0
    for i in seq(0, n):
        x[i] = 2.0
        x[i] += 3.0
    x[0] = 4.0


def derive(p, edit, *cursors):
    """A procedure made from `p` by one test edit, with provenance."""
    prov = _core.apply_test_edit(p._provenance, edit, [c._impl for c in cursors])
    return Procedure(prov.proc(), _provenance=prov)


def test_forward_follows_inserted_statements():
    p1 = derive(foo, "insert_pass", foo.body()[0].before())
    red = foo.find("x[_] += _")
    assert p1.forward(red) == p1.find("x[_] += _")
    assert p1.forward(foo.find_loop("i").body()) == p1.find_loop("i").body()
    assert p1.forward(red.after()).anchor() == p1.find("x[_] += _")
    assert p1.forward(foo.find("x[_] += _").rhs()).value() == 3.0
    assert p1.forward(foo.args()[1]).name() == "x"


def test_forward_composes_along_the_chain():
    p1 = derive(foo, "insert_pass", foo.body()[0].before())
    p2 = derive(p1, "wrap_in_loop", p1.find_loop("i"))
    p3 = derive(p2, "move", p2.find("x[_] = 4.0"), p2.body()[0].before())
    c = foo.find("x[_] += _")
    assert p3.forward(c) == p3.find("x[_] += _")
    assert p3.forward(p1.find("x[_] = 4.0")) == p3.body()[0]
    assert str(p3.forward(c)).count("# <-- NODE") == 1


def test_forward_reports_deleted_locations():
    p1 = derive(foo, "remove", foo.find("x[_] = 2.0"))
    with pytest.raises(InvalidCursorError, match="node no longer exists"):
        p1.forward(foo.find("x[_] = 2.0"))
    with pytest.raises(InvalidCursorError, match="block no longer exists"):
        p1.forward(foo.find("x[_] = 2.0").expand(0, 0))
    p2 = derive(foo, "remove", foo.find_loop("i"))
    with pytest.raises(
        InvalidCursorError, match=r"block no longer exists \(parent deleted\)"
    ):
        p2.forward(foo.find_loop("i").body())


def test_forward_from_unknown_roots_and_across_steps_without_forwarding():
    with pytest.raises(InvalidCursorError, match="cannot forward from unknown root"):
        foo.forward(derive(foo, "insert_pass", foo.body()[0].before()).body())
    legacy = derive(foo, "no_forwarding")
    with pytest.raises(
        NotImplementedError, match="This forwarding function has not been implemented"
    ):
        legacy.forward(foo.body()[0])
    assert foo.forward(foo.body()[0]) == foo.body()[0]


def test_navigation_after_forwarding_differs_from_forwarding_navigation():
    p1 = derive(foo, "insert_pass", foo.body()[0].after())
    first = foo.body()[0]
    assert p1.forward(first).next() == p1.body()[1]  # the new pass
    assert p1.forward(first.next()) == p1.find_loop("i")
