"""The fast paths of building facts and ordering hands, held to the slow ones they replace.

`fact_frames.frame_of` takes the builders' arrays into a DataFrame without copying them: a column must still be
writable and must never share memory with another column. `state._aware` tells a time with an offset in
Arrow's regex engine: it must match exactly what Python's `re` (pandas' `str.contains`) matches, Unicode
digits and a final newline included, since it decides whether a table's hands are ordered by time.
"""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pyarrow as pa

from auditor.replay import state
from auditor.replay.fact_frames import frame_of


def test_frame_of_takes_new_arrays_without_copying() -> None:
    values = pd.arrays.IntegerArray(np.arange(5, dtype=np.int64), np.zeros(5, np.bool_))
    frame = frame_of({"a": values, "b": pd.array(["x", None, "z", "w", "v"], dtype="string")})
    assert np.shares_memory(frame["a"].array._data, values._data)
    assert list(frame.columns) == ["a", "b"] and str(frame["b"].dtype) == "string"


def test_frame_of_copies_a_shared_or_read_only_column() -> None:
    mask = np.zeros(4, np.bool_)
    first = pd.arrays.IntegerArray(np.arange(4, dtype=np.int64), mask)
    second = pd.arrays.IntegerArray(np.arange(4, dtype=np.int64) * 2, mask)  # same null mask
    read_only = pa.array([1, 2, 3, 4], pa.int64()).to_numpy()  # a view of an Arrow buffer
    assert not read_only.flags.writeable
    third = pd.arrays.IntegerArray(read_only, np.zeros(4, np.bool_))
    frame = frame_of({"a": first, "b": second, "c": third, "d": first})
    frame.loc[1, "b"] = pd.NA  # writing into one column
    frame.loc[2, "c"] = 7  # a read-only input still gives a writable column
    assert frame["a"].isna().tolist() == [False] * 4 and frame["d"].isna().tolist() == [False] * 4
    assert frame["b"].isna().tolist() == [False, True, False, False]
    assert frame["c"].tolist() == [1, 2, 7, 4] and read_only.tolist() == [1, 2, 3, 4]


def test_aware_matches_python_re() -> None:
    rng = random.Random(11)
    pieces = ["2024-04-07T02:30:00", "Z", "z", "+13:00", "+1300", "-05", "+12", "\n", "Z\n", "\n\n", "+١٣:٠٠",
              "+13:0", ".5", " ", "", "x", "+\u0661\u0662", "\u00b2\u00b2", "+13:00\n"]
    for _ in range(2000):
        texts = [None if rng.random() < 0.1 else "".join(rng.choice(pieces) for _ in range(rng.randint(1, 3)))
                 for _ in range(rng.randint(1, 8))]
        series = pd.Series(texts, dtype=object)
        want = series.str.contains(state._OFFSET, regex=True, na=False).to_numpy(dtype=bool)
        assert (state._aware(series) == want).all(), texts


def test_aware_of_values_that_are_not_text() -> None:
    series = pd.Series(["2024-01-01T00:00:00Z", 5, None, "\ud800+13:00"], dtype=object)
    assert state._aware(series).tolist() == series.str.contains(state._OFFSET, regex=True, na=False).tolist()
