"""One compiled reader for every text room: a hand's lines -> statements (the dialect's templates) -> canonical rows.

Why one: every room writes the same facts in its own words. The words are the dialect's (`dialect.Program`, run
by `room_match.match`); what the facts mean is poker's, the same in every room, and lives here once: who put
how much in (the betting ledger: a bet, a call, a raise written as "to" a total, all-in, blinds live or dead),
the deal, the draw, the board, the showdown and the awards, and the room's conventions, each switched on by the
dialect and each applied only where its own evidence holds in the file.

A hand is read in two passes over its lines (`convert`): the first recognises every line (`_open`,
`_recognise`: its statement kind, the seat it names, its fields' spans) and finds the most decimals any amount
has (the hand's money scale), the second (`_statement` and the functions it calls) keeps the ledger and writes
the rows. Anything the canonical log cannot hold ends the hand with an error code (`ERRORS`) and its line and
numbers, which the driver (`rooms`) words; anything merely illegal is written as it happened, for the rules to
judge.

Every kernel under `convert` is a `callee` (`model.compiled`: no reference counting, no Python entry point),
and allocates nothing: `convert` allocates the scratch arrays once a batch and hands them down, and no callee
returns an array.

Rows: per hand `H_*`; per seat `S_*` (seat, stack, name span, status); per event `E_*` (the `EV_COLUMNS` the
column-wise readers share, `arrow_columns.event_table`); cards as codes rank * 4 + suit in the canonical order
(`CARD_NAMES`), 52 unknown.
"""

from __future__ import annotations

import numpy as np

from auditor.ingest.room_match import OP_FIELD, OP_LIT, OP_MAYBE, STACK, T_PLAYER, amount_end, at_literal, match
from auditor.model.compiled import callee, njit
from auditor.model.tables import MAX_DIGITS, MAX_PLACES

__all__ = ["CARD_NAMES", "ERRORS", "EV_COLUMNS", "H_COLUMNS", "KINDS", "convert", "lines"]

#: statement kinds the engine reads (a dialect's `lines` keys); the templates only written are `WRITE_ONLY`
KINDS = ("seat", "post_small_blind", "post_big_blind", "post_both_blinds", "post_ante", "post_straddle",
         "post_button_blind", "post_bring_in", "fold", "check", "call", "bet", "raise", "show", "muck", "muck_shown",
         "discard", "stand_pat", "dealt", "redealt", "timed_out", "sits_out", "is_sitting_out",
         "is_sitting_out_plain", "has_returned", "cashed_out", "uncalled", "collect", "marker", "total", "board",
         "summary_seat", "summary_other_seat", "run_twice_summary", "cancelled", "ignored", "quiet", "seat_waiting",
         "summary_award", "unsupported", "all_in", "button")
(K_SEAT, K_POST_SB, K_POST_BB, K_POST_BOTH, K_POST_ANTE, K_POST_STRADDLE, K_POST_BUTTON, K_POST_BRING_IN, K_FOLD,
 K_CHECK, K_CALL, K_BET, K_RAISE, K_SHOW, K_MUCK, K_MUCK_SHOWN, K_DISCARD, K_STAND_PAT, K_DEALT, K_REDEALT,
 K_TIMED_OUT, K_SITS_OUT, K_IS_SITTING_OUT, K_IS_SITTING_OUT_PLAIN, K_HAS_RETURNED, K_CASHED_OUT, K_UNCALLED,
 K_COLLECT, K_MARKER, K_TOTAL, K_BOARD, K_SUMMARY_SEAT, K_SUMMARY_OTHER_SEAT, K_RUN_TWICE_SUMMARY, K_CANCELLED,
 K_IGNORED, K_QUIET, K_SEAT_WAITING, K_SUMMARY_AWARD, K_UNSUPPORTED, K_ALL_IN, K_BUTTON) = range(len(KINDS))
#: (`hand_end`: the line a room closes each hand with, read as a line between hands: `recognise.separator`)
WRITE_ONLY = ("blinds", "hole_cards", "first_board", "next_board", "draw_round", "show_down", "summary", "hand_end")
#: kinds read only inside the summary
SUMMARY_KINDS = (K_TOTAL, K_BOARD, K_SUMMARY_SEAT, K_SUMMARY_OTHER_SEAT, K_RUN_TWICE_SUMMARY, K_SUMMARY_AWARD)
#: the fields the ledger reads, by name (a template's slot of each, -1 where it has none: `dialect.Program`)
#: (the total line's `deduct_1`..`deduct_4`: the house's takes besides the rake, a jackpot or promotion fee, a tax)
FIELDS = ("player", "amount", "by", "to", "all_in", "cards", "count", "shown", "kept", "seat", "stack", "status",
          "status_text", "status_tail", "pot", "numbered", "side", "name", "rest", "total", "raked", "rake",
          "deduct_1", "deduct_2", "deduct_3", "deduct_4", "board", "roles", "result", "dead")
(F_PLAYER, F_AMOUNT, F_BY, F_TO, F_ALL_IN, F_CARDS, F_COUNT, F_SHOWN, F_KEPT, F_SEAT, F_STACK, F_STATUS,
 F_STATUS_TEXT, F_STATUS_TAIL, F_POT, F_NUMBERED, F_SIDE, F_NAME, F_REST, F_TOTAL, F_RAKED, F_RAKE, F_DEDUCT_1,
 F_DEDUCT_2, F_DEDUCT_3, F_DEDUCT_4, F_BOARD, F_ROLES, F_RESULT, F_DEAD) = range(len(FIELDS))

KIND_NAMES = ("button", "post", "action", "return", "deal", "show", "muck", "rake", "award", "kill", "draw")
E_BUTTON, E_POST, E_ACTION, E_RETURN, E_DEAL, E_SHOW, E_MUCK, E_RAKE, E_AWARD, E_KILL, E_DRAW = range(11)
ACTION_NAMES = ("check", "call", "bet", "raise", "fold")
A_CHECK, A_CALL, A_BET, A_RAISE, A_FOLD = range(5)
POST_NAMES = ("ante", "dead", "blind", "missed", "straddle")
P_ANTE, P_DEAD, P_BLIND, P_MISSED, P_STRADDLE = range(5)
TARGET_NAMES = ("hole", "board")
CARD_NAMES = (*(r + s for r in "23456789TJQKA" for s in "cdhs"), "??")
UNKNOWN = 52

EV_COLUMNS = ("kind", "seat", "action", "post", "blind", "amount", "to", "all_in", "target", "card_lo", "card_hi",
              "pot", "receive_lo", "receive_hi")
(C_KIND, C_SEAT, C_ACTION, C_POST, C_BLIND, C_AMOUNT, C_TO, C_ALL_IN, C_TARGET, C_CARD_LO, C_CARD_HI, C_POT,
 C_RECEIVE_LO, C_RECEIVE_HI) = range(len(EV_COLUMNS))
#: per seat row out: seat, stack, name [lo, hi) in the data, sitting out (1) or not
S_SEAT, S_STACK, S_NAME_LO, S_NAME_HI, S_STATUS = range(5)

#: per hand: in (from the driver: the header's and table line's facts) then out
H_COLUMNS = ("line_lo", "line_hi", "button", "hole", "tournament", "older", "draw", "fixed", "small", "small_places",
             "big", "big_places", "kills", "implied_return", "deal_mode", "return_mode", "summary_awards",
             "silent_out", "new_cards", "no_summary", "rake_derived", "predeal_fold_out",
             "ok", "error", "error_line", "arg0", "arg1", "arg2", "arg3", "arg4", "places", "sb_posted", "ante",
             "highest", "seat_lo", "seat_hi", "ev_lo", "ev_hi", "returned", "silenced", "raked", "blinds_order")
(H_LINE_LO, H_LINE_HI, H_BUTTON, H_HOLE, H_TOURNAMENT, H_OLDER, H_DRAW, H_FIXED, H_SMALL, H_SMALL_PLACES, H_BIG,
 H_BIG_PLACES, H_KILLS, H_IMPLIED, H_DEAL_MODE, H_RETURN_MODE, H_SUMMARY_AWARDS, H_SILENT_OUT, H_NEW_CARDS,
 H_NO_SUMMARY, H_RAKE_DERIVED, H_PREDEAL_FOLD_OUT, H_OK, H_ERROR, H_ERROR_LINE, H_ARG0, H_ARG1, H_ARG2, H_ARG3,
 H_ARG4, H_PLACES, H_SB, H_ANTE, H_HIGHEST, H_SEAT_LO, H_SEAT_HI, H_EV_LO, H_EV_HI, H_RETURNED, H_SILENCED,
 H_RAKED, H_BLINDS_ORDER) = range(len(H_COLUMNS))

#: the values of the conventions `hole_cards_marker` and `uncalled_return` (`H_DEAL_MODE`, `H_RETURN_MODE`): the
#: marker deals, or the blinds follow it, or a `Dealt to` line before it deals; a return is read where written,
#: or placed in its betting round, or is in the award of the bettor (none written), or never written (derived)
DEAL_MODES = ("deals", "before_blinds", "after_the_deal", "none")
#: the values of `summary_section` (`H_NO_SUMMARY`)
SUMMARY_MODES = ("written", "none", "none_and_no_showdown_marker", "written_no_showdown_marker")
D_MARKER, D_BEFORE_BLINDS, D_AFTER_THE_DEAL, D_NO_MARKER = range(4)
#: the values of `board_lines` (`H_NEW_CARDS`): a street's line repeats the board in brackets then its new cards, or
#: gives its new cards alone, or the whole board with no brackets (`Turn  Ah - 6c - Jd - 3c`)
BOARD_MODES = ("repeat_the_board", "new_cards", "whole_board")
B_REPEAT, B_NEW_CARDS, B_WHOLE = range(3)
#: the values of `blinds_order` (`H_BLINDS_ORDER`): the blind lines in the order posted, or heads-up the big
#: blind's line written before the small blind's (read in the order posted, the small blind first)
BLINDS_ORDERS = ("as_posted", "big_blind_first_heads_up")
RETURN_MODES = ("end_of_its_round", "after_the_board", "in_the_award", "not_written", "paid_as_a_pot",
                "not_written_nor_awarded")
U_WRITTEN, U_AFTER_THE_BOARD, U_IN_THE_AWARD, U_NOT_WRITTEN, U_PAID_AS_A_POT, U_NOT_AWARDED = range(6)

