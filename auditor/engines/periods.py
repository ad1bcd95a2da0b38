"""The period a run's hands cover: the first and last instant a hand started, per file.

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

from collections.abc import Sequence
from datetime import UTC, datetime

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from auditor.model.periods import Period
from auditor.model.times import plain_utc_micros

#: a trailing UTC designator or offset (`Z`, `+13:00`, `-0500`): an instant, not a wall-clock reading
_OFFSET = r"(?:[zZ]|[+-]\d{2}(?::?\d{2})?)\s*$"


def periods_of(files: Sequence[str], started_at: Sequence[object]) -> dict[str, Period]:
    """Per file, the span of `started_at` (one value per hand, None where a hand has none). Whole columns at
    once: one pandas parse, one Arrow regex for the offsets, NumPy reductions per file (20,000 hands of 50
    files: about 0.05 s, against seconds to replay and check them)."""
    if not files:
        return {}
    values = [v if type(v) is str else None for v in started_at]  # a number or anything else is not a time
    try:
        instant = pd.to_datetime(pd.Series(values, dtype=object), utc=True, errors="coerce", format="ISO8601")
    except (ValueError, TypeError, OverflowError):  # text pandas cannot even coerce: no time is usable
        instant = pd.Series(pd.NaT, index=range(len(values)), dtype="datetime64[ns, UTC]")
    # a time before 1677 or after 2262 is parsed (in microseconds) but cannot be held in nanoseconds: no usable time
    naive = instant.dt.tz_localize(None)
    naive = naive.where(naive.between(pd.Timestamp.min, pd.Timestamp.max))
    untimed = naive.isna().to_numpy()
    ticks = naive.astype("datetime64[ns]").to_numpy().view(np.int64)
    aware = pc.fill_null(pc.match_substring_regex(pa.array(values, pa.string()), _OFFSET), False)
    no_offset = ~untimed & ~aware.to_numpy(zero_copy_only=False)
    codes, names = pd.factorize(np.asarray(list(files), dtype=object))
    count = len(names)
    timed = ~untimed
    first = np.full(count, np.iinfo(np.int64).max, dtype=np.int64)
    last = np.full(count, np.iinfo(np.int64).min, dtype=np.int64)
    np.minimum.at(first, codes[timed], ticks[timed])
    np.maximum.at(last, codes[timed], ticks[timed])
    has_time = np.bincount(codes[timed], minlength=count) > 0
    untimed_n = np.bincount(codes, weights=untimed, minlength=count).astype(np.int64)
    no_offset_n = np.bincount(codes, weights=no_offset, minlength=count).astype(np.int64)
    return {str(name): Period(int(first[i]) if has_time[i] else None, int(last[i]) if has_time[i] else None,
                              int(untimed_n[i]), int(no_offset_n[i])) for i, name in enumerate(names)}


#: instants pandas holds in nanoseconds (within 1678-01-01 .. 2261-12-31 UTC), in µs: the fast path takes no
#: other
_MICROS_RANGE = tuple(int(datetime(year, 1, 1, tzinfo=UTC).timestamp()) * 1_000_000 for year in (1678, 2262))


def add_columns(into: dict[str, Period], files: Sequence[str], started_at: Sequence[pa.Array | pa.ChunkedArray]
                ) -> None:
    """`add_batch` of a batch given as runs of hands, `started_at[k]` the times (Arrow text) of the hands of
    file `files[k]` (a Parquet range's chunks): the same spans, made from the Arrow columns.

    When every time of the batch is `YYYY-MM-DDTHH:MM:SSZ` on a real day (`model.times.plain_utc_micros`, the
    reading the replay's walk uses too), each is its instant, as pandas parses it, with no Python object a hand;
    anything else (an offset, fractions, another form, a year pandas cannot hold) takes `periods_of`, the
    reference. `tests/test_periods_columns.py` holds the two equal."""
    merge(into, _plain_periods(files, started_at) or periods_of(
        [f for f, column in zip(files, started_at, strict=True) for _ in range(len(column))],
        [v for column in started_at for v in column.to_pylist()]))


def _plain_periods(files: Sequence[str], started_at: Sequence[pa.Array | pa.ChunkedArray]) -> dict[str, Period] | None:
    """The spans of `add_columns`, or None when a time is not in the plain form (the caller's slow path)."""
    kept = [(f, c) for f, c in zip(files, started_at, strict=True) if len(c)]  # a file of no hand has no span
    if not kept:
        return None
    files = [f for f, _ in kept]
    try:
        columns = [c.combine_chunks() if isinstance(c, pa.ChunkedArray) else c for _, c in kept]
        read = plain_utc_micros(pa.concat_arrays([c.cast(pa.large_string()) for c in columns]))
    except (pa.ArrowException, TypeError, ValueError):
        return None
    if read is None:
        return None
    micros, has = read
    if has.any() and (micros[has].min() < _MICROS_RANGE[0] or micros[has].max() > _MICROS_RANGE[1]):
        return None
    file_codes, names = pd.factorize(np.asarray(list(files), dtype=object))
    codes = np.repeat(file_codes.astype(np.int64), [len(c) for c in columns])
    count = len(names)
    first = np.full(count, np.iinfo(np.int64).max, dtype=np.int64)
    last = np.full(count, np.iinfo(np.int64).min, dtype=np.int64)
    ns = micros * 1_000
    np.minimum.at(first, codes[has], ns[has])
    np.maximum.at(last, codes[has], ns[has])
    has_time = np.bincount(codes[has], minlength=count) > 0
    untimed_n = np.bincount(codes[~has], minlength=count).astype(np.int64)
    return {str(name): Period(int(first[i]) if has_time[i] else None, int(last[i]) if has_time[i] else None,
                              int(untimed_n[i]), 0) for i, name in enumerate(names)}


def add_batch(into: dict[str, Period], files: Sequence[str], started_at: Sequence[object]) -> None:
    """Merge a batch's spans into `into` (per file)."""
    merge(into, periods_of(files, started_at))


def merge(into: dict[str, Period], other: dict[str, Period]) -> None:
    """Add `other`'s spans to `into`, file by file."""
    for file, period in other.items():
        into[file] = into[file] + period if file in into else period
