"""Exception classes shared by several public modules.

`SchedulingError` is defined once here and re-exported by `exo2`,
`exo2.rewrite.LoopIR_scheduling` (and later the scheduling modules), so that
`except SchedulingError` catches it whichever path the user imported. At
import the class is registered with the core, which raises it for failed
safety conditions and aliased call arguments (docs/errors.md).
"""

import inspect
import linecache
import os
import re
import textwrap

from . import _core
from .API_types import ProcedureBase

# Exo's prefix of a SchedulingError raised outside any Procedure method.
_UNKNOWN_DIRECTIVE = "<<<unknown directive>>>"

# The kinds of SchedulingError, a stable name code can branch on
# (docs/errors.md, "Kinds of refusals").
KINDS = (
    "not-found",
    "bad-argument",
    "unsafe-reorder",
    "out-of-bounds",
    "unproven-bound",
    "not-equivalent",
    "used-later",
    "aliasing",
    "precondition",
    "unproven",
)

# The kind of a core refusal, by the name of the safety condition that failed
# (docs/reference/primitives.md, "Safety conditions"); the core names it in
# the report's `condition` (`Divisible(n, 4)`, `ReorderSafe(i, j)`, ...).
_KIND_OF_CONDITION = {
    # moving, splitting, repeating or evaluating again code changes results
    "Commute": "unsafe-reorder",
    "ReorderSafe": "unsafe-reorder",
    "FissionSafe": "unsafe-reorder",
    "NoCarriedFlow": "unsafe-reorder",
    "ReadsUnchanged": "unsafe-reorder",
    "Idempotent": "unsafe-reorder",
    # an access outside a buffer, or across the edge of a staged window
    "InBounds": "out-of-bounds",
    "InOrOut": "out-of-bounds",
    # an extent, bound or quotient the context does not imply
    "Bound": "unproven-bound",
    "Divisible": "unproven-bound",
    # the rewritten code would not compute the same values
    "ExprEqv": "not-equivalent",
    "ReduceOnly": "not-equivalent",
    # a value the rewrite deletes or changes is read afterwards
    "DeadAfter": "used-later",
    "ElementDeadAfter": "used-later",
    "ConfigInvisible": "used-later",
    "NoAlias": "aliasing",
}


def kind_of_condition(condition):
    """The kind of a core refusal whose report names `condition`: no
    condition is a refusal without a proof (the code or an argument is not
    one the primitive rewrites), "the precondition ... of f" and "the call
    to f ... is well-formed" are a callee's preconditions, and a condition
    the table does not name is "unproven"."""
    if not condition:
        return "bad-argument"
    if condition.startswith(("the precondition ", "the call to ")):
        return "precondition"
    match = re.match(r"\w+", condition)
    return _KIND_OF_CONDITION.get(match.group(0) if match else "", "unproven")


class SchedulingError(Exception):
    """A rewrite that cannot be proven safe, or is impossible.

    `SchedulingError(message, kind="bad-argument", **blobs)` prefixes the
    message with the name of the innermost public `Procedure` method running
    (or `<<<unknown directive>>>`) and appends one `Name: text` line per
    blob. `kind` is one of KINDS. The report attributes of docs/errors.md
    start empty; the layer that knows them fills them in.
    """

    def __init__(self, message, kind="bad-argument", **blobs):
        if kind not in KINDS:
            raise ValueError(
                f"SchedulingError kind must be one of {KINDS}, not {kind!r}"
            )
        text = f"{_innermost_procedure_method()}: {message}"
        for name, blob in blobs.items():
            text += _format_named_blob(name.title(), blob)
        super().__init__(text)
        _clear_report(self)
        self.kind = kind

    @classmethod
    def _from_core(cls, message, report):
        """The exception for a core `SchedulingError` and its report: `where`
        (file, line, col) or None, `condition`, `formula`, `counterexample`
        (` n = 9, i = 3`), `accesses` and `hint` (empty when unknown)."""
        exc = cls(message, kind=kind_of_condition(report["condition"]))
        if report["where"] is not None:
            file, line, col = report["where"]
            exc.location = (file, line, col if col >= 0 else None)
            _add_report_note(exc, _location_note(file, line, col))
        condition = report["condition"]
        if report["formula"]:
            condition += f" — {report['formula']} is not implied by the context"
        exc.condition = condition or None
        if exc.condition:
            _add_report_note(exc, f"Condition: {exc.condition}")
        exc.accesses = list(report["accesses"])
        for access in exc.accesses:
            _add_report_note(exc, f"Conflict: {access}")
        if report["counterexample"]:
            exc.counterexample = _counterexample_values(report["counterexample"])
            _add_report_note(exc, f"Counterexample: {report['counterexample'].strip()}")
        exc.hint = report["hint"] or None
        if exc.hint:
            _add_report_note(exc, f"Hint: {exc.hint}")
        return exc

    def _set_operation(self, op, op_stack, proc=None):
        """Records the primitive that failed, the user-level operations that
        led to it (outermost first) and the procedure it was applied to, as
        attributes and as the first note. A message that names no operation
        (`<<<unknown directive>>>`, what Exo prints for most refusals) then
        starts with the operation the user called instead."""
        self.op = op
        self.op_stack = list(op_stack)
        self.proc = proc
        called = self.op_stack[0][0] if self.op_stack else op
        text = str(self.args[0]) if self.args else ""
        if text.startswith(_UNKNOWN_DIRECTIVE + ": "):
            rest = text[len(_UNKNOWN_DIRECTIVE) + 2 :]
            # stdlib messages may name their operation already
            text = rest if rest.startswith(called + ":") else f"{called}: {rest}"
            self.args = (text, *self.args[1:])
        chain = " > ".join(
            f"{name} ({os.path.basename(file)}:{line})" if file else name
            for name, file, line in self.op_stack
        )
        _add_report_note(self, f"Operation: {chain}", first=True)

    def render(self):
        """The procedure the failed operation was applied to, printed with
        `# <-- NODE` after each statement the report points at (its
        `location` and the statements of its conflicting accesses), or None
        when the error names no procedure or no statement of it."""
        if self.proc is None:
            return None
        return self.proc._render_marked(self.locations())

    def locations(self):
        """`(file, line, col)` of every place the report names: `location`,
        then the conflicting accesses (`x[i] written at k.py:14:12`)."""
        found = [self.location] if self.location else []
        for access in self.accesses:
            match = re.search(r" at (.+):(\d+):(\d+)$", access)
            if match:
                found.append((match[1], int(match[2]), int(match[3])))
        return found


