"""The per-hand event-loop kernel: one compiled pass over every hand's events.

Why a kernel: the Python engine it replaced (deleted) walked Python objects per event, about 230 µs a
hand; this is the same state machine over the flat arrays of `encode.Encoded`, written so that Numba
compiles it (`@njit(cache=True)`), and with `NUMBA_DISABLE_JIT=1` it runs as plain Python for debugging.

It is the one betting state machine: betting for every structure, posts, deals, draws, shows, mucks,
kills, returns, awards and rakes, exactly as `_HandReplay` does them (the reference is the specification,
down to the insertion order of its round dictionary, which decides ties between equal contributions). It
writes the actions, rounds and draws rows into preallocated arrays, and each hand's end state (per seat
and per hand) that the end-of-hand kernels (pots, blinds, showdown) and the cross-hand kernel read.

Hands are independent here: nothing crosses from one hand to the next (the cross-hand part is `table.py`).
Every index is a seat already checked to lie in 1..MAX_SEAT (`encode`), a card list bounded by the
scratch space (a hand that would overflow it is flagged `overflow`, never written past), or a row counter
bounded by the preallocated size (at most one row per event).

Compile time (the first run after an install waits for it): the outputs are a few int64/bool tables written by
column number (`A_*`, `R_*`, ...; `named` gives them back by name and dtype), not one array per column, and
every scalar handed to a helper kernel starts as `np.int64(...)`/`np.bool_(...)`, never a bare literal:
Numba compiles a callee once per distinct argument type, and `0` is typed `Literal[int](0)` until the loop's
other assignments unify it, so a literal start compiled each helper two to eight times over.
Every kernel here is `no_rewrites=True`: Numba's rewrite passes (semantic constants, dead-branch pruning,
array expressions, constant getitems) find nothing to gain in scalar loops over int64 tables, and on
`replay_hands` they cost ~1.1 s of its ~11 s compile CPU (the kernel's run time unchanged, within noise).
"""

from __future__ import annotations

import numpy as np

from auditor.model.compiled import njit
from auditor.replay.kernel.encode import (
    K_ACTION,
    K_AWARD,
    K_BUTTON,
    K_DEAL,
    K_DRAW,
    K_KILL,
    K_MUCK,
    K_POST,
    K_RAKE,
    K_RETURN,
    K_SHOW,
    NULL,
    P_ANTE,
    P_BLIND,
    P_DEAD,
    P_MISSED,
    P_STRADDLE,
    S_ACTIVE,
    ST_FIXED,
    ST_SPREAD,
    T_BOARD,
    T_BURN,
    T_HOLE,
    V_BET,
    V_CALL,
    V_FOLD,
    V_RAISE,
    WIDTH,
)

#: cards a seat's held list may grow to in the kernel's scratch (a valid hand holds at most 5 + draws)
HOLE_CAP = 64
#: where a known card was seen, for the duplicate-card words: seat, burn, board, seat draw
WHERE_SEAT, WHERE_BURN, WHERE_BOARD, WHERE_DRAW = 0, 1, 2, 3
#: variant table columns (`variant_table`)
BOARD_MAX = 8
#: staged actions and rounds rows copied into their tables' columns at once (`replay_hands`' stage)
FLUSH_ROWS = 512


#: the names of `replay_hands`' outputs, group by group: the facts contract of the kernel, by name. The kernel
#: writes each group into one int64 (or bool) table, a row per column (few arrays compile fast: one Numba array
#: variable costs type inference and lowering, and ~150 separate ones cost ~20 s of the first run); `named`
#: turns the tables back into {group: {name: array}} in each column's own dtype, so callers read outputs by name
OUTPUTS = {
    "actions": ("hand", "event", "street", "seat", "player", "expected", "added", "made", "all_in", "current_bet",
                "owed", "largest", "increment", "is_bet", "is_raise", "full", "raises_before", "raise_number",
                "live", "active", "hu_start", "pot_before", "pot_limit_max", "bet_unit", "smin", "smax",
                "stack_before", "actor_folded", "actor_all_in", "open_full", "open_cumulative", "min_bet",
                "owed_full"),
    "rounds": ("hand", "seq", "close_seq", "street", "board_cards", "board_expected", "burns", "burns_expected",
               "live_at_deal", "live", "able", "pending", "pending_player", "end", "uncalled", "uncalled_player",
               "uncalled_expected", "returned", "returned_net", "actions", "draw_round", "balance"),
    "draws": ("hand", "event", "seat", "player", "expected", "discards", "receives", "folded"),
    "posts": ("hand", "number", "seat", "seq", "amount", "all_in"),
    "awards": ("hand", "pot", "seat", "amount", "seq"),
    "rakes": ("hand", "pot", "amount"),
    "known_cards": ("hand", "card", "where", "seat"),
    "hand": ("button", "burns_logged", "chips_in", "returned", "awarded", "rake", "balance", "lowest", "showdown",
             "first_shown", "expected_first", "final_aggressor", "final_round", "board_len", "board", "board_known",
             "dead", "hole_logged", "dup_cards", "overflow", "shared", "sb_seat", "b2_seat", "bbl_seat"),
    "seat": ("seated", "player", "status", "dealt", "folded", "killed", "all_in", "mucked", "shown", "ante_all_in",
             "total", "has_total", "returned", "live_posts", "dead_posts", "hole_dealt", "final", "final_known",
             "dealt_order", "shown_other"),
}
#: output groups that are rows (their tables have a row count)
ROW_GROUPS = ("actions", "rounds", "draws", "posts", "awards", "rakes", "known_cards")
#: internal columns of a row table after its output columns (not returned by `named`)
ROUND_INTERNAL = ("to_bettor",)
#: the per-hand outputs held in the kernel's int64 hand table (`board`, a (hand, card) array, is apart)
HAND_COLUMNS = tuple(name for name in OUTPUTS["hand"] if name != "board")
#: the per-hand-and-seat outputs held in the bool seat table and in the int64 one (`final`, cards, is apart)
SEAT_BOOL_COLUMNS = ("seated", "dealt", "folded", "killed", "all_in", "mucked", "shown", "ante_all_in", "has_total",
                     "final_known", "shown_other")
