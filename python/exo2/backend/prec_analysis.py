"""The default precision that the generic real type `R` is lowered to."""

from .. import _core

_PRECISIONS = ("f16", "f32", "f64", "i8", "i32")
_default_prec = "f32"


def set_default_prec(name):
    """Make `R` mean the precision `name` (one of f16 f32 f64 i8 i32)."""
    global _default_prec
    if name not in _PRECISIONS:
        raise TypeError(
            f"Got {name}, but expected one of the following precision types: "
            + ",".join(_PRECISIONS)
        )
    _default_prec = name


def get_default_prec():
    """The current default precision, as a core `Type`."""
    return _core.Type.scalar(_default_prec)
