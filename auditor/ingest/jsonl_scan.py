"""A compiled byte scanner for canonical JSON Lines: many lines' hands spread into flat columns in one Numba call.

Why: reading a canonical hand cost ~55 µs (json.loads ~27, jsonschema-rs ~15, the rest per-hand Python) and
turning the dicts into tables (`tables.build_tables`) another ~27 µs; the kernel engine wants readers and validation
columnar. Here the bytes of a batch of lines are walked once by `@njit(cache=True)` kernels that know the
hand-log schema's shape (hand -> stakes, seats, events -> cards, draws) and write typed arrays: per line
its integer fields and string ids, per seat and per event theirs, list items apart, every string decoded
into one byte buffer. `tables` turns them into the canonical Arrow tables `build_tables` makes (held equal
by `tests/test_jsonl_tables.py`), and `auditor.ingest.columnar_validate` judges them.

The scanner reads exactly a strict subset of JSON, stricter than `json.loads`, never looser: a line is
read (`ok`) only if it is one object whose every key is one the schema defines at that place (hand,
stakes, spread item, seat, event for its kind, draw), met once, with a value of the JSON type the schema
gives that key (string, integer of at most 18 digits, boolean, array of those, the nested objects), no
`null`, no number with a fraction or exponent, no lone escaped UTF-16 surrogate, no key spelled with an escape,
then only white space. Everything else (a type JSON allows that a column would coerce, duplicate keys,
unknown keys, a value of another type, huge integers...) is left to the reference path (`json.loads` +
jsonschema-rs + `consistency_error`) for that line, which also words every refusal. What the scanner
reads loses nothing the schema looks at: the column layout is the one `parquet._event` rebuilds events
from, and a key a kind does not allow is refused here (`ok` false) because its column would hide it.

Safety (hostile input): every position is checked against the line's end before it is read, every write
against its array's capacity, counted before the call (`scan`); a line's writes are undone when it turns
out unreadable. UTF-8 is the caller's to check (`scan` is given bytes that decode).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from auditor.model.compiled import njit
from auditor.model.tables import EVENTS_SCHEMA, HANDS_SCHEMA, SEATS_SCHEMA, CanonicalTables
from auditor.resources import schema_path

__all__ = ["EVENT_KEYS", "KINDS", "Scan", "allowed_event_keys", "readable_lines", "scan", "tables"]

HAND_KEYS = ("hand_id", "table_id", "room", "started_at", "variant", "structure", "rule_pack", "currency",
             "money_scale", "max_seats", "stakes", "seats", "events")
STAKES_KEYS = ("blinds", "ante", "bet_units", "spread", "table_min", "table_max", "chip_unit")
SEAT_KEYS = ("seat", "player", "stack", "status")
EVENT_KEYS = ("kind", "t", "seat", "player", "action", "post", "blind", "amount", "to", "all_in", "pot", "from_seat",
              "cards", "discard", "receive", "awarded_to", "draws")
PAIR_KEYS = ("min", "max", "player", "card")  # a spread item's and a seat draw's keys
KINDS = ("seat_draw", "seat_request", "seat_fill", "button", "post", "deal", "draw", "action", "show", "muck",
         "return", "rake", "award", "kill")
_CONTEXTS = (HAND_KEYS, STAKES_KEYS, SEAT_KEYS, EVENT_KEYS, PAIR_KEYS)
_ALL_KEYS = tuple(dict.fromkeys(k for keys in _CONTEXTS for k in keys))
#: an event's key bit for `to` given as a string (a deal's target); the keys' own bits are their EVENT_KEYS places
TO_TEXT_BIT = len(EVENT_KEYS)

# hand columns: h_str (strings: HAND_KEYS[0:8]), h_int (money_scale, max_seats, ante, table_min, table_max,
# chip_unit), h_lo/h_hi (blinds, bet_units, spread); h_has: bit per HAND_KEYS place, + 13.. for stakes keys
H_INT_OF = {"money_scale": 0, "max_seats": 1, "ante": 2, "table_min": 3, "table_max": 4, "chip_unit": 5}
STAKES_BIT = len(HAND_KEYS)
# event columns: e_int (seat, blind, amount, to, pot, from_seat, all_in), e_str (kind, t, player, action, post,
# target, awarded_to), e_lo/e_hi (cards, discard, receive, draws)
E_INT = ("seat", "blind", "amount", "to", "pot", "from_seat", "all_in")
E_STR = ("kind", "t", "player", "action", "post", "target", "awarded_to")
# counters (the `n` array): seats, events, int items, str items, pairs, strings, bytes
_SEATS, _EVENTS, _INTS, _STRS, _PAIRS, _STRINGS, _BYTES = range(7)


def _key_table() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    data = "".join(_ALL_KEYS).encode("ascii")
    offsets = np.zeros(len(_ALL_KEYS) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(k) for k in _ALL_KEYS])
    slot = np.full((len(_CONTEXTS), len(_ALL_KEYS)), -1, dtype=np.int64)
    for c, keys in enumerate(_CONTEXTS):
        for i, k in enumerate(keys):
            slot[c, _ALL_KEYS.index(k)] = i
    return np.frombuffer(data, dtype=np.uint8).copy(), offsets, slot


_KEY_BYTES, _KEY_OFFSETS, _KEY_SLOT = _key_table()


def _hash_table() -> tuple[int, np.ndarray]:
    """A perfect hash of the keys by (length, first, middle and last byte): the multiplier and the table of
    key numbers (-1: no key), so a key is found with one look and one comparison (a search through the ~40
    names was a third of the scan)."""
    for mult in range(3, 1000):
        table = np.full(1024, -1, dtype=np.int64)
        for k, key in enumerate(_ALL_KEYS):
            h = _hash(len(key), ord(key[0]), ord(key[len(key) >> 1]), ord(key[-1]), mult)
            if table[h] >= 0:
                break
            table[h] = k
        else:
            return mult, table
    raise AssertionError("no perfect hash for the keys")


def _hash(length: int, first: int, middle: int, last: int, mult: int) -> int:
    return (((length * mult + first) * mult + middle) * mult + last) & 1023


_KEY_MULT, _KEY_HASH = _hash_table()
#: what the kernels look keys up in (one argument): names, their offsets, slot per context, hash table, multiplier
_KEYS = (_KEY_BYTES, _KEY_OFFSETS, _KEY_SLOT, _KEY_HASH, np.int64(_KEY_MULT))
_HAND, _STAKES, _SEAT, _EVENT, _PAIR = range(5)


@cache
def allowed_event_keys() -> np.ndarray:
    """Per kind (KINDS order), the bit mask of the event keys its schema definition allows (`to` as text
    for a deal, as a number for the others), read from the hand-log schema itself."""
    defs = json.loads(schema_path("hand-log.schema.json").read_text(encoding="utf-8"))["$defs"]
    masks = np.zeros(len(KINDS), dtype=np.int64)
    for k, kind in enumerate(KINDS):
        mask = 0
        for key in defs[kind]["properties"]:
            if key == "to" and kind == "deal":
                mask |= (1 << EVENT_KEYS.index("to")) | (1 << TO_TEXT_BIT)
            else:
                mask |= 1 << EVENT_KEYS.index(key)
        masks[k] = mask
    return masks


# --------------------------------------------------------------------------- kernels


@njit(cache=True)
def _ws(buf, p, e):  # pragma: no cover - compiled (runs as Python under NUMBA_DISABLE_JIT=1)
    while p < e and (buf[p] == 32 or buf[p] == 9 or buf[p] == 10 or buf[p] == 13):
        p += 1
    return p


@njit(cache=True)
def _hex(b):  # pragma: no cover - compiled
    b = np.int64(b)  # a uint8 would wrap as plain Python (NUMBA_DISABLE_JIT=1) where Numba widens it
    if 48 <= b <= 57:
        return b - 48
    if 97 <= b <= 102:
        return b - 87
    if 65 <= b <= 70:
        return b - 55
    return -1


@njit(cache=True)
def _string(buf, p, e, n, s_lo, s_hi, out):  # pragma: no cover - compiled
    """The string at buf[p] (a quote), decoded into `out` as string number n[_STRINGS] (escapes as `json.loads`
    decodes them, a surrogate pair as its one character); the position after it, or -1 (not a string the
    scanner reads: a control byte, a bad escape or a lone surrogate, no end, no room)."""
    if p >= e or buf[p] != 34 or n[_STRINGS] >= s_lo.shape[0]:
        return -1
    w = n[_BYTES]
    start = w
    q = p + 1
    cap = out.shape[0]
    while q < e:
        b = buf[q]
        if b == 34:
            s_lo[n[_STRINGS]] = start
            s_hi[n[_STRINGS]] = w
            n[_STRINGS] += 1
            n[_BYTES] = w
            return q + 1
        if b < 32:
            return -1
        if b == 92:
            if q + 1 >= e:
                return -1
            c = buf[q + 1]
            if c == 117:  # \uXXXX
                if q + 6 > e:
                    return -1
                code = 0
                for k in range(2, 6):
                    h = _hex(buf[q + k])
                    if h < 0:
                        return -1
                    code = code * 16 + h
                q += 6
                if 0xD800 <= code <= 0xDBFF:  # half of a pair: the other half must follow (a lone one is no text)
                    if q + 6 > e or buf[q] != 92 or buf[q + 1] != 117:
                        return -1
                    low = 0
                    for k in range(2, 6):
                        h = _hex(buf[q + k])
                        if h < 0:
                            return -1
                        low = low * 16 + h
                    if not 0xDC00 <= low <= 0xDFFF or w + 4 > cap:
                        return -1
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    out[w] = 0xF0 | (code >> 18)
                    out[w + 1] = 0x80 | ((code >> 12) & 0x3F)
                    out[w + 2] = 0x80 | ((code >> 6) & 0x3F)
                    out[w + 3] = 0x80 | (code & 0x3F)
                    w += 4
                    q += 6
                    continue
                if 0xDC00 <= code <= 0xDFFF or w + 3 > cap:
                    return -1
                if code < 0x80:
                    out[w] = code
                    w += 1
                elif code < 0x800:
                    out[w] = 0xC0 | (code >> 6)
                    out[w + 1] = 0x80 | (code & 0x3F)
                    w += 2
                else:
                    out[w] = 0xE0 | (code >> 12)
                    out[w + 1] = 0x80 | ((code >> 6) & 0x3F)
                    out[w + 2] = 0x80 | (code & 0x3F)
                    w += 3
                continue
            if c == 34 or c == 92 or c == 47:
                v = c
            elif c == 98:
                v = 8
            elif c == 102:
                v = 12
            elif c == 110:
                v = 10
            elif c == 114:
                v = 13
            elif c == 116:
                v = 9
            else:
                return -1
            if w >= cap:
                return -1
            out[w] = v
            w += 1
            q += 2
            continue
        if w >= cap:
            return -1
        out[w] = b
        w += 1
        q += 1
    return -1


@njit(cache=True)
def _int(buf, p, e):  # pragma: no cover - compiled
    """(position after, value) of the integer at buf[p]; position -1 for anything else (a fraction, an
    exponent, a leading zero, more than 18 digits)."""
    q = p
    negative = False
    if q < e and buf[q] == 45:
        negative = True
        q += 1
    if q >= e or buf[q] < 48 or buf[q] > 57:
        return -1, 0
    value = 0
    if buf[q] == 48:
        q += 1
    else:
        digits = 0
        while q < e and 48 <= buf[q] <= 57:
            if digits == 18:
                return -1, 0
            value = value * 10 + (np.int64(buf[q]) - 48)
            digits += 1
            q += 1
    if q < e and (48 <= buf[q] <= 57 or buf[q] == 46 or buf[q] == 101 or buf[q] == 69):
        return -1, 0
    return q, -value if negative else value


@njit(cache=True)
def _bool(buf, p, e):  # pragma: no cover - compiled
    """(position after, 1/0) of `true`/`false` at buf[p]; position -1 otherwise."""
    if p + 4 <= e and buf[p] == 116 and buf[p + 1] == 114 and buf[p + 2] == 117 and buf[p + 3] == 101:
        return p + 4, 1
    if (p + 5 <= e and buf[p] == 102 and buf[p + 1] == 97 and buf[p + 2] == 108 and buf[p + 3] == 115
            and buf[p + 4] == 101):
        return p + 5, 0
    return -1, 0


@njit(cache=True)
def _key(buf, p, e, context, keys):  # pragma: no cover - compiled
    """(position after the key's colon, its slot in `context`) for the key at buf[p]; position -1 for a key
    the context does not define, one spelled with an escape, or no colon. `keys`: `_KEYS`."""
    key_bytes, key_offsets, key_slot, key_hash, mult = keys
    if p >= e or buf[p] != 34:
        return -1, -1
    q = p + 1
    while q < e and buf[q] != 34:
        if buf[q] == 92 or buf[q] < 32:
            return -1, -1
        q += 1
    if q >= e:
        return -1, -1
    length = q - p - 1
    if length < 1:
        return -1, -1
    found = key_hash[(((length * mult + np.int64(buf[p + 1])) * mult + np.int64(buf[p + 1 + (length >> 1)])) * mult
                      + np.int64(buf[q - 1])) & 1023]
    if found < 0:
        return -1, -1
    lo = key_offsets[found]
    if key_offsets[found + 1] - lo != length:
        return -1, -1
    for j in range(length):
        if key_bytes[lo + j] != buf[p + 1 + j]:
            return -1, -1
    slot = key_slot[context, found]
    if slot < 0:
        return -1, -1
    q = _ws(buf, q + 1, e)
    if q >= e or buf[q] != 58:
        return -1, -1
    return _ws(buf, q + 1, e), slot


@njit(cache=True)
def _next(buf, p, e, close):  # pragma: no cover - compiled
    """After a value in an object or array: (position of the next item or -2 after the closing `close`
    (its position + 1 returned as second value), -1 for anything else)."""
    p = _ws(buf, p, e)
    if p >= e:
        return -1, 0
    if buf[p] == 44:
        return _ws(buf, p + 1, e), 0
    if buf[p] == close:
        return -2, p + 1
    return -1, 0


@njit(cache=True)
def _int_list(buf, p, e, n, ints):  # pragma: no cover - compiled
    """An array of integers at buf[p] into `ints`: (position after, first item, end item); position -1
    otherwise."""
    lo = n[_INTS]
    if p >= e or buf[p] != 91:
        return -1, 0, 0
    p = _ws(buf, p + 1, e)
    if p < e and buf[p] == 93:
        return p + 1, lo, lo
    while True:
        q, v = _int(buf, p, e)
        if q < 0 or n[_INTS] >= ints.shape[0]:
            return -1, 0, 0
        ints[n[_INTS]] = v
        n[_INTS] += 1
        p, after = _next(buf, q, e, 93)
        if p == -2:
            return after, lo, n[_INTS]
        if p < 0:
            return -1, 0, 0


@njit(cache=True)
def _str_list(buf, p, e, n, strs, s_lo, s_hi, out):  # pragma: no cover - compiled
    """An array of strings at buf[p], their string numbers into `strs`: (position after, first, end)."""
    lo = n[_STRS]
    if p >= e or buf[p] != 91:
        return -1, 0, 0
    p = _ws(buf, p + 1, e)
    if p < e and buf[p] == 93:
        return p + 1, lo, lo
    while True:
        if n[_STRS] >= strs.shape[0]:
            return -1, 0, 0
        at = n[_STRINGS]
        q = _string(buf, p, e, n, s_lo, s_hi, out)
        if q < 0:
            return -1, 0, 0
        strs[n[_STRS]] = at
        n[_STRS] += 1
        p, after = _next(buf, q, e, 93)
        if p == -2:
            return after, lo, n[_STRS]
        if p < 0:
            return -1, 0, 0


@njit(cache=True)
def _pair_list(buf, p, e, n, pairs, want, s_lo, s_hi, out, keys):  # pragma: no cover
    """An array of two-key objects at buf[p] into `pairs` (both keys required): spread items (`want` 0: min
    and max, integers) or seat draws (`want` 2: player and card, string numbers). (position after, first,
    end); position -1 otherwise."""
    lo = n[_PAIRS]
    if p >= e or buf[p] != 91:
        return -1, 0, 0
    p = _ws(buf, p + 1, e)
    if p < e and buf[p] == 93:
        return p + 1, lo, lo
    while True:
        if p >= e or buf[p] != 123 or n[_PAIRS] >= pairs.shape[0]:
            return -1, 0, 0
        row = n[_PAIRS]
        seen = 0
        p = _ws(buf, p + 1, e)
        while True:
            p, slot = _key(buf, p, e, _PAIR, keys)
            if p < 0 or slot < want or slot > want + 1 or (seen >> slot) & 1:
                return -1, 0, 0
            seen |= 1 << slot
            if want == 0:
                q, v = _int(buf, p, e)
            else:
                v = n[_STRINGS]
                q = _string(buf, p, e, n, s_lo, s_hi, out)
            if q < 0:
                return -1, 0, 0
            pairs[row, slot - want] = v
            p, after = _next(buf, q, e, 125)
            if p == -2:
                break
            if p < 0:
                return -1, 0, 0
        if seen != (3 << want):
            return -1, 0, 0
        n[_PAIRS] += 1
        p, after = _next(buf, after, e, 93)
        if p == -2:
            return after, lo, n[_PAIRS]
        if p < 0:
            return -1, 0, 0


@njit(cache=True)
def _stakes(buf, p, e, line, n, h_int, h_lo, h_hi, h_has, ints, pairs, s_lo, s_hi, out, keys):  # pragma: no cover
    if p >= e or buf[p] != 123:
        return -1
    p = _ws(buf, p + 1, e)
    if p < e and buf[p] == 125:
        return p + 1
    while True:
        p, slot = _key(buf, p, e, _STAKES, keys)
        bit = np.int64(1) << (13 + slot)
        if p < 0 or h_has[line] & bit:
            return -1
        h_has[line] |= bit
        if slot == 0 or slot == 2:  # blinds, bet_units
            q, lo, hi = _int_list(buf, p, e, n, ints)
            which = 0 if slot == 0 else 1
            h_lo[line, which] = lo
            h_hi[line, which] = hi
        elif slot == 3:  # spread
            q, lo, hi = _pair_list(buf, p, e, n, pairs, 0, s_lo, s_hi, out, keys)
            h_lo[line, 2] = lo
            h_hi[line, 2] = hi
        else:  # ante, table_min, table_max, chip_unit
            q, v = _int(buf, p, e)
            h_int[line, 2 if slot == 1 else slot - 1] = v
        if q < 0:
            return -1
        p, after = _next(buf, q, e, 125)
        if p == -2:
            return after
        if p < 0:
            return -1


@njit(cache=True)
def _seats(buf, p, e, line, n, seat_line, seat_int, seat_str, seat_has, s_lo, s_hi, out, keys):  # pragma: no cover
    if p >= e or buf[p] != 91:
        return -1
    p = _ws(buf, p + 1, e)
    if p < e and buf[p] == 93:
        return p + 1
    while True:
        if p >= e or buf[p] != 123 or n[_SEATS] >= seat_line.shape[0]:
            return -1
        row = n[_SEATS]
        n[_SEATS] += 1
        seat_line[row] = line
        seat_has[row] = 0
        seat_str[row, 0] = -1
        seat_str[row, 1] = -1
        p = _ws(buf, p + 1, e)
        after = p + 1
        if not (p < e and buf[p] == 125):
            while True:
                p, slot = _key(buf, p, e, _SEAT, keys)
                if p < 0 or (seat_has[row] >> slot) & 1:
                    return -1
                seat_has[row] |= 1 << slot
                if slot == 0 or slot == 2:  # seat, stack
                    q, v = _int(buf, p, e)
                    seat_int[row, 0 if slot == 0 else 1] = v
                else:  # player, status
                    at = n[_STRINGS]
                    q = _string(buf, p, e, n, s_lo, s_hi, out)
                    seat_str[row, 0 if slot == 1 else 1] = at
                if q < 0:
                    return -1
                p, after = _next(buf, q, e, 125)
                if p == -2:
                    break
                if p < 0:
                    return -1
        p, after = _next(buf, after, e, 93)
        if p == -2:
            return after
        if p < 0:
            return -1


@njit(cache=True)
def _events(buf, p, e, line, n, ev_line, e_int, e_str, e_lo, e_hi, e_has, ints, strs, pairs, s_lo, s_hi, out,
            keys):  # pragma: no cover - compiled
    if p >= e or buf[p] != 91:
        return -1
    p = _ws(buf, p + 1, e)
    if p < e and buf[p] == 93:
        return p + 1
    while True:
        if p >= e or buf[p] != 123 or n[_EVENTS] >= ev_line.shape[0]:
            return -1
        row = n[_EVENTS]
        n[_EVENTS] += 1
        ev_line[row] = line
        e_has[row] = 0
        for k in range(7):
            e_str[row, k] = -1
        p = _ws(buf, p + 1, e)
        after = p + 1
        if not (p < e and buf[p] == 125):
            while True:
                p, slot = _key(buf, p, e, _EVENT, keys)
                if p < 0 or (e_has[row] >> slot) & 1:
                    return -1
                e_has[row] |= np.int64(1) << slot
                q = -1
                if slot == 0 or slot == 1 or slot == 3 or slot == 4 or slot == 5 or slot == 15:
                    col = 0 if slot == 0 else 1 if slot == 1 else 2 if slot == 3 else 3 if slot == 4 else \
                        4 if slot == 5 else 6
                    at = n[_STRINGS]
                    q = _string(buf, p, e, n, s_lo, s_hi, out)
                    e_str[row, col] = at
                elif slot == 8 and p < e and buf[p] == 34:  # `to` as text: a deal's target
                    e_has[row] |= np.int64(1) << 17
                    at = n[_STRINGS]
                    q = _string(buf, p, e, n, s_lo, s_hi, out)
                    e_str[row, 5] = at
                elif slot == 9:  # all_in
                    q, v = _bool(buf, p, e)
                    e_int[row, 6] = v
                elif slot == 12 or slot == 13 or slot == 14:  # cards, discard, receive
                    q, lo, hi = _str_list(buf, p, e, n, strs, s_lo, s_hi, out)
                    e_lo[row, slot - 12] = lo
                    e_hi[row, slot - 12] = hi
                elif slot == 16:  # draws
                    q, lo, hi = _pair_list(buf, p, e, n, pairs, 2, s_lo, s_hi, out, keys)
                    e_lo[row, 3] = lo
                    e_hi[row, 3] = hi
                else:  # seat, blind, amount, to, pot, from_seat
                    q, v = _int(buf, p, e)
                    col = 0 if slot == 2 else 1 if slot == 6 else 2 if slot == 7 else 3 if slot == 8 else \
                        4 if slot == 10 else 5
                    e_int[row, col] = v
                if q < 0:
                    return -1
                p, after = _next(buf, q, e, 125)
                if p == -2:
                    break
                if p < 0:
                    return -1
        p, after = _next(buf, after, e, 93)
        if p == -2:
            return after
        if p < 0:
            return -1


@njit(cache=True)
def _hand(buf, p, e, line, n, h_str, h_int, h_lo, h_hi, h_has, seat_line, seat_int, seat_str, seat_has, ev_line,
          e_int, e_str, e_lo, e_hi, e_has, ints, strs, pairs, s_lo, s_hi, out, keys):  # pragma: no cover
    """One line's hand; whether the scanner read it (the line's writes are the caller's to undo if not)."""
    p = _ws(buf, p, e)
    if p >= e or buf[p] != 123:
        return False
    p = _ws(buf, p + 1, e)
    if p < e and buf[p] == 125:
        return False  # no stakes, seats or events
    while True:
        p, slot = _key(buf, p, e, _HAND, keys)
        if p < 0 or (h_has[line] >> slot) & 1:
            return False
        h_has[line] |= np.int64(1) << slot
        if slot < 8:
            at = n[_STRINGS]
            q = _string(buf, p, e, n, s_lo, s_hi, out)
            h_str[line, slot] = at
        elif slot < 10:
            q, v = _int(buf, p, e)
            h_int[line, slot - 8] = v
        elif slot == 10:
            q = _stakes(buf, p, e, line, n, h_int, h_lo, h_hi, h_has, ints, pairs, s_lo, s_hi, out, keys)
        elif slot == 11:
            q = _seats(buf, p, e, line, n, seat_line, seat_int, seat_str, seat_has, s_lo, s_hi, out, keys)
        else:
            q = _events(buf, p, e, line, n, ev_line, e_int, e_str, e_lo, e_hi, e_has, ints, strs, pairs, s_lo,
                        s_hi, out, keys)
        if q < 0:
            return False
        p, after = _next(buf, q, e, 125)
        if p == -2:
            break
        if p < 0:
            return False
    if _ws(buf, after, e) != e:
        return False
    need = (1 << 10) | (1 << 11) | (1 << 12)  # stakes, seats and events: the columns cannot say they are absent
    return (h_has[line] & need) == need


@njit(cache=True)
def _scan_lines(buf, starts, ends, n, ok, h_str, h_int, h_lo, h_hi, h_has, seat_line, seat_int, seat_str, seat_has,
                ev_line, e_int, e_str, e_lo, e_hi, e_has, ints, strs, pairs, s_lo, s_hi, out, keys):  # pragma: no cover
    saved = np.zeros(7, dtype=np.int64)
    for line in range(starts.shape[0]):
        for k in range(7):
            saved[k] = n[k]
        h_has[line] = 0
        for k in range(8):
            h_str[line, k] = -1
        for k in range(3):
            h_lo[line, k] = -1
            h_hi[line, k] = -1
        s = max(0, min(starts[line], buf.shape[0]))
        e = max(s, min(ends[line], buf.shape[0]))
        ok[line] = _hand(buf, s, e, line, n, h_str, h_int, h_lo, h_hi, h_has, seat_line, seat_int, seat_str,
                         seat_has, ev_line, e_int, e_str, e_lo, e_hi, e_has, ints, strs, pairs, s_lo, s_hi, out,
                         keys)
        if not ok[line]:
            for k in range(7):
                n[k] = saved[k]


@njit(cache=True)
def _count(buf):  # pragma: no cover - compiled
    """('{', '[' + ',', quotes) in buf: what bounds the rows the kernel may write."""
    braces = 0
    items = 0
    quotes = 0
    for q in range(buf.shape[0]):
        b = buf[q]
        if b == 123:
            braces += 1
        elif b == 91 or b == 44:
            items += 1
        elif b == 34:
            quotes += 1
    return braces, items, quotes


# --------------------------------------------------------------------------- Python side


@dataclass
class Scan:
    """What `scan` read of a batch of lines: per line `ok` and its columns; seats, events, list items and
    strings cut to the rows written (see the module docstring for the columns)."""

    ok: np.ndarray
    h_str: np.ndarray
    h_int: np.ndarray
    h_lo: np.ndarray
    h_hi: np.ndarray
    h_has: np.ndarray
    seat_line: np.ndarray
    seat_int: np.ndarray
    seat_str: np.ndarray
    seat_has: np.ndarray
    ev_line: np.ndarray
    e_int: np.ndarray
    e_str: np.ndarray
    e_lo: np.ndarray
    e_hi: np.ndarray
    e_has: np.ndarray
    ints: np.ndarray
    strs: np.ndarray
    pairs: np.ndarray
    strings: pa.StringArray


def scan(buf: bytes, starts: np.ndarray, ends: np.ndarray) -> Scan:
    """Scan the lines buf[starts[i]:ends[i]] (bytes that decode as UTF-8). Capacities are counted first
    (an object opens with `{`, a list item follows `[` or `,`, a string has two quotes), so no write can
    pass an array whatever the bytes."""
    data = np.frombuffer(buf, dtype=np.uint8)
    starts = np.ascontiguousarray(starts, dtype=np.int64)
    ends = np.ascontiguousarray(ends, dtype=np.int64)
    lines = starts.shape[0]
    if ends.shape[0] != lines:
        raise ValueError("starts and ends differ in length")
    braces, items, quotes = _count(data)
    # A seat or event the schema accepts takes 24 bytes or more (`{"kind":"kill","seat":1}`), a string 2, a
    # list item 2 (`0,`): rows past those bounds can only belong to lines that are refused anyway, which then
    # take the reference path (their writes undone), so a batch of `{}` or `[0,0,...]` cannot make the
    # arrays (~240 bytes an object) dozens of times larger than its bytes.
    size = data.shape[0]
    objects = min(braces, size // 24 + lines) + 1
    strings = min(quotes // 2, size // 2) + 1
    items = min(items, size // 2)
    n = np.zeros(7, dtype=np.int64)
    ok = np.zeros(lines, dtype=np.bool_)
    h_str = np.empty((lines, 8), np.int64)
    h_int = np.zeros((lines, 6), np.int64)
    h_lo, h_hi = np.empty((lines, 3), np.int64), np.empty((lines, 3), np.int64)
    h_has = np.zeros(lines, np.int64)
    seat_line, seat_int = np.empty(objects, np.int64), np.zeros((objects, 2), np.int64)
    seat_str, seat_has = np.empty((objects, 2), np.int64), np.zeros(objects, np.int64)
    ev_line, e_int = np.empty(objects, np.int64), np.zeros((objects, 7), np.int64)
    e_str = np.empty((objects, 7), np.int64)
    e_lo, e_hi = np.zeros((objects, 4), np.int64), np.zeros((objects, 4), np.int64)
    e_has = np.zeros(objects, np.int64)
    ints, strs = np.empty(items + 1, np.int64), np.empty(min(items + 1, strings), np.int64)
    pairs = np.empty((min(objects, items + 1), 2), np.int64)
    s_lo, s_hi = np.empty(strings, np.int64), np.empty(strings, np.int64)
    out = np.empty(data.shape[0] + 1, np.uint8)
    _scan_lines(data, starts, ends, n, ok, h_str, h_int, h_lo, h_hi, h_has, seat_line, seat_int, seat_str, seat_has,
                ev_line, e_int, e_str, e_lo, e_hi, e_has, ints, strs, pairs, s_lo, s_hi, out, _KEYS)
    ns, ne, ni, nt, npair, nstr, nbytes = (int(x) for x in n)
    offsets = np.empty(nstr + 1, np.int32)
    offsets[0] = 0
    # strings were written one after another (a bailed line's are overwritten), so each starts where the last
    # ended: the buffer and the ends make the string array
    offsets[1:] = s_hi[:nstr]
    text = pa.StringArray.from_buffers(nstr, pa.py_buffer(offsets), pa.py_buffer(out[:nbytes].copy()))
    return Scan(ok, h_str, h_int, h_lo, h_hi, h_has, seat_line[:ns], seat_int[:ns], seat_str[:ns], seat_has[:ns],
                ev_line[:ne], e_int[:ne], e_str[:ne], e_lo[:ne], e_hi[:ne], e_has[:ne], ints[:ni], strs[:nt],
                pairs[:npair], text)


def _lists(lo: np.ndarray, hi: np.ndarray, present: np.ndarray, values: np.ndarray,
           strings: pa.StringArray | None = None, default_empty: bool = False) -> pa.Array:
    """A list column from each row's item range [lo, hi) of `values` (a list's items are written one after
    another): integers, or string numbers into `strings`. A row not `present` is null, or an empty list
    with `default_empty` (as `build_tables` fills an absent `bet_units`)."""
    counts = np.where(present, hi - lo, 0).astype(np.int64)
    offsets = np.zeros(len(counts) + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    total = int(offsets[-1])
    owner = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    at = np.repeat(lo, counts) + (np.arange(total, dtype=np.int64) - offsets[:-1][owner]) if total else owner
    picked = values[at]
    items = strings.take(pa.array(picked)) if strings is not None else pa.array(picked, pa.int64())
    mask = None if default_empty or present.all() else pa.array(~present)
    return pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)), items, mask=mask)


def _small(values: np.ndarray, present: np.ndarray) -> pa.Array:
    """An int8 column, values clamped into its range (every bound the schema sets on such a field lies inside
    it, so a clamped value still fails where the value did), null where absent."""
    return pa.array(np.minimum(np.maximum(values, -128), 127).astype(np.int8), pa.int8(), mask=~present)


def _ints(values: np.ndarray, present: np.ndarray, default: int | None = None) -> pa.Array:
    if default is not None:
        return pa.array(np.where(present, values, default).astype(np.int64), pa.int64())
    return pa.array(values.astype(np.int64), pa.int64(), mask=~present)


def _text(strings: pa.StringArray, index: np.ndarray, default: str | None = None) -> pa.Array:
    """Strings by number, null where the number is -1 (or `default` there)."""
    taken = strings.take(pa.array(index, pa.int64(), mask=index < 0))
    if default is not None and taken.null_count:
            taken = pc.fill_null(taken, default)
    return taken


def _bit(has: np.ndarray, bit: int) -> np.ndarray:
    return (has >> bit) & 1 == 1


def readable_lines(sc: Scan) -> np.ndarray:
    """Per line, whether it was scanned (`ok`) and every event's keys are ones its kind's definition allows:
    a key the columns would drop for that kind (a deal's `amount`, an action's `discard`), or an event of
    no known kind, leaves the line to the reference path."""
    ok = sc.ok.copy()
    if len(sc.ev_line):
        kind = _text(sc.strings, sc.e_str[:, 0])
        code = pc.fill_null(pc.index_in(kind, value_set=pa.array(KINDS)), -1).to_numpy(zero_copy_only=False)
        allowed = allowed_event_keys()
        bad = (code < 0) | ((sc.e_has & ~allowed[np.maximum(code, 0)]) != 0)
        ok[sc.ev_line[bad]] = False
    return ok


def tables(sc: Scan, ok: np.ndarray, file: str, line_numbers: np.ndarray) -> CanonicalTables:
    """The canonical tables of the lines where `ok` (from `readable_lines`), hand numbered 0.. in line order,
    as `build_tables` makes them of the same hands read by `json.loads`; `line_numbers` per scanned line."""
    rows = np.flatnonzero(ok)
    number = np.cumsum(ok, dtype=np.int64) - 1
    strings = sc.strings
    every = bool(ok.all())  # the usual case: every line taken, the columns used as they are (no copies)

    def pick(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return values if every else values[mask]

    has = pick(sc.h_has, rows)
    h_int = pick(sc.h_int, rows)
    h_str = pick(sc.h_str, rows)
    lo, hi = pick(sc.h_lo, rows), pick(sc.h_hi, rows)
    stakes = len(HAND_KEYS)
    h = {
        "hand": pa.array(np.arange(len(rows), dtype=np.int32)),
        **{name: _text(strings, h_str[:, k]) for k, name in enumerate(HAND_KEYS[:8])},
        "max_seats": _small(h_int[:, 1], _bit(has, 9)),
        "blinds": _lists(lo[:, 0], hi[:, 0], _bit(has, stakes + 0), sc.ints),
        "ante": _ints(h_int[:, 2], _bit(has, stakes + 1), 0),
        "bet_units": _lists(lo[:, 1], hi[:, 1], _bit(has, stakes + 2), sc.ints, default_empty=True),
        "spread_min": _lists(lo[:, 2], hi[:, 2], _bit(has, stakes + 3), sc.pairs[:, 0], default_empty=True),
        "spread_max": _lists(lo[:, 2], hi[:, 2], _bit(has, stakes + 3), sc.pairs[:, 1], default_empty=True),
        "table_min": _ints(h_int[:, 3], _bit(has, stakes + 4)),
        "table_max": _ints(h_int[:, 4], _bit(has, stakes + 5)),
        "chip_unit": _ints(h_int[:, 5], _bit(has, stakes + 6)),
        "file": pa.array([file] * len(rows), pa.string()),
        "line": pa.array(np.asarray(line_numbers, dtype=np.int64)[rows]),
        "money_scale": _ints(h_int[:, 0], _bit(has, 8), 1),
    }
    hands = pa.table([h[f.name] for f in HANDS_SCHEMA], schema=HANDS_SCHEMA)

    keep = ok[sc.seat_line] if len(sc.seat_line) and not every else np.zeros(0, bool)
    s_has, s_int, s_str = pick(sc.seat_has, keep), pick(sc.seat_int, keep), pick(sc.seat_str, keep)
    s = {
        "hand": pa.array(number[pick(sc.seat_line, keep)].astype(np.int32)),
        "seat": _small(s_int[:, 0], _bit(s_has, 0)),
        "player": _text(strings, s_str[:, 0]),
        "stack": _ints(s_int[:, 1], _bit(s_has, 2)),
        "status": _text(strings, s_str[:, 1], "active"),
    }
    seats = pa.table([s[f.name] for f in SEATS_SCHEMA], schema=SEATS_SCHEMA)

    keep = ok[sc.ev_line] if len(sc.ev_line) and not every else np.zeros(0, bool)
    e_has, e_int, e_str = pick(sc.e_has, keep), pick(sc.e_int, keep), pick(sc.e_str, keep)
    e_lo, e_hi = pick(sc.e_lo, keep), pick(sc.e_hi, keep)
    hand = number[pick(sc.ev_line, keep)]
    first = np.searchsorted(hand, hand, side="left") if len(hand) else hand
    kind = _text(strings, e_str[:, 0])
    seat_draw = pc.fill_null(pc.equal(kind, "seat_draw"), False).to_numpy(zero_copy_only=False)
    key = {k: _bit(e_has, i) for i, k in enumerate(EVENT_KEYS)}
    to_text = _bit(e_has, TO_TEXT_BIT)
    player = np.where(seat_draw, e_str[:, 6], e_str[:, 2])
    cards_lo = np.where(key["cards"], e_lo[:, 0], e_lo[:, 1])
    cards_hi = np.where(key["cards"], e_hi[:, 0], e_hi[:, 1])
    cards = _lists(cards_lo, cards_hi, key["cards"] | key["discard"], sc.strs, strings)
    draws = key["draws"] & seat_draw
    draw_players = _lists(e_lo[:, 3], e_hi[:, 3], draws, sc.pairs[:, 0], strings)
    if seat_draw.any():  # a seat draw's cards are its draws' (build_tables)
        cards = pc.if_else(pa.array(seat_draw), _lists(e_lo[:, 3], e_hi[:, 3], draws, sc.pairs[:, 1], strings), cards)
    e = {
        "hand": pa.array(hand.astype(np.int32)),
        "seq": pa.array((np.arange(len(hand), dtype=np.int64) - first).astype(np.int32)),
        "kind": kind,
        "seat": _small(e_int[:, 0], key["seat"]),
        "player": _text(strings, player),
        "action": _text(strings, e_str[:, 3]),
        "post": _text(strings, e_str[:, 4]),
        "blind": _small(e_int[:, 1], key["blind"]),
        "amount": _ints(e_int[:, 2], key["amount"]),
        "to": _ints(e_int[:, 3], key["to"] & ~to_text),
        "all_in": pa.array(e_int[:, 6] == 1, pa.bool_(), mask=~key["all_in"]),
        "target": _text(strings, np.where(to_text, e_str[:, 5], -1)),
        "cards": cards,
        "receive": _lists(e_lo[:, 2], e_hi[:, 2], key["receive"] & ~seat_draw, sc.strs, strings),
        "draw_players": draw_players,
        "pot": _small(e_int[:, 4], key["pot"]),
        "t": _text(strings, e_str[:, 1]),
        "from_seat": _small(e_int[:, 5], key["from_seat"]),
    }
    events = pa.table([e[f.name] for f in EVENTS_SCHEMA], schema=EVENTS_SCHEMA)
    return CanonicalTables(hands, seats, events)
