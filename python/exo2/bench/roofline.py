"""The roofline of a kernel on a probed `Machine`, and its chart.

A kernel of `flops` operations and `bytes` of compulsory traffic can run no
faster than `min(peak, flops / bytes x bandwidth)` GFLOP/s: `peak` is the
probe's measured FMA rate of the widest ISA in the kernel's precision, and
the bandwidth is that of the memory level its working set fits in (L1, L2,
L3 or DRAM), for the stream mix it makes (`read` when it writes nothing,
else `triad`: reads and a write).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Roof:
    gflops: float  # the bound
    limit: str  # "compute" or "memory"
    peak_gflops: float | None
    bandwidth_gbs: float | None
    level: str  # L1, L2, L3 or DRAM
    mix: str  # read or triad
    intensity: float | None  # flops per byte


def roof(machine, flops, bytes_moved, prec="f32", working_set=None, writes=True):
    """The `Roof` of a kernel (see the module docstring); `working_set`
    (bytes) picks the memory level, by default `bytes_moved`."""
    peak = machine.peak(prec)
    level = machine.level_of(bytes_moved if working_set is None else working_set)
    mix = "triad" if writes else "read"
    bandwidth = machine.bandwidth_gbs.get(level, {}).get(mix)
    intensity = flops / bytes_moved if bytes_moved else None
    memory = (
        intensity * bandwidth
        if intensity is not None and bandwidth is not None
        else float("inf")
    )
    compute = peak if peak is not None else float("inf")
    bound = min(memory, compute)
    return Roof(
        gflops=bound,
        limit="compute" if compute <= memory else "memory",
        peak_gflops=peak,
        bandwidth_gbs=bandwidth,
        level=level,
        mix=mix,
        intensity=intensity,
    )


def pyplot():
    """matplotlib's pyplot with a file backend, or an ImportError that names
    the package to install."""
    try:
        import matplotlib
    except ImportError as error:
        raise ImportError(
            "exo2.bench: plotting needs matplotlib (pip install matplotlib)"
        ) from error
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot(machine, points, path, prec="f32", title=None):
    """Draws the machine's roofline (peaks and the `triad` bandwidth of each
    level) with `points` -- `(label, intensity, gflops)` -- and saves it to
    `path`."""
    plt = pyplot()
    figure, axis = plt.subplots(figsize=(7, 4.5))
    intensities = [p[1] for p in points if p[1]] or [1.0]
    lo, hi = min(min(intensities) / 4, 0.05), max(max(intensities) * 4, 64)
    xs = [lo, hi]
    peaks = {isa: rates.get(prec) for isa, rates in machine.fma_gflops.items()}
    top = max((p for p in peaks.values() if p), default=None)
    for level, mixes in machine.bandwidth_gbs.items():
        bw = mixes.get("triad")
        if not bw:
            continue
        ys = [min(x * bw, top) if top else x * bw for x in xs]
        ridge = top / bw if top else hi
        line_x = [lo, min(max(ridge, lo), hi), hi]
        line_y = [min(x * bw, top) if top else x * bw for x in line_x]
        axis.plot(line_x, line_y, "--", linewidth=1, label=f"{level} {bw:.0f} GB/s")
        del ys
    for isa, peak in peaks.items():
        if peak:
            axis.axhline(peak, color="k", linewidth=1)
            axis.text(
                lo * 1.1, peak * 1.05, f"{isa} {prec} {peak:.0f} GFLOP/s", fontsize=8
            )
    for label, intensity, gflops in points:
        if intensity and gflops:
            axis.plot([intensity], [gflops], "o", markersize=7, label=label)
    axis.set_xscale("log")
    axis.set_yscale("log")
    axis.set_xlabel("arithmetic intensity (flop / byte, compulsory traffic)")
    axis.set_ylabel("GFLOP/s")
    axis.set_title(title or f"roofline: {machine.model}, one core")
    axis.grid(True, which="both", alpha=0.3)
    axis.legend(fontsize=7, loc="lower right")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path
