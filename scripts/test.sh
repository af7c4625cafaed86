#!/usr/bin/env bash
# Builds exo2 and runs every test: the C++ units (ctest) and the Python
# suite (pytest). Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/install_postgres.sh  # for the shared-study test; never fails
ctest --test-dir build --output-on-failure -j2
python3 -m pytest tests/python -q
