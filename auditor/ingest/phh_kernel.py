"""The PHH conversion's common case as one compiled call: scanned documents -> canonical hand, seat and event rows.

Why: after the byte scanner (`phh_scan`), reading a `.phh` still cost ~150 µs a hand of Python (a dict per
field, a tuple per action, `_phh_betting`'s dict per event, `build_pots`, `_awards`, jsonschema, then
`build_tables` turning the dicts into columns). `convert` does what `phh._convert` and `phh._phh_betting`
do for the hands they convert without a question: it reads each document's fields and action tokens from the
scanner's flat arrays (no Python object), works out the money scale, the forced bets, each action as a
canonical event (`cc`/`cbr` -> check, call, bet or raise with amount, to and all-in), the uncalled bet's
return and the award, and writes rows into preallocated arrays that `phh_tables` makes Arrow columns of.

It *declines* (row `H_OK` 0) every document it would not convert exactly as `phh._convert` does, and that
document takes the reference path, which gives its hand or words its refusal: any field of another type
than the plain ones (an amount as text, a float of more than 15 digits, a negative amount, a boolean seat),
anything `_convert` refuses (a missing field, lengths that disagree, a player the hand does not have, a
`cbr` below what is in or above the stack, an amount too large or needing too fine a unit), draws and
bring-ins, `sm -` after two deals to one player, both `finishing_stacks` and `winnings` (they may disagree:
a warning), a seat listed twice, and every hand whose awards are not the common case: one pot (the
contenders all put in the same) won whole by one of its contenders (what `phh._awards`' fast path pays);
side pots, split pots and anything `_awards` warns about are declined. So the kernel decides nothing
`_convert` would decide differently; `tests/test_phh_tables.py` holds its tables equal to `build_tables` of
the reference path's hands on the corpus, the fixtures and mutated files.

Safety (hostile input): the document, field, item, action and card ranges it reads are the scanner's own,
each clamped to the arrays' lengths; every output write is checked against its array's capacity first (a
document that would pass one is declined); integers are checked before they could overflow.
"""

from __future__ import annotations

import numpy as np

from auditor.ingest.phh_scan import (
    ARRAY,
    FLOAT,
    INT,
    KEYS,
    SM_DEALT,
    SM_MUCK,
    STR,
    UNKNOWN_CARD,
    V_CBR,
    V_CC,
    V_DB,
    V_DH,
    V_F,
    V_SM,
)
from auditor.model.compiled import njit

__all__ = ["ACTION_NAMES", "EV_COLUMNS", "H_COLUMNS", "KIND_NAMES", "POST_NAMES", "TARGET_NAMES", "VARIANT_CODES",
           "convert"]

#: PHH variant codes the kernel converts, in code order (`phh.SUPPORTED`: variant, structure, hole cards)
VARIANT_CODES = ("NT", "FT", "PO", "FO")
_HOLE_CARDS = np.array([2, 2, 4, 4], dtype=np.int64)
_FIXED_LIMIT = np.array([0, 1, 0, 1], dtype=np.int64)
#: event kinds, actions, posts and deal targets, coded 0.. in these orders (-1: none)
KIND_NAMES = ("button", "post", "action", "return", "deal", "show", "muck", "rake", "award")
K_BUTTON, K_POST, K_ACTION, K_RETURN, K_DEAL, K_SHOW, K_MUCK, K_RAKE, K_AWARD = range(9)
ACTION_NAMES = ("check", "call", "bet", "raise", "fold")
A_CHECK, A_CALL, A_BET, A_RAISE, A_FOLD = range(5)
POST_NAMES = ("ante", "dead", "blind", "straddle")
P_ANTE, P_DEAD, P_BLIND, P_STRADDLE = range(4)
TARGET_NAMES = ("hole", "board")

#: per document: converted (1) or declined (0), players, variant code, money scale, chip unit, max seats,
#: the stakes' ante (0: none), blinds written (0-2) and their amounts, fixed-limit small and big bet (-1: not
#: fixed limit), its seat rows and event rows [lo, hi)
H_COLUMNS = ("ok", "n", "variant", "scale", "chip_unit", "max_seats", "ante", "blinds", "blind1", "blind2",
             "small_bet", "big_bet", "seat_lo", "seat_hi", "ev_lo", "ev_hi")
