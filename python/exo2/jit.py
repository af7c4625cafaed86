"""**[exo2]** Calling kernels from NumPy.

`exo2.jit(proc)` (or `proc.jit()`) returns a `JitKernel`: calling it checks
the arguments in Python, then runs the procedure's generated C, compiled
once with the system C compiler and cached by content hash::

    kernel = exo2.jit(axpy)
    kernel(n, alpha, x, y)          # NumPy arrays, Python ints / floats

Arguments are checked before any C runs (wrong dtype, rank, shape, missing
or extra arguments, non-contiguous tensors, violated preconditions), so a
bad call raises a Python error instead of crashing. Windows accept strided
views. Config fields live in the kernel's context (`set_config` /
`get_config`) and persist across calls, as in C. `jit_library(procs)`
compiles several procedures with one compiler run.
"""

import ctypes
import hashlib
import inspect
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from . import _core
from .backend.prec_analysis import get_default_prec

DEFAULT_CFLAGS = ("-O3", "-march=native", "-shared", "-fPIC")

_NUMPY_TYPES = {
    "f16": np.float16,
    "f32": np.float32,
    "f64": np.float64,
    "i8": np.int8,
    "ui8": np.uint8,
    "ui16": np.uint16,
    "i32": np.int32,
}

# Loaded libraries by cache key, so each kernel is compiled and loaded once
# per process.
_LOADED = {}


def cache_dir():
    """Where compiled kernels are kept: `$EXO2_CACHE_DIR`, else
    `~/.cache/exo2`."""
    return Path(os.environ.get("EXO2_CACHE_DIR") or Path.home() / ".cache" / "exo2")


def _int_fast32():
    # glibc's int_fast32_t is `long` on 64-bit targets; elsewhere 32 bits.
    if sys.platform.startswith("linux") and sys.maxsize > 2**32:
        return ctypes.c_long
    return ctypes.c_int32


_C_FAST32 = _int_fast32()

_CTYPES = {
    "f16": ctypes.c_uint16,
    "f32": ctypes.c_float,
    "f64": ctypes.c_double,
    "i8": ctypes.c_int8,
    "i32": ctypes.c_int32,
    "bool": ctypes.c_bool,
    "index": _C_FAST32,
    "size": _C_FAST32,
    "stride": _C_FAST32,
}


class JitCompileError(RuntimeError):
    """The C compiler rejected the generated code."""


def _control_expr(text):
    """Python source of a printed control expression: `/` is floor
    division in the object language."""
    return re.sub(r"(?<![/])/(?![/])", "//", text)


def _compile_library(c_text, cc, cflags):
    """The path of the shared object of `c_text`, compiled if not cached."""
    key = hashlib.sha256("\0".join([c_text, cc, *cflags]).encode()).hexdigest()[:32]
    directory = cache_dir()
    directory.mkdir(parents=True, exist_ok=True)
    so_path = directory / f"exo2_{key}.so"
    if so_path.exists():
        return so_path
    c_path = directory / f"exo2_{key}.c"
    c_path.write_text(c_text)
    fd, tmp = tempfile.mkstemp(suffix=".so", dir=directory)
    os.close(fd)
    cmd = [cc, *cflags, str(c_path), "-o", tmp]
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        os.unlink(tmp)
        raise JitCompileError(
            f"{shlex.join(cmd)} failed:\n{result.stderr}\n--- generated C ---\n{c_text}"
        )
    os.replace(tmp, so_path)
    return so_path


def jit(proc=None, *, cc=None, cflags=None, extra_cflags=()):
    """A `JitKernel` for `proc`. `cc` defaults to `$CC` or `cc`; `cflags`
    replaces the default flags (`-O3 -march=native -shared -fPIC`, plus
    `-fopenmp` when the code has parallel loops); `extra_cflags` adds
    to them. Without `proc`, returns a decorator taking the procedure."""
    if proc is None:
        return lambda p: jit(p, cc=cc, cflags=cflags, extra_cflags=extra_cflags)
    return JitKernel(proc, cc=cc, cflags=cflags, extra_cflags=extra_cflags)


