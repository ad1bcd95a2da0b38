"""Open Hand History read column-wise: blocks of objects scanned, mapped and validated as canonical tables.

`ohh.read_ohh` parses each `{"ohh": ...}` object with `json` (Decimal amounts), validates it against
`schemas/ohh.schema.json` (jsonschema-rs), maps it to a canonical dict in Python and validates that (the hand-log
schema and `consistency_error`); the audit then turns the dicts into tables (`build_tables`): ~170 µs a hand.
`read_ohh_tables` gives the same items as the audit consumes them:

1. the file is read a block of whole lines at a time (`BLOCK_BYTES`, memory bounded by the block) and
   `ohh_kernel.segments` finds its objects where `ohh._json_objects` would parse each one alone (one object
   per line, blank-line separated, as our writer writes them, or pretty-printed with the closing `}` in
   column 0, as the specification's examples and most converters write them), keeping its limits;
2. one compiled call (`ohh_kernel.convert`) scans every object that is UTF-8 and maps each one it reads
   exactly (a strict subset of the OHH schema and of the mapping: see its docstring; the schema's
   constraints on what it reads are checked there, so jsonschema-rs is not run on what it takes) into hand,
   seat and event rows, which become the canonical Arrow tables here, and `columnar_validate.validate` judges
   them (the hand-log schema and `consistency_error`, column-wise);
3. an object the kernel mapped and the validator accepted is a hand of a `TableChunk` (its tables are what
   `build_tables` makes of the hand `read_ohh` gives: `tests/test_ohh_tables.py`); every other object is
   read by the reference from its own lines (`ohh.buffer_items`), which gives its hand or words its
   refusal. So the columnar path decides only acceptance, and only where it reads the hand exactly;
4. where the file stops looking like that (a line outside an object, an object `_json_objects` would parse
   with its neighbours: a blank line inside it, a limit, an object still open at the end), the rest of the
   file is the reference's (`ohh.read_ohh_stream` from that line, where no object is open), so line numbers,
   truncation and every message are the reference's own.

Items keep the file's order: a run of consecutive objects the fast path took is one chunk (at most
`CHUNK_HANDS`), the reference's items between them as they come. A chunk's hands' dicts (`TableChunk.source`, for
the few hands a report shows) are read again from their kept bytes when asked for.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from auditor.ingest import columnar_validate, ohh, ohh_kernel
from auditor.ingest.arrow_columns import EventNames, card_lists, event_table, list_array
from auditor.ingest.files import GZIP_MAGIC, open_failure, utf8_mask
from auditor.ingest.limits import DEFAULT_LIMITS, Limits
from auditor.ingest.parquet import TableChunk
from auditor.model.records import Quarantined, SourceHand
from auditor.model.tables import EVENTS_SCHEMA, HANDS_SCHEMA, SEATS_SCHEMA, CanonicalTables

__all__ = ["BLOCK_BYTES", "CHUNK_HANDS", "FAILURES", "read_ohh_tables"]

#: bytes of the file read, scanned and validated together (about 2,000 of our writer's hands: the validator's
#: fixed cost per call is spread over them, and the kernel's arrays stay a few tens of MB whatever the file)
BLOCK_BYTES = 4 << 20
#: at most this many hands per TableChunk (a chunk cut at a batch of the audit rebuilds the dicts it keeps)
CHUNK_HANDS = 1000
#: the last failures of the fast path itself (a bug: its objects then took the reference path)
FAILURES: list[str] = []

_VARIANTS = pa.array(["holdem", "omaha"], pa.string())
_STRUCTURES = pa.array(["no-limit", "pot-limit", "fixed-limit"], pa.string())
_STATUS = pa.array(["sitting_out", "active"], pa.string())
_EVENT_NAMES = EventNames.of(ohh_kernel)
_CARDS = pa.array(ohh_kernel.CARD_NAMES, pa.string())


def read_ohh_tables(path: Path, limits: Limits = DEFAULT_LIMITS, *, rule_pack: str = "tda-2024",
                    block_bytes: int | None = None,
                    chunk_hands: int | None = None) -> Iterator[TableChunk | SourceHand | Quarantined]:
    """`read_ohh`'s hands and quarantine entries, the hands the columnar path takes as TableChunks (blocks of
    `block_bytes`, chunks of at most `chunk_hands`: BLOCK_BYTES and CHUNK_HANDS unless given)."""
    name = str(path)
    block_bytes = max(1, BLOCK_BYTES if block_bytes is None else block_bytes)
    chunk_hands = max(1, CHUNK_HANDS if chunk_hands is None else chunk_hands)
    try:
        stream = path.open("rb")
    except OSError as exc:
        reason, code = open_failure(exc)
        yield Quarantined(name, 0, reason, code=code)
        return
    with stream:
        try:
            gzipped = stream.peek(2)[:2] == GZIP_MAGIC
        except OSError:
            gzipped = True
        if gzipped:  # the reference reads (and words) compressed or unreadable input
            stream.close()
            yield from ohh.read_ohh(path, rule_pack=rule_pack, limits=limits)
            return
        yield from _read(stream, name, limits, rule_pack, block_bytes, chunk_hands)


def _read(stream: BinaryIO, name: str, limits: Limits, rule_pack: str, block_bytes: int,
          chunk_hands: int) -> Iterator[TableChunk | SourceHand | Quarantined]:
    offset = 0  # file offset of `carry`'s first byte, a line start where no object is open
    line = 1  # its line number
    carry = b""
    held: tuple[list, int, int] | None = None  # a reference object's items after which reading skips
    while True:
        try:
            new = stream.read(block_bytes)
        except OSError:
            new = None
        if new is None:  # the reference reads (and words) what we could not
            yield from _hand_over(stream, name, limits, rule_pack, held, offset, line)
            return
        eof = not new
        data = carry + new
        if eof:
            block, carry = data, b""
        else:
            cut = data.rfind(b"\n") + 1
            block, carry = data[:cut], data[cut:]
            if not block:
                if len(carry) > limits.ohh_max_line_bytes:
                    yield from _hand_over(stream, name, limits, rule_pack, held, offset, line)
                    return
                continue
        if not block:
            if held is not None:
                yield from held[0]
            return
        count, stop, why, seg = _segments(block, offset == 0, limits)
        for item in _block(block, seg[:count], name, line, rule_pack, chunk_hands):
            if isinstance(item, _Open):  # an object the reference reads with what follows it (its first line
                if held is not None:  # starts an object: whether reading skipped before it does not matter)
                    yield from held[0]
                yield from _hand_over(stream, name, limits, rule_pack, None, offset + item.byte, line + item.line)
                return
            if isinstance(item, _Skipping):  # an object starts a line: what was held is given
                if held is not None:
                    yield from held[0]
                held = (item.items, offset + item.byte, line + item.line)
                continue
            if held is not None:
                yield from held[0]
                held = None
            yield item
        if why == 1:
            yield from _hand_over(stream, name, limits, rule_pack, held, offset + _line_start(block, stop), line + stop)
            return
        if why == 2:
            at = _line_start(block, stop)
            if eof:
                if held is not None:
                    yield from held[0]
                yield from _hand_over(stream, name, limits, rule_pack, None, offset + at, line + stop)
                return
            carry = block[at:] + carry
            offset += at
            line += stop
            continue
        if eof:
            if held is not None:
                yield from held[0]
            return
        offset += len(block)
        line += stop  # why 0: `stop` is the block's line count


class _Open:
    """The reference's buffer would not be empty after this object (its parse left text): hand the file over."""

    def __init__(self, byte: int, line: int) -> None:
        self.byte, self.line = byte, line


