"""Target P3: at large sizes, a memory-bound kernel reaches >= 90% of the
probe's DRAM bandwidth for its stream mix.

A case is "large" when its compulsory traffic (`bytes`: every operand read
once, the output written once) exceeds the last cache level the probe
measured, so it streams from DRAM even in a warm run. Its achieved
bandwidth is bytes / median time; the bound is `exo2.bench.roof`'s DRAM
bandwidth for the mix it makes (`read` for a kernel that writes no array
or, reading a matrix, only a vector; else `triad`: benchcases.READ_MIX).
The fastest baseline's fraction of the same bound is given beside it: it
says how close to the probe a library gets on this machine.
A case not far beyond the last cache can exceed 100%: part of its data is
still cached between calls, where the probe's DRAM buffer is far larger.
"""

from __future__ import annotations

import math
from collections import defaultdict

from ..benchcases import READ_MIX
from .figures import BASELINES, geomean

TARGET = 0.9


def dram_bound(probed, record):
    """The DRAM bandwidth (GB/s) bounding `record`, or None when its
    traffic fits in a cache or the probe measured no DRAM bandwidth."""
    from exo2 import bench

    if not record.get("bytes") or probed.level_of(record["bytes"]) != "DRAM":
        return None
    prec = "f64" if record["precision"] == "d" else "f32"
    writes = record["kernel"] not in READ_MIX
    bound = bench.roof(probed, record.get("flops") or 0, record["bytes"], prec,
                       math.inf, writes)  # fmt: skip
    return bound.bandwidth_gbs


def dram_fractions(records, machine):
    """Per (level, kernel family): the geo-mean over its large cases of
    achieved / DRAM bandwidth for exo2blas and for the fastest baseline,
    and the number of cases. Empty without a probe or large cases."""
    from exo2 import bench

    probe = (machine or {}).get("probe")
    if not probe:
        return {}
    probed = bench.Machine(**probe)
    cases = defaultdict(dict)
    for r in records:
        if r.get("status") == "ok" and r["level"] in (1, 2) and r.get("median"):
            key = (
                r["variant"],
                tuple(sorted(r["sizes"].items())),
                r.get("cache"),
                r["kernel"],
            )
            cases[key][r["library"]] = r
    fractions = defaultdict(lambda: {"exo2blas": [], "fastest": []})
    for (*_, kernel), by_library in cases.items():
        ours = by_library.get("exo2blas")
        bound = dram_bound(probed, ours) if ours else None
        if not bound:
            continue
        achieved = ours["bytes"] / ours["median"] / 1e9
        key = (ours["level"], kernel)
        fractions[key]["exo2blas"].append(achieved / bound)
        baselines = [r for lib, r in by_library.items() if lib in BASELINES]
        if baselines:
            fastest = min(r["median"] for r in baselines)
            fractions[key]["fastest"].append(ours["bytes"] / fastest / 1e9 / bound)
    return {
        key: (geomean(f["exo2blas"]), geomean(f["fastest"]), len(f["exo2blas"]))
        for key, f in fractions.items()
    }
