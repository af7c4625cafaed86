"""Golden texts of the generated header and C file for representative
kernels. Regenerate with EXO2_REGEN_GOLDEN=1 and review the diff."""

import os
from pathlib import Path

import pytest
from exo2 import compile_procs_to_strings
from kernels import jit_kernels as K

GOLDEN = Path(__file__).parent / "golden"

LIBRARIES = {
    "axpy": [K.axpy],
    "blur2d": [K.blur2d],
    "softmax": [K.softmax],
    "prefix_sums": [K.prefix_sums],
    "configs": [K.config_scale, K.config_count],
    "par_loops": [K.par_scale, K.par_rows_axpy],
    "upsample": [K.upsample, K.downsample],
    "user_memory": [K.traced_memory],
    "windows": [K.row_sums, K.nested_window],
    "static_memories": [K.static_buffers],
    "preconditions": [K.gemv_blocked, K.shift_from],
    "precisions": [K.narrow_f64_to_f32, K.mean_f64_acc, K.add_i8],
    "c_code_str": None,
}


@pytest.mark.parametrize("name", sorted(LIBRARIES))
def test_generated_code_matches_golden(name):
    if LIBRARIES[name] is None:
        texts = {"c_code_str.c": K.axpy.c_code_str()}
    else:
        c_text, h_text = compile_procs_to_strings(LIBRARIES[name], f"{name}.h")
        texts = {f"{name}.c": c_text, f"{name}.h": h_text}
    for filename, text in texts.items():
        path = GOLDEN / filename
        if os.environ.get("EXO2_REGEN_GOLDEN"):
            path.write_text(text)
        assert text == path.read_text(), filename


def test_axpy_matches_the_specified_function():
    """The function of docs/reference/generated-c.md, in Exo's text: the
    signature, the stride assertion as a comment, the loop; the unused
    context parameter is left unmarked."""
    c_text, _ = compile_procs_to_strings([K.axpy], "axpy.h")
    assert (
        "void axpy( void *ctxt, int_fast32_t n, const float* alpha, "
        "struct exo_win_1f32c x, float* y ) {\n"
        "// assert stride(x, 0) == 1\n"
        "for (int_fast32_t i = 0; i < n; i++) {\n"
        "  y[i] += *alpha * x.data[i];\n"
        "}\n"
        "}\n"
    ) in c_text