#: why a hand cannot be read: (name, quarantine code); the driver words each (`rooms.MESSAGES`)
ERRORS = (
    ("none", ""), ("no_seats", "truncated"), ("seat_range", "damaged"), ("name_blank", "damaged"),
    ("same_name", "damaged"), ("amount_large", "damaged"), ("amount_places", "damaged"),
    ("not_understood", "damaged"), ("before_deal", "damaged"), ("after_deal", "damaged"),
    ("cancelled", "cancelled"), ("forced_bet", "unsupported-feature"), ("puts_in", "inconsistent-amounts"),
    ("all_in_behind", "inconsistent-amounts"), ("action_before_deal", "damaged"),
    ("no_more", "inconsistent-amounts"), ("run_twice", "unsupported-feature"), ("second_deal", "damaged"),
    ("marker_predeal", "damaged"), ("no_such_draw", "damaged"), ("unknown_street", "damaged"),
    ("board_in_draw", "damaged"), ("board_after_showdown", "damaged"), ("flop_not_understood", "damaged"),
    ("board_not_repeated", "damaged"), ("not_a_card", "damaged"), ("dealt_before", "damaged"),
    ("draw_outside", "damaged"), ("discard_count", "damaged"), ("discard_range", "damaged"),
    ("side_pot", "unsupported-feature"), ("cashed_out", "unsupported-feature"), ("summary_board", "damaged"),
    ("run_twice_summary", "unsupported-feature"), ("summary_seat_name", "damaged"),
    ("summary_not_understood", "damaged"), ("no_hole_cards", "truncated"), ("no_summary", "truncated"),
    ("no_showdown", "truncated"), ("no_award", "truncated"), ("too_long", "limit"), ("side_pot_range", "damaged"),
    ("unsupported_line", "unsupported-feature"), ("seat_line", "damaged"), ("no_button", "damaged"),
    ("show_unseen", "damaged"), ("both_unstaked", "unsupported-feature"),
)
(X_NONE, X_NO_SEATS, X_SEAT_RANGE, X_NAME_BLANK, X_SAME_NAME, X_AMOUNT_LARGE, X_AMOUNT_PLACES, X_NOT_UNDERSTOOD,
 X_BEFORE_DEAL, X_AFTER_DEAL, X_CANCELLED, X_FORCED_BET, X_PUTS_IN, X_ALL_IN_BEHIND, X_ACTION_BEFORE_DEAL, X_NO_MORE,
 X_RUN_TWICE, X_SECOND_DEAL, X_MARKER_PREDEAL, X_NO_SUCH_DRAW, X_UNKNOWN_STREET, X_BOARD_IN_DRAW,
 X_BOARD_AFTER_SHOWDOWN, X_FLOP_NOT_UNDERSTOOD, X_BOARD_NOT_REPEATED, X_NOT_A_CARD, X_DEALT_BEFORE, X_DRAW_OUTSIDE,
 X_DISCARD_COUNT, X_DISCARD_RANGE, X_SIDE_POT, X_CASHED_OUT, X_SUMMARY_BOARD, X_RUN_TWICE_SUMMARY,
 X_SUMMARY_SEAT_NAME, X_SUMMARY_NOT_UNDERSTOOD, X_NO_HOLE_CARDS, X_NO_SUMMARY, X_NO_SHOWDOWN, X_NO_AWARD, X_TOO_LONG,
 X_SIDE_POT_RANGE, X_UNSUPPORTED_LINE, X_SEAT_LINE, X_NO_BUTTON, X_SHOW_UNSEEN,
 X_BOTH_UNSTAKED) = range(len(ERRORS))
#: what a `before_deal` error names (arg0)
BEFORE_DEAL_WHAT = ("an uncalled bet returned", "a show", "a muck", "a pot collected", "a post")

#: line flags (`lines`)
L_BLANK, L_MAYBE_BLANK, L_HEADER, L_INNER, L_LONG, L_STARS = 1, 2, 4, 8, 16, 32
#: seat statuses (`Words.seat_status` codes): sitting out (and absent), waiting for the button, out of hand
ST_SITTING_OUT, ST_AFTER_BUTTON, ST_OUT_OF_HAND = 1, 2, 3
#: sections of a hand
SEC_PREDEAL, SEC_PLAY, SEC_SHOWDOWN, SEC_SUMMARY = range(4)
#: marker roles (`Words.markers`)
M_HOLE, M_STREET, M_DRAW, M_SHOW_DOWN, M_SUMMARY, M_RUN_TWICE, M_BLINDS = range(7)

# per-seat state rows (index: seat number 0..10)
(R_PRESENT, R_SITTING_OUT, R_ABSENT, R_TIMED_OUT, R_UNUSED, R_LEFT, R_ROUND_IN, R_IN_ROUND, R_LAST_BETS, R_LAST_IN,
 R_FOLDED, R_VOLUNTARY, R_SHOWN, R_HOLE_ROW, R_HOLE_LO, R_HOLE_HI, R_KNOWN_LO, R_KNOWN_HI, R_LAST_DRAW,
 R_FOLD_WRITTEN, R_POSTED, R_LEFT_PLACES, R_ROUND_PLACES, R_SUMMARY_WON) = range(24)
N_R = 24
# scalars of the hand
(V_SECTION, V_NE, V_NC, V_NS, V_PLACES, V_SCALE, V_BLIND1, V_BLIND2, V_SB_POSTED, V_ANTE, V_SHOWDOWN, V_DRAWN,
 V_AWARDS, V_RETURNS, V_TOTAL_POT, V_NB, V_EV0, V_ERROR, V_ERROR_LINE, V_ARG0, V_ARG1, V_ARG2, V_ARG3,
 V_ARG4, V_DEAL_PENDING, V_DEALT_EARLY, V_BB_POSTED) = range(27)
N_V = 27


@njit(cache=True)
def lines(data, prefix, fold_case, max_line, starts, ends, flags):  # pragma: no cover - compiled
    """Cut `data` into lines (CR LF, CR and LF end a line; blanks, tabs and U+FEFF are cut at both ends), writing
    each line's [start, end) and flags: blank, maybe blank (only bytes beyond ASCII and blanks: Python decides),
    a hand-start candidate (begins with `prefix`, in any case when `fold_case`), `prefix` later in the line, past
    the line limit, an archive-separator candidate; returns the number of lines (-1: arrays too short)."""
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
            while True:
                if s < e and (data[s] == 32 or data[s] == 9):
                    s += 1
                elif s + 3 <= e and data[s] == 0xEF and data[s + 1] == 0xBB and data[s + 2] == 0xBF:
                    s += 3
                else:
                    break
            while True:
                if e > s and (data[e - 1] == 32 or data[e - 1] == 9):
                    e -= 1
                elif e - 3 >= s and data[e - 3] == 0xEF and data[e - 2] == 0xBB and data[e - 1] == 0xBF:
                    e -= 3
                else:
                    break
            starts[count] = s
            ends[count] = e
            flags[count] = _flags(data, s, e, prefix, fold_case, max_line)
            count += 1
            if at_end:
                break
            if data[i] == 13 and i + 1 < n and data[i + 1] == 10:
                i += 1
            a = i + 1
        i += 1
    return count


#: the ASCII bytes a line may hold and still be blank (space, tab, the line and file separators); a constant of
#: the compiled code, read by index
_BLANK_BYTE = np.zeros(128, dtype=np.bool_)
_BLANK_BYTE[[9, 11, 12, 13, 28, 29, 30, 31, 32]] = True


@callee
def _prefix_at(data, q, e, prefix, fold_case):  # pragma: no cover - compiled
    m = prefix.shape[0]
    if e - q < m:
        return False
    for j in range(m):
        b = data[q + j]
        c = prefix[j]
        if fold_case:
            if 65 <= b <= 90:
                b += 32
            if 65 <= c <= 90:
                c += 32
        if b != c:
            return False
    return True


@callee
def _flags(data, s, e, prefix, fold_case, max_line):  # pragma: no cover - compiled
    f = 0
    if e - s > max_line:
        f |= L_LONG
    if _prefix_at(data, s, e, prefix, fold_case):
        f |= L_HEADER
    printable = False
    high = False
    first = prefix[0] | 32 if fold_case else prefix[0]
    for q in range(s, e):
        b = data[q]
        if b >= 128:
            high = True
            # the Kelvin sign and the long s fold into ASCII letters: only Python's case-folding can say
            if fold_case and ((b == 0xE2 and q + 2 < e and data[q + 1] == 0x84 and data[q + 2] == 0xAA)
                              or (b == 0xC5 and q + 1 < e and data[q + 1] == 0xBF)):
                f |= L_INNER | L_HEADER
        elif not _BLANK_BYTE[b]:
            printable = True
            if q > s and (b | 32 if fold_case else b) == first and _prefix_at(data, q, e, prefix, fold_case):
                f |= L_INNER
            if b == 42 and q + 1 < e and (data[q + 1] == 35 or (data[q + 1] == 32 and q + 2 < e
                                                                 and data[q + 2] == 35)):
                f |= L_STARS
    if not printable:
        f |= L_MAYBE_BLANK if high else L_BLANK
    return f


# ------------------------------------------------------------------------------------------------ amounts, cards

@callee
def _amount(data, q, e, symbols, thousands, decimal):  # pragma: no cover - compiled
    """(mantissa, decimals, integer digits) of the amount data[q:e] (its whole text, as `room_match` found it)."""
    end = amount_end(data, q, e, symbols, thousands, decimal)
    p = q
    while p < end and not (48 <= data[p] <= 57):
        p += 1
    value = np.int64(0)
    digits = 0
    places = 0
    after = False
    lead = True
    for j in range(p, end):
        b = data[j]
        if b == decimal and thousands != decimal:
            after = True
            continue
        if not 48 <= b <= 57:
            continue
        if after:
            places += 1
        else:
            if lead and b == 48:
                continue
            lead = False
            digits += 1
        if digits <= MAX_DIGITS + 1 and places <= MAX_PLACES + 1:
            value = value * 10 + (b - 48)
    return value, places, digits


@callee
def _scaled(value, places, scale_places):  # pragma: no cover - compiled
    for _ in range(scale_places - places):
        value *= 10
    return value


@callee
def _cards(data, q, e, rank_of, suit_of, out, nc):  # pragma: no cover - compiled
    """The cards of data[q:e] split on blanks, commas and dashes (`[ 4h, Kc, 3s ]`, `Ah - 6c - Jd`) into out[nc:]:
    (new nc, -1) or (nc, position of a word that is no card)."""
    p = q
    while True:
        while p < e and (data[p] == 32 or data[p] == 9 or data[p] == 44 or data[p] == 45):
            p += 1
        if p >= e:
            return nc, -1
        w = p
        while p < e and data[p] != 32 and data[p] != 9 and data[p] != 44 and data[p] != 45:
            p += 1
        if p - w != 2 or rank_of[data[w]] < 0 or suit_of[data[w + 1]] < 0 or nc >= out.shape[0]:
            return nc, w
        out[nc] = rank_of[data[w]] * 4 + suit_of[data[w + 1]]
        nc += 1


# ------------------------------------------------------------------------------------------------ the seat list

@callee
def _fail(V, error, line, a0, a1, a2):  # pragma: no cover - compiled
    V[V_ERROR] = error
    V[V_ERROR_LINE] = line
    V[V_ARG0] = a0
    V[V_ARG1] = a1
    V[V_ARG2] = a2
    return False


@callee
def _lit_is(data, a, b, lit, lo, n):  # pragma: no cover - compiled
    """Whether data[a:b] is the literal lit[lo:lo + n]."""
    return b - a == n and at_literal(data, a, b, lit, lo, n)


@callee
def _int(data, q, e):  # pragma: no cover - compiled
    """The value of the digits data[q:e] (at most 4 are read: a longer number is no seat or count)."""
    value = 0
    for j in range(q, min(e, q + 5)):
        value = value * 10 + (data[j] - 48)
    return value


@callee
def _same(data, a, b, c, d):  # pragma: no cover - compiled
    if b - a != d - c:
        return False
    j = 0
    while j < b - a and data[a + j] == data[c + j]:
        j += 1
    return j == b - a


