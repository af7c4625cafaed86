"""exo2.stdlib.stdlib keeps its public names while its operations live in
modules by concern: `__all__` is the list recorded before the split, with
the operations added since at the end of their module's group
(tests/python/golden/stdlib_all.txt; a name added to the stdlib is added
there), and each name is the very object of the module that defines it."""

from __future__ import annotations

import importlib
from pathlib import Path

import exo2.stdlib.stdlib as stdlib

RECORDED = Path(__file__).parent / "golden" / "stdlib_all.txt"

OPERATION_MODULES = [
    "aliasing",
    "binding",
    "cleanup",
    "compute_staging",
    "instruction_selection",
    "interleaving",
    "loop_bounds",
    "reductions",
    "register_tiles",
    "staging",
    "statement_motion",
    "tiling",
    "vectorization",
]


def test_all_is_the_list_recorded_before_the_split():
    assert stdlib.__all__ == RECORDED.read_text().split()


def test_star_import_gives_every_recorded_name():
    namespace = {}
    exec("from exo2.stdlib.stdlib import *", namespace)
    assert set(RECORDED.read_text().split()) <= set(namespace)


def test_each_operation_is_the_object_its_module_defines():
    defined = {}
    for name in OPERATION_MODULES:
        module = importlib.import_module(f"exo2.stdlib.{name}")
        for attr, value in vars(module).items():
            if getattr(value, "__module__", None) == module.__name__:
                assert attr not in defined, f"{attr} defined twice"
                defined[attr] = value
    own = stdlib._OWN_NAMES
    assert set(own) <= set(defined)
    for name in own:
        assert getattr(stdlib, name) is defined[name]
