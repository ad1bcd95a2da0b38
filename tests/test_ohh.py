"""The Open Hand History reader: file shapes, the mapping checked event by event, the whole OHH corpus,
chip totals, the strict schema, and an audit of every converted hand."""

from __future__ import annotations

import copy
import gzip
import json
import re
import time
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pytest

from auditor.ingest.jsonl import consistency_error
from auditor.ingest.ohh import convert_ohh, ohh_schema_error, read_ohh, sniff_ohh
from auditor.ingest.validate import schema_error
from auditor.model.records import Quarantined, SourceHand
from auditor.pipeline import audit

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
OHH = CORPUS / "ohh"
POKERNOW = OHH / "pokernow-converted" / "poker_now_log_ZDAxsK5kWnSpybnkjFQ7bztxf.ohh"
SPEC = OHH / "spec-examples"
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "ohh"

needs_corpus = pytest.mark.skipif(not OHH.is_dir(), reason=f"the shared corpus is not at {OHH}")


def _read_all(path: Path) -> list[SourceHand | Quarantined]:
    return list(read_ohh(path))


def _one(path: Path) -> SourceHand:
    items = _read_all(path)
    assert len(items) == 1, items
    assert isinstance(items[0], SourceHand), items[0]
    return items[0]


def _by_id(items: list, hand_id: str) -> SourceHand:
    found = [x for x in items if isinstance(x, SourceHand) and x.hand["hand_id"] == hand_id]
    assert len(found) == 1
    return found[0]


def _spec_object(name: str) -> dict:
    return json.loads((SPEC / name).read_text(encoding="utf-8"), parse_float=Decimal)


@pytest.fixture(scope="module")
def corpus_items() -> dict[Path, list[SourceHand | Quarantined]]:
    if not OHH.is_dir():
        pytest.skip(f"the shared corpus is not at {OHH}")
    return {f: _read_all(f) for f in sorted(OHH.rglob("*")) if f.is_file()}


# -- two real hands, event by event, as read by hand from the files --------------------------


@needs_corpus
def test_pokernow_omaha_all_in_hand_event_by_event():
    """Hand 1640666579076 (PL Omaha, $0.10/$0.25): a three-bet pot, an all-in flop bet called, the
    players' shows logged before the turn and river (PokerNow shows all-in hands before the run-out)."""
    items = _read_all(POKERNOW)
    item = _by_id(items, "1640666579076")
    lines = POKERNOW.read_text(encoding="utf-8").splitlines()
    assert lines[item.line - 1] == "{"
    assert any('"game_number": "1640666579076"' in x for x in lines[item.line: item.line + 10])
    hand = item.hand
    assert {k: hand[k] for k in ("table_id", "room", "started_at", "variant", "structure", "currency",
                                 "max_seats", "rule_pack")} == {
        "table_id": "ZDAxsK5kWnSpybnkjFQ7bztxf", "room": "PokerStars", "started_at": "2021-12-28T04:42:59Z",
        "variant": "omaha", "structure": "pot-limit", "currency": "USD", "max_seats": 10, "rule_pack": "tda-2024"}
    assert hand["stakes"] == {"blinds": [10, 25], "chip_unit": 1}  # cents
    assert hand["seats"] == [
        {"seat": 1, "player": "SudduthM", "stack": 1907, "status": "active"},
        {"seat": 2, "player": "HoffmanM", "stack": 1305, "status": "active"},
        {"seat": 6, "player": "DeckerM", "stack": 4788, "status": "active"},
    ]
    unknown = ["??"] * 4
    assert hand["events"] == [
        {"kind": "button", "seat": 1},
        {"kind": "post", "seat": 2, "post": "blind", "blind": 1, "amount": 10, "all_in": False},
        {"kind": "post", "seat": 6, "post": "blind", "blind": 2, "amount": 25, "all_in": False},
        # dealt clockwise from the button; only the hero's cards are in the file
        {"kind": "deal", "to": "hole", "seat": 2, "cards": unknown},
        {"kind": "deal", "to": "hole", "seat": 6, "cards": unknown},
        {"kind": "deal", "to": "hole", "seat": 1, "cards": ["7h", "Ah", "7d", "Ad"]},
        {"kind": "action", "seat": 1, "action": "raise", "amount": 85, "to": 85, "all_in": False},
        # "Raise 2.7" adds 2.70 to the 0.10 small blind: a raise to 2.80 (the pot-limit maximum)
        {"kind": "action", "seat": 2, "action": "raise", "amount": 270, "to": 280, "all_in": False},
        {"kind": "action", "seat": 6, "action": "fold"},
        {"kind": "action", "seat": 1, "action": "raise", "amount": 780, "to": 865, "all_in": False},
        {"kind": "action", "seat": 2, "action": "call", "amount": 585, "to": 865, "all_in": False},
        {"kind": "deal", "to": "board", "cards": ["Qd", "6h", "Td"]},
        # 13.05 - 8.65 = 4.40: the bet is all-in, as the file's is_allin says
        {"kind": "action", "seat": 2, "action": "bet", "amount": 440, "to": 440, "all_in": True},
        {"kind": "action", "seat": 1, "action": "call", "amount": 440, "to": 440, "all_in": False},
        {"kind": "show", "seat": 1, "cards": ["7h", "Ah", "7d", "Ad"]},
        {"kind": "show", "seat": 2, "cards": ["8h", "6s", "8d", "Tc"]},
        {"kind": "deal", "to": "board", "cards": ["4d"]},
        {"kind": "deal", "to": "board", "cards": ["5h"]},
        {"kind": "award", "pot": 0, "seat": 1, "amount": 2635},  # 2 x 13.05 + the 0.25 big blind
    ]