@callee
def _seat_list(data, starts, ends, flags, lo, hi, P, S, V, ent, names, slots, stack):  # pragma: no cover - compiled
    """The seat lines from line lo on, while they are seat lines: their entries in `ent` (seat, name lo, hi,
    stack mantissa, places, status 0 active / 1 sitting out / 2 absent), their names in `names`. Returns (the
    first line after them, entries), or (-1, 0) with V's error set."""
    rows, lit, words, symbols, thousands, decimal, t_start, t_kind, _, slot_of, status_words = P[:11]
    seat_t = waiting_t = -1
    for t in range(t_start.shape[0]):
        if t_kind[t] == K_SEAT:
            seat_t = t
        elif t_kind[t] == K_SEAT_WAITING:
            waiting_t = t
    i = lo
    count = 0
    none = names[:0]
    while i < hi:
        f = flags[i]
        if f & L_BLANK:
            i += 1
            continue
        s = starts[i]
        e = ends[i]
        if f & L_LONG:
            break
        if not match(data, s, e, rows, t_start[seat_t], lit, words, none, symbols, thousands, decimal, slots, stack):
            # a player seated but not in the hand (waiting, no chips written): no seat of this hand
            if waiting_t >= 0 and match(data, s, e, rows, t_start[waiting_t], lit, words, none, symbols, thousands,
                                        decimal, slots, stack):
                i += 1
                continue
            break
        st = slot_of[seat_t, F_STATUS_TEXT]
        tail = slot_of[seat_t, F_STATUS_TAIL]
        status = 0
        if st >= 0 and slots[st, 0] >= 0:
            code = 0
            for k in range(status_words.shape[0]):
                if _lit_is(data, slots[st, 0], slots[st, 1], lit, status_words[k, 0], status_words[k, 1]):
                    code = status_words[k, 2]
            if slots[tail, 1] > slots[tail, 0] and code != ST_OUT_OF_HAND:
                break  # a status with words after it: no seat line (the list ends here)
            status = 2 if code == ST_SITTING_OUT else 1
        ss = slot_of[seat_t, F_SEAT]
        if slots[ss, 1] - slots[ss, 0] > 4:
            _fail(V, X_SEAT_RANGE, i, slots[ss, 0], slots[ss, 1], 0)
            return -1, 0
        seat = _int(data, slots[ss, 0], slots[ss, 1])
        sp = slot_of[seat_t, F_PLAYER]
        nlo, nhi = slots[sp, 0], slots[sp, 1]
        if data[nlo] == 32 or data[nhi - 1] == 32 or data[nlo] == 9 or data[nhi - 1] == 9:
            _fail(V, X_NAME_BLANK, i, seat, 0, 0)
            return -1, 0
        for k in range(count):
            if _same(data, ent[k, 1], ent[k, 2], nlo, nhi):
                _fail(V, X_SAME_NAME, i, 0, 0, 0)
                return -1, 0
        if count >= ent.shape[0] or seat < 1 or seat > 10:
            _fail(V, X_SEAT_RANGE, i, slots[ss, 0], slots[ss, 1], 0)
            return -1, 0
        sk = slot_of[seat_t, F_STACK]
        value, places, digits = _amount(data, slots[sk, 0], slots[sk, 1], symbols, thousands, decimal)
        if digits > MAX_DIGITS or places > MAX_PLACES:
            _fail(V, X_AMOUNT_LARGE if digits > MAX_DIGITS else X_AMOUNT_PLACES, i, slots[sk, 0], slots[sk, 1], 0)
            return -1, 0
        V[V_PLACES] = max(V[V_PLACES], places)
        ent[count, 0] = seat
        ent[count, 1] = nlo
        ent[count, 2] = nhi
        ent[count, 3] = value
        ent[count, 4] = places
        ent[count, 5] = status
        count += 1
        i += 1
    # names longest first, in seat-list order among equals
    for k in range(count):
        names[k, 0] = ent[k, 0]
        names[k, 1] = ent[k, 1]
        names[k, 2] = ent[k, 2]
    for k in range(1, count):
        j = k
        while j > 0 and names[j, 2] - names[j, 1] > names[j - 1, 2] - names[j - 1, 1]:
            for c in range(3):
                names[j, c], names[j - 1, c] = names[j - 1, c], names[j, c]
            j -= 1
    return i, count


@callee
def _seat_lead_at(data, s, e, P):  # pragma: no cover - compiled
    """Whether data[s:e] begins with the literal the seat template begins with (`Seat `)."""
    rows, lit, t_start, t_kind = P[0], P[1], P[6], P[7]
    for t in range(t_start.shape[0]):
        if t_kind[t] == K_SEAT:
            r = t_start[t]
            return rows[r, 0] == OP_LIT and _lit_is(data, s, min(s + rows[r, 2], e), lit, rows[r, 1], rows[r, 2])
    return False


# ------------------------------------------------------------------------------------------------ recognition

#: template groups (`Words.groups`): tried for a seated name that begins the line, beginning with a literal,
#: in the summary, the `*** NAME ***` line, and lines anyone may say (no seat needed)
G_PLAYER, G_ROOM, G_SUMMARY, G_MARKER, G_QUIET = range(5)


@callee
def _try(data, s, e, P, group, kind_only, names, slots, stack):  # pragma: no cover - compiled
    """The first template of `group` (of kind `kind_only` when >= 0) the line matches, or -1."""
    rows, lit, words, symbols, thousands, decimal, t_start, t_kind, members = P[:9]
    for q in range(1, members[group, 0] + 1):
        t = members[group, q]
        if kind_only >= 0 and t_kind[t] != kind_only:
            continue
        # most templates fail on their first literal (after the player's name when there is one name to try):
        # checked here before the walk, which would first clear every slot
        r = t_start[t]
        p = s
        if rows[r, 0] == OP_FIELD and rows[r, 1] == T_PLAYER and names.shape[0] == 1:
            p = s + names[0, 2] - names[0, 1]
            r += 1
        if rows[r, 0] == OP_LIT and not _lit_is(data, p, min(p + rows[r, 2], e), lit, rows[r, 1], rows[r, 2]):
            continue
        # an optional part first (`{me?:  [ME]} : Checks`): the line begins with its first literal or the next one
        if rows[r, 0] == OP_MAYBE and rows[r + 1, 0] == OP_LIT and rows[rows[r, 2], 0] == OP_LIT:
            inside, after = r + 1, rows[r, 2]
            if not _lit_is(data, p, min(p + rows[inside, 2], e), lit, rows[inside, 1], rows[inside, 2]) and \
                    not _lit_is(data, p, min(p + rows[after, 2], e), lit, rows[after, 1], rows[after, 2]):
                continue
        if match(data, s, e, rows, t_start[t], lit, words, names, symbols, thousands, decimal, slots, stack):
            return t
    return -1


@callee
def _marker_role(data, slots, t, P):  # pragma: no cover - compiled
    """The role of a `*** NAME ***` line's name (`M_*`; -1 a name not listed; -2 a name the marker pattern does not
    allow: only letters, digits, blanks, `-` and `/`)."""
    lit = P[1]
    slot_of = P[9]
    marker_words = P[11]
    ns = slot_of[t, F_NAME]
    a, b = slots[ns, 0], slots[ns, 1]
    if a >= b:
        return -2
    for q in range(a, b):
        c = data[q]
        if not (c == 32 or c == 45 or c == 47 or 48 <= c <= 57 or 65 <= c <= 90 or 97 <= c <= 122):
            return -2
    for k in range(marker_words.shape[0]):
        if _lit_is(data, a, b, lit, marker_words[k, 0], marker_words[k, 1]):
            return marker_words[k, 2]
    return -1


@callee
def _recognise(data, starts, ends, flags, lo, hi, P, names, count, st_t, st_seat, st_slots, st_err,
               stack):  # pragma: no cover - compiled
    """Each line lo..hi - 1 (after the seat list): its template (st_t; -1 blank), the seat of the name it begins
    with (st_seat), its fields (st_slots) and a line it cannot be (st_err: an error code, raised when the hand
    reaches the line). Returns the most decimals of its amounts."""
    slot_of = P[9]
    amounts = P[15]
    symbols, thousands, decimal = P[3], P[4], P[5]
    none = names[:0]
    places_max = 0
    summary = False
    for i in range(lo, hi):
        j = i - lo
        st_t[j] = -1
        st_seat[j] = -1
        st_err[j] = 0
        if flags[i] & L_BLANK:
            continue
        s = starts[i]
        e = ends[i]
        slots = st_slots[j]
        if flags[i] & L_LONG:
            st_err[j] = X_TOO_LONG
            continue
        t = -1
        if summary:
            t = _try(data, s, e, P, G_SUMMARY, -1, none, slots, stack)
            if t < 0:
                st_err[j] = X_SUMMARY_NOT_UNDERSTOOD
                continue
        else:
            t = _try(data, s, e, P, G_MARKER, -1, none, slots, stack)
            if t >= 0:
                role = _marker_role(data, slots, t, P)
                if role == -2:
                    t = -1
                elif role == M_SUMMARY:
                    summary = True
            if t < 0:
                for k in range(count):
                    n = names[k, 2] - names[k, 1]
                    if e - s >= n and _same(data, s, s + n, names[k, 1], names[k, 2]):
                        t = _try(data, s, e, P, G_PLAYER, -1, names[k:k + 1], slots, stack)
                        if t >= 0:
                            st_seat[j] = names[k, 0]
                            break
            if t < 0:
                t = _try(data, s, e, P, G_ROOM, -1, names, slots, stack)
                if t >= 0:
                    sp = slot_of[t, F_PLAYER]
                    if sp >= 0:
                        for k in range(count):
                            if slots[sp, 0] >= 0 and _same(data, slots[sp, 0], slots[sp, 1], names[k, 1],
                                                           names[k, 2]):
                                st_seat[j] = names[k, 0]
                                break
            if t < 0:
                t = _try(data, s, e, P, G_QUIET, -1, none, slots, stack)
            if t < 0:
                st_err[j] = X_NOT_UNDERSTOOD
                continue
        st_t[j] = t
        for f in range(slots.shape[0]):
            if amounts[t, f] and slots[f, 0] >= 0:
                _, places, digits = _amount(data, slots[f, 0], slots[f, 1], symbols, thousands, decimal)
                if digits > MAX_DIGITS or places > MAX_PLACES:
                    st_err[j] = X_AMOUNT_LARGE if digits > MAX_DIGITS else X_AMOUNT_PLACES
                    st_slots[j, 0, 0] = slots[f, 0]  # the amount's text, for the message
                    st_slots[j, 0, 1] = slots[f, 1]
                    break
                places_max = max(places_max, places)
    return places_max


# ------------------------------------------------------------------------------------------------ the ledger

@callee
def _event(ev, V, kind, seat):  # pragma: no cover - compiled
    """A new event row (all keys unset), or -1 when the rows are full."""
    row = V[V_NE]
    if row >= ev.shape[0]:
        return -1
    for c in range(ev.shape[1]):
        ev[row, c] = -1
    ev[row, C_KIND] = kind
    ev[row, C_SEAT] = seat
    V[V_NE] += 1
    return row


@callee
def _insert(ev, V, S, at, kind, seat):  # pragma: no cover - compiled
    """A new event at row `at` (all keys unset; the rows after it move down one, the rows the state points at
    with them): `at`, or -1 when the rows are full."""
    if V[V_NE] >= ev.shape[0]:
        return -1
    for row in range(V[V_NE], at, -1):
        for c in range(ev.shape[1]):
            ev[row, c] = ev[row - 1, c]
    V[V_NE] += 1
    for o in range(11):
        for r in (R_HOLE_ROW, R_LAST_DRAW):
            if S[r, o] >= at:
                S[r, o] += 1
    for c in range(ev.shape[1]):
        ev[at, c] = -1
    ev[at, C_KIND] = kind
    ev[at, C_SEAT] = seat
    return at


