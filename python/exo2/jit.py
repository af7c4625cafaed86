"""**[exo2]** Calling kernels from NumPy.

`exo2.jit(proc)` (or `proc.jit()`) returns a `JitKernel`: calling it checks
the arguments in Python, then runs the procedure's generated C, compiled
once with the system C compiler and cached by content hash::

    kernel = exo2.jit(axpy)
    kernel(n, alpha, x, y)          # NumPy arrays, Python ints / floats

Arguments are checked before any C runs (wrong dtype, rank, shape, missing
or extra arguments, non-contiguous tensors, integers out of their C type's
range, overlapping arrays, violated preconditions), so a bad call raises a
Python error instead of crashing or computing something else. Windows
accept strided views. Config fields live in the kernel's context
(`set_config` / `get_config`) and persist across calls, as in C.

Aliasing: exo2 proves schedules correct assuming that distinct array
arguments never share memory. A call where two array arguments overlap and
the kernel writes at least one of them raises ValueError naming both;
arguments the kernel only reads may overlap (nothing they hold changes).

The fast path: `kernel.bind(*args)` checks the arguments once, exactly as
a call does, and returns a `BoundCall`; calling it (`bound()`) runs the
kernel on those arguments through a one-pointer C trampoline (about half a
microsecond), with no checks: see `BoundCall` for what it assumes.

`jit_library(procs)` compiles several procedures with one compiler run.
"""

import ctypes
import functools
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
from .API_types import ProcedureBase
from .backend.prec_analysis import get_default_prec

# -Bsymbolic: the call wrapper calls this library's kernel even when a library
# loaded globally before it defines the same name (MKL exports `saxpy`)
DEFAULT_CFLAGS = ("-O3", "-march=native", "-shared", "-fPIC", "-Wl,-Bsymbolic")

