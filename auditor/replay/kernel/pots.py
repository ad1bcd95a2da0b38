"""End-of-hand pot facts for a whole batch of hands at once: pots, awards, equal shares, odd chips, rake.

This is the columnar form of what `engine._HandReplay._pots_facts`, `_misawarded`, `_hand_rake_shares` and
`model.pots.build_pots` compute one hand at a time. The old engine is the specification: for the same end
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
null; list-valued facts are (offsets, values) pairs. The strings the old engine writes are `replay._pots`'s
decoding step (or `render` in the tests); their exact forms:

- a seat list (``eligible_seats``, ``winner_seats``, ``odd_chip_seats``, ``odd_chip_seats_by_position``,
  ``paid_without_showing``, ``odd_chip_seats_by_suit``, ``winner_seats_by_evaluation``): ``",".join(str(s))``,
  e.g. ``"1,3"``; an empty list is ``""`` (not null).
- ``shares``: ``", ".join(f"{seat}:{amount}")`` over ``winner_seats`` and ``share_amounts``, e.g. ``"1:50, 3:50"``.
- hands.pots_misawarded: ``"; ".join(f"pot {pot}: held {held}, paid {paid}")``, ``""`` when none.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from auditor.model.compiled import njit

RAKE_ANY, RAKE_MAIN, RAKE_PRO_RATA = 0, 1, 2
#: `HouseRules.hand_rake_from` text -> the code `pot_facts` reads
RAKE_FROM_CODES = {"any": RAKE_ANY, "main": RAKE_MAIN, "pro-rata": RAKE_PRO_RATA}
#: highest seat and pot id a kernel accepts (arrays sized by it); a valid log has seats 1..10, pots 0..10
MAX_SEAT = 63
MAX_POT = 63
#: largest amount one event may carry (the hand-log schema's money maximum): with at most MAX_EVENTS amounts
#: summed per hand, no sum a kernel forms can overflow int64
MAX_MONEY = 10**15
MAX_EVENTS = 4096
#: bound on any per-hand chip sum (MAX_EVENTS * MAX_MONEY is 4.1e18 < 2**63)
MAX_SUM = MAX_EVENTS * MAX_MONEY
MAX_CHIP_UNIT = 10**9
#: a pot threshold no contribution reaches: the pot has no eligible seat
_NOBODY = 2**62


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
    """The `pots` facts rows and per-hand pot facts of every hand in the batch (see the module docstring).

    Inputs are checked here, once, with NumPy: a caller's malformed offsets raise ValueError (a bug, not a
    log), and a hand whose values a valid log cannot hold (seat or pot out of range, negative or oversized
    amounts, chip unit below 1) is marked invalid and skipped by the kernel, so no index the kernel forms
    can leave its arrays and no sum can overflow.
    """
    n = len(hand_button)
    i64 = _as_i64
    slot_start, award_start, rake_start = _offsets(slot_start, n), _offsets(award_start, n), _offsets(rake_start, n)
    slot_seat, slot_total, slot_returned = i64(slot_seat), i64(slot_total), i64(slot_returned)
    award_pot, award_seat, award_amount, award_seq = i64(award_pot), i64(award_seat), i64(award_amount), \
        i64(award_seq)
    rake_pot, rake_amount = i64(rake_pot), i64(rake_amount)
    hand_button, hand_dead, hand_chips_in = i64(hand_button), i64(hand_dead), i64(hand_chips_in)
    hand_chip_unit, hand_max_seats, hand_rake_from = i64(hand_chip_unit), i64(hand_max_seats), i64(hand_rake_from)
    flags = [np.ascontiguousarray(a, dtype=np.bool_) for a in (slot_folded, slot_all_in, slot_mucked, slot_shown)]
    _same_length(slot_start, slot_seat, slot_total, slot_returned, *flags)
    _same_length(award_start, award_pot, award_seat, award_amount, award_seq)
    _same_length(rake_start, rake_pot, rake_amount)
    for a in (hand_dead, hand_chips_in, hand_chip_unit, hand_max_seats, hand_rake_from):
        if len(a) != n:
            raise ValueError("every per-hand array must have one entry per hand")

    bad = (hand_button < -1) | (hand_button > MAX_SEAT) | (hand_chip_unit < 1) | (hand_chip_unit > MAX_CHIP_UNIT) \
        | (hand_max_seats < 1) | (hand_max_seats > MAX_SEAT + 1) | (hand_rake_from < 0) | (hand_rake_from > 2) \
        | (hand_dead < 0) | (hand_dead > MAX_SUM) | (hand_chips_in < 0) | (hand_chips_in > MAX_SUM) \
        | (np.diff(award_start) > MAX_EVENTS) | (np.diff(rake_start) > MAX_EVENTS)
    slot_hand = _row_hands(slot_start)
    slot_bad = (slot_seat < 0) | (slot_seat > MAX_SEAT) | (slot_total < 0) | (slot_total > MAX_SUM) \
        | (slot_returned < 0) | (slot_returned > MAX_SUM)
    # seats strictly ascending within a hand: the kernel's seat -> slot table relies on it
    if len(slot_seat) > 1:
        same = slot_hand[1:] == slot_hand[:-1]
        slot_bad[1:] |= same & (slot_seat[1:] <= slot_seat[:-1])
    bad |= _any_per_hand(slot_bad, slot_hand, n)
    chips = np.bincount(slot_hand, weights=slot_total.astype(np.float64), minlength=n)
    bad |= chips + hand_dead.astype(np.float64) > MAX_SUM
    award_bad = (award_pot < 0) | (award_pot > MAX_POT) | (award_seat < 0) | (award_seat > MAX_SEAT) \
        | (award_amount < 0) | (award_amount > MAX_MONEY)
    bad |= _any_per_hand(award_bad, _row_hands(award_start), n)
    rake_bad = (rake_pot < -1) | (rake_pot > MAX_POT) | (rake_amount < 0) | (rake_amount > MAX_MONEY)
    bad |= _any_per_hand(rake_bad, _row_hands(rake_start), n)

    slots_per_hand = np.diff(slot_start)
    awards_per_hand = np.diff(award_start)
    n_slots, n_awards = len(slot_seat), len(award_pot)
    # bounds: pot rows <= awards; a formed pot per distinct contribution (at most the slots), or one pot;
    # a row's eligible seats <= the hand's slots, and only rows naming a formed pot have any
    row_cap = n_awards
    pot_cap = n_slots + n
    eligible_cap = int(np.sum(np.minimum(awards_per_hand, slots_per_hand + 1) * slots_per_hand))
    pot_eligible_cap = int(np.sum((slots_per_hand + 1) * slots_per_hand))
    mis_cap = n_slots + n + n_awards

    out = PotFacts(invalid=bad)
    # the kernel reads and writes a few 2D int64 tables, one row per column (the _X_... constants): one array
    # argument per column made its compile several times slower
    hands = np.stack([bad.astype(np.int64), hand_button, hand_dead, hand_chips_in, hand_chip_unit, hand_max_seats,
                      hand_rake_from]) if n else np.zeros((7, 0), dtype=np.int64)
    offs = np.stack([slot_start, award_start, rake_start])
    slots = np.zeros((7, n_slots), dtype=np.int64)
    for i, col in enumerate((slot_seat, slot_total, slot_returned, *flags)):
        slots[i] = col
    awards = np.zeros((4, n_awards), dtype=np.int64)
    for i, col in enumerate((award_pot, award_seat, award_amount, award_seq)):
        awards[i] = col
    rakes = np.zeros((2, len(rake_pot)), dtype=np.int64)
    rakes[0], rakes[1] = rake_pot, rake_amount
    rows_t = np.zeros((len(_ROW_INT) + len(_ROW_BOOL), row_cap), dtype=np.int64)
    list_o = np.zeros((len(_LIST_ORDER), row_cap + 1), dtype=np.int64)
    list_v = np.zeros((6, n_awards), dtype=np.int64)
    el_v = np.zeros(eligible_cap, dtype=np.int64)
    eval_v = np.zeros((3, eligible_cap + n_awards), dtype=np.int64)
    hand_out = np.zeros((7, n), dtype=np.int64)
    starts = np.zeros((2, n + 1), dtype=np.int64)
    mis = np.zeros((3, mis_cap), dtype=np.int64)
    pot_cols = np.zeros((2, pot_cap + 1), dtype=np.int64)
    pot_el = np.zeros(pot_eligible_cap, dtype=np.int64)
    counts = np.zeros(8, dtype=np.int64)
    _pots_kernel(hands, offs, slots, awards, rakes, rows_t, list_o, list_v, el_v, eval_v, hand_out, starts, mis,
                 pot_cols, pot_el, counts)
    rows = int(counts[0])
    R = {name: rows_t[i, :rows] for i, name in enumerate(_ROW_INT)}
    B = {name: rows_t[len(_ROW_INT) + i, :rows].astype(np.bool_) for i, name in enumerate(_ROW_BOOL)}
    out.rows = dict(R)
    out.rows.update({name: B[name] for name in ("share_ok", "winners_match", "split_without_tie",
                                                "needs_showdown")})
    balance_null = hand_out[_HO_BALANCE_NULL].astype(np.bool_)
    out.nulls = {
        "pot_amount": B["pot_amount_null"], "hand_chip_balance": balance_null[out.rows["hand"]],
        "button": out.rows["button"] < 0,
        "winners_match": B["evaluation_null"].copy(), "split_without_tie": B["evaluation_null"].copy(),
        "winner_seats_by_evaluation": B["evaluation_null"].copy(),
        "odd_chip_seats_by_position": B["by_position_null"],
    }
    values = {"eligible_seats": el_v, "winner_seats": list_v[_LN_WS], "share_amounts": list_v[_LN_SA],
              "odd_chip_seats": list_v[_LN_OC], "odd_chip_seats_by_position": list_v[_LN_BP],
              "paid_without_showing": list_v[_LN_PW], "winner_seats_by_evaluation": list_v[_LN_WE],
              "evaluated": eval_v[_LE_EV], "evaluated_slot": eval_v[_LE_ES], "evaluated_contender": eval_v[_LE_EC]}
    out.lists = {}
    for i, name in enumerate(_LIST_ORDER):
        offsets = list_o[i, :rows + 1]
        out.lists[name] = (offsets, values[name][:int(offsets[-1])])
    out.hands = {name: hand_out[i] for i, name in ((_HO_BALANCE, "chip_balance"), (_HO_FORMED, "pots_formed"),
                                                   (_HO_AWARDED, "awarded"), (_HO_RAKE, "rake"),
                                                   (_HO_RETURNED, "returned"), (_HO_MIS_COUNT, "misawarded_count"))}
    out.hand_nulls = {"chip_balance": balance_null}
    mis_start = starts[_ST_MIS_START]
    n_mis = int(mis_start[-1])
    out.misawarded = (mis_start, mis[0][:n_mis], mis[1][:n_mis], mis[2][:n_mis])
    pot_start = starts[_ST_POT_START]
    n_pots = int(pot_start[-1])
    out.pots = (pot_start, pot_cols[_PA_POT_AMOUNT, :n_pots], pot_cols[_PA_POT_EL_START, :n_pots + 1],
                pot_el[:int(pot_cols[_PA_POT_EL_START, n_pots])])
    return out


# rows of the kernel's tables (pot_facts packs and unpacks them)
_O_SLOT = 0
_O_AWARD = 1
_O_RAKE = 2
_S_SEAT = 0
_S_TOTAL = 1
_S_RETURNED = 2
_S_FOLDED = 3
_S_ALL_IN = 4
_S_MUCKED = 5
_S_SHOWN = 6
_H_BAD = 0
_H_BUTTON = 1
_H_DEAD = 2
_H_CHIPS_IN = 3
_H_CHIP_UNIT = 4
_H_MAX_SEATS = 5
_H_RAKE_FROM = 6
_A_POT = 0
_A_SEAT = 1
_A_AMOUNT = 2
_A_SEQ = 3
_K_POT = 0
_K_AMOUNT = 1
_R_HAND = 0
_R_SEQ = 1
_R_POT = 2
_R_SEAT = 3
_R_POT_AMOUNT = 4
_R_RAKE = 5
_R_AWARDED = 6
_R_WINNERS = 7
_R_EQUAL = 8
_R_ODD = 9
_R_MIN = 10
_R_MAX = 11
_R_BALANCE = 12
_R_FORMED = 13
_R_UNIT = 14
_R_BUTTON = 15
_R_SHARE_OK = 16
_R_MATCH = 17
_R_SPLIT = 18
_R_NEEDS = 19
_R_POT_NULL = 20
_R_POSITION_NULL = 21
_R_EVAL_NULL = 22
_LO_EL = 0
_LO_WS = 1
_LO_SA = 2
_LO_OC = 3
_LO_BP = 4
_LO_PW = 5
_LO_WE = 6
_LO_EV = 7
_LO_ES = 8
_LO_EC = 9
_LN_WS = 0
_LN_SA = 1
_LN_OC = 2
_LN_BP = 3
_LN_PW = 4
_LN_WE = 5
_LE_EV = 0
_LE_ES = 1
_LE_EC = 2
_HO_BALANCE = 0
_HO_BALANCE_NULL = 1
_HO_FORMED = 2
_HO_AWARDED = 3
_HO_RAKE = 4
_HO_RETURNED = 5
_HO_MIS_COUNT = 6
_ST_MIS_START = 0
_ST_POT_START = 1
_M_MIS_POT = 0
_M_MIS_HELD = 1
_M_MIS_PAID = 2
_PA_POT_AMOUNT = 0
_PA_POT_EL_START = 1

_ROW_INT = ("hand", "seq", "pot", "seat", "pot_amount", "rake", "awarded", "winners", "equal_share", "odd_chips",
            "min_share", "max_share", "hand_chip_balance", "pots_formed", "chip_unit", "button")
_ROW_BOOL = ("share_ok", "winners_match", "split_without_tie", "needs_showdown", "pot_amount_null",
             "by_position_null", "evaluation_null")
_LIST_ORDER = ("eligible_seats", "winner_seats", "share_amounts", "odd_chip_seats", "odd_chip_seats_by_position",
               "paid_without_showing", "winner_seats_by_evaluation", "evaluated", "evaluated_slot",
               "evaluated_contender")


def _as_i64(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.int64)


def _offsets(offsets: np.ndarray, n: int) -> np.ndarray:
    """Offsets of per-hand runs, checked: a malformed one is the caller's bug, so it raises."""
    offsets = _as_i64(offsets)
    if len(offsets) != n + 1 or (n + 1 and offsets[0] != 0) or np.any(np.diff(offsets) < 0):
        raise ValueError("offsets must have one entry per hand plus one, start at 0 and never decrease")
    return offsets


