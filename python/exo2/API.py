"""The decorators that define kernels, and the `Procedure` object.

`@proc` / `@instr` parse a function (frontend/pyparser.py), hand the untyped
procedure to the core for typechecking and bounds checking, and wrap the
typed result in a `Procedure`. `@config` builds a `Config` object and
`@extern` an `Extern` (docs/writing-kernels.md, "Decorators").
"""

import inspect
import os
import types
from pathlib import Path
from typing import Annotated

from . import API_cursors, _core
from .api_arguments import checked
from .API_types import ExoType, ProcedureBase
from .backend import c_compiler, parallel_check
from .backend.c_compiler import compile_procs, compile_procs_to_strings
from .core import equivalence
from .core.configs import Config
from .core.extensions import InstrMetadata
from .core.extern import Extern, extern
from .core.memory import DRAM, Memory
from .core.printing import proc_to_str
from .errors import SchedulingError
from .frontend import pyparser
from .frontend.future_annotations import check_annotations_are_text
from .frontend.parse_fragment import ParseFragmentError
from .frontend.source import PythonScope, parse_definition
from .primitives import procedure_methods

__all__ = [
    "Procedure",
    "proc",
    "instr",
    "config",
    "extern",
    "Config",
    "Memory",
    "Extern",
    "DRAM",
    "SchedulingError",
    "ParseFragmentError",
    "ExoType",
    "compile_procs",
    "compile_procs_to_strings",
]


def _parse_procedure(f, frame, instr):
    """The checked `Procedure` of `f`, whose free names resolve in `frame`."""
    fdef, source = parse_definition(f)
    check_annotations_are_text(f, (fdef, source))
    scope = PythonScope(f.__globals__, frame.f_locals)
    untyped = pyparser.parse_procedure(fdef, source, scope, instr)
    return Procedure(_core.check_proc(untyped))


def _check_kernel_function(f, decorator):
    """TypeError unless `f` is a plain function defined with `def`."""
    if not isinstance(f, types.FunctionType):
        raise TypeError(f"{decorator} decorator must be applied to a function")
    if f.__name__ == "<lambda>":
        raise TypeError(
            f"{decorator} decorator must be applied to a function defined with "
            "`def`, not a lambda"
        )
    if inspect.iscoroutinefunction(f) or inspect.isgeneratorfunction(f):
        raise TypeError(
            f"{decorator} decorator must be applied to a plain function, not "
            f"the {'async' if inspect.iscoroutinefunction(f) else 'generator'} "
            f"function '{f.__name__}'"
        )


def proc(f):
    """`@proc`: the function's source becomes a kernel procedure."""
    _check_kernel_function(f, "@proc")
    frame = inspect.currentframe().f_back
    try:
        return _parse_procedure(f, frame, None)
    finally:
        del frame


def instr(c_instr, c_global="", **backend_fields):
    """`@instr(c_instr, c_global)`: a procedure emitted as the C text
    `c_instr` at each call site (docs/reference/memories-and-instructions.md,
    "Instructions").

    **[exo2]** Keyword-only fields describe the instruction to backends
    (`unit=cuda_warp`, `timeline="cp_async"`, `codegen=...`; see
    `exo2.core.extensions.InstrMetadata` and docs/cuda.md)."""
    if not isinstance(c_instr, str):
        raise TypeError("@instr decorator must be @instr(<your instruction>)")
    metadata = InstrMetadata(**backend_fields) if backend_fields else None

    if not isinstance(c_global, str):
        raise TypeError("@instr: c_global must be a string of C text")

    def parse_instr(f):
        _check_kernel_function(f, "@instr")
        frame = inspect.currentframe().f_back
        try:
            return _parse_procedure(f, frame, (c_instr, c_global, metadata))
        finally:
            del frame

    return parse_instr


@checked
def config(_cls=None, *, readwrite: bool = True):
    """`@config` / `@config(readwrite=False)`: a class of typed fields
    becomes a `Config` object."""

    def parse_config(cls):
        if not inspect.isclass(cls):
            raise TypeError("@config decorator must be applied to a class")
        node, source = parse_definition(cls)
        name, fields = pyparser.parse_config_class(node, source)
        return Config(name, fields, readwrite)

    if _cls is None:
        return parse_config
    return parse_config(_cls)


# Exo's message for a pattern that is not a string.
_PatternStr = Annotated[str, "expected a pattern string"]


