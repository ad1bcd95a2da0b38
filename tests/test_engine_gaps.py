"""Two engine gaps found by `auditor verify --via pokerstars` and by real exports.

1. A rake the log states for the whole hand (PokerStars text names no pot) was allowed out of every pot,
   so a side pot no larger than the rake, paid into the main pot, was never seen. The pack's house
   setting `hand_rake_from` now says which pots it may come from: any (default), main, pro-rata.
2. A big blind posted all-in short of the declared blind: the bet the others face pre-flop.

Hands are canonical dicts, replayed (`auditor.replay.kernel.replay`) for their facts or audited end to end.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_real_export_engine import _act, _award, _hole  # one definition of these event builders

from auditor.check.packs import house_rules
from auditor.ingest.tables import build_tables
from auditor.ingest.validate import schema_error
from auditor.model.records import SourceHand
from auditor.pipeline import audit
from auditor.replay.house import HouseRules
from auditor.replay.kernel import replay

ROOT = Path(__file__).resolve().parents[1]
HOUSE_RAKE_PACK = ROOT / "rules/examples/tda-2024/TDA-HOUSE-rake/house-pack.yaml"


def _hand(hand_id: str, seats: list[tuple[int, str, int]], events: list[dict], *, blinds=(50, 100),
          chip_unit: int = 1, pack: str = "tda-2024") -> dict:
    hand = {
        "hand_id": hand_id, "table_id": "T1", "started_at": "2024-01-01T00:00:00Z", "variant": "holdem",
        "structure": "no-limit", "stakes": {"blinds": list(blinds), "chip_unit": chip_unit}, "max_seats": 6,
        "rule_pack": pack, "seats": [{"seat": s, "player": p, "stack": st} for s, p, st in seats],
        "events": events,
    }
    assert schema_error(hand) is None, schema_error(hand)
    return hand


def _post(seat: int, blind: int, amount: int, all_in: bool = False) -> dict:
    return {"kind": "post", "seat": seat, "post": "blind", "blind": blind, "amount": amount, "all_in": all_in}


def _board(cards: list[str]) -> dict:
    return {"kind": "deal", "to": "board", "cards": cards}


def _facts(hands: list[dict], house: HouseRules | None = None):
    tables = build_tables([SourceHand(h, "f.jsonl", i + 1) for i, h in enumerate(hands)])
    facts, failures = replay(tables, [house or HouseRules()] * len(hands), None)
    assert failures == []
    return facts


def _write(path: Path, hands: list[dict]) -> Path:
    path.write_text("".join(json.dumps(h) + "\n" for h in hands), encoding="utf-8")
    return path


# -- 1. rake stated for the whole hand ---------------------------------------------------------------
THREE = [(1, "ann", 1000), (2, "bob", 5000), (3, "cat", 5000)]
HOLES3 = [_hole(1, ["As", "Ad"]), _hole(2, ["Kc", "Kd"]), _hole(3, ["7h", "2s"])]


def _side_pot_hand(awards: list[dict], rake: int = 150, hand_id: str = "r1") -> dict:
    """ann all-in for 1000; bob and cat go on to 1100 each and check to the showdown: main pot 3000
    (ann's aces win it), side pot 200 (bob's kings beat cat). The room states `rake` for the whole hand,
    naming no pot."""
    return _hand(hand_id, THREE, [
        {"kind": "button", "seat": 3}, _post(1, 1, 50), _post(2, 2, 100), *HOLES3,
        _act(3, "call", 100, 100), _act(1, "raise", 950, 1000, all_in=True), _act(2, "call", 900, 1000),
        _act(3, "call", 900, 1000),
        _board(["2c", "5d", "9h"]), _act(2, "bet", 100, 100), _act(3, "call", 100, 100),
        _board(["Jc"]), _act(2, "check"), _act(3, "check"),
        _board(["3s"]), _act(2, "check"), _act(3, "check"),
        {"kind": "show", "seat": 1, "cards": ["As", "Ad"]}, {"kind": "show", "seat": 2, "cards": ["Kc", "Kd"]},
        {"kind": "show", "seat": 3, "cards": ["7h", "2s"]},
        {"kind": "rake", "amount": rake}, *awards,
    ])


# ann wins the main pot, bob the side pot; both pots paid
SEPARATE_NET_MAIN = [_award(1, 2850, 0), _award(2, 200, 1)]  # 150 rake out of the main pot only
SEPARATE_PRO_RATA = [_award(1, 2860, 0), _award(2, 190, 1)]  # 3000:200 -> 140.6 and 9.4 (rounded up 141, 10)
# the side pot (200, bob's) paid to ann with the main pot: short of the side pot by more than the rake
SIDE_INTO_MAIN = [_award(1, 3050, 0)]


def _misawarded(hand: dict, how: str) -> list[str]:
    """The hand's pots_misawarded items (a list fact: one item per pot)."""
    return list(_facts([hand], HouseRules(hand_rake_from=how))["hands"]["pots_misawarded"].iloc[0])