def _same_length(offsets: np.ndarray, *arrays: np.ndarray) -> None:
    for a in arrays:
        if len(a) != offsets[-1]:
            raise ValueError("a flat array's length differs from its offsets' last entry")


def _row_hands(offsets: np.ndarray) -> np.ndarray:
    """The hand of each flat row, from the offsets."""
    return np.repeat(np.arange(len(offsets) - 1, dtype=np.int64), np.diff(offsets))


def _any_per_hand(bad_rows: np.ndarray, row_hand: np.ndarray, n: int) -> np.ndarray:
    return np.bincount(row_hand[bad_rows], minlength=n)[:n] > 0


@njit(cache=True)
def _isort(a, n):
    """Sort a[:n] ascending in place: insertion sort, for the few seats or levels of one hand (cheaper to
    compile than NumPy's sort, and as fast at this size)."""
    for x in range(1, n):
        v = a[x]
        y = x - 1
        while y >= 0 and a[y] > v:
            a[y + 1] = a[y]
            y -= 1
        a[y + 1] = v


@njit(cache=True)
def _clear(a, value):
    """a[:] = value, as one small compiled loop shared by every call site."""
    for i in range(a.shape[0]):
        a[i] = value


@njit(cache=True)
def _mul_div_ceil(a: int, b: int, t: int) -> int:
    """ceil(a * b / t) for 0 <= b <= t, 0 < t <= MAX_SUM, 0 <= a <= MAX_SUM, exactly, without overflow.

    Python's integers never overflow, so `_hand_rake_shares` is exact for any amounts; the product of two
    amounts near the schema's maximum does not fit in int64, so it is formed by doubling with the remainder
    kept below ``t`` (every intermediate stays under 2 * MAX_SUM < 2**63).
    """
    qa = a // t
    ra = a - qa * t
    q = 0
    r = 0
    for bit in range(62, -1, -1):
        q *= 2
        r *= 2
        if r >= t:
            r -= t
            q += 1
        if (b >> bit) & 1:
            r += ra
            if r >= t:
                r -= t
                q += 1
    result = qa * b + q
    return result + 1 if r > 0 else result


