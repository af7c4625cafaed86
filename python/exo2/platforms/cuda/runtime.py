"""Calling a compiled CUDA library from Python (docs/cuda.md, "Running a
kernel").

This module needs only NumPy and ctypes (not the exo2 compiler), so that a
library compiled elsewhere can be run from its description:

    lib = load_library("libgemm.so", description)
    lib.gemm(M, N, K, A, B, C)      # NumPy: copied in and out
    lib.gemm(M, N, K, dA, dB, dC)   # CuPy / PyTorch CUDA tensors: zero-copy

`description` lists, per public procedure, its parameters (name, kind,
element type, shape expressions, memory, whether it is written) and its
preconditions; `exo2.platforms.cuda.jit` builds it. Arguments are checked
before anything runs. NumPy arrays in CUDA_GMEM are copied to the device
and back (when written) and the call waits for completion; device arrays
(`__cuda_array_interface__`, or PyTorch CUDA tensors) are passed directly,
and `sync=True` (default) waits for the stream. `stream=` (an int handle or
an object with `.ptr` / `.cuda_stream`) selects the stream.
"""

import ctypes
import re
import sys

import numpy as np


class CudaError(RuntimeError):
    """A CUDA call or kernel launch failed; the message has the CUDA error
    name and text."""


class CudaUnavailableError(RuntimeError):
    """No usable GPU: the message says why (the CUDA runtime's reason)."""


# The runtime functions the JIT compiles into every library.
SUPPORT_SOURCE = r"""// Runtime helpers of exo2's CUDA JIT (generated).
#include <cuda_runtime.h>
#include <stddef.h>
extern "C" {
int exo2rt_device_count(int* n) { return (int)cudaGetDeviceCount(n); }
const char* exo2rt_error_name(int e) { return cudaGetErrorName((cudaError_t)e); }
const char* exo2rt_error_string(int e) { return cudaGetErrorString((cudaError_t)e); }
int exo2rt_malloc(void** p, size_t n) { return (int)cudaMalloc(p, n ? n : 1); }
int exo2rt_free(void* p) { return (int)cudaFree(p); }
int exo2rt_to_device(void* dst, const void* src, size_t n) {
  return (int)cudaMemcpy(dst, src, n, cudaMemcpyHostToDevice);
}
int exo2rt_to_host(void* dst, const void* src, size_t n) {
  return (int)cudaMemcpy(dst, src, n, cudaMemcpyDeviceToHost);
}
int exo2rt_stream_synchronize(void* s) {
  return (int)cudaStreamSynchronize((cudaStream_t)s);
}
int exo2rt_compute_capability(int* major, int* minor) {
  int device = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e != cudaSuccess) return (int)e;
  e = cudaDeviceGetAttribute(major, cudaDevAttrComputeCapabilityMajor, device);
  if (e != cudaSuccess) return (int)e;
  return (int)cudaDeviceGetAttribute(minor, cudaDevAttrComputeCapabilityMinor, device);
}
}
"""


def _int_fast32():
    if sys.platform.startswith("linux") and sys.maxsize > 2**32:
        return ctypes.c_long
    return ctypes.c_int32


_FAST32 = _int_fast32()

# Element types: (NumPy dtype names accepted, bytes, C type of host scalars).
_ELEMENTS = {
    "f32": (("float32",), 4, ctypes.c_float),
    "f64": (("float64",), 8, ctypes.c_double),
    "bf16": (("bfloat16", "uint16"), 2, ctypes.c_uint16),
    "f16": (("float16",), 2, ctypes.c_uint16),
    "i8": (("int8",), 1, ctypes.c_int8),
    "ui8": (("uint8",), 1, ctypes.c_uint8),
    "ui16": (("uint16",), 2, ctypes.c_uint16),
    "i32": (("int32",), 4, ctypes.c_int32),
}
# `__cuda_array_interface__` typestrs and PyTorch dtype names per element type.
_TYPESTRS = {
    "f32": ("<f4",),
    "f64": ("<f8",),
    "bf16": ("<u2", "<V2"),
    "f16": ("<f2",),
    "i8": ("|i1",),
    "ui8": ("|u1",),
    "ui16": ("<u2",),
    "i32": ("<i4",),
}
_TORCH_DTYPES = {
    "f32": "torch.float32",
    "f64": "torch.float64",
    "bf16": "torch.bfloat16",
    "f16": "torch.float16",
    "i8": "torch.int8",
    "ui8": "torch.uint8",
    "i32": "torch.int32",
}


