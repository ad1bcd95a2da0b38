"""A compiled reader of OHH objects: many `{"ohh": {...}}` objects scanned and mapped to canonical rows in one call.

Why: `ohh.read_ohh` parses each object with `json` (Decimal amounts), validates it with jsonschema-rs against
`schemas/ohh.schema.json`, maps it to a canonical dict in Python and validates that again (~170 µs a hand).
`convert` walks the bytes of a batch of objects once (`@njit(cache=True)`) and writes, for every object it
reads exactly, the canonical hand, seat and event rows as integers (`ohh_tables` makes the Arrow tables and
`columnar_validate` judges them, as for the other column-wise readers).

What it reads (`H_OK` 1), a strict subset of what the reference accepts, never more:

- JSON: exactly one object `{"ohh": {...}}` and white space; every key one `schemas/ohh.schema.json` names at
  that place, met once, spelled without escapes, with a value of the type the schema gives it; strings as
  `json` decodes them (no lone surrogate, no control byte); numbers without exponent or sign, integers of at
  most 18 digits, amounts with at most 12 digits before the point and at most 6 decimal places once trailing
  zeros are dropped (so every scaled amount fits an int64); no `null` but where the schema allows it, no
  `tournament_info`, no flag that is not ASCII or refuses the hand, no `bet_cap` but 0 or null, no null
  `player_id`.
- The schema's other constraints are checked here on what is read: required keys (and `amount` for the
  actions that need it, `cards` for "Shows Cards"), enums, string lengths in characters, the card,
  `spec_version`, `start_date_utc` and `table_size` patterns, minima, maxima and item counts.
- The mapping (`ohh._Hand`), for the hands it maps without a refusal or a second reading: hold'em and Omaha,
  no two players with one id or one seat, no action or win naming a player not listed, no "Added Chips" or
  "Add to Pot", no jackpot or cash-out, no board street twice, and chips that reconcile under the
  specification's reading of Raise amounts (a hand that needs the "raise to" reading is the reference's).

Everything else (`H_OK` 0) is the reference's (`ohh.buffer_items`), which also words every refusal.

Safety (hostile input): every position is checked against the object's end before it is read, every write
against its array's capacity (sized by `capacities`); an object's writes are undone when it is declined. UTF-8
is the caller's to check.
"""

from __future__ import annotations

import numpy as np

from auditor.ingest.jsonl_scan import _BYTES, _STRINGS, _bool, _int, _next, _string, _ws
from auditor.model.compiled import njit

__all__ = ["ACTION_NAMES", "CARD_NAMES", "EV_COLUMNS", "H_COLUMNS", "KIND_NAMES", "POST_NAMES", "S_COLUMNS",
           "TARGET_NAMES", "capacities", "convert"]

TOP_KEYS = ("ohh",)
HAND_KEYS = ("spec_version", "site_name", "network_name", "internal_version", "tournament", "tournament_info",
             "game_number", "start_date_utc", "table_name", "game_type", "bet_limit", "table_size", "currency",
             "dealer_seat", "small_blind_amount", "big_blind_amount", "ante_amount", "hero_player_id", "flags",
             "players", "rounds", "pots")
BET_KEYS = ("bet_type", "bet_cap")
PLAYER_KEYS = ("id", "seat", "name", "display", "starting_stack", "player_bounty", "is_sitting_out")
ROUND_KEYS = ("id", "street", "cards", "actions")
ACTION_KEYS = ("action_number", "player_id", "action", "amount", "is_allin", "cards")
POT_KEYS = ("number", "amount", "rake", "jackpot", "player_wins")
WIN_KEYS = ("player_id", "win_amount", "contributed_rake", "cashout_amount", "cashout_fee", "bonus_amount")
_CONTEXTS = (TOP_KEYS, HAND_KEYS, BET_KEYS, PLAYER_KEYS, ROUND_KEYS, ACTION_KEYS, POT_KEYS, WIN_KEYS)
_TOP, _HAND, _BET, _PLAYER, _ROUND, _ACTION, _POT, _WIN = range(len(_CONTEXTS))
_ALL_KEYS = tuple(dict.fromkeys(k for keys in _CONTEXTS for k in keys))

_REQUIRED_HAND = sum(1 << HAND_KEYS.index(k) for k in (
    "spec_version", "site_name", "game_number", "table_name", "game_type", "bet_limit", "table_size", "dealer_seat",
    "small_blind_amount", "big_blind_amount", "players", "rounds", "pots"))
_REQUIRED_PLAYER = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 4)
_REQUIRED_ROUND = (1 << 0) | (1 << 1) | (1 << 3)
_REQUIRED_ACTION = 0b111
_REQUIRED_POT = (1 << 0) | (1 << 1) | (1 << 4)
_REQUIRED_WIN = 0b11

GAMES = ("Holdem", "Omaha", "OmahaHiLo", "Stud", "StudHiLo", "Draw")
BET_TYPES = ("NL", "PL", "FL")
STREETS = ("Preflop", "Flop", "Turn", "River", "Showdown")
ACTIONS = ("Dealt Cards", "Mucks Cards", "Shows Cards", "Post Ante", "Post SB", "Post BB", "Straddle", "Post Dead",
           "Post Extra Blind", "Fold", "Check", "Bet", "Raise", "Call", "Added Chips", "Sits Down", "Stands Up",
           "Add to Pot", "Payout")
(_DEALT, _MUCKS, _SHOWS, _ANTE, _SB, _BB, _STRADDLE, _DEAD, _EXTRA, _FOLD, _CHECK, _BETA, _RAISE, _CALL, _ADDED,
 _SITS, _STANDS, _ADD_POT, _PAYOUT) = range(len(ACTIONS))
#: actions the schema requires an `amount` of (a bit per ACTIONS place)
_NEEDS_AMOUNT = sum(1 << k for k in (_ANTE, _SB, _BB, _STRADDLE, _DEAD, _EXTRA, _BETA, _RAISE, _CALL, _ADDED, _ADD_POT))

RANKS = "23456789TJQKA"
SUITS = "cdhs"
#: card codes: rank * 4 + suit; UNKNOWN ("??", a hole card the file does not show) last
CARD_NAMES = (*(r + s for r in RANKS for s in SUITS), "??")
UNKNOWN = len(CARD_NAMES) - 1

KIND_NAMES = ("button", "post", "deal", "action", "show", "muck", "return", "rake", "award")
_K_BUTTON, _K_POST, _K_DEAL, _K_ACTION, _K_SHOW, _K_MUCK, _K_RETURN, _K_RAKE, _K_AWARD = range(len(KIND_NAMES))
ACTION_NAMES = ("fold", "check", "call", "bet", "raise")
POST_NAMES = ("blind", "missed", "straddle", "ante", "dead")
TARGET_NAMES = ("hole", "board")

#: hand columns (`h_out`): the first block written by the scan, the rest by the mapping
H_COLUMNS = ("ok", "segment", "game", "bet", "tournament", "table_size", "dealer", "sb_m", "sb_p", "bb_m", "bb_p",
             "ante_m", "ante_p", "hand_id", "table_id", "room", "started", "zone", "currency", "p_lo", "p_hi", "r_lo",
             "r_hi", "t_lo", "t_hi", "scale", "max_seats", "seat_lo", "seat_hi", "ev_lo", "ev_hi", "sb", "bb", "ante")
