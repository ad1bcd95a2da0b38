"""`fact_frames.frame_of` judges sharing by the bytes buffers span: rows of one kernel table are taken as they are,
while any overlap, a read-only buffer or an array given twice (Arrow-backed text included) is copied."""

from __future__ import annotations

import numpy as np
import pandas as pd

from auditor.replay.fact_frames import frame_of


def _ints(values: np.ndarray) -> pd.arrays.IntegerArray:
    return pd.arrays.IntegerArray(values, np.zeros(len(values), np.bool_))


def test_rows_of_one_table_are_taken_without_a_copy() -> None:
    table = np.arange(12, dtype=np.int64).reshape(3, 4)
    columns = {f"c{k}": _ints(table[k]) for k in range(3)}
    frame = frame_of(columns)
    for k in range(3):
        assert np.shares_memory(frame[f"c{k}"].array._data, table[k])


def test_overlapping_views_and_repeated_arrays_are_copied() -> None:
    values = np.arange(10, dtype=np.int64)
    text = pd.array(["a", None, "c", "d", "e"], dtype="string")
    frame = frame_of({"a": _ints(values[0:5]), "b": _ints(values[5:10]), "c": _ints(values[2:7]), "s": text, "t": text})
    assert np.shares_memory(frame["a"].array._data, values) and np.shares_memory(frame["b"].array._data, values)
    assert not np.shares_memory(frame["c"].array._data, values)  # it overlaps "a": copied
    frame.loc[1, "t"] = "x"
    frame.loc[2, "c"] = 99
    assert frame["s"].tolist()[1] is pd.NA and frame["t"].tolist()[1] == "x"
    assert frame["a"].tolist() == [0, 1, 2, 3, 4] and values.tolist() == list(range(10))
