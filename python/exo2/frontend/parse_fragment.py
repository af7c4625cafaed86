"""Parsing of new-expression strings given to primitives (error class)."""


class ParseFragmentError(Exception):
    """A new-expression string given to a primitive could not be parsed."""