@njit(cache=True)
def _build(c, contender, k, dead, split, n_split, use_split, amount, thr, levels):
    """`build_pots` for one hand: fills amount[:P] and thr[:P] (eligible: contenders with c >= thr); returns P.

    `c` are the slots' contributions after returns, `split[:n_split]` the split_at levels (used only when
    `use_split`), `levels` scratch of k + n_split entries; `amount` and `thr` need k + n_split + 1 entries (one
    pot per distinct level, one more when nobody contends). The replay's split levels are folded all-in
    seats, never contenders, so there k + 2 entries are enough. Eligible sets are nested (more chips, fewer seats), so
    two levels have the same eligible seats exactly when the same number of contenders reach them.
    """
    n_levels = np.int64(0)
    top = 0
    for i in range(k):
        if contender[i]:
            levels[n_levels] = c[i]
            n_levels += 1
            if c[i] > top:
                top = c[i]
    if use_split and n_levels > 0:
        for j in range(n_split):
            if 0 < split[j] < top:
                levels[n_levels] = split[j]
                n_levels += 1
    _isort(levels, n_levels)
    pots = 0
    previous = 0
    last_count = -1
    for j in range(n_levels):
        level = levels[j]
        if j > 0 and level == levels[j - 1]:
            continue
        layer = 0
        count = 0
        for i in range(k):
            layer += min(c[i], level) - min(c[i], previous)
            if contender[i] and c[i] >= level:
                count += 1
        closed = False
        if use_split:
            for x in range(n_split):
                if split[x] == previous:
                    closed = True
        if pots > 0 and last_count == count and not closed:
            amount[pots - 1] += layer
        else:
            amount[pots] = layer
            thr[pots] = level
            pots += 1
        last_count = count
        previous = level
    rest = 0
    for i in range(k):
        if c[i] > previous:
            rest += c[i] - previous
    if pots > 0:
        amount[0] += dead
        amount[pots - 1] += rest
    elif dead != 0 or rest != 0:
        amount[0] = dead + rest
        thr[0] = _NOBODY
        pots = 1
    return pots