def _clear_report(exc):
    """Sets the report attributes of docs/errors.md to empty."""
    exc.op = None
    exc.op_stack = []
    exc.proc = None
    exc.accesses = []
    exc.location = None
    exc.condition = None
    exc.counterexample = None
    exc.hint = None


def _format_named_blob(name, blob):
    """`\\nName: text`, continuation lines indented past `Name: `."""
    text = textwrap.indent(str(blob).rstrip(), " " * (len(name) + 2)).strip()
    return f"\n{name}: {text}"


def _innermost_procedure_method():
    """Name of the innermost public method of a Procedure on the stack."""
    frame = inspect.currentframe()
    while frame is not None:
        code = frame.f_code
        # f_locals builds a dict: look only where a variable `self` exists
        if not code.co_name.startswith("_") and (
            "self" in code.co_varnames
            or "self" in code.co_cellvars
            or "self" in code.co_freevars
        ):
            if isinstance(frame.f_locals.get("self"), ProcedureBase):
                return code.co_name
        frame = frame.f_back
    return _UNKNOWN_DIRECTIVE


class KernelCheckError(TypeError):
    """A kernel that fails typechecking or bounds checking when defined.

    `str(e)` is Exo's text (`Errors occurred during typechecking:` and one
    `file:line:col: message` line per problem). `diagnostics` lists every
    problem as `(file, line, col, message)`; the report attributes of
    docs/errors.md describe the first one, and the notes show each
    problem's source line with a caret under its column.
    """

    def __init__(self, message, heading="", diagnostics=()):
        super().__init__(message)
        self.heading = heading
        self.diagnostics = list(diagnostics)
        _clear_report(self)
        if self.diagnostics:
            file, line, col, text = self.diagnostics[0]
            self.location = (file, line, col if col >= 0 else None)
            self.counterexample = _parse_counterexample(text)
        for diagnostic in self.diagnostics:
            _add_report_note(self, _location_note(*diagnostic[:3]))


class ParallelSafetyError(KernelCheckError):
    """**[exo2]** A CUDA kernel whose parallel execution may differ from its
    sequential meaning, or that breaks a structural rule of kernels
    (docs/cuda.md, "Checking a kernel"). `diagnostics` lists every
    violation: the element, the two statements, their threads and the
    task."""


# The heading of the parallel check's errors (core: backends/cuda).
_PARALLEL_HEADING = "Errors occurred during parallel checking:"


def _check_error(message, heading="", diagnostics=()):
    """The exception of a failed check the core reports."""
    cls = ParallelSafetyError if heading == _PARALLEL_HEADING else KernelCheckError
    return cls(message, heading, diagnostics)


class UnificationError(Exception):
    """`replace` cannot match a block against a sub-procedure's body.

    Raised by the core; re-exported by `exo2.rewrite.LoopIR_unification`.
    The report attributes of docs/errors.md are present and empty: the
    message itself names the mismatching pair.
    """

    def __init__(self, message):
        super().__init__(message)
        _clear_report(self)


def _parse_counterexample(text):
    """`{name: value}` from a message ending in `when:\n   n = 4, i = 4.`"""
    head, sep, values = text.partition(" when:\n")
    if not sep:
        return None
    return _counterexample_values(values)


def _counterexample_values(text):
    """`{name: value}` from ` n = 4, i = 4, Cfg.k = 9` (config fields by
    their dotted name; strides, printed `stride(x, 0) = 3`, are left out)."""
    pairs = re.findall(r"([\w.]+'?) = (-?\d+)", text)
    return {name: int(value) for name, value in pairs} or None


def _location_note(file, line, col):
    """`Location: file:line:col`, the source line, and a caret."""
    where = f"{file}:{line}" + (f":{col}" if col >= 0 else "")
    note = f"Location: {where}"
    source = linecache.getline(file, line).rstrip()
    if source:
        note += f"\n    {source}"
        if col >= 0:
            note += "\n    " + " " * col + "^"
    return note


def _add_report_note(exc, note, first=False):
    """Attaches a PEP 678 note (before the others with `first`) unless
    EXO2_PLAIN_ERRORS=1 asks for none."""
    if os.environ.get("EXO2_PLAIN_ERRORS") == "1":
        return
    notes = getattr(exc, "__notes__", None)
    if notes is None and hasattr(exc, "add_note"):
        exc.add_note(note)
    elif first:
        exc.__notes__ = [note, *(notes or [])]
    else:
        exc.__notes__ = [*(notes or []), note]


def _user_error(cls, message):
    """The exception `cls(message)` the core raises for a user's mistake,
    with the report attributes of every documented error (docs/errors.md)."""
    exc = cls(message)
    if not hasattr(exc, "hint"):
        _clear_report(exc)
    return exc


_core.register_error_classes(SchedulingError, _check_error, _user_error)
