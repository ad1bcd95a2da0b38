"""Bovada and Ignition text, read by their dialects (`rooms/bovada.yaml`, and `rooms/ignition.yaml` on it).

The hands under tests/fixtures/bovada/ were written for these tests in the room's style, learnt from its real
exports (the shared corpus's rooms-2/bovada, 2016-2019 and 2025): players written by their position in the hand
(`UTG+1`, `Big Blind [ME]`, the exporting player's written `  [ME]` in the play), no stakes in the header, the
chips each action adds (`Raises $0.12 to $0.17`), `All-in(raise)`, `Posts dead chip` for both blinds at once,
`Showdown [best five] (Three of a kind)` for a show, `Hand Result-Side Pot`, no rake line, Zone Poker's pool.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from reader_items import findings, money, one_by_one, room_hands

from auditor.export import writer
from auditor.ingest.detect import detect
from auditor.ingest.rooms import read_room
from auditor.model.records import SourceHand
from auditor.pipeline import audit

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "bovada"


def test_cash_hands_read_as_the_room_dealt_them():
    assert detect(FIXTURES / "cash.txt").name == "bovada"
    ring, zone = room_hands(FIXTURES / "cash.txt", "bovada")
    # no stakes in the header: the blinds posted; the stacks' dollar sign: the currency
    assert (ring["currency"], ring["stakes"], ring["table_id"]) == ("USD", {"blinds": [10, 25], "chip_unit": 1},
                                                                     "18310494")
    # players are named by seat, the one name that holds from hand to hand
    assert [s["player"] for s in ring["seats"]] == [f"Seat {n}" for n in (1, 2, 3, 4, 5, 6)]
    assert ring["events"][0] == {"kind": "button", "seat": 3}
    # `Posts dead chip $0.35`: the big blind's worth live, the rest dead
    assert [(e["seat"], e["post"], e["amount"]) for e in ring["events"] if e["kind"] == "post"] == [
        (4, "blind", 10), (5, "blind", 25), (2, "missed", 25), (2, "dead", 10)]
    # `Raises $0.75 to $0.75`, `Calls $0.65`: the chips added, the round's total read
    raise_ = next(e for e in ring["events"] if e.get("action") == "raise")
    assert (raise_["seat"], raise_["amount"], raise_["to"]) == (6, 75, 75)
    # `Showdown [Qd Qs Qc 9h 8d]` tables the cards dealt, not the five written
    assert [(e["seat"], e["cards"]) for e in ring["events"] if e["kind"] == "show"] == [
        (4, ["Qd", "Qs"]), (6, ["Kd", "Td"])]
    # no rake line: the chips put in and not paid are the rake
    assert money(ring, "award", "rake") == [("award", 4, 1105, 0), ("rake", None, 55)]
    # Zone Poker deals each hand at a table of its own: the pool's number and the hand's; `Folds(timeout)` is the
    # player's fold
    assert (zone["table_id"], zone["stakes"]) == ("1365#3754821990", {"blinds": [2, 5], "chip_unit": 1})
    assert money(zone, "return", "award") == [("return", 2, 10), ("award", 2, 12, 0)]


def test_ignition_is_the_same_format_under_its_own_name():
    assert detect(FIXTURES / "ignition.txt").name == "ignition"
    (hand,) = room_hands(FIXTURES / "ignition.txt", "ignition")
    assert hand["room"] == "Ignition"
    # `All-in(raise) $5.11 to $5.16`; `Hand Result-Side Pot $6.26` pays the side pot, `Hand result` the main
    assert [(e["seat"], e["amount"], e["to"], e.get("all_in")) for e in hand["events"]
            if e.get("action") == "raise"] == [(2, 15, 15, None), (4, 203, 203, True), (1, 511, 516, True)]
    assert money(hand, "award", "rake") == [("award", 4, 581, 0), ("award", 2, 626, 1), ("rake", None, 30)]


def test_clean_hands_give_no_finding():
    result = audit([FIXTURES / "cash.txt", FIXTURES / "ignition.txt"], pack="tda-2024")
    assert result.quarantined == [] and result.hands_audited == result.hands_read == 3
    assert result.findings.empty
    assert sorted((Path(n.file).name, n.code) for n in result.notes) == [("cash.txt", "rake-derived"),
                                                                        ("ignition.txt", "rake-derived")]


@pytest.mark.parametrize(("name", "expected"), [
    ("min_raise.txt", [("3760580001", "TDA-43A", "min-raise")]),
    # the room labels the seats (`Big Blind`), but the seats show the blind skipped a player dealt in
    ("blind_skips_a_seat.txt", [("3760580002", "TDA-32", "blind-order")]),
    # heads-up, the same seat posts the big blind twice: named by seat, the player is the same in both hands
    ("big_blind_twice.txt", [("3760580011", "TDA-34B", "blind-order")]),
])
def test_each_illegal_hand_gives_exactly_its_finding(name, expected):
    assert sorted(findings(FIXTURES / "illegal" / name)) == expected


def test_zone_poker_hands_are_each_a_table_of_their_own():
    """The same two heads-up hands as `big_blind_twice.txt`, dealt in a Zone Poker pool: a fast-fold pool deals each
    hand at a new table, so seat 5's big blind in both is no blind posted twice at one table (TDA 34-B)."""
    result = audit([FIXTURES / "zone_heads_up.txt"], pack="tda-2024")
    assert result.quarantined == [] and result.hands_audited == 2 and result.findings.empty
    assert [h["table_id"] for h in room_hands(FIXTURES / "zone_heads_up.txt", "bovada")] == [
        "1365#3760580010", "1365#3760580011"]


