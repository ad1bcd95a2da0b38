"""The PokerStars reader's common case as two compiled calls over the file's bytes: lines, then hands -> rows.

Why: `pokerstars.read_pokerstars` reads a hand line by line in Python (a regular expression and a Decimal per
line, a dict per event, jsonschema, then `build_tables`): ~280 µs a hand, most of it Python's own floor.
`lines` cuts the file's bytes into the reference's lines (`split_lines`: CR LF, CR or LF; blanks and tabs cut at
both ends) and marks each; `convert` then reads every hand `pokerstars_tables` gives it (its lines, and what the
reference's own code read of its header and table line in Python: the button and hole-card count) the way
`pokerstars._HandReader` does, and writes hand, seat and event rows into preallocated arrays.

It *declines* (row `H_OK` 0) every hand it would not read exactly as `_HandReader` does, and that hand takes the
reference path, which gives its hand or words its refusal. It reads only: the seat list (a plain `Seat N: NAME
(AMT in chips[, ...])`, seats 1-10, names distinct, none beginning another, none holding ':' or starting or ending
in a blank or a byte beyond ASCII; a cash seat `is sitting out` or `will be allowed to play after the button`,
never named again); posts of small blind, big blind, `small & big blinds` and ante; checks, folds (with or without
cards), calls, bets and raises (`and is all-in`); `Dealt to NAME [cards]`; the flop, turn and river; in five-card
draw its draw (`*** DRAW ***`, `discards N cards [...]`, `stands pat`, the cards received); shows, mucks,
`doesn't show hand`, `is all-in`, chat, `leaves the table`, `is (dis)connected`; `Uncalled bet (AMT) returned to
NAME`; `collected AMT from pot|main pot|side pot[-N]`; the summary's `Total pot`, `Board` and seat lines. It
declines everything else: any line it does not know (sits out, timed out, straddles, caps, run it twice,
cash-outs...), a tournament seat sitting out, a line the reference would refuse (a post after the deal, chips
beyond the stack, a turn that does not repeat the flop...), amounts of more than two decimals or fifteen digits,
a hand the implied-uncalled-return convention would change (it writes a ReaderNote), a hand with no award or no
summary. So it decides nothing the reference would decide differently; `tests/test_pokerstars_tables.py` holds
its tables equal to `build_tables` of the reference's hands.

Amounts are kept in hundredths (a hand's amounts have at most two decimals) and scaled to the hand's own money
scale afterwards (`pokerstars_tables`), once the largest number of decimals of the hand is known.

Safety (hostile input): every line and byte range read is clamped to the data; every output write is checked
against its array's capacity first (a hand that would pass one is declined); amounts past fifteen digits are
declined before they could overflow.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["ACTION_NAMES", "CARD_NAMES", "EV_COLUMNS", "H_COLUMNS", "KIND_NAMES", "POST_NAMES", "TARGET_NAMES",
           "convert", "lines"]

#: line flags (`lines`): a header candidate (begins with "pokerstars " in any case), a line the fast path cannot
#: place (it holds "pokerstars" after its start, or is longer than the limit), blank (`not line or
#: line.isspace()` for an ASCII line), maybe blank (no ASCII character but blanks, and bytes beyond ASCII: only
#: Python's `isspace` can say)
L_HEADER, L_ANOMALY, L_BLANK, L_MAYBE_BLANK = 1, 2, 4, 8

KIND_NAMES = ("button", "post", "action", "return", "deal", "show", "muck", "rake", "award", "kill", "draw")
K_BUTTON, K_POST, K_ACTION, K_RETURN, K_DEAL, K_SHOW, K_MUCK, K_RAKE, K_AWARD, K_KILL, K_DRAW = range(11)
ACTION_NAMES = ("check", "call", "bet", "raise", "fold")
A_CHECK, A_CALL, A_BET, A_RAISE, A_FOLD = range(5)
POST_NAMES = ("ante", "dead", "blind", "missed")
P_ANTE, P_DEAD, P_BLIND, P_MISSED = range(4)
TARGET_NAMES = ("hole", "board")
#: card codes: rank * 4 + suit in these orders; UNKNOWN "??" (a hole card nobody saw)
RANKS = "23456789TJQKA"
SUITS = "cdhs"
CARD_NAMES = (*(r + s for r in RANKS for s in SUITS), "??")
UNKNOWN = 52

#: per hand, in (from `pokerstars_tables`): first line after the header, end of the span, the table line, the
#: button seat, hole cards dealt, a tournament (1) or not, the big blind (`_HandReader.big_blind`, hundredths),
#: five-card draw (1) or a game with a board (0);
#: out: converted (1) or declined (0), largest decimals of the kernel's amounts,
#: the first small blind posted unless all-in (-1: none), the largest ante posted (-1: none), the highest seat,
#: the gcd of the amounts (hundredths), seat rows and event rows [lo, hi)
H_COLUMNS = ("line_lo", "line_hi", "table_line", "button", "hole", "tournament", "big_blind", "draw", "ok", "places",
             "sb_posted", "ante", "highest", "gcd", "seat_lo", "seat_hi", "ev_lo", "ev_hi")
(H_LINE_LO, H_LINE_HI, H_TABLE, H_BUTTON, H_HOLE, H_TOURNAMENT, H_BIG_BLIND, H_DRAW, H_OK, H_PLACES, H_SB, H_ANTE,
 H_HIGHEST, H_GCD, H_SEAT_LO, H_SEAT_HI, H_EV_LO, H_EV_HI) = range(len(H_COLUMNS))
#: per seat row: seat number, stack (hundredths), the player's name as a byte range of the data, status (0 active,
#: 1 sitting out)
S_SEAT, S_STACK, S_NAME_LO, S_NAME_HI, S_STATUS = range(5)
#: per event row (-1: no such key; all_in -1 unset, 1 true; cards (a draw's: its discard) and a draw's receive
#: [lo, hi) of the card output)
EV_COLUMNS = ("kind", "seat", "action", "post", "blind", "amount", "to", "all_in", "target", "card_lo", "card_hi",
              "pot", "receive_lo", "receive_hi")
(E_KIND, E_SEAT, E_ACTION, E_POST, E_BLIND, E_AMOUNT, E_TO, E_ALL_IN, E_TARGET, E_CARD_LO, E_CARD_HI,
 E_POT, E_RECEIVE_LO, E_RECEIVE_HI) = range(len(EV_COLUMNS))

#: integer digits an amount may have (the reference refuses past 10**15; fewer keeps hundredths in int64)
MAX_INT_DIGITS = 15
#: sections of a hand, as `_HandReader.section`
SEC_PREDEAL, SEC_PLAY, SEC_SHOWDOWN, SEC_SUMMARY = range(4)

# byte strings the kernel compares with, as uint8 arrays (Numba reads global arrays as constants)
def _b(text: str) -> np.ndarray:
    return np.frombuffer(text.encode(), dtype=np.uint8).copy()


_POKERSTARS = _b("pokerstars")
_SEAT = _b("Seat ")
_IN_CHIPS = _b(" in chips")
_SITTING_OUT = _b(" is sitting out")
_SITS_OUT = _b("sits out")
_IS_SITTING_OUT = _b("is sitting out")
_HAS_RETURNED = _b("has returned")
_TIMED_OUT = _b("has timed out")
_TIMED_OUT_DISCONNECTED = _b("has timed out while disconnected")
_TIMED_OUT_BEING = _b("has timed out while being disconnected")
_JOINS = _b(" joins the table at seat #")
_SAID_INNER = _b(' said, "')
#: what a player with no seat in the hand may say (`pokerstars.UNSEATED_QUIET`, but `joins the table` and chat)
_UNSEATED = (_b(": sits out"), _b(": is sitting out"), _b(": doesn't show hand"), _b(" leaves the table"),
             _b(" will be allowed to play after the button"), _b(" is disconnected"), _b(" is connected"),
             _b(" has returned"), _b(" has timed out"), _b(" has timed out while disconnected"),
             _b(" has timed out while being disconnected"), _b(" was removed from the table for failing to post"))
#: lines the reference refuses before the summary (`_HandReader.room_line`)
_SUMMARY_PREFIXES = (_b("Total pot "), _b("Board ["), _b("Hand was run twice"), _b("FIRST Board"),
                     _b("SECOND Board"))
_AFTER_BUTTON = _b(" will be allowed to play after the button")
_STARS = _b("*** ")
_DEALT = _b("Dealt to ")
_UNCALLED = _b("Uncalled bet (")
_RETURNED = _b(") returned to ")
_POSTS_SB = _b("posts small blind ")
_POSTS_BB = _b("posts big blind ")
_POSTS_ANTE = _b("posts the ante ")
_POSTS_BOTH = _b("posts small & big blinds ")
_REACHED = _b(" and has reached the ")
_CAP = _b(" cap")
_WINS = _b("wins ")
_FINISHED = _b("finished the tournament")
_REBUYS = _b("re-buys and receives ")
_ADD_ON = _b("takes the add-on and receives ")
_ALL_IN = _b(" and is all-in")
_CHECKS = _b("checks")
_CALLS = _b("calls ")
_BETS = _b("bets ")
_RAISES = _b("raises ")
_TO = _b(" to ")
_FOLDS = _b("folds")
_SHOWS = _b("shows [")
_MUCKS_HAND = _b("mucks hand")
_MUCKS = _b("mucks [")
_NO_SHOW = _b("doesn't show hand")
_IS_ALL_IN = _b("is all-in")
_COLLECTED = _b("collected ")
_FROM = _b(" from ")
_POT = _b("pot")
_MAIN_POT = _b("main pot")
_SIDE_POT = _b("side pot")
_SAID = _b('said, "')
_LEAVES = _b("leaves the table")
_DISCONNECTED = _b("is disconnected")
_CONNECTED = _b("is connected")
_TOTAL = _b("Total pot ")
_RAKE = _b(" | Rake ")
_BOARD = _b("Board [")
_SHOWED = _b("showed [")
_MUCKED = _b("mucked [")
_HOLE_CARDS = _b("HOLE CARDS")
_DEALING = _b("DEALING HANDS")
_FLOP = _b("FLOP")
_TURN = _b("TURN")
_RIVER = _b("RIVER")
_SHOW_DOWN = _b("SHOW DOWN")
_SUMMARY = _b("SUMMARY")
_DRAW = _b("DRAW")
_FIRST_DRAW = _b("FIRST DRAW")
_DISCARDS = _b("discards ")
_CARD = _b(" card")
_STANDS_PAT = _b("stands pat")
_PAT_ON = _b("stands pat on [")
#: at most this many cards a discard without its cards may name (`discards N cards`: N unknown cards written)
MAX_DISCARD = 64
#: rank and suit of each byte (-1: none)
_RANK = np.full(256, -1, dtype=np.int64)
_SUIT = np.full(256, -1, dtype=np.int64)
for _k, _c in enumerate(RANKS):
    _RANK[ord(_c)] = _k
for _k, _c in enumerate(SUITS):
    _SUIT[ord(_c)] = _k
#: the bytes Python's str.isspace() takes among ASCII (str.strip() cuts them too)
_SPACE = np.zeros(256, dtype=np.bool_)
for _c in " \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f":
    _SPACE[ord(_c)] = True
#: ASCII word characters (regex \b)
_WORD = np.zeros(256, dtype=np.bool_)
for _c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_":
    _WORD[ord(_c)] = True
#: the MARKER pattern's name characters [A-Za-z0-9 ]
_MARK = _WORD.copy()
_MARK[ord("_")] = False
_MARK[ord(" ")] = True
_NONE = np.array([-1, 0, 1, 100], dtype=np.int64)


@njit(cache=True)
def lines(data, max_line, starts, ends, flags):  # pragma: no cover - compiled (Python under NUMBA_DISABLE_JIT=1)
    """Cut `data` into lines as `pokerstars.split_lines` does (CR LF, CR and LF end a line; blanks and tabs are
    cut at both ends; the caller has made sure the text holds no U+FEFF), writing each line's [start, end) and
    flags (L_*); returns the number of lines (the arrays hold one more than the file's CR and LF bytes)."""
    n = data.shape[0]
    count = 0
    a = 0
    i = 0
    while True:
        at_end = i >= n
        if at_end or data[i] == 10 or data[i] == 13:
            if count >= starts.shape[0]:
                return -1
            s = a
            e = i
            while s < e and (data[s] == 32 or data[s] == 9):
                s += 1
            while e > s and (data[e - 1] == 32 or data[e - 1] == 9):
                e -= 1
            starts[count] = s
            ends[count] = e
            flags[count] = _flags(data, s, e, max_line)
            count += 1
            if at_end:
                break
            if data[i] == 13 and i + 1 < n and data[i + 1] == 10:
                i += 1
            a = i + 1
        i += 1
    return count


@njit(cache=True)
def _flags(data, s, e, max_line):  # pragma: no cover - compiled
    f = 0
    if e - s > max_line:
        f |= L_ANOMALY
    if e - s >= 11 and _ci_at(data, s, e, _POKERSTARS) and data[s + 10] == 32:
        f |= L_HEADER
    printable = False
    high = False
    for q in range(s, e):
        b = data[q]
        if b >= 128:
            high = True
        elif not _SPACE[b]:
            printable = True
        if q > s and (b == 80 or b == 112) and _ci_at(data, q, e, _POKERSTARS):
            f |= L_ANOMALY
    if not printable:
        f |= L_MAYBE_BLANK if high else L_BLANK
    return f


@njit(cache=True)
def _ci_at(data, q, e, word):  # pragma: no cover - compiled
    """Whether data[q:e] begins with the lower-case ASCII `word` in any case."""
    m = word.shape[0]
    if e - q < m:
        return False
    for j in range(m):
        b = data[q + j]
        if 65 <= b <= 90:
            b += 32
        if b != word[j]:
            return False
    return True


@njit(cache=True)
def _at(data, q, e, word):  # pragma: no cover - compiled
    """Whether data[q:e] begins with `word`."""
    m = word.shape[0]
    if q < 0 or e - q < m:
        return False
    j = 0
    while j < m and data[q + j] == word[j]:
        j += 1
    return j == m


@njit(cache=True)
def _is(data, q, e, word):  # pragma: no cover - compiled
    """Whether data[q:e] is `word`."""
    return e - q == word.shape[0] and _at(data, q, e, word)


@njit(cache=True)
def _same(data, a, b, c, d):  # pragma: no cover - compiled
    if b - a != d - c:
        return False
    j = 0
    while j < b - a and data[a + j] == data[c + j]:
        j += 1
    return j == b - a


@njit(cache=True)
def _amount(data, q, e):  # pragma: no cover - compiled
    """(hundredths, decimals, ok) of data[q:e] read whole as the reader's amount pattern `_AMT` (a symbol $ € £,
    digits in groups of three with commas or none, decimals); not ok for anything else, more than two
    decimals or more than MAX_INT_DIGITS digits (the reference path reads those)."""
    if q >= e:
        return 0, 0, False
    if data[q] == 36:  # $
        q += 1
    elif data[q] == 0xC2 and q + 1 < e and data[q + 1] == 0xA3:  # £
        q += 2
    elif data[q] == 0xE2 and q + 2 < e and data[q + 1] == 0x82 and data[q + 2] == 0xAC:  # €
        q += 3
    run = 0
    while q + run < e and 48 <= data[q + run] <= 57:
        run += 1
    if run == 0:
        return 0, 0, False
    value = np.int64(0)
    digits = run
    for j in range(run):
        value = value * 10 + (data[q + j] - 48)
    p = q + run
    if p < e and data[p] == 44:  # 1,000: a first group of 1-3 digits, then groups of exactly three
        if run > 3:
            return 0, 0, False
        while p < e and data[p] == 44:
            if p + 4 > e:
                return 0, 0, False
            for j in range(1, 4):
                b = data[p + j]
                if not 48 <= b <= 57:
                    return 0, 0, False
                value = value * 10 + (b - 48)
            digits += 3
            p += 4
            if digits > MAX_INT_DIGITS:
                return 0, 0, False
    if digits > MAX_INT_DIGITS:
        return 0, 0, False
    places = 0
    if p < e:
        if data[p] != 46 or p + 1 >= e:
            return 0, 0, False
        p += 1
        while p < e:
            b = data[p]
            if not 48 <= b <= 57:
                return 0, 0, False
            places += 1
            if places > 2:
                return 0, 0, False
            value = value * 10 + (b - 48)
            p += 1
    for _ in range(2 - places):
        value *= 10
    return value, places, True


@njit(cache=True)
def _amount_total(data, q, e):  # pragma: no cover - compiled
    """(hundredths, decimals, end, ok) of the amount the pattern `_AMT` matches first at q, unanchored (the
    summary's `Total pot X...`): the comma-grouped form when it matches, else digits; then decimals if any."""
    p = q
    if p < e and data[p] == 36:
        p += 1
    elif p + 1 < e and data[p] == 0xC2 and data[p + 1] == 0xA3:
        p += 2
    elif p + 2 < e and data[p] == 0xE2 and data[p + 1] == 0x82 and data[p + 2] == 0xAC:
        p += 3
    run = 0
    while p + run < e and 48 <= data[p + run] <= 57:
        run += 1
    if run == 0:
        return 0, 0, q, False
    stop = p + run
    if run <= 3:  # the grouped form, if at least one ",ddd" follows
        while stop + 4 <= e and data[stop] == 44 and 48 <= data[stop + 1] <= 57 and 48 <= data[stop + 2] <= 57 \
                and 48 <= data[stop + 3] <= 57:
            stop += 4
    if stop + 1 < e and data[stop] == 46 and 48 <= data[stop + 1] <= 57:
        stop += 2
        while stop < e and 48 <= data[stop] <= 57:
            stop += 1
    value, places, ok = _amount(data, q, stop)
    return value, places, stop, ok


@njit(cache=True)
def _cards(data, q, e, out, nc):  # pragma: no cover - compiled
    """Read the cards data[q:e] (canonical only: two-character cards separated by single blanks, possibly
    none) into out[nc:]; (new nc, ok)."""
    if q == e:
        return nc, True
    p = q
    while True:
        if p + 2 > e or nc >= out.shape[0]:
            return nc, False
        r = _RANK[data[p]]
        s = _SUIT[data[p + 1]]
        if r < 0 or s < 0:
            return nc, False
        out[nc] = r * 4 + s
        nc += 1
        p += 2
        if p == e:
            return nc, True
        if data[p] != 32:
            return nc, False
        p += 1


@njit(cache=True)
def _close(data, q, e):  # pragma: no cover - compiled
    """Position of the first ']' in data[q:e] (-1: none)."""
    for p in range(q, e):
        if data[p] == 93:
            return p
    return -1


@njit(cache=True)
def _board_is(cards, c0, c1, board, nb):  # pragma: no cover - compiled
    """Whether cards[c0:c1] are the board dealt so far, board[:nb]."""
    if c1 - c0 != nb:
        return False
    j = 0
    while j < nb and cards[c0 + j] == board[j]:
        j += 1
    return j == nb


@njit(cache=True)
def _event(ev, ne, kind, seat):  # pragma: no cover - compiled
    ev[ne, E_KIND] = kind
    ev[ne, E_SEAT] = seat
    for c in range(E_ACTION, ev.shape[1]):
        ev[ne, c] = -1


@njit(cache=True)
def _new_round(round_in, in_round, last_bets, last_in):  # pragma: no cover - compiled
    """`_HandReader.new_round`: the round's chips in become the last round's if any, and the round starts empty."""
    anyb = False
    for o in range(11):
        if in_round[o] and round_in[o] > 0:
            anyb = True
    if anyb:
        for o in range(11):
            last_bets[o] = round_in[o]
            last_in[o] = in_round[o]
    for o in range(11):
        round_in[o] = 0
        in_round[o] = False


@njit(cache=True)
def _unknown(cards, nc, count):  # pragma: no cover - compiled
    """Write `count` unknown cards at cards[nc:]; (new nc, ok)."""
    if nc + count > cards.shape[0]:
        return nc, False
    for _ in range(count):
        cards[nc] = UNKNOWN
        nc += 1
    return nc, True


@njit(cache=True)
def _bet_tail(data, p, e):  # pragma: no cover - compiled
    """(all-in, ok) of what may follow a call's, bet's or raise's amount: ` and is all-in`, then ` and has reached
    the AMT cap` (a capped game's), each or both or neither, and nothing else."""
    all_in = False
    if p < e and _at(data, p, e, _ALL_IN) and (p + _ALL_IN.shape[0] == e or data[p + _ALL_IN.shape[0]] == 32):
        all_in = True
        p += _ALL_IN.shape[0]
    if p == e:
        return all_in, True
    if not _at(data, p, e, _REACHED) or not _at(data, e - _CAP.shape[0], e, _CAP):
        return all_in, False
    _v, _p, ok = _amount(data, p + _REACHED.shape[0], e - _CAP.shape[0])
    return all_in, ok


@njit(cache=True)
def _unseated_quiet(data, s, e):  # pragma: no cover - compiled
    """Whether data[s:e] is what someone with no seat may say (`UNSEATED_QUIET`, `_unseated_chat`): a name of at
    least one character, then one of the endings that move no chips."""
    for suffix in _UNSEATED:
        m = suffix.shape[0]
        if e - m > s and _at(data, e - m, e, suffix):
            return True
    # " joins the table at seat #" and digits
    q = e
    while q > s and 48 <= data[q - 1] <= 57:
        q -= 1
    m = _JOINS.shape[0]
    if q < e and q - m > s and _at(data, q - m, q, _JOINS):
        return True
    # chat: ' said, "' found from the second character on, something after it, and a closing quote
    for q in range(s + 1, e):
        if _at(data, q, e, _SAID_INNER):
            return e - s > q - s + 8 and data[e - 1] == 34
    return False


@njit(cache=True)
def _gcd(a, b):  # pragma: no cover - compiled
    while b:
        a, b = b, a % b
    return a


@njit(cache=True)
def convert(data, starts, ends, flags, h, s_out, ev, cards):  # pragma: no cover - compiled
    """Read every hand of `h` (H_* columns; H_LINE_LO.. given) into seat rows, event rows and card codes,
    hand after hand; returns (seat rows, event rows, cards) written. A declined hand (H_OK 0) writes nothing."""
    n_lines = starts.shape[0]
    ns = 0
    ne = 0
    nc = 0
    for k in range(h.shape[0]):
        h[k, H_OK] = 0
        lo = max(0, min(h[k, H_LINE_LO], n_lines))
        hi = max(lo, min(h[k, H_LINE_HI], n_lines))
        table = h[k, H_TABLE]
        if table < lo or table >= hi:
            continue
        ns2, ne2, nc2, ok = _hand(data, starts, ends, flags, h, k, table + 1, hi, s_out, ns, ev, ne, cards, nc)
        if ok:
            h[k, H_OK] = 1
            h[k, H_SEAT_LO] = ns
            h[k, H_SEAT_HI] = ns2
            h[k, H_EV_LO] = ne
            h[k, H_EV_HI] = ne2
            ns, ne, nc = ns2, ne2, nc2
    return ns, ne, nc


@njit(cache=True)
def _hand(data, starts, ends, flags, h, k, lo, hi, s_out, ns0, ev, ne0, cards, nc0):  # pragma: no cover - compiled
    """One hand's lines lo..hi - 1 after the table line: (seat rows end, event rows end, cards end, ok)."""
    fail = (ns0, ne0, nc0, False)
    button = h[k, H_BUTTON]
    hole_cards = h[k, H_HOLE]
    draw_game = h[k, H_DRAW] == 1
    # a shown hand is remembered for the deal only in games with a board (`_HandReader.remember_hole`)
    remembered = -1 if draw_game else hole_cards
    drawn = False
    last_draw = np.full(11, -1, dtype=np.int64)
    # per seat 0..10 (index = seat number)
    present = np.zeros(11, dtype=np.bool_)
    sitting_out = np.zeros(11, dtype=np.bool_)
    absent = np.zeros(11, dtype=np.bool_)
    timed_out = np.zeros(11, dtype=np.bool_)
    posted = np.zeros(11, dtype=np.bool_)
    tournament = h[k, H_TOURNAMENT] == 1
    name_lo = np.zeros(11, dtype=np.int64)
    name_hi = np.zeros(11, dtype=np.int64)
    stack = np.zeros(11, dtype=np.int64)
    left = np.zeros(11, dtype=np.int64)
    round_in = np.zeros(11, dtype=np.int64)
    in_round = np.zeros(11, dtype=np.bool_)
    last_bets = np.zeros(11, dtype=np.int64)
    last_in = np.zeros(11, dtype=np.bool_)
    folded = np.zeros(11, dtype=np.bool_)
    fold_written = np.zeros(11, dtype=np.bool_)
    hole_row = np.full(11, -1, dtype=np.int64)
    hole_lo = np.full(11, -1, dtype=np.int64)
    hole_hi = np.full(11, -1, dtype=np.int64)
    known_lo = np.full(11, -1, dtype=np.int64)
    known_hi = np.full(11, -1, dtype=np.int64)
    board = np.zeros(64, dtype=np.int64)
    nb = 0
    places = 0
    g = np.int64(0)
    ns = ns0
    ne = ne0
    nc = nc0
    cap_ev = ev.shape[0]
    # -- the seat list ------------------------------------------------------------------------------------
    i = lo
    seats = 0
    highest = 0
    while i < hi:
        f = flags[i]
        if f & L_MAYBE_BLANK:
            return fail
        if f & L_BLANK:
            i += 1
            continue
        s = starts[i]
        e = ends[i]
        if not _at(data, s, e, _SEAT):
            break
        p = s + 5
        seat = 0
        digits = 0
        while p < e and 48 <= data[p] <= 57:
            seat = seat * 10 + (data[p] - 48)
            digits += 1
            p += 1
            if digits > 4:
                return fail
        if digits == 0 or p + 2 > e or data[p] != 58 or data[p + 1] != 32:
            return fail
        nlo = p + 2
        out = False
        away = False
        # a cash seat sitting out (either suffix) is not dealt in; a tournament's is (the reference's case)
        for suffix in (_SITTING_OUT, _AFTER_BUTTON):
            m = suffix.shape[0]
            if not out and e - m > nlo and _at(data, e - m, e, suffix):
                if tournament:
                    return fail
                out = True
                away = suffix.shape[0] == _SITTING_OUT.shape[0]
                e -= m
        if data[e - 1] != 41:  # ')': no other suffix (out of hand: the reference's)
            return fail
        paren = -1
        for q in range(e - 1, nlo - 1, -1):
            if data[q] == 40:
                paren = q
                break
        if paren < nlo + 2 or data[paren - 1] != 32:
            return fail
        nhi = paren - 1
        for q in range(paren + 1, e - 1):
            if data[q] == 41:
                return fail
        # "AMT in chips" then ")" or ", ...)"
        t = paren + 1
        while t < e - 1 and data[t] != 32:
            t += 1
        value, pl, ok = _amount(data, paren + 1, t)
        if not ok or not _at(data, t, e - 1, _IN_CHIPS):
            return fail
        after = t + _IN_CHIPS.shape[0]
        if after != e - 1 and not (after + 2 <= e - 1 and data[after] == 44 and data[after + 1] == 32):
            return fail
        # the name: no blank or non-ASCII byte at its edges (str.strip), no ':'
        if _SPACE[data[nlo]] or _SPACE[data[nhi - 1]] or data[nlo] >= 128 or data[nhi - 1] >= 128:
            return fail
        for q in range(nlo, nhi):
            if data[q] == 58:
                return fail
        if seat < 1 or seat > 10 or present[seat]:
            return fail
        for o in range(1, 11):
            if present[o]:
                # names distinct and none beginning another (`simple_names`)
                la = name_hi[o] - name_lo[o]
                lb = nhi - nlo
                m = min(la, lb)
                if _same(data, name_lo[o], name_lo[o] + m, nlo, nlo + m):
                    return fail
        present[seat] = True
        sitting_out[seat] = out
        absent[seat] = away
        name_lo[seat] = nlo
        name_hi[seat] = nhi
        stack[seat] = value
        left[seat] = value
        places = max(places, pl)
        g = _gcd(g, value)
        seats += 1
        highest = max(highest, seat)
        i += 1
    if seats == 0:
        return fail
    if ne >= cap_ev:
        return fail
    _event(ev, ne, K_BUTTON, button)
    ne += 1
    section = SEC_PREDEAL
    showdown = False
    summary = False
    blind1 = False
    blind2 = False
    sb_posted = np.int64(-1)
    ante = np.int64(-1)
    awards = 0
    returns = 0
    total_pot = np.int64(-1)
    # -- the play -----------------------------------------------------------------------------------------
    while i < hi:
        f = flags[i]
        if f & L_MAYBE_BLANK:
            return fail
        if f & L_BLANK:
            i += 1
            continue
        s = starts[i]
        e = ends[i]
        i += 1
        if ne + 2 >= cap_ev:
            return fail
        if summary:
            if _at(data, s, e, _TOTAL):
                tv, tp, t_end, ok = _amount_total(data, s + _TOTAL.shape[0], e)
                if not ok:
                    return fail
                places = max(places, tp)
                # the first " |" after the total: a rake there if " | Rake AMT" runs to the end or to " |"
                bar = -1
                for q in range(t_end, e - 1):
                    if data[q] == 32 and data[q + 1] == 124:
                        bar = q
                        break
                if bar >= 0 and _at(data, bar, e, _RAKE):
                    r0 = bar + _RAKE.shape[0]
                    r1 = r0
                    while r1 < e and data[r1] != 32:
                        r1 += 1
                    if r1 == e or (r1 + 1 < e and data[r1 + 1] == 124):
                        # the rake when the token is an amount; a token that is none (or one the fast path
                        # does not read) is the reference's to judge
                        rv, rp, ok = _amount(data, r0, r1)
                        if not ok:
                            return fail
                        places = max(places, rp)
                        _event(ev, ne, K_RAKE, -1)
                        ev[ne, E_AMOUNT] = rv
                        g = _gcd(g, rv)
                        ne += 1
                total_pot = tv
                continue
            if _at(data, s, e, _BOARD):
                close = _close(data, s + 7, e)
                if close != e - 1:
                    return fail
                c0 = nc
                nc, ok = _cards(data, s + 7, close, cards, nc)
                if not ok or not _board_is(cards, c0, nc, board, nb):
                    return fail
                nc = c0
                continue
            if _at(data, s, e, _SEAT):
                p = s + 5
                seat = 0
                digits = 0
                while p < e and 48 <= data[p] <= 57:
                    seat = seat * 10 + (data[p] - 48)
                    digits += 1
                    p += 1
                    if digits > 4:
                        return fail
                if digits == 0 or p + 2 > e or data[p] != 58 or data[p + 1] != 32:
                    return fail
                if seat < 1 or seat > 10 or not present[seat]:
                    return fail
                r = p + 2
                ln = name_hi[seat] - name_lo[seat]
                # (rest + " ").startswith(name + " ")
                if not _same(data, r, min(r + ln, e), name_lo[seat], name_hi[seat]):
                    return fail
                tail = r + ln
                if tail < e and data[tail] != 32:
                    return fail
                opened = -1
                for q in range(tail, e):
                    if data[q] == 91:
                        opened = q
                        break
                if opened >= 0:
                    for q in range(tail, e):
                        if _at(data, q, e, _SHOWED) or _at(data, q, e, _MUCKED):
                            if q > tail:
                                prev = data[q - 1]
                                if prev >= 128:
                                    return fail
                                if _WORD[prev]:
                                    continue
                            close = _close(data, q + 8, e)
                            if close < 0:
                                continue
                            c0 = nc
                            nc, ok = _cards(data, q + 8, close, cards, nc)
                            if not ok:
                                return fail
                            if nc - c0 == remembered:
                                known_lo[seat] = c0
                                known_hi[seat] = nc
                            else:
                                nc = c0
                            break
                continue
            return fail
        if _at(data, s, e, _STARS):
            # MARKER: `*** NAME ***REST`, NAME the shortest run of [A-Za-z0-9 ] before " ***"
            p = s + 4
            mark_end = -1
            while p < e:
                if not _MARK[data[p]]:
                    break
                if p > s + 4 and p + 4 <= e and data[p] == 32 and data[p + 1] == 42 and data[p + 2] == 42 \
                        and data[p + 3] == 42:
                    mark_end = p
                    break
                p += 1
            if mark_end < 0:
                return fail
            m0 = s + 4
            rest = mark_end + 4
            if _is(data, m0, mark_end, _HOLE_CARDS) or _is(data, m0, mark_end, _DEALING):
                if section != SEC_PREDEAL:
                    return fail
                section = SEC_PLAY
                for step in range(10):
                    seat = (button + 1 + step) % 10
                    if seat == 0:
                        seat = 10
                    # sorted by (s - button - 1) % 10: seat s = button + 1 + step (mod 10), 10 for 0
                    if not present[seat] or sitting_out[seat]:
                        continue
                    if ne >= cap_ev:
                        return fail
                    _event(ev, ne, K_DEAL, seat)
                    ev[ne, E_TARGET] = 0
                    hole_row[seat] = ne
                    ne += 1
                continue
            if section == SEC_PREDEAL:
                return fail
            if _is(data, m0, mark_end, _FLOP) or _is(data, m0, mark_end, _TURN) or _is(data, m0, mark_end, _RIVER):
                if showdown or draw_game:
                    return fail
                flop = _is(data, m0, mark_end, _FLOP)
                if rest + 1 >= e or data[rest] != 32 or data[rest + 1] != 91:
                    return fail
                close = _close(data, rest + 2, e)
                if close < 0:
                    return fail
                q = rest + 2
                if not flop:
                    # `[board so far] [new]`: the first group must repeat the board
                    c0 = nc
                    nc, ok = _cards(data, q, close, cards, nc)
                    if not ok or not _board_is(cards, c0, nc, board, nb):
                        return fail
                    nc = c0
                    q = close + 1
                    if q + 1 >= e or data[q] != 32 or data[q + 1] != 91:
                        return fail
                    q += 2
                    close = _close(data, q, e)
                if close != e - 1:
                    return fail
                c0 = nc
                nc, ok = _cards(data, q, close, cards, nc)
                if not ok or nb + nc - c0 > board.shape[0]:
                    return fail
                for j in range(c0, nc):
                    board[nb] = cards[j]
                    nb += 1
                _event(ev, ne, K_DEAL, -1)
                ev[ne, E_TARGET] = 1
                ev[ne, E_CARD_LO] = c0
                ev[ne, E_CARD_HI] = nc
                ne += 1
                _new_round(round_in, in_round, last_bets, last_in)
                continue
            if _is(data, m0, mark_end, _DRAW) or _is(data, m0, mark_end, _FIRST_DRAW):
                if not draw_game or drawn:
                    return fail
                drawn = True
                _new_round(round_in, in_round, last_bets, last_in)
                continue
            if _is(data, m0, mark_end, _SHOW_DOWN):
                showdown = True
                section = SEC_SHOWDOWN
                continue
            if _is(data, m0, mark_end, _SUMMARY):
                summary = True
                section = SEC_SUMMARY
                continue
            return fail
        # a seated name that begins the line (at most one: none begins another)
        who = -1
        for o in range(1, 11):
            if present[o] and _same(data, s, min(s + name_hi[o] - name_lo[o], e), name_lo[o], name_hi[o]):
                who = o
                break
        if who >= 0 and sitting_out[who]:
            return fail
        if who < 0:
            if _at(data, s, e, _DEALT):
                r = s + _DEALT.shape[0]
                seat = -1
                for o in range(1, 11):
                    ln = name_hi[o] - name_lo[o]
                    if present[o] and _same(data, r, min(r + ln, e), name_lo[o], name_hi[o]) and r + ln + 1 < e \
                            and data[r + ln] == 32 and data[r + ln + 1] == 91:
                        seat = o
                        break
                if seat < 0 or sitting_out[seat]:
                    return fail
                q = r + name_hi[seat] - name_lo[seat] + 2
                close = _close(data, q, e)
                if close < 0:
                    return fail
                q2 = -1
                if close != e - 1:  # a second group: the cards a draw received, `[kept] [new]`
                    if close + 2 >= e or data[close + 1] != 32 or data[close + 2] != 91:
                        return fail
                    q2 = close + 3
                    if _close(data, q2, e) != e - 1:
                        return fail
                if section != SEC_PLAY and section != SEC_SHOWDOWN:
                    return fail
                if hole_row[seat] < 0:
                    return fail
                c0 = nc
                nc, ok = _cards(data, q, close, cards, nc)
                if not ok:
                    return fail
                if drawn and draw_game:
                    # after the draw a Dealt line changes no hole card: with two groups, the draw's receive
                    nc = c0
                    if q2 >= 0 and last_draw[seat] >= 0:
                        nc, ok = _cards(data, q2, e - 1, cards, nc)
                        if not ok:
                            return fail
                        ev[last_draw[seat], E_RECEIVE_LO] = c0
                        ev[last_draw[seat], E_RECEIVE_HI] = nc
                    continue
                if q2 >= 0:
                    return fail
                hole_lo[seat] = c0
                hole_hi[seat] = nc
                continue
            if _at(data, s, e, _UNCALLED):
                a0 = s + _UNCALLED.shape[0]
                a1 = a0
                while a1 < e and data[a1] != 41:
                    a1 += 1
                if not _at(data, a1, e, _RETURNED):
                    return fail
                value, pl, ok = _amount(data, a0, a1)
                if not ok:
                    return fail
                r = a1 + _RETURNED.shape[0]
                seat = -1
                for o in range(1, 11):
                    if present[o] and _same(data, r, e, name_lo[o], name_hi[o]):
                        seat = o
                if seat < 0 or sitting_out[seat]:
                    return fail
                if section != SEC_PLAY and section != SEC_SHOWDOWN:
                    return fail
                places = max(places, pl)
                before = round_in[seat] if in_round[seat] else 0
                round_in[seat] = max(0, before - value)
                in_round[seat] = True
                left[seat] += value
                _event(ev, ne, K_RETURN, seat)
                ev[ne, E_AMOUNT] = value
                g = _gcd(g, value)
                ne += 1
                returns += 1
                continue
            for prefix in _SUMMARY_PREFIXES:
                if _at(data, s, e, prefix):
                    return fail
            if _unseated_quiet(data, s, e):
                continue
            return fail
        r = s + name_hi[who] - name_lo[who]
        seat = who
        if r + 1 < e and data[r] == 58 and data[r + 1] == 32:
            r += 2
            # -- NAME: verb ...
            verb = -1
            amount = np.int64(-1)
            to = np.int64(-1)
            all_in = False
            if _at(data, r, e, _POSTS_SB) or _at(data, r, e, _POSTS_BB) or _at(data, r, e, _POSTS_ANTE) \
                    or _at(data, r, e, _POSTS_BOTH):
                what = 1 if _at(data, r, e, _POSTS_SB) else 2 if _at(data, r, e, _POSTS_BB) else \
                    3 if _at(data, r, e, _POSTS_BOTH) else 0
                a0 = r + (_POSTS_SB.shape[0] if what == 1 else _POSTS_BB.shape[0] if what == 2 else
                          _POSTS_BOTH.shape[0] if what == 3 else _POSTS_ANTE.shape[0])
                a1 = a0
                while a1 < e and data[a1] != 32:
                    a1 += 1
                if a1 != e:
                    if not _is(data, a1, e, _ALL_IN):
                        return fail
                    all_in = True
                value, pl, ok = _amount(data, a0, a1)
                if not ok:
                    return fail
                if section != SEC_PREDEAL:
                    return fail
                posted[seat] = True
                if not tournament:
                    absent[seat] = False  # in a cash game only a player at the table posts
                if value > left[seat]:
                    return fail
                left[seat] -= value
                if all_in and left[seat] != 0:
                    return fail
                places = max(places, pl)
                if what == 3:
                    # a missed blind's live part (at most the big blind) and the rest dead (`_HandReader.post`)
                    live_part = min(value, h[k, H_BIG_BLIND])
                    _event(ev, ne, K_POST, seat)
                    ev[ne, E_POST] = P_MISSED
                    ev[ne, E_AMOUNT] = live_part
                    if (all_in and value == live_part) or left[seat] == 0:
                        ev[ne, E_ALL_IN] = 1
                    g = _gcd(g, live_part)
                    round_in[seat] = (round_in[seat] if in_round[seat] else 0) + live_part
                    in_round[seat] = True
                    ne += 1
                    if value > live_part:
                        _event(ev, ne, K_POST, seat)
                        ev[ne, E_POST] = P_DEAD
                        ev[ne, E_AMOUNT] = value - live_part
                        if all_in or left[seat] == 0:
                            ev[ne, E_ALL_IN] = 1
                        g = _gcd(g, value - live_part)
                        ne += 1
                    continue
                g = _gcd(g, value)
                _event(ev, ne, K_POST, seat)
                ev[ne, E_AMOUNT] = value
                if all_in or left[seat] == 0:
                    ev[ne, E_ALL_IN] = 1
                live = False
                if what == 0:
                    ante = max(ante, value)
                    ev[ne, E_POST] = P_ANTE
                elif (what == 1 and blind1) or (what == 2 and blind2):
                    if what == 2:
                        ev[ne, E_POST] = P_MISSED
                        live = True
                    else:
                        ev[ne, E_POST] = P_DEAD
                else:
                    if what == 1:
                        blind1 = True
                        if not all_in:
                            sb_posted = value
                    else:
                        blind2 = True
                    ev[ne, E_POST] = P_BLIND
                    ev[ne, E_BLIND] = what
                    live = True
                if live:
                    round_in[seat] = (round_in[seat] if in_round[seat] else 0) + value
                    in_round[seat] = True
                ne += 1
                continue
            if _is(data, r, e, _CHECKS):
                verb = A_CHECK
            elif _is(data, r, e, _FOLDS):
                verb = A_FOLD
            elif _at(data, r, e, _FOLDS) and r + 7 < e and data[r + 5] == 32 and data[r + 6] == 91:
                close = _close(data, r + 7, e)
                if close != e - 1:
                    return fail
                c0 = nc
                nc, ok = _cards(data, r + 7, close, cards, nc)
                if not ok:
                    return fail
                if nc - c0 == remembered:
                    known_lo[seat] = c0
                    known_hi[seat] = nc
                else:
                    nc = c0
                verb = A_FOLD
            elif _at(data, r, e, _CALLS) or _at(data, r, e, _BETS):
                verb = A_CALL if _at(data, r, e, _CALLS) else A_BET
                a0 = r + (_CALLS.shape[0] if verb == A_CALL else _BETS.shape[0])
                a1 = a0
                while a1 < e and data[a1] != 32:
                    a1 += 1
                all_in, ok = _bet_tail(data, a1, e)
                if not ok:
                    return fail
                amount, pl, ok = _amount(data, a0, a1)
                if not ok:
                    return fail
                places = max(places, pl)
            elif _at(data, r, e, _RAISES):
                a0 = r + _RAISES.shape[0]
                a1 = a0
                while a1 < e and data[a1] != 32:
                    a1 += 1
                _by, pl, ok = _amount(data, a0, a1)  # read for its decimals, as the reference
                if not ok or not _at(data, a1, e, _TO):
                    return fail
                places = max(places, pl)
                b0 = a1 + _TO.shape[0]
                b1 = b0
                while b1 < e and data[b1] != 32:
                    b1 += 1
                all_in, ok = _bet_tail(data, b1, e)
                if not ok:
                    return fail
                to, pl, ok = _amount(data, b0, b1)
                if not ok:
                    return fail
                places = max(places, pl)
                verb = A_RAISE
            elif _at(data, r, e, _SHOWS) or _at(data, r, e, _MUCKS):
                shows = _at(data, r, e, _SHOWS)
                close = _close(data, r + 7, e)
                if close < 0:
                    return fail
                # SHOW's optional " (...)" after the cards (a hand's description); a muck has none
                if close != e - 1 and (not shows or close + 3 > e - 1 or data[close + 1] != 32
                                       or data[close + 2] != 40 or data[e - 1] != 41):
                    return fail
                if section != SEC_PLAY and section != SEC_SHOWDOWN:
                    return fail
                c0 = nc
                nc, ok = _cards(data, r + 7, close, cards, nc)
                if not ok:
                    return fail
                if nc - c0 == remembered:
                    known_lo[seat] = c0
                    known_hi[seat] = nc
                if shows:
                    _event(ev, ne, K_SHOW, seat)
                    ev[ne, E_CARD_LO] = c0
                    ev[ne, E_CARD_HI] = nc
                else:
                    _event(ev, ne, K_MUCK, seat)
                ne += 1
                continue
            elif _at(data, r, e, _DISCARDS) or _is(data, r, e, _STANDS_PAT) or _at(data, r, e, _PAT_ON):
                # `_HandReader.draw`: a draw in the draw of five-card draw, by a seat dealt in
                c0 = nc
                if _at(data, r, e, _DISCARDS):
                    p = r + _DISCARDS.shape[0]
                    count = 0
                    digits = 0
                    while p < e and 48 <= data[p] <= 57:
                        count = count * 10 + (data[p] - 48)
                        digits += 1
                        p += 1
                        if digits > 4:
                            return fail
                    if digits == 0 or not _at(data, p, e, _CARD) or count > MAX_DISCARD:
                        return fail
                    p += _CARD.shape[0]
                    if p < e and data[p] == 115:  # cards
                        p += 1
                    if p == e:
                        nc, ok = _unknown(cards, nc, count)
                    elif p + 2 < e and data[p] == 32 and data[p + 1] == 91 and data[e - 1] == 93 \
                            and _close(data, p + 2, e) == e - 1:
                        nc, ok = _cards(data, p + 2, e - 1, cards, nc)
                        ok = ok and nc - c0 == count
                    else:
                        ok = False
                    if not ok:
                        return fail
                elif _at(data, r, e, _PAT_ON) and _close(data, r + _PAT_ON.shape[0], e) != e - 1:
                    return fail
                if not draw_game or section != SEC_PLAY:
                    return fail
                if not drawn:  # no draw marker: the first discard opens the draw
                    drawn = True
                    _new_round(round_in, in_round, last_bets, last_in)
                if hole_row[seat] < 0:
                    return fail
                c1 = nc
                nc, ok = _unknown(cards, nc, c1 - c0)
                if not ok:
                    return fail
                _event(ev, ne, K_DRAW, seat)
                ev[ne, E_CARD_LO] = c0
                ev[ne, E_CARD_HI] = c1
                ev[ne, E_RECEIVE_LO] = c1
                ev[ne, E_RECEIVE_HI] = nc
                last_draw[seat] = ne
                ne += 1
                continue
            elif _is(data, r, e, _MUCKS_HAND):
                if section != SEC_PLAY and section != SEC_SHOWDOWN:
                    return fail
                _event(ev, ne, K_MUCK, seat)
                ne += 1
                continue
            elif _is(data, r, e, _NO_SHOW) or _is(data, r, e, _IS_ALL_IN):
                continue
            elif _is(data, r, e, _SITS_OUT) or _is(data, r, e, _IS_SITTING_OUT):
                # `_HandReader.sits_out`: absent; before the deal, not dealt in unless the seat has posted
                if tournament:
                    return fail
                absent[seat] = True
                if section == SEC_PREDEAL and not posted[seat]:
                    sitting_out[seat] = True
                continue
            else:
                return fail
            # -- an action (`_HandReader.action`)
            if section != SEC_PLAY and section != SEC_SHOWDOWN:
                return fail
            if hole_row[seat] < 0:
                return fail
            timed = timed_out[seat]
            timed_out[seat] = False
            if verb == A_FOLD:
                # the room's fold (a kill): the seat is absent, timed out, or has no chips behind
                folded[seat] = True
                if absent[seat] or timed or (left[seat] == 0 and not fold_written[seat]):
                    _event(ev, ne, K_KILL, seat)
                else:
                    _event(ev, ne, K_ACTION, seat)
                    ev[ne, E_ACTION] = A_FOLD
                fold_written[seat] = True
                ne += 1
                continue
            if verb == A_CHECK:
                _event(ev, ne, K_ACTION, seat)
                ev[ne, E_ACTION] = A_CHECK
                ne += 1
                continue
            absent[seat] = False  # a player who bets is at the table
            before = round_in[seat] if in_round[seat] else 0
            current = np.int64(0)
            for o in range(11):
                if in_round[o] and round_in[o] > current:
                    current = round_in[o]
            if to < 0:
                to = before + amount
            amount = to - before
            if amount <= 0:
                return fail
            if amount > left[seat]:
                return fail
            left[seat] -= amount
            if all_in and left[seat] != 0:
                return fail
            if verb in (A_BET, A_RAISE):
                verb = A_RAISE if current > 0 else A_BET
            round_in[seat] = to
            in_round[seat] = True
            _event(ev, ne, K_ACTION, seat)
            ev[ne, E_ACTION] = verb
            ev[ne, E_AMOUNT] = amount
            ev[ne, E_TO] = to
            if all_in or left[seat] == 0:
                ev[ne, E_ALL_IN] = 1
            g = _gcd(_gcd(g, amount), to)
            ne += 1
            continue
        if r < e and data[r] == 32:
            r += 1
            # -- NAME verb ...
            if _at(data, r, e, _COLLECTED):
                a0 = r + _COLLECTED.shape[0]
                a1 = a0
                while a1 < e and data[a1] != 32:
                    a1 += 1
                if not _at(data, a1, e, _FROM):
                    return fail
                value, pl, ok = _amount(data, a0, a1)
                if not ok:
                    return fail
                p0 = a1 + _FROM.shape[0]
                pot = -1
                if _is(data, p0, e, _POT) or _is(data, p0, e, _MAIN_POT):
                    pot = 0
                elif _is(data, p0, e, _SIDE_POT):
                    pot = 1
                elif _at(data, p0, e, _SIDE_POT) and p0 + 9 < e and data[p0 + 8] == 45:
                    pot = 0
                    for q in range(p0 + 9, e):
                        if not 48 <= data[q] <= 57 or q - p0 - 9 >= 4:
                            return fail
                        pot = pot * 10 + (data[q] - 48)
                    if pot > 10:
                        return fail
                else:
                    return fail
                if section != SEC_PLAY and section != SEC_SHOWDOWN:
                    return fail
                places = max(places, pl)
                _event(ev, ne, K_AWARD, seat)
                ev[ne, E_AMOUNT] = value
                ev[ne, E_POT] = pot
                g = _gcd(g, value)
                awards += 1
                ne += 1
                continue
            if _at(data, r, e, _SAID) and e - r >= 8 and data[e - 1] == 34:
                continue
            if _is(data, r, e, _LEAVES) or _is(data, r, e, _DISCONNECTED) or _is(data, r, e, _CONNECTED):
                continue
            if _is(data, r, e, _IS_SITTING_OUT):
                if tournament:
                    return fail
                absent[seat] = True
                if section == SEC_PREDEAL and not posted[seat]:
                    sitting_out[seat] = True
                continue
            if _is(data, r, e, _HAS_RETURNED):
                absent[seat] = False
                continue
            if _at(data, r, e, _WINS) or _at(data, r, e, _FINISHED) or _at(data, r, e, _REBUYS) \
                    or _at(data, r, e, _ADD_ON):
                continue  # a tournament's results and buys: paid outside the hand
            if _is(data, r, e, _TIMED_OUT) or _is(data, r, e, _TIMED_OUT_DISCONNECTED) \
                    or _is(data, r, e, _TIMED_OUT_BEING):
                timed_out[seat] = True  # the room acts for the seat's next action
                continue
            return fail
        return fail
    # -- finish -------------------------------------------------------------------------------------------
    if section == SEC_PREDEAL or not summary or awards == 0:
        return fail
    live_count = 0
    for o in range(11):
        if hole_row[o] >= 0 and not folded[o]:
            live_count += 1
    if live_count > 1 and not showdown:
        return fail
    # the implied uncalled return (`_HandReader.implied_return`) writes a return and a note: the reference's
    if returns == 0 and total_pot >= 0:
        anyb = False
        for o in range(11):
            if in_round[o] and round_in[o] > 0:
                anyb = True
        top = -1
        top_v = np.int64(-1)
        second = np.int64(0)
        for o in range(11):
            v = round_in[o] if anyb else last_bets[o]
            there = in_round[o] if anyb else last_in[o]
            if there:
                if v > top_v:
                    if top >= 0:
                        second = max(second, top_v)
                    top, top_v = o, v
                else:
                    second = max(second, v)
        if top >= 0 and top_v - second > 0 and not folded[top]:
            put = np.int64(0)
            awarded = np.int64(0)
            rake = np.int64(0)
            for row in range(ne0, ne):
                kind = ev[row, E_KIND]
                if kind in (K_POST, K_ACTION) and ev[row, E_AMOUNT] >= 0:
                    put += ev[row, E_AMOUNT]
                elif kind == K_AWARD:
                    awarded += ev[row, E_AMOUNT]
                elif kind == K_RAKE:
                    rake += ev[row, E_AMOUNT]
            if put - awarded - rake == top_v - second:
                return fail
    # hole cards: as dealt, else as shown (all unknown otherwise)
    for o in range(11):
        row = hole_row[o]
        if row < 0:
            continue
        if hole_lo[o] < 0 and known_lo[o] >= 0:
            hole_lo[o] = known_lo[o]
            hole_hi[o] = known_hi[o]
        if hole_lo[o] < 0:
            if nc + hole_cards > cards.shape[0]:
                return fail
            hole_lo[o] = nc
            for _ in range(hole_cards):
                cards[nc] = UNKNOWN
                nc += 1
            hole_hi[o] = nc
        ev[row, E_CARD_LO] = hole_lo[o]
        ev[row, E_CARD_HI] = hole_hi[o]
    if ns + seats > s_out.shape[0]:
        return fail
    for seat in range(1, 11):
        if present[seat]:
            s_out[ns, S_SEAT] = seat
            s_out[ns, S_STACK] = stack[seat]
            s_out[ns, S_NAME_LO] = name_lo[seat]
            s_out[ns, S_NAME_HI] = name_hi[seat]
            s_out[ns, S_STATUS] = 1 if sitting_out[seat] else 0
            ns += 1
    h[k, H_PLACES] = places
    h[k, H_SB] = sb_posted
    h[k, H_ANTE] = ante
    h[k, H_HIGHEST] = highest
    h[k, H_GCD] = g
    return ns, ne, nc, True