class _Param:
    """What the kernel's C function expects for one parameter."""

    def __init__(self, name, typ, written, prec):
        self.name = name
        self.kind = typ.kind_name()
        self.is_data = typ.is_numeric()
        self.is_window = typ.is_window()
        self.is_tensor = typ.is_tensor()
        self.written = written
        if self.is_data:
            prec_name = typ.basetype().kind_name()
            if prec_name == "R":
                prec_name = prec
            if prec_name not in _NUMPY_TYPES:
                raise TypeError(
                    f"exo2.jit: parameter '{name}' has unsupported precision {prec_name}"
                )
            self.prec = prec_name
            self.dtype = np.dtype(_NUMPY_TYPES[prec_name])
            self.shape_code = [
                compile(_control_expr(str(e)), f"<shape of {name}>", "eval")
                for e in typ.shape()
            ]
            self.shape_text = [str(e) for e in typ.shape()]


class _WindowStructs:
    """ctypes mirrors of `struct exo_win_<rank><prec>{c}`, one per rank."""

    _cache = {}

    @classmethod
    def get(cls, rank):
        if rank not in cls._cache:
            cls._cache[rank] = type(
                f"exo_win_{rank}",
                (ctypes.Structure,),
                {
                    "_fields_": [
                        ("data", ctypes.c_void_p),
                        ("strides", _C_FAST32 * rank),
                    ]
                },
            )
        return cls._cache[rank]


def jit_library(procs, *, cc=None, cflags=None, extra_cflags=()):
    """`JitKernel`s for several procedures compiled into one shared object by
    a single compiler run (flags as for `jit`): much faster than one `jit`
    per procedure when many small procedures are compiled, since starting
    the compiler dominates. The procedures, and those they call, need
    distinct names (a `TypeError` says which do not)."""
    library = _Library(list(procs), cc, cflags, extra_cflags)
    return [JitKernel(p, _library=library) for p in library.procs]


def _check_callable(proc):
    from .API import Procedure

    if not isinstance(proc, Procedure):
        raise TypeError("exo2.jit expects a Procedure")
    if proc.is_instr():
        raise TypeError("exo2.jit: instructions cannot be called directly")


class _Library:
    """The C of some procedures, compiled and loaded (once per process)."""

    def __init__(self, procs, cc, cflags, extra_cflags):
        for proc in procs:
            _check_callable(proc)
        self.procs = procs
        self.prec = str(get_default_prec())
        decls, body, self.configs = _core.compile_library(
            f"exo2_jit_{procs[0].name()}", [p.INTERNAL_proc() for p in procs], self.prec
        )
        self.c_code = decls + "\n" + body
        cc = cc or os.environ.get("CC") or "cc"
        flags = list(DEFAULT_CFLAGS if cflags is None else cflags)
        if cflags is None and "#pragma omp" in self.c_code:
            flags.append("-fopenmp")
        flags += list(extra_cflags)
        key = (self.c_code, cc, tuple(flags))
        if key not in _LOADED:
            _LOADED[key] = ctypes.CDLL(str(_compile_library(self.c_code, cc, flags)))
        self.cdll = _LOADED[key]


