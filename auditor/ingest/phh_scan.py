"""A compiled byte scanner for PHH files: many files' TOML fields and actions in one Numba call.

Why: reading the PHH corpus cost ~240 µs a hand, of which the TOML fast path (`phh_toml`, regular
expressions) was ~32 µs and splitting the action strings (`phh._parse_actions`) ~45 µs; the kernel engine
wants the whole PHH audit at ~14 µs a hand. Here the bytes of many files are concatenated and
`scan` walks them once in a `@njit(cache=True)` kernel, writing typed arrays (no Python object per
field, action or card):

- per document: whether the scanner read it (`doc_ok`) and its range of fields;
- per field: a key id (`KEYS`, -1 for a key PHH does not define), the key's byte span, the value's
  kind (`INT`, `FLOAT`, `STR`, `TRUE`, `FALSE`, `ARRAY`, `TIME`), its span (a string's without the
  quotes), an int64 value for integers (for a local time, its microseconds since midnight) and the range
  of its array items;
- per array item: kind, span, int64 value;
- per document, from its `actions` array: whether every action string was understood
  (`actions_ok`) and its range of actions; per action a verb (`VERBS`), the 1-based player number
  (0 for the dealer), an amount (int64, or a decimal's byte span for the caller's `Fraction`) and
  the range of its cards; per card a code (rank * 4 + suit in `RANKS`/`SUITS`, `UNKNOWN_CARD` for
  `??`).

The scanner reads the flat subset `phh_toml`'s fast path reads (blank lines and `key = value` lines
whose values are integers, booleans, strings without escapes or control characters, or one-line
arrays of those), and is stricter there, never looser; it also reads a field whose value is a TOML
local time (`time = 00:06:48`, what PHH's `time` holds in the standard's own datasets and in the files
our writer writes; not inside an array, no date or offset), which `phh_toml` leaves to `tomllib`. A
document it cannot read exactly as `tomllib` would is flagged (`doc_ok` false) and the caller parses
that one with `tomllib`, as before. Likewise an action string that is anything but the plain forms (`d dh p1
AsKs`, `d db 9dJs4h`, `p2 cbr 300`, `p3 cc`, `p1 f`, `p1 sm AsKs`, `p1 sm -`, `p1 sm`, `p1 sd Kh`,
`p1 pb`, runs of spaces between words) flags the document's actions, and the caller reads them with
`phh._parse_actions`, which also words every refusal. `tests/test_phh_scan.py` holds both
properties: scanner == `tomllib.loads` and tokens == `_parse_actions`, on the corpus, the TOML
corners of `tests/test_phh_toml.py` and fuzz-mutated files.

Safety (hostile input): every index the kernels use is a position inside `buf` they derived
themselves and checked against the document's end, or an output slot whose capacity was counted
before the call (`_capacities`); a document's writes are undone when it turns out unreadable.
Nothing here decodes text: callers decode UTF-8 (and refuse what is not) before trusting any span.
"""

from __future__ import annotations

import datetime as dt
import tomllib
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from auditor.model.compiled import njit

__all__ = ["KEYS", "VERBS", "Documents", "Scan", "card_names", "field_value", "fields_of", "join", "loads", "scan",
           "scan_texts"]

# value kinds
INT, FLOAT, STR, TRUE, FALSE, ARRAY, TIME = 1, 2, 3, 4, 5, 6, 7

#: the PHH keys the scanner names by id (position in this tuple); any other key gets -1 (still read)
KEYS: tuple[str, ...] = (
    "variant", "antes", "blinds_or_straddles", "bring_in", "small_bet", "big_bet", "min_bet",
    "starting_stacks", "actions", "finishing_stacks", "winnings", "seats", "seat_count", "players",
    "hand", "table", "currency", "rake", "venue", "event", "time", "year", "month", "day", "time_zone",
    "time_zone_abbreviation", "city", "region", "country", "ante_trimming_status",
)
KEY_ACTIONS = KEYS.index("actions")

#: verbs, coded 1.. in this order ("" is 0: an action string with no words, a no-op)
VERBS: tuple[str, ...] = ("", "dh", "db", "f", "cc", "cbr", "sm", "sd", "pb")
V_DH, V_DB, V_F, V_CC, V_CBR, V_SM, V_SD, V_PB = range(1, 9)
#: what an `sm` shows: its cards, nothing (a muck) or "-" (the cards dealt)
SM_CARDS, SM_MUCK, SM_DEALT = 0, 1, 2
#: amount kinds of an action
AMOUNT_NONE, AMOUNT_INT, AMOUNT_DECIMAL = 0, 1, 2

