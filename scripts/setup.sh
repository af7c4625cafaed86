#!/usr/bin/env bash
# Installs what exo2 needs on a fresh Debian machine and builds it in place
# (an editable install: Python sources are used from python/ and stdlib/,
# and a change to one C++ file rebuilds only that file, in build/).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/python_env.sh

# libbenchmark-dev and libblas3: the BLAS suite's harness (Google Benchmark)
# and netlib's reference CBLAS its ABI tests compare against; without them
# scripts/test.sh skips those tests
apt_packages=(g++ cmake ninja-build libz3-dev libfmt-dev libgtest-dev
  libbenchmark-dev libblas3)
missing=()
for pkg in "${apt_packages[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${missing[@]}"
fi

# optuna, tqdm and matplotlib: exo2.tune and the charts of exo2.bench
# (optional for users: `import exo2` works without them)
python3 -m pip install -q --disable-pip-version-check \
  "scikit-build-core>=0.10" "pybind11>=2.10" numpy pytest "yapf>=0.43" \
  optuna tqdm matplotlib
python3 -m pip install -q --disable-pip-version-check --no-build-isolation \
  -e . -Cbuild-dir=build -Ccmake.define.EXO2_BUILD_TESTS=ON -Ccmake.define.EXO2_BUILD_PYTHON=ON