def test_a_side_pot_paid_into_the_main_pot_within_the_hand_rake_is_seen_when_the_house_rakes_the_main_pot():
    hand = _side_pot_hand(SIDE_INTO_MAIN)
    # the main pot paid more than it held (3050 > 3000): every allocation sees that
    assert _misawarded(hand, "any") == ["pot 0: held 3000, paid 3050", "pot 1: held 200, paid 0"]
    # the first gap's case: the side pot short by no more than the rake, the main pot within it
    hand = _side_pot_hand([_award(1, 2850 + 150, 0)], rake=200, hand_id="r2")  # 3000 paid, 200 rake
    assert _misawarded(hand, "any") == []  # each pot may be short by all 200: nothing is seen
    assert _misawarded(hand, "main") == ["pot 1: held 200, paid 0"]
    assert _misawarded(hand, "pro-rata") == ["pot 1: held 200, paid 0"]  # its share: 13 of the 200


def test_correct_payouts_stay_clean_under_the_allocations_they_follow():
    main = _side_pot_hand(SEPARATE_NET_MAIN)
    assert _misawarded(main, "any") == [] and _misawarded(main, "main") == []
    # a house raking pro rata takes at most 141 (150 * 3000 / 3200, rounded up) from the main pot
    assert _misawarded(main, "pro-rata") == ["pot 0: held 3000, paid 2850"]
    pro = _side_pot_hand(SEPARATE_PRO_RATA, hand_id="r3")
    assert _misawarded(pro, "any") == [] and _misawarded(pro, "pro-rata") == []
    assert _misawarded(pro, "main") == ["pot 1: held 200, paid 190"]


def test_a_rake_the_log_puts_on_a_pot_is_that_pots_whatever_the_setting():
    hand = _side_pot_hand(SEPARATE_NET_MAIN, hand_id="r4")
    for ev in hand["events"]:
        if ev["kind"] == "rake":
            ev["pot"] = 0
    for how in ("any", "main", "pro-rata"):
        assert _misawarded(hand, how) == []


def test_the_pack_parameter_sets_the_house_allocation_and_refuses_unknown_values():
    assert HouseRules().hand_rake_from == "any"
    assert house_rules({"hand_rake_from": "main"}).hand_rake_from == "main"
    with pytest.raises(ValueError, match="hand_rake_from"):
        HouseRules(hand_rake_from="side")


def test_audit_end_to_end_under_the_main_pot_house_pack_and_the_default(tmp_path):
    hand = _side_pot_hand([_award(1, 3000, 0)], rake=200, hand_id="r5")
    path = _write(tmp_path / "hands.jsonl", [hand])
    default = audit([path])
    assert "TDA-21" not in set(default.findings["rule_id"])  # any pot may carry a hand-level rake
    house = audit([path], pack=str(HOUSE_RAKE_PACK))
    assert list(house.findings["rule_id"]).count("TDA-21") == 1


# -- 2. a big blind posted all-in short ----------------------------------------------------------------
# Blinds 10/20; the big blind has 15 and posts it all-in.
HU_SHORT = [(1, "ann", 1000), (2, "bob", 15)]
HU_HOLES = [_hole(1, ["As", "Ad"]), _hole(2, ["7c", "2d"])]
HU_TAIL = [_board(["2c", "5d", "9h"]), _board(["Jc"]), _board(["3s"]),
           {"kind": "show", "seat": 1, "cards": ["As", "Ad"]}, {"kind": "show", "seat": 2, "cards": ["7c", "2d"]},
           _award(1, 30)]
MULTI_SHORT = [(1, "ann", 1000), (2, "bob", 1000), (3, "cat", 15)]
MULTI_HOLES = [_hole(1, ["As", "Ad"]), _hole(2, ["Kc", "Kd"]), _hole(3, ["7c", "2d"])]
MULTI_TAIL = [_board(["2c", "5d", "9h"]), _act(2, "check"), _act(1, "check"),
              _board(["Jc"]), _act(2, "check"), _act(1, "check"), _board(["3s"]), _act(2, "check"), _act(1, "check"),
              {"kind": "show", "seat": 1, "cards": ["As", "Ad"]}, {"kind": "show", "seat": 2, "cards": ["Kc", "Kd"]},
              {"kind": "show", "seat": 3, "cards": ["7c", "2d"]}]


def _heads_up(hand_id: str, *play: dict) -> dict:
    return _hand(hand_id, HU_SHORT, [{"kind": "button", "seat": 1}, _post(1, 1, 10), _post(2, 2, 15, True),
                                     *HU_HOLES, *play, *HU_TAIL], blinds=(10, 20))


