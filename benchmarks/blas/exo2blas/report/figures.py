"""The figures of a run, drawn from results.json and machine.json alone
(matplotlib):

- heatmaps as in the Exo 2 paper, one per (level, baseline, cache mode),
  plus one against the fastest baseline per case: rows are variants grouped
  by kernel and a geo-mean row, columns power-of-4 bins [4^i, 4^(i+1)) of
  the long dimension; a cell is the geometric mean over its bin's sizes of
  t_baseline / t_exo2 (above 1: exo2 faster), red at 0.8, white at 1.0,
  green at 1.2 (clipped), its value printed;
- per-variant plots: GB/s (levels 1 and 2) or GFLOP/s (level 3) against
  size, one line per library with its IQR band, and, when the probe ran,
  the measured FMA peak and the L1, L2 and DRAM rooflines.
"""

from __future__ import annotations

import math
from collections import defaultdict

from ..benchcases import READ_MIX, SKINNY

BASELINES = ("mkl", "openblas", "blis")


def row_label(record):
    """The heatmap row and plot of a result: its variant, or for a skinny
    level-2 shape (one dimension 40, the other not) the variant with
    `_skinny`, binned by its long dimension apart from the square ones."""
    sizes = record["sizes"]
    m, n = sizes.get("m"), sizes.get("n")
    skinny = record["kernel"] in ("gemv", "ger") and m != n and SKINNY in (m, n)
    return record["variant"] + ("_skinny" if skinny else "")


def pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _bin(length):
    return 0 if length < 1 else int(math.log(length, 4) + 1e-9)


def geomean(values):
    values = [v for v in values if v and v > 0]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def ratios(records, baseline, level, cache="warm"):
    """{variant: {bin: geo-mean of t_baseline / t_exo2}} for one baseline
    ("fastest": the fastest available baseline per case)."""
    medians = defaultdict(dict)  # (variant, sizes) -> library -> median
    for r in records:
        if (
            r.get("level") == level
            and r.get("cache") == cache
            and r.get("status") == "ok"
        ):
            key = (row_label(r), tuple(sorted(r["sizes"].items())), r["length"])
            medians[key][r["library"]] = r["median"]
    cells = defaultdict(lambda: defaultdict(list))
    for (variant, _, length), by in medians.items():
        exo = by.get("exo2blas")
        if baseline == "fastest":
            others = [by[b] for b in BASELINES if b in by]
            base = min(others) if others else None
        else:
            base = by.get(baseline)
        if exo and base:
            cells[variant][_bin(length)].append(base / exo)
    return {v: {b: geomean(rs) for b, rs in bins.items()} for v, bins in cells.items()}


def heatmap(table, title, path):
    """Draws `ratios(...)`; returns `path`, or None without data."""
    if not table:
        return None
    plt = pyplot()
    from matplotlib.colors import LinearSegmentedColormap, TwoSlopeNorm

    variants = sorted(table, key=lambda v: (v.lstrip("isd")[:5], v))
    bins = sorted({b for cells in table.values() for b in cells})
    rows = [[table[v].get(b) for b in bins] for v in variants]
    rows.append([geomean([table[v].get(b) for v in variants]) for b in bins])
    labels = [*variants, "geo-mean"]
    cmap = LinearSegmentedColormap.from_list("ratio", ["#d73027", "#ffffff", "#1a9850"])
    norm = TwoSlopeNorm(vmin=0.8, vcenter=1.0, vmax=1.2)
    height = 0.9 + 0.22 * len(labels)
    figure, axis = plt.subplots(figsize=(1.2 + 0.7 * len(bins), height))
    data = [[min(max(v, 0.8), 1.2) if v else float("nan") for v in row] for row in rows]
    axis.imshow(data, cmap=cmap, norm=norm, aspect="auto")
    for i, row in enumerate(rows):
        for j, v in enumerate(row):
            if v:
                axis.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=6)
    axis.set_xticks(range(len(bins)), [f"4^{b}" for b in bins], fontsize=7)
    axis.set_yticks(range(len(labels)), labels, fontsize=6)
    axis.set_title(title, fontsize=8)
    axis.set_xlabel("size bin [4^i, 4^(i+1)) of the long dimension", fontsize=7)
    figure.tight_layout()
    figure.savefig(path, dpi=80)
    plt.close(figure)
    return path


def variant_plot(records, variant, machine, path):
    """GB/s or GFLOP/s against size for every library of `variant` (a
    `row_label`)."""
    rows = [r for r in records if row_label(r) == variant and r.get("status") == "ok"
            and r.get("cache") == "warm"]  # fmt: skip
    if not rows:
        return None
    plt = pyplot()
    level = rows[0]["level"]
    unit = "gflops" if level == 3 else "gbs"
    figure, axis = plt.subplots(figsize=(5.5, 3.4))
    for library in sorted({r["library"] for r in rows}):
        mine = sorted(
            (r for r in rows if r["library"] == library), key=lambda r: r["length"]
        )
        xs = [r["length"] for r in mine]
        amount = [(r["flops"] if unit == "gflops" else r["bytes"]) / 1e9 for r in mine]
        ys = [a / r["median"] for a, r in zip(amount, mine, strict=True)]
        low = [
            a / (r["median"] + r["iqr"] / 2) for a, r in zip(amount, mine, strict=True)
        ]
        high = [
            a / max(r["median"] - r["iqr"] / 2, 1e-12)
            for a, r in zip(amount, mine, strict=True)
        ]
        axis.plot(xs, ys, marker=".", label=library)
        axis.fill_between(xs, low, high, alpha=0.2)
    _roofs(axis, rows, machine, unit)
    axis.set_xscale("log", base=2)
    axis.set_xlabel("n (long dimension)")
    axis.set_ylabel("GFLOP/s" if unit == "gflops" else "GB/s (compulsory traffic)")
    axis.set_title(variant, fontsize=9)
    axis.grid(True, alpha=0.3)
    axis.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(path, dpi=72)
    plt.close(figure)
    return path


def _roofs(axis, rows, machine, unit):
    """The measured peak and, per memory level, the kernel's roofline
    (exo2.bench's `roof` on the probed machine)."""
    from exo2 import bench

    probe = (machine or {}).get("probe")
    if not probe:
        return
    probed = bench.Machine(**probe)
    prec = "f64" if rows[0]["precision"] == "d" else "f32"
    isa = (machine or {}).get("isa")
    peak = probed.peak(prec, isa)
    writes = rows[0]["kernel"] not in READ_MIX
    flops, nbytes = rows[0]["flops"], rows[0]["bytes"]
    for level in probed.bandwidth_gbs:
        working_set = (
            probed.caches.get(level, math.inf) if level != "DRAM" else math.inf
        )
        bound = bench.roof(probed, flops or 0, nbytes, prec, working_set, writes)
        if bound.level != level or bound.bandwidth_gbs is None:
            continue
        if unit == "gbs":
            value, label = bound.bandwidth_gbs, f" {level} {bound.mix}"
        elif flops:
            value, label = min(peak or math.inf, bound.gflops), f" {level} roof"
        else:
            continue
        axis.axhline(value, linestyle="--", linewidth=0.8, color="gray")
        axis.text(rows[0]["length"], value, label, fontsize=6, color="gray")
    if unit == "gflops" and peak:
        axis.axhline(peak, color="black", linewidth=1)
        axis.text(rows[0]["length"], peak, f" measured {isa} peak", fontsize=6)
