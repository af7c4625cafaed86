"""`Config`: a named struct of global fields that kernels read and write.

`@config` (exo2.API) parses the class and builds a `Config` object; the core
refers to it through a `_core.CoreConfig` that points back to it.
"""

from .. import _core


class ConfigError(Exception):
    """Reading or writing a `readwrite=False` config in generated code."""


# The field types a config may declare, in the order error messages list them.
FIELD_TYPES = ("bool", "size", "index", "stride", "f16", "f32", "f64", "i8", "i32")


class Config:
    """A configuration: `fields` is a list of `(name, type name)` pairs."""

    def __init__(self, name, fields, readwrite=True):
        self._name = name
        self._fields = [(field, _core.Type.scalar(typ)) for field, typ in fields]
        self._lookup = dict(self._fields)
        self._rw_ok = readwrite
        self._core = _core.CoreConfig(name, self._fields, readwrite, self)

    def name(self):
        return self._name

    def fields(self):
        """The fields as `(name, type)` pairs, in declaration order."""
        return list(self._fields)

    def has_field(self, fname):
        return fname in self._lookup

    def lookup_type(self, fname):
        return self._lookup[fname]

    def is_allow_rw(self):
        return self._rw_ok

    def c_struct_def(self):
        """The lines of the C struct that holds the fields (names C reserves
        are mangled, as everywhere in generated C)."""
        return list(_core.config_struct_def(self._core))

    def INTERNAL_core(self):
        """The core's view of this config (`_core.CoreConfig`)."""
        return self._core