(H_OK, H_N, H_VARIANT, H_SCALE, H_CHIP_UNIT, H_MAX_SEATS, H_ANTE, H_BLINDS, H_BLIND1, H_BLIND2, H_SMALL, H_BIG,
 H_SEAT_LO, H_SEAT_HI, H_EV_LO, H_EV_HI) = range(len(H_COLUMNS))
#: per seat row: seat number, starting stack, position (0-based player index, for the player's name)
S_SEAT, S_STACK, S_POSITION = range(3)
#: per event row (-1: the event has no such key; all_in -1 unset, 0 false, 1 true; cards [card_lo, card_hi)
#: of the card output, card_lo -1 when the event has no cards)
EV_COLUMNS = ("kind", "seat", "action", "post", "blind", "amount", "to", "all_in", "target", "card_lo", "card_hi",
              "pot")
(E_KIND, E_SEAT, E_ACTION, E_POST, E_BLIND, E_AMOUNT, E_TO, E_ALL_IN, E_TARGET, E_CARD_LO, E_CARD_HI,
 E_POT) = range(len(EV_COLUMNS))

MAX_SCALE = 10**6
MAX_MONEY = 10**15
#: a TOML float is taken only with at most this many digits: it then reads back as the decimal written
#: (`phh._money` takes `repr(float)`, which for <= 15 significant digits is that decimal's value)
_FLOAT_DIGITS = 15

_K = {name: k for k, name in enumerate(KEYS)}
KEY_VARIANT, KEY_ANTES, KEY_BLINDS, KEY_SMALL_BET, KEY_BIG_BET = (_K[k] for k in (
    "variant", "antes", "blinds_or_straddles", "small_bet", "big_bet"))
KEY_STACKS, KEY_ACTIONS, KEY_FINISHING, KEY_WINNINGS, KEY_SEATS = (_K[k] for k in (
    "starting_stacks", "actions", "finishing_stacks", "winnings", "seats"))
KEY_SEAT_COUNT, KEY_PLAYERS, KEY_RAKE = (_K[k] for k in ("seat_count", "players", "rake"))
_N_KEYS = len(KEYS)
#: the event kinds and digit limits as array items: a kernel passes `_KIND[K_POST]`, not the literal `K_POST`
#: (Numba would compile the callee once per literal)
_KIND = np.arange(len(KIND_NAMES), dtype=np.int64)
_DIGITS = np.array([_FLOAT_DIGITS, 18], dtype=np.int64)
_NONE = np.array([-1, 0, 1], dtype=np.int64)


@njit(cache=True)
def _gcd(a, b):  # pragma: no cover - compiled (runs as Python under NUMBA_DISABLE_JIT=1)
    while b:
        a, b = b, a % b
    return a


@njit(cache=True)
def _decimal(buf, s, e, max_digits):  # pragma: no cover - compiled
    """(numerator, denominator, ok) of the plain decimal buf[s:e] (digits, one '.', digits; no sign), reduced;
    not ok past `max_digits` digits or for anything else."""
    num = _NONE[1]
    den = _NONE[2]
    digits = 0
    dot = False
    if e <= s:
        return num, den, False
    for q in range(s, e):
        b = buf[q]
        if b == 46 and not dot:
            dot = True
        elif 48 <= b <= 57:
            digits += 1
            if digits > max_digits:
                return 0, 1, False
            num = num * 10 + (np.int64(b) - 48)
            if dot:
                den *= 10
        else:
            return 0, 1, False
    g = _gcd(num, den)
    if g > 1:
        num //= g
        den //= g
    return num, den, True


@njit(cache=True)
def _amount(buf, kind, start, end, value):  # pragma: no cover - compiled
    """(numerator, denominator, ok) of a scanned scalar read as an amount: a non-negative integer, or a float
    of at most `_FLOAT_DIGITS` digits; anything else (text, a boolean, negative) is not ok."""
    if kind == INT:
        return value, 1, value >= 0
    if kind == FLOAT:
        return _decimal(buf, start, end, _DIGITS[0])
    return 0, 1, False


