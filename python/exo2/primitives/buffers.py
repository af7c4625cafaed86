"""Buffer primitives (primitives.md §5, and the legacy autolift_alloc / autofission of §11): allocation placement, staging and binding."""

__all__ = []