def _python_expr(text):
    """A printed control expression as Python (`/` is floor division)."""
    return re.sub(r"(?<![/])/(?![/])", "//", text)


_WINDOWS = {}


def _window_struct(rank):
    if rank not in _WINDOWS:
        _WINDOWS[rank] = type(
            f"exo_win_{rank}",
            (ctypes.Structure,),
            {"_fields_": [("data", ctypes.c_void_p), ("strides", _FAST32 * rank)]},
        )
    return _WINDOWS[rank]


class _DeviceArray:
    """What a device array exposes: pointer, shape, element strides,
    typestr (or torch dtype name)."""

    def __init__(self, ptr, shape, strides, dtype_ok, dtype_text, readonly=False):
        self.ptr = ptr
        self.shape = tuple(shape)
        self.strides = strides
        self.dtype_ok = dtype_ok
        self.dtype_text = dtype_text
        self.readonly = readonly


def _device_view(value, elem):
    """The device-array view of a CuPy/PyTorch/CAI object, or None."""
    cai = getattr(value, "__cuda_array_interface__", None)
    if cai is None and hasattr(value, "data_ptr") and getattr(value, "is_cuda", False):
        # PyTorch (its CAI refuses bfloat16): duck-typed, no import.
        itemsize = value.element_size()
        return _DeviceArray(
            value.data_ptr(),
            tuple(value.shape),
            tuple(value.stride()),
            str(value.dtype) == _TORCH_DTYPES.get(elem),
            str(value.dtype).replace("torch.", ""),
        ), itemsize
    if cai is None:
        return None, None
    typestr = cai["typestr"]
    itemsize = int(typestr[2:])
    strides = cai.get("strides")
    if strides is not None:
        strides = tuple(s // itemsize for s in strides)
    ptr, readonly = cai["data"]
    return _DeviceArray(
        ptr, cai["shape"], strides, typestr in _TYPESTRS[elem], typestr, readonly
    ), itemsize


def _dense_strides(shape):
    out, s = [], 1
    for n in reversed(shape):
        out.append(s)
        s *= n
    return tuple(reversed(out))


class _Procedure:
    """One public procedure of a loaded library."""

    def __init__(self, library, description):
        self._lib = library
        self.__name__ = description["name"]
        self._params = description["params"]
        self._preconditions = [
            (text, compile(_python_expr(text), "<precondition>", "eval"))
            for text in description.get("preconditions", ())
        ]
        self._shapes = {
            p["name"]: [compile(_python_expr(e), "<shape>", "eval") for e in p["shape"]]
            for p in self._params
            if p["kind"] in ("tensor", "window")
        }
        fn = getattr(library.cdll, self.__name__)
        fn.restype = None
        argtypes = [ctypes.c_void_p]
        for p in self._params:
            kind = p["kind"]
            if kind in ("size", "index"):
                argtypes.append(_FAST32)
            elif kind == "bool":
                argtypes.append(ctypes.c_bool)
            elif kind == "window":
                argtypes.append(_window_struct(len(p["shape"])))
            else:
                argtypes.append(ctypes.c_void_p)
        fn.argtypes = argtypes
        self._fn = fn

    def _error(self, p, message, cls=TypeError):
        return cls(f"{self.__name__}: argument '{p['name']}' {message}")

    def _expected(self, p, env):
        dims = ", ".join(
            f"{text}={eval(code, {}, env)}"
            for text, code in zip(p["shape"], self._shapes[p["name"]], strict=True)
        )
        where = "on the GPU" if p["memory"] == "gmem" else "in host memory"
        return f"{p['dtype']}[{dims}] {where}"

    def __call__(self, *args, stream=None, sync=True):
        if len(args) != len(self._params):
            raise TypeError(
                f"{self.__name__}: expected {len(self._params)} arguments, got {len(args)}"
            )
        env = {}
        for p, v in zip(self._params, args, strict=True):
            if p["kind"] in ("size", "index"):
                if isinstance(v, (bool, np.bool_)) or not isinstance(
                    v, (int, np.integer)
                ):
                    raise self._error(p, f"expects an int, got {type(v).__name__}")
                if p["kind"] == "size" and v < 1:
                    raise self._error(
                        p, f"is a size and must be positive, got {v}", ValueError
                    )
                env[p["name"]] = int(v)
            elif p["kind"] == "bool":
                if not isinstance(v, (bool, np.bool_)):
                    raise self._error(p, f"expects a bool, got {type(v).__name__}")
                env[p["name"]] = bool(v)
        for text, code in self._preconditions:
            try:
                ok = eval(code, {}, dict(env))
            except NameError:
                continue
            if not ok:
                raise ValueError(f"{self.__name__}: precondition violated: {text}")
        # Every argument is checked before anything touches the GPU.
        for p, v in zip(self._params, args, strict=True):
            self._argument(p, v, env, [], [], [], dry=True)
        self._lib.require_device()
        keep, copies, frees = [], [], []
        c_args = [None]
        try:
            for p, v in zip(self._params, args, strict=True):
                c_args.append(self._argument(p, v, env, keep, copies, frees))
            handle = self._lib.stream_handle(stream)
            self._lib.set_stream(handle)
            self._fn(*c_args)
            err = self._lib.last_error()
            if err:
                raise self._lib.cuda_error(err, f"{self.__name__}: launch failed")
            if copies or sync:
                self._lib.check(
                    self._lib.rt.exo2rt_stream_synchronize(handle),
                    f"{self.__name__}: kernel failed",
                )
            for host, device, nbytes in copies:
                self._lib.check(
                    self._lib.rt.exo2rt_to_host(host.ctypes.data, device, nbytes),
                    f"{self.__name__}: copy to the host failed",
                )
        finally:
            for ptr in frees:
                self._lib.rt.exo2rt_free(ptr)

    def _argument(self, p, v, env, keep, copies, frees, dry=False):
        """The C argument for `v`; with `dry`, only the checks."""
        kind = p["kind"]
        if kind in ("size", "index"):
            return env[p["name"]]
        if kind == "bool":
            return env[p["name"]]
        elem = p["dtype"]
        names, itemsize, ctype = _ELEMENTS[elem]
        if kind == "scalar":
            if isinstance(v, (bool, np.bool_)) or not isinstance(
                v, (int, float, np.number)
            ):
                raise self._error(p, f"expects a number, got {type(v).__name__}")
            boxed = ctype(v) if elem not in ("bf16", "f16") else ctype(int(v))
            keep.append(boxed)
            return ctypes.addressof(boxed)
        expected_shape = tuple(eval(c, {}, env) for c in self._shapes[p["name"]])
        device, dev_itemsize = _device_view(v, elem)
        if device is not None:
            if p["memory"] != "gmem":
                raise self._error(
                    p, f"expects {self._expected(p, env)}, got a GPU array"
                )
            if not device.dtype_ok or device.shape != expected_shape:
                got = f"{device.dtype_text}{list(device.shape)} on the GPU"
                raise self._error(p, f"expects {self._expected(p, env)}, got {got}")
            strides = device.strides or _dense_strides(device.shape)
            if p["written"] and device.readonly:
                raise self._error(
                    p, "is written, but the array is read-only", ValueError
                )
            if kind == "tensor":
                if tuple(strides) != _dense_strides(device.shape):
                    raise self._error(p, "expects a contiguous array", ValueError)
                return device.ptr
            return _window_struct(len(strides))(
                device.ptr, (_FAST32 * len(strides))(*strides)
            )
        if not isinstance(v, np.ndarray):
            raise self._error(
                p, f"expects {self._expected(p, env)}, got {type(v).__name__}"
            )
        if v.dtype.name not in names or v.shape != expected_shape:
            got = f"{v.dtype.name}{list(v.shape)}"
            raise self._error(p, f"expects {self._expected(p, env)}, got {got}")
        if p["written"] and not v.flags.writeable:
            raise self._error(p, "is written, but the array is read-only", ValueError)
        if p["memory"] != "gmem":
            if kind == "tensor":
                if not v.flags.c_contiguous:
                    raise self._error(p, "expects a C-contiguous array", ValueError)
                return v.ctypes.data
            strides = tuple(s // v.itemsize for s in v.strides)
            return _window_struct(v.ndim)(v.ctypes.data, (_FAST32 * v.ndim)(*strides))
        # NumPy array for GPU memory: a contiguous device copy.
        if not v.flags.c_contiguous:
            raise self._error(p, "expects a C-contiguous NumPy array", ValueError)
        if dry:
            return None
        nbytes = v.size * itemsize
        ptr = ctypes.c_void_p()
        self._lib.check(
            self._lib.rt.exo2rt_malloc(ctypes.byref(ptr), nbytes),
            f"{self.__name__}: cudaMalloc of {nbytes} bytes failed",
        )
        frees.append(ptr.value)
        self._lib.check(
            self._lib.rt.exo2rt_to_device(ptr.value, v.ctypes.data, nbytes),
            f"{self.__name__}: copy to the device failed",
        )
        if p["written"]:
            copies.append((v, ptr.value, nbytes))
        if kind == "tensor":
            return ptr.value
        strides = _dense_strides(v.shape)
        return _window_struct(v.ndim)(ptr.value, (_FAST32 * v.ndim)(*strides))


class CudaLibraryRuntime:
    """A loaded library: one attribute per public procedure."""

    def __init__(self, so_path, description):
        self.path = str(so_path)
        self.cdll = ctypes.CDLL(self.path)
        self.description = description
        stem = description["lib"]
        rt = self.cdll
        for name, res, args in [
            ("exo2rt_device_count", ctypes.c_int, [ctypes.POINTER(ctypes.c_int)]),
            ("exo2rt_error_name", ctypes.c_char_p, [ctypes.c_int]),
            ("exo2rt_error_string", ctypes.c_char_p, [ctypes.c_int]),
            (
                "exo2rt_malloc",
                ctypes.c_int,
                [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t],
            ),
            ("exo2rt_free", ctypes.c_int, [ctypes.c_void_p]),
            (
                "exo2rt_to_device",
                ctypes.c_int,
                [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t],
            ),
            (
                "exo2rt_to_host",
                ctypes.c_int,
                [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t],
            ),
            ("exo2rt_stream_synchronize", ctypes.c_int, [ctypes.c_void_p]),
            (
                "exo2rt_compute_capability",
                ctypes.c_int,
                [ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int)],
            ),
        ]:
            f = getattr(rt, name)
            f.restype, f.argtypes = res, args
        self.rt = rt
        self._set_stream = getattr(self.cdll, f"{stem}_set_cuda_stream")
        self._set_stream.argtypes = [ctypes.c_void_p]
        self._set_stream.restype = None
        self._last_error = getattr(self.cdll, f"{stem}_cuda_last_error")
        self._last_error.argtypes = []
        self._last_error.restype = ctypes.c_int
        self._device_ok = None
        self._procs = {p["name"]: _Procedure(self, p) for p in description["procs"]}

    def __getattr__(self, name):
        procs = self.__dict__.get("_procs", {})
        if name in procs:
            return procs[name]
        raise AttributeError(name)

    def __dir__(self):
        return [*super().__dir__(), *self._procs]

    # ---- CUDA runtime ----------------------------------------------------
    def error_text(self, code):
        name = self.rt.exo2rt_error_name(code)
        text = self.rt.exo2rt_error_string(code)
        return f"{(name or b'?').decode()}: {(text or b'?').decode()}"

    def cuda_error(self, code, what):
        return CudaError(f"{what}: {self.error_text(code)}")

    def check(self, code, what):
        if code:
            raise self.cuda_error(code, what)

    def require_device(self):
        """Raises CudaUnavailableError when no GPU can run the library."""
        if self._device_ok is None:
            n = ctypes.c_int(0)
            code = self.rt.exo2rt_device_count(ctypes.byref(n))
            if code:
                self._device_ok = self.error_text(code)
            elif n.value == 0:
                self._device_ok = "no CUDA device is visible"
            else:
                self._device_ok = ""
        if self._device_ok:
            raise CudaUnavailableError(f"cannot run CUDA kernels: {self._device_ok}")

    def compute_capability(self):
        self.require_device()
        major, minor = ctypes.c_int(), ctypes.c_int()
        self.check(
            self.rt.exo2rt_compute_capability(ctypes.byref(major), ctypes.byref(minor)),
            "cudaDeviceGetAttribute failed",
        )
        return major.value, minor.value

    @staticmethod
    def stream_handle(stream):
        if stream is None:
            return None
        if isinstance(stream, int):
            return stream
        for attr in ("ptr", "cuda_stream", "handle"):
            if hasattr(stream, attr):
                return int(getattr(stream, attr))
        raise TypeError(
            "stream= expects an int handle or an object with .ptr or .cuda_stream"
        )

    def set_stream(self, handle):
        self._set_stream(handle)

    def last_error(self):
        return self._last_error()


def load_library(so_path, description):
    """The procedures of a compiled library (see the module)."""
    return CudaLibraryRuntime(so_path, description)
