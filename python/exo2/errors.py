"""Exception classes shared by several public modules.

`SchedulingError` is defined once here and re-exported by `exo2`,
`exo2.rewrite.LoopIR_scheduling` (and later the scheduling modules), so that
`except SchedulingError` catches it whichever path the user imported. At
import the class is registered with the core, which raises it for failed
safety conditions and aliased call arguments (spec/errors.md §2).
"""

import inspect
import textwrap

from . import _core
from .API_types import ProcedureBase


class SchedulingError(Exception):
    """A rewrite that cannot be proven safe, or is impossible.

    `SchedulingError(message, **blobs)` prefixes the message with the name of
    the innermost public `Procedure` method running (or
    `<<<unknown directive>>>`) and appends one `Name: text` line per blob.
    The report attributes of spec/errors.md §4 start empty; the layer that
    knows them fills them in.
    """

    def __init__(self, message, **blobs):
        text = f"{_innermost_procedure_method()}: {message}"
        for name, blob in blobs.items():
            text += _format_named_blob(name.title(), blob)
        super().__init__(text)
        self.op = None
        self.op_stack = []
        self.location = None
        self.condition = None
        self.counterexample = None
        self.hint = None


def _format_named_blob(name, blob):
    """`\\nName: text`, continuation lines indented past `Name: `."""
    text = textwrap.indent(str(blob).rstrip(), " " * (len(name) + 2)).strip()
    return f"\n{name}: {text}"


def _innermost_procedure_method():
    """Name of the innermost public method of a Procedure on the stack."""
    frame = inspect.currentframe()
    while frame is not None:
        owner = frame.f_locals.get("self")
        method = frame.f_code.co_name
        if isinstance(owner, ProcedureBase) and not method.startswith("_"):
            return method
        frame = frame.f_back
    return "<<<unknown directive>>>"


_core.register_error_classes(SchedulingError)