@needs_corpus
def test_pokerstars_spec_example_event_by_event():
    """The specification's PokerStars example: nine players, a re-raise all-in for 0.31 more (the
    specification's reading of a Raise amount: the chips added), rake 0.03; "Payout" is ignored."""
    item = _one(SPEC / "Holdem Cash Game (PokerStars).ohh")
    assert item.line == 1
    hand = item.hand
    assert hand["hand_id"] == "226935652098" and hand["table_id"] == "McNaught"
    assert hand["started_at"] == "2021-05-21T07:53:30Z"  # the example has no zone suffix; the field is UTC
    assert hand["stakes"] == {"blinds": [1, 2], "chip_unit": 1} and hand["max_seats"] == 9
    assert [(s["seat"], s["stack"]) for s in hand["seats"]] == [
        (1, 220), (2, 298), (3, 208), (4, 93), (5, 355), (6, 197), (7, 37), (8, 180), (9, 269)]
    deals = [{"kind": "deal", "to": "hole", "seat": s, "cards": ["3h", "9d"] if s == 6 else ["??", "??"]}
             for s in (2, 3, 4, 5, 6, 7, 8, 9, 1)]
    fold = [{"kind": "action", "seat": s, "action": "fold"} for s in range(10)]
    assert hand["events"] == [
        {"kind": "button", "seat": 1},
        {"kind": "post", "seat": 2, "post": "blind", "blind": 1, "amount": 1, "all_in": False},
        {"kind": "post", "seat": 3, "post": "blind", "blind": 2, "amount": 2, "all_in": False},
        *deals,
        fold[4], fold[5], fold[6],
        {"kind": "action", "seat": 7, "action": "raise", "amount": 6, "to": 6, "all_in": False},
        fold[8], fold[9],
        {"kind": "action", "seat": 1, "action": "raise", "amount": 21, "to": 21, "all_in": False},
        fold[2], fold[3],
        {"kind": "action", "seat": 7, "action": "raise", "amount": 31, "to": 37, "all_in": True},
        {"kind": "action", "seat": 1, "action": "call", "amount": 16, "to": 37, "all_in": False},
        {"kind": "deal", "to": "board", "cards": ["Qd", "5h", "Qh"]},
        {"kind": "deal", "to": "board", "cards": ["7d"]},
        {"kind": "deal", "to": "board", "cards": ["3d"]},
        {"kind": "show", "seat": 7, "cards": ["Jd", "Kd"]},
        {"kind": "show", "seat": 1, "cards": ["Ah", "Th"]},
        {"kind": "rake", "pot": 0, "amount": 3},
        {"kind": "award", "pot": 0, "seat": 7, "amount": 74},
    ]


