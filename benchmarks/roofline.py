"""The machine description and roofs of the benchmark reports, from
exo2.bench's machine probe (`exo2.bench.probe()`: sustained clock, FMA rate
per ISA and precision, bandwidth per cache level and DRAM, measured once
per machine and cached; see docs/tuning-and-measuring.md).

`machine_info()` returns what the results record: the CPU, the measured
FMA peak of the widest ISA and the theoretical one (clock x FMA units x
lanes x 2), and the DRAM bandwidth of the `copy` and `triad` mixes (with
every level's in `bandwidth["levels"]`). A kernel's roof at a size is
`min(peak, flops / bytes x triad bandwidth)` with its compulsory traffic
in bytes (see `roof`). GB and GFLOP are 10^9.
"""

from __future__ import annotations

import os

from exo2 import bench


def machine_info(quick=False):
    """Everything the results record about the machine, roofs included
    (`quick` is accepted for the runner's sake: the probe is cached)."""
    del quick
    machine = bench.probe()
    isa = machine.best_isa()
    info = {
        "model": machine.model,
        "host": machine.host,
        "mhz": machine.clock_ghz * 1e3 if machine.clock_ghz else None,
        "logical_cpus": os.cpu_count(),
        "isas": machine.isas,
        "caches": machine.caches,
        "probe": machine.to_json(),
    }
    if hasattr(os, "getloadavg"):
        info["load_average_1min"] = os.getloadavg()[0]  # other jobs skew timings
    info["peak_gflops_measured"] = machine.fma_gflops.get(isa) if isa else None
    info["peak_gflops_theoretical"] = machine.peak_gflops.get(isa) if isa else None
    if isa:
        info["peak_assumption"] = (
            f"{machine.fma_units[isa]} {isa} FMA units (measured) x lanes x 2 flops "
            f"at the sustained clock {machine.clock_ghz:.2f} GHz"
        )
    dram = machine.bandwidth_gbs.get("DRAM", {})
    info["bandwidth"] = {
        "copy_gbs": dram.get("copy"),
        "triad_gbs": dram.get("triad"),
        "levels": machine.bandwidth_gbs,
        "source": "exo2.bench.probe",
    }
    return info


def peak_gflops(info, prec):
    """The peak used for roofs: measured if available, else theoretical."""
    for key in ("peak_gflops_measured", "peak_gflops_theoretical"):
        if info.get(key):
            return info[key][prec]
    return None


def roof(info, prec, flops, bytes_moved):
    """GFLOP/s a kernel can reach: min(peak, intensity x triad bandwidth)."""
    peak = peak_gflops(info, prec)
    bandwidth = info["bandwidth"]["triad_gbs"]
    memory = (
        flops / bytes_moved * bandwidth if bytes_moved and bandwidth else float("inf")
    )
    return min(peak, memory) if peak else memory
