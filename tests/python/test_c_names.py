"""Object-language names that C, C++ or the headers generated code includes
already use are mangled in the C (docs/writing-kernels.md, "Names in the
generated C"), consistently in the header, at calls and in the JIT, so
valid kernels always compile. Other names print unchanged."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from exo2 import _core, compile_procs_to_strings, config, proc
from exo2.API_scheduling import extract_subproc

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import generate_c_reserved_names  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def jit_cache(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("EXO2_CACHE_DIR", str(tmp_path_factory.mktemp("exo2_cache")))
    yield
    mp.undo()


def test_reserved_names_are_mangled_and_others_kept():
    assert _core.c_identifier("int") == "int_"
    assert _core.c_identifier("malloc") == "malloc_"
    assert _core.c_identifier("class") == "class_"  # C++ includes the header
    assert _core.c_identifier("linux") == "linux_"  # a predefined macro
    assert _core.c_identifier("__x") == "exo__x"
    assert _core.c_identifier("_Tmp") == "exo_Tmp"
    for kept in ("x", "int_", "tmp", "_tmp", "alpha", "i_1"):
        assert _core.c_identifier(kept) == kept


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
def test_reserved_table_covers_the_system_headers():
    missing = [
        n
        for n in generate_c_reserved_names.header_names("cc")
        if _core.c_identifier(n) == n
    ]
    assert not missing, f"{missing[:10]}...: rerun scripts/generate_c_reserved_names.py"


def test_keyword_and_libc_names_compile_and_run():
    @proc
    def select(int: size, double: f32[int], malloc: f32[int]):
        free: f32[int]
        for char in seq(0, int):
            free[char] = double[char]
        for printf in seq(0, int):
            malloc[printf] = free[printf] * 2.0

    c_text, h_text = compile_procs_to_strings([select], "k.h")
    assert (
        "void select_( void *ctxt, int_fast32_t int_, const float* double_, "
        "float* malloc_ );"
    ) in h_text
    assert "for (int_fast32_t char_ = 0; char_ < int_; char_++) {" in c_text
    assert "free(free_);" in c_text
    x, y = np.arange(5, dtype=np.float32), np.zeros(5, np.float32)
    select.jit()(5, x, y)
    np.testing.assert_array_equal(y, 2 * x)


def test_callee_with_reserved_name_is_called_by_its_mangled_name():
    @proc
    def exp(n: size, x: f32[n]):
        for i in seq(0, n):
            x[i] = 3.0

    @proc
    def caller(n: size, x: f32[n]):
        exp(n, x)

    assert "exp_(ctxt,n,x);" in compile_procs_to_strings([caller], "k.h")[0]
    x = np.zeros(3, np.float32)
    caller.jit()(3, x)
    np.testing.assert_array_equal(x, [3, 3, 3])


def test_subproc_named_like_the_loop_around_its_call_compiles():
    @proc
    def outer(n: size, x: f32[n]):
        for i in seq(0, n):
            x[i] = 1.0 + x[i]

    p, _sub = extract_subproc(outer, outer.find("x[_] = _"), "i")
    c_text = compile_procs_to_strings([p], "k.h")[0]
    assert "for (int_fast32_t i_1 = 0; i_1 < n; i_1++) {\n  i(ctxt,n,x,i_1);" in c_text
    x = np.arange(4, dtype=np.float32)
    p.jit()(4, x)
    np.testing.assert_array_equal(x, [1, 2, 3, 4])


def test_config_named_with_reserved_names_compiles():
    @config
    class short:
        int: index
        free: f32

    @proc
    def scale(x: f32[4]):
        for i in seq(0, 4):
            x[i] = short.free * x[i]
        short.int = 3

    assert short.c_struct_def() == [
        "struct short_ {",
        "    int_fast32_t int_;",
        "    float free_;",
        "} short_;",
    ]
    assert "x[i] = ctxt->short_.free_ * x[i];" in scale.c_code_str()
    kernel = scale.jit()
    kernel.set_config(short, free=2.0)
    x = np.ones(4, np.float32)
    kernel(x)
    np.testing.assert_array_equal(x, [2, 2, 2, 2])
    assert kernel.get_config(short, "int") == 3


def test_procs_that_would_share_a_c_name_are_refused():
    @proc
    def int(x: f32[1]):
        x[0] = 1.0

    @proc
    def int_(x: f32[1]):
        x[0] = 2.0

    with pytest.raises(TypeError, match="procs int and int_ would both be the C"):
        compile_procs_to_strings([int, int_], "k.h")
