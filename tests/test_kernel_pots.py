"""The end-of-hand kernels (`auditor.replay.kernel.pots`, `.blinds`, `.showdown`) equal the Python engine.

The old engine (`auditor.replay.engine`) is the specification until the kernels replace it. Two ways of
holding them equal:

- Hypothesis draws arbitrary end states of a hand (contributions, returns, folds, all-ins, awards, rakes,
  blinds posted, cards) and the engine's own end-of-hand methods (`_pots_facts`, `_blinds_facts`,
  `showdown.resolve`, `big_blind_player`, `button_heir`) are run on them beside the kernels;
- whole hands (the rule examples of the pot, odd-chip, blind and winner rules, simulated tables) are
  replayed by the engine with its end state captured at `finish`, and the kernels' rows rendered in the
  engine's text forms must equal its `pots` and `blinds` facts tables row for row.

Also `build_pots` itself against the kernel's `_build`, on arbitrary contributions and split levels.
"""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.ingest.tables import build_tables
from auditor.model.pots import build_pots
from auditor.model.records import SourceHand
from auditor.replay import engine
from auditor.replay.evaluate import card_text, describe
from auditor.replay.facts import FactRows
from auditor.replay.house import HouseRules
from auditor.replay.kernel.blinds import HEIR_NUMBERS, blind_facts
from auditor.replay.kernel.pots import MAX_SUM, RAKE_FROM_CODES, _build, _mul_div_ceil, pot_facts
from auditor.replay.kernel.showdown import showdown_facts
from auditor.replay.showdown import resolve, seat_list

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "auditor/data/rules/examples"
#: the attributes of a `_HandReplay` its end-of-hand methods read
STATE = ("h", "player", "total", "returned", "folded", "all_in", "mucked", "shown", "dealt_in", "ante_all_in",
         "dead", "chips_in", "button", "chip_unit", "max_seats", "house", "awards", "rake", "blind_posts",
         "blinds_declared", "variant", "hole", "hole_unknown", "board")


# -- the engine's end-of-hand methods on a state ------------------------------------------------------
def _replay_object(state: dict) -> engine._HandReplay:
    hand = object.__new__(engine._HandReplay)
    for name in STATE:
        setattr(hand, name, copy.deepcopy(state[name]) if name != "house" else state[name])
    hand.rows = FactRows()
    return hand


def _engine_end(states: list[dict]) -> tuple[list[dict], list[tuple], list[dict]]:
    """Pots rows, blinds rows and per-hand facts as the engine computes them from each end state."""
    pots, blinds, hands = [], [], []
    showdowns: list = []
    for state in states:
        hand = _replay_object(state)
        hand._blinds_facts()
        balance = hand._pots_facts(showdowns)
        pots.extend(hand.rows.pots)
        blinds.extend(hand.rows.blinds)
        hands.append({"chip_balance": balance, "pots_misawarded": "; ".join(hand.misawarded),
                      "big_blind_player": hand.big_blind_player(), "button_heir": hand.button_heir(),
                      "small_blind": hand.small_blind()})
    resolve(showdowns)
    return pots, blinds, hands


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
        hand = _replay_object(state)
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
            cards, ok = hand._final_hand(s)
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
        board, ok = hand._board_codes()
        boards.append(board + [-1] * (5 - len(board)))
        board_known.append(ok)
        v = hand.variant
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


# -- the kernels' columns in the engine's text forms ---------------------------------------------------
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


def _assert_same(states: list[dict]) -> None:
    want_pots, want_blinds, want_hands = _engine_end(states)
    pots, sd, blinds = _kernels(states)
    assert not pots.invalid.any() and not blinds.invalid.any()
    got = _render_pots(states, pots, sd)
    assert len(got) == len(want_pots)
    for g, w in zip(got, want_pots, strict=True):
        assert g == {k: w[k] for k in g}, (g, w)
    assert _render_blinds(states, blinds) == want_blinds
    assert _render_hands(states, pots, blinds) == want_hands


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