SEAT_INT_COLUMNS = tuple(name for name in OUTPUTS["seat"] if name not in SEAT_BOOL_COLUMNS and name != "final")
#: columns whose dtype is not int64 (the kernel writes them into int64 tables; `named` casts them back)
DTYPES = {
    ("actions", "all_in"): np.bool_,
    ("actions", "is_bet"): np.bool_,
    ("actions", "is_raise"): np.bool_,
    ("actions", "hu_start"): np.bool_,
    ("actions", "actor_folded"): np.bool_,
    ("actions", "actor_all_in"): np.bool_,
    ("actions", "open_full"): np.bool_,
    ("actions", "open_cumulative"): np.bool_,
    ("actions", "full"): np.int8,
    ("rounds", "end"): np.bool_,
    ("rounds", "draw_round"): np.bool_,
    ("draws", "folded"): np.bool_,
    ("posts", "all_in"): np.bool_,
    ("known_cards", "where"): np.int8,
    ("hand", "burns_logged"): np.bool_,
    ("hand", "showdown"): np.bool_,
    ("hand", "board_known"): np.bool_,
    ("hand", "hole_logged"): np.bool_,
    ("hand", "dup_cards"): np.bool_,
    ("hand", "overflow"): np.bool_,
    ("hand", "shared"): np.bool_,
    ("seat", "status"): np.int8,
}

# column numbers of the kernel's tables: the kernel reads and writes columns by these names only
(A_HAND, A_EVENT, A_STREET, A_SEAT, A_PLAYER, A_EXPECTED, A_ADDED, A_MADE, A_ALL_IN, A_CURRENT_BET, A_OWED,
    A_LARGEST, A_INCREMENT, A_IS_BET, A_IS_RAISE, A_FULL, A_RAISES_BEFORE, A_RAISE_NUMBER, A_LIVE, A_ACTIVE,
    A_HU_START, A_POT_BEFORE, A_POT_LIMIT_MAX, A_BET_UNIT, A_SMIN, A_SMAX, A_STACK_BEFORE, A_ACTOR_FOLDED,
    A_ACTOR_ALL_IN, A_OPEN_FULL, A_OPEN_CUMULATIVE, A_MIN_BET, A_OWED_FULL) = range(33)
(R_HAND, R_SEQ, R_CLOSE_SEQ, R_STREET, R_BOARD_CARDS, R_BOARD_EXPECTED, R_BURNS, R_BURNS_EXPECTED, R_LIVE_AT_DEAL,
    R_LIVE, R_ABLE, R_PENDING, R_PENDING_PLAYER, R_END, R_UNCALLED, R_UNCALLED_PLAYER, R_UNCALLED_EXPECTED,
    R_RETURNED, R_RETURNED_NET, R_ACTIONS, R_DRAW_ROUND, R_BALANCE, R_TO_BETTOR) = range(23)
(D_HAND, D_EVENT, D_SEAT, D_PLAYER, D_EXPECTED, D_DISCARDS, D_RECEIVES, D_FOLDED) = range(8)
(BP_HAND, BP_NUMBER, BP_SEAT, BP_SEQ, BP_AMOUNT, BP_ALL_IN) = range(6)
(AW_HAND, AW_POT, AW_SEAT, AW_AMOUNT, AW_SEQ) = range(5)
(RK_HAND, RK_POT, RK_AMOUNT) = range(3)
(KC_HAND, KC_CARD, KC_WHERE, KC_SEAT) = range(4)
(H_BUTTON, H_BURNS_LOGGED, H_CHIPS_IN, H_RETURNED, H_AWARDED, H_RAKE, H_BALANCE, H_LOWEST, H_SHOWDOWN, H_FIRST_SHOWN,
    H_EXPECTED_FIRST, H_FINAL_AGGRESSOR, H_FINAL_ROUND, H_BOARD_LEN, H_BOARD_KNOWN, H_DEAD, H_HOLE_LOGGED,
    H_DUP_CARDS, H_OVERFLOW, H_SHARED, H_SB_SEAT, H_B2_SEAT, H_BBL_SEAT) = range(23)
(SI_PLAYER, SI_STATUS, SI_TOTAL, SI_RETURNED, SI_LIVE_POSTS, SI_DEAD_POSTS, SI_HOLE_DEALT, SI_DEALT_ORDER) = range(8)
(SB_SEATED, SB_DEALT, SB_FOLDED, SB_KILLED, SB_ALL_IN, SB_MUCKED, SB_SHOWN, SB_ANTE_ALL_IN, SB_HAS_TOTAL,
    SB_FINAL_KNOWN, SB_SHOWN_OTHER) = range(11)
#: each kernel table by its column-number prefix: its columns in order
TABLES = {"A_": OUTPUTS["actions"], "R_": OUTPUTS["rounds"] + ROUND_INTERNAL, "D_": OUTPUTS["draws"],
          "BP_": OUTPUTS["posts"], "AW_": OUTPUTS["awards"], "RK_": OUTPUTS["rakes"], "KC_": OUTPUTS["known_cards"],
          "H_": HAND_COLUMNS, "SI_": SEAT_INT_COLUMNS, "SB_": SEAT_BOOL_COLUMNS}
#: the number of columns of each table (frozen into the kernel as constants)
N_A, N_R, N_D, N_BP, N_AW, N_RK, N_KC, N_H, N_SI, N_SB = (len(names) for names in TABLES.values())


def _check_columns() -> None:
    """The column numbers above are written out for the kernel (Numba reads module constants); fail at import
    if one no longer matches its name's place in `TABLES`, rather than write a column under another's name."""
    for prefix, names in TABLES.items():
        for k, name in enumerate(names):
            if globals()[prefix + name.upper()] != k:
                raise ImportError(f"kernel column {prefix}{name.upper()} is not column {k} of its table")


_check_columns()


@njit(cache=True, no_rewrites=True)
def _set_add(table, st, key):
    """Add a small int to an emulated CPython set (`table` of 32 slots, `st` = [mask, fill]), exactly as
    `setobject.c` places it (hash = the int; linear probes of 9 when they fit, else perturbed probing;
    resize to 4x the used count at 3/5 fill), so that walking the slots gives Python's iteration order: the
    reference walks sets of seats, and the order decides ties (its round dictionary's insertion order) and
    which seat a search finds first."""
    mask = st[0]
    for k in range(mask + 1):
        if table[k] == key:
            return
    _place(table, mask, key)
    st[1] += 1
    if st[1] * 5 >= mask * 3:
        size = 8
        while size <= st[1] * 4:
            size <<= 1
        old = np.empty(mask + 1, np.int64)
        for k in range(mask + 1):
            old[k] = table[k]
            table[k] = -1
        for k in range(len(table)):
            table[k] = -1
        for k in range(mask + 1):
            if old[k] >= 0:
                _place(table, size - 1, old[k])
        st[0] = size - 1


@njit(cache=True, no_rewrites=True)
def _place(table, mask, key):
    i = key & mask
    perturb = key
    while True:
        probes = 9 if i + 9 <= mask else 0
        for j in range(probes + 1):
            if table[i + j] < 0:
                table[i + j] = key
                return
        perturb >>= 5
        i = (i * 5 + 1 + perturb) & mask


