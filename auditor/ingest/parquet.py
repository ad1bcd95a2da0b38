"""The canonical tables as a Parquet dataset: a directory with hands/seats/events.parquet.

Reading goes back through the same per-hand validation as JSON Lines, so a Parquet file written
by someone else gets no easier ride than a log.

Readers record; rules judge (auditor/ingest/__init__.py): a canonical hand is taken as stored, and
only what cannot be a canonical hand is refused, each with its quarantine code: a dataset whose files
pass an input limit (size, decompression ratio: `limit`); a damaged dataset (a footer our own parse
cannot read or whose row counts disagree, data Arrow cannot read: `damaged`); tables without a canonical
column, with one of another type or stored twice (`invalid-record`, for the whole dataset); and, hand by
hand, a hand that breaks the hand-log schema or its consistency, or whose own row in hands.parquet is
missing (`invalid-record`).

The validator's kernels are imported when a dataset is read, not with this module: discovery asks
`is_parquet_dataset` of every input.

Footers are read by `auditor.ingest.parquet_footer`, never through pyarrow's `row_group(i)` / `column(j)`:
Arrow's C++ errors there cannot become Python ones, so a damaged footer would abort the whole process.

Hands are judged by the columnar validator (`auditor.ingest.columnar_validate`), which gives each hand row
the reason jsonschema-rs and `consistency_error` give the hand rebuilt from it, for the whole table at once.
`read_parquet_tables` goes further and gives the valid hands as canonical tables taken from the dataset's
own (`TableChunk`), what the replay reads, without a dict per hand or event; `read_parquet` still gives one
`SourceHand` per hand for the callers that want dicts.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from auditor.ingest.files import bomb_message
from auditor.ingest.jsonl import consistency_error
from auditor.ingest.limits import DEFAULT_LIMITS, Limits
from auditor.ingest.parquet_footer import FooterError, FooterInfo, read_footer
from auditor.ingest.validate import schema_error
from auditor.model.records import QUARANTINE_CODES, Quarantined, SourceHand, printable
from auditor.model.tables import EVENTS_SCHEMA, HANDS_SCHEMA, SEATS_SCHEMA, CanonicalTables

if TYPE_CHECKING:
    from auditor.ingest import columnar_validate

TABLE_FILES = ("hands", "seats", "events")
#: the hands `auditor convert` could not convert, so auditing the dataset reports them again and
#: hands read equals the hands of the original logs; optional (datasets written before it have none)
QUARANTINE_FILE = "quarantined"
QUARANTINE_SCHEMA = pa.schema([("file", pa.string()), ("line", pa.int64()), ("code", pa.string()),
                               ("reason", pa.string()), ("hand_id", pa.string()), ("table_id", pa.string())])


def is_parquet_dataset(path: Path) -> bool:
    return path.is_dir() and all((path / f"{name}.parquet").is_file() for name in TABLE_FILES)


def write_parquet(tables: CanonicalTables, directory: Path, quarantined: Sequence[Quarantined] = ()) -> None:
    """Write the three tables and quarantined.parquet (always, empty too: a rewritten dataset never keeps
    an older run's quarantine file), as `DatasetWriter` writes them."""
    with DatasetWriter(directory) as writer:
        writer.write(tables)
        writer.quarantine(quarantined)


#: the schema of each file of a dataset
_SCHEMAS = {"hands": HANDS_SCHEMA, "seats": SEATS_SCHEMA, "events": EVENTS_SCHEMA, QUARANTINE_FILE: QUARANTINE_SCHEMA}
#: quarantine entries held before they are written as a row group
_QUARANTINE_ROWS = 10_000


class DatasetWriter:
    """A dataset written a batch of hands at a time, in memory bounded by the batch: each `write` appends a row
    group to hands, seats and events.parquet, its `hand` numbers continued from the batches before (the dataset's
    hands are numbered 0.. in order, as if written at once), and quarantine entries are appended as they come.

    Nothing that looks like a dataset exists before `close` has put the whole of one in place: the files are
    written into a hidden folder inside `directory` under names no reader takes (`hands.parquet.partial`), then
    moved into `directory` with an older dataset's hands.parquet removed first and the new one moved last. A
    dataset is recognised by its three table files (`is_parquet_dataset`), so whenever the writing stops (an
    error, Ctrl-C, a kill), `directory` holds the older dataset whole, or no hands.parquet, or the new dataset
    whole; never new seats beside old hands. Used as a context manager, an exception removes the hidden folder
    (a killed process leaves it: `.auditor-writing-*`, never read as a dataset, safe to delete)."""

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.directory = directory
        self.work = Path(tempfile.mkdtemp(prefix=".auditor-writing-", dir=directory))
        self.hands = 0
        self.quarantined = 0
        self._held: list[Quarantined] = []
        self._writers = {name: pq.ParquetWriter(self.work / f"{name}.parquet.partial", schema, compression="zstd")
                         for name, schema in _SCHEMAS.items()}

    def write(self, tables: CanonicalTables) -> None:
        """Append a batch of hands (its `hand` 0..n-1, as every reader and `build_tables` number them)."""
        shift = pa.scalar(self.hands, pa.int32())
        for name in TABLE_FILES:
            table = getattr(tables, name)
            table = table.set_column(0, "hand", pc.add(table["hand"], shift))
            if not table.schema.equals(_SCHEMAS[name]):
                table = table.cast(_SCHEMAS[name])
            self._writers[name].write_table(table)
        self.hands += tables.num_hands

    def quarantine(self, entries: Iterable[Quarantined]) -> None:
        """Append quarantine entries (written a row group at a time)."""
        for entry in entries:
            self._held.append(entry)
            self.quarantined += 1
        if len(self._held) >= _QUARANTINE_ROWS:
            self._flush_quarantine()

    def _flush_quarantine(self) -> None:
        held = self._held
        rows = {"file": [q.file for q in held], "line": [q.line for q in held], "code": [q.code for q in held],
                "reason": [q.reason for q in held], "hand_id": [q.hand_id for q in held],
                "table_id": [q.table_id for q in held]}
        self._writers[QUARANTINE_FILE].write_table(pa.table(rows, schema=QUARANTINE_SCHEMA))
        self._held = []

    def close(self) -> None:
        """Finish the files and put the dataset in place (see the class docstring), hands.parquet last."""
        if self._held:
            self._flush_quarantine()
        for writer in self._writers.values():
            writer.close()
        (self.directory / "hands.parquet").unlink(missing_ok=True)
        for name in (QUARANTINE_FILE, "events", "seats", "hands"):
            os.replace(self.work / f"{name}.parquet.partial", self.directory / f"{name}.parquet")
        self.work.rmdir()

    def abort(self) -> None:
        """Stop: the hidden folder and what was written into it are removed; `directory` is as it was."""
        for writer in self._writers.values():
            with contextlib.suppress(Exception):
                writer.close()
        shutil.rmtree(self.work, ignore_errors=True)

    def __enter__(self) -> DatasetWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if kind is None:
            self.close()
        else:
            self.abort()


def dataset_files(directory: Path) -> list[str]:
    """The table files of a dataset that are to be read: the three tables, and quarantined.parquet when
    the dataset has one."""
    optional = [QUARANTINE_FILE] if (directory / f"{QUARANTINE_FILE}.parquet").is_file() else []
    return [*TABLE_FILES, *optional]


def read_quarantined(directory: Path) -> Iterator[Quarantined]:
    """The quarantine entries `convert` stored, each again a Quarantined with its code, positioned at its row
    of quarantined.parquet (1-based) and saying where convert met it. The stored text is the dataset's
    claim, attacker-chosen like any input: it is escaped, and a code that is not a known one is not trusted
    (the entry is `invalid-record`). Call after `dataset_refusal`, which holds the file to the limits."""
    path = directory / f"{QUARANTINE_FILE}.parquet"
    if not path.is_file():
        return
    name = str(path)
    try:
        rows = conform_table(read_canonical_columns(path, QUARANTINE_FILE), QUARANTINE_FILE).to_pylist()
    except Exception as exc:  # one reason for the file, as for the dataset
        yield Quarantined(name, 0, f"unreadable quarantine table: {' '.join(str(exc).split())[:300]}",
                          code=failure_code(exc))
        return
    for row_no, row in enumerate(rows, start=1):
        file = printable(row["file"]) if isinstance(row["file"], str) else "?"
        where = f"{file}:{row['line']}" if isinstance(row["line"], int) else file
        reason = printable(row["reason"]) if isinstance(row["reason"], str) else "no reason stored"
        code = row["code"]
        if code not in QUARANTINE_CODES:
            reason = f"{reason} (stored code {printable(str(code))!r} is not a quarantine code)"
            code = "invalid-record"
        hand_id, table_id = row["hand_id"], row["table_id"]
        yield Quarantined(name, row_no, f"not converted from {where}: {reason}",
                          printable(hand_id) if isinstance(hand_id, str) else None, code=code,
                          table_id=table_id if isinstance(table_id, str) else None)


def _strip(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


def _event(row: dict[str, Any]) -> dict[str, Any]:
    kind = row["kind"]
    ev: dict[str, Any] = {"kind": kind, "t": row["t"]}
    if kind == "seat_draw":
        ev.update(seat=row["seat"], awarded_to=row["player"],
                  draws=[{"player": p, "card": c} for p, c in zip(row["draw_players"] or [], row["cards"] or [],
                                                                   strict=False)])
    elif kind == "deal":
        ev.update(to=row["target"], seat=row["seat"], cards=row["cards"])
    elif kind == "draw":
        ev.update(seat=row["seat"], discard=row["cards"], receive=row["receive"])
    elif kind == "show":
        ev.update(seat=row["seat"], cards=row["cards"])
    else:
        for key in ("seat", "player", "action", "post", "blind", "amount", "to", "all_in", "pot", "from_seat"):
            ev[key] = row.get(key)
    return _strip(ev)


class SchemaFault(ValueError):
    """A table that is not the canonical table: a column missing, of another type, or stored twice."""


def failure_code(exc: BaseException) -> str:
    """The quarantine code for an exception that stopped a whole dataset (or range) from being read: running
    out of memory (Arrow's too) is a limit passed, not damage (the decoded-size check should have come
    first; this is the case it did not foresee)."""
    if isinstance(exc, MemoryError):
        return "limit"
    return "invalid-record" if isinstance(exc, SchemaFault) else "damaged"


def dataset_problem(directory: Path, limits: Limits) -> str | None:
    """Why a dataset is refused before its data is read (from the files' sizes and Parquet footers), or None.
    `read_parquet` asks it first; a streamed dataset is judged by `stream_refusal` and per range instead.

    Parquet columns are compressed, so the footer's uncompressed sizes are held to the same limits as
    gzip and zip input: a small file that would unpack to gigabytes is a decompression bomb.
    """
    refusal = dataset_refusal(directory, limits)
    return refusal[1] if refusal else None


def dataset_refusal(directory: Path, limits: Limits) -> tuple[str, str] | None:
    """`dataset_problem` with its quarantine code: (code, reason), or None.

    Two sizes are judged against the limits: what the footer says the pages unpack to, and what the
    canonical columns *decode* to (`decoded_bytes`). The second is the one that costs memory: a
    dictionary page of one 1 MiB string shared by every row, or a million run-length-encoded values,
    are small pages (they pass the first check) that decode to gigabytes.
    """
    total = 0
    for table in dataset_files(directory):
        path = directory / f"{table}.parquet"
        size = path.stat().st_size
        if size > limits.max_file_bytes:
            return "limit", f"{table}.parquet is larger than {limits.max_file_bytes} bytes (limit max_file_bytes)"
        problem = _footer_problem(path, table, limits)
        if problem is not None:
            return problem
        unpacked = sum(group.total_byte_size for group in parsed_footer(path, limits).row_groups)
        problem = bomb_message(unpacked, size, limits)
        if problem:
            return "limit", f"{table}.parquet {problem}"
        decoded = decoded_bytes(path, table, limits)
        if isinstance(decoded, str):
            return "limit", f"{table}.parquet {decoded}"
        problem = bomb_message(decoded, size, limits)
        if problem:
            return "limit", f"{table}.parquet (its columns decoded) {problem}"
        total += max(unpacked, decoded)
        if total > limits.max_unpacked_bytes:
            return "limit", (f"the dataset unpacks to more than {limits.max_unpacked_bytes} bytes (limit "
                             "max_unpacked_bytes)")
    return None


def _footer_problem(path: Path, table: str, limits: Limits) -> tuple[str, str] | None:
    """A footer too large to parse, or one whose row counts disagree, as (code, reason): both readers ask."""
    footer = footer_bytes(path)
    if footer is not None and footer > limits.parquet_max_footer_bytes:
        return "limit", (f"{table}.parquet has a footer of {footer} bytes, over {limits.parquet_max_footer_bytes} "
                         "(limit parquet_max_footer_bytes)")
    try:
        meta = parsed_footer(path, limits)
    except FooterError as exc:
        return "damaged", f"{table}.parquet is damaged: {exc}"
    in_groups = sum(group.num_rows for group in meta.row_groups)
    if in_groups != meta.num_rows:
        # a damaged footer: Arrow reads as many rows as one count says and drops the rest unsaid
        return "damaged", (f"{table}.parquet is damaged: its footer counts {meta.num_rows} rows, its row "
                           f"groups {in_groups}")
    return None


def parsed_footer(path: Path, limits: Limits) -> FooterInfo:
    """The file's footer as our own parse reads it (`auditor.ingest.parquet_footer`), never pyarrow's
    `row_group(i)` / `column(j)`: those build C++ metadata whose errors on a damaged footer abort the
    process (SIGABRT) instead of raising. FooterError (a ValueError: `damaged`) when it cannot be read."""
    return read_footer(path, limits.parquet_max_footer_bytes)


def footer_bytes(path: Path) -> int | None:
    """The length of a Parquet file's footer, from its last eight bytes (length, then `PAR1`), or None when
    they are not a Parquet ending (Arrow then says what is wrong)."""
    with path.open("rb") as file:
        if path.stat().st_size < 12:
            return None
        file.seek(-8, 2)
        tail = file.read(8)
    return int.from_bytes(tail[:4], "little") if tail[4:] == b"PAR1" else None


#: Parquet encodings whose decoded size the footer bounds (a value, a level or a dictionary index per
#: footer-counted value; byte arrays written out in full). DELTA_BYTE_ARRAY stores each string as a
#: prefix shared with the one before it, so a few bytes can stand for any length: it is refused.
_BOUNDED_ENCODINGS = frozenset({"PLAIN", "RLE", "BIT_PACKED", "PLAIN_DICTIONARY", "RLE_DICTIONARY",
                                "DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY", "BYTE_STREAM_SPLIT"})
_DICTIONARY_ENCODINGS = frozenset({"PLAIN_DICTIONARY", "RLE_DICTIONARY"})
#: Arrow bytes per value of each Parquet physical type, besides a string's own bytes (its offset is 4)
_WIDTH = {"BOOLEAN": 1, "INT32": 4, "INT64": 8, "INT96": 12, "FLOAT": 4, "DOUBLE": 8, "BYTE_ARRAY": 4}


def decoded_bytes(path: Path, table: str, limits: Limits = DEFAULT_LIMITS) -> int | str:
    """What the canonical columns of table file `table` decode to in Arrow, in bytes (an upper bound for
    fixed-width values, exact for dictionary-encoded strings), or why it cannot be bounded (a str).

    The footer gives the number of values of each column chunk, so run-length-encoded numbers cost
    their Arrow width each whatever their pages hold. A dictionary-encoded string column is read as a
    dictionary (its indices and distinct values only, never the decoded strings) and its decoded length
    summed column-wise: one shared 1 MiB value in 3,000 rows is 3 GiB, refused before any row is built.
    The numbers are checked first, so the indices read to measure the strings are bounded too.
    """
    schema, _ = SCHEMAS[table]
    meta = parsed_footer(path, limits)
    wanted = set(schema.names)
    fixed = 0
    plain_bytes = 0
    measured: dict[str, list[int]] = defaultdict(list)  # column path -> row groups to measure
    for i in range(meta.num_row_groups):
        footprint = group_footprint(meta, i, wanted)
        if isinstance(footprint, str):
            return footprint
        fixed += footprint.fixed
        plain_bytes += footprint.plain
        for column_path in footprint.dictionary_columns:
            measured[column_path].append(i)
    problem = bomb_message(fixed, path.stat().st_size, limits)
    if problem:
        return f"holds values that {problem.replace('unpacks', 'decode', 1)}"
    strings = 0
    if measured:
        reader = pq.ParquetFile(path, read_dictionary=list(measured))
        for column_path, groups in measured.items():
            top = column_path.split(".", 1)[0]
            # flat columns a few row groups at a time (one read per group costs a footer of thousands of
            # groups seconds); Arrow reads a list of dictionaries one row group at a time only
            step = 1 if "." in column_path else 64
            for at in range(0, len(groups), step):
                strings += _dictionary_decoded(reader.read_row_groups(groups[at:at + step], columns=[top]).column(0))
                if fixed + plain_bytes + strings > limits.max_unpacked_bytes:
                    return (f"column {top} decodes to more than {limits.max_unpacked_bytes} bytes (limit "
                            "max_unpacked_bytes; refused as a decompression bomb)")
    return fixed + plain_bytes + strings


@dataclass(frozen=True)
class GroupFootprint:
    """What the footer says one row group's canonical columns cost decoded, before any page is read."""

    #: Arrow bytes of every value (a string's offset included), from the footer's value counts
    fixed: int
    #: bytes of the strings written out in full (plain encodings): the footer's uncompressed size
    plain: int
    #: the dictionary-encoded string columns, whose decoded length only their indices tell
    dictionary_columns: tuple[str, ...]
    #: the row group's compressed bytes (all its columns), what the ratio is judged against
    packed: int
    #: the footer's uncompressed size of the row group's pages
    unpacked: int


def group_footprint(meta: FooterInfo, i: int, wanted: set[str]) -> GroupFootprint | str:
    """Row group `i`'s footprint (columns whose top-level name is in `wanted`), or why the decoded size of one
    of its string columns cannot be bounded before decoding (a str). Footer only: nothing of the data is read."""
    group = meta.row_groups[i]
    fixed = plain = packed = 0
    dictionary: list[str] = []
    for chunk in group.columns:
        packed += chunk.total_compressed_size
        column_path = chunk.path_in_schema
        if column_path.split(".", 1)[0] not in wanted:
            continue  # never read (read_canonical_columns, the range reader's columns)
        fixed += chunk.num_values * _WIDTH.get(chunk.physical_type, 8)
        if chunk.physical_type not in ("BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"):
            continue
        encodings = set(chunk.encodings)
        strange = sorted(encodings - _BOUNDED_ENCODINGS)
        if strange:
            return (f"column {column_path} uses encoding {', '.join(strange)}, whose decoded size cannot be "
                    "bounded before decoding (limit max_unpacked_bytes; refused; write it with plain or "
                    "dictionary encoding)")
        if encodings & _DICTIONARY_ENCODINGS:
            dictionary.append(column_path)
        else:
            plain += chunk.total_uncompressed_size
    return GroupFootprint(fixed, plain, tuple(dictionary), packed, group.total_byte_size)


def stream_refusal(directory: Path, limits: Limits) -> tuple[str, str] | None:
    """What the driver of a streamed (ranged) read refuses a dataset for, from its footers only: (code, reason)
    or None. `dataset_refusal` is for a dataset read whole; a streamed one holds in memory only what one
    range reads, so the decoded sizes are judged per range by the range reader (`range_refusal` in
    `auditor.engines.parquet_ranges`), in the worker, over just the row groups it reads. Here: each footer's
    size, its row counts, every row group's string encodings (one that cannot be bounded), and every row
    group's footer sizes against the size and ratio limits. Whole-file `max_file_bytes` does not apply: a
    table file is never held whole on this path. Cost: the footers, nothing that grows with the data."""
    for table in dataset_files(directory):
        path = directory / f"{table}.parquet"
        problem = _footer_problem(path, table, limits)
        if problem is not None:
            return problem
        meta = parsed_footer(path, limits)
        wanted = set(SCHEMAS[table][0].names)
        for i in range(meta.num_row_groups):
            footprint = group_footprint(meta, i, wanted)
            if isinstance(footprint, str):
                return "limit", f"{table}.parquet row group {i}: {footprint}"
            problem = bomb_message(max(footprint.unpacked, footprint.fixed + footprint.plain), footprint.packed, limits)
            if problem:
                return "limit", f"{table}.parquet row group {i} {problem}"
    return None


def groups_decoded(path: Path, groups: Sequence[int], columns: Sequence[str], together: bool = False,
                   read: dict[int, pa.Table] | None = None) -> dict[int, int]:
    """The decoded bytes of the dictionary-encoded string `columns` (paths in the schema) of each of `groups`,
    read as dictionaries (indices and distinct values, never the strings): the measure of `decoded_bytes`,
    over only the row groups a range reads. One row group at a time (Arrow reads a list of dictionaries
    no other way), or with `together` (flat columns only) all in one read, the sum given under the first
    group. Call it only on row groups whose footprint passed: their value counts bound the indices read.
    With `read` (not with `together`), each row group's columns as read (dictionaries) are put there by group,
    for a reader that decodes them once the measure has passed (`parquet_ranges`: the pages are then
    decompressed once, not once to measure and again to read)."""
    if not columns or not groups:
        return dict.fromkeys(groups[:1] if together else groups, 0)
    tops = list(dict.fromkeys(c.split(".", 1)[0] for c in columns))
    reader = pq.ParquetFile(path, read_dictionary=list(columns))
    if together:
        table = reader.read_row_groups(list(groups), columns=tops)
        return {groups[0]: sum(_dictionary_decoded(table.column(c)) for c in tops)}
    out: dict[int, int] = {}
    for i in groups:
        table = reader.read_row_group(i, columns=tops)
        out[i] = sum(_dictionary_decoded(table.column(c)) for c in tops)
        if read is not None:
            read[i] = table
    return out


def _dictionary_decoded(column: pa.ChunkedArray) -> int:
    """Bytes the strings of a column read as dictionaries decode to (lists flattened to their values)."""
    total = 0
    for chunk in column.chunks:
        while isinstance(chunk, pa.ListArray | pa.LargeListArray):
            chunk = chunk.flatten()
        if not isinstance(chunk, pa.DictionaryArray):
            total += chunk.nbytes
            continue
        lengths = pc.fill_null(pc.binary_length(chunk.dictionary), 0)
        if len(chunk.indices) and len(lengths):
            total += _indexed_length(lengths, chunk.indices)
    return total


def _indexed_length(lengths: pa.Array, indices: pa.Array) -> int:
    """The sum of `lengths[i]` over the (non-null) `indices`: how often each entry is used (a bincount over
    the indices as they are in memory) times its length, instead of a gathered array as long as the column.
    An index outside the dictionary is left to `pc.take`, which refuses it as before."""
    used = indices.drop_null().to_numpy(zero_copy_only=False)
    if len(used) and (int(used.min()) < 0 or int(used.max()) >= len(lengths)):
        return int(pc.sum(pc.take(lengths, indices)).as_py() or 0)
    counts = np.bincount(used.astype(np.intp, copy=False), minlength=len(lengths))
    return int(counts @ lengths.to_numpy(zero_copy_only=False).astype(np.int64))


#: the canonical schema of each table file, and the columns a dataset may lack (older `convert` output)
SCHEMAS: dict[str, tuple[pa.Schema, tuple[str, ...]]] = {
    "hands": (HANDS_SCHEMA, ("file", "line", "money_scale")), "seats": (SEATS_SCHEMA, ()),
    "events": (EVENTS_SCHEMA, ()), QUARANTINE_FILE: (QUARANTINE_SCHEMA, ("hand_id", "table_id")),
}


def read_canonical_columns(path: Path, name: str) -> pa.Table:
    """The canonical columns of table file `name` that are present; other columns are not read.

    A column the schema does not know is ignored whatever it holds (even a name used twice, which
    Arrow cannot select by); a canonical column stored twice is ambiguous and refused (ValueError).
    """
    schema, _ = SCHEMAS[name]
    found = pq.read_schema(path)
    for f in schema:
        if len(found.get_all_field_indices(f.name)) > 1:
            raise SchemaFault(f"{name}.parquet: column {f.name} appears more than once")
    # ParquetFile, not read_table: the dataset layer behind read_table fails on a name used twice even
    # when that column is not asked for (seen on empty files)
    with pq.ParquetFile(path) as file:
        return file.read(columns=[f.name for f in schema if f.name in found.names])


def conform_table(table: pa.Table | pa.RecordBatch, name: str) -> pa.Table:
    """Table `name` ("hands", "seats" or "events") with exactly its canonical columns and types (absent
    optional ones as nulls), or ValueError naming the column. Whoever wrote the file, every later step
    can then rely on each column being there with its type: use it on anything read from a dataset."""
    schema, optional = SCHEMAS[name]
    if isinstance(table, pa.RecordBatch):
        table = pa.Table.from_batches([table])
    return _canonical(table, schema, optional, f"{name}.parquet")


def _canonical(table: pa.Table, schema: pa.Schema, optional: tuple[str, ...], what: str) -> pa.Table:
    columns = []
    for f in schema:
        if f.name in table.column_names:
            column = table[f.name]
            if column.type != f.type:
                try:
                    column = column.cast(f.type)
                except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as exc:
                    raise SchemaFault(f"{what}: column {f.name} has type {column.type}, not {f.type} "
                                     f"({' '.join(str(exc).split())[:120]})") from exc
        elif f.name in optional:
            column = pa.nulls(table.num_rows, f.type)
        else:
            raise SchemaFault(f"{what}: no column {f.name}")
        columns.append(column)
    return pa.table(columns, schema=schema)


def read_parquet(directory: Path, limits: Limits = DEFAULT_LIMITS) -> Iterator[SourceHand | Quarantined]:
    """Rebuild each hand from the three tables and validate it like any other input.

    A hand's position is the dataset and its row number in hands.parquet (1-based); the source file and
    line a dataset stores (`auditor convert` writes them) are kept as claimed provenance
    (`SourceHand.claimed_file` / `claimed_line`), never trusted as the input. A dataset
    whose tables lack a canonical column or hold one of another type is quarantined as a whole, with
    the column named; one hand that cannot be rebuilt is quarantined alone, and so is each hand number
    that has seat or event rows but no row in hands.parquet.
    """
    name = str(directory)
    try:
        refusal = dataset_refusal(directory, limits)
        if refusal:
            yield Quarantined(name, 0, f"refused Parquet dataset: {refusal[1]}", code=refusal[0])
            return
        tables = [conform_table(read_canonical_columns(directory / f"{table}.parquet", table), table)
                  for table in TABLE_FILES]
        reasons = judged(*tables)
        hands, seats, events = (table.to_pylist() for table in tables)
    except Exception as exc:  # any Arrow/IO failure is one reason for the whole dataset
        yield Quarantined(name, 0, f"unreadable Parquet dataset: {' '.join(str(exc).split())[:300]}",
                          code=failure_code(exc))
        return
    seats_by_hand: dict[int, list] = defaultdict(list)
    for row in seats:
        seats_by_hand[row["hand"]].append(_strip({k: row[k] for k in ("seat", "player", "stack", "status")}))
    events_by_hand: dict[int, list] = defaultdict(list)
    for row in sorted(events, key=lambda r: (_order(r["hand"]), _order(r["seq"]))):
        events_by_hand[row["hand"]].append(_event(row))
    for row_no, h in enumerate(hands, start=1):
        reason = UNJUDGED if reasons is None else reasons[row_no - 1]
        yield rebuild_hand(h, row_no, name, seats_by_hand, events_by_hand, reason)
    yield from _orphans(name, {h["hand"] for h in hands}, seats_by_hand, events_by_hand)
    yield from read_quarantined(directory)


#: `rebuild_hand`'s reason when no columnar verdict is at hand: the hand is judged by jsonschema-rs itself
UNJUDGED = "unjudged"


#: the last few failures of the columnar validator itself (type and message), each a bug of ours that cost
#: speed only (the hands were judged one by one instead); the tests and the fuzzer expect none
VALIDATOR_FAILURES: list[str] = []


def _validator_failed(exc: Exception) -> None:
    VALIDATOR_FAILURES.append(f"{type(exc).__name__}: {str(exc)[:200]}")
    del VALIDATOR_FAILURES[:-20]


def judged(hands: pa.Table, seats: pa.Table, events: pa.Table) -> list[str | None] | None:
    """The columnar validator's reason for each hands row (None: valid), or None should the validator itself
    fail on tables no test foresaw: the hands are then judged one by one by jsonschema-rs, as before it
    existed, so a fault of ours costs speed, never a verdict (and is kept in VALIDATOR_FAILURES)."""
    from auditor.ingest import columnar_validate

    try:
        return columnar_validate.validate(hands, seats, events).reasons
    except Exception as exc:
        _validator_failed(exc)
        return None


def _orphans(name: str, known: set, seats_by_hand: dict, events_by_hand: dict) -> Iterator[Quarantined]:
    """Seat and event rows of a hand number hands.parquet does not have: a hand whose own row is
    missing (deleted, or never written). It cannot be rebuilt, and it must not vanish unseen: one
    quarantine entry per such hand number."""
    for number in sorted((set(seats_by_hand) | set(events_by_hand)) - known, key=_order):
        what = f"hand number {number}" if number is not None else "rows with no hand number"
        yield Quarantined(name, 0, f"{what}: {len(seats_by_hand.get(number, []))} seat row(s) and "
                                   f"{len(events_by_hand.get(number, []))} event row(s), but no row in "
                                   f"hands.parquet (the hand's own row is missing)", code="invalid-record")


def _order(value: int | None) -> int:
    """Sort key for a nullable index: rows with no hand or sequence number sort first."""
    return -(1 << 62) if value is None else value


def rebuild_hand(h: dict[str, Any], row_no: int, name: str, seats_by_hand: dict[int, list],
                 events_by_hand: dict[int, list], reason: str | None = UNJUDGED) -> SourceHand | Quarantined:
    """One row of a conformed hands table, with its seats and events, as a validated hand or a quarantine
    (both Parquet readers use it); `reason` is the columnar verdict on the row (None: valid), or UNJUDGED
    to have jsonschema-rs judge the rebuilt hand. It never raises: a value no check foresaw quarantines
    this hand alone and the dataset goes on."""
    try:
        return _rebuild(h, row_no, name, seats_by_hand, events_by_hand, reason)
    except BaseException as exc:  # a Rust extension's panic (pyo3 PanicException) is a BaseException
        if isinstance(exc, KeyboardInterrupt | SystemExit | GeneratorExit):
            raise
        return Quarantined(name, row_no, f"reader error: {type(exc).__name__}: {exc}",
                           h["hand_id"] if isinstance(h.get("hand_id"), str) else None, code="internal-error",
                           table_id=h["table_id"] if isinstance(h.get("table_id"), str) else None)


def _rebuild(h: dict[str, Any], row_no: int, name: str, seats_by_hand: dict[int, list],
             events_by_hand: dict[int, list], reason: str | None = UNJUDGED) -> SourceHand | Quarantined:
    hand = _hand_dict(h, seats_by_hand, events_by_hand)
    error = (schema_error(hand) or consistency_error(hand)) if reason == UNJUDGED else reason
    if error:
        return Quarantined(name, row_no, error, h["hand_id"], code="invalid-record", table_id=h["table_id"])
    # The dataset is its own input: its hands are counted, found and replayed as the dataset's rows. The
    # file and line it stores (written by `auditor convert`) are only what the dataset *claims*: anyone
    # can write a dataset that says its hands come from `real.jsonl`, so they never stand for the input.
    return SourceHand(hand, name, row_no, **claimed_source(h))


def _hand_dict(h: dict[str, Any], seats_by_hand: dict[int, list], events_by_hand: dict[int, list]) -> dict[str, Any]:
    """The canonical hand a hands row stands for, with its seats and events (nulls are absent keys)."""
    stakes = _strip({"blinds": h["blinds"], "ante": h["ante"] or None, "bet_units": h["bet_units"] or None,
                     "table_min": h["table_min"], "table_max": h["table_max"], "chip_unit": h["chip_unit"]})
    if h["spread_min"]:
        stakes["spread"] = [{"min": a, "max": b} for a, b in zip(h["spread_min"], h["spread_max"] or [],
                                                                  strict=False)]
    hand = _strip({
        "hand_id": h["hand_id"], "table_id": h["table_id"], "room": h["room"], "started_at": h["started_at"],
        "variant": h["variant"], "structure": h["structure"], "rule_pack": h["rule_pack"],
        "currency": h["currency"], "money_scale": h["money_scale"], "max_seats": h["max_seats"], "stakes": stakes,
        "seats": seats_by_hand.get(h["hand"], []) if h["hand"] is not None else [],
        "events": events_by_hand.get(h["hand"], []) if h["hand"] is not None else [],
    })
    return hand


def claimed_source(h: dict[str, Any]) -> dict[str, Any]:
    """The provenance a dataset row claims (its `file` and `line` columns), as SourceHand's fields."""
    file, line = h.get("file"), h.get("line")
    return {"claimed_file": file if isinstance(file, str) and file else None,
            "claimed_line": line if isinstance(line, int) and not isinstance(line, bool) else None}


# ------------------------------------------------------------------------------ tables straight through


@dataclass(frozen=True, eq=False)
class TableChunk:
    """The valid hands of a stretch of a dataset as canonical tables, taken from the dataset's own
    rows with no dict per hand or event: `tables` is what `build_tables` makes of the same hands read one
    by one (`tests/test_parquet_tables.py` holds them equal), `hand` 0..n-1 in row order, `file` the dataset
    (as `SourceHand.file`), `line` each hand's row number in hands.parquet. `claimed_file`/`claimed_line`
    are what each row claims (`read_parquet`). `file` and `line` (the last hand's) let `detect.contained`
    place a reader error after the chunk as after any item."""

    tables: CanonicalTables
    file: str
    claimed_file: list[str | None]
    claimed_line: list[int | None]
    #: the rows the hands came from, to rebuild a hand's dict on request (`source`): hands rows, and for
    #: each hand the span of its rows in `_seat_rows` / `_event_rows` (positions in `_seats` / `_events`)
    _hands: pa.Table
    _seats: pa.Table
    _seat_rows: np.ndarray
    _seat_spans: np.ndarray
    _events: pa.Table
    _event_rows: np.ndarray
    _event_spans: np.ndarray
    #: the hands themselves, when they were judged one by one (`validated_chunk`'s fallback)
    _given: Sequence[SourceHand] | None = None
    #: the refused hands of the same stretch of rows, in row order: a reader that gives the chunk as one
    #: item gives them with it, so the run records them (and breaks their tables' chains) before the
    #: chunk's hands replay, in the order a hand-by-hand reader gives them
    quarantined: tuple[Quarantined, ...] = ()
    #: each hand's input when they are not all `file`'s (a batch of `.phh` files: `phh_tables`), else None
    hand_files: Sequence[str] | None = None

    def files(self) -> Sequence[str]:
        """Each hand's input (`SourceHand.file`)."""
        return self.hand_files if self.hand_files is not None else [self.file] * self.num_hands

    @property
    def num_hands(self) -> int:
        return self.tables.num_hands

    @property
    def line(self) -> int:
        lines = self.tables.hands["line"]
        last = int(lines[len(lines) - 1].as_py()) if len(lines) else 0
        return max(last, self.quarantined[-1].line) if self.quarantined else last

    def renamed(self, file: str, reword: Callable[[str], str]) -> TableChunk:
        """The chunk as read from `file` (an archive member or a FIFO read through a copy): its hands, their
        sources and its quarantine entries named so, `reword` applied to the entries' reasons."""
        hands = self.tables.hands
        names = hands.schema.names
        hands = hands.set_column(names.index("file"), "file", pa.repeat(pa.scalar(file, pa.string()), hands.num_rows))
        given = self._given.renamed(file) if hasattr(self._given, "renamed") else self._given
        quarantined = tuple(replace(q, file=file, reason=reword(q.reason)) for q in self.quarantined)
        return replace(self, tables=CanonicalTables(hands, self.tables.seats, self.tables.events), file=file,
                       _given=given, quarantined=quarantined)

    def source(self, i: int) -> SourceHand:
        """Hand `i` as `read_parquet` gives it (its dict rebuilt from the dataset's rows; for the few hands a
        report shows, never on the audit's path)."""
        if self._given is not None:
            return self._given[i]
        h = self._hands.slice(i, 1).to_pylist()[0]
        seats = self._seats.take(self._seat_rows[self._seat_spans[i]:self._seat_spans[i + 1]]).to_pylist()
        events = self._events.take(self._event_rows[self._event_spans[i]:self._event_spans[i + 1]]).to_pylist()
        number = h["hand"]
        hand = _hand_dict(h, {number: [_strip({k: s[k] for k in ("seat", "player", "stack", "status")})
                                       for s in seats]}, {number: [_event(e) for e in events]})
        return SourceHand(hand, self.file, int(self.tables.hands["line"][i].as_py()), **claimed_source(h))

    def sources(self) -> Sequence[SourceHand]:
        """The hands as a sequence of SourceHand, each rebuilt only when asked for."""
        return _Sources(self)

    def split(self, k: int) -> tuple[TableChunk, TableChunk | None]:
        """The first `k` hands and the rest (None when none is left); the quarantine stays with the first."""
        if k >= self.num_hands:
            return self, None
        first = np.arange(self.num_hands) < k
        head, rest = self.without(~first), self.without(first)
        assert head is not None and rest is not None
        return head, replace(rest, quarantined=())

    def batch_cut(self, batched: int, events: int, batch_size: int, max_events: int,
                  dense: tuple[int, int] | None = None) -> tuple[int, int, bool]:
        """Where a batch holding `batched` hands of `events` events is full, had this chunk's hands been added
        one by one (full at `batch_size` hands or `max_events` events, or, with `dense` = (events, per hand),
        at that many events once the batch's hands average more than `per hand` events each): (hands of the
        chunk it takes, its events then, whether it is full)."""
        per_hand = np.bincount(self.tables.events["hand"].to_numpy(zero_copy_only=False).astype(np.int64),
                               minlength=self.num_hands)
        total = events + np.cumsum(per_hand)
        count = batched + np.arange(1, self.num_hands + 1)
        full = (count >= batch_size) | (total >= max_events)
        if dense is not None:
            full |= (total >= dense[0]) & (total > dense[1] * count)
        if not full.any():
            return self.num_hands, int(total[-1]), False
        cut = int(np.argmax(full)) + 1
        return cut, int(total[cut - 1]), True

    def without(self, drop: np.ndarray) -> TableChunk | None:
        """The chunk without the hands where `drop` is true (None if none is left): a hand the run cannot
        audit (its declared pack cannot be loaded) leaves with its seats and events."""
        keep = ~np.asarray(drop, dtype=bool)
        if keep.all():
            return self
        if not keep.any():
            return None
        kept = np.flatnonzero(keep)
        given = (None if self._given is None else self._given.take(kept) if hasattr(self._given, "take")  # lazy
                 else [self._given[i] for i in kept])
        seat_rows, seat_spans = _respan(self._seat_rows, self._seat_spans, kept)
        event_rows, event_spans = _respan(self._event_rows, self._event_spans, kept)
        file = self.file if self.hand_files is None else self.hand_files[int(kept[0])]
        return TableChunk(self.tables.keep(keep), file, [self.claimed_file[i] for i in kept],
                          [self.claimed_line[i] for i in kept], self._hands.take(kept) if self._hands.num_rows else
                          self._hands, self._seats, seat_rows, seat_spans, self._events, event_rows, event_spans,
                          given, self.quarantined,
                          None if self.hand_files is None else [self.hand_files[i] for i in kept])


def _respan(rows: np.ndarray, spans: np.ndarray, kept: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows and span offsets of the kept hands only."""
    if not len(spans):
        return rows, spans
    start, stop = spans[kept], spans[kept + 1]
    counts = stop - start
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    owner = np.repeat(np.arange(len(kept)), counts)
    at = np.repeat(start, counts) + (np.arange(int(offsets[-1]), dtype=np.int64) - offsets[owner])
    return rows[at], offsets


class _Sources(Sequence):
    def __init__(self, chunk: TableChunk) -> None:
        self.chunk = chunk

    def __len__(self) -> int:
        return self.chunk.num_hands

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self.chunk.source(k) for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self.chunk.source(i)


def validated_chunk(name: str, first_row: int, hands: pa.Table, seats: pa.Table,
                    events: pa.Table) -> tuple[list[Quarantined], TableChunk | None]:
    """Conformed rows of a dataset (hands rows numbered from `first_row` + 1; their seats and events, any
    order) as the quarantine entries of the refused hands, in row order, and the valid hands as one
    TableChunk (None if no hand is valid). Give the quarantines to the run before the chunk: a refused
    hand breaks its table's chain (`TableState.break_chain`) by line, before the hands after it replay.

    Should the columnar validator fail on tables no test foresaw, the hands are judged one by one as
    before (`read_parquet`'s way), so that a fault of ours costs speed, never a verdict.
    """
    from auditor.ingest import columnar_validate

    try:
        verdicts = columnar_validate.validate(hands, seats, events)
    except Exception as exc:
        _validator_failed(exc)
        return _judged_one_by_one(name, first_row, hands, seats, events)
    refused = np.flatnonzero(~verdicts.valid)
    quarantined = []
    if len(refused):  # the ids of the refused rows only (a Python string per hand costs 0.3 µs a hand)
        hand_ids = hands["hand_id"].take(pa.array(refused)).to_pylist()
        table_ids = hands["table_id"].take(pa.array(refused)).to_pylist()
        quarantined = [Quarantined(name, first_row + int(r) + 1, verdicts.reasons[r], hand_id, code="invalid-record",
                                   table_id=table_id) for r, hand_id, table_id in zip(refused, hand_ids, table_ids,
                                                                                       strict=True)]
    if not verdicts.valid.any():
        return quarantined, None
    return quarantined, _chunk(name, first_row, hands, seats, _take(events, verdicts.event_order), verdicts)


def one_item(name: str, quarantined: list[Quarantined], chunk: TableChunk | None) -> TableChunk:
    """`validated_chunk`'s result as one reader item: the chunk (empty if no hand was valid) carrying the
    quarantine entries."""
    if chunk is None:
        from auditor.ingest.tables import build_tables

        empty = np.zeros(0, np.int64)
        chunk = TableChunk(build_tables([]), name, [], [], HANDS_SCHEMA.empty_table(), SEATS_SCHEMA.empty_table(),
                           empty, np.zeros(1, np.int64), EVENTS_SCHEMA.empty_table(), empty, np.zeros(1, np.int64))
    return replace(chunk, quarantined=tuple(quarantined))


def _take(table: pa.Table, rows: np.ndarray) -> pa.Table:
    """`table.take(rows)`, or the table itself when `rows` are all its rows in order (the usual case: a
    dataset `convert` wrote holds each hand's rows together and in order), which saves copying them."""
    if len(rows) == table.num_rows and (len(rows) == 0 or (rows[0] == 0 and bool((np.diff(rows) == 1).all()))):
        return table
    return table.take(rows)


def _judged_one_by_one(name: str, first_row: int, hands: pa.Table, seats: pa.Table,
                       events: pa.Table) -> tuple[list[Quarantined], TableChunk | None]:
    from auditor.ingest.tables import build_tables

    seats_by_hand: dict[int, list] = defaultdict(list)
    for row in seats.to_pylist():
        seats_by_hand[row["hand"]].append(_strip({k: row[k] for k in ("seat", "player", "stack", "status")}))
    events_by_hand: dict[int, list] = defaultdict(list)
    for row in sorted(events.to_pylist(), key=lambda r: (_order(r["hand"]), _order(r["seq"]))):
        events_by_hand[row["hand"]].append(_event(row))
    items = [rebuild_hand(h, first_row + i + 1, name, seats_by_hand, events_by_hand)
             for i, h in enumerate(hands.to_pylist())]
    good = [item for item in items if isinstance(item, SourceHand)]
    quarantined = [item for item in items if isinstance(item, Quarantined)]
    if not good:
        return quarantined, None
    empty = np.zeros(0, np.int64)
    chunk = TableChunk(build_tables(good), name, [g.claimed_file for g in good], [g.claimed_line for g in good],
                       hands.slice(0, 0), seats.slice(0, 0), empty, empty, events.slice(0, 0), empty, empty, good)
    return quarantined, chunk


def _spans(group: np.ndarray, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows of each wanted group in turn, in their order within the group: (rows to take, the hand each
    belongs to (0..len(wanted)-1), span offsets per hand)."""
    n, hands = len(group), len(wanted)
    if n and hands and group[0] >= 0 and group[-1] < hands and wanted[0] == 0 and wanted[-1] == hands - 1 \
            and bool((np.diff(wanted) == 1).all()) and bool((np.diff(group) >= 0).all()):
        # every hand wanted, once and in order, and the rows in hand order (a dataset `convert` wrote): the rows
        # are taken as they are, no sort
        offsets = np.zeros(hands + 1, np.int64)
        np.cumsum(np.bincount(group, minlength=hands), out=offsets[1:])
        return np.arange(n, dtype=np.int64), group.astype(np.int64, copy=False), offsets
    order = np.argsort(group, kind="stable")
    groups = group[order]
    start = np.searchsorted(groups, wanted, side="left")
    stop = np.searchsorted(groups, wanted, side="right")
    counts = stop - start
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    total = int(offsets[-1])
    owner = np.repeat(np.arange(len(wanted), dtype=np.int64), counts)
    rows = np.repeat(start, counts) + (np.arange(total, dtype=np.int64) - offsets[owner]) if total else owner
    return order[rows].astype(np.int64), owner, offsets


def _chunk(name: str, first_row: int, hands: pa.Table, seats: pa.Table, events: pa.Table,
           verdicts: columnar_validate.Verdicts) -> TableChunk:
    """The canonical tables of the valid rows, as `build_tables` makes them from the rebuilt hands: taken
    rows, hand renumbered, the defaults a rebuilt hand leaves out filled in, and per event kind only the
    columns its rebuilt event keeps (`_event`)."""
    from auditor.model.tables import EVENTS_SCHEMA, HANDS_SCHEMA, SEATS_SCHEMA

    valid_rows = np.flatnonzero(verdicts.valid)
    wanted = verdicts.row_group[valid_rows]  # valid rows have a hand number (else they have no seats)
    count = len(valid_rows)
    new_hand = pa.array(np.arange(count, dtype=np.int32))
    kept = _take(hands, valid_rows)
    # hands: as build_tables fills what a rebuilt hand leaves out
    spread_min, spread_max = _spread(kept)
    columns = {
        "hand": new_hand, "file": pa.repeat(pa.scalar(name, pa.string()), count),
        "line": pa.array(valid_rows.astype(np.int64) + first_row + 1),
        "ante": pc.fill_null(kept["ante"], 0), "money_scale": pc.fill_null(kept["money_scale"], 1),
        "bet_units": pc.fill_null(kept["bet_units"], pa.scalar([], pa.list_(pa.int64()))),
        "spread_min": spread_min, "spread_max": spread_max,
    }
    hands_out = pa.table([columns.get(f.name, kept[f.name]) for f in HANDS_SCHEMA], schema=HANDS_SCHEMA)
    # seats: the rows of each valid hand's number, in file order
    seat_rows, seat_owner, seat_spans = _spans(verdicts.seat_group, wanted)
    taken = _take(seats, seat_rows)
    seat_columns = {"hand": pa.array(seat_owner.astype(np.int32)),
                    "status": pc.fill_null(taken["status"], "active")}
    seats_out = pa.table([seat_columns.get(f.name, taken[f.name]) for f in SEATS_SCHEMA], schema=SEATS_SCHEMA)
    # events (already in rebuild order, so each hand's are one run)
    event_rows, event_owner, event_spans = _spans(verdicts.event_group, wanted)
    taken = _take(events, event_rows)
    kinds = None if verdicts.event_kind is None else verdicts.event_kind[event_rows]
    events_out = _canonical_events(taken, event_owner, verdicts.event_index[event_rows], EVENTS_SCHEMA, kinds)
    # what each row claims (claimed_source): a file that is text and not empty, a line
    files = kept["file"]
    claimed_file = pc.if_else(pc.fill_null(pc.equal(files, ""), True), pa.scalar(None, pa.string()), files)
    return TableChunk(CanonicalTables(hands_out, seats_out, events_out), name, claimed_file.to_pylist(),
                      kept["line"].to_pylist(), kept, seats, seat_rows, seat_spans, events, event_rows, event_spans)


def _spread(hands: pa.Table) -> tuple[pa.Array, pa.Array]:
    """spread_min and spread_max as the rebuilt stakes give them back: [] when there is no spread, else both
    cut to the shorter list (zip)."""
    low, high = hands["spread_min"].combine_chunks(), hands["spread_max"].combine_chunks()
    low_n = pc.fill_null(pc.list_value_length(low), 0).to_numpy(zero_copy_only=False)
    high_n = pc.fill_null(pc.list_value_length(high), 0).to_numpy(zero_copy_only=False)
    n = np.where(low_n > 0, np.minimum(low_n, high_n), 0)
    empty = pa.scalar([], pa.list_(pa.int64()))
    if (n == low_n).all() and (n == high_n).all():
        return pc.fill_null(low, empty), pc.fill_null(high, empty)
    lows, highs = low.to_pylist(), high.to_pylist()  # rare: a spread whose lists differ in length
    return (pa.array([(v or [])[:k] for v, k in zip(lows, n, strict=True)], pa.list_(pa.int64())),
            pa.array([(v or [])[:k] for v, k in zip(highs, n, strict=True)], pa.list_(pa.int64())))


_DRAW_LIKE = ("seat_draw", "deal", "draw", "show")


def _canonical_events(events: pa.Table, owner: np.ndarray, seq: np.ndarray, schema: pa.Schema,
                      code: np.ndarray | None = None) -> pa.Table:
    """Events of valid hands with each kind's columns only (what `_event` keeps and `build_tables` spreads
    back): the generic columns for the generic kinds, the deal target for deals, cards, receive and draw
    players where the kind has them, and a seat draw's two lists cut to its draws. `code`: each event's
    kind as its index in KINDS, when the validator has it already."""
    from auditor.ingest import columnar_kernels, columnar_validate

    kinds = columnar_validate.KINDS
    if code is None:
        code = pc.fill_null(pc.index_in(events["kind"], value_set=pa.array(kinds)), -1).to_numpy(
            zero_copy_only=False)
    is_ = {k: code == kinds.index(k) for k in _DRAW_LIKE}
    generic = ~(is_["seat_draw"] | is_["deal"] | is_["draw"] | is_["show"])

    def keep(column: str, mask: np.ndarray) -> pa.ChunkedArray | pa.Array:
        values = events[column]
        if values.null_count == len(values) or mask.all():
            return values
        if not (columnar_kernels.present(values) & ~mask).any():
            return values  # null wherever the kind has no such key already (as `convert` writes them)
        return pc.if_else(pa.array(mask), values, pa.scalar(None, values.type))

    cards, draw_players = keep("cards", ~generic), keep("draw_players", is_["seat_draw"])
    if is_["seat_draw"].any():
        cards, draw_players = _cut_draws(cards, draw_players, is_["seat_draw"])
    columns = {
        "hand": pa.array(owner.astype(np.int32)), "seq": pa.array(seq.astype(np.int32)),
        "player": keep("player", generic | is_["seat_draw"]), "target": keep("target", is_["deal"]),
        "cards": cards, "receive": keep("receive", is_["draw"]), "draw_players": draw_players,
        **{c: keep(c, generic) for c in ("action", "post", "blind", "amount", "to", "all_in", "pot", "from_seat")},
    }
    return pa.table([columns.get(f.name, events[f.name]) for f in schema], schema=schema)


def _cut_draws(cards: Any, players: Any, seat_draw: np.ndarray) -> tuple[pa.Array, pa.Array]:
    """A seat draw's cards and draw players cut to as many as it has draws (pairs), as the rebuilt event's
    `draws` keeps them."""
    card_n = pc.fill_null(pc.list_value_length(cards), 0).to_numpy(zero_copy_only=False)
    player_n = pc.fill_null(pc.list_value_length(players), 0).to_numpy(zero_copy_only=False)
    uneven = seat_draw & (card_n != player_n)
    if not uneven.any():
        return cards, players
    card_list, player_list = cards.to_pylist(), players.to_pylist()  # rare: lists of two lengths
    for i in np.flatnonzero(uneven):
        k = int(min(card_n[i], player_n[i]))
        card_list[i], player_list[i] = (card_list[i] or [])[:k], (player_list[i] or [])[:k]
    return pa.array(card_list, pa.list_(pa.string())), pa.array(player_list, pa.list_(pa.string()))


def read_parquet_tables(directory: Path, limits: Limits = DEFAULT_LIMITS,
                        chunk_hands: int = 1 << 62) -> Iterator[TableChunk | Quarantined]:
    """`read_parquet` with each stretch of `chunk_hands` hand rows as one TableChunk (the dataset read whole,
    as there): its valid hands as tables, its refused ones as the chunk's `quarantined`; then the orphan
    rows' and the stored quarantine's entries, as `read_parquet` gives them."""
    name = str(directory)
    try:
        refusal = dataset_refusal(directory, limits)
        if refusal:
            yield Quarantined(name, 0, f"refused Parquet dataset: {refusal[1]}", code=refusal[0])
            return
        hands, seats, events = (conform_table(read_canonical_columns(directory / f"{table}.parquet", table), table)
                                for table in TABLE_FILES)
    except Exception as exc:  # any Arrow/IO failure is one reason for the whole dataset
        yield Quarantined(name, 0, f"unreadable Parquet dataset: {' '.join(str(exc).split())[:300]}",
                          code=failure_code(exc))
        return
    for start in range(0, hands.num_rows, chunk_hands):
        part = hands.slice(start, chunk_hands)
        yield one_item(name, *validated_chunk(name, start, part, *_rows_of(part, seats, events)))
    yield from _orphan_tables(name, hands, seats, events)
    yield from read_quarantined(directory)


def _rows_of(hands: pa.Table, seats: pa.Table, events: pa.Table) -> tuple[pa.Table, pa.Table]:
    """The seats and events rows of the hand numbers of `hands`."""
    numbers = pc.drop_null(hands["hand"])
    return (seats.filter(pc.fill_null(pc.is_in(seats["hand"], value_set=numbers), False)),
            events.filter(pc.fill_null(pc.is_in(events["hand"], value_set=numbers), False)))


def _orphan_tables(name: str, hands: pa.Table, seats: pa.Table, events: pa.Table) -> Iterator[Quarantined]:
    """`_orphans` from the tables: one entry per hand number with seat or event rows but no hands row."""
    known = pc.drop_null(hands["hand"])
    strays = [table.filter(pc.invert(pc.fill_null(pc.is_in(table["hand"], value_set=known), False)))
              for table in (seats, events)]
    if not any(t.num_rows for t in strays):
        return
    seats_by_hand: dict = defaultdict(list)
    events_by_hand: dict = defaultdict(list)
    for store, table in zip((seats_by_hand, events_by_hand), strays, strict=True):
        for number in table["hand"].to_pylist():
            store[number].append(None)
    yield from _orphans(name, set(known.to_pylist()), seats_by_hand, events_by_hand)