def _awards_that_fit(state: dict, data) -> dict:
    """Re-draw the awards from the pots the contributions form, so the engine's split-pot paths (ties, odd
    chips, too-small pots, the split_at re-build) are reached often, not only the misawarded path."""
    contributed = {s: c - state["returned"].get(s, 0) for s, c in state["total"].items()}
    split_at = {contributed[s] for s in state["all_in"] & state["folded"] if contributed.get(s, 0) > 0}
    pots = build_pots(contributed, state["folded"], state["dead"], split_at if data.draw(st.booleans()) else set())
    awards, seq = [], 0
    for pot_id, pot in enumerate(pots):
        if not pot.eligible or data.draw(st.integers(0, 5)) == 0:
            continue
        take = pot.amount - (state["rake"].get(None, 0) if pot_id == 0 and data.draw(st.booleans()) else 0)
        winners = data.draw(st.lists(st.sampled_from(pot.eligible), min_size=1, max_size=3, unique=True))
        unit = state["chip_unit"]
        units, odd = divmod(max(take, 0) // unit, len(winners))
        for i, s in enumerate(winners):
            awards.append((pot_id, s, (units + (1 if i < odd else 0)) * unit, seq))
            seq += 1
    return state | {"awards": awards}


SLOW = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                          HealthCheck.data_too_large])


@SLOW
@given(st.lists(end_states(), min_size=1, max_size=4))
def test_end_states_equal_the_engine(states):
    _assert_same([s | {"h": i} for i, s in enumerate(states)])


@SLOW
@given(st.data())
def test_fitting_awards_equal_the_engine(data):
    states = [_awards_that_fit(data.draw(end_states()), data) | {"h": i} for i in range(data.draw(st.integers(1, 3)))]
    _assert_same(states)


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


# -- whole hands replayed by the engine, end states captured ------------------------------------------
def _capture(tables, houses, monkeypatch) -> tuple[list[dict], object]:
    states: list[dict] = []
    finish = engine._HandReplay.finish

    def spy(self, *args, **kwargs):
        states.append({name: copy.deepcopy(getattr(self, name)) if name != "house" else self.house
                       for name in STATE})
        return finish(self, *args, **kwargs)

    monkeypatch.setattr(engine._HandReplay, "finish", spy)
    facts, failures = engine.replay(tables, houses)
    monkeypatch.undo()
    failed = {h for h, _ in failures}
    return [s for s in states if s["h"] not in failed], facts


def _assert_replayed(tables, houses, monkeypatch) -> int:
    states, facts = _capture(tables, houses, monkeypatch)
    states.sort(key=lambda s: s["h"])
    pots, sd, blinds = _kernels(states)
    want = facts["pots"].astype(object).where(facts["pots"].notna(), None)
    want = want.sort_values("hand", kind="stable").to_dict("records")
    got = _render_pots(states, pots, sd)
    assert got == [{k: w[k] for k in g} for g, w in zip(got, want, strict=True)] and len(got) == len(want)
    want_b = facts["blinds"].astype(object).where(facts["blinds"].notna(), None)
    want_b = [tuple(r) for r in want_b.sort_values("hand", kind="stable").itertuples(index=False)]
    assert _render_blinds(states, blinds) == want_b
    hands = facts["hands"].astype(object).where(facts["hands"].notna(), None).set_index("hand")
    rendered = _render_hands(states, pots, blinds)
    for state, row in zip(states, rendered, strict=True):
        want_h = hands.loc[state["h"]]
        assert row["chip_balance"] == want_h["chip_balance"]
        assert row["pots_misawarded"] == want_h["pots_misawarded"]
        assert row["big_blind_player"] == want_h["big_blind_player"]
    return len(got)


def _example_files(*prefixes: str) -> list[Path]:
    return sorted(p for p in EXAMPLES.glob("*/*/*.jsonl") if p.parent.name.startswith(prefixes))


def _tables_of(paths: list[Path]):
    import json
    hands = [SourceHand(json.loads(line), str(path), i + 1) for path in paths
             for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()) if line.strip()]
    return build_tables(hands)


POT_RULES = ("TDA-13A", "TDA-15B", "TDA-20", "TDA-20A", "TDA-HOUSE-rake", "TDA-INT-chips", "TDA-INT-total",
             "NZ-INT-chips", "NZ-INT-total", "NZ17", "NZ15", "TDA-28", "TDA-32", "TDA-34B", "TDA-35A", "TDA-12")


