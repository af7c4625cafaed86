"""Where kernel code comes from: its source text, locations and Python scope.

A decorated function or class is re-read from its file, dedented and parsed
with `ast`; `SourceContext` maps `ast` positions back to the original file
(line of the definition, columns of the indented source), and `PythonScope`
holds the defining frame's names that kernel code may refer to.
"""

import ast
import copy
import functools
import inspect
import os
import textwrap

from .. import _core


def code_path(code):
    """The absolute path of the file `code` (a code object) comes from:
    what the frame walks that tell exo2's own modules from their callers
    compare, for every cursor and expression a scheduling library makes."""
    name = code.co_filename
    if os.path.isabs(name):
        return _normalized(name)
    return os.path.abspath(name)  # relative to the current directory


@functools.lru_cache(maxsize=512)
def _normalized(path):
    return os.path.normpath(path)


class ParseError(Exception):
    """Kernel syntax outside the object language; `file:line:col: text`."""

    # Users know the class by its documented path (docs/errors.md).
    __module__ = "exo2.frontend.pyparser"


class SourceContext:
    """Maps positions of the dedented `ast` back to the user's file."""

    def __init__(self, filename, line_offset, col_offset):
        self.filename = filename
        self.line_offset = line_offset
        self.col_offset = col_offset

    def position(self, node):
        """`(line, col)` of `node` in the user's file."""
        return node.lineno + self.line_offset, node.col_offset + self.col_offset

    def srcinfo(self, node):
        line, col = self.position(node)
        return _core.SrcInfo(self.filename, line, col)

    def make_error(self, node, text):
        """The ParseError `file:line:col: text` located at `node`."""
        line, col = self.position(node)
        return ParseError(f"{self.filename}:{line}:{col}: {text}")

    def error(self, node, text):
        raise self.make_error(node, text)


class CallSiteContext(SourceContext):
    """Places every node of a fragment parsed from a string (a new
    expression given to a primitive) at the user's call, `(filename, line,
    col)`: the string's own positions mean nothing in the user's file."""

    def __init__(self, filename, line, col):
        # The offsets put the fragment's line 1 on the call's line, for the
        # Python code an unquote evaluates.
        super().__init__(filename, line - 1, 0)
        self.line, self.col = line, col

    def position(self, node):
        return self.line, self.col


def parse_definition(obj):
    """The `ast` node of a function or class definition and its context."""
    try:
        lines, first_line = inspect.getsourcelines(obj)
    except OSError as e:
        raise OSError(
            f"cannot read the source code of '{obj.__qualname__}': exo2 parses "
            "kernels from their source text, so define them in a file (not in "
            "an interactive prompt or `python -c`)"
        ) from e
    raw = "".join(lines)
    src = textwrap.dedent(raw)
    dedent = len(raw.split("\n", 1)[0]) - len(src.split("\n", 1)[0])
    module = ast.parse(src)
    context = SourceContext(inspect.getsourcefile(obj), first_line - 1, dedent)
    return module.body[0], context


class PythonScope:
    """The Python names visible to kernel code: names defined by earlier
    `with python:` blocks of the kernel, then the defining frame's locals,
    then its globals."""

    def __init__(self, globals_, locals_):
        self.globals = globals_
        self.locals = locals_
        self.defined = {}

    def define(self, names):
        """Makes `names` (a dict) visible to the rest of the kernel, as
        assignments in a `with python:` block are (docs/writing-kernels.md,
        "Metaprogramming")."""
        self.defined.update(names)

    def lookup(self, name):
        """`(True, value)` for a bound name, `(False, None)` otherwise."""
        for mapping in (self.defined, self.locals, self.globals):
            if name in mapping:
                return True, mapping[name]
        return False, None

    def eval(self, node, source):
        """Evaluate the Python expression `node` in this scope."""
        expression = ast.Expression(body=copy.deepcopy(node))
        ast.increment_lineno(expression, source.line_offset)
        code = compile(expression, source.filename, "eval")
        return eval(code, self.globals, {**self.own_locals()})

    def own_locals(self):
        """The local names (none of a module's own scope), including those
        defined by earlier `with python:` blocks."""
        frame_locals = {} if self.locals is self.globals else self.locals
        return {**frame_locals, **self.defined}