# bf16 buffers are passed as uint16 arrays holding the raw bits (the upper
# half of a float32).
_NUMPY_TYPES = {
    "f16": np.float16,
    "bf16": np.uint16,
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
    "bf16": ctypes.c_uint16,
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
    """The C compiler rejected the generated code, or could not be run."""


def _int_range(bits):
    """The range of a signed integer of `bits` bits."""
    return -(2 ** (bits - 1)), 2 ** (bits - 1) - 1


# The values a control argument or field can hold: its C type's range.
_CONTROL_RANGE = _int_range(8 * ctypes.sizeof(_C_FAST32))
_C_FAST32_NAME = f"int_fast32_t ({8 * ctypes.sizeof(_C_FAST32)} bits)"
_INT_FIELD_RANGES = {
    "index": _CONTROL_RANGE,
    "size": _CONTROL_RANGE,
    "stride": _CONTROL_RANGE,
    "i8": _int_range(8),
    "i32": _int_range(32),
}


def _control_expr(text):
    """Python source of a printed control expression: `/` is floor
    division in the object language."""
    return re.sub(r"(?<![/])/(?![/])", "//", text)


def _trampoline(decls, c_name):
    """C for `kernel.bind`: a struct holding the arguments of `c_name` (as
    its declaration in `decls` types them) and a function calling it with
    them, so that a bound call passes one pointer through ctypes."""
    prototype = re.search(
        rf"^void {re.escape(c_name)}\((.*)\);$", decls, re.MULTILINE
    ).group(1)
    params = [p.strip() for p in prototype.split(",")]
    fields = [f"a{k}" for k in range(len(params))]
    # each parameter is `type name` (`void *ctxt`): drop the name
    types = [re.fullmatch(r"(.*?)\w+", p).group(1).strip() for p in params]
    members = "".join(f"    {t} {f};\n" for t, f in zip(types, fields, strict=True))
    # the parameter's name is one no procedure's C name can be (a kernel
    # named `a` was hidden by a parameter `a`)
    args = ", ".join(f"exo2_jit_args->{f}" for f in fields)
    return (
        f"\nstruct exo2_jit_args_{c_name} {{\n{members}}};\n"
        f"void exo2_jit_call_{c_name}("
        f"const struct exo2_jit_args_{c_name} *exo2_jit_args) "
        f"{{ {c_name}({args}); }}\n"
    )


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
    try:
        result = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        os.unlink(tmp)
        raise JitCompileError(
            f"exo2.jit: cannot run the C compiler '{cc}' ({e.strerror}); "
            "pass cc= or set $CC to an installed C compiler"
        ) from None
    if result.returncode != 0:
        os.unlink(tmp)
        raise JitCompileError(
            f"{shlex.join(cmd)} failed:\n{result.stderr}\n--- generated C ---\n{c_text}"
        )
    os.replace(tmp, so_path)
    return so_path


def jit(proc=None, *, cc=None, cflags=None, extra_cflags=()):
    """A `JitKernel` for `proc`. `cc` defaults to `$CC` or `cc`; `cflags`
    replaces the default flags (`-O3 -march=native -shared -fPIC
    -Wl,-Bsymbolic`, plus
    `-fopenmp` when the code has parallel loops); `extra_cflags` adds
    to them. Without `proc`, returns a decorator taking the procedure."""
    if proc is None:
        return lambda p: jit(p, cc=cc, cflags=cflags, extra_cflags=extra_cflags)
    return JitKernel(proc, cc=cc, cflags=cflags, extra_cflags=extra_cflags)


def _byte_extent(a, address):
    """The bytes `[lo, hi)` the elements of a non-empty array at `address`
    lie in."""
    if a.flags.c_contiguous:
        return address, address + a.nbytes
    lo = hi = address
    for n, s in zip(a.shape, a.strides, strict=True):
        if s > 0:
            hi += (n - 1) * s
        else:
            lo += (n - 1) * s
    return lo, hi + a.itemsize


def _as_array(value):
    """A NumPy view of an array argument (ndarray or ctypes scalar)."""
    if isinstance(value, np.ndarray):
        return value
    return np.frombuffer(value, dtype=np.uint8)


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
    if not isinstance(proc, ProcedureBase):
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
        self.c_code = (
            decls
            + "\n"
            + body
            + "".join(_trampoline(decls, _core.c_identifier(p.name())) for p in procs)
        )
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
        # A name C reserves is mangled in the C (`int` -> `int_`).
        c_name = _core.c_identifier(proc.name())
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
        # Overlap is checked when two data arguments exist and one is written.
        data = [p for p in self._params if p.is_data]
        self._may_alias = len(data) > 1 and any(p.written for p in data)
        self._preconditions = [
            (text, compile(_control_expr(text), "<precondition>", "eval"))
            for text in _core.proc_preconditions(core)
        ]
        self._build_context(_library.configs)
        self.library = _library.cdll
        self._fn = getattr(self.library, c_name)
        self._fn.restype = None
        self._fn.argtypes = [ctypes.c_void_p] + [self._ctype(p) for p in self._params]
        self._args_struct = type(
            f"exo2_jit_args_{c_name}",
            (ctypes.Structure,),
            {"_fields_": [(f"a{k}", t) for k, t in enumerate(self._fn.argtypes)]},
        )
        self._call_bound = getattr(self.library, f"exo2_jit_call_{c_name}")
        self._call_bound.restype = None
        # the struct's address as an int: cheaper for ctypes than byref
        self._call_bound.argtypes = [ctypes.c_void_p]
        # preconditions that read config fields, which may change between
        # calls of a BoundCall
        config_names = set(self._configs)
        self._config_preconditions = [
            (text, code)
            for text, code in self._preconditions
            if config_names & set(code.co_names)
        ]
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
            if typ in _INT_FIELD_RANGES:
                lo, hi = _INT_FIELD_RANGES[typ]
                where = (
                    f"{self.__name__}: config field {struct.__class__.__name__}.{field}"
                )
                if isinstance(value, (bool, np.bool_)) or not isinstance(
                    value, (int, np.integer)
                ):
                    raise TypeError(
                        f"{where} is {typ}: expected an int, got {type(value).__name__}"
                    )
                if not lo <= value <= hi:
                    raise ValueError(
                        f"{where} is {typ}: {value} does not fit ({lo} to {hi})"
                    )
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
        lo, hi = _CONTROL_RANGE
        if not lo <= value <= hi:
            raise self._error(
                p,
                f"{value} does not fit in the C type of {p.kind} values, "
                f"{_C_FAST32_NAME}: {lo} to {hi}",
                ValueError,
            )
        return value

    def _array(self, p, value, env, views):
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
        address = value.ctypes.data
        if views is not None and value.size:
            views.append((p, value, *_byte_extent(value, address)))
        if not p.is_window:
            if not value.flags.c_contiguous:
                raise self._error(
                    p,
                    "expected a C-contiguous array (only window parameters accept strided views)",
                    ValueError,
                )
            return address
        itemsize = value.itemsize
        if any(s % itemsize for s in value.strides):
            raise self._error(
                p, "strides must be multiples of the element size", ValueError
            )
        strides = [s // itemsize for s in value.strides]
        env[f"__strides_{p.name}"] = strides
        return _WindowStructs.get(value.ndim)(
            address, (_C_FAST32 * value.ndim)(*strides)
        )

    def _scalar(self, p, value, keep, views):
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
            address = value.ctypes.data
            if views is not None:
                views.append((p, value, address, address + value.itemsize))
            return address
        if isinstance(value, ctypes._SimpleCData):
            if type(value) is not _CTYPES.get(p.prec):
                raise self._error(
                    p,
                    f"expected a ctypes value of {p.prec}, got {type(value).__name__}",
                )
            address = ctypes.addressof(value)
            if views is not None:
                views.append((p, value, address, address + ctypes.sizeof(value)))
            return address
        if p.written:
            raise self._error(
                p,
                "the kernel writes this scalar: pass a 0-d numpy array or a ctypes value",
            )
        if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.number)
        ):
            raise self._error(p, f"expected a number, got {type(value).__name__}")
        boxed = self._boxed_number(p, value)
        keep.append(boxed)
        return boxed.ctypes.data

    def _boxed_number(self, p, value):
        """A 0-d array of `p`'s dtype holding exactly `value`: integers must
        be integral and in range, floats must not overflow to infinity."""
        if np.issubdtype(p.dtype, np.integer):
            if not isinstance(value, (int, np.integer)):
                raise self._error(
                    p, f"expected an integer for {p.prec}, got {type(value).__name__}"
                )
            info = np.iinfo(p.dtype)
            if not info.min <= int(value) <= info.max:
                raise self._error(
                    p,
                    f"{value} does not fit in {p.prec} ({info.min} to {info.max})",
                    ValueError,
                )
            return np.array(value, dtype=p.dtype)
        with np.errstate(over="ignore"):
            boxed = np.array(value, dtype=p.dtype)
        if np.isinf(boxed) and np.isfinite(value):
            raise self._error(
                p,
                f"{value} does not fit in {p.prec} (it would become infinity)",
                ValueError,
            )
        return boxed

    def _stride_env(self, env):
        def stride(buf, dim):
            strides = env.get(f"__strides_{buf}")
            if strides is not None:
                return strides[dim]
            shape = env[f"__shape_{buf}"]
            return int(np.prod(shape[dim + 1 :], dtype=np.int64))

        return stride

    def _checked_arguments(self, args, kwargs):
        """`(c_args, keep, env)`: the C arguments of a call after every
        check of the module docstring; `keep` holds the boxed numbers they
        point to."""
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
        # (param, array, first byte, end byte) of each array argument, for
        # the overlap check; Python numbers are boxed into fresh arrays.
        views = [] if self._may_alias else None
        c_args = [self._ctxt_ptr]
        for p, value in zip(self._params, args, strict=False):
            if not p.is_data:
                c_args.append(env[p.name])
            elif p.is_tensor:
                c_args.append(self._array(p, value, env, views))
                env[f"__shape_{p.name}"] = value.shape
            else:
                c_args.append(self._scalar(p, value, keep, views))
        if views:
            self._check_no_overlap(views)
        if self._preconditions:
            self._check_preconditions(env, self._preconditions)
        return c_args, keep, env

    def __call__(self, *args, **kwargs):
        c_args, _keep, _env = self._checked_arguments(args, kwargs)
        self._fn(*c_args)

    def bind(self, *args, **kwargs):
        """A `BoundCall` of the kernel on these arguments: checked now,
        exactly as a call checks them, and run without checks by calling
        it (`bound()`), about half a microsecond per call."""
        c_args, keep, env = self._checked_arguments(args, kwargs)
        struct = self._args_struct(*c_args)
        # the struct holds raw addresses: keep what they point into alive
        return BoundCall(self, struct, [*keep, *args, *kwargs.values()], env)

    def _check_no_overlap(self, views):
        """Raises ValueError when two array arguments share memory and the
        kernel writes one of them. Byte extents decide most pairs; only
        pairs whose extents intersect (interleaved strided views) need
        NumPy's exact test."""
        for k, (p, a, a_lo, a_hi) in enumerate(views):
            for q, b, b_lo, b_hi in views[k + 1 :]:
                if not (p.written or q.written) or a_hi <= b_lo or b_hi <= a_lo:
                    continue
                try:
                    shared = np.shares_memory(_as_array(a), _as_array(b), 100_000)
                except np.exceptions.TooHardError:
                    shared = True
                if shared:
                    written = " and ".join(f"'{x.name}'" for x in (p, q) if x.written)
                    raise ValueError(
                        f"{self.__name__}: arguments '{p.name}' and '{q.name}' "
                        f"overlap in memory, and the kernel writes {written}: "
                        "exo2 assumes that distinct array arguments never "
                        "alias (pass separate arrays, e.g. a copy)"
                    )

    def _check_preconditions(self, env, preconditions):
        names = dict(env)
        for p in self._params:
            if p.is_data:
                names[p.name] = p.name  # `stride(x, d)` looks buffers up by name
        names["stride"] = self._stride_env(env)
        for cfg_name, (_cfg, _types) in self._configs.items():
            names[cfg_name] = getattr(self.context, cfg_name)
        for text, code in preconditions:
            try:
                ok = eval(code, {}, names)
            except NameError:
                continue  # mentions something only C knows
            if not ok:
                raise ValueError(f"{self.__name__}: precondition violated: {text}")


