#!/usr/bin/env bash
# Installs a PostgreSQL server (Debian's `postgresql`) and the Python driver
# (`psycopg2-binary`) for the test of exo2.tune's shared studies
# (tests/python/test_tune_postgres.py), where they are missing. The test
# starts and stops its own server; no cluster is created or started here.
# Never fails the caller: without the packages the test skips and says why.
set -uo pipefail
source "$(dirname "$0")/python_env.sh"

have_server() { compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; }

if ! have_server; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  # no `main` cluster: the test makes its own in a temporary directory
  $SUDO mkdir -p /etc/postgresql-common
  echo "create_main_cluster = false" | $SUDO tee /etc/postgresql-common/createcluster.conf >/dev/null
  ( $SUDO apt-get update -qq && \
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends postgresql ) \
    >/dev/null 2>&1 || echo "install_postgres.sh: could not install postgresql (the test will skip)"
fi
python3 -c "import psycopg2" 2>/dev/null || \
  python3 -m pip install -q --disable-pip-version-check psycopg2-binary \
  || echo "install_postgres.sh: could not install psycopg2-binary (the test will skip)"
exit 0