RANKS = "23456789TJQKA"
SUITS = "cdhs"
UNKNOWN_CARD = 52
_CARD_NAMES = [r + s for r in RANKS for s in SUITS] + ["??"]


def _key_table() -> tuple[np.ndarray, np.ndarray]:
    data = "".join(KEYS).encode("ascii")
    offsets = np.zeros(len(KEYS) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(k) for k in KEYS])
    return np.frombuffer(data, dtype=np.uint8).copy(), offsets


_KEY_BYTES, _KEY_OFFSETS = _key_table()


def _rank_suit_tables() -> tuple[np.ndarray, np.ndarray]:
    """Byte -> rank index / suit index (-1 where none), as `_cards` reads them: rank upper-cased, suit
    lower-cased."""
    rank = np.full(256, -1, dtype=np.int8)
    suit = np.full(256, -1, dtype=np.int8)
    for i, r in enumerate(RANKS):
        rank[ord(r)] = i
        rank[ord(r.lower())] = i
    for i, s in enumerate(SUITS):
        suit[ord(s)] = i
        suit[ord(s.upper())] = i
    return rank, suit


_RANK_OF, _SUIT_OF = _rank_suit_tables()


# --------------------------------------------------------------------------- TOML kernel


@njit(cache=True)
def _scalar(buf, p, e):  # pragma: no cover - compiled (runs as Python under NUMBA_DISABLE_JIT=1)
    """(kind, end, int value) of the scalar at buf[p:e]; kind 0 when it is not one the fast path reads.

    Strings: no control character (tab aside), no DEL, no backslash in a basic string. Numbers: plain
    decimal, no '+', no leading zero, at most 18 integer and 17 fraction digits (as `phh_toml._NUMBER`).
    """
    c = buf[p]
    if c == 39 or c == 34:  # ' or "
        q = p + 1
        while q < e:
            b = buf[q]
            if b == c:
                return STR, q + 1, 0
            if (b < 32 and b != 9) or b == 127 or (c == 34 and b == 92):
                return 0, p, 0
            q += 1
        return 0, p, 0
    if c == 116:  # true
        if p + 4 <= e and buf[p + 1] == 114 and buf[p + 2] == 117 and buf[p + 3] == 101:
            return TRUE, p + 4, 0
        return 0, p, 0
    if c == 102:  # false
        if p + 5 <= e and buf[p + 1] == 97 and buf[p + 2] == 108 and buf[p + 3] == 115 and buf[p + 4] == 101:
            return FALSE, p + 5, 0
        return 0, p, 0
    q = p
    negative = False
    if c == 45:  # -
        negative = True
        q += 1
    if q >= e or buf[q] < 48 or buf[q] > 57:
        return 0, p, 0
    value = 0
    if buf[q] == 48:
        q += 1
    else:
        digits = 0
        while q < e and 48 <= buf[q] <= 57:
            if digits == 18:
                return 0, p, 0
            value = value * 10 + (np.int64(buf[q]) - 48)
            digits += 1
            q += 1
    kind = INT
    if q < e and buf[q] == 46:  # .
        q += 1
        digits = 0
        while q < e and 48 <= buf[q] <= 57:
            if digits == 17:
                return 0, p, 0
            digits += 1
            q += 1
        if digits == 0:
            return 0, p, 0
        kind = FLOAT
    if q < e:  # phh_toml's look-ahead: nothing that would make it another kind of number
        b = buf[q]
        if (48 <= b <= 57 or b == 46 or b == 101 or b == 69 or b == 95 or b == 120 or b == 111 or b == 98
                or b == 58 or b == 45 or b == 43):
            return 0, p, 0
    return kind, q, -value if negative else value


@njit(cache=True)
def _two_digits(buf, p, e, first_max, second_max_if_first_max):  # pragma: no cover - compiled
    """The two-digit number at buf[p:p+2] (its first digit at most `first_max`, its second at most
    `second_max_if_first_max` when the first is `first_max`), or -1."""
    if p + 2 > e or not (48 <= buf[p] <= 57 and 48 <= buf[p + 1] <= 57):
        return -1
    a, b = np.int64(buf[p]) - 48, np.int64(buf[p + 1]) - 48
    if a > first_max or (a == first_max and b > second_max_if_first_max):
        return -1
    return a * 10 + b


