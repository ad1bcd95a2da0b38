"""The end-of-hand kernels fed from the hand kernel's end state: one call for pots, showdowns and blinds.

`kernel.hand.replay_hands` (H4) leaves each hand's end state as dense (hand, seat) matrices and flat rows of
posts, awards and rakes in walk order; `pots.pot_facts`, `showdown.showdown_facts` and `blinds.blind_facts`
read per-hand runs (offsets) of slots and rows. This is the adapter between the two, so the orchestration
(`kernel.replay`) makes one call; `pots_frame`, `blinds_frame` and `hand_pot_columns` then write the facts in
the reference engine's text forms with Arrow string kernels (no Python per row), in the walk order the
reference writes its rows. Everything is NumPy or Arrow over whole arrays; the only Python passes are over
the batch's distinct `HouseRules` objects (a handful), one over `houses` to number them, and `describe` once
per distinct winning hand value.

Checked equal to the reference engine's pots and blinds facts (tests/test_kernel_pots.py), end state from the
hand kernel included.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from auditor.replay.evaluate import card_text, describe
from auditor.replay.facts import facts_frame
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


#: card code -> text ("2c" .. "As"), for top_hole_cards_used
_CARDS = pa.array([card_text(c) for c in range(52)], pa.string())


def _text(values: np.ndarray) -> pa.Array:
    return pc.cast(pa.array(np.asarray(values, dtype=np.int64), pa.int64()), pa.string())


def _joined(offsets: np.ndarray, items: pa.Array, sep: str, null: np.ndarray | None = None) -> pa.Array:
    """Per row, its run of `items` joined by `sep` ("" for an empty run, null where `null`)."""
    mask = None if null is None else pa.array(np.asarray(null, dtype=bool))
    offsets = np.asarray(offsets, dtype=np.int64)
    if offsets[-1] < 2**31:
        lists = pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32), pa.int32()), items, mask=mask)
    else:
        lists = pa.LargeListArray.from_arrays(pa.array(offsets, pa.int64()), items, mask=mask)
    return pc.binary_join(lists, sep)


def _seat_lists(pair: tuple[np.ndarray, np.ndarray], null: np.ndarray | None = None) -> pa.Array:
    """A seat-list column ("1,3") from (offsets, seats)."""
    offsets, seats = pair
    return _joined(offsets, _text(seats), ",", null)


def _names(player_code: np.ndarray, players: pa.Array, hand: np.ndarray, seat: np.ndarray,
           null: np.ndarray | None = None) -> pa.Array:
    """The player the seats table lists first in (hand, seat): dense codes (hand, seat) into `players`,
    null for no seat, a seat nobody sits in, or where `null`."""
    width = player_code.shape[1]
    inside = (seat >= 0) & (seat < width)
    code = np.where(inside, player_code[hand, np.where(inside, seat, 0)], -1)
    if null is not None:
        code = np.where(null, -1, code)
    return pc.take(players, pa.array(code, pa.int64(), mask=code < 0))


def _walk(hand: np.ndarray, order: np.ndarray, keep: np.ndarray | None) -> np.ndarray:
    """Row indices of hand-ordered rows in the order the reference writes them: hands as walked (`order`),
    a hand's rows in their own order; rows of hands not kept (failed) left out."""
    rank = np.empty(len(order), dtype=np.int64)
    rank[np.asarray(order, dtype=np.int64)] = np.arange(len(order), dtype=np.int64)
    rows = np.argsort(rank[hand], kind="stable") if len(hand) else np.zeros(0, dtype=np.int64)
    if keep is not None and len(rows):
        rows = rows[np.asarray(keep, dtype=bool)[hand[rows]]]
    return rows