@needs_corpus
def test_ipoker_example_uncalled_raise_and_ten_seat_layout():
    """iPoker numbers a 6-max table's seats 1..10 (and writes table_size as "6"); the flop raise is
    not called, and OHH has no event for the return: it is derived (pot 0.25 confirms it)."""
    hand = _one(SPEC / "Holdem Cash Hand (iPoker).ohh").hand
    assert hand["max_seats"] == 10 and hand["currency"] == "EUR"
    assert [s["seat"] for s in hand["seats"]] == [1, 3, 5, 6, 8, 10]
    events = hand["events"]
    assert events[:3] == [
        {"kind": "button", "seat": 8},
        {"kind": "post", "seat": 10, "post": "blind", "blind": 1, "amount": 1, "all_in": False},
        {"kind": "post", "seat": 1, "post": "blind", "blind": 2, "amount": 2, "all_in": False},
    ]
    assert [e["seat"] for e in events[3:9]] == [10, 1, 3, 5, 6, 8]
    assert events[-7:] == [
        {"kind": "action", "seat": 1, "action": "check"},
        {"kind": "action", "seat": 6, "action": "bet", "amount": 6, "to": 6, "all_in": False},
        {"kind": "action", "seat": 1, "action": "raise", "amount": 18, "to": 18, "all_in": False},
        {"kind": "action", "seat": 6, "action": "fold"},
        {"kind": "return", "seat": 1, "amount": 12},
        {"kind": "rake", "pot": 0, "amount": 1},
        {"kind": "award", "pot": 0, "seat": 1, "amount": 24},
    ]


def test_side_pot_fixture(tmp_path):
    """No corpus hand has a side pot (every pot there is a single main pot), so a crafted one:
    Ann all-in for 50 preflop, Bob all-in for 200 on the flop, Cat's uncalled 50 returned."""
    item = _one(FIXTURES / "side-pot.ohh")
    events = item.hand["events"]
    assert events[6:] == [
        {"kind": "action", "seat": 5, "action": "raise", "amount": 600, "to": 600, "all_in": False},
        {"kind": "action", "seat": 1, "action": "raise", "amount": 4900, "to": 5000, "all_in": True},
        {"kind": "action", "seat": 3, "action": "call", "amount": 4800, "to": 5000, "all_in": False},
        {"kind": "action", "seat": 5, "action": "raise", "amount": 14400, "to": 15000, "all_in": False},
        {"kind": "action", "seat": 3, "action": "call", "amount": 10000, "to": 15000, "all_in": False},
        {"kind": "deal", "to": "board", "cards": ["Ah", "7d", "2c"]},
        {"kind": "action", "seat": 3, "action": "check"},
        {"kind": "action", "seat": 5, "action": "bet", "amount": 10000, "to": 10000, "all_in": False},
        {"kind": "action", "seat": 3, "action": "call", "amount": 5000, "to": 5000, "all_in": True},
        {"kind": "return", "seat": 5, "amount": 5000},
        {"kind": "deal", "to": "board", "cards": ["9s"]},
        {"kind": "deal", "to": "board", "cards": ["3s"]},
        {"kind": "show", "seat": 5, "cards": ["Qc", "Qh"]},
        {"kind": "show", "seat": 3, "cards": ["Kh", "Kd"]},
        {"kind": "show", "seat": 1, "cards": ["As", "Ad"]},
        {"kind": "award", "pot": 0, "seat": 1, "amount": 15000},
        {"kind": "rake", "pot": 1, "amount": 300},
        {"kind": "award", "pot": 1, "seat": 3, "amount": 29700},
    ]
    result = audit([_write_jsonl([item], tmp_path / "side-pot.jsonl")], pack="tda-2024")
    assert result.hands_audited == 1 and result.findings.empty


# -- the whole corpus ---------------------------------------------------------------------------


def _count_objects(path: Path) -> int:
    """Objects in a file, counted without the reader: blank-line separated chunks that each parse."""
    chunks = [c for c in re.split(r"\n[ \t\r]*\n", path.read_text(encoding="utf-8")) if c.strip()]
    for chunk in chunks:
        json.loads(chunk)
    return len(chunks)


