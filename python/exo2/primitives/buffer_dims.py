"""Buffer dimension primitives (primitives.md §5): resize, expand, rearrange, divide, multiply and unroll a buffer's dimensions."""

__all__ = []