@callee
def _deal_in(ev, V, S, h, k, seat):  # pragma: no cover - compiled
    """Deal `seat` in after the fact (it acts or is dealt cards though listed as sitting out), in its place in the
    deal order: before the first deal of a seat later in the order, else after the last deal."""
    S[R_SITTING_OUT, seat] = 0
    button = h[k, H_BUTTON]
    mine = (seat - button - 1) % 10 if V[V_SECTION] != SEC_PREDEAL else 99
    at = -1
    last = -1
    for row in range(V[V_EV0], V[V_NE]):
        if ev[row, C_KIND] == E_DEAL and ev[row, C_TARGET] == 0:
            last = row
            o = ev[row, C_SEAT]
            theirs = (o - button - 1) % 10 if V[V_SECTION] != SEC_PREDEAL else 99
            if at < 0 and theirs > mine:
                at = row
    if at < 0:
        at = last + 1 if last >= 0 else V[V_NE]
    if _insert(ev, V, S, at, E_DEAL, seat) < 0:
        return False
    ev[at, C_TARGET] = 0
    S[R_HOLE_ROW, seat] = at
    return True


@callee
def _return_in_its_round(ev, V, S, seat):  # pragma: no cover - compiled
    """The row of an uncalled bet's return written after the board was run out (as some rooms do): right after
    the betting round of the seat's last bet, raise or blind, before the next board card; -1 when the rows are
    full."""
    last = -1
    for row in range(V[V_EV0], V[V_NE]):
        if (ev[row, C_KIND] == E_ACTION or ev[row, C_KIND] == E_POST) and ev[row, C_SEAT] == seat:
            last = row
    at = V[V_NE]
    for row in range(last + 1 if last >= 0 else V[V_NE], V[V_NE]):
        if ev[row, C_KIND] == E_DEAL and ev[row, C_TARGET] == 1:
            at = row
            break
    return _insert(ev, V, S, at, E_RETURN, seat)


@callee
def _new_round(S):  # pragma: no cover - compiled
    bets = False
    for o in range(11):
        if S[R_IN_ROUND, o] and S[R_ROUND_IN, o] > 0:
            bets = True
    if bets:
        for o in range(11):
            S[R_LAST_BETS, o] = S[R_ROUND_IN, o]
            S[R_LAST_IN, o] = S[R_IN_ROUND, o]
    for o in range(11):
        S[R_ROUND_IN, o] = 0
        S[R_IN_ROUND, o] = 0
        S[R_ROUND_PLACES, o] = 0


@callee
def _take(S, V, line, seat, amount, places, all_in):  # pragma: no cover - compiled
    """Chips put in from the seat's stack. The reasons say amounts as the old exports' arithmetic on decimals
    does: each with the most decimals of the amounts it was made of (`places`, `R_*_PLACES`)."""
    if amount < 0 or amount > S[R_LEFT, seat]:
        _fail(V, X_PUTS_IN, line, seat, amount, S[R_LEFT, seat])
        V[V_ARG3] = places
        V[V_ARG4] = S[R_LEFT_PLACES, seat]
        return False
    S[R_LEFT, seat] -= amount
    S[R_LEFT_PLACES, seat] = max(S[R_LEFT_PLACES, seat], places)
    if all_in and S[R_LEFT, seat] != 0:
        _fail(V, X_ALL_IN_BEHIND, line, seat, S[R_LEFT, seat], 0)
        V[V_ARG3] = S[R_LEFT_PLACES, seat]
        return False
    return True


@callee
def _add_post(ev, V, S, seat, post, amount, places, all_in, live, blind):  # pragma: no cover - compiled
    row = _event(ev, V, E_POST, seat)
    if row < 0:
        return False
    ev[row, C_POST] = post
    ev[row, C_BLIND] = blind
    ev[row, C_AMOUNT] = amount
    ev[row, C_ALL_IN] = 1 if all_in or S[R_LEFT, seat] == 0 else -1
    S[R_POSTED, seat] = 1
    if live:
        S[R_ROUND_IN, seat] += amount
        S[R_ROUND_PLACES, seat] = max(S[R_ROUND_PLACES, seat], places)
        S[R_IN_ROUND, seat] = 1
    return True


@callee
def _post(ev, V, S, h, k, line, seat, kind, amount, places, all_in):  # pragma: no cover - compiled
    """A forced bet (`_HandReader.post`): blinds live, a second small blind dead, a second big blind live (a new
    or returning player's), both blinds at once the big live and the rest dead."""
    if V[V_SECTION] != SEC_PREDEAL:
        return _fail(V, X_AFTER_DEAL, line, 4, 0, 0)
    S[R_SITTING_OUT, seat] = 0
    if not h[k, H_TOURNAMENT]:
        S[R_ABSENT, seat] = 0
    if not _take(S, V, line, seat, amount, places, all_in):
        return False
    if kind in (K_POST_BUTTON, K_POST_BRING_IN):
        return _fail(V, X_FORCED_BET, line, 0 if kind == K_POST_BUTTON else 1, 0, 0)
    if kind == K_POST_ANTE:
        V[V_ANTE] = max(V[V_ANTE], amount)
        return _add_post(ev, V, S, seat, P_ANTE, amount, places, all_in, False, -1)
    if kind == K_POST_STRADDLE:
        return _add_post(ev, V, S, seat, P_STRADDLE, amount, places, all_in, True, -1)
    if kind == K_POST_BOTH:
        big = _scaled(h[k, H_SMALL if h[k, H_FIXED] else H_BIG], h[k, H_SMALL_PLACES if h[k, H_FIXED]
                                                                    else H_BIG_PLACES], V[V_SCALE])
        if h[k, H_BIG] < 0:  # no stakes written (`stakes_written: posted`): the big blind posted before
            big = V[V_BB_POSTED]
            if big < 0:
                return _fail(V, X_BOTH_UNSTAKED, line, 0, 0, 0)
        live = min(amount, big)
        if not _add_post(ev, V, S, seat, P_MISSED, live, places, all_in and amount == live, True, -1):
            return False
        if amount > live:
            return _add_post(ev, V, S, seat, P_DEAD, amount - live, places, all_in, False, -1)
        return True
    number = 1 if kind == K_POST_SB else 2
    if (number == 1 and V[V_BLIND1]) or (number == 2 and V[V_BLIND2]):
        if number == 2:
            return _add_post(ev, V, S, seat, P_MISSED, amount, places, all_in, True, -1)
        return _add_post(ev, V, S, seat, P_DEAD, amount, places, all_in, False, -1)
    if number == 1:
        V[V_BLIND1] = 1
        if not all_in:
            V[V_SB_POSTED] = amount
    else:
        V[V_BLIND2] = 1
        if not all_in and S[R_LEFT, seat] > 0:  # (after `_take`: chips behind, so posted in full)
            V[V_BB_POSTED] = amount
    return _add_post(ev, V, S, seat, P_BLIND, amount, places, all_in, True, number)


@callee
def _room_folds(S, ev, V, seat, timed_out):  # pragma: no cover - compiled
    """Whether a fold is the room's (a `kill`), by the file's own evidence: the player absent by its markers, or
    timed out, or with no chips behind only because forced posts took them; never after the cards were shown,
    never for a player all-in by a bet, call or raise of their own, never a second fold."""
    if S[R_SHOWN, seat]:
        return False
    if S[R_ABSENT, seat] or timed_out:
        return True
    return S[R_LEFT, seat] == 0 and not S[R_VOLUNTARY, seat] and not S[R_FOLD_WRITTEN, seat]


@callee
def _action(ev, V, S, h, k, line, seat, verb, amount, to, places, all_in):  # pragma: no cover - compiled
    """A check, fold, call, bet or raise: `amount` the chips a call or bet adds, `to` a raise's round total (-1
    where the text gives the other), `places` the decimals the text gave it."""
    if V[V_SECTION] != SEC_PLAY and V[V_SECTION] != SEC_SHOWDOWN:
        return _fail(V, X_ACTION_BEFORE_DEAL, line, 0, 0, 0)
    if S[R_HOLE_ROW, seat] < 0 and not _deal_in(ev, V, S, h, k, seat):
        return False
    timed_out = S[R_TIMED_OUT, seat] == 1
    S[R_TIMED_OUT, seat] = 0
    if verb == A_FOLD:
        S[R_FOLDED, seat] = 1
        if h[k, H_KILLS] and _room_folds(S, ev, V, seat, timed_out):
            S[R_FOLD_WRITTEN, seat] = 1
            return _event(ev, V, E_KILL, seat) >= 0
        S[R_FOLD_WRITTEN, seat] = 1
    if verb in (A_FOLD, A_CHECK):
        row = _event(ev, V, E_ACTION, seat)
        if row < 0:
            return False
        ev[row, C_ACTION] = verb
        return True
    S[R_ABSENT, seat] = 0
    S[R_VOLUNTARY, seat] = 1
    before = S[R_ROUND_IN, seat]
    before_places = S[R_ROUND_PLACES, seat] if S[R_IN_ROUND, seat] else 0
    current = 0
    for o in range(11):
        if S[R_IN_ROUND, o]:
            current = max(current, S[R_ROUND_IN, o])
    if to < 0:
        to = before + amount
    to_places = places if amount < 0 else max(places, before_places)
    amount = to - before
    if amount <= 0:
        _fail(V, X_NO_MORE, line, seat, to, before)
        V[V_ARG3] = to_places
        V[V_ARG4] = before_places
        return False
    if not _take(S, V, line, seat, amount, max(to_places, before_places), all_in):
        return False
    S[R_ROUND_PLACES, seat] = to_places
    if verb in (A_BET, A_RAISE):
        verb = A_RAISE if current > 0 else A_BET
    S[R_ROUND_IN, seat] = to
    S[R_IN_ROUND, seat] = 1
    row = _event(ev, V, E_ACTION, seat)
    if row < 0:
        return False
    ev[row, C_ACTION] = verb
    ev[row, C_AMOUNT] = amount
    ev[row, C_TO] = to
    ev[row, C_ALL_IN] = 1 if all_in or S[R_LEFT, seat] == 0 else -1
    return True


@callee
def _deal(ev, V, S, h, k):  # pragma: no cover - compiled
    """Hole cards to every seat dealt in, clockwise from the button's left: not a cash seat sitting out, nor a
    tournament seat out of hand; a tournament deals its absent players in (the room posts and folds for them)."""
    V[V_SECTION] = SEC_PLAY
    button = h[k, H_BUTTON]
    if button < 0:  # a room whose button line comes after the seats wrote none before the deal
        return _fail(V, X_NO_BUTTON, -1, 0, 0, 0)
    for step in range(1, 11):
        seat = (button + step - 1) % 10 + 1
        if not S[R_PRESENT, seat]:
            continue
        if h[k, H_TOURNAMENT] and S[R_ABSENT, seat]:
            S[R_SITTING_OUT, seat] = 0
        elif S[R_SITTING_OUT, seat]:
            continue
        row = _event(ev, V, E_DEAL, seat)
        if row < 0:
            return False
        ev[row, C_TARGET] = 0
        S[R_HOLE_ROW, seat] = row
    return True


@callee
def _brackets(data, q, e):  # pragma: no cover - compiled
    """The `[...]` groups of data[q:e]: (how many, the first's inside lo, hi, the second's lo, hi; -1 where there
    is none)."""
    n = 0
    p = q
    lo0 = hi0 = lo1 = hi1 = -1
    while p < e:
        if data[p] == 91:
            c = p + 1
            while c < e and data[c] != 93:
                c += 1
            if c >= e:
                break
            if n == 0:
                lo0, hi0 = p + 1, c
            elif n == 1:
                lo1, hi1 = p + 1, c
            n += 1
            p = c + 1
        else:
            p += 1
    return n, lo0, hi0, lo1, hi1


@callee
def _remember(S, cards, h, k, seat, lo, hi):  # pragma: no cover - compiled
    """Cards the text shows for `seat` (a show, a muck, a fold, the summary): its hole cards when no deal line
    gave them (the last shown wins), in a game whose hole cards are all the player holds."""
    if not h[k, H_DRAW] and hi - lo == h[k, H_HOLE]:
        S[R_KNOWN_LO, seat] = lo
        S[R_KNOWN_HI, seat] = hi


