"""The hand-log schema and `consistency_error`, checked over whole Arrow tables instead of one dict per hand.

A Parquet dataset arrives as three columnar tables. Rebuilding a dict per hand and per event only to hand it
to jsonschema-rs cost about 120 µs a hand, a third of an audit; here every check the schema
(`schemas/hand-log.schema.json`) and `auditor.ingest.jsonl.consistency_error` make is one NumPy/Arrow
operation over a column: per-event kind -> required and allowed fields, enums, ranges, string lengths,
card patterns, list lengths, seat references. Python runs once per *refused* hand only, to word its reason.

What is validated is exactly the hand `auditor.ingest.parquet` would rebuild from the rows (a null is an
absent key, an ante of 0 and empty bet units are absent, a spread is cut to the shorter of its two lists,
events in (hand, seq) order with nulls first), so the verdict can be held equal to jsonschema-rs on that
hand: a hand is refused here iff jsonschema-rs + consistency_error refuse it, with the same one-line reason
`schema: at <path>: <message>` (`tests/test_columnar_validate.py` holds the two equal by a property over the
fuzzer's grammar hands and mutated tables; jsonschema stays the reference).

Which error is *first* follows jsonschema-rs as observed: in an object, `required` (in the schema's list
order) before its properties; properties in the order of the instance's keys (the rebuilt dict's order),
a key the schema does not allow failing at that key's turn (`additionalProperties`, one key named); an
`if`/`then` after the properties; in an array, `minItems`/`maxItems` before the items, items in order; in a
string, length before format. Each failing check gets a sort key from that order, and each hand keeps the
smallest.

Wording a reason takes about a hundred Arrow passes per chunk, and almost every hand of a real dataset is
valid: `validate` first screens every hand (`_screen`) in a few compiled passes over the columns' own buffers
(`auditor.ingest.columnar_kernels`), which may doubt a valid hand but never passes a refused one, and runs the
ordered checks above (`_judge`) only on the doubted hands with their own seats and events (7.4 -> ~3.6 µs a
hand on the benchmark's simulated hands; `tests/test_columnar_validate.py` holds the screen sound too).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from auditor.ingest import columnar_kernels
from auditor.ingest.validate import MAX_REASON, one_line_error
from auditor.model.compiled import njit

MONEY_MAX = 10**15
CARDS = frozenset([r + s for r in "23456789TJQKA" for s in "cdhs"] + ["??"])
CARD_PATTERN = r"^([2-9TJQKA][cdhs]|\?\?)$"
KINDS = ("seat_draw", "seat_request", "seat_fill", "button", "post", "deal", "draw", "action", "show", "muck",
         "return", "rake", "award", "kill")
VARIANTS = ("holdem", "omaha", "omaha-nz", "three-card-nz", "five-card-draw")
STRUCTURES = ("fixed-limit", "spread-limit", "pot-limit", "no-limit")
STATUSES = ("active", "sitting_out", "new", "away")
ACTIONS = ("fold", "check", "call", "bet", "raise")
POSTS = ("blind", "ante", "straddle", "dead", "missed")
TARGETS = ("hole", "board", "burn")

#: the keys of the rebuilt event, after kind and t, in the order `parquet._event` writes them: four kinds
#: have their own layout; every other kind (and an unknown or missing one) takes the generic columns
_GENERIC = ("seat", "player", "action", "post", "blind", "amount", "to", "all_in", "pot", "from_seat")
#: the generic keys each kind's definition allows (the others are `additionalProperties: false` errors)
_ALLOWED = {
    "seat_request": {"player", "seat", "from_seat"}, "seat_fill": {"player", "seat"}, "button": {"seat"},
    "post": {"seat", "post", "blind", "amount", "all_in"}, "action": {"seat", "action", "amount", "to", "all_in"},
    "muck": {"seat"}, "return": {"seat", "amount"}, "rake": {"pot", "amount"}, "award": {"pot", "seat", "amount"},
    "kill": {"seat"},
}
#: each definition's `required` list after `kind`, in schema order
_REQUIRED = {
    "seat_draw": ("seat", "draws", "awarded_to"), "seat_request": ("player",), "seat_fill": ("player", "seat"),
    "button": ("seat",), "post": ("seat", "post", "amount"), "deal": ("to", "cards"),
    "draw": ("seat", "discard", "receive"), "action": ("seat", "action"), "show": ("seat", "cards"),
    "muck": ("seat",), "return": ("seat", "amount"), "rake": ("amount",), "award": ("pot", "seat", "amount"),
    "kill": ("seat",),
}
_HAND_REQUIRED = ("hand_id", "table_id", "variant", "structure", "stakes", "max_seats", "rule_pack", "seats", "events")
#: the rebuilt hand's keys in order (`parquet._rebuild`), each its slot in the sort key
_HAND_SLOT = {k: 10 + i for i, k in enumerate(("hand_id", "table_id", "room", "started_at", "variant", "structure",
                                              "rule_pack", "currency", "money_scale", "max_seats", "stakes",
                                              "seats", "events"))}
_STAKES_SUB = {"blinds": 2, "ante": 3, "bet_units": 4, "table_min": 5, "table_max": 6, "chip_unit": 7, "spread": 8}
_SEAT_SUB = {"seat": 3, "player": 4, "stack": 5, "status": 6}

# sort key: slot (hand key) | index (seat or event number + 1; 0 for the list itself) | sub (key within the
# object) | elem (item within a list + 1; 0 for the list itself). Larger values are clamped: past them a
# length limit of the same object has already failed first.
_SLOT, _INDEX, _SUB = 58, 36, 30
_MAX_INDEX, _MAX_ELEM = (1 << 22) - 1, (1 << 30) - 1
NO_ERROR = np.iinfo(np.int64).max


@dataclass(frozen=True)
class _Key:
    """A sort key per row, kept as its parts (each a scalar or an array per row) and made only for the rows
    that fail a check: most checks fail nowhere, and building a full key array for each cost more than the
    checks themselves."""

    slot: int
    index: np.ndarray | int = 0
    sub: np.ndarray | int = 0
    elem: np.ndarray | int = 0

    def at(self, where: np.ndarray) -> np.ndarray:
        def part(value: np.ndarray | int) -> np.ndarray | int:
            return value[where] if isinstance(value, np.ndarray) else value

        index = np.minimum(np.asarray(part(self.index), dtype=np.int64), _MAX_INDEX)
        elem = np.minimum(np.asarray(part(self.elem), dtype=np.int64), _MAX_ELEM)
        key = (np.int64(self.slot) << _SLOT) | (index << _INDEX) | (np.asarray(part(self.sub), np.int64) << _SUB) | elem
        return np.broadcast_to(key, where.shape)

    def items(self, parent: np.ndarray, elem: np.ndarray) -> _Key:
        """The key of list items: their row's key (`parent`: the row of each item) with the item's place."""
        def part(value: np.ndarray | int) -> np.ndarray | int:
            return value[parent] if isinstance(value, np.ndarray) else value

        return _Key(self.slot, part(self.index), part(self.sub), elem)


def _key(slot: int, index: np.ndarray | int = 0, sub: np.ndarray | int = 0, elem: np.ndarray | int = 0) -> _Key:
    return _Key(slot, index, sub, elem)


@dataclass
class _Candidates:
    """Failing checks: who (hand row or hand number), sort key, check name, table row, list item."""

    owner: list[np.ndarray]
    key: list[np.ndarray]
    check: list[np.ndarray]
    row: list[np.ndarray]
    elem: list[np.ndarray]
    names: list[str]

    def add(self, name: str, mask: np.ndarray, owner: np.ndarray, key: _Key, elem: np.ndarray | None = None,
            rows: np.ndarray | None = None) -> None:
        """Record the rows of `mask` as failures of check `name` (owner/key/elem/rows are per row)."""
        where = np.flatnonzero(mask)
        if not len(where):
            return
        if name not in self.names:
            self.names.append(name)
        self.owner.append(np.asarray(owner)[where])
        self.key.append(key.at(where))
        self.check.append(np.full(len(where), self.names.index(name), dtype=np.int64))
        self.row.append(where if rows is None else np.asarray(rows)[where])
        self.elem.append(np.zeros(len(where), np.int64) if elem is None else np.broadcast_to(elem, mask.shape)[where])

    def first(self, owners: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per owner 0..owners-1: the smallest key (NO_ERROR if none) and its check, row and item."""
        best = np.full(owners, NO_ERROR, dtype=np.int64)
        check = np.full(owners, -1, dtype=np.int64)
        row = np.zeros(owners, np.int64)
        elem = np.zeros(owners, np.int64)
        if not self.key:
            return best, check, row, elem
        owner, key = np.concatenate(self.owner), np.concatenate(self.key)
        order = np.lexsort((key, owner))
        owner, key = owner[order], key[order]
        head = np.concatenate(([True], owner[1:] != owner[:-1]))
        pick = order[head]
        best[owner[head]] = key[head]
        check[owner[head]] = np.concatenate(self.check)[pick]
        row[owner[head]] = np.concatenate(self.row)[pick]
        elem[owner[head]] = np.concatenate(self.elem)[pick]
        return best, check, row, elem


