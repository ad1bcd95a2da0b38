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
from numba import njit

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


@njit(cache=True)
def _gcd(a, b):  # pragma: no cover - compiled (runs as Python under NUMBA_DISABLE_JIT=1)
    while b:
        a, b = b, a % b
    return a


@njit(cache=True)
def _decimal(buf, s, e, max_digits):  # pragma: no cover - compiled
    """(numerator, denominator, ok) of the plain decimal buf[s:e] (digits, one '.', digits; no sign), reduced;
    not ok past `max_digits` digits or for anything else."""
    num = 0
    den = 1
    digits = 0
    dot = False
    if e <= s:
        return 0, 1, False
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
        return _decimal(buf, start, end, _FLOAT_DIGITS)
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
    """Start event row `ne`: its kind and seat, every other key absent."""
    ev[ne, E_KIND] = kind
    ev[ne, E_SEAT] = seat
    for c in range(E_ACTION, ev.shape[1]):
        ev[ne, c] = -1


@njit(cache=True)
def convert(buf, doc_rows, f, i_rows, a_rows, c_code, chips_per_unit, h_out, s_out, ev,
            cards_out):  # pragma: no cover - compiled
    """Convert every scanned document it can (see the module docstring); returns (seat rows, event rows, cards)
    written. `doc_rows`, `f`, `i_rows`, `a_rows`, `c_code` are `phh_scan.Scan`'s tables; `chips_per_unit` per
    document (1, or 100 when it names a currency with cents); `h_out` has a row per document, `s_out`, `ev` and
    `cards_out` the capacities the caller gave (a document that would pass one is declined)."""
    n_docs = doc_rows.shape[1]
    n_fields = f.shape[1]
    n_actions = a_rows.shape[1]
    n_codes = c_code.shape[0]
    size = buf.shape[0]
    ns = 0
    ne = 0
    nc = 0
    where = np.empty(_N_KEYS, dtype=np.int64)
    starting = np.zeros(10, np.int64)
    starting_d = np.ones(10, np.int64)
    antes = np.zeros(10, np.int64)
    antes_d = np.ones(10, np.int64)
    forced = np.zeros(10, np.int64)
    forced_d = np.ones(10, np.int64)
    finishing = np.zeros(10, np.int64)
    finishing_d = np.ones(10, np.int64)
    seat_of = np.zeros(10, np.int64)
    stack = np.zeros(10, np.int64)
    live = np.zeros(10, np.int64)
    round_bet = np.zeros(10, np.int64)
    folded = np.zeros(10, np.bool_)
    ante_u = np.zeros(10, np.int64)
    blind_of = np.zeros(10, np.int64)
    hole_lo = np.zeros(10, np.int64)
    hole_hi = np.zeros(10, np.int64)
    hole_deals = np.zeros(10, np.int64)
    won = np.zeros(10, np.int64)
    order = np.zeros(10, np.int64)
    for d in range(n_docs):
        for c in range(h_out.shape[1]):
            h_out[d, c] = 0
        s0 = ns
        e0 = ne
        c0 = nc
        h_out[d, H_SEAT_LO] = ns
        h_out[d, H_EV_LO] = ne
        h_out[d, H_SEAT_HI] = ns
        h_out[d, H_EV_HI] = ne
        if doc_rows[0, d] == 0 or doc_rows[3, d] == 0:  # not read, or actions not tokenized
            continue
        ok = True
        # -- fields by key id (a document holds each key at most once: the scanner refuses repeats)
        for k in range(_N_KEYS):
            where[k] = -1
        f_lo = max(0, min(doc_rows[1, d], n_fields))
        f_hi = max(f_lo, min(doc_rows[2, d], n_fields))
        for g in range(f_lo, f_hi):
            key = f[0, g]
            if key >= 0 and key < _N_KEYS:
                where[key] = g
        g = where[KEY_VARIANT]
        variant = -1
        if g >= 0 and f[3, g] == STR and f[5, g] - f[4, g] == 2 and f[4, g] >= 0 and f[5, g] <= size:
            b0 = buf[f[4, g]]
            b1 = buf[f[4, g] + 1]
            if b0 == 78 and b1 == 84:  # NT
                variant = 0
            elif b0 == 70 and b1 == 84:  # FT
                variant = 1
            elif b0 == 80 and b1 == 79:  # PO
                variant = 2
            elif b0 == 70 and b1 == 79:  # FO
                variant = 3
        if variant < 0:
            continue
        g = where[KEY_STACKS]
        if g < 0 or f[3, g] != ARRAY:
            continue
        n = f[8, g] - f[7, g]
        if n < 2 or n > 10:
            continue
        if not _list(buf, f, g, n, i_rows, starting, starting_d):
            continue
        g = where[KEY_ANTES]
        if g < 0 or not _list(buf, f, g, n, i_rows, antes, antes_d):
            continue
        g = where[KEY_BLINDS]
        if g < 0 or not _list(buf, f, g, n, i_rows, forced, forced_d):
            continue
        fixed = _FIXED_LIMIT[variant] == 1
        small_n = small_d = big_n = big_d = 0
        small_d = big_d = 1
        if fixed:
            g = where[KEY_SMALL_BET]
            h = where[KEY_BIG_BET]
            if g < 0 or h < 0 or f[3, g] == ARRAY or f[3, h] == ARRAY:
                continue
            small_n, small_d, ok = _amount(buf, f[3, g], f[4, g], f[5, g], f[6, g])
            if not ok:
                continue
            big_n, big_d, ok = _amount(buf, f[3, h], f[4, h], f[5, h], f[6, h])
            if not ok:
                continue
        g = where[KEY_FINISHING]
        h = where[KEY_WINNINGS]
        if g >= 0 and h >= 0:  # both: they may disagree (a warning), the reference path's to say
            continue
        paid_out = g >= 0 or h >= 0
        if paid_out and not _list(buf, f, g if g >= 0 else h, n, i_rows, finishing, finishing_d):
            continue
        from_finishing = g >= 0
        g = where[KEY_RAKE]
        rake_n = 0
        rake_d = 1
        has_rake = g >= 0
        if has_rake:
            if f[3, g] == ARRAY:
                continue
            rake_n, rake_d, ok = _amount(buf, f[3, g], f[4, g], f[5, g], f[6, g])
            if not ok:
                continue
        # -- actions: every player named must be one of the hand's; no draws, no bring-ins
        a_lo = max(0, min(doc_rows[4, d], n_actions))
        a_hi = max(a_lo, min(doc_rows[5, d], n_actions))
        # -- the scale: the lcm of every amount's denominator and the smallest chip's
        scale = chips_per_unit[d]
        for j in range(n):
            scale = _lcm_scale(scale, starting_d[j])
            if scale > 0:
                scale = _lcm_scale(scale, antes_d[j])
            if scale > 0:
                scale = _lcm_scale(scale, forced_d[j])
            if scale > 0 and paid_out:
                scale = _lcm_scale(scale, finishing_d[j])
            if scale < 0:
                break
        if scale > 0 and fixed:
            scale = _lcm_scale(scale, small_d)
            if scale > 0:
                scale = _lcm_scale(scale, big_d)
        if scale > 0 and has_rake:
            scale = _lcm_scale(scale, rake_d)
        for a in range(a_lo, a_hi):
            if scale < 0:
                break
            verb = a_rows[0, a]
            if verb == 0 or verb == V_DB:
                continue
            if verb != V_DH and verb != V_F and verb != V_CC and verb != V_CBR and verb != V_SM:
                ok = False  # a draw or a bring-in
                break
            if a_rows[1, a] < 1 or a_rows[1, a] > n:
                ok = False
                break
            if verb == V_CBR:
                if a_rows[2, a] == 1:
                    if a_rows[3, a] < 0:
                        ok = False
                        break
                else:
                    num, den, ok = _decimal(buf, max(0, a_rows[4, a]), min(size, a_rows[5, a]), 18)
                    if not ok:
                        break
                    scale = _lcm_scale(scale, den)
        if not ok or scale < 0:
            continue
        chip_unit = scale // chips_per_unit[d]
        # -- amounts in units
        for j in range(n):
            v, ok = _units(starting[j], starting_d[j], scale)
            if not ok:
                break
            starting[j] = v
            v, ok = _units(antes[j], antes_d[j], scale)
            if not ok:
                break
            antes[j] = v
            v, ok = _units(forced[j], forced_d[j], scale)
            if not ok:
                break
            forced[j] = v
            if paid_out:
                v, ok = _units(finishing[j], finishing_d[j], scale)
                if not ok:
                    break
                finishing[j] = v
        if not ok:
            continue
        small = big = -1
        if fixed:
            small, ok = _units(small_n, small_d, scale)
            if ok:
                big, ok = _units(big_n, big_d, scale)
            if not ok:
                continue
        rake = 0
        if has_rake:
            rake, ok = _units(rake_n, rake_d, scale)
            if not ok:
                continue
        # -- seats
        g = where[KEY_SEATS]
        if g >= 0:
            if f[3, g] != ARRAY or f[8, g] - f[7, g] != n or f[7, g] < 0 or f[8, g] > i_rows.shape[1]:
                continue
            for j in range(n):
                it = f[7, g] + j
                if i_rows[0, it] != INT or i_rows[3, it] < 1 or i_rows[3, it] > 10:
                    ok = False
                    break
                seat_of[j] = i_rows[3, it]
            if not ok:
                continue
        else:
            for j in range(n):
                seat_of[j] = j + 1
        top_seat = n
        for j in range(n):
            top_seat = max(top_seat, seat_of[j])
            for k in range(j):
                if seat_of[k] == seat_of[j]:
                    ok = False  # a seat listed twice: the consistency check's to word
        if not ok:
            continue
        g = where[KEY_SEAT_COUNT]
        max_seats = top_seat
        if g >= 0:
            if f[3, g] != INT or f[6, g] < 0 or f[6, g] > 10:
                continue
            if f[6, g] > 0:
                max_seats = f[6, g]
        g = where[KEY_PLAYERS]
        if g >= 0:
            if f[3, g] != ARRAY or f[8, g] - f[7, g] != n or f[7, g] < 0 or f[8, g] > i_rows.shape[1]:
                continue
            for j in range(n):
                if i_rows[0, f[7, g] + j] != STR:
                    ok = False
            if not ok:
                continue
        # -- forced bets (heads-up the button, the last player, posts the small blind: arrays reversed)
        payers = 0
        all_same = True
        for j in range(n):
            src = n - 1 - j if n == 2 else j
            ante_u[j] = antes[src]
            blind_of[j] = forced[src]
            if ante_u[j] > 0:
                payers += 1
            stack[j] = starting[j]
            live[j] = 0
            round_bet[j] = 0
            folded[j] = False
            hole_deals[j] = 0
            hole_lo[j] = 0
            hole_hi[j] = 0
        for j in range(1, n):
            if ante_u[j] != ante_u[0]:
                all_same = False
        ante = ante_u[0] if payers >= 2 and all_same else 0
        blinds = 2
        if forced[1] == 0:
            blinds = 1 if forced[0] != 0 else 0
        # capacity: the seats, then each event written below is checked against `ev`'s rows
        if ns + n > s_out.shape[0]:
            continue
        dead = 0
        current = 0
        if ne + 1 + 2 * n > ev.shape[0]:
            continue
        _event(ev, ne, K_BUTTON, seat_of[n - 1])
        ne += 1
        for j in range(n):
            if ante_u[j] <= 0:
                continue
            amount = min(ante_u[j], stack[j])
            stack[j] -= amount
            _event(ev, ne, K_POST, seat_of[j])
            if payers == 1:
                dead += amount
                ev[ne, E_POST] = P_DEAD
            else:
                live[j] += amount
                ev[ne, E_POST] = P_ANTE
            ev[ne, E_AMOUNT] = amount
            if stack[j] == 0:
                ev[ne, E_ALL_IN] = 1
            ne += 1
        if n == 2:
            order[0] = 1
            order[1] = 0
        else:
            for j in range(n):
                order[j] = j
        for k in range(n):
            j = order[k]
            if blind_of[j] <= 0:
                continue
            amount = min(blind_of[j], stack[j])
            stack[j] -= amount
            live[j] += amount
            round_bet[j] += amount
            if round_bet[j] > current:
                current = round_bet[j]
            _event(ev, ne, K_POST, seat_of[j])
            if k < 2:
                ev[ne, E_POST] = P_BLIND
                ev[ne, E_BLIND] = k + 1
            else:
                ev[ne, E_POST] = P_STRADDLE
            ev[ne, E_AMOUNT] = amount
            if stack[j] == 0:
                ev[ne, E_ALL_IN] = 1
            ne += 1
        # -- actions, recorded as written, legal or not
        showdown = False
        last_bet = ne  # the return goes right after the last betting event
        n_folded = 0
        for a in range(a_lo, a_hi):
            verb = a_rows[0, a]
            if verb == 0:
                continue
            if ne + 1 > ev.shape[0]:
                ok = False
                break
            i = a_rows[1, a] - 1
            lo = max(0, min(a_rows[7, a], n_codes))
            hi = max(lo, min(a_rows[8, a], n_codes))
            writes = verb in (V_DH, V_DB) or (verb == V_SM and a_rows[6, a] != SM_MUCK)
            if writes and nc + max(hi - lo, _HOLE_CARDS[variant]) + (hole_hi[i] - hole_lo[i] if verb == V_SM
                                                                     else 0) > cards_out.shape[0]:
                ok = False
                break
            if verb == V_CC:
                owed = current - round_bet[i]
                _event(ev, ne, K_ACTION, seat_of[i])
                if owed <= 0 or stack[i] == 0:
                    ev[ne, E_ACTION] = A_CHECK
                else:
                    amount = owed if owed < stack[i] else stack[i]
                    stack[i] -= amount
                    live[i] += amount
                    round_bet[i] += amount
                    ev[ne, E_ACTION] = A_CALL
                    ev[ne, E_AMOUNT] = amount
                    ev[ne, E_TO] = round_bet[i]
                    ev[ne, E_ALL_IN] = 1 if stack[i] == 0 else 0
                ne += 1
                last_bet = ne
            elif verb == V_F:
                if not folded[i]:
                    folded[i] = True
                    n_folded += 1
                _event(ev, ne, K_ACTION, seat_of[i])
                ev[ne, E_ACTION] = A_FOLD
                ne += 1
                last_bet = ne
            elif verb == V_CBR:
                if a_rows[2, a] == 1:
                    num = a_rows[3, a]
                    den = 1
                else:
                    num, den, ok = _decimal(buf, max(0, a_rows[4, a]), min(size, a_rows[5, a]), 18)
                    if not ok:
                        break
                target, ok = _units(num, den, scale)
                if not ok:
                    break
                amount = target - round_bet[i]
                if amount < 0 or amount > stack[i]:
                    ok = False  # inconsistent amounts: the reference path words it
                    break
                stack[i] -= amount
                live[i] += amount
                round_bet[i] = target
                if amount == 0:
                    name = A_RAISE if current > 0 else A_BET
                else:
                    name = A_CALL if target <= current else A_RAISE if current > 0 else A_BET
                if target > current:
                    current = target
                _event(ev, ne, K_ACTION, seat_of[i])
                ev[ne, E_ACTION] = name
                ev[ne, E_AMOUNT] = amount
                ev[ne, E_TO] = target
                ev[ne, E_ALL_IN] = 1 if stack[i] == 0 else 0
                ne += 1
                last_bet = ne
            elif verb == V_DH:
                _event(ev, ne, K_DEAL, seat_of[i])
                ev[ne, E_TARGET] = 0
                ev[ne, E_CARD_LO] = nc
                for q in range(lo, hi):
                    cards_out[nc] = c_code[q]
                    nc += 1
                ev[ne, E_CARD_HI] = nc
                hole_deals[i] += 1
                hole_lo[i] = ev[ne, E_CARD_LO]
                hole_hi[i] = nc
                ne += 1
            elif verb == V_DB:
                for j in range(n):
                    round_bet[j] = 0
                current = 0
                _event(ev, ne, K_DEAL, -1)
                ev[ne, E_TARGET] = 1
                ev[ne, E_CARD_LO] = nc
                for q in range(lo, hi):
                    cards_out[nc] = c_code[q]
                    nc += 1
                ev[ne, E_CARD_HI] = nc
                ne += 1
            else:  # V_SM (draws and bring-ins were declined above)
                showdown = True
                how = a_rows[6, a]
                if how == SM_MUCK:
                    _event(ev, ne, K_MUCK, seat_of[i])
                    ne += 1
                    continue
                _event(ev, ne, K_SHOW, seat_of[i])
                ev[ne, E_CARD_LO] = nc
                if how == SM_DEALT:
                    if hole_deals[i] > 1:
                        ok = False  # the cards of several deals: the reference path joins them
                        break
                    if hole_deals[i] == 1 and hole_hi[i] > hole_lo[i]:
                        for q in range(hole_lo[i], hole_hi[i]):
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
        if not ok:
            ns = s0
            ne = e0
            nc = c0
            continue
        # -- the end: the uncalled bet, the pot, the award
        if ne + 3 > ev.shape[0]:
            ne = e0
            nc = c0
            continue
        top = -1
        for j in range(n):
            if not folded[j] and (top < 0 or live[j] > live[top]):
                top = j
        returned = 0
        if (paid_out or showdown or n - n_folded <= 1) and top >= 0:
            second = 0
            for j in range(n):
                if j != top and live[j] > second:
                    second = live[j]
            if live[top] > second:
                returned = live[top] - second
                stack[top] += returned
                for r in range(ne, last_bet, -1):  # make room at last_bet
                    for c in range(ev.shape[1]):
                        ev[r, c] = ev[r - 1, c]
                _event(ev, last_bet, K_RETURN, seat_of[top])
                ev[last_bet, E_AMOUNT] = returned
                ne += 1
        if paid_out:
            level = -1
            pot = dead
            for j in range(n):
                put = live[j] - (returned if j == top else 0)
                pot += put
                if not folded[j] and put > 0:
                    if level < 0:
                        level = put
                    elif put != level:
                        ok = False  # side pots
            winner = -1
            for j in range(n):
                w = finishing[j] - stack[j] if from_finishing else finishing[j]
                won[j] = w
                if w != 0:
                    if winner >= 0:
                        ok = False  # several winners (a split, or a loser's negative winnings)
                    winner = j
            if ok and (level < 0 or winner < 0 or won[winner] <= 0 or won[winner] != pot - rake
                       or folded[winner] or live[winner] - (returned if winner == top else 0) <= 0):
                ok = False  # not one pot won whole by one of its contenders: `_awards`' general path
            if not ok:
                ne = e0
                nc = c0
                continue
            if rake:
                _event(ev, ne, K_RAKE, -1)
                ev[ne, E_POT] = 0
                ev[ne, E_AMOUNT] = rake
                ne += 1
            _event(ev, ne, K_AWARD, seat_of[winner])
            ev[ne, E_POT] = 0
            ev[ne, E_AMOUNT] = won[winner]
            ne += 1
        # -- the hand's rows
        for j in range(n):
            s_out[ns, S_SEAT] = seat_of[j]
            s_out[ns, S_STACK] = starting[j]
            s_out[ns, S_POSITION] = j
            ns += 1
        h_out[d, H_OK] = 1
        h_out[d, H_N] = n
        h_out[d, H_VARIANT] = variant
        h_out[d, H_SCALE] = scale
        h_out[d, H_CHIP_UNIT] = chip_unit
        h_out[d, H_MAX_SEATS] = max_seats
        h_out[d, H_ANTE] = ante
        h_out[d, H_BLINDS] = blinds
        h_out[d, H_BLIND1] = forced[0]
        h_out[d, H_BLIND2] = forced[1]
        h_out[d, H_SMALL] = small
        h_out[d, H_BIG] = big
        h_out[d, H_SEAT_HI] = ns
        h_out[d, H_EV_HI] = ne
    return ns, ne, nc