@callee
def _read_cards(data, a, b, P, cards, V, line):  # pragma: no cover - compiled
    """The cards of data[a:b] appended to `cards`: (lo, hi), or (-1, -1) with the error set."""
    lo = V[V_NC]
    nc, bad = _cards(data, a, b, P[13], P[14], cards, lo)
    if bad >= 0:
        w = bad
        while w < b and data[w] != 32 and data[w] != 9:
            w += 1
        _fail(V, X_NOT_A_CARD, line, bad, w, 0)
        return -1, -1
    V[V_NC] = nc
    return lo, nc


@callee
def _board(data, a, b, name_lo, name_hi, street, ev, V, S, h, k, P, cards, board, line):  # pragma: no cover
    """A flop, turn or river line (`street` 0, 1, 2...): its cards after the board so far (which a later street's
    line repeats first)."""
    if h[k, H_DRAW]:
        return _fail(V, X_BOARD_IN_DRAW, line, name_lo, name_hi, 0)
    if V[V_SHOWDOWN]:
        return _fail(V, X_BOARD_AFTER_SHOWDOWN, line, name_lo, name_hi, 0)
    n, lo0, hi0, lo1, hi1 = _brackets(data, a, b)
    if street == 0 and h[k, H_NEW_CARDS] == B_WHOLE:
        lo, hi = _read_cards(data, a, b, P, cards, V, line)
    elif street == 0:
        if n != 1:
            return _fail(V, X_FLOP_NOT_UNDERSTOOD, line, 0, 0, 0)
        lo, hi = _read_cards(data, lo0, hi0, P, cards, V, line)
    elif n == 1 and h[k, H_NEW_CARDS] == B_NEW_CARDS:  # a street's new cards alone (`board_lines: new_cards`)
        lo, hi = _read_cards(data, lo0, hi0, P, cards, V, line)
    elif h[k, H_NEW_CARDS] == B_WHOLE:  # the whole board, no brackets (`board_lines: whole_board`): the board so
        lo, hi = _read_cards(data, a, b, P, cards, V, line)  # far first, then the street's new cards
        if lo < 0:
            return False
        if hi - lo <= V[V_NB]:
            V[V_NC] = lo
            return _fail(V, X_BOARD_NOT_REPEATED, line, name_lo, name_hi, 0)
        for j in range(V[V_NB]):
            if cards[lo + j] != board[j]:
                V[V_NC] = lo
                return _fail(V, X_BOARD_NOT_REPEATED, line, name_lo, name_hi, 0)
        lo += V[V_NB]
    else:
        if n != 2:
            return _fail(V, X_BOARD_NOT_REPEATED, line, name_lo, name_hi, 0)
        lo, hi = _read_cards(data, lo0, hi0, P, cards, V, line)
        if lo < 0:
            return False
        same = hi - lo == V[V_NB]
        if same:
            for j in range(hi - lo):
                if cards[lo + j] != board[j]:
                    same = False
        V[V_NC] = lo
        if not same:
            return _fail(V, X_BOARD_NOT_REPEATED, line, name_lo, name_hi, 0)
        lo, hi = _read_cards(data, lo1, hi1, P, cards, V, line)
    if lo < 0:
        return False
    for j in range(lo, hi):
        if V[V_NB] < board.shape[0]:
            board[V[V_NB]] = cards[j]
            V[V_NB] += 1
    row = _event(ev, V, E_DEAL, -1)
    if row < 0:
        return False
    ev[row, C_TARGET] = 1
    ev[row, C_CARD_LO] = lo
    ev[row, C_CARD_HI] = hi
    _new_round(S)
    return True


@callee
def _marker(data, slots, t, ev, V, S, h, k, P, cards, board, line):  # pragma: no cover - compiled
    """A `*** NAME ***` line: the deal, a street, the draw, the showdown or the summary (by the dialect's words)."""
    slot_of = P[9]
    lit = P[1]
    marker_words = P[11]
    ns, rs = slot_of[t, F_NAME], slot_of[t, F_REST]
    a, b = slots[ns, 0], slots[ns, 1]
    role = -1
    index = 0
    for w in range(marker_words.shape[0]):
        if _lit_is(data, a, b, lit, marker_words[w, 0], marker_words[w, 1]):
            role = marker_words[w, 2]
            index = marker_words[w, 3]
            break
    if role == M_RUN_TWICE:
        return _fail(V, X_RUN_TWICE, line, a, b, 0)
    if role == M_BLINDS and V[V_SECTION] == SEC_PREDEAL:  # the forced bets' own marker: nothing dealt yet
        return True
    if role == M_HOLE:
        if V[V_DEALT_EARLY]:  # the deal was the `Dealt to` line before it (`_dealt`)
            V[V_DEALT_EARLY] = 0
            return True
        if V[V_SECTION] != SEC_PREDEAL or V[V_DEAL_PENDING]:
            return _fail(V, X_SECOND_DEAL, line, a, b, 0)
        if h[k, H_DEAL_MODE] == D_BEFORE_BLINDS:  # the blinds follow the marker: the deal follows them (`_statement`)
            V[V_DEAL_PENDING] = 1
            return True
        return _deal(ev, V, S, h, k)
    if V[V_SECTION] == SEC_PREDEAL:
        return _fail(V, X_MARKER_PREDEAL, line, a, b, 0)
    if role == M_STREET:
        return _board(data, slots[rs, 0], slots[rs, 1], a, b, index, ev, V, S, h, k, P, cards, board, line)
    if role == M_DRAW:
        if not h[k, H_DRAW] or V[V_DRAWN]:
            return _fail(V, X_NO_SUCH_DRAW, line, a, b, 0)
        V[V_DRAWN] = 1
        _new_round(S)
        return True
    if role == M_SHOW_DOWN:
        V[V_SHOWDOWN] = 1
        V[V_SECTION] = SEC_SHOWDOWN
        return True
    if role == M_SUMMARY:
        V[V_SECTION] = SEC_SUMMARY
        return True
    return _fail(V, X_UNKNOWN_STREET, line, a, b, 0)


@callee
def _draw(ev, V, S, h, k, line, seat, lo, hi):  # pragma: no cover - compiled
    """A discard (cards[lo:hi]) or a stand pat (none) in five-card draw's draw; the first opens the draw."""
    if not h[k, H_DRAW] or V[V_SECTION] != SEC_PLAY:
        return _fail(V, X_DRAW_OUTSIDE, line, 0, 0, 0)
    if not V[V_DRAWN]:
        V[V_DRAWN] = 1
        _new_round(S)
    if S[R_HOLE_ROW, seat] < 0 and not _deal_in(ev, V, S, h, k, seat):
        return False
    row = _event(ev, V, E_DRAW, seat)
    if row < 0:
        return False
    ev[row, C_CARD_LO] = lo
    ev[row, C_CARD_HI] = hi
    ev[row, C_RECEIVE_LO] = -2  # unknown cards, as many as discarded (`finish`)
    ev[row, C_RECEIVE_HI] = hi - lo
    S[R_LAST_DRAW, seat] = row
    return True


@callee
def _dealt(data, slots, t, ev, V, S, h, k, P, cards, line, seat):  # pragma: no cover - compiled
    """`Dealt to NAME [cards]` (and, after a draw, `[kept] [received]`)."""
    slot_of = P[9]
    if V[V_SECTION] == SEC_PREDEAL and h[k, H_DEAL_MODE] == D_AFTER_THE_DEAL and not V[V_DEAL_PENDING]:
        if not _deal(ev, V, S, h, k):  # the room writes the deal before its marker: this line is the deal
            return False
        V[V_DEALT_EARLY] = 1
    if V[V_SECTION] != SEC_PLAY and V[V_SECTION] != SEC_SHOWDOWN:
        return _fail(V, X_DEALT_BEFORE, line, 0, 0, 0)
    if S[R_HOLE_ROW, seat] < 0 and not _deal_in(ev, V, S, h, k, seat):
        return False
    kept, got = slot_of[t, F_KEPT], slot_of[t, F_CARDS]
    if got < 0:  # the deal said without its cards (another player's, as some rooms write it): dealt face down
        return True
    if V[V_DRAWN] and h[k, H_DRAW]:
        row = S[R_LAST_DRAW, seat]
        if row >= 0 and kept >= 0:
            lo, hi = _read_cards(data, slots[got, 0], slots[got, 1], P, cards, V, line)
            if lo < 0:
                return False
            ev[row, C_RECEIVE_LO] = lo
            ev[row, C_RECEIVE_HI] = hi
        return True
    lo = V[V_NC]
    if kept >= 0:
        a, _ = _read_cards(data, slots[kept, 0], slots[kept, 1], P, cards, V, line)
        if a < 0:
            return False
    a, _ = _read_cards(data, slots[got, 0], slots[got, 1], P, cards, V, line)
    if a < 0:
        return False
    S[R_HOLE_LO, seat] = lo
    S[R_HOLE_HI, seat] = V[V_NC]
    return True


@callee
def _summary_seat(data, slots, t, S, h, k, P, cards, V, ent, count, line):  # pragma: no cover - compiled
    """`Seat N: NAME ...` in the summary: the name must be the seat's; cards it says were shown are kept."""
    slot_of = P[9]
    lit = P[1]
    shown_words = P[12]
    ss = slot_of[t, F_SEAT]
    if slots[ss, 1] - slots[ss, 0] > 4:
        return _fail(V, X_SEAT_RANGE, line, slots[ss, 0], slots[ss, 1], 0)
    seat = _int(data, slots[ss, 0], slots[ss, 1])
    sp = slot_of[t, F_PLAYER] if slot_of[t, F_PLAYER] >= 0 else slot_of[t, F_REST]
    p = slots[sp, 0]
    e = slots[slot_of[t, F_RESULT], 1] if slot_of[t, F_RESULT] >= 0 else slots[sp, 1]
    tail = -1
    for j in range(count):
        if ent[j, 0] != seat:
            continue
        n = ent[j, 2] - ent[j, 1]
        if p + n <= e and _same(data, p, p + n, ent[j, 1], ent[j, 2]) and (p + n == e or data[p + n] == 32):
            tail = p + n
            break
    if tail < 0:
        return _fail(V, X_SUMMARY_SEAT_NAME, line, seat, 0, 0)
    # the first "showed [" or "mucked [" (a word of its own) after the name: the cards inside
    for q in range(tail, e):
        if q > tail and (48 <= data[q - 1] <= 57 or 65 <= data[q - 1] <= 90 or 97 <= data[q - 1] <= 122
                         or data[q - 1] == 95):
            continue
        for w in range(shown_words.shape[0]):
            n = shown_words[w, 1]
            if q + n + 2 <= e and _lit_is(data, q, q + n, lit, shown_words[w, 0], n) and data[q + n] == 32 \
                    and data[q + n + 1] == 91:
                c = q + n + 2
                while c < e and data[c] != 93:
                    c += 1
                if c < e:
                    lo, hi = _read_cards(data, q + n + 2, c, P, cards, V, line)
                    if lo < 0:
                        return False
                    _remember(S, cards, h, k, seat, lo, hi)
                    return True
    return True


@callee
def _value(data, slots, t, f, P, V):  # pragma: no cover - compiled
    """The amount in field f of template t's line, in the hand's scale (-1: the template has no such field)."""
    slot = P[9][t, f]
    if slot < 0 or slots[slot, 0] < 0:
        return -1
    value, places, _ = _amount(data, slots[slot, 0], slots[slot, 1], P[3], P[4], P[5])
    return _scaled(value, places, V[V_SCALE])


