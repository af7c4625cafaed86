"""Sub-procedure primitives (primitives.md §8): extract_subproc, inline, call_eqv; and the legacy add_unsafe_guard."""

__all__ = []
