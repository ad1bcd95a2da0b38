"""The replay kernel's largest output tables, reused from one batch to the next once nothing reads the last.

The per-hand kernel writes its actions and rounds rows into two int64 tables of ~90 MB for a batch of
20,000 hands. Allocated afresh each batch, every page of them is new to the process: a 1,000,000-hand audit
took ~1.1 million page faults there, over a second of system time, before any byte was useful (perf: 61 % of
the run's page faults were in the kernel's first writes to these tables). A table handed out here is a view of
a buffer kept for the next batch, and that buffer is handed out again only when no view of it is alive: the
facts built from a batch hold views of its tables (zero copy), and each view keeps a reference to the buffer
it came from, so the buffer's reference count says whether anything can still read the last batch's rows
(what an unread buffer's count is, is measured when the pool is made, `Reused._calibrated`). If
something does (a caller keeping a batch's facts), the next batch gets a new buffer and the old one lives on
for its readers, as an allocation always did.

Memory stays bounded by the batch: a buffer is the size of the largest batch's table it served (a quarter
more when it grows, so batches of slightly different sizes do not reallocate each time), one per table name.
"""

from __future__ import annotations

import sys
import threading

import numpy as np


class Reused:
    """Tables by name, each a C-contiguous view of a kept buffer (see the module's docstring)."""

    def __init__(self) -> None:
        self._buffers: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()  # two threads replaying at once each get a buffer of their own
        self._unread, self.reuses = self._calibrated()

    def _references(self, name: str) -> int:
        """The reference count of the kept buffer `name`, always read through this one call: what counts as
        "nothing reads it" is measured the same way (`_calibrated`), so no interpreter's counting is assumed."""
        return sys.getrefcount(self._buffers[name])

    def _calibrated(self) -> tuple[int, bool]:
        """(the count of a buffer only the pool holds, whether reuse is on): a probe buffer read by nothing,
        then read by one view. Reuse stays off unless the view is seen (one reference more), so a Python whose
        counts do not show views can only cost the reuse, never hand out memory something reads."""
        probe = "\0probe"
        self._buffers[probe] = np.empty(4, np.int64)
        try:
            alone = self._references(probe)
            view = self._buffers[probe][:2]
            seen = self._references(probe) == alone + 1
            del view
            return alone, seen and self._references(probe) == alone
        finally:
            del self._buffers[probe]

    def table(self, name: str, rows: int, columns: int) -> np.ndarray:
        """An uninitialised (rows, columns) int64 table: the kept buffer's start when nothing reads it and it is
        large enough, else a new buffer, kept for the next call instead."""
        need = max(rows * columns, 1)
        with self._lock:
            # counted before any name of ours refers to it, as `_calibrated` counts
            free = name in self._buffers and self.reuses and self._references(name) <= self._unread
            kept = self._buffers.get(name)
            size = 0 if kept is None else kept.size
            if not free or size < need:
                grown = need if size == 0 or size >= need else max(need, size + size // 4)
                self._buffers[name] = kept = np.empty(grown, np.int64)
            return kept[:rows * columns].reshape(rows, columns)


#: the process's pool, used by `replay.run_kernel`
TABLES = Reused()
