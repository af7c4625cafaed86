"""The benchmark cases of a profile, their flop and byte counts, and the
cost estimate the runner's budget and progress bar use.

A case is one (variant, sizes, cache mode); the harness (bench/harness.cpp)
times it once per library. Sizes (docs/blas-library.md):

- level 1: n = 2^0..2^26, 3^1..3^16, 2^k - 1 for odd k in 3..25;
- level 2: m = n = 2^0..2^13, 3^1..3^8, 2^k - 1 for odd k in 3..13; banded
  kernels with k in {4, 64}; skinny gemv (both forms) and ger, one dimension
  40 and the other 2^0..2^22 (`quick`: 2^17, as many elements as its
  largest square, 2048^2);
- level 3: m = n = k = 2^0..2^12, 3^1..3^7 and {7, 33, 100, 257, 513, 1000,
  2047};

`quick` keeps the powers of two up to 2^22 (level 1), 2048 (level 2) and
1024 (level 3); `smoke` a handful of cases per level.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

ELEMENT_BYTES = {"s": 4, "d": 8, "ds": 4, "sds": 4}

# Routine -> (level, enum axes in BLAS name order). rotm's flag is an axis.
ROUTINES = {
    "asum": (1, ()), "axpy": (1, ()), "copy": (1, ()), "dot": (1, ()), "scal": (1, ()),
    "swap": (1, ()), "rot": (1, ()), "rotm": (1, ("flag",)), "nrm2": (1, ()),
    "iamax": (1, ()), "dsdot": (1, ()), "sdsdot": (1, ()),
    "gemv": (2, ("trans",)), "ger": (2, ()), "symv": (2, ("uplo",)), "syr": (2, ("uplo",)),
    "syr2": (2, ("uplo",)), "trmv": (2, ("uplo", "trans", "diag")),
    "trsv": (2, ("uplo", "trans", "diag")), "gbmv": (2, ("trans",)), "sbmv": (2, ("uplo",)),
    "tbmv": (2, ("uplo", "trans", "diag")), "tbsv": (2, ("uplo", "trans", "diag")),
    "gemm": (3, ("trans", "trans_b")), "symm": (3, ("side", "uplo")),
    "syrk": (3, ("uplo", "trans")), "syr2k": (3, ("uplo", "trans")),
    "trmm": (3, ("side", "uplo", "trans", "diag")),
    "trsm": (3, ("side", "uplo", "trans", "diag")),
}  # fmt: skip

# The harness's flag values and the variant-name letter of each.
AXIS_VALUES = {
    "trans": (("N", "n"), ("T", "t")),
    "trans_b": (("N", "n"), ("T", "t")),
    "uplo": (("U", "u"), ("L", "l")),
    "diag": (("N", "n"), ("U", "u")),
    "side": (("L", "l"), ("R", "r")),
    "flag": (("-1", "m1"), ("0", "0"), ("1", "1"), ("-2", "m2")),
}


# Cases whose operands move at least LARGE_BYTES (counts() below) get
# LARGE_REPETITIONS times the profile's repetitions: beyond the L2 of the
# machines the suite ran on, their times move with what other programs do
# to the shared last-level cache and DRAM (the drift sentinel of a quick run
# moved 1.67 to 2.19 times), and the median of three repetitions of one
# library could fall in a slow stretch (docs/blas-library.md, Benchmarks).
LARGE_BYTES = 8 << 20
LARGE_REPETITIONS = 3

# the routines that write no array (a scalar or an index is their result):
# their traffic is reads alone (counts() below)
READ_ONLY = ("dot", "dsdot", "sdsdot", "asum", "nrm2", "iamax")

# the routines whose traffic the `read` roofline mix bounds: those above, and
# the level-2 ones that read a matrix and write only a vector, at most 1/n
# of their bytes (dgemv NoTrans of 131072 x 40 writes 2.4% of them, Trans
# 0.002%); `triad` bounds the rest, which write a stream as long as one
# they read (axpy's y, ger's A)
READ_MIX = READ_ONLY + ("gemv", "gbmv", "symv", "sbmv", "trmv", "tbmv", "trsv", "tbsv")


@dataclass
class BenchCase:
    routine: str
    p: str  # s, d; ds (dsdot), sds (sdsdot)
    variant: str  # "sgemv_t"
    flags: dict
    sizes: dict  # m, n, k, kl, ku as the routine uses them
    cache: str = "warm"
    extra: dict = field(default_factory=dict)

    @property
    def level(self):
        return ROUTINES[self.routine][0]

    @property
    def id(self):
        dims = "x".join(
            str(self.sizes[d]) for d in ("m", "n", "k", "kl", "ku") if d in self.sizes
        )
        return f"{self.variant}_{dims}_{self.cache}"

    @property
    def length(self):
        """The long dimension: the x axis of plots and heatmap bins."""
        return max(self.sizes.get(d, 0) for d in ("m", "n", "k"))

    def line(self, pool_mib, repetitions):
        """The harness's line of the case, for a profile of `repetitions`."""
        words = {
            "id": self.id, "routine": self.routine, "p": self.p, "variant": self.variant,
            "cache": self.cache, "pool_mib": pool_mib,
            "repetitions": self.repetitions(repetitions), **self.flags, **self.sizes,
        }  # fmt: skip
        return " ".join(f"{k}={v}" for k, v in words.items())

    def repetitions(self, profile_repetitions):
        """The case's repetitions: the profile's, LARGE_REPETITIONS times
        as many where its operands move LARGE_BYTES or more."""
        large = self.counts()[1] >= LARGE_BYTES
        return profile_repetitions * (LARGE_REPETITIONS if large else 1)

    def counts(self):
        """(flops, bytes) of section 'Rooflines' of docs/blas-library.md."""
        r, s = self.routine, ELEMENT_BYTES[self.p]
        m, n, k = (self.sizes.get(d, 0) for d in ("m", "n", "k"))
        kl, ku = self.sizes.get("kl", 0), self.sizes.get("ku", 0)
        left = self.flags.get("side", "L") == "L"
        trans = self.flags.get("trans", "N") == "T"
        table = {
            "dot": (2 * n, 2 * n), "dsdot": (2 * n, 2 * n), "sdsdot": (2 * n, 2 * n),
            "axpy": (2 * n, 3 * n), "scal": (n, 2 * n), "asum": (2 * n, n),
            "nrm2": (2 * n, n), "iamax": (2 * n, n), "copy": (0, 2 * n), "swap": (0, 4 * n),
            "rot": (6 * n, 4 * n),
            "rotm": ((6 if self.flags.get("flag") == "-1" else 4) * n, 4 * n),
            "gemv": (2 * m * n, m * n + (m if trans else n) + 2 * (n if trans else m)),
            "gbmv": (2 * m * (kl + ku + 1), m * (kl + ku + 1) + (m if trans else n) + 2 * (n if trans else m)),
            "ger": (2 * m * n, 2 * m * n), "syr": (n * n, n * n), "syr2": (2 * n * n, n * n),
            "symv": (2 * n * n, n * n // 2 + 3 * n), "sbmv": (2 * n * (2 * k + 1), n * (k + 1) + 3 * n),
            "trmv": (n * n, n * n // 2 + 2 * n), "trsv": (n * n, n * n // 2 + 2 * n),
            "tbmv": (n * (2 * k + 1), n * (k + 1) + 2 * n), "tbsv": (n * (2 * k + 1), n * (k + 1) + 2 * n),
            "gemm": (2 * m * n * k, m * k + k * n + 2 * m * n),
            "symm": (2 * m * m * n if left else 2 * m * n * n, (m * m if left else n * n) // 2 + 3 * m * n),
            "syrk": (n * n * k, n * k + n * n), "syr2k": (2 * n * n * k, 2 * n * k + n * n),
            "trmm": (m * m * n if left else m * n * n, (m * m if left else n * n) // 2 + 2 * m * n),
            "trsm": (m * m * n if left else m * n * n, (m * m if left else n * n) // 2 + 2 * m * n),
        }  # fmt: skip
        flops, elements = table[r]
        return flops, elements * s

    def estimate(self, repetitions, min_time, gflops=2.0, gbs=8.0):
        """Seconds the harness spends on this case per library: its
        repetitions for a profile of `repetitions` (`repetitions()`), each
        at least `min_time`, of a call costing flops at
        `gflops` plus bytes at `gbs` (a naive kernel's rates), twice, since
        Google Benchmark calibrates the iteration count of each repetition
        with shorter runs first; plus setup."""
        flops, nbytes = self.counts()
        call = flops / (gflops * 1e9) + nbytes / (gbs * 1e9)
        repetitions = self.repetitions(repetitions)
        return 2 * repetitions * max(min_time, call) + 2 * call + 1e-3 + nbytes / 2e9


def _sizes(level, profile):
    if profile == "smoke":
        return {1: [1, 1024, 100003], 2: [1, 64, 300], 3: [1, 33, 100]}[level]
    powers = [2**e for e in range(0, {1: 27, 2: 14, 3: 13}[level])]
    if profile == "quick":
        top = {1: 2**22, 2: 2048, 3: 1024}[level]
        return [n for n in powers if n <= top]
    threes = [3**e for e in range(1, {1: 17, 2: 9, 3: 8}[level])]
    odd = {1: [2**e - 1 for e in range(3, 26, 2)], 2: [2**e - 1 for e in range(3, 14, 2)],
           3: [7, 33, 100, 257, 513, 1000, 2047]}[level]  # fmt: skip
    return sorted(set(powers + threes + odd))


def _variants(routine, precisions):
    level, axes = ROUTINES[routine]
    if routine in ("dsdot", "sdsdot"):
        yield ("ds" if routine == "dsdot" else "sds"), routine, {}
        return
    for p in precisions:
        for combo in itertools.product(*(AXIS_VALUES[a] for a in axes)):
            flags = {a: value for a, (value, _) in zip(axes, combo, strict=True)}
            letters = "".join(letter for _, letter in combo)
            if routine == "rotm" and flags["flag"] == "-2":
                continue  # the identity: a quick return, nothing to time
            base = f"i{p}amax" if routine == "iamax" else f"{p}{routine}"
            yield p, base + (f"_{letters}" if letters else ""), flags


SKINNY = 40  # the short dimension of the skinny level-2 shapes


def _skinny_lengths(profile):
    """The long dimensions of the skinny gemv and ger shapes."""
    top = {"smoke": 0, "quick": 17, "full": 22}[profile]
    return [2**e for e in range(0, top + 1)] if top else []


def cases(profile="quick", routines=None, precisions=("s", "d"), cold=False):
    """Every `BenchCase` of `profile` (optionally only `routines`)."""
    found = []
    for routine in routines or ROUTINES:
        level = ROUTINES[routine][0]
        for p, variant, flags in _variants(routine, precisions):
            for n in _sizes(level, profile):
                if routine in ("gbmv", "sbmv", "tbmv", "tbsv"):
                    for band in (4, 64) if profile != "smoke" else (4,):
                        b = min(band, max(n - 1, 0))
                        sizes = (
                            {"m": n, "n": n, "kl": b, "ku": b}
                            if routine == "gbmv"
                            else {"n": n, "k": b}
                        )
                        found.append(BenchCase(routine, p, variant, flags, sizes))
                    continue
                if level == 1 or routine in ("symv", "syr", "syr2", "trmv", "trsv"):
                    sizes = {"n": n}
                elif level == 2 or routine in ("symm", "trmm", "trsm"):
                    sizes = {"m": n, "n": n}
                elif routine in ("syrk", "syr2k"):
                    sizes = {"n": n, "k": n}
                else:
                    sizes = {"m": n, "n": n, "k": n}
                found.append(BenchCase(routine, p, variant, flags, sizes))
                power_of_two = n & (n - 1) == 0
                if cold and power_of_two and (level < 3 or n <= 256):
                    found.append(
                        BenchCase(routine, p, variant, flags, sizes, cache="cold")
                    )
            if routine in ("gemv", "ger"):
                for n in _skinny_lengths(profile):
                    for sizes in ({"m": n, "n": SKINNY}, {"m": SKINNY, "n": n}):
                        if sizes["m"] != sizes["n"]:  # 40 x 40 is square
                            found.append(BenchCase(routine, p, variant, flags, sizes))
    return found


def fit_budget(found, seconds, libraries, repetitions, min_time):
    """Drops the largest non-power-of-two sizes, then the largest sizes,
    until the estimate fits `seconds`; returns (kept, dropped)."""
    cost = {c.id: c.estimate(repetitions, min_time) * libraries for c in found}
    total = sum(cost.values())
    order = sorted(found, key=lambda c: (c.length & (c.length - 1) == 0, -c.length))
    dropped = []
    for c in order:
        if total <= seconds:
            break
        dropped.append(c)
        total -= cost[c.id]
    gone = {c.id for c in dropped}
    return [c for c in found if c.id not in gone], dropped
