"""An import alias `exo` -> `exo2`, so that code written for Exo runs on exo2
unchanged: `import exo.stdlib.scheduling` binds exo2's
`exo2.stdlib.scheduling` module object (the very same object, so classes and
exceptions compare identical whichever name imported them).

Used by the conformance run (`scripts/conformance.sh`, docs/internals/conformance.md)
to execute Exo's own test suite against exo2. A module path exo2 does not
have raises the usual `ModuleNotFoundError` naming the `exo...` path.
"""

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys


class ExoAliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """A meta-path finder that serves `alias` and `alias.*` with the
    already-imported modules of `target` and `target.*`."""

    def __init__(self, alias="exo", target="exo2"):
        self.alias = alias
        self.target = target
        # The target module's own spec, restored after the import machinery
        # has stamped the alias spec onto the shared module object.
        self._target_specs = {}

    def _target_name(self, fullname):
        if fullname == self.alias:
            return self.target
        if fullname.startswith(self.alias + "."):
            return self.target + fullname[len(self.alias) :]
        return None

    def find_spec(self, fullname, path=None, target=None):
        real = self._target_name(fullname)
        if real is None:
            return None
        try:
            real_spec = importlib.util.find_spec(real)
        except ModuleNotFoundError:
            return None
        if real_spec is None:
            return None
        return importlib.machinery.ModuleSpec(
            fullname,
            self,
            is_package=real_spec.submodule_search_locations is not None,
        )

    def create_module(self, spec):
        module = importlib.import_module(self._target_name(spec.name))
        self._target_specs[spec.name] = module.__spec__
        return module

    def exec_module(self, module):
        # The module already ran under its own name; only undo the spec
        # replacement so that `module.__spec__.name` stays `exo2...`.
        alias_name = module.__spec__.name
        module.__spec__ = self._target_specs.pop(alias_name)


def install(alias="exo", target="exo2"):
    """Puts the alias finder first on `sys.meta_path` (once)."""
    for finder in sys.meta_path:
        if isinstance(finder, ExoAliasFinder) and finder.alias == alias:
            return finder
    if alias in sys.modules and not getattr(
        sys.modules[alias], "__name__", ""
    ).startswith(target):
        raise ImportError(
            f"cannot alias '{alias}' to '{target}': the real '{alias}' is "
            "already imported"
        )
    finder = ExoAliasFinder(alias, target)
    sys.meta_path.insert(0, finder)
    return finder
