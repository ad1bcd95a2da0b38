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
