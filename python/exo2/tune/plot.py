"""The convergence chart: best time found against evaluations, one line
per search strategy (the median over seeds, with the range between the
best and the worst seed shaded)."""

from __future__ import annotations

import numpy as np

from ..bench.roofline import pyplot


def _filled(curve, length):
    """`curve` (best-so-far, None before the first feasible point) as floats
    of `length`, carrying the last value on."""
    values = [np.nan if v is None else v for v in curve][:length]
    values += [values[-1] if values else np.nan] * (length - len(values))
    return np.array(values, dtype=float)


def plot_convergence(
    curves, path, title="convergence", ylabel="best time (s)", target=None
):
    """`curves`: {strategy: [best-so-far list per seed]} (see
    `Result.best_so_far`); saves the chart to `path`. `target` draws a
    horizontal line (e.g. 95% of the best known)."""
    plt = pyplot()
    figure, axis = plt.subplots(figsize=(7, 4.5))
    for strategy, runs in curves.items():
        length = max(len(r) for r in runs)
        data = np.array([_filled(r, length) for r in runs])
        x = np.arange(1, length + 1)
        with np.errstate(all="ignore"):
            median = np.nanmedian(data, axis=0)
            low, high = np.nanmin(data, axis=0), np.nanmax(data, axis=0)
        line = axis.plot(x, median, label=f"{strategy} (median of {len(runs)})")[0]
        axis.fill_between(x, low, high, color=line.get_color(), alpha=0.15)
    if target is not None:
        axis.axhline(target, color="k", linestyle=":", linewidth=1, label="target")
    axis.set_xlabel("evaluations")
    axis.set_ylabel(ylabel)
    axis.set_yscale("log")
    axis.set_title(title)
    axis.grid(True, which="both", alpha=0.3)
    axis.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path
