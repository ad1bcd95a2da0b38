"""Which partition a pool's worker audits next: the one after its last, while nobody has taken it.

Why: consecutive partitions of a Parquet dataset share row groups. A range rarely ends on a row group's
boundary (it ends where a table does), so the range before a boundary reads the first rows of the next
row group, and the range after reads that row group again from its start. A process that audits the two
one after the other measures and decodes that row group once (`parquet_ranges._measured`, `_held`, the
scan's cursor); two processes each do it. Handed out in order to whichever worker is free, a pool of two
audited every other partition in each worker: measured on 1,000,000 hands from Parquet, 26.5 µs of CPU a
hand in a worker against 21.6 µs for one worker auditing them in order, the difference the whole-row-group
reads of the ranges' first and last rows (in one process, every other partition: 22.3-25.1 µs against
21.0-22.4).

So the pool keeps one partition in flight per worker and gives a worker that finishes partition i the
partition i + 1 when it is free: each worker reads a stretch of the inputs in order. A worker whose next
partition is taken starts in the middle (by estimated hands) of the largest stretch nobody has taken, the
half after that point being what the worker before it would reach last; the stretches shrink until the
last partitions. Which worker audits which partition never changes a report: results are folded in
partition order (`pipeline._RunTotals`), as before.
"""

from __future__ import annotations

from collections.abc import Sequence


class Streams:
    """The order of a pool's work over partitions of estimated sizes `sizes` (positions 0..n-1)."""

    def __init__(self, sizes: Sequence[int]) -> None:
        self.sizes = [max(1, int(s)) for s in sizes]
        self.taken = [False] * len(self.sizes)
        self.running: set[int] = set()

    def next(self, finished: int | None = None) -> int | None:
        """The position the worker that finished `finished` (None: a worker with nothing yet) takes next,
        marked taken; None when every partition is taken."""
        if finished is not None:
            self.running.discard(finished)
            after = finished + 1
            if after < len(self.taken) and not self.taken[after]:
                return self._take(after)
        run = self._largest_free_run()
        if run is None:
            return None
        start, stop = run
        if start == 0 or (start - 1) not in self.running:
            return self._take(start)  # nobody reads into this stretch from its left: start at its start
        return self._take(self._middle(start, stop))

    def _take(self, position: int) -> int:
        self.taken[position] = True
        self.running.add(position)
        return position

    def _largest_free_run(self) -> tuple[int, int] | None:
        """(start, stop) of the untaken stretch with the most estimated hands (the first of equals)."""
        best: tuple[int, int] | None = None
        best_size = 0
        i, n = 0, len(self.taken)
        while i < n:
            if self.taken[i]:
                i += 1
                continue
            j, size = i, 0
            while j < n and not self.taken[j]:
                size += self.sizes[j]
                j += 1
            if size > best_size:
                best, best_size = (i, j), size
            i = j
        return best

    def _middle(self, start: int, stop: int) -> int:
        """The position in [start, stop) that leaves about half the stretch's hands before it."""
        half = sum(self.sizes[start:stop]) / 2
        seen = 0
        for position in range(start, stop):
            if seen + self.sizes[position] / 2 >= half:
                return position
            seen += self.sizes[position]
        return stop - 1
