"""Coverage added up as it comes: one row of counts per rule, however many batches and partitions a run has.

A run used to keep every batch's coverage table (about 60 rows each; tens of KB in pandas) until its end
and add them up there: a batch a partition, 500 tables at ten million hands, in the partition results,
the ledger's baselines and the driver. `CoverageTotal` folds each table into one int64 row per rule as
soon as it is made, so what a run keeps of coverage is the number of rules, not of batches. The total is
the same as `pd.concat(parts).groupby(keys).sum()` (counts are integers: the order of the additions
cannot change them), and its rows come in the order the rules first appear, as `sum_coverage` gave them.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

COVERAGE_KEYS = ["pack", "rule_id", "category", "severity"]
#: every (pack, rule, category, severity) key met, shared by the totals (as many as there are rules)
_KEYS: dict[tuple, tuple] = {}


class CoverageTotal:
    """The sum of coverage tables (`check`'s second result), one row per (pack, rule, category, severity)."""

    def __init__(self, parts: Iterable[pd.DataFrame] = ()) -> None:
        self._rows: dict[tuple, np.ndarray] = {}
        self._counts: list[str] | None = None
        for part in parts:
            self.add(part)

    def __bool__(self) -> bool:
        return self._counts is not None

    def add(self, frame: pd.DataFrame | None, sign: int = 1) -> None:
        """Add a coverage table's counts (`sign=-1`: take them away again, for a batch judged anew)."""
        if frame is None:
            return
        if self._counts is None:
            self._counts = [c for c in frame.columns if c not in COVERAGE_KEYS]
        if not len(frame):
            return
        counts = frame[self._counts].to_numpy(dtype=np.int64) * sign
        keys = zip(*(frame[k].tolist() for k in COVERAGE_KEYS), strict=True)
        for key, row in zip(keys, counts, strict=True):  # one iteration a rule, not a hand
            have = self._rows.get(key)
            if have is None:  # one tuple a rule for every total (the ledger keeps one total a batch)
                self._rows[_KEYS.setdefault(key, key)] = row.copy()
            else:
                have += row

    def add_total(self, other: CoverageTotal, sign: int = 1) -> None:
        """Add another total's counts (a partition's into the run's; `sign=-1`: take them away again)."""
        if other._counts is None:
            return
        if self._counts is None:
            self._counts = list(other._counts)
        for key, row in other._rows.items():
            have = self._rows.get(key)
            if have is None:
                self._rows[key] = row * sign
            else:
                have += row * sign

    def frame(self) -> pd.DataFrame | None:
        """The total as a coverage table (None if no table was ever added)."""
        if self._counts is None:
            return None
        keys = pd.DataFrame(list(self._rows), columns=COVERAGE_KEYS)  # text dtype inferred, as pandas does
        values = np.stack(list(self._rows.values())) if self._rows else np.zeros((0, len(self._counts)), np.int64)
        counts = pd.DataFrame(values, columns=self._counts, dtype=np.int64)
        return pd.concat([keys, counts], axis=1)
