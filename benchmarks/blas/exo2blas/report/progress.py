"""One progress bar for a whole run, weighted by estimated seconds (costs
span six orders of magnitude, so counting cases would lie): phase, current
case and ETA. tqdm draws it when installed; otherwise a built-in bar on a
terminal, or one line per percent without one."""

from __future__ import annotations

import sys
import time


class Progress:
    def __init__(self, total_seconds, stream=None):
        self.total = max(total_seconds, 1e-9)
        self.done, self.phase, self.current = 0.0, "", ""
        self.stream = stream or sys.stderr
        self.start = time.monotonic()
        self._percent = -1
        self._tqdm = None
        if self.stream.isatty():
            try:
                from tqdm import tqdm

                self._tqdm = tqdm(total=self.total, unit="s", file=self.stream,
                                  bar_format="{l_bar}{bar}| {elapsed}<{remaining} {postfix}")  # fmt: skip
            except ImportError:
                pass

    def set_phase(self, phase):
        self.phase = phase
        self._draw()

    def advance(self, seconds, current=""):
        self.done = min(self.total, self.done + seconds)
        self.current = current or self.current
        if self._tqdm is not None:
            self._tqdm.update(seconds)
            self._tqdm.set_postfix_str(f"{self.phase}: {self.current}"[:60])
            return
        self._draw()

    def eta(self):
        elapsed = time.monotonic() - self.start
        if self.done <= 0:
            return float("nan")
        return elapsed * (self.total - self.done) / self.done

    def _draw(self):
        if self._tqdm is not None:
            return
        percent = int(100 * self.done / self.total)
        eta = self.eta()
        text = (
            f"{percent:3d}% {self.phase}: {self.current} (ETA {eta:.0f} s)"
            if eta == eta
            else f"{percent:3d}% {self.phase}"
        )
        if self.stream.isatty():
            width = 30
            filled = int(width * self.done / self.total)
            self.stream.write(
                f"\r[{'#' * filled}{'.' * (width - filled)}] {text}"[:120].ljust(120)
            )
            self.stream.flush()
        elif percent != self._percent:
            self._percent = percent
            self.stream.write(text + "\n")
            self.stream.flush()

    def close(self):
        if self._tqdm is not None:
            self._tqdm.close()
        elif self.stream.isatty():
            self.stream.write("\n")