@needs_corpus
def test_whole_ohh_corpus_ends_as_hands_or_quarantine(corpus_items, capsys):
    total = Counter()
    reasons, codes = Counter(), Counter()
    for path, items in corpus_items.items():
        assert len(items) == _count_objects(path), path
        for item in items:
            if isinstance(item, SourceHand):
                total["converted"] += 1
                assert schema_error(item.hand) is None
                assert consistency_error(item.hand) is None
            else:
                assert isinstance(item, Quarantined)
                total["quarantined"] += 1
                assert "\n" not in item.reason and item.reason.strip() == item.reason
                assert not item.reason.startswith("reader error"), item.one_line()
                reasons[item.reason] += 1
                codes[item.code] += 1
    with capsys.disabled():
        print(f"\nOHH corpus: {sum(total.values())} read, {total['converted']} converted, "
              f"{total['quarantined']} quarantined")
        for reason, n in reasons.most_common():
            print(f"  {n:4d}  {reason}")
    assert total == {"converted": 80, "quarantined": 20}
    assert reasons == {
        # 18 PokerNow hands and the specification's PokerStars example
        "unsupported variant: Omaha hi/lo (OHH game_type OmahaHiLo)": 19,
        # ots/Gundam01-29-23.ots is the companion tournament-summary format
        "an Open Tournament Summary ('ots'), not a hand history": 1,
    }
    assert codes == {"unsupported-game": 19, "invalid-record": 1}


def _chips(hand: dict) -> tuple[int, int, int, int]:
    ev = hand["events"]
    chips_in = sum(e.get("amount", 0) for e in ev if e["kind"] in ("post", "action"))
    returned = sum(e["amount"] for e in ev if e["kind"] == "return")
    awarded = sum(e["amount"] for e in ev if e["kind"] == "award")
    rake = sum(e["amount"] for e in ev if e["kind"] == "rake")
    return chips_in, returned, awarded, rake


@needs_corpus
def test_chips_add_up_in_every_converted_hand(corpus_items):
    failures = []
    flag_mismatch = []
    for path, items in corpus_items.items():
        by_line = _raw_objects(path)
        for item in items:
            if not isinstance(item, SourceHand):
                continue
            chips_in, returned, awarded, rake = _chips(item.hand)
            if chips_in - returned != awarded + rake:
                failures.append((item.hand["hand_id"], chips_in, returned, awarded, rake))
            # the file's own pot amounts agree with the derived uncalled bets (every corpus hand is cash, in cents)
            pots = sum(int(p["amount"] * 100) for p in by_line[item.line]["pots"])
            assert chips_in - returned == pots, item.hand["hand_id"]
            # all-in as computed from the stacks agrees with the file's is_allin flags
            declared = sum(1 for r in by_line[item.line]["rounds"] for a in r["actions"]
                           if a.get("is_allin") and a["action"] not in ("Shows Cards", "Payout"))
            computed = sum(1 for e in item.hand["events"] if e.get("all_in"))
            if declared != computed:
                flag_mismatch.append(item.hand["hand_id"])
    assert failures == []
    assert flag_mismatch == []


def _raw_objects(path: Path) -> dict[int, dict]:
    """The file's OHH objects by the line they start on (independent of the reader)."""
    out = {}
    line = 1
    for chunk in re.split(r"(\n[ \t\r]*\n)", path.read_text(encoding="utf-8")):
        if chunk.strip() and not chunk.isspace():
            lead = len(chunk) - len(chunk.lstrip())
            obj = json.loads(chunk, parse_float=Decimal)
            if "ohh" in obj:
                out[line + chunk.count("\n", 0, lead)] = obj["ohh"]
        line += chunk.count("\n")
    return out


# -- the strict schema ------------------------------------------------------------------------


@needs_corpus
@pytest.mark.parametrize(("damage", "where", "what"), [
    (lambda o: o["ohh"]["rounds"][0]["actions"][1].update(amount=Decimal("-0.02")), "ohh/rounds/0/actions/1/amount",
     "less than the minimum of 0"),
    (lambda o: o["ohh"]["rounds"][0]["actions"][3].update(action="Limp"), "ohh/rounds/0/actions/3/action",
     '"Limp" is not one of'),
    (lambda o: o["ohh"].pop("players"), "at ohh:", '"players" is a required property'),
    (lambda o: o["ohh"]["pots"][0]["player_wins"][0].update(win_amount="0.74"),
     "ohh/pots/0/player_wins/0/win_amount", "is not of type"),
    (lambda o: o["ohh"]["rounds"][1].update(cards=["Qd", "5h", "Q"]), "ohh/rounds/1/cards", ""),
    (lambda o: o["ohh"].update(game_type="Razz"), "ohh/game_type", '"Razz" is not one of'),
    (lambda o: o["ohh"]["rounds"][0]["actions"][6].pop("amount"), "ohh/rounds/0/actions/6",
     '"amount" is a required property'),
])
def test_strict_schema_rejects_bad_hands_with_a_path(damage, where, what):
    obj = _spec_object("Holdem Cash Game (PokerStars).ohh")
    assert ohh_schema_error(obj) is None
    damage(obj)
    item = convert_ohh(obj, "crafted.ohh", 7)
    assert isinstance(item, Quarantined)
    assert item.line == 7 and item.hand_id == "226935652098"
    assert item.reason.startswith("ohh schema: at ") and where in item.reason and what in item.reason, item.reason