@njit(cache=True)
def _units(num, den, scale):  # pragma: no cover - compiled
    """(num / den * scale, ok): not ok above MAX_MONEY (`phh._convert`'s `units` refuses it)."""
    mult = scale // den
    if num > MAX_MONEY // mult:
        return 0, False
    return num * mult, True


@njit(cache=True)
def _lcm_scale(scale, den):  # pragma: no cover - compiled
    """The scale made a multiple of `den` (-1 past MAX_SCALE)."""
    if den == 1 or scale % den == 0:
        return scale
    if den > MAX_SCALE:
        return -1
    scale = scale // _gcd(scale, den) * den
    return scale if scale <= MAX_SCALE else -1


@njit(cache=True)
def _list(buf, f, field, n, i_rows, nums, dens):  # pragma: no cover - compiled
    """Read field `field`'s array of `n` amounts into nums/dens; False when it is not exactly that."""
    if f[3, field] != ARRAY:
        return False
    lo = f[7, field]
    hi = f[8, field]
    if hi - lo != n or lo < 0 or hi > i_rows.shape[1]:
        return False
    for j in range(n):
        it = lo + j
        num, den, ok = _amount(buf, i_rows[0, it], i_rows[1, it], i_rows[2, it], i_rows[3, it])
        if not ok:
            return False
        nums[j] = num
        dens[j] = den
    return True


@njit(cache=True)
def _event(ev, ne, kind, seat):  # pragma: no cover - compiled
    """Start event row `ne`: its kind and seat, every other key absent. Called with `_KIND[k]`, never a literal:
    Numba compiles a function once per distinct literal argument."""
    ev[ne, E_KIND] = kind
    ev[ne, E_SEAT] = seat
    for c in range(E_ACTION, ev.shape[1]):
        ev[ne, c] = -1


#: rows of the per-document work array: chips behind, live contribution, chips in this round, folded (0/1), the
#: span of the player's hole cards in the card output and how many deals gave them, winnings
W_STACK, W_LIVE, W_ROUND, W_FOLDED, W_HOLE_LO, W_HOLE_HI, W_HOLE_DEALS, W_WON = range(8)
#: rows of the amounts array (in units once `_money` is done): starting stacks, antes, blinds or straddles,
#: finishing stacks (or winnings)
U_STARTING, U_ANTES, U_FORCED, U_FINISHING = range(4)


@njit(cache=True)
def _variant(buf, f, g):  # pragma: no cover - compiled
    """The code (`VARIANT_CODES`) of the variant field `g`, -1 when none the kernel converts."""
    if g < 0 or f[3, g] != STR or f[5, g] - f[4, g] != 2 or f[4, g] < 0 or f[5, g] > buf.shape[0]:
        return -1
    b0 = buf[f[4, g]]
    b1 = buf[f[4, g] + 1]
    if b0 == 78 and b1 == 84:  # NT
        return 0
    if b0 == 70 and b1 == 84:  # FT
        return 1
    if b0 == 80 and b1 == 79:  # PO
        return 2
    if b0 == 70 and b1 == 79:  # FO
        return 3
    return -1


@njit(cache=True)
def _scalar_amount(buf, f, g):  # pragma: no cover - compiled
    """(numerator, denominator, ok) of the scalar amount field `g`."""
    if g < 0 or f[3, g] == ARRAY:
        return 0, 1, False
    return _amount(buf, f[3, g], f[4, g], f[5, g], f[6, g])


