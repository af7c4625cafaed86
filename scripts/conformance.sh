#!/usr/bin/env bash
# Exo conformance run (docs/internals/conformance.md): downloads the source
# distribution of exo-lang from PyPI, runs its tests/ on Exo itself (the
# control, in its own virtual environment under the cache folder) and on exo2
# (through the import alias exo -> exo2), and writes a report comparing the
# two. Nothing of Exo's is kept in the repository.
#
#   scripts/conformance.sh [--out DIR] [--fresh-control] [-- PYTEST_ARGS...]
#
# --out DIR          where the report and both runs' JSON go
#                    (default: build/conformance)
# --fresh-control    rerun the control even when a cached result matches
# PYTEST_ARGS        passed to both runs (e.g. -k test_schedules)
#
# Exit status: 0 when every test that passes on Exo passes on exo2 or is
# listed in tests/conformance/expected_differences.toml (and every listed
# test still differs); 1 otherwise. When PyPI cannot be reached the run is
# skipped: it says why and exits 0.
#
# Environment: PYTHON (the interpreter that imports exo2; default python3),
# EXO2_CONFORMANCE_CACHE (default ~/.cache/exo2-conformance),
# EXO_VERSION (default 1.0.0), EXO2_DIFFERENTIAL_RANDOM_SEED and
# EXO2_DIFFERENTIAL_RANDOM_STEPS (the random schedules replayed on Exo:
# default seed 1, 400 steps).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
source "$ROOT/scripts/python_env.sh"
HARNESS="$ROOT/tests/conformance"
PYTHON="${PYTHON:-python3}"
EXO_VERSION="${EXO_VERSION:-1.0.0}"
CACHE="${EXO2_CONFORMANCE_CACHE:-$HOME/.cache/exo2-conformance}"
OUT="$ROOT/build/conformance"
FRESH_CONTROL=0
PYTEST_ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT="$2"; shift 2 ;;
    --fresh-control) FRESH_CONTROL=1; shift ;;
    --) shift; PYTEST_ARGS=("$@"); break ;;
    *) echo "conformance.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
mkdir -p "$OUT" "$CACHE"
OUT="$(cd "$OUT" && pwd)"

skip() {
  echo "conformance: SKIPPED: $1" | tee "$OUT/report.md"
  exit 0
}

"$PYTHON" -c "import exo2" 2>/dev/null || {
  echo "conformance: $PYTHON cannot import exo2 (activate exo2's environment or set PYTHON)" >&2
  exit 2
}

WORK="$(mktemp -d "${TMPDIR:-/tmp}/exo2-conformance.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

start=$SECONDS
echo "conformance: downloading exo-lang==$EXO_VERSION (source distribution)"
"$PYTHON" -m pip download -q --disable-pip-version-check --no-binary :all: \
  --no-deps "exo-lang==$EXO_VERSION" -d "$WORK/sdist" >"$WORK/download.log" 2>&1 ||
  skip "could not download exo-lang==$EXO_VERSION from PyPI ($(tail -1 "$WORK/download.log"))"
SDIST="$(ls "$WORK"/sdist/exo_lang-*.tar.gz)"
tar -xzf "$SDIST" -C "$WORK"
SRC="$WORK/exo_lang-$EXO_VERSION"

# The tests alone, with the C libraries some of them compile against
# (tests/../src/exo/libs); Exo's own Python sources stay out of sys.path.
SUITE="$WORK/suite"
mkdir -p "$SUITE/src/exo"
cp -r "$SRC/tests" "$SUITE/tests"
cp -r "$SRC/src/exo/libs" "$SUITE/src/exo/libs"
find "$SUITE/src/exo/libs" -name '*.py' -delete
cp "$HARNESS/exo_tests_conftest.py" "$SUITE/tests/conftest.py"
cat >"$SUITE/tests/pytest.ini" <<'EOF'
[pytest]
markers =
    slow: Exo's slow tests (run here too)
    isa: the instruction set a test targets
filterwarnings =
    ignore::DeprecationWarning
EOF

# The control: exo-lang in its own virtual environment (made once, from the
# same source distribution).
VENV="$CACHE/venv-exo-$EXO_VERSION"
EXO_VERSION="$EXO_VERSION" EXO2_CONFORMANCE_CACHE="$CACHE" \
  bash "$ROOT/scripts/exo_env.sh" "$SDIST" 2>"$WORK/venv.log" ||
  skip "$(tail -1 "$WORK/venv.log")"