class _Skipping:
    """A reference object's items after which `_json_objects` skips to the next line starting an object: held
    back until what follows is known (a line the file is handed over at is read from this object's line)."""

    def __init__(self, items: list, byte: int, line: int) -> None:
        self.items, self.byte, self.line = items, byte, line


def _line_start(block: bytes, index: int) -> int:
    """Byte offset of line `index` (0-based) of `block`."""
    if index == 0:
        return 0
    ends = np.flatnonzero(np.frombuffer(block, dtype=np.uint8) == 10)
    return int(ends[index - 1]) + 1


def _hand_over(stream: BinaryIO, name: str, limits: Limits, rule_pack: str, held: tuple[list, int, int] | None,
               byte: int, line: int) -> Iterator[SourceHand | Quarantined]:
    """The rest of the file from `byte` (line `line`, where no object is open) as the reference reads it; from the
    held object's line instead when reading would skip at `byte` (the reference reads that object again)."""
    if held is not None:
        byte, line = held[1], held[2]
    stream.seek(byte)
    yield from ohh.read_ohh_stream(stream, name, rule_pack=rule_pack, limits=limits, first_line=line)


def _segments(block: bytes, start: bool, limits: Limits) -> tuple[int, int, int, np.ndarray]:
    data = np.frombuffer(block, dtype=np.uint8)
    seg = np.empty((int(np.count_nonzero(data == 123)) + 1, 4), dtype=np.int64)
    count, stop, why = ohh_kernel.segments(data, start, limits.ohh_max_line_bytes, limits.ohh_max_hand_bytes, seg)
    return int(count), int(stop), int(why), seg


