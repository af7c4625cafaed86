"""`str(proc)`: the core's text, with lines that are too long reformatted
by yapf.

The core prints lines that fit exactly as yapf's pep8 style would; only a
line longer than 79 columns needs yapf to decide where to break it
(docs/reference/printing.md). yapf formats each logical line on its own, given its
indentation, so only the long lines are handed to it, each wrapped in
`if 1:` blocks that give it its indentation (and a `pass` body when it
opens a block): formatting a whole procedure costs ~0.1 s per call.
"""

import functools
import re

from .. import _core

_COLUMN_LIMIT = 79
_TRAILING_COMMENT = re.compile(r"\s+#[^\n]*$")
_INDENT = "    "


@functools.lru_cache(maxsize=8192)
def _format_line(line):
    """`line` (one statement, with its indentation) as yapf's pep8 style
    breaks it, a tuple of lines. Remembered: printing a cursor prints its
    whole procedure, whose long lines are the same from one statement's
    cursor to the next (a scheduling library describing the statements it
    could not rewrite printed them all again for each)."""
    from yapf.yapflib.yapf_api import FormatCode

    stripped = line.lstrip(" ")
    depth = (len(line) - len(stripped)) // len(_INDENT)
    # a cursor's marker (`if c:  # <-- NODE`) may follow the colon
    opens_block = _TRAILING_COMMENT.sub("", stripped).endswith(":")
    wrapper = [_INDENT * level + "if 1:" for level in range(depth)]
    snippet = [*wrapper, line]
    if opens_block:
        snippet.append(_INDENT * (depth + 1) + "pass")
    formatted, _ = FormatCode("\n".join(snippet) + "\n", style_config="pep8")
    lines = formatted.rstrip("\n").split("\n")[depth:]
    return tuple(lines[:-1] if opens_block else lines)


def format_proc_text(text):
    """`text` with every line longer than 79 columns broken as yapf's pep8
    style does."""
    lines = text.split("\n")
    if all(len(line) <= _COLUMN_LIMIT for line in lines):
        return text
    out = []
    for line in lines:
        # yapf never breaks a comment (such as an instruction's template).
        too_long = len(line) > _COLUMN_LIMIT and not line.lstrip().startswith("#")
        out.extend(_format_line(line) if too_long else [line])
    return "\n".join(out)


def proc_to_str(core_proc):
    """The printed form of a core procedure."""
    return format_proc_text(_core.print_proc(core_proc))
