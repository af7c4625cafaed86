"""Malformed kernels raise the documented error class with the documented
`file:line:col: message` text (spec/object-language.md, spec/errors.md §2).

The kernels live in kernels/malformed.py, one factory per kernel; the line an
error points at carries the marker comment `# ERR`, and the column is that
of an anchor text on the marker line.
"""

# ruff: noqa: ISC004

import inspect
import re

import pytest
from exo2 import SchedulingError, config, instr, proc
from exo2.frontend.pyparser import ParseError
from kernels import malformed

TYPECHECK = "Errors occurred during typechecking:\n"
EFFECT = "Errors occurred during effect checking:\n"

BAD_LOOP = (
    "expected for loop condition to be in the form 'par(...,...)' or 'seq(...,...)'"
)
BAD_STRIDE = (
    "expected stride(...) to have exactly 2 arguments: the identifier for the "
    "buffer we are talking about and an integer specifying which dimension"
)
BAD_WINDOW_STEP = (
    "expected windowing to have the form x[:], x[i:], x[:j], or x[i:j], "
    "but not x[i:j:k]"
)
CONFIG_TYPES = (
    "expected one of the following types: "
    "bool, size, index, stride, f16, f32, f64, i8, i32"
)


def location(factory, anchor):
    """`file:line:col` of `anchor` on the `# ERR` line of `factory`."""
    lines, first = inspect.getsourcelines(factory)
    marked = [i for i, line in enumerate(lines) if line.rstrip().endswith("# ERR")]
    assert len(marked) == 1, f"{factory.__name__}: expected one '# ERR' line"
    line = lines[marked[0]]
    assert anchor in line, f"{factory.__name__}: anchor {anchor!r} not on {line!r}"
    filename = inspect.getsourcefile(factory)
    return f"{filename}:{first + marked[0]}:{line.index(anchor)}"


def raise_from(factory, exc_class):
    with pytest.raises(Exception) as info:
        factory()
    e = info.value
    # No C++ (pybind11) exception type may leak to users.
    module = type(e).__module__
    assert module == "builtins" or module.split(".")[0] == "exo2", (
        f"{type(e)!r} leaked: {e}"
    )
    assert isinstance(e, exc_class), (
        f"expected {exc_class.__name__}, got {type(e)!r}: {e}"
    )
    return e


