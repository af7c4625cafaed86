"""Shared setup of the Python tests: kernel helper modules in `kernels/`
are importable as `kernels.<name>`."""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)


def pytest_terminal_summary(terminalreporter):
    """The randomized schedule test's per-primitive table, when it ran."""
    running = sys.modules.get("random_schedules.running")
    for summary in running.LAST_SUMMARY if running else ():
        terminalreporter.write_line(summary)
