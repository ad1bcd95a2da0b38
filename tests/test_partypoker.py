"""PartyPoker text, read by its dialect (`rooms/partypoker.yaml`, written on 888poker's).

The hands under tests/fixtures/partypoker/ were written for these tests in the room's style, learnt from its real
exports (the shared corpus's other-rooms/partypoker and rooms-2/partypoker, 2010-2021): `Game #N starts.` and
`#Game No : N` between hands, the stakes, game and time with the day's and month's names and the player's zone
(`Sunday, January 05, 19:24:07 EST 2014`), a cash table named by its buy-in (`$4 USD PL Omaha`), a tournament's
blinds in its header (`Blinds-Antes(1.6K/3.2K -400)`), the seats listed by name, amounts with the currency's code
(`[$0.05 USD]`), a raise written as the chips it adds, an all-in as a verb of its own, no showdown marker, no
uncalled-bet line (the unmatched chips paid as a side pot), no rake, no summary. The conventions that read these
are shown not to hide a fault the text can show.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from reader_items import findings, money, room_hands

from auditor.export import writer
from auditor.ingest.detect import detect
from auditor.pipeline import audit

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "partypoker"


def hands_of(path: Path) -> list[dict]:
    return room_hands(path, "partypoker")


def test_cash_hands_read_as_the_room_dealt_them():
    assert detect(FIXTURES / "cash.txt").name == "partypoker"
    all_in, buy_in, limit = hands_of(FIXTURES / "cash.txt")
    assert (all_in["hand_id"], all_in["currency"], all_in["table_id"], all_in["max_seats"]) == \
        ("900000001", "USD", "Aksay", 6)
    assert all_in["started_at"] == "2014-01-05T19:24:07-05:00"  # `Sunday, January 05, 19:24:07 EST 2014`
    # a seat no line names is sitting out (`silent_seats`); the seats come listed by name, read by number
    assert [(s["seat"], s.get("status")) for s in all_in["seats"]] == [
        (1, None), (2, None), (3, "sitting_out"), (4, None), (5, None), (6, None)]
    # `is all-In [X]`: a bet where no one has bet, a call where it adds no more than the bet to call
    shoves = [(e["seat"], e["action"], e["amount"], e["all_in"]) for e in all_in["events"] if e.get("all_in")]
    assert shoves == [(4, "bet", 490, True), (5, "call", 303, True)]
    # the 1.87 no one matched is paid as `side pot 1`: read as returned, out of the awards; the rest is rake
    assert money(all_in, "return", "award", "rake") == [("return", 4, 187), ("award", 4, 2066, 0),
                                                        ("rake", None, 100)]
    # `$4 USD PL Omaha`: a table named by its buy-in of a hundred big blinds; the small blind its post's
    assert (buy_in["variant"], buy_in["structure"], buy_in["stakes"]) == \
        ("omaha", "pot-limit", {"blinds": [2, 4], "chip_unit": 1})
    assert buy_in["started_at"] == "2010-12-03T17:16:02-05:00"  # CET
    # `posts big blind + dead [$0.06]`: the live big blind and the dead small one
    assert [(e["seat"], e["post"], e["amount"]) for e in buy_in["events"] if e["kind"] == "post"] == [
        (2, "blind", 2), (3, "blind", 4), (5, "missed", 4), (5, "dead", 2)]
    # a fixed-limit header states the bets; `is sitting out` before the deal: not dealt in
    assert limit["stakes"] == {"blinds": [2, 5], "bet_units": [5, 5, 10, 10], "chip_unit": 1}
    assert limit["seats"][0] == {"seat": 1, "player": "dam81", "stack": 458, "status": "sitting_out"}


def test_tournament_headers_and_the_uncalled_side_pot():
    powerfest, freeroll = hands_of(FIXTURES / "tournament.txt")
    assert "currency" not in powerfest and powerfest["stakes"] == {"blinds": [1200, 2400], "ante": 400,
                                                                    "chip_unit": 1}  # `1 200/2 400`
    assert powerfest["table_id"] == "Powerfest #193 - Main Event $500,000 Gtd (128730277) Table #83"
    assert powerfest["started_at"] == "2016-09-25T17:30:41-05:00"  # MSK
    # `wins 151,353 chips from the side pot 1`: the big stack's own chips no one matched
    assert money(powerfest, "return", "award") == [("return", 7, 151353), ("award", 7, 109456, 0)]
    assert freeroll["stakes"] == {"blinds": [1600, 3200], "ante": 400, "chip_unit": 1}  # `1.6K/3.2K`


def test_clean_hands_give_no_finding_and_the_conventions_are_said_once_per_file():
    result = audit([FIXTURES / "cash.txt", FIXTURES / "tournament.txt"], pack="tda-2024")
    assert result.quarantined == [] and result.hands_audited == result.hands_read == 5
    assert result.findings.empty
    assert sorted((Path(n.file).name, n.code) for n in result.notes) == [
        ("cash.txt", "rake-derived"), ("cash.txt", "silent-seat-sitting-out"), ("cash.txt", "uncalled-bet-paid-as-pot"),
        ("tournament.txt", "uncalled-bet-paid-as-pot")]


@pytest.mark.parametrize(("name", "expected"), [
    ("min_raise.txt", [("900000101", "TDA-43A", "min-raise")]),
    # the bettor is paid less than the chips no one matched: no return is made up, the bet is reported kept
    ("uncalled_bet_kept.txt", [("900000102", "TDA-15B", "pot-award")]),
    # a cash hand without its blinds is read as written (only a tournament's are known to go unwritten)
    ("cash_blinds_unwritten.txt", [("900000105", "TDA-32", "blind-order"), ("900000105", "TDA-53", "action-order")]),
])
def test_each_illegal_hand_gives_exactly_its_finding(name, expected):
    assert sorted(findings(FIXTURES / "illegal" / name, hands=1)) == expected


@pytest.mark.parametrize(("name", "refusal"), [
    ("all_in_with_chips_behind.txt", ("inconsistent-amounts", "line 12: seat 1 is said to be all-in with 5 behind")),
    # no showdown marker: a hand still contested at its end must have its shows or mucks, else it is cut short
    ("contested_without_shows.txt", ("truncated", "truncated: 2 players reach the showdown, but none shows or mucks")),
    ("tournament_blinds_unwritten.txt",
     ("damaged", "the tournament's blinds are not written: the hand's play cannot be replayed from its text")),
])
def test_what_the_log_cannot_hold_is_refused_with_its_reason(name, refusal):
    result = audit([FIXTURES / "illegal" / name], pack="tda-2024")
    assert [(q.code, q.reason) for q in result.quarantined] == [refusal]


def test_a_table_named_by_its_buy_in_still_states_its_big_blind():
    """The buy-in gives the big blind, whatever the posts say: a big blind posted at another size is read as
    posted, against the stakes the table's name states."""
    (hand,) = hands_of(FIXTURES / "illegal" / "buy_in_table_big_blind_wrong.txt")
    assert hand["stakes"]["blinds"] == [1, 2]
    assert [e["amount"] for e in hand["events"] if e["kind"] == "post"] == [1, 5]


def test_the_writer_writes_what_the_reader_reads(tmp_path):
    """A hand written as PartyPoker text reads back as the same canonical hand (the writer's own `carried` form),
    the uncalled chips paid as a pot of their own."""
    w = writer("partypoker")
    hands = hands_of(FIXTURES / "cash.txt") + hands_of(FIXTURES / "tournament.txt")
    path = tmp_path / "written.txt"
    assert w.write_hands(hands, path) == 5
    assert hands_of(path) == [w.carried(h) for h in hands]