def _block(block: bytes, seg: np.ndarray, name: str, first_line: int, rule_pack: str,
           chunk_hands: int) -> Iterator[Any]:
    """The block's objects' items in order: chunks of the runs the fast path took, the reference's items, an
    `_Open` (stop: hand the file over there) or a `_Skipping` (items held back)."""
    if not len(seg):
        return
    lines = seg[:, 2] + first_line
    texts = [block[a:b] for a, b in seg[:, :2].tolist()]
    try:
        taken, tables = _take(block, seg, texts, name, lines, rule_pack)
    except Exception as exc:  # a fault of ours costs speed (the reference path), never a verdict
        FAILURES.append(f"{type(exc).__name__}: {str(exc)[:200]}")
        del FAILURES[:-20]
        taken, tables = np.zeros(len(seg), dtype=bool), None
    rows = np.cumsum(taken) - 1  # each taken object's hand in `tables`
    if tables is not None:
        seat_starts, event_starts = tables.starts()
    k = 0
    while k < len(seg):
        if taken[k]:
            stop = k + 1
            while stop < len(seg) and taken[stop] and stop - k < chunk_hands:
                stop += 1
            assert tables is not None
            a, b = int(rows[k]), int(rows[stop - 1]) + 1
            lazy = _Lazy(name, texts[k:stop], lines[k:stop].tolist(), rule_pack)
            yield _chunk(tables.between(a, b, seat_starts, event_starts), name, lazy)
            k = stop
            continue
        items, clean, skipping = ohh.buffer_items(texts[k], int(lines[k]), name, rule_pack=rule_pack)
        if not clean:
            yield _Open(int(seg[k, 0]), int(seg[k, 2]))
            return
        if skipping:
            yield _Skipping(items, int(seg[k, 0]), int(seg[k, 2]))
        else:
            yield from items
        k += 1


def _chunk(tables: CanonicalTables, name: str, hands: _Lazy) -> TableChunk:
    empty = np.zeros(0, np.int64)
    count = tables.num_hands
    return TableChunk(tables, name, [None] * count, [None] * count, HANDS_SCHEMA.empty_table(),
                      SEATS_SCHEMA.empty_table(), empty, empty, EVENTS_SCHEMA.empty_table(), empty, empty, hands)


class _Lazy(Sequence):
    """A chunk's hands as `read_ohh` gives them, each read again from its object's lines when asked for."""

    def __init__(self, file: str, texts: list[bytes], lines: list[int], rule_pack: str) -> None:
        self.file, self.texts, self.lines, self.rule_pack = file, texts, lines, rule_pack

    def __len__(self) -> int:
        return len(self.texts)

    def take(self, rows: Sequence[int]) -> _Lazy:
        """The hands `rows`, still unread (`TableChunk.without`)."""
        return _Lazy(self.file, [self.texts[int(i)] for i in rows], [self.lines[int(i)] for i in rows],
                     self.rule_pack)

    def __getitem__(self, i):  # type: ignore[no-untyped-def, override]
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        items = ohh.buffer_items(self.texts[i], self.lines[i], self.file, rule_pack=self.rule_pack)[0]
        if len(items) != 1 or not isinstance(items[0], SourceHand):  # cannot be: the fast path took only those
            raise RuntimeError(f"{self.file}:{self.lines[i]}: the reference path no longer gives this hand")
        return items[0]


