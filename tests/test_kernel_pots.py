"""The end-of-hand kernels (`auditor.replay.kernel.pots`, `.blinds`, `.showdown`) on arbitrary end states.

They were held equal to the Python engine's end-of-hand methods (`_pots_facts`, `_blinds_facts`,
`showdown.resolve`) on Hypothesis end states and on whole hands until that engine was deleted (leaving
one engine); the whole-hand identity is now the golden snapshots (tests/test_facts_snapshots.py, every
rule example) and the simulator oracle of `auditor verify`, and whole random hands against rule-book oracles
(tests/test_kernel_end_props.py: pots by `build_pots`, balance, misawards, odd chips, scale, blinds by
position). What stays here needs no second engine:
`build_pots` against the kernel's `_build` on arbitrary contributions and split levels, a hostile hand
refused alone (bounds checks on), exact pro-rata arithmetic beyond int64 products, offsets checked.
(`kernel.end`, a second way of framing the same kernels' rows that only a test used, is deleted: the replay's
`_blinds` and `_pots` are the one way.)
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.ingest.tables import build_tables
from auditor.model.pots import build_pots
from auditor.model.records import SourceHand
from auditor.replay.evaluate import card_text, describe
from auditor.replay.house import HouseRules
from auditor.replay.kernel.blinds import HEIR_NUMBERS, blind_facts
from auditor.replay.kernel.pots import MAX_SUM, RAKE_FROM_CODES, _build, _mul_div_ceil, pot_facts
from auditor.replay.kernel.showdown import showdown_facts
from auditor.replay.showdown import code, seat_list

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "auditor/data/rules/examples"


# -- a hand's end state as the kernels' inputs -------------------------------------------------------
def _final_hand(state: dict, seat: int) -> tuple[list[int], bool]:
    """The seat's final cards as codes and whether all are known: the cards shown, else those dealt (after
    draws), known only when the variant's count is there without a "??" (the replay's reading)."""
    n = state["variant"].hole_cards
    for cards, usable in ((state["shown"].get(seat) or [], True),
                          (state["hole"].get(seat) or [], seat not in state["hole_unknown"])):
        if usable and len(cards) >= n and "??" not in cards[:n]:
            return [code(c) for c in cards[:n]], True
    return [-1] * n, False


def _board_codes(state: dict) -> tuple[list[int], bool]:
    """The board as codes padded with -1 to the variant's count, and whether no card is hidden."""
    cards = state["board"][: state["variant"].board_cards]
    return [code(c) for c in cards] + [-1] * (state["variant"].board_cards - len(cards)), "??" not in cards


# -- kernel inputs from the same states --------------------------------------------------------------
def _slots(state: dict) -> list[int]:
    seats = set(state["player"]) | set(state["total"]) | set(state["returned"]) | state["folded"] | \
        state["all_in"] | state["mucked"] | set(state["shown"]) | state["dealt_in"] | state["ante_all_in"] | \
        set(state["hole"]) | {s for _, s, _, _ in state["awards"]} | {p[1] for p in state["blind_posts"]}
    return sorted(seats)


