"""Kernel definitions used by the kernel tests (stable source locations)."""