@njit(cache=True)
def _local_time(buf, p, e):  # pragma: no cover - compiled
    """(end, microseconds since midnight) of a TOML local time at buf[p:e], or (p, -1) when there is none.

    Exactly `tomllib`'s `_TIME_RE_STR`: `HH:MM:SS` (00-23, 00-59, 00-59) and an optional fraction of one or
    more digits of which the first six count (the rest are dropped, as `tomllib` drops them); what follows is
    the caller's to judge (only blanks may)."""
    hour = _two_digits(buf, p, e, 2, 3)
    if hour < 0 or p + 3 > e or buf[p + 2] != 58:
        return p, -1
    minute = _two_digits(buf, p + 3, e, 5, 9)
    if minute < 0 or p + 6 > e or buf[p + 5] != 58:
        return p, -1
    second = _two_digits(buf, p + 6, e, 5, 9)
    if second < 0:
        return p, -1
    q = p + 8
    micro = np.int64(0)
    if q < e and buf[q] == 46 and q + 1 < e and 48 <= buf[q + 1] <= 57:  # . and a digit
        q += 1
        digits = 0
        while q < e and 48 <= buf[q] <= 57:
            if digits < 6:
                micro = micro * 10 + (np.int64(buf[q]) - 48)
            digits += 1
            q += 1
        while digits < 6:
            micro *= 10
            digits += 1
    return q, ((hour * 60 + minute) * 60 + second) * 1_000_000 + micro


@njit(cache=True)
def _blank(b):  # pragma: no cover - compiled
    return b == 32 or b == 9


@njit(cache=True)
def _scan_toml(buf, starts, ends, skip_bom, key_bytes, key_offsets,
               doc_ok, doc_field_lo, doc_field_hi,
               f_key, f_kstart, f_kend, f_kind, f_start, f_end, f_int, f_item_lo, f_item_hi,
               i_kind, i_start, i_end, i_int):  # pragma: no cover - compiled
    """Fill the document, field and item arrays; returns (fields, items) written."""
    n_keys = key_offsets.shape[0] - 1
    nf = 0
    ni = 0
    size = buf.shape[0]
    for d in range(starts.shape[0]):
        start = max(0, min(starts[d], size))
        stop = max(start, min(ends[d], size))
        if skip_bom and stop - start >= 3 and buf[start] == 0xEF and buf[start + 1] == 0xBB and buf[start + 2] == 0xBF:
            start += 3  # the UTF-8 byte-order mark `decode("utf-8-sig")` drops
        f0 = nf
        i0 = ni
        ok = True
        p = start
        while p < stop:
            e = p
            while e < stop and buf[e] != 10:
                e += 1
            next_line = e + 1
            if e < stop and e > p and buf[e - 1] == 13:  # CRLF (a lone CR is no line end in TOML)
                e -= 1
            q = p
            while q < e and _blank(buf[q]):
                q += 1
            if q == e:
                p = next_line
                continue
            # key
            q = p
            while q < e:
                b = buf[q]
                if (48 <= b <= 57) or (65 <= b <= 90) or (97 <= b <= 122) or b == 95 or b == 45:
                    q += 1
                else:
                    break
            if q == p:
                ok = False
                break
            ks, ke = p, q
            # a repeated key is tomllib's error
            for g in range(f0, nf):
                if f_kend[g] - f_kstart[g] == ke - ks:
                    same = True
                    for j in range(ke - ks):
                        if buf[f_kstart[g] + j] != buf[ks + j]:
                            same = False
                            break
                    if same:
                        ok = False
                        break
            if not ok:
                break
            while q < e and _blank(buf[q]):
                q += 1
            if q >= e or buf[q] != 61:  # =
                ok = False
                break
            q += 1
            while q < e and _blank(buf[q]):
                q += 1
            if q >= e:
                ok = False
                break
            key_id = -1
            for k in range(n_keys):
                lo = key_offsets[k]
                if key_offsets[k + 1] - lo == ke - ks:
                    same = True
                    for j in range(ke - ks):
                        if key_bytes[lo + j] != buf[ks + j]:
                            same = False
                            break
                    if same:
                        key_id = k
                        break
            f_key[nf] = key_id
            f_kstart[nf] = ks
            f_kend[nf] = ke
            f_int[nf] = 0
            f_item_lo[nf] = ni
            f_item_hi[nf] = ni
            if buf[q] == 91:  # [ a one-line array of scalars
                f_kind[nf] = ARRAY
                f_start[nf] = q
                q += 1
                while q < e and _blank(buf[q]):
                    q += 1
                closed = False
                if q < e and buf[q] == 93:
                    q += 1
                    closed = True
                while not closed and q < e:
                    kind, end, value = _scalar(buf, q, e)
                    if kind == 0:
                        break
                    i_kind[ni] = kind
                    i_start[ni] = q + 1 if kind == STR else q
                    i_end[ni] = end - 1 if kind == STR else end
                    i_int[ni] = value
                    ni += 1
                    q = end
                    while q < e and _blank(buf[q]):
                        q += 1
                    if q < e and buf[q] == 44:  # ,
                        q += 1
                        while q < e and _blank(buf[q]):
                            q += 1
                        if q < e and buf[q] == 93:
                            q += 1
                            closed = True
                    elif q < e and buf[q] == 93:
                        q += 1
                        closed = True
                    else:
                        break
                if not closed:
                    ok = False
                    break
                f_end[nf] = q
                f_item_hi[nf] = ni
            else:
                kind, end, value = _scalar(buf, q, e)
                if kind == 0:
                    end, value = _local_time(buf, q, e)
                    kind = TIME
                    if value < 0:
                        ok = False
                        break
                f_kind[nf] = kind
                f_start[nf] = q + 1 if kind == STR else q
                f_end[nf] = end - 1 if kind == STR else end
                f_int[nf] = value
                q = end
            while q < e and _blank(buf[q]):
                q += 1
            if q != e:
                ok = False
                break
            nf += 1
            p = next_line
        if not ok:
            nf = f0
            ni = i0
        doc_ok[d] = ok
        doc_field_lo[d] = f0
        doc_field_hi[d] = nf
    return nf, ni