@njit(cache=True)
def _money(buf, f, i_rows, a_rows, where, variant, n, chips, a_lo, a_hi, paid, nums, dens,
           scalars):  # pragma: no cover - compiled
    """Read the document's amounts and find its scale (`phh._scale`); write the lists in units into `nums` (rows
    `U_*`) and [small bet, big bet, rake] into `scalars`. Returns the scale, or -1 to decline (an amount of
    another type, too large or too fine, a player the hand does not have, a draw or a bring-in)."""
    size = buf.shape[0]
    if not _list(buf, f, where[KEY_STACKS], n, i_rows, nums[U_STARTING], dens[U_STARTING]):
        return -1
    if where[KEY_ANTES] < 0 or not _list(buf, f, where[KEY_ANTES], n, i_rows, nums[U_ANTES], dens[U_ANTES]):
        return -1
    if where[KEY_BLINDS] < 0 or not _list(buf, f, where[KEY_BLINDS], n, i_rows, nums[U_FORCED], dens[U_FORCED]):
        return -1
    if paid >= 0 and not _list(buf, f, paid, n, i_rows, nums[U_FINISHING], dens[U_FINISHING]):
        return -1
    rows = 4 if paid >= 0 else 3
    small_n, small_d, ok = _scalar_amount(buf, f, where[KEY_SMALL_BET])
    big_n, big_d, ok2 = _scalar_amount(buf, f, where[KEY_BIG_BET])
    fixed = _FIXED_LIMIT[variant] == 1
    if fixed and not (ok and ok2):
        return -1
    rake_n, rake_d, ok3 = _scalar_amount(buf, f, where[KEY_RAKE])
    if where[KEY_RAKE] >= 0 and not ok3:
        return -1
    scale = chips
    for r in range(rows):
        for j in range(n):
            scale = _lcm_scale(scale, dens[r, j])
            if scale < 0:
                return -1
    if fixed:
        scale = _lcm_scale(scale, small_d)
        if scale > 0:
            scale = _lcm_scale(scale, big_d)
    if scale > 0 and where[KEY_RAKE] >= 0:
        scale = _lcm_scale(scale, rake_d)
    for a in range(a_lo, a_hi):
        if scale < 0:
            return -1
        verb = a_rows[0, a]
        if verb == 0 or verb == V_DB:
            continue
        if verb != V_DH and verb != V_F and verb != V_CC and verb != V_CBR and verb != V_SM:
            return -1  # a draw or a bring-in
        if a_rows[1, a] < 1 or a_rows[1, a] > n:
            return -1
        if verb == V_CBR and a_rows[2, a] != 1:
            _num, den, ok = _decimal(buf, max(0, a_rows[4, a]), min(size, a_rows[5, a]), _DIGITS[1])
            if not ok:
                return -1
            scale = _lcm_scale(scale, den)
    if scale < 0:
        return -1
    for r in range(rows):
        for j in range(n):
            v, ok = _units(nums[r, j], dens[r, j], scale)
            if not ok:
                return -1
            nums[r, j] = v
    scalars[0] = scalars[1] = -1
    scalars[2] = 0
    if fixed:
        v, ok = _units(small_n, small_d, scale)
        if not ok:
            return -1
        scalars[0] = v
        v, ok = _units(big_n, big_d, scale)
        if not ok:
            return -1
        scalars[1] = v
    if where[KEY_RAKE] >= 0:
        v, ok = _units(rake_n, rake_d, scale)
        if not ok:
            return -1
        scalars[2] = v
    return scale


@njit(cache=True)
def _seating(f, i_rows, where, n, seat_of):  # pragma: no cover - compiled
    """Fill `seat_of` (by position); returns max_seats, or -1 to decline (seats not n integers 1..10, a seat
    listed twice, a seat_count that is not an integer 0..10, players that are not n strings)."""
    g = where[KEY_SEATS]
    if g >= 0:
        if f[3, g] != ARRAY or f[8, g] - f[7, g] != n or f[7, g] < 0 or f[8, g] > i_rows.shape[1]:
            return -1
        for j in range(n):
            it = f[7, g] + j
            if i_rows[0, it] != INT or i_rows[3, it] < 1 or i_rows[3, it] > 10:
                return -1
            seat_of[j] = i_rows[3, it]
    else:
        for j in range(n):
            seat_of[j] = j + 1
    top = n
    for j in range(n):
        if seat_of[j] > top:
            top = seat_of[j]
        for k in range(j):
            if seat_of[k] == seat_of[j]:
                return -1  # a seat listed twice: the consistency check's to word
    g = where[KEY_SEAT_COUNT]
    if g >= 0:
        if f[3, g] != INT or f[6, g] < 0 or f[6, g] > 10:
            return -1
        if f[6, g] > 0:
            top = f[6, g]
    g = where[KEY_PLAYERS]
    if g >= 0:
        if f[3, g] != ARRAY or f[8, g] - f[7, g] != n or f[7, g] < 0 or f[8, g] > i_rows.shape[1]:
            return -1
        for j in range(n):
            if i_rows[0, f[7, g] + j] != STR:
                return -1
    return top