def _kernels(states: list[dict]):
    slot_start, seat, total, returned, folded, all_in, mucked, shown, dealt, ante = [0], [], [], [], [], [], [], \
        [], [], []
    holes, known = [], []
    award_start, a_pot, a_seat, a_amount, a_seq = [0], [], [], [], []
    rake_start, r_pot, r_amount = [0], [], []
    declared_start, declared = [0], []
    post_start, p_blind, p_seat, p_seq, p_amount, p_all_in = [0], [], [], [], [], []
    boards, board_known, shapes, suit_rank = [], [], [], []
    for state in states:
        for s in _slots(state):
            seat.append(s)
            total.append(state["total"].get(s, 0))
            returned.append(state["returned"].get(s, 0))
            folded.append(s in state["folded"])
            all_in.append(s in state["all_in"])
            mucked.append(s in state["mucked"])
            shown.append(s in state["shown"])
            dealt.append(s in state["dealt_in"])
            ante.append(s in state["ante_all_in"])
            cards, ok = _final_hand(state, s)
            holes.append(cards + [-1] * (5 - len(cards)))
            known.append(ok)
        slot_start.append(len(seat))
        for pot, s, amount, seq in state["awards"]:
            a_pot.append(pot)
            a_seat.append(s)
            a_amount.append(amount)
            a_seq.append(seq)
        award_start.append(len(a_pot))
        for pot, amount in state["rake"].items():
            r_pot.append(-1 if pot is None else pot)
            r_amount.append(amount)
        rake_start.append(len(r_pot))
        declared.extend(state["blinds_declared"])
        declared_start.append(len(declared))
        for number, s, seq, amount, flag in state["blind_posts"]:
            p_blind.append(number)
            p_seat.append(s)
            p_seq.append(seq)
            p_amount.append(amount)
            p_all_in.append(flag)
        post_start.append(len(p_blind))
        board, ok = _board_codes(state)
        boards.append(board + [-1] * (5 - len(board)))
        board_known.append(ok)
        v = state["variant"]
        shapes.append((v.hole_cards, v.board_cards, *v.hole_use, *v.board_use))
        suit_rank.append([state["house"].suit_rank(x) for x in "cdhs"])
    button = np.array([-1 if s["button"] is None else s["button"] for s in states], dtype=np.int64)
    pots = pot_facts(
        slot_start=np.array(slot_start), slot_seat=np.array(seat, dtype=np.int64),
        slot_total=np.array(total, dtype=np.int64), slot_returned=np.array(returned, dtype=np.int64),
        slot_folded=np.array(folded, dtype=bool), slot_all_in=np.array(all_in, dtype=bool),
        slot_mucked=np.array(mucked, dtype=bool), slot_shown=np.array(shown, dtype=bool), hand_button=button,
        hand_dead=np.array([s["dead"] for s in states], dtype=np.int64),
        hand_chips_in=np.array([s["chips_in"] for s in states], dtype=np.int64),
        hand_chip_unit=np.array([s["chip_unit"] for s in states], dtype=np.int64),
        hand_max_seats=np.array([s["max_seats"] for s in states], dtype=np.int64),
        hand_rake_from=np.array([RAKE_FROM_CODES[s["house"].hand_rake_from] for s in states], dtype=np.int8),
        award_start=np.array(award_start), award_pot=np.array(a_pot, dtype=np.int64),
        award_seat=np.array(a_seat, dtype=np.int64), award_amount=np.array(a_amount, dtype=np.int64),
        award_seq=np.array(a_seq, dtype=np.int64), rake_start=np.array(rake_start),
        rake_pot=np.array(r_pot, dtype=np.int64), rake_amount=np.array(r_amount, dtype=np.int64))
    shape = np.array(shapes, dtype=np.int64).reshape(len(states), 6)
    shown_down = showdown_facts(
        pots, slot_hole=np.array(holes, dtype=np.int8).reshape(len(seat), 5),
        slot_hole_known=np.array(known, dtype=bool), hand_board=np.array(boards, dtype=np.int8).reshape(-1, 5),
        hand_board_known=np.array(board_known, dtype=bool), hand_hole_cards=shape[:, 0],
        hand_board_cards=shape[:, 1], hand_hole_use=shape[:, 2:4], hand_board_use=shape[:, 4:6],
        hand_suit_rank=np.array(suit_rank, dtype=np.int8).reshape(len(states), 4))
    blinds = blind_facts(
        slot_start=np.array(slot_start), slot_seat=np.array(seat, dtype=np.int64),
        slot_dealt_in=np.array(dealt, dtype=bool), slot_ante_all_in=np.array(ante, dtype=bool), hand_button=button,
        hand_heir_order=np.array([([HEIR_NUMBERS[x] for x in s["house"].button_heir] + [0, 0])[:2] for s in states],
                                 dtype=np.int64).reshape(len(states), 2),
        declared_start=np.array(declared_start), declared_amount=np.array(declared, dtype=np.int64),
        post_start=np.array(post_start), post_blind=np.array(p_blind, dtype=np.int64),
        post_seat=np.array(p_seat, dtype=np.int64), post_seq=np.array(p_seq, dtype=np.int64),
        post_amount=np.array(p_amount, dtype=np.int64), post_all_in=np.array(p_all_in, dtype=bool))
    return pots, shown_down, blinds


# -- the kernels' columns in the facts tables' text forms --------------------------------------------
def _seats(pair, r: int) -> list[int]:
    offsets, values = pair
    return values[offsets[r]:offsets[r + 1]].tolist()


