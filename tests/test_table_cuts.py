"""Where `--jobs N` may cut a Parquet dataset (`parquet_ranges._table_cuts`): only between tables.

The planner reads hands.parquet once and keeps each table's first and last row; these tests hold it to the
definition, computed row by row: a range may start at row r > 0 exactly when every row before r belongs to a
table whose last row is before r, and the cuts are the first such rows at or past each `target` step.
"""

from __future__ import annotations

import random
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from auditor.engines import parquet_ranges
from auditor.engines.parquet_ranges import _table_cuts


def _reference(tables: list[str | None], target: int) -> list[int]:
    """The cuts by the definition, one row at a time."""
    last = {}
    for row, table in enumerate(tables):
        last[table] = row
    cuts, reach, wanted = [], -1, target
    for row, table in enumerate(tables):
        if row > 0 and reach < row and row >= wanted:
            cuts.append(row)
            wanted = row + target
        reach = max(reach, last[table])
    return cuts


def _write(path: Path, tables: list[str | None], hands: list[int] | None = None) -> pq.ParquetFile:
    numbers = hands if hands is not None else list(range(1, len(tables) + 1))
    pq.write_table(pa.table({"hand": pa.array(numbers, pa.int64()), "table_id": pa.array(tables, pa.string())}),
                   path, row_group_size=7)
    return pq.ParquetFile(path)


def _layout(rng: random.Random, rows: int) -> list[str | None]:
    """Tables opened and closed at random, several at once, some ids null (one table, "" as the planner keys it)."""
    open_tables: list[str] = []
    out: list[str | None] = []
    made = 0
    while len(out) < rows:
        if not open_tables or (rng.random() < 0.2 and len(open_tables) < 4):
            made += 1
            open_tables.append(f"t{made}")
        table = rng.choice(open_tables)
        out.append(None if table == "t1" else table)
        if rng.random() < 0.1:
            open_tables.remove(table)
    return out


@pytest.mark.parametrize("seed", range(40))
def test_cuts_follow_the_definition(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    monkeypatch.setattr(parquet_ranges, "_SCAN_ROWS", 16)  # many batches: a table spans several of them
    rng = random.Random(seed)
    tables = _layout(rng, rng.randint(1, 300))
    file = _write(tmp_path / "hands.parquet", tables)
    for target in (1, 5, 40, 1000):
        assert _table_cuts(file, target) == _reference(tables, target), target


def test_interleaved_tables_have_no_cut_between_them(tmp_path: Path) -> None:
    # a and b interleave to row 5, c follows: the only cut is where c begins
    file = _write(tmp_path / "hands.parquet", ["a", "b", "a", "b", "a", "b", "c", "c"])
    assert _table_cuts(file, 1) == [6]


def test_hand_numbers_out_of_order_are_not_cut(tmp_path: Path) -> None:
    file = _write(tmp_path / "hands.parquet", ["a", "a", "b"], hands=[1, 3, 2])
    assert _table_cuts(file, 1) is None


def test_empty_file_has_no_cuts(tmp_path: Path) -> None:
    assert _table_cuts(_write(tmp_path / "hands.parquet", []), 1) == []