@njit(cache=True)
def _forced(nums, n, seat_of, w, ev, ne):  # pragma: no cover - compiled
    """The button, the antes and the blinds (`phh._phh_betting`'s start); returns (events, bet faced, dead money,
    the stakes' ante). Heads-up the button, the last player, posts the small blind: the arrays apply reversed."""
    payers = 0
    for j in range(n):
        src = n - 1 - j if n == 2 else j
        w[W_HOLE_DEALS, j] = nums[U_ANTES, src]  # the ante and blind by position, for a moment
        w[W_WON, j] = nums[U_FORCED, src]
        if nums[U_ANTES, src] > 0:
            payers += 1
        w[W_STACK, j] = nums[U_STARTING, j]
        w[W_LIVE, j] = 0
        w[W_ROUND, j] = 0
        w[W_FOLDED, j] = 0
    same = True
    for j in range(1, n):
        if w[W_HOLE_DEALS, j] != w[W_HOLE_DEALS, 0]:
            same = False
    ante = w[W_HOLE_DEALS, 0] if payers >= 2 and same else 0
    _event(ev, ne, _KIND[K_BUTTON], seat_of[n - 1])
    ne += 1
    dead = 0
    for j in range(n):
        due = w[W_HOLE_DEALS, j]
        if due <= 0:
            continue
        amount = min(due, w[W_STACK, j])
        w[W_STACK, j] -= amount
        _event(ev, ne, _KIND[K_POST], seat_of[j])
        if payers == 1:
            dead += amount
            ev[ne, E_POST] = P_DEAD
        else:
            w[W_LIVE, j] += amount
            ev[ne, E_POST] = P_ANTE
        ev[ne, E_AMOUNT] = amount
        if w[W_STACK, j] == 0:
            ev[ne, E_ALL_IN] = 1
        ne += 1
    current = 0
    for k in range(n):
        j = k
        if n == 2:
            j = 1 - k
        due = w[W_WON, j]
        if due <= 0:
            continue
        amount = min(due, w[W_STACK, j])
        w[W_STACK, j] -= amount
        w[W_LIVE, j] += amount
        w[W_ROUND, j] += amount
        if w[W_ROUND, j] > current:
            current = w[W_ROUND, j]
        _event(ev, ne, _KIND[K_POST], seat_of[j])
        if k < 2:
            ev[ne, E_POST] = P_BLIND
            ev[ne, E_BLIND] = k + 1
        else:
            ev[ne, E_POST] = P_STRADDLE
        ev[ne, E_AMOUNT] = amount
        if w[W_STACK, j] == 0:
            ev[ne, E_ALL_IN] = 1
        ne += 1
    for j in range(n):
        w[W_HOLE_DEALS, j] = 0
        w[W_HOLE_LO, j] = 0
        w[W_HOLE_HI, j] = 0
        w[W_WON, j] = 0
    return ne, current, dead, ante


