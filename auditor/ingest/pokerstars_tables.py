"""PokerStars hand-history text read column-wise: a file's hands converted and validated as canonical tables.

`pokerstars.read_pokerstars` reads a hand line by line in Python (a pattern and a Decimal per line, a dict per
event, jsonschema, then `build_tables` in the audit): ~280 µs a hand. `read_pokerstars_tables` gives the same
items, the hands the fast path takes as `TableChunk`s:

1. the file is read a block at a time as the reference reads it (`pokerstars.in_blocks`); a block's bytes are
   cut into the reference's lines by one compiled call (`pokerstars_kernel.lines`), which marks header
   candidates, blank lines and what this path cannot place;
2. the hands are the reference's spans (`pokerstars._hand_spans`) whenever the block is plain: UTF-8 (a UTF-8
   byte-order mark first or none, no U+FEFF elsewhere), no archive separators, no "PokerStars" inside a line
   (an inner header, or a player named like one), no line over the limit, no character whose case folds into
   ASCII; any other block is read by the reference's code for one block (`pokerstars.block_items`);
3. each hand's header is read a template at a time (`pokerstars_headers`: the reference's `_HandReader.header`
   once per distinct header but for the hand id and the stamps' digits, the times by a compiled call and NumPy),
   its table line by the reference's `_HandReader.table` once per distinct line, and one compiled call
   (`pokerstars_kernel.convert`)
   reads the rest of every hand it reads exactly as `_HandReader` would (the common case: see its docstring)
   into hand, seat and event rows, which become the canonical Arrow tables here (no Python object per event);
4. `columnar_validate.validate` judges them (the schema and `consistency_error`, column-wise);
5. a hand the kernel converted and the validator accepted is a hand of a chunk (its tables are what
   `build_tables` makes of the hand the reference gives: `tests/test_pokerstars_tables.py`); every other hand
   (declined, refused, too long) is read by the reference's code for that one span (`pokerstars.span_items`),
   which gives its hand or words its refusal, and the notes of the conventions it applied, once per file.

Items keep the file's order: a run of consecutive hands the fast path took is given as chunks of at most
`CHUNK_HANDS` hands; a chunk's hands' dicts (`TableChunk.source`, for the few hands a report shows) are read
again from the file's bytes, kept with the chunk, when asked for.

`ingest.compiled.takes_column_wise` decides which inputs take this path: a file of `MIN_FILE_BYTES["pokerstars"]`
or more (see there).
Measured on 20,000 hands our writer wrote (benchmarks/readers_speed.py, CPU, one quiet run): the reference reads
them at ~207 µs a hand, this path at ~34 µs in session 11 (the header in Python ~12 µs of it, the conversion kernel
~7.5 µs, the lines, the tables and the validator the rest). With the headers read a template at a time (session 19,
another host): ~22 µs, the headers ~1-2 µs of it, the conversion kernel ~5 µs, the lines ~2.5 µs.
"""

from __future__ import annotations

import codecs
from collections.abc import Generator, Iterator, Sequence
from decimal import Decimal
from functools import lru_cache
from pathlib import Path

import numpy as np
import pyarrow as pa

from auditor.ingest import columnar_validate, pokerstars, pokerstars_headers, pokerstars_kernel, text_blocks
from auditor.ingest.arrow_columns import (
    EventNames,
    card_lists,
    event_table,
    list_array,
    span_positions,
    texts,
)
from auditor.ingest.limits import DEFAULT_LIMITS, Limits
from auditor.ingest.parquet import TableChunk
from auditor.model.records import Quarantined, ReaderNote, SourceHand
from auditor.model.tables import EVENTS_SCHEMA, HANDS_SCHEMA, SEATS_SCHEMA, CanonicalTables

__all__ = ["BATCH_HANDS", "CHUNK_HANDS", "FAILURES", "read_pokerstars_tables"]

#: hands converted and validated together (the validator's fixed cost per call spread over them; the arrays a
#: few tens of MB whatever the file)
BATCH_HANDS = 4096
#: at most this many hands per TableChunk (a chunk cut at a batch of the audit rebuilds the dicts it keeps)
CHUNK_HANDS = 1000
#: the last failures of the fast path itself (a bug: its hands then took the reference path)
FAILURES: list[str] = []

