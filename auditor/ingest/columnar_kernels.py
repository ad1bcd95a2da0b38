"""Arrow columns as flat NumPy buffers, and the compiled passes the columnar validator's screen runs over them.

`auditor.ingest.columnar_validate` words a refused hand's reason exactly as jsonschema-rs does, which takes
about a hundred Arrow passes per chunk (string codes by `index_in`, UTF-8 lengths, list flattening, null
masks): 7.6 µs a hand, most of the reading side's time, spent on datasets where almost every hand is valid.
Its screen (`columnar_validate._screen`) asks first, in a few passes over the columns' own buffers, which
hands are *certainly* valid; only the others go through the wording machinery. The screen may be stricter
than the schema (a hand it doubts is judged in full, so a doubt costs time, never a verdict), never looser.

Nothing here is trusted from the file: offsets are Arrow's (built by its Parquet decoder), and every kernel
still clamps each index to its buffer, so a hostile or inconsistent column cannot read out of bounds (the
fuzz runs with NUMBA_BOUNDSCHECK=1); a clamped value only makes the hand doubtful.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from auditor.model.compiled import njit


def _combined(column: pa.ChunkedArray | pa.Array) -> pa.Array:
    if isinstance(column, pa.ChunkedArray):
        return column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
    return column


def _validity(array: pa.Array) -> np.ndarray:
    """Whether each value is not null, as bools, from the validity bitmap (no Arrow pass)."""
    n = len(array)
    bitmap = array.buffers()[0]
    if array.null_count == 0 or bitmap is None:
        return np.ones(n, dtype=np.bool_)
    first, last = array.offset >> 3, (array.offset + n + 7) >> 3
    bits = np.unpackbits(np.frombuffer(bitmap, dtype=np.uint8)[first:last], bitorder="little")
    return bits[array.offset & 7:(array.offset & 7) + n].view(np.bool_)  # 0/1 bytes: a free view


def present(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """Whether each value of a column of any type is not null."""
    return _validity(_combined(column))


@dataclass(frozen=True)
class Ints:
    """An integer column: values as int64 (0 where null, with `ints(fill=True)`; else whatever the writer left
    in a null's slot, for checks that look at a value only where it is present) and whether each is present."""

    values: np.ndarray
    present: np.ndarray


def ints(column: pa.ChunkedArray | pa.Array, fill: bool = False) -> Ints:
    array = _combined(column)
    if not pa.types.is_integer(array.type):
        raise TypeError(f"not an integer column: {array.type}")
    present = _validity(array)
    data = array.buffers()[1]
    dtype = array.type.to_pandas_dtype()
    if data is None or not len(array):
        return Ints(np.zeros(len(array), np.int64), present)
    values = np.frombuffer(data, dtype=dtype, count=array.offset + len(array))[array.offset:].astype(np.int64)
    if fill and array.null_count:
        values = np.where(present, values, 0)
    return Ints(values, present)


@dataclass(frozen=True)
class Strings:
    """A string column's own buffers: value i is data[offsets[i]:offsets[i + 1]]."""

    offsets: np.ndarray  # int32 (Arrow's own, not copied), one more than the values
    data: np.ndarray  # uint8
    present: np.ndarray

    @property
    def byte_lengths(self) -> np.ndarray:
        """Bytes of each string, -1 for null. Never fewer than its code points, and 0 only when it has none:
        what the screen holds to a schema length (a doubt when the bytes pass a maximum, never a miss)."""
        return np.where(self.present, np.diff(self.offsets).astype(np.int64), -1)


def strings(column: pa.ChunkedArray | pa.Array) -> Strings:
    array = _combined(column)
    if not pa.types.is_string(array.type):
        array = array.cast(pa.string())
    present = _validity(array)
    n = len(array)
    _, offsets_buffer, data_buffer = array.buffers()
    if offsets_buffer is None or not n:
        return Strings(np.zeros(n + 1, np.int32), np.zeros(0, np.uint8), present)
    offsets = np.frombuffer(offsets_buffer, dtype=np.int32, count=array.offset + n + 1)[array.offset:]
    data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else np.zeros(0, np.uint8)
    return Strings(offsets, data, present)


@dataclass(frozen=True)
class _Lists:
    """A list column's offsets and validity: list i holds items offsets[i]..offsets[i + 1] of its items."""

    offsets: np.ndarray  # int32 (Arrow's own, not copied), one more than the lists
    present: np.ndarray

    @property
    def lengths(self) -> np.ndarray:
        """Items of each list, -1 for a null list."""
        return np.where(self.present, np.diff(self.offsets), -1)


def _list_parts(column: pa.ChunkedArray | pa.Array, empty: pa.Array) -> tuple[np.ndarray, np.ndarray, pa.Array]:
    """A list column's offsets (from its buffer, not copied), validity and item array (`empty` when it has none)."""
    array = _combined(column)
    present = _validity(array)
    n = len(array)
    offsets_buffer = array.buffers()[1]
    if offsets_buffer is None or not n:
        return np.zeros(n + 1, np.int32), present, empty
    offsets = np.frombuffer(offsets_buffer, dtype=np.int32, count=array.offset + n + 1)[array.offset:]
    return offsets, present, array.values


@dataclass(frozen=True)
class StringLists(_Lists):
    """A list-of-strings column."""

    items: Strings


def string_lists(column: pa.ChunkedArray | pa.Array) -> StringLists:
    offsets, present, values = _list_parts(column, pa.array([], pa.string()))
    return StringLists(offsets, present, strings(values))


#: how many (length, first byte, last byte) slots a vocabulary's lookup table has: its words' keys
_LOOKUP = 16 * 256 * 256


def _lookup_key(n: int, first: int, last: int) -> int:
    return ((n & 15) << 16) | (first << 8) | last


_vocabularies: dict[tuple[str, ...], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}


def _vocabulary(words: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The words' bytes (offsets, data) and a lookup table from a string's (length, first byte, last byte) to
    the one word with that key + 1 (0: none; -1: several, compared one by one): each string costs one lookup
    and one comparison instead of one per word (a kind column is 14 words, a million strings a second)."""
    if words not in _vocabularies:
        encoded = [w.encode() for w in words]
        offsets = np.zeros(len(encoded) + 1, np.int64)
        offsets[1:] = np.cumsum([len(w) for w in encoded])
        table = np.zeros(_LOOKUP, np.int8)
        for i, word in enumerate(encoded):
            if word:
                key = _lookup_key(len(word), word[0], word[-1])
                table[key] = i + 1 if table[key] == 0 else -1
        _vocabularies[words] = (offsets, np.frombuffer(b"".join(encoded), dtype=np.uint8).copy(), table)
    return _vocabularies[words]


@njit(cache=True)
def _codes_kernel(offsets, data, present, word_offsets, word_data, table, out):  # type: ignore[no-untyped-def]
    """Per string, the index of the word it equals byte for byte (-1: none, -2: null)."""
    size = len(data)
    words = len(word_offsets) - 1
    for i in range(len(out)):
        if not present[i]:
            out[i] = -2
            continue
        start, stop = np.int64(offsets[i]), np.int64(offsets[i + 1])  # int32 offsets: no overflow below
        out[i] = -1
        if start < 0 or stop > size or stop < start:
            continue
        n = stop - start
        first, last = 0, words
        if n > 0:
            hit = table[((n & 15) << 16) | (np.int64(data[start]) << 8) | np.int64(data[stop - 1])]
            if hit == 0:
                continue
            if hit > 0:
                first, last = hit - 1, hit
        for w in range(first, last):
            a, b = word_offsets[w], word_offsets[w + 1]
            if b - a != n:
                continue
            same = True
            for k in range(n):
                if data[start + k] != word_data[a + k]:
                    same = False
                    break
            if same:
                out[i] = w
                break


def codes(column: Strings, words: tuple[str, ...]) -> np.ndarray:
    """Index of each string in `words`; -1 for another string, -2 for null (as `columnar_validate._code`)."""
    out = np.empty(len(column.present), np.int64)
    _codes_kernel(column.offsets, column.data, column.present, *_vocabulary(words), out)
    return out


@njit(cache=True)
def _sorted_groups_kernel(numbers, present, known, out_group, out_index):  # type: ignore[no-untyped-def]
    """Per row, the position of its number in `known` (sorted, distinct; -1: null or not there) and its place
    among the rows of that group in row order, in one merge pass, when the present numbers never decrease
    (True); False, with the outputs unfinished, as soon as one does."""
    k = 0
    current, count, others = -2, 0, 0
    started = False
    previous = numbers[0] if len(numbers) else 0
    for i in range(len(numbers)):
        g = -1
        if present[i]:
            x = numbers[i]
            if started and x < previous:
                return False
            started, previous = True, x
            while k < len(known) and known[k] < x:
                k += 1
            if k < len(known) and known[k] == x:
                g = k
        if g < 0:
            out_group[i], out_index[i] = -1, others
            others += 1
            continue
        if g != current:
            current, count = g, 0
        out_group[i], out_index[i] = g, count
        count += 1
    return True


def sorted_groups(numbers: np.ndarray, present: np.ndarray, known: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(group, place within the group) of each row, or None when the rows are not in number order."""
    group = np.empty(len(numbers), np.int64)
    index = np.empty(len(numbers), np.int64)
    if not _sorted_groups_kernel(numbers, present, known, group, index):
        return None
    return group, index


#: per first and second byte, whether the two make a card of the schema's pattern
CARD_BYTES = np.zeros((256, 256), dtype=np.bool_)
for _card in [r + s for r in "23456789TJQKA" for s in "cdhs"] + ["??"]:
    CARD_BYTES[ord(_card[0]), ord(_card[1])] = True


@njit(cache=True)
def _lists_kernel(list_offsets, item_offsets, item_data, item_present, cards, low, high, table,
                  out_ok):  # type: ignore[no-untyped-def]
    """Per list, whether every item is present and, with `cards`, a card (two bytes that make one), else a
    string of `low`..`high` bytes. A list whose offsets leave its buffers is not ok."""
    items = len(item_present)
    size = len(item_data)
    for i in range(len(out_ok)):
        first, last = np.int64(list_offsets[i]), np.int64(list_offsets[i + 1])
        ok = 0 <= first <= last <= items
        j = first
        while ok and j < last:
            start, stop = np.int64(item_offsets[j]), np.int64(item_offsets[j + 1])
            if not item_present[j] or start < 0 or stop > size or stop < start:
                ok = False
            elif cards:
                ok = stop - start == 2 and table[item_data[start], item_data[start + 1]]
            else:
                ok = low <= stop - start <= high
            j += 1
        out_ok[i] = ok


def lists_ok(column: StringLists, cards: bool, low: int = 0, high: int = 0) -> np.ndarray:
    """Per list, whether all its items pass (`_lists_kernel`); a null list is ok (it has no items)."""
    out = np.empty(len(column.present), np.bool_)
    _lists_kernel(column.offsets, column.items.offsets, column.items.data, column.items.present, cards, low, high,
                  CARD_BYTES, out)
    return out


@njit(cache=True)
def _seated_kernel(groups, seat_group, seat, event_group, event_seat, event_has_seat, event_exempt,
                   out_max_seat, out_stray):  # type: ignore[no-untyped-def]
    """Per hand group, its highest listed seat, and whether an event names a seat nobody in it sits in
    (the button and the seating events excepted): `consistency_error`'s two faults, for the screen. The seats
    taken are bits of `out_stray`'s scratch: a seat outside 0..62 is never taken (its hand is refused anyway)."""
    taken = np.zeros(groups, np.int64)
    out_max_seat[:] = -(1 << 62)
    out_stray[:] = False
    for r in range(len(seat_group)):
        g, s = seat_group[r], seat[r]
        if 0 <= g < groups:
            out_max_seat[g] = max(out_max_seat[g], s)
            if 0 <= s < 63:
                taken[g] |= np.int64(1) << s
    for e in range(len(event_group)):
        g, s = event_group[e], event_seat[e]
        if 0 <= g < groups and event_has_seat[e] and not event_exempt[e] and (
                s < 0 or s >= 63 or (taken[g] >> s) & 1 == 0):
            out_stray[g] = True


def seated(groups: int, seat_group: np.ndarray, seat: np.ndarray, event_group: np.ndarray, event_seat: np.ndarray,
           event_has_seat: np.ndarray, event_exempt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(highest seat listed per group, whether an event of the group names an empty seat): `_seated_kernel`."""
    max_seat = np.empty(groups, np.int64)
    stray = np.empty(groups, np.bool_)
    _seated_kernel(groups, seat_group, seat, event_group, event_seat, event_has_seat, event_exempt, max_seat, stray)
    return max_seat, stray


@dataclass(frozen=True)
class IntLists(_Lists):
    """A list-of-integers column."""

    items: Ints


def int_lists(column: pa.ChunkedArray | pa.Array) -> IntLists:
    offsets, present, values = _list_parts(column, pa.array([], pa.int64()))
    return IntLists(offsets, present, ints(values))


@njit(cache=True)
def _int_lists_kernel(list_offsets, values, item_present, low, high, out_ok):  # type: ignore[no-untyped-def]
    """Per list, whether every item is present and in low..high (a list whose offsets leave its items: not)."""
    items = len(item_present)
    for i in range(len(out_ok)):
        first, last = np.int64(list_offsets[i]), np.int64(list_offsets[i + 1])
        ok = 0 <= first <= last <= items
        j = first
        while ok and j < last:
            ok = item_present[j] and low <= values[j] <= high
            j += 1
        out_ok[i] = ok


def int_lists_ok(column: IntLists, low: int, high: int) -> np.ndarray:
    """Per list, whether all its items are present and in low..high; a null list is ok (no items)."""
    out = np.empty(len(column.present), np.bool_)
    _int_lists_kernel(column.offsets, column.items.values, column.items.present, low, high, out)
    return out


#: days of each month (1-based) in a year that is not a leap year
_MONTH_DAYS = np.array([0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31], dtype=np.int64)


@njit(cache=True)
def _digits(data, at, n):  # type: ignore[no-untyped-def]
    """The number written by the `n` bytes at `at`, or -1 if one of them is not a digit."""
    value = 0
    for k in range(at, at + n):
        d = np.int64(data[k]) - 48
        if d < 0 or d > 9:
            return -1
        value = value * 10 + d
    return value


@njit(cache=True)
def _utc_times_kernel(offsets, data, present, month_days, out_ok):  # type: ignore[no-untyped-def]
    """Per string, whether it is an RFC 3339 date-time of the usual form `YYYY-MM-DDTHH:MM:SSZ` (20 bytes, `T`
    or `t`, `Z` or `z`) on a real calendar day, with a second up to 59. Null is ok (the key is absent); any
    other form, a leap second included, is not ok here: the screen then leaves the hand to the full checks."""
    size = len(data)
    for i in range(len(out_ok)):
        if not present[i]:
            out_ok[i] = True
            continue
        s = np.int64(offsets[i])
        ok = np.int64(offsets[i + 1]) - s == 20 and s >= 0 and s + 20 <= size
        if ok:
            ok = (data[s + 4] == 45 and data[s + 7] == 45 and data[s + 13] == 58 and data[s + 16] == 58
                  and (data[s + 10] == 84 or data[s + 10] == 116) and (data[s + 19] == 90 or data[s + 19] == 122))
        if ok:
            year, month, day = _digits(data, s, 4), _digits(data, s + 5, 2), _digits(data, s + 8, 2)
            hour, minute, second = _digits(data, s + 11, 2), _digits(data, s + 14, 2), _digits(data, s + 17, 2)
            ok = year >= 0 and 1 <= month <= 12 and 0 <= hour <= 23 and 0 <= minute <= 59 and 0 <= second <= 59
            if ok:
                leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
                ok = 1 <= day <= month_days[month] + (1 if leap and month == 2 else 0)
        out_ok[i] = ok


def utc_times_ok(column: Strings) -> np.ndarray:
    """`_utc_times_kernel` over a string column."""
    out = np.empty(len(column.present), np.bool_)
    _utc_times_kernel(column.offsets, column.data, column.present, _MONTH_DAYS, out)
    return out