@pytest.mark.parametrize(("name", "code", "reason"), [
    ("tournament.txt", "unsupported-feature",
     "the room numbers a tournament's players, not its seats: the hand's seating cannot be placed"),
    ("dealer_contradicted.txt", "damaged", "the dealer is set on seat 5, but the seat list puts the Dealer on seat "
                                           "3: the text contradicts itself on the button"),
    ("no_full_big_blind.txt", "unsupported-feature",
     "the stakes are not written and no big blind is posted in full: the hand's bets cannot be measured"),
    ("show_unseen.txt", "damaged", "line 21: a show that writes no cards, by a player the text deals no cards"),
])
def test_what_the_text_cannot_place_is_refused_with_its_reason(name, code, reason):
    result = audit([FIXTURES / "illegal" / name], pack="tda-2024")
    assert [(q.code, q.reason) for q in result.quarantined] == [(code, reason)]
    assert result.findings.empty


def test_the_writer_writes_what_the_reader_reads(tmp_path):
    w = writer("bovada")
    hands = room_hands(FIXTURES / "cash.txt", "bovada")
    path = tmp_path / "written.txt"
    assert w.write_hands(hands, path) == 2
    text = path.read_text("utf-8")
    assert "Seat 3 : Set dealer [3]" in text and "Seat 2 : Posts dead chip $0.35" in text
    assert "Seat 4 : Showdown" in text and "Total Pot($11.60)" in text
    assert room_hands(path, "bovada") == [w.carried(h) for h in hands]


def test_a_hand_refused_after_the_ledger_read_it_leaves_the_others_of_its_batch_whole(tmp_path):
    """A hand the batch's checks refuse once the ledger has read it (no full big blind, a dealer set off the
    `Dealer`) sits between read hands: its seat and event rows go with it, and the hands around it are read as
    when alone."""
    illegal = FIXTURES / "illegal"
    parts = [(illegal / "no_full_big_blind.txt"), FIXTURES / "cash.txt", illegal / "dealer_contradicted.txt",
             illegal / "min_raise.txt"]
    path = tmp_path / "mixed.txt"
    path.write_text("\n\n".join(p.read_text("utf-8") for p in parts), "utf-8")
    result = audit([path], pack="tda-2024")
    assert [q.code for q in result.quarantined] == ["unsupported-feature", "damaged"]
    assert result.hands_audited == 3
    assert [(r.hand_id, r.rule_id) for r in result.findings.itertuples()] == [("3760580001", "TDA-43A")]
    read = [i.hand for i in one_by_one(read_room(path, "bovada")) if isinstance(i, SourceHand)]
    assert [h for h in read if h["hand_id"] in {"3760570001", "3754821990"}] == \
        room_hands(FIXTURES / "cash.txt", "bovada")
