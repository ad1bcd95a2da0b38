"""888poker text, read by its dialect (`rooms/888poker.yaml`).

The hands under tests/fixtures/888poker/ were written for these tests in the room's style, learnt from its real
exports (the shared corpus's other-rooms/888poker and rooms-2/888, 2011-2018): `#Game No : N` between hands, the
brand's header line, the stakes before the game (`$0.50/$1 Blinds No Limit Holdem`), the date day first, the table,
button and player count on three lines, amounts and cards in brackets (`[$1]`, `[ 4h, Kc, 3s ]`), a raise written as
the chips it adds, a street's new cards alone, `** Summary **` as the showdown, awards naming no pot, a dead blind
as two amounts, a player sitting out written as a fold before the deal. 888 writes no uncalled-bet line and no rake:
both are derived, and the conventions that derive them are shown not to hide a fault the text can show.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from reader_items import findings, money, room_hands

from auditor.export import writer
from auditor.ingest.detect import detect
from auditor.pipeline import audit

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "888poker"


def hands_of(path: Path) -> list[dict]:
    return room_hands(path, "888poker")


def test_cash_hands_read_as_the_room_dealt_them():
    assert detect(FIXTURES / "cash.txt").name == "888poker"
    all_in, dead_blind, walk = hands_of(FIXTURES / "cash.txt")
    assert (all_in["hand_id"], all_in["room"], all_in["currency"], all_in["table_id"]) == \
        ("700000001", "888poker", "USD", "Table Valledupar")
    assert all_in["started_at"] == "2014-01-06T10:56:05-05:00"  # `06 01 2014`, day first, Eastern time
    assert all_in["stakes"] == {"blinds": [50, 100], "chip_unit": 1}
    # a `6 Max` table numbers its seats as a ten-seat one's
    assert all_in["max_seats"] == 10 and [s["seat"] for s in all_in["seats"]] == [1, 4, 6, 9]
    boards = [e["cards"] for e in all_in["events"] if e["kind"] == "deal" and e["to"] == "board"]
    assert boards == [["4h", "Kc", "3s"], ["Kh"], ["6c"]]
    # `raises [$101.66]` adds 101.66 (all in, no mark written); the 5.28 no one matched goes back, not written;
    # the award leaves out that part and the rake, which is the rest of the pot
    raise_ = next(e for e in all_in["events"] if e.get("action") == "raise")
    assert (raise_["amount"], raise_["to"], raise_["all_in"]) == (10166, 10166, True)
    assert money(all_in, "return", "award", "rake") == [("return", 4, 528), ("award", 4, 19700, 0),
                                                        ("rake", None, 400)]
    # `posts dead blind [$0.50 + $1]`: the live big blind and the dead small one
    assert money(dead_blind, "post") == [("post", 4, 50), ("post", 6, 100), ("post", 9, 100), ("post", 9, 50)]
    assert [e["post"] for e in dead_blind["events"] if e["kind"] == "post"][2:] == ["missed", "dead"]
    # a fold before the deal by a player who posted nothing: sitting out, not dealt in
    assert walk["seats"][0] == {"seat": 1, "player": "dynamoz6", "stack": 9900, "status": "sitting_out"}
    assert 1 not in {e["seat"] for e in walk["events"] if e["kind"] == "deal" and e["to"] == "hole"}
    # a walk's award holds the big blind's own unmatched chips: read as a return and the rest of the award
    assert money(walk, "return", "award", "rake") == [("return", 9, 50), ("award", 9, 100, 0)]


def test_tournament_awards_name_no_pot_and_are_paid_from_the_pots():
    (hand,) = hands_of(FIXTURES / "tournament.txt")
    # `$` in a tournament counts chips; the table line names the tournament
    assert "currency" not in hand and hand["stakes"] == {"blinds": [10, 20], "ante": 5, "chip_unit": 1}
    assert hand["table_id"] == "Tournament #78669312 $0.01 - Table #3"
    # two award lines, no pot named: the side pot of the two bigger stacks goes to its winner, the main pot to
    # the shortest stack's best hand (the pot layers of `model.pots`)
    assert money(hand, "award") == [("award", 1, 2925, 0), ("award", 6, 60, 1)]


def test_clean_hands_give_no_finding_and_the_derivations_are_said_once_per_file():
    result = audit([FIXTURES / "cash.txt", FIXTURES / "tournament.txt"], pack="tda-2024")
    assert result.quarantined == [] and result.hands_audited == result.hands_read == 4
    assert result.findings.empty
    assert sorted((Path(n.file).name, n.code) for n in result.notes) == [
        ("cash.txt", "rake-derived"), ("cash.txt", "uncalled-bet-derived")]


@pytest.mark.parametrize(("name", "expected"), [
    ("min_raise.txt", [("700000002", "TDA-43A", "min-raise")]),
    # the award is more than the chips put in: no rake is made up, the chips are reported as not balancing
    ("award_above_the_chips_in.txt", [("700000003", "TDA-INT-chips", "chip-conservation")]),
    # a tournament takes no rake: chips not paid out there are not read as rake, and are reported
    ("tournament_award_short.txt", [("775395630", "TDA-INT-chips", "chip-conservation")]),
    # a street's line holds its new cards: a turn line repeating the flop deals four cards, three of them dealt
    # before, which is reported (a turn of four cards, and cards dealt twice)
    ("turn_repeats_the_board.txt", [("700000001", "TDA-39A", "deal"), ("700000001", "TDA-INT-cards", "deal")]),
])
def test_each_illegal_hand_gives_exactly_its_finding(name, expected):
    assert findings(FIXTURES / "illegal" / name, hands=1) == expected


def test_a_fold_before_the_deal_by_a_player_who_posted_is_no_sitting_out():
    """The convention reads a fold before the deal as sitting out only for a player who put nothing in: a player
    who posted and then 'folds' before the cards were dealt is refused as damaged, never silently dealt out."""
    result = audit([FIXTURES / "illegal" / "posted_then_folds_before_the_deal.txt"], pack="tda-2024")
    refused = [(q.code, q.reason) for q in result.quarantined]
    assert refused == [("damaged", "line 14: a betting action before the deal")]


def test_what_the_text_cannot_say_is_refused_by_the_writer():
    """888 writes no return, no rake and no pot: a bet kept in the pot, chips neither paid nor raked, and a pot
    paid to a player it does not belong to read back as something else, so its writer refuses them with the
    reason (and `verify --via 888poker` lists them instead of counting misses)."""
    w = writer("888poker")
    all_in, _, walk = hands_of(FIXTURES / "cash.txt")
    (tournament,) = hands_of(FIXTURES / "tournament.txt")
    assert w.cannot_express(all_in) is None and w.cannot_express(walk) is None
    assert w.cannot_express(tournament) is None
    kept = {**all_in, "events": [e for e in all_in["events"] if e["kind"] != "return"]}
    assert "writes no return" in w.cannot_express(kept)
    lost = {**all_in, "events": [e for e in all_in["events"] if e["kind"] != "rake"]}
    assert "writes no rake" in w.cannot_express(lost)
    swapped = {**tournament, "events": [dict(e, pot=1 - e["pot"]) if e["kind"] == "award" else e
                                        for e in tournament["events"]]}
    assert "names no pot" in w.cannot_express(swapped)


def test_the_writer_writes_what_the_reader_reads(tmp_path):
    """A hand written as 888 text reads back as the same canonical hand (the writer's own `carried` form)."""
    w = writer("888poker")
    hands = hands_of(FIXTURES / "cash.txt") + hands_of(FIXTURES / "tournament.txt")
    path = tmp_path / "written.txt"
    assert w.write_hands(hands, path) == 4
    assert hands_of(path) == [w.carried(h) for h in hands]


def test_a_seat_line_without_its_name_is_refused_as_damaged(tmp_path):
    """An export that lost its players' names (`Seat 1:  ( $99 )`) is damaged text, said with the line, not a hand
    cut short before its seats."""
    hand = (FIXTURES / "cash.txt").read_text("utf-8").split("\n\n\n\n")[2]
    path = tmp_path / "nameless.txt"
    path.write_text(hand.replace("Seat 1: dynamoz6 ( $99 )", "Seat 1:  ( $99 )"), "utf-8")
    result = audit([path], pack="tda-2024")
    assert [(q.code, q.reason) for q in result.quarantined] == [
        ("damaged", "line 7: seat line not understood: 'Seat 1: ( $99 )'")]