@njit(cache=True)
def _actions(buf, a_rows, a_lo, a_hi, c_code, variant, n, scale, seat_of, w, ev, ne, cards_out, nc,
             current):  # pragma: no cover - compiled
    """Each action as its canonical event, recorded as written, legal or not (`phh._phh_betting`); returns
    (events, cards, where the return goes, showdown, ok). Not ok: a `cbr` below what is in or above the stack,
    an output past its capacity, `sm -` after two deals to the player."""
    size = buf.shape[0]
    n_codes = c_code.shape[0]
    showdown = False
    last_bet = ne
    for a in range(a_lo, a_hi):
        verb = a_rows[0, a]
        if verb == 0:
            continue
        if ne + 1 > ev.shape[0]:
            return ne, nc, last_bet, showdown, False
        i = a_rows[1, a] - 1
        lo = max(0, min(a_rows[7, a], n_codes))
        hi = max(lo, min(a_rows[8, a], n_codes))
        if nc + hi - lo + _HOLE_CARDS[variant] + (w[W_HOLE_HI, i] - w[W_HOLE_LO, i] if i >= 0 else 0) > \
                cards_out.shape[0]:
            return ne, nc, last_bet, showdown, False
        if verb == V_CC:
            owed = current - w[W_ROUND, i]
            _event(ev, ne, _KIND[K_ACTION], seat_of[i])
            if owed <= 0 or w[W_STACK, i] == 0:
                ev[ne, E_ACTION] = A_CHECK
            else:
                amount = owed if owed < w[W_STACK, i] else w[W_STACK, i]
                w[W_STACK, i] -= amount
                w[W_LIVE, i] += amount
                w[W_ROUND, i] += amount
                ev[ne, E_ACTION] = A_CALL
                ev[ne, E_AMOUNT] = amount
                ev[ne, E_TO] = w[W_ROUND, i]
                ev[ne, E_ALL_IN] = 1 if w[W_STACK, i] == 0 else 0
            ne += 1
            last_bet = ne
        elif verb == V_F:
            w[W_FOLDED, i] = 1
            _event(ev, ne, _KIND[K_ACTION], seat_of[i])
            ev[ne, E_ACTION] = A_FOLD
            ne += 1
            last_bet = ne
        elif verb == V_CBR:
            num = a_rows[3, a]
            den = 1
            if a_rows[2, a] != 1:
                num, den, ok = _decimal(buf, max(0, a_rows[4, a]), min(size, a_rows[5, a]), _DIGITS[1])
                if not ok:
                    return ne, nc, last_bet, showdown, False
            target, ok = _units(num, den, scale)
            if not ok:
                return ne, nc, last_bet, showdown, False
            amount = target - w[W_ROUND, i]
            if amount < 0 or amount > w[W_STACK, i]:
                return ne, nc, last_bet, showdown, False  # inconsistent amounts: the reference path words it
            w[W_STACK, i] -= amount
            w[W_LIVE, i] += amount
            w[W_ROUND, i] = target
            if amount == 0:
                name = A_RAISE if current > 0 else A_BET
            else:
                name = A_CALL if target <= current else A_RAISE if current > 0 else A_BET
            if target > current:
                current = target
            _event(ev, ne, _KIND[K_ACTION], seat_of[i])
            ev[ne, E_ACTION] = name
            ev[ne, E_AMOUNT] = amount
            ev[ne, E_TO] = target
            ev[ne, E_ALL_IN] = 1 if w[W_STACK, i] == 0 else 0
            ne += 1
            last_bet = ne
        elif verb in (V_DH, V_DB):
            if verb == V_DB:
                for j in range(n):
                    w[W_ROUND, j] = 0
                current = 0
            _event(ev, ne, _KIND[K_DEAL], seat_of[i] if verb == V_DH else _NONE[0])
            ev[ne, E_TARGET] = 0 if verb == V_DH else 1
            ev[ne, E_CARD_LO] = nc
            for q in range(lo, hi):
                cards_out[nc] = c_code[q]
                nc += 1
            ev[ne, E_CARD_HI] = nc
            if verb == V_DH:
                w[W_HOLE_DEALS, i] += 1
                w[W_HOLE_LO, i] = ev[ne, E_CARD_LO]
                w[W_HOLE_HI, i] = nc
            ne += 1
        else:  # V_SM (draws and bring-ins were declined by `_money`)
            showdown = True
            how = a_rows[6, a]
            if how == SM_MUCK:
                _event(ev, ne, _KIND[K_MUCK], seat_of[i])
                ne += 1
                continue
            _event(ev, ne, _KIND[K_SHOW], seat_of[i])
            ev[ne, E_CARD_LO] = nc
            if how == SM_DEALT:
                if w[W_HOLE_DEALS, i] > 1:
                    return ne, nc, last_bet, showdown, False  # several deals' cards: the reference joins them
                if w[W_HOLE_DEALS, i] == 1 and w[W_HOLE_HI, i] > w[W_HOLE_LO, i]:
                    for q in range(w[W_HOLE_LO, i], w[W_HOLE_HI, i]):
                        cards_out[nc] = cards_out[q]
                        nc += 1
                else:
                    for _ in range(_HOLE_CARDS[variant]):
                        cards_out[nc] = UNKNOWN_CARD
                        nc += 1
            else:
                for q in range(lo, hi):
                    cards_out[nc] = c_code[q]
                    nc += 1
            ev[ne, E_CARD_HI] = nc
            ne += 1
    return ne, nc, last_bet, showdown, True