@njit(cache=True, no_rewrites=True)
def _live_order(table, st, folded, out, scratch, st2):
    """Seats of `dealt_in - folded` in the order CPython iterates that set difference (`set_difference`:
    a copy of the dealt-in set less the folded when it is more than four times their number, else a new set
    filled in the dealt-in set's order); returns how many."""
    n_folded = 0
    for s in range(len(folded)):
        if folded[s]:
            n_folded += 1
    n = 0
    for k in range(st[0] + 1):
        s = table[k]
        if s >= 0 and not folded[s]:
            out[n] = s
            n += 1
    if (st[1] >> 2) > n_folded:
        return n
    for k in range(len(scratch)):
        scratch[k] = -1
    st2[0] = 7
    st2[1] = 0
    for k in range(n):
        _set_add(scratch, st2, out[k])
    m = 0
    for k in range(st2[0] + 1):
        if scratch[k] >= 0:
            out[m] = scratch[k]
            m += 1
    return m


@njit(cache=True, no_rewrites=True)
def _next_to_act(can, ncan, pointer, button, acted, rnd, bet):
    """Clockwise from the pointer (else the button, else seat 0): the first able seat that has not acted
    since the last full raise or has not matched the bet (`_HandReplay._next_to_act`)."""
    if ncan == 0:
        return -1
    start = pointer if pointer >= 0 else (button if button > 0 else 0)
    i = 0
    while i < ncan and can[i] <= start:
        i += 1
    for k in range(ncan):
        s = can[(i + k) % ncan]
        if not acted[s] or rnd[s] < bet:
            return s
    return -1


@njit(cache=True, no_rewrites=True)
def _round_limits(st, street, h, units, units_off, smin, smin_off, smax, smax_off, blinds, blinds_off, nbl):
    """What the structure says for betting round `street` of hand `h`, looked up once per round: the fixed-limit
    unit, the spread minimum and maximum (NULL where the hand gives none for that round) and the smallest
    opening bet (the unit, the spread minimum, else the last declared blind)."""
    bet_unit = NULL
    if st == ST_FIXED and street < units_off[h + 1] - units_off[h]:
        bet_unit = units[units_off[h] + street]
    smin_now = smin[smin_off[h] + street] if street < smin_off[h + 1] - smin_off[h] else NULL
    smax_now = smax[smax_off[h] + street] if street < smax_off[h + 1] - smax_off[h] else NULL
    if st == ST_FIXED:
        min_bet = bet_unit
    elif st == ST_SPREAD:
        min_bet = smin_now
    else:
        min_bet = blinds[blinds_off[h + 1] - 1] if nbl > 0 else NULL
    return bet_unit, smin_now, smax_now, min_bet


@njit(cache=True, no_rewrites=True)
def _clear_round(rnd, rins, acted, acted_full, acted_cum, round_returns):
    """Each seat's round state at the start of a betting round: nothing in, not met by the round's
    dictionary order yet, not acted under either reopening reading, nothing returned."""
    for s in range(WIDTH):
        rnd[s] = 0
        rins[s] = -1
        acted[s] = False
        acted_full[s] = False
        acted_cum[s] = False
        round_returns[s] = 0


@njit(cache=True, no_rewrites=True)
def _pending_at_close(seated, dealt, folded, all_in, can, pointer, button, acted, rnd, current_bet, rins, rcount,
                      dset, dst, live_order, dscratch, dst2):
    """Who still owed an action when a round closes (-1: nobody), the seats able to bet (`can`, its count),
    and the live players: the reference's `_close_round` reading, for a round closed by the next one or by
    the end of the hand alike. The last player able to bet owes an action only if someone still in has
    more in the round (facing only a blind posted all-in short, there is nothing to call). `rins` numbers
    seats in the order the reference's round dictionary first met them (ties between equal contributions
    follow it); the updated counter is returned."""
    ncan = np.int64(0)
    for s in range(WIDTH):
        if seated[s] and dealt[s] and not folded[s] and not all_in[s]:
            can[ncan] = s
            ncan += 1
    live_now = 0
    for s in range(WIDTH):
        if dealt[s] and not folded[s]:
            live_now += 1
    pending = -1
    if live_now >= 2:
        if ncan >= 2:
            pending = _next_to_act(can, ncan, pointer, button, acted, rnd, current_bet)
        elif ncan == 1:
            alone = can[0]
            if rins[alone] < 0:
                rins[alone] = rcount
                rcount += 1
            if rnd[alone] < current_bet:
                nlo = _live_order(dset, dst, folded, live_order, dscratch, dst2)
                for k in range(nlo):
                    s = live_order[k]
                    if s != alone:
                        if rins[s] < 0:
                            rins[s] = rcount
                            rcount += 1
                        if rnd[s] > rnd[alone]:
                            pending = alone
                            break
    return pending, ncan, live_now, rcount


