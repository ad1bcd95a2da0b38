"""A one-line progress bar on the terminal while a long audit runs: files, hands, hands per second.

Drawn with `rich` (its bar, its colours, its idea of the terminal's width, so the line never wraps
on a narrow terminal) but only on a terminal: never into a pipe or a log file, where carriage returns
are noise. That test is our own `isatty()`, not rich's terminal detection, which an environment
variable such as FORCE_COLOR can turn on for a pipe. Drawn only once a run has taken long enough to
need one; cleared before the summary is printed. Redrawn in place with a carriage return (rich's Live
display would start a thread and move the cursor up, for what is one line).
"""

from __future__ import annotations

import io
import time
from typing import TextIO

from rich.console import Console
from rich.progress_bar import ProgressBar as RichBar
from rich.table import Table

from auditor.model.results import Progress


class ProgressBar:
    """Callable given to `audit(progress=...)`; `close()` wipes the line."""

    def __init__(self, stream: TextIO, delay: float = 0.5, interval: float = 0.1, width: int = 24) -> None:
        self.stream = stream
        self.delay = delay  # seconds of run before the first draw: short runs show nothing
        self.interval = interval  # least seconds between redraws
        self.width = width
        self._last_draw: float | None = None
        self._drawn = 0  # length of the line on screen (visible characters)
        self._console = Console(file=stream, force_terminal=True, highlight=False, markup=False, emoji=False)

    def __call__(self, progress: Progress) -> None:
        if progress.seconds < self.delay:
            return
        now = time.monotonic()
        finished = progress.files_done == progress.files_total
        if self._last_draw is not None and now - self._last_draw < self.interval and not finished:
            return
        self._last_draw = now
        self._draw(progress)

    def _draw(self, progress: Progress) -> None:
        columns = max(self._console.width - 1, 20)  # one column spare: writing the last one wraps some terminals
        text = render(progress, self.width)[self.width + 3:]  # the counts, after "[bar] "
        bar = RichBar(total=max(progress.files_total, 1), completed=progress.files_done,
                      width=min(self.width, max(columns - len(text) - 1, 4)))
        line = Table.grid(padding=(0, 1))
        line.add_row(bar, text[: max(columns - self.width - 1, 0)])
        capture = Console(file=io.StringIO(), width=columns, force_terminal=True,
                          color_system=self._console.color_system, highlight=False, markup=False, emoji=False)
        with capture.capture() as captured:
            capture.print(line, end="")
        drawn = captured.get().rstrip("\n")
        visible = min(self.width + 1 + len(text), columns)
        padding = " " * max(self._drawn - visible, 0)
        self.stream.write(f"\r{drawn}{padding}")
        self.stream.flush()
        self._drawn = visible

    def close(self) -> None:
        if self._drawn:
            self.stream.write("\r" + " " * self._drawn + "\r")
            self.stream.flush()
            self._drawn = 0


def render(progress: Progress, width: int = 24) -> str:
    """The line as plain text (`[####....] 1/4 files  2,500 hands  1,250 hands/s  2 s`), for logs and tests."""
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
