"""Configuration primitives (primitives.md §7): bind_config, write_config, delete_config."""

__all__ = []