@needs_corpus
def test_spec_examples_need_only_the_documented_leniency():
    """The examples write round cards as "", table_size "6", dates without a zone, and a Payout action."""
    for path in sorted(SPEC.glob("*.ohh")):
        assert ohh_schema_error(json.loads(path.read_text(encoding="utf-8"))) is None, path


# -- readings and refusals -------------------------------------------------------------------


@needs_corpus
def test_raise_amount_read_as_raise_to_when_only_that_adds_up():
    obj = _spec_object("Holdem Cash Game (PokerStars).ohh")
    raise_ = obj["ohh"]["rounds"][0]["actions"][12]
    assert raise_["action"] == "Raise" and str(raise_["amount"]) == "0.31"
    raise_["amount"] = Decimal("0.37")  # the same raise as its total: 0.06 + 0.37 would exceed the 0.37 stack
    item = convert_ohh(copy.deepcopy(obj), "x.ohh", 1)
    assert isinstance(item, SourceHand)
    assert {"kind": "action", "seat": 7, "action": "raise", "amount": 31, "to": 37, "all_in": True} \
        in item.hand["events"]
    bad = copy.deepcopy(obj)
    bad["ohh"]["pots"][0]["amount"] = Decimal("0.99")  # 0.22 more than anyone put in, under either reading
    bad["ohh"]["pots"][0]["player_wins"][0]["win_amount"] = Decimal("0.96")
    item = convert_ohh(bad, "x.ohh", 1)
    assert isinstance(item, Quarantined)
    assert "does not add up either" in item.reason


@needs_corpus
@pytest.mark.parametrize(("change", "code", "reason"), [
    (lambda o: o.update(game_type="StudHiLo"), "unsupported-game",
     "unsupported variant: stud hi/lo (OHH game_type StudHiLo)"),
    (lambda o: o["bet_limit"].update(bet_cap=Decimal("0.5")), "unsupported-game",
     "unsupported betting structure: capped betting (bet_cap 0.5)"),
    (lambda o: o["rounds"].insert(2, {"id": 1, "street": "Flop", "cards": ["2c", "3c", "4c"], "actions": []}),
     "unsupported-feature", "two Flop rounds: run it twice is not supported"),
    (lambda o: o["pots"][0].update(jackpot=Decimal("0.01")), "unsupported-feature", "pot 0 has a jackpot drop of 0.01"),
    (lambda o: o["rounds"][0]["actions"].insert(0, {"action_number": 0, "player_id": 3, "action": "Added Chips",
                                                    "amount": 1}),
     "unsupported-feature", "'Added Chips' by player id 3"),
    (lambda o: o["rounds"][0]["actions"][5].update(player_id=42), "invalid-record",
     "names player id 42, who is not in players"),
    (lambda o: o["rounds"][0]["actions"][0].update(amount=Decimal("0.0100000001")), "unsupported-feature",
     "needs a unit finer than 1/1000000"),
    (lambda o: o["rounds"][0]["actions"][6].update(amount=Decimal("3.06")), "inconsistent-amounts",
     "puts in more than its stack"),
])
def test_what_the_canonical_log_cannot_hold_is_quarantined_with_its_code(change, code, reason):
    obj = _spec_object("Holdem Cash Game (PokerStars).ohh")
    change(obj["ohh"])
    item = convert_ohh(obj, "x.ohh", 3)
    assert isinstance(item, Quarantined), item
    assert reason in item.reason, item.reason
    assert (item.code, item.hand_id, item.table_id) == (code, "226935652098", "McNaught")


def _insert(o: dict, round_no: int, at: int, action: dict) -> None:
    o["rounds"][round_no]["actions"].insert(at, {"action_number": 99, "amount": Decimal(0), **action})


def _swap_flop_and_turn(o: dict) -> None:
    o["rounds"][1]["id"], o["rounds"][2]["id"] = 2, 1


