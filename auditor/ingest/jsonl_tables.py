"""Canonical JSON Lines read column-wise: batches of lines scanned, validated and given as canonical tables.

`read_jsonl` parses each line to a dict (`json.loads`), validates it hand by hand (jsonschema-rs and
`consistency_error`) and gives `SourceHand`s that the audit turns into tables later (`build_tables`): about
80 µs a hand. `read_jsonl_tables` gives the same hands and the same refusals as the audit consumes them:

1. the file's lines are read as `read_jsonl` reads them (`jsonl._lines`: the same line numbers, limits,
   CR and BOM handling, the same quarantine of an overlong line or a stream that fails), a batch of
   lines (`BATCH_BYTES`) at a time, so memory is bounded by the batch;
2. a batch is scanned by the compiled byte scanner (`jsonl_scan`) into the canonical Arrow tables, which
   `columnar_validate.validate` judges (the schema and `consistency_error`, column-wise);
3. a line the scanner read and the validator accepted is a hand of a `TableChunk` (its tables are what
   `build_tables` makes of the hand `json.loads` reads: `tests/test_jsonl_tables.py`); every other line,
   refused or not read exactly (a type JSON allows that a column would coerce, duplicate or unknown keys,
   escaped surrogates, text that is not UTF-8...), takes the reference path, `jsonl._one_line`, which
   gives its hand or words its refusal exactly as `read_jsonl` does. So the columnar path decides only
   acceptance, and only where it reads the hand exactly; every message is the reference's own;
4. the file's per-line quarantines are held back as `read_jsonl` holds them (`jsonl._held_back`).

Items come in line order: a chunk carries the quarantine entries of the lines among its hands
(`TableChunk.quarantined`, recorded before its hands replay, as a Parquet range's are), and a hand the
reference path accepted is given alone between chunks. A chunk's hands' dicts (`TableChunk.source`, for
the few hands a report shows) are parsed from their lines when asked for.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from auditor.ingest import columnar_validate, jsonl_scan
from auditor.ingest.files import utf8_mask
from auditor.ingest.jsonl import _held_back, _lines, _one_line, _Watch, open_lines
from auditor.ingest.limits import DEFAULT_LIMITS, Limits
from auditor.ingest.parquet import TableChunk
from auditor.model.records import Quarantined, SourceHand
from auditor.model.tables import EVENTS_SCHEMA, HANDS_SCHEMA, SEATS_SCHEMA, CanonicalTables

__all__ = ["BATCH_BYTES", "BATCH_LINES", "CHUNK_HANDS", "MIN_LINES", "SCAN_FAILURES", "read_jsonl_tables"]

#: bytes of lines scanned and validated together (about a thousand hands: the validator's fixed cost per call
#: is spread over them, and the scanner's arrays stay a few tens of MB whatever the bytes)
BATCH_BYTES = 2 << 20
#: at most this many lines in a batch (short lines, or lines refused for their length, add few bytes)
BATCH_LINES = 4096
#: at most this many hands per TableChunk: a chunk cut at a batch of the audit rebuilds the dicts of what
#: it keeps (`TableChunk.without`), so a small chunk bounds that cost
CHUNK_HANDS = 1000
#: a batch of fewer lines takes the reference path whole: scanning, building and validating tables costs ~5 ms
#: a call whatever its size, the reference ~60 µs a hand more than the columnar path (break-even ~80 hands)
MIN_LINES = 64
#: the last failures of the scanner or validator themselves (a bug: the batch then took the reference path)
SCAN_FAILURES: list[str] = []


def read_jsonl_tables(path: Path, limits: Limits = DEFAULT_LIMITS, batch_bytes: int | None = None,
                      chunk_hands: int | None = None,
                      min_lines: int | None = None) -> Iterator[TableChunk | SourceHand | Quarantined]:
    """`read_jsonl`'s hands and quarantine entries, the hands the columnar path takes as TableChunks (batches
    of `batch_bytes`, chunks of `chunk_hands`, batches under `min_lines` lines read by the reference path:
    BATCH_BYTES, CHUNK_HANDS and MIN_LINES unless given)."""
    name = str(path)
    batch_bytes = BATCH_BYTES if batch_bytes is None else batch_bytes
    chunk_hands = CHUNK_HANDS if chunk_hands is None else chunk_hands
    min_lines = MIN_LINES if min_lines is None else min_lines
    stream = open_lines(path, name, limits)
    if isinstance(stream, Quarantined):
        yield stream
        return
    watch = _Watch()
    items = _judged(_lines(stream, name, limits.jsonl_max_line_bytes, watch), name, max(1, batch_bytes), min_lines)
    yield from _chunks(_held_back(items, name, watch), name, max(1, chunk_hands))


@dataclass(frozen=True)
class _Batch:
    """The hands of one batch the columnar path took: their tables (hand 0.. in line order) and lines."""

    tables: CanonicalTables
    raw: list[bytes]
    lines: list[int]
    seat_starts: np.ndarray
    event_starts: np.ndarray


@dataclass(frozen=True)
class _Run:
    """Hands `start`..`stop` - 1 of a batch, consecutive lines the columnar path took (one item among the
    others: a run of a whole batch costs one item, not one per line)."""

    batch: _Batch
    start: int
    stop: int


def _judged(lines: Iterator[tuple[int, bytes] | Quarantined], name: str, batch_bytes: int,
            min_lines: int) -> Iterator[_Run | SourceHand | Quarantined]:
    """The lines' items in line order: a `_Run` for consecutive lines the columnar path took, else the
    reference path's hand or quarantine entry (a blank line gives none); a quarantine of `_lines` as it
    comes."""
    pending: list[tuple[int, bytes] | Quarantined] = []
    size = 0
    for item in lines:
        pending.append(item)
        if not isinstance(item, Quarantined):
            size += len(item[1]) + 1
        if size >= batch_bytes or len(pending) >= BATCH_LINES:
            yield from _batch(pending, name, min_lines)
            pending, size = [], 0
    if pending:
        yield from _batch(pending, name, min_lines)


def _batch(pending: list[tuple[int, bytes] | Quarantined], name: str,
           min_lines: int) -> Iterator[_Run | SourceHand | Quarantined]:
    entries = [item for item in pending if not isinstance(item, Quarantined)]
    batch = _take(entries, name) if entries and len(entries) >= min_lines else None
    taken = set(batch.lines) if batch is not None else set()
    row = 0  # the batch's next hand
    start = 0
    for item in pending:
        if not isinstance(item, Quarantined):
            line_no, raw = item
            if line_no in taken:
                row += 1
                continue
        if row > start:
            assert batch is not None
            yield _Run(batch, start, row)
            start = row
        if isinstance(item, Quarantined):
            yield item
            continue
        judged = _one_line(raw, name, line_no)
        if judged is not None:
            yield judged
    if row > start:
        assert batch is not None
        yield _Run(batch, start, row)


def _take(entries: list[tuple[int, bytes]], name: str) -> _Batch | None:
    """The hands of the lines the columnar path takes (None if none, or should the scanner or validator
    fail)."""
    raws = [raw for _, raw in entries]
    numbers = np.array([n for n, _ in entries], dtype=np.int64)
    buf = b"\n".join(raws)  # a newline between lines: no UTF-8 sequence runs from one line into the next
    lengths = np.array([len(r) for r in raws], dtype=np.int64)
    starts = np.zeros(len(raws), np.int64)
    np.cumsum(lengths[:-1] + 1, out=starts[1:])
    try:
        text_ok = utf8_mask(buf, raws)
        sc = jsonl_scan.scan(buf, starts, starts + lengths)
        ok = jsonl_scan.readable_lines(sc) & text_ok
        if not ok.any():
            return None
        tables = jsonl_scan.tables(sc, ok, name, numbers)
        valid = columnar_validate.validate(tables.hands, tables.seats, tables.events).valid
    except Exception as exc:  # a fault of ours costs speed (the reference path), never a verdict
        SCAN_FAILURES.append(f"{type(exc).__name__}: {str(exc)[:200]}")
        del SCAN_FAILURES[:-20]
        return None
    if not valid.any():
        return None
    rows = np.flatnonzero(ok)[valid]
    kept = tables.keep(valid)
    return _Batch(kept, [raws[r] for r in rows], numbers[rows].tolist(), *kept.starts())


def _chunks(items: Iterator[_Run | SourceHand | Quarantined], name: str,
            chunk_hands: int) -> Iterator[TableChunk | SourceHand | Quarantined]:
    """The reader's items: the runs of one batch as TableChunks of at most `chunk_hands` hands, each with the
    quarantine entries met among its hands (those before its first hand, after the last chunk's); hands of
    the reference path and entries met outside a run as they come."""
    batch: _Batch | None = None
    start = stop = 0
    refused: list[Quarantined] = []

    def cut(until: int) -> Iterator[TableChunk]:
        """Chunks of the hands start..until - 1; the entries before the next hand go with the last."""
        nonlocal start, refused
        assert batch is not None
        while start < until:
            end = min(until, start + chunk_hands)
            if end < stop:
                nxt = batch.lines[end]
                mine = [q for q in refused if q.line < nxt]
                refused = refused[len(mine):]
            else:
                mine, refused = refused, []
            yield _chunk(batch, start, end, tuple(mine), name)
            start = end

    for item in items:
        if isinstance(item, _Run):
            if batch is not None and item.batch is not batch:
                yield from cut(stop)
                batch = None
            if batch is None:
                batch, start = item.batch, item.start
            stop = item.stop
            if stop - start >= chunk_hands:
                yield from cut(start + (stop - start) // chunk_hands * chunk_hands)
        elif isinstance(item, Quarantined) and batch is not None and start < stop:
            refused.append(item)
        else:
            if batch is not None:
                yield from cut(stop)
                batch = None
            yield item
    if batch is not None:
        yield from cut(stop)


def _chunk(batch: _Batch, a: int, b: int, refused: tuple[Quarantined, ...], name: str) -> TableChunk:
    """Hands a..b - 1 of a batch as a TableChunk (hand renumbered from 0) carrying `refused`."""
    empty = np.zeros(0, np.int64)
    hands = _Lazy(name, batch.raw[a:b], batch.lines[a:b])
    tables = batch.tables.between(a, b, batch.seat_starts, batch.event_starts)
    return TableChunk(tables, name, [None] * (b - a), [None] * (b - a), HANDS_SCHEMA.empty_table(),
                      SEATS_SCHEMA.empty_table(), empty, empty, EVENTS_SCHEMA.empty_table(), empty, empty, hands,
                      refused)


class _Lazy(Sequence):
    """A chunk's hands as `read_jsonl` gives them, each parsed from its line when asked for."""

    def __init__(self, file: str, raw: list[bytes], lines: list[int]) -> None:
        self.file, self.raw, self.lines = file, raw, lines

    def __len__(self) -> int:
        return len(self.raw)

    def __getitem__(self, i):  # type: ignore[no-untyped-def, override]
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        return SourceHand(json.loads(self.raw[i]), self.file, self.lines[i])
