"""Equivalence tracking between procedures (procedure-and-codegen.md §1)."""


def is_eq(p1, p2):
    raise NotImplementedError("is_eq")


def assert_eq(p1, p2):
    raise NotImplementedError("unsafe_assert_eq")
