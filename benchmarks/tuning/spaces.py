"""The tuning problems of the benchmarks: the GEMM and the convolution of
examples/ with their spaces, at one size each (small enough to record every
point of the space once: `record.py`).

- `gemm`: sgemm 256 x 256 x 512 on AVX2, `Blocking` with MR in {2, 4, 6},
  NR in 1-3 vectors (register constraint), KC in {64, 256}, NB = 16,
  packing of A and B on or off, three loop orders: 192 points (a
  subspace of examples/tune_gemm.py's, whose 11,172 points take each
  several seconds to schedule and compile).
- `conv`: the 3 x 3 convolution, 32 -> 32 channels, 30 x 30 output; the
  whole space of examples/tune_conv.py: 240 points.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
if str(EXAMPLES) not in sys.path:
    sys.path.insert(0, str(EXAMPLES))

import conv2d  # noqa: E402
import gemm_x86  # noqa: E402
import tune_conv  # noqa: E402
import tune_gemm  # noqa: E402


@dataclass
class Problem:
    name: str
    space: object
    schedule: object
    reference: object
    args: object  # rng -> arguments
    sizes: dict
    default: dict  # the hand-chosen point


def gemm_problem(M=256, N=256, K=512, target=gemm_x86.AVX2_F32):
    return Problem(
        name="gemm",
        space=tune_gemm.space(
            target, mr=(2, 4, 6), nr_vecs=(1, 2, 3), kc=(64, 256), nb=(16,)
        ),
        schedule=tune_gemm.schedule(target),
        reference=tune_gemm.kernel_of(target),
        args=tune_gemm.arguments(M, N, K),
        sizes={"M": M, "N": N, "K": K},
        default=tune_gemm.default_point(target),
    )


def conv_problem(C=32, K=32, H=30, W=30):
    return Problem(
        name="conv",
        space=tune_conv.SPACE,
        schedule=tune_conv.schedule,
        reference=conv2d.conv2d,
        args=tune_conv.arguments(C, K, H, W),
        sizes={"C": C, "K": K, "H": H, "W": W},
        default=tune_conv.default_point(),
    )


PROBLEMS = {"gemm": gemm_problem, "conv": conv_problem}
