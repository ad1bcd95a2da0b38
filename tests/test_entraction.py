"""Entraction text, read by its dialect (`rooms/entraction.yaml`, standing alone: the room writes in columns).

The hands under tests/fixtures/entraction/ were written for these tests in the room's style, learnt from its real
exports (the shared corpus's other-rooms/entraction, HHSmithy's samples of 2012): the header naming the game, the
currency's code, the stakes and the table; `Players(max N):` and the seats, name first, padded with blanks (a name
may hold a blank, `zinzan 71`); the button by name (`Dealer:`), the blinds by name, a heads-up table's big blind
first; `Raise (X)` the chips added; `All-In (X)`; `Payback (X)`; no hole cards; each street's whole board; the shows,
the mucks with their cards; `wins:`, `Rake:` and `Game ended TIME`, the only time written. The file appends its
hands as the room's files do when joined: blank lines between some, none between others, and one hand's header on
the line that closes the hand before it, after a byte-order mark.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from reader_items import findings, money, room_hands

from auditor.export import writer
from auditor.ingest.detect import detect
from auditor.pipeline import audit

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "entraction"


def hands_of(path: Path) -> list[dict]:
    return room_hands(path, "entraction")


def _posts(hand: dict) -> list[tuple]:
    return [(e["seat"], e["post"], e.get("blind"), e["amount"]) for e in hand["events"] if e["kind"] == "post"]


def test_cash_hands_read_as_the_room_dealt_them():
    assert detect(FIXTURES / "cash.txt").name == "entraction"
    ring, heads_up, limit, omaha = hands_of(FIXTURES / "cash.txt")
    # the time is the closing line's, its offset as written; the table's size from `Players(max 6):`
    assert (ring["hand_id"], ring["table_id"], ring["max_seats"], ring["started_at"], ring["currency"]) == \
        ("2646600001", "Burguillos", 6, "2012-05-31T08:56:27+01:00", "EUR")
    assert ring["seats"][0] == {"seat": 1, "player": "zinzan 71", "stack": 5000}  # a name with a blank
    assert ring["events"][0] == {"kind": "button", "seat": 1}  # `Dealer: zinzan 71`
    # `Raise (7.75)` on nothing is to 7.75; `Raise (10.50)` on top of 2.50 is to 13.00
    raises = [(e["seat"], e["amount"], e["to"]) for e in ring["events"] if e.get("action") == "raise"]
    assert raises == [(1, 150, 150), (1, 775, 775), (3, 1050, 1300)]
    boards = [e["cards"] for e in ring["events"] if e["kind"] == "deal" and e["to"] == "board"]
    assert boards == [["Ah", "6c", "Jd"], ["3c"], ["9s"]]  # each street's whole board: its new card
    # no hole cards printed: those shown or mucked with their cards are known, the folded player's are not
    hole = {e["seat"]: e["cards"] for e in ring["events"] if e["kind"] == "deal" and e["to"] == "hole"}
    assert hole == {1: ["Kh", "2c"], 3: ["As", "Qs"], 4: ["??", "??"]}
    assert [e["kind"] for e in ring["events"][-4:]] == ["show", "muck", "award", "rake"]
    assert money(ring, "award", "rake") == [("award", 3, 2900, 0), ("rake", None, 50)]
    # a heads-up table writes the big blind first: read in the order posted, the small blind (the button's) first
    assert heads_up["events"][0] == {"kind": "button", "seat": 2}
    assert _posts(heads_up) == [(2, "blind", 1, 2500), (1, "blind", 2, 5000)]
    all_in = next(e for e in heads_up["events"] if e.get("all_in"))  # `All-In (850.00)`: a raise to 1,000
    assert (all_in["seat"], all_in["action"], all_in["to"]) == (2, "raise", 100000)
    # a fixed-limit table's header states its bets; `Payback (1.00)` the return
    assert limit["stakes"] == {"blinds": [50, 100], "bet_units": [100, 100, 200, 200], "chip_unit": 1}
    assert money(limit, "return") == [("return", 2, 100)]
    assert limit["started_at"] == "2012-05-31T02:03:38+01:00"  # its closing line runs into the next header
    # two players at a six-seat table: the small blind first, as written; no closing line: no time
    assert (omaha["variant"], omaha["structure"], omaha.get("started_at")) == ("omaha", "pot-limit", None)
    assert _posts(omaha) == [(2, "blind", 1, 10), (3, "blind", 2, 20)]


def test_clean_hands_give_no_finding():
    result = audit([FIXTURES / "cash.txt"], pack="tda-2024")
    assert result.quarantined == [] and result.hands_audited == result.hands_read == 4
    assert result.findings.empty


def test_the_big_blind_first_with_three_players_is_read_as_written():
    """`blinds_order` reorders a heads-up hand's two blind lines only: three-handed, the lines are the order."""
    (hand,) = hands_of(FIXTURES / "big_blind_first_three_handed.txt")
    assert _posts(hand) == [(4, "blind", 2, 100), (3, "blind", 1, 50)]