#: illegal play, crafted into the specification's PokerStars example (chips still add up): each must be read,
#: audited and reported under its category (#13: readers record, rules judge)
ILLEGAL = {
    "action by a folded player": (lambda o: _insert(o, 1, 0, {"player_id": 3, "action": "Check"}), "illegal-action"),
    "action after all-in": (lambda o: _insert(o, 1, 0, {"player_id": 6, "action": "Check"}), "illegal-action"),
    "check facing a bet": (lambda o: o["rounds"][0]["actions"][3].update(action="Check"), "illegal-action"),
    "four-card flop": (lambda o: o["rounds"][1].update(cards=["Qd", "5h", "Qh", "2s"]), "deal"),
    "turn before the flop": (_swap_flop_and_turn, "deal"),
    "cards on the preflop round": (lambda o: o["rounds"][0].update(cards=["2s"]), "deal"),
    "a seat listed twice": (lambda o: o["players"][1].update(seat=1), "seating"),
    "dealt cards twice": (lambda o: _insert(o, 0, 3, {"player_id": 5, "action": "Dealt Cards", "cards": ["4c", "4d"]}),
                          "deal"),
}


@needs_corpus
def test_a_player_marked_sitting_out_but_dealt_cards_is_recorded_as_both():
    obj = _spec_object("Holdem Cash Game (PokerStars).ohh")
    hero = next(p for p in obj["ohh"]["players"] if p["name"] == "Hero")
    hero["is_sitting_out"] = True
    item = convert_ohh(obj, "x.ohh", 1)
    assert isinstance(item, SourceHand)
    assert next(s for s in item.hand["seats"] if s["seat"] == hero["seat"])["status"] == "sitting_out"
    assert {"kind": "deal", "to": "hole", "seat": hero["seat"], "cards": ["3h", "9d"]} in item.hand["events"]


@needs_corpus
def test_the_unchanged_example_is_clean(tmp_path):
    """The control for the cases below."""
    path = tmp_path / "clean.ohh"
    path.write_text(json.dumps(_spec_object("Holdem Cash Game (PokerStars).ohh"), default=float), encoding="utf-8")
    result = audit([path])
    assert (result.hands_audited, result.quarantined, len(result.findings)) == (1, [], 0)


@needs_corpus
@pytest.mark.parametrize("name", sorted(ILLEGAL))
def test_an_illegal_action_is_read_and_reported_not_quarantined(tmp_path, name):
    change, category = ILLEGAL[name]
    obj = _spec_object("Holdem Cash Game (PokerStars).ohh")
    change(obj["ohh"])
    path = tmp_path / "illegal.ohh"
    path.write_text(json.dumps(obj, default=float), encoding="utf-8")
    result = audit([path])
    assert result.quarantined == [] and result.hands_audited == 1
    assert category in set(result.findings["category"]), result.findings[["rule_id", "message"]].to_string()


@needs_corpus
def test_missed_and_dead_posts_and_players_not_dealt_in():
    """The WPN Omaha example, changed: seat 1 returns and posts a big blind (live, "missed") plus the
    small blind (dead), then checks its option; a newcomer only "Sits Down" in seat 3 during the hand,
    so is not dealt in (nor, in the second variant, a player marked is_sitting_out)."""
    obj = _spec_object("Omaha Cash Game (WPN).ohh")
    o = obj["ohh"]
    o["players"].append({"id": 5, "seat": 3, "name": "Newcomer", "starting_stack": Decimal("2.00")})
    acts = o["rounds"][0]["actions"]
    acts.insert(2, {"action_number": 2, "player_id": 0, "action": "Post BB", "amount": Decimal("0.02")})
    acts.insert(3, {"action_number": 2, "player_id": 0, "action": "Post Dead", "amount": Decimal("0.01")})
    acts.insert(4, {"action_number": 2, "player_id": 5, "action": "Sits Down"})
    call = next(a for a in acts if a["player_id"] == 0 and a["action"] == "Call")
    call.update(action="Check", amount=Decimal("0"))
    o["pots"][0].update(amount=Decimal("0.42"))
    o["pots"][0]["player_wins"][0].update(win_amount=Decimal("0.40"))
    item = convert_ohh(obj, "x.ohh", 1)
    assert isinstance(item, SourceHand), item
    hand = item.hand
    assert [(s["seat"], s["status"]) for s in hand["seats"]] == [
        (1, "active"), (2, "active"), (3, "sitting_out"), (4, "active"), (5, "active"), (6, "active")]
    assert hand["events"][:9] == [
        {"kind": "button", "seat": 2},
        {"kind": "post", "seat": 4, "post": "blind", "blind": 1, "amount": 1, "all_in": False},
        {"kind": "post", "seat": 5, "post": "blind", "blind": 2, "amount": 2, "all_in": False},
        {"kind": "post", "seat": 1, "post": "missed", "amount": 2, "all_in": False},
        {"kind": "post", "seat": 1, "post": "dead", "amount": 1, "all_in": False},
        {"kind": "deal", "to": "hole", "seat": 4, "cards": ["??"] * 4},
        {"kind": "deal", "to": "hole", "seat": 5, "cards": ["??"] * 4},
        {"kind": "deal", "to": "hole", "seat": 6, "cards": ["??"] * 4},
        {"kind": "deal", "to": "hole", "seat": 1, "cards": ["??"] * 4},
    ]
    assert {"kind": "action", "seat": 1, "action": "check"} in hand["events"]
    assert not any(e.get("seat") == 3 for e in hand["events"])
    o["players"][-1]["is_sitting_out"] = True
    acts.pop(4)
    item = convert_ohh(obj, "x.ohh", 1)
    assert isinstance(item, SourceHand) and item.hand["seats"][2]["status"] == "sitting_out"


