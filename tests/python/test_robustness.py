"""Bad input gets a documented error (docs/errors.md), never a crash or an
internal exception: one regression test per class of mistake found by hand
and by the fuzzer (tests/fuzz/), each asserting the class, the key words of
the message and, where the mistake is in the user's code, its location."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from exo2 import DRAM, ParseFragmentError, SchedulingError, _core, config, instr, proc
from exo2.API_cursors import InvalidCursor, InvalidCursorError
from exo2.errors import KernelCheckError
from exo2.frontend.pyparser import ParseError
from exo2.main import Exo2cError, exo2c
from exo2.stdlib.scheduling import (
    add_loop,
    cut_loop,
    divide_loop,
    divide_with_recompute,
    expand_dim,
    fission,
    make_instr,
    rename,
    rewrite_expr,
    set_memory,
    shift_loop,
    specialize,
)

THIS_FILE = os.path.abspath(__file__)


@proc
def scale(n: size, x: f32[n]):
    for i in seq(0, n):
        x[i] = 2.0 * x[i]


@proc
def with_buffer(n: size, x: f32[n]):
    tmp: f32[n]
    for i in seq(0, n):
        tmp[i] = x[i]
        x[i] = tmp[i]


def line_of(marker):
    """The line of this file that contains `marker` (a comment)."""
    lines = Path(THIS_FILE).read_text().splitlines()
    return next(k + 1 for k, line in enumerate(lines) if marker in line)


# --------------------------------------------------------------------------- #
# Wrong-kind new expressions (segfaults before)


@pytest.mark.parametrize("new_lo", [True, False, "True", "n > 1"])
def test_shift_loop_refuses_a_bool_new_lower_bound(new_lo):
    with pytest.raises(KernelCheckError) as e:
        shift_loop(scale, "i", new_lo)
    assert str(e.value).startswith(
        "argument 2, 'new_lo' to shift_loop: expected size or index type "
        "expression, but got type bool"
    )


@pytest.mark.parametrize(
    "call, argument",
    [
        (lambda: add_loop(scale, scale.find("x[_] = _"), "k", "n > 1"), "3, 'hi_expr'"),
        (lambda: cut_loop(scale, "i", "n > 1"), "2, 'cut_point'"),
        (lambda: cut_loop(scale, "i", "x[0]"), "2, 'cut_point'"),
        (
            lambda: divide_with_recompute(scale, "i", True, 4, ["io", "ii"]),
            "2, 'outer_hi'",
        ),
        (
            lambda: rewrite_expr(scale, scale.find_loop("i").hi(), "n > 1"),
            "2, 'new_expr'",
        ),
        (lambda: expand_dim(with_buffer, "tmp", "n > 1", "0"), "2, 'alloc_dim'"),
    ],
)
def test_new_expressions_of_the_wrong_kind_are_type_errors_naming_the_argument(
    call, argument
):
    with pytest.raises(KernelCheckError) as e:
        call()
    assert str(e.value).startswith(f"argument {argument} to ")
    assert "expected size or index type expression, but got type" in str(e.value)


def test_frames_are_placed_by_their_file_even_when_their_code_is_equal():
    # New expressions see the names of the innermost frame outside exo2;
    # which frames those are is decided per file, and Python compares code
    # objects by content, not file: equal code elsewhere is still the user's.
    from exo2.primitives import new_expressions

    source = "def helper():\n    return 1\n"
    inside = new_expressions._stdlib_dir() + "/a_scheduling_library.py"
    in_stdlib = compile(source, inside, "exec").co_consts[0]
    in_user_file = compile(source, "/elsewhere/user.py", "exec").co_consts[0]
    assert in_stdlib == in_user_file
    assert new_expressions._place(in_stdlib) == "stdlib"
    assert new_expressions._place(in_user_file) == "user"


def test_rewrite_expr_needs_the_kind_of_the_expression_it_replaces():
    with pytest.raises(KernelCheckError, match="expected a data .numeric scalar"):
        rewrite_expr(scale, scale.find("2.0 * x[i]"), "n")


def test_the_core_refuses_a_wrong_kind_expression_passed_around_python():
    # Defence in depth: the C++ primitive types its new expression too.
    loop = scale.find_loop("i")
    here = _core.SrcInfo(THIS_FILE, 1, 0)
    with pytest.raises(TypeError, match="expected size or index type expression"):
        _core.shift_loop(scale._provenance, loop._impl, _core.const(True, here))
    with pytest.raises(TypeError, match="expected a bool expression"):
        _core.add_unsafe_guard(
            scale._provenance, loop.as_block()._impl, _core.const(3, here)
        )


def test_add_assertion_names_its_argument_when_it_is_not_a_condition():
    with pytest.raises(KernelCheckError) as e:
        scale.add_assertion("n + 1")
    assert str(e.value).startswith(
        "argument 1, 'assertion' to add_assertion: expected a bool expression"
    )
    with pytest.raises(TypeError, match="configs must be a list of Config objects"):
        scale.add_assertion("n > 1", [1])


def test_new_expression_errors_point_at_the_users_call():
    with pytest.raises(KernelCheckError) as e:
        cut_loop(scale, "i", "x[0]")  # the cut_loop call
    assert e.value.location[:2] == (THIS_FILE, line_of("# the cut_loop call"))
    assert e.value.location[2] == 8


# --------------------------------------------------------------------------- #
# Numbers and names that do not fit


def test_integer_literals_beyond_64_bits_are_parse_errors():
    with pytest.raises(ParseError) as e:

        @proc
        def big(x: f32[4]):
            x[0] = 9223372036854775808  # the big literal

    assert str(e.value).startswith(f"{THIS_FILE}:{line_of('# the big literal')}:19: ")
    assert "integer literal 9223372036854775808 does not fit in 64 bits" in str(e.value)


@pytest.mark.parametrize("value", [2**64, "9223372036854775808"])
def test_huge_numbers_in_new_expressions_are_parse_fragment_errors(value):
    with pytest.raises(ParseFragmentError, match="does not fit in 64 bits"):
        cut_loop(scale, "i", value)


@pytest.mark.parametrize("value", [2**31, 2**63, 2**64, -(2**63)])
def test_integer_arguments_beyond_32_bits_are_type_errors(value):
    with pytest.raises(
        TypeError, match=r"argument 2, 'div_const' to divide_loop: expected"
    ):
        divide_loop(scale, "i", value, ["io", "ii"])


@pytest.mark.parametrize("name", ["while", "None", "True", "lambda"])
def test_python_keywords_are_not_names(name):
    with pytest.raises(TypeError, match=f"not the Python keyword '{name}'"):
        rename(scale, name)


def test_non_ascii_names_are_refused():
    with pytest.raises(TypeError, match="expected a valid name"):
        rename(scale, "é")


# --------------------------------------------------------------------------- #
# Kernels that name what is not there


def test_a_procedure_calling_itself_is_a_parse_error_at_the_call():
    with pytest.raises(ParseError) as e:

        @proc
        def r(n: size, x: f32[n]):
            r(n, x)  # the recursive call

    assert str(e.value).startswith(
        f"{THIS_FILE}:{line_of('# the recursive call')}:12: "
    )
    assert "procedure 'r' cannot call itself" in str(e.value)


def test_an_undefined_memory_is_a_parse_error():
    with pytest.raises(ParseError, match="could not evaluate 'NOPE': NameError"):

        @proc
        def k(n: size, x: f32[n] @ NOPE):
            pass


def test_writing_a_field_of_a_variable_is_a_parse_error():
    with pytest.raises(ParseError, match="'x' is a variable of the kernel"):

        @proc
        def k(n: size, x: f32[n]):
            x.scale = 2.0


def test_an_unknown_config_in_a_new_expression_is_a_parse_fragment_error():
    with pytest.raises(
        ParseFragmentError, match="Nope not found in the current environment"
    ):
        cut_loop(scale, "i", "Nope.s")


# --------------------------------------------------------------------------- #
# Public methods, decorators and arguments of the wrong kind


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: scale.forward(5), "argument 1, 'cur' to forward: expected a Cursor"),
        (lambda: scale.is_eq(5), "argument 1, 'other' to is_eq: expected a Procedure"),
        (
            lambda: scale.find("x[_] = _").is_ancestor_of(5),
            "argument 1, 'other' to is_ancestor_of: expected a Cursor",
        ),
        (lambda: scale.find("x[_] = _").next(2**40), "expected an int in"),
        (lambda: scale.find("x[_] = _").expand(None, 2**63), "expected an int in"),
        (lambda: scale.find("x[_] = _").next("1"), "expected an int, not"),
        (
            lambda: scale.find("x", many=1),
            "argument 2, 'many' to find: expected a bool",
        ),
        (lambda: set_memory(scale, None, DRAM), "argument 1, 'cursor' to set_memory"),
        (lambda: proc(lambda n: n), "not a lambda"),
    ],
)
def test_arguments_of_the_wrong_kind_are_type_errors(call, message):
    with pytest.raises(TypeError, match=message):
        call()


def test_the_invalid_cursor_and_other_procedures_cursors_in_is_ancestor_of():
    loop = scale.find_loop("i")
    with pytest.raises(InvalidCursorError):
        loop.is_ancestor_of(InvalidCursor())
    assert not loop.is_ancestor_of(with_buffer.find("x[_] = _"))
    assert loop.is_ancestor_of(scale.find("x[_] = _"))


def test_cursor_indices_out_of_range_are_index_errors():
    body = scale.find_loop("i").body()
    with pytest.raises(IndexError, match="cursor index 5 out of range for 1 items"):
        body[5]
    with pytest.raises(IndexError, match="out of range"):
        scale.find("x[_] = _").idx()[3]


def test_config_readwrite_must_be_a_bool():
    with pytest.raises(
        TypeError, match="argument 1, 'readwrite' to config: expected a bool"
    ):

        @config(readwrite="yes")
        class C:
            a: f32


def test_decorating_an_async_function_is_a_type_error():
    with pytest.raises(TypeError, match="not the async function 'k'"):

        @proc
        async def k(n: size, x: f32[n]):
            pass


def test_extern_templates_are_checked_when_defined():
    from exo2 import extern

    with pytest.raises(
        TypeError, match=r"uses the unknown key \{zz\}; the keys are ctype, a"
    ):

        @extern("f({zz})")
        def f(a):
            return a


def test_instruction_templates_are_checked_at_the_definition():
    with pytest.raises(KernelCheckError) as e:

        @instr("{zz} = {x_data};")
        def k(x: [f32][1]):  # the instruction
            x[0] = 1.0

    assert "uses the unknown key 'zz'; the keys are x, x_data, x_int" in str(e.value)
    assert e.value.location[:2] == (THIS_FILE, line_of("# the instruction"))


def test_make_instr_refuses_a_template_that_cannot_be_filled():
    with pytest.raises(SchedulingError, match="a '\\{' at offset 0 is never closed"):
        make_instr(scale, "{ x", "")


# --------------------------------------------------------------------------- #
# Invalid input accepted before


@pytest.mark.parametrize("value", [-3, 0])
def test_partial_eval_refuses_sizes_that_are_not_positive(value):
    with pytest.raises(
        SchedulingError, match=f"size parameter n to {value}: sizes are positive"
    ):
        scale.partial_eval(value)


def test_partial_eval_refuses_values_beyond_32_bits():
    with pytest.raises(SchedulingError, match="control values must lie in"):
        scale.partial_eval(2**40)


def test_an_aliased_call_names_the_call_at_definition_time():
    @proc
    def g(a: f32[4], b: f32[4]):
        a[0] = b[0]

    with pytest.raises(SchedulingError) as e:

        @proc
        def k(x: f32[4]):
            g(x, x)  # the aliased call

    assert "Cannot Pass the same buffer 'x'" in str(e.value)
    assert e.value.location == (THIS_FILE, line_of("# the aliased call"), 12)


def test_core_argument_checks_are_documented_value_errors():
    # fission at the edge of a body: the core's own check, with the report.
    with pytest.raises(ValueError, match="gap between statements, not at an edge") as e:
        fission(scale, scale.find("x[_] = _").after())
    assert e.value.hint is None and e.value.op_stack == []


def test_specialize_refuses_a_non_condition_in_exos_words():
    with pytest.raises(SchedulingError, match="Invalid specialization condition."):
        specialize(scale, scale.find_loop("i"), "n + 2")


# --------------------------------------------------------------------------- #
# exo2c


KERNELS = """
from __future__ import annotations
from exo2 import proc
__all__ = ["scale"{extra}]