def _multi_way(hand_id: str, *play: dict, awards: tuple[dict, ...]) -> dict:
    return _hand(hand_id, MULTI_SHORT, [{"kind": "button", "seat": 1}, _post(2, 1, 10), _post(3, 2, 15, True),
                                        *MULTI_HOLES, *play, *MULTI_TAIL, *awards], blinds=(10, 20))


def _rules(tmp_path: Path, hands: list[dict]) -> list[str]:
    return sorted(audit([_write(tmp_path / "hands.jsonl", hands)]).findings["rule_id"])


def test_heads_up_a_call_matches_the_short_all_in_big_blind_or_the_full_blind_with_the_excess_returned(tmp_path):
    matched = _heads_up("b1", _act(1, "call", 5, 15))
    in_full = _heads_up("b2", _act(1, "call", 10, 20), {"kind": "return", "seat": 1, "amount": 5})
    actions = _facts([matched])["actions"]
    assert (int(actions["amount_to_call"].iloc[0]), int(actions["amount_to_call_in_full"].iloc[0])) == (5, 10)
    assert int(actions["current_bet"].iloc[0]) == 20  # the bet faced is still the full blind (raises start there)
    assert _rules(tmp_path, [matched]) == []
    assert _rules(tmp_path, [in_full]) == []


def test_heads_up_a_call_short_of_the_all_in_big_blind_or_a_check_is_still_found(tmp_path):
    short = _heads_up("b3", _act(1, "call", 3, 13))
    assert _rules(tmp_path, [short]).count("TDA-51") == 1
    check = _heads_up("b4", _act(1, "check"))
    assert "TDA-55" in _rules(tmp_path, [check])  # 10 in against 15: there is something to call


def test_heads_up_a_min_raise_is_still_measured_from_the_full_big_blind(tmp_path):
    full = _heads_up("b5", _act(1, "raise", 30, 40), {"kind": "return", "seat": 1, "amount": 25})
    assert _rules(tmp_path, [full]) == []
    short = _heads_up("b6", _act(1, "raise", 20, 30), {"kind": "return", "seat": 1, "amount": 15})
    assert "TDA-43A" in _rules(tmp_path, [short])


def test_multi_way_the_others_call_the_full_big_blind(tmp_path):
    # main pot 45 (15 each), side pot 10 (ann and bob's 5 over the all-in)
    full = _multi_way("b7", _act(1, "call", 20, 20), _act(2, "call", 10, 20),
                      awards=(_award(1, 45, 0), _award(1, 10, 1)))
    actions = _facts([full])["actions"]
    assert list(actions["amount_to_call"].iloc[:2]) == [20, 10]
    assert _rules(tmp_path, [full]) == []
    raised = _multi_way("b8", _act(1, "raise", 40, 40), _act(2, "call", 30, 40),
                        awards=(_award(1, 45, 0), _award(1, 50, 1)))
    assert _rules(tmp_path, [raised]) == []
    # calling only the all-in's 15 while another player can still bet is an undercall (BLD-02)
    short = _multi_way("b9", _act(1, "call", 15, 15), _act(2, "call", 5, 15), awards=(_award(1, 45, 0),))
    assert _rules(tmp_path, [short]) == ["TDA-51", "TDA-51"]


def test_the_small_blind_left_alone_with_a_big_blind_all_in_for_less_owes_nothing(tmp_path):
    # The corpus's PokerStars hand 33332: blinds 50/100, the big blind all-in for 20, the button folds; the
    # small blind is not asked to act and gets 30 back.
    seats = [(1, "ann", 700), (2, "bob", 480), (3, "cat", 20)]
    holes = [_hole(1, ["7c", "2d"]), _hole(2, ["As", "Ad"]), _hole(3, ["9h", "9s"])]
    tail = [_board(["2c", "5d", "9d"]), _board(["Jc"]), _board(["3s"]),
            {"kind": "show", "seat": 2, "cards": ["As", "Ad"]}, {"kind": "show", "seat": 3, "cards": ["9h", "9s"]},
            _award(3, 40)]
    alone = _hand("b10", seats, [{"kind": "button", "seat": 1}, _post(2, 1, 50), _post(3, 2, 20, True), *holes,
                                 _act(1, "fold"), {"kind": "return", "seat": 2, "amount": 30}, *tail])
    assert _rules(tmp_path, [alone]) == []
    checked = _hand("b11", seats, [{"kind": "button", "seat": 1}, _post(2, 1, 50), _post(3, 2, 20, True), *holes,
                                   _act(1, "fold"), _act(2, "check"), {"kind": "return", "seat": 2, "amount": 30},
                                   *tail])
    assert "TDA-55" not in _rules(tmp_path, [checked])  # nothing to call: the check was no check facing a bet
    facts = _facts([checked])["actions"]
    assert int(facts["amount_to_call"].iloc[1]) == 0 and int(facts["amount_to_call_in_full"].iloc[1]) == 50
