"""The `blinds` facts table for a whole batch, and the blind seats the cross-hand state carries.

The columnar form of `engine._HandReplay._blinds_facts`, `big_blind_player` and `button_heir`: for each hand,
one row per blind the table declares and per extra blind posted, with the seat that owed it (clockwise from
the button, heads-up the button posts the first, players whose ante took their last chips skipped) and the
dead-button reading (the first seat dealt in after the previous blind actually posted). One Numba kernel,
a loop per hand inside it.

Inputs (``n`` hands; offsets int64 of length ``n + 1``):

Per (hand, seat) slot (``slot_start`` offsets, seats strictly ascending within a hand; the same slots as
`pots.pot_facts`, which must include every seat dealt hole cards):

- ``slot_seat`` int64, ``slot_dealt_in`` bool (status active, or dealt hole cards),
  ``slot_ante_all_in`` bool (an ante took the seat's last chips before any blind was posted).

Per hand: ``hand_button`` int64 (-1: none); ``hand_heir_order`` int64 (n, 2): the pack's ``button_heir`` as
blind numbers in order (``HEIR_NUMBERS``: small-blind 1, big-blind 2), 0 for an unused place (``[0, 0]``: the
pack names no heir).

Declared blinds (``declared_start`` offsets): ``declared_amount`` int64, the table's blinds in blind order
(``stakes.blinds``; the blinds_required count is the row count).

Blind posts (post kind ``blind`` with a blind number only), event order (``post_start`` offsets):
``post_blind`` int64 (1..8), ``post_seat`` int64, ``post_seq`` int64, ``post_amount`` int64, ``post_all_in``
bool (the post took the seat's last chips).

Output: `BlindFacts`. ``rows`` columns (int64 unless said): hand, seq, blind, seat, expected_seat, amount,
expected_amount, posted (bool), in_order (bool), all_in (bool), button, players, blinds_required,
seat_after_previous_blind; ``nulls`` for seq, seat, expected_seat, amount, expected_amount, in_order, all_in,
button, seat_after_previous_blind. The player and expected_player names are H4's decoding (seat -> the player
the seats table lists first in that seat; null for a null or unseated seat). Per hand: ``big_blind_seat``
(the first post of the last declared blind, -1: none; ``big_blind_player`` is its player) and
``button_heir_seat`` (the pack's ``button_heir``: the seat of the first listed blind's first post by a seat
other than the button; seed 004 lists small then big blind; -1: none, always -1 unless exactly two blinds are
declared) and ``small_blind_seat`` (the first post of blind 1, -1 if none: `_HandReplay.small_blind`'s player,
missed = -1, on the button = it equals the button; that fact is None unless exactly two blinds are declared).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numba import njit

from auditor.replay.kernel.pots import _any_per_hand, _as_i64, _clear, _offsets, _row_hands, _same_length

#: highest seat and blind number a kernel accepts; a valid log has seats 1..10 and blinds 1..3
MAX_SEAT = 63
MAX_BLIND = 8
#: `HouseRules.button_heir` entries -> the blind number `hand_heir_order` holds
HEIR_NUMBERS = {"small-blind": 1, "big-blind": 2}


@dataclass
class BlindFacts:
    """What `blind_facts` returns (see the module docstring)."""

    rows: dict[str, np.ndarray] = field(default_factory=dict)
    nulls: dict[str, np.ndarray] = field(default_factory=dict)
    big_blind_seat: np.ndarray | None = None
    button_heir_seat: np.ndarray | None = None
    small_blind_seat: np.ndarray | None = None
    #: True per hand with an input out of range: no rows, the caller reports the hand unreplayable
    invalid: np.ndarray | None = None


def blind_facts(*, slot_start: np.ndarray, slot_seat: np.ndarray, slot_dealt_in: np.ndarray,
                slot_ante_all_in: np.ndarray, hand_button: np.ndarray, hand_heir_order: np.ndarray,
                declared_start: np.ndarray, declared_amount: np.ndarray, post_start: np.ndarray,
                post_blind: np.ndarray, post_seat: np.ndarray, post_seq: np.ndarray, post_amount: np.ndarray,
                post_all_in: np.ndarray) -> BlindFacts:
    """The `blinds` facts rows of every hand in the batch, with each hand's big blind, small blind and button
    heir seats.

    Malformed offsets raise ValueError (the caller's bug); a hand with a seat, blind number or declared
    blind count out of range is marked invalid and gets no rows.
    """
    n = len(hand_button)
    slot_start, declared_start, post_start = _offsets(slot_start, n), _offsets(declared_start, n), \
        _offsets(post_start, n)
    slot_seat, hand_button, declared_amount = _as_i64(slot_seat), _as_i64(hand_button), _as_i64(declared_amount)
    post_blind, post_seat, post_seq, post_amount = _as_i64(post_blind), _as_i64(post_seat), _as_i64(post_seq), \
        _as_i64(post_amount)
    slot_dealt_in = np.ascontiguousarray(slot_dealt_in, dtype=np.bool_)
    slot_ante_all_in = np.ascontiguousarray(slot_ante_all_in, dtype=np.bool_)
    post_all_in = np.ascontiguousarray(post_all_in, dtype=np.bool_)
    _same_length(slot_start, slot_seat, slot_dealt_in, slot_ante_all_in)
    _same_length(declared_start, declared_amount)
    heir_order = _as_i64(hand_heir_order).reshape(n, 2)
    _same_length(post_start, post_blind, post_seat, post_seq, post_amount, post_all_in)

    bad = (hand_button < -1) | (hand_button > MAX_SEAT) | (np.diff(declared_start) > MAX_BLIND) \
        | np.any((heir_order < 0) | (heir_order > MAX_BLIND), axis=1)
    slot_hand = _row_hands(slot_start)
    slot_bad = (slot_seat < 0) | (slot_seat > MAX_SEAT)
    if len(slot_seat) > 1:
        slot_bad[1:] |= (slot_hand[1:] == slot_hand[:-1]) & (slot_seat[1:] <= slot_seat[:-1])
    bad |= _any_per_hand(slot_bad, slot_hand, n)
    post_bad = (post_blind < 1) | (post_blind > MAX_BLIND) | (post_seat < 0) | (post_seat > MAX_SEAT)
    bad |= _any_per_hand(post_bad, _row_hands(post_start), n)

    cap = len(declared_amount) + len(post_blind)
    ints = {name: np.zeros(cap, dtype=np.int64) for name in _INT_COLUMNS}
    bools = {name: np.zeros(cap, dtype=np.bool_) for name in ("posted", "in_order", "all_in")}
    nulls = {name: np.zeros(cap, dtype=np.bool_) for name in _NULLABLE}
    big_blind = np.full(n, -1, dtype=np.int64)
    heir = np.full(n, -1, dtype=np.int64)
    small = np.full(n, -1, dtype=np.int64)
    count = np.zeros(1, dtype=np.int64)
    _blinds_kernel(bad, slot_start, slot_seat, slot_dealt_in, slot_ante_all_in, hand_button, heir_order,
                   declared_start,
                   declared_amount, post_start, post_blind, post_seat, post_seq, post_amount, post_all_in,
                   *(ints[c] for c in _INT_COLUMNS), bools["posted"], bools["in_order"], bools["all_in"],
                   *(nulls[c] for c in _NULLABLE), big_blind, heir, small, count)
    rows = int(count[0])
    out = {name: a[:rows] for name, a in ints.items()}
    out.update({name: a[:rows] for name, a in bools.items()})
    return BlindFacts(rows=out, nulls={name: a[:rows] for name, a in nulls.items()}, big_blind_seat=big_blind,
                      button_heir_seat=heir, small_blind_seat=small, invalid=bad)


_INT_COLUMNS = ("hand", "seq", "blind", "seat", "expected_seat", "amount", "expected_amount", "button", "players",
                "blinds_required", "seat_after_previous_blind")
_NULLABLE = ("seq", "seat", "expected_seat", "amount", "expected_amount", "in_order", "all_in", "button",
             "seat_after_previous_blind")


@njit(cache=True)
def _first_after(owing, n_owing, anchor):
    """The first of owing[:n_owing] (ascending) clockwise after `anchor`: `_clockwise_after(owing, anchor)[0]`."""
    for i in range(n_owing):
        if owing[i] > anchor:
            return owing[i]
    return owing[0]


@njit(cache=True)
def _blinds_kernel(bad, slot_start, slot_seat, slot_dealt_in, slot_ante_all_in, hand_button, heir_order,
                   declared_start,
                   declared_amount, post_start, post_blind, post_seat, post_seq, post_amount, post_all_in,
                   o_hand, o_seq, o_blind, o_seat, o_expected, o_amount, o_expected_amount, o_button, o_players,
                   o_required, o_after, o_posted, o_in_order, o_all_in,
                   n_seq, n_seat, n_expected, n_amount, n_expected_amount, n_in_order, n_all_in, n_button, n_after,
                   big_blind, heir, small, count):
    """`_blinds_facts`, `big_blind_player`, `button_heir` and `small_blind` for every hand (rows preallocated)."""
    n = hand_button.shape[0]
    k_max = 1
    for h in range(n):
        k_max = max(k_max, slot_start[h + 1] - slot_start[h])
    owing = np.zeros(k_max, dtype=np.int64)
    blinds_n = 9  # blind numbers 1..8
    first_post = np.full(blinds_n, -1, dtype=np.int64)
    expected = np.full(blinds_n + 64, -1, dtype=np.int64)
    after = np.full(blinds_n + 64, -1, dtype=np.int64)
    row = 0
    for h in range(n):
        if bad[h]:
            continue
        lo = slot_start[h]
        hi = slot_start[h + 1]
        button = hand_button[h]
        n_required = declared_start[h + 1] - declared_start[h]
        p_lo = post_start[h]
        p_hi = post_start[h + 1]
        n_eligible = 0
        n_owing = np.int64(0)
        button_eligible = False
        button_owing = False
        other_eligible = -1
        for i in range(lo, hi):
            if slot_dealt_in[i]:
                n_eligible += 1
                if slot_seat[i] == button:
                    button_eligible = True
                elif other_eligible < 0:
                    other_eligible = slot_seat[i]
                if not slot_ante_all_in[i]:
                    owing[n_owing] = slot_seat[i]
                    n_owing += 1
                    if slot_seat[i] == button:
                        button_owing = True
        _clear(first_post, np.int64(-1))
        for p in range(p_lo, p_hi):
            if first_post[post_blind[p]] < 0:
                first_post[post_blind[p]] = p
        _clear(expected, np.int64(-1))
        _clear(after, np.int64(-1))
        heads_up = n_eligible == 2 and n_required == 2
        if button >= 0 and n_owing > 0 and n_required > 0:
            # clockwise from the button over the seats that can post
            start = 0
            while start < n_owing and owing[start] <= button:
                start += 1
            if heads_up and n_owing == 2:
                # heads-up the button posts the first blind (BTN-03)
                first = button if button_eligible else owing[(start + 1) % n_owing]
                other = other_eligible if button_eligible else owing[start % n_owing]
                expected[1] = first
                expected[2] = other
            else:
                for b in range(1, n_required + 1):
                    expected[b] = owing[(start + b - 1) % n_owing]
            anchor = button
            for b in range(1, n_required + 1):
                if b == 1 and heads_up and button_owing:
                    after[b] = button
                else:
                    after[b] = _first_after(owing, n_owing, anchor)
                if b < blinds_n and first_post[b] >= 0:
                    anchor = post_seat[first_post[b]]
        top = max(n_required, blinds_n - 1)
        for b in range(1, top + 1):
            posted = b < blinds_n and first_post[b] >= 0
            if b > n_required and not posted:
                continue
            o_hand[row] = h
            o_blind[row] = b
            o_button[row] = button
            n_button[row] = button < 0
            o_players[row] = n_eligible
            o_required[row] = n_required
            o_expected[row] = expected[b]
            n_expected[row] = expected[b] < 0
            o_after[row] = after[b]
            n_after[row] = after[b] < 0
            o_expected_amount[row] = declared_amount[declared_start[h] + b - 1] if b <= n_required else 0
            n_expected_amount[row] = b > n_required
            o_posted[row] = posted
            if posted:
                p = first_post[b]
                o_seq[row] = post_seq[p]
                o_seat[row] = post_seat[p]
                o_amount[row] = post_amount[p]
                o_all_in[row] = post_all_in[p]
                in_order = True
                for q in range(p_lo, p_hi):
                    if post_blind[q] > b and post_seq[q] < post_seq[p]:
                        in_order = False
                o_in_order[row] = in_order
                n_seq[row] = n_seat[row] = n_amount[row] = n_in_order[row] = n_all_in[row] = False
            else:
                o_seq[row] = o_seat[row] = o_amount[row] = 0
                o_in_order[row] = o_all_in[row] = False
                n_seq[row] = n_seat[row] = n_amount[row] = n_in_order[row] = n_all_in[row] = True
            row += 1
        # extra posts of a blind already posted, in event order
        for p in range(p_lo, p_hi):
            if first_post[post_blind[p]] == p:
                continue
            o_hand[row] = h
            o_seq[row] = post_seq[p]
            o_blind[row] = post_blind[p]
            o_seat[row] = post_seat[p]
            o_expected[row] = -1
            o_amount[row] = post_amount[p]
            o_expected_amount[row] = 0
            o_posted[row] = True
            o_in_order[row] = False
            o_all_in[row] = post_all_in[p]
            o_button[row] = button
            o_players[row] = n_eligible
            o_required[row] = n_required
            o_after[row] = -1
            n_seq[row] = n_seat[row] = n_amount[row] = n_in_order[row] = n_all_in[row] = False
            n_expected[row] = n_expected_amount[row] = n_after[row] = True
            n_button[row] = button < 0
            row += 1
        # the last declared blind's first post, the small blind's, and who inherits the button (button_heir)
        if 0 < n_required < blinds_n and first_post[n_required] >= 0:
            big_blind[h] = post_seat[first_post[n_required]]
        if first_post[1] >= 0:
            small[h] = post_seat[first_post[1]]
        if n_required == 2:
            for j in range(2):
                number = heir_order[h, j]
                if number > 0 and first_post[number] >= 0 and post_seat[first_post[number]] != button:
                    heir[h] = post_seat[first_post[number]]
                    break
    count[0] = row