@njit(cache=True, no_rewrites=True)
def replay_hands(order, caps, A, R,
                 variant, structure, blinds_off, blinds, units_off, units, smin_off, smin, smax_off, smax,
                 seat_start, s_seat, s_player, s_stack, s_status,
                 event_start, e_kind, e_seat, e_verb, e_post, e_blind, e_amount, e_target, e_pot,
                 cards_off, cards, receive_off, receive,
                 v_hole, v_rounds, v_schedule, v_draw_before, v_max_draw, v_board_cards, h_fraction):
    """Replay every hand of `order`; returns the kernel tables (`named` reads them by name).

    `caps` are the row capacities (actions, rounds, draws, blind posts, awards, rakes), each the count of the
    events that write such a row (rounds: deals and draws, plus one per hand), so no counter can pass its
    array and the batch allocates no more than it writes; then the rows of the actions and rounds stages
    (`FLUSH_ROWS` plus the most such rows one hand writes). `A` and `R`, the actions and rounds tables
    ((N_A, caps[0]) and (N_R, caps[1]), uninitialised), are the caller's: the largest tables, reused between
    batches (`buffers.Reused`)."""
    n = len(order)
    # ---- row tables, one row per event at most: one int64 table per group, columns by name (A_*, R_*, ...)
    if A.shape[0] != N_A or A.shape[1] < caps[0] or R.shape[0] != N_R or R.shape[1] < caps[1]:
        raise ValueError("replay_hands: the actions or rounds table is smaller than its capacity")
    na = np.int64(0)
    nr = np.int64(0)
    # ---- the actions and rounds rows are written row by row into a small stage (AS, RS: row r at r - a_base /
    # r - r_base) and copied into the tables' columns between hands (`_flush`), once `FLUSH_ROWS` rows wait: a
    # row's ~30 columns written straight into ~30 columns far apart in memory took the kernel about twice as
    # long (one memory stream per column defeats the hardware prefetcher). Rows of the hand being replayed are
    # never flushed (a round's row is completed when the round closes), so a stage holds `FLUSH_ROWS` plus the
    # most rows one hand writes (caps[6], caps[7])
    AS = np.empty((caps[6], N_A), np.int64)
    a_base = np.int64(0)
    RS = np.empty((caps[7], N_R), np.int64)
    r_base = np.int64(0)
    D = np.empty((N_D, caps[2]), np.int64)
    nd = np.int64(0)
    # ---- flat posts, awards, rakes (event order) and known cards
    BP = np.empty((N_BP, caps[3]), np.int64)
    nbp = np.int64(0)
    AW = np.empty((N_AW, caps[4]), np.int64)
    naw = np.int64(0)
    RK = np.empty((N_RK, caps[5]), np.int64)
    nrk = np.int64(0)
    KC = np.empty((N_KC, len(cards) + len(receive)), np.int64)
    nkc = np.int64(0)
    # ---- per hand (indexed by hand row, not by walk position): H_* columns
    nh = len(variant)
    H = np.zeros((N_H, nh), np.int64)
    H[H_BUTTON, :] = -1
    H[H_BALANCE, :] = NULL
    H[H_FIRST_SHOWN, :] = -1
    H[H_EXPECTED_FIRST, :] = -1
    H[H_FINAL_AGGRESSOR, :] = -1
    #: the first post of blind 1, of blind 2 and of the last declared blind (-1: none)
    H[H_SB_SEAT, :] = -1
    H[H_B2_SEAT, :] = -1
    H[H_BBL_SEAT, :] = -1
    h_board = np.full((nh, BOARD_MAX), -1, np.int64)
    # ---- per hand and seat: SI_* (int64) and SB_* (bool) columns, and the final cards
    SI = np.zeros((N_SI, nh, WIDTH), np.int64)
    SI[SI_PLAYER, :, :] = -1
    SI[SI_STATUS, :, :] = -1
    #: per hand, the seats dealt in in the reference's set order (the cross-hand kernel searches them so)
    SI[SI_DEALT_ORDER, :, :] = -1
    SB = np.zeros((N_SB, nh, WIDTH), np.bool_)
    hs_final = np.full((nh, WIDTH, 8), -1, np.int64)

    # ---- scratch state of one hand
    stack = np.zeros(WIDTH, np.int64)
    rnd = np.zeros(WIDTH, np.int64)
    rins = np.full(WIDTH, -1, np.int64)
    acted = np.zeros(WIDTH, np.int64)
    acted_full = np.zeros(WIDTH, np.int64)
    acted_cum = np.zeros(WIDTH, np.int64)
    drawn = np.zeros(WIDTH, np.int64)
    round_returns = np.zeros(WIDTH, np.int64)
    can = np.zeros(WIDTH, np.int64)
    tmp = np.zeros(WIDTH, np.int64)
    hole = np.full((WIDTH, HOLE_CAP), -1, np.int64)
    hole_len = np.zeros(WIDTH, np.int64)
    hole_unknown = np.zeros(WIDTH, np.int64)
    shown_cards = np.full((WIDTH, HOLE_CAP), -1, np.int64)
    shown_len = np.zeros(WIDTH, np.int64)
    seen_where = np.full(52, -1, np.int64)
    board = np.full(BOARD_MAX, -1, np.int64)
    dset = np.full(32, -1, np.int64)  # the dealt-in set, as CPython lays it out (see _set_add)
    dst = np.zeros(2, np.int64)
    dscratch = np.full(32, -1, np.int64)
    dst2 = np.zeros(2, np.int64)
    live_order = np.zeros(WIDTH, np.int64)

    for walk in range(n):
        a_base = _flush(AS, A, a_base, na, FLUSH_ROWS)
        r_base = _flush(RS, R, r_base, nr, FLUSH_ROWS)
        h = order[walk]
        lo_s, hi_s = seat_start[h], seat_start[h + 1]
        lo_e, hi_e = event_start[h], event_start[h + 1]
        v = variant[h]
        n_rounds = v_rounds[v]
        st = structure[h]
        nbl = blinds_off[h + 1] - blinds_off[h]
        frac = h_fraction[h]
        # reset scratch
        for s in range(WIDTH):
            stack[s] = 0
            hole_len[s] = 0
            hole_unknown[s] = False
            shown_len[s] = 0
            drawn[s] = False
        for c in range(52):
            seen_where[c] = -1
        for k in range(32):
            dset[k] = -1
        dst[0] = 7
        dst[1] = 0
        seated = SB[SB_SEATED, h]
        players = SI[SI_PLAYER, h]
        status = SI[SI_STATUS, h]
        dealt = SB[SB_DEALT, h]
        folded = SB[SB_FOLDED, h]
        all_in = SB[SB_ALL_IN, h]
        total = SI[SI_TOTAL, h]
        lowest = 0
        first_seat = True
        for r in range(lo_s, hi_s):
            s = s_seat[r]
            if seated[s]:
                H[H_SHARED, h] = True
                continue
            seated[s] = True
            players[s] = s_player[r]
            status[s] = s_status[r]
            stack[s] = s_stack[r]
            if first_seat or s_stack[r] < lowest:
                lowest = s_stack[r]
                first_seat = False
            if s_status[r] == S_ACTIVE:
                dealt[s] = True
        for s in range(WIDTH):  # the set comprehension of the active seats, in seat order
            if dealt[s]:
                _set_add(dset, dst, s)
        button = np.int64(-1)
        chips_in = 0
        dead = 0
        pot_in = 0
        burns_pending = 0
        burns_logged = False
        board_len = 0
        n_blind_posts = 0
        max_blind_no = 0
        hand_rake = 0
        hand_awarded = 0
        n_awards = 0
        show_first = -1
        draw_pointer = -1
        hole_logged = False
        last_aggressor = -1
        # ---- begin round 0
        first_rs = nr - r_base  # the hand's first rounds row, in the stage
        street = np.int64(0)
        rs = nr - r_base  # the round's row in the stage
        nr += 1
        RS[rs, R_HAND] = h
        RS[rs, R_SEQ] = -1
        RS[rs, R_STREET] = 0
        RS[rs, R_BOARD_CARDS] = 0
        RS[rs, R_BOARD_EXPECTED] = v_schedule[v, 0] if n_rounds > 0 else 0
        RS[rs, R_BURNS] = NULL
        RS[rs, R_BURNS_EXPECTED] = 0
        live_now = 0
        for s in range(WIDTH):
            if dealt[s] and not folded[s]:
                live_now += 1
        RS[rs, R_LIVE_AT_DEAL] = live_now
        RS[rs, R_DRAW_ROUND] = n_rounds > 0 and v_draw_before[v, 0]
        bet_unit, smin_now, smax_now, min_bet = _round_limits(st, street, h, units, units_off, smin, smin_off, smax,
                                                              smax_off, blinds, blinds_off, nbl)
        _clear_round(rnd, rins, acted, acted_full, acted_cum, round_returns)
        rcount = np.int64(0)
        current_bet = np.int64(0)
        largest = 0
        reopen_base = 0
        short_base = 0
        raises = 0
        pointer = button
        round_start_active = -1
        round_actions = np.int64(0)
        round_returned = np.int64(0)

        for i in range(lo_e, hi_e):
            kind = e_kind[i]
            seq = i - lo_e
            seat = e_seat[i]
            opens = -1  # the street a new round opens at this event (-1: none)
            if kind == K_DEAL and e_target[i] == T_BOARD:
                if round_actions > 0 or RS[rs, R_BOARD_CARDS] >= RS[rs, R_BOARD_EXPECTED]:
                    opens = street + 1
            elif kind == K_DRAW:
                nxt = street + 1
                if nxt < n_rounds and v_draw_before[v, nxt]:
                    opens = nxt
            if opens >= 0:
                # ---- close the current round ("next round")
                pending, ncan, live_now, rcount = _pending_at_close(
                    seated, dealt, folded, all_in, can, pointer, button, acted, rnd, current_bet, rins, rcount,
                    dset, dst, live_order, dscratch, dst2)
                _close_round(rs, pending, ncan, np.bool_(False), seq, live_now, round_returned,
                             round_actions, rnd, rins, folded, all_in, round_returns, players,
                             RS, tmp)
                # ---- begin the next round
                street = opens
                rs = nr - r_base
                nr += 1
                RS[rs, R_HAND] = h
                RS[rs, R_SEQ] = seq
                RS[rs, R_STREET] = street
                RS[rs, R_BOARD_CARDS] = 0
                inside = street < n_rounds
                RS[rs, R_BOARD_EXPECTED] = v_schedule[v, street] if inside else 0
                RS[rs, R_BURNS] = NULL
                RS[rs, R_BURNS_EXPECTED] = 1 if (street > 0 and inside and v_schedule[v, street] > 0) else 0
                RS[rs, R_LIVE_AT_DEAL] = live_now
                RS[rs, R_DRAW_ROUND] = inside and v_draw_before[v, street]
                bet_unit, smin_now, smax_now, min_bet = _round_limits(st, street, h, units, units_off, smin, smin_off,
                                                                      smax, smax_off, blinds, blinds_off, nbl)
                _clear_round(rnd, rins, acted, acted_full, acted_cum, round_returns)
                rcount = np.int64(0)
                current_bet = np.int64(0)
                largest = 0
                reopen_base = 0
                short_base = 0
                raises = 0
                pointer = button
                round_start_active = -1
                round_actions = np.int64(0)
                round_returned = np.int64(0)
                last_aggressor = -1
                if kind == K_DRAW:
                    draw_pointer = button
                    for s in range(WIDTH):
                        drawn[s] = False

            if kind == K_ACTION:
                verb = e_verb[i]
                amount = e_amount[i]
                added = amount if amount != NULL else 0
                ncan = np.int64(0)
                for s in range(WIDTH):
                    if seated[s] and dealt[s] and not folded[s] and not all_in[s]:
                        can[ncan] = s
                        ncan += 1
                expected = _next_to_act(can, ncan, pointer, button, acted, rnd, current_bet)
                if round_start_active < 0:
                    round_start_active = ncan
                live_now = 0
                for s in range(WIDTH):
                    if dealt[s] and not folded[s]:
                        live_now += 1
                if rins[seat] < 0:
                    rins[seat] = rcount
                    rcount += 1
                owed_full = current_bet - rnd[seat]
                if owed_full < 0:
                    owed_full = 0
                owed = owed_full
                only_me = True
                for k in range(ncan):
                    if can[k] != seat:
                        only_me = False
                if owed > 0 and only_me:
                    matched = 0
                    nlo = _live_order(dset, dst, folded, live_order, dscratch, dst2)
                    for k in range(nlo):
                        s = live_order[k]
                        if s != seat:
                            if rins[s] < 0:
                                rins[s] = rcount
                                rcount += 1
                            if rnd[s] > matched:
                                matched = rnd[s]
                    cap = current_bet if current_bet < matched else matched
                    owed = cap - rnd[seat]
                    if owed < 0:
                        owed = 0
                pot_before = pot_in
                stack_before = stack[seat]
                actor_folded = folded[seat]
                actor_all_in = all_in[seat]
                open_full = not acted_full[seat]
                open_cumulative = not acted_cum[seat]
                bet_before = current_bet
                largest_before = largest
                raises_before = raises
                round_actions += 1
                j = na
                ja = j - a_base  # its row in the stage
                na += 1
                AS[ja, A_HAND] = h
                AS[ja, A_EVENT] = i
                AS[ja, A_STREET] = street
                AS[ja, A_SEAT] = seat
                AS[ja, A_PLAYER] = players[seat]
                AS[ja, A_EXPECTED] = expected
                AS[ja, A_ADDED] = added
                AS[ja, A_CURRENT_BET] = bet_before
                AS[ja, A_OWED] = owed
                AS[ja, A_LARGEST] = largest_before
                AS[ja, A_RAISES_BEFORE] = raises_before
                AS[ja, A_LIVE] = live_now
                AS[ja, A_ACTIVE] = ncan
                AS[ja, A_POT_BEFORE] = pot_before
                AS[ja, A_BET_UNIT] = bet_unit
                AS[ja, A_SMIN] = smin_now
                AS[ja, A_SMAX] = smax_now
                AS[ja, A_STACK_BEFORE] = stack_before
                AS[ja, A_ACTOR_FOLDED] = actor_folded
                AS[ja, A_ACTOR_ALL_IN] = actor_all_in
                AS[ja, A_MIN_BET] = min_bet
                AS[ja, A_OWED_FULL] = owed_full
                AS[ja, A_HU_START] = round_start_active == 2
                AS[ja, A_POT_LIMIT_MAX] = bet_before + pot_before + owed_full
                if actor_folded or (actor_all_in and verb != V_FOLD):
                    AS[ja, A_MADE] = rnd[seat]
                    AS[ja, A_ALL_IN] = False
                    AS[ja, A_INCREMENT] = NULL
                    AS[ja, A_IS_BET] = False
                    AS[ja, A_IS_RAISE] = False
                    AS[ja, A_FULL] = -1
                    AS[ja, A_RAISE_NUMBER] = raises_before
                    AS[ja, A_OPEN_FULL] = False
                    AS[ja, A_OPEN_CUMULATIVE] = False
                    continue
                chips = verb in (V_CALL, V_BET, V_RAISE)
                aggressive = verb in (V_BET, V_RAISE)
                if chips:
                    stack[seat] = stack_before - added
                    rnd[seat] += added
                    total[seat] += added
                    SB[SB_HAS_TOTAL, h, seat] = True
                    pot_in += added
                    chips_in += added
                    if stack[seat] < lowest:
                        lowest = stack[seat]
                made = rnd[seat]
                went_all_in = chips and stack[seat] <= 0
                if went_all_in:
                    all_in[seat] = True
                increment = NULL
                full = -1
                is_raise = aggressive and bet_before > 0
                is_bet = aggressive and bet_before == 0
                if aggressive:
                    increment = made - bet_before
                    is_full = increment >= frac * bet_unit if bet_unit != NULL else increment >= largest_before
                    full = 1 if is_full else 0
                    if is_full:
                        if is_raise:
                            raises += 1
                        if increment > largest_before:
                            largest = increment
                        for s in range(WIDTH):
                            acted[s] = False
                        acted[seat] = True
                        reopen_base = made
                    elif bet_unit == NULL and made - reopen_base >= largest_before:
                        for s in range(WIDTH):
                            acted[s] = False
                        acted[seat] = True
                        reopen_base = made
                    else:
                        acted[seat] = True
                    # the two neutral readings of "reopened" (TDA 47-A/B are the pack's to choose)
                    if is_full:
                        for s in range(WIDTH):
                            acted_full[s] = False
                            acted_cum[s] = False
                        acted_full[seat] = True
                        acted_cum[seat] = True
                        short_base = made
                    else:
                        acted_full[seat] = True
                        if (made - short_base >= frac * bet_unit) if bet_unit != NULL else \
                                (made - short_base >= largest_before):
                            for s in range(WIDTH):
                                acted_cum[s] = False
                            acted_cum[seat] = True
                            short_base = made
                        else:
                            acted_cum[seat] = True
                    if made > current_bet:
                        current_bet = made
                    last_aggressor = seat
                else:
                    acted[seat] = True
                    acted_full[seat] = True
                    acted_cum[seat] = True
                    if verb == V_FOLD:
                        folded[seat] = True
                if expected < 0 or seat == expected:
                    pointer = seat
                AS[ja, A_MADE] = made
                AS[ja, A_ALL_IN] = went_all_in
                AS[ja, A_INCREMENT] = increment
                AS[ja, A_IS_BET] = is_bet
                AS[ja, A_IS_RAISE] = is_raise
                AS[ja, A_FULL] = full
                AS[ja, A_RAISE_NUMBER] = raises if is_raise else raises_before
                AS[ja, A_OPEN_FULL] = open_full
                AS[ja, A_OPEN_CUMULATIVE] = open_cumulative
            elif kind == K_POST:
                amount = e_amount[i]
                pk = e_post[i]
                stack[seat] = stack[seat] - amount
                chips_in += amount
                if stack[seat] < lowest:
                    lowest = stack[seat]
                if stack[seat] <= 0:
                    all_in[seat] = True
                if pk in (P_BLIND, P_STRADDLE, P_MISSED):
                    if rins[seat] < 0:
                        rins[seat] = rcount
                        rcount += 1
                    rnd[seat] += amount
                    total[seat] += amount
                    SB[SB_HAS_TOTAL, h, seat] = True
                    pot_in += amount
                    before = current_bet
                    if rnd[seat] > current_bet:
                        current_bet = rnd[seat]
                    blind = e_blind[i]
                    if pk == P_BLIND and blind >= 1:
                        declared = blinds[blinds_off[h] + blind - 1] if blind <= nbl else amount
                        if declared > largest:
                            largest = declared
                        if declared > current_bet:
                            current_bet = declared
                        reopen_base = current_bet
                        short_base = current_bet
                        b = nbp
                        nbp += 1
                        BP[BP_HAND, b] = h
                        BP[BP_NUMBER, b] = blind
                        BP[BP_SEAT, b] = seat
                        BP[BP_SEQ, b] = seq
                        BP[BP_AMOUNT, b] = amount
                        BP[BP_ALL_IN, b] = all_in[seat]
                        n_blind_posts += 1
                        if blind == 1 and H[H_SB_SEAT, h] < 0:
                            H[H_SB_SEAT, h] = seat
                        if blind == 2 and H[H_B2_SEAT, h] < 0:
                            H[H_B2_SEAT, h] = seat
                        if blind == nbl and H[H_BBL_SEAT, h] < 0:
                            H[H_BBL_SEAT, h] = seat
                        if blind > max_blind_no:
                            max_blind_no = blind
                        if blind >= max_blind_no:
                            pointer = seat
                    elif pk == P_STRADDLE:
                        if current_bet - before > largest:
                            largest = current_bet - before
                        reopen_base = current_bet
                        short_base = current_bet
                        pointer = seat
                elif pk == P_ANTE:
                    total[seat] += amount
                    SB[SB_HAS_TOTAL, h, seat] = True
                    pot_in += amount
                    if all_in[seat] and n_blind_posts == 0:
                        SB[SB_ANTE_ALL_IN, h, seat] = True
                else:
                    dead += amount
                    pot_in += amount
                if pk == P_MISSED:
                    SI[SI_LIVE_POSTS, h, seat] += amount
                elif pk == P_DEAD:
                    SI[SI_DEAD_POSTS, h, seat] += amount
            elif kind == K_DEAL:
                target = e_target[i]
                c0, c1 = cards_off[i], cards_off[i + 1]
                if target == T_HOLE and seat >= 0:
                    hole_logged = True
                    for k in range(c0, c1):
                        if hole_len[seat] < HOLE_CAP:
                            hole[seat, hole_len[seat]] = cards[k]
                            hole_len[seat] += 1
                        else:
                            H[H_OVERFLOW, h] = True
                        if cards[k] >= 0:
                            nkc = _known(h, cards[k], np.int64(WHERE_SEAT), seat, seen_where, H, KC, nkc)
                    SI[SI_HOLE_DEALT, h, seat] += c1 - c0
                    dealt[seat] = True
                    _set_add(dset, dst, seat)
                elif target == T_BURN:
                    burns_pending += 1
                    burns_logged = True
                    for k in range(c0, c1):
                        if cards[k] >= 0:
                            nkc = _known(h, cards[k], np.int64(WHERE_BURN), np.int64(0), seen_where, H, KC, nkc)
                elif target == T_BOARD:
                    if RS[rs, R_SEQ] == -1:
                        RS[rs, R_SEQ] = seq
                    RS[rs, R_BOARD_CARDS] += c1 - c0
                    RS[rs, R_BURNS] = (RS[rs, R_BURNS] if RS[rs, R_BURNS] != NULL else 0) + burns_pending
                    live_now = 0
                    for s in range(WIDTH):
                        if dealt[s] and not folded[s]:
                            live_now += 1
                    RS[rs, R_LIVE_AT_DEAL] = live_now
                    burns_pending = 0
                    for k in range(c0, c1):
                        if board_len < BOARD_MAX:
                            board[board_len] = cards[k]
                        board_len += 1
                        if cards[k] >= 0:
                            nkc = _known(h, cards[k], np.int64(WHERE_BOARD), np.int64(0), seen_where, H, KC, nkc)
            elif kind == K_DRAW:
                # who is due to draw: the live seats clockwise from the draw pointer, skipping those who drew
                start = draw_pointer if draw_pointer >= 0 else (button if button > 0 else 0)
                nl = 0
                for s in range(WIDTH):
                    if seated[s] and dealt[s] and not folded[s]:
                        tmp[nl] = s
                        nl += 1
                first = 0
                while first < nl and tmp[first] <= start:
                    first += 1
                expected = -1
                for k in range(nl):
                    s = tmp[(first + k) % nl]
                    if not drawn[s]:
                        expected = s
                        break
                drawn[seat] = True
                if expected < 0 or seat == expected:
                    draw_pointer = seat
                c0, c1 = cards_off[i], cards_off[i + 1]
                for k in range(c0, c1):
                    card = cards[k]
                    found = -1
                    for m in range(hole_len[seat]):
                        if hole[seat, m] == card:
                            found = m
                            break
                    if found >= 0:
                        for m in range(found, hole_len[seat] - 1):
                            hole[seat, m] = hole[seat, m + 1]
                        hole_len[seat] -= 1
                    else:
                        hole_unknown[seat] = True
                g0, g1 = receive_off[i], receive_off[i + 1]
                for k in range(g0, g1):
                    if hole_len[seat] < HOLE_CAP:
                        hole[seat, hole_len[seat]] = receive[k]
                        hole_len[seat] += 1
                    else:
                        H[H_OVERFLOW, h] = True
                    if receive[k] >= 0:
                        nkc = _known(h, receive[k], np.int64(WHERE_DRAW), seat, seen_where, H, KC, nkc)
                j = nd
                nd += 1
                D[D_HAND, j] = h
                D[D_EVENT, j] = i
                D[D_SEAT, j] = seat
                D[D_PLAYER, j] = players[seat]
                D[D_EXPECTED, j] = expected
                D[D_DISCARDS, j] = c1 - c0
                D[D_RECEIVES, j] = g1 - g0
                D[D_FOLDED, j] = folded[seat]
            elif kind == K_BUTTON:
                button = seat
                pointer = seat
            elif kind == K_SHOW:
                c0, c1 = cards_off[i], cards_off[i + 1]
                SB[SB_SHOWN, h, seat] = True
                if show_first < 0:
                    show_first = seat
                # the cards the seat holds are all known (dealt, then drawn): a card shown outside them is
                # `shown_other` (a seat dealt `??` or never dealt in the log cannot be judged so)
                held_known = hole_len[seat] > 0 and not hole_unknown[seat]
                for m in range(hole_len[seat]):
                    if hole[seat, m] < 0:
                        held_known = False
                for k in range(c0, c1):
                    card = cards[k]
                    if card >= 0:
                        held = False
                        for m in range(hole_len[seat]):
                            if hole[seat, m] == card:
                                held = True
                                break
                        if not held:
                            nkc = _known(h, card, np.int64(WHERE_SEAT), seat, seen_where, H, KC, nkc)
                            if held_known:
                                SB[SB_SHOWN_OTHER, h, seat] = True
                shown_len[seat] = 0
                for k in range(c0, c1):
                    if shown_len[seat] < HOLE_CAP:
                        shown_cards[seat, shown_len[seat]] = cards[k]
                        shown_len[seat] += 1
                    else:
                        H[H_OVERFLOW, h] = True
            elif kind == K_MUCK:
                SB[SB_MUCKED, h, seat] = True
            elif kind == K_KILL:
                SB[SB_KILLED, h, seat] = True
                folded[seat] = True
            elif kind == K_RETURN:
                amount = e_amount[i]
                SI[SI_RETURNED, h, seat] += amount
                round_returned += amount
                round_returns[seat] += amount
                stack[seat] = stack[seat] + amount
            elif kind == K_AWARD:
                b = naw
                naw += 1
                AW[AW_HAND, b] = h
                AW[AW_POT, b] = e_pot[i]
                AW[AW_SEAT, b] = seat
                AW[AW_AMOUNT, b] = e_amount[i]
                AW[AW_SEQ, b] = seq
                hand_awarded += e_amount[i]
                n_awards += 1
            elif kind == K_RAKE:
                b = nrk
                nrk += 1
                RK[RK_HAND, b] = h
                RK[RK_POT, b] = e_pot[i]
                RK[RK_AMOUNT, b] = e_amount[i]
                hand_rake += e_amount[i]

        # ---- end of hand: close the last round
        pending, ncan, live_now, rcount = _pending_at_close(
            seated, dealt, folded, all_in, can, pointer, button, acted, rnd, current_bet, rins, rcount,
            dset, dst, live_order, dscratch, dst2)
        _close_round(rs, pending, ncan, np.bool_(True), np.int64(-1), live_now, round_returned,
                     round_actions, rnd, rins, folded, all_in, round_returns, players,
                     RS, tmp)
        returned_total = 0
        for s in range(WIDTH):
            returned_total += SI[SI_RETURNED, h, s]
        balance = NULL
        if n_awards > 0:
            balance = chips_in - returned_total - hand_awarded - hand_rake
        for k in range(first_rs, nr - r_base):  # the hand's rows
            if not burns_logged:
                RS[k, R_BURNS] = NULL
            RS[k, R_BALANCE] = balance
            # The return judged on the bettor's net result (TDA-15B): when every award with chips went to the
            # uncalled seat, a return beyond the uncalled part (the whole blind back, then the rest of the pot won)
            # and, in an unraked hand, a return short of it (no return line, the uncalled chips paid with the pot:
            # converters' booking) paid the bettor what the right return would have; in a raked hand the kept
            # chips were raked with the pot, so a short return stays short.
            gap = RS[k, R_TO_BETTOR] - RS[k, R_UNCALLED_EXPECTED]
            sole = False
            if RS[k, R_UNCALLED] >= 0 and (gap > 0 or (gap < 0 and hand_rake == 0)):
                for b in range(naw - n_awards, naw):
                    if AW[AW_AMOUNT, b] != 0:
                        if AW[AW_SEAT, b] == RS[k, R_UNCALLED]:
                            sole = True
                        else:
                            sole = False
                            break
            RS[k, R_RETURNED_NET] = RS[k, R_RETURNED] - gap if sole else RS[k, R_RETURNED]
        # ---- per hand facts
        m = 0
        for k in range(dst[0] + 1):
            if dset[k] >= 0:
                SI[SI_DEALT_ORDER, h, m] = dset[k]
                m += 1
        H[H_BUTTON, h] = button
        H[H_BURNS_LOGGED, h] = burns_logged
        H[H_CHIPS_IN, h] = chips_in
        H[H_RETURNED, h] = returned_total
        H[H_AWARDED, h] = hand_awarded
        H[H_RAKE, h] = hand_rake
        H[H_BALANCE, h] = balance
        H[H_LOWEST, h] = lowest
        H[H_FIRST_SHOWN, h] = show_first
        H[H_FINAL_AGGRESSOR, h] = last_aggressor
        H[H_FINAL_ROUND, h] = street + 1
        H[H_BOARD_LEN, h] = board_len
        H[H_DEAD, h] = dead
        H[H_HOLE_LOGGED, h] = hole_logged
        nlive = 0
        for s in range(WIDTH):
            if seated[s] and dealt[s] and not folded[s]:
                tmp[nlive] = s
                nlive += 1
        H[H_SHOWDOWN, h] = nlive >= 2
        if nlive >= 2:
            in_live = last_aggressor >= 0 and seated[last_aggressor] and dealt[last_aggressor] and \
                not folded[last_aggressor]
            if in_live:
                H[H_EXPECTED_FIRST, h] = last_aggressor
            elif button >= 0:
                first = 0
                while first < nlive and tmp[first] <= button:
                    first += 1
                H[H_EXPECTED_FIRST, h] = tmp[first % nlive]
        nb = v_board_cards[v]
        known = True
        for k in range(nb):
            if k < board_len:
                h_board[h, k] = board[k]
                if board[k] < 0:
                    known = False
        H[H_BOARD_KNOWN, h] = known
        nhole = v_hole[v]
        for s in range(WIDTH):
            ok = False
            if shown_len[s] >= nhole:
                ok = True
                for k in range(nhole):
                    if shown_cards[s, k] < 0:
                        ok = False
                if ok:
                    for k in range(nhole):
                        hs_final[h, s, k] = shown_cards[s, k]
            if not ok and not hole_unknown[s] and hole_len[s] >= nhole:
                ok = True
                for k in range(nhole):
                    if hole[s, k] < 0:
                        ok = False
                if ok:
                    for k in range(nhole):
                        hs_final[h, s, k] = hole[s, k]
            SB[SB_FINAL_KNOWN, h, s] = ok
            if not ok:
                for k in range(nhole):
                    hs_final[h, s, k] = -1
    _flush(AS, A, a_base, na, 0)
    _flush(RS, R, r_base, nr, 0)
    return na, A, nr, R, nd, D, nbp, BP, naw, AW, nrk, RK, nkc, KC, H, h_board, SI, SB, hs_final


