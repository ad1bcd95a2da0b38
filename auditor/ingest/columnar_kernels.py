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
from numba import njit


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
    """A string column's own buffers: value i is data[offsets[i]:offsets[i + 1]] (offsets rebased to 0)."""

    offsets: np.ndarray  # int64, one more than the values
    data: np.ndarray  # uint8
    present: np.ndarray

    @property
    def byte_lengths(self) -> np.ndarray:
        """Bytes of each string, -1 for null. Never fewer than its code points, and 0 only when it has none:
        what the screen holds to a schema length (a doubt when the bytes pass a maximum, never a miss)."""
        return np.where(self.present, np.diff(self.offsets), -1)


def strings(column: pa.ChunkedArray | pa.Array) -> Strings:
    array = _combined(column)
    if not pa.types.is_string(array.type):
        array = array.cast(pa.string())
    present = _validity(array)
    n = len(array)
    _, offsets_buffer, data_buffer = array.buffers()
    if offsets_buffer is None or not n:
        return Strings(np.zeros(n + 1, np.int64), np.zeros(0, np.uint8), present)
    offsets = np.frombuffer(offsets_buffer, dtype=np.int32, count=array.offset + n + 1)[array.offset:].astype(np.int64)
    data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else np.zeros(0, np.uint8)
    return Strings(offsets, data, present)


@dataclass(frozen=True)
class StringLists:
    """A list-of-strings column: list i holds items offsets[i]..offsets[i + 1] of `items`."""

    offsets: np.ndarray  # int64, one more than the lists
    present: np.ndarray
    items: Strings

    @property
    def lengths(self) -> np.ndarray:
        """Items of each list, -1 for a null list."""
        return np.where(self.present, np.diff(self.offsets), -1)


def string_lists(column: pa.ChunkedArray | pa.Array) -> StringLists:
    array = _combined(column)
    present = _validity(array)
    n = len(array)
    offsets_buffer = array.buffers()[1]
    if offsets_buffer is None or not n:
        return StringLists(np.zeros(n + 1, np.int64), present, strings(pa.array([], pa.string())))
    offsets = np.frombuffer(offsets_buffer, dtype=np.int32, count=array.offset + n + 1)[array.offset:].astype(np.int64)
    return StringLists(offsets, present, strings(array.values))


def _vocabulary(words: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    encoded = [w.encode() for w in words]
    offsets = np.zeros(len(encoded) + 1, np.int64)
    offsets[1:] = np.cumsum([len(w) for w in encoded])
    return offsets, np.frombuffer(b"".join(encoded), dtype=np.uint8).copy()


@njit(cache=True)
def _codes_kernel(offsets, data, present, word_offsets, word_data, out):  # type: ignore[no-untyped-def]
    """Per string, the index of the word it equals byte for byte (-1: none, -2: null)."""
    size = len(data)
    for i in range(len(out)):
        if not present[i]:
            out[i] = -2
            continue
        start, stop = offsets[i], offsets[i + 1]
        out[i] = -1
        if start < 0 or stop > size or stop < start:
            continue
        n = stop - start
        for w in range(len(word_offsets) - 1):
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
        first, last = list_offsets[i], list_offsets[i + 1]
        ok = 0 <= first <= last <= items
        j = first
        while ok and j < last:
            start, stop = item_offsets[j], item_offsets[j + 1]
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
    (the button and the seating events excepted): `consistency_error`'s two faults, for the screen."""
    taken = np.zeros(groups, np.int64)
    for g in range(groups):
        out_max_seat[g] = -(1 << 62)
        out_stray[g] = False
    for r in range(len(seat_group)):
        g = seat_group[r]
        if 0 <= g < groups:
            s = seat[r]
            if s > out_max_seat[g]:
                out_max_seat[g] = s
            if 0 <= s < 63:
                taken[g] |= np.int64(1) << s
    for e in range(len(event_group)):
        g = event_group[e]
        if 0 <= g < groups and event_has_seat[e] and not event_exempt[e]:
            s = event_seat[e]
            if s < 0 or s >= 63 or (taken[g] >> s) & 1 == 0:
                out_stray[g] = True


def seated(groups: int, seat_group: np.ndarray, seat: np.ndarray, event_group: np.ndarray, event_seat: np.ndarray,
           event_has_seat: np.ndarray, event_exempt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(highest seat listed per group, whether an event of the group names an empty seat): `_seated_kernel`."""
    max_seat = np.empty(groups, np.int64)
    stray = np.empty(groups, np.bool_)
    _seated_kernel(groups, seat_group, seat, event_group, event_seat, event_has_seat, event_exempt, max_seat, stray)
    return max_seat, stray
