"""Full Tilt Poker text, read by its dialect (`rooms/fulltilt.yaml`, written on PokerStars').

The hands under tests/fixtures/fulltilt/ were written for these tests in the room's style, learnt from its real
exports (the shared corpus's other-rooms/fulltilt, HHSmithy's samples of 2014): one header line naming the table,
the game, the stakes and the time; the seats; the posts (`posts the small blind of $5`, a returning player's `posts
a dead small blind of $10` then `posts $20`); then `The button is in seat #2`, a line of its own; `raises to $25`;
`calls $138, and is all in`; boards with the pot so far; `Uncalled bet of $32 returned to X`; `X wins the pot
($615.50) with ...`; a player sitting out named only in the summary.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from reader_items import findings, money, room_hands

from auditor.export import writer
from auditor.ingest.detect import detect
from auditor.pipeline import audit

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "fulltilt"


def hands_of(path: Path) -> list[dict]:
    return room_hands(path, "fulltilt")


def test_cash_hands_read_as_the_room_dealt_them():
    assert detect(FIXTURES / "cash.txt").name == "fulltilt"
    heads_up, returning, limit = hands_of(FIXTURES / "cash.txt")
    # the header line names the table (a note kept in its name); the button comes after the posts
    assert (heads_up["table_id"], heads_up["started_at"], heads_up["events"][0]) == \
        ("Iowa (heads up)", "2014-01-06T12:40:19-05:00", {"kind": "button", "seat": 2})
    assert money(heads_up, "return", "award", "rake") == [("return", 1, 3200), ("award", 1, 61550, 0),
                                                          ("rake", None, 50)]
    call = next(e for e in heads_up["events"] if e.get("all_in"))  # `calls $138, and is all in`
    assert (call["seat"], call["action"], call["amount"]) == (2, "call", 13800)
    # `(6 max)`: the table's seats; `posts a dead small blind of $10` then `posts $20`: dead money and a live blind
    assert (returning["table_id"], returning["max_seats"]) == ("Myron", 6)
    assert [(e["seat"], e["post"], e["amount"]) for e in returning["events"] if e["kind"] == "post"] == [
        (1, "blind", 1000), (2, "blind", 2000), (3, "dead", 1000), (3, "missed", 2000)]
    # `(New to the Game, 6 max)`; a player the summary alone says is sitting out: not dealt in
    assert (limit["table_id"], limit["max_seats"]) == ("Toss", 6)
    assert limit["stakes"] == {"blinds": [2, 5], "bet_units": [5, 5, 10, 10], "chip_unit": 1}
    assert limit["seats"][1] == {"seat": 2, "player": "Prinzronaldo", "stack": 100, "status": "sitting_out"}


def test_clean_hands_give_no_finding():
    result = audit([FIXTURES / "cash.txt"], pack="tda-2024")
    assert result.quarantined == [] and result.hands_audited == result.hands_read == 3
    assert result.findings.empty
    assert [(Path(n.file).name, n.code) for n in result.notes] == [("cash.txt", "silent-seat-sitting-out")]


@pytest.mark.parametrize(("name", "expected"), [
    ("min_raise.txt", [("33730200001", "TDA-43A", "min-raise")]),
    # Full Tilt writes every return: a deleted `Uncalled bet` line is no return implied, the chips are unpaid
    ("uncalled_line_deleted.txt", [("33730200002", "TDA-INT-chips", "chip-conservation")]),
    # the button line said after the posts is the button the blinds are judged by
    ("button_moved_back.txt", [("33730200004", "TDA-32", "blind-order")]),
])
def test_each_illegal_hand_gives_exactly_its_finding(name, expected):
    assert sorted(findings(FIXTURES / "illegal" / name, hands=1)) == expected


def test_a_hand_without_its_button_line_is_refused():
    result = audit([FIXTURES / "illegal" / "button_line_missing.txt"], pack="tda-2024")
    assert [(q.code, q.reason) for q in result.quarantined] == [
        ("damaged", "the hand names no button seat before the deal")]


def test_the_writer_writes_what_the_reader_reads(tmp_path):
    w = writer("fulltilt")
    hands = hands_of(FIXTURES / "cash.txt")
    path = tmp_path / "written.txt"
    assert w.write_hands(hands, path) == 3
    text = path.read_text("utf-8")
    assert "The button is in seat #2\n*** HOLE CARDS ***" in text and "Table Myron (6 max) - NL Hold'em" in text
    assert hands_of(path) == [w.carried(h) for h in hands]