def _new() -> _Candidates:
    return _Candidates([], [], [], [], [], [])


#: results of the column helpers below for the `validate` call under way, by (helper, column, argument): a
#: column is looked at by several checks (the kind by nearly all), and each Arrow pass over millions of
#: events costs milliseconds. Emptied when the call ends; the columns outlive it, so their ids stay unique.
_memo: dict[tuple, object] = {}


def _memoised(helper):  # type: ignore[no-untyped-def]
    def wrapped(column, *args):  # type: ignore[no-untyped-def]
        key = (helper.__name__, id(column), args)
        if key not in _memo:
            _memo[key] = (helper(column, *args), column)  # the column kept: its id is not reused meanwhile
        return _memo[key][0]

    wrapped.__doc__ = helper.__doc__
    return wrapped


def _valid(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """Whether each value is not null (no pass over the data when the column has no null)."""
    if column.null_count == 0:
        return np.ones(len(column), dtype=bool)
    return pc.is_valid(column).to_numpy(zero_copy_only=False)


def _null(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    return ~_valid(column)


@_memoised
def _ints(column: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(values as int64 with nulls 0, present mask)."""
    present = _valid(column)
    filled = column if column.null_count == 0 else pc.fill_null(column, 0)
    return filled.to_numpy(zero_copy_only=False).astype(np.int64, copy=False), present


@_memoised
def _lengths(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """Characters of each string (code points, as the schema counts them); -1 for null."""
    lengths = pc.utf8_length(column)
    if column.null_count:
        lengths = pc.fill_null(lengths, -1)
    return lengths.to_numpy(zero_copy_only=False).astype(np.int64, copy=False)


@_memoised
def _code(column: pa.ChunkedArray | pa.Array, values: tuple[str, ...]) -> np.ndarray:
    """Index of each string in `values`; -1 for another string, -2 for null."""
    index = pc.fill_null(pc.index_in(column, value_set=pa.array(values)), -1).to_numpy(zero_copy_only=False)
    return np.where(_null(column), -2, index).astype(np.int64)


@dataclass(eq=False)
class _Items:
    """A list column flattened: per item its list's row, its position in the list (made when first asked:
    only a failing item needs it), and the values."""

    length: np.ndarray  # per row; -1 for a null list
    parent: np.ndarray
    values: pa.Array
    _position: np.ndarray | None = None

    @property
    def position(self) -> np.ndarray:
        if self._position is None:
            starts = np.concatenate(([0], np.cumsum(np.maximum(self.length, 0))))[:-1]
            self._position = (np.arange(len(self.parent), dtype=np.int64) - starts[self.parent] if len(self.parent)
                              else self.parent)
        return self._position


@_memoised
def _items(column: pa.ChunkedArray | pa.Array) -> _Items:
    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    length = pc.list_value_length(array)
    if array.null_count:
        length = pc.fill_null(length, -1)
    values = pc.list_flatten(array)
    parent = pc.list_parent_indices(array).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
    return _Items(length.to_numpy(zero_copy_only=False).astype(np.int64, copy=False), parent, values)


#: per first and second byte, whether the two make a card of the schema's pattern (`CARD_PATTERN`)
_CARD_BYTES = np.zeros((256, 256), dtype=bool)
for _card in CARDS:
    _CARD_BYTES[ord(_card[0]), ord(_card[1])] = True


@_memoised
def _card_ok(values: pa.Array) -> np.ndarray:
    """Whether each string is a card: two bytes that make one (every card is two ASCII characters), read
    straight from the string buffers; null is no card."""
    if not len(values):
        return np.zeros(0, dtype=bool)
    if values.type != pa.string():
        return pc.is_in(values, value_set=pa.array(sorted(CARDS))).to_numpy(zero_copy_only=False)
    _, offsets_buffer, data_buffer = values.buffers()
    offsets = np.frombuffer(offsets_buffer, dtype=np.int32, count=values.offset + len(values) + 1)[values.offset:]
    data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else np.zeros(0, np.uint8)
    starts = offsets[:-1].astype(np.int64)
    two = (offsets[1:] - offsets[:-1]) == 2
    first = np.where(two, starts, 0)
    ok = np.zeros(len(values), dtype=bool)
    if len(data) >= 2:
        ok = two & _CARD_BYTES[data[np.minimum(first, len(data) - 2)], data[np.minimum(first + 1, len(data) - 1)]]
    return ok & _valid(values)


def _money_checks(out: _Candidates, name: str, values: np.ndarray, mask: np.ndarray, owner: np.ndarray,
                  key: np.ndarray, elem: np.ndarray | int = 0, rows: np.ndarray | None = None,
                  low: int = 0, high: int = MONEY_MAX) -> None:
    out.add(f"min:{name}:{low}", mask & (values < low), owner, key, elem, rows)
    out.add(f"max:{name}:{high}", mask & (values > high), owner, key, elem, rows)


def _string_checks(out: _Candidates, name: str, lengths: np.ndarray, owner: np.ndarray, key: np.ndarray,
                   low: int, high: int, elem: np.ndarray | int = 0, rows: np.ndarray | None = None) -> None:
    if low:
        out.add(f"minlen:{name}:{low}", (lengths >= 0) & (lengths < low), owner, key, elem, rows)
    out.add(f"maxlen:{name}:{high}", lengths > high, owner, key, elem, rows)


def _date_time_ok(column: pa.ChunkedArray) -> np.ndarray:
    """RFC 3339 date-time as jsonschema-rs checks it: `T`/`t`, `Z`/`z` or an offset up to 23:59, a real
    calendar day, and a second of 60 only at 23:59 UTC (a leap second). The usual form
    (`2024-05-01T18:03:11Z`, 20 bytes) is read straight from the string buffer; the others by regex."""
    text = pc.fill_null(column, "").combine_chunks() if isinstance(column, pa.ChunkedArray) else \
        pc.fill_null(column, "")
    ok = np.zeros(len(text), dtype=bool)
    if not len(text):
        return ok
    _, offsets_buffer, data_buffer = text.buffers()
    offsets = np.frombuffer(offsets_buffer, dtype=np.int32, count=text.offset + len(text) + 1)[text.offset:]
    data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else np.zeros(0, np.uint8)
    fast = (offsets[1:] - offsets[:-1]) == 20
    if fast.any():
        rows = np.flatnonzero(fast)
        chars = data[offsets[:-1][rows].astype(np.int64)[:, None] + np.arange(20)]
        digits = chars[:, [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]].astype(np.int64) - ord("0")
        shaped = ((digits >= 0) & (digits <= 9)).all(axis=1) & (chars[:, 4] == ord("-")) & (chars[:, 7] == ord("-"))
        shaped &= np.isin(chars[:, 10], (ord("T"), ord("t"))) & (chars[:, 13] == ord(":"))
        shaped &= (chars[:, 16] == ord(":")) & np.isin(chars[:, 19], (ord("Z"), ord("z")))
        d = np.where(shaped[:, None], digits, 0)
        zero = np.zeros(len(rows), np.int64)
        year = d[:, 0] * 1000 + d[:, 1] * 100 + d[:, 2] * 10 + d[:, 3]
        ok[rows] = shaped & _calendar_ok(year, d[:, 4] * 10 + d[:, 5], d[:, 6] * 10 + d[:, 7], d[:, 8] * 10 + d[:, 9],
                                         d[:, 10] * 10 + d[:, 11], d[:, 12] * 10 + d[:, 13], zero + 1, zero, zero)
    slow = np.flatnonzero(~fast)
    if len(slow):
        ok[slow] = _date_time_regex(text.take(pa.array(slow)))
    return ok


def _date_time_regex(text: pa.Array) -> np.ndarray:
    pattern = (r"^(?P<y>[0-9]{4})-(?P<mo>[0-9]{2})-(?P<d>[0-9]{2})[Tt](?P<h>[0-9]{2}):(?P<mi>[0-9]{2}):"
               r"(?P<s>[0-9]{2})(?:\.[0-9]+)?(?:[Zz]|(?P<sign>[+-])(?P<oh>[0-9]{2}):(?P<om>[0-9]{2}))$")
    matched = pc.match_substring_regex(text, pattern)
    parts = pc.extract_regex(pc.if_else(matched, text, "0000-01-01T00:00:00Z"), pattern)

    def part(name: str) -> np.ndarray:
        field = pc.struct_field(parts, name)
        return pc.fill_null(pc.cast(pc.if_else(pc.equal(field, ""), "0", field), pa.int64()), 0).to_numpy(
            zero_copy_only=False)

    sign = np.where(pc.equal(pc.struct_field(parts, "sign"), "-").to_numpy(zero_copy_only=False), -1, 1)
    return matched.to_numpy(zero_copy_only=False) & _calendar_ok(
        *(part(n) for n in ("y", "mo", "d", "h", "mi", "s")), sign, part("oh"), part("om"))


def _calendar_ok(year: np.ndarray, month: np.ndarray, day: np.ndarray, hour: np.ndarray, minute: np.ndarray,
                 second: np.ndarray, sign: np.ndarray, off_h: np.ndarray, off_m: np.ndarray) -> np.ndarray:
    """A real day and time with an offset up to 23:59, a second of 60 only at 23:59 UTC."""
    leap = (year % 4 == 0) & ((year % 100 != 0) | (year % 400 == 0))
    days = np.array([0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31])[np.clip(month, 0, 12)] + (leap & (month == 2))
    ok = (month >= 1) & (month <= 12) & (day >= 1) & (day <= days) & (hour <= 23) & (minute <= 59)
    ok &= (off_h <= 23) & (off_m <= 59) & (second <= 60)
    utc_minute = (hour * 60 + minute - sign * (off_h * 60 + off_m)) % 1440
    return ok & ((second < 60) | (utc_minute == 23 * 60 + 59))


def _hand_checks(out: _Candidates, hands: pa.Table, seat_count: np.ndarray, event_count: np.ndarray) -> None:
    """The checks of each hands row, its stakes and the lengths of its seat and event lists."""
    n = hands.num_rows
    rows = np.arange(n, dtype=np.int64)
    for i, name in enumerate(_HAND_REQUIRED):
        if name in ("stakes", "seats", "events"):
            continue  # always in the rebuilt hand
        out.add(f"required:{name}", _null(hands[name]), rows, _key(i))
    for name, (low, high) in {"hand_id": (1, 128), "table_id": (1, 128), "room": (0, 256), "rule_pack": (1, 128),
                              "currency": (0, 16)}.items():
        _string_checks(out, name, _lengths(hands[name]), rows, _key(_HAND_SLOT[name]), low, high)
    started = _lengths(hands["started_at"])
    _string_checks(out, "started_at", started, rows, _key(_HAND_SLOT["started_at"]), 0, 64)
    out.add("format:started_at", (started >= 0) & ~_date_time_ok(hands["started_at"]), rows,
            _key(_HAND_SLOT["started_at"], sub=1))
    for name, values in (("variant", VARIANTS), ("structure", STRUCTURES)):
        out.add(f"enum:{name}", _code(hands[name], values) == -1, rows, _key(_HAND_SLOT[name]))
    scale, has_scale = _ints(hands["money_scale"])
    _money_checks(out, "money_scale", scale, has_scale, rows, _key(_HAND_SLOT["money_scale"]), low=1, high=10**6)
    seats_max, has_max = _ints(hands["max_seats"])
    _money_checks(out, "max_seats", seats_max, has_max, rows, _key(_HAND_SLOT["max_seats"]), low=2, high=10)
    # stakes: required, then blinds, ante, bet_units, table_min, table_max, chip_unit, spread
    stakes = _HAND_SLOT["stakes"]
    out.add("required:blinds", _null(hands["blinds"]), rows, _key(stakes))
    out.add("required:chip_unit", _null(hands["chip_unit"]), rows,
            _key(stakes, sub=1))
    for name, most in (("blinds", 3), ("bet_units", 8)):
        items = _items(hands[name])
        sub = _STAKES_SUB[name]
        out.add(f"maxitems:{name}:{most}", items.length > most, rows, _key(stakes, sub=sub))
        values, present = _ints(items.values)
        elem = items.position + 1
        key = _key(stakes, sub=sub, elem=elem)
        out.add(f"type:{name}:integer", ~present, items.parent, key, elem, items.parent)
        _money_checks(out, name, values, present, items.parent, key, elem, items.parent)
    ante, has_ante = _ints(hands["ante"])
    _money_checks(out, "ante", ante, has_ante & (ante != 0), rows, _key(stakes, sub=_STAKES_SUB["ante"]))
    for name in ("table_min", "table_max"):
        values, present = _ints(hands[name])
        _money_checks(out, name, values, present, rows, _key(stakes, sub=_STAKES_SUB[name]))
    unit, has_unit = _ints(hands["chip_unit"])
    _money_checks(out, "chip_unit", unit, has_unit, rows, _key(stakes, sub=_STAKES_SUB["chip_unit"]), low=1,
                  high=10**9)
    low_items, high_items = _items(hands["spread_min"]), _items(hands["spread_max"])
    spread = np.minimum(low_items.length, np.maximum(high_items.length, 0))  # -1: no spread (or an empty one)
    sub = _STAKES_SUB["spread"]
    out.add("maxitems:spread:8", spread > 8, rows, _key(stakes, sub=sub))
    for which, items in ((0, low_items), (1, high_items)):
        kept = items.position < spread[items.parent] if len(items.parent) else np.zeros(0, bool)
        values, present = _ints(items.values)
        elem = 1 + 2 * items.position + which
        key = _key(stakes, sub=sub, elem=elem)
        label = ("spread_min", "spread_max")[which]
        out.add(f"type:{label}:integer", kept & ~present, items.parent, key, elem, items.parent)
        _money_checks(out, label, values, kept & present, items.parent, key, elem, items.parent)
    out.add("minitems:seats:1", seat_count < 1, rows, _key(_HAND_SLOT["seats"]))
    out.add("maxitems:seats:10", seat_count > 10, rows, _key(_HAND_SLOT["seats"]))
    out.add("maxitems:events:2000", event_count > 2000, rows, _key(_HAND_SLOT["events"]))


def _seat_checks(out: _Candidates, seats: pa.Table, group: np.ndarray, index: np.ndarray) -> None:
    """The checks of each seat row (`group`: its hand group, `index`: its place among the hand's seats)."""
    slot, at = _HAND_SLOT["seats"], index + 1
    for i, name in enumerate(("seat", "player", "stack")):
        out.add(f"required:{name}", _null(seats[name]), group, _key(slot, at, i))
    seat, has_seat = _ints(seats["seat"])
    _money_checks(out, "seat", seat, has_seat, group, _key(slot, at, _SEAT_SUB["seat"]), low=1, high=10)
    _string_checks(out, "player", _lengths(seats["player"]), group, _key(slot, at, _SEAT_SUB["player"]), 1, 128)
    stack, has_stack = _ints(seats["stack"])
    _money_checks(out, "stack", stack, has_stack, group, _key(slot, at, _SEAT_SUB["stack"]))
    out.add("enum:status", _code(seats["status"], STATUSES) == -1, group, _key(slot, at, _SEAT_SUB["status"]))


def _card_checks(out: _Candidates, name: str, column: pa.ChunkedArray, mask: np.ndarray, group: np.ndarray,
                 key_of: _Key, most: int = 16) -> None:
    """A card list of the events in `mask` (a null list is an absent key, checked by `required`)."""
    items = _items(column)
    out.add(f"maxitems:{name}:{most}", mask & (items.length > most), group, key_of)
    if not len(items.parent):
        return
    kept = mask[items.parent]
    card = _card_ok(items.values)
    if not (kept & ~card).any():
        return  # every card of these events is a card (the gathers below cost more than the check)
    null = _null(items.values)
    elem = items.position + 1
    key = key_of.items(items.parent, elem)
    out.add(f"type:{name}:string", kept & null, group[items.parent], key, elem, items.parent)
    out.add(f"pattern:{name}", kept & ~null & ~card, group[items.parent], key, elem, items.parent)


#: the checks of an event's own fields (`_event_kernel`), by the number the kernel writes
_EVENT_CHECKS = ("required:kind", "enum:kind", *(f"required:{k}" for k in (
    "seat", "draws", "awarded_to", "player", "post", "amount", "to", "cards", "discard", "receive", "action", "pot")),
    "maxlen:t:64", "min:seat:1", "max:seat:10", "minlen:awarded_to:1", "maxlen:awarded_to:128", "enum:deal_to",
    *(f"additional:{k}" for k in _GENERIC), "minlen:player:1", "maxlen:player:128", "enum:action", "enum:post",
    "min:blind:1", "max:blind:3", "min:amount:0", f"max:amount:{MONEY_MAX}", "min:to:0", f"max:to:{MONEY_MAX}",
    "min:pot:0", "max:pot:10", "min:from_seat:1", "max:from_seat:10", "required:blind", "required:seat",
    "required:amount", "required:to")
#: per kind (KINDS order), its definition's required keys as `_has` numbers (-1: none), in schema order
_REQUIRED_KEYS = np.array([[0, 1, 2], [3, -1, -1], [3, 0, -1], [0, -1, -1], [0, 4, 5], [6, 7, -1], [0, 8, 9],
                           [0, 10, -1], [0, 7, -1], [0, -1, -1], [0, 5, -1], [5, -1, -1], [11, 0, 5], [0, -1, -1]],
                          dtype=np.int64)
#: per kind, which generic keys (`_GENERIC` order) its definition allows
_ALLOWED_KEYS = np.array([[key in _ALLOWED.get(kind, ()) for key in _GENERIC] for kind in KINDS], dtype=np.bool_)


@njit(cache=True)
def _has(key: int, kind: int, generic: bool, seat_p: bool, player_len: int, post: int, amount_p: bool,
         target: int, cards_p: bool, receive_p: bool, action: int, pot_p: bool) -> bool:
    """Whether the rebuilt event of `kind` has required key number `key` (see _REQUIRED_KEYS)."""
    if key == 0:
        return seat_p
    if key == 1:
        return kind == 0  # a seat draw's draws are always there (maybe too few)
    if key == 2:
        return kind == 0 and player_len >= 0
    if key == 3:
        return generic and player_len >= 0
    if key == 4:
        return generic and post != -2
    if key == 5:
        return generic and amount_p
    if key == 6:
        return kind == 5 and target != -2
    if key == 7:
        return (kind == 5 or kind == 8) and cards_p
    if key == 8:
        return kind == 6 and cards_p
    if key == 9:
        return kind == 6 and receive_p
    if key == 10:
        return generic and action != -2
    return generic and pot_p


@njit(cache=True)
def _event_kernel(kind, t_len, seat, seat_p, player_len, action, post, blind, blind_p, amount, amount_p, to, to_p,
                  all_in_p, pot, pot_p, from_seat, from_seat_p, target, cards_p, receive_p, required, allowed,
                  out_check, out_sub):  # type: ignore[no-untyped-def]
    """Per event, the first of its own fields' checks to fail, in the order jsonschema-rs meets them
    (`out_check`: its number in _EVENT_CHECKS, -1 for none; `out_sub`: its place in the event's sort key).
    Items of card and draw lists are checked apart (`_card_checks`, `_draws_checks`). Every array has one
    value per event; codes and lengths as `_code` and `_lengths` give them (-2 / -1 for null)."""
    for i in range(len(kind)):
        out_check[i] = -1
        k = kind[i]
        if k == -2:
            out_check[i], out_sub[i] = 0, 0
            continue
        if k < 0 or k > 13:
            out_check[i], out_sub[i] = 1, 1
            continue
        generic = not (k == 0 or k == 5 or k == 6 or k == 8)
        failed = False
        for j in range(3):
            key = required[k, j]
            if key >= 0 and not _has(key, k, generic, seat_p[i], player_len[i], post[i], amount_p[i], target[i],
                                     cards_p[i], receive_p[i], action[i], pot_p[i]):
                out_check[i], out_sub[i] = 2 + key, 2 + j
                failed = True
                break
        if failed:
            continue
        if t_len[i] > 64:
            out_check[i], out_sub[i] = 14, 10
            continue
        if not generic:
            seat_sub = 12 if k == 5 else 11
            if k == 5 and target[i] == -1:
                out_check[i], out_sub[i] = 19, 11
            elif seat_p[i] and seat[i] < 1:
                out_check[i], out_sub[i] = 15, seat_sub
            elif seat_p[i] and seat[i] > 10:
                out_check[i], out_sub[i] = 16, seat_sub
            elif k == 0 and player_len[i] == 0:
                out_check[i], out_sub[i] = 17, 12
            elif k == 0 and player_len[i] > 128:
                out_check[i], out_sub[i] = 18, 12
            continue
        for j in range(10):  # the generic keys in the rebuilt event's order, each at sub 11 + j
            if j == 0:
                present = seat_p[i]
            elif j == 1:
                present = player_len[i] >= 0
            elif j == 2:
                present = action[i] != -2
            elif j == 3:
                present = post[i] != -2
            elif j == 4:
                present = blind_p[i]
            elif j == 5:
                present = amount_p[i]
            elif j == 6:
                present = to_p[i]
            elif j == 7:
                present = all_in_p[i]
            elif j == 8:
                present = pot_p[i]
            else:
                present = from_seat_p[i]
            if not present:
                continue
            check = -1
            if not allowed[k, j]:
                check = 20 + j
            elif j == 0:
                check = 15 if seat[i] < 1 else 16 if seat[i] > 10 else -1
            elif j == 1:
                check = 30 if player_len[i] == 0 else 31 if player_len[i] > 128 else -1
            elif j == 2:
                check = 32 if action[i] == -1 else -1
            elif j == 3:
                check = 33 if post[i] == -1 else -1
            elif j == 4:
                check = 34 if blind[i] < 1 else 35 if blind[i] > 3 else -1
            elif j == 5:
                check = 36 if amount[i] < 0 else 37 if amount[i] > 1_000_000_000_000_000 else -1
            elif j == 6:
                check = 38 if to[i] < 0 else 39 if to[i] > 1_000_000_000_000_000 else -1
            elif j == 8:
                check = 40 if pot[i] < 0 else 41 if pot[i] > 10 else -1
            elif j == 9:
                check = 42 if from_seat[i] < 1 else 43 if from_seat[i] > 10 else -1
            if check >= 0:
                out_check[i], out_sub[i] = check, 11 + j
                failed = True
                break
        if failed:
            continue
        # if/then, after the properties
        if k == 4 and post[i] == 0 and not blind_p[i]:
            out_check[i], out_sub[i] = 44, 30
        elif k == 7 and action[i] >= 2 and not amount_p[i]:
            out_check[i], out_sub[i] = 46, 30
        elif k == 7 and action[i] >= 2 and not to_p[i]:
            out_check[i], out_sub[i] = 47, 31


def _event_checks(out: _Candidates, events: pa.Table, group: np.ndarray, index: np.ndarray) -> None:
    """The checks of each event row, as the rebuilt event of its kind is checked: its own fields in one
    compiled pass (`_event_kernel`), its card and draw lists column-wise."""
    slot, at = _HAND_SLOT["events"], index + 1
    kind = _code(events["kind"], KINDS)
    ints = {name: _ints(events[name]) for name in ("seat", "blind", "amount", "to", "pot", "from_seat")}
    target = _code(events["target"], TARGETS)
    seat_p = ints["seat"][1]
    check = np.empty(len(kind), np.int64)
    sub = np.zeros(len(kind), np.int64)
    _event_kernel(kind, _lengths(events["t"]), *ints["seat"], _lengths(events["player"]),
                  _code(events["action"], ACTIONS), _code(events["post"], POSTS), *ints["blind"], *ints["amount"],
                  *ints["to"], _valid(events["all_in"]), *ints["pot"], *ints["from_seat"], target,
                  _valid(events["cards"]), _valid(events["receive"]), _REQUIRED_KEYS, _ALLOWED_KEYS, check, sub)
    failed = check >= 0
    if failed.any():
        for number in np.unique(check[failed]).tolist():
            out.add(_EVENT_CHECKS[number], check == number, group, _key(slot, at, sub))
    # a hole card dealt to no seat: the deal's if/then (after its cards' items, so apart from the kernel)
    deal = kind == KINDS.index("deal")
    out.add("required:seat", deal & (target == 0) & ~seat_p, group, _key(slot, at, 30))
    # lists: a seat draw's draws (13); deal cards (13), show cards and draw discards (12), draw receive (13)
    _draws_checks(out, events, kind == 0, group, _key(slot, at, 13))
    cards = _valid(events["cards"]) & (deal | (kind == KINDS.index("show")) | (kind == KINDS.index("draw")))
    _card_checks(out, "cards", events["cards"], cards, group, _key(slot, at, np.where(deal, 13, 12)))
    receive = _valid(events["receive"]) & (kind == KINDS.index("draw"))
    _card_checks(out, "receive", events["receive"], receive, group, _key(slot, at, 13))


def _draws_checks(out: _Candidates, events: pa.Table, mask: np.ndarray, group: np.ndarray, key_of: _Key) -> None:
    """A seat draw's `draws`: pairs of `draw_players` and `cards`, as many as the shorter list has."""
    if not mask.any():
        return  # no seat draw (most logs have none)
    players, cards = _items(events["draw_players"]), _items(events["cards"])
    count = np.minimum(np.maximum(players.length, 0), np.maximum(cards.length, 0))
    out.add("minitems:draws:2", mask & (count < 2), group, key_of)
    out.add("maxitems:draws:10", mask & (count > 10), group, key_of)
    if len(players.parent):
        kept = mask[players.parent] & (players.position < count[players.parent])
        elem = 1 + 2 * players.position
        key = key_of.items(players.parent, elem)
        lengths = _lengths(players.values)
        owner = group[players.parent]
        out.add("type:draw_player:string", kept & (lengths < 0), owner, key, elem, players.parent)
        out.add("minlen:draw_player:1", kept & (lengths == 0), owner, key, elem, players.parent)
        out.add("maxlen:draw_player:128", kept & (lengths > 128), owner, key, elem, players.parent)
    if len(cards.parent):
        kept = mask[cards.parent] & (cards.position < count[cards.parent])
        elem = 2 + 2 * cards.position
        key = key_of.items(cards.parent, elem)
        null = _null(cards.values)
        card = _card_ok(cards.values)
        owner = group[cards.parent]
        out.add("type:draw_card:string", kept & null, owner, key, elem, cards.parent)
        out.add("pattern:draw_card", kept & ~null & ~card, owner, key, elem, cards.parent)


def event_order(events: pa.Table) -> np.ndarray:
    """Row order of the events as the reader rebuilds each hand: by hand, then seq, nulls first, stable."""
    low = np.int64(-(1 << 62))
    hand, has_hand = column_ints(events["hand"])
    seq, has_seq = column_ints(events["seq"])
    if has_hand.all() and has_seq.all() and len(hand) > 1:
        step, next_seq = np.diff(hand), np.diff(seq)
        if ((step > 0) | ((step == 0) & (next_seq >= 0))).all():
            return np.arange(len(hand))  # in order already (as `convert` writes them): no sort
    return np.lexsort((np.where(has_seq, seq, low), np.where(has_hand, hand, low)))


def _groups(numbers: np.ndarray, present: np.ndarray, known: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(group of each row: the position of its hand number in `known`, or -1; its place within the group,
    rows taken in their order). Rows in number order (a dataset's) in one compiled pass."""
    merged = columnar_kernels.sorted_groups(numbers, present, known)
    if merged is not None:
        return merged
    at = np.searchsorted(known, numbers) if len(known) else np.zeros(len(numbers), np.int64)
    at = np.minimum(at, max(len(known) - 1, 0))
    group = np.where(present & (len(known) > 0) & (known[at] == numbers if len(known) else False), at, -1)
    ordered = len(group) < 2 or bool((np.diff(group) >= 0).all())  # rows of a dataset in hand order
    order = np.arange(len(group)) if ordered else np.argsort(group, kind="stable")
    sorted_group = group[order]
    starts = np.concatenate(([True], sorted_group[1:] != sorted_group[:-1])) if len(order) else np.zeros(0, bool)
    run_start = np.maximum.accumulate(np.where(starts, np.arange(len(order)), 0)) if len(order) else order
    index = np.empty(len(order), np.int64)
    index[order] = np.arange(len(order)) - run_start
    return group.astype(np.int64), index


@dataclass(frozen=True)
class Verdicts:
    """Per hands row its refusal reason (None: valid), and where each row's seats and events are, for
    building the canonical tables of the valid hands by taking rows (`parquet.validated_chunk`)."""

    reasons: list[str | None]
    valid: np.ndarray
    #: the events table's rows in rebuild order (by hand, then seq); the event arrays below are in it
    event_order: np.ndarray
    #: per hands row, its hand number's group (-1: null number); groups are the sorted distinct numbers
    row_group: np.ndarray
    #: per seats row (file order) and per event (rebuild order): group (-1: none) and place in the hand
    seat_group: np.ndarray
    seat_index: np.ndarray
    event_group: np.ndarray
    event_index: np.ndarray
    #: per event (rebuild order), its kind's index in KINDS (-1: another kind or none; valid hands' events have
    #: a kind), as the screen found it, so the tables are built without finding it again; None: not at hand
    event_kind: np.ndarray | None = None


def validate(hands: pa.Table, seats: pa.Table, events: pa.Table) -> Verdicts:
    """Every hands row of conformed tables (`parquet.conform_table`) judged as `parquet.rebuild_hand` judges
    the hand it rebuilds: None if valid, else the same one-line reason jsonschema-rs or consistency_error
    gives. Seats and events rows are those of any hand number (hand rows sharing a number share them)."""
    try:
        return _validate(hands, seats, events)
    finally:
        _memo.clear()


class _Columns:
    """A table whose columns are each one object for the whole call, so `_memoised` helpers recognise them
    (Arrow makes a new wrapper at every `table[name]`)."""

    def __init__(self, table: pa.Table) -> None:
        self.table = table
        self.num_rows = table.num_rows
        self._columns: dict[str, pa.ChunkedArray] = {}

    def __getitem__(self, name: str) -> pa.ChunkedArray:
        if name not in self._columns:
            self._columns[name] = self.table[name]
        return self._columns[name]


@dataclass(frozen=True)
class _Layout:
    """Where each row of the three tables belongs (`_layout`): the events in rebuild order, and per hands row,
    seats row and event its hand group and place, as `Verdicts` carries them."""

    events: pa.Table
    order: np.ndarray
    row_group: np.ndarray
    seat_group: np.ndarray
    seat_index: np.ndarray
    event_group: np.ndarray
    event_index: np.ndarray
    groups: int
    per_row_seats: np.ndarray
    per_row_events: np.ndarray


def _layout(hands: _Columns, seats: _Columns, events_table: pa.Table) -> _Layout:
    order = event_order(_Columns(events_table))
    if events_table.num_rows and (np.diff(order) != 1).any():
        events_table = events_table.take(order)  # a dataset `convert` wrote is in order already: no copy
    numbers, has_number = column_ints(hands["hand"])
    increasing = bool(has_number.all()) and (len(numbers) < 2 or bool((np.diff(numbers) > 0).all()))
    known = numbers if increasing else np.unique(numbers[has_number])  # a dataset's rows: numbers in order
    seat_numbers, seat_has = column_ints(seats["hand"])
    event_numbers, event_has = column_ints(events_table["hand"])
    seat_group, seat_index = _groups(seat_numbers, seat_has, known)
    event_group, event_index = _groups(event_numbers, event_has, known)
    row_group = np.arange(len(numbers), dtype=np.int64) if increasing else \
        np.where(has_number, np.searchsorted(known, numbers), -1)
    groups = len(known)
    seat_count = np.bincount(seat_group[seat_group >= 0], minlength=groups)
    event_count = np.bincount(event_group[event_group >= 0], minlength=groups)
    per_row_seats = np.where(row_group >= 0, seat_count[np.maximum(row_group, 0)] if groups else 0, 0)
    per_row_events = np.where(row_group >= 0, event_count[np.maximum(row_group, 0)] if groups else 0, 0)
    return _Layout(events_table, order, row_group, seat_group, seat_index, event_group, event_index, groups,
                   per_row_seats, per_row_events)


def column_ints(column: pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray]:
    """(values as int64 with nulls 0, present mask) from the column's own buffers (`columnar_kernels.ints`)."""
    values = columnar_kernels.ints(column, fill=True)
    return values.values, values.present


def _validate(hands_table: pa.Table, seats_table: pa.Table, events_table: pa.Table) -> Verdicts:
    """The screen first (`_screen`: the hands certainly valid, in a few compiled passes), then the full
    checks with their wording (`_judge`) for the doubted hands only, with their own seats and events: a
    hand's verdict depends on its row and its hand number's rows alone, so judging it among fewer rows
    gives it the same reason."""
    hands, seats = _Columns(hands_table), _Columns(seats_table)
    layout = _layout(hands, seats, events_table)
    doubt, kind = _screen(hands, seats_table, layout)
    reasons: list[str | None] = [None] * hands.num_rows
    rows = np.flatnonzero(doubt)
    if len(rows):
        wanted = np.unique(layout.row_group[rows])
        wanted = wanted[wanted >= 0]
        seat_rows = np.isin(layout.seat_group, wanted)
        event_rows = np.isin(layout.event_group, wanted)
        judged = _judge(hands_table.take(rows) if len(rows) < hands.num_rows else hands_table,
                        seats_table if seat_rows.all() else seats_table.filter(pa.array(seat_rows)),
                        layout.events if event_rows.all() else layout.events.filter(pa.array(event_rows)))
        for r, reason in zip(rows.tolist(), judged, strict=True):
            reasons[r] = reason
    valid = ~doubt
    if len(rows):
        valid[rows] = np.array([reason is None for reason in reasons], dtype=bool)[rows]
    return Verdicts(reasons, valid, layout.order, layout.row_group, layout.seat_group, layout.seat_index,
                    layout.event_group, layout.event_index, kind)


def _screen(hands: _Columns, seats_table: pa.Table, layout: _Layout) -> tuple[np.ndarray, np.ndarray | None]:
    """Per hands row, whether it is in doubt (and the events' kind codes, when there are events): False only for a hand
    every check of the schema and of consistency_error passes, found in a few passes over the columns' buffers
    (`columnar_kernels`) instead of the wording machinery's hundred Arrow passes. Stricter than the schema where
    that is simpler (a string held to a maximum by its bytes, which are never fewer than its characters; every item
    of a seat draw's or a spread's lists, kept or cut; a started_at of an unusual form checked as `_judge` checks
    it): a doubt only sends the hand to `_judge`, never a verdict."""
    groups = layout.groups
    doubt = _hands_doubt(hands, layout) | (layout.row_group < 0)
    if not groups:
        return doubt, None
    bad_group = np.zeros(groups, dtype=bool)
    # seats: seat 1..10, player 1..128 (bytes), stack 0..MONEY_MAX, a known status or none
    ck = columnar_kernels
    seat = ck.ints(seats_table["seat"])
    stack = ck.ints(seats_table["stack"])
    player = ck.strings(seats_table["player"]).byte_lengths
    status = ck.codes(ck.strings(seats_table["status"]), STATUSES)
    bad = (~seat.present | (seat.values < 1) | (seat.values > 10) | (player < 1) | (player > 128) | ~stack.present
           | (stack.values < 0) | (stack.values > MONEY_MAX) | (status == -1))
    listed = layout.seat_group >= 0
    bad_group[layout.seat_group[bad & listed]] = True
    # events: their own fields by `_event_kernel` (fed byte lengths), then their card and draw lists
    events = layout.events
    kind = ck.codes(ck.strings(events["kind"]), KINDS)
    target = ck.codes(ck.strings(events["target"]), TARGETS)
    at = {name: ck.ints(events[name]) for name in ("seat", "blind", "amount", "to", "pot", "from_seat")}
    cards, receive = ck.string_lists(events["cards"]), ck.string_lists(events["receive"])
    all_in = ck.present(events["all_in"])
    check = np.empty(len(kind), np.int64)
    sub = np.empty(len(kind), np.int64)
    _event_kernel(kind, ck.strings(events["t"]).byte_lengths, at["seat"].values, at["seat"].present,
                  ck.strings(events["player"]).byte_lengths, ck.codes(ck.strings(events["action"]), ACTIONS),
                  ck.codes(ck.strings(events["post"]), POSTS), at["blind"].values, at["blind"].present,
                  at["amount"].values, at["amount"].present, at["to"].values, at["to"].present, all_in,
                  at["pot"].values, at["pot"].present, at["from_seat"].values, at["from_seat"].present, target,
                  cards.present, receive.present, _REQUIRED_KEYS, _ALLOWED_KEYS, check, sub)
    bad = check >= 0
    deal, draw = kind == KINDS.index("deal"), kind == KINDS.index("draw")
    bad |= deal & (target == 0) & ~at["seat"].present
    cards_ok = ck.lists_ok(cards, True)
    bad |= (deal | draw | (kind == KINDS.index("show"))) & cards.present & ((cards.lengths > 16) | ~cards_ok)
    if draw.any():
        bad |= draw & receive.present & ((receive.lengths > 16) | ~ck.lists_ok(receive, True))
    seat_draw = kind == KINDS.index("seat_draw")
    if seat_draw.any():
        players = ck.string_lists(events["draw_players"])
        count = np.minimum(np.maximum(players.lengths, 0), np.maximum(cards.lengths, 0))
        bad |= seat_draw & ((count < 2) | (count > 10) | ~cards_ok | ~ck.lists_ok(players, False, 1, 128))
    in_hand = layout.event_group >= 0
    bad_group[layout.event_group[bad & in_hand]] = True
    # consistency_error: a seat beyond max_seats, an event on a seat nobody sits in
    exempt = np.isin(kind, [KINDS.index(k) for k in ("seat_draw", "seat_request", "seat_fill", "button")])
    max_seat, stray = ck.seated(groups, layout.seat_group, seat.values, layout.event_group, at["seat"].values,
                                at["seat"].present, exempt)
    max_seats = ck.ints(hands["max_seats"]).values
    g = np.maximum(layout.row_group, 0)
    doubt |= bad_group[g] | stray[g] | (max_seat[g] > max_seats)
    return doubt | (layout.row_group < 0), np.where(kind >= 0, kind, -1)


def _hands_doubt(hands: _Columns, layout: _Layout) -> np.ndarray:
    """Per hands row, whether one of its own checks (`_hand_checks`') may fail: strings held to their limits by
    their bytes, every item of a spread's two lists (kept or cut)."""
    ck = columnar_kernels
    doubt = (layout.per_row_seats < 1) | (layout.per_row_seats > 10) | (layout.per_row_events > 2000)
    for name, low, high, required in (("hand_id", 1, 128, True), ("table_id", 1, 128, True), ("room", 0, 256, False),
                                      ("rule_pack", 1, 128, True), ("currency", 0, 16, False)):
        length = ck.strings(hands[name]).byte_lengths
        doubt |= ((length < 0) & required) | ((length >= 0) & ((length < low) | (length > high)))
    started = ck.strings(hands["started_at"])
    timed = ck.utc_times_ok(started)
    other = np.flatnonzero(~timed)  # another form than the usual one (an offset, a fraction): checked as `_judge`
    if len(other):
        timed[other] = _date_time_ok(hands["started_at"].take(pa.array(other)))
    doubt |= (started.byte_lengths > 64) | ~timed
    for name, values in (("variant", VARIANTS), ("structure", STRUCTURES)):
        doubt |= ck.codes(ck.strings(hands[name]), values) < 0
    for name, low, high, required in (("money_scale", 1, 10**6, False), ("max_seats", 2, 10, True),
                                      ("chip_unit", 1, 10**9, True), ("table_min", 0, MONEY_MAX, False),
                                      ("table_max", 0, MONEY_MAX, False), ("ante", 0, MONEY_MAX, False)):
        value = ck.ints(hands[name])
        doubt |= (~value.present & required) | (value.present & ((value.values < low) | (value.values > high)))
    for name, most, required in (("blinds", 3, True), ("bet_units", 8, False), ("spread_min", 8, False),
                                 ("spread_max", 8, False)):
        items = ck.int_lists(hands[name])
        lengths = items.lengths
        doubt |= ((lengths < 0) & required) | (lengths > most) | ~ck.int_lists_ok(items, 0, MONEY_MAX)
    return doubt


def _judge(hands_table: pa.Table, seats_table: pa.Table, events_table: pa.Table) -> list[str | None]:
    """Every check with its place in jsonschema-rs's order, and the first failure of each refused hand worded."""
    hands, seats = _Columns(hands_table), _Columns(seats_table)
    layout = _layout(hands, seats, events_table)
    events_table = layout.events
    events = _Columns(events_table)
    row_group, seat_group, seat_index = layout.row_group, layout.seat_group, layout.seat_index
    event_group, event_index, groups = layout.event_group, layout.event_index, layout.groups

    row_checks = _new()
    _hand_checks(row_checks, hands, layout.per_row_seats, layout.per_row_events)
    seat_checks, event_checks = _new(), _new()
    seat_rows, event_rows = seat_group >= 0, event_group >= 0
    seat_tables = _rows(seats_table, seat_rows)
    event_tables = _rows(events_table, event_rows)
    seat_columns = seats if seat_tables is seats_table else None if seat_tables is None else _Columns(seat_tables)
    event_columns = events if event_tables is events_table else None if event_tables is None else \
        _Columns(event_tables)
    if seat_columns is not None:
        _seat_checks(seat_checks, seat_columns, seat_group[seat_rows], seat_index[seat_rows])
    if event_columns is not None:
        _event_checks(event_checks, event_columns, event_group[event_rows], event_index[event_rows])
    row_best, row_check, row_row, row_elem = row_checks.first(hands.num_rows)
    seat_best, seat_check, seat_row, _ = seat_checks.first(groups)
    event_best, event_check, event_row, event_elem = event_checks.first(groups)
    # a seat's key (slot seats) is below every event's (slot events): the seats of a hand are checked first
    on_seat = seat_best <= event_best
    group_best = np.where(on_seat, seat_best, event_best)
    from_group = np.where(row_group >= 0, group_best[np.maximum(row_group, 0)] if groups else NO_ERROR, NO_ERROR)
    use_group = from_group < row_best
    refused = (row_best != NO_ERROR) | (from_group != NO_ERROR)

    reasons: list[str | None] = [None] * hands.num_rows
    words = _Words(hands_table, seat_tables, event_tables, seat_group[seat_rows], seat_index[seat_rows],
                   event_group[event_rows], event_index[event_rows], seats_table, events_table, seat_group,
                   event_group)
    for r in np.flatnonzero(refused):
        if use_group[r]:
            g = row_group[r]
            if on_seat[g]:
                reasons[r] = words.seat_reason(seat_checks.names[seat_check[g]], int(seat_row[g]))
            else:
                reasons[r] = words.event_reason(event_checks.names[event_check[g]], int(event_row[g]),
                                                int(event_elem[g]))
        else:
            reasons[r] = words.row_reason(row_checks.names[row_check[r]], int(r), int(row_row[r]), int(row_elem[r]),
                                          int(row_group[r]))
    _consistency(reasons, refused, hands, seats, events, seat_group, seat_index, event_group, event_index, row_group)
    return reasons


def _rows(table: pa.Table, mask: np.ndarray) -> pa.Table | None:
    """The rows of `mask` (None if none; the table itself if all, with no copy)."""
    if mask.all() and len(mask):
        return table
    return table.filter(pa.array(mask)) if mask.any() else None


def _consistency(reasons: list[str | None], refused: np.ndarray, hands: pa.Table, seats: pa.Table, events: pa.Table,
                 seat_group: np.ndarray, seat_index: np.ndarray, event_group: np.ndarray, event_index: np.ndarray,
                 row_group: np.ndarray) -> None:
    """consistency_error for the rows the schema passed: a seat beyond max_seats, then an event on a seat
    nobody sits in (the button, seat draws, requests and fills excepted)."""
    candidates = np.flatnonzero(~refused & (row_group >= 0))
    if not len(candidates):
        return
    seat, _ = _ints(seats["seat"])
    max_seats, _ = _ints(hands["max_seats"])
    # the first seat of each hand over max_seats: a running maximum per group, searched per row
    order = np.lexsort((seat_index, seat_group))
    kept = order[seat_group[order] >= 0]
    value = seat_group[kept] * 1024 + (seat[kept] + 128)
    running = np.maximum.accumulate(value) if len(value) else value
    group_end = np.searchsorted(seat_group[kept], np.arange(row_group.max() + 2), side="left")
    g = row_group[candidates]
    p = np.searchsorted(running, g * 1024 + max_seats[candidates] + 128, side="right")
    over = p < group_end[g + 1]
    for r, at in zip(candidates[over].tolist(), p[over].tolist(), strict=True):
        reasons[r] = f"seat {int(seat[kept[at]])} is beyond max_seats {int(max_seats[r])}"
    candidates = candidates[~over]
    if not events.num_rows or not len(candidates):
        return
    kind = _code(events["kind"], KINDS)
    ev_seat, ev_has_seat = _ints(events["seat"])
    exempt = np.isin(kind, [KINDS.index(k) for k in ("seat_draw", "seat_request", "seat_fill", "button")])
    # the seats taken in each hand as bits (a seat outside 1..10 fails the schema first, its hand is refused)
    taken = np.zeros(int(row_group.max()) + 1, np.int64)
    listed = seat_group >= 0
    np.bitwise_or.at(taken, seat_group[listed], np.int64(1) << np.clip(seat[listed], 0, 62))
    in_hand = event_group >= 0
    bit = np.int64(1) << np.clip(ev_seat, 0, 62)
    sits = np.zeros(len(ev_seat), bool)
    sits[in_hand] = (taken[event_group[in_hand]] & bit[in_hand]) != 0
    stray = ev_has_seat & ~exempt & in_hand & ~sits
    if not stray.any():
        return
    where = np.flatnonzero(stray)
    where = where[np.lexsort((event_index[where], event_group[where]))]
    head = np.concatenate(([True], event_group[where][1:] != event_group[where][:-1]))
    first_row = np.full(int(row_group.max()) + 1, -1, np.int64)
    first_row[event_group[where][head]] = where[head]
    rows = first_row[row_group[candidates]]
    kinds = events["kind"]
    for r, row in zip(candidates[rows >= 0].tolist(), rows[rows >= 0].tolist(), strict=True):
        reasons[r] = (f"event {int(event_index[row])} ({kinds[row].as_py()}) names seat {int(ev_seat[row])}, "
                      "where nobody sits")


def _json(value: object) -> str:
    """A value as jsonschema-rs shows it in a message (serde_json: compact, object keys sorted)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _enum_words(values: tuple[str, ...]) -> str:
    if len(values) <= 3:
        quoted = [_json(v) for v in values]
        return ", ".join(quoted[:-1]) + " or " + quoted[-1]
    return f"{_json(values[0])}, {_json(values[1])} or {len(values) - 2} other candidates"


_ENUMS = {"variant": VARIANTS, "structure": STRUCTURES, "status": STATUSES, "action": ACTIONS, "post": POSTS,
          "deal_to": TARGETS, "kind": KINDS}


def _message(check: str, value: object) -> str:
    """The jsonschema-rs message of failed check `check` (`<kind>:<field>[:<bound>]`) on `value`."""
    what, field, *rest = check.split(":")
    bound = rest[0] if rest else ""
    if what == "required":
        return f"{_json(field)} is a required property"
    if what == "additional":
        return f"Additional properties are not allowed ('{field}' was unexpected)"
    if what == "enum":
        return f"{_json(value)} is not one of {_enum_words(_ENUMS[field])}"
    if what == "min":
        return f"{value} is less than the minimum of {bound}"
    if what == "max":
        return f"{value} is greater than the maximum of {bound}"
    if what == "minlen":
        return f"{_json(value)} is shorter than {bound} character{'s' if bound != '1' else ''}"
    if what == "maxlen":
        return f"{_json(value)} is longer than {bound} character{'s' if bound != '1' else ''}"
    if what == "type":
        return f"null is not of type {_json(bound)}"
    if what == "pattern":
        return f'{_json(value)} does not match "{CARD_PATTERN}"'
    if what == "format":
        return f"{_json(value)} is not a \"date-time\""
    if what == "maxitems":
        return f"{_json(value)} has more than {bound} item{'s' if bound != '1' else ''}"
    if what == "minitems":
        return f"{_json(value)} has less than {bound} item{'s' if bound != '1' else ''}"
    raise AssertionError(check)


def _shown_prefix(rows: np.ndarray, table: pa.Table, item: Callable[[dict], object]) -> list:
    """The first items of a listed value, only as many as the reason can show.

    A reason shows the value's JSON cut to 200 characters (whitespace runs collapsed first), so the items past
    the first few hundred characters change nothing in it: items are made eight at a time until their
    collapsed JSON is longer than that. A hostile hand of 200 seats named with a kilobyte each no longer
    costs a 200 KB JSON text per refused hand.
    """
    shown: list = []
    length = 0
    for start in range(0, len(rows), 8):
        for value in table.take(rows[start:start + 8]).to_pylist():
            made = item(value)
            shown.append(made)
            length += len(" ".join(_json(made).split())) + 1
        if length > 2 * MAX_REASON:
            break
    return shown


class _Words:
    """Turns the first failed check of a refused hand into its path and message (Python, refused hands only)."""

    def __init__(self, hands: pa.Table, seats: pa.Table | None, events: pa.Table | None, seat_group: np.ndarray,
                 seat_index: np.ndarray, event_group: np.ndarray, event_index: np.ndarray, all_seats: pa.Table,
                 all_events: pa.Table, all_seat_group: np.ndarray, all_event_group: np.ndarray) -> None:
        self.hands, self.seats, self.events = hands, seats, events
        self.seat_index, self.event_index = seat_index, event_index
        self.all_seats, self.all_events = all_seats, all_events
        self.all_seat_group, self.all_event_group = all_seat_group, all_event_group

    def row_reason(self, check: str, r: int, row: int, elem: int, group: int) -> str:
        what, field, *_ = check.split(":")
        h = self.hands
        if what == "required":
            path = "stakes" if field in ("blinds", "chip_unit") else "(hand)"
            return one_line_error("schema", path, _message(check, None))
        if field in ("seats", "events"):
            return one_line_error("schema", field, _message(check, self._listed(field, group)))
        if field in ("blinds", "bet_units"):
            values = h[field][r].as_py()
            if what == "maxitems":
                return one_line_error("schema", f"stakes/{field}", _message(check, values))
            return one_line_error("schema", f"stakes/{field}/{elem - 1}", _message(check, values[elem - 1]))
        if field == "spread" or field.startswith("spread_"):
            low, high = h["spread_min"][r].as_py() or [], h["spread_max"][r].as_py() or []
            pairs = [{"min": a, "max": b} for a, b in zip(low, high, strict=False)]
            if what == "maxitems":
                return one_line_error("schema", "stakes/spread", _message(check, pairs))
            j, which = divmod(elem - 1, 2)
            key = ("min", "max")[which]
            return one_line_error("schema", f"stakes/spread/{j}/{key}", _message(check, pairs[j][key]))
        path = f"stakes/{field}" if field in ("ante", "table_min", "table_max", "chip_unit") else field
        return one_line_error("schema", path, _message(check, h[field][r].as_py()))

    def _listed(self, field: str, group: int) -> list:
        """A hand's seats or events as the rebuilt hand lists them (for a length message)."""
        from auditor.ingest.parquet import _event, _strip

        if group < 0:
            return []
        # At most 200 items: their JSON is longer than the 200 characters a reason shows, so the message is
        # the same as with the whole list; and each refused hand costs its own rows, not a scan of the batch
        # (5,000 refused hands of a 28 KB dataset took 17 s when every one compared the whole group column).
        if field == "seats":
            rows = self._rows("seats", self.all_seat_group, group)[:200]
            return _shown_prefix(rows, self.all_seats, lambda s: _strip({k: s[k] for k in
                                                                          ("seat", "player", "stack", "status")}))
        rows = self._rows("events", self.all_event_group, group)[:200]
        return _shown_prefix(rows, self.all_events, _event)

    def _rows(self, name: str, groups: np.ndarray, group: int) -> np.ndarray:
        """The row numbers of `group` in `groups`, in row order, from one stable sort made on first use."""
        cache = self.__dict__.setdefault("_sorted", {})
        if name not in cache:
            order = np.argsort(groups, kind="stable")
            cache[name] = (order, groups[order])
        order, sorted_groups = cache[name]
        lo, hi = np.searchsorted(sorted_groups, group, "left"), np.searchsorted(sorted_groups, group, "right")
        return order[lo:hi]

    def seat_reason(self, check: str, row: int) -> str:
        what, field, *_ = check.split(":")
        assert self.seats is not None
        base = f"seats/{int(self.seat_index[row])}"
        if what == "required":
            return one_line_error("schema", base, _message(check, None))
        return one_line_error("schema", f"{base}/{field}", _message(check, self.seats[field][row].as_py()))

    def event_reason(self, check: str, row: int, elem: int) -> str:
        what, field, *_ = check.split(":")
        assert self.events is not None
        ev = self.events
        base = f"events/{int(self.event_index[row])}"
        if what in ("required", "additional"):
            return one_line_error("schema", base, _message(check, None))
        column = {"awarded_to": "player", "deal_to": "target"}.get(field, field)
        key = {"awarded_to": "awarded_to", "deal_to": "to"}.get(field, field)
        if field in ("cards", "receive"):
            values = ev[field][row].as_py()
            key = "discard" if field == "cards" and ev["kind"][row].as_py() == "draw" else field
            if what == "maxitems":
                return one_line_error("schema", f"{base}/{key}", _message(check, values))
            return one_line_error("schema", f"{base}/{key}/{elem - 1}", _message(check, values[elem - 1]))
        if field == "draws" or field.startswith("draw_"):
            players, cards = ev["draw_players"][row].as_py() or [], ev["cards"][row].as_py() or []
            draws = [{"player": p, "card": c} for p, c in zip(players, cards, strict=False)]
            if what in ("maxitems", "minitems"):
                return one_line_error("schema", f"{base}/draws", _message(check, draws))
            j, which = divmod(elem - 1, 2)
            name = ("player", "card")[which]
            return one_line_error("schema", f"{base}/draws/{j}/{name}", _message(check, draws[j][name]))
        return one_line_error("schema", f"{base}/{key}", _message(check, ev[column][row].as_py()))
