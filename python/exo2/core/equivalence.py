"""Equivalence tracking between procedures (docs/reference/generated-c.md, "Procedures").

A procedure is identified by its IR: two `Procedure` objects on the same IR
are the same procedure. Every primitive records "result ≡ input modulo S",
S being the config fields whose final value may differ; `unsafe_assert_eq`
records strict equivalence (modulo nothing).

As in Exo (core/proc_eqv.py), equivalence modulo a set of fields is kept as
a family of union-find relations: `None` relates procedures equivalent
modulo any set; for each field `k` recorded so far, relation `k` relates
those equivalent modulo a set without `k` (it starts as a copy of `None`
when `k` first appears). Then `p ≡_S q` iff `p` and `q` are related by
`None` and by every `k` not in `S`.

Procedures are held weakly: an entry keeps only a weak reference to its IR
(`_core.WeakProc`), so tracking never keeps a procedure alive. Union-find
links point from node to node, so a class survives the death of its
representative.
"""

from .. import _core

# Relation keys: None, then each config field as a (Config, field name) pair.
_relations = [None]
# IR identity -> node, for live IRs (dead entries are dropped lazily).
_nodes = {}
_purge_at = 1024


class _Node:
    __slots__ = ("weak", "parents")

    def __init__(self, core_proc):
        self.weak = _core.WeakProc(core_proc)
        # Relation key -> parent node; absent: this node is a root there.
        self.parents = {}


def _node(core_proc):
    global _purge_at
    key = _core.proc_identity(core_proc)
    node = _nodes.get(key)
    if node is None or not node.weak.alive():
        node = _nodes[key] = _Node(core_proc)
        if len(_nodes) >= _purge_at:
            for k in [k for k, n in _nodes.items() if not n.weak.alive()]:
                del _nodes[k]
            _purge_at = max(1024, 2 * len(_nodes))
    return node


def _find(node, relation):
    parent = node.parents.get(relation)
    while parent is not None:
        grandparent = parent.parents.get(relation)
        if grandparent is not None:
            node.parents[relation] = grandparent  # path halving
        node, parent = parent, grandparent
    return node


def _union(a, b, relation):
    ra, rb = _find(a, relation), _find(b, relation)
    if ra is not rb:
        rb.parents[relation] = ra


def _add_relation(key):
    """Relation `key`, as a copy of relation None over every node."""
    seen = set()
    for node in list(_nodes.values()):
        while node is not None and id(node) not in seen:
            seen.add(id(node))
            parent = node.parents.get(None)
            if parent is not None:
                node.parents[key] = parent
            node = parent
    _relations.append(key)


def record(core_p, core_q, modulo=frozenset()):
    """Records `p ≡ q` modulo the config fields `modulo` ((Config, field)
    pairs); `p`, `q` are core procedures (`Procedure.INTERNAL_proc()`)."""
    for key in modulo:
        if key not in _relations:
            _add_relation(key)
    p, q = _node(core_p), _node(core_q)
    for relation in _relations:
        if relation not in modulo:
            _union(p, q, relation)


def fields_modulo(core_p, core_q):
    """None when `p` and `q` are not recorded as equivalent at all, else the
    smallest set of config fields modulo which they are."""
    p, q = _node(core_p), _node(core_q)
    if _find(p, None) is not _find(q, None):
        return None
    return {key for key in _relations[1:] if _find(p, key) is not _find(q, key)}


def is_eq(p1, p2):
    """Whether two Procedures are recorded as strictly equivalent."""
    return fields_modulo(p1.INTERNAL_proc(), p2.INTERNAL_proc()) == set()


def assert_eq(p1, p2):
    """Records two Procedures as strictly equivalent."""
    record(p1.INTERNAL_proc(), p2.INTERNAL_proc())
