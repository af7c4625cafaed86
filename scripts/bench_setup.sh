#!/usr/bin/env bash
# Installs what the kernel benchmarks (benchmarks/run.py) use, when it is
# missing: the single-threaded OpenBLAS and BLIS shared libraries (Debian),
# MKL and matplotlib (pip). Each is optional for the runner, which skips a
# library it cannot load, so a failed install here is reported, not fatal.
# exo2 itself is installed by scripts/setup.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/python_env.sh

apt_packages=(libopenblas0-serial libblis4-serial)
missing=()
for pkg in "${apt_packages[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  if ! { $SUDO apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"; }; then
    echo "bench_setup: could not install ${missing[*]}; those baselines will be skipped" >&2
  fi
fi

pip_packages=()
python3 -c "import matplotlib" >/dev/null 2>&1 || pip_packages+=(matplotlib)
python3 - <<'EOF' >/dev/null 2>&1 || pip_packages+=(mkl)
import glob, sys
sys.exit(0 if glob.glob(sys.prefix + "/lib/libmkl_rt.so*") else 1)
EOF
if [ ${#pip_packages[@]} -gt 0 ]; then
  if ! python3 -m pip install -q --disable-pip-version-check "${pip_packages[@]}"; then
    echo "bench_setup: could not install ${pip_packages[*]}; skipped by the runner" >&2
  fi
fi
exit 0
