"""Batch evaluation of contested pots: who wins by the cards, who is owed odd chips by suit.

A pot is evaluated only from cards the log shows: a hand with a hidden ("??") or missing card is not
evaluable, so every fact that depends on it (winners by evaluation, the best hand, whether the
winners match, a split without a tie, odd chips by suit, the hole cards used) stays null and the
rules that read them find the pot not assessable.

Pots are collected while hands are replayed and evaluated here in one NumPy call per hand shape
(hole cards, board cards, composition rule), because a per-pot evaluator call would cost more than
the rest of the replay.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from auditor.replay.evaluate import best_hands, card_text, describe, parse_card
from auditor.replay.house import HouseRules

_CODES = {"??": -1}


def code(card: str) -> int:
    """Card text to code, -1 for a card the log does not show (memoised: the same 53 strings recur)."""
    value = _CODES.get(card)
    if value is None:
        value = _CODES[card] = parse_card(card)
    return value


def seat_list(seats: Sequence[int]) -> str:
    return ",".join(str(s) for s in seats)


@dataclass
class Showdown:
    """A pot waiting for evaluation of the hands that contested it."""

    row: dict  # the pot's facts row, filled in place
    seats: list[int]  # every seat whose hand is evaluated: contenders and seats paid
    holes: list[list[int]]
    board: list[int]
    variant_key: tuple  # (hole cards, board cards, hole_use, board_use)
    house: HouseRules
    contenders: list[int]  # eligible seats that did not muck
    paid: list[int]
    odd_chips: int
    #: per seat, whether the log shows all its hole cards and the board (see _HandReplay._final_hand)
    known: list[bool]


def resolve(showdowns: list[Showdown]) -> None:
    groups: dict[tuple, list[Showdown]] = defaultdict(list)
    for sd in showdowns:
        groups[sd.variant_key].append(sd)
    for key, items in groups.items():
        _, _, hole_use, board_use = key
        hole = np.array([h for sd in items for h in sd.holes], dtype=np.int64)
        board = np.array([sd.board for sd in items for _ in sd.seats], dtype=np.int64).reshape(len(hole), -1)
        best = best_hands(hole, board, hole_use, board_use)
        # A hand with an unknown card is not evaluable (-1), never rated on the cards that are known.
        known = np.array([k for sd in items for k in sd.known], dtype=bool)
        values = np.where(known, best.value, -1).tolist()
        tops = np.where(known, best.top_hole_used, -1).tolist()
        i = 0
        for sd in items:
            value = dict(zip(sd.seats, values[i:i + len(sd.seats)], strict=True))
            top = dict(zip(sd.seats, tops[i:i + len(sd.seats)], strict=True))
            i += len(sd.seats)
            _fill(sd, value, top)


def _fill(sd: Showdown, value: dict[int, int], top: dict[int, int]) -> None:
    row = sd.row
    if sd.contenders and all(value[s] >= 0 for s in sd.contenders):
        high = max(value[s] for s in sd.contenders)
        winners = [s for s in sd.contenders if value[s] == high]
        row["winner_seats_by_evaluation"] = seat_list(winners)
        row["best_hand"] = describe(high)
        paid = set(sd.paid)
        # A tied pot of fewer chip units than winners: the equal share is nothing and the units go one
        # each as odd chips, so a tied winner legally receives no award (TDA 20, NZ §17.5(e)).
        units = row["awarded"] // row["chip_unit"] if row["chip_unit"] else 0
        too_small = 0 < units < len(winners) and paid < set(winners) and len(paid) == units
        row["winners_match"] = paid == set(winners) or too_small
        # paid to every evaluated winner and to someone else as well: divided without a tie
        row["split_without_tie"] = paid > set(winners)
        if too_small and all(top[s] >= 0 for s in winners):
            _odd_chips_among(sd, winners, top, units)
    if len(sd.paid) > 1 and sd.odd_chips and all(top[s] >= 0 for s in sd.paid):
        keys = {s: sd.house.card_key(top[s]) for s in sd.paid}
        order = sorted(sd.paid, key=keys.__getitem__, reverse=True)
        row["odd_chip_seats_by_suit"] = seat_list(sorted(order[: sd.odd_chips]))
        row["top_hole_cards_used"] = ", ".join(f"{s}:{card_text(top[s])}" for s in sd.paid)


def _odd_chips_among(sd: Showdown, winners: list[int], top: dict[int, int], units: int) -> None:
    """A pot too small to give every tied winner a chip: judge who got the chips as odd chips."""
    row = sd.row
    keys = {s: sd.house.card_key(top[s]) for s in winners}
    by_suit = sorted(winners, key=keys.__getitem__, reverse=True)[:units]
    row.update(odd_chips=units, equal_share=0, winners=len(winners),
               odd_chip_seats=seat_list(sorted(sd.paid)),
               share_ok=row["min_share"] == row["max_share"] == row["chip_unit"],
               odd_chip_seats_by_suit=seat_list(sorted(by_suit)),
               top_hole_cards_used=", ".join(f"{s}:{card_text(top[s])}" for s in winners))
    if row["button"] is not None:
        # seats are at most in the tens, so ordering modulo 1000 is the clockwise order from the button
        clockwise = sorted(winners, key=lambda s: (s - row["button"] - 1) % 1000)
        row["odd_chip_seats_by_position"] = seat_list(sorted(clockwise[:units]))
