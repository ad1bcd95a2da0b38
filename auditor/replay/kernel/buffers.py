"""The replay kernel's largest output tables, reused from one batch to the next once nothing reads the last.

The per-hand kernel writes its actions and rounds rows into two int64 tables of ~90 MB for a batch of
20,000 hands. Allocated afresh each batch, every page of them is new to the process: a 1,000,000-hand audit
took ~1.1 million page faults there, over a second of system time, before any byte was useful (perf: 61 % of
the run's page faults were in the kernel's first writes to these tables). A table handed out here is a view of
a buffer kept for the next batch, and that buffer is handed out again only when no view of it is alive: the
facts built from a batch hold views of its tables (zero copy), and each view keeps a reference to the buffer
it came from, so the buffer's reference count says whether anything can still read the last batch's rows. If
something does (a caller keeping a batch's facts), the next batch gets a new buffer and the old one lives on
for its readers, as an allocation always did.

Memory stays bounded by the batch: a buffer is the size of the largest batch's table it served (a quarter
more when it grows, so batches of slightly different sizes do not reallocate each time), one per table name.
"""

from __future__ import annotations

import sys
import threading

import numpy as np

#: references to a buffer nothing reads: the pool's entry, the local name in `table`, getrefcount's argument
_UNREAD = 3


class Reused:
    """Tables by name, each a C-contiguous view of a kept buffer (see the module's docstring)."""

    def __init__(self) -> None:
        self._buffers: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()  # two threads replaying at once each get a buffer of their own

    def table(self, name: str, rows: int, columns: int, dtype: type = np.int64) -> np.ndarray:
        """An uninitialised (rows, columns) table: the kept buffer's start when nothing reads it and it is
        large enough, else a new buffer, kept for the next call instead."""
        need = max(rows * columns, 1)
        with self._lock:
            buffer = self._buffers.get(name)
            if (buffer is None or buffer.dtype != dtype or buffer.size < need
                    or sys.getrefcount(buffer) > _UNREAD):
                grown = need if buffer is None or buffer.size >= need else max(need, buffer.size + buffer.size // 4)
                buffer = np.empty(grown, dtype)
                self._buffers[name] = buffer
            return buffer[:rows * columns].reshape(rows, columns)

    def clear(self) -> None:
        """Drop the kept buffers (their memory goes back once nothing reads them)."""
        with self._lock:
            self._buffers.clear()


#: the process's pool, used by `replay.run_kernel`
TABLES = Reused()
