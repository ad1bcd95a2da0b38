"""Winning Poker Network text (`Game Hand #`), read by its dialect (`rooms/wpn.yaml`, on PokerStars').

The hands under tests/fixtures/wpn/ were written for these tests in the network's style, learnt from its real
exports (the shared corpus's rooms-2/wpn, 2021): antes before `*** HOLE CARDS ***` and blinds after it, a seat
of a player waiting for the button with no chips written, `raises X to Y` with X the chips added, `Main pot X`
lines, a pot no one contested awarded only in the summary, and an uncalled bet returned at the showdown. Each
of the three conventions is shown not to hide a violation: a summary award larger than the pot, a return
larger than the uncalled bet, a contested pot with no award line.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from reader_items import findings, room_hands

from auditor.ingest.detect import detect
from auditor.pipeline import audit

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "wpn"
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "rooms-2" / "wpn"


def hands_of(path: Path) -> list[dict]:
    return room_hands(path, "wpn")


def events(hand: dict) -> list[tuple]:
    return [(e["kind"], e.get("seat"), e.get("action") or e.get("post") or e.get("to"), e.get("amount"))
            for e in hand["events"]]


def test_the_network_s_hands_read_as_dealt():
    assert detect(FIXTURES / "tournament.txt").name == "wpn"
    showdown, uncontested, late = hands_of(FIXTURES / "tournament.txt")
    assert (showdown["hand_id"], showdown["room"], showdown["variant"], showdown["structure"]) == \
        ("900000001", "Winning Poker Network", "holdem", "no-limit")
    assert showdown["started_at"] == "2021-01-22T18:30:07+00:00" and "currency" not in showdown
    # chips written with two decimals: read in hundredths, a chip of 100
    assert showdown["stakes"] == {"blinds": [25000, 50000], "ante": 5000, "chip_unit": 100}
    # the player waiting for the button (no chips written) has no seat in the hand
    assert [s["seat"] for s in showdown["seats"]] == [1, 3, 6, 7]
    # antes, then the blinds written after the hole-cards marker, then the deal
    kinds = events(showdown)
    assert kinds[1:9] == [("post", 1, "ante", 5000), ("post", 3, "ante", 5000), ("post", 6, "ante", 5000),
                          ("post", 7, "ante", 5000), ("post", 7, "blind", 25000), ("post", 1, "blind", 50000),
                          ("deal", 7, "hole", None), ("deal", 1, "hole", None)]
    # `raises X to Y`: Y the round total, X the chips added
    assert [(e["amount"], e["to"]) for e in showdown["events"] if e.get("action") == "raise"] == \
        [(125000, 125000), (250000, 275000)]
    # a pot no one contested: its award is the summary's, after the return
    assert events(uncontested)[-2:] == [("return", 6, None, 100000), ("award", 6, None, 145000)]
    # the return written at the showdown is placed where its round ended, before the flop
    kinds = [k[0] for k in events(late)]
    assert events(late)[kinds.index("return")] == ("return", 2, None, 169000)
    assert kinds[kinds.index("return") - 1] == "action" and kinds[kinds.index("return") + 1] == "deal"


def test_clean_hands_give_no_finding():
    result = audit([FIXTURES / "tournament.txt"], pack="tda-2024")
    assert result.quarantined == [] and result.hands_audited == result.hands_read == 3
    assert result.findings.empty


@pytest.mark.parametrize(("name", "expected"), [
    ("min_raise.txt", [("900000001", "TDA-43A", "min-raise")]),
    # the summary's award is read only for a hand with no award line, and is judged like any award
    ("summary_award_too_much.txt", [("900000002", "TDA-INT-chips", "chip-conservation")]),
    # a return moved to its round is still the amount written
    ("late_return_too_much.txt", [("900000003", "TDA-INT-chips", "chip-conservation")]),
])
def test_each_illegal_hand_gives_exactly_its_finding(name, expected):
    assert findings(FIXTURES / "illegal" / name, hands=1) == expected


def test_a_contested_pot_with_no_award_line_is_not_awarded_from_the_summary():
    """The summary's `showed [..] and won X` of a showdown is no award line: the hand is truncated."""
    result = audit([FIXTURES / "contested_without_award.txt"], pack="tda-2024")
    assert [(q.code, q.hand_id) for q in result.quarantined] == [("truncated", "900000001")]
    assert "no pot was awarded" in result.quarantined[0].reason


def test_the_real_exports_are_read_whole_with_no_finding():
    """The corpus's two 2021 sit-and-go files: every hand read, none refused, no finding under tda-2024."""
    if not CORPUS.is_dir():
        pytest.skip("the shared corpus is not beside the project")
    assert findings(CORPUS, hands=51) == []