# --------------------------------------------------------------------------- actions kernel


@njit(cache=True)
def _player_number(buf, p, e):  # pragma: no cover - compiled
    """1..999 for `pN` at buf[p:e] (no leading zero), else 0."""
    if e - p < 2 or e - p > 4 or buf[p] != 112 or buf[p + 1] == 48:  # 'p', not 'p0...'
        return 0
    value = 0
    for q in range(p + 1, e):
        b = buf[q]
        if b < 48 or b > 57:
            return 0
        value = value * 10 + (np.int64(b) - 48)
    return value


@njit(cache=True)
def _scan_cards(buf, p, e, rank_of, suit_of, c_code, nc):  # pragma: no cover - compiled
    """Write the cards of buf[p:e] from slot nc; the new count, or -1 when `_cards` would refuse them."""
    if (e - p) % 2 != 0:
        return -1
    for q in range(p, e, 2):
        r = buf[q]
        s = buf[q + 1]
        if r == 63 or s == 63:  # '?' in either: an unknown card
            c_code[nc] = UNKNOWN_CARD
        else:
            rank = rank_of[r]
            suit = suit_of[s]
            if rank < 0 or suit < 0:
                return -1
            c_code[nc] = rank * 4 + suit
        nc += 1
    return nc


@njit(cache=True)
def _scan_actions(buf, doc_ok, doc_field_lo, doc_field_hi, f_key, f_kind, f_item_lo, f_item_hi,
                  i_kind, i_start, i_end, rank_of, suit_of, key_actions,
                  actions_ok, doc_action_lo, doc_action_hi,
                  a_verb, a_player, a_amount_kind, a_amount, a_amount_start, a_amount_end, a_show,
                  a_card_lo, a_card_hi, c_code):  # pragma: no cover - compiled
    """Tokenize each read document's `actions` strings; returns (actions, cards) written."""
    na = 0
    nc = 0
    size = buf.shape[0]
    ws = np.zeros(5, dtype=np.int64)  # word starts (at most 4 words, one more to see a fifth)
    we = np.zeros(5, dtype=np.int64)
    for d in range(doc_ok.shape[0]):
        a0 = na
        c0 = nc
        doc_action_lo[d] = na
        ok = False
        if doc_ok[d]:
            field = -1
            for g in range(doc_field_lo[d], doc_field_hi[d]):
                if f_key[g] == key_actions:
                    field = g
            ok = field >= 0 and f_kind[field] == ARRAY
            if ok:
                for it in range(f_item_lo[field], f_item_hi[field]):
                    if i_kind[it] != STR:
                        ok = False
                        break
                    p = max(0, min(i_start[it], size))
                    e = max(p, min(i_end[it], size))
                    words = 0
                    q = p
                    while q < e:
                        b = buf[q]
                        if b == 32:
                            q += 1
                            continue
                        if words == 5:
                            break
                        ws[words] = q
                        while q < e and buf[q] != 32:
                            b = buf[q]
                            if not ((48 <= b <= 57) or (65 <= b <= 90) or (97 <= b <= 122) or b == 63 or b == 46
                                    or b == 45):
                                ok = False  # '#' (a comment), a tab, any other byte: `_parse_actions` reads it
                                break
                            q += 1
                        if not ok:
                            break
                        we[words] = q
                        words += 1
                    if not ok or words == 5:
                        ok = False
                        break
                    a_player[na] = 0
                    a_amount_kind[na] = AMOUNT_NONE
                    a_amount[na] = 0
                    a_amount_start[na] = 0
                    a_amount_end[na] = 0
                    a_show[na] = SM_CARDS
                    a_card_lo[na] = nc
                    if words == 0:
                        a_verb[na] = 0
                        a_card_hi[na] = nc
                        na += 1
                        continue
                    w0 = we[0] - ws[0]
                    if w0 == 1 and buf[ws[0]] == 100:  # d
                        if words < 2 or we[1] - ws[1] != 2 or buf[ws[1]] != 100:
                            ok = False
                            break
                        second = buf[ws[1] + 1]
                        if words == 4 and second == 104:  # d dh pN cards
                            player = _player_number(buf, ws[2], we[2])
                            if player == 0:
                                ok = False
                                break
                            a_verb[na] = V_DH
                            a_player[na] = player
                            nc = _scan_cards(buf, ws[3], we[3], rank_of, suit_of, c_code, nc)
                        elif words == 3 and second == 98:  # d db cards
                            a_verb[na] = V_DB
                            nc = _scan_cards(buf, ws[2], we[2], rank_of, suit_of, c_code, nc)
                        else:
                            ok = False
                            break
                        if nc < 0:
                            ok = False
                            break
                        a_card_hi[na] = nc
                        na += 1
                        continue
                    player = _player_number(buf, ws[0], we[0])
                    if player == 0 or words < 2:
                        ok = False
                        break
                    a_player[na] = player
                    v0 = buf[ws[1]]
                    vl = we[1] - ws[1]
                    args = words - 2
                    if vl == 1 and v0 == 102 and args == 0:  # f
                        a_verb[na] = V_F
                    elif vl == 2 and v0 == 99 and buf[ws[1] + 1] == 99 and args == 0:  # cc
                        a_verb[na] = V_CC
                    elif vl == 2 and v0 == 112 and buf[ws[1] + 1] == 98 and args == 0:  # pb
                        a_verb[na] = V_PB
                    elif (vl == 3 and v0 == 99 and buf[ws[1] + 1] == 98 and buf[ws[1] + 2] == 114
                          and args == 1):  # cbr amount
                        a_verb[na] = V_CBR
                        s, t = ws[2], we[2]
                        value = 0
                        digits = 0
                        dot = -1
                        for q in range(s, t):
                            b = buf[q]
                            if b == 46 and dot < 0 and q > s and q < t - 1:
                                dot = q
                            elif 48 <= b <= 57:
                                digits += 1
                                value = value * 10 + (np.int64(b) - 48)
                            else:
                                ok = False
                                break
                        if not ok or digits > 18:  # a longer amount: `_money` decides (a limit or too large)
                            ok = False
                            break
                        if dot < 0:
                            a_amount_kind[na] = AMOUNT_INT
                            a_amount[na] = value
                        else:
                            a_amount_kind[na] = AMOUNT_DECIMAL
                        a_amount_start[na] = s
                        a_amount_end[na] = t
                    elif vl == 2 and v0 == 115 and buf[ws[1] + 1] == 109 and args <= 1:  # sm [cards | -]
                        a_verb[na] = V_SM
                        if args == 0:
                            a_show[na] = SM_MUCK
                        elif we[2] - ws[2] == 1 and buf[ws[2]] == 45:
                            a_show[na] = SM_DEALT
                        else:
                            nc = _scan_cards(buf, ws[2], we[2], rank_of, suit_of, c_code, nc)
                    elif vl == 2 and v0 == 115 and buf[ws[1] + 1] == 100 and args <= 1:  # sd [cards]
                        a_verb[na] = V_SD
                        if args == 1:
                            nc = _scan_cards(buf, ws[2], we[2], rank_of, suit_of, c_code, nc)
                    else:
                        ok = False
                        break
                    if nc < 0:
                        ok = False
                        break
                    a_card_hi[na] = nc
                    na += 1
        if not ok:
            na = a0
            nc = c0
        actions_ok[d] = ok
        doc_action_hi[d] = na
    return na, nc


