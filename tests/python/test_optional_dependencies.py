"""`import exo2` and the parts of exo2.bench and exo2.tune that need no
optional package work without optuna, tqdm and matplotlib; using a part
that needs one raises an ImportError naming the package to install."""

import subprocess
import sys
import textwrap


def _run_without(packages, code):
    blocker = "import sys\n" + "".join(f"sys.modules[{p!r}] = None\n" for p in packages)
    result = subprocess.run(
        [sys.executable, "-c", blocker + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_exo2_and_spaces_import_without_optuna_and_search_names_the_package():
    out = _run_without(
        ["optuna", "tqdm", "matplotlib"],
        """
        import exo2, exo2.bench
        from exo2 import tune
        space = tune.Space(tune.PowersOfTwo("t", 1, 8))
        assert len(list(space.points())) == 4
        try:
            tune.search
        except ImportError as error:
            print(error)
        """,
    )
    assert "pip install optuna" in out


def test_plots_name_matplotlib_when_it_is_missing():
    out = _run_without(
        ["matplotlib"],
        """
        from exo2.bench.roofline import pyplot
        try:
            pyplot()
        except ImportError as error:
            print(error)
        """,
    )
    assert "pip install matplotlib" in out