def _render_pots(states: list[dict], pots, sd) -> list[dict]:
    R, N, L = pots.rows, pots.nulls, pots.lists
    out = []
    for r in range(len(R["hand"])):
        h = int(R["hand"][r])
        players = states[h]["player"]
        winners = _seats(L["winner_seats"], r)
        amounts = _seats(L["share_amounts"], r)
        th = sd.lists["top_hole_cards_used"]
        top_seats = _seats(th, r)
        top_codes = sd.top_hole_codes[th[0][r]:th[0][r + 1]].tolist()
        out.append({
            "hand": states[h]["h"], "seq": int(R["seq"][r]), "pot": int(R["pot"][r]), "seat": int(R["seat"][r]),
            "player": players.get(int(R["seat"][r])),
            "pot_amount": None if N["pot_amount"][r] else int(R["pot_amount"][r]),
            "rake": int(R["rake"][r]), "awarded": int(R["awarded"][r]),
            "eligible_seats": seat_list(_seats(L["eligible_seats"], r)), "winners": int(sd.rows["winners"][r]),
            "winner_seats": seat_list(winners), "shares": ", ".join(f"{s}:{a}" for s, a in zip(winners, amounts,
                                                                                                strict=True)),
            "equal_share": int(sd.rows["equal_share"][r]), "odd_chips": int(sd.rows["odd_chips"][r]),
            "min_share": int(R["min_share"][r]), "max_share": int(R["max_share"][r]),
            "share_ok": bool(sd.rows["share_ok"][r]),
            "odd_chip_seats": seat_list(_seats(sd.lists["odd_chip_seats"], r)),
            "odd_chip_seats_by_suit": None if sd.list_nulls["odd_chip_seats_by_suit"][r]
            else seat_list(_seats(sd.lists["odd_chip_seats_by_suit"], r)),
            "odd_chip_seats_by_position": None if sd.list_nulls["odd_chip_seats_by_position"][r]
            else seat_list(_seats(sd.lists["odd_chip_seats_by_position"], r)),
            "top_hole_cards_used": None if sd.list_nulls["top_hole_cards_used"][r]
            else ", ".join(f"{s}:{card_text(c)}" for s, c in zip(top_seats, top_codes, strict=True)),
            "winner_seats_by_evaluation": None if sd.list_nulls["winner_seats_by_evaluation"][r]
            else seat_list(_seats(sd.lists["winner_seats_by_evaluation"], r)),
            "best_hand": None if sd.nulls["best_value"][r] else describe(int(sd.rows["best_value"][r])),
            "winners_match": None if sd.nulls["winners_match"][r] else bool(sd.rows["winners_match"][r]),
            "split_without_tie": None if sd.nulls["split_without_tie"][r] else bool(sd.rows["split_without_tie"][r]),
            "hand_chip_balance": None if N["hand_chip_balance"][r] else int(R["hand_chip_balance"][r]),
            "pots_formed": int(R["pots_formed"][r]), "chip_unit": int(R["chip_unit"][r]),
            "button": None if N["button"][r] else int(R["button"][r]),
            "paid_without_showing": seat_list(_seats(L["paid_without_showing"], r)),
        })
    return out


def _render_blinds(states: list[dict], blinds) -> list[tuple]:
    R, N = blinds.rows, blinds.nulls

    def v(name, r):
        return None if name in N and N[name][r] else (R[name][r].item())

    out = []
    for r in range(len(R["hand"])):
        h = int(R["hand"][r])
        players = states[h]["player"]
        seat, expected = v("seat", r), v("expected_seat", r)
        out.append((states[h]["h"], v("seq", r), v("blind", r), seat, players.get(seat) if seat is not None else None,
                    expected, players.get(expected) if expected else None, v("amount", r), v("expected_amount", r),
                    bool(R["posted"][r]), v("in_order", r), v("all_in", r), v("button", r), v("players", r),
                    v("blinds_required", r), v("seat_after_previous_blind", r)))
    return out


def _render_hands(states: list[dict], pots, blinds) -> list[dict]:
    mis_start, mis_pot, mis_held, mis_paid = pots.misawarded
    out = []
    for h, state in enumerate(states):
        lo, hi = mis_start[h], mis_start[h + 1]
        big, heir = int(blinds.big_blind_seat[h]), int(blinds.button_heir_seat[h])
        small = int(blinds.small_blind_seat[h])
        button = -1 if state["button"] is None else state["button"]
        out.append({
            "chip_balance": None if pots.hand_nulls["chip_balance"][h] else int(pots.hands["chip_balance"][h]),
            "pots_misawarded": "; ".join(f"pot {p}: held {x}, paid {y}" for p, x, y in
                                         zip(mis_pot[lo:hi], mis_held[lo:hi], mis_paid[lo:hi], strict=True)),
            "big_blind_player": state["player"].get(big) if big >= 0 else None,
            "button_heir": state["player"].get(heir) if heir >= 0 else None,
            "small_blind": None if len(state["blinds_declared"]) != 2 else (None, True, None) if small < 0
            else (state["player"].get(small), False, small == button),
        })
    return out