@callee
def _places(data, slots, t, f, P):  # pragma: no cover - compiled
    """The decimals the text gives the amount in field f of template t's line."""
    slot = P[9][t, f]
    if slot < 0 or slots[slot, 0] < 0:
        return 0
    _, places, _ = _amount(data, slots[slot, 0], slots[slot, 1], P[3], P[4], P[5])
    return places


@callee
def _flag(slots, t, f, P):  # pragma: no cover - compiled
    slot = P[9][t, f]
    return slot >= 0 and slots[slot, 0] >= 0


@callee
def _betting(data, slots, t, seat, ev, V, S, h, k, P, cards, line):  # pragma: no cover - compiled
    """A fold, check, call, bet, raise or all-in line (`_statement`'s betting kinds)."""
    kind = P[7][t]
    slot_of = P[9]
    if kind == K_CHECK:
        return _action(ev, V, S, h, k, line, seat, A_CHECK, -1, -1, 0, False)
    if kind == K_FOLD:
        # `folds_before_the_deal: sitting_out`: a player who put nothing in declines the hand (after a post, it is
        # an action before the deal, refused below)
        if V[V_SECTION] == SEC_PREDEAL and h[k, H_PREDEAL_FOLD_OUT] and not S[R_POSTED, seat]:
            S[R_ABSENT, seat] = 1
            S[R_SITTING_OUT, seat] = 1
            return True
        if _flag(slots, t, F_SHOWN, P):
            cs = slot_of[t, F_CARDS]
            lo, hi = _read_cards(data, slots[cs, 0], slots[cs, 1], P, cards, V, line)
            if lo < 0:
                return False
            _remember(S, cards, h, k, seat, lo, hi)
        return _action(ev, V, S, h, k, line, seat, A_FOLD, -1, -1, 0, False)
    if kind in (K_CALL, K_BET):
        return _action(ev, V, S, h, k, line, seat, A_CALL if kind == K_CALL else A_BET,
                       _value(data, slots, t, F_AMOUNT, P, V), -1, _places(data, slots, t, F_AMOUNT, P),
                       _flag(slots, t, F_ALL_IN, P))
    if kind == K_RAISE:
        if slot_of[t, F_TO] < 0:  # a raise written as the chips it adds (`raise_amounts: added`)
            return _action(ev, V, S, h, k, line, seat, A_RAISE, _value(data, slots, t, F_AMOUNT, P, V), -1,
                           _places(data, slots, t, F_AMOUNT, P), _flag(slots, t, F_ALL_IN, P))
        return _action(ev, V, S, h, k, line, seat, A_RAISE, -1, _value(data, slots, t, F_TO, P, V),
                       _places(data, slots, t, F_TO, P), _flag(slots, t, F_ALL_IN, P))
    if kind == K_ALL_IN:  # an all-in as a verb of its own (`all_in_marker: verb`): what it is, the table says
        amount = _value(data, slots, t, F_AMOUNT, P, V)
        current = 0
        for o in range(11):
            if S[R_IN_ROUND, o]:
                current = max(current, S[R_ROUND_IN, o])
        verb = A_CALL if S[R_ROUND_IN, seat] + amount <= current else A_RAISE
        return _action(ev, V, S, h, k, line, seat, verb, amount, -1, _places(data, slots, t, F_AMOUNT, P), True)
    return False


@callee
def _button_line(data, slots, t, seat, ev, V, h, k, P, line):  # pragma: no cover - compiled
    """`The button is in seat #N`, said after the seats (`lines.button`), or `Dealer: NAME` (the seated player's
    seat, `seat`): once, before the deal, into the hand's button event."""
    slot_of = P[9]
    ns = slot_of[t, F_SEAT]
    if V[V_SECTION] != SEC_PREDEAL or h[k, H_BUTTON] >= 0 or (ns >= 0 and slots[ns, 1] - slots[ns, 0] > 2) or (
            ns < 0 and seat < 0):
        return _fail(V, X_NOT_UNDERSTOOD, line, 0, 0, 0)
    button = _int(data, slots[ns, 0], slots[ns, 1]) if ns >= 0 else seat
    if not 1 <= button <= 10:
        return _fail(V, X_SEAT_RANGE, line, button, 0, 0)
    h[k, H_BUTTON] = button
    ev[V[V_EV0], C_SEAT] = button  # the hand's first event: its button
    return True


@callee
def _heads_up_big_blind_last(ev, V, S, seat):  # pragma: no cover - compiled
    """Whether a small blind's post comes right after the other player's big blind in a hand of two players (none
    sitting out): the line order of a room that writes a heads-up hand's big blind first (`blinds_order`)."""
    row = V[V_NE] - 1
    if row <= V[V_EV0] or ev[row, C_KIND] != E_POST or ev[row, C_POST] != P_BLIND or ev[row, C_BLIND] != 2 or \
            ev[row, C_SEAT] == seat or ev[row - 1, C_KIND] != E_BUTTON:
        return False
    players = 0
    for o in range(11):
        if S[R_PRESENT, o] and not S[R_SITTING_OUT, o]:
            players += 1
    return players == 2


@callee
def _statement(data, slots, t, seat, ev, V, S, h, k, P, cards, board, ent, count, line):  # pragma: no cover
    """One recognised line, by its kind."""
    kind = P[7][t]
    slot_of = P[9]
    if V[V_DEAL_PENDING] and not K_POST_SB <= kind <= K_POST_BRING_IN and kind not in (
            K_QUIET, K_IGNORED, K_TIMED_OUT, K_SITS_OUT, K_IS_SITTING_OUT, K_IS_SITTING_OUT_PLAIN, K_HAS_RETURNED,
            K_BUTTON):
        V[V_DEAL_PENDING] = 0  # the first line after the hole-cards marker and the blinds that is play: the deal
        if not _deal(ev, V, S, h, k):
            return False
    if kind == K_MARKER:
        return _marker(data, slots, t, ev, V, S, h, k, P, cards, board, line)
    if h[k, H_NO_SUMMARY] >= 2 and V[V_SECTION] == SEC_PLAY and kind in (K_SHOW, K_MUCK, K_MUCK_SHOWN, K_COLLECT):
        V[V_SECTION] = SEC_SHOWDOWN  # a room that marks no showdown: its shows and awards end the play
        if kind != K_COLLECT:
            V[V_SHOWDOWN] = 1
    if K_POST_SB <= kind <= K_POST_BRING_IN:
        amount = _value(data, slots, t, F_AMOUNT, P, V)
        places = _places(data, slots, t, F_AMOUNT, P)
        if slot_of[t, F_DEAD] >= 0:  # both blinds written as two amounts, the dead one first: `[$1 + $2]`
            amount += _value(data, slots, t, F_DEAD, P, V)
            places = max(places, _places(data, slots, t, F_DEAD, P))
        after_big = kind == K_POST_SB and h[k, H_BLINDS_ORDER] and V[V_BLIND2] and not V[V_BLIND1] and \
            _heads_up_big_blind_last(ev, V, S, seat)
        if not _post(ev, V, S, h, k, line, seat, kind, amount, places, _flag(slots, t, F_ALL_IN, P)):
            return False
        if after_big:  # (`blinds_order: big_blind_first_heads_up`) the small blind posted first
            for c in range(ev.shape[1]):
                ev[V[V_NE] - 1, c], ev[V[V_NE] - 2, c] = ev[V[V_NE] - 2, c], ev[V[V_NE] - 1, c]
        return True
    if K_FOLD <= kind <= K_RAISE or kind == K_ALL_IN:
        return _betting(data, slots, t, seat, ev, V, S, h, k, P, cards, line)
    if kind == K_BUTTON:  # `The button is in seat #N`, after the seats: once, before the deal
        return _button_line(data, slots, t, seat, ev, V, h, k, P, line)
    if kind in (K_SHOW, K_MUCK, K_MUCK_SHOWN):
        if V[V_SECTION] != SEC_PLAY and V[V_SECTION] != SEC_SHOWDOWN:
            return _fail(V, X_BEFORE_DEAL, line, 1 if kind == K_SHOW else 2, 0, 0)
        lo = hi = -1
        cs = slot_of[t, F_CARDS]
        if kind == K_SHOW and cs < 0:  # a show that writes no cards tables the cards the player was dealt
            lo, hi = S[R_HOLE_LO, seat], S[R_HOLE_HI, seat]
            if lo < 0:
                return _fail(V, X_SHOW_UNSEEN, line, 0, 0, 0)
        elif kind != K_MUCK:
            lo, hi = _read_cards(data, slots[cs, 0], slots[cs, 1], P, cards, V, line)
            if lo < 0:
                return False
        row = _event(ev, V, E_SHOW if kind == K_SHOW else E_MUCK, seat)
        if row < 0:
            return False
        if kind == K_SHOW:
            ev[row, C_CARD_LO] = lo
            ev[row, C_CARD_HI] = hi
            S[R_SHOWN, seat] = 1
        if kind != K_MUCK:
            _remember(S, cards, h, k, seat, lo, hi)
        return True
    if kind == K_DISCARD:
        cs, ns = slot_of[t, F_CARDS], slot_of[t, F_COUNT]
        if slots[ns, 1] - slots[ns, 0] > 4:
            return _fail(V, X_DISCARD_RANGE, line, slots[ns, 0], slots[ns, 1], 0)
        n = _int(data, slots[ns, 0], slots[ns, 1])
        if _flag(slots, t, F_SHOWN, P):
            lo, hi = _read_cards(data, slots[cs, 0], slots[cs, 1], P, cards, V, line)
            if lo < 0:
                return False
        else:
            lo = V[V_NC]
            if lo + n > cards.shape[0]:
                return _fail(V, X_TOO_LONG, line, 0, 0, 0)
            for j in range(n):
                cards[lo + j] = UNKNOWN
            hi = lo + n
            V[V_NC] = hi
        if hi - lo != n:
            return _fail(V, X_DISCARD_COUNT, line, n, hi - lo, 0)
        return _draw(ev, V, S, h, k, line, seat, lo, hi)
    if kind == K_STAND_PAT:
        return _draw(ev, V, S, h, k, line, seat, V[V_NC], V[V_NC])
    if kind in (K_DEALT, K_REDEALT):
        return _dealt(data, slots, t, ev, V, S, h, k, P, cards, line, seat)
    if kind == K_TIMED_OUT:
        S[R_TIMED_OUT, seat] = 1
        return True
    if kind in (K_SITS_OUT, K_IS_SITTING_OUT, K_IS_SITTING_OUT_PLAIN):
        S[R_ABSENT, seat] = 1
        if V[V_SECTION] == SEC_PREDEAL and not S[R_POSTED, seat]:
            S[R_SITTING_OUT, seat] = 1
        return True
    if kind == K_HAS_RETURNED:
        S[R_ABSENT, seat] = 0
        return True
    if kind == K_CASHED_OUT:
        return _fail(V, X_CASHED_OUT, line, 0, 0, 0)
    if kind == K_UNSUPPORTED:  # a line the room writes of something the log has no event for
        return _fail(V, X_UNSUPPORTED_LINE, line, 0, 0, 0)
    if kind == K_CANCELLED:
        return _fail(V, X_CANCELLED, line, 0, 0, 0)
    if kind == K_UNCALLED:
        return _uncalled(data, slots, t, seat, ev, V, S, h, k, P, line)
    if kind == K_COLLECT:
        return _collect(data, slots, t, seat, ev, V, P, line)
    if kind == K_TOTAL:
        for f in range(F_RAKE, F_DEDUCT_4 + 1):  # the rake when stated, each further take when not nothing
            taken = _value(data, slots, t, f, P, V)
            if taken > 0 or (f == F_RAKE and _flag(slots, t, F_RAKED, P)):
                row = _event(ev, V, E_RAKE, -1)
                if row < 0:
                    return False
                ev[row, C_AMOUNT] = taken
        V[V_TOTAL_POT] = _value(data, slots, t, F_TOTAL, P, V)
        return True
    if kind == K_BOARD:
        cs = slot_of[t, F_CARDS]
        if cs < 0:  # not `Board [cards]`: one `[...]` group it must still be, of the board dealt
            rs = slot_of[t, F_REST]
            n, lo0, hi0, _, _ = _brackets(data, slots[rs, 0] - 1, slots[rs, 1])
            if n != 1:
                return _fail(V, X_SUMMARY_BOARD, line, 0, 0, 0)
            lo, hi = _read_cards(data, lo0, hi0, P, cards, V, line)
        else:
            lo, hi = _read_cards(data, slots[cs, 0], slots[cs, 1], P, cards, V, line)
        if lo < 0:
            return False
        V[V_NC] = lo
        same = hi - lo == V[V_NB]
        if same:
            for j in range(hi - lo):
                if cards[lo + j] != board[j]:
                    same = False
        return same or _fail(V, X_SUMMARY_BOARD, line, 0, 0, 0)
    if kind in (K_SUMMARY_SEAT, K_SUMMARY_OTHER_SEAT, K_SUMMARY_AWARD):
        if not _summary_seat(data, slots, t, S, h, k, P, cards, V, ent, count, line):
            return False
        if kind == K_SUMMARY_AWARD:  # kept for a hand with no award line (`_finish`); the seat checked above
            S[R_SUMMARY_WON, _int(data, slots[slot_of[t, F_SEAT], 0], slots[slot_of[t, F_SEAT], 1])] += \
                _value(data, slots, t, F_AMOUNT, P, V)
        return True
    if kind == K_RUN_TWICE_SUMMARY:
        return _fail(V, X_RUN_TWICE_SUMMARY, line, 0, 0, 0)
    return True  # ignored and quiet lines: nothing the log holds


