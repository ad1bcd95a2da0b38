"""OnGame text, read by its dialect (`rooms/ongame.yaml`, written on 888poker's).

The hands under tests/fixtures/ongame/ were written for these tests in the room's style, learnt from its real
exports (the shared corpus's other-rooms/ongame, HHSmithy's samples of 2013-2014): `***** History for hand
R5-N-N *****`, `Start hand:` with the day's and month's short names and the zone, the game and stakes on the table
line (`Table: [SPEED] Tanga [N] (LIMIT TEXAS_HOLDEM $0.50/$1, Real money)`), the exporting player's `User:` line
in some exports, `Button: seat N`, `Players in round: 4 (6)`, `raises X to Y` (the chips added, then the round
total), ` [all in] `, boards with their new cards, and a `Summary:` holding the showdown: the awards after the
rake, `Rake taken: X`, each seat's stack and net result with the cards shown. No uncalled-bet line. The
conventions that read these are shown not to hide a fault the text can show.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from reader_items import findings, money, room_hands

from auditor.export import writer
from auditor.ingest.detect import detect
from auditor.pipeline import audit

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "ongame"


def hands_of(path: Path) -> list[dict]:
    return room_hands(path, "ongame")


def test_cash_hands_read_as_the_room_dealt_them():
    assert detect(FIXTURES / "cash.txt").name == "ongame"
    all_in, limit, omaha = hands_of(FIXTURES / "cash.txt")
    assert (all_in["hand_id"], all_in["currency"], all_in["table_id"]) == ("R5-700000001-12", "USD",
                                                                          "Lugano [700000001]")
    assert all_in["started_at"] == "2014-01-06T01:08:00+01:00"  # `Mon Jan 06 01:08:00 CET 2014`
    # `raises $10.00 to $10.50`: the chips added, then the round total (the one read)
    raises = [(e["seat"], e["amount"], e["to"]) for e in all_in["events"] if e.get("action") == "raise"]
    assert raises == [(2, 300, 300), (9, 1000, 1050), (8, 2300, 2600), (9, 3600, 3600), (8, 19215, 21015)]
    assert [(e["seat"], e["action"]) for e in all_in["events"] if e.get("all_in")] == [(8, "raise"), (9, "call")]
    # no uncalled-bet line: the unmatched $123.24 is returned, the award written after the rake, the rake stated
    assert money(all_in, "return", "award", "rake") == [("return", 8, 12324), ("award", 8, 22682, 0),
                                                        ("rake", None, 300)]
    # the showdown's cards, written only in the seats' lines of the summary, are its shows
    assert [(e["seat"], e["cards"]) for e in all_in["events"] if e["kind"] == "show"] == [
        (8, ["Kc", "Kh"]), (9, ["6s", "8s"])]
    # a limit table's header states its bets; a walk's big blind returned in part
    assert limit["stakes"] == {"blinds": [25, 50], "bet_units": [50, 50, 100, 100], "chip_unit": 1}
    assert money(limit, "return", "award") == [("return", 5, 25), ("award", 5, 50, 0)]
    # `User: NAME` between the table and the button (skipped), `Players in round: 4 (6)`, the hero's cards
    assert (omaha["variant"], omaha["structure"], omaha["currency"]) == ("omaha", "pot-limit", "EUR")
    assert omaha["started_at"] == "2013-04-02T14:15:45+01:00"  # `15:15:45 CEST`, in CET
    assert [e["seat"] for e in omaha["events"] if e["kind"] == "deal" and e["to"] == "hole"
            and "??" not in e["cards"]] == [2, 8, 9]


def test_clean_hands_give_no_finding_and_the_conventions_are_said_once_per_file():
    result = audit([FIXTURES / "cash.txt"], pack="tda-2024")
    assert result.quarantined == [] and result.hands_audited == result.hands_read == 3
    assert result.findings.empty
    assert [(Path(n.file).name, n.code) for n in result.notes] == [("cash.txt", "uncalled-bet-derived")]


@pytest.mark.parametrize(("name", "expected"), [
    ("min_raise.txt", [("R5-700000101-1", "TDA-43A", "min-raise")]),
    # the uncalled bet returned by the convention: an award short of the pot is still chips lost
    ("award_short.txt", [("R5-700000102-1", "TDA-INT-chips", "chip-conservation")]),
    # the rake is read as written, never derived: a rake above the chips left is reported
    ("rake_above_the_pot.txt", [("R5-700000103-1", "TDA-INT-chips", "chip-conservation")]),
    # shows written only in the summary: a contested pot paid with no cards in its winner's line is reported
    ("showdown_without_cards.txt", [("R5-700000104-1", "TDA-13A", "showdown")]),
])
def test_each_illegal_hand_gives_exactly_its_finding(name, expected):
    assert sorted(findings(FIXTURES / "illegal" / name, hands=1)) == expected


def test_a_pot_split_in_one_line_is_refused_not_half_read(tmp_path):
    text = (FIXTURES / "illegal" / "showdown_without_cards.txt").read_text(encoding="utf-8").replace(
        "Main pot: $2.00 won by Bosch ($1.90)", "Main pot: $2.00 won by Bosch ($0.95), Bruegel ($0.95)")
    path = tmp_path / "split.txt"
    path.write_text(text, encoding="utf-8")
    result = audit([path], pack="tda-2024")
    assert [q.code for q in result.quarantined] == ["unsupported-feature"]


def test_the_writer_writes_what_the_reader_reads(tmp_path):
    """A hand written as OnGame text reads back as the same canonical hand (the writer's own `carried` form)."""
    w = writer("ongame")
    hands = hands_of(FIXTURES / "cash.txt")
    path = tmp_path / "written.txt"
    assert w.write_hands(hands, path) == 3
    assert hands_of(path) == [w.carried(h) for h in hands]
