"""The CUDA examples (examples/cuda/*.py) as importable modules for the
tests."""

import importlib
import pathlib
import sys

_EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "cuda"


def load(name):
    """The module examples/cuda/<name>.py."""
    if str(_EXAMPLES) not in sys.path:
        sys.path.insert(0, str(_EXAMPLES))
    return importlib.import_module(name)
