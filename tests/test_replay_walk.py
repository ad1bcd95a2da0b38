"""The replay's walk read from Arrow columns (`state.walk`, `kernel.replay._groups` with table numbers) is the
walk read from Python lists: the same order, the same table of every row, the same table keys.

The Arrow paths skip a Python list of every hand's file, table and time; the list paths are the ones the
rest of the suite (and the hostile-input tests) hold to the rule book, so these are held to them.
"""

from __future__ import annotations

import random

import numpy as np
import pyarrow as pa

from auditor.model.tables import CanonicalTables
from auditor.replay.kernel.replay import _groups
from auditor.replay.state import replay_order, walk

FILES = ["a.jsonl", "b.jsonl", "é.jsonl", "a.jsonl\x00x", "Z"]
TABLES = ["t1", "t2", "T", "ü", "x\x00t1", ""]
TIMES = ["2024-04-07T02:30:00+13:00", "2024-04-07T02:00:00+12:00", "2024-04-07T01:00:00Z", "2024-04-07T01:00:00",
         "not a time", "2024-04-07T01:00:00.5Z"]


def test_walk_from_arrow_is_the_walk_from_lists() -> None:
    rng = random.Random(3)
    for _ in range(300):
        n = rng.randint(1, 25)
        files = [rng.choice(FILES) for _ in range(n)]
        tables = [rng.choice(TABLES) for _ in range(n)]
        times = [None if rng.random() < 0.1 else rng.choice(TIMES) for _ in range(n)]
        if rng.random() < 0.2:
            tables[rng.randrange(n)] = None
        chunked = [pa.chunked_array([values[:k], values[k:]], pa.string())
                   for values, k in ((files, n // 2), (tables, n // 3), (times, n // 4))]
        order, table_of = walk(*chunked)
        want_order, want_table = walk(files, tables, times)
        assert order.tolist() == want_order.tolist() == replay_order(files, tables, times)
        assert table_of.tolist() == want_table.tolist()
        hands = pa.table({"file": chunked[0], "table_id": chunked[1]})
        batch = CanonicalTables(hands=hands, seats=pa.table({}), events=pa.table({}))
        got_codes, got_keys = _groups(batch, order, table_of)
        want_codes, want_keys = _groups(batch, order)
        assert np.array_equal(got_codes, want_codes) and got_keys == want_keys


def test_walk_of_usual_utc_times_read_from_bytes_is_the_general_walk() -> None:
    """A column of only `YYYY-MM-DDTHH:MM:SSZ` times is read from its bytes (`state._utc_ticks`); the walk is
    the one the general path (pandas over Python strings) gives, leap days and year 0 too."""
    from auditor.replay.state import _utc_ticks

    rng = random.Random(5)
    for _ in range(200):
        n = rng.randint(1, 30)
        times = []
        for _ in range(n):
            year = rng.choice([0, 1, 1969, 2000, 2024, 2025, 9999])
            month = rng.randint(1, 12)
            day = rng.randint(1, 29 if month == 2 and year % 4 == 0 and (year % 100 or year % 400 == 0) else
                              28 if month == 2 else 30)
            text = f"{year:04d}-{month:02d}-{day:02d}T{rng.randint(0, 23):02d}:" \
                   f"{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z"
            times.append(text)
        files = [rng.choice(FILES[:2]) for _ in range(n)]
        tables = [rng.choice(TABLES[:3]) for _ in range(n)]
        k = n // 3
        arrow = pa.chunked_array([times[:k], times[k:]], pa.string())
        assert _utc_ticks(arrow) is not None
        order, table_of = walk(pa.chunked_array([files], pa.string()), pa.chunked_array([tables], pa.string()), arrow)
        want_order, want_table = walk(files, tables, times)
        assert order.tolist() == want_order.tolist()
        assert table_of.tolist() == want_table.tolist()
    # any other form, or a null, is left to the general path
    for other in (["2024-04-07T01:00:00Z", None], ["2024-04-07T01:00:00+01:00"], ["2024-02-30T01:00:00Z"],
                  ["2024-04-07T01:00:60Z"], ["2024-04-07 01:00:00Z"],
                  ["2024-04-07t01:00:00Z"], ["2024-04-07T01:00:00z"], ["2024-13-01T00:00:00Z"],
                  ["2023-02-29T00:00:00Z"], ["2024-04-07T24:00:00Z"], ["2024-04-07T01:60:00Z"],
                  ["2024-04-00T01:00:00Z"], ["2024-04-07T01:00:0xZ"], ["２０２４-04-07T01:00:00Z"], []):
        assert _utc_ticks(pa.chunked_array([other], pa.string())) is None