@njit(cache=True)
def _settle(n, seat_of, w, nums, paid_out, from_finishing, rake, dead, showdown, last_bet, ev,
            ne):  # pragma: no cover - compiled
    """The uncalled bet returned, then (paid out) the rake and the award; returns (events, ok). Not ok unless one
    pot (the contenders all put in the same) is won whole by one of its contenders (`phh._awards`' fast path)."""
    if ne + 3 > ev.shape[0]:
        return ne, False
    top = -1
    folded = 0
    for j in range(n):
        if w[W_FOLDED, j]:
            folded += 1
        elif top < 0 or w[W_LIVE, j] > w[W_LIVE, top]:
            top = j
    returned = 0
    if (paid_out or showdown or n - folded <= 1) and top >= 0:
        second = 0
        for j in range(n):
            if j != top and w[W_LIVE, j] > second:
                second = w[W_LIVE, j]
        if w[W_LIVE, top] > second:
            returned = w[W_LIVE, top] - second
            w[W_STACK, top] += returned
            for r in range(ne, last_bet, -1):  # make room at last_bet
                for c in range(ev.shape[1]):
                    ev[r, c] = ev[r - 1, c]
            _event(ev, last_bet, _KIND[K_RETURN], seat_of[top])
            ev[last_bet, E_AMOUNT] = returned
            ne += 1
    if not paid_out:
        return ne, True
    level = -1
    pot = dead
    for j in range(n):
        put = w[W_LIVE, j] - (returned if j == top else 0)
        pot += put
        if not w[W_FOLDED, j] and put > 0:
            if level < 0:
                level = put
            elif put != level:
                return ne, False  # side pots
    winner = -1
    for j in range(n):
        won = nums[U_FINISHING, j] - w[W_STACK, j] if from_finishing else nums[U_FINISHING, j]
        w[W_WON, j] = won
        if won != 0:
            if winner >= 0:
                return ne, False  # several winners (a split, or a loser's negative winnings)
            winner = j
    if level < 0 or winner < 0 or w[W_WON, winner] <= 0 or w[W_WON, winner] != pot - rake \
            or w[W_FOLDED, winner] or w[W_LIVE, winner] - (returned if winner == top else 0) <= 0:
        return ne, False  # not one pot won whole by one of its contenders: `_awards`' general path
    if rake:
        _event(ev, ne, _KIND[K_RAKE], _NONE[0])
        ev[ne, E_POT] = 0
        ev[ne, E_AMOUNT] = rake
        ne += 1
    _event(ev, ne, _KIND[K_AWARD], seat_of[winner])
    ev[ne, E_POT] = 0
    ev[ne, E_AMOUNT] = w[W_WON, winner]
    ne += 1
    return ne, True