# --------------------------------------------------------------------------- the Python face


#: the rows of `Scan`'s four tables, each row one column named here (`scan.f_kind` is `field_rows[3]`)
DOC_COLUMNS = ("doc_ok", "doc_field_lo", "doc_field_hi", "actions_ok", "doc_action_lo", "doc_action_hi")
FIELD_COLUMNS = ("f_key", "f_kstart", "f_kend", "f_kind", "f_start", "f_end", "f_int", "f_item_lo", "f_item_hi")
ITEM_COLUMNS = ("i_kind", "i_start", "i_end", "i_int")
ACTION_COLUMNS = ("a_verb", "a_player", "a_amount_kind", "a_amount", "a_amount_start", "a_amount_end", "a_show",
                  "a_card_lo", "a_card_hi")
_COLUMN = {name: (table, row) for table, names in (("doc_rows", DOC_COLUMNS), ("field_rows", FIELD_COLUMNS),
                                                   ("item_rows", ITEM_COLUMNS), ("action_rows", ACTION_COLUMNS))
           for row, name in enumerate(names)}


@dataclass(frozen=True)
class Scan:
    """What `scan` read: `buf` (the bytes scanned) and four int64 tables, one row per column above, cut to
    the rows written (document flags are 0/1); `c_code` the card codes. Each column is also an attribute
    (`s.doc_ok`, `s.f_kind`, ...). Kept as 2-D arrays so one `tolist()` per table serves a batch."""

    buf: bytes
    doc_rows: np.ndarray
    field_rows: np.ndarray
    item_rows: np.ndarray
    action_rows: np.ndarray
    c_code: np.ndarray

    def __getattr__(self, name: str) -> np.ndarray:
        try:
            table, row = _COLUMN[name]
        except KeyError:
            raise AttributeError(name) from None
        return getattr(self, table)[row]


