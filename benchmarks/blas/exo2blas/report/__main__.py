"""python -m exo2blas.report RESULTS_DIR: rewrites report.md and figures/."""

import sys

from . import write_report

if len(sys.argv) != 2:
    sys.exit("usage: python -m exo2blas.report RESULTS_DIR")
print(write_report(sys.argv[1]))