@proc
def scale(n: size, x: f32[n]):
    for i in seq(0, n):
        x[i] = 2.0 * x[i]
"""


def run_exo2c(*args, cwd):
    result = subprocess.run(
        [sys.executable, "-m", "exo2.main", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
    )
    return result.returncode, result.stderr


def test_exo2c_reports_an_undefined_name_in_all_on_one_line(tmp_path):
    src = tmp_path / "lib.py"
    src.write_text(KERNELS.format(extra=', "gemv"'))
    code, err = run_exo2c(str(src), cwd=tmp_path)
    assert code == 1
    assert err.endswith(
        f": error: {src}: __all__ names 'gemv', which the module does not "
        "define; define it or remove it from __all__\n"
    )
    assert err.count("\n") == 1
    assert not (tmp_path / "lib").exists()


def test_exo2c_reports_an_unwritable_output_directory(tmp_path):
    src = tmp_path / "lib.py"
    src.write_text(KERNELS.format(extra=""))
    blocker = tmp_path / "file"
    blocker.write_text("")
    code, err = run_exo2c("-o", str(blocker / "out"), str(src), cwd=tmp_path)
    assert code == 1 and err.count("\n") == 1
    assert "cannot write to the output directory" in err and "choose a writable" in err


def test_exo2c_leaves_no_output_directory_for_a_missing_source(tmp_path):
    code, err = run_exo2c("-o", str(tmp_path / "out"), "missing.py", cwd=tmp_path)
    assert code == 1 and err.count("\n") == 1
    assert "Expected path to a file, got: missing.py" in err
    assert not (tmp_path / "out").exists()
    with pytest.raises(Exo2cError):
        exo2c("-o", str(tmp_path / "out"), str(tmp_path / "missing.py"))
    assert not (tmp_path / "out").exists()


def test_exo2c_reports_kernel_errors_with_their_location(tmp_path):
    src = tmp_path / "bad.py"
    src.write_text(
        textwrap.dedent(
            """
            from __future__ import annotations
            from exo2 import proc

            @proc
            def bad(n: size, x: f32[n]):
                for i in seq(0, n):
                    x[i + 1] = 0.0
            """
        )
    )
    code, err = run_exo2c(str(src), cwd=tmp_path)
    assert code == 1 and err.count("\n") == 1
    assert f"{src}:8:8: x is written out-of-bounds when: n = 1, i = 0." in err


def test_exo2c_usage_errors_exit_with_status_2(tmp_path):
    src = tmp_path / "lib.py"
    src.write_text(KERNELS.format(extra=""))
    code, err = run_exo2c("-s", "a/b", str(src), cwd=tmp_path)
    assert code == 2 and "must be a plain file name" in err