(H_OK, H_SEGMENT, H_GAME, H_BET, H_TOURNAMENT, H_TABLE_SIZE, H_DEALER, H_SB_M, H_SB_P, H_BB_M, H_BB_P, H_ANTE_M,
 H_ANTE_P, H_HAND_ID, H_TABLE_ID, H_ROOM, H_STARTED, H_ZONE, H_CURRENCY, H_P_LO, H_P_HI, H_R_LO, H_R_HI, H_T_LO,
 H_T_HI, H_SCALE, H_MAX_SEATS, H_SEAT_LO, H_SEAT_HI, H_EV_LO, H_EV_HI, H_SBV, H_BBV, H_ANTEV) = range(len(H_COLUMNS))
# players, rounds, actions, pots, wins (scan rows)
P_ID, P_SEAT, P_NAME, P_M, P_P, P_OUT = range(6)
R_ID, R_STREET, R_C_LO, R_C_HI, R_A_LO, R_A_HI = range(6)
A_NUM, A_PID, A_KIND, A_HAS, A_M, A_P, A_C_LO, A_C_HI = range(8)
T_NUM, T_M, T_P, T_RAKE_M, T_RAKE_P, T_JACKPOT, T_W_LO, T_W_HI = range(8)
W_PID, W_M, W_P, W_CASHOUT = range(4)
#: seat rows (`s_out`): seat, player name (string number), stack, active (1) or sitting out (0)
S_COLUMNS = ("seat", "name", "stack", "active")
S_SEAT, S_NAME, S_STACK, S_ACTIVE = range(4)
#: event rows (`ev_out`); -1 is null
EV_COLUMNS = ("kind", "seat", "action", "post", "blind", "amount", "to", "all_in", "target", "pot", "c_lo", "c_hi")
E_KIND, E_SEAT, E_ACTION, E_POST, E_BLIND, E_AMOUNT, E_TO, E_ALL_IN, E_TARGET, E_POT, E_C_LO, E_C_HI = range(12)
# counters (`n`): strings and bytes where jsonl_scan's `_string` keeps them
(_PLAYERS, _ROUNDS, _ACTS, _POTS, _WINS) = range(5)
_CARDS, _EVENTS, _EVCARDS, _SEATS_OUT = 7, 8, 9, 10
N_COUNTERS = 11
assert (_STRINGS, _BYTES) == (5, 6)

#: the flags `ohh._Hand` refuses a hand for, as letters
_CAP, _RUN_IT_TWICE, _BOMB, _BOMB_POT = (np.frombuffer(w, dtype=np.uint8).copy()
                                        for w in (b"cap", b"runittwice", b"bomb", b"bombpot"))
#: largest scaled amount taken (2**46): the sums of a hand's at most 16,000 amounts stay far inside an int64
MAX_SCALED = 1 << 46


def _key_tables() -> tuple:
    data = "".join(_ALL_KEYS).encode("ascii")
    offsets = np.zeros(len(_ALL_KEYS) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(k) for k in _ALL_KEYS])
    slot = np.full((len(_CONTEXTS), len(_ALL_KEYS)), -1, dtype=np.int64)
    for c, keys in enumerate(_CONTEXTS):
        for i, k in enumerate(keys):
            slot[c, _ALL_KEYS.index(k)] = i
    for mult in range(3, 5000):  # a perfect hash of the keys (`_hash`)
        table = np.full(1024, -1, dtype=np.int64)
        for k, key in enumerate(_ALL_KEYS):
            h = _hash(len(key), ord(key[0]), ord(key[len(key) >> 1]), ord(key[-2]), ord(key[-1]), mult)
            if table[h] >= 0:
                break
            table[h] = k
        else:
            return np.frombuffer(data, dtype=np.uint8).copy(), offsets, slot, table, int(mult)
    raise AssertionError("no perfect hash for the OHH keys")


def _hash(length: int, first: int, middle: int, penultimate: int, last: int, mult: int) -> int:
    """jsonl_scan's key hash with the last but one byte too (`table_name` and `table_size` share the rest)."""
    return ((((length * mult + first) * mult + middle) * mult + penultimate) * mult + last) & 1023


#: the key tables `_key` reads (module constants: Numba freezes them into the compiled code, so no call
#: passes them, which cost a reference count per array per call)
_KEY_BYTES, _KEY_OFFSETS, _KEY_SLOT, _KEY_HASH, _KEY_MULT = _key_tables()


def _names(values: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    data = "".join(values).encode("ascii")
    offsets = np.zeros(len(values) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(v) for v in values])
    return np.frombuffer(data, dtype=np.uint8).copy(), offsets


#: the enums, matched on their raw bytes: games, bet types, streets, actions (names _ENUM_FIRST[k].. of enum k)
ENUMS = (GAMES, BET_TYPES, STREETS, ACTIONS)
_ENUM_BYTES, _ENUM_OFFSETS = _names(tuple(name for names in ENUMS for name in names))
_ENUM_FIRST = np.cumsum([0] + [len(names) for names in ENUMS]).astype(np.int64)


