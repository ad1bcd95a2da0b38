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
button, seat_after_previous_blind. The player and expected_player names are `replay._blinds`'s decoding (seat ->
the player the seats table lists first in that seat; null for a null or unseated seat). Per hand: ``big_blind_seat``
(the first post of the last declared blind, -1: none; ``big_blind_player`` is its player) and
``button_heir_seat`` (the pack's ``button_heir``: the seat of the first listed blind's first post by a seat
other than the button; seed 004 lists small then big blind; -1: none, always -1 unless exactly two blinds are
declared) and ``small_blind_seat`` (the first post of blind 1, -1 if none: `_HandReplay.small_blind`'s player,
missed = -1, on the button = it equals the button; that fact is None unless exactly two blinds are declared).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from auditor.model.compiled import njit
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
    # a few 2D int64 tables, one row per column (the _B?_... constants), instead of ~45 arrays: one array
    # argument per column made the kernel's compile slower
    hands = np.zeros((2, n), dtype=np.int64)
    hands[_BH_BAD], hands[_BH_BUTTON] = bad, hand_button
    offs = np.stack([slot_start, declared_start, post_start])
    slots = np.zeros((3, len(slot_seat)), dtype=np.int64)
    slots[_BS_SEAT], slots[_BS_DEALT_IN], slots[_BS_ANTE_ALL_IN] = slot_seat, slot_dealt_in, slot_ante_all_in
    posts = np.zeros((5, len(post_blind)), dtype=np.int64)
    for i, col in ((_BP_BLIND, post_blind), (_BP_SEAT, post_seat), (_BP_SEQ, post_seq), (_BP_AMOUNT, post_amount),
                   (_BP_ALL_IN, post_all_in)):
        posts[i] = col
    rows_out = np.zeros((len(_INT_COLUMNS) + 3 + len(_NULLABLE), cap), dtype=np.int64)
    seats_out = np.full((3, n), -1, dtype=np.int64)
    count = np.zeros(1, dtype=np.int64)
    _blinds_kernel(hands, offs, slots, heir_order, declared_amount, posts, rows_out, seats_out, count)
    rows = int(count[0])
    out = {name: rows_out[i, :rows] for i, name in enumerate(_INT_COLUMNS)}
    out.update({name: rows_out[len(_INT_COLUMNS) + i, :rows].astype(np.bool_)
                for i, name in enumerate(("posted", "in_order", "all_in"))})
    nulls = {name: rows_out[len(_INT_COLUMNS) + 3 + i, :rows].astype(np.bool_) for i, name in enumerate(_NULLABLE)}
    return BlindFacts(rows=out, nulls=nulls, big_blind_seat=seats_out[_BX_BIG_BLIND],
                      button_heir_seat=seats_out[_BX_HEIR], small_blind_seat=seats_out[_BX_SMALL], invalid=bad)


