"""Instruction selection (primitives.md §8, §11): `replace` unifies a block with a procedure body and calls it; `insert_noop_call`."""

__all__ = []
