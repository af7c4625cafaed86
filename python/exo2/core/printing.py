"""`str(proc)`: the core's text, reformatted by yapf when a line is too long.

The core prints lines that fit exactly as yapf's pep8 style would; only
when some line exceeds 79 columns does yapf decide where to break
(spec/printing.md).
"""

from .. import _core

_COLUMN_LIMIT = 79


def format_proc_text(text):
    """Apply yapf's pep8 style when a line is longer than 79 columns."""
    if all(len(line) <= _COLUMN_LIMIT for line in text.splitlines()):
        return text
    from yapf.yapflib.yapf_api import FormatCode

    formatted, _ = FormatCode(text, style_config="pep8")
    return formatted.rstrip("\n")


def proc_to_str(core_proc):
    """The printed form of a core procedure."""
    return format_proc_text(_core.print_proc(core_proc))