def pots_frame(pots: PotFacts, shown: ShowdownFacts, player_code: np.ndarray, players: pa.Array,
               order: np.ndarray, keep: np.ndarray | None = None) -> pd.DataFrame:
    """The `pots` facts table, as `engine._HandReplay._pots_facts` and `showdown.resolve` write it.

    `player_code` is the dense (hand, seat) player code matrix into `players` (the hand kernel's
    ``seat.player`` and the batch dictionary), `order` the walk order of the hands, `keep` which hands'
    rows to write (failed hands dropped)."""
    R, N, L = pots.rows, pots.nulls, pots.lists
    hand = R["hand"]
    ws_offsets, ws_seats = L["winner_seats"]
    shares = pc.binary_join_element_wise(_text(ws_seats), _text(L["share_amounts"][1]), ":")
    th_offsets, th_seats = shown.lists["top_hole_cards_used"]
    codes = np.asarray(shown.top_hole_codes, dtype=np.int64)
    top = pc.binary_join_element_wise(_text(th_seats), pc.take(_CARDS, pa.array(np.clip(codes, 0, 51))), ":")
    best = shown.rows["best_value"]
    best_null = shown.nulls["best_value"]
    values, inverse = np.unique(np.where(best_null, -1, best), return_inverse=True)
    words = pa.array([describe(int(v)) for v in values.tolist()], pa.string())
    best_hand = pc.take(words, pa.array(inverse.reshape(-1), pa.int64(), mask=best_null))
    columns = {
        "hand": hand, "seq": R["seq"], "pot": R["pot"], "seat": R["seat"],
        "player": _names(player_code, players, hand, R["seat"]),
        "pot_amount": R["pot_amount"], "rake": R["rake"], "awarded": R["awarded"],
        "eligible_seats": _seat_lists(L["eligible_seats"]), "winners": shown.rows["winners"],
        "winner_seats": _seat_lists(L["winner_seats"]), "shares": _joined(ws_offsets, shares, ", "),
        "equal_share": shown.rows["equal_share"], "odd_chips": shown.rows["odd_chips"],
        "min_share": R["min_share"], "max_share": R["max_share"], "share_ok": shown.rows["share_ok"],
        "odd_chip_seats": _seat_lists(shown.lists["odd_chip_seats"]),
        "odd_chip_seats_by_suit": _seat_lists(shown.lists["odd_chip_seats_by_suit"],
                                              shown.list_nulls["odd_chip_seats_by_suit"]),
        "odd_chip_seats_by_position": _seat_lists(shown.lists["odd_chip_seats_by_position"],
                                                  shown.list_nulls["odd_chip_seats_by_position"]),
        "top_hole_cards_used": _joined(th_offsets, top, ", ", shown.list_nulls["top_hole_cards_used"]),
        "winner_seats_by_evaluation": _seat_lists(shown.lists["winner_seats_by_evaluation"],
                                                  shown.list_nulls["winner_seats_by_evaluation"]),
        "best_hand": best_hand, "winners_match": shown.rows["winners_match"],
        "split_without_tie": shown.rows["split_without_tie"], "hand_chip_balance": R["hand_chip_balance"],
        "pots_formed": R["pots_formed"], "paid_without_showing": _seat_lists(L["paid_without_showing"]),
        "chip_unit": R["chip_unit"], "button": R["button"],
    }
    nulls = {"pot_amount": N["pot_amount"], "hand_chip_balance": N["hand_chip_balance"], "button": N["button"],
             "winners_match": shown.nulls["winners_match"], "split_without_tie": shown.nulls["split_without_tie"]}
    return _in_walk_order("pots", columns, nulls, hand, order, keep)


def blinds_frame(blinds: BlindFacts, player_code: np.ndarray, players: pa.Array, order: np.ndarray,
                 keep: np.ndarray | None = None) -> pd.DataFrame:
    """The `blinds` facts table, as `engine._HandReplay._blinds_facts` writes it (see `pots_frame`)."""
    R, N = blinds.rows, blinds.nulls
    hand = R["hand"]
    columns = {name: R[name] for name in ("hand", "seq", "blind", "seat", "expected_seat", "amount",
                                          "expected_amount", "posted", "in_order", "all_in", "button", "players",
                                          "blinds_required", "seat_after_previous_blind")}
    columns["player"] = _names(player_code, players, hand, R["seat"], N["seat"])
    # the engine names the expected player only for a seat it can look up (`if exp_seat`: never seat 0)
    columns["expected_player"] = _names(player_code, players, hand, R["expected_seat"],
                                        N["expected_seat"] | (R["expected_seat"] == 0))
    return _in_walk_order("blinds", columns, dict(N), hand, order, keep)


def _in_walk_order(table: str, columns: dict, nulls: dict, hand: np.ndarray, order: np.ndarray,
                   keep: np.ndarray | None) -> pd.DataFrame:
    rows = _walk(hand, order, keep)
    index = pa.array(rows, pa.int64())
    taken = {name: (pc.take(values, index) if isinstance(values, pa.Array) else np.asarray(values)[rows])
             for name, values in columns.items()}
    return facts_frame(table, taken, {name: np.asarray(mask)[rows] for name, mask in nulls.items()})


def hand_pot_columns(pots: PotFacts, blinds: BlindFacts) -> dict[str, Any]:
    """Per hand (indexed by hand row): the hands table's pot facts and the blind seats the cross-hand state
    needs: chip_balance (+ chip_balance_null), pots_misawarded (Arrow strings, "" when none), pots_formed,
    big_blind_seat, button_heir_seat, small_blind_seat (-1: none), invalid (either kernel refused the hand)."""
    mis_start, mis_pot, mis_held, mis_paid = pots.misawarded
    entries = pc.binary_join_element_wise("pot ", _text(mis_pot), ": held ", _text(mis_held), ", paid ",
                                          _text(mis_paid), "")
    return {
        "chip_balance": pots.hands["chip_balance"], "chip_balance_null": pots.hand_nulls["chip_balance"],
        "pots_misawarded": _joined(mis_start, entries, "; "), "pots_formed": pots.hands["pots_formed"],
        "big_blind_seat": blinds.big_blind_seat, "button_heir_seat": blinds.button_heir_seat,
        "small_blind_seat": blinds.small_blind_seat, "invalid": pots.invalid | blinds.invalid,
    }