# -- arbitrary end states -----------------------------------------------------------------------------
DECK = [r + s for r in "23456789TJQKA" for s in "cdhs"]
HOUSES = [HouseRules(hand_rake_from=how, suit_order=order, button_heir=heir) for how in ("any", "main", "pro-rata")
          for order in (("s", "h", "d", "c"), ("c", "d", "h", "s"))
          for heir in ((), ("small-blind", "big-blind"), ("big-blind",))]


@st.composite
def end_states(draw, h: int = 0) -> dict:
    variant = draw(st.sampled_from(["holdem", "holdem", "omaha", "five-card-draw", "three-card-nz"]))
    house = draw(st.sampled_from(HOUSES))
    v = house.variant(variant)
    seats = sorted(draw(st.sets(st.integers(1, 10), min_size=2, max_size=9)))
    unit = draw(st.sampled_from([1, 1, 5, 25]))
    chips = st.integers(0, 40).map(lambda x: x * unit) | st.integers(0, 1000)
    total = {s: draw(chips) for s in seats if draw(st.booleans()) or True}
    returned = {s: draw(st.integers(0, 3)) * unit for s in seats if draw(st.integers(0, 4)) == 0}
    folded = {s for s in seats if draw(st.integers(0, 2)) == 0}
    all_in = {s for s in seats if draw(st.integers(0, 2)) == 0}
    mucked = {s for s in seats if draw(st.integers(0, 3)) == 0}
    deck = draw(st.permutations(DECK))
    hole = {s: deck[i * 5:i * 5 + v.hole_cards] for i, s in enumerate(seats)}
    for s in seats:
        if draw(st.integers(0, 5)) == 0:
            hole[s] = ["??"] * v.hole_cards
    board = list(deck[50 - v.board_cards:50]) if v.board_cards else []
    if board and draw(st.integers(0, 6)) == 0:
        board = board[:draw(st.integers(0, len(board)))]
    if board and draw(st.integers(0, 8)) == 0:
        board[0] = "??"
    shown = {s: hole[s] for s in seats if draw(st.booleans())}
    extra_seat = st.sampled_from(seats) | st.integers(1, 10)
    n_awards = draw(st.integers(0, 6))
    awards = []
    for seq in range(n_awards):
        pot = draw(st.integers(0, 3))
        awards.append((pot, draw(extra_seat), draw(chips), 100 + seq * draw(st.sampled_from([1, -1]))))
    rake = {}
    for _ in range(draw(st.integers(0, 2))):
        rake[draw(st.sampled_from([None, None, 0, 1]))] = draw(st.integers(1, 20)) * unit
    declared = draw(st.sampled_from([[], [50], [50, 100], [25, 50, 100], [50, 100]]))
    posts = []
    for seq in range(draw(st.integers(0, 4))):
        posts.append((draw(st.integers(1, 3)), draw(extra_seat), seq, draw(st.integers(0, 100)), draw(st.booleans())))
    dead = draw(st.sampled_from([0, 0, unit, 3 * unit]))
    chips_in = sum(total.values()) + dead + draw(st.sampled_from([0, 0, unit]))
    button = draw(st.sampled_from([None, *seats, 10]))
    return {
        "h": h, "player": {s: f"p{s}" for s in seats}, "total": total, "returned": returned, "folded": folded,
        "all_in": all_in, "mucked": mucked, "shown": shown,
        "dealt_in": {s for s in seats if draw(st.integers(0, 4)) > 0}, "ante_all_in": set(),
        "dead": dead, "chips_in": chips_in, "button": button, "chip_unit": unit,
        "max_seats": draw(st.sampled_from([max(seats), 10, 6])), "house": house, "awards": awards, "rake": rake,
        "blind_posts": posts, "blinds_declared": declared, "variant": v, "hole": hole,
        "hole_unknown": {s for s in seats if draw(st.integers(0, 9)) == 0}, "board": board,
    } | {"ante_all_in": {s for s in seats if draw(st.integers(0, 6)) == 0}}


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.integers(1, 10), st.integers(-5, 60), min_size=0, max_size=9), st.data())
def test_build_equals_build_pots(contributed, data):
    seats = sorted(contributed)
    folded = {s for s in seats if data.draw(st.booleans())}
    dead = data.draw(st.integers(0, 10))
    split_at = set(data.draw(st.lists(st.integers(1, 60), max_size=3)))
    use_split = bool(split_at) and data.draw(st.booleans())
    want = build_pots(contributed, folded, dead, split_at if use_split else set())
    k = len(seats)
    c = np.array([contributed[s] for s in seats], dtype=np.int64)
    contender = np.array([s not in folded and contributed[s] > 0 for s in seats], dtype=np.bool_)
    split = np.array(sorted(split_at), dtype=np.int64)
    # split_at here is drawn apart from the seats, so it may hold more levels than the replay ever passes
    # (its levels are folded all-in seats): the buffers are sized by _build's contract, not the replay's.
    amount = np.zeros(k + len(split) + 1, dtype=np.int64)
    thr = np.zeros(k + len(split) + 1, dtype=np.int64)
    pots = _build(c, contender, k, dead, split, len(split), use_split, amount, thr,
                  np.zeros(k + len(split) + 1, dtype=np.int64))
    got = [(int(amount[p]), tuple(s for s, ci, ok in zip(seats, c, contender, strict=True) if ok and ci >= thr[p]))
           for p in range(pots)]
    assert got == [(p.amount, p.eligible) for p in want]