@njit(cache=True)
def convert(buf, doc_rows, f, i_rows, a_rows, c_code, chips_per_unit, h_out, s_out, ev,
            cards_out):  # pragma: no cover - compiled
    """Convert every scanned document it can (see the module docstring); returns (seat rows, event rows, cards)
    written. `doc_rows`, `f`, `i_rows`, `a_rows`, `c_code` are `phh_scan.Scan`'s tables; `chips_per_unit` per
    document (1, or 100 when it names a currency with cents); `h_out` has a row per document, `s_out`, `ev` and
    `cards_out` the capacities the caller gave (a document that would pass one is declined)."""
    n_fields = f.shape[1]
    n_actions = a_rows.shape[1]
    ns = _NONE[1]  # not literals (see `_KIND`)
    ne = _NONE[1]
    nc = _NONE[1]
    where = np.empty(_N_KEYS, dtype=np.int64)
    nums = np.zeros((4, 10), np.int64)
    dens = np.ones((4, 10), np.int64)
    scalars = np.zeros(3, np.int64)
    seat_of = np.zeros(10, np.int64)
    w = np.zeros((8, 10), np.int64)
    for d in range(doc_rows.shape[1]):
        for c in range(h_out.shape[1]):
            h_out[d, c] = 0
        h_out[d, H_SEAT_LO] = h_out[d, H_SEAT_HI] = ns
        h_out[d, H_EV_LO] = h_out[d, H_EV_HI] = ne
        if doc_rows[0, d] == 0 or doc_rows[3, d] == 0:  # not read, or actions not tokenized
            continue
        # fields by key id (a document holds each key at most once: the scanner refuses repeats)
        for k in range(_N_KEYS):
            where[k] = -1
        f_lo = max(0, min(doc_rows[1, d], n_fields))
        f_hi = max(f_lo, min(doc_rows[2, d], n_fields))
        for g in range(f_lo, f_hi):
            if 0 <= f[0, g] < _N_KEYS:
                where[f[0, g]] = g
        variant = _variant(buf, f, where[KEY_VARIANT])
        g = where[KEY_STACKS]
        if variant < 0 or g < 0 or f[3, g] != ARRAY:
            continue
        n = f[8, g] - f[7, g]
        if n < 2 or n > 10:
            continue
        if where[KEY_FINISHING] >= 0 and where[KEY_WINNINGS] >= 0:
            continue  # both: they may disagree (a warning), the reference path's to say
        paid = where[KEY_FINISHING] if where[KEY_FINISHING] >= 0 else where[KEY_WINNINGS]
        a_lo = max(0, min(doc_rows[4, d], n_actions))
        a_hi = max(a_lo, min(doc_rows[5, d], n_actions))
        scale = _money(buf, f, i_rows, a_rows, where, variant, n, chips_per_unit[d], a_lo, a_hi, paid, nums, dens,
                       scalars)
        if scale < 0:
            continue
        max_seats = _seating(f, i_rows, where, n, seat_of)
        if max_seats < 0 or ns + n > s_out.shape[0] or ne + 1 + 2 * n > ev.shape[0]:
            continue
        e0 = ne
        c0 = nc
        ne, current, dead, ante = _forced(nums, n, seat_of, w, ev, ne)
        ne, nc, last_bet, showdown, ok = _actions(buf, a_rows, a_lo, a_hi, c_code, variant, n, scale, seat_of, w,
                                                  ev, ne, cards_out, nc, current)
        if ok:
            ne, ok = _settle(n, seat_of, w, nums, paid >= 0, where[KEY_FINISHING] >= 0, scalars[2], dead, showdown,
                             last_bet, ev, ne)
        if not ok:
            ne = e0
            nc = c0
            continue
        for j in range(n):
            s_out[ns, S_SEAT] = seat_of[j]
            s_out[ns, S_STACK] = nums[U_STARTING, j]
            s_out[ns, S_POSITION] = j
            ns += 1
        h_out[d, H_OK] = 1
        h_out[d, H_N] = n
        h_out[d, H_VARIANT] = variant
        h_out[d, H_SCALE] = scale
        h_out[d, H_CHIP_UNIT] = scale // chips_per_unit[d]
        h_out[d, H_MAX_SEATS] = max_seats
        h_out[d, H_ANTE] = ante
        h_out[d, H_BLINDS] = 2 if nums[U_FORCED, 1] != 0 else 1 if nums[U_FORCED, 0] != 0 else 0
        h_out[d, H_BLIND1] = nums[U_FORCED, 0]
        h_out[d, H_BLIND2] = nums[U_FORCED, 1]
        h_out[d, H_SMALL] = scalars[0]
        h_out[d, H_BIG] = scalars[1]
        h_out[d, H_SEAT_HI] = ns
        h_out[d, H_EV_HI] = ne
    return ns, ne, nc