# (factory name, expected class, kind, anchor, message).
# kind: "parse"     str(e) == "<loc>: <message>"
#       "typecheck" str(e) == "Errors occurred during typechecking:\n<loc>: <message>"
#       "effect"    str(e) == "Errors occurred during effect checking:\n<loc>: <message>"
#       "regex"     re.fullmatch(message, str(e)) with LOC replaced by re.escape(<loc>)
CASES = [
    # signatures and preconditions
    (
        "unannotated_param",
        ParseError,
        "parse",
        "x)",
        "expected argument to be typed, i.e. 'x : T'",
    ),
    (
        "return_annotation",
        ParseError,
        "parse",
        "def",
        "Exo does not support function return types",
    ),
    (
        "memory_on_size",
        ParseError,
        "parse",
        "size @",
        "size types should not be annotated with memory locations",
    ),
    (
        "memory_on_index",
        ParseError,
        "parse",
        "index @",
        "size types should not be annotated with memory locations",
    ),
    (
        "memory_on_bool",
        ParseError,
        "parse",
        "bool @",
        "size types should not be annotated with memory locations",
    ),
    (
        "memory_on_stride",
        ParseError,
        "parse",
        "stride @",
        "stride types should not be annotated with memory locations",
    ),
    (
        "assert_with_message",
        ParseError,
        "parse",
        "assert",
        "Exo procedure assertions should not have messages",
    ),
    (
        "assert_after_start",
        ParseError,
        "parse",
        "assert",
        "predicate assert should happen at the beginning of a function",
    ),
    (
        "unsatisfiable_precondition",
        TypeError,
        "regex",
        "n < 1",
        re.escape(EFFECT)
        + r"(LOC: )?The assertion n < 1 at LOC is always unsatisfiable\.",
    ),
    (
        "precondition_not_bool",
        TypeError,
        "typecheck",
        "n + 1",
        "expected a bool expression",
    ),
    # statements
    (
        "alloc_with_value",
        ParseError,
        "parse",
        "t: f32",
        "Variable declaration should not have value assigned",
    ),
    (
        "alloc_target_not_name",
        ParseError,
        "parse",
        "x[0]",
        "expected simple name in declaration",
    ),
    (
        "alloc_of_size",
        ParseError,
        "parse",
        "size",
        "Cannot allocate an intermediate value of type size",
    ),
    (
        "alloc_of_window_type",
        ParseError,
        "parse",
        "[f32]",
        "Window expression such as [R] should only be used in the function signature",
    ),
    (
        "assign_undefined_not_window",
        TypeError,
        "typecheck",
        "y =",
        "unable to disambiguate assignment to undefined variable 'y'",
    ),
    (
        "slice_on_lhs",
        ParseError,
        "parse",
        "x[0:2]",
        "cannot perform windowing on left-hand-side of an assignment",
    ),
    (
        "minus_equals",
        ParseError,
        "parse",
        "x[0]",
        "only += reductions currently supported",
    ),
    (
        "times_equals",
        ParseError,
        "parse",
        "x[0]",
        "only += reductions currently supported",
    ),
    ("for_else", ParseError, "parse", "for", "else clause on for-loops unsupported"),
    ("loop_over_range", ParseError, "parse", "range(n)", BAD_LOOP),
    (
        "seq_with_three_args",
        ParseError,
        "parse",
        "seq(",
        "par() and seq() expects exactly 2 arguments",
    ),
    (
        "seq_with_named_args",
        ParseError,
        "parse",
        "seq(",
        "par() and seq() does not support named arguments",
    ),
    ("while_loop", ParseError, "parse", "while", "unsupported type of statement"),
    (
        "write_to_size",
        ParseError,
        "parse",
        "n = 3",
        "cannot write to size variable 'n'",
    ),
    (
        "write_to_index",
        TypeError,
        "typecheck",
        "k = 3",
        "cannot assign/reduce to 'k', a non-numeric variable of type 'index'",
    ),
    (
        "loop_bounds_reversed",
        TypeError,
        "effect",
        "for",
        "expected expression n - 2 to always be non-negative. It can be negative when:\n"
        "   n = 1.",
    ),
    (
        "loop_bounds_from_a_config_field",
        TypeError,
        "effect",
        "for",
        "expected expression TileCfg.pos to always be non-negative. It can be "
        "negative when:\n   TileCfg.pos = -1.",
    ),
    (
        "loop_bounds_constant_and_reversed",
        TypeError,
        "effect",
        "for",
        "expected expression 3 - 5 to always be non-negative. It can be negative "
        "when:\n   (always: the condition depends on no variable).",
    ),
    (
        "config_write_depends_on_loop",
        TypeError,
        "typecheck",
        "TileCfg.pos",
        "expected writes to configuration TileCfg.pos does not depend on loop iterations",
    ),
    # expressions
    ("unknown_name", ParseError, "parse", "qqq", "variable 'qqq' undefined"),
    ("not_equal", ParseError, "parse", "n != 4", "unsupported binary operator: !="),
    (
        "floor_division",
        ParseError,
        "parse",
        "n // 2",
        "unsupported binary operator: //",
    ),
    ("power", ParseError, "parse", "x[1] **", "unsupported binary operator: **"),
    ("bit_and", ParseError, "parse", "n & 1", "unsupported binary operator: &"),
    ("is_operator", ParseError, "parse", "n is n", "unsupported binary operator: is"),
    ("unary_not", ParseError, "parse", "not n", "unsupported unary operator: not"),
    ("unary_plus", ParseError, "parse", "+x[1]", "unsupported unary operator: +"),
    ("unary_invert", ParseError, "parse", "~n", "unsupported unary operator: ~"),
    (
        "conditional_expression",
        ParseError,
        "parse",
        "1.0 if",
        "unsupported form of expression",
    ),
    (
        "non_affine_index",
        TypeError,
        "typecheck",
        "i * i",
        "cannot multiply two non-constant indexing/sizing expressions, since the "
        "result would be non-affine",
    ),
    (
        "divide_by_zero",
        TypeError,
        "typecheck",
        "0]",
        "cannot divide or modulo by zero or a negative value",
    ),
    (
        "modulo_by_negative",
        TypeError,
        "typecheck",
        "-2",
        "cannot divide or modulo by zero or a negative value",
    ),
    (
        "divide_by_non_constant",
        TypeError,
        "typecheck",
        "n]",
        "cannot divide or modulo by a non-constant value",
    ),
    (
        "modulus_of_real",
        TypeError,
        "typecheck",
        "x[1] %",
        "cannot compute modulus of 'R' values",
    ),
    (
        "arithmetic_on_bool",
        TypeError,
        "typecheck",
        "b + 1",
        "cannot perform arithmetic on 'bool' values",
    ),
    (
        "arithmetic_on_stride",
        TypeError,
        "typecheck",
        "stride(x, 0) + 1",
        "cannot perform arithmetic on 'stride' values",
    ),
    (
        "data_mixed_with_control",
        TypeError,
        "typecheck",
        "n  # ERR",
        "expected scalar type",
    ),
    # Each data operand of a comparison is reported.
    (
        "data_dependent_if",
        TypeError,
        "typecheck",
        ("x[0] >", "0.0:"),
        ("expected 'index' or 'size' argument to comparison op: >",) * 2,
    ),
    (
        "comparing_data_values",
        TypeError,
        "typecheck",
        ("x[0] <", "x[1]:"),
        ("expected 'index' or 'size' argument to comparison op: <",) * 2,
    ),
    (
        "logical_op_on_size",
        TypeError,
        "typecheck",
        "n and b",
        "expected 'bool' argument to logical op",
    ),
    (
        "index_with_data",
        TypeError,
        "typecheck",
        "y[0]",
        "cannot index with expression of type 'R'",
    ),
    (
        "lvalue_too_few_indices",
        TypeError,
        "typecheck",
        "x[0] =",
        "expected lvalue access of variable 'x' of type 'f32[n, m]' to have exactly 2 "
        "indices, but 1 were found.",
    ),
    (
        "read_too_many_indices",
        TypeError,
        "typecheck",
        "x[0, 1]",
        "expected access of variable 'x' of type 'f32[n]' to have no more than 1 "
        "indices, but 2 were found.",
    ),
    (
        "window_wrong_arity",
        TypeError,
        "typecheck",
        "x[0:2]",
        "expected 2 indices for window but got 1",
    ),
    ("window_with_step", ParseError, "parse", "0:8:2", BAD_WINDOW_STEP),
    ("stride_dim_not_literal", ParseError, "parse", "stride(x, n)", BAD_STRIDE),
    # The text of this message is not specified; its class and place are.
    (
        "stride_dim_out_of_range",
        TypeError,
        "regex",
        "stride(x, 2)",
        re.escape(TYPECHECK) + r"LOC: [^\n]+",
    ),
    # bounds
    (
        "out_of_bounds_read",
        TypeError,
        "effect",
        "x[i + 1]",
        "x is read out-of-bounds when:\n   n = 4, i = 3.",
    ),
    (
        "out_of_bounds_write",
        TypeError,
        "effect",
        "x[i + 1]",
        "x is written out-of-bounds when:\n   n = 4, i = 3.",
    ),
    (
        "out_of_bounds_reduce",
        TypeError,
        "effect",
        "x[i + 1]",
        "x is reduced out-of-bounds when:\n   n = 4, i = 3.",
    ),
    (
        "non_positive_allocation",
        TypeError,
        "effect",
        "n - 4",
        "expected expression n - 4 to always be positive. It can be non positive when:\n"
        "   n = 4.",
    ),
    # calls
    (
        "call_too_few_arguments",
        TypeError,
        "typecheck",
        "g(n)",
        "expected 2 arguments but got 1",
    ),
    (
        "call_too_many_arguments",
        TypeError,
        "typecheck",
        "g(n, x, n)",
        "expected 2 arguments but got 3",
    ),
    (
        "call_wrong_rank",
        TypeError,
        "typecheck",
        "y)",
        "expected argument of type 'f32[n]', but got type 'f32[n, 8]'",
    ),
    (
        "call_wrong_shape",
        TypeError,
        "effect",
        "y)",
        "type-shape of calling argument may not equal the required type-shape: "
        "[n,8] vs. [n,16]. It could be non equal when:\n   n = 4.",
    ),
    (
        "call_scalar_not_a_name",
        TypeError,
        "typecheck",
        "2.0",
        "expected scalar arguments to be simply variable names for now",
    ),
    (
        "call_precondition_violated",
        TypeError,
        "regex",
        "g(m, x)",
        re.escape(EFFECT)
        + r"LOC: Could not verify assertion \S.* in g at \S+:\d+(:\d+)?\. "
        r"Assertion is false when:\n   m = 6\.",
    ),
    (
        "call_aliased_arguments",
        SchedulingError,
        "regex",
        "g(n, x, x)",
        r"(.*: )?Cannot Pass the same buffer 'x' via multiple arguments in call to g, "
        r"since doing so would introduce aliased arguments\.(.|\n)*",
    ),
    # externs
    ("relu_two_args", TypeError, "typecheck", "relu(", "expected 1 argument, got 2"),
    ("fmaxf_one_arg", TypeError, "typecheck", "fmaxf(", "expected 2 argument, got 1"),
    (
        "select_three_args",
        TypeError,
        "typecheck",
        "select(",
        "expected 4 arguments, got 3",
    ),
    (
        "sqrt_of_index",
        TypeError,
        "typecheck",
        "sqrt(",
        "expected argument 1 to be a real scalar value, but got type index",
    ),
    # configurations
    ("config_field_of_type_r", ParseError, "parse", "R", CONFIG_TYPES),
    ("config_field_ui8", ParseError, "parse", "ui8", CONFIG_TYPES),
    ("config_field_ui16", ParseError, "parse", "ui16", CONFIG_TYPES),
    (
        "config_field_with_value",
        ParseError,
        "parse",
        "b = 3",
        "expected config field definition of the form: name : type",
    ),
    (
        "config_with_base_class",
        ParseError,
        "parse",
        "class",
        "expected no base classes in a config definition",
    ),
    # metaprogramming
    (
        "meta_nonlocal",
        ParseError,
        "parse",
        "nonlocal",
        "nonlocal is not supported in metalanguage",
    ),
    (
        "meta_return",
        ParseError,
        "parse",
        "return",
        "cannot return from metalanguage fragment",
    ),
    (
        "meta_unquote_two_values",
        ParseError,
        "parse",
        "{1.0, 2.0}",
        "Unquote must take 1 argument",
    ),
    (
        "meta_statement_unquote_not_statements",
        ParseError,
        "parse",
        "{3}",
        "Statement-level unquote expression must return Exo statements",
    ),
    (
        "meta_unquote_string_value",
        ParseError,
        "parse",
        '{"hello"}',
        "Unquote received input that couldn't be unquoted",
    ),
    (
        "meta_unquote_bad_type",
        ParseError,
        "parse",
        '{"q32"}',
        "Unquote computation did not yield valid type",
    ),
    (
        "meta_unquote_slice_with_step",
        ParseError,
        "parse",
        "{slice",
        "Unquote returned slice index with step",
    ),
    ("meta_with_other_than_python", ParseError, "parse", "with", "Expected unquote"),
]


