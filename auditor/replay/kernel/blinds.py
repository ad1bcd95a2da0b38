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

Per hand: ``hand_button`` int64 (-1: none).

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
``button_heir_seat`` (seed 004: the small blind's seat, or the big blind's when the small blind was missed or
posted by the button; -1: none, always -1 unless exactly two blinds are declared).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: highest seat and blind number a kernel accepts; a valid log has seats 1..10 and blinds 1..3
MAX_SEAT = 63
MAX_BLIND = 8


@dataclass
class BlindFacts:
    """What `blind_facts` returns (see the module docstring)."""

    rows: dict[str, np.ndarray] = field(default_factory=dict)
    nulls: dict[str, np.ndarray] = field(default_factory=dict)
    big_blind_seat: np.ndarray | None = None
    button_heir_seat: np.ndarray | None = None
    #: True per hand with an input out of range: no rows, the caller reports the hand unreplayable
    invalid: np.ndarray | None = None


def blind_facts(*, slot_start: np.ndarray, slot_seat: np.ndarray, slot_dealt_in: np.ndarray,
                slot_ante_all_in: np.ndarray, hand_button: np.ndarray, declared_start: np.ndarray,
                declared_amount: np.ndarray, post_start: np.ndarray, post_blind: np.ndarray, post_seat: np.ndarray,
                post_seq: np.ndarray, post_amount: np.ndarray, post_all_in: np.ndarray) -> BlindFacts:
    """The `blinds` facts rows of every hand in the batch, with each hand's big blind and button heir seats."""
    raise NotImplementedError("interface first: body in progress (H5)")
