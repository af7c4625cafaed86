"""Backend annotations (primitives.md §9): set_precision, set_window, set_memory."""

__all__ = []
