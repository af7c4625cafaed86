"""exo2.tune across machines: two worker processes, started apart as on two
machines, share one study through a real PostgreSQL server.

The server comes from Debian's `postgresql` (scripts/install_postgres.sh,
run by scripts/test.sh, installs it and the `psycopg2` driver); this test
makes a cluster in a temporary directory, serves it on a free loopback
port, and stops it at the end. Without the server or the driver it skips
and says why."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

optuna = pytest.importorskip("optuna")

HERE = Path(__file__).resolve().parent


def _bin_dir():
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        pytest.skip("no PostgreSQL server (run scripts/install_postgres.sh)")
    return Path(found[-1]).parent


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def postgres():
    """A URL of a fresh database on a PostgreSQL server of our own."""
    pytest.importorskip("psycopg2", reason="no psycopg2 (pip install psycopg2-binary)")
    bin_dir = _bin_dir()
    # not under pytest's tmp_path: as root, that is closed to user postgres
    with tempfile.TemporaryDirectory(prefix="exo2-pg-") as directory:
        yield from _server(bin_dir, Path(directory))


def _server(bin_dir, top):
    os.chmod(top, 0o755)
    root = top / "pg"
    root.mkdir()
    as_user = []
    if os.geteuid() == 0:  # the server refuses to run as root
        if shutil.which("runuser") is None:
            pytest.skip(
                "running as root without runuser to start PostgreSQL as postgres"
            )
        try:
            shutil.chown(root, "postgres")
        except (LookupError, PermissionError) as error:
            pytest.skip(f"cannot hand the data directory to user postgres: {error}")
        as_user = ["runuser", "-u", "postgres", "--"]
    data, log = root / "data", root / "log"
    port = _free_port()

    def run(*command):
        return subprocess.run(
            [*as_user, *command], capture_output=True, text=True, timeout=120
        )

    made = run(
        str(bin_dir / "initdb"),
        "-D",
        str(data),
        "-A",
        "trust",
        "-U",
        "exo2",
        "--no-sync",
    )
    if made.returncode != 0:
        pytest.skip(f"initdb failed: {made.stderr.strip()[-300:]}")
    options = f"-p {port} -h 127.0.0.1 -k {root} -c fsync=off"
    started = run(
        str(bin_dir / "pg_ctl"),
        "-D",
        str(data),
        "-l",
        str(log),
        "-o",
        options,
        "-w",
        "start",
    )
    try:
        if started.returncode != 0:
            pytest.skip(
                f"the PostgreSQL server did not start: {started.stderr.strip()[-300:]}"
            )
        created = run(
            str(bin_dir / "createdb"),
            "-h",
            "127.0.0.1",
            "-p",
            str(port),
            "-U",
            "exo2",
            "tune",
        )
        assert created.returncode == 0, created.stderr
        yield f"postgresql+psycopg2://exo2@127.0.0.1:{port}/tune"
    finally:
        run(str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop")


WORKER = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {here!r})
    from exo2 import tune
    from kernels.tune_synthetic import SYNTHETIC, slow_synthetic

    tune.search(SYNTHETIC, objective=slow_synthetic, budget=12, study="shared",
                storage={url!r}, seed={seed}, progress=False)
    """
)


def test_two_workers_share_a_study_through_postgresql(postgres, tmp_path):
    from exo2 import tune
    from kernels.tune_synthetic import SYNTHETIC

    env = dict(os.environ, EXO2_CACHE_DIR=str(tmp_path / "cache"))
    workers = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                WORKER.format(here=str(HERE), url=postgres, seed=seed),
            ],
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        for seed in (1, 2)
    ]
    for worker in workers:
        _, err = worker.communicate(timeout=300)
        assert worker.returncode == 0, err
    result = tune.load(SYNTHETIC, "shared", storage=postgres)
    assert 12 <= result.evaluations <= 13
    assert len({SYNTHETIC.key(p) for p, _ in result.history}) == result.evaluations
    done_by = {t.user_attrs.get("worker") for t in result.study.get_trials()} - {None}
    assert len(done_by) == 2  # both workers evaluated points
    assert result.best_point is not None
