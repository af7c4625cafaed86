"""The helper functions built-in externs emit into generated C (`select`,
`relu`, `sigmoid`) are plain definitions, as Exo's are; a program that links
two generated files using the same helper gives itself an extern whose
`globl` makes the helper `static inline` (the example of
docs/reference/memories-and-instructions.md, "Externs")."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from exo2 import compile_procs_to_strings, proc
from exo2.libs.externs import relu, sigmoid
from exo2.libs.externs import select as builtin_select


class FileLocalSelect(type(builtin_select)):
    def globl(self, prim_type):
        return "static inline " + super().globl(prim_type)


file_local_select = FileLocalSelect()


def _library(name, select):
    @proc
    def clamp(n: size, x: f32[n], y: f32[n]):
        for i in seq(0, n):
            y[i] = select(x[i], 0.0, x[i], 1.0)

    c_text, h_text = compile_procs_to_strings([clamp], f"{name}.h")
    rename = f"{name}_clamp("
    return c_text.replace("clamp(", rename), h_text.replace("clamp(", rename)


def test_builtin_helpers_are_plain_definitions_as_in_exo():
    @proc
    def helpers(n: size, x: f32[n], y: f32[n]):
        for i in seq(0, n):
            y[i] = builtin_select(x[i], 0.0, relu(x[i]), sigmoid(x[i]))

    c_text, _ = compile_procs_to_strings([helpers], "helpers.h")
    assert "\nfloat _select_float(float x,float v,float y,float z) {\n" in c_text
    assert "\nfloat _relu_float(float x) {\n" in c_text
    assert "\n#include <math.h>\nfloat sigmoid(float x) {\n" in c_text
    assert "static" not in c_text


def _link_two_libraries(tmp_path, select):
    for name in ("one", "two"):
        c_text, h_text = _library(name, select)
        (tmp_path / f"{name}.c").write_text(c_text)
        (tmp_path / f"{name}.h").write_text(h_text)
    (tmp_path / "main.c").write_text(
        '#include "one.h"\n#include "two.h"\n'
        "int main(void) {\n"
        "  float x[2] = {-1.0f, 2.0f}, y[2], z[2];\n"
        "  one_clamp(0, 2, x, y);\n  two_clamp(0, 2, x, z);\n"
        "  return !(y[0] == -1.0f && z[1] == 1.0f);\n}\n"
    )
    exe = tmp_path / "main"
    build = subprocess.run(
        ["cc", "-O1", "main.c", "one.c", "two.c", "-lm", "-o", str(exe)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    return build, exe


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
def test_two_files_with_the_builtin_helper_collide_at_link_time(tmp_path):
    build, _ = _link_two_libraries(tmp_path, builtin_select)
    assert build.returncode != 0
    assert "_select_float" in build.stderr


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
def test_a_static_inline_helper_links_two_files_into_one_program(tmp_path):
    c_text, _ = _library("one", file_local_select)
    assert "static inline float _select_float(" in c_text
    build, exe = _link_two_libraries(tmp_path, file_local_select)
    assert build.returncode == 0, build.stderr
    assert subprocess.run([str(exe)]).returncode == 0