@njit(cache=True)
def _count(buf):  # pragma: no cover - compiled
    """(newlines, '=', ',', '[', quotes) in buf: what bounds the rows the kernels may write."""
    newlines = 0
    equals = 0
    commas = 0
    brackets = 0
    quotes = 0
    for q in range(buf.shape[0]):
        b = buf[q]
        if b == 10:
            newlines += 1
        elif b == 61:
            equals += 1
        elif b == 44:
            commas += 1
        elif b == 91:
            brackets += 1
        elif b == 39 or b == 34:
            quotes += 1
    return newlines, equals, commas, brackets, quotes


@njit(cache=True)
def _scan_all(buf, starts, ends, skip_bom, key_bytes, key_offsets, rank_of, suit_of, key_actions,
              docs_, fields_, items_, acts_, cards_):  # pragma: no cover - compiled
    """Both kernels in one call (one dispatch: a file at a time costs the call, not the bytes). The rows of
    docs_, fields_, items_ and acts_ are the columns `scan` names; returns the rows written
    to fields_, items_, acts_ and cards_."""
    f = fields_
    i = items_
    a = acts_
    nf, ni = _scan_toml(buf, starts, ends, skip_bom, key_bytes, key_offsets, docs_[0], docs_[1], docs_[2],
                        f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], i[0], i[1], i[2], i[3])
    na, nc = _scan_actions(buf, docs_[0], docs_[1], docs_[2], f[0], f[3], f[7], f[8], i[0], i[1], i[2],
                           rank_of, suit_of, key_actions, docs_[3], docs_[4], docs_[5],
                           a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], cards_)
    return nf, ni, na, nc


#: below this many bytes `scan` bounds its tables by the length instead of counting (at most ~1 MB of tables)
_COUNT_FROM = 4096


