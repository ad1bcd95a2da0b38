"""The per-hand event-loop kernel: one compiled pass over every hand's events.

Why a kernel: the Python engine it replaced (deleted, issue 16) walked Python objects per event, about 230 µs a
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
"""

from __future__ import annotations

import numpy as np
from numba import njit

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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
def _pending_at_close(seated, dealt, folded, all_in, can, pointer, button, acted, rnd, current_bet, rins, rcount,
                      dset, dst, live_order, dscratch, dst2):
    """Who still owed an action when a round closes (-1: nobody), the seats able to bet (`can`, its count),
    and the live players: the reference's `_close_round` reading, for a round closed by the next one or by
    the end of the hand alike. The last player able to bet owes an action only if someone still in has
    more in the round (facing only a blind posted all-in short, there is nothing to call). `rins` numbers
    seats in the order the reference's round dictionary first met them (ties between equal contributions
    follow it); the updated counter is returned."""
    ncan = 0
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


@njit(cache=True)
def replay_hands(order, caps,
                 variant, structure, blinds_off, blinds, units_off, units, smin_off, smin, smax_off, smax,
                 seat_start, s_seat, s_player, s_stack, s_status,
                 event_start, e_kind, e_seat, e_verb, e_post, e_blind, e_amount, e_target, e_pot,
                 cards_off, cards, receive_off, receive,
                 v_hole, v_rounds, v_schedule, v_draw_before, v_max_draw, v_board_cards, h_fraction):
    """Replay every hand of `order`; returns the row arrays (see the tuple at the end).

    `caps` are the row capacities (actions, rounds, draws, blind posts, awards, rakes), each the count of the
    events that write such a row (rounds: deals and draws, plus one per hand), so no counter can pass its
    array and the batch allocates no more than it writes."""
    n = len(order)
    # ---- actions rows
    a_hand = np.empty(caps[0], np.int64)
    a_event = np.empty(caps[0], np.int64)
    a_street = np.empty(caps[0], np.int64)
    a_seat = np.empty(caps[0], np.int64)
    a_player = np.empty(caps[0], np.int64)
    a_expected = np.empty(caps[0], np.int64)
    a_added = np.empty(caps[0], np.int64)
    a_made = np.empty(caps[0], np.int64)
    a_all_in = np.empty(caps[0], np.bool_)
    a_current_bet = np.empty(caps[0], np.int64)
    a_owed = np.empty(caps[0], np.int64)
    a_largest = np.empty(caps[0], np.int64)
    a_increment = np.empty(caps[0], np.int64)
    a_is_bet = np.empty(caps[0], np.bool_)
    a_is_raise = np.empty(caps[0], np.bool_)
    a_full = np.empty(caps[0], np.int8)
    a_raises_before = np.empty(caps[0], np.int64)
    a_raise_number = np.empty(caps[0], np.int64)
    a_live = np.empty(caps[0], np.int64)
    a_active = np.empty(caps[0], np.int64)
    a_hu_start = np.empty(caps[0], np.bool_)
    a_pot_before = np.empty(caps[0], np.int64)
    a_pot_limit_max = np.empty(caps[0], np.int64)
    a_bet_unit = np.empty(caps[0], np.int64)
    a_smin = np.empty(caps[0], np.int64)
    a_smax = np.empty(caps[0], np.int64)
    a_stack_before = np.empty(caps[0], np.int64)
    a_actor_folded = np.empty(caps[0], np.bool_)
    a_actor_all_in = np.empty(caps[0], np.bool_)
    a_open_full = np.empty(caps[0], np.bool_)
    a_open_cumulative = np.empty(caps[0], np.bool_)
    a_min_bet = np.empty(caps[0], np.int64)
    a_owed_full = np.empty(caps[0], np.int64)
    na = 0
    # ---- rounds rows
    nrmax = caps[1]
    r_hand = np.empty(nrmax, np.int64)
    r_seq = np.empty(nrmax, np.int64)
    r_close_seq = np.empty(nrmax, np.int64)
    r_street = np.empty(nrmax, np.int64)
    r_board_cards = np.empty(nrmax, np.int64)
    r_board_expected = np.empty(nrmax, np.int64)
    r_burns = np.empty(nrmax, np.int64)
    r_burns_expected = np.empty(nrmax, np.int64)
    r_live_at_deal = np.empty(nrmax, np.int64)
    r_live = np.empty(nrmax, np.int64)
    r_able = np.empty(nrmax, np.int64)
    r_pending = np.empty(nrmax, np.int64)
    r_pending_player = np.empty(nrmax, np.int64)
    r_end = np.empty(nrmax, np.bool_)
    r_uncalled = np.empty(nrmax, np.int64)
    r_uncalled_player = np.empty(nrmax, np.int64)
    r_uncalled_expected = np.empty(nrmax, np.int64)
    r_returned = np.empty(nrmax, np.int64)
    r_returned_net = np.empty(nrmax, np.int64)
    r_to_bettor = np.empty(nrmax, np.int64)
    r_actions = np.empty(nrmax, np.int64)
    r_draw_round = np.empty(nrmax, np.bool_)
    r_balance = np.empty(nrmax, np.int64)
    nr = 0
    # ---- draws rows
    d_hand = np.empty(caps[2], np.int64)
    d_event = np.empty(caps[2], np.int64)
    d_seat = np.empty(caps[2], np.int64)
    d_player = np.empty(caps[2], np.int64)
    d_expected = np.empty(caps[2], np.int64)
    d_discards = np.empty(caps[2], np.int64)
    d_receives = np.empty(caps[2], np.int64)
    d_folded = np.empty(caps[2], np.bool_)
    nd = 0
    # ---- flat posts, awards, rakes (event order) and known cards
    bp_hand = np.empty(caps[3], np.int64)
    bp_number = np.empty(caps[3], np.int64)
    bp_seat = np.empty(caps[3], np.int64)
    bp_seq = np.empty(caps[3], np.int64)
    bp_amount = np.empty(caps[3], np.int64)
    bp_all_in = np.empty(caps[3], np.bool_)
    nbp = 0
    aw_hand = np.empty(caps[4], np.int64)
    aw_pot = np.empty(caps[4], np.int64)
    aw_seat = np.empty(caps[4], np.int64)
    aw_amount = np.empty(caps[4], np.int64)
    aw_seq = np.empty(caps[4], np.int64)
    naw = 0
    rk_hand = np.empty(caps[5], np.int64)
    rk_pot = np.empty(caps[5], np.int64)
    rk_amount = np.empty(caps[5], np.int64)
    nrk = 0
    nkmax = len(cards) + len(receive)
    kc_hand = np.empty(nkmax, np.int64)
    kc_card = np.empty(nkmax, np.int64)
    kc_where = np.empty(nkmax, np.int8)
    kc_seat = np.empty(nkmax, np.int64)
    nkc = 0
    # ---- per hand (indexed by hand row, not by walk position)
    nh = len(variant)
    h_button = np.full(nh, -1, np.int64)
    h_burns_logged = np.zeros(nh, np.bool_)
    h_chips_in = np.zeros(nh, np.int64)
    h_returned = np.zeros(nh, np.int64)
    h_awarded = np.zeros(nh, np.int64)
    h_rake = np.zeros(nh, np.int64)
    h_balance = np.full(nh, NULL, np.int64)
    h_lowest = np.zeros(nh, np.int64)
    h_showdown = np.zeros(nh, np.bool_)
    h_first_shown = np.full(nh, -1, np.int64)
    h_expected_first = np.full(nh, -1, np.int64)
    h_final_aggressor = np.full(nh, -1, np.int64)
    h_final_round = np.zeros(nh, np.int64)
    h_board_len = np.zeros(nh, np.int64)
    h_board = np.full((nh, BOARD_MAX), -1, np.int64)
    h_board_known = np.zeros(nh, np.bool_)
    h_dead = np.zeros(nh, np.int64)
    h_hole_logged = np.zeros(nh, np.bool_)
    h_dup_cards = np.zeros(nh, np.bool_)
    h_overflow = np.zeros(nh, np.bool_)
    h_shared = np.zeros(nh, np.bool_)
    #: the first post of blind 1, of blind 2 and of the last declared blind (-1: none)
    h_sb_seat = np.full(nh, -1, np.int64)
    h_b2_seat = np.full(nh, -1, np.int64)
    h_bbl_seat = np.full(nh, -1, np.int64)
    # ---- per hand and seat
    hs_seated = np.zeros((nh, WIDTH), np.bool_)
    hs_player = np.full((nh, WIDTH), -1, np.int64)
    hs_status = np.full((nh, WIDTH), -1, np.int8)
    hs_dealt = np.zeros((nh, WIDTH), np.bool_)
    hs_folded = np.zeros((nh, WIDTH), np.bool_)
    hs_killed = np.zeros((nh, WIDTH), np.bool_)
    hs_all_in = np.zeros((nh, WIDTH), np.bool_)
    hs_mucked = np.zeros((nh, WIDTH), np.bool_)
    hs_shown = np.zeros((nh, WIDTH), np.bool_)
    hs_ante_all_in = np.zeros((nh, WIDTH), np.bool_)
    hs_total = np.zeros((nh, WIDTH), np.int64)
    hs_has_total = np.zeros((nh, WIDTH), np.bool_)
    hs_returned = np.zeros((nh, WIDTH), np.int64)
    hs_live_posts = np.zeros((nh, WIDTH), np.int64)
    hs_dead_posts = np.zeros((nh, WIDTH), np.int64)
    hs_hole_dealt = np.zeros((nh, WIDTH), np.int64)
    hs_final = np.full((nh, WIDTH, 8), -1, np.int64)
    hs_final_known = np.zeros((nh, WIDTH), np.bool_)

    # ---- scratch state of one hand
    stack = np.zeros(WIDTH, np.int64)
    rnd = np.zeros(WIDTH, np.int64)
    rins = np.full(WIDTH, -1, np.int64)
    acted = np.zeros(WIDTH, np.bool_)
    acted_full = np.zeros(WIDTH, np.bool_)
    acted_cum = np.zeros(WIDTH, np.bool_)
    drawn = np.zeros(WIDTH, np.bool_)
    round_returns = np.zeros(WIDTH, np.int64)
    can = np.zeros(WIDTH, np.int64)
    tmp = np.zeros(WIDTH, np.int64)
    hole = np.full((WIDTH, HOLE_CAP), -1, np.int64)
    hole_len = np.zeros(WIDTH, np.int64)
    hole_unknown = np.zeros(WIDTH, np.bool_)
    shown_cards = np.full((WIDTH, HOLE_CAP), -1, np.int64)
    shown_len = np.zeros(WIDTH, np.int64)
    seen_where = np.full(52, -1, np.int64)
    board = np.full(BOARD_MAX, -1, np.int64)
    dset = np.full(32, -1, np.int64)  # the dealt-in set, as CPython lays it out (see _set_add)
    dst = np.zeros(2, np.int64)
    dscratch = np.full(32, -1, np.int64)
    dst2 = np.zeros(2, np.int64)
    live_order = np.zeros(WIDTH, np.int64)
    #: per hand, the seats dealt in in the reference's set order (the cross-hand kernel searches them so)
    hs_dealt_order = np.full((nh, WIDTH), -1, np.int64)

    for walk in range(n):
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
        seated = hs_seated[h]
        players = hs_player[h]
        status = hs_status[h]
        dealt = hs_dealt[h]
        folded = hs_folded[h]
        all_in = hs_all_in[h]
        total = hs_total[h]
        lowest = 0
        first_seat = True
        for r in range(lo_s, hi_s):
            s = s_seat[r]
            if seated[s]:
                h_shared[h] = True
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
        button = -1
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
        first_row = nr
        street = 0
        row = nr
        nr += 1
        r_hand[row] = h
        r_seq[row] = -1
        r_street[row] = 0
        r_board_cards[row] = 0
        r_board_expected[row] = v_schedule[v, 0] if n_rounds > 0 else 0
        r_burns[row] = NULL
        r_burns_expected[row] = 0
        live_now = 0
        for s in range(WIDTH):
            if dealt[s] and not folded[s]:
                live_now += 1
        r_live_at_deal[row] = live_now
        r_draw_round[row] = n_rounds > 0 and v_draw_before[v, 0]
        bet_unit, smin_now, smax_now, min_bet = _round_limits(st, 0, h, units, units_off, smin, smin_off, smax,
                                                              smax_off, blinds, blinds_off, nbl)
        _clear_round(rnd, rins, acted, acted_full, acted_cum, round_returns)
        rcount = 0
        current_bet = 0
        largest = 0
        reopen_base = 0
        short_base = 0
        raises = 0
        pointer = button
        round_start_active = -1
        round_actions = 0
        round_returned = 0

        for i in range(lo_e, hi_e):
            kind = e_kind[i]
            seq = i - lo_e
            seat = e_seat[i]
            opens = -1  # the street a new round opens at this event (-1: none)
            if kind == K_DEAL and e_target[i] == T_BOARD:
                if round_actions > 0 or r_board_cards[row] >= r_board_expected[row]:
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
                _close_round(row, pending, ncan, False, seq, live_now, round_returned, round_actions,
                             rnd, rins, folded, all_in, round_returns, players,
                             r_pending, r_pending_player, r_able, r_end, r_close_seq, r_live, r_returned,
                             r_actions, r_uncalled, r_uncalled_player, r_uncalled_expected, r_to_bettor, tmp)
                # ---- begin the next round
                street = opens
                row = nr
                nr += 1
                r_hand[row] = h
                r_seq[row] = seq
                r_street[row] = street
                r_board_cards[row] = 0
                inside = street < n_rounds
                r_board_expected[row] = v_schedule[v, street] if inside else 0
                r_burns[row] = NULL
                r_burns_expected[row] = 1 if (street > 0 and inside and v_schedule[v, street] > 0) else 0
                r_live_at_deal[row] = live_now
                r_draw_round[row] = inside and v_draw_before[v, street]
                bet_unit, smin_now, smax_now, min_bet = _round_limits(st, street, h, units, units_off, smin, smin_off,
                                                                      smax, smax_off, blinds, blinds_off, nbl)
                _clear_round(rnd, rins, acted, acted_full, acted_cum, round_returns)
                rcount = 0
                current_bet = 0
                largest = 0
                reopen_base = 0
                short_base = 0
                raises = 0
                pointer = button
                round_start_active = -1
                round_actions = 0
                round_returned = 0
                last_aggressor = -1
                if kind == K_DRAW:
                    draw_pointer = button
                    for s in range(WIDTH):
                        drawn[s] = False

            if kind == K_ACTION:
                verb = e_verb[i]
                amount = e_amount[i]
                added = amount if amount != NULL else 0
                ncan = 0
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
                na += 1
                a_hand[j] = h
                a_event[j] = i
                a_street[j] = street
                a_seat[j] = seat
                a_player[j] = players[seat]
                a_expected[j] = expected
                a_added[j] = added
                a_current_bet[j] = bet_before
                a_owed[j] = owed
                a_largest[j] = largest_before
                a_raises_before[j] = raises_before
                a_live[j] = live_now
                a_active[j] = ncan
                a_pot_before[j] = pot_before
                a_bet_unit[j] = bet_unit
                a_smin[j] = smin_now
                a_smax[j] = smax_now
                a_stack_before[j] = stack_before
                a_actor_folded[j] = actor_folded
                a_actor_all_in[j] = actor_all_in
                a_min_bet[j] = min_bet
                a_owed_full[j] = owed_full
                a_hu_start[j] = round_start_active == 2
                a_pot_limit_max[j] = bet_before + pot_before + owed_full
                if actor_folded or (actor_all_in and verb != V_FOLD):
                    a_made[j] = rnd[seat]
                    a_all_in[j] = False
                    a_increment[j] = NULL
                    a_is_bet[j] = False
                    a_is_raise[j] = False
                    a_full[j] = -1
                    a_raise_number[j] = raises_before
                    a_open_full[j] = False
                    a_open_cumulative[j] = False
                    continue
                chips = verb in (V_CALL, V_BET, V_RAISE)
                aggressive = verb in (V_BET, V_RAISE)
                if chips:
                    stack[seat] = stack_before - added
                    rnd[seat] += added
                    total[seat] += added
                    hs_has_total[h, seat] = True
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
                a_made[j] = made
                a_all_in[j] = went_all_in
                a_increment[j] = increment
                a_is_bet[j] = is_bet
                a_is_raise[j] = is_raise
                a_full[j] = full
                a_raise_number[j] = raises if is_raise else raises_before
                a_open_full[j] = open_full
                a_open_cumulative[j] = open_cumulative
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
                    hs_has_total[h, seat] = True
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
                        bp_hand[b] = h
                        bp_number[b] = blind
                        bp_seat[b] = seat
                        bp_seq[b] = seq
                        bp_amount[b] = amount
                        bp_all_in[b] = all_in[seat]
                        n_blind_posts += 1
                        if blind == 1 and h_sb_seat[h] < 0:
                            h_sb_seat[h] = seat
                        if blind == 2 and h_b2_seat[h] < 0:
                            h_b2_seat[h] = seat
                        if blind == nbl and h_bbl_seat[h] < 0:
                            h_bbl_seat[h] = seat
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
                    hs_has_total[h, seat] = True
                    pot_in += amount
                    if all_in[seat] and n_blind_posts == 0:
                        hs_ante_all_in[h, seat] = True
                else:
                    dead += amount
                    pot_in += amount
                if pk == P_MISSED:
                    hs_live_posts[h, seat] += amount
                elif pk == P_DEAD:
                    hs_dead_posts[h, seat] += amount
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
                            h_overflow[h] = True
                        if cards[k] >= 0:
                            nkc = _known(h, cards[k], WHERE_SEAT, seat, seen_where, h_dup_cards,
                                         kc_hand, kc_card, kc_where, kc_seat, nkc)
                    hs_hole_dealt[h, seat] += c1 - c0
                    dealt[seat] = True
                    _set_add(dset, dst, seat)
                elif target == T_BURN:
                    burns_pending += 1
                    burns_logged = True
                    for k in range(c0, c1):
                        if cards[k] >= 0:
                            nkc = _known(h, cards[k], WHERE_BURN, 0, seen_where, h_dup_cards,
                                         kc_hand, kc_card, kc_where, kc_seat, nkc)
                elif target == T_BOARD:
                    if r_seq[row] == -1:
                        r_seq[row] = seq
                    r_board_cards[row] += c1 - c0
                    r_burns[row] = (r_burns[row] if r_burns[row] != NULL else 0) + burns_pending
                    live_now = 0
                    for s in range(WIDTH):
                        if dealt[s] and not folded[s]:
                            live_now += 1
                    r_live_at_deal[row] = live_now
                    burns_pending = 0
                    for k in range(c0, c1):
                        if board_len < BOARD_MAX:
                            board[board_len] = cards[k]
                        board_len += 1
                        if cards[k] >= 0:
                            nkc = _known(h, cards[k], WHERE_BOARD, 0, seen_where, h_dup_cards,
                                         kc_hand, kc_card, kc_where, kc_seat, nkc)
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
                        h_overflow[h] = True
                    if receive[k] >= 0:
                        nkc = _known(h, receive[k], WHERE_DRAW, seat, seen_where, h_dup_cards,
                                     kc_hand, kc_card, kc_where, kc_seat, nkc)
                j = nd
                nd += 1
                d_hand[j] = h
                d_event[j] = i
                d_seat[j] = seat
                d_player[j] = players[seat]
                d_expected[j] = expected
                d_discards[j] = c1 - c0
                d_receives[j] = g1 - g0
                d_folded[j] = folded[seat]
            elif kind == K_BUTTON:
                button = seat
                pointer = seat
            elif kind == K_SHOW:
                c0, c1 = cards_off[i], cards_off[i + 1]
                hs_shown[h, seat] = True
                if show_first < 0:
                    show_first = seat
                for k in range(c0, c1):
                    card = cards[k]
                    if card >= 0:
                        held = False
                        for m in range(hole_len[seat]):
                            if hole[seat, m] == card:
                                held = True
                                break
                        if not held:
                            nkc = _known(h, card, WHERE_SEAT, seat, seen_where, h_dup_cards,
                                         kc_hand, kc_card, kc_where, kc_seat, nkc)
                shown_len[seat] = 0
                for k in range(c0, c1):
                    if shown_len[seat] < HOLE_CAP:
                        shown_cards[seat, shown_len[seat]] = cards[k]
                        shown_len[seat] += 1
                    else:
                        h_overflow[h] = True
            elif kind == K_MUCK:
                hs_mucked[h, seat] = True
            elif kind == K_KILL:
                hs_killed[h, seat] = True
                folded[seat] = True
            elif kind == K_RETURN:
                amount = e_amount[i]
                hs_returned[h, seat] += amount
                round_returned += amount
                round_returns[seat] += amount
                stack[seat] = stack[seat] + amount
            elif kind == K_AWARD:
                b = naw
                naw += 1
                aw_hand[b] = h
                aw_pot[b] = e_pot[i]
                aw_seat[b] = seat
                aw_amount[b] = e_amount[i]
                aw_seq[b] = seq
                hand_awarded += e_amount[i]
                n_awards += 1
            elif kind == K_RAKE:
                b = nrk
                nrk += 1
                rk_hand[b] = h
                rk_pot[b] = e_pot[i]
                rk_amount[b] = e_amount[i]
                hand_rake += e_amount[i]

        # ---- end of hand: close the last round
        pending, ncan, live_now, rcount = _pending_at_close(
            seated, dealt, folded, all_in, can, pointer, button, acted, rnd, current_bet, rins, rcount,
            dset, dst, live_order, dscratch, dst2)
        _close_round(row, pending, ncan, True, -1, live_now, round_returned, round_actions,
                     rnd, rins, folded, all_in, round_returns, players,
                     r_pending, r_pending_player, r_able, r_end, r_close_seq, r_live, r_returned,
                     r_actions, r_uncalled, r_uncalled_player, r_uncalled_expected, r_to_bettor, tmp)
        returned_total = 0
        for s in range(WIDTH):
            returned_total += hs_returned[h, s]
        balance = NULL
        if n_awards > 0:
            balance = chips_in - returned_total - hand_awarded - hand_rake
        for k in range(first_row, nr):
            if not burns_logged:
                r_burns[k] = NULL
            r_balance[k] = balance
            excess = r_to_bettor[k] - r_uncalled_expected[k]
            if excess < 0:
                excess = 0
            sole = False
            if excess > 0:
                # every award with chips went to the uncalled seat, and there was one
                sole = False
                for b in range(naw - n_awards, naw):
                    if aw_amount[b] != 0:
                        if aw_seat[b] == r_uncalled[k]:
                            sole = True
                        else:
                            sole = False
                            break
            r_returned_net[k] = r_returned[k] - excess if sole else r_returned[k]
        # ---- per hand facts
        m = 0
        for k in range(dst[0] + 1):
            if dset[k] >= 0:
                hs_dealt_order[h, m] = dset[k]
                m += 1
        h_button[h] = button
        h_burns_logged[h] = burns_logged
        h_chips_in[h] = chips_in
        h_returned[h] = returned_total
        h_awarded[h] = hand_awarded
        h_rake[h] = hand_rake
        h_balance[h] = balance
        h_lowest[h] = lowest
        h_first_shown[h] = show_first
        h_final_aggressor[h] = last_aggressor
        h_final_round[h] = street + 1
        h_board_len[h] = board_len
        h_dead[h] = dead
        h_hole_logged[h] = hole_logged
        nlive = 0
        for s in range(WIDTH):
            if seated[s] and dealt[s] and not folded[s]:
                tmp[nlive] = s
                nlive += 1
        h_showdown[h] = nlive >= 2
        if nlive >= 2:
            in_live = last_aggressor >= 0 and seated[last_aggressor] and dealt[last_aggressor] and \
                not folded[last_aggressor]
            if in_live:
                h_expected_first[h] = last_aggressor
            elif button >= 0:
                first = 0
                while first < nlive and tmp[first] <= button:
                    first += 1
                h_expected_first[h] = tmp[first % nlive]
        nb = v_board_cards[v]
        known = True
        for k in range(nb):
            if k < board_len:
                h_board[h, k] = board[k]
                if board[k] < 0:
                    known = False
        h_board_known[h] = known
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
            hs_final_known[h, s] = ok
            if not ok:
                for k in range(nhole):
                    hs_final[h, s, k] = -1
    return (
        (na, a_hand, a_event, a_street, a_seat, a_player, a_expected, a_added, a_made, a_all_in, a_current_bet,
         a_owed, a_largest, a_increment, a_is_bet, a_is_raise, a_full, a_raises_before, a_raise_number, a_live,
         a_active, a_hu_start, a_pot_before, a_pot_limit_max, a_bet_unit, a_smin, a_smax, a_stack_before,
         a_actor_folded, a_actor_all_in, a_open_full, a_open_cumulative, a_min_bet, a_owed_full),
        (nr, r_hand, r_seq, r_close_seq, r_street, r_board_cards, r_board_expected, r_burns, r_burns_expected,
         r_live_at_deal, r_live, r_able, r_pending, r_pending_player, r_end, r_uncalled, r_uncalled_player,
         r_uncalled_expected, r_returned, r_returned_net, r_actions, r_draw_round, r_balance),
        (nd, d_hand, d_event, d_seat, d_player, d_expected, d_discards, d_receives, d_folded),
        (nbp, bp_hand, bp_number, bp_seat, bp_seq, bp_amount, bp_all_in),
        (naw, aw_hand, aw_pot, aw_seat, aw_amount, aw_seq),
        (nrk, rk_hand, rk_pot, rk_amount),
        (nkc, kc_hand, kc_card, kc_where, kc_seat),
        (h_button, h_burns_logged, h_chips_in, h_returned, h_awarded, h_rake, h_balance, h_lowest, h_showdown,
         h_first_shown, h_expected_first, h_final_aggressor, h_final_round, h_board_len, h_board, h_board_known,
         h_dead, h_hole_logged, h_dup_cards, h_overflow, h_shared, h_sb_seat, h_b2_seat, h_bbl_seat),
        (hs_seated, hs_player, hs_status, hs_dealt, hs_folded, hs_killed, hs_all_in, hs_mucked, hs_shown,
         hs_ante_all_in, hs_total, hs_has_total, hs_returned, hs_live_posts, hs_dead_posts, hs_hole_dealt,
         hs_final, hs_final_known, hs_dealt_order),
    )