class Procedure(ProcedureBase):
    """An immutable handle on one typed core procedure."""

    def __init__(self, proc, _provenance=None):
        """`proc` is a core procedure; `_provenance` (internal) records the
        parent and forwarding of a procedure made by a primitive."""
        super().__init__()
        if not isinstance(proc, _core.CoreProc):
            raise TypeError(
                "Procedure objects are made by @proc, @instr and the "
                f"scheduling operations, not from {type(proc)}"
            )
        self._proc = proc
        self._provenance = _provenance or _core.Provenance.root(proc)

    def name(self):
        return self._proc.name()

    def is_instr(self):
        return self._proc.is_instr()

    def get_instr(self):
        """The C template of an instruction."""
        return self._proc.c_instr()

    def __str__(self):
        return proc_to_str(self._proc)

    def __eq__(self, other):
        if not isinstance(other, Procedure):
            return False
        return self._proc == other._proc

    # Equality is structural, so Procedures are not hashable (as in Exo).
    __hash__ = None

    def _repr_markdown_(self):
        return "```python\n" + str(self) + "\n```"

    def symbol_table(self):
        """**[exo2]** Every variable of the typed procedure, in definition
        order, as `(name, kind, type, memory, srcinfo)` tuples: kind is
        "argument", "allocation", "loop iterator" or "window"; memory is the
        memory's name or None; srcinfo has `filename`, `lineno` and
        `col_offset`."""
        return _core.symbol_table(self._proc)

    def variables(self):
        """**[exo2]** `(name, kind)` of every variable, as in `symbol_table()`
        without the types, memories and source positions (which cost far
        more to build)."""
        return _core.variables(self._proc)

    def extern_names(self):
        """**[exo2]** The names of the extern functions the procedure calls
        (`select`, `sqrt`, ...), sorted, each once."""
        return _core.extern_names(self._proc)

    def c_code_str(self):
        """The header declarations and the C body of this procedure's
        library (docs/reference/generated-c.md)."""
        return c_compiler.c_code_str(self)

    @checked
    def compile_c(self, directory: str | os.PathLike, filename: str):
        """Writes `filename.c` and `filename.h` into `directory`."""
        compile_procs([self], Path(directory), f"{filename}.c", f"{filename}.h")

    def jit(self, **options):
        """**[exo2]** A Python callable running this procedure's compiled C
        on NumPy arrays (see `exo2.jit`)."""
        from .jit import jit

        return jit(self, **options)

    # ---------------------------------------------- #
    #     cursors (docs/cursors.md)
    # ---------------------------------------------- #

    def args(self):
        """An ArgListCursor over the parameters, or [] when there are none."""
        return API_cursors.proc_args(self)

    def body(self):
        """A BlockCursor over the whole body."""
        return API_cursors.proc_body(self)

    @checked
    def find(self, pattern: _PatternStr, many: bool = False):
        """The most specific cursor matching `pattern` (all of them, in a
        list, with `many=True`); SchedulingError when nothing matches."""
        return API_cursors.find(API_cursors.root_cursor(self), self, pattern, many)

    @checked
    def find_loop(self, pattern: _PatternStr, many: bool = False):
        """`find`, with `"i"` / `"i #k"` meaning `for i in _: _` / `... #k`."""
        return self.find(API_cursors.loop_pattern(pattern), many)

    @checked
    def find_alloc_or_arg(self, pattern: _PatternStr):
        """The parameter named `"x"`, else the allocation `x: _` (`"x #k"`
        selects the k-th); other strings are patterns."""
        return API_cursors.find_alloc_or_arg(self, pattern)

    @checked
    def find_all(self, pattern: _PatternStr):
        return self.find(pattern, many=True)

    @checked
    def forward(self, cur: API_cursors.Cursor):
        """The cursor of this procedure that corresponds to `cur`, a cursor
        of this procedure or of an ancestor."""
        return API_cursors.forward(self, cur)

    # ---------------------------------------------- #
    #     equivalence and new procedures (docs/reference/generated-c.md)
    # ---------------------------------------------- #

    @checked
    def is_eq(self, other: "Procedure"):
        """Whether `self` and `other` are recorded as strictly equivalent
        (derived from one another by primitives that change no config
        field's final value, or asserted with `unsafe_assert_eq`)."""
        return equivalence.is_eq(self, other)

    @checked
    def unsafe_assert_eq(
        self, other: Annotated["Procedure", "expected a procedure as argument"]
    ):
        """Records `self` and `other` as strictly equivalent, unchecked;
        returns `self`."""
        equivalence.assert_eq(self, other)
        return self

    def partial_eval(self, *args, **kwargs):
        """A new procedure with leading (positional) or named `size` /
        `index` / `bool` parameters fixed to the given values."""
        return procedure_methods.partial_eval(self, args, kwargs)

    def transpose(self, arg_cursor):
        """A new procedure in which the 2-D parameter at `arg_cursor` has
        its two dimensions swapped, in the signature and every use."""
        return procedure_methods.transpose(self, arg_cursor)

    @checked
    def add_assertion(
        self,
        assertion: Annotated[str, "assertion must be an Exo string"],
        configs: list | tuple | None = None,
    ):
        """A new procedure with `assertion` (Exo text, config reads
        resolved through `configs`) appended to the preconditions,
        unchecked."""
        return procedure_methods.add_assertion(self, assertion, configs)

    def check_parallel(self, sms=132, **sizes):
        """**[exo2]** The parallel check of this procedure's CUDA kernels:
        tier A, and tier B with values for the sizes (docs/cuda.md,
        "Checking a kernel"). Raises ParallelSafetyError."""
        return parallel_check.check_parallel(self, sms=sms, **sizes)

    sync_check = check_parallel

    def _render_marked(self, locations):
        """This procedure's text with the statements at `locations` marked
        (SchedulingError.render)."""
        return API_cursors.render_marked(self, locations)

    def INTERNAL_proc(self):
        """The core procedure (internal)."""
        return self._proc