@njit(cache=True, no_rewrites=True)
def _flush(stage, table, base, count, least):
    """Rows `base`..`count - 1` of a row table, staged row by row (`stage[row - base]`), into its columns when
    there are at least `least` of them; returns the row the stage starts at afterwards."""
    if count - base < least:
        return base
    for k in range(stage.shape[1]):
        for r in range(base, count):
            table[k, r] = stage[r - base, k]
    return count


@njit(cache=True, no_rewrites=True)
def _known(h, card, where, seat, seen_where, H, KC, nkc):
    """Record a card the log shows (for the duplicate-card words); flag the hand if it was seen before."""
    if seen_where[card] >= 0:
        H[H_DUP_CARDS, h] = 1
    else:
        seen_where[card] = where
    KC[KC_HAND, nkc] = h
    KC[KC_CARD, nkc] = card
    KC[KC_WHERE, nkc] = where
    KC[KC_SEAT, nkc] = seat
    return nkc + 1


@njit(cache=True, no_rewrites=True)
def _close_round(row, pending, ncan, at_end, seq, live_now, round_returned, round_actions, rnd, rins, folded,
                 all_in, round_returns, players, R, order):
    """How the round ended: who still owed an action, and the bet left uncalled (`_close_round`), written into
    row `row` of `R`, the rounds stage.

    The round's contributions are ranked as the reference sorts its dictionary: by amount, ties in the
    order the seats entered it."""
    R[row, R_PENDING] = pending
    R[row, R_PENDING_PLAYER] = players[pending] if pending >= 0 else -1
    R[row, R_ABLE] = ncan
    R[row, R_END] = at_end
    R[row, R_CLOSE_SEQ] = seq
    R[row, R_LIVE] = live_now
    R[row, R_RETURNED] = round_returned
    R[row, R_ACTIONS] = round_actions
    R[row, R_UNCALLED] = -1
    R[row, R_UNCALLED_PLAYER] = -1
    R[row, R_UNCALLED_EXPECTED] = 0
    # the two largest contributions, ties by insertion
    top = -1
    second = -1
    for s in range(len(rnd)):
        if rins[s] < 0:
            continue
        if top < 0 or rnd[s] > rnd[top] or (rnd[s] == rnd[top] and rins[s] < rins[top]):
            second = top
            top = s
        elif second < 0 or rnd[s] > rnd[second] or (rnd[s] == rnd[second] and rins[s] < rins[second]):
            second = s
    if top >= 0 and rnd[top] > 0:
        second_amount = rnd[second] if second >= 0 else 0
        undercall = second >= 0 and not folded[second] and not all_in[second]
        if rnd[top] > second_amount and not undercall:
            R[row, R_UNCALLED] = top
            R[row, R_UNCALLED_PLAYER] = players[top]
            R[row, R_UNCALLED_EXPECTED] = rnd[top] - second_amount
    R[row, R_TO_BETTOR] = round_returns[R[row, R_UNCALLED]] if R[row, R_UNCALLED] >= 0 else 0


