"""The end-of-hand kernels fed from the hand kernel's end state: one call for pots, showdowns and blinds.

`kernel.hand.replay_hands` (H4) leaves each hand's end state as dense (hand, seat) matrices and flat rows of
posts, awards and rakes in walk order; `pots.pot_facts`, `showdown.showdown_facts` and `blinds.blind_facts`
read per-hand runs (offsets) of slots and rows. This is the adapter between the two, so the orchestration
(`kernel.replay`) makes one call. Everything is NumPy over whole arrays; the only Python pass is over the
batch's distinct `HouseRules` objects (a handful), plus one over `houses` to number them.

Checked equal to the reference engine's pots and blinds facts (tests/test_kernel_pots.py), end state from the
hand kernel included.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from auditor.replay.house import HouseRules
from auditor.replay.kernel.blinds import HEIR_NUMBERS, BlindFacts, blind_facts
from auditor.replay.kernel.pots import RAKE_FROM_CODES, PotFacts, pot_facts
from auditor.replay.kernel.showdown import ShowdownFacts, showdown_facts


def _by_hand(rows: Mapping[str, np.ndarray], n: int, names: Sequence[str]) -> tuple[np.ndarray, list[np.ndarray]]:
    """A row group in any order of hands (event order within a hand) as per-hand offsets and sorted arrays:
    a stable sort keeps each hand's event order."""
    hand = np.asarray(rows["hand"], dtype=np.int64)
    order = np.argsort(hand, kind="stable")
    offsets = np.searchsorted(hand[order], np.arange(n + 1, dtype=np.int64)).astype(np.int64)
    return offsets, [np.asarray(rows[name])[order] for name in names]


def house_columns(houses: Sequence[HouseRules], variant: np.ndarray,
                  variant_names: Sequence[str]) -> dict[str, np.ndarray]:
    """Per hand, the house settings the end-of-hand kernels read: hand_rake_from code, suit ranks (c, d, h, s),
    button_heir as blind numbers, and the variant's showdown shape after the house's hole_use override
    (hole cards, board cards, hole use low/high, board use low/high)."""
    number: dict[int, int] = {}
    distinct: list[HouseRules] = []
    ids = np.empty(len(houses), dtype=np.int64)
    for i, house in enumerate(houses):
        key = id(house)
        if key not in number:
            number[key] = len(distinct)
            distinct.append(house)
        ids[i] = number[key]
    k = max(len(distinct), 1)
    rake_from = np.zeros(k, np.int8)
    suit = np.zeros((k, 4), np.int8)
    heir = np.zeros((k, 2), np.int64)
    shapes = np.zeros((k, max(len(variant_names), 1), 6), np.int64)
    for i, house in enumerate(distinct):
        rake_from[i] = RAKE_FROM_CODES[house.hand_rake_from]
        suit[i] = [house.suit_rank(x) for x in "cdhs"]
        heir[i] = ([HEIR_NUMBERS[x] for x in house.button_heir] + [0, 0])[:2]
        for j, name in enumerate(variant_names):
            v = house.variant(name)
            shapes[i, j] = (v.hole_cards, v.board_cards, *v.hole_use, *v.board_use)
    shape = shapes[ids, np.asarray(variant, dtype=np.int64)] if len(houses) else np.zeros((0, 6), np.int64)
    return {"rake_from": rake_from[ids], "suit_rank": suit[ids], "heir_order": heir[ids], "shape": shape}


def end_of_hand(out: Mapping[str, Mapping[str, np.ndarray]], enc: Any,
                houses: Sequence[HouseRules]) -> tuple[PotFacts, ShowdownFacts, BlindFacts]:
    """Pots, showdowns and blinds of every hand from `kernel.hand.named(replay_hands(...))` and the batch's
    `encode.Encoded` (chip_unit, max_seats, blinds_off/blinds, variant/variant_names)."""
    hand, seat = out["hand"], out["seat"]
    n, width = seat["total"].shape
    slot_start = np.arange(n + 1, dtype=np.int64) * width
    slot_seat = np.tile(np.arange(width, dtype=np.int64), n)

    def flat(name: str) -> np.ndarray:
        a = seat[name]
        return a.reshape(n * width, *a.shape[2:])

    a_off, (a_pot, a_seat, a_amount, a_seq) = _by_hand(out["awards"], n, ("pot", "seat", "amount", "seq"))
    r_off, (r_pot, r_amount) = _by_hand(out["rakes"], n, ("pot", "amount"))
    p_off, (p_blind, p_seat, p_seq, p_amount, p_all_in) = _by_hand(out["posts"], n, ("number", "seat", "seq",
                                                                                      "amount", "all_in"))
    house = house_columns(houses, enc.variant, enc.variant_names)
    shape = house["shape"]
    pots = pot_facts(
        slot_start=slot_start, slot_seat=slot_seat, slot_total=flat("total"), slot_returned=flat("returned"),
        slot_folded=flat("folded"), slot_all_in=flat("all_in"), slot_mucked=flat("mucked"), slot_shown=flat("shown"),
        hand_button=hand["button"], hand_dead=hand["dead"], hand_chips_in=hand["chips_in"],
        hand_chip_unit=enc.chip_unit, hand_max_seats=enc.max_seats, hand_rake_from=house["rake_from"],
        award_start=a_off, award_pot=a_pot, award_seat=a_seat, award_amount=a_amount, award_seq=a_seq,
        rake_start=r_off, rake_pot=r_pot, rake_amount=r_amount)
    shown = showdown_facts(
        pots, slot_hole=flat("final"), slot_hole_known=flat("final_known"), hand_board=hand["board"],
        hand_board_known=hand["board_known"], hand_hole_cards=shape[:, 0], hand_board_cards=shape[:, 1],
        hand_hole_use=shape[:, 2:4], hand_board_use=shape[:, 4:6], hand_suit_rank=house["suit_rank"])
    blinds = blind_facts(
        slot_start=slot_start, slot_seat=slot_seat, slot_dealt_in=flat("dealt"), slot_ante_all_in=flat("ante_all_in"),
        hand_button=hand["button"], hand_heir_order=house["heir_order"], declared_start=enc.blinds_off,
        declared_amount=enc.blinds, post_start=p_off, post_blind=p_blind, post_seat=p_seat, post_seq=p_seq,
        post_amount=p_amount, post_all_in=p_all_in)
    return pots, shown, blinds
