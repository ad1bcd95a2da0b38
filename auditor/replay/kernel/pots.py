"""End-of-hand pot facts for a whole batch of hands at once: pots, awards, equal shares, odd chips, rake.

This is the columnar form of what `engine._HandReplay._pots_facts`, `_misawarded`, `_hand_rake_shares` and
`replay.pots.build_pots` compute one hand at a time. The old engine is the specification: for the same end
state of a hand, `pot_facts` gives the same numbers (tests/test_kernel_pots.py holds them equal on replayed
hands). The work is one Numba kernel over flat arrays, a loop per hand inside the kernel and none in
Python, because a per-hand Python call would cost more than the rest of the replay.

Inputs (all NumPy arrays; ``n`` hands, offsets are int64 of length ``n + 1``, starting at 0, non-decreasing):

Per (hand, seat) slot, hand ``h`` owning rows ``slot_start[h]:slot_start[h + 1]``, seats strictly ascending
within a hand. A hand's slots must cover every seat the seats table lists *and* every seat an event names
(the old engine keeps a seat it has never seen seated: its contribution still builds pots):

- ``slot_seat`` int64: the seat number (1..10 in a valid log; 0..63 accepted).
- ``slot_total`` int64: chips the seat put in the pot as live money: blind, straddle and missed (live) posts,
  antes, and the chips of call/bet/raise actions that counted (the engine's ``total``). Dead posts are not
  here (``hand_dead``).
- ``slot_returned`` int64: chips given back to the seat by return events (the engine's ``returned``).
- ``slot_folded`` bool: folded or killed (out of every pot).
- ``slot_all_in`` bool: all-in at the end of the hand (stack <= 0 after a post or action).
- ``slot_mucked`` bool: a muck event for the seat.
- ``slot_shown`` bool: a show event for the seat.

Per hand:

- ``hand_button`` int64: the button seat, -1 if none.
- ``hand_dead`` int64: dead money (post kind ``dead``).
- ``hand_chips_in`` int64: chips put in by posts and actions (the engine's ``chips_in``).
- ``hand_chip_unit`` int64: the smallest chip (>= 1; a hand with less is invalid).
- ``hand_max_seats`` int64: the table's seat count (1..64), for odd chips by position.
- ``hand_rake_from`` int8: the pack's ``hand_rake_from``: ``RAKE_ANY`` 0, ``RAKE_MAIN`` 1, ``RAKE_PRO_RATA`` 2.

Awards, event order within a hand (``award_start`` offsets): ``award_pot`` int64 (0..63), ``award_seat`` int64,
``award_amount`` int64, ``award_seq`` int64 (event index within the hand).

Rakes, event order (``rake_start`` offsets): ``rake_pot`` int64 (0..63, or -1: stated for the hand, no pot),
``rake_amount`` int64.

Output: `PotFacts`. Pot rows are one per (hand, pot id the awards name), by hand then pot id ascending, as the
engine writes them. Scalar columns are arrays of the row count with a bool null mask where the fact can be
null; list-valued facts are (offsets, values) pairs. The strings the old engine writes are H4's decoding step
(or `render` in the tests); their exact forms:

- a seat list (``eligible_seats``, ``winner_seats``, ``odd_chip_seats``, ``odd_chip_seats_by_position``,
  ``paid_without_showing``, ``odd_chip_seats_by_suit``, ``winner_seats_by_evaluation``): ``",".join(str(s))``,
  e.g. ``"1,3"``; an empty list is ``""`` (not null).
- ``shares``: ``", ".join(f"{seat}:{amount}")`` over ``winner_seats`` and ``share_amounts``, e.g. ``"1:50, 3:50"``.
- hands.pots_misawarded: ``"; ".join(f"pot {pot}: held {held}, paid {paid}")``, ``""`` when none.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

RAKE_ANY, RAKE_MAIN, RAKE_PRO_RATA = 0, 1, 2
#: `HouseRules.hand_rake_from` text -> the code `pot_facts` reads
RAKE_FROM_CODES = {"any": RAKE_ANY, "main": RAKE_MAIN, "pro-rata": RAKE_PRO_RATA}
#: highest seat and pot id a kernel accepts (arrays sized by it); a valid log has seats 1..10, pots 0..10
MAX_SEAT = 63
MAX_POT = 63


@dataclass
class PotFacts:
    """What `pot_facts` returns: the `pots` facts table as columns, per-hand pot facts, and the showdown work.

    ``rows`` (one entry per pot row, int64 unless said):
        hand, seq (first award's event index), pot, seat (first odd-chip recipient, else first winner),
        pot_amount (null: the log names a pot that never formed), rake (this pot's rake, plus the rake stated
        for the hand on pot 0), awarded, winners, equal_share, odd_chips, min_share, max_share,
        share_ok (bool), hand_chip_balance (null when the hand pays nothing out), pots_formed, chip_unit,
        button (null: no button), winners_match (bool), split_without_tie (bool): these two are set here only
        for an uncontested pot (one eligible seat), otherwise null until `showdown.showdown_facts` fills them.
        needs_showdown (bool, not a fact): the pot goes to the batch evaluator (two or more eligible, or a
        split with odd chips).
    ``nulls``: column -> bool array, True where the fact is null (pot_amount, hand_chip_balance, button,
        winners_match, split_without_tie, odd_chip_seats_by_position, winner_seats_by_evaluation).
    ``lists``: column -> (offsets int64 of rows + 1, values int64):
        eligible_seats, winner_seats, share_amounts (aligned with winner_seats: the ``shares`` text),
        odd_chip_seats, odd_chip_seats_by_position, paid_without_showing, winner_seats_by_evaluation (the
        eligible seat of an uncontested pot, else empty and null), evaluated (the seats the showdown rates:
        contenders and seats paid, ascending; empty unless needs_showdown), and per evaluated seat
        ``evaluated_slot`` (its slot row, -1 if the seat has none: its hand is then unknown) and
        ``evaluated_contender`` (0/1: eligible and not mucked) aligned with ``evaluated``.
    ``hands`` (one entry per hand): chip_balance (null mask in ``hand_nulls``), pots_formed, awarded, rake,
        returned, misawarded_count; ``misawarded``: (offsets, pot, held, paid) for the pots_misawarded text.
    ``pots``: the pots the contributions form after the split_at decision, for every hand: (offsets per hand,
        amount, eligible offsets, eligible seats) -- what `build_pots` returns, as columns.
    ``invalid``: bool per hand, True when an input is out of range (seat, pot, chip unit, offsets): the hand
        gets no rows and the caller reports it unreplayable, as the engine does with its exceptions.
    """

    rows: dict[str, np.ndarray] = field(default_factory=dict)
    nulls: dict[str, np.ndarray] = field(default_factory=dict)
    lists: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    hands: dict[str, np.ndarray] = field(default_factory=dict)
    hand_nulls: dict[str, np.ndarray] = field(default_factory=dict)
    misawarded: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
    pots: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
    invalid: np.ndarray | None = None


def pot_facts(*, slot_start: np.ndarray, slot_seat: np.ndarray, slot_total: np.ndarray, slot_returned: np.ndarray,
              slot_folded: np.ndarray, slot_all_in: np.ndarray, slot_mucked: np.ndarray, slot_shown: np.ndarray,
              hand_button: np.ndarray, hand_dead: np.ndarray, hand_chips_in: np.ndarray,
              hand_chip_unit: np.ndarray, hand_max_seats: np.ndarray, hand_rake_from: np.ndarray,
              award_start: np.ndarray, award_pot: np.ndarray, award_seat: np.ndarray, award_amount: np.ndarray,
              award_seq: np.ndarray, rake_start: np.ndarray, rake_pot: np.ndarray,
              rake_amount: np.ndarray) -> PotFacts:
    """The `pots` facts rows and per-hand pot facts of every hand in the batch (see the module docstring)."""
    raise NotImplementedError("interface first: body in progress (H5)")