class BoundCall(functools.partial):
    """`kernel.bind(*args)`: the kernel on fixed arguments, checked once.

    Calling it (`bound()`, no arguments) runs the kernel's C on the
    arguments checked at `bind` time, through a C function taking one
    pointer to them: a few hundred nanoseconds, against ten microseconds or
    more for a checked call. It keeps references to the arrays, so their
    memory stays valid, and checks nothing again except the preconditions
    that read config fields (configs may change between calls). What it
    assumes, since it does not look: each array still has the dtype, shape,
    strides and flags it had at `bind` (NumPy changes none of these in
    place, except `a.flags.writeable` and assigning `a.shape` / `a.strides`,
    which you must not do to a bound array), and a Python number given for
    a scalar keeps its value at `bind` (it was copied). The contents of the
    arrays are free to change between calls: that is the point.
    """

    def __new__(cls, kernel, struct, keep, env):
        if kernel._config_preconditions:
            call = functools.partial(_checked_bound_call, kernel, env, struct)
        else:
            call = functools.partial(kernel._call_bound, ctypes.addressof(struct))
        bound = super().__new__(cls, call)
        bound.kernel = kernel
        bound._struct = struct
        bound._keep = keep
        # The C entry and its one argument, for callers that loop in C
        # (`exo2.bench`); None where each call checks preconditions first.
        bound.function = None if kernel._config_preconditions else kernel._call_bound
        bound.c_args = (ctypes.c_void_p(ctypes.addressof(struct)),)
        return bound

    def __repr__(self):
        return f"<BoundCall of {self.kernel.__name__}>"


def _checked_bound_call(kernel, env, struct):
    """A bound call of a kernel whose preconditions read config fields:
    those are checked first."""
    kernel._check_preconditions(env, kernel._config_preconditions)
    kernel._call_bound(ctypes.addressof(struct))