GAMES = [("holdem", "no-limit"), ("holdem", "fixed-limit"), ("omaha", "pot-limit"), ("omaha-nz", "pot-limit"),
         ("three-card-nz", "spread-limit"), ("five-card-draw", "fixed-limit")]


def _example_files(*prefixes: str) -> list[Path]:
    return sorted(p for p in EXAMPLES.glob("*/*/*.jsonl") if p.parent.name.startswith(prefixes))


def _tables_of(paths: list[Path]):
    import json
    hands = [SourceHand(json.loads(line), str(path), i + 1) for path in paths
             for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()) if line.strip()]
    return build_tables(hands)


CORRUPTIONS = {
    "seat out of range": lambda s: s | {"player": s["player"] | {99: "x"}},
    "negative seat": lambda s: s | {"total": s["total"] | {-3: 10}},
    "pot out of range": lambda s: s | {"awards": [*s["awards"], (64, 1, 5, 9)]},
    "negative award": lambda s: s | {"awards": [*s["awards"], (0, 1, -5, 9)]},
    "award over the schema's money": lambda s: s | {"awards": [*s["awards"], (0, 1, 10**16, 9)]},
    "chip unit 0": lambda s: s | {"chip_unit": 0},
    "rake pot out of range": lambda s: s | {"rake": s["rake"] | {77: 5}},
    "contribution near int64": lambda s: s | {"total": s["total"] | {1: 2**62}},
    "button out of range": lambda s: s | {"button": 64},
}
BLIND_CORRUPTIONS = {
    "blind number 0": lambda s: s | {"blind_posts": [*s["blind_posts"], (0, 1, 5, 10, False)]},
    "blind number 9": lambda s: s | {"blind_posts": [*s["blind_posts"], (9, 1, 5, 10, False)]},
    "post seat out of range": lambda s: s | {"blind_posts": [*s["blind_posts"], (1, 70, 5, 10, False)]},
    "button out of range": lambda s: s | {"button": -2},
}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(end_states(), min_size=2, max_size=4), st.data())
def test_a_hostile_hand_is_refused_alone(states, data):
    """A hand with values no valid log holds is marked invalid and gets no rows, with bounds checks on (the
    suite compiles the kernels with NUMBA_BOUNDSCHECK=1); the batch's other hands are as they are alone."""
    states = [s | {"h": i} for i, s in enumerate(states)]
    bad = data.draw(st.integers(0, len(states) - 1))
    pots_kind = data.draw(st.booleans())
    table = CORRUPTIONS if pots_kind else BLIND_CORRUPTIONS
    corrupt = table[data.draw(st.sampled_from(sorted(table)))]
    hostile = [corrupt(s) if i == bad else s for i, s in enumerate(states)]
    pots, sd, blinds = _kernels(hostile)
    refused = pots.invalid if pots_kind else blinds.invalid
    assert refused.tolist() == [i == bad for i in range(len(states))]
    kept = [s for i, s in enumerate(states) if i != bad]
    alone_pots, alone_sd, alone_blinds = _kernels(kept)
    if pots_kind:
        assert bad not in pots.rows["hand"].tolist()
        assert _render_pots(hostile, pots, sd) == _render_pots(kept, alone_pots, alone_sd)
    else:
        assert bad not in blinds.rows["hand"].tolist()
        assert _render_blinds(hostile, blinds) == _render_blinds(kept, alone_blinds)