# rows of the kernel's tables (blind_facts packs and unpacks them)
_BH_BAD = 0
_BH_BUTTON = 1
_BO_SLOT = 0
_BO_DECLARED = 1
_BO_POST = 2
_BS_SEAT = 0
_BS_DEALT_IN = 1
_BS_ANTE_ALL_IN = 2
_BP_BLIND = 0
_BP_SEAT = 1
_BP_SEQ = 2
_BP_AMOUNT = 3
_BP_ALL_IN = 4
_BR_HAND = 0
_BR_SEQ = 1
_BR_BLIND = 2
_BR_SEAT = 3
_BR_EXPECTED = 4
_BR_AMOUNT = 5
_BR_EXPECTED_AMOUNT = 6
_BR_BUTTON = 7
_BR_PLAYERS = 8
_BR_REQUIRED = 9
_BR_AFTER = 10
_BR_POSTED = 11
_BR_IN_ORDER = 12
_BR_ALL_IN = 13
_BR_NULL_SEQ = 14
_BR_NULL_SEAT = 15
_BR_NULL_EXPECTED = 16
_BR_NULL_AMOUNT = 17
_BR_NULL_EXPECTED_AMOUNT = 18
_BR_NULL_IN_ORDER = 19
_BR_NULL_ALL_IN = 20
_BR_NULL_BUTTON = 21
_BR_NULL_AFTER = 22
_BX_BIG_BLIND = 0
_BX_HEIR = 1
_BX_SMALL = 2

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
def _blinds_kernel(hands, offs, slots, heir_order, declared_amount, posts, rows_out, seats_out, count):
    """`_blinds_facts`, `big_blind_player`, `button_heir` and `small_blind` for every hand (rows preallocated)."""
    n = hands.shape[1]
    k_max = 1
    for h in range(n):
        k_max = max(k_max, offs[_BO_SLOT, h + 1] - offs[_BO_SLOT, h])
    owing = np.zeros(k_max, np.int64)
    blinds_n = 9  # blind numbers 1..8
    first_post = np.full(blinds_n, -1, np.int64)
    expected = np.full(blinds_n + 64, -1, np.int64)
    after = np.full(blinds_n + 64, -1, np.int64)
    row = 0
    for h in range(n):
        if hands[_BH_BAD, h]:
            continue
        lo = offs[_BO_SLOT, h]
        hi = offs[_BO_SLOT, h + 1]
        button = hands[_BH_BUTTON, h]
        n_required = offs[_BO_DECLARED, h + 1] - offs[_BO_DECLARED, h]
        p_lo = offs[_BO_POST, h]
        p_hi = offs[_BO_POST, h + 1]
        n_eligible = 0
        n_owing = np.int64(0)
        button_eligible = False
        button_owing = False
        other_eligible = -1
        for i in range(lo, hi):
            if slots[_BS_DEALT_IN, i]:
                n_eligible += 1
                if slots[_BS_SEAT, i] == button:
                    button_eligible = True
                elif other_eligible < 0:
                    other_eligible = slots[_BS_SEAT, i]
                if not slots[_BS_ANTE_ALL_IN, i]:
                    owing[n_owing] = slots[_BS_SEAT, i]
                    n_owing += 1
                    if slots[_BS_SEAT, i] == button:
                        button_owing = True
        _clear(first_post, np.int64(-1))
        for p in range(p_lo, p_hi):
            if first_post[posts[_BP_BLIND, p]] < 0:
                first_post[posts[_BP_BLIND, p]] = p
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
                    anchor = posts[_BP_SEAT, first_post[b]]
        top = max(n_required, blinds_n - 1)
        for b in range(1, top + 1):
            posted = b < blinds_n and first_post[b] >= 0
            if b > n_required and not posted:
                continue
            rows_out[_BR_HAND, row] = h
            rows_out[_BR_BLIND, row] = b
            rows_out[_BR_BUTTON, row] = button
            rows_out[_BR_NULL_BUTTON, row] = button < 0
            rows_out[_BR_PLAYERS, row] = n_eligible
            rows_out[_BR_REQUIRED, row] = n_required
            rows_out[_BR_EXPECTED, row] = expected[b]
            rows_out[_BR_NULL_EXPECTED, row] = expected[b] < 0
            rows_out[_BR_AFTER, row] = after[b]
            rows_out[_BR_NULL_AFTER, row] = after[b] < 0
            rows_out[_BR_EXPECTED_AMOUNT, row] = (declared_amount[offs[_BO_DECLARED, h] + b - 1]
                                                     if b <= n_required else 0)
            rows_out[_BR_NULL_EXPECTED_AMOUNT, row] = b > n_required
            rows_out[_BR_POSTED, row] = posted
            if posted:
                p = first_post[b]
                rows_out[_BR_SEQ, row] = posts[_BP_SEQ, p]
                rows_out[_BR_SEAT, row] = posts[_BP_SEAT, p]
                rows_out[_BR_AMOUNT, row] = posts[_BP_AMOUNT, p]
                rows_out[_BR_ALL_IN, row] = posts[_BP_ALL_IN, p]
                in_order = True
                for q in range(p_lo, p_hi):
                    if posts[_BP_BLIND, q] > b and posts[_BP_SEQ, q] < posts[_BP_SEQ, p]:
                        in_order = False
                rows_out[_BR_IN_ORDER, row] = in_order
                rows_out[_BR_NULL_SEQ, row] = False
                rows_out[_BR_NULL_SEAT, row] = False
                rows_out[_BR_NULL_AMOUNT, row] = False
                rows_out[_BR_NULL_IN_ORDER, row] = False
                rows_out[_BR_NULL_ALL_IN, row] = False
            else:
                rows_out[_BR_SEQ, row] = rows_out[_BR_SEAT, row] = rows_out[_BR_AMOUNT, row] = 0
                rows_out[_BR_IN_ORDER, row] = rows_out[_BR_ALL_IN, row] = False
                rows_out[_BR_NULL_SEQ, row] = True
                rows_out[_BR_NULL_SEAT, row] = True
                rows_out[_BR_NULL_AMOUNT, row] = True
                rows_out[_BR_NULL_IN_ORDER, row] = True
                rows_out[_BR_NULL_ALL_IN, row] = True
            row += 1
        # extra posts of a blind already posted, in event order
        for p in range(p_lo, p_hi):
            if first_post[posts[_BP_BLIND, p]] == p:
                continue
            rows_out[_BR_HAND, row] = h
            rows_out[_BR_SEQ, row] = posts[_BP_SEQ, p]
            rows_out[_BR_BLIND, row] = posts[_BP_BLIND, p]
            rows_out[_BR_SEAT, row] = posts[_BP_SEAT, p]
            rows_out[_BR_EXPECTED, row] = -1
            rows_out[_BR_AMOUNT, row] = posts[_BP_AMOUNT, p]
            rows_out[_BR_EXPECTED_AMOUNT, row] = 0
            rows_out[_BR_POSTED, row] = True
            rows_out[_BR_IN_ORDER, row] = False
            rows_out[_BR_ALL_IN, row] = posts[_BP_ALL_IN, p]
            rows_out[_BR_BUTTON, row] = button
            rows_out[_BR_PLAYERS, row] = n_eligible
            rows_out[_BR_REQUIRED, row] = n_required
            rows_out[_BR_AFTER, row] = -1
            rows_out[_BR_NULL_SEQ, row] = False
            rows_out[_BR_NULL_SEAT, row] = False
            rows_out[_BR_NULL_AMOUNT, row] = False
            rows_out[_BR_NULL_IN_ORDER, row] = False
            rows_out[_BR_NULL_ALL_IN, row] = False
            rows_out[_BR_NULL_EXPECTED, row] = True
            rows_out[_BR_NULL_EXPECTED_AMOUNT, row] = True
            rows_out[_BR_NULL_AFTER, row] = True
            rows_out[_BR_NULL_BUTTON, row] = button < 0
            row += 1
        # the last declared blind's first post, the small blind's, and who inherits the button (button_heir)
        if 0 < n_required < blinds_n and first_post[n_required] >= 0:
            seats_out[_BX_BIG_BLIND, h] = posts[_BP_SEAT, first_post[n_required]]
        if first_post[1] >= 0:
            seats_out[_BX_SMALL, h] = posts[_BP_SEAT, first_post[1]]
        if n_required == 2:
            for j in range(2):
                number = heir_order[h, j]
                if number > 0 and first_post[number] >= 0 and posts[_BP_SEAT, first_post[number]] != button:
                    seats_out[_BX_HEIR, h] = posts[_BP_SEAT, first_post[number]]
                    break
    count[0] = row