@njit(cache=True)
def _misawards(amount, pots, paid, has_award, rake_by_pot, hand_rake, how, unit, out_pot, out_held, out_paid,
               shares):
    """`_misawarded` and `_hand_rake_shares` for one hand: writes the misawarded pots, returns how many
    (`shares` is scratch of at least `pots` entries)."""
    shares[:pots] = 0
    if pots > 0 and hand_rake != 0:
        if how == 1:
            shares[0] = hand_rake
        elif how == 2:
            total = np.int64(0)
            for p in range(pots):
                total += amount[p]
            if total <= 0:
                shares[:pots] = hand_rake
            else:
                for p in range(pots):
                    share = _mul_div_ceil(hand_rake, amount[p], total)
                    shares[p] = min(hand_rake, -(-share // unit) * unit)
        else:
            shares[:pots] = hand_rake
    found = 0
    for pot in range(has_award.shape[0]):
        if pot >= pots and not has_award[pot]:
            continue
        held = amount[pot] if pot < pots else 0
        share = shares[pot] if pot < pots else 0
        if paid[pot] > held or paid[pot] < held - rake_by_pot[pot] - share:
            out_pot[found] = pot
            out_held[found] = held
            out_paid[found] = paid[pot]
            found += 1
    return found


@njit(cache=True)
def _pots_kernel(hands, offs, slots, awards, rakes, rows, list_o, list_v, el_v, eval_v, hand_out,
                 starts, mis, pot_cols, pot_el, counts):
    """Every hand's pots, misawards and pot rows (one pass; outputs preallocated to proven bounds)."""
    n = hands.shape[1]
    seats_n = 64
    k_max = 1
    for h in range(n):
        k_max = max(k_max, offs[_O_SLOT, h + 1] - offs[_O_SLOT, h])
    c = np.zeros(k_max, np.int64)
    contender = np.zeros(k_max, np.int64)
    split = np.zeros(k_max, np.int64)
    amount_a = np.zeros(k_max + 2, np.int64)
    thr_a = np.zeros(k_max + 2, np.int64)
    amount_b = np.zeros(k_max + 2, np.int64)
    thr_b = np.zeros(k_max + 2, np.int64)
    levels = np.zeros(2 * k_max + 1, np.int64)
    shares = np.zeros(k_max + 2, np.int64)
    mis_a = np.zeros((3, seats_n + k_max + 2), np.int64)
    mis_b = np.zeros((3, seats_n + k_max + 2), np.int64)
    paid = np.zeros(seats_n, np.int64)
    has_award = np.zeros(seats_n, np.int64)
    rake_by_pot = np.zeros(seats_n, np.int64)
    share_of = np.zeros(seats_n, np.int64)
    paid_seat = np.zeros(seats_n, np.int64)
    slot_of = np.full(seats_n, -1, np.int64)
    evaluated = np.zeros(seats_n, np.int64)
    is_contender = np.zeros(seats_n, np.int64)
    order = np.zeros(seats_n, np.int64)
    keys = np.zeros(seats_n, np.int64)
    chosen = np.zeros(seats_n, np.int64)
    row = 0
    n_mis = 0
    n_pots = 0
    for j in range(list_o.shape[0]):
        list_o[j, 0] = 0
    for h in range(n):
        starts[_ST_MIS_START, h] = n_mis
        starts[_ST_POT_START, h] = n_pots
        if hands[_H_BAD, h]:
            continue
        lo = offs[_O_SLOT, h]
        k = offs[_O_SLOT, h + 1] - lo
        a_lo = offs[_O_AWARD, h]
        a_hi = offs[_O_AWARD, h + 1]
        unit = hands[_H_CHIP_UNIT, h]
        button = hands[_H_BUTTON, h]
        # -- contributions, split levels, paid and rake per pot
        n_split = np.int64(0)
        returned = 0
        for i in range(k):
            c[i] = slots[_S_TOTAL, lo + i] - slots[_S_RETURNED, lo + i]
            contender[i] = not slots[_S_FOLDED, lo + i] and c[i] > 0
            returned += slots[_S_RETURNED, lo + i]
            slot_of[slots[_S_SEAT, lo + i]] = lo + i
            if slots[_S_FOLDED, lo + i] and slots[_S_ALL_IN, lo + i] and c[i] > 0:
                split[n_split] = c[i]
                n_split += 1
        _clear(paid, np.int64(0))
        _clear(has_award, np.int64(0))
        _clear(rake_by_pot, np.int64(0))
        awarded = 0
        for a in range(a_lo, a_hi):
            paid[awards[_A_POT, a]] += awards[_A_AMOUNT, a]
            has_award[awards[_A_POT, a]] = True
            awarded += awards[_A_AMOUNT, a]
        hand_rake = np.int64(0)
        rake_total = 0
        for r in range(offs[_O_RAKE, h], offs[_O_RAKE, h + 1]):
            rake_total += rakes[_K_AMOUNT, r]
            if rakes[_K_POT, r] < 0:
                hand_rake += rakes[_K_AMOUNT, r]
            else:
                rake_by_pot[rakes[_K_POT, r]] += rakes[_K_AMOUNT, r]
        has_balance = a_hi > a_lo
        balance = hands[_H_CHIPS_IN, h] - returned - awarded - rake_total
        # -- pots, and the split_at re-build when it alone fits the awards
        pots = _build(c, contender, k, hands[_H_DEAD, h], split, n_split, np.bool_(False), amount_a, thr_a, levels)
        found = _misawards(amount_a, pots, paid, has_award, rake_by_pot, hand_rake, hands[_H_RAKE_FROM, h], unit,
                           mis_a[0], mis_a[1], mis_a[2], shares)
        amount, thr = amount_a, thr_a
        if found > 0 and n_split > 0:
            pots_b = _build(c, contender, k, hands[_H_DEAD, h], split, n_split, np.bool_(True), amount_b, thr_b, levels)
            found_b = _misawards(amount_b, pots_b, paid, has_award, rake_by_pot, hand_rake, hands[_H_RAKE_FROM, h],
                                 unit, mis_b[0], mis_b[1], mis_b[2], shares)
            if found_b == 0:
                pots, found, amount, thr = pots_b, 0, amount_b, thr_b
        for j in range(found):
            mis[_M_MIS_POT, n_mis] = mis_a[0, j]
            mis[_M_MIS_HELD, n_mis] = mis_a[1, j]
            mis[_M_MIS_PAID, n_mis] = mis_a[2, j]
            n_mis += 1
        hand_out[_HO_BALANCE, h] = balance if has_balance else 0
        hand_out[_HO_BALANCE_NULL, h] = not has_balance
        hand_out[_HO_FORMED, h] = pots
        hand_out[_HO_AWARDED, h] = awarded
        hand_out[_HO_RAKE, h] = rake_total
        hand_out[_HO_RETURNED, h] = returned
        hand_out[_HO_MIS_COUNT, h] = found
        for p in range(pots):
            pot_cols[_PA_POT_AMOUNT, n_pots] = amount[p]
            e = pot_cols[_PA_POT_EL_START, n_pots]
            for i in range(k):
                if contender[i] and c[i] >= thr[p]:
                    pot_el[e] = slots[_S_SEAT, lo + i]
                    e += 1
            n_pots += 1
            pot_cols[_PA_POT_EL_START, n_pots] = e
        # -- one row per pot the awards name, ascending
        for pot in range(seats_n):
            if not has_award[pot]:
                continue
            _clear(share_of, np.int64(0))
            _clear(paid_seat, np.int64(0))
            seq = awards[_A_SEQ, a_lo]
            first = True
            for a in range(a_lo, a_hi):
                if awards[_A_POT, a] == pot:
                    share_of[awards[_A_SEAT, a]] += awards[_A_AMOUNT, a]
                    paid_seat[awards[_A_SEAT, a]] = True
                    if first or awards[_A_SEQ, a] < seq:
                        seq = awards[_A_SEQ, a]
                        first = False
            total = 0
            winners = 0
            for s in range(seats_n):
                if paid_seat[s]:
                    total += share_of[s]
                    winners += 1
            units = total // unit
            equal = (units // winners) * unit
            odd = units % winners
            ok = total % unit == 0
            extra = 0
            low = -1
            high = -1
            w = list_o[_LO_WS, row]
            for s in range(seats_n):
                if paid_seat[s]:
                    x = share_of[s]
                    list_v[_LN_WS, w] = s
                    list_v[_LN_SA, w] = x
                    w += 1
                    if x != equal and x != equal + unit:
                        ok = False
                    if x == equal + unit:
                        extra += 1
                    if low < 0 or x < low:
                        low = x
                    if x > high:
                        high = x
            list_o[_LO_WS, row + 1] = w
            list_o[_LO_SA, row + 1] = w
            ok = ok and extra == odd
            o = list_o[_LO_OC, row]
            focus = -1
            if odd > 0:
                for s in range(seats_n):
                    if paid_seat[s] and share_of[s] == equal + unit:
                        list_v[_LN_OC, o] = s
                        o += 1
                        if focus < 0:
                            focus = s
            list_o[_LO_OC, row + 1] = o
            if focus < 0:
                focus = list_v[_LN_WS, list_o[_LO_WS, row]]
            # odd chips by position: the first winners clockwise from the button (seat order breaks ties)
            b = list_o[_LO_BP, row]
            if odd > 0 and button >= 0:
                m = hands[_H_MAX_SEATS, h]
                n_order = 0
                for s in range(seats_n):
                    if paid_seat[s]:
                        order[n_order] = s
                        keys[n_order] = ((s - button - 1) % m + m) % m
                        n_order += 1
                # stable insertion sort by key: the seats' ascending order breaks ties, as sorted() does
                for x in range(1, n_order):
                    sv = order[x]
                    kv = keys[x]
                    y = x - 1
                    while y >= 0 and keys[y] > kv:
                        order[y + 1] = order[y]
                        keys[y + 1] = keys[y]
                        y -= 1
                    order[y + 1] = sv
                    keys[y + 1] = kv
                take = min(odd, n_order)
                for x in range(take):
                    chosen[x] = order[x]
                _isort(chosen, take)
                for x in range(take):
                    list_v[_LN_BP, b] = chosen[x]
                    b += 1
                rows[_R_POSITION_NULL, row] = False
            else:
                rows[_R_POSITION_NULL, row] = True
            list_o[_LO_BP, row + 1] = b
            # eligible seats and contenders (eligible, not mucked)
            e = list_o[_LO_EL, row]
            n_eligible = 0
            n_contenders = 0
            only = -1
            _clear(evaluated, np.int64(0))
            _clear(is_contender, np.int64(0))
            if pot < pots:
                for i in range(k):
                    if contender[i] and c[i] >= thr[pot]:
                        s = slots[_S_SEAT, lo + i]
                        el_v[e] = s
                        e += 1
                        n_eligible += 1
                        only = s
                        if not slots[_S_MUCKED, lo + i]:
                            n_contenders += 1
                            is_contender[s] = True
                            evaluated[s] = True
            list_o[_LO_EL, row + 1] = e
            pw = list_o[_LO_PW, row]
            if n_contenders > 1:
                for s in range(seats_n):
                    if paid_seat[s]:
                        i = slot_of[s]
                        if i < 0 or not slots[_S_SHOWN, i]:
                            list_v[_LN_PW, pw] = s
                            pw += 1
            list_o[_LO_PW, row + 1] = pw
            we = list_o[_LO_WE, row]
            if n_eligible == 1:
                list_v[_LN_WE, we] = only
                we += 1
                rows[_R_MATCH, row] = winners == 1 and paid_seat[only]
                rows[_R_SPLIT, row] = winners > 1 and paid_seat[only]
                rows[_R_EVAL_NULL, row] = False
            else:
                rows[_R_MATCH, row] = False
                rows[_R_SPLIT, row] = False
                rows[_R_EVAL_NULL, row] = True
            list_o[_LO_WE, row + 1] = we
            needs = n_eligible > 1 or (winners > 1 and odd > 0)
            ev = list_o[_LO_EV, row]
            if needs:
                for s in range(seats_n):
                    if evaluated[s] or paid_seat[s]:
                        eval_v[_LE_EV, ev] = s
                        eval_v[_LE_ES, ev] = slot_of[s]
                        eval_v[_LE_EC, ev] = 1 if is_contender[s] else 0
                        ev += 1
            list_o[_LO_EV, row + 1] = ev
            list_o[_LO_ES, row + 1] = ev
            list_o[_LO_EC, row + 1] = ev
            rows[_R_HAND, row] = h
            rows[_R_SEQ, row] = seq
            rows[_R_POT, row] = pot
            rows[_R_SEAT, row] = focus
            rows[_R_POT_AMOUNT, row] = amount[pot] if pot < pots else 0
            rows[_R_POT_NULL, row] = pot >= pots
            rows[_R_RAKE, row] = rake_by_pot[pot] + (hand_rake if pot == 0 else 0)
            rows[_R_AWARDED, row] = total
            rows[_R_WINNERS, row] = winners
            rows[_R_EQUAL, row] = equal
            rows[_R_ODD, row] = odd
            rows[_R_MIN, row] = low
            rows[_R_MAX, row] = high
            rows[_R_SHARE_OK, row] = ok
            rows[_R_BALANCE, row] = balance if has_balance else 0
            rows[_R_FORMED, row] = pots
            rows[_R_UNIT, row] = unit
            rows[_R_BUTTON, row] = button
            rows[_R_NEEDS, row] = needs
            row += 1
        for i in range(k):
            slot_of[slots[_S_SEAT, lo + i]] = -1
    starts[_ST_MIS_START, n] = n_mis
    starts[_ST_POT_START, n] = n_pots
    counts[0] = row



