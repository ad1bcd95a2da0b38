"""The period a run's hands cover, per file, as a value: first and last start.

The engines gather it (`auditor.engines.periods`: one vectorised parse per batch, merged per file) and
the evidence manifest prints it, so the type and its text form sit in the model below both.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd


@dataclass(frozen=True)
class Period:
    """Hands of one file: first and last start (nanoseconds since the epoch, UTC; None if no hand had a
    usable time), hands whose time is missing or unparsable, hands whose time has no offset."""

    first: int | None = None
    last: int | None = None
    untimed: int = 0
    no_offset: int = 0

    def __add__(self, other: Period) -> Period:
        firsts = [t for t in (self.first, other.first) if t is not None]
        lasts = [t for t in (self.last, other.last) if t is not None]
        return Period(min(firsts) if firsts else None, max(lasts) if lasts else None,
                      self.untimed + other.untimed, self.no_offset + other.no_offset)


def instant_text(ticks: int | None) -> str | None:
    """`2024-05-01T18:03:11Z` (fractional seconds where there are any) for nanoseconds since the epoch."""
    if ticks is None:
        return None
    stamp = pd.Timestamp(ticks, unit="ns", tz="UTC")
    text = stamp.isoformat()
    return text.replace("+00:00", "Z")
