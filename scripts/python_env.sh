# Sourced by the scripts that install Python packages or run Python: puts
# first on PATH a python3 that pip may install into. That is the python3
# already there, unless it is a Debian-managed one (PEP 668: pip refuses to
# install into it) and no virtual environment is active; then it is the
# virtual environment .venv in the repository, made once (with Debian's
# python3-venv and python3-dev). Activate it to use exo2 afterwards:
# `. .venv/bin/activate`.

if [ -z "${VIRTUAL_ENV:-}" ] &&
  python3 -c 'import os, sys, sysconfig
sys.exit(not os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))'; then
  _exo2_venv="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.venv"
  if [ ! -x "$_exo2_venv/bin/python3" ]; then
    echo "python_env: $(command -v python3) is managed by Debian; making $_exo2_venv"
    if ! dpkg -s python3-venv python3-dev >/dev/null 2>&1; then
      _exo2_sudo=""
      [ "$(id -u)" -ne 0 ] && _exo2_sudo="sudo"
      $_exo2_sudo apt-get update -qq
      $_exo2_sudo apt-get install -y -qq python3-venv python3-dev
    fi
    python3 -m venv "$_exo2_venv"
    # Debian's pip (23.0) lacks options the scripts use (-C)
    "$_exo2_venv/bin/python3" -m pip install -q --disable-pip-version-check --upgrade pip
  fi
  export VIRTUAL_ENV="$_exo2_venv"
  export PATH="$_exo2_venv/bin:$PATH"
  echo "python_env: using $_exo2_venv (activate it to use exo2: . .venv/bin/activate)"
fi
