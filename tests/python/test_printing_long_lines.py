"""Lines over 79 columns: statements are broken as yapf's pep8 style does,
comments (an instruction's C template) are kept whole."""

from __future__ import annotations

from exo2 import instr, proc

TEMPLATE = (
    "for (int i = 0; i < {n}; i++) "
    "{dst_data}[i] = {src_data}[i] + {src_data}[i] * {src_data}[i] * 3.0f;"
)


@instr(TEMPLATE)
def long_template(n: size, dst: [f32][n], src: [f32][n]):
    for i in seq(0, n):
        dst[i] = src[i]


@proc
def long_statement(n: size, first_long_name: f32[n], second_long_name: f32[n]):
    for i in seq(0, n):
        first_long_name[i] = (
            second_long_name[i] * second_long_name[i] + first_long_name[i]
        )


def test_an_instruction_template_is_never_broken():
    assert f"    # @instr {TEMPLATE}" in str(long_template).split("\n")


def test_a_long_statement_is_broken_at_its_indentation():
    assert str(long_statement) == (
        "def long_statement(n: size, first_long_name: f32[n] @ DRAM,\n"
        "                   second_long_name: f32[n] @ DRAM):\n"
        "    for i in seq(0, n):\n"
        "        first_long_name[\n"
        "            i] = second_long_name[i] * second_long_name[i] + first_long_name[i]"
    )