# --------------------------------------------------------------------------- the kernel's rows as tables


def _take(block: bytes, seg: np.ndarray, texts: list[bytes], name: str, lines: np.ndarray,
          rule_pack: str) -> tuple[np.ndarray, CanonicalTables | None]:
    """(per object, whether the fast path took it; the canonical tables of those it took, in order)."""
    count = len(seg)
    taken = np.zeros(count, dtype=bool)
    good = utf8_mask(block, texts)
    lo = np.where(good, seg[:, 0], -1)
    hi = seg[:, 1].copy()
    data = np.frombuffer(block, dtype=np.uint8)
    cap = ohh_kernel.capacities(data, count)
    k = ohh_kernel
    h = np.zeros((count, len(k.H_COLUMNS)), dtype=np.int64)
    rows = cap["rows"]
    # rows the kernel reads only after writing them (the keys they hold are required, or flagged) are not zeroed
    pl = np.zeros((min(rows, 10 * count + 1), 6), dtype=np.int64)
    rd = np.zeros((min(rows, 32 * count + 1), 6), dtype=np.int64)
    ac = np.empty((rows, 8), dtype=np.int64)
    pt = np.zeros((min(rows, 11 * count + 1), 8), dtype=np.int64)
    wn = np.empty((rows, 4), dtype=np.int64)
    cards = np.empty(cap["cards"], dtype=np.int64)
    s_lo = np.empty(cap["strings"], dtype=np.int64)
    s_hi = np.empty(cap["strings"], dtype=np.int64)
    out = np.empty(cap["bytes"], dtype=np.uint8)
    ev = np.empty((cap["events"], len(k.EV_COLUMNS)), dtype=np.int64)
    ev_cards = np.empty(cap["ev_cards"], dtype=np.int64)
    s_out = np.empty((cap["seats"], 4), dtype=np.int64)
    strings, nbytes, ns, ne, nc = k.convert(data, lo, hi, h, pl, rd, ac, pt, wn, cards, s_lo, s_hi, out, ev,
                                            ev_cards, s_out)
    ok = h[:, k.H_OK] == 1
    if not ok.any():
        return taken, None
    text = _strings(out[:nbytes], s_lo[:strings], s_hi[:strings])
    tables = _tables(h[ok], s_out[:ns], ev[:ne], ev_cards[:nc], text, name, lines[ok], rule_pack)
    valid = columnar_validate.validate(tables.hands, tables.seats, tables.events).valid
    taken[np.flatnonzero(ok)[valid]] = True
    return taken, tables.keep(valid)


def _strings(out: np.ndarray, s_lo: np.ndarray, s_hi: np.ndarray) -> pa.StringArray:
    """The kernel's decoded strings (contiguous in `out`, number 0..) as one Arrow array."""
    if not len(s_lo):
        return pa.array([], pa.string())
    offsets = np.append(s_lo, s_hi[-1]).astype(np.int32)
    return pa.StringArray.from_buffers(len(s_lo), pa.py_buffer(offsets), pa.py_buffer(out.tobytes()))