def capacities(data: np.ndarray, segments: int) -> dict[str, int]:
    """Upper bounds of every output's rows for `segments` objects of `data` (counted bytes: every row needs
    an object's `{`, every card or string a `"`)."""
    braces = int(np.count_nonzero(data == 123))
    quotes = int(np.count_nonzero(data == 34))
    # events: one per action, board round, rake or award (each an object), and per hand a button, ten hole deals
    # and a return; their cards: each card once as dealt or shown and once on the board, four `??` per "Dealt
    # Cards" without cards (an object) and per seat dealt none
    return {"hands": segments, "rows": braces + 1, "cards": quotes // 2 + 1, "strings": quotes // 2 + 1,
            "bytes": len(data) + 1, "events": braces + segments * 12 + 1,
            "ev_cards": 2 * (quotes // 2) + 4 * braces + segments * 40 + 1, "seats": segments * 10 + 1}


# --------------------------------------------------------------------------- scanning


@njit(cache=True)
def _key(buf, p, e, context):  # pragma: no cover - compiled (runs as Python under NUMBA_DISABLE_JIT=1)
    """(position after the key's colon, its slot in `context`) for the key at buf[p]; position -1 for a key
    the context does not define, one spelled with an escape, or no colon (jsonl_scan's `_key`, our hash)."""
    key_bytes, key_offsets, key_slot, key_hash, mult = _KEY_BYTES, _KEY_OFFSETS, _KEY_SLOT, _KEY_HASH, _KEY_MULT
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
    if length < 2:
        return -1, -1
    h = (np.int64(length) * mult + np.int64(buf[p + 1])) * mult + np.int64(buf[p + 1 + (length >> 1)])
    found = key_hash[((h * mult + np.int64(buf[q - 2])) * mult + np.int64(buf[q - 1])) & 1023]
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
def _enum(buf, p, e, which):  # pragma: no cover - compiled (runs as Python under NUMBA_DISABLE_JIT=1)
    """(position after, index) of a string at buf[p] spelled exactly as one of the names of enum `which`
    (ENUMS: games, bet types, streets, actions), without escapes; -1 else."""
    data = _ENUM_BYTES
    offsets = _ENUM_OFFSETS
    first = _ENUM_FIRST[which]
    last = _ENUM_FIRST[which + 1]
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
    for k in range(first, last):
        lo = offsets[k]
        if offsets[k + 1] - lo != length:
            continue
        same = True
        for j in range(length):
            if data[lo + j] != buf[p + 1 + j]:
                same = False
                break
        if same:
            return q + 1, k - first
    return -1, -1


@njit(cache=True)
def _amount(buf, p, e):  # pragma: no cover - compiled
    """(position after, mantissa, decimal places) of a non-negative JSON number without exponent, its trailing
    zeros dropped (1.50 -> 15, 1); position -1 for anything else or past the limits (module docstring)."""
    q = p
    if q >= e or buf[q] < 48 or buf[q] > 57:
        return -1, 0, 0
    whole = 0
    if buf[q] == 48:
        q += 1
    else:
        digits = 0
        while q < e and 48 <= buf[q] <= 57:
            if digits == 12:
                return -1, 0, 0
            whole = whole * 10 + (np.int64(buf[q]) - 48)
            digits += 1
            q += 1
    frac = 0
    places = 0
    if q < e and buf[q] == 46:
        q += 1
        if q >= e or buf[q] < 48 or buf[q] > 57:
            return -1, 0, 0
        digits = 0
        while q < e and 48 <= buf[q] <= 57:
            if digits == 18:
                return -1, 0, 0
            frac = frac * 10 + (np.int64(buf[q]) - 48)
            digits += 1
            q += 1
        places = digits
        while places > 0 and frac % 10 == 0:
            frac //= 10
            places -= 1
        if places > 6:
            return -1, 0, 0
    if q < e and (48 <= buf[q] <= 57 or buf[q] == 46 or buf[q] == 101 or buf[q] == 69):
        return -1, 0, 0
    mantissa = whole
    for _ in range(places):
        mantissa *= 10
    return q, mantissa + frac, places


@njit(cache=True)
def _null(buf, p, e):  # pragma: no cover - compiled
    if p + 4 <= e and buf[p] == 110 and buf[p + 1] == 117 and buf[p + 2] == 108 and buf[p + 3] == 108:
        return p + 4
    return -1


@njit(cache=True)
def _nat(buf, p, e, low, high):  # pragma: no cover - compiled
    """(position after, value) of an integer in low..high; position -1 otherwise."""
    q, v = _int(buf, p, e)
    if q < 0 or v < low or v > high:
        return -1, 0
    return q, v


@njit(cache=True)
def _chars(out, lo, hi):  # pragma: no cover - compiled
    """Characters of the UTF-8 bytes out[lo:hi] (the schema's string lengths count characters)."""
    count = 0
    for k in range(lo, hi):
        if (out[k] & 0xC0) != 0x80:
            count += 1
    return count


@njit(cache=True)
def _text(buf, p, e, n, s_lo, s_hi, out, low, high):  # pragma: no cover - compiled
    """(position after, string number) of a string of low..high characters; position -1 otherwise."""
    at = n[_STRINGS]
    q = _string(buf, p, e, n, s_lo, s_hi, out)
    if q < 0:
        return -1, -1
    length = _chars(out, s_lo[at], s_hi[at])
    if length < low or length > high:
        return -1, -1
    return q, at


@njit(cache=True)
def _digit(b):  # pragma: no cover - compiled
    return 48 <= b <= 57


@njit(cache=True)
def _version(out, lo, hi):  # pragma: no cover - compiled
    """`^[0-9]+(\\.[0-9]+)*$`"""
    if hi <= lo:
        return False
    previous_digit = False
    for k in range(lo, hi):
        b = out[k]
        if _digit(b):
            previous_digit = True
        elif b == 46 and previous_digit:
            previous_digit = False
        else:
            return False
    return previous_digit


@njit(cache=True)
def _date(out, lo, hi):  # pragma: no cover - compiled
    """0 if out[lo:hi] is not `YYYY-MM-DDTHH:MM:SS(.d+)?(Z|[+-]HH:MM)?`, else 1 (no zone) or 2 (a zone)."""
    if hi - lo < 19:
        return 0
    for k in range(19):
        b = out[lo + k]
        if k == 4 or k == 7:
            if b != 45:
                return 0
        elif k == 10:
            if b != 84:
                return 0
        elif k == 13 or k == 16:
            if b != 58:
                return 0
        elif not _digit(b):
            return 0
    q = lo + 19
    if q < hi and out[q] == 46:
        q += 1
        if q >= hi or not _digit(out[q]):
            return 0
        while q < hi and _digit(out[q]):
            q += 1
    if q == hi:
        return 1
    if out[q] == 90 and q + 1 == hi:
        return 2
    if (out[q] == 43 or out[q] == 45) and q + 6 == hi and _digit(out[q + 1]) and _digit(out[q + 2]) \
            and out[q + 3] == 58 and _digit(out[q + 4]) and _digit(out[q + 5]):
        return 2
    return 0


@njit(cache=True)
def _flag_refused(out, lo, hi):  # pragma: no cover - compiled
    """Whether the flag out[lo:hi] is one `ohh._Hand` refuses the hand for (its letters, in lower case, "cap",
    "runittwice", "bomb" or "bombpot"), or is not ASCII (whose lower case Python decides: the reference's)."""
    word = np.zeros(11, np.uint8)
    count = 0
    for k in range(lo, hi):
        b = out[k]
        if b >= 128:
            return True
        if 65 <= b <= 90:
            b = b + 32
        if 97 <= b <= 122:
            if count < 11:
                word[count] = b
            count += 1
    return _is_word(word, count, _CAP) or _is_word(word, count, _RUN_IT_TWICE) or _is_word(word, count, _BOMB) \
        or _is_word(word, count, _BOMB_POT)


@njit(cache=True)
def _is_word(word, count, name):  # pragma: no cover - compiled
    if count != name.shape[0]:
        return False
    for k in range(count):  # noqa: SIM110 - a loop Numba compiles (no generator)
        if word[k] != name[k]:
            return False
    return True


@njit(cache=True)
def _card(buf, p, e):  # pragma: no cover - compiled
    """(position after, code) of a card string `"Ah"` (exactly a rank and a suit); position -1 otherwise."""
    if p + 4 > e or buf[p] != 34 or buf[p + 3] != 34:
        return -1, 0
    r = buf[p + 1]
    s = buf[p + 2]
    if 50 <= r <= 57:
        rank = r - 50
    elif r == 84:
        rank = 8
    elif r == 74:
        rank = 9
    elif r == 81:
        rank = 10
    elif r == 75:
        rank = 11
    elif r == 65:
        rank = 12
    else:
        return -1, 0
    if s == 99:
        suit = 0
    elif s == 100:
        suit = 1
    elif s == 104:
        suit = 2
    elif s == 115:
        suit = 3
    else:
        return -1, 0
    return p + 4, np.int64(rank) * 4 + suit


@njit(cache=True)
def _cards(buf, p, e, n, cards, empty_text):  # pragma: no cover - compiled
    """(position after, first, end) of an array of at most 16 cards into `cards` (or `""` when `empty_text`:
    no cards); position -1 otherwise."""
    lo = n[_CARDS]
    if empty_text and p + 2 <= e and buf[p] == 34 and buf[p + 1] == 34:
        return p + 2, lo, lo
    if p >= e or buf[p] != 91:
        return -1, 0, 0
    p = _ws(buf, p + 1, e)
    if p < e and buf[p] == 93:
        return p + 1, lo, lo
    while True:
        q, code = _card(buf, p, e)
        if q < 0 or n[_CARDS] >= cards.shape[0] or n[_CARDS] - lo >= 16:
            return -1, 0, 0
        cards[n[_CARDS]] = code
        n[_CARDS] += 1
        p, after = _next(buf, q, e, 93)
        if p == -2:
            return after, lo, n[_CARDS]
        if p < 0:
            return -1, 0, 0


@njit(cache=True)
def _open(buf, p, e, bracket):  # pragma: no cover - compiled
    """(position of the first item or -2 for an empty container, position after it); -1 if no `bracket`."""
    if p >= e or buf[p] != bracket:
        return -1, 0
    p = _ws(buf, p + 1, e)
    if p < e and buf[p] == bracket + 2:
        return -2, p + 1
    return p, 0


@njit(cache=True)
def _player(buf, p, e, n, pl, s_lo, s_hi, out):  # pragma: no cover - compiled
    row = n[_PLAYERS]
    if row >= pl.shape[0]:
        return -1
    pl[row, P_OUT] = 0
    p, after = _open(buf, p, e, 123)
    if p == -1 or p == -2:
        return -1
    seen = 0
    while True:
        p, slot = _key(buf, p, e, _PLAYER)
        if p < 0 or (seen >> slot) & 1:
            return -1
        seen |= 1 << slot
        if slot == 0:
            q, v = _nat(buf, p, e, 0, 1 << 60)
            pl[row, P_ID] = v
        elif slot == 1:
            q, v = _nat(buf, p, e, 1, 10)
            pl[row, P_SEAT] = v
        elif slot == 2:
            q, v = _text(buf, p, e, n, s_lo, s_hi, out, 1, 128)
            pl[row, P_NAME] = v
        elif slot == 3:
            q, v = _text(buf, p, e, n, s_lo, s_hi, out, 0, 1 << 40)
        elif slot == 4:
            q, m, pl_ = _amount(buf, p, e)
            pl[row, P_M] = m
            pl[row, P_P] = pl_
        elif slot == 5:
            q, m, pl_ = _amount(buf, p, e)
        else:
            q, v = _bool(buf, p, e)
            pl[row, P_OUT] = v
        if q < 0:
            return -1
        p, after = _next(buf, q, e, 125)
        if p == -2:
            break
        if p < 0:
            return -1
    if seen & _REQUIRED_PLAYER != _REQUIRED_PLAYER:
        return -1
    n[_PLAYERS] += 1
    return after


@njit(cache=True)
def _action(buf, p, e, n, ac, cards):  # pragma: no cover - compiled
    row = n[_ACTS]
    if row >= ac.shape[0]:
        return -1
    ac[row, A_HAS] = 0
    ac[row, A_C_LO] = -1
    ac[row, A_C_HI] = -1
    p, after = _open(buf, p, e, 123)
    if p == -1 or p == -2:
        return -1
    seen = 0
    while True:
        p, slot = _key(buf, p, e, _ACTION)
        if p < 0 or (seen >> slot) & 1:
            return -1
        seen |= 1 << slot
        if slot == 0:
            q, v = _nat(buf, p, e, 0, 1 << 60)
            ac[row, A_NUM] = v
        elif slot == 1:
            q, v = _nat(buf, p, e, 0, 1 << 60)
            ac[row, A_PID] = v
        elif slot == 2:
            q, v = _enum(buf, p, e, 3)
            ac[row, A_KIND] = v
        elif slot == 3:
            q, m, pl_ = _amount(buf, p, e)
            ac[row, A_HAS] = 1
            ac[row, A_M] = m
            ac[row, A_P] = pl_
        elif slot == 4:
            q, v = _bool(buf, p, e)
        else:
            q, lo, hi = _cards(buf, p, e, n, cards, False)
            ac[row, A_C_LO] = lo
            ac[row, A_C_HI] = hi
        if q < 0:
            return -1
        p, after = _next(buf, q, e, 125)
        if p == -2:
            break
        if p < 0:
            return -1
    if seen & _REQUIRED_ACTION != _REQUIRED_ACTION:
        return -1
    kind = ac[row, A_KIND]
    if (_NEEDS_AMOUNT >> kind) & 1 and not ac[row, A_HAS]:
        return -1
    if kind == _SHOWS and ac[row, A_C_LO] < 0:
        return -1
    n[_ACTS] += 1
    return after


@njit(cache=True)
def _round(buf, p, e, n, rd, ac, cards):  # pragma: no cover - compiled
    row = n[_ROUNDS]
    if row >= rd.shape[0]:
        return -1
    rd[row, R_C_LO] = 0
    rd[row, R_C_HI] = 0
    p, after = _open(buf, p, e, 123)
    if p == -1 or p == -2:
        return -1
    seen = 0
    while True:
        p, slot = _key(buf, p, e, _ROUND)
        if p < 0 or (seen >> slot) & 1:
            return -1
        seen |= 1 << slot
        if slot == 0:
            q, v = _nat(buf, p, e, 0, 1 << 60)
            rd[row, R_ID] = v
        elif slot == 1:
            q, v = _enum(buf, p, e, 2)
            rd[row, R_STREET] = v
        elif slot == 2:
            q, lo, hi = _cards(buf, p, e, n, cards, True)
            rd[row, R_C_LO] = lo
            rd[row, R_C_HI] = hi
        else:
            lo = n[_ACTS]
            q, after = _open(buf, p, e, 91)
            if q == -2:
                q = after
            elif q >= 0:
                while True:
                    if n[_ACTS] - lo >= 500:
                        return -1
                    q = _action(buf, q, e, n, ac, cards)
                    if q < 0:
                        return -1
                    q, after = _next(buf, q, e, 93)
                    if q == -2:
                        q = after
                        break
                    if q < 0:
                        return -1
            rd[row, R_A_LO] = lo
            rd[row, R_A_HI] = n[_ACTS]
        if q < 0:
            return -1
        p, after = _next(buf, q, e, 125)
        if p == -2:
            break
        if p < 0:
            return -1
    if seen & _REQUIRED_ROUND != _REQUIRED_ROUND:
        return -1
    n[_ROUNDS] += 1
    return after


@njit(cache=True)
def _optional_amount(buf, p, e):  # pragma: no cover - compiled
    """An amount or null: (position after, mantissa, places), null as 0."""
    q = _null(buf, p, e)
    if q >= 0:
        return q, 0, 0
    return _amount(buf, p, e)


@njit(cache=True)
def _win(buf, p, e, n, wn):  # pragma: no cover - compiled
    row = n[_WINS]
    if row >= wn.shape[0]:
        return -1
    wn[row, W_CASHOUT] = 0
    p, after = _open(buf, p, e, 123)
    if p == -1 or p == -2:
        return -1
    seen = 0
    while True:
        p, slot = _key(buf, p, e, _WIN)
        if p < 0 or (seen >> slot) & 1:
            return -1
        seen |= 1 << slot
        if slot == 0:
            q, v = _nat(buf, p, e, 0, 1 << 60)
            wn[row, W_PID] = v
        elif slot == 1:
            q, m, pl_ = _amount(buf, p, e)
            wn[row, W_M] = m
            wn[row, W_P] = pl_
        elif slot == 2:
            q, m, pl_ = _amount(buf, p, e)
        else:
            q, m, pl_ = _optional_amount(buf, p, e)
            if slot != 5 and m != 0:
                wn[row, W_CASHOUT] = 1
        if q < 0:
            return -1
        p, after = _next(buf, q, e, 125)
        if p == -2:
            break
        if p < 0:
            return -1
    if seen & _REQUIRED_WIN != _REQUIRED_WIN:
        return -1
    n[_WINS] += 1
    return after


@njit(cache=True)
def _pot(buf, p, e, n, pt, wn):  # pragma: no cover - compiled
    row = n[_POTS]
    if row >= pt.shape[0]:
        return -1
    pt[row, T_RAKE_M] = 0
    pt[row, T_RAKE_P] = 0
    pt[row, T_JACKPOT] = 0
    p, after = _open(buf, p, e, 123)
    if p == -1 or p == -2:
        return -1
    seen = 0
    while True:
        p, slot = _key(buf, p, e, _POT)
        if p < 0 or (seen >> slot) & 1:
            return -1
        seen |= 1 << slot
        if slot == 0:
            q, v = _nat(buf, p, e, 0, 10)
            pt[row, T_NUM] = v
        elif slot == 1:
            q, m, pl_ = _amount(buf, p, e)
            pt[row, T_M] = m
            pt[row, T_P] = pl_
        elif slot == 2:
            q, m, pl_ = _optional_amount(buf, p, e)
            pt[row, T_RAKE_M] = m
            pt[row, T_RAKE_P] = pl_
        elif slot == 3:
            q, m, pl_ = _optional_amount(buf, p, e)
            pt[row, T_JACKPOT] = m
        else:
            lo = n[_WINS]
            q, after = _open(buf, p, e, 91)
            if q == -2:
                q = after
            elif q >= 0:
                while True:
                    if n[_WINS] - lo >= 10:
                        return -1
                    q = _win(buf, q, e, n, wn)
                    if q < 0:
                        return -1
                    q, after = _next(buf, q, e, 93)
                    if q == -2:
                        q = after
                        break
                    if q < 0:
                        return -1
            pt[row, T_W_LO] = lo
            pt[row, T_W_HI] = n[_WINS]
        if q < 0:
            return -1
        p, after = _next(buf, q, e, 125)
        if p == -2:
            break
        if p < 0:
            return -1
    if seen & _REQUIRED_POT != _REQUIRED_POT:
        return -1
    n[_POTS] += 1
    return after


@njit(cache=True)
def _bet_limit(buf, p, e, h, row):  # pragma: no cover - compiled
    p, after = _open(buf, p, e, 123)
    if p == -1 or p == -2:
        return -1
    seen = 0
    while True:
        p, slot = _key(buf, p, e, _BET)
        if p < 0 or (seen >> slot) & 1:
            return -1
        seen |= 1 << slot
        if slot == 0:
            q, v = _enum(buf, p, e, 1)
            h[row, H_BET] = v
        else:  # bet_cap: taken when 0 or null (capped betting is the reference's to refuse)
            q, m, _places = _optional_amount(buf, p, e)
            if m != 0:
                return -1
        if q < 0:
            return -1
        p, after = _next(buf, q, e, 125)
        if p == -2:
            break
        if p < 0:
            return -1
    if not seen & 1:
        return -1
    return after


@njit(cache=True)
def _hand(buf, p, e, n, h, row, pl, rd, ac, pt, wn, cards, s_lo, s_hi, out):  # pragma: no cover
    p, after = _open(buf, p, e, 123)
    if p == -1 or p == -2:
        return -1
    seen = 0
    h[row, H_ANTE_M] = 0
    h[row, H_ANTE_P] = 0
    h[row, H_TOURNAMENT] = 0
    h[row, H_STARTED] = -1
    h[row, H_ZONE] = 0
    h[row, H_CURRENCY] = -1
    while True:
        p, slot = _key(buf, p, e, _HAND)
        if p < 0 or (seen >> slot) & 1:
            return -1
        seen |= 1 << slot
        q = -1
        if slot == 0:  # spec_version
            q, v = _text(buf, p, e, n, s_lo, s_hi, out, 0, 1 << 40)
            if q >= 0 and not _version(out, s_lo[v], s_hi[v]):
                return -1
        elif slot == 1:  # site_name
            q, v = _text(buf, p, e, n, s_lo, s_hi, out, 1, 100)
            h[row, H_ROOM] = v
        elif slot == 2 or slot == 3:  # network_name, internal_version
            q, v = _text(buf, p, e, n, s_lo, s_hi, out, 0, 1 << 40)
        elif slot == 4:  # tournament
            q, v = _bool(buf, p, e)
            h[row, H_TOURNAMENT] = v
        elif slot == 5:  # tournament_info: the reference's
            return -1
        elif slot == 6:
            q, v = _text(buf, p, e, n, s_lo, s_hi, out, 1, 100)
            h[row, H_HAND_ID] = v
        elif slot == 7:
            q, v = _text(buf, p, e, n, s_lo, s_hi, out, 0, 1 << 40)
            if q >= 0:
                zone = _date(out, s_lo[v], s_hi[v])
                if zone == 0:
                    return -1
                h[row, H_STARTED] = v
                h[row, H_ZONE] = zone - 1
        elif slot == 8:
            q, v = _text(buf, p, e, n, s_lo, s_hi, out, 1, 128)
            h[row, H_TABLE_ID] = v
        elif slot == 9:
            q, v = _enum(buf, p, e, 0)
            if v > 1:  # a game the mapping refuses: the reference words it
                return -1
            h[row, H_GAME] = v
        elif slot == 10:
            q = _bet_limit(buf, p, e, h, row)
        elif slot == 11:  # table_size: 2..10, or the same as a string
            if p < e and buf[p] == 34:
                if p + 3 <= e and buf[p + 2] == 34 and 50 <= buf[p + 1] <= 57:
                    q, v = p + 3, np.int64(buf[p + 1]) - 48
                elif p + 4 <= e and buf[p + 1] == 49 and buf[p + 2] == 48 and buf[p + 3] == 34:
                    q, v = p + 4, 10
                else:
                    return -1
            else:
                q, v = _nat(buf, p, e, 2, 10)
            h[row, H_TABLE_SIZE] = v
        elif slot == 12:  # currency
            q, v = _text(buf, p, e, n, s_lo, s_hi, out, 0, 16)
            if q >= 0 and s_hi[v] > s_lo[v]:
                h[row, H_CURRENCY] = v
        elif slot == 13:
            q, v = _nat(buf, p, e, 1, 10)
            h[row, H_DEALER] = v
        elif slot == 14:
            q, m, pl_ = _amount(buf, p, e)
            h[row, H_SB_M] = m
            h[row, H_SB_P] = pl_
        elif slot == 15:
            q, m, pl_ = _amount(buf, p, e)
            h[row, H_BB_M] = m
            h[row, H_BB_P] = pl_
        elif slot == 16:
            q, m, pl_ = _amount(buf, p, e)
            h[row, H_ANTE_M] = m
            h[row, H_ANTE_P] = pl_
        elif slot == 17:  # hero_player_id: an integer or null
            q = _null(buf, p, e)
            if q < 0:
                q, v = _int(buf, p, e)
        elif slot == 18:  # flags: ASCII strings none of which the mapping refuses the hand for
            q, after = _open(buf, p, e, 91)
            if q == -2:
                q = after
            elif q >= 0:
                while True:
                    at = n[_STRINGS]
                    q = _string(buf, q, e, n, s_lo, s_hi, out)
                    if q < 0 or _flag_refused(out, s_lo[at], s_hi[at]):
                        return -1
                    q, after = _next(buf, q, e, 93)
                    if q == -2:
                        q = after
                        break
                    if q < 0:
                        return -1
        elif slot == 19 or slot == 20 or slot == 21:  # players, rounds, pots
            counter = _PLAYERS if slot == 19 else (_ROUNDS if slot == 20 else _POTS)
            most = 10 if slot == 19 else (32 if slot == 20 else 11)
            lo = n[counter]
            q, after = _open(buf, p, e, 91)
            if q == -2:
                q = after
            elif q >= 0:
                while True:
                    if n[counter] - lo >= most:
                        return -1
                    if slot == 19:
                        q = _player(buf, q, e, n, pl, s_lo, s_hi, out)
                    elif slot == 20:
                        q = _round(buf, q, e, n, rd, ac, cards)
                    else:
                        q = _pot(buf, q, e, n, pt, wn)
                    if q < 0:
                        return -1
                    q, after = _next(buf, q, e, 93)
                    if q == -2:
                        q = after
                        break
                    if q < 0:
                        return -1
            if slot == 19:
                h[row, H_P_LO] = lo
                h[row, H_P_HI] = n[_PLAYERS]
            elif slot == 20:
                h[row, H_R_LO] = lo
                h[row, H_R_HI] = n[_ROUNDS]
            else:
                h[row, H_T_LO] = lo
                h[row, H_T_HI] = n[_POTS]
        if q < 0:
            return -1
        p, after = _next(buf, q, e, 125)
        if p == -2:
            break
        if p < 0:
            return -1
    if seen & _REQUIRED_HAND != _REQUIRED_HAND:
        return -1
    if h[row, H_P_HI] - h[row, H_P_LO] < 1 or h[row, H_R_HI] - h[row, H_R_LO] < 1:
        return -1
    return after


@njit(cache=True)
def _object(buf, p, e, n, h, row, pl, rd, ac, pt, wn, cards, s_lo, s_hi, out):  # pragma: no cover
    """The whole object `{"ohh": {...}}` from buf[p] to e (white space after it only): True if read."""
    p = _ws(buf, p, e)
    p, after = _open(buf, p, e, 123)
    if p < 0:
        return False
    p, _slot = _key(buf, p, e, _TOP)
    if p < 0:
        return False
    q = _hand(buf, p, e, n, h, row, pl, rd, ac, pt, wn, cards, s_lo, s_hi, out)
    if q < 0:
        return False
    q, after = _next(buf, q, e, 125)
    if q != -2:
        return False
    return _ws(buf, after, e) == e


# --------------------------------------------------------------------------- mapping


@njit(cache=True)
def _pow10(k):  # pragma: no cover - compiled
    v = np.int64(1)
    for _ in range(k):
        v *= 10
    return v


@njit(cache=True)
def _scaled(m, places, digits):  # pragma: no cover - compiled
    """m / 10**places in units of 10**-digits (exact: places <= digits); -1 past MAX_SCALED."""
    v = m * _pow10(digits - places)
    if v > MAX_SCALED or v < 0:
        return -1
    return v


@njit(cache=True)
def _event(ev, n, kind, seat):  # pragma: no cover - compiled
    """A new event row (all null but kind and seat); its row, or -1 when there is no room."""
    row = n[_EVENTS]
    if row >= ev.shape[0]:
        return -1
    for c in range(ev.shape[1]):
        ev[row, c] = -1
    ev[row, E_KIND] = kind
    ev[row, E_SEAT] = seat
    n[_EVENTS] += 1
    return row


@njit(cache=True)
def _map(h, row, n, pl, rd, ac, pt, wn, cards, ev, ev_cards, s_out):  # pragma: no cover - compiled
    """`ohh._Hand(...).canonical()` of the scanned hand `row` as rows (module docstring); False to decline."""
    p_lo, p_hi = h[row, H_P_LO], h[row, H_P_HI]
    r_lo, r_hi = h[row, H_R_LO], h[row, H_R_HI]
    t_lo, t_hi = h[row, H_T_LO], h[row, H_T_HI]
    players = p_hi - p_lo
    hole = 2 if h[row, H_GAME] == 0 else 4
    # one scale for the hand's amounts (ohh._amounts: blinds, ante, stacks, action amounts, pots, rake, wins)
    places = max(h[row, H_SB_P], h[row, H_BB_P], h[row, H_ANTE_P])
    for i in range(p_lo, p_hi):
        places = max(places, pl[i, P_P])
    for r in range(r_lo, r_hi):
        for a in range(rd[r, R_A_LO], rd[r, R_A_HI]):
            if ac[a, A_HAS]:
                places = max(places, ac[a, A_P])
    for t in range(t_lo, t_hi):
        if pt[t, T_JACKPOT] != 0:
            return False
        places = max(places, pt[t, T_P], pt[t, T_RAKE_P])
        for w in range(pt[t, T_W_LO], pt[t, T_W_HI]):
            if wn[w, W_CASHOUT]:
                return False
            places = max(places, wn[w, W_P])
    digits = max(places, 0 if h[row, H_TOURNAMENT] == 1 else 2)
    h[row, H_SCALE] = _pow10(digits)
    sb = _scaled(h[row, H_SB_M], h[row, H_SB_P], digits)
    bb = _scaled(h[row, H_BB_M], h[row, H_BB_P], digits)
    ante = _scaled(h[row, H_ANTE_M], h[row, H_ANTE_P], digits)
    if sb < 0 or bb < 0 or ante < 0:
        return False
    h[row, H_SBV], h[row, H_BBV], h[row, H_ANTEV] = sb, bb, ante
    # players: ids and seats once each
    stack = np.zeros(players, np.int64)
    seat_of = np.zeros(players, np.int64)
    max_seat = max(h[row, H_TABLE_SIZE], h[row, H_DEALER])
    for i in range(players):
        for j in range(i):
            if pl[p_lo + i, P_ID] == pl[p_lo + j, P_ID] or pl[p_lo + i, P_SEAT] == pl[p_lo + j, P_SEAT]:
                return False
        stack[i] = _scaled(pl[p_lo + i, P_M], pl[p_lo + i, P_P], digits)
        if stack[i] < 0:
            return False
        seat_of[i] = pl[p_lo + i, P_SEAT]
        max_seat = max(max_seat, seat_of[i])
    h[row, H_MAX_SEATS] = max_seat
    # rounds in id order (stable, as `sorted`); one round of each board street at most
    rounds = r_hi - r_lo
    order = np.empty(rounds, np.int64)
    for k in range(rounds):
        order[k] = r_lo + k
    for k in range(1, rounds):
        x = order[k]
        j = k - 1
        while j >= 0 and rd[order[j], R_ID] > rd[x, R_ID]:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = x
    streets = np.zeros(5, np.int64)
    for k in range(rounds):
        streets[rd[order[k], R_STREET]] += 1
    if streets[1] > 1 or streets[2] > 1 or streets[3] > 1:
        return False
    # actions: players known; who was dealt cards, who only sat down or stood up
    a_lo = rd[r_lo, R_A_LO]  # the hand's actions are rows a_lo.. of `ac`, round after round as listed
    who = np.empty(max(1, rd[r_hi - 1, R_A_HI] - a_lo), np.int64)  # each action's player (index in `players`)
    dealt_cards = np.zeros(players, np.bool_)
    acted = np.zeros(players, np.bool_)
    other_than_seating = np.zeros(players, np.bool_)
    for r in range(r_lo, r_hi):
        for a in range(rd[r, R_A_LO], rd[r, R_A_HI]):
            kind = ac[a, A_KIND]
            if kind in (_ADDED, _ADD_POT):
                return False
            i = -1
            for j in range(players):
                if pl[p_lo + j, P_ID] == ac[a, A_PID]:
                    i = j
                    break
            if i < 0:
                return False
            if a - a_lo < 0 or a - a_lo >= who.shape[0]:
                return False
            who[a - a_lo] = i
            acted[i] = True
            if kind != _SITS and kind != _STANDS:
                other_than_seating[i] = True
            if kind == _DEALT:
                dealt_cards[i] = True
    for t in range(t_lo, t_hi):
        for w in range(pt[t, T_W_LO], pt[t, T_W_HI]):
            found = False
            for j in range(players):
                if pl[p_lo + j, P_ID] == wn[w, W_PID]:
                    found = True
            if not found:
                return False
    dealt_in = np.zeros(players, np.bool_)
    for i in range(players):
        if dealt_cards[i]:
            dealt_in[i] = True
        elif pl[p_lo + i, P_OUT]:
            dealt_in[i] = False
        else:
            dealt_in[i] = not (acted[i] and not other_than_seating[i])
    # seats, in seat order
    h[row, H_SEAT_LO] = n[_SEATS_OUT]
    if n[_SEATS_OUT] + players > s_out.shape[0]:
        return False
    for seat in range(1, 11):
        for i in range(players):
            if seat_of[i] == seat:
                k = n[_SEATS_OUT]
                s_out[k, S_SEAT] = seat
                s_out[k, S_NAME] = pl[p_lo + i, P_NAME]
                s_out[k, S_STACK] = stack[i]
                s_out[k, S_ACTIVE] = 1 if dealt_in[i] and not pl[p_lo + i, P_OUT] else 0
                n[_SEATS_OUT] += 1
    h[row, H_SEAT_HI] = n[_SEATS_OUT]
    # the events (ohh._Hand._build with raise_to False)
    button = h[row, H_DEALER]
    ev_lo = n[_EVENTS]
    h[row, H_EV_LO] = ev_lo
    if _event(ev, n, _K_BUTTON, button) < 0:
        return False
    has_sb = sb > 0
    live = np.zeros(players, np.int64)
    round_in = np.zeros(players, np.int64)
    current = 0
    chips_in = 0
    posted_sb = False
    posted_bb = False
    holes_pending = True
    last_betting = 0
    # one step per round (its board deal) and per action, then a last one: the hole deals come at the first
    # step that needs them (a board deal, a betting action, a show or muck; the end), from one call site
    k = 0
    a = -1
    street = 0
    board = False
    c_lo = c_hi = 0
    while True:
        final = k >= rounds
        r = order[k] if not final else 0
        kind = -1
        if final:
            need = True
        elif a < 0:
            street = rd[r, R_STREET]
            c_lo, c_hi = rd[r, R_C_LO], rd[r, R_C_HI]
            board = street >= 1 and street <= 3
            need = board or c_hi > c_lo
        else:
            kind = ac[a, A_KIND]
            need = (kind >= _FOLD and kind <= _CALL) or kind in (_SHOWS, _MUCKS)
        if need and holes_pending:
            holes_pending = False
            if not _deal_holes(h, row, n, pl, rd, ac, cards, ev, ev_cards, seat_of, dealt_in, who, order, hole,
                               button, a_lo):
                return False
        if final:
            break
        if a < 0:
            if board or c_hi > c_lo:
                e = _event(ev, n, _K_DEAL, -1)
                if e < 0 or not _copy_cards(ev, e, n, cards, c_lo, c_hi, ev_cards):
                    return False
                ev[e, E_TARGET] = 1
            if board:
                round_in[:] = 0
                current = 0
        elif kind >= _ANTE and kind <= _EXTRA:
            i = who[a - a_lo]
            amount = _scaled(ac[a, A_M], ac[a, A_P], digits)
            e = _event(ev, n, _K_POST, seat_of[i])
            if amount < 0 or e < 0:
                return False
            if kind == _SB and not posted_sb:
                posted_sb = True
                if has_sb:
                    ev[e, E_POST] = 0
                    ev[e, E_BLIND] = 1
                else:
                    ev[e, E_POST] = 4
            elif kind == _BB and not posted_bb:
                posted_bb = True
                ev[e, E_POST] = 0
                ev[e, E_BLIND] = 2 if has_sb else 1
            elif kind == _BB or (kind == _EXTRA and amount == bb):
                ev[e, E_POST] = 1
            elif kind == _STRADDLE:
                ev[e, E_POST] = 2
            elif kind == _ANTE:
                ev[e, E_POST] = 3
            else:
                ev[e, E_POST] = 4
            ev[e, E_AMOUNT] = amount
            stack[i] -= amount
            chips_in += amount
            if stack[i] < 0:
                return False  # overdrawn: the reference tries the other reading and words it
            ev[e, E_ALL_IN] = 1 if stack[i] <= 0 else 0
            if ev[e, E_POST] <= 2:  # blind, missed, straddle: live
                round_in[i] += amount
                live[i] += amount
                current = max(current, round_in[i])
            last_betting = n[_EVENTS] - ev_lo
        elif kind >= _FOLD and kind <= _CALL:
            i = who[a - a_lo]
            e = _event(ev, n, _K_ACTION, seat_of[i])
            if e < 0:
                return False
            if kind in (_FOLD, _CHECK):
                ev[e, E_ACTION] = 0 if kind == _FOLD else 1
            else:
                before = round_in[i]
                added = _scaled(ac[a, A_M], ac[a, A_P], digits)
                if added < 0:
                    return False
                to = before + added
                aggressive = kind != _CALL and to > current
                if aggressive:
                    ev[e, E_ACTION] = 3 if current == 0 else 4
                else:
                    ev[e, E_ACTION] = 2
                stack[i] -= added
                chips_in += added
                if stack[i] < 0:
                    return False
                round_in[i] = to
                live[i] += added
                current = max(current, to)
                ev[e, E_AMOUNT] = added
                ev[e, E_TO] = to
                ev[e, E_ALL_IN] = 1 if stack[i] <= 0 else 0
            last_betting = n[_EVENTS] - ev_lo
        elif kind in (_SHOWS, _MUCKS):
            e = _event(ev, n, _K_SHOW if kind == _SHOWS else _K_MUCK, seat_of[who[a - a_lo]])
            if e < 0:
                return False
            if kind == _SHOWS and not _copy_cards(ev, e, n, cards, ac[a, A_C_LO], ac[a, A_C_HI], ev_cards):
                return False
        a = rd[r, R_A_LO] if a < 0 else a + 1  # the next step
        if a >= rd[r, R_A_HI]:
            k += 1
            a = -1
    # the uncalled bet: the largest live contributor gets back what nobody else matched
    returned = 0
    top = -1
    for i in range(players):
        if top < 0 or live[i] > live[top]:
            top = i
    if top >= 0:
        others = 0
        for i in range(players):
            if i != top:
                others = max(others, live[i])
        if live[top] > others:
            returned = live[top] - others
            if n[_EVENTS] >= ev.shape[0]:
                return False
            at = ev_lo + last_betting
            for k in range(n[_EVENTS], at, -1):
                ev[k, :] = ev[k - 1, :]
            n[_EVENTS] += 1
            for c in range(ev.shape[1]):
                ev[at, c] = -1
            ev[at, E_KIND] = _K_RETURN
            ev[at, E_SEAT] = seat_of[top]
            ev[at, E_AMOUNT] = returned
    # pots in number order (stable): rake, then the awards
    pots = t_hi - t_lo
    porder = np.empty(pots, np.int64)
    for k in range(pots):
        porder[k] = t_lo + k
    for k in range(1, pots):
        x = porder[k]
        j = k - 1
        while j >= 0 and pt[porder[j], T_NUM] > pt[x, T_NUM]:
            porder[j + 1] = porder[j]
            j -= 1
        porder[j + 1] = x
    gross = 0
    paid = 0
    for k in range(pots):
        t = porder[k]
        amount = _scaled(pt[t, T_M], pt[t, T_P], digits)
        rake = _scaled(pt[t, T_RAKE_M], pt[t, T_RAKE_P], digits)
        if amount < 0 or rake < 0:
            return False
        gross += amount
        paid += rake
        if rake:
            e = _event(ev, n, _K_RAKE, -1)
            if e < 0:
                return False
            ev[e, E_POT] = pt[t, T_NUM]
            ev[e, E_AMOUNT] = rake
        for w in range(pt[t, T_W_LO], pt[t, T_W_HI]):
            win = _scaled(wn[w, W_M], wn[w, W_P], digits)
            if win < 0:
                return False
            paid += win
            if win:
                seat = -1
                for j in range(players):
                    if pl[p_lo + j, P_ID] == wn[w, W_PID]:
                        seat = seat_of[j]
                e = _event(ev, n, _K_AWARD, seat)
                if e < 0:
                    return False
                ev[e, E_POT] = pt[t, T_NUM]
                ev[e, E_AMOUNT] = win
    net = chips_in - returned
    if net != gross and net != paid:
        return False  # not reconciled under this reading: the reference's
    h[row, H_EV_HI] = n[_EVENTS]
    return True


@njit(cache=True)
def _copy_cards(ev, e, n, cards, lo, hi, ev_cards):  # pragma: no cover - compiled
    if lo < 0 or hi < lo or hi > cards.shape[0] or n[_EVCARDS] + (hi - lo) > ev_cards.shape[0]:
        return False
    ev[e, E_C_LO] = n[_EVCARDS]
    for k in range(lo, hi):
        ev_cards[n[_EVCARDS]] = cards[k]
        n[_EVCARDS] += 1
    ev[e, E_C_HI] = n[_EVCARDS]
    return True


@njit(cache=True)
def _deal_holes(h, row, n, pl, rd, ac, cards, ev, ev_cards, seat_of, dealt_in, who, order, hole, button,
                a_lo):  # pragma: no cover - compiled
    """The hole deals, clockwise from the seat after the button: each dealt-in seat's "Dealt Cards" (all of
    them, in round order; `??` for one without cards), or `??` cards when the file deals it none."""
    players = seat_of.shape[0]
    for step in range(2):
        for seat in range(1, 11):
            if (step == 0 and seat <= button) or (step == 1 and seat > button):
                continue
            i = -1
            for j in range(players):
                if seat_of[j] == seat and dealt_in[j]:
                    i = j
            if i < 0:
                continue
            e = _event(ev, n, _K_DEAL, seat)
            if e < 0:
                return False
            ev[e, E_TARGET] = 0
            ev[e, E_C_LO] = n[_EVCARDS]
            given = False
            for k in range(order.shape[0]):
                r = order[k]
                for a in range(rd[r, R_A_LO], rd[r, R_A_HI]):
                    if ac[a, A_KIND] != _DEALT or who[a - a_lo] != i:
                        continue
                    given = True
                    lo, hi = ac[a, A_C_LO], ac[a, A_C_HI]
                    if lo < 0 or hi == lo:  # no cards listed: `??` for each the game deals
                        if n[_EVCARDS] + hole > ev_cards.shape[0]:
                            return False
                        for _ in range(hole):
                            ev_cards[n[_EVCARDS]] = UNKNOWN
                            n[_EVCARDS] += 1
                    else:
                        if n[_EVCARDS] + (hi - lo) > ev_cards.shape[0]:
                            return False
                        for c in range(lo, hi):
                            ev_cards[n[_EVCARDS]] = cards[c]
                            n[_EVCARDS] += 1
            if not given:
                if n[_EVCARDS] + hole > ev_cards.shape[0]:
                    return False
                for _ in range(hole):
                    ev_cards[n[_EVCARDS]] = UNKNOWN
                    n[_EVCARDS] += 1
            ev[e, E_C_HI] = n[_EVCARDS]
    return True


@njit(cache=True)
def convert(buf, seg_lo, seg_hi, h, pl, rd, ac, pt, wn, cards, s_lo, s_hi, out, ev, ev_cards,
            s_out):  # pragma: no cover - compiled
    """Every object buf[seg_lo[k]:seg_hi[k]] scanned and mapped: hand row k (`H_OK` 1 if taken); the counts
    of strings, bytes, seats, events and event cards written (the rows of declined objects are undone)."""
    n = np.zeros(N_COUNTERS, np.int64)
    size = buf.shape[0]
    for k in range(seg_lo.shape[0]):
        mark = n.copy()
        h[k, H_OK] = 0
        h[k, H_SEGMENT] = k
        lo = seg_lo[k]
        hi = seg_hi[k]
        if lo < 0 or hi > size or hi < lo:
            continue
        taken = _object(buf, lo, hi, n, h, k, pl, rd, ac, pt, wn, cards, s_lo, s_hi, out)
        if taken:
            taken = _map(h, k, n, pl, rd, ac, pt, wn, cards, ev, ev_cards, s_out)
        if taken:
            h[k, H_OK] = 1
        else:
            n[:] = mark
    return n[_STRINGS], n[_BYTES], n[_SEATS_OUT], n[_EVENTS], n[_EVCARDS]


# --------------------------------------------------------------------------- where objects are


@njit(cache=True)
def _space(b):  # pragma: no cover - compiled
    """What `bytes.isspace` counts as white space."""
    return b == 32 or (9 <= b <= 13)


@njit(cache=True)
def segments(data, bom, max_line, max_object, seg):  # pragma: no cover - compiled
    """The objects of `data` (whole lines; a block of the file) that `ohh._json_objects` parses alone, each
    the moment its last line is read: a one-line object (`{` first, `}` last but white space), or a line
    starting with `{`, lines that do not end an object's buffer (not blank, not starting with `}` or `]`,
    not a one-line object) and a line starting with `}`; blank lines between; the limits kept.

    Writes (first byte, end byte, first line index, last line index) per object into `seg`; returns (objects,
    stop line, why): why 0 all read, 1 line `stop` is something else (the file is the reference's from there),
    2 an object opened at line `stop` is still open at the end of `data` (more lines to come, or the end of
    the file). `bom`: data is the file's start (a UTF-8 byte order mark there is not part of line 1)."""
    size_all = data.shape[0]
    count = 0
    line = 0
    p = 0
    open_line = -1
    open_byte = 0
    size = 0
    while p < size_all:
        q = p
        while q < size_all and data[q] != 10:
            q += 1
        end = q + 1 if q < size_all else q  # the line's end, its newline included
        raw = end - p
        lo = p
        if bom and line == 0 and raw >= 3 and data[0] == 0xEF and data[1] == 0xBB and data[2] == 0xBF:
            lo = 3
        blank = end > lo
        for k in range(lo, end):
            if not _space(data[k]):
                blank = False
                break
        last = end - 1
        while last >= lo and _space(data[last]):
            last -= 1
        first = data[lo] if lo < end else 0
        one_line = first == 123 and last >= lo and data[last] == 125
        if raw > max_line:
            if open_line >= 0:
                return count, open_line, 1
            return count, line, 1
        if open_line < 0:
            if blank:
                pass
            elif first == 123:
                if end - lo > max_object:
                    return count, line, 1
                if one_line:
                    if count >= seg.shape[0]:
                        return count, line, 1
                    seg[count, 0] = lo
                    seg[count, 1] = end
                    seg[count, 2] = line
                    seg[count, 3] = line
                    count += 1
                else:
                    open_line = line
                    open_byte = lo
                    size = end - lo
            else:
                return count, line, 1
        else:
            size += end - lo
            if size > max_object:
                return count, open_line, 1
            if first == 125 and not blank:
                if count >= seg.shape[0]:
                    return count, open_line, 1
                seg[count, 0] = open_byte
                seg[count, 1] = end
                seg[count, 2] = open_line
                seg[count, 3] = line
                count += 1
                open_line = -1
            elif blank or one_line or first == 93:
                return count, open_line, 1
        p = end
        line += 1
    if open_line >= 0:
        return count, open_line, 2
    return count, line, 0
