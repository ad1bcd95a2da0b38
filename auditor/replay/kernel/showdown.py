"""Batch showdown evaluation from arrays: who wins each contested pot by the cards, odd chips by suit.

The columnar form of `replay.showdown.resolve`, `_fill` and `_odd_chips_among`, fed by the pot rows of
`pots.pot_facts` (those with ``needs_showdown``) and per-slot final hands instead of `Showdown` objects. The
evaluator is `_rate_kernel`: `auditor.replay.evaluate.best_hands` compiled (the same values and tie-break,
held to it by tests/test_kernel_rate.py), called once per variant shape (hole cards, board cards, hole use,
board use) for every evaluated seat of the batch; the per-pot decisions are one Numba kernel.

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

from auditor.model.compiled import njit
from auditor.replay.evaluate import (
    _ACE,
    _PATTERN_BASE,
    _PATTERN_WEIGHTS,
    _WEIGHTS,
    _WHEEL_HIGH,
    CATEGORY_BASE,
    FLUSH,
    STRAIGHT,
    STRAIGHT_FLUSH,
    _as_codes,
    _combos,
)
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

    Every evaluated seat of the batch is rated in one `_best` call per variant shape; the decisions
    per pot (`replay.showdown._fill`, `_odd_chips_among`) are one kernel pass over the rows.

    `slot_hole` is (slots, width), or (hands, seats + 1, width): the per-hand kernel's own (hand, seat) array
    with its seat 0, slot s being hand s // seats and seat s % seats + 1 (the layout `kernel.replay._slots`
    numbers slots in), so that the batch's cards need no copy as slot rows: only the rated slots' are read.
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
    if n_ev and (slot_hole.ndim not in (2, 3) or slot_hole.shape[-1] < width or hand_board.ndim != 2
                 or hand_board.shape[1] < board_width):
        raise ValueError("slot_hole and hand_board must be 2-D (or 3-D per hand and seat) and as wide as the "
                         "variants' cards")
    if n_ev and np.any(ev_slot >= len(slot_hole_known)):
        raise ValueError("an evaluated slot is beyond the slot arrays")
    if n_ev and slot_hole.ndim == 3 and (slot_hole.shape[1] < 2 or len(slot_hole_known)
                                         > slot_hole.shape[0] * (slot_hole.shape[1] - 1)):
        raise ValueError("the slots outrun slot_hole's hands and seats")

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
            if slot_hole.ndim == 2:
                hole = slot_hole[slots[idx], :hc].astype(np.int64)
            else:  # per hand and seat: slot s is hand s // seats, seat s % seats + 1
                seats = slot_hole.shape[1] - 1
                hole = slot_hole[slots[idx] // seats, slots[idx] % seats + 1, :hc].astype(np.int64)
            board = hand_board[hands[idx], :bc].astype(np.int64)
            slot_value[idx], slot_top[idx] = _best(hole, board, tuple(hand_hole_use[h0].tolist()),
                                                   tuple(hand_board_use[h0].tolist()))
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
    # a few 2D int64 tables, one row per column (the _X_... constants), instead of ~45 arrays: one array
    # argument per column made the kernel's compile several times slower
    i64 = np.int64
    rows_in = np.zeros((8, n_rows), dtype=i64)
    for i, col in ((_RI_NEEDS, rows["needs_showdown"]), (_RI_HAND, rows["hand"]), (_RI_AWARDED, rows["awarded"]),
                   (_RI_UNIT, rows["chip_unit"]), (_RI_MIN, rows["min_share"]), (_RI_MAX, rows["max_share"]),
                   (_RI_BUTTON, rows["button"]), (_RI_BUTTON_NULL, pots.nulls["button"])):
        rows_in[i] = col
    ev = np.zeros((4, n_ev), dtype=i64)
    ev[_EV_SEAT], ev[_EV_CONTENDER], ev[_EV_VALUE], ev[_EV_TOP] = ev_seat, ev_contender, value, top
    in_o = np.zeros((5, n_rows + 1), dtype=i64)
    for i, offsets in ((_IO_EV, ev_offsets), (_IO_WS, ws_offsets), (_IO_WE, we_offsets), (_IO_OC, oc_offsets),
                       (_IO_BP, bp_offsets)):
        in_o[i] = offsets
    out_o = np.zeros((5, n_rows + 1), dtype=i64)
    o_we_v = np.zeros(cap_eval, dtype=i64)
    out_odd = np.zeros((2, cap_odd), dtype=i64)
    out_ev = np.zeros((3, n_ev), dtype=i64)
    rows_out = np.zeros((13, n_rows), dtype=i64)
    rows_out[_RO_BEST_VALUE] = -1
    for i in (_RO_BEST_NULL, _RO_SUIT_NULL):
        rows_out[i] = 1
    for i, col in ((_RO_MATCH, rows["winners_match"]), (_RO_MATCH_NULL, pots.nulls["winners_match"]),
                   (_RO_SPLIT, rows["split_without_tie"]), (_RO_SPLIT_NULL, pots.nulls["split_without_tie"]),
                   (_RO_WE_NULL, pots.nulls["winner_seats_by_evaluation"]),
                   (_RO_BP_NULL, pots.nulls["odd_chip_seats_by_position"]), (_RO_ODD, rows["odd_chips"]),
                   (_RO_EQUAL, rows["equal_share"]), (_RO_WINNERS, rows["winners"]), (_RO_SHARE_OK, rows["share_ok"])):
        rows_out[i] = col
    ws_values, we_values, oc_values, bp_values = (np.ascontiguousarray(v, dtype=i64) for v in
                                                  (ws_values, we_values, oc_values, bp_values))
    _showdown_kernel(rows_in, suit_rank, ev, in_o, ws_values, we_values, oc_values, bp_values, out_o, o_we_v,
                     out_odd, out_ev, rows_out)

    def cut(offsets, values):
        return offsets, values[:int(offsets[-1])]

    def flag(i):
        return rows_out[i].astype(np.bool_)

    suit_null = flag(_RO_SUIT_NULL)
    return ShowdownFacts(
        rows={"best_value": rows_out[_RO_BEST_VALUE], "winners_match": flag(_RO_MATCH),
              "split_without_tie": flag(_RO_SPLIT), "odd_chips": rows_out[_RO_ODD],
              "equal_share": rows_out[_RO_EQUAL], "winners": rows_out[_RO_WINNERS], "share_ok": flag(_RO_SHARE_OK)},
        nulls={"best_value": flag(_RO_BEST_NULL), "winners_match": flag(_RO_MATCH_NULL),
               "split_without_tie": flag(_RO_SPLIT_NULL)},
        lists={"winner_seats_by_evaluation": cut(out_o[_OO_WE], o_we_v),
               "odd_chip_seats": cut(out_o[_OO_OC], out_odd[_OD_OC]),
               "odd_chip_seats_by_position": cut(out_o[_OO_BP], out_odd[_OD_BP]),
               "odd_chip_seats_by_suit": cut(out_o[_OO_BS], out_ev[_OE_BS]),
               "top_hole_cards_used": cut(out_o[_OO_TH], out_ev[_OE_TH_S])},
        list_nulls={"winner_seats_by_evaluation": flag(_RO_WE_NULL), "odd_chip_seats_by_position": flag(_RO_BP_NULL),
                    "odd_chip_seats_by_suit": suit_null, "top_hole_cards_used": suit_null.copy()},
        top_hole_codes=out_ev[_OE_TH_C][:int(out_o[_OO_TH, -1])])


# rows of the kernel's tables (showdown_facts packs and unpacks them)
_RI_NEEDS = 0
_RI_HAND = 1
_RI_AWARDED = 2
_RI_UNIT = 3
_RI_MIN = 4
_RI_MAX = 5
_RI_BUTTON = 6
_RI_BUTTON_NULL = 7
_EV_SEAT = 0
_EV_CONTENDER = 1
_EV_VALUE = 2
_EV_TOP = 3
_IO_EV = 0
_IO_WS = 1
_IO_WE = 2
_IO_OC = 3
_IO_BP = 4
_OO_WE = 0
_OO_OC = 1
_OO_BP = 2
_OO_BS = 3
_OO_TH = 4
_OD_OC = 0
_OD_BP = 1
_OE_BS = 0
_OE_TH_S = 1
_OE_TH_C = 2
_RO_BEST_VALUE = 0
_RO_BEST_NULL = 1
_RO_MATCH = 2
_RO_MATCH_NULL = 3
_RO_SPLIT = 4
_RO_SPLIT_NULL = 5
_RO_WE_NULL = 6
_RO_BP_NULL = 7
_RO_SUIT_NULL = 8
_RO_ODD = 9
_RO_EQUAL = 10
_RO_WINNERS = 11
_RO_SHARE_OK = 12


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


def _best(hole: np.ndarray, board: np.ndarray, hole_use: tuple[int, int], board_use: tuple[int, int]
          ) -> tuple[np.ndarray, np.ndarray]:
    """`evaluate.best_hands(...)`'s value and top_hole_used, from one kernel pass (`_rate_kernel`) instead of
    NumPy passes over every (row, combination): the evaluation was most of the showdown's time. Inputs are
    checked as `best_hands` checks them (its ValueErrors), so every index the kernel forms is a combination
    column (`evaluate._combos`) and every code is -1..51."""
    n_rows, n_hole = hole.shape
    combos = _combos(n_hole, board.shape[1], hole_use, board_use).astype(np.int64)
    cards = np.ascontiguousarray(np.concatenate([_as_codes(hole), _as_codes(board)], axis=1), dtype=np.int64)
    value = np.empty(n_rows, np.int64)
    top = np.empty(n_rows, np.int64)
    _rate_kernel(cards, combos, n_hole, _RATE_TABLE, value, top)
    return value, top


#: `evaluate`'s per-pattern tables for `_rate_kernel`: column 0 the base value, 1..5 the rank weights; row 16 the
#: constants (CATEGORY_BASE, FLUSH, STRAIGHT, STRAIGHT_FLUSH, ace, wheel high card) and row 17 col 0 the top weight
_RATE_TABLE = np.zeros((18, 6), np.int64)
_RATE_TABLE[:16, 0] = _PATTERN_BASE
_RATE_TABLE[:16, 1:] = _PATTERN_WEIGHTS
_RATE_TABLE[16] = (CATEGORY_BASE, FLUSH, STRAIGHT, STRAIGHT_FLUSH, _ACE, _WHEEL_HIGH)
_RATE_TABLE[17, 0] = _WEIGHTS[0]


@njit(cache=True)
def _rate_kernel(cards, combos, n_hole, table, value_out, top_out):  # pragma: no cover - compiled
    """Per row of `cards` (codes, -1 unknown), the best of the 5-card `combos` (column indexes) as
    `evaluate.best_hands` rates it: `_rank_columns`' value (sorted ranks, the neighbour-equality pattern's
    tables, flush, straight, wheel; -1 when a card is unknown), ties broken by the highest hole code used, the
    key value * 64 + top + 1 kept when it is the largest and not negative."""
    n_combos = combos.shape[0]
    base, flush_cat, straight_cat, sf_cat, ace, wheel_high = table[16, 0], table[16, 1], table[16, 2], \
        table[16, 3], table[16, 4], table[16, 5]
    w0 = table[17, 0]
    for row in range(cards.shape[0]):
        best = np.int64(-1)
        for k in range(n_combos):
            i0, i1, i2, i3, i4 = combos[k, 0], combos[k, 1], combos[k, 2], combos[k, 3], combos[k, 4]
            c0, c1, c2, c3, c4 = cards[row, i0], cards[row, i1], cards[row, i2], cards[row, i3], cards[row, i4]
            top = np.int64(-1)
            if i0 < n_hole:
                top = max(top, c0)
            if i1 < n_hole:
                top = max(top, c1)
            if i2 < n_hole:
                top = max(top, c2)
            if i3 < n_hole:
                top = max(top, c3)
            if i4 < n_hole:
                top = max(top, c4)
            # evaluate's sorting network, descending: (0,1) (3,4) (2,4) (2,3) (0,3) (0,2) (1,4) (1,3) (1,2)
            c0, c1 = max(c0, c1), min(c0, c1)
            c3, c4 = max(c3, c4), min(c3, c4)
            c2, c4 = max(c2, c4), min(c2, c4)
            c2, c3 = max(c2, c3), min(c2, c3)
            c0, c3 = max(c0, c3), min(c0, c3)
            c0, c2 = max(c0, c2), min(c0, c2)
            c1, c4 = max(c1, c4), min(c1, c4)
            c1, c3 = max(c1, c3), min(c1, c3)
            c1, c2 = max(c1, c2), min(c1, c2)
            if c4 < 0:
                v = np.int64(-1)
            else:
                r0, r1, r2, r3, r4 = c0 >> 2, c1 >> 2, c2 >> 2, c3 >> 2, c4 >> 2
                pattern = np.int64(r0 == r1) | (np.int64(r1 == r2) << 1) | (np.int64(r2 == r3) << 2) \
                    | (np.int64(r3 == r4) << 3)
                v = table[pattern, 0] + r0 * table[pattern, 1] + r1 * table[pattern, 2] + r2 * table[pattern, 3] \
                    + r3 * table[pattern, 4] + r4 * table[pattern, 5]
                if pattern == 0:
                    s0 = c0 & 3
                    flush = (c1 & 3) == s0 and (c2 & 3) == s0 and (c3 & 3) == s0 and (c4 & 3) == s0
                    wheel = r0 == ace and r1 == wheel_high
                    if flush:
                        v += flush_cat * base
                    if r0 - r4 == 4 or wheel:
                        v = (sf_cat if flush else straight_cat) * base + (wheel_high if wheel else r0) * w0
            key = v * 64 + top + 1
            if key > best:
                best = key
        if best >= 0:
            value_out[row] = best >> 6
            top_out[row] = (best & 63) - 1
        else:
            value_out[row] = -1
            top_out[row] = -1


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
def _showdown_kernel(rows_in, suit_rank, ev, in_o, ws_v, we_v, oc_v, bp_v, out_o, o_we_v, out_odd,
                     out_ev, rows_out):
    """`_fill` and `_odd_chips_among` for every row; rows without a showdown keep their lists (copied)."""
    n_rows = rows_in.shape[1]
    seats_n = 64
    paid = np.zeros(seats_n, np.int64)
    best = np.zeros(seats_n, np.int64)
    top_of = np.full(seats_n, -1, np.int64)
    order = np.zeros(seats_n, np.int64)
    keys = np.zeros(seats_n, np.int64)
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
        if rows_in[_RI_NEEDS, r]:
            h = rows_in[_RI_HAND, r]
            lo = in_o[_IO_EV, r]
            hi = in_o[_IO_EV, r + 1]
            odd_before = rows_out[_RO_ODD, r]
            n_paid = in_o[_IO_WS, r + 1] - in_o[_IO_WS, r]
            _clear(paid, np.int64(0))
            for j in range(in_o[_IO_WS, r], in_o[_IO_WS, r + 1]):
                paid[ws_v[j]] = True
            n_contenders = 0
            evaluable = True
            high = -1
            for j in range(lo, hi):
                top_of[ev[_EV_SEAT, j]] = ev[_EV_TOP, j]
                if ev[_EV_CONTENDER, j]:
                    n_contenders += 1
                    if ev[_EV_VALUE, j] < 0:
                        evaluable = False
                    elif ev[_EV_VALUE, j] > high:
                        high = ev[_EV_VALUE, j]
            if n_contenders > 0 and evaluable:
                _clear(best, np.int64(0))
                n_best = 0
                for j in range(lo, hi):
                    if ev[_EV_CONTENDER, j] and ev[_EV_VALUE, j] == high:
                        best[ev[_EV_SEAT, j]] = True
                        o_we_v[p_we] = ev[_EV_SEAT, j]
                        p_we += 1
                        n_best += 1
                replaced_we = True
                rows_out[_RO_WE_NULL, r] = False
                rows_out[_RO_BEST_VALUE, r] = high
                rows_out[_RO_BEST_NULL, r] = False
                paid_in_best = 0
                tops_known = True
                for s in range(seats_n):
                    if paid[s] and best[s]:
                        paid_in_best += 1
                    if best[s] and top_of[s] < 0:
                        tops_known = False
                # a tied pot of fewer chip units than winners: a tied winner may legally get nothing (TDA 20)
                units = rows_in[_RI_AWARDED, r] // rows_in[_RI_UNIT, r]
                too_small = 0 < units < n_best and paid_in_best == n_paid and n_paid < n_best and n_paid == units
                rows_out[_RO_MATCH, r] = (n_paid == n_best and paid_in_best == n_paid) or too_small
                rows_out[_RO_MATCH_NULL, r] = False
                rows_out[_RO_SPLIT, r] = paid_in_best == n_best and n_paid > n_best
                rows_out[_RO_SPLIT_NULL, r] = False
                if too_small and tops_known:
                    row_th, row_bs = _suit_order(best, top_of, suit_rank, h, units,
                                                 out_ev[_OE_TH_S], out_ev[_OE_TH_C], p_th,
                                                 out_ev[_OE_BS],
                                                 p_bs, order, keys)
                    rows_out[_RO_SUIT_NULL, r] = False
                    rows_out[_RO_ODD, r] = units
                    rows_out[_RO_EQUAL, r] = 0
                    rows_out[_RO_WINNERS, r] = n_best
                    low, high_share = rows_in[_RI_MIN, r], rows_in[_RI_MAX, r]
                    rows_out[_RO_SHARE_OK, r] = low == high_share and high_share == rows_in[_RI_UNIT, r]
                    replaced_oc = True
                    for s in range(seats_n):
                        if paid[s]:
                            out_odd[_OD_OC, p_oc] = s
                            p_oc += 1
                    if not rows_in[_RI_BUTTON_NULL, r]:
                        # clockwise from the button: ascending (seat - button - 1) mod 1000, seat order on ties
                        b = rows_in[_RI_BUTTON, r]
                        n_order = np.int64(0)
                        for s in range(seats_n):
                            if best[s]:
                                order[n_order] = s
                                keys[n_order] = -((((s - b - 1) % 1000) + 1000) % 1000)
                                n_order += 1
                        _sort_by_key_desc(order, keys, n_order)
                        _isort(order, units)
                        for x in range(units):
                            out_odd[_OD_BP, p_bp] = order[x]
                            p_bp += 1
                        replaced_bp = True
                        rows_out[_RO_BP_NULL, r] = False
            # odd chips by suit among the seats paid, for the pot's own odd chips (before any re-reading above)
            tops_paid = True
            for s in range(seats_n):
                if paid[s] and top_of[s] < 0:
                    tops_paid = False
            if n_paid > 1 and odd_before > 0 and tops_paid:
                row_th, row_bs = _suit_order(paid, top_of, suit_rank, h, odd_before,
                                             out_ev[_OE_TH_S], out_ev[_OE_TH_C], p_th,
                                             out_ev[_OE_BS],
                                             p_bs, order, keys)
                rows_out[_RO_SUIT_NULL, r] = False
            for j in range(lo, hi):
                top_of[ev[_EV_SEAT, j]] = -1
        p_bs = row_bs
        p_th = row_th
        if not replaced_we:
            for j in range(in_o[_IO_WE, r], in_o[_IO_WE, r + 1]):
                o_we_v[p_we] = we_v[j]
                p_we += 1
        if not replaced_oc:
            for j in range(in_o[_IO_OC, r], in_o[_IO_OC, r + 1]):
                out_odd[_OD_OC, p_oc] = oc_v[j]
                p_oc += 1
        if not replaced_bp:
            for j in range(in_o[_IO_BP, r], in_o[_IO_BP, r + 1]):
                out_odd[_OD_BP, p_bp] = bp_v[j]
                p_bp += 1
        out_o[_OO_WE, r + 1] = p_we
        out_o[_OO_OC, r + 1] = p_oc
        out_o[_OO_BP, r + 1] = p_bp
        out_o[_OO_BS, r + 1] = p_bs
        out_o[_OO_TH, r + 1] = p_th



