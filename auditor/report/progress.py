"""A one-line progress bar on the terminal while a long audit runs: files, hands, hands per second.

Drawn only on a terminal (never into a pipe or a log file, where carriage returns are noise) and only
once a run has taken long enough to need one; cleared before the summary is printed.
"""

from __future__ import annotations

import time
from typing import TextIO

from auditor.pipeline import Progress


class ProgressBar:
    """Callable given to `audit(progress=...)`; `close()` wipes the line."""

    def __init__(self, stream: TextIO, delay: float = 0.5, interval: float = 0.1, width: int = 24) -> None:
        self.stream = stream
        self.delay = delay  # seconds of run before the first draw: short runs show nothing
        self.interval = interval  # least seconds between redraws
        self.width = width
        self._last_draw: float | None = None
        self._drawn = 0  # length of the line on screen

    def __call__(self, progress: Progress) -> None:
        if progress.seconds < self.delay:
            return
        now = time.monotonic()
        finished = progress.files_done == progress.files_total
        if self._last_draw is not None and now - self._last_draw < self.interval and not finished:
            return
        self._last_draw = now
        self._draw(render(progress, self.width))

    def _draw(self, line: str) -> None:
        padding = " " * max(self._drawn - len(line), 0)
        self.stream.write(f"\r{line}{padding}")
        self.stream.flush()
        self._drawn = len(line)

    def close(self) -> None:
        if self._drawn:
            self.stream.write("\r" + " " * self._drawn + "\r")
            self.stream.flush()
            self._drawn = 0


def render(progress: Progress, width: int = 24) -> str:
    total = max(progress.files_total, 1)
    filled = min(width, round(width * progress.files_done / total))
    rate = progress.hands_read / progress.seconds if progress.seconds > 0 else 0.0
    return (f"[{'#' * filled}{'.' * (width - filled)}] {progress.files_done}/{progress.files_total} files  "
            f"{progress.hands_read:,} hands  {rate:,.0f} hands/s  {progress.seconds:,.0f} s")


def progress_bar(stream: TextIO, quiet: bool) -> ProgressBar | None:
    """A bar on `stream` if it is a terminal and the user did not ask for quiet, else None."""
    isatty = getattr(stream, "isatty", None)
    if quiet or isatty is None or not isatty():
        return None
    return ProgressBar(stream)