@pytest.mark.parametrize("prefixes", [POT_RULES, ("",)], ids=["pot-odd-chip-blind-winner-rules", "every-example"])
def test_rule_examples_equal_the_engine(prefixes, monkeypatch):
    paths = _example_files(*prefixes)
    assert paths
    tables = _tables_of(paths)
    assert _assert_replayed(tables, [HouseRules()] * tables.hands.num_rows, monkeypatch) > 0


GAMES = [("holdem", "no-limit"), ("holdem", "fixed-limit"), ("omaha", "pot-limit"), ("omaha-nz", "pot-limit"),
         ("three-card-nz", "spread-limit"), ("five-card-draw", "fixed-limit")]


@pytest.mark.parametrize(("how", "seed"), [("any", 1), ("main", 2), ("pro-rata", 3)])
def test_simulated_tables_equal_the_engine(how, seed, monkeypatch):
    from auditor.simulate import simulate_mixed

    house = HouseRules(hand_rake_from=how)
    hands = list(simulate_mixed(GAMES, 400, seed, house=house, rule_pack="tda-2024", rake=(0.05, 300),
                                sit_outs=True, chip_unit_mix=(0.3, 25), session_hands=(5, 40)))
    tables = build_tables([SourceHand(h, "sim.jsonl", i + 1) for i, h in enumerate(hands)])
    rows = _assert_replayed(tables, [house] * len(hands), monkeypatch)
    assert rows >= len(hands)


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


# -- fed by the hand kernel's end state (kernel.end): the whole end-of-hand path against the engine ----
def _through_hand_kernel(tables, houses) -> int:
    from auditor.replay.kernel.encode import encode
    from auditor.replay.kernel.end import end_of_hand
    from auditor.replay.kernel.hand import named
    from auditor.replay.kernel.replay import run_kernel

    H = tables.hands
    enc = encode(tables)
    assert not enc.unsupported.any()
    order = np.asarray(engine.replay_order(H.column("file").to_pylist(), H.column("table_id").to_pylist(),
                                           H.column("started_at").to_pylist()), dtype=np.int64)
    pots, sd, blinds = end_of_hand(named(run_kernel(tables, houses, order, enc)), enc, houses)
    facts, failures = engine.replay(tables, houses)
    assert failures == []
    S = tables.seats.to_pydict()
    names: list[dict] = [{} for _ in range(H.num_rows)]
    for h, s, p in zip(S["hand"], S["seat"], S["player"], strict=True):
        names[h].setdefault(s, p)  # a seat listed twice plays as its first player
    states = [{"h": h, "player": names[h], "button": None,
               "blinds_declared": enc.blinds[enc.blinds_off[h]:enc.blinds_off[h + 1]].tolist()}
              for h in range(H.num_rows)]
    want = facts["pots"].astype(object).where(facts["pots"].notna(), None)
    want = want.sort_values("hand", kind="stable").to_dict("records")
    got = _render_pots(states, pots, sd)
    assert len(got) == len(want)
    assert got == [{k: w[k] for k in g} for g, w in zip(got, want, strict=True)]
    want_b = facts["blinds"].astype(object).where(facts["blinds"].notna(), None)
    assert _render_blinds(states, blinds) == [tuple(r) for r in want_b.sort_values("hand", kind="stable")
                                              .itertuples(index=False)]
    hands = facts["hands"].set_index("hand")
    mis_start, mis_pot, mis_held, mis_paid = pots.misawarded
    for h in range(H.num_rows):
        lo, hi = mis_start[h], mis_start[h + 1]
        assert "; ".join(f"pot {p}: held {x}, paid {y}" for p, x, y in
                         zip(mis_pot[lo:hi], mis_held[lo:hi], mis_paid[lo:hi], strict=True)) == \
            hands.loc[h, "pots_misawarded"]
    return len(got)


def test_through_the_hand_kernel_rule_examples():
    tables = _tables_of(_example_files(""))
    assert _through_hand_kernel(tables, [HouseRules()] * tables.hands.num_rows) > 0