_K = pokerstars_kernel
_EVENT_NAMES = EventNames.of(_K)
_CARDS = pa.array(_K.CARD_NAMES, pa.string())
_STATUS = pa.array(["active", "sitting_out"], pa.string())
_ROOM = pa.array([pokerstars.ROOM], pa.string())
_VARIANTS = ("holdem", "omaha", "five-card-draw")
_STRUCTURES = ("no-limit", "pot-limit", "fixed-limit")
_HUNDRED = Decimal(100)


def read_pokerstars_tables(path: Path, limits: Limits = DEFAULT_LIMITS, rule_pack: str = "tda-2024",
                           batch_hands: int | None = None,
                           chunk_hands: int | None = None
                           ) -> Iterator[TableChunk | SourceHand | Quarantined | ReaderNote]:
    """`read_pokerstars(path, rule_pack=rule_pack, limits=limits)`'s items, the hands the columnar path takes as
    TableChunks (batches of `batch_hands`, chunks of at most `chunk_hands`: BATCH_HANDS and CHUNK_HANDS unless
    given). The file is read a block at a time, as the reference reads it (`pokerstars.in_blocks`); a block this
    path cannot take is read by the reference's code for one block (`pokerstars.block_items`)."""
    name = str(path)
    noted: set[str] = set()
    batch_hands = max(1, BATCH_HANDS if batch_hands is None else batch_hands)
    chunk_hands = max(1, CHUNK_HANDS if chunk_hands is None else chunk_hands)

    def block(raw: bytes, line0: int, final: bool) -> Generator[Item, None, tuple[int, int]]:
        return _block_items(raw, line0, final, name, limits, rule_pack, noted, batch_hands, chunk_hands)

    yield from pokerstars.in_blocks(Path(path), limits, block)


Item = TableChunk | SourceHand | Quarantined | ReaderNote


def _block_items(raw: bytes, line0: int, final: bool, name: str, limits: Limits, rule_pack: str, noted: set[str],
                 batch_hands: int, chunk_hands: int) -> Generator[Item, None, tuple[int, int]]:
    """One block's items (`pokerstars.in_blocks`); returns the (bytes, lines) of the block used: up to the start of
    its last hand unless `final` (the kernel's hand starts are the reference's: a plain block has no inner header,
    so each starts a line)."""
    plan = None
    text = _plain(raw, first=line0 == 0)
    if text is not None:
        try:
            plan = _Plan(text, name, limits, line0)
        except Exception as exc:  # a fault of ours costs speed (the reference path), never a verdict
            _failed(exc)
    if plan is None or not plan.ok:
        return (yield from pokerstars.block_items(raw, line0, final, name, rule_pack, limits, noted))
    hands = plan.hands if final else plan.hands - 1  # the last may go on in the next block
    if plan.fragment and (hands or final):
        yield from pokerstars.span_items(plan.text(0, plan.first), line0, line0 + plan.first,
                                         plan.size(0, plan.first), name, rule_pack, limits, noted)
    for a in range(0, hands, batch_hands):
        b = min(hands, a + batch_hands)
        taken = None
        try:
            taken, tables = plan.convert(a, b, rule_pack)
        except Exception as exc:
            _failed(exc)
        if taken is None:
            taken = np.zeros(b - a, dtype=bool)
            tables = None
        yield from _items(plan, a, b, taken, tables, rule_pack, limits, noted, chunk_hands)
    if final:
        return len(raw), 0
    if not hands:
        return 0, 0
    last = int(plan.header_lines[hands])
    return len(raw) - len(text) + int(plan.starts[last]), last


def _failed(exc: Exception) -> None:
    FAILURES.append(f"{type(exc).__name__}: {str(exc)[:200]}")
    del FAILURES[:-20]


def _plain(raw: bytes, first: bool = True) -> bytes | None:
    """A block's UTF-8 text as bytes (after a UTF-8 byte-order mark at the file's start: what `decode_bytes`
    decodes), or None when it is not UTF-8 or holds what makes the reference's lines or spans differ from the
    kernel's (see the module docstring)."""
    if first and raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8):]
    elif first and text_blocks.wide(raw):
        return None
    if not raw:  # (U+FEFF, separators, the Kelvin sign and the long s: `pokerstars_kernel.lines` flags them)
        return None
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return raw


