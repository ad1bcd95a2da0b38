"""Batch showdown evaluation from arrays: who wins each contested pot by the cards, odd chips by suit.

The columnar form of `replay.showdown.resolve`, `_fill` and `_odd_chips_among`, fed by the pot rows of
`pots.pot_facts` (those with ``needs_showdown``) and per-slot final hands instead of `Showdown` objects. The
evaluator is `auditor.replay.evaluate.best_hands`, called once per variant shape (hole cards, board cards,
hole use, board use) for every evaluated seat of the batch; the per-pot decisions are one Numba kernel.

A hand is rated only when the log shows all of it: an unknown hole card or board card makes the seat's value
-1 and every fact depending on it stays null (see `replay.showdown`).

Inputs beyond the `PotFacts` (``n`` hands, ``m`` slots):

- ``slot_hole`` int8 (m, W): each slot's final hole cards as codes (rank*4 + suit, suits "cdhs"), the cards
  shown, else the cards dealt after draws, -1 padded; only the first ``hand_hole_cards[h]`` columns are read.
- ``slot_hole_known`` bool (m,): the log shows every one of those cards (the engine's `_final_hand` flag).
- ``hand_board`` int8 (n, B): the board's codes, -1 padded; the first ``hand_board_cards[h]`` are read.
- ``hand_board_known`` bool (n,): no board card is hidden ("??").
- ``hand_hole_cards``, ``hand_board_cards`` int64 (n,): the variant's counts.
- ``hand_hole_use``, ``hand_board_use`` int64 (n, 2): (fewest, most) the showdown hand uses, after the
  house's ``hole_use`` override.
- ``hand_suit_rank`` int8 (n, 4): the house suit order as a rank per suit index (c, d, h, s) -> 0 lowest ..
  3 highest (`HouseRules.suit_rank`); odd chips by suit compare ``(code // 4) * 4 + suit_rank[code % 4]``.

Output: `ShowdownFacts`, per pot row of the `PotFacts` (same order): the columns showdown fills or changes,
each with a null mask. Where a pot is not evaluated the column keeps the `PotFacts` value (copied in), so the
caller can take these columns wholesale: winner_seats_by_evaluation (list), best_value (int64, the hand value
of `evaluate.rank5`; ``best_hand`` is ``evaluate.describe(best_value)``), winners_match, split_without_tie,
odd_chip_seats_by_suit (list), top_hole_cards_used (list of (seat, code): ``", ".join(f"{s}:{card_text(c)}")``),
and for a pot too small to give every tied winner a chip (TDA 20): odd_chips, equal_share, winners,
odd_chip_seats, share_ok, odd_chip_seats_by_position.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from auditor.replay.kernel.pots import PotFacts


@dataclass
class ShowdownFacts:
    """Per pot row: ``rows`` scalar columns, ``nulls`` their masks, ``lists`` (offsets, values) columns and
    ``list_nulls`` their masks; ``top_hole_codes`` are the values aligned with ``lists['top_hole_cards_used']``
    (the seats)."""

    rows: dict[str, np.ndarray] = field(default_factory=dict)
    nulls: dict[str, np.ndarray] = field(default_factory=dict)
    lists: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    top_hole_codes: np.ndarray | None = None


def showdown_facts(pots: PotFacts, *, slot_hole: np.ndarray, slot_hole_known: np.ndarray, hand_board: np.ndarray,
                   hand_board_known: np.ndarray, hand_hole_cards: np.ndarray, hand_board_cards: np.ndarray,
                   hand_hole_use: np.ndarray, hand_board_use: np.ndarray,
                   hand_suit_rank: np.ndarray) -> ShowdownFacts:
    """Evaluate every pot row that needs a showdown and return the pot columns it decides."""
    raise NotImplementedError("interface first: body in progress (H5)")
