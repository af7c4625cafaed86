#!/usr/bin/env bash
# Makes, once, the virtual environment with Exo (exo-lang built from its
# source distribution on PyPI, with pytest, numpy and pillow) that is
# compared with exo2: by the conformance run (scripts/conformance.sh) and by
# tests/python/test_exo_compat_benchmark.py, which the test command runs
# before the conformance run, so it makes the environment too.
#
#   scripts/exo_env.sh [SDIST]     SDIST: an exo-lang source distribution
#                                  already downloaded (default: PyPI's)
#
# Where: $EXO2_CONFORMANCE_CACHE/venv-exo-$EXO_VERSION (defaults
# ~/.cache/exo2-conformance and 1.0.0). Exit status 0 when the environment
# imports exo; otherwise 1, with the reason on the last line of stderr.
set -uo pipefail
EXO_VERSION="${EXO_VERSION:-1.0.0}"
CACHE="${EXO2_CONFORMANCE_CACHE:-$HOME/.cache/exo2-conformance}"
VENV="$CACHE/venv-exo-$EXO_VERSION"
PACKAGE="${1:-exo-lang==$EXO_VERSION}"

if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import exo, pytest, numpy, PIL" 2>/dev/null; then
  exit 0
fi
echo "exo_env: creating $VENV (exo-lang $EXO_VERSION)"
mkdir -p "$CACHE"
rm -rf "$VENV"
log="$(mktemp "${TMPDIR:-/tmp}/exo_env.XXXXXX")"
trap 'rm -f "$log"' EXIT
if python3 -m venv "$VENV" >"$log" 2>&1 &&
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check \
    --no-binary exo-lang "$PACKAGE" pytest numpy pillow >>"$log" 2>&1; then
  exit 0
fi
rm -rf "$VENV"
echo "exo_env: could not install exo-lang==$EXO_VERSION ($(tail -1 "$log"))" >&2
exit 1
