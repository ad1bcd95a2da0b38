"""Files a writer wrote, read back as canonical tables through the reader paths `auditor audit` takes.

Why: `auditor verify --via FORMAT` proves a reader only for the code the hands went through. An audit reads
some formats two ways: hand by hand (`detect.read_file`: a dict per hand, `build_tables` after) and, for inputs
large enough to earn the compiled kernels' load, column-wise (`TableChunk`s of canonical tables: a run of `.phh`
files through `phh_tables`, a large OHH file through `ohh_tables`). Verify's files are small (a planted unit is a
few hands), so read the audit's way they would only ever take the first path, and the column-wise one would be
held by its identity tests alone.
`phh_files` therefore reads a set of `.phh` files both ways, and `one_file` one file of a format whose large
files are read column-wise (OHH: `ohh_tables`), the column-wise reader with its size threshold waived; each gives
the column-wise tables (what verify audits) only when the two agree on every hand; a disagreement is a reader
fault, reported on every hand as a quarantine entry (so verify counts them "not audited", loudly).

Hands come back in the order written, each as a row of the tables or as its quarantine entry (`ReadBack`), the
tables' `file` and `line` set to what verify numbers them (`relabel`), as its in-memory path does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from auditor.export.phh import to_phh
from auditor.ingest.detect import DEFAULT_PACK, read_file
from auditor.ingest.parquet import TableChunk
from auditor.ingest.phh import read_plain_phh_batch
from auditor.ingest.tables import build_tables, concat_tables
from auditor.model.records import Quarantined, ReaderNote, SourceHand
from auditor.model.tables import CanonicalTables

__all__ = ["ReadBack", "difference", "from_items", "one_file", "phh_files", "relabel"]


@dataclass
class ReadBack:
    """The hands read back from files written in one go: `tables` holds the hands read, in the order written;
    `lost[k]` is hand k's quarantine entry, or None when it is a row of `tables` (rows in order of k).
    `column_wise` counts the hands of `tables` a column-wise reader gave (as `TableChunk`s)."""

    tables: CanonicalTables
    lost: list[Quarantined | None]
    column_wise: int = 0


def _everything_lost(labels: Sequence[str], count: int, why: str) -> ReadBack:
    label = labels[0] if labels else "?"
    return ReadBack(build_tables([]), [Quarantined(labels[k] if len(labels) == count else label, 1, why,
                                                   code="internal-error") for k in range(count)])


def from_items(items: Iterable[Any], labels: Sequence[str], count: int | None = None,
               newest_first: bool = False) -> ReadBack:
    """A reader's items for the files `labels`, in the order the hands were written: a file per hand (`count`
    None: each file one item), or `count` hands in one file (`labels` that one file: the hands in line order, each
    object on a line of its own). An item the files do not account for, or a file with no item or several, is a
    reader fault, and every hand is then lost with words saying so. `newest_first`: the format writes its last
    hand first (a PokerNow log), so the hands are in reverse line order."""
    place = {label: k for k, label in enumerate(labels)}
    count = len(labels) if count is None else count
    got: list[tuple[int, int, Any, int]] = []  # (file, line, item, row in a chunk or -1)
    for item in items:
        if isinstance(item, ReaderNote):
            continue
        if isinstance(item, TableChunk):
            lines = item.tables.hands.column("line").to_pylist()
            for row, (file, line) in enumerate(zip(item.files(), lines, strict=True)):
                if file not in place:
                    return _everything_lost(labels, count, f"a column-wise chunk names a file not written: {file[:80]}")
                got.append((place[file], line, item, row))
            for q in item.quarantined:
                if q.file not in place:
                    return _everything_lost(labels, count, f"the reader named a file not written: {q.file[:80]}")
                got.append((place[q.file], q.line, q, -1))
            continue
        if item.file not in place:
            return _everything_lost(labels, count, f"the reader named a file not written: {item.file[:80]}")
        got.append((place[item.file], item.line, item, -1))
    got.sort(key=lambda entry: (entry[0], -entry[1] if newest_first else entry[1]))
    per_file = [0] * len(labels)
    for entry in got:
        per_file[entry[0]] += 1
    if len(got) != count or (len(labels) > 1 and per_file != [1] * len(labels)):
        return _everything_lost(labels, count, f"the reader gave {len(got)} items for the {count} hands written")
    lost: list[Quarantined | None] = []
    parts: list[CanonicalTables] = []
    loose: list[SourceHand] = []
    column_wise = 0
    for _file, _line, item, row in got:
        if isinstance(item, Quarantined):
            lost.append(item)
            continue
        lost.append(None)
        if isinstance(item, SourceHand):
            loose.append(item)
            continue
        if loose:
            parts.append(build_tables(loose))
            loose = []
        seat_starts, event_starts = item.tables.starts()
        parts.append(item.tables.between(row, row + 1, seat_starts, event_starts))
        column_wise += 1
    if loose:
        parts.append(build_tables(loose))
    return ReadBack(concat_tables(parts) if parts else build_tables([]), lost, column_wise)


def relabel(back: ReadBack, file: str, lines: Sequence[int]) -> ReadBack:
    """`back` with each hand read named `file`, line `lines[k]` for hand k written (what verify matches
    findings by)."""
    kept = [line for line, q in zip(lines, back.lost, strict=True) if q is None]
    hands = back.tables.hands
    names = hands.schema.names
    hands = hands.set_column(names.index("file"), "file", pa.array([file] * len(kept), pa.string()))
    hands = hands.set_column(names.index("line"), "line", pa.array(np.asarray(kept, np.int64)))
    return ReadBack(CanonicalTables(hands, back.tables.seats, back.tables.events), back.lost, back.column_wise)


def _first_difference(a: CanonicalTables, b: CanonicalTables) -> str | None:
    """Where two readings of the same files differ (table and column), or None when they are equal."""
    for name in ("hands", "seats", "events"):
        x, y = getattr(a, name), getattr(b, name)
        if x.schema != y.schema:
            return f"{name}: columns or types differ"
        if x.num_rows != y.num_rows:
            return f"{name}: {x.num_rows} rows against {y.num_rows}"
        for column in x.schema.names:
            if not x.column(column).equals(y.column(column)):
                return f"{name}.{column} differs"
    return None


def phh_files(hands: Sequence[dict], folder: Path, stem: str) -> ReadBack:
    """`hands` written one `.phh` file each (in `folder`, named `stem-k.phh`; the hands of one table share PHH's
    `table` number, as in a `.phhs` file) and read back both ways; the column-wise reading when the two agree
    (see the module docstring). The files are removed afterwards."""
    tables: dict[str, int] = {}
    paths = []
    for k, hand in enumerate(hands, 1):
        path = folder / f"{stem}-{k}.phh"
        table = tables.setdefault(hand["table_id"], len(tables) + 1)
        path.write_text("\n".join(to_phh(hand, table, k)) + "\n", encoding="utf-8", newline="\n")
        paths.append(path)
    labels = [p.as_posix() for p in paths]
    try:
        columns: list[Any] = []
        k = 0
        while k < len(paths):  # the batch reader reads the first files up to its batch: ask again for the rest
            got = read_plain_phh_batch(paths[k:], labels[k:], rule_pack=DEFAULT_PACK, tables=True)
            for path, label, items in zip(paths[k:], labels[k:], got, strict=False):
                columns += list(items) if items is not None else list(read_file(path, "phh", label))
            k += max(1, len(got))
        by_hand = [item for path, label in zip(paths, labels, strict=True) for item in read_file(path, "phh", label)]
    finally:
        for path in paths:
            path.unlink(missing_ok=True)
    return _agreed(from_items(columns, labels), from_items(by_hand, labels), labels, len(hands), "PHH")


def one_file(hands: Sequence[dict], path: Path, write: Callable[[Sequence[dict], Path], Any],
             column_wise: Callable[[Path], Iterable[Any]], fmt: str) -> ReadBack:
    """`hands` written to one file at `path` by `write` and read back both ways: hand by hand (`detect.read_file`)
    and by the format's column-wise reader `column_wise(path)` with its size threshold waived; the column-wise
    reading when the two agree (see the module docstring). The file is removed afterwards."""
    label = path.as_posix()
    try:
        write(hands, path)
        columns = list(column_wise(path))
        by_hand = list(read_file(path, name=label))
    finally:
        path.unlink(missing_ok=True)
    return _agreed(from_items(columns, [label], len(hands)), from_items(by_hand, [label], len(hands)), [label],
                   len(hands), fmt)


def difference(a: ReadBack, b: ReadBack) -> str | None:
    """Where two readings of the same hands differ (their quarantine entries: code, line, reason; then the
    tables' first differing column), or None when they give the same."""
    lost_a = [None if q is None else (q.code, q.line, q.reason) for q in a.lost]
    lost_b = [None if q is None else (q.code, q.line, q.reason) for q in b.lost]
    return "quarantines differ" if lost_a != lost_b else _first_difference(a.tables, b.tables)


def _agreed(column_wise: ReadBack, one_by_one: ReadBack, labels: Sequence[str], count: int, fmt: str) -> ReadBack:
    """The column-wise reading when it gives exactly what the hand-by-hand one gives, else every hand lost."""
    differs = difference(column_wise, one_by_one)
    if differs is not None:
        return _everything_lost(labels, count, f"the {fmt} reader's column-wise and hand-by-hand paths disagree: "
                                               f"{differs}")
    return column_wise