@njit(cache=True)
def _known(h, card, where, seat, seen_where, dup, kc_hand, kc_card, kc_where, kc_seat, nkc):
    """Record a card the log shows (for the duplicate-card words); flag the hand if it was seen before."""
    if seen_where[card] >= 0:
        dup[h] = True
    else:
        seen_where[card] = where
    kc_hand[nkc] = h
    kc_card[nkc] = card
    kc_where[nkc] = where
    kc_seat[nkc] = seat
    return nkc + 1


@njit(cache=True)
def _close_round(row, pending, ncan, at_end, seq, live_now, round_returned, round_actions, rnd, rins, folded,
                 all_in, round_returns, players, r_pending, r_pending_player, r_able, r_end, r_close_seq, r_live,
                 r_returned, r_actions, r_uncalled, r_uncalled_player, r_uncalled_expected, r_to_bettor, order):
    """How the round ended: who still owed an action, and the bet left uncalled (`_close_round`).

    The round's contributions are ranked as the reference sorts its dictionary: by amount, ties in the
    order the seats entered it."""
    r_pending[row] = pending
    r_pending_player[row] = players[pending] if pending >= 0 else -1
    r_able[row] = ncan
    r_end[row] = at_end
    r_close_seq[row] = seq
    r_live[row] = live_now
    r_returned[row] = round_returned
    r_actions[row] = round_actions
    r_uncalled[row] = -1
    r_uncalled_player[row] = -1
    r_uncalled_expected[row] = 0
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
            r_uncalled[row] = top
            r_uncalled_player[row] = players[top]
            r_uncalled_expected[row] = rnd[top] - second_amount
    r_to_bettor[row] = round_returns[r_uncalled[row]] if r_uncalled[row] >= 0 else 0


#: the names of `replay_hands`' outputs, group by group, in the order it returns them (row groups start
#: with their row count); `named` turns the tuple into dicts so callers read outputs by name
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
             "dealt_order"),
}
#: output groups that are rows (their first element is the row count)
ROW_GROUPS = ("actions", "rounds", "draws", "posts", "awards", "rakes", "known_cards")


def named(raw: tuple) -> dict[str, dict[str, np.ndarray]]:
    """`replay_hands`' tuple as {group: {name: array}}, row arrays cut to their row counts."""
    out = {}
    for (group, names), values in zip(OUTPUTS.items(), raw, strict=True):
        if group in ROW_GROUPS:
            count, arrays = values[0], values[1:]
            out[group] = {name: a[:count] for name, a in zip(names, arrays, strict=True)}
        else:
            out[group] = dict(zip(names, values, strict=True))
    return out
