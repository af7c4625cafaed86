"""Messages that say what to do: a failed find names the loops or buffers
that are there (and the closest name), a misspelt type names the token
and the valid types, and a kernel file without `from __future__ import
annotations` is explained whichever way Python fails on it."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from exo2 import SchedulingError, proc
from exo2.API_scheduling import divide_loop
from exo2.frontend.pyparser import ParseError


@proc
def rows(n: size, m: size, x: f32[n, m]):
    for i in seq(0, n):
        t: f32
        t = 1.0
        for j in seq(0, m):
            x[i, j] = t


def test_failed_find_loop_lists_the_loops_and_the_closest_name():
    p = divide_loop(rows, "j", 4, ["jo", "ji"], tail="cut")
    with pytest.raises(SchedulingError) as info:
        p.find_loop("j")
    assert str(info.value).endswith(
        "failed to find matches\nPattern: for j in _: _\n"
        "Hint: did you mean `jo`? loops here: i, jo, ji"
    )
    with pytest.raises(SchedulingError) as info:
        p.find_loop("k")  # nothing close: the loops only
    assert str(info.value).endswith("Hint: loops here: i, jo, ji")
    with pytest.raises(SchedulingError) as info:
        p.find_loop("i").find("for jx in _: _")  # within a cursor
    assert "Hint: did you mean `jo`? loops here: i, jo, ji" in str(info.value)
    # a primitive given a loop name finds it the same way
    with pytest.raises(SchedulingError, match="did you mean `jo`"):
        divide_loop(p, "jj", 2, ["a", "b"], perfect=True)


def test_failed_find_of_a_buffer_lists_the_buffers():
    with pytest.raises(SchedulingError) as info:
        rows.find("tt : _")
    assert str(info.value).endswith("Hint: did you mean `t`? buffers here: x, t")
    with pytest.raises(SchedulingError) as info:
        rows.find("y[_] = _")
    assert str(info.value).endswith("Hint: buffers here: x, t")
    with pytest.raises(SchedulingError) as info:
        rows.find("x[_] += _")  # x is there: the rest of the pattern differs
    assert "Hint" not in str(info.value)


def kernel_file(tmp_path, source, name="kernel.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return path


def run_file(path):
    return subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize(
    "annotation,text",
    [
        ("n: szie", "unrecognized type 'szie' (did you mean 'size'?); the types are "
         "size, index, bool, stride and the precisions R, f16, bf16, f32, f64, i8, "
         "ui8, ui16, i32, with tensors `f32[n, m]` and windows `[f32][n, m]`"),
        ("n: size, x: f23[n]", "unrecognized type 'f23' (did you mean 'f32'?); "
         "the types are the precisions R,"),
        ("n: size, x: [f46][n]", "unrecognized type 'f46' (did you mean"),
        ("n: size, x: flaot[n]", "unrecognized type 'flaot'"),
    ],
)  # fmt: skip
def test_a_misspelt_type_is_named_with_the_valid_types(tmp_path, annotation, text):
    path = kernel_file(
        tmp_path,
        f"""
        from __future__ import annotations
        from exo2 import proc

        @proc
        def k({annotation}):
            pass
        """,
    )
    result = run_file(path)
    assert result.returncode != 0
    assert f"ParseError: {path}:6:" in result.stderr
    assert text in result.stderr


def test_a_misspelt_allocation_type_lists_the_precisions_only(tmp_path):
    with pytest.raises(ParseError) as info:

        @proc
        def k(n: size):
            t: f23
            pass

    message = str(info.value)
    assert "unrecognized type 'f23' (did you mean 'f32'?)" in message
    assert "size" not in message.split(";")[1]


def test_a_missing_future_import_is_explained_after_the_name_error(tmp_path):
    path = kernel_file(
        tmp_path,
        """
        from exo2 import proc

        @proc
        def k(n: size, x: f32[n]):
            pass
        """,
    )
    result = run_file(path)
    assert "NameError: name 'size' is not defined" in result.stderr
    assert result.stderr.rstrip().endswith(
        "exo2: 'size' is a type of the object language. exo2 kernels need "
        "`from __future__ import annotations` as the first statement of their "
        "file: without it Python evaluates annotations such as `n: size` and "
        "`x: f32[n]` when it runs the `def`, and they are not Python values; "
        "with it, they stay text that @proc parses (docs/writing-kernels.md)"
    )


def test_other_name_errors_get_no_explanation(tmp_path):
    path = kernel_file(tmp_path, "import exo2\nprint(undefined_name)\n")
    result = run_file(path)
    assert "NameError" in result.stderr and "exo2:" not in result.stderr


def test_a_missing_future_import_is_explained_when_the_names_exist(tmp_path):
    # the editor dummies define the names: f32[n] is evaluated, and fails
    path = kernel_file(
        tmp_path,
        """
        from exo2 import proc
        from exo2.frontend.syntax import *

        @proc
        def k(n: size, x: f32[n]):
            pass
        """,
    )
    result = run_file(path)
    assert "TypeError: `f32[...]` was evaluated by Python: exo2 kernels need " in (
        result.stderr
    )
    # only plain names: every annotation evaluates, and @proc says so
    path = kernel_file(
        tmp_path,
        """
        from exo2 import proc
        from exo2.frontend.syntax import size

        @proc
        def k(n: size):
            pass
        """,
        "plain.py",
    )
    result = run_file(path)
    assert (
        f"ParseError: {path}:6:0: the annotation of 'n' was evaluated: exo2 "
        "kernels need `from __future__ import annotations`"
    ) in result.stderr