# -- file shapes -----------------------------------------------------------------------------


@needs_corpus
def test_file_shapes_and_broken_chunks(tmp_path):
    text = (SPEC / "Holdem Cash Game (PokerStars).ohh").read_text(encoding="utf-8")
    obj = json.loads(text)
    one_line = json.dumps(obj)
    shapes = {
        "per-line.ohh": (one_line + "\n" + one_line + "\n", [1, 2]),
        "array.ohh": (json.dumps([obj, obj], indent=2), [2, 279]),
        "array-with-blank-lines.ohh": ("[\n" + text + ",\n\n" + text + "\n]\n", [2, 283]),
        "single.ohh": (text, [1]),
    }
    for name, (content, lines) in shapes.items():
        (tmp_path / name).write_text(content, encoding="utf-8")
        items = _read_all(tmp_path / name)
        assert [x.line for x in items] == lines, name
        assert all(isinstance(x, SourceHand) for x in items), name
    (tmp_path / "g.ohh.gz").write_bytes(gzip.compress(text.encode()))
    assert isinstance(_one(tmp_path / "g.ohh.gz"), SourceHand)

    broken = text[:500] + "\n\n" + text + "\n\nnot json at all\n\n" + text + '\n\n{"ohh": NaN}\n\n[1, 2]\n'
    (tmp_path / "broken.ohh").write_text(broken, encoding="utf-8")
    got = [(x.line, type(x).__name__, getattr(x, "reason", "")) for x in _read_all(tmp_path / "broken.ohh")]
    assert got == [
        (1, "Quarantined", "invalid JSON at line 18 column 24: Invalid control character"),
        (20, "SourceHand", ""),
        (301, "Quarantined", "invalid JSON at line 301 column 1: Expecting value"),
        (303, "SourceHand", ""),
        (584, "Quarantined", 'ohh schema: at ohh: "NaN" is not of type "object"'),
        (586, "Quarantined", "not an OHH hand: a JSON int, expected an object {\"ohh\": {...}}"),
        (586, "Quarantined", "not an OHH hand: a JSON int, expected an object {\"ohh\": {...}}"),
    ]
    assert [x.code for x in _read_all(tmp_path / "broken.ohh") if isinstance(x, Quarantined)] == [
        "damaged", "damaged", "invalid-record", "invalid-record", "invalid-record"]
    (tmp_path / "latin1.ohh").write_bytes(text.encode() + b"\n\n" + text.replace("Hero", "H\xe9ro").encode("latin-1")
                                          + b"\n\n" + text.encode())
    got = [(x.line, type(x).__name__, getattr(x, "reason", "")) for x in _read_all(tmp_path / "latin1.ohh")]
    # the second copy starts on line 282; "Hero" is on the example's line 62, so "H\xe9ro" is at line 343
    assert got == [(1, "SourceHand", ""), (282, "Quarantined", "not UTF-8: byte 0xe9 at line 343 column 27"),
                   (563, "SourceHand", "")]
    assert _read_all(tmp_path / "latin1.ohh")[1].code == "damaged"
    (tmp_path / "truncated.ohh").write_text(text + "\n\n" + text[:800], encoding="utf-8")
    got = [(x.line, type(x).__name__, getattr(x, "reason", "")) for x in _read_all(tmp_path / "truncated.ohh")]
    assert got[0] == (1, "SourceHand", "")
    assert got[1][:2] == (282, "Quarantined") and got[1][2].startswith("invalid JSON at line 311 ")
    assert _read_all(tmp_path / "truncated.ohh")[1].code == "truncated"  # the file ends inside the object


