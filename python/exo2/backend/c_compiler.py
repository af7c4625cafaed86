"""Compiling procedures to C (procedure-and-codegen.md §2, §4).

The C++ core does the work; this module checks arguments, supplies the
default precision of `R` and writes files.
"""

import os
from pathlib import Path

from .. import _core
from ..api_arguments import checked
from .prec_analysis import get_default_prec


def _core_procs(proc_list):
    from ..API import Procedure

    if not isinstance(proc_list, list) or not all(
        isinstance(p, Procedure) for p in proc_list
    ):
        raise TypeError("expected a list of procedures")
    return [p.INTERNAL_proc() for p in proc_list]


@checked
def compile_procs_to_strings(proc_list, h_file_name: str | os.PathLike):
    """`(c_text, h_text)` of the library of `proc_list`, named after the
    stem of `h_file_name`."""
    return _core.compile_procs_to_strings(
        _core_procs(proc_list), str(h_file_name), str(get_default_prec())
    )


@checked
def compile_procs(
    proc_list,
    basedir: str | os.PathLike,
    c_file: str | os.PathLike,
    h_file: str | os.PathLike,
):
    """Writes `basedir / c_file` and `basedir / h_file`."""
    c_text, h_text = compile_procs_to_strings(proc_list, h_file)
    basedir = Path(basedir)
    (basedir / c_file).write_text(c_text)
    (basedir / h_file).write_text(h_text)


def c_code_str(proc):
    """Header declarations, a newline, then the C body (library
    `c_code_str`)."""
    decls, body, _configs = _core.compile_library(
        "c_code_str", _core_procs([proc]), str(get_default_prec())
    )
    return decls + "\n" + body