@pytest.mark.parametrize(("name", "expected"), [
    # `Raise (3.00)` adds 3.00 to nothing in: a raise to 3.00 over a 2.00 bet, short of the minimum (read as a
    # total on top of the bet it would be legal)
    ("min_raise.txt", [("2646700001", "TDA-43A", "min-raise")]),
    # heads-up, big blind line first: reordered to the order posted, but the button posting the big blind stays
    ("heads_up_button_in_big_blind.txt", [("2646700003", "TDA-32", "blind-order")]),
    # the room writes every return: a deleted `Payback` is no return implied, the chips are unpaid
    ("payback_deleted.txt", [("2646700004", "TDA-INT-chips", "chip-conservation")]),
    # a street's whole board: its new card is the one after the board so far, here one dealt already
    ("board_card_twice.txt", [("2646700009", "TDA-INT-cards", "deal")]),
])
def test_each_illegal_hand_gives_exactly_its_finding(name, expected):
    assert sorted(findings(FIXTURES / "illegal" / name, hands=1)) == expected


@pytest.mark.parametrize(("name", "code", "reason"), [
    ("omaha_hi_lo.txt", "unsupported-game",
     "unsupported variant: Omaha Hi/Lo Fixed Limit is a hi/lo split-pot game, which the engine does not have"),
    ("board_not_repeated.txt", "damaged", "line 15: the turn line does not repeat the board dealt so far"),
    ("all_in_with_chips_behind.txt", "inconsistent-amounts",
     "line 11: seat 1 is said to be all-in with 2350.00 behind"),
    # no marker deals the hand: the first line of play does, and a blind after it is a post after the deal
    ("action_before_blinds.txt", "damaged", "line 9: a post after the cards are dealt"),
    ("no_play.txt", "truncated", "truncated: no line of play after the blinds (the room marks no deal)"),
])
def test_what_the_log_cannot_hold_is_refused(name, code, reason):
    result = audit([FIXTURES / "illegal" / name], pack="tda-2024")
    assert [(q.code, q.reason) for q in result.quarantined] == [(code, reason)]


def test_the_writer_writes_what_the_reader_reads(tmp_path):
    w = writer("entraction")
    hands = hands_of(FIXTURES / "cash.txt")
    path = tmp_path / "written.txt"
    assert w.write_hands(hands, path) == 4
    text = path.read_text("utf-8")
    # the columns padded as the room pads them; the button after the seats; the time in the closing line
    assert "zinzan 71                   Raise       (1.50)\n" in text
    assert "(EUR 49.75 in seat 4)\nDealer:                     zinzan 71\nSmall Blind:" in text
    assert "Turn                        Ah - 6c - Jd - 3c\n" in text
    assert "Game ended 2012-05-31 08:56:27 GMT+01:00" in text
    assert hands_of(path) == [w.carried(h) for h in hands]


def test_a_heads_up_big_blind_posted_first_has_no_words():
    """The room writes a heads-up hand's big blind first whatever the order posted: a hand posting it first cannot
    be told from one posting it second, and the writer says so rather than write it."""
    w = writer("entraction")
    (hand,) = [h for h in hands_of(FIXTURES / "cash.txt") if h["hand_id"] == "2646600002"]
    events = hand["events"]
    swapped = {**hand, "events": [events[0], events[2], events[1], *events[3:]]}
    assert "big blind posted before the small blind" in w.cannot_express(swapped)