def named(raw: tuple) -> dict[str, dict[str, np.ndarray]]:
    """`replay_hands`' tables as {group: {name: array}} in `OUTPUTS` order, row arrays cut to their row counts
    and each column in its own dtype (`DTYPES`; the kernel's tables are int64 and bool)."""
    na, A, nr, R, nd, D, nbp, BP, naw, AW, nrk, RK, nkc, KC, H, board, SI, SB, final = raw
    out: dict[str, dict[str, np.ndarray]] = {}
    for group, table, count in (("actions", A, na), ("rounds", R, nr), ("draws", D, nd), ("posts", BP, nbp),
                                ("awards", AW, naw), ("rakes", RK, nrk), ("known_cards", KC, nkc)):
        out[group] = {name: _typed(group, name, table[k, :count]) for k, name in enumerate(OUTPUTS[group])}
    columns = {name: _typed("hand", name, H[k]) for k, name in enumerate(HAND_COLUMNS)}
    columns["board"] = board
    out["hand"] = {name: columns[name] for name in OUTPUTS["hand"]}
    columns = {name: _typed("seat", name, SI[k]) for k, name in enumerate(SEAT_INT_COLUMNS)}
    columns.update({name: SB[k] for k, name in enumerate(SEAT_BOOL_COLUMNS)})
    columns["final"] = final
    out["seat"] = {name: columns[name] for name in OUTPUTS["seat"]}
    return out


def _typed(group: str, name: str, values: np.ndarray) -> np.ndarray:
    """A column of the kernel's int64 tables in its declared dtype (a view when that is int64)."""
    return values.astype(DTYPES.get((group, name), np.int64), copy=False)
