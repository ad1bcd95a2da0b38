"""A Parquet dataset read a range of hands at a time: flat memory, and hand ranges for the workers.

`auditor.ingest.parquet.read_parquet` reads the three tables whole and turns every row into a Python
dict, which for a dataset of a million hands (twelve million events) needs more memory than the
machine has. Here the dataset is streamed: hands.parquet a few thousand rows at a time, and for each
chunk only the rows of seats.parquet and events.parquet that belong to those hands (the files are
sorted by hand number, so that is one forward scan of each). Each chunk is judged by the columnar
validator as `read_parquet` judges it (`tests/test_parallel.py` checks they yield the same), so a dataset
gets no easier ride for being large. `read_range_tables`, what partitions read, gives each chunk's valid
hands as a TableChunk (canonical tables taken from the rows, no dict per hand or event), which a
partition's `HandBatch` hands to the replay as they are; `read_range` still rebuilds one SourceHand each.

The size limits follow the memory: a streamed dataset holds what one range reads, so the planner checks
the footers only (`stream_refusal`) and each range's reader measures what its own row groups decode to
before decoding them (`range_refusal`): a range past a limit is refused alone, the rest of the dataset
audits, and a dataset far larger than `max_unpacked_bytes` as a whole can be audited at all.

`plan_ranges` cuts a dataset into ranges of hand rows for the workers, only where no table
continues across the cut (a table is a source file and table id, the engine's unit of cross-hand
state), so each table's hands stay in one worker and in order. A dataset whose hand numbers are not
in increasing order in all three files cannot be streamed; `plan_ranges` returns None and it is read
whole by `read_parquet`, as before.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from auditor.ingest.files import bomb_message
from auditor.ingest.limits import DEFAULT_LIMITS, Limits
from auditor.ingest.parquet import (
    SCHEMAS,
    TABLE_FILES,
    UNJUDGED,
    TableChunk,
    failure_code,
    group_footprint,
    groups_decoded,
    judged,
    one_item,
    parsed_footer,
    read_quarantined,
    rebuild_hand,
    stream_refusal,
    validated_chunk,
)
from auditor.ingest.parquet_footer import read_footer
from auditor.ingest.tables import build_tables, concat_tables
from auditor.model.records import Quarantined, SourceHand
from auditor.model.tables import CanonicalTables

#: hands rebuilt per step of the stream (with their seats and events, a few MB)
CHUNK_HANDS = 4096
_SCAN_ROWS = 1 << 16


@dataclass(frozen=True)
class Layout:
    """Where the hands are in the three files: what a worker needs to start reading mid-dataset."""

    #: rows in each row group of hands.parquet
    hands_groups: tuple[int, ...]
    #: (first, last) hand number of each row group of seats.parquet / events.parquet; None if empty
    seats_groups: tuple[tuple[int, int] | None, ...]
    events_groups: tuple[tuple[int, int] | None, ...]
    #: the run's limits, which each range's reader holds its row groups to (`range_refusal`)
    limits: Limits = DEFAULT_LIMITS


def hand_count(directory: Path) -> int:
    """Hands in a dataset, from the Parquet footer (nothing else is read)."""
    return pq.ParquetFile(directory / "hands.parquet").metadata.num_rows


def plan_ranges(directory: Path, target: int,
                limits: Limits = DEFAULT_LIMITS) -> tuple[Layout, list[tuple[int, int]]] | None:
    """The dataset's layout and its hand-row ranges of about `target` hands, cut only between tables.

    None if the dataset cannot be streamed (hand numbers out of order, a table that is not exactly the
    canonical schema, a limit or damage `stream_refusal` finds in the footers, or unreadable):
    `read_parquet` then reads it whole and, for a hostile or damaged dataset, quarantines it with the
    column or limit named (its checks are the stricter: whatever passes them is safe to hold whole).

    Only footers and the columns the cuts need (hand numbers; table ids, measured first) are read here:
    what the columns decode to is judged per range, in the worker, by `range_refusal`, so planning costs
    no serial work that grows with the data beyond those two columns, and a dataset larger than
    `max_unpacked_bytes` as a whole audits when each range fits.
    """
    try:
        if not all(_canonical_schema(directory / f"{name}.parquet", name) for name in TABLE_FILES):
            return None
        if stream_refusal(directory, limits) is not None:
            return None
        hands_file = pq.ParquetFile(directory / "hands.parquet")
        if not _table_ids_bounded(directory / "hands.parquet", limits):
            return None
        groups = tuple(group.num_rows for group in parsed_footer(directory / "hands.parquet", limits).row_groups)
        known = hands_file.read(columns=["hand"]).column("hand").to_numpy()  # strictly increasing if cuts is not None
        # the spans of seats and events in two threads while this one finds the cuts: Arrow's decoding and NumPy's
        # scans let go of the GIL, and this is the run's serial start (1,000,000 hands: 0.55 s -> 0.3 s)
        with ThreadPoolExecutor(2, thread_name_prefix="auditor-plan") as threads:
            spans = [threads.submit(_group_spans, directory / f"{name}.parquet", known) for name in ("seats", "events")]
            cuts = _table_cuts(hands_file, target)
            seats, events = (future.result() for future in spans)
        if cuts is None or seats is None or events is None:
            return None
    except (OSError, pa.ArrowException, ValueError, KeyError):
        return None
    rows = sum(groups)
    starts = [0, *cuts]
    return Layout(groups, seats, events, limits), [(a, b) for a, b in zip(starts, [*cuts, rows], strict=True) if b > a]


def _table_ids_bounded(path: Path, limits: Limits) -> bool:
    """Whether hands.parquet's `table_id` column, which `_table_cuts` decodes here in the driver, decodes within
    the limits (size, and ratio to the file): a dictionary value shared by every row must not be expanded by
    the planner. When it does not, `read_parquet`, whose measure of the whole file includes it, refuses."""
    meta = parsed_footer(path, limits)
    footprints = [group_footprint(meta, i, {"table_id"}) for i in range(meta.num_row_groups)]
    if any(isinstance(f, str) for f in footprints):
        return False
    groups = [i for i, f in enumerate(footprints) if "table_id" in f.dictionary_columns]  # type: ignore[union-attr]
    total = sum(f.fixed + f.plain for f in footprints)  # type: ignore[union-attr]
    size = path.stat().st_size
    for at in range(0, len(groups), 64):  # a few row groups per read: a footer of thousands stays cheap
        total += groups_decoded(path, groups[at:at + 64], ["table_id"], together=True)[groups[at]]
        if bomb_message(total, size, limits):
            return False
    return not bomb_message(total, size, limits)


def _canonical_schema(path: Path, name: str) -> bool:
    """Every canonical column present with exactly its canonical type (older datasets that lack the
    optional columns are read whole by `read_parquet`, which fills them in)."""
    schema, _ = SCHEMAS[name]
    found = pq.read_schema(path)
    return all(len(found.get_all_field_indices(f.name)) == 1 and found.field(f.name).type == f.type for f in schema)


def _group_spans(path: Path, known: np.ndarray) -> tuple[tuple[int, int] | None, ...] | None:
    """First and last hand number of each row group, or None if the file is not sorted by hand or holds
    rows of a hand number that is not in hands.parquet (`known`, ascending). Such rows belong to a hand
    whose own row is missing; a range scan would pass over them unseen, so the dataset is read whole
    by `read_parquet`, which quarantines each such hand."""
    file = pq.ParquetFile(path)
    spans: list[tuple[int, int] | None] = []
    previous = -1
    for i in range(file.num_row_groups):
        column = file.read_row_group(i, columns=["hand"]).column("hand")
        if column.null_count:
            return None
        hands = column.to_numpy()
        if len(hands) == 0:
            spans.append(None)
            continue
        if hands[0] < previous or (len(hands) > 1 and bool((np.diff(hands) < 0).any())):
            return None
        numbers = hands[np.concatenate(([True], np.diff(hands) != 0))]  # sorted: each number once
        at = np.minimum(np.searchsorted(known, numbers), max(len(known) - 1, 0))
        if len(known) == 0 or bool((known[at] != numbers).any()):
            return None
        spans.append((int(hands[0]), int(hands[-1])))
        previous = int(hands[-1])
    return tuple(spans)


def _table_keys(batch: pa.RecordBatch) -> np.ndarray:
    """A 64-bit key per hand row for its table. Every hand of a dataset has the dataset as its input
    (the `file` column is only claimed provenance, see `read_parquet`), so the engine's table is the
    table id alone: the cuts follow it, and the file a row claims cannot split a table between workers.
    Two tables sharing a key by a hash collision only make the cuts more cautious, never wrong."""
    if "table_id" not in batch.schema.names:
        return np.zeros(batch.num_rows, dtype=np.uint64)
    # each distinct id hashed once (a batch of 65,536 rows holds a few hundred tables), then taken by its Arrow
    # dictionary code: the keys `hash_array` gives the whole column, without a Python string per row (4x faster)
    encoded = pc.dictionary_encode(pc.fill_null(batch.column("table_id").cast(pa.string()), ""))
    distinct = encoded.dictionary.to_numpy(zero_copy_only=False).astype(object)
    return pd.util.hash_array(distinct, categorize=False)[encoded.indices.to_numpy(zero_copy_only=False)]


def _table_cuts(file: pq.ParquetFile, target: int) -> list[int] | None:
    """Hand rows where a range can start (no table has hands on both sides), about `target` apart.

    One streaming pass over hands.parquet keeps the first and last row of each table (memory grows with
    the tables, never with the rows). A row can start a range only if it is the first row of its table and
    every table that began before it has ended before it: with the tables ordered by first row, the first rows
    past the running maximum of the last rows before them. None if the hand numbers are not strictly
    increasing (the rows of a hand could not be found by a scan).
    """
    columns = [c for c in ("hand", "table_id") if c in file.schema_arrow.names]
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    previous = -1
    position = 0
    for batch in file.iter_batches(batch_size=_SCAN_ROWS, columns=columns):
        if batch.column("hand").null_count:
            return None
        hands = batch.column("hand").to_numpy()
        if len(hands) and (hands[0] <= previous or bool((np.diff(hands) <= 0).any())):
            return None
        if len(hands):
            previous = int(hands[-1])
        keys = _table_keys(batch)
        # each table's first and last row in the batch: the first and last place its key occurs
        distinct, first_at = np.unique(keys, return_index=True)
        last_at = len(keys) - 1 - np.unique(keys[::-1], return_index=True)[1]
        distinct_keys = distinct.tolist()
        for key, lo in zip(distinct_keys, (first_at + position).tolist(), strict=True):
            first.setdefault(key, lo)  # batches come in row order: a table's first batch has its first row
        last.update(zip(distinct_keys, (last_at + position).tolist(), strict=True))
        position += batch.num_rows
    starts = np.fromiter(first.values(), np.int64, len(first))
    ends = np.fromiter((last[key] for key in first), np.int64, len(first))
    by_start = np.argsort(starts, kind="stable")
    starts, reach = starts[by_start], np.maximum.accumulate(ends[by_start])
    allowed = starts[1:][reach[:-1] < starts[1:]]  # every table begun before has ended (row 0 never: ascending)
    cuts: list[int] = []
    wanted = target
    while True:
        i = int(np.searchsorted(allowed, wanted))
        if i >= len(allowed):
            return cuts
        cuts.append(int(allowed[i]))
        wanted = int(allowed[i]) + target


class _Cursor:
    """Forward scan of seats.parquet or events.parquet, handing out the rows of a span of hands.

    The scan goes one row group at a time and starts a row group only when the span asked for reaches it,
    so a range decodes only the row groups `range_refusal` measured for it (never the first batch of the
    next range's, which may be one that range is refused for)."""

    def __init__(self, path: Path, groups: tuple[tuple[int, int] | None, ...]):
        self.path = path
        self.groups = groups
        self.file: pq.ParquetFile | None = None
        self.pending: list[int] | None = None  # row groups not started yet, in order (None: scan not started)
        self.batches: Iterator[pa.RecordBatch] | None = None  # of the row group being read
        self.group = -1  # the row group being read
        self.expected_rows = self.read_rows = 0  # of the row group being read
        self.buffer: pa.Table | None = None  # rows read ahead, of hands not handed out yet
        self.last = -1  # the highest hand number handed out (rows up to it are behind the scan)
        self.identity = _identity(path)

    @property
    def started(self) -> bool:
        return self.pending is not None

    @property
    def done(self) -> bool:
        """Every row group read to its end (a scan that cannot go on)."""
        return self.pending is not None and not self.pending and self.batches is None

    def _start(self, first_hand: int) -> None:
        self.file = pq.ParquetFile(self.path)
        self.pending = [i for i, span in enumerate(self.groups) if span is not None and span[1] >= first_hand]

    def skip_to(self, first_hand: int) -> None:
        """Drop, unread, the row groups that end before `first_hand` (a resumed scan jumps over the ranges
        between: another worker read them, or they were refused)."""
        assert self.pending is not None
        while self.pending and self.groups[self.pending[0]][1] < first_hand:  # type: ignore[index]
            self.pending.pop(0)
        if self.batches is not None and self.groups[self.group][1] < first_hand:  # type: ignore[index]
            self.batches = self.buffer = None  # the row group being read ends before first_hand: the rest too

    def _next_batch(self, hi: int) -> pa.RecordBatch | None:
        """The next batch of the scan, None when the next row group starts after hand `hi` (not needed yet)."""
        assert self.pending is not None and self.file is not None
        while True:
            if self.batches is not None:
                batch = next(self.batches, None)
                if batch is not None:
                    self.read_rows += batch.num_rows
                    return batch
                self.batches = None
                if self.read_rows < self.expected_rows:  # ended early and quietly: see _hands_chunks
                    raise ValueError(f"{self.path.name} ended after {self.read_rows} of the {self.expected_rows} "
                                     f"rows its footer declares for a row group")
            if not self.pending or self.groups[self.pending[0]][0] > hi:  # type: ignore[index]
                return None
            group = self.group = self.pending.pop(0)
            # our footer parse, not pyarrow's row_group(i) (which aborts on a damaged footer); the planner and
            # range_refusal already held this footer to parquet_max_footer_bytes (and Arrow, opening the file,
            # reads all of it anyway), so no second cap here
            self.expected_rows, self.read_rows = read_footer(self.path, 1 << 62).row_groups[group].num_rows, 0
            # only the canonical columns: any other column is never read (nor measured by range_refusal)
            columns = SCHEMAS[self.path.stem][0].names
            held = _held.pop((str(self.path), self.identity, group), None)
            if held is not None:
                self.batches = iter(self._decoded_group(group, columns, held).to_batches(max_chunksize=_SCAN_ROWS))
            else:
                self.batches = iter(self.file.iter_batches(batch_size=_SCAN_ROWS, row_groups=[group],
                                                           columns=columns))

    def _decoded_group(self, group: int, columns: list[str], held: pa.Table) -> pa.Table:
        """Row group `group` of `columns` as a scan reads it, from the dictionary-encoded columns the measure read
        (`_held`: decoded to strings here, after the measure passed them) and the others read now."""
        assert self.file is not None
        schema = self.file.schema_arrow
        others = [c for c in columns if c not in held.column_names]
        rest = self.file.read_row_group(group, columns=others) if others else None
        arrays = [held.column(c).cast(schema.field(c).type) if c in held.column_names else rest.column(c)  # type: ignore[union-attr]
                  for c in columns]
        return pa.Table.from_arrays(arrays, schema=pa.schema([schema.field(c) for c in columns]))

    def take(self, lo: int, hi: int) -> pa.Table | None:
        """Rows whose hand number is in [lo, hi], in file order; rows before lo are skipped."""
        if self.pending is None:
            self._start(lo)
        parts = [self.buffer] if self.buffer is not None and self.buffer.num_rows else []
        while not parts or parts[-1].column("hand")[-1].as_py() <= hi:
            batch = self._next_batch(hi)
            if batch is None:
                break
            if batch.num_rows:
                parts.append(pa.Table.from_batches([batch]))
        if not parts:
            return None
        buffer = pa.concat_tables(parts) if len(parts) > 1 else parts[0]
        hands = buffer.column("hand").to_numpy()
        a, b = int(np.searchsorted(hands, lo, "left")), int(np.searchsorted(hands, hi, "right"))
        self.buffer = buffer.slice(b)
        self.last = max(self.last, hi)
        return buffer.slice(a, b - a)


def _identity(path: Path) -> tuple[int, int, int, int] | None:
    """What tells one file from another at a path, or the same file rewritten: device, inode, size, mtime."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


#: per file, the cursor of the range this process read last, suspended where it stopped
_suspended: dict[str, _Cursor] = {}


def _cursor(path: Path, groups: tuple[tuple[int, int] | None, ...], first_hand: int) -> _Cursor:
    """A cursor for a range whose hands start at `first_hand`: the previous range's, resumed, when this
    process read that range of the same file just before and stopped short of `first_hand`; else a new one.

    A new scan starts at the beginning of the row group holding `first_hand` and decodes every row before
    it only to skip it: with row groups of 20,000 hands (what `convert` writes) and ranges of about 6,000,
    each events row group was decoded two to three times over (16 of the benchmark's ~50 us a hand). A
    worker reads its ranges in order, mostly one after the other, so the scan simply goes on. A cursor is
    resumed only for the same file (device, inode, size, mtime), the same layout, and a scan that ended
    cleanly; it is taken out of `_suspended` while in use, so two reads never share one.
    """
    cursor = _suspended.pop(str(path), None)
    if (cursor is not None and cursor.groups == groups and cursor.started and not cursor.done
            and cursor.last < first_hand and cursor.identity is not None and cursor.identity == _identity(path)):
        cursor.skip_to(first_hand)
        return cursor
    return _Cursor(path, groups)


def _suspend(*cursors: _Cursor) -> None:
    """Keep the cursors of a range read to its end for the next range (`_cursor`), and only those: an
    older dataset's cursors are dropped, so a long-lived process keeps at most two files open."""
    _suspended.clear()
    for cursor in cursors:
        if cursor.started and not cursor.done:
            _suspended[str(cursor.path)] = cursor


#: the hands.parquet row groups this process decoded last (at most two), by (file, its identity, row group): a
#: worker reads its ranges in order and a range of about 6,000 hands (20,000 on a million) shares its first row
#: group with the range before it, so decoding each group once instead of from its start for every range saved
#: ~1.5 µs a hand
_hands_groups: dict[tuple[str, tuple[int, int, int, int] | None, int], pa.Table] = {}


def _hands_group_rows(path: Path, group: int) -> pa.Table:
    """Row group `group` of hands.parquet (its canonical columns), decoded once for consecutive ranges."""
    key = (str(path), _identity(path), group)
    table = _hands_groups.get(key)
    if table is None:
        while len(_hands_groups) >= 2:  # a long-lived process keeps a few MB
            del _hands_groups[next(iter(_hands_groups))]
        table = pq.ParquetFile(path).read_row_group(group, columns=SCHEMAS["hands"][0].names)
        _hands_groups[key] = table
    return table


def _hands_chunks(path: Path, groups: tuple[int, ...], start: int, stop: int) -> Iterator[tuple[int, pa.Table]]:
    """(row number of the first row, rows) of hands.parquet rows [start, stop), a chunk at a time: chunks of
    CHUNK_HANDS rows counted from the start of the first row group read, across row groups, where a batch
    reader of those groups cuts them (so the chunks, and the quarantine entries between them, are as before)."""
    offsets = np.concatenate([[0], np.cumsum(groups)]).astype(np.int64)
    wanted = [i for i in range(len(groups)) if offsets[i] < stop and offsets[i + 1] > start]
    if not wanted:
        return
    end = int(offsets[wanted[-1] + 1])

    def rows(lo: int, hi: int) -> pa.Table:
        parts = []
        for i in wanted:
            a, b = max(lo, int(offsets[i])), min(hi, int(offsets[i + 1]))
            if b <= a:
                continue
            table = _hands_group_rows(path, i)
            if table.num_rows < groups[i]:
                # a damaged file can decode fewer rows than its footer declares: the rest would be lost unsaid
                raise ValueError(f"hands.parquet ended after row {int(offsets[i]) + table.num_rows} of the {end} "
                                 "its footer declares")
            parts.append(table.slice(a - int(offsets[i]), b - a))
        return parts[0] if len(parts) == 1 else pa.concat_tables(parts)

    for at in range(int(offsets[wanted[0]]), end, CHUNK_HANDS):
        lo, hi = max(start, at), min(stop, at + CHUNK_HANDS)
        if hi > lo:
            yield lo, rows(lo, hi)


#: per (file, its identity, row group): what its dictionary-encoded strings decode to, measured once per process
#: (consecutive ranges share row groups: `convert` writes 20,000 hands a group, a range is a few thousand)
_measured: dict[tuple[str, tuple[int, int, int, int] | None, int], int] = {}
#: the seats and events row groups measured last, as the measure read them (dictionary-encoded strings), by the
#: same key, until the cursor reading that row group takes them (`_Cursor._decoded_group`): it then decompresses
#: only the other columns and turns the dictionaries into strings, instead of decompressing every string page a
#: second time (measured on the benchmark's million hands: the measure 1.23 s and the scan 1.23 s per ten events
#: row groups, 1.35 s together). At most `_HELD_GROUPS`, the oldest dropped: a range measures only the groups it reads.
_held: dict[tuple[str, tuple[int, int, int, int] | None, int], pa.Table] = {}
_HELD_GROUPS = 4


def _span_text(groups: list[int]) -> str:
    if len(groups) == 1:
        return f"row group {groups[0]}"
    return f"row groups {groups[0]}-{groups[-1]}" if groups == list(range(groups[0], groups[-1] + 1)) else \
        f"row groups {', '.join(map(str, groups))}"


def _groups_cost(path: Path, table: str, groups: list[int], limits: Limits) -> tuple[int, int] | str:
    """(decoded bytes, footer's unpacked bytes) of these row groups of one table file, or why they are refused:
    the footer first (value counts, encodings, sizes), then the dictionary strings, measured only when the
    footer bounds the indices to read."""
    meta = parsed_footer(path, limits)
    wanted = set(SCHEMAS[table][0].names)
    footprints = []
    for i in groups:
        footprint = group_footprint(meta, i, wanted)
        if isinstance(footprint, str):
            return f"{table}.parquet row group {i}: {footprint}"
        footprints.append(footprint)
    packed = sum(f.packed for f in footprints)
    unpacked = sum(f.unpacked for f in footprints)
    decoded = sum(f.fixed + f.plain for f in footprints)
    problem = bomb_message(max(unpacked, decoded), packed, limits)
    if problem:
        return f"{table}.parquet {_span_text(groups)} {problem}"
    identity = _identity(path)
    unmeasured = [i for i, f in zip(groups, footprints, strict=True)
                  if f.dictionary_columns and (str(path), identity, i) not in _measured]
    if len(_measured) > 100_000:
        _measured.clear()
    for i in unmeasured:
        columns = footprints[groups.index(i)].dictionary_columns
        read: dict[int, pa.Table] | None = {} if table != "hands" else None  # hands: `_hands_chunks` reads its own
        _measured[(str(path), identity, i)] = groups_decoded(path, [i], columns, read=read)[i]
        if read:
            _held[(str(path), identity, i)] = read[i]
            while len(_held) > _HELD_GROUPS:
                del _held[next(iter(_held))]
    each = [f.fixed + f.plain + _measured.get((str(path), identity, i), 0)
            for i, f in zip(groups, footprints, strict=True)]
    for i, f, size in zip(groups, footprints, each, strict=True):  # the row group to blame, when one is
        problem = bomb_message(size, f.packed, limits)
        if problem:
            return f"{table}.parquet row group {i} (its columns decoded) {problem}"
    decoded = sum(each)
    problem = bomb_message(decoded, packed, limits)
    if problem:
        return f"{table}.parquet {_span_text(groups)} (its columns decoded) {problem}"
    return decoded, unpacked


def range_refusal(directory: Path, layout: Layout, start: int, stop: int) -> str | None:
    """Why hand rows [start, stop) are refused before any of their rows is decoded, or None.

    A streamed dataset holds in memory what one range reads, never the whole, so the limits `read_parquet`
    puts on a whole dataset (`dataset_refusal`) are put here on the row groups this range reads of each
    file: what their canonical columns decode to (`decoded_bytes`' measure: value counts from the footer,
    dictionary strings from their indices) against the compression ratio, file by file, and their sum
    against `max_unpacked_bytes`. The reason names the file and row groups. Measured in the worker, where
    the range is read, so the planner does no work that grows with the dataset.
    """
    limits = layout.limits
    offsets = np.concatenate([[0], np.cumsum(layout.hands_groups)]).astype(np.int64)
    hands_groups = [i for i in range(len(layout.hands_groups)) if offsets[i] < stop and offsets[i + 1] > start]
    if not hands_groups:
        return None
    total = 0
    cost = _groups_cost(directory / "hands.parquet", "hands", hands_groups, limits)
    if isinstance(cost, str):
        return cost
    total += max(cost)
    # the range's first and last hand numbers (a column the footer just bounded), to find its other rows
    numbers = pq.ParquetFile(directory / "hands.parquet").read_row_groups(hands_groups, columns=["hand"])
    hands = numbers.column("hand").to_numpy()
    first = int(offsets[hands_groups[0]])
    if len(hands) < stop - first:
        return None  # a damaged file: the reader says so
    lo, hi = int(hands[start - first]), int(hands[stop - 1 - first])
    read: list[str] = [f"hands.parquet {_span_text(hands_groups)}"]
    for table, spans in (("seats", layout.seats_groups), ("events", layout.events_groups)):
        groups = [i for i, span in enumerate(spans) if span is not None and span[1] >= lo and span[0] <= hi]
        if not groups:
            continue
        cost = _groups_cost(directory / f"{table}.parquet", table, groups, limits)
        if isinstance(cost, str):
            return cost
        total += max(cost)
        read.append(f"{table}.parquet {_span_text(groups)}")
    if total > limits.max_unpacked_bytes:
        return (f"{', '.join(read)} decode to more than {limits.max_unpacked_bytes} bytes together (limit "
                "max_unpacked_bytes; refused as a decompression bomb)")
    return None


def _refused(name: str, start: int, stop: int, reason: str) -> Quarantined:
    """The one entry of a refused range (as one entry stands for a whole dataset `read_parquet` refuses)."""
    _suspended.clear()  # a scan resumed later must not pass through what was refused
    _held.clear()
    return Quarantined(name, 0, f"refused Parquet range (hand rows {start + 1}-{stop}): {reason}", code="limit")


def _range_chunks(directory: Path, layout: Layout, start: int, stop: int
                  ) -> tuple[Quarantined | None, Iterator[tuple[int, pa.Table]]]:
    """The chunks of hand rows [start, stop), or, when the range's row groups decode past the limits
    (`range_refusal`, judged before any page is decoded), its one quarantine entry and no chunks."""
    refusal = range_refusal(directory, layout, start, stop)
    if refusal is not None:
        return _refused(str(directory), start, stop, refusal), iter(())
    return None, _hands_chunks(directory / "hands.parquet", layout.hands_groups, start, stop)


def read_range(directory: Path, layout: Layout, start: int, stop: int) -> Iterator[SourceHand | Quarantined]:
    """Hand rows [start, stop) of the dataset, each rebuilt and validated as `read_parquet` does."""
    name = str(directory)
    seats = _Cursor(directory / "seats.parquet", layout.seats_groups)
    events = _Cursor(directory / "events.parquet", layout.events_groups)
    try:
        refused, chunks = _range_chunks(directory, layout, start, stop)
        if refused is not None:
            yield refused
        for first_row, chunk in chunks:
            lo, hi = chunk["hand"][0].as_py(), chunk["hand"][-1].as_py()
            seat_rows = _or_empty(seats.take(lo, hi), "seats")
            event_rows = _or_empty(events.take(lo, hi), "events")
            reasons = judged(chunk, seat_rows, event_rows)
            seats_by_hand = _by_hand(seat_rows, _seat_dicts)
            events_by_hand = _by_hand(_sorted_events(event_rows), _event_dicts)
            for i, h in enumerate(chunk.to_pylist()):
                reason = UNJUDGED if reasons is None else reasons[i]
                yield rebuild_hand(h, first_row + i + 1, name, seats_by_hand, events_by_hand, reason)
    # one reason for the rest of the range, as read_parquet gives for the whole dataset; a ValueError is
    # data Arrow cannot turn into Python values (text that is not UTF-8 in a damaged file, found by fuzzing)
    except (OSError, ValueError, pa.ArrowException) as exc:
        yield Quarantined(name, 0, f"unreadable Parquet dataset: {' '.join(str(exc).split())[:300]}",
                          code=failure_code(exc))
    if stop >= sum(layout.hands_groups):
        # the range that ends the dataset also gives what `convert` quarantined, once, as read_parquet does
        yield from read_quarantined(directory)


def read_range_tables(directory: Path, layout: Layout, start: int, stop: int) -> Iterator[TableChunk | Quarantined]:
    """`read_range` with each chunk of hand rows as one TableChunk: its valid hands as canonical tables taken
    from the dataset's rows (no dict per hand or event), its refused hands as the chunk's `quarantined`."""
    name = str(directory)
    seats = events = None
    try:
        refused, chunks = _range_chunks(directory, layout, start, stop)
        if refused is not None:
            yield refused
        for first_row, chunk in chunks:
            lo, hi = chunk["hand"][0].as_py(), chunk["hand"][-1].as_py()
            if seats is None or events is None:
                seats = _cursor(directory / "seats.parquet", layout.seats_groups, lo)
                events = _cursor(directory / "events.parquet", layout.events_groups, lo)
            yield one_item(name, *validated_chunk(name, first_row, chunk, _or_empty(seats.take(lo, hi), "seats"),
                                                  _or_empty(events.take(lo, hi), "events")))
        if seats is not None and events is not None:
            _suspend(seats, events)
    except (OSError, ValueError, pa.ArrowException) as exc:  # as read_range
        yield Quarantined(name, 0, f"unreadable Parquet dataset: {' '.join(str(exc).split())[:300]}",
                          code=failure_code(exc))
    if stop >= sum(layout.hands_groups):
        yield from read_quarantined(directory)


def _or_empty(table: pa.Table | None, name: str) -> pa.Table:
    return SCHEMAS[name][0].empty_table() if table is None else table


def _by_hand(table: pa.Table | None, rows: Any) -> dict[int, list]:
    """The rows of a table sorted by hand, as `rows(table)` dicts grouped by hand number."""
    if table is None or table.num_rows == 0:
        return {}
    hands = table.column("hand").to_numpy()
    dicts = rows(table)
    cuts = np.flatnonzero(np.diff(hands)) + 1
    starts, ends = [0, *cuts.tolist()], [*cuts.tolist(), len(hands)]
    return {int(hands[a]): dicts[a:b] for a, b in zip(starts, ends, strict=True)}


def _sorted_events(table: pa.Table | None) -> pa.Table | None:
    """Events in (hand, seq) order, nulls first, as read_parquet sorts them and the columnar validator
    judges them (already so in a dataset `convert` wrote)."""
    if table is None or table.num_rows < 2:
        return table
    hands, seqs = table.column("hand"), table.column("seq")
    if hands.null_count == 0 and seqs.null_count == 0:
        h, q = hands.to_numpy(), seqs.to_numpy()
        if not ((np.diff(h) == 0) & (np.diff(q) < 0)).any():
            return table  # hands are already in order (checked when planning); seq within each hand too
    from auditor.ingest.columnar_validate import event_order

    return table.take(event_order(table))  # a stable sort, like sorted()


def _columns(table: pa.Table, names: tuple[str, ...]) -> list[list]:
    none = [None] * table.num_rows
    return [table.column(n).to_pylist() if n in table.column_names else none for n in names]


def _seat_dicts(table: pa.Table) -> list[dict[str, Any]]:
    """`read_parquet`'s seat dicts, built column-wise: one dict per seat instead of two."""
    names = ("seat", "player", "stack", "status")
    return [{k: v for k, v in zip(names, row, strict=True) if v is not None}
            for row in zip(*_columns(table, names), strict=True)]


_GENERIC = ("seat", "player", "action", "post", "blind", "amount", "to", "all_in", "pot", "from_seat")


def _event_dicts(table: pa.Table) -> list[dict[str, Any]]:
    """`auditor.ingest.parquet._event` of every row, built column-wise (one dict per event instead of
    two; the reader's time on large datasets went mostly to those dicts). Same keys, same values, nulls
    dropped: `tests/test_parallel.py` compares the hands with `read_parquet`'s."""
    kind, t, seat, player, cards, target, receive, draw_players, *generic = _columns(
        table, ("kind", "t", "seat", "player", "cards", "target", "receive", "draw_players", *_GENERIC))
    keyed = list(zip(_GENERIC, generic, strict=True))
    out: list[dict[str, Any]] = []
    for i, k in enumerate(kind):
        # Keys in _event's order, a key only when its value is not null (what _event's _strip leaves).
        ev: dict[str, Any] = {} if k is None else {"kind": k}
        if t[i] is not None:
            ev["t"] = t[i]
        if k == "seat_draw":
            pairs = (("seat", seat[i]), ("awarded_to", player[i]),
                     ("draws", [{"player": p, "card": c} for p, c in zip(draw_players[i] or [], cards[i] or [],
                                                                         strict=False)]))
        elif k == "deal":
            pairs = (("to", target[i]), ("seat", seat[i]), ("cards", cards[i]))
        elif k == "draw":
            pairs = (("seat", seat[i]), ("discard", cards[i]), ("receive", receive[i]))
        elif k == "show":
            pairs = (("seat", seat[i]), ("cards", cards[i]))
        else:
            for key, column in keyed:
                value = column[i]
                if value is not None:
                    ev[key] = value
            out.append(ev)
            continue
        for key, value in pairs:
            if value is not None:
                ev[key] = value
        out.append(ev)
    return out


class HandBatch(Sequence):
    """The hands of one batch of a partition, in order: hands read one by one (SourceHand) and the TableChunks
    of a Parquet range, which reach the replay as the tables they already are. Indexing gives
    a SourceHand either way (a chunk's rebuilt on request: only the few hands a report shows ask)."""

    def __init__(self) -> None:
        self.parts: list[SourceHand | TableChunk] = []
        self._count = 0
        self._starts: list[int] = []

    def append(self, item: SourceHand | TableChunk) -> None:
        self._starts.append(self._count)
        self.parts.append(item)
        self._count += item.num_hands if isinstance(item, TableChunk) else 1

    def clear(self) -> None:
        self.parts.clear()
        self._starts.clear()
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, i):  # type: ignore[no-untyped-def, override]
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        at = int(np.searchsorted(self._starts, i, side="right")) - 1
        part = self.parts[at]
        return part.source(i - self._starts[at]) if isinstance(part, TableChunk) else part

    def tables(self) -> CanonicalTables:
        """The batch's canonical tables: `build_tables` of each run of hands read one by one, the chunks'
        tables as they are, in order (hand renumbered through the batch)."""
        pieces: list[CanonicalTables] = []
        run: list[SourceHand] = []
        for part in self.parts:
            if isinstance(part, TableChunk):
                if run:
                    pieces.append(build_tables(run))
                    run = []
                pieces.append(part.tables)
            else:
                run.append(part)
        if run or not pieces:
            pieces.append(build_tables(run))
        return pieces[0] if len(pieces) == 1 else concat_tables(pieces)

    def files(self) -> list[str]:
        """Each hand's input (its `file`), for the hand periods."""
        out: list[str] = []
        for part in self.parts:
            out.extend(part.files() if isinstance(part, TableChunk) else [part.file])
        return out

    def started_at(self) -> list[object]:
        """Each hand's `started_at` (None where it has none), for the hand periods."""
        out: list[object] = []
        for part in self.parts:
            if isinstance(part, TableChunk):
                out.extend(part.tables.hands["started_at"].to_pylist())
            else:
                out.append(part.hand.get("started_at"))
        return out