@callee
def _uncalled(data, slots, t, seat, ev, V, S, h, k, P, line):  # pragma: no cover - compiled
    """`Uncalled bet (X) returned to NAME`: the chips back to the seat's stack and out of its bet in the round,
    the return written where the room's convention places it."""
    if V[V_SECTION] != SEC_PLAY and V[V_SECTION] != SEC_SHOWDOWN:
        return _fail(V, X_BEFORE_DEAL, line, 0, 0, 0)
    amount = _value(data, slots, t, F_AMOUNT, P, V)
    places = _places(data, slots, t, F_AMOUNT, P)
    rest = S[R_ROUND_IN, seat] - amount
    S[R_ROUND_PLACES, seat] = max(S[R_ROUND_PLACES, seat] if S[R_IN_ROUND, seat] else 0, places) if rest > 0 \
        else 0
    S[R_ROUND_IN, seat] = max(0, rest)
    S[R_IN_ROUND, seat] = 1
    S[R_LEFT, seat] += amount
    S[R_LEFT_PLACES, seat] = max(S[R_LEFT_PLACES, seat], places)
    row = _event(ev, V, E_RETURN, seat) if h[k, H_RETURN_MODE] != U_AFTER_THE_BOARD else \
        _return_in_its_round(ev, V, S, seat)
    if row < 0:
        return False
    ev[row, C_AMOUNT] = amount
    V[V_RETURNS] += 1
    return True


@callee
def _collect(data, slots, t, seat, ev, V, P, line):  # pragma: no cover - compiled
    """`NAME collected X from pot|main pot|side pot[-N]`: an award from pot 0 or side pot N (1 unnumbered)."""
    slot_of = P[9]
    lit = P[1]
    pot_words = P[16]
    if V[V_SECTION] != SEC_PLAY and V[V_SECTION] != SEC_SHOWDOWN:
        return _fail(V, X_BEFORE_DEAL, line, 3, 0, 0)
    ps = slot_of[t, F_POT]
    # (a room that names no pot in its award line: the pot it is paid from is not said, pot 0)
    side = ps >= 0 and _lit_is(data, slots[ps, 0], slots[ps, 1], lit, pot_words[0], pot_words[1])
    numbered = _flag(slots, t, F_NUMBERED, P)
    if numbered and not side:
        return _fail(V, X_NOT_UNDERSTOOD, line, 0, 0, 0)
    pot = 0
    if side:
        pot = 1
        if numbered:
            ns = slot_of[t, F_SIDE]
            if slots[ns, 1] - slots[ns, 0] > 4:
                return _fail(V, X_SIDE_POT_RANGE, line, slots[ns, 0], slots[ns, 1], 0)
            pot = _int(data, slots[ns, 0], slots[ns, 1])
    if pot > 10:
        return _fail(V, X_SIDE_POT, line, pot, 0, 0)
    row = _event(ev, V, E_AWARD, seat)
    if row < 0:
        return False
    ev[row, C_POT] = pot
    ev[row, C_AMOUNT] = _value(data, slots, t, F_AMOUNT, P, V)
    V[V_AWARDS] += 1
    return True


@callee
def _unmatched(S):  # pragma: no cover - compiled
    """(the seat, the chips) of the unmatched part of the last betting round's top bet; (-1, 0) for none."""
    now = False
    for o in range(11):
        if S[R_IN_ROUND, o] and S[R_ROUND_IN, o] > 0:
            now = True
    top = -1
    top_v = np.int64(0)
    for o in range(11):
        if S[R_IN_ROUND, o] if now else S[R_LAST_IN, o]:
            v = S[R_ROUND_IN, o] if now else S[R_LAST_BETS, o]
            if top < 0 or v > top_v:
                top, top_v = o, v
    if top < 0:
        return -1, np.int64(0)
    second = np.int64(0)
    for o in range(11):
        if (S[R_IN_ROUND, o] if now else S[R_LAST_IN, o]) and o != top:
            second = max(second, S[R_ROUND_IN, o] if now else S[R_LAST_BETS, o])
    return top, top_v - second


@callee
def _totals(ev, V, seat, exact):  # pragma: no cover - compiled
    """(chips put in, awarded, raked, the last action's or kill's row, the last post's or hole deal's row, the
    row of `seat`'s award from the highest pot it won, of `exact` chips or its largest there: the pot nearest the
    unmatched chips, which a room paying them with the pot adds there)."""
    put = awarded = rake = np.int64(0)
    last = posted = mine = -1
    for row in range(V[V_EV0], V[V_NE]):
        kind = ev[row, C_KIND]
        if (kind in (E_POST, E_ACTION)) and ev[row, C_AMOUNT] >= 0:
            put += ev[row, C_AMOUNT]
        elif kind == E_AWARD:
            awarded += ev[row, C_AMOUNT]
            # (of a room naming no pot, every award is the main pot's until attributed: the one of exactly the
            # unmatched chips, which a room paying them as a pot of their own writes, else the seat's largest)
            if ev[row, C_SEAT] == seat and (mine < 0 or ev[row, C_POT] > ev[mine, C_POT] or (
                    ev[row, C_POT] == ev[mine, C_POT] and ev[mine, C_AMOUNT] != exact
                    and (ev[row, C_AMOUNT] >= ev[mine, C_AMOUNT] or ev[row, C_AMOUNT] == exact))):
                mine = row
        elif kind == E_RAKE:
            rake += ev[row, C_AMOUNT]
        if kind in (E_ACTION, E_KILL):
            last = row
        elif kind == E_POST or (kind == E_DEAL and ev[row, C_TARGET] == 0):
            posted = row
    return put, awarded, rake, last, posted, mine


@callee
def _implied_return(ev, V, S, h, k):  # pragma: no cover - compiled
    """The uncalled return a room leaves out of its text (with no return written): the dialect's
    `implied_uncalled_return` in a hand whose header carries its evidence (the chips put in exceed the chips paid
    by exactly the unmatched part of the last round's top bet, and the stated total is the awards, plus the
    rake), or its `uncalled_return: in_the_award` (the bettor's award holds that part: every chip put in was paid
    out and the stated total is the awards), or `not_written` (a room that never writes one: the part is returned;
    it is in the bettor's award where the chips not paid out are fewer than it, as when every chip was paid out),
    or `paid_as_a_pot` (never written, always paid to the bettor as a pot of its own: taken from the award), or
    `not_written_nor_awarded` (never written and never in an award: the part is returned, no award
    touched, so an award holding those chips too is chips from nowhere, for the rules).
    The return is written after the last action or kill, and taken from the bettor's award where it was paid
    with it. True when it was written."""
    older = h[k, H_IMPLIED] and h[k, H_OLDER]
    in_award = h[k, H_RETURN_MODE] == U_IN_THE_AWARD
    derived = h[k, H_RETURN_MODE] == U_NOT_WRITTEN or h[k, H_RETURN_MODE] == U_PAID_AS_A_POT or \
        h[k, H_RETURN_MODE] == U_NOT_AWARDED
    if V[V_RETURNS] or (V[V_TOTAL_POT] < 0 and not derived) or not (older or in_award or derived):
        return False
    top, unmatched = _unmatched(S)
    # (a bettor who then folded is paid back the part no one matched too, where no return is ever written)
    if top < 0 or unmatched <= 0 or (S[R_FOLDED, top] and not derived):
        return False
    put, awarded, rake, last, posted, mine = _totals(ev, V, top, unmatched)
    if last < 0 and (in_award or derived):  # no action (all in through the blinds): after the posts and deal
        last = posted
    if older and (put - awarded - rake != unmatched
                  or (V[V_TOTAL_POT] != awarded + rake and V[V_TOTAL_POT] != awarded)):
        return False
    if last < 0 or V[V_NE] >= ev.shape[0]:
        return False
    if in_award and (put - awarded - rake != 0 or V[V_TOTAL_POT] != awarded):
        return False
    # paid with the bettor's award (a room paying it as a pot of its own always pays it so)
    if in_award or (derived and h[k, H_RETURN_MODE] != U_NOT_AWARDED and (
            put - awarded - rake < unmatched or h[k, H_RETURN_MODE] == U_PAID_AS_A_POT)):
        if mine < 0 or ev[mine, C_AMOUNT] < unmatched:
            return False
        ev[mine, C_AMOUNT] -= unmatched
        if ev[mine, C_AMOUNT] == 0:  # the award was the return alone
            for row in range(mine, V[V_NE] - 1):
                for c in range(ev.shape[1]):
                    ev[row, c] = ev[row + 1, c]
            V[V_NE] -= 1
    _insert(ev, V, S, last + 1, E_RETURN, top)  # room checked above, before the award was touched
    ev[last + 1, C_AMOUNT] = unmatched
    return True


@callee
def _derived_rake(ev, V, h, k):  # pragma: no cover - compiled
    """The rake of a cash hand of a room that writes none (`rake_line: not_written`): the chips put in, less those
    returned and those awarded, when that is more than nothing (`H_RAKED`); awards above the chips in are left to
    the rules.
    False only when the rows are full."""
    put, awarded, rake, _, _, _ = _totals(ev, V, -1, -1)
    for row in range(V[V_EV0], V[V_NE]):
        if ev[row, C_KIND] == E_RETURN:
            put -= ev[row, C_AMOUNT]
    if put - awarded - rake <= 0:
        return True
    row = _event(ev, V, E_RAKE, -1)
    if row < 0:
        return False
    ev[row, C_AMOUNT] = put - awarded - rake
    h[k, H_RAKED] = 1
    return True