def scan(buf: bytes, starts: np.ndarray, ends: np.ndarray, *, skip_bom: bool = False) -> Scan:
    """Scan the documents buf[starts[d]:ends[d]] (UTF-8 bytes). `skip_bom`: each document's leading
    byte-order mark is not part of it (the bytes of a file, read as `decode("utf-8-sig")` reads them);
    without it a mark is text, as in `tomllib.loads(text)`.

    Capacities are counted before the kernel runs, so no write can pass an array whatever the bytes, and
    memory stays a small multiple of the bytes (at most ~60 bytes of tables a byte, ~10 for PHH text): a
    field is a line and has an '=', an array item follows a '[' or a ',', an action is a quoted item, a
    card two bytes.
    """
    data = np.frombuffer(buf, dtype=np.uint8)
    starts = np.ascontiguousarray(starts, dtype=np.int64)
    ends = np.ascontiguousarray(ends, dtype=np.int64)
    docs = starts.shape[0]
    if ends.shape[0] != docs:
        raise ValueError("starts and ends differ in length")
    if data.shape[0] <= _COUNT_FROM:  # a file or two: the length bounds every count, and costs no call
        cap_f = cap_i = cap_a = data.shape[0] + docs + 1
    else:
        newlines, equals, commas, brackets, quotes = _count(data)
        cap_f = min(newlines + docs, equals) + 1
        cap_i = commas + brackets + 1
        cap_a = min(cap_i, quotes // 2 + 1)
    docs_ = np.zeros((6, docs), dtype=np.int64)
    fields_ = np.empty((9, cap_f), dtype=np.int64)
    items_ = np.empty((4, cap_i), dtype=np.int64)
    acts_ = np.empty((9, cap_a), dtype=np.int64)
    cards_ = np.empty(data.shape[0] // 2 + 1, dtype=np.int8)
    nf, ni, na, nc = _scan_all(data, starts, ends, skip_bom, _KEY_BYTES, _KEY_OFFSETS, _RANK_OF, _SUIT_OF,
                               KEY_ACTIONS, docs_, fields_, items_, acts_, cards_)
    return Scan(buf, docs_, fields_[:, :nf], items_[:, :ni], acts_[:, :na], cards_[:nc])


def _item(buf: bytes, kind: int, start: int, end: int, value: int) -> Any:
    if kind == INT:
        return value
    if kind == TIME:
        seconds, micro = divmod(value, 1_000_000)
        return dt.time(seconds // 3600, seconds // 60 % 60, seconds % 60, micro)
    if kind == STR:
        return buf[start:end].decode("utf-8", "surrogatepass")
    if kind == FLOAT:
        return float(buf[start:end])
    return kind == TRUE


def field_value(s: Scan, g: int) -> Any:
    """The Python value of field `g`, as `tomllib` gives it (one call per field, not on a hot path)."""
    kind = int(s.f_kind[g])
    if kind != ARRAY:
        return _item(s.buf, kind, int(s.f_start[g]), int(s.f_end[g]), int(s.f_int[g]))
    lo, hi = int(s.f_item_lo[g]), int(s.f_item_hi[g])
    return [_item(s.buf, k, a, b, v) for k, a, b, v in zip(s.i_kind[lo:hi].tolist(), s.i_start[lo:hi].tolist(),
                                                             s.i_end[lo:hi].tolist(), s.i_int[lo:hi].tolist(),
                                                             strict=True)]


def fields_of(s: Scan, d: int) -> dict[str, Any] | None:
    """Document `d` as `tomllib.loads` reads it, or None when the scanner left it to tomllib."""
    if not s.doc_ok[d]:
        return None
    buf = s.buf
    return {buf[int(s.f_kstart[g]):int(s.f_kend[g])].decode("ascii"): field_value(s, g)
            for g in range(int(s.doc_field_lo[d]), int(s.doc_field_hi[d]))}


def card_names(codes: list[int]) -> list[str]:
    """Card codes as the canonical log writes cards ('As', '??')."""
    return [_CARD_NAMES[c] for c in codes]


class Documents:
    """Python values of a whole `Scan`, read once per batch: each array becomes one Python list (one
    conversion per column, not one NumPy scalar per field), then each document's fields and actions are
    cut from those lists."""

    def __init__(self, s: Scan):
        self.scan = s
        self._f = s.field_rows.tolist()
        self._i = s.item_rows.tolist()
        self._a = s.action_rows.tolist()
        self._cards = [_CARD_NAMES[c] for c in s.c_code.tolist()]
        self.ok, self._field_lo, self._field_hi, self.actions_ok, self._action_lo, self._action_hi = \
            s.doc_rows.tolist()

    def fields(self, d: int, *, without_actions: bool = False) -> dict[str, Any] | None:
        """Document `d` as `tomllib.loads` reads it (None when the scanner left it to tomllib). With
        `without_actions`, a tokenized `actions` array is left out (the caller takes `actions(d)`)."""
        if not self.ok[d]:
            return None
        buf = self.scan.buf
        keys, kstarts, kends, kinds, starts, ends, ints, item_lo, item_hi = self._f
        i_kind, i_start, i_end, i_int = self._i
        skip = KEY_ACTIONS if without_actions and self.actions_ok[d] else -2
        out: dict[str, Any] = {}
        for g in range(self._field_lo[d], self._field_hi[d]):
            key_id = keys[g]
            if key_id == skip:
                continue
            # a key with an id is exactly that `KEYS` text (the scanner compares every byte), so it is not
            # decoded again per field; an array of integers (stacks, blinds, antes) is a slice of the column
            key = KEYS[key_id] if key_id >= 0 else buf[kstarts[g]:kends[g]].decode("ascii")
            kind = kinds[g]
            if kind == INT:
                out[key] = ints[g]
            elif kind == ARRAY:
                lo, hi = item_lo[g], item_hi[g]
                if i_kind[lo:hi].count(INT) == hi - lo:
                    out[key] = i_int[lo:hi]
                else:
                    out[key] = [i_int[j] if i_kind[j] == INT else _item(buf, i_kind[j], i_start[j], i_end[j], 0)
                                for j in range(lo, hi)]
            else:
                out[key] = _item(buf, kind, starts[g], ends[g], ints[g])
        return out

    def value(self, d: int, key_id: int) -> Any:
        """The value of document `d`'s field with key id `key_id` (`KEYS`), None when it has none."""
        for g in range(self._field_lo[d], self._field_hi[d]):
            if self._f[0][g] == key_id:
                return field_value(self.scan, g)
        return None

    def actions(self, d: int, players: int) -> list[tuple] | None:
        """Document `d`'s actions in `phh._parse_actions`' tuples (player numbers made 0-based, amounts
        int or an exact Fraction of the decimal written); None when they were not tokenized or name a
        player past `players` (the caller's `_parse_actions` then words the refusal)."""
        if not self.actions_ok[d]:
            return None
        verbs, player_of, amount_kind, amount, amount_start, amount_end, show, card_lo, card_hi = self._a
        cards = self._cards
        buf = self.scan.buf
        out: list[tuple] = []
        for a in range(self._action_lo[d], self._action_hi[d]):
            verb = verbs[a]
            if verb == 0:
                continue
            i = player_of[a] - 1
            if i >= players:
                return None
            if verb == V_DH:
                out.append(("dh", i, cards[card_lo[a]:card_hi[a]]))
            elif verb == V_DB:
                out.append(("db", cards[card_lo[a]:card_hi[a]]))
            elif verb == V_CBR:
                value: int | Fraction = (amount[a] if amount_kind[a] == AMOUNT_INT
                                         else Fraction(buf[amount_start[a]:amount_end[a]].decode("ascii")))
                out.append(("cbr", i, value))
            elif verb == V_SM:
                how = show[a]
                out.append(("sm", i, None if how == SM_MUCK else "-" if how == SM_DEALT
                            else cards[card_lo[a]:card_hi[a]]))
            elif verb == V_SD:
                out.append(("sd", i, cards[card_lo[a]:card_hi[a]]))
            else:
                out.append((VERBS[verb], i))
        return out


def join(texts: list[bytes]) -> tuple[bytes, np.ndarray, np.ndarray]:
    """Concatenated bytes of many documents and each one's (start, end), a newline between them (so a
    truncated UTF-8 sequence at one's end cannot pair with the next one's first byte)."""
    if len(texts) == 1:
        return texts[0], np.zeros(1, dtype=np.int64), np.full(1, len(texts[0]), dtype=np.int64)
    lengths = np.fromiter((len(t) + 1 for t in texts), dtype=np.int64, count=len(texts))
    ends = np.cumsum(lengths) - 1
    starts = ends - (lengths - 1)
    return b"\n".join(texts), starts, ends


def scan_texts(texts: list[str]) -> tuple[Scan, list[dict[str, Any] | None]]:
    """Scan many texts at once; each one's fields, or None where the scanner left it to tomllib."""
    buf, starts, ends = join([t.encode("utf-8", "surrogatepass") for t in texts])
    s = scan(buf, starts, ends)
    docs = Documents(s)
    return s, [docs.fields(d) for d in range(len(texts))]


def loads(text: str) -> dict[str, Any]:
    """`tomllib.loads(text)` through the scanner when it reads the text (tests and one-off use: one call
    per text pays the kernel's call overhead; batch with `scan`)."""
    fields = scan_texts([text])[1][0]
    return fields if fields is not None else tomllib.loads(text)
