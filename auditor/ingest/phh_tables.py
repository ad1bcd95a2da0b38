"""Plain `.phh` files read column-wise: a batch of files scanned, converted and validated as canonical tables.

`phh.read_plain_phh_batch` used to give each file's hand as a dict (`phh._convert`: a dict per field, a
tuple per action, a dict per event, jsonschema, then `build_tables` in the audit): ~170 µs a hand. For a
batch of files, `read_batch` gives the same hands as the audit consumes them, as `TableChunk`s:

1. the files' bytes are scanned in one call (`phh_scan.scan`), as before;
2. one compiled call (`phh_kernel.convert`) converts every document it converts exactly as `phh._convert`
   would (the common case: see its docstring) into hand, seat and event rows, which become the canonical
   Arrow tables here (a few Python strings per hand: its ids and players' names; none per event);
3. `columnar_validate.validate` judges them (the schema and `consistency_error`, column-wise);
4. a file the kernel converted and the validator accepted is a hand of a chunk (its tables are what
   `build_tables` makes of the hand the reference path gives: `tests/test_phh_tables.py`); every other file
   (declined by the kernel, refused by the validator, not scanned) takes today's path unchanged
   (`phh._scanned_batch` of those files, or `None`: the caller's `read_file`), which gives its hand or words
   its refusal. So the columnar path decides only acceptance, and only where it reads the hand exactly.

Items keep the files' order: a run of consecutive files the fast path took is one chunk, given as the item of
the run's first file (the run's other files give no item); a chunk's hands' dicts (`TableChunk.source`, for the
few hands a report shows) are converted again from the file's bytes, kept with the chunk, when asked for.
A chunk holds hands of many files: `TableChunk.hand_files` names each hand's.

The kernel costs ~0.05 s of CPU a process to load from Numba's cache once the scanner is loaded (and ~6 s to
compile, ~3 s more for the validator's kernels, on the first run after an install), against ~150 µs a hand
saved: `worth_it` takes the path for a run of `MIN_FILES` files or more (a partition's run of a folder's
files), or in any run once the kernel is loaded, so a handful of `.phh` files never compiles it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from auditor.ingest import columnar_validate, phh, phh_kernel, phh_scan
from auditor.ingest.arrow_columns import EventNames, card_lists, event_table, list_array, texts
from auditor.ingest.files import utf8_mask
from auditor.ingest.parquet import TableChunk
from auditor.model.records import SourceHand
from auditor.model.tables import EVENTS_SCHEMA, HANDS_SCHEMA, SEATS_SCHEMA, CanonicalTables

__all__ = ["FAILURES", "MIN_FILES", "read_batch", "worth_it"]

#: a run of fewer `.phh` files than this is read the dict way unless the kernel is already loaded: its load from
#: the cache (~0.05 s) is earned back after ~350 hands, its first compile only by the runs after
MIN_FILES = 500
#: the last failures of the fast path itself (a bug: its files then took the reference path)
FAILURES: list[str] = []
_loaded = False

_VARIANTS = pa.array(["holdem", "holdem", "omaha", "omaha"], pa.string())
_STRUCTURES = pa.array(["no-limit", "fixed-limit", "pot-limit", "fixed-limit"], pa.string())
_EVENT_NAMES = EventNames.of(phh_kernel)
_ACTIVE = pa.array(["active"], pa.string())
_CARDS = pa.array(phh_scan.card_names(list(range(phh_scan.UNKNOWN_CARD + 1))), pa.string())
_KEY = {name: k for k, name in enumerate(phh_scan.KEYS)}
#: keys whose Python value the hand's ids, room or currency need (read per hand, only where present)
_ID_KEYS = ("hand", "table", "venue", "event", "currency")
#: the keys `phh._started_at` reads, for a document with a `time` (the scanner reads a TOML local time)
_TIME_KEYS = ("time", "year", "month", "day", "time_zone", "time_zone_abbreviation", "city", "region", "country")


def worth_it(files: int) -> bool:
    """Whether a run of `files` `.phh` files takes the columnar path (see the module docstring)."""
    return _loaded or files >= MIN_FILES


Pending = tuple[Path, "str | None", "bytes | None"]


def read_batch(pending: Sequence[Pending], rule_pack: str, root: Path | None = None) -> list[tuple[Any, ...] | None]:
    """Per (path, label, bytes or None) of `pending`, the items to give for it: a chunk (for a run's first file),
    nothing (the run's other files), today's item (`phh._scanned_batch`), or None where the caller reads the file
    (no bytes, not UTF-8, TOML beyond the scanner)."""
    global _loaded
    labels = [label if label is not None else phh._label(path, root) for path, label, _raw in pending]
    taken: np.ndarray | None = None
    try:
        taken, tables = _convert([raw for _p, _l, raw in pending], [str(p) for p, _l, _r in pending], labels,
                                 rule_pack)
        _loaded = True
    except Exception as exc:  # a fault of ours costs speed (the reference path), never a verdict
        FAILURES.append(f"{type(exc).__name__}: {str(exc)[:200]}")
        del FAILURES[:-20]
        taken = None
    if taken is None or not taken.any():
        return [(item,) if item is not None else None for item in phh._scanned_batch(list(pending), rule_pack, root)]
    rest = [k for k in range(len(pending)) if not taken[k]]
    others = phh._scanned_batch([pending[k] for k in rest], rule_pack, root) if rest else []
    out: list[tuple[Any, ...] | None] = [None] * len(pending)
    for k, item in zip(rest, others, strict=True):
        out[k] = (item,) if item is not None else None
    rows = np.flatnonzero(taken)
    seat_starts, event_starts = tables.starts()
    start = 0  # hand number of the run's first file
    while start < len(rows):
        stop = start + 1
        while stop < len(rows) and rows[stop] == rows[stop - 1] + 1:
            stop += 1
        files = [pending[k] for k in rows[start:stop]]
        chunk = _chunk(tables, seat_starts, event_starts, start, stop, files, labels, rows[start:stop], rule_pack)
        out[rows[start]] = (chunk,)
        for k in rows[start + 1:stop]:
            out[k] = ()
        start = stop
    return out


def _convert(raws: list[bytes | None], names: list[str], labels: list[str],
             rule_pack: str) -> tuple[np.ndarray, CanonicalTables]:
    """(per file, whether the fast path took it; the canonical tables of those it took, hand 0.. in order)."""
    count = len(raws)
    taken = np.zeros(count, dtype=bool)
    batch = [k for k, raw in enumerate(raws) if raw is not None]
    texts: list[bytes] = [raws[k] for k in batch]  # type: ignore[misc]
    empty = CanonicalTables(HANDS_SCHEMA.empty_table(), SEATS_SCHEMA.empty_table(), EVENTS_SCHEMA.empty_table())
    if not batch:
        return taken, empty
    buf, starts, ends = phh_scan.join(texts)
    utf8 = utf8_mask(buf, texts)
    if not utf8.all():  # the files that are not UTF-8 are the reference path's to refuse
        batch = [k for k, good in zip(batch, utf8.tolist(), strict=True) if good]
        if not batch:
            return taken, empty
        texts = [raws[k] for k in batch]  # type: ignore[misc]
        buf, starts, ends = phh_scan.join(texts)
    s = phh_scan.scan(buf, starts, ends, skip_bom=True)
    docs = len(batch)
    f = s.field_rows
    where = _where(s, docs)
    values = _values(s, where, docs)
    chips = np.ones(docs, dtype=np.int64)
    currency: list[str | None] = [None] * docs
    for d, value in values["currency"].items():
        if isinstance(value, str):
            chips[d] = 1 if value.upper() in _ZERO_DECIMAL else 100
            currency[d] = value[:16] if value else None
    actions = s.action_rows
    h_out = np.zeros((docs, len(phh_kernel.H_COLUMNS)), dtype=np.int64)
    s_out = np.empty((docs * 10, 3), dtype=np.int64)
    ev = np.empty((docs * 25 + actions.shape[1] + 1, len(phh_kernel.EV_COLUMNS)), dtype=np.int64)
    cards_out = np.empty(s.c_code.shape[0] + 4 * actions.shape[1] + 16, dtype=np.int8)
    data = np.frombuffer(buf, dtype=np.uint8)
    ns, ne, nc = phh_kernel.convert(data, s.doc_rows, f, s.item_rows, actions, s.c_code, chips, h_out, s_out, ev,
                                    cards_out)
    ok = h_out[:, phh_kernel.H_OK] == 1
    if not ok.any():
        return taken, empty
    docs_ok = np.flatnonzero(ok)
    doc_names = [names[batch[d]] for d in docs_ok.tolist()]
    hand_ids, table_ids, rooms = [], [], []
    seats_given = where[:, _KEY["seats"]] >= 0
    hands_v, tables_v, venues, events_v = values["hand"], values["table"], values["venue"], values["event"]
    for d in docs_ok.tolist():
        fields: dict[str, Any] = {}
        if d in hands_v:
            fields["hand"] = hands_v[d]
        if d in tables_v:
            fields["table"] = tables_v[d]
        if seats_given[d]:
            fields["seats"] = []
        hand_id, table_id = phh._ids(labels[batch[d]], None, fields)
        hand_ids.append(hand_id)
        table_ids.append(table_id)
        room = venues.get(d) or events_v.get(d)
        rooms.append(room.strip()[:256] if isinstance(room, str) and room.strip() else None)
    h = h_out[docs_ok]
    tables = _tables(s, h, s_out[:ns], ev[:ne], cards_out[:nc], where[docs_ok], hand_ids, table_ids, rooms,
                     [currency[d] for d in docs_ok.tolist()], doc_names, rule_pack, _starts(s, where[docs_ok]))
    valid = columnar_validate.validate(tables.hands, tables.seats, tables.events).valid
    if not valid.any():
        return taken, empty
    taken[np.asarray(batch, dtype=np.int64)[docs_ok[valid]]] = True
    return taken, tables.keep(valid)


_ZERO_DECIMAL = phh.ZERO_DECIMAL_CURRENCIES
#: a chunk's (unused) source rows: its hands come from `_Lazy`, not from rows
_EMPTY = (HANDS_SCHEMA.empty_table(), SEATS_SCHEMA.empty_table(), EVENTS_SCHEMA.empty_table())


def _starts(s: phh_scan.Scan, where: np.ndarray) -> list[str | None]:
    """Each document's `started_at`, by `phh._started_at` (the reference's own function) over the Python values of
    the fields it reads, for the documents with a `time` (none in most files: no call then)."""
    out: list[str | None] = [None] * len(where)
    for d in np.flatnonzero(where[:, _KEY["time"]] >= 0).tolist():
        fields = {key: phh_scan.field_value(s, int(where[d, _KEY[key]])) for key in _TIME_KEYS
                  if where[d, _KEY[key]] >= 0}
        out[d] = phh._started_at(fields)
    return out


def _where(s: phh_scan.Scan, docs: int) -> np.ndarray:
    """Per document and key id (`phh_scan.KEYS`), its field's row in the scan (-1: none)."""
    lo, hi = s.doc_rows[1], s.doc_rows[2]
    owner = np.repeat(np.arange(docs, dtype=np.int64), np.maximum(hi - lo, 0))
    keys = s.f_key
    where = np.full((docs, len(phh_scan.KEYS)), -1, dtype=np.int64)
    rows = np.flatnonzero(keys >= 0)
    where[owner[rows], keys[rows]] = rows
    return where


def _values(s: phh_scan.Scan, where: np.ndarray, docs: int) -> dict[str, dict[int, Any]]:
    """For each key of `_ID_KEYS`, document -> the field's Python value (as `tomllib` gives it), where present."""
    out: dict[str, dict[int, Any]] = {}
    for key in _ID_KEYS:
        column = where[:, _KEY[key]]
        present = np.flatnonzero(column >= 0)
        rows = column[present]
        integer = s.f_kind[rows] == phh_scan.INT  # the usual `hand = 22`: read from the column, no call a hand
        values = dict(zip(present[integer].tolist(), s.f_int[rows[integer]].tolist(), strict=True))
        for d, g in zip(present[~integer].tolist(), rows[~integer].tolist(), strict=True):
            values[d] = phh_scan.field_value(s, g)
        out[key] = values
    return out


def _tables(s: phh_scan.Scan, h: np.ndarray, seats: np.ndarray, ev: np.ndarray, cards: np.ndarray,
            where: np.ndarray, hand_ids: list[str], table_ids: list[str], rooms: list[str | None],
            currency: list[str | None], files: list[str], rule_pack: str,
            started_at: list[str | None]) -> CanonicalTables:
    """The canonical tables of the converted documents' rows (`h` a row per hand, in order)."""
    k = phh_kernel
    count = len(h)
    # hands
    blinds = h[:, k.H_BLINDS]
    blind_values = h[:, [k.H_BLIND1, k.H_BLIND2]].reshape(-1)[(np.arange(2)[None, :] < blinds[:, None]).reshape(-1)]
    fixed = h[:, k.H_SMALL] >= 0
    bet_values = h[fixed][:, [k.H_SMALL, k.H_SMALL, k.H_BIG, k.H_BIG]].reshape(-1)
    no_lists = list_array(np.zeros(count, np.int64), pa.array([], pa.int64()))
    nulls = pa.nulls(count, pa.int64())
    variant = h[:, k.H_VARIANT]
    columns = {
        "hand": pa.array(np.arange(count, dtype=np.int32)),
        "hand_id": pa.array(hand_ids, pa.string()),
        "table_id": pa.array(table_ids, pa.string()),
        "room": texts(rooms),
        "started_at": texts(started_at),
        "variant": _VARIANTS.take(pa.array(variant)),
        "structure": _STRUCTURES.take(pa.array(variant)),
        "rule_pack": pa.array([rule_pack], pa.string()).take(pa.array(np.zeros(count, np.int64))),
        "currency": texts(currency),
        "max_seats": pa.array(h[:, k.H_MAX_SEATS].astype(np.int8), pa.int8()),
        "blinds": list_array(blinds, pa.array(blind_values, pa.int64())),
        "ante": pa.array(h[:, k.H_ANTE], pa.int64()),
        "bet_units": list_array(np.where(fixed, 4, 0), pa.array(bet_values, pa.int64())),
        "spread_min": no_lists,
        "spread_max": no_lists,
        "table_min": nulls,
        "table_max": nulls,
        "chip_unit": pa.array(h[:, k.H_CHIP_UNIT], pa.int64()),
        "file": pa.array(files, pa.string()),
        "line": pa.array(np.ones(count, dtype=np.int64)),
        "money_scale": pa.array(h[:, k.H_SCALE], pa.int64()),
    }
    hands = pa.table([columns[field.name] for field in HANDS_SCHEMA], schema=HANDS_SCHEMA)
    # seats: the players' names, one decode for all of them
    per_hand = h[:, k.H_SEAT_HI] - h[:, k.H_SEAT_LO]
    owner = np.repeat(np.arange(count, dtype=np.int64), per_hand)
    position = seats[:, k.S_POSITION]
    names = _names(s, where[:, _KEY["players"]], owner, position)
    seat_columns = {
        "hand": pa.array(owner.astype(np.int32)),
        "seat": pa.array(seats[:, k.S_SEAT].astype(np.int8), pa.int8()),
        "player": pa.array(names, pa.string()),
        "stack": pa.array(seats[:, k.S_STACK], pa.int64()),
        "status": _ACTIVE.take(pa.array(np.zeros(len(seats), np.int64))),
    }
    seat_table = pa.table([seat_columns[field.name] for field in SEATS_SCHEMA], schema=SEATS_SCHEMA)
    # events
    events = event_table(h[:, k.H_EV_HI] - h[:, k.H_EV_LO], _EVENT_NAMES, kind=ev[:, k.E_KIND], seat=ev[:, k.E_SEAT],
                         action=ev[:, k.E_ACTION], post=ev[:, k.E_POST], blind=ev[:, k.E_BLIND],
                         amount=ev[:, k.E_AMOUNT], to=ev[:, k.E_TO], all_in=ev[:, k.E_ALL_IN],
                         target=ev[:, k.E_TARGET], pot=ev[:, k.E_POT],
                         cards=card_lists(ev[:, k.E_CARD_LO], ev[:, k.E_CARD_HI], cards, _CARDS))
    return CanonicalTables(hands, seat_table, events)


def _names(s: phh_scan.Scan, players: np.ndarray, owner: np.ndarray, position: np.ndarray) -> list[str]:
    """Each seat row's player: `players[position]` stripped and cut to 128 characters, `p<position + 1>` when
    the hand has no `players` or the name is blank (as `phh._convert`)."""
    field = players[owner]
    named = np.flatnonzero(field >= 0)
    out = [f"p{p + 1}" for p in position.tolist()]
    if not len(named):
        return out
    items = s.f_item_lo[field[named]] + position[named]
    starts, ends = s.i_start[items].tolist(), s.i_end[items].tolist()
    buf = s.buf
    # a name holds no NUL (the scanner takes no control character in a string): one decode for all
    text = b"\x00".join([buf[a:b] for a, b in zip(starts, ends, strict=True)]).decode("utf-8", "surrogatepass")
    for row, name in zip(named.tolist(), text.split("\x00"), strict=True):
        name = name.strip()
        if name:
            out[row] = name[:phh.MAX_TEXT]
    return out


def _chunk(tables: CanonicalTables, seat_starts: np.ndarray, event_starts: np.ndarray, a: int, b: int,
           files: list[Pending], labels: list[str], rows: np.ndarray, rule_pack: str) -> TableChunk:
    """Hands a..b - 1 of the tables (the files `files`) as a TableChunk, hand renumbered from 0."""
    empty = np.zeros(0, np.int64)
    names = [str(path) for path, _label, _raw in files]
    no_hands, no_seats, no_events = _EMPTY
    given = _Lazy([(path, labels[k], raw) for (path, _label, raw), k in zip(files, rows.tolist(), strict=True)],
                  rule_pack)
    return TableChunk(tables.between(a, b, seat_starts, event_starts), names[0], [None] * (b - a), [None] * (b - a),
                      no_hands, no_seats, empty, empty, no_events, empty, empty, given, (), names)


class _Lazy(Sequence):
    """A chunk's hands as the reference path gives them, each converted again from its file's bytes when asked
    for (only the few hands a report shows)."""

    def __init__(self, files: list[Pending], rule_pack: str) -> None:
        self.files, self.rule_pack = files, rule_pack

    def __len__(self) -> int:
        return len(self.files)

    def take(self, rows: Sequence[int]) -> _Lazy:
        """The hands `rows`, still unconverted (`TableChunk.without`)."""
        return _Lazy([self.files[int(i)] for i in rows], self.rule_pack)

    def __getitem__(self, i):  # type: ignore[no-untyped-def, override]
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        item = phh._scanned_batch([self.files[i]], self.rule_pack, None)[0]
        if not isinstance(item, SourceHand):  # cannot be: the fast path took only hands the reference accepts
            raise RuntimeError(f"{self.files[i][0]}: the reference path no longer gives this hand")
        return item
