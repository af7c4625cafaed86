"""Kernels compiled by add_exo2_library into libkernels.a."""

from __future__ import annotations

from exo2 import proc

__all__ = ["scale", "dot"]


@proc
def scale(n: size, alpha: f32, x: f32[n]):
    for i in seq(0, n):
        x[i] = alpha * x[i]


@proc
def dot(n: size, x: f32[n], y: f32[n], result: f32):
    result = 0.0
    for i in seq(0, n):
        result += x[i] * y[i]
