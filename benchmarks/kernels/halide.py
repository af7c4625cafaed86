"""The `halide` suite: the image pipelines of halide_pipelines.py (blur,
unsharp) against a straightforward NumPy implementation.

Variants: `naive` and every schedule of `halide_pipelines.SCHEDULES` for
that pipeline (a schedule's `parallel` loops run on one thread: the runner
sets OMP_NUM_THREADS=1). Images are n x n outputs, n a multiple of 32 so
that the 8 x 32 tiled schedules apply (512 at most with --quick).

Flops count the arithmetic of the naive pipeline (adds, multiplies,
divides); bytes are the compulsory input and output traffic.
"""

from __future__ import annotations

import numpy as np

from . import Case, Check, Kernel, gamma
from . import halide_pipelines as pipelines

SIZES = (64, 128, 256, 512, 1024, 2048)
QUICK_MAX = 512


def blur_numpy(inp, out):
    blur_x = (inp[:, :-2] + inp[:, 1:-1] + inp[:, 2:]) / 3
    out[...] = (blur_x[:-2] + blur_x[1:-1] + blur_x[2:]) / 3


def unsharp_numpy(inp, out):
    taps = (1, 4, 6, 4, 1)
    rows = inp.shape[0] - 4
    columns = inp.shape[1] - 4
    blur_y = sum(t * inp[i : i + rows, :] for i, t in enumerate(taps)) / 16
    blur_x = sum(t * blur_y[:, i : i + columns] for i, t in enumerate(taps)) / 16
    out[...] = 2 * inp[2:-2, 2:-2] - blur_x


def _reference(pipeline, border, operations, bound_of):
    def reference(inputs):
        inp = inputs["inp"].astype(np.float64)
        expected = np.empty((inp.shape[0] - border, inp.shape[1] - border))
        pipeline(inp, expected)
        magnitude = np.empty_like(expected)
        bound_of(np.abs(inp), magnitude)
        return {"out": Check(expected, gamma(operations, np.float32) * magnitude)}

    return reference


def _unsharp_magnitude(inp, out):
    """An upper bound on the magnitudes summed by unsharp: 2 |in| + blur(|in|)."""
    unsharp_numpy(inp, out)
    out[...] = 4 * inp[2:-2, 2:-2] - out


def _pipeline_kernel(
    name, border, flops_per_pixel, operations, numpy_pipeline, bound_of
):
    def cases(quick, sizes=None):
        if sizes is None:
            sizes = [n for n in SIZES if not quick or n <= QUICK_MAX]
        return [
            Case(
                label=str(n),
                sizes={"W": n, "H": n},
                flops=float(flops_per_pixel(n)),
                bytes=float(4 * ((n + border) ** 2 + n * n)),
                x=n,
            )
            for n in sizes
        ]

    def inputs(sizes, rng):
        W, H = sizes["W"], sizes["H"]
        return {
            "inp": rng.uniform(0, 1, (H + border, W + border)).astype(np.float32),
            "out": np.zeros((H, W), dtype=np.float32),
        }

    def baseline(library, data):
        if library.name != "numpy":
            return None
        return lambda: numpy_pipeline(data["inp"], data["out"])

    kernel = Kernel(
        name=name,
        suite="halide",
        prec="f32",
        cases=cases,
        inputs=inputs,
        reference=_reference(numpy_pipeline, border, operations, bound_of),
        baseline=baseline,
        libraries=("numpy",),
        description=f"halide_pipelines.{name} (f32 image, n x n output)",
    )
    kernel.variant("naive")(lambda: getattr(pipelines, name))
    for schedule_name, (naive, schedule) in pipelines.SCHEDULES.items():
        if schedule_name.startswith(name + "_"):
            variant = schedule_name[len(name) + 1 :]
            kernel.variant(variant)(
                lambda naive=naive, schedule=schedule: schedule(p=naive())
            )
    return kernel


KERNELS = [
    # blur_x: 3 flops per pixel on (n + 2) x n, the output 3 on n x n.
    _pipeline_kernel(
        "blur", 2, lambda n: 3 * (n + 2) * n + 3 * n * n, 6, blur_numpy, blur_numpy
    ),
    # blur_y: 8 flops on n x (n + 4), blur_x 8 on n x n, the output 2.
    _pipeline_kernel(
        "unsharp",
        4,
        lambda n: 8 * n * (n + 4) + 10 * n * n,
        14,
        unsharp_numpy,
        _unsharp_magnitude,
    ),
]