@pytest.mark.parametrize(
    "name, exc_class, kind, anchor, message", CASES, ids=[c[0] for c in CASES]
)
def test_malformed_kernel(name, exc_class, kind, anchor, message):
    factory = getattr(malformed, name)
    if isinstance(anchor, tuple):
        # Several errors collected into one report, one line each.
        locs = [location(factory, a) for a in anchor]
        loc = locs[0]
        errors = "\n".join(f"{at}: {m}" for at, m in zip(locs, message, strict=True))
    else:
        loc = location(factory, anchor)
        errors = f"{loc}: {message}"
    e = raise_from(factory, exc_class)
    if kind == "parse":
        assert str(e) == errors
    elif kind == "typecheck":
        assert str(e) == f"{TYPECHECK}{errors}"
    elif kind == "effect":
        assert str(e) == f"{EFFECT}{errors}"
    else:
        assert kind == "regex"
        pattern = message.replace("LOC", re.escape(loc))
        assert re.fullmatch(pattern, str(e)), f"{str(e)!r} !~ {pattern!r}"


BAD_ARGUMENT_FEATURES = [
    "position-only arguments",
    "*varargs, **kwargs",
    "keyword-only arguments",
    "default argument values",
]


@pytest.mark.parametrize("name", ["default_value", "varargs", "keyword_only", "kwargs"])
def test_unsupported_parameter_features(name):
    factory = getattr(malformed, name)
    loc = location(factory, "def")
    e = raise_from(factory, ParseError)
    text = str(e)
    assert text.startswith(f"{loc}: ")
    assert len(text.strip().splitlines()) >= 5  # multi-line: a header and four items
    for feature in BAD_ARGUMENT_FEATURES:
        assert feature in text