def test_limits_and_unreadable_files_get_their_codes(tmp_path):
    from auditor.ingest.limits import Limits
    path = tmp_path / "long.ohh"
    path.write_text('{"ohh": {"game_number": "' + "x" * 200 + '"}}\n', encoding="utf-8")
    (item,) = read_ohh(path, limits=Limits(ohh_max_line_bytes=100))
    assert item.code == "limit" and "ohh_max_line_bytes" in item.reason
    (item,) = read_ohh(path, limits=Limits(ohh_max_hand_bytes=100))
    assert item.code == "limit" and "ohh_max_hand_bytes" in item.reason
    (item,) = read_ohh(tmp_path / "missing.ohh")
    assert item.code == "damaged" and item.reason.startswith("cannot open")
    bomb = tmp_path / "bomb.ohh.gz"
    bomb.write_bytes(gzip.compress(b" " * 4096))
    (item,) = read_ohh(bomb, limits=Limits(max_unpacked_bytes=1024))
    assert item.code == "limit" and "max_unpacked_bytes" in item.reason


def test_sniff():
    assert sniff_ohh(b'{\n    "ohh": {\n        "spec_version": "1.2.2"')
    assert sniff_ohh(b'\xef\xbb\xbf[ {"ohh":{')
    assert not sniff_ohh(b'{\n    "ots": {')
    assert not sniff_ohh(b'{"hand_id": "1", "table_id": "t"}')
    assert not sniff_ohh(b"PokerStars Hand #1: Hold'em No Limit")


# -- audit -----------------------------------------------------------------------------------


def _write_jsonl(items: list[SourceHand], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for item in items:
            f.write(json.dumps(item.hand) + "\n")
    return path


@needs_corpus
def test_audit_of_the_converted_corpus(corpus_items, tmp_path, capsys):
    hands = [x for items in corpus_items.values() for x in items if isinstance(x, SourceHand)]
    started = time.perf_counter()
    for path in corpus_items:
        _read_all(path)
    rate = len(hands) / (time.perf_counter() - started)
    result = audit([_write_jsonl(hands, tmp_path / "ohh.jsonl")], pack="tda-2024")
    with capsys.disabled():
        print(f"\nOHH: {len(hands)} hands converted at {rate:.0f} hands/s; audit: "
              f"{len(result.findings)} findings, {len(result.quarantined)} quarantined")
    assert result.hands_read == result.hands_audited == 80
    # Real deviations the tda-2024 pack finds in these hands: none. Investigated with the replay's
    # facts: no out-of-turn action, short raise, pot-limit overbet, unmatched return, chip leak,
    # award to a seat other than the best hand, or blind out of position. Two things differ from
    # TDA practice but are not rules of this pack: hand 1640666733322's button skips HoffmanM, who
    # had just re-joined in seat 7 (the previous hand was heads-up), and six hands show cards in an
    # order other than last aggressor first (online logs list shows in the site's order).
    assert [(f.hand_id, f.rule_id) for f in result.findings.itertuples()] == []


def test_a_number_no_decimal_holds_is_one_damaged_object_and_the_file_goes_on(tmp_path):
    """A hostile exponent (`1e18446744073709551616`) made Decimal raise InvalidOperation out of the reader,
    which lost the rest of the file to one internal error: it is that object's `damaged` entry now, alone or
    inside an array, and the objects after it are read."""
    text = (FIXTURES / "side-pot.ohh").read_text(encoding="utf-8").strip().split("\n\n")[0]
    bad = text.replace('"big_blind_amount": ', '"big_blind_amount": 1e18446744073709551616, "x": ', 1)
    assert bad != text
    path = tmp_path / "hostile.ohh"
    path.write_text(f"{bad}\n\n{text}\n\n[{bad}, {text}]\n", encoding="utf-8")
    items = list(read_ohh(path))
    assert [type(i).__name__ for i in items] == ["Quarantined", "SourceHand", "Quarantined"]
    assert items[0].code == "damaged" and items[0].line == 1 and "out of any decimal's range" in items[0].reason
    assert items[2].reason.endswith("the rest of the array is skipped")
