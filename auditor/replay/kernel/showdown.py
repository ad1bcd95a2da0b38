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
from numba import njit

from auditor.replay.evaluate import best_hands
from auditor.replay.kernel.pots import PotFacts, _clear, _isort


@dataclass
class ShowdownFacts:
    """Per pot row: ``rows`` scalar columns, ``nulls`` their masks, ``lists`` (offsets, values) columns and
    ``list_nulls`` their masks; ``top_hole_codes`` are the values aligned with ``lists['top_hole_cards_used']``
    (the seats)."""

    rows: dict[str, np.ndarray] = field(default_factory=dict)
    nulls: dict[str, np.ndarray] = field(default_factory=dict)
    lists: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    list_nulls: dict[str, np.ndarray] = field(default_factory=dict)
    top_hole_codes: np.ndarray | None = None


def showdown_facts(pots: PotFacts, *, slot_hole: np.ndarray, slot_hole_known: np.ndarray, hand_board: np.ndarray,
                   hand_board_known: np.ndarray, hand_hole_cards: np.ndarray, hand_board_cards: np.ndarray,
                   hand_hole_use: np.ndarray, hand_board_use: np.ndarray,
                   hand_suit_rank: np.ndarray) -> ShowdownFacts:
    """Evaluate every pot row that needs a showdown and return the pot columns it decides.

    Every evaluated seat of the batch is rated in one `best_hands` call per variant shape; the decisions
    per pot (`replay.showdown._fill`, `_odd_chips_among`) are one kernel pass over the rows.
    """
    rows, lists = pots.rows, pots.lists
    n_rows = len(rows["hand"])
    n_hands = len(hand_board_known)
    ev_offsets, ev_seat = lists["evaluated"]
    ev_slot = lists["evaluated_slot"][1]
    ev_contender = lists["evaluated_contender"][1]
    n_ev = len(ev_seat)
    hand_hole_cards = np.ascontiguousarray(hand_hole_cards, dtype=np.int64)
    hand_board_cards = np.ascontiguousarray(hand_board_cards, dtype=np.int64)
    hand_hole_use = np.ascontiguousarray(hand_hole_use, dtype=np.int64).reshape(n_hands, 2)
    hand_board_use = np.ascontiguousarray(hand_board_use, dtype=np.int64).reshape(n_hands, 2)
    suit_rank = np.ascontiguousarray(hand_suit_rank, dtype=np.int64).reshape(n_hands, 4)
    if np.any((suit_rank < 0) | (suit_rank > 3)):
        raise ValueError("suit ranks must be 0..3")
    slot_hole = np.asarray(slot_hole)
    hand_board = np.asarray(hand_board)
    width = int(hand_hole_cards.max(initial=0))
    board_width = int(hand_board_cards.max(initial=0))
    if n_ev and (slot_hole.ndim != 2 or slot_hole.shape[1] < width or hand_board.ndim != 2
                 or hand_board.shape[1] < board_width):
        raise ValueError("slot_hole and hand_board must be 2-D and as wide as the variants' cards")
    if n_ev and np.any(ev_slot >= len(slot_hole_known)):
        raise ValueError("an evaluated slot is beyond the slot arrays")

    # -- rate every evaluated seat, one evaluator call per variant shape
    ev_row = np.repeat(np.arange(n_rows, dtype=np.int64), np.diff(ev_offsets))
    ev_hand = rows["hand"][ev_row]
    has_slot = ev_slot >= 0
    safe_slot = np.where(has_slot, ev_slot, 0)
    known = has_slot & np.asarray(slot_hole_known, dtype=bool)[safe_slot] \
        & np.asarray(hand_board_known, dtype=bool)[ev_hand] if n_ev else np.zeros(0, dtype=bool)
    value = np.full(n_ev, -1, dtype=np.int64)
    top = np.full(n_ev, -1, dtype=np.int64)
    # Only a known hand is rated (an unknown one is -1 whatever the evaluator says), and a seat contesting
    # several pots of a hand is rated once: its cards and board are the same in each.
    slots, first, inverse = np.unique(np.where(known, ev_slot, -1), return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    rated = slots >= 0
    slots, first = slots[rated], first[rated]
    if len(slots):
        hands = ev_hand[first]
        shape = _shape_key(hand_hole_cards, hand_board_cards, hand_hole_use, hand_board_use)[hands]
        slot_value = np.full(len(slots), -1, dtype=np.int64)
        slot_top = np.full(len(slots), -1, dtype=np.int64)
        for key in np.unique(shape).tolist():
            idx = np.flatnonzero(shape == key)
            h0 = hands[idx[0]]
            hc, bc = int(hand_hole_cards[h0]), int(hand_board_cards[h0])
            hole = slot_hole[slots[idx], :hc].astype(np.int64)
            board = hand_board[hands[idx], :bc].astype(np.int64)
            best = best_hands(hole, board, tuple(hand_hole_use[h0].tolist()), tuple(hand_board_use[h0].tolist()))
            slot_value[idx] = best.value
            slot_top[idx] = best.top_hole_used
        offset = int(np.count_nonzero(~rated))  # the -1 group sorts first
        has = inverse >= offset
        value[has] = slot_value[inverse[has] - offset]
        top[has] = slot_top[inverse[has] - offset]

    # -- the per-pot decisions
    ws_offsets, ws_values = lists["winner_seats"]
    we_offsets, we_values = lists["winner_seats_by_evaluation"]
    oc_offsets, oc_values = lists["odd_chip_seats"]
    bp_offsets, bp_values = lists["odd_chip_seats_by_position"]
    cap_eval = n_ev + n_rows
    cap_odd = len(ws_values) + n_ev
    out_we = (np.zeros(n_rows + 1, dtype=np.int64), np.zeros(cap_eval, dtype=np.int64))
    out_oc = (np.zeros(n_rows + 1, dtype=np.int64), np.zeros(cap_odd, dtype=np.int64))
    out_bp = (np.zeros(n_rows + 1, dtype=np.int64), np.zeros(cap_odd, dtype=np.int64))
    out_bs = (np.zeros(n_rows + 1, dtype=np.int64), np.zeros(n_ev, dtype=np.int64))
    out_th = (np.zeros(n_rows + 1, dtype=np.int64), np.zeros(n_ev, dtype=np.int64), np.zeros(n_ev, dtype=np.int64))
    best_value = np.full(n_rows, -1, dtype=np.int64)
    best_null = np.ones(n_rows, dtype=np.bool_)
    match = rows["winners_match"].copy()
    match_null = pots.nulls["winners_match"].copy()
    split = rows["split_without_tie"].copy()
    split_null = pots.nulls["split_without_tie"].copy()
    we_null = pots.nulls["winner_seats_by_evaluation"].copy()
    bp_null = pots.nulls["odd_chip_seats_by_position"].copy()
    suit_null = np.ones(n_rows, dtype=np.bool_)
    odd = rows["odd_chips"].copy()
    equal = rows["equal_share"].copy()
    winners = rows["winners"].copy()
    share_ok = rows["share_ok"].copy()
    _showdown_kernel(
        rows["needs_showdown"], rows["hand"], rows["awarded"], rows["chip_unit"], rows["min_share"],
        rows["max_share"], rows["button"], pots.nulls["button"], suit_rank,
        ev_offsets, ev_seat, ev_contender, value, top, ws_offsets, ws_values, we_offsets, we_values,
        oc_offsets, oc_values, bp_offsets, bp_values,
        out_we[0], out_we[1], out_oc[0], out_oc[1], out_bp[0], out_bp[1], out_bs[0], out_bs[1],
        out_th[0], out_th[1], out_th[2], best_value, best_null, match, match_null, split, split_null, we_null,
        bp_null, suit_null, odd, equal, winners, share_ok)

    def cut(pair):
        return pair[0], pair[1][:int(pair[0][-1])]

    return ShowdownFacts(
        rows={"best_value": best_value, "winners_match": match, "split_without_tie": split, "odd_chips": odd,
              "equal_share": equal, "winners": winners, "share_ok": share_ok},
        nulls={"best_value": best_null, "winners_match": match_null, "split_without_tie": split_null},
        lists={"winner_seats_by_evaluation": cut(out_we), "odd_chip_seats": cut(out_oc),
               "odd_chip_seats_by_position": cut(out_bp), "odd_chip_seats_by_suit": cut(out_bs),
               "top_hole_cards_used": cut(out_th[:2])},
        list_nulls={"winner_seats_by_evaluation": we_null, "odd_chip_seats_by_position": bp_null,
                    "odd_chip_seats_by_suit": suit_null, "top_hole_cards_used": suit_null.copy()},
        top_hole_codes=out_th[2][:int(out_th[0][-1])])


def _shape_key(hole_cards: np.ndarray, board_cards: np.ndarray, hole_use: np.ndarray,
               board_use: np.ndarray) -> np.ndarray:
    """Per hand, one integer naming its evaluator call: (hole cards, board cards, hole use, board use)."""
    parts = (hole_cards, board_cards, hole_use[:, 0], hole_use[:, 1], board_use[:, 0], board_use[:, 1])
    key = np.zeros(len(hole_cards), dtype=np.int64)
    for part in parts:
        if np.any((part < 0) | (part > 63)):
            raise ValueError("card counts and uses must be 0..63")
        key = key * 64 + part
    return key


@njit(cache=True)
def _sort_by_key_desc(seats, keys, n):
    """Stable sort of seats[:n] by keys descending (as Python's sorted(..., reverse=True) keeps ties in order)."""
    for x in range(1, n):
        sv = seats[x]
        kv = keys[x]
        y = x - 1
        while y >= 0 and keys[y] < kv:
            seats[y + 1] = seats[y]
            keys[y + 1] = keys[y]
            y -= 1
        seats[y + 1] = sv
        keys[y + 1] = kv


@njit(cache=True)
def _suit_order(seats_in, top_of, suit_rank, h, n_take, th_s, th_c, p_th, bs_v, p_bs, order, keys):
    """Odd chips by suit among `seats_in` (flags by seat): writes each seat's top hole card used (seat
    ascending) and the `n_take` seats holding the highest cards by the house suit order, ascending.
    Returns the two list cursors after writing (`order`, `keys`: scratch of 64)."""
    n = np.int64(0)
    for s in range(64):
        if seats_in[s]:
            order[n] = s
            keys[n] = (top_of[s] // 4) * 4 + suit_rank[h, top_of[s] % 4]
            th_s[p_th] = s
            th_c[p_th] = top_of[s]
            p_th += 1
            n += 1
    _sort_by_key_desc(order, keys, n)
    take = min(n_take, n)
    _isort(order, take)
    for x in range(take):
        bs_v[p_bs] = order[x]
        p_bs += 1
    return p_th, p_bs


@njit(cache=True)
def _showdown_kernel(needs, r_hand, r_awarded, r_unit, r_min, r_max, r_button, r_button_null, suit_rank,
                     ev_o, ev_seat, ev_contender, value, top, ws_o, ws_v, we_o, we_v, oc_o, oc_v, bp_o, bp_v,
                     o_we_o, o_we_v, o_oc_o, o_oc_v, o_bp_o, o_bp_v, o_bs_o, o_bs_v, o_th_o, o_th_s, o_th_c,
                     best_value, best_null, match, match_null, split, split_null, we_null, bp_null, suit_null,
                     odd, equal, winners, share_ok):
    """`_fill` and `_odd_chips_among` for every row; rows without a showdown keep their lists (copied)."""
    n_rows = needs.shape[0]
    seats_n = 64
    paid = np.zeros(seats_n, dtype=np.bool_)
    best = np.zeros(seats_n, dtype=np.bool_)
    top_of = np.full(seats_n, -1, dtype=np.int64)
    order = np.zeros(seats_n, dtype=np.int64)
    keys = np.zeros(seats_n, dtype=np.int64)
    p_we = 0
    p_oc = 0
    p_bp = 0
    p_bs = np.int64(0)
    p_th = np.int64(0)
    for r in range(n_rows):
        row_bs = p_bs
        row_th = p_th
        replaced_we = False
        replaced_oc = False
        replaced_bp = False
        if needs[r]:
            h = r_hand[r]
            lo = ev_o[r]
            hi = ev_o[r + 1]
            odd_before = odd[r]
            n_paid = ws_o[r + 1] - ws_o[r]
            _clear(paid, np.bool_(False))
            for j in range(ws_o[r], ws_o[r + 1]):
                paid[ws_v[j]] = True
            n_contenders = 0
            evaluable = True
            high = -1
            for j in range(lo, hi):
                top_of[ev_seat[j]] = top[j]
                if ev_contender[j]:
                    n_contenders += 1
                    if value[j] < 0:
                        evaluable = False
                    elif value[j] > high:
                        high = value[j]
            if n_contenders > 0 and evaluable:
                _clear(best, np.bool_(False))
                n_best = 0
                for j in range(lo, hi):
                    if ev_contender[j] and value[j] == high:
                        best[ev_seat[j]] = True
                        o_we_v[p_we] = ev_seat[j]
                        p_we += 1
                        n_best += 1
                replaced_we = True
                we_null[r] = False
                best_value[r] = high
                best_null[r] = False
                paid_in_best = 0
                tops_known = True
                for s in range(seats_n):
                    if paid[s] and best[s]:
                        paid_in_best += 1
                    if best[s] and top_of[s] < 0:
                        tops_known = False
                # a tied pot of fewer chip units than winners: a tied winner may legally get nothing (TDA 20)
                units = r_awarded[r] // r_unit[r]
                too_small = 0 < units < n_best and paid_in_best == n_paid and n_paid < n_best and n_paid == units
                match[r] = (n_paid == n_best and paid_in_best == n_paid) or too_small
                match_null[r] = False
                split[r] = paid_in_best == n_best and n_paid > n_best
                split_null[r] = False
                if too_small and tops_known:
                    row_th, row_bs = _suit_order(best, top_of, suit_rank, h, units, o_th_s, o_th_c, p_th, o_bs_v,
                                                 p_bs, order, keys)
                    suit_null[r] = False
                    odd[r] = units
                    equal[r] = 0
                    winners[r] = n_best
                    share_ok[r] = r_min[r] == r_max[r] and r_max[r] == r_unit[r]
                    replaced_oc = True
                    for s in range(seats_n):
                        if paid[s]:
                            o_oc_v[p_oc] = s
                            p_oc += 1
                    if not r_button_null[r]:
                        # clockwise from the button: ascending (seat - button - 1) mod 1000, seat order on ties
                        b = r_button[r]
                        n_order = np.int64(0)
                        for s in range(seats_n):
                            if best[s]:
                                order[n_order] = s
                                keys[n_order] = -((((s - b - 1) % 1000) + 1000) % 1000)
                                n_order += 1
                        _sort_by_key_desc(order, keys, n_order)
                        _isort(order, units)
                        for x in range(units):
                            o_bp_v[p_bp] = order[x]
                            p_bp += 1
                        replaced_bp = True
                        bp_null[r] = False
            # odd chips by suit among the seats paid, for the pot's own odd chips (before any re-reading above)
            tops_paid = True
            for s in range(seats_n):
                if paid[s] and top_of[s] < 0:
                    tops_paid = False
            if n_paid > 1 and odd_before > 0 and tops_paid:
                row_th, row_bs = _suit_order(paid, top_of, suit_rank, h, odd_before, o_th_s, o_th_c, p_th, o_bs_v,
                                             p_bs, order, keys)
                suit_null[r] = False
            for j in range(lo, hi):
                top_of[ev_seat[j]] = -1
        p_bs = row_bs
        p_th = row_th
        if not replaced_we:
            for j in range(we_o[r], we_o[r + 1]):
                o_we_v[p_we] = we_v[j]
                p_we += 1
        if not replaced_oc:
            for j in range(oc_o[r], oc_o[r + 1]):
                o_oc_v[p_oc] = oc_v[j]
                p_oc += 1
        if not replaced_bp:
            for j in range(bp_o[r], bp_o[r + 1]):
                o_bp_v[p_bp] = bp_v[j]
                p_bp += 1
        o_we_o[r + 1] = p_we
        o_oc_o[r + 1] = p_oc
        o_bp_o[r + 1] = p_bp
        o_bs_o[r + 1] = p_bs
        o_th_o[r + 1] = p_th