def test_duplicate_parameter(tmp_path):
    # Python itself refuses to compile a `def` with a repeated parameter, so
    # the kernel's source text lives in a file while the function object is
    # compiled from a stand-in with the same file name and line.
    path = tmp_path / "duplicate_kernel.py"
    path.write_text(
        "from __future__ import annotations\n"
        "\n"
        "def dup(n: size, x: f32[n], n: size):\n"
        "    x[0] = 0.0\n"
    )
    stand_in = "\n\ndef dup(n, x, m):\n    pass\n"
    namespace = {}
    exec(compile(stand_in, str(path), "exec"), namespace)  # noqa: S102
    with pytest.raises(ParseError) as info:
        proc(namespace["dup"])
    col = "def dup(n: size, x: f32[n], n: size):".index("n: size)")
    assert str(info.value) == f"{path}:3:{col}: repeated argument name: 'n'"


def test_counterexample_names_config_fields():
    e = raise_from(malformed.loop_bounds_from_a_config_field, TypeError)
    assert e.counterexample == {"TileCfg.pos": -1}


def test_unsatisfiable_precondition_is_located_at_the_assertion():
    # Complements the regex case above: the assertion's own location appears.
    loc = location(malformed.unsatisfiable_precondition, "n < 1")
    e = raise_from(malformed.unsatisfiable_precondition, TypeError)
    assert f"The assertion n < 1 at {loc} is always unsatisfiable." in str(e)