def test_through_the_hand_kernel_simulated_tables():
    from auditor.simulate import simulate_mixed

    houses = [HouseRules(hand_rake_from=how, button_heir=heir, suit_order=order)
              for how, heir, order in (("pro-rata", ("small-blind", "big-blind"), ("c", "d", "h", "s")),
                                       ("main", (), ("s", "h", "d", "c")))]
    hands = list(simulate_mixed(GAMES, 600, 5, house=houses[0], rule_pack="tda-2024", rake=(0.05, 300),
                                sit_outs=True, chip_unit_mix=(0.3, 25), session_hands=(5, 40)))
    tables = build_tables([SourceHand(h, "sim.jsonl", i + 1) for i, h in enumerate(hands)])
    assert _through_hand_kernel(tables, [houses[i % 2] for i in range(len(hands))]) >= len(hands)


def _frames_through_hand_kernel(tables, houses) -> None:
    """The facts frames `kernel.end` writes equal the reference engine's, dtypes and row order included."""
    from auditor.replay.kernel.encode import encode
    from auditor.replay.kernel.end import blinds_frame, end_of_hand, hand_pot_columns, pots_frame
    from auditor.replay.kernel.hand import named
    from auditor.replay.kernel.replay import run_kernel

    H = tables.hands
    enc = encode(tables)
    order = np.asarray(engine.replay_order(H.column("file").to_pylist(), H.column("table_id").to_pylist(),
                                           H.column("started_at").to_pylist()), dtype=np.int64)
    out = named(run_kernel(tables, houses, order, enc))
    pots, sd, blinds = end_of_hand(out, enc, houses)
    facts, failures = engine.replay(tables, houses)
    assert failures == []
    pd.testing.assert_frame_equal(pots_frame(pots, sd, out["seat"]["player"], enc.players, order), facts["pots"])
    pd.testing.assert_frame_equal(blinds_frame(blinds, out["seat"]["player"], enc.players, order), facts["blinds"])
    columns = hand_pot_columns(pots, blinds)
    want = facts["hands"].set_index("hand").sort_index()
    assert columns["pots_misawarded"].to_pylist() == want["pots_misawarded"].tolist()
    balance = pd.array(columns["chip_balance"], dtype="Int64")
    balance[columns["chip_balance_null"]] = pd.NA
    assert balance.tolist() == want["chip_balance"].tolist()
    assert not columns["invalid"].any()


def test_frames_through_the_hand_kernel():
    from auditor.simulate import simulate_mixed

    tables = _tables_of(_example_files(""))
    _frames_through_hand_kernel(tables, [HouseRules()] * tables.hands.num_rows)
    house = HouseRules(hand_rake_from="pro-rata", button_heir=("small-blind", "big-blind"))
    hands = list(simulate_mixed(GAMES, 400, 8, house=house, rule_pack="tda-2024", rake=(0.05, 300), sit_outs=True,
                                chip_unit_mix=(0.3, 25), session_hands=(5, 40)))
    tables = build_tables([SourceHand(h, "sim.jsonl", i + 1) for i, h in enumerate(hands)])
    _frames_through_hand_kernel(tables, [house] * len(hands))


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
    _assert_same([empty, empty | {"h": 1, "blinds_declared": [5, 10], "button": 2}])


@settings(max_examples=400, deadline=None)
@given(st.integers(1, MAX_SUM), st.data())
def test_pro_rata_share_is_exact_beyond_int64_products(total, data):
    """ceil(rake * pot / total) as Python's integers give it, for amounts whose product overflows int64."""
    pot = data.draw(st.integers(0, total))
    rake = data.draw(st.integers(0, MAX_SUM))
    assert _mul_div_ceil(rake, pot, total) == -(-rake * pot // total)


@SLOW
@given(st.lists(end_states(), min_size=1, max_size=3), st.sampled_from([10**12, 999_999_999_989, 10**9 + 7]))
def test_end_states_in_huge_amounts_equal_the_engine(states, scale):
    """Every amount times a large factor (up to the schema's 10**15 an event): sums and the pro-rata rake stay
    exact where a product of two amounts no longer fits in int64."""
    def scaled(state: dict) -> dict:
        return state | {
            "total": {s: c * scale for s, c in state["total"].items()},
            "returned": {s: c * scale for s, c in state["returned"].items()},
            "dead": state["dead"] * scale, "chips_in": state["chips_in"] * scale,
            "awards": [(p, s, a * scale, q) for p, s, a, q in state["awards"]],
            "rake": {p: a * scale for p, a in state["rake"].items()},
        }
    _assert_same([scaled(s) | {"h": i} for i, s in enumerate(states)])
