#!/usr/bin/env bash
# exo2's main job, end to end: define a kernel, check it, print it.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/python_env.sh
bash scripts/setup.sh
python3 examples/demo.py