# --------------------------------------------------------------------------
# decorator misuse (messages without locations)


def _expect_type_error(thunk, message):
    with pytest.raises(TypeError) as info:
        thunk()
    assert type(info.value).__module__ == "builtins" or type(
        info.value
    ).__module__.startswith("exo2")
    assert str(info.value) == message


def test_proc_on_non_function():
    _expect_type_error(lambda: proc(3), "@proc decorator must be applied to a function")


def test_proc_on_class():
    class NotAFunction:
        pass

    _expect_type_error(
        lambda: proc(NotAFunction), "@proc decorator must be applied to a function"
    )


def test_instr_with_non_string_template():
    _expect_type_error(
        lambda: instr(42), "@instr decorator must be @instr(<your instruction>)"
    )


def test_instr_on_non_function():
    _expect_type_error(
        lambda: instr("foo();")(7), "@instr decorator must be applied to a function"
    )


def test_config_on_function():
    def not_a_class():
        pass

    _expect_type_error(
        lambda: config(not_a_class), "@config decorator must be applied to a class"
    )


def test_config_readwrite_form_on_function():
    def not_a_class():
        pass

    _expect_type_error(
        lambda: config(readwrite=False)(not_a_class),
        "@config decorator must be applied to a class",
    )


def test_extern_arity_is_checked_even_when_an_argument_fails():
    """The extern's own checks run after a failed argument (as in Exo), so a
    wrong arity is reported with it; a failed argument is not reported a
    second time by the extern."""
    with pytest.raises(TypeError) as e:
        malformed.select_three_args_one_failing()
    lines = str(e.value).splitlines()[1:]
    assert [line.split(": ", 1)[1] for line in lines] == [
        "expected scalar type",
        "expected 4 arguments, got 3",
    ]
    with pytest.raises(TypeError) as e:
        malformed.select_four_args_one_failing()
    lines = str(e.value).splitlines()[1:]
    assert [line.split(": ", 1)[1] for line in lines] == ["expected scalar type"]
