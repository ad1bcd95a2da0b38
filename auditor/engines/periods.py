"""The period a run's hands cover: the first and last instant a hand started, per file (issue #15).

An audit is evidence of what was audited, and the time span of the hands is part of that: a regulator
asks "which days does this audit cover?". Partitions gather it batch by batch (`add_batch`, one
vectorised parse of the batch's `started_at` column, no per-row date parsing) and the driver merges
their per-file spans (`merge`): min and max are associative, so the spans are the same however the run
was cut into partitions, by any number of workers or engines.

Times are parsed to instants as the replay orders hands (ISO 8601 with `Z`, an offset, fractional
seconds; pandas `to_datetime(utc=True, errors="coerce")`). A time without an offset is a wall-clock
reading whose instant is unknown: it is taken as written (as if UTC) and counted (`no_offset`), so a
reader of the manifest knows the span is approximate. A hand with no time, or one that does not parse,
is counted (`untimed`) and left out of the span; a file with no timed hand has no span (null).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

#: a trailing UTC designator or offset (`Z`, `+13:00`, `-0500`): an instant, not a wall-clock reading
_OFFSET = re.compile(r"(?:[zZ]|[+-]\d{2}(?::?\d{2})?)$")


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


def periods_of(files: Sequence[str], started_at: Sequence[object]) -> dict[str, Period]:
    """Per file, the span of `started_at` (one value per hand, None where a hand has none)."""
    if not files:
        return {}
    text = pd.Series(list(started_at), dtype=object)
    text = text.where(text.map(lambda v: isinstance(v, str)).astype(bool))  # a number or anything else is not a time
    try:
        instant = pd.to_datetime(text, utc=True, errors="coerce", format="ISO8601")
    except (ValueError, TypeError, OverflowError):  # text pandas cannot even coerce: no time is usable
        instant = pd.Series(pd.NaT, index=text.index, dtype="datetime64[ns, UTC]")
    ticks = instant.dt.tz_localize(None).astype("datetime64[ns]").to_numpy().view(np.int64)
    frame = pd.DataFrame({"file": np.asarray(list(files), dtype=object), "untimed": instant.isna().to_numpy(),
                          "ticks": ticks})
    frame["no_offset"] = ~frame["untimed"] & ~text.str.strip().str.contains(_OFFSET, regex=True, na=False).to_numpy()
    timed = frame[~frame["untimed"]]
    spans = timed.groupby("file", sort=False)["ticks"].agg(["min", "max"])
    counts = frame.groupby("file", sort=False)[["untimed", "no_offset"]].sum()
    found: dict[str, Period] = {}
    for file, row in counts.iterrows():  # one row per file, not per hand
        first = int(spans.at[file, "min"]) if file in spans.index else None
        last = int(spans.at[file, "max"]) if file in spans.index else None
        found[str(file)] = Period(first, last, int(row["untimed"]), int(row["no_offset"]))
    return found


def add_batch(into: dict[str, Period], files: Sequence[str], started_at: Sequence[object]) -> None:
    """Merge a batch's spans into `into` (per file)."""
    merge(into, periods_of(files, started_at))


def merge(into: dict[str, Period], other: dict[str, Period]) -> None:
    """Add `other`'s spans to `into`, file by file."""
    for file, period in other.items():
        into[file] = into[file] + period if file in into else period


def instant_text(ticks: int | None) -> str | None:
    """`2024-05-01T18:03:11Z` (fractional seconds where there are any) for nanoseconds since the epoch."""
    if ticks is None:
        return None
    stamp = pd.Timestamp(ticks, unit="ns", tz="UTC")
    text = stamp.isoformat()
    return text.replace("+00:00", "Z")
