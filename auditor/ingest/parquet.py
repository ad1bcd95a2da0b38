"""The canonical tables as a Parquet dataset: a directory with hands/seats/events.parquet.

Reading goes back through the same per-hand validation as JSON Lines, so a Parquet file written
by someone else gets no easier ride than a log.

Readers record; rules judge (auditor/ingest/__init__.py): a canonical hand is taken as stored, and
only what cannot be a canonical hand is refused, each with its quarantine code: a dataset whose files
pass an input limit (size, decompression ratio: `limit`); a damaged dataset (a footer whose row counts
disagree, data Arrow cannot read: `damaged`); tables without a canonical column, with one of another
type or stored twice (`invalid-record`, for the whole dataset); and, hand by hand, a hand that breaks
the hand-log schema or its consistency, or whose own row in hands.parquet is missing (`invalid-record`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from auditor.ingest.files import bomb_message
from auditor.ingest.jsonl import consistency_error
from auditor.ingest.limits import DEFAULT_LIMITS, Limits
from auditor.ingest.records import Quarantined, SourceHand
from auditor.ingest.tables import EVENTS_SCHEMA, HANDS_SCHEMA, SEATS_SCHEMA, CanonicalTables
from auditor.ingest.validate import schema_error

TABLE_FILES = ("hands", "seats", "events")


def is_parquet_dataset(path: Path) -> bool:
    return path.is_dir() and all((path / f"{name}.parquet").is_file() for name in TABLE_FILES)


def write_parquet(tables: CanonicalTables, directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for name in TABLE_FILES:
        pq.write_table(getattr(tables, name), directory / f"{name}.parquet", compression="zstd")


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
    """The quarantine code for an exception that stopped a whole dataset (or range) from being read."""
    return "invalid-record" if isinstance(exc, SchemaFault) else "damaged"


def dataset_problem(directory: Path, limits: Limits) -> str | None:
    """Why a dataset is refused before its data is read (from the files' sizes and Parquet footers), or None.
    Both ways of reading a dataset ask it first: `read_parquet`, and `plan_ranges` before streaming.

    Parquet columns are compressed, so the footer's uncompressed sizes are held to the same limits as
    gzip and zip input: a small file that would unpack to gigabytes is a decompression bomb.
    """
    refusal = dataset_refusal(directory, limits)
    return refusal[1] if refusal else None


def dataset_refusal(directory: Path, limits: Limits) -> tuple[str, str] | None:
    """`dataset_problem` with its quarantine code: (code, reason), or None."""
    total = 0
    for table in TABLE_FILES:
        path = directory / f"{table}.parquet"
        size = path.stat().st_size
        if size > limits.max_file_bytes:
            return "limit", f"{table}.parquet is larger than {limits.max_file_bytes} bytes (limit max_file_bytes)"
        meta = pq.ParquetFile(path).metadata
        in_groups = sum(meta.row_group(i).num_rows for i in range(meta.num_row_groups))
        if in_groups != meta.num_rows:
            # a damaged footer: Arrow reads as many rows as one count says and drops the rest unsaid
            return "damaged", (f"{table}.parquet is damaged: its footer counts {meta.num_rows} rows, its row "
                               f"groups {in_groups}")
        unpacked = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
        total += unpacked
        problem = bomb_message(unpacked, size, limits)
        if problem:
            return "limit", f"{table}.parquet {problem}"
        if total > limits.max_unpacked_bytes:
            return "limit", (f"the dataset unpacks to more than {limits.max_unpacked_bytes} bytes (limit "
                             "max_unpacked_bytes)")
    return None


#: the canonical schema of each table file, and the columns a dataset may lack (older `convert` output)
SCHEMAS: dict[str, tuple[pa.Schema, tuple[str, ...]]] = {
    "hands": (HANDS_SCHEMA, ("file", "line", "money_scale")), "seats": (SEATS_SCHEMA, ()),
    "events": (EVENTS_SCHEMA, ()),
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

    A hand keeps the source file and line stored with it (datasets written by `auditor convert`);
    otherwise its position is the dataset and its row number in hands.parquet (1-based). A dataset
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
        hands, seats, events = (conform_table(read_canonical_columns(directory / f"{table}.parquet", table),
                                              table).to_pylist() for table in TABLE_FILES)
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
        yield rebuild_hand(h, row_no, name, seats_by_hand, events_by_hand)
    yield from _orphans(name, {h["hand"] for h in hands}, seats_by_hand, events_by_hand)


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
                 events_by_hand: dict[int, list]) -> SourceHand | Quarantined:
    """One row of a conformed hands table, with its seats and events, as a validated hand or a quarantine
    (both Parquet readers use it). It never raises: a value no check foresaw quarantines this hand alone
    and the dataset goes on."""
    try:
        return _rebuild(h, row_no, name, seats_by_hand, events_by_hand)
    except Exception as exc:
        return Quarantined(name, row_no, f"reader error: {type(exc).__name__}: {exc}",
                           h["hand_id"] if isinstance(h.get("hand_id"), str) else None, code="internal-error",
                           table_id=h["table_id"] if isinstance(h.get("table_id"), str) else None)


def _rebuild(h: dict[str, Any], row_no: int, name: str, seats_by_hand: dict[int, list],
             events_by_hand: dict[int, list]) -> SourceHand | Quarantined:
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
    error = schema_error(hand) or consistency_error(hand)
    if error:
        return Quarantined(name, row_no, error, h["hand_id"], code="invalid-record", table_id=h["table_id"])
    # A dataset written by `auditor convert` remembers where each hand came from; findings keep
    # pointing at the original log, and a table's hands stay grouped by their source file.
    return SourceHand(hand, h["file"] or name, h["line"] or row_no)
