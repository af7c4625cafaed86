"""The helper functions externs emit into generated C (`select`, `relu`,
`sigmoid`) are `static inline`, so several generated libraries that use the
same extern link into one program (the BLAS suite links one library per
level and ISA) instead of failing with duplicate symbols."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from exo2 import compile_procs_to_strings, proc
from exo2.libs.externs import relu, select, sigmoid


def _library(name):
    @proc
    def clamp(n: size, x: f32[n], y: f32[n]):
        for i in seq(0, n):
            y[i] = select(x[i], 0.0, relu(x[i]), sigmoid(x[i]) + x[i])

    return compile_procs_to_strings([clamp], f"{name}.h")


def test_extern_helpers_are_static_inline():
    c_text, _ = _library("one")
    assert "static inline float _select_float(" in c_text
    assert "static inline float _relu_float(" in c_text
    assert "static inline float sigmoid(" in c_text


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
def test_two_libraries_using_the_same_externs_link_into_one_program(tmp_path):
    for name in ("one", "two"):
        c_text, h_text = _library(name)
        prefixed = c_text.replace("clamp(", f"{name}_clamp(")
        (tmp_path / f"{name}.c").write_text(prefixed)
        (tmp_path / f"{name}.h").write_text(h_text.replace("clamp(", f"{name}_clamp("))
    (tmp_path / "main.c").write_text(
        '#include "one.h"\n#include "two.h"\n'
        "int main(void) {\n"
        "  float x[2] = {-1.0f, 2.0f}, y[2], z[2];\n"
        "  one_clamp(0, 2, x, y);\n  two_clamp(0, 2, x, z);\n"
        "  return !(y[0] == 0.0f && z[1] > 2.0f);\n}\n"
    )
    exe = tmp_path / "main"
    build = subprocess.run(
        ["cc", "-O1", "main.c", "one.c", "two.c", "-lm", "-o", str(exe)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr
    assert subprocess.run([str(exe)]).returncode == 0