# The exo2 side needs the tests' own dependencies too.
"$PYTHON" -c "import PIL" 2>/dev/null ||
  "$PYTHON" -m pip install -q --disable-pip-version-check pillow >/dev/null 2>&1 ||
  skip "could not install pillow (Exo's tests import it)"

run_suite() { # mode python results-json [goldens-json]
  (cd "$SUITE/tests" &&
    EXO_CONFORMANCE_MODE="$1" EXO_CONFORMANCE_RESULTS="$3" \
      EXO_CONFORMANCE_GOLDENS="${4:-}" EXO_CONFORMANCE_HARNESS="$HARNESS" \
      "$2" -m pytest -q -p no:cacheprovider --continue-on-collection-errors --rootdir="$SUITE/tests" \
      ${PYTEST_ARGS[@]+"${PYTEST_ARGS[@]}"} . >"$OUT/$1.log" 2>&1) || true
  [ -f "$3" ] || { tail -20 "$OUT/$1.log"; echo "conformance: the $1 run wrote no results" >&2; exit 1; }
}

# The control's results depend only on Exo's version, the harness plugin and
# the pytest arguments: reuse them when those are unchanged.
key="$( (sha256sum "$SDIST" "$HARNESS/exo_tests_conftest.py" | cut -d' ' -f1
  echo "${PYTEST_ARGS[*]+${PYTEST_ARGS[*]}}") | sha256sum | cut -c1-16)"
CONTROL="$CACHE/control-$EXO_VERSION-$key.json"
if [ "$FRESH_CONTROL" = 1 ] || [ ! -f "$CONTROL" ]; then
  echo "conformance: running Exo's tests on exo-lang $EXO_VERSION (control)"
  t0=$SECONDS
  run_suite control "$VENV/bin/python" "$WORK/control.json"
  mv "$WORK/control.json" "$CONTROL"
  echo "conformance: control took $((SECONDS - t0)) s"
else
  echo "conformance: reusing the control run $CONTROL"
fi
cp "$CONTROL" "$OUT/control.json"

echo "conformance: running Exo's tests on exo2"
t0=$SECONDS
run_suite exo2 "$PYTHON" "$OUT/exo2.json" "$CONTROL"
echo "conformance: exo2 took $((SECONDS - t0)) s"

status=0
"$PYTHON" "$HARNESS/report.py" --exo "$OUT/control.json" --exo2 "$OUT/exo2.json" \
  --expected "$HARNESS/expected_differences.toml" --out "$OUT/report.md" \
  ${PYTEST_ARGS[@]+--subset} || status=$?

# Differential runs of exo2's own programs on both compilers (not for a
# subset of the suite).
if [ ${#PYTEST_ARGS[@]} -eq 0 ]; then
  echo "conformance: differential runs (tests/conformance/differential_programs.toml)"
  t0=$SECONDS
  "$PYTHON" "$HARNESS/differential.py" --exo-python "$VENV/bin/python" \
    --exo2-python "$PYTHON" --out "$OUT/differential" || status=1
  echo "conformance: differential runs took $((SECONDS - t0)) s; report in $OUT/differential/differential.md"
  echo "conformance: exo2's own tests on both compilers (tests/conformance/differential_tests.toml)"
  t0=$SECONDS
  "$PYTHON" "$HARNESS/differential_tests.py" --exo-python "$VENV/bin/python" \
    --exo2-python "$PYTHON" --out "$OUT/differential" || status=1
  echo "conformance: exo2's tests on both compilers took $((SECONDS - t0)) s; report in $OUT/differential/tests.md"
  echo "conformance: random schedules on both compilers (tests/conformance/differential_random.py)"
  t0=$SECONDS
  "$PYTHON" "$HARNESS/differential_random.py" --exo-python "$VENV/bin/python" \
    --out "$OUT/differential" || status=1
  echo "conformance: random schedules took $((SECONDS - t0)) s; report in $OUT/differential/random.md"
fi
echo "conformance: report in $OUT/report.md ($((SECONDS - start)) s in all)"
exit $status
