"""Instructions defined from generated source text.

A platform whose instructions come in families (one shape over several
precisions and vector widths, docs/platform-x86.md "How the families are
described") builds each instruction's definition as text and parses it here,
exactly as `@instr` parses a function written in a file. The text is
registered with `linecache` under a name that says where it came from, so
that an error located in a generated instruction can show its line.
"""

import ast
import linecache

from .. import _core
from ..API import Procedure
from ..frontend import pyparser
from ..frontend.source import PythonScope, SourceContext


def instr_from_text(text, c_instr, c_global, names, origin):
    """The `@instr(c_instr, c_global)` procedure of the definition `text`
    (`def name(...): ...`, no decorator), whose free names (memories,
    externs) resolve in the dict `names`. `origin` names the generator in
    error locations (`<origin: name>:line:col`)."""
    fdef = ast.parse(text).body[0]
    filename = f"<{origin}: {fdef.name}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    scope = PythonScope(names, names)
    untyped = pyparser.parse_procedure(
        fdef, SourceContext(filename, 0, 0), scope, (c_instr, c_global, None)
    )
    return Procedure(_core.check_proc(untyped))