@callee
def _finish(ev, V, S, h, k, cards, s_out, ent, count):  # pragma: no cover - compiled
    """The hand's end checked (dealt, summarised, shown down when contested, awarded), its hole cards, draws and
    seat rows written."""
    if V[V_SECTION] == SEC_PREDEAL:
        return _fail(V, X_NO_HOLE_CARDS, -1, 0, 0, 0)
    # (a room whose showdown marker closes the hand, with no summary: `summary_section: none`)
    if V[V_SECTION] != SEC_SUMMARY and not (1 <= h[k, H_NO_SUMMARY] <= 2 and V[V_SECTION] == SEC_SHOWDOWN):
        return _fail(V, X_NO_SUMMARY, -1, 0, 0, 0)
    live = 0
    for o in range(11):
        if S[R_HOLE_ROW, o] >= 0 and not S[R_FOLDED, o]:
            live += 1
    if live > 1 and not V[V_SHOWDOWN]:
        return _fail(V, X_NO_SHOWDOWN, -1, live, 0, 0)
    if V[V_AWARDS] == 0 and h[k, H_SUMMARY_AWARDS]:  # the room writes an uncontested pot's award in the summary
        for o in range(11):
            if S[R_SUMMARY_WON, o] > 0:
                row = _event(ev, V, E_AWARD, o)
                if row < 0:
                    return _fail(V, X_TOO_LONG, -1, 0, 0, 0)
                ev[row, C_POT] = 0
                ev[row, C_AMOUNT] = S[R_SUMMARY_WON, o]
                V[V_AWARDS] += 1
    if V[V_AWARDS] == 0:
        return _fail(V, X_NO_AWARD, -1, 0, 0, 0)
    hole = h[k, H_HOLE]
    for o in range(11):
        row = S[R_HOLE_ROW, o]
        if row < 0:
            continue
        if S[R_HOLE_LO, o] < 0 and S[R_KNOWN_LO, o] >= 0:
            S[R_HOLE_LO, o] = S[R_KNOWN_LO, o]
            S[R_HOLE_HI, o] = S[R_KNOWN_HI, o]
        if S[R_HOLE_LO, o] < 0:
            if V[V_NC] + hole > cards.shape[0]:
                return _fail(V, X_TOO_LONG, -1, 0, 0, 0)
            S[R_HOLE_LO, o] = V[V_NC]
            for _ in range(hole):
                cards[V[V_NC]] = UNKNOWN
                V[V_NC] += 1
            S[R_HOLE_HI, o] = V[V_NC]
        ev[row, C_CARD_LO] = S[R_HOLE_LO, o]
        ev[row, C_CARD_HI] = S[R_HOLE_HI, o]
    for row in range(V[V_EV0], V[V_NE]):  # draws whose received cards the text does not show: unknown
        if ev[row, C_KIND] == E_DRAW and ev[row, C_RECEIVE_LO] == -2:
            n = ev[row, C_RECEIVE_HI]
            if V[V_NC] + n > cards.shape[0]:
                return _fail(V, X_TOO_LONG, -1, 0, 0, 0)
            ev[row, C_RECEIVE_LO] = V[V_NC]
            for _ in range(n):
                cards[V[V_NC]] = UNKNOWN
                V[V_NC] += 1
            ev[row, C_RECEIVE_HI] = V[V_NC]
    h[k, H_RETURNED] = 1 if _implied_return(ev, V, S, h, k) else 0
    h[k, H_RAKED] = 0
    # (a tournament takes no rake: its chips not paid out stay unpaid, for the rules)
    if h[k, H_RAKE_DERIVED] and not h[k, H_TOURNAMENT] and not _derived_rake(ev, V, h, k):
        return _fail(V, X_TOO_LONG, -1, 0, 0, 0)
    if V[V_NS] + count > s_out.shape[0]:
        return _fail(V, X_TOO_LONG, -1, 0, 0, 0)
    highest = 0
    for seat in range(S.shape[1]):  # the entries by seat, a seat's in the order written
        first = True
        for j in range(count):
            if ent[j, 0] != seat:
                continue
            row = V[V_NS]
            s_out[row, S_SEAT] = seat
            s_out[row, S_STACK] = _scaled(ent[j, 3], ent[j, 4], V[V_SCALE])
            s_out[row, S_NAME_LO] = ent[j, 1]
            s_out[row, S_NAME_HI] = ent[j, 2]
            # the first entry of a seat has the seat's status; a seat listed again keeps its own, as written
            s_out[row, S_STATUS] = (1 if S[R_SITTING_OUT, seat] else 0) if first else (1 if ent[j, 5] else 0)
            first = False
            V[V_NS] += 1
            highest = seat
    h[k, H_HIGHEST] = highest
    return True


@callee
def _open(data, starts, ends, flags, h, k, P, ev, st_t, st_seat, st_slots, st_err, stack, S, V, ent, names, ns, ne,
          nc):  # pragma: no cover - compiled
    """A hand (`h[k]`) opened for the ledger (`convert` plays it): the state (`S`, `V`, `ent`, `names`) cleared,
    its seat list read, its lines recognised, its money scale found, its button written; its rows from seat row
    `ns`, event row `ne` and card `nc` on. Returns (its first line after the seat list, its seat entries), or
    (-1, 0) with V's error set."""
    S[:, :] = 0
    S[R_HOLE_ROW:R_LAST_DRAW + 1, :] = -1
    V[:] = 0
    V[V_NE] = ne
    V[V_NC] = nc
    V[V_NS] = ns
    V[V_EV0] = ne
    V[V_SB_POSTED] = -1
    V[V_BB_POSTED] = -1
    V[V_ANTE] = -1
    V[V_TOTAL_POT] = -1
    lo, hi = h[k, H_LINE_LO], h[k, H_LINE_HI]
    ent[:, :] = 0
    names[:, :] = 0
    slots = st_slots[0]
    i, count = _seat_list(data, starts, ends, flags, lo, hi, P, S, V, ent, names, slots, stack)
    if i < 0:
        return -1, 0
    if count == 0:  # a first seat line the template does not read is damaged; no seat line at all, truncated
        if i < hi and _seat_lead_at(data, starts[i], ends[i], P):
            _fail(V, X_SEAT_LINE, i, 0, 0, 0)
        else:
            _fail(V, X_NO_SEATS, -1, 0, 0, 0)
        return -1, 0
    for j in range(count):
        seat = ent[j, 0]
        if not S[R_PRESENT, seat]:
            S[R_PRESENT, seat] = 1
            S[R_SITTING_OUT, seat] = 1 if ent[j, 5] else 0
            S[R_ABSENT, seat] = 1 if ent[j, 5] == 2 else 0
    places = _recognise(data, starts, ends, flags, i, hi, P, names, count, st_t, st_seat, st_slots, st_err, stack)
    if h[k, H_SILENT_OUT] and not h[k, H_TOURNAMENT]:  # a cash seat no line of the hand names: sitting out
        for j in range(count):
            seat = ent[j, 0]
            named = False
            for j2 in range(hi - i):
                named = named or st_seat[j2] == seat
            if not S[R_SITTING_OUT, seat] and not named:
                S[R_SITTING_OUT, seat] = 1
                h[k, H_SILENCED] += 1
    scale = max(places, V[V_PLACES], h[k, H_SMALL_PLACES], h[k, H_BIG_PLACES], h[k, H_PLACES])
    V[V_SCALE] = scale
    for j in range(count):  # a seat listed twice: its two players' chips counted together
        S[R_LEFT, ent[j, 0]] += _scaled(ent[j, 3], ent[j, 4], scale)
        S[R_LEFT_PLACES, ent[j, 0]] = max(S[R_LEFT_PLACES, ent[j, 0]], ent[j, 4])
    if _event(ev, V, E_BUTTON, h[k, H_BUTTON]) < 0:
        _fail(V, X_TOO_LONG, -1, 0, 0, 0)
        return -1, 0
    V[V_SECTION] = SEC_PREDEAL
    if h[k, H_DEAL_MODE] == D_NO_MARKER:  # no hole-cards marker (`hole_cards_marker: none`): the first line of play
        V[V_DEAL_PENDING] = 1  # after the posts deals
    return i, count


@njit(cache=True)
def convert(data, starts, ends, flags, h, P, s_out, ev, cards, width):  # pragma: no cover - compiled
    """Every hand of `h` (rows `H_COLUMNS`, the inputs set by the driver) read into seat rows, event rows and
    cards, in order; a hand that fails leaves no rows and its error in `h`. Returns (seats, events, cards)."""
    ns = 0
    ne = 0
    nc = 0
    longest = 1
    for k in range(h.shape[0]):
        longest = max(longest, h[k, H_LINE_HI] - h[k, H_LINE_LO])
    st_t = np.zeros(longest, dtype=np.int64)
    st_seat = np.zeros(longest, dtype=np.int64)
    st_slots = np.zeros((longest, width, 2), dtype=np.int64)
    st_err = np.zeros(longest, dtype=np.int64)
    stack = np.zeros((STACK, 3), dtype=np.int64)
    S = np.zeros((N_R, 11), dtype=np.int64)
    V = np.zeros(N_V, dtype=np.int64)
    ent = np.zeros((64, 6), dtype=np.int64)
    names = np.zeros((64, 3), dtype=np.int64)
    board = np.zeros(64, dtype=np.int64)
    for k in range(h.shape[0]):
        # the hand played here, not in a kernel of its own: a kernel's compile compiles again every kernel it calls,
        # and a kernel per hand between this loop and the statements cost 2.5 s more of the first compile
        h[k, H_EV_LO] = ne
        i, count = _open(data, starts, ends, flags, h, k, P, ev, st_t, st_seat, st_slots, st_err, stack, S, V, ent,
                         names, ns, ne, nc)
        if i >= 0:  # opened: its lines played, then its end checked
            board[:] = 0
            for line in range(i, h[k, H_LINE_HI]):
                j = line - i
                if st_err[j]:
                    _fail(V, st_err[j], line, st_slots[j, 0, 0], st_slots[j, 0, 1], 0)
                    break
                t = st_t[j]
                if t >= 0 and not _statement(data, st_slots[j], t, st_seat[j], ev, V, S, h, k, P, cards, board,
                                             ent, count, line):
                    if V[V_ERROR] == 0:
                        _fail(V, X_TOO_LONG, line, 0, 0, 0)
                    break
            if V[V_ERROR] == 0:
                _finish(ev, V, S, h, k, cards, s_out, ent, count)
        if V[V_ERROR]:
            h[k, H_OK] = 0
            h[k, H_ERROR] = V[V_ERROR]
            h[k, H_ERROR_LINE] = V[V_ERROR_LINE]
            h[k, H_ARG0] = V[V_ARG0]
            h[k, H_ARG1] = V[V_ARG1]
            h[k, H_ARG2] = V[V_ARG2]
            h[k, H_ARG3] = V[V_ARG3]
            h[k, H_ARG4] = V[V_ARG4]
            h[k, H_SEAT_LO] = ns
            h[k, H_SEAT_HI] = ns
            h[k, H_EV_HI] = ne
            h[k, H_PLACES] = V[V_SCALE]
            continue
        h[k, H_OK] = 1
        h[k, H_PLACES] = V[V_SCALE]
        h[k, H_SB] = V[V_SB_POSTED]
        if h[k, H_BIG] < 0:  # no stakes written (`stakes_written: posted`): the big blind posted in full, if any
            h[k, H_BIG] = V[V_BB_POSTED]
            h[k, H_BIG_PLACES] = V[V_SCALE]
        h[k, H_ANTE] = V[V_ANTE]
        h[k, H_SEAT_LO] = ns
        h[k, H_SEAT_HI] = V[V_NS]
        h[k, H_EV_HI] = V[V_NE]
        ns = V[V_NS]
        ne = V[V_NE]
        nc = V[V_NC]
    return ns, ne, nc
