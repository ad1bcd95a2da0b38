"""The engine on what real room exports contain: dead hands killed by the house, chains of
hands broken by a quarantined hand, evidence naming earlier hands, net results instead of bookings,
all-in antes and blinds, all-in players who drop out, and two players listed in one seat.

Hands are written here as canonical dicts; each test audits them end to end (`auditor.pipeline.audit`
on a JSON Lines file) or replays them (`auditor.replay.kernel.replay`) and looks at the facts.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from auditor.ingest.jsonl import consistency_error
from auditor.ingest.parquet import read_parquet, write_parquet
from auditor.ingest.tables import build_tables
from auditor.ingest.validate import schema_error
from auditor.model.pots import build_pots
from auditor.model.records import Quarantined, SourceHand
from auditor.pipeline import audit
from auditor.replay.house import HouseRules
from auditor.replay.kernel import replay
from auditor.replay.state import TableState


def _hand(hand_id: str, seats: list[tuple[int, str, int]], events: list[dict], *, blinds=(50, 100),
          table: str = "T1", started: str = "2024-01-01T00:00:00Z", variant: str = "holdem",
          pack: str = "tda-2024", max_seats: int = 6, **header) -> dict:
    hand = {
        "hand_id": hand_id, "table_id": table, "started_at": started, "variant": variant,
        "structure": "no-limit", "stakes": {"blinds": list(blinds), "chip_unit": 1}, "max_seats": max_seats,
        "rule_pack": pack, "seats": [{"seat": s, "player": p, "stack": st} for s, p, st in seats],
        "events": events, **header,
    }
    assert schema_error(hand) is None, schema_error(hand)
    return hand


def _post(seat: int, blind: int | None, amount: int, kind: str = "blind", all_in: bool = False) -> dict:
    ev = {"kind": "post", "seat": seat, "post": kind, "amount": amount, "all_in": all_in}
    if blind is not None:
        ev["blind"] = blind
    return ev


def _act(seat: int, action: str, amount: int | None = None, to: int | None = None, all_in: bool = False) -> dict:
    ev: dict = {"kind": "action", "seat": seat, "action": action}
    if amount is not None:
        ev.update(amount=amount, to=to, all_in=all_in)
    return ev


def _hole(seat: int, cards: list[str]) -> dict:
    return {"kind": "deal", "to": "hole", "seat": seat, "cards": cards}


def _award(seat: int, amount: int, pot: int = 0) -> dict:
    return {"kind": "award", "pot": pot, "seat": seat, "amount": amount}


def _write(path: Path, hands: list[dict | str]) -> Path:
    path.write_text("".join((h if isinstance(h, str) else json.dumps(h)) + "\n" for h in hands), encoding="utf-8")
    return path


def _audit(tmp_path: Path, hands: list[dict | str], name: str = "hands.jsonl", pack: str | None = None):
    return audit([_write(tmp_path / name, hands)], pack=pack)


def _facts(hands: list[dict], state: TableState | None = None):
    tables = build_tables([SourceHand(h, "f.jsonl", i + 1) for i, h in enumerate(hands)])
    facts, failures = replay(tables, [HouseRules()] * len(hands), state)
    assert failures == []
    return facts


def _rules(result) -> list[str]:
    return sorted(result.findings["rule_id"])


def _coverage(result, rule_id: str) -> dict:
    cov = result.coverage.set_index("rule_id").loc[rule_id]
    return {k: int(cov[k]) for k in ("hands_in_scope", "hands_checked", "hands_not_assessable")}


# -- kill: the house declares a hand dead ------------------------------------------------------------
THREE = [(1, "ann", 5000), (2, "bob", 5000), (3, "cat", 5000)]
HOLES = [_hole(1, ["As", "Ad"]), _hole(2, ["7c", "2d"]), _hole(3, ["9h", "9s"])]


def test_a_killed_hand_is_out_like_a_fold_and_is_not_an_action(tmp_path):
    # Button 1; ann is away and the house kills her hand before she acts: bob acts next, in turn.
    hand = _hand("k1", THREE, [
        {"kind": "button", "seat": 1}, _post(2, 1, 50), _post(3, 2, 100), *HOLES,
        {"kind": "kill", "seat": 1}, _act(2, "fold"), {"kind": "return", "seat": 3, "amount": 50},
        _award(3, 100),
    ])
    result = _audit(tmp_path, [hand])
    assert result.quarantined == [] and result.hands_audited == 1
    assert _rules(result) == []
    facts = _facts([hand])
    actions = facts["actions"]
    assert list(actions["seat"]) == [2]  # the kill is no action row
    assert int(actions["expected_seat"].iloc[0]) == 2  # the turn skips the killed seat
    assert list(facts["hands"]["killed_seats"].iloc[0]) == [1]


def test_a_killed_seats_chips_stay_in_the_pot(tmp_path):
    # bob (small blind) is killed after posting: his 50 is dead money cat wins with her big blind back.
    hand = _hand("k2", THREE, [
        {"kind": "button", "seat": 1}, _post(2, 1, 50), _post(3, 2, 100), *HOLES,
        _act(1, "fold"), {"kind": "kill", "seat": 2}, {"kind": "return", "seat": 3, "amount": 50},
        _award(3, 100),
    ])
    result = _audit(tmp_path, [hand])
    assert _rules(result) == []
    hands = _facts([hand])["hands"]
    assert int(hands["chip_balance"].iloc[0]) == 0 and len(hands["pots_misawarded"].iloc[0]) == 0


def test_an_action_after_a_kill_is_an_action_by_a_dead_hand(tmp_path):
    hand = _hand("k3", THREE, [
        {"kind": "button", "seat": 1}, _post(2, 1, 50), _post(3, 2, 100), *HOLES,
        {"kind": "kill", "seat": 1}, _act(2, "fold"), _act(1, "fold"),
        {"kind": "return", "seat": 3, "amount": 50}, _award(3, 100),
    ])
    result = _audit(tmp_path, [hand])
    assert _rules(result) == ["TDA-50"]


# -- money_scale -----------------------------------------------------------------------------------------
def test_money_scale_is_a_hands_column_with_default_one_and_survives_parquet(tmp_path):
    scaled = _hand("m1", THREE[:2], [{"kind": "button", "seat": 1}, _post(1, 1, 50), _post(2, 2, 100),
                                     _act(1, "fold"), {"kind": "return", "seat": 2, "amount": 50}, _award(2, 100)],
                   money_scale=100, currency="USD")
    plain = copy.deepcopy(scaled)
    plain["hand_id"] = "m2"
    del plain["money_scale"]
    tables = build_tables([SourceHand(scaled, "a.jsonl", 1), SourceHand(plain, "a.jsonl", 2)])
    assert tables.hands.schema.field("money_scale").type == pa.int64()
    assert tables.hands["money_scale"].to_pylist() == [100, 1]
    write_parquet(tables, tmp_path / "ds")
    back = [item for item in read_parquet(tmp_path / "ds")]
    assert all(isinstance(item, SourceHand) for item in back)
    assert [item.hand["money_scale"] for item in back] == [100, 1]
    # an older dataset without the column is read, and its hands get the default
    hands_file = tmp_path / "ds" / "hands.parquet"
    pq.write_table(pq.read_table(hands_file).drop(["money_scale"]), hands_file)
    older = list(read_parquet(tmp_path / "ds"))
    assert all(isinstance(item, SourceHand) for item in older)
    assert build_tables(older).hands["money_scale"].to_pylist() == [1, 1]


# -- a broken chain is not assessable ------------------------------------------------------------------
def _heads_up(hand_id: str, button: int, started: str) -> dict:
    """Heads-up: the button posts the small blind; the other seat the big blind and wins the blinds."""
    other = 2 if button == 1 else 1
    return _hand(hand_id, [(1, "ann", 5000), (2, "bob", 5000)], [
        {"kind": "button", "seat": button}, _post(button, 1, 50), _post(other, 2, 100),
        _hole(1, ["As", "Ad"]), _hole(2, ["7c", "2d"]), _act(button, "fold"),
        {"kind": "return", "seat": other, "amount": 50}, _award(other, 100),
    ], started=started)


def test_big_blind_twice_is_found_between_consecutive_hands_and_names_the_previous_hand(tmp_path):
    first = _heads_up("h1", 1, "2024-01-01T00:00:00Z")  # bob big blind
    again = _heads_up("h3", 1, "2024-01-01T00:02:00Z")  # bob big blind again
    result = _audit(tmp_path, [first, again])
    found = result.findings
    assert list(found["rule_id"]) == ["TDA-34B"]
    assert "h1" in found["message"].iloc[0]


def test_a_quarantined_hand_between_them_makes_the_next_hand_not_assessable(tmp_path):
    first = _heads_up("h1", 1, "2024-01-01T00:00:00Z")
    broken = _heads_up("h2", 2, "2024-01-01T00:01:00Z")
    broken["seats"][0]["stack"] = -5  # breaks the schema: an invalid record of table T1
    again = _heads_up("h3", 1, "2024-01-01T00:02:00Z")
    result = _audit(tmp_path, [first, broken, again])
    assert [(q.code, q.table_id, q.line) for q in result.quarantined] == [("invalid-record", "T1", 2)]
    assert "TDA-34B" not in set(result.findings["rule_id"])
    cov = _coverage(result, "TDA-34B")
    assert cov["hands_in_scope"] == 2 and cov["hands_not_assessable"] == 2  # the first hand, and h3


def test_break_chain_waits_for_the_hands_read_before_the_quarantine(tmp_path):
    """The reader yields the quarantine before the hands ahead of it are replayed (they wait in a batch):
    the break takes effect at the first hand beyond its line, not at once."""
    a = _heads_up("h1", 1, "2024-01-01T00:00:00Z")
    b = _heads_up("h2", 1, "2024-01-01T00:01:00Z")  # bob twice: judged, it is before the break
    c = _heads_up("h4", 1, "2024-01-01T00:03:00Z")  # after the break at line 3: unknown previous hand
    state = TableState()
    state.break_chain("f.jsonl", "T1", 3)
    tables = build_tables([SourceHand(a, "f.jsonl", 1), SourceHand(b, "f.jsonl", 2), SourceHand(c, "f.jsonl", 4)])
    facts, _ = replay(tables, [HouseRules()] * 3, state)
    hands = facts["hands"]
    assert hands["previous_big_blind_player"].isna().tolist() == [True, False, True]
    assert hands["previous_hand"].tolist()[1] == "h1" and hands["previous_hand"].isna().tolist()[2]
    assert state.breaks == {}


def test_another_tables_quarantine_does_not_break_this_table(tmp_path):
    first = _heads_up("h1", 1, "2024-01-01T00:00:00Z")
    other = _heads_up("x1", 1, "2024-01-01T00:01:00Z")
    other["table_id"] = "T2"
    other["seats"][0]["stack"] = -5
    again = _heads_up("h3", 1, "2024-01-01T00:02:00Z")
    result = _audit(tmp_path, [first, other, again])
    assert list(result.findings["rule_id"]) == ["TDA-34B"]


FOUR = [(1, "ann", 5000), (2, "bob", 5000), (3, "cat", 5000), (4, "dan", 5000)]


def _draw_hand(hand_id: str, button: int, sb: int, bb: int, started: str, away: frozenset[int] = frozenset()) -> dict:
    """Five-card draw at four seats: the blinds, every other seat dealt in folds, the big blind wins."""
    dealt = [s for s, _, _ in FOUR if s not in away]
    hand = _hand(hand_id, FOUR, [
        {"kind": "button", "seat": button}, _post(sb, 1, 50), _post(bb, 2, 100),
        *[_hole(s, ["??"] * 5) for s in dealt], *[_act(s, "fold") for s in _clockwise(dealt, bb) if s != bb],
        {"kind": "return", "seat": bb, "amount": 50}, _award(bb, 100),
    ], variant="five-card-draw", pack="online-five-card-draw", started=started)
    for seat in hand["seats"]:
        seat["status"] = "sitting_out" if seat["seat"] in away else "active"
    return hand


def _clockwise(seats: list[int], after: int) -> list[int]:
    return [s for s in seats if s > after] + [s for s in seats if s <= after]


def test_missed_blinds_name_the_hand_they_were_missed_in_and_are_unknown_after_a_broken_chain():
    # d0: bob (seat 2, first after the button) sits out and misses the small blind; d1: he is back.
    d0 = _draw_hand("d0", 1, 3, 4, "2024-01-01T00:00:00Z", frozenset({2}))
    d1 = _draw_hand("d1", 3, 4, 1, "2024-01-01T00:01:00Z")
    seats = _facts([d0, d1])["seats"]
    assert seats.loc[seats["hand"] == 0, "owed"].isna().all()  # a table's first hand: what is owed is unknown
    bob = seats[(seats["hand"] == 1) & (seats["player"] == "bob")].iloc[0]
    assert list(bob["owed"]) == ["sb"] and list(bob["missed_in"]) == ["d0"] and bob["previous_hand"] == "d0"
    # the same two hands with a quarantined hand of the table between them: unknown again
    state = TableState()
    state.break_chain("f.jsonl", "T1", 2)
    tables = build_tables([SourceHand(d0, "f.jsonl", 1), SourceHand(d1, "f.jsonl", 3)])
    facts, _ = replay(tables, [HouseRules()] * 2, state)
    after = facts["seats"][facts["seats"]["hand"] == 1]
    assert after["owed"].isna().all() and after["previous_hand"].isna().all()
    assert facts["hands"]["button_by_blinds"].isna().all()


def test_the_missed_blind_rule_is_not_assessable_after_a_quarantined_hand(tmp_path):
    d0 = _draw_hand("d0", 1, 3, 4, "2024-01-01T00:00:00Z", frozenset({2}))
    d1 = _draw_hand("d1", 3, 4, 1, "2024-01-01T00:01:00Z")  # bob dealt in without making up the blind
    found = _audit(tmp_path, [d0, d1]).findings
    missed = found[found["rule_id"] == "ONL5CD-missed"]
    assert len(missed) == 1 and "missed in d0" in missed["message"].iloc[0]
    broken = copy.deepcopy(d1)
    broken["hand_id"], broken["seats"][0]["stack"] = "dx", -1
    result = _audit(tmp_path, [d0, broken, d1], "broken.jsonl")
    assert "ONL5CD-missed" not in set(result.findings["rule_id"])
    assert _coverage(result, "ONL5CD-missed")["hands_not_assessable"] == 2


def test_a_replay_failure_breaks_the_chain_too():
    """h2 names seat 11, which the replay cannot represent (built straight from dicts: a reader would have
    refused it): it fails, and h3 is not judged against h1."""
    hands = [_heads_up("h1", 1, "2024-01-01T00:00:00Z"), _heads_up("h2", 2, "2024-01-01T00:01:00Z"),
             _heads_up("h3", 1, "2024-01-01T00:02:00Z")]
    hands[1]["seats"].append({"seat": 11, "player": "zed", "stack": 100})
    tables = build_tables([SourceHand(h, "f.jsonl", i + 1) for i, h in enumerate(hands)])
    facts, failures = replay(tables, [HouseRules()] * 3)
    assert failures == [(1, "replay failed: seat 11 is outside the kernel's 1-10")]
    assert facts["hands"]["previous_hand"].isna().tolist() == [True, True]  # h3 is not judged against h1


# -- evidence: repeated hand ids name the first hand ------------------------------------------------------
def test_a_repeated_hand_id_names_the_file_and_line_of_the_first(tmp_path):
    first = _heads_up("same", 1, "2024-01-01T00:00:00Z")
    second = _heads_up("same", 2, "2024-01-01T00:01:00Z")
    second["table_id"] = "T9"
    _write(tmp_path / "a.jsonl", [_heads_up("other", 2, "2024-01-01T00:00:00Z"), first])
    _write(tmp_path / "b.jsonl", [second])
    result = audit([tmp_path / "b.jsonl", tmp_path / "a.jsonl"])
    found = result.findings[result.findings["rule_id"] == "TDA-INT-id"]
    assert len(found) == 1 and found["file"].iloc[0].endswith("b.jsonl")
    assert f"{tmp_path / 'a.jsonl'}:2" in found["message"].iloc[0]


# -- net results, not bookings ----------------------------------------------------------------------------
def _blinds_folded_to_bb(returned: int | None, awards: list[tuple[int, int]]) -> dict:
    events = [{"kind": "button", "seat": 1}, _post(1, 1, 50), _post(2, 2, 100), _hole(1, ["As", "Ad"]),
              _hole(2, ["7c", "2d"]), _act(1, "fold")]
    if returned is not None:
        events.append({"kind": "return", "seat": 2, "amount": returned})
    events += [_award(seat, amount) for seat, amount in awards]
    return _hand("n1", [(1, "ann", 5000), (2, "bob", 5000)], events)


def test_the_whole_big_blind_returned_and_the_small_blind_won_is_no_finding(tmp_path):
    # PokerStars: "Uncalled bet (100) returned to bob", "bob collected 50 from pot" - bob ends with the
    # chips a return of 50 and a pot of 100 would give him: judged on his net result, no finding.
    hand = _blinds_folded_to_bb(100, [(2, 50)])
    result = _audit(tmp_path, [hand])
    assert _rules(result) == []
    rounds = _facts([hand])["rounds"]
    assert (int(rounds["returned"].iloc[0]), int(rounds["returned_net"].iloc[0])) == (100, 50)
    assert int(rounds["uncalled_expected"].iloc[0]) == 50


def test_returning_called_chips_to_a_bettor_who_loses_is_still_found(tmp_path):
    # ann bets 100 on the flop, bob calls all-in for 40: 60 is owed back; ann takes back all 100 and bob,
    # who wins, is paid the 240 the chips make (her called 40 twice over). The chips balance; the return and
    # the pot rules both see it.
    hand = _hand("n2", [(1, "ann", 5000), (2, "bob", 140)], [
        {"kind": "button", "seat": 1}, _post(1, 1, 50), _post(2, 2, 100), _hole(1, ["7c", "2d"]),
        _hole(2, ["As", "Ad"]), _act(1, "call", 50, 100), _act(2, "check"),
        {"kind": "deal", "to": "board", "cards": ["2c", "3c", "4d"]}, _act(2, "check"), _act(1, "bet", 100, 100),
        _act(2, "call", 40, 40, True), {"kind": "return", "seat": 1, "amount": 100},
        *[{"kind": "deal", "to": "board", "cards": c} for c in (["8s"], ["Kd"])],
        {"kind": "show", "seat": 1, "cards": ["7c", "2d"]}, {"kind": "show", "seat": 2, "cards": ["As", "Ad"]},
        _award(2, 240),
    ])
    result = _audit(tmp_path, [hand])
    assert _rules(result) == ["TDA-15B", "TDA-21"]


def test_a_real_over_payment_is_still_found(tmp_path):
    # the uncalled 50 returned, and the 150 'pot' paid including it: 50 chips from nowhere
    assert _rules(_audit(tmp_path, [_blinds_folded_to_bb(50, [(2, 150)])])) == ["TDA-INT-chips"]
    # a return larger than the whole bet
    assert _rules(_audit(tmp_path, [_blinds_folded_to_bb(500, [(2, 50)])], "more.jsonl")) == ["TDA-INT-chips"]


def test_paying_the_returned_chips_to_another_seat_is_still_found(tmp_path):
    result = _audit(tmp_path, [_blinds_folded_to_bb(50, [(2, 50), (1, 50)])])
    assert "TDA-12" in _rules(result)  # ann folded: a pot she could not win paid her


def test_the_ordinary_booking_balances(tmp_path):
    assert _rules(_audit(tmp_path, [_blinds_folded_to_bb(50, [(2, 100)])])) == []


# -- antes and blinds posted all-in ----------------------------------------------------------------------
def test_a_short_all_in_big_blind_leaves_the_full_blind_to_call(tmp_path):
    # cat posts 60 of a 100 big blind all-in: ann calls the full 100, bob completes to 100.
    hand = _hand("b1", [(1, "ann", 5000), (2, "bob", 5000), (3, "cat", 60)], [
        {"kind": "button", "seat": 1}, _post(2, 1, 50), _post(3, 2, 60, all_in=True), *HOLES,
        _act(1, "call", 100, 100), _act(2, "call", 50, 100),
        {"kind": "deal", "to": "board", "cards": ["2c", "3c", "4d"]},
        _act(2, "check"), _act(1, "check"),
        {"kind": "deal", "to": "board", "cards": ["8s"]}, _act(2, "check"), _act(1, "check"),
        {"kind": "deal", "to": "board", "cards": ["Kd"]}, _act(2, "check"), _act(1, "check"),
        {"kind": "show", "seat": 2, "cards": ["7c", "2d"]}, {"kind": "show", "seat": 1, "cards": ["As", "Ad"]},
        {"kind": "show", "seat": 3, "cards": ["9h", "9s"]},
        _award(1, 180, 0), _award(1, 80, 1),
    ])
    result = _audit(tmp_path, [hand])
    assert _rules(result) == []
    actions = _facts([hand])["actions"]
    assert actions["amount_to_call"].tolist()[:2] == [100, 50]


def test_an_ante_all_in_player_owes_no_blind(tmp_path):
    # bob's ante takes his last 10 chips: the big blind falls to cat, the next seat with chips.
    hand = _hand("a1", [(1, "ann", 5000), (2, "bob", 10), (3, "cat", 5000), (4, "dan", 5000)], [
        {"kind": "button", "seat": 1},
        _post(1, None, 10, "ante"), _post(2, None, 10, "ante", all_in=True), _post(3, None, 10, "ante"),
        _post(4, None, 10, "ante"), _post(3, 1, 50), _post(4, 2, 100),
        _hole(1, ["As", "Ad"]), _hole(2, ["7c", "6d"]), _hole(3, ["9h", "9s"]), _hole(4, ["Ah", "Qh"]),
        _act(1, "fold"), _act(3, "fold"), {"kind": "return", "seat": 4, "amount": 50},
        *[{"kind": "deal", "to": "board", "cards": c} for c in (["2c", "3c", "Jd"], ["8s"], ["Kd"])],
        {"kind": "show", "seat": 4, "cards": ["Ah", "Qh"]}, {"kind": "show", "seat": 2, "cards": ["7c", "6d"]},
        _award(4, 40, 0), _award(4, 100, 1),
    ])
    result = _audit(tmp_path, [hand])
    assert "TDA-32" not in _rules(result), result.findings["message"].tolist()
    assert _rules(result) == []


# -- all-in players who drop out: side pots at the room's levels ---------------------------------------
def _all_in_then_out(out_event: dict, awards: list[dict]) -> dict:
    return _hand("s1", [(1, "ann", 5000), (2, "bob", 5000), (3, "cat", 60)], [
        {"kind": "button", "seat": 1}, _post(2, 1, 50), _post(3, 2, 60, all_in=True), *HOLES,
        _act(1, "call", 100, 100), _act(2, "call", 50, 100), out_event,
        {"kind": "deal", "to": "board", "cards": ["2c", "3c", "4d"]},
        _act(2, "check"), _act(1, "bet", 100, 100), _act(2, "fold"), {"kind": "return", "seat": 1, "amount": 100},
        *awards,
    ])


def test_a_killed_all_in_player_leaves_the_side_pot_the_room_built(tmp_path):
    # main pot 180 (60 x 3) and side pot 80 (40 x 2), both won by ann once cat's hand is killed
    hand = _all_in_then_out({"kind": "kill", "seat": 3}, [_award(1, 180, 0), _award(1, 80, 1)])
    result = _audit(tmp_path, [hand])
    assert _rules(result) == []
    # the same hand paid as one pot is fine too: both are the same chips to the same player
    merged = _all_in_then_out({"kind": "kill", "seat": 3}, [_award(1, 260, 0)])
    assert _rules(_audit(tmp_path, [merged], "merged.jsonl")) == []


def test_an_all_in_player_who_folds_is_reported_and_the_pots_still_add_up(tmp_path):
    hand = _all_in_then_out(_act(3, "fold"), [_award(1, 180, 0), _award(1, 80, 1)])
    assert _rules(_audit(tmp_path, [hand])) == ["TDA-50"]


def test_side_pots_closed_at_a_dropped_all_in_level():
    pots = build_pots({1: 100, 2: 100, 3: 60}, {2, 3}, split_at={60})
    assert [(p.amount, p.eligible) for p in pots] == [(180, (1,)), (80, (1,))]
    assert [(p.amount, p.eligible) for p in build_pots({1: 100, 2: 100, 3: 60}, {2, 3})] == [(260, (1,))]


def test_a_wrong_side_pot_is_still_found(tmp_path):
    hand = _all_in_then_out({"kind": "kill", "seat": 3}, [_award(1, 200, 0), _award(1, 60, 1)])
    assert _rules(_audit(tmp_path, [hand])) == ["TDA-21"]


# -- illegal, not unrepresentable: two players in one seat, a card twice ----------------------------------
def test_a_seat_listed_twice_is_replayed_and_reported(tmp_path):
    hand = _heads_up("t1", 1, "2024-01-01T00:00:00Z")
    hand["seats"].append({"seat": 2, "player": "eve", "stack": 900})
    assert consistency_error(hand) is None
    result = _audit(tmp_path, [hand])
    assert result.quarantined == []
    found = result.findings
    assert list(found["rule_id"]) == ["TDA-INT-seat"] and (found["category"] == "seating").all()
    assert "seat 2 listed for bob, eve" in found["message"].iloc[0]


def test_a_card_dealt_twice_is_reported_not_refused(tmp_path):
    hand = _heads_up("c1", 1, "2024-01-01T00:00:00Z")
    hand["events"][4]["cards"] = ["As", "7c"]  # ann's second card is bob's first
    assert consistency_error(hand) is None
    result = _audit(tmp_path, [hand])
    assert result.quarantined == [] and list(result.findings["rule_id"]) == ["TDA-INT-cards"]


def test_unreplayable_seats_are_still_refused():
    hand = _heads_up("r1", 1, "2024-01-01T00:00:00Z")
    hand["max_seats"] = 2
    hand["seats"][1]["seat"] = 3
    assert "beyond max_seats" in consistency_error(hand)
    assert not isinstance(hand, Quarantined)


def test_facing_only_a_big_blind_all_in_for_less_than_the_small_blind_nobody_owes_an_action():
    # blinds 50/100: cat's big blind is all-in for 30; ann folds; bob's 50 already covers it
    hand = _hand("b2", [(1, "ann", 5000), (2, "bob", 5000), (3, "cat", 30)], [
        {"kind": "button", "seat": 1}, _post(2, 1, 50), _post(3, 2, 30, all_in=True), *HOLES, _act(1, "fold"),
        {"kind": "return", "seat": 2, "amount": 20},
        *[{"kind": "deal", "to": "board", "cards": c} for c in (["2c", "3c", "4d"], ["8s"], ["Kd"])],
        {"kind": "show", "seat": 2, "cards": ["7c", "2d"]}, {"kind": "show", "seat": 3, "cards": ["9h", "9s"]},
        _award(3, 60),
    ])
    rounds = _facts([hand])["rounds"]
    assert rounds["pending_seat"].isna().all()
    assert int(rounds["uncalled_expected"].iloc[0]) == 20 and int(rounds["uncalled_seat"].iloc[0]) == 2


def test_a_kill_survives_the_parquet_round_trip(tmp_path):
    hand = _hand("k4", THREE, [
        {"kind": "button", "seat": 1}, _post(2, 1, 50), _post(3, 2, 100), *HOLES,
        {"kind": "kill", "seat": 1}, _act(2, "fold"), {"kind": "return", "seat": 3, "amount": 50}, _award(3, 100),
    ])
    write_parquet(build_tables([SourceHand(hand, "k.jsonl", 1)]), tmp_path / "ds")
    (back,) = read_parquet(tmp_path / "ds")
    assert isinstance(back, SourceHand) and back.hand["events"] == hand["events"]