class JitKernel:
    """A compiled procedure callable from Python. See the module docstring."""

    def __init__(self, proc, *, cc=None, cflags=None, extra_cflags=(), _library=None):
        if _library is None:
            _library = _Library([proc], cc, cflags, extra_cflags)
        self.proc = proc
        core = proc.INTERNAL_proc()
        prec = _library.prec
        self.c_code = _library.c_code
        written = set(_core.written_params(core))
        self._params = [
            _Param(n, t, n in written, prec)
            for n, t in zip(core.arg_names(), core.arg_types(), strict=False)
        ]
        self._signature = inspect.Signature(
            [
                inspect.Parameter(p.name, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                for p in self._params
            ]
        )
        self._preconditions = [
            (text, compile(_control_expr(text), "<precondition>", "eval"))
            for text in _core.proc_preconditions(core)
        ]
        self._build_context(_library.configs)
        self.library = _library.cdll
        self._fn = getattr(self.library, proc.name())
        self._fn.restype = None
        self._fn.argtypes = [ctypes.c_void_p] + [self._ctype(p) for p in self._params]
        self._ctxt_ptr = (
            ctypes.cast(ctypes.pointer(self.context), ctypes.c_void_p)
            if self.context is not None
            else None
        )
        self.__name__ = proc.name()
        self.__doc__ = f"exo2.jit of {proc.name()}{self._signature}"

    # ---- configs -----------------------------------------------------------
    def _build_context(self, configs):
        self._configs = {}
        fields = []
        for cfg in configs:
            if not cfg.is_allow_rw():
                continue
            struct = type(
                cfg.name(),
                (ctypes.Structure,),
                {"_fields_": [(f, _CTYPES[str(t)]) for f, t in cfg.fields()]},
            )
            self._configs[cfg.name()] = (cfg, {f: str(t) for f, t in cfg.fields()})
            fields.append((cfg.name(), struct))
        if not configs:
            self.context = None
            return
        context_type = type("Context", (ctypes.Structure,), {"_fields_": fields})
        self.context = context_type()

    def _config_field(self, cfg, field):
        name = cfg.name() if hasattr(cfg, "name") else str(cfg)
        if name not in self._configs:
            raise KeyError(
                f"kernel {self.__name__} uses no materialized config '{name}'"
            )
        types = self._configs[name][1]
        if field not in types:
            raise KeyError(f"config '{name}' has no field '{field}'")
        return getattr(self.context, name), types[field]

    def set_config(self, cfg, **fields):
        """Sets fields of `cfg` in the kernel's context."""
        for field, value in fields.items():
            struct, typ = self._config_field(cfg, field)
            if typ == "f16":
                value = int(np.array(value, dtype=np.float16).view(np.uint16))
            setattr(struct, field, value)

    def get_config(self, cfg, field):
        """The current value of `cfg.field` in the kernel's context."""
        struct, typ = self._config_field(cfg, field)
        value = getattr(struct, field)
        if typ == "f16":
            return float(np.array(value, dtype=np.uint16).view(np.float16))
        return value

    # ---- arguments ---------------------------------------------------------
    def _ctype(self, p):
        if not p.is_data:
            return _CTYPES[p.kind]
        if p.is_window:
            return _WindowStructs.get(len(p.shape_code))
        return ctypes.c_void_p

    def _error(self, p, message, cls=TypeError):
        return cls(f"{self.__name__}: argument '{p.name}': {message}")

    def _control(self, p, value):
        if p.kind == "bool":
            if not isinstance(value, (bool, np.bool_)):
                raise self._error(p, f"expected a bool, got {type(value).__name__}")
            return bool(value)
        if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, np.integer)
        ):
            raise self._error(
                p, f"expected an int ({p.kind}), got {type(value).__name__}"
            )
        value = int(value)
        if p.kind == "size" and value < 1:
            raise self._error(p, f"size must be positive, got {value}", ValueError)
        return value

    def _array(self, p, value, env):
        if not isinstance(value, np.ndarray):
            raise self._error(
                p, f"expected a numpy.ndarray of {p.dtype}, got {type(value).__name__}"
            )
        if value.dtype != p.dtype:
            raise self._error(p, f"expected dtype {p.dtype}, got {value.dtype}")
        if value.ndim != len(p.shape_code):
            raise self._error(
                p,
                f"expected {len(p.shape_code)} dimensions, got {value.ndim}",
                ValueError,
            )
        expected = tuple(eval(c, {}, env) for c in p.shape_code)
        if value.shape != expected:
            shape = ", ".join(p.shape_text)
            raise self._error(
                p,
                f"expected shape ({shape}) = {expected}, got {value.shape}",
                ValueError,
            )
        if p.written and not value.flags.writeable:
            raise self._error(
                p,
                "the kernel writes this argument, but the array is read-only",
                ValueError,
            )
        if not p.is_window:
            if not value.flags.c_contiguous:
                raise self._error(
                    p,
                    "expected a C-contiguous array (only window parameters accept strided views)",
                    ValueError,
                )
            return value.ctypes.data
        itemsize = value.itemsize
        if any(s % itemsize for s in value.strides):
            raise self._error(
                p, "strides must be multiples of the element size", ValueError
            )
        strides = [s // itemsize for s in value.strides]
        env[f"__strides_{p.name}"] = strides
        return _WindowStructs.get(value.ndim)(
            value.ctypes.data, (_C_FAST32 * value.ndim)(*strides)
        )

    def _scalar(self, p, value, keep):
        if isinstance(value, np.ndarray):
            if value.shape != () or value.dtype != p.dtype:
                raise self._error(
                    p,
                    f"expected a 0-d array of dtype {p.dtype}, got shape {value.shape} {value.dtype}",
                )
            if p.written and not value.flags.writeable:
                raise self._error(
                    p,
                    "the kernel writes this argument, but the array is read-only",
                    ValueError,
                )
            return value.ctypes.data
        if isinstance(value, ctypes._SimpleCData):
            if type(value) is not _CTYPES.get(p.prec):
                raise self._error(
                    p,
                    f"expected a ctypes value of {p.prec}, got {type(value).__name__}",
                )
            return ctypes.addressof(value)
        if p.written:
            raise self._error(
                p,
                "the kernel writes this scalar: pass a 0-d numpy array or a ctypes value",
            )
        if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.number)
        ):
            raise self._error(p, f"expected a number, got {type(value).__name__}")
        boxed = np.array(value, dtype=p.dtype)
        keep.append(boxed)
        return boxed.ctypes.data

    def _stride_env(self, env):
        def stride(buf, dim):
            strides = env.get(f"__strides_{buf}")
            if strides is not None:
                return strides[dim]
            shape = env[f"__shape_{buf}"]
            return int(np.prod(shape[dim + 1 :], dtype=np.int64))

        return stride

    def __call__(self, *args, **kwargs):
        if kwargs or len(args) != len(self._params):
            try:
                bound = self._signature.bind(*args, **kwargs)
            except TypeError as e:
                raise TypeError(f"{self.__name__}: {e}") from None
            args = [bound.arguments[p.name] for p in self._params]
        env = {}
        for p, value in zip(self._params, args, strict=False):
            if not p.is_data:
                env[p.name] = self._control(p, value)
        keep = []
        c_args = [self._ctxt_ptr]
        for p, value in zip(self._params, args, strict=False):
            if not p.is_data:
                c_args.append(env[p.name])
            elif p.is_tensor:
                c_args.append(self._array(p, value, env))
                env[f"__shape_{p.name}"] = value.shape
            else:
                c_args.append(self._scalar(p, value, keep))
        if self._preconditions:
            self._check_preconditions(env)
        self._fn(*c_args)

    def _check_preconditions(self, env):
        names = dict(env)
        for p in self._params:
            if p.is_data:
                names[p.name] = p.name  # `stride(x, d)` looks buffers up by name
        names["stride"] = self._stride_env(env)
        for cfg_name, (_cfg, _types) in self._configs.items():
            names[cfg_name] = getattr(self.context, cfg_name)
        for text, code in self._preconditions:
            try:
                ok = eval(code, {}, names)
            except NameError:
                continue  # mentions something only C knows
            if not ok:
                raise ValueError(f"{self.__name__}: precondition violated: {text}")