class _Plan:
    """A plain file's lines and hands: each hand a span [header line, next header line) of the lines."""

    def __init__(self, raw: bytes, name: str, limits: Limits, line0: int = 0) -> None:
        self.raw, self.name, self.limits = raw, name, limits
        self.line0 = line0  # lines of the file before this block: a line's number is line0 + its index + 1
        self.data = np.frombuffer(raw, dtype=np.uint8)
        cap = raw.count(b"\n") + raw.count(b"\r") + 1
        starts = np.empty(cap, dtype=np.int64)
        ends = np.empty(cap, dtype=np.int64)
        flags = np.empty(cap, dtype=np.int64)
        n = _K.lines(self.data, limits.pokerstars_max_line_bytes, starts, ends, flags)
        self.ok = n > 0 and not (flags[:n] & _K.L_ANOMALY).any()
        self.starts, self.ends, self.flags = starts[:n], ends[:n], flags[:n]
        if not self.ok:
            return
        candidates = np.flatnonzero(self.flags & _K.L_HEADER)
        heads, texts, ids, rest_at = [], [], [], []
        match = pokerstars.HEADER.match
        for i, s, e in zip(candidates.tolist(), self.starts[candidates].tolist(), self.ends[candidates].tolist(),
                           strict=True):
            text = raw[s:e].decode("utf-8")
            m = match(text)
            if m:
                heads.append(i)
                texts.append(text)
                ids.append(m["id"])
                at = m.start("rest")  # the rest's first byte, for `pokerstars_headers`
                rest_at.append(s + (at if text.isascii() else len(text[:at].encode())))
        if not heads:  # no hand at all: the reference words what the file is
            self.ok = False
            return
        self.header_lines = np.array(heads, dtype=np.int64)
        self.header_texts, self.hand_ids = texts, ids
        self.rest_lo = np.array(rest_at, dtype=np.int64)
        self.headers = pokerstars_headers.Headers.new()
        #: table line (its bytes) -> (table id, button, table size) as `_HandReader.table` reads it
        self.tables_read: dict[bytes, tuple[str | None, int, int | None]] = {}
        self.hands = len(heads)
        self.span_end = np.append(self.header_lines[1:], n)
        self.first = heads[0]
        # the line sizes as `_span_size` counts them (UTF-8 bytes and a newline each), summed from line 0
        self.cum = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(self.ends - self.starts + 1, out=self.cum[1:])
        self.fragment = any(line.strip() for line in self.text(0, self.first))
        # per line, the first line at or after it that is not blank (`_HandReader.read`'s body)
        blank = (self.flags & _K.L_BLANK) != 0
        index = np.where(blank, n, np.arange(n, dtype=np.int64))
        self.next_body = np.append(np.minimum.accumulate(index[::-1])[::-1], n)

    def text(self, a: int, b: int) -> list[str]:
        """Lines a..b - 1 as the reference holds them."""
        raw = self.raw
        return [raw[s:e].decode("utf-8") for s, e in zip(self.starts[a:b].tolist(), self.ends[a:b].tolist(),
                                                          strict=True)]

    def size(self, a: int, b: int) -> int:
        return int(self.cum[b] - self.cum[a])

    def span(self, k: int) -> tuple[int, int]:
        return int(self.header_lines[k]), int(self.span_end[k])

    def convert(self, a: int, b: int, rule_pack: str) -> tuple[np.ndarray, CanonicalTables | None]:
        """(per hand a..b - 1, whether the fast path took it; the tables of those it took, in order)."""
        count = b - a
        h = np.zeros((count, len(_K.H_COLUMNS)), dtype=np.int64)
        heads = self.header_lines[a:b]
        ends = self.span_end[a:b]
        table_lines = self.next_body[heads + 1]
        h[:, _K.H_LINE_LO] = heads + 1
        h[:, _K.H_LINE_HI] = ends
        h[:, _K.H_TABLE] = -1
        sizes = self.cum[ends] - self.cum[heads]
        max_hand = self.limits.pokerstars_max_hand_bytes
        reader = pokerstars._HandReader([], 0, rule_pack)
        info: list[tuple | None] = [None] * count
        raw = self.raw
        starts, line_ends = self.starts, self.ends
        table_starts = starts[np.minimum(table_lines, len(starts) - 1)].tolist()
        table_ends = line_ends[np.minimum(table_lines, len(starts) - 1)].tolist()
        rows: list[int] = []
        given: list[tuple[int, int, int, int, int, int]] = []
        tables_read = self.tables_read
        templates, times = pokerstars_headers.read_headers(self.data, self.rest_lo[a:b], line_ends[heads],
                                                           self.headers, rule_pack)
        hand_ids = self.hand_ids
        parts: dict[int, tuple | None] = {}  # per template (alive in `templates` meanwhile): what it gives a hand
        for j, (t, end, size) in enumerate(zip(table_lines.tolist(), ends.tolist(), sizes.tolist(), strict=True)):
            if t >= end or size > max_hand:
                continue
            table = raw[table_starts[j]:table_ends[j]]
            if table[:7] != b"Table '":
                continue
            try:
                template = templates[j]
                if template is None:
                    reader.places = 0
                    reader.header(self.header_texts[a + j])
                    hand_id, started = reader.hand_id, reader.started_at
                    part = _part(reader)
                else:
                    hand_id, started = hand_ids[a + j], times[j]
                    key = id(template)
                    if key not in parts:
                        parts[key] = _part(template)
                    part = parts[key]
                # a table line is the same for many hands (the button moves among a few seats): read once each
                known = tables_read.get(table)
                if known is None:
                    text = table.decode("utf-8")
                    reader.table(text)
                    known = (reader.table_id, reader.button, reader.max_seats)
                    if len(text) <= 256:
                        tables_read[table] = known
            except Exception:  # the reference reads this hand and words why
                continue
            if part is None:
                continue
            table_id, button, max_seats = known
            rows.append(j)
            given.append((t, button, *part[0]))
            info[j] = (hand_id, table_id, started, *part[1], max_seats, *part[2])
        if rows:
            h[np.array(rows), _K.H_TABLE:_K.H_DRAW + 1] = np.array(given, dtype=np.int64)
        lo, hi = int(heads[0]), int(ends[-1])
        n_lines = hi - lo
        s_out = np.empty((count * 10, 5), dtype=np.int64)
        ev = np.empty((n_lines + 12 * count + 16, len(_K.EV_COLUMNS)), dtype=np.int64)
        byte_lo, byte_hi = int(starts[lo]), int(line_ends[hi - 1])
        cards = np.empty((byte_hi - byte_lo) // 2 + 64 * count + 64, dtype=np.int64)
        ns, ne, nc = _K.convert(self.data, starts, line_ends, self.flags, h, s_out, ev, cards)
        ok = h[:, _K.H_OK] == 1
        taken = np.zeros(count, dtype=bool)
        if not ok.any():
            return taken, None
        rows = np.flatnonzero(ok)
        tables = _tables(self, h[rows], [info[j] for j in rows.tolist()], (heads[rows] + 1 + self.line0).tolist(),
                         s_out[:ns],
                         ev[:ne], cards[:nc], rule_pack)
        valid = columnar_validate.validate(tables.hands, tables.seats, tables.events).valid
        if not valid.any():
            return taken, None
        taken[rows[valid]] = True
        return taken, tables.keep(valid)


def _part(header: pokerstars._HandReader | pokerstars_headers.Template) -> tuple | None:
    """What a header gives its hand (as the reference's reader read it, or its template: the same fields), or None
    when the kernel does not read such a hand (a game it does not know, amounts of more than two decimals): the
    kernel's inputs (hole cards, tournament, the big blind in hundredths, five-card draw) and the hand's columns
    (variant, structure, currency; then stakes in hundredths, decimals)."""
    variant, structure, places = header.variant, header.structure, header.places
    if variant not in _VARIANTS or places > 2:
        return None
    small_h, big_h = _hundredths(header.small), _hundredths(header.big)
    return ((header.hole_cards, header.tournament, big_h if structure != "fixed-limit" else small_h,
             variant == "five-card-draw"), (variant, structure, header.currency), (small_h, big_h, places))


@lru_cache(maxsize=4096)
def _hundredths(value: Decimal) -> int:
    """An amount of at most two decimals in hundredths (stakes repeat from hand to hand: read once each)."""
    return int(value * _HUNDRED)


def _tables(plan: _Plan, h: np.ndarray, info: list, lines: list[int], seats: np.ndarray, ev: np.ndarray,
            cards: np.ndarray, rule_pack: str) -> CanonicalTables:
    """The canonical tables of the converted hands' rows (`h` a row per hand, in order)."""
    k = _K
    count = len(h)
    hand_ids, table_ids, started, variants, structures, currency, max_given, small, big, header_places = (
        list(column) for column in zip(*info, strict=True))
    cash = np.array([c is not None for c in currency], dtype=bool)
    places = np.maximum(h[:, k.H_PLACES], np.array(header_places, dtype=np.int64))
    scale = 10 ** np.maximum(places, np.where(cash, 2, 0))
    f = 100 // scale  # amounts are in hundredths: scale 1, 10 or 100
    small = np.array(small, dtype=np.int64) // f
    big = np.array(big, dtype=np.int64) // f
    fixed = np.array([s == "fixed-limit" for s in structures], dtype=bool)
    draw = np.array([v == "five-card-draw" for v in variants], dtype=bool)
    sb = np.where(h[:, k.H_SB] >= 0, h[:, k.H_SB] // f, small // 2)
    blinds = np.stack([np.where(fixed, sb, small), np.where(fixed, small, big)], axis=1)
    # fixed limit: the small bet twice and the big bet twice, or once each in five-card draw (its two rounds)
    units = np.where(draw[:, None], np.stack([small, big, small, big], axis=1),
                     np.stack([small, small, big, big], axis=1))
    unit_count = np.where(fixed, np.where(draw, 2, 4), 0)
    bet_values = units[np.arange(4)[None, :] < unit_count[:, None]]
    ante = np.where(h[:, k.H_ANTE] >= 0, h[:, k.H_ANTE] // f, 0)
    g = np.gcd(h[:, k.H_GCD] // f, np.gcd(blinds[:, 0], blinds[:, 1]))
    g = np.where(fixed, np.gcd(g, np.gcd(small, big)), g)
    smallest = np.where(cash, scale // 100, scale)
    chip_unit = np.gcd(smallest, g)
    chip_unit = np.where(chip_unit == 0, 1, chip_unit)
    max_seats = np.array([m if m is not None else -1 for m in max_given], dtype=np.int64)
    max_seats = np.where(max_seats >= 0, max_seats, np.maximum(pokerstars.DEFAULT_MAX_SEATS, h[:, k.H_HIGHEST]))
    no_lists = list_array(np.zeros(count, np.int64), pa.array([], pa.int64()))
    zeros = np.zeros(count, np.int64)
    columns = {
        "hand": pa.array(np.arange(count, dtype=np.int32)),
        "hand_id": pa.array(hand_ids, pa.string()),
        "table_id": pa.array(table_ids, pa.string()),
        "room": _ROOM.take(pa.array(zeros)),
        "started_at": texts(started),
        "variant": pa.array(variants, pa.string()),
        "structure": pa.array(structures, pa.string()),
        "rule_pack": pa.array([rule_pack], pa.string()).take(pa.array(zeros)),
        "currency": texts(currency),
        "max_seats": pa.array(max_seats.astype(np.int8), pa.int8()),
        "blinds": list_array(np.full(count, 2, np.int64), pa.array(blinds.reshape(-1), pa.int64())),
        "ante": pa.array(ante, pa.int64()),
        "bet_units": list_array(unit_count, pa.array(bet_values, pa.int64())),
        "spread_min": no_lists,
        "spread_max": no_lists,
        "table_min": pa.nulls(count, pa.int64()),
        "table_max": pa.nulls(count, pa.int64()),
        "chip_unit": pa.array(chip_unit, pa.int64()),
        "file": pa.array([plan.name], pa.string()).take(pa.array(zeros)),
        "line": pa.array(np.array(lines, dtype=np.int64)),
        "money_scale": pa.array(scale, pa.int64()),
    }
    hands = pa.table([columns[field.name] for field in HANDS_SCHEMA], schema=HANDS_SCHEMA)
    # seats: the players' names, gathered from the file's bytes into one string array (no Python string each)
    per_hand = h[:, k.H_SEAT_HI] - h[:, k.H_SEAT_LO]
    owner = np.repeat(np.arange(count, dtype=np.int64), per_hand)
    seat_f = f[owner]
    seat_columns = {
        "hand": pa.array(owner.astype(np.int32)),
        "seat": pa.array(seats[:, k.S_SEAT].astype(np.int8), pa.int8()),
        "player": _slices(plan.data, seats[:, k.S_NAME_LO], seats[:, k.S_NAME_HI]),
        "stack": pa.array(seats[:, k.S_STACK] // seat_f, pa.int64()),
        "status": _STATUS.take(pa.array(seats[:, k.S_STATUS])),
    }
    seat_table = pa.table([seat_columns[field.name] for field in SEATS_SCHEMA], schema=SEATS_SCHEMA)
    # events
    per_hand = h[:, k.H_EV_HI] - h[:, k.H_EV_LO]
    ev_f = f[np.repeat(np.arange(count, dtype=np.int64), per_hand)]  # each event's hand's scale divisor
    amount, to = ev[:, k.E_AMOUNT], ev[:, k.E_TO]
    events = event_table(per_hand, _EVENT_NAMES, kind=ev[:, k.E_KIND], seat=ev[:, k.E_SEAT], action=ev[:, k.E_ACTION],
                         post=ev[:, k.E_POST], blind=ev[:, k.E_BLIND], amount=np.where(amount < 0, -1, amount // ev_f),
                         to=np.where(to < 0, -1, to // ev_f), all_in=ev[:, k.E_ALL_IN], target=ev[:, k.E_TARGET],
                         pot=ev[:, k.E_POT], cards=card_lists(ev[:, k.E_CARD_LO], ev[:, k.E_CARD_HI], cards, _CARDS),
                         receive=card_lists(ev[:, k.E_RECEIVE_LO], ev[:, k.E_RECEIVE_HI], cards, _CARDS))
    return CanonicalTables(hands, seat_table, events)


def _slices(data: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> pa.Array:
    """The UTF-8 texts data[lo:hi] (each cut at ASCII bytes of a UTF-8 file: valid) as one string array."""
    lengths, at = span_positions(lo, hi)
    offsets = np.zeros(len(lo) + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    values = data[at]
    return pa.StringArray.from_buffers(len(lo), pa.py_buffer(offsets), pa.py_buffer(values.tobytes()))


def _items(plan: _Plan, a: int, b: int, taken: np.ndarray, tables: CanonicalTables | None, rule_pack: str,
           limits: Limits, noted: set[str],
           chunk_hands: int) -> Iterator[TableChunk | SourceHand | Quarantined | ReaderNote]:
    """Hands a..b - 1's items in order: runs of taken hands as chunks, every other hand read by the reference."""
    seat_starts = event_starts = None
    if tables is not None:
        seat_starts, event_starts = tables.starts()
    row = 0  # the tables' next hand
    k = a
    while k < b:
        if taken[k - a]:
            stop = k
            while stop < b and taken[stop - a] and stop - k < chunk_hands:
                stop += 1
            assert tables is not None and seat_starts is not None and event_starts is not None
            part = tables.between(row, row + stop - k, seat_starts, event_starts)
            yield _chunk(plan, part, list(range(k, stop)), rule_pack)
            row += stop - k
            k = stop
            continue
        start, end = plan.span(k)
        yield from pokerstars.span_items(plan.text(start, end), plan.line0 + start, plan.line0 + end,
                                         plan.size(start, end), plan.name,
                                         rule_pack, limits, noted)
        k += 1


def _chunk(plan: _Plan, tables: CanonicalTables, hands: list[int], rule_pack: str) -> TableChunk:
    empty = np.zeros(0, np.int64)
    count = len(hands)
    return TableChunk(tables, plan.name, [None] * count, [None] * count, HANDS_SCHEMA.empty_table(),
                      SEATS_SCHEMA.empty_table(), empty, empty, EVENTS_SCHEMA.empty_table(), empty, empty,
                      _Lazy(plan, hands, rule_pack))


class _Lazy(Sequence):
    """A chunk's hands as `read_pokerstars` gives them, each read again from the file's bytes when asked for."""

    def __init__(self, plan: _Plan, hands: list[int], rule_pack: str) -> None:
        self.plan, self.hands, self.rule_pack = plan, hands, rule_pack

    def __len__(self) -> int:
        return len(self.hands)

    def take(self, rows: Sequence[int]) -> _Lazy:
        """The hands `rows`, still unread (`TableChunk.without`)."""
        return _Lazy(self.plan, [self.hands[int(i)] for i in rows], self.rule_pack)

    def __getitem__(self, i):  # type: ignore[no-untyped-def, override]
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        start, end = self.plan.span(self.hands[i])
        line = self.plan.line0 + start + 1
        item = pokerstars.convert_hand(self.plan.text(start, end), self.plan.name, line, self.rule_pack)
        if not isinstance(item, SourceHand):  # cannot be: the fast path took only hands the reference accepts
            raise RuntimeError(f"{self.plan.name}: the reference no longer gives the hand at line {line}")
        return item