def _tables(h: np.ndarray, seats: np.ndarray, ev: np.ndarray, ev_cards: np.ndarray, text: pa.StringArray, name: str,
            lines: np.ndarray, rule_pack: str) -> CanonicalTables:
    """The canonical tables of the mapped hands (`h` a row per hand, in order)."""
    k = ohh_kernel
    count = len(h)
    sb, bb = h[:, k.H_SBV], h[:, k.H_BBV]
    blinds = np.where(sb > 0, 2, np.where(bb > 0, 1, 0))
    pairs = np.stack([np.where(sb > 0, sb, bb), bb], axis=1)
    blind_values = pairs.reshape(-1)[(np.arange(2)[None, :] < blinds[:, None]).reshape(-1)]
    fixed = h[:, k.H_BET] == 2
    bet_values = np.stack([bb, bb, 2 * bb, 2 * bb], axis=1)[fixed].reshape(-1)
    no_lists = list_array(np.zeros(count, np.int64), pa.array([], pa.int64()))
    started = text.take(pa.array(h[:, k.H_STARTED], pa.int64(), mask=h[:, k.H_STARTED] < 0))
    zoned = pc.binary_join_element_wise(started, pa.scalar("Z"), "")
    started = pc.if_else(pa.array(h[:, k.H_ZONE] == 1), started, zoned)
    columns = {
        "hand": pa.array(np.arange(count, dtype=np.int32)),
        "hand_id": text.take(pa.array(h[:, k.H_HAND_ID])),
        "table_id": text.take(pa.array(h[:, k.H_TABLE_ID])),
        "room": text.take(pa.array(h[:, k.H_ROOM])),
        "started_at": started,
        "variant": _VARIANTS.take(pa.array(h[:, k.H_GAME])),
        "structure": _STRUCTURES.take(pa.array(h[:, k.H_BET])),
        "rule_pack": pa.array([rule_pack], pa.string()).take(pa.array(np.zeros(count, np.int64))),
        "currency": text.take(pa.array(h[:, k.H_CURRENCY], pa.int64(), mask=h[:, k.H_CURRENCY] < 0)),
        "max_seats": pa.array(h[:, k.H_MAX_SEATS].astype(np.int8), pa.int8()),
        "blinds": list_array(blinds, pa.array(blind_values, pa.int64())),
        "ante": pa.array(h[:, k.H_ANTEV], pa.int64()),
        "bet_units": list_array(np.where(fixed, 4, 0), pa.array(bet_values, pa.int64())),
        "spread_min": no_lists,
        "spread_max": no_lists,
        "table_min": pa.nulls(count, pa.int64()),
        "table_max": pa.nulls(count, pa.int64()),
        "chip_unit": pa.array(np.ones(count, np.int64)),
        "file": pa.array([name], pa.string()).take(pa.array(np.zeros(count, np.int64))),
        "line": pa.array(lines.astype(np.int64)),
        "money_scale": pa.array(h[:, k.H_SCALE], pa.int64()),
    }
    hands = pa.table([columns[field.name] for field in HANDS_SCHEMA], schema=HANDS_SCHEMA)
    per_hand = h[:, k.H_SEAT_HI] - h[:, k.H_SEAT_LO]
    owner = np.repeat(np.arange(count, dtype=np.int32), per_hand)
    seat_columns = {
        "hand": pa.array(owner),
        "seat": pa.array(seats[:, k.S_SEAT].astype(np.int8), pa.int8()),
        "player": text.take(pa.array(seats[:, k.S_NAME])),
        "stack": pa.array(seats[:, k.S_STACK], pa.int64()),
        "status": _STATUS.take(pa.array(seats[:, k.S_ACTIVE])),
    }
    seat_table = pa.table([seat_columns[field.name] for field in SEATS_SCHEMA], schema=SEATS_SCHEMA)
    events = event_table(h[:, k.H_EV_HI] - h[:, k.H_EV_LO], _EVENT_NAMES, kind=ev[:, k.E_KIND], seat=ev[:, k.E_SEAT],
                         action=ev[:, k.E_ACTION], post=ev[:, k.E_POST], blind=ev[:, k.E_BLIND],
                         amount=ev[:, k.E_AMOUNT], to=ev[:, k.E_TO], all_in=ev[:, k.E_ALL_IN],
                         target=ev[:, k.E_TARGET], pot=ev[:, k.E_POT],
                         cards=card_lists(ev[:, k.E_C_LO], ev[:, k.E_C_HI], ev_cards, _CARDS))
    return CanonicalTables(hands, seat_table, events)
