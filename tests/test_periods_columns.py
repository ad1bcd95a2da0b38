"""The hand periods from Arrow columns (`periods.add_columns`, a Parquet batch's path) equal the reference
`periods_of` over the same hands' values, whatever the times: the plain UTC form, impossible dates that
still look plain, offsets, fractions, other text, years pandas cannot hold, nulls."""

from __future__ import annotations

import random

import pyarrow as pa
import pytest

from auditor.engines.periods import _plain_periods, add_columns, periods_of

PLAIN = ["2024-01-01T00:02:30Z", "2023-12-31T23:59:59Z", "2024-02-29T12:00:00Z", "1999-06-30T08:15:00Z",
         "2261-12-30T00:00:00Z", "1678-01-02T00:00:00Z"]
ODD = ["2023-02-29T12:00:00Z", "2024-04-31T00:00:00Z", "2024-01-01T24:00:00Z", "2024-01-01T23:59:60Z",
       "2024-13-01T00:00:00Z", "2024-01-01T00:00:00+13:00", "2024-01-01T00:00:00.5Z", "2024-01-01T00:00:00",
       "2024-01-01 00:00:00Z", "3000-01-01T00:00:00Z", "1600-01-01T00:00:00Z", "not a time", "", "0000-01-01T00:00:00Z",
       "2024-01-01T00:00:00z", "２０２４-01-01T00:00:00Z", "2925-09-17T05:51:54+00:00", "1600-01-01T00:00:00-05:00"]


def test_a_year_nanoseconds_cannot_hold_is_no_usable_time() -> None:
    """A damaged year with an offset (`2925-...+00:00`, as a room's reader writes a header's time) parses, in
    microseconds, but cannot be held in nanoseconds: the hand counts as untimed, the run goes on."""
    spans = periods_of(["f", "f", "f"], ["2925-09-17T05:51:54+00:00", "2025-01-01T00:00:00+00:00",
                                         "1600-01-01T00:00:00-05:00"])
    assert spans["f"].untimed == 2 and spans["f"].first == spans["f"].last == 1735689600 * 10**9


def _reference(files: list[str], columns: list[list[str | None]]) -> dict:
    return periods_of([f for f, c in zip(files, columns, strict=True) for _ in c], [v for c in columns for v in c])


@pytest.mark.parametrize("seed", range(60))
def test_columns_give_the_reference_periods(seed: int) -> None:
    rng = random.Random(seed)
    odd = seed % 3 == 0  # a third of the cases have a time the fast path must hand to the reference
    files, columns = [], []
    for _ in range(rng.randint(1, 5)):
        files.append(rng.choice(["a.parquet", "b.parquet", "dir/c"]))
        column = []
        for _ in range(rng.randint(0, 30)):
            r = rng.random()
            column.append(None if r < 0.1 else rng.choice(ODD) if odd and r < 0.2 else rng.choice(PLAIN))
        columns.append(column)
    into: dict = {}
    try:
        expected = _reference(files, columns)
    except ValueError as exc:  # pandas cannot hold the instant (year 0, 3000): the same error either way
        with pytest.raises(type(exc)):
            add_columns(into, files, [pa.array(c, pa.string()) for c in columns])
        return
    add_columns(into, files, [pa.array(c, pa.string()) for c in columns])
    assert into == expected
    if not odd and any(columns):  # plain times only: the Arrow path itself gave them, not the reference
        assert _plain_periods(files, [pa.array(c, pa.string()) for c in columns]) == expected


def test_merges_into_what_is_there_and_takes_chunked_columns() -> None:
    first = {"a.parquet": periods_of(["a.parquet"], ["2020-01-01T00:00:00Z"])["a.parquet"]}
    into = dict(first)
    column = pa.chunked_array([pa.array(["2024-01-01T00:02:30Z"]), pa.array([None, "2019-05-05T05:05:05Z"])])
    add_columns(into, ["a.parquet"], [column])
    expected = dict(first)
    for file, period in _reference(["a.parquet"], [column.to_pylist()]).items():
        expected[file] = expected[file] + period
    assert into == expected
