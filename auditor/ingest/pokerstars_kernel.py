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

The hand is read by a few functions over one state array per hand (`_seat_list`, then per line `_summary_line`,
`_marker`, `_room_line`, `_colon_line`, `_plain_line`, then `_finish`): one function of them all took ~45 s of
CPU to compile, these ~17 s (Numba's typing grows faster than the code), ~0.05 s to load from the cache.

Safety (hostile input): every line and byte range read is clamped to the data; every output write is checked
against its array's capacity first (a hand that would pass one is declined); amounts past fifteen digits are
declined before they could overflow.
"""

from __future__ import annotations

import numpy as np

from auditor.model.compiled import njit

__all__ = ["ACTION_NAMES", "CARD_NAMES", "EV_COLUMNS", "H_COLUMNS", "KIND_NAMES", "POST_NAMES", "TARGET_NAMES",
           "convert", "lines"]

#: line flags (`lines`): a header candidate (begins with "pokerstars " in any case), a line the fast path cannot
#: place (it holds "pokerstars" after its start, "*#" or "* #", U+FEFF, a Kelvin sign or a long s, or is longer
#: than the limit), blank (`not line or
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
#: the event kinds as array items: `_event(ev, ne, _KIND[K_POST], ...)`, not the literal (Numba compiles a function
#: once per distinct literal argument)
_KIND = np.arange(len(KIND_NAMES), dtype=np.int64)

#: rows of a hand's per-seat state (`_hand`'s S), from `hole_row` on initially -1 (R_*: not the seat rows' S_*)
(R_PRESENT, R_SITTING_OUT, R_ABSENT, R_TIMED_OUT, R_POSTED, R_NAME_LO, R_NAME_HI, R_STACK, R_LEFT, R_ROUND_IN,
 R_IN_ROUND, R_LAST_BETS, R_LAST_IN, R_FOLDED, R_FOLD_WRITTEN, R_SHOWN, R_HOLE_ROW, R_HOLE_LO, R_HOLE_HI, R_KNOWN_LO,
 R_KNOWN_HI, R_LAST_DRAW) = range(22)
N_R = 22
#: a hand's scalar state (`_hand`'s V)
(V_PLACES, V_G, V_NS, V_NE, V_NC, V_SECTION, V_SHOWDOWN, V_SUMMARY, V_BLIND1, V_BLIND2, V_SB_POSTED, V_ANTE, V_AWARDS,
 V_RETURNS, V_TOTAL_POT, V_DRAWN, V_NB) = range(17)
N_V = 17


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
            # U+FEFF (the reference strips it from a line's edges), the Kelvin sign and the long s (they fold
            # into the "k" and "s" of "PokerStars")
            if q + 2 < e and ((b == 0xEF and data[q + 1] == 0xBB and data[q + 2] == 0xBF)
                              or (b == 0xE2 and data[q + 1] == 0x84 and data[q + 2] == 0xAA)):
                f |= L_ANOMALY
            if b == 0xC5 and q + 1 < e and data[q + 1] == 0xBF:
                f |= L_ANOMALY
        elif not _SPACE[b]:
            printable = True
            # "PokerStars" after the line's start; "*#" or "* #" (an archive separator may be in the text)
            if q > s and (b == 80 or b == 112) and _ci_at(data, q, e, _POKERSTARS):
                f |= L_ANOMALY
            if b == 42 and q + 1 < e and (data[q + 1] == 35 or (data[q + 1] == 32 and q + 2 < e
                                                                 and data[q + 2] == 35)):
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
def _until(data, q, e, byte):  # pragma: no cover - compiled
    """The first position from q before e that holds `byte`; e if none (where a word or amount ends)."""
    while q < e and data[q] != byte:
        q += 1
    return q


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
def _new_round(S):  # pragma: no cover - compiled
    """`_HandReader.new_round`: the round's chips in become the last round's if any, and the round starts empty."""
    anyb = False
    for o in range(11):
        if S[R_IN_ROUND, o] and S[R_ROUND_IN, o] > 0:
            anyb = True
    if anyb:
        for o in range(11):
            S[R_LAST_BETS, o] = S[R_ROUND_IN, o]
            S[R_LAST_IN, o] = S[R_IN_ROUND, o]
    for o in range(11):
        S[R_ROUND_IN, o] = 0
        S[R_IN_ROUND, o] = False


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
    ns = _NONE[1]  # (array items, not literals: Numba would compile `_hand` once more for a literal 0)
    ne = _NONE[1]
    nc = _NONE[1]
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
def _summary_line(data, s, e, h, k, S, V, board, ev, cards):  # pragma: no cover - compiled
    """A summary line (`_HandReader.summary_line`): False to decline the hand."""
    remembered = -1 if h[k, H_DRAW] == 1 else h[k, H_HOLE]
    if _at(data, s, e, _TOTAL):
        tv, tp, t_end, ok = _amount_total(data, s + _TOTAL.shape[0], e)
        if not ok:
            return False
        V[V_PLACES] = max(V[V_PLACES], tp)
        # the first " |" after the total: a rake there if " | Rake AMT" runs to the end or to " |"
        bar = -1
        for q in range(t_end, e - 1):
            if data[q] == 32 and data[q + 1] == 124:
                bar = q
                break
        if bar >= 0 and _at(data, bar, e, _RAKE):
            r0 = bar + _RAKE.shape[0]
            r1 = _until(data, r0, e, 32)
            if r1 == e or (r1 + 1 < e and data[r1 + 1] == 124):
                # the rake when the token is an amount; a token that is none (or one the fast path
                # does not read) is the reference's to judge
                rv, rp, ok = _amount(data, r0, r1)
                if not ok:
                    return False
                V[V_PLACES] = max(V[V_PLACES], rp)
                _event(ev, V[V_NE], _KIND[K_RAKE], -1)
                ev[V[V_NE], E_AMOUNT] = rv
                V[V_G] = _gcd(V[V_G], rv)
                V[V_NE] += 1
        V[V_TOTAL_POT] = tv
        return True
    if _at(data, s, e, _BOARD):
        close = _close(data, s + 7, e)
        if close != e - 1:
            return False
        c0 = V[V_NC]
        _t, ok = _cards(data, s + 7, close, cards, V[V_NC])
        V[V_NC] = _t
        if not ok or not _board_is(cards, c0, V[V_NC], board, V[V_NB]):
            return False
        V[V_NC] = c0
        return True
    if _at(data, s, e, _SEAT):
        p = s + 5
        seat = np.int64(0)
        digits = 0
        while p < e and 48 <= data[p] <= 57:
            seat = seat * 10 + (data[p] - 48)
            digits += 1
            p += 1
            if digits > 4:
                return False
        if digits == 0 or p + 2 > e or data[p] != 58 or data[p + 1] != 32:
            return False
        if seat < 1 or seat > 10 or not S[R_PRESENT, seat]:
            return False
        r = p + 2
        ln = S[R_NAME_HI, seat] - S[R_NAME_LO, seat]
        # (rest + " ").startswith(name + " ")
        if not _same(data, r, min(r + ln, e), S[R_NAME_LO, seat], S[R_NAME_HI, seat]):
            return False
        tail = r + ln
        if tail < e and data[tail] != 32:
            return False
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
                            return False
                        if _WORD[prev]:
                            continue
                    close = _close(data, q + 8, e)
                    if close < 0:  # no ']' after this one, so none after any later one: no match (linear time)
                        break
                    c0 = V[V_NC]
                    _t, ok = _cards(data, q + 8, close, cards, V[V_NC])
                    V[V_NC] = _t
                    if not ok:
                        return False
                    if V[V_NC] - c0 == remembered:
                        S[R_KNOWN_LO, seat] = c0
                        S[R_KNOWN_HI, seat] = V[V_NC]
                    else:
                        V[V_NC] = c0
                    break
        return True
    return False


@njit(cache=True)
def _marker(data, s, e, h, k, S, V, board, ev, cards):  # pragma: no cover - compiled
    """A `*** NAME ***` line (`_HandReader.marker`): False to decline the hand."""
    button = h[k, H_BUTTON]
    draw_game = h[k, H_DRAW] == 1
    cap_ev = ev.shape[0]
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
        return False
    m0 = s + 4
    rest = mark_end + 4
    if _is(data, m0, mark_end, _HOLE_CARDS) or _is(data, m0, mark_end, _DEALING):
        if V[V_SECTION] != SEC_PREDEAL:
            return False
        V[V_SECTION] = SEC_PLAY
        for step in range(10):
            seat = (button + 1 + step) % 10
            if seat == 0:
                seat = 10
            # sorted by (s - button - 1) % 10: seat s = button + 1 + step (mod 10), 10 for 0
            if not S[R_PRESENT, seat] or S[R_SITTING_OUT, seat]:
                continue
            if V[V_NE] >= cap_ev:
                return False
            _event(ev, V[V_NE], _KIND[K_DEAL], seat)
            ev[V[V_NE], E_TARGET] = 0
            S[R_HOLE_ROW, seat] = V[V_NE]
            V[V_NE] += 1
        return True
    if V[V_SECTION] == SEC_PREDEAL:
        return False
    if _is(data, m0, mark_end, _FLOP) or _is(data, m0, mark_end, _TURN) or _is(data, m0, mark_end, _RIVER):
        if V[V_SHOWDOWN] or draw_game:
            return False
        flop = _is(data, m0, mark_end, _FLOP)
        if rest + 1 >= e or data[rest] != 32 or data[rest + 1] != 91:
            return False
        close = _close(data, rest + 2, e)
        if close < 0:
            return False
        q = rest + 2
        if not flop:
            # `[board so far] [new]`: the first group must repeat the board
            c0 = V[V_NC]
            _t, ok = _cards(data, q, close, cards, V[V_NC])
            V[V_NC] = _t
            if not ok or not _board_is(cards, c0, V[V_NC], board, V[V_NB]):
                return False
            V[V_NC] = c0
            q = close + 1
            if q + 1 >= e or data[q] != 32 or data[q + 1] != 91:
                return False
            q += 2
            close = _close(data, q, e)
        if close != e - 1:
            return False
        c0 = V[V_NC]
        _t, ok = _cards(data, q, close, cards, V[V_NC])
        V[V_NC] = _t
        if not ok or V[V_NB] + V[V_NC] - c0 > board.shape[0]:
            return False
        for j in range(c0, V[V_NC]):
            board[V[V_NB]] = cards[j]
            V[V_NB] += 1
        _event(ev, V[V_NE], _KIND[K_DEAL], -1)
        ev[V[V_NE], E_TARGET] = 1
        ev[V[V_NE], E_CARD_LO] = c0
        ev[V[V_NE], E_CARD_HI] = V[V_NC]
        V[V_NE] += 1
        _new_round(S)
        return True
    if _is(data, m0, mark_end, _DRAW) or _is(data, m0, mark_end, _FIRST_DRAW):
        if not draw_game or V[V_DRAWN]:
            return False
        V[V_DRAWN] = True
        _new_round(S)
        return True
    if _is(data, m0, mark_end, _SHOW_DOWN):
        V[V_SHOWDOWN] = True
        V[V_SECTION] = SEC_SHOWDOWN
        return True
    if _is(data, m0, mark_end, _SUMMARY):
        V[V_SUMMARY] = True
        V[V_SECTION] = SEC_SUMMARY
        return True
    return False


@njit(cache=True)
def _room_line(data, s, e, h, k, S, V, ev, cards):  # pragma: no cover - compiled
    """A line no seated name begins (`_HandReader.room_line`, what players with no seat say): False to decline the
    hand."""
    draw_game = h[k, H_DRAW] == 1
    if _at(data, s, e, _DEALT):
        r = s + _DEALT.shape[0]
        seat = -1
        for o in range(1, 11):
            ln = S[R_NAME_HI, o] - S[R_NAME_LO, o]
            if S[R_PRESENT, o] and _same(data, r, min(r + ln, e), S[R_NAME_LO, o], S[R_NAME_HI, o]) and r + ln + 1 < e \
                    and data[r + ln] == 32 and data[r + ln + 1] == 91:
                seat = o
                break
        if seat < 0 or S[R_SITTING_OUT, seat]:
            return False
        q = r + S[R_NAME_HI, seat] - S[R_NAME_LO, seat] + 2
        close = _close(data, q, e)
        if close < 0:
            return False
        q2 = -1
        if close != e - 1:  # a second group: the cards a draw received, `[kept] [new]`
            if close + 2 >= e or data[close + 1] != 32 or data[close + 2] != 91:
                return False
            q2 = close + 3
            if _close(data, q2, e) != e - 1:
                return False
        if V[V_SECTION] != SEC_PLAY and V[V_SECTION] != SEC_SHOWDOWN:
            return False
        if S[R_HOLE_ROW, seat] < 0:
            return False
        c0 = V[V_NC]
        _t, ok = _cards(data, q, close, cards, V[V_NC])
        V[V_NC] = _t
        if not ok:
            return False
        if V[V_DRAWN] and draw_game:
            # after the draw a Dealt line changes no hole card: with two groups, the draw's receive
            V[V_NC] = c0
            if q2 >= 0 and S[R_LAST_DRAW, seat] >= 0:
                _t, ok = _cards(data, q2, e - 1, cards, V[V_NC])
                V[V_NC] = _t
                if not ok:
                    return False
                ev[S[R_LAST_DRAW, seat], E_RECEIVE_LO] = c0
                ev[S[R_LAST_DRAW, seat], E_RECEIVE_HI] = V[V_NC]
            return True
        if q2 >= 0:
            return False
        S[R_HOLE_LO, seat] = c0
        S[R_HOLE_HI, seat] = V[V_NC]
        return True
    if _at(data, s, e, _UNCALLED):
        a0 = s + _UNCALLED.shape[0]
        a1 = _until(data, a0, e, 41)
        if not _at(data, a1, e, _RETURNED):
            return False
        value, pl, ok = _amount(data, a0, a1)
        if not ok:
            return False
        r = a1 + _RETURNED.shape[0]
        seat = -1
        for o in range(1, 11):
            if S[R_PRESENT, o] and _same(data, r, e, S[R_NAME_LO, o], S[R_NAME_HI, o]):
                seat = o
        if seat < 0 or S[R_SITTING_OUT, seat]:
            return False
        if V[V_SECTION] != SEC_PLAY and V[V_SECTION] != SEC_SHOWDOWN:
            return False
        V[V_PLACES] = max(V[V_PLACES], pl)
        before = S[R_ROUND_IN, seat] if S[R_IN_ROUND, seat] else 0
        S[R_ROUND_IN, seat] = max(0, before - value)
        S[R_IN_ROUND, seat] = True
        S[R_LEFT, seat] += value
        _event(ev, V[V_NE], _KIND[K_RETURN], seat)
        ev[V[V_NE], E_AMOUNT] = value
        V[V_G] = _gcd(V[V_G], value)
        V[V_NE] += 1
        V[V_RETURNS] += 1
        return True
    for prefix in _SUMMARY_PREFIXES:
        if _at(data, s, e, prefix):
            return False
    return _unseated_quiet(data, s, e)


@njit(cache=True)
def _colon_line(data, r, e, seat, h, k, S, V, ev, cards):  # pragma: no cover - compiled
    """`NAME: ...` of a seated NAME (`_HandReader.colon_line` and `action`; r where NAME ends): False to decline the
    hand."""
    draw_game = h[k, H_DRAW] == 1
    tournament = h[k, H_TOURNAMENT] == 1
    remembered = -1 if h[k, H_DRAW] == 1 else h[k, H_HOLE]
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
        a1 = _until(data, a0, e, 32)
        if a1 != e:
            if not _is(data, a1, e, _ALL_IN):
                return False
            all_in = True
        value, pl, ok = _amount(data, a0, a1)
        if not ok:
            return False
        if V[V_SECTION] != SEC_PREDEAL:
            return False
        S[R_POSTED, seat] = True
        if not tournament:
            S[R_ABSENT, seat] = False  # in a cash game only a player at the table posts
        if value > S[R_LEFT, seat]:
            return False
        S[R_LEFT, seat] -= value
        if all_in and S[R_LEFT, seat] != 0:
            return False
        V[V_PLACES] = max(V[V_PLACES], pl)
        if what == 3:
            # a missed blind's live part (at most the big blind) and the rest dead (`_HandReader.post`)
            live_part = min(value, h[k, H_BIG_BLIND])
            _event(ev, V[V_NE], _KIND[K_POST], seat)
            ev[V[V_NE], E_POST] = P_MISSED
            ev[V[V_NE], E_AMOUNT] = live_part
            if (all_in and value == live_part) or S[R_LEFT, seat] == 0:
                ev[V[V_NE], E_ALL_IN] = 1
            V[V_G] = _gcd(V[V_G], live_part)
            S[R_ROUND_IN, seat] = (S[R_ROUND_IN, seat] if S[R_IN_ROUND, seat] else 0) + live_part
            S[R_IN_ROUND, seat] = True
            V[V_NE] += 1
            if value > live_part:
                _event(ev, V[V_NE], _KIND[K_POST], seat)
                ev[V[V_NE], E_POST] = P_DEAD
                ev[V[V_NE], E_AMOUNT] = value - live_part
                if all_in or S[R_LEFT, seat] == 0:
                    ev[V[V_NE], E_ALL_IN] = 1
                V[V_G] = _gcd(V[V_G], value - live_part)
                V[V_NE] += 1
            return True
        V[V_G] = _gcd(V[V_G], value)
        _event(ev, V[V_NE], _KIND[K_POST], seat)
        ev[V[V_NE], E_AMOUNT] = value
        if all_in or S[R_LEFT, seat] == 0:
            ev[V[V_NE], E_ALL_IN] = 1
        live = False
        if what == 0:
            V[V_ANTE] = max(V[V_ANTE], value)
            ev[V[V_NE], E_POST] = P_ANTE
        elif (what == 1 and V[V_BLIND1]) or (what == 2 and V[V_BLIND2]):
            if what == 2:
                ev[V[V_NE], E_POST] = P_MISSED
                live = True
            else:
                ev[V[V_NE], E_POST] = P_DEAD
        else:
            if what == 1:
                V[V_BLIND1] = True
                if not all_in:
                    V[V_SB_POSTED] = value
            else:
                V[V_BLIND2] = True
            ev[V[V_NE], E_POST] = P_BLIND
            ev[V[V_NE], E_BLIND] = what
            live = True
        if live:
            S[R_ROUND_IN, seat] = (S[R_ROUND_IN, seat] if S[R_IN_ROUND, seat] else 0) + value
            S[R_IN_ROUND, seat] = True
        V[V_NE] += 1
        return True
    if _is(data, r, e, _CHECKS):
        verb = A_CHECK
    elif _is(data, r, e, _FOLDS):
        verb = A_FOLD
    elif _at(data, r, e, _FOLDS) and r + 7 < e and data[r + 5] == 32 and data[r + 6] == 91:
        close = _close(data, r + 7, e)
        if close != e - 1:
            return False
        c0 = V[V_NC]
        _t, ok = _cards(data, r + 7, close, cards, V[V_NC])
        V[V_NC] = _t
        if not ok:
            return False
        if V[V_NC] - c0 == remembered:
            S[R_KNOWN_LO, seat] = c0
            S[R_KNOWN_HI, seat] = V[V_NC]
        else:
            V[V_NC] = c0
        verb = A_FOLD
    elif _at(data, r, e, _CALLS) or _at(data, r, e, _BETS):
        verb = A_CALL if _at(data, r, e, _CALLS) else A_BET
        a0 = r + (_CALLS.shape[0] if verb == A_CALL else _BETS.shape[0])
        a1 = _until(data, a0, e, 32)
        all_in, ok = _bet_tail(data, a1, e)
        if not ok:
            return False
        amount, pl, ok = _amount(data, a0, a1)
        if not ok:
            return False
        V[V_PLACES] = max(V[V_PLACES], pl)
    elif _at(data, r, e, _RAISES):
        a0 = r + _RAISES.shape[0]
        a1 = _until(data, a0, e, 32)
        _by, pl, ok = _amount(data, a0, a1)  # read for its decimals, as the reference
        if not ok or not _at(data, a1, e, _TO):
            return False
        V[V_PLACES] = max(V[V_PLACES], pl)
        b0 = a1 + _TO.shape[0]
        b1 = _until(data, b0, e, 32)
        all_in, ok = _bet_tail(data, b1, e)
        if not ok:
            return False
        to, pl, ok = _amount(data, b0, b1)
        if not ok:
            return False
        V[V_PLACES] = max(V[V_PLACES], pl)
        verb = A_RAISE
    elif _at(data, r, e, _SHOWS) or _at(data, r, e, _MUCKS):
        shows = _at(data, r, e, _SHOWS)
        close = _close(data, r + 7, e)
        if close < 0:
            return False
        # SHOW's optional " (...)" after the cards (a hand's description); a muck has none
        if close != e - 1 and (not shows or close + 3 > e - 1 or data[close + 1] != 32
                               or data[close + 2] != 40 or data[e - 1] != 41):
            return False
        if V[V_SECTION] != SEC_PLAY and V[V_SECTION] != SEC_SHOWDOWN:
            return False
        c0 = V[V_NC]
        _t, ok = _cards(data, r + 7, close, cards, V[V_NC])
        V[V_NC] = _t
        if not ok:
            return False
        if V[V_NC] - c0 == remembered:
            S[R_KNOWN_LO, seat] = c0
            S[R_KNOWN_HI, seat] = V[V_NC]
        if shows:
            S[R_SHOWN, seat] = True
            _event(ev, V[V_NE], _KIND[K_SHOW], seat)
            ev[V[V_NE], E_CARD_LO] = c0
            ev[V[V_NE], E_CARD_HI] = V[V_NC]
        else:
            _event(ev, V[V_NE], _KIND[K_MUCK], seat)
        V[V_NE] += 1
        return True
    elif _at(data, r, e, _DISCARDS) or _is(data, r, e, _STANDS_PAT) or _at(data, r, e, _PAT_ON):
        # `_HandReader.draw`: a draw in the draw of five-card draw, by a seat dealt in
        c0 = V[V_NC]
        if _at(data, r, e, _DISCARDS):
            p = r + _DISCARDS.shape[0]
            count = np.int64(0)
            digits = 0
            while p < e and 48 <= data[p] <= 57:
                count = count * 10 + (data[p] - 48)
                digits += 1
                p += 1
                if digits > 4:
                    return False
            if digits == 0 or not _at(data, p, e, _CARD) or count > MAX_DISCARD:
                return False
            p += _CARD.shape[0]
            if p < e and data[p] == 115:  # cards
                p += 1
            if p == e:
                _t, ok = _unknown(cards, V[V_NC], count)
                V[V_NC] = _t
            elif p + 2 < e and data[p] == 32 and data[p + 1] == 91 and data[e - 1] == 93 \
                    and _close(data, p + 2, e) == e - 1:
                _t, ok = _cards(data, p + 2, e - 1, cards, V[V_NC])
                V[V_NC] = _t
                ok = ok and V[V_NC] - c0 == count
            else:
                ok = False
            if not ok:
                return False
        elif _at(data, r, e, _PAT_ON) and _close(data, r + _PAT_ON.shape[0], e) != e - 1:
            return False
        if not draw_game or V[V_SECTION] != SEC_PLAY:
            return False
        if not V[V_DRAWN]:  # no draw marker: the first discard opens the draw
            V[V_DRAWN] = True
            _new_round(S)
        if S[R_HOLE_ROW, seat] < 0:
            return False
        c1 = V[V_NC]
        _t, ok = _unknown(cards, V[V_NC], c1 - c0)
        V[V_NC] = _t
        if not ok:
            return False
        _event(ev, V[V_NE], _KIND[K_DRAW], seat)
        ev[V[V_NE], E_CARD_LO] = c0
        ev[V[V_NE], E_CARD_HI] = c1
        ev[V[V_NE], E_RECEIVE_LO] = c1
        ev[V[V_NE], E_RECEIVE_HI] = V[V_NC]
        S[R_LAST_DRAW, seat] = V[V_NE]
        V[V_NE] += 1
        return True
    elif _is(data, r, e, _MUCKS_HAND):
        if V[V_SECTION] != SEC_PLAY and V[V_SECTION] != SEC_SHOWDOWN:
            return False
        _event(ev, V[V_NE], _KIND[K_MUCK], seat)
        V[V_NE] += 1
        return True
    elif _is(data, r, e, _NO_SHOW) or _is(data, r, e, _IS_ALL_IN):
        return True
    elif _is(data, r, e, _SITS_OUT) or _is(data, r, e, _IS_SITTING_OUT):
        # `_HandReader.sits_out`: absent; before the deal, not dealt in unless the seat has posted
        if tournament:
            return False
        S[R_ABSENT, seat] = True
        if V[V_SECTION] == SEC_PREDEAL and not S[R_POSTED, seat]:
            S[R_SITTING_OUT, seat] = True
        return True
    else:
        return False
    # -- an action (`_HandReader.action`)
    if V[V_SECTION] != SEC_PLAY and V[V_SECTION] != SEC_SHOWDOWN:
        return False
    if S[R_HOLE_ROW, seat] < 0:
        return False
    timed = S[R_TIMED_OUT, seat]
    S[R_TIMED_OUT, seat] = False
    if verb == A_FOLD:
        # the room's fold (a kill) or the player's, as `_HandReader.room_folds` tells them: never after the seat's
        # cards were shown; the room's when the seat is absent or timed out; a seat with no chips behind is left
        # to the reference, which knows whether a forced post or the player's own bet took them
        S[R_FOLDED, seat] = True
        room = False
        if not S[R_SHOWN, seat]:
            if S[R_ABSENT, seat] or timed:
                room = True
            elif S[R_LEFT, seat] == 0 and not S[R_FOLD_WRITTEN, seat]:
                return False
        if room:
            _event(ev, V[V_NE], _KIND[K_KILL], seat)
        else:
            _event(ev, V[V_NE], _KIND[K_ACTION], seat)
            ev[V[V_NE], E_ACTION] = A_FOLD
        S[R_FOLD_WRITTEN, seat] = True
        V[V_NE] += 1
        return True
    if verb == A_CHECK:
        _event(ev, V[V_NE], _KIND[K_ACTION], seat)
        ev[V[V_NE], E_ACTION] = A_CHECK
        V[V_NE] += 1
        return True
    S[R_ABSENT, seat] = False  # a player who bets is at the table
    before = S[R_ROUND_IN, seat] if S[R_IN_ROUND, seat] else 0
    current = np.int64(0)
    for o in range(11):
        if S[R_IN_ROUND, o] and S[R_ROUND_IN, o] > current:
            current = S[R_ROUND_IN, o]
    if to < 0:
        to = before + amount
    amount = to - before
    if amount <= 0:
        return False
    if amount > S[R_LEFT, seat]:
        return False
    S[R_LEFT, seat] -= amount
    if all_in and S[R_LEFT, seat] != 0:
        return False
    if verb in (A_BET, A_RAISE):
        verb = A_RAISE if current > 0 else A_BET
    S[R_ROUND_IN, seat] = to
    S[R_IN_ROUND, seat] = True
    _event(ev, V[V_NE], _KIND[K_ACTION], seat)
    ev[V[V_NE], E_ACTION] = verb
    ev[V[V_NE], E_AMOUNT] = amount
    ev[V[V_NE], E_TO] = to
    if all_in or S[R_LEFT, seat] == 0:
        ev[V[V_NE], E_ALL_IN] = 1
    V[V_G] = _gcd(_gcd(V[V_G], amount), to)
    V[V_NE] += 1
    return True


@njit(cache=True)
def _plain_line(data, r, e, seat, h, k, S, V, ev, cards):  # pragma: no cover - compiled
    """`NAME ...` of a seated NAME (`_HandReader.plain_line`; r where NAME ends): False to decline the hand."""
    tournament = h[k, H_TOURNAMENT] == 1
    r += 1
    # -- NAME verb ...
    if _at(data, r, e, _COLLECTED):
        a0 = r + _COLLECTED.shape[0]
        a1 = _until(data, a0, e, 32)
        if not _at(data, a1, e, _FROM):
            return False
        value, pl, ok = _amount(data, a0, a1)
        if not ok:
            return False
        p0 = a1 + _FROM.shape[0]
        pot = -1
        if _is(data, p0, e, _POT) or _is(data, p0, e, _MAIN_POT):
            pot = 0
        elif _is(data, p0, e, _SIDE_POT):
            pot = 1
        elif _at(data, p0, e, _SIDE_POT) and p0 + 9 < e and data[p0 + 8] == 45:
            pot = np.int64(0)
            for q in range(p0 + 9, e):
                if not 48 <= data[q] <= 57 or q - p0 - 9 >= 4:
                    return False
                pot = pot * 10 + (data[q] - 48)
            if pot > 10:
                return False
        else:
            return False
        if V[V_SECTION] != SEC_PLAY and V[V_SECTION] != SEC_SHOWDOWN:
            return False
        V[V_PLACES] = max(V[V_PLACES], pl)
        _event(ev, V[V_NE], _KIND[K_AWARD], seat)
        ev[V[V_NE], E_AMOUNT] = value
        ev[V[V_NE], E_POT] = pot
        V[V_G] = _gcd(V[V_G], value)
        V[V_AWARDS] += 1
        V[V_NE] += 1
        return True
    if _at(data, r, e, _SAID) and e - r >= 8 and data[e - 1] == 34:
        return True
    if _is(data, r, e, _LEAVES) or _is(data, r, e, _DISCONNECTED) or _is(data, r, e, _CONNECTED):
        return True
    if _is(data, r, e, _IS_SITTING_OUT):
        if tournament:
            return False
        S[R_ABSENT, seat] = True
        if V[V_SECTION] == SEC_PREDEAL and not S[R_POSTED, seat]:
            S[R_SITTING_OUT, seat] = True
        return True
    if _is(data, r, e, _HAS_RETURNED):
        S[R_ABSENT, seat] = False
        return True
    if _at(data, r, e, _WINS) or _at(data, r, e, _FINISHED) or _at(data, r, e, _REBUYS) \
            or _at(data, r, e, _ADD_ON):
        return True  # a tournament's results and buys: paid outside the hand
    if _is(data, r, e, _TIMED_OUT) or _is(data, r, e, _TIMED_OUT_DISCONNECTED) \
            or _is(data, r, e, _TIMED_OUT_BEING):
        S[R_TIMED_OUT, seat] = True  # the room acts for the seat's next action
        return True
    return False


@njit(cache=True)
def _seat_list(data, starts, ends, flags, lo, hi, h, k, S, V):  # pragma: no cover - compiled
    """The seat list from line lo on (`_HandReader.read`'s `Seat N:` lines): (the first line after it, seats,
    highest seat), the line -1 to decline the hand."""
    tournament = h[k, H_TOURNAMENT] == 1
    i = lo
    seats = 0
    highest = 0
    while i < hi:
        f = flags[i]
        if f & L_MAYBE_BLANK:
            return -1, 0, 0
        if f & L_BLANK:
            i += 1
            continue
        s = starts[i]
        e = ends[i]
        if not _at(data, s, e, _SEAT):
            break
        p = s + 5
        seat = np.int64(0)
        digits = 0
        while p < e and 48 <= data[p] <= 57:
            seat = seat * 10 + (data[p] - 48)
            digits += 1
            p += 1
            if digits > 4:
                return -1, 0, 0
        if digits == 0 or p + 2 > e or data[p] != 58 or data[p + 1] != 32:
            return -1, 0, 0
        nlo = p + 2
        out = False
        away = False
        # a cash seat sitting out (either suffix) is not dealt in; a tournament's is (the reference's case)
        for suffix in (_SITTING_OUT, _AFTER_BUTTON):
            m = suffix.shape[0]
            if not out and e - m > nlo and _at(data, e - m, e, suffix):
                if tournament:
                    return -1, 0, 0
                out = True
                away = suffix.shape[0] == _SITTING_OUT.shape[0]
                e -= m
        if data[e - 1] != 41:  # ')': no other suffix (out of hand: the reference's)
            return -1, 0, 0
        paren = -1
        for q in range(e - 1, nlo - 1, -1):
            if data[q] == 40:
                paren = q
                break
        if paren < nlo + 2 or data[paren - 1] != 32:
            return -1, 0, 0
        nhi = paren - 1
        for q in range(paren + 1, e - 1):
            if data[q] == 41:
                return -1, 0, 0
        # "AMT in chips" then ")" or ", ...)"
        t = paren + 1
        while t < e - 1 and data[t] != 32:
            t += 1
        value, pl, ok = _amount(data, paren + 1, t)
        if not ok or not _at(data, t, e - 1, _IN_CHIPS):
            return -1, 0, 0
        after = t + _IN_CHIPS.shape[0]
        if after != e - 1 and not (after + 2 <= e - 1 and data[after] == 44 and data[after + 1] == 32):
            return -1, 0, 0
        # the name: no blank or non-ASCII byte at its edges (str.strip), no ':'
        if _SPACE[data[nlo]] or _SPACE[data[nhi - 1]] or data[nlo] >= 128 or data[nhi - 1] >= 128:
            return -1, 0, 0
        for q in range(nlo, nhi):
            if data[q] == 58:
                return -1, 0, 0
        if seat < 1 or seat > 10 or S[R_PRESENT, seat]:
            return -1, 0, 0
        for o in range(1, 11):
            if S[R_PRESENT, o]:
                # names distinct and none beginning another (`simple_names`)
                la = S[R_NAME_HI, o] - S[R_NAME_LO, o]
                lb = nhi - nlo
                m = min(la, lb)
                if _same(data, S[R_NAME_LO, o], S[R_NAME_LO, o] + m, nlo, nlo + m):
                    return -1, 0, 0
        S[R_PRESENT, seat] = True
        S[R_SITTING_OUT, seat] = out
        S[R_ABSENT, seat] = away
        S[R_NAME_LO, seat] = nlo
        S[R_NAME_HI, seat] = nhi
        S[R_STACK, seat] = value
        S[R_LEFT, seat] = value
        V[V_PLACES] = max(V[V_PLACES], pl)
        V[V_G] = _gcd(V[V_G], value)
        seats += 1
        highest = max(highest, seat)
        i += 1
    return i, seats, highest


@njit(cache=True)
def _finish(h, k, S, V, ev, ne0, cards, s_out, seats, highest):  # pragma: no cover - compiled
    """`_HandReader.finish`: the hand's end checked, its hole cards and seat rows written (False to decline)."""
    hole_cards = h[k, H_HOLE]
    if V[V_SECTION] == SEC_PREDEAL or not V[V_SUMMARY] or V[V_AWARDS] == 0:
        return False
    live_count = 0
    for o in range(11):
        if S[R_HOLE_ROW, o] >= 0 and not S[R_FOLDED, o]:
            live_count += 1
    if live_count > 1 and not V[V_SHOWDOWN]:
        return False
    # the implied uncalled return (`_HandReader.implied_return`) writes a return and a note: the reference's
    if V[V_RETURNS] == 0 and V[V_TOTAL_POT] >= 0:
        anyb = False
        for o in range(11):
            if S[R_IN_ROUND, o] and S[R_ROUND_IN, o] > 0:
                anyb = True
        top = -1
        top_v = np.int64(-1)
        second = np.int64(0)
        for o in range(11):
            v = S[R_ROUND_IN, o] if anyb else S[R_LAST_BETS, o]
            there = S[R_IN_ROUND, o] if anyb else S[R_LAST_IN, o]
            if there:
                if v > top_v:
                    if top >= 0:
                        second = max(second, top_v)
                    top, top_v = o, v
                else:
                    second = max(second, v)
        if top >= 0 and top_v - second > 0 and not S[R_FOLDED, top]:
            put = np.int64(0)
            awarded = np.int64(0)
            rake = np.int64(0)
            for row in range(ne0, V[V_NE]):
                kind = ev[row, E_KIND]
                if kind in (K_POST, K_ACTION) and ev[row, E_AMOUNT] >= 0:
                    put += ev[row, E_AMOUNT]
                elif kind == K_AWARD:
                    awarded += ev[row, E_AMOUNT]
                elif kind == K_RAKE:
                    rake += ev[row, E_AMOUNT]
            if put - awarded - rake == top_v - second:
                return False
    # hole cards: as dealt, else as shown (all unknown otherwise)
    for o in range(11):
        row = S[R_HOLE_ROW, o]
        if row < 0:
            continue
        if S[R_HOLE_LO, o] < 0 and S[R_KNOWN_LO, o] >= 0:
            S[R_HOLE_LO, o] = S[R_KNOWN_LO, o]
            S[R_HOLE_HI, o] = S[R_KNOWN_HI, o]
        if S[R_HOLE_LO, o] < 0:
            if V[V_NC] + hole_cards > cards.shape[0]:
                return False
            S[R_HOLE_LO, o] = V[V_NC]
            for _ in range(hole_cards):
                cards[V[V_NC]] = UNKNOWN
                V[V_NC] += 1
            S[R_HOLE_HI, o] = V[V_NC]
        ev[row, E_CARD_LO] = S[R_HOLE_LO, o]
        ev[row, E_CARD_HI] = S[R_HOLE_HI, o]
    if V[V_NS] + seats > s_out.shape[0]:
        return False
    for seat in range(1, 11):
        if S[R_PRESENT, seat]:
            s_out[V[V_NS], S_SEAT] = seat
            s_out[V[V_NS], S_STACK] = S[R_STACK, seat]
            s_out[V[V_NS], S_NAME_LO] = S[R_NAME_LO, seat]
            s_out[V[V_NS], S_NAME_HI] = S[R_NAME_HI, seat]
            s_out[V[V_NS], S_STATUS] = 1 if S[R_SITTING_OUT, seat] else 0
            V[V_NS] += 1
    h[k, H_PLACES] = V[V_PLACES]
    h[k, H_SB] = V[V_SB_POSTED]
    h[k, H_ANTE] = V[V_ANTE]
    h[k, H_HIGHEST] = highest
    h[k, H_GCD] = V[V_G]
    return True


@njit(cache=True)
def _hand(data, starts, ends, flags, h, k, lo, hi, s_out, ns0, ev, ne0, cards, nc0):  # pragma: no cover - compiled
    """One hand's lines lo..hi - 1 after the table line: (seat rows end, event rows end, cards end, ok)."""
    fail = (ns0, ne0, nc0, False)
    button = h[k, H_BUTTON]
    # the hand's state: a row per seat quantity (index = seat number 0..10), and the scalars (`V_*`), shared
    # with the line readers
    S = np.zeros((N_R, 11), dtype=np.int64)
    S[R_HOLE_ROW:, :] = -1
    V = np.zeros(N_V, dtype=np.int64)
    board = np.zeros(64, dtype=np.int64)
    V[V_NS] = ns0
    V[V_NE] = ne0
    V[V_NC] = nc0
    cap_ev = ev.shape[0]
    i, seats, highest = _seat_list(data, starts, ends, flags, lo, hi, h, k, S, V)
    if i < 0:
        return fail
    if seats == 0:
        return fail
    if V[V_NE] >= cap_ev:
        return fail
    _event(ev, V[V_NE], _KIND[K_BUTTON], button)
    V[V_NE] += 1
    V[V_SECTION] = SEC_PREDEAL
    V[V_SHOWDOWN] = False
    V[V_SUMMARY] = False
    V[V_BLIND1] = False
    V[V_BLIND2] = False
    V[V_SB_POSTED] = -1
    V[V_ANTE] = -1
    V[V_AWARDS] = 0
    V[V_RETURNS] = 0
    V[V_TOTAL_POT] = -1
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
        if V[V_NE] + 2 >= cap_ev:
            return fail
        if V[V_SUMMARY]:
            if not _summary_line(data, s, e, h, k, S, V, board, ev, cards):
                return fail
            continue
        if _at(data, s, e, _STARS):
            if not _marker(data, s, e, h, k, S, V, board, ev, cards):
                return fail
            continue
        # a seated name that begins the line (at most one: none begins another)
        who = -1
        for o in range(1, 11):
            a, b = S[R_NAME_LO, o], S[R_NAME_HI, o]
            if S[R_PRESENT, o] and _same(data, s, min(s + b - a, e), a, b):
                who = o
                break
        if who >= 0 and S[R_SITTING_OUT, who]:
            return fail
        if who < 0:
            if not _room_line(data, s, e, h, k, S, V, ev, cards):
                return fail
            continue
        r = s + S[R_NAME_HI, who] - S[R_NAME_LO, who]
        if r + 1 < e and data[r] == 58 and data[r + 1] == 32:
            if not _colon_line(data, r, e, who, h, k, S, V, ev, cards):
                return fail
            continue
        if r < e and data[r] == 32:
            if not _plain_line(data, r, e, who, h, k, S, V, ev, cards):
                return fail
            continue
        return fail
    if not _finish(h, k, S, V, ev, ne0, cards, s_out, seats, highest):
        return fail
    return V[V_NS], V[V_NE], V[V_NC], True


# --------------------------------------------------------------------------- header timestamps

#: the most timestamps `stamps` records of one header (PokerStars prints one, or two: `... CET [... ET]`)
MAX_STAMPS = 4
#: per header and stamp (`stamps`' out[k, i]): the match's [start, end) in bytes from the rest's start, its year,
#: month, day, hour, minute and second, and its zone's [start, end) (-1 -1: no zone written)
T_COLUMNS = ("start", "end", "year", "month", "day", "hour", "minute", "second", "zone_lo", "zone_hi")
(T_START, T_END, T_YEAR, T_MONTH, T_DAY, T_HOUR, T_MINUTE, T_SECOND, T_ZONE_LO, T_ZONE_HI) = range(len(T_COLUMNS))
#: `stamps`' per-header count when the header is not read here: more than MAX_STAMPS stamps, or a rest longer
#: than the key row
T_DECLINED = -1


@njit(cache=True)
def _number(data, p, e, width):  # pragma: no cover - compiled
    """The value of exactly `width` ASCII digits at data[p:p + width] (all before e), or -1."""
    if p + width > e:
        return -1
    value = np.int64(0)
    for q in range(p, p + width):
        b = data[q]
        if b < 48 or b > 57:
            return -1
        value = value * 10 + (b - 48)
    return value


@njit(cache=True)
def _stamp_at(data, i, e, row):  # pragma: no cover - compiled
    """Whether `pokerstars.STAMP` matches at data[i:e] in ASCII digits; if so its groups into `row` (T_*,
    positions absolute). The pattern's choices are tried in the order Python's backtracking tries them: each
    `\\d{1,2}` two digits before one, `(?: - | )` the three bytes before the one, the first success wins, and the
    optional zone after it is greedy (a `(` if there, then up to five capitals, at least two, then a `)` if
    there)."""
    year = _number(data, i, e, 4)
    if year < 0 or i + 4 >= e or data[i + 4] != 47:
        return False
    p = i + 5
    for mo_w in (2, 1):
        month = _number(data, p, e, mo_w)
        q = p + mo_w
        if month < 0 or q >= e or data[q] != 47:
            continue
        q += 1
        for d_w in (2, 1):
            day = _number(data, q, e, d_w)
            if day < 0:
                continue
            r = q + d_w
            for sep_w in (3, 1):
                if sep_w == 3:
                    if r + 3 > e or data[r] != 32 or data[r + 1] != 45 or data[r + 2] != 32:
                        continue
                elif r >= e or data[r] != 32:
                    continue
                t = r + sep_w
                for h_w in (2, 1):
                    hour = _number(data, t, e, h_w)
                    u = t + h_w
                    if hour < 0 or u >= e or data[u] != 58:
                        continue
                    minute = _number(data, u + 1, e, 2)
                    if minute < 0 or u + 3 >= e or data[u + 3] != 58:
                        continue
                    second = _number(data, u + 4, e, 2)
                    if second < 0:
                        continue
                    end = u + 6
                    row[T_START], row[T_YEAR], row[T_MONTH], row[T_DAY] = i, year, month, day
                    row[T_HOUR], row[T_MINUTE], row[T_SECOND] = hour, minute, second
                    row[T_ZONE_LO], row[T_ZONE_HI] = -1, -1
                    if end < e and data[end] == 32:
                        z = end + 1
                        if z < e and data[z] == 40:
                            z += 1
                        letters = 0
                        while letters < 5 and z + letters < e and 65 <= data[z + letters] <= 90:
                            letters += 1
                        if letters >= 2:
                            row[T_ZONE_LO], row[T_ZONE_HI] = z, z + letters
                            end = z + letters
                            if end < e and data[end] == 41:
                                end += 1
                    row[T_END] = end
                    return True
    return False


@njit(cache=True)
def stamps(data, rest_lo, line_hi, out, counts, keys):  # pragma: no cover - compiled
    """Every header's timestamps as `pokerstars.STAMP.finditer(rest)` finds them in ASCII digits (rest =
    data[rest_lo[k]:line_hi[k]], UTF-8), into out[k, :counts[k]] (T_*, positions from the rest's start), and the
    header's key into keys[k]: its length in the first two bytes, then the rest with every digit inside a stamp
    made '0' (the text the header's other fields are read from: `pokerstars_headers`). counts[k] is T_DECLINED
    for a rest of more than MAX_STAMPS stamps or too long for a key row. (A stamp written in other digits, which
    Python's `\\d` takes, is not found here: `pokerstars_headers` compares the spans with the reference's.)"""
    row = np.empty(len(T_COLUMNS), np.int64)
    width = keys.shape[1] - 2
    for k in range(rest_lo.shape[0]):
        lo = rest_lo[k]
        e = line_hi[k]
        counts[k] = T_DECLINED
        keys[k, :] = 0
        if lo < 0 or e > data.shape[0] or e < lo or e - lo > width:
            continue
        keys[k, 0] = (e - lo) & 255
        keys[k, 1] = (e - lo) >> 8
        for p in range(lo, e):
            keys[k, 2 + p - lo] = data[p]
        n = 0
        i = lo
        while i < e:
            if _stamp_at(data, i, e, row):
                if n >= MAX_STAMPS:
                    n = T_DECLINED
                    break
                for c in range(len(T_COLUMNS)):
                    out[k, n, c] = row[c]
                out[k, n, T_START] -= lo
                out[k, n, T_END] -= lo
                if out[k, n, T_ZONE_LO] >= 0:
                    out[k, n, T_ZONE_LO] -= lo
                    out[k, n, T_ZONE_HI] -= lo
                for p in range(row[T_START], row[T_END]):
                    if 48 <= data[p] <= 57:
                        keys[k, 2 + p - lo] = 48
                n += 1
                i = row[T_END]
            else:
                i += 1
        counts[k] = n