def test_malformed_offsets_are_the_callers_bug():
    with pytest.raises(ValueError, match="offsets"):
        blind_facts(slot_start=np.array([0, 2, 1]), slot_seat=np.array([1], dtype=np.int64),
                    slot_dealt_in=np.ones(1, bool), slot_ante_all_in=np.zeros(1, bool),
                    hand_button=np.array([1, 1]), hand_heir_order=np.zeros((2, 2), np.int64),
                    declared_start=np.zeros(3, np.int64),
                    declared_amount=np.zeros(0, np.int64), post_start=np.zeros(3, np.int64),
                    post_blind=np.zeros(0, np.int64), post_seat=np.zeros(0, np.int64), post_seq=np.zeros(0, np.int64),
                    post_amount=np.zeros(0, np.int64), post_all_in=np.zeros(0, bool))


def test_an_empty_batch_and_hands_without_awards_or_posts():
    assert _kernels([])[0].rows["hand"].size == 0
    empty = {"h": 0, "player": {1: "a", 2: "b"}, "total": {}, "returned": {}, "folded": set(), "all_in": set(),
             "mucked": set(), "shown": {}, "dealt_in": set(), "ante_all_in": set(), "dead": 0, "chips_in": 0,
             "button": None, "chip_unit": 1, "max_seats": 6, "house": HouseRules(), "awards": [], "rake": {},
             "blind_posts": [], "blinds_declared": [], "variant": HouseRules().variant("holdem"), "hole": {},
             "hole_unknown": set(), "board": []}
    pots, _, blinds = _kernels([empty, empty | {"h": 1, "blinds_declared": [5, 10], "button": 2}])
    assert pots.rows["hand"].size == 0 and pots.hand_nulls["chip_balance"].all()
    assert blinds.rows["blind"].tolist() == [1, 2] and not blinds.rows["posted"].any()
    assert not pots.invalid.any() and not blinds.invalid.any()


def test_each_end_of_hand_kernel_compiles_once():
    """The wrappers hand the kernels int64 tables only, so each kernel has one compiled signature whatever the
    batch: a second one (a bool column, another dtype, a non-contiguous view) is seconds more of a cold start.
    (Helpers called inside a kernel loaded from the disk cache record no signature, so only the three entry
    kernels are counted.)"""
    from auditor.replay.kernel import blinds, pots, showdown

    kernels = (pots._pots_kernel, showdown._showdown_kernel, blinds._blinds_kernel)
    if not all(hasattr(k, "signatures") for k in kernels):
        pytest.skip("NUMBA_DISABLE_JIT: the kernels are plain Python")
    one = {"h": 0, "player": {1: "a", 2: "b"}, "total": {1: 10, 2: 10}, "returned": {}, "folded": set(),
           "all_in": set(), "mucked": set(), "shown": {}, "dealt_in": {1, 2}, "ante_all_in": set(), "dead": 0,
           "chips_in": 20, "button": 1, "chip_unit": 1, "max_seats": 6, "house": HouseRules(),
           "awards": [(0, 1, 10, 5), (0, 2, 10, 6)], "rake": {}, "blind_posts": [(1, 1, 3, 5, False)],
           "blinds_declared": [5, 10], "variant": HouseRules().variant("holdem"), "hole": {}, "hole_unknown": set(),
           "board": []}
    _kernels([one])
    _kernels([one, one | {"h": 1}])
    counts = {k.py_func.__name__: len(k.signatures) for k in kernels}
    assert counts == {"_pots_kernel": 1, "_showdown_kernel": 1, "_blinds_kernel": 1}, counts


@settings(max_examples=400, deadline=None)
@given(st.integers(1, MAX_SUM), st.data())
def test_pro_rata_share_is_exact_beyond_int64_products(total, data):
    """ceil(rake * pot / total) as Python's integers give it, for amounts whose product overflows int64."""
    pot = data.draw(st.integers(0, total))
    rake = data.draw(st.integers(0, MAX_SUM))
    assert _mul_div_ceil(rake, pot, total) == -(-rake * pot // total)
