"""GGPoker text, read by its dialect (`rooms/ggpoker.yaml`, written on PokerStars' with what differs).

The hands under tests/fixtures/ggpoker/ were written for these tests in the room's style, learnt from its real
exports (the shared corpus's rooms-2/ggpoker): every other player's deal written without cards, `*** SHOWDOWN
***` in every hand, the total line's takes besides the rake, hand ids with a letter prefix, times with no zone,
tournament chips with thousands separators. Clean hands give no finding; a hand with one illegal thing gives
exactly its finding; a cash-out is refused as a feature the log cannot hold.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from reader_items import finding_rows, findings, room_hands

from auditor.ingest.detect import detect
from auditor.pipeline import audit

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "ggpoker"
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "rooms-2" / "ggpoker"


def hands_of(path: Path) -> list[dict]:
    return room_hands(path, "ggpoker")


def test_files_are_detected_as_ggpoker():
    assert detect(FIXTURES / "cash.txt").name == "ggpoker"
    assert detect(FIXTURES / "tournament.txt").name == "ggpoker"


def test_cash_hands_read_as_the_room_dealt_them():
    first, omaha = hands_of(FIXTURES / "cash.txt")
    assert (first["hand_id"], first["room"], first["variant"], first["structure"]) == \
        ("RC1000000001", "GGPoker", "holdem", "no-limit")
    assert first["started_at"] == "2025-08-10T20:12:22+00:00"  # no zone written: read as UTC
    assert (first["currency"], first["money_scale"], first["stakes"]["blinds"]) == ("USD", 100, [1, 2])
    assert [s["stack"] for s in first["seats"]] == [200, 200, 200, 150]  # `$2` and `$1.5` as well as `$2.00`
    # every seat is dealt; the other players' cards, written as no cards at all, are face down
    holes = {e["seat"]: e["cards"] for e in first["events"] if e["kind"] == "deal" and e["to"] == "hole"}
    assert holes == {1: ["??", "??"], 2: ["??", "??"], 3: ["Ah", "Kh"], 4: ["??", "??"]}
    # the rake and the jackpot are each chips the house took: the hand balances
    assert [e["amount"] for e in first["events"] if e["kind"] == "rake"] == [2, 1]
    assert [(e["seat"], e["amount"]) for e in first["events"] if e["kind"] == "return"] == [(3, 50)]
    assert (omaha["variant"], omaha["structure"]) == ("omaha", "pot-limit")
    # the cards shown at the showdown are the player's hole cards
    holes = {e["seat"]: e["cards"] for e in omaha["events"] if e["kind"] == "deal" and e["to"] == "hole"}
    assert holes[1] == ["Ad", "Th", "6c", "Qc"] and holes[2] == ["??"] * 4


def test_tournament_hand_reads_chips_antes_and_the_level():
    (hand,) = hands_of(FIXTURES / "tournament.txt")
    assert hand["hand_id"] == "TM2000000001" and "currency" not in hand
    assert hand["stakes"] == {"blinds": [200, 400], "ante": 50, "chip_unit": 1}
    assert hand["max_seats"] == 8 and [s["stack"] for s in hand["seats"]] == [13785, 18274, 7311, 5822]
    raises = [(e["amount"], e["to"]) for e in hand["events"] if e.get("action") == "raise"]
    assert raises == [(800, 800), (4972, 4972)]  # the chips each raise put in, and its round total


def test_clean_hands_give_no_finding():
    result = audit([FIXTURES / "cash.txt", FIXTURES / "tournament.txt"], pack="tda-2024")
    assert result.quarantined == [] and result.hands_audited == result.hands_read == 3
    assert result.findings.empty


def test_each_illegal_hand_gives_exactly_its_finding():
    """A raise below the minimum is recorded as it happened and judged; a deleted `Uncalled bet` line is chips
    missing (GGPoker writes every return: none is implied), never explained away."""
    want = {"min_raise.txt": [("RC1000000001", "TDA-43A", "min-raise")],
            "uncalled_line_deleted.txt": [("RC1000000001", "TDA-INT-chips", "chip-conservation")]}
    for name, expected in want.items():
        result = audit([FIXTURES / "illegal" / name], pack="tda-2024")
        assert result.quarantined == [] and result.hands_audited == 1, name
        assert finding_rows(result) == expected, name
        assert not result.notes, name  # no convention applied


def test_a_cash_out_is_refused_as_a_feature_the_log_cannot_hold():
    result = audit([FIXTURES / "cashout.txt"], pack="tda-2024")
    assert [(q.line, q.code, q.hand_id) for q in result.quarantined] == [(1, "unsupported-feature", "RC1000000002")]
    assert "cashed out" in result.quarantined[0].reason and "line 25" in result.quarantined[0].reason


def test_chips_the_room_drops_into_the_pot_are_refused_as_a_feature_the_log_cannot_hold():
    """`Cash Drop to Pot : total $0.50` (a promotion): chips no player put in, for which the log has no event."""
    result = audit([FIXTURES / "cash_drop.txt"], pack="tda-2024")
    assert [(q.line, q.code, q.hand_id) for q in result.quarantined] == [(1, "unsupported-feature", "RC1000000001")]
    assert result.quarantined[0].reason == \
        "line 14: 'Cash Drop to Pot : total $0.50', which the canonical log cannot hold"


def test_the_real_exports_are_read_whole_with_no_finding():
    """The corpus's GGPoker Rush & Cash files (2025): every hand read, none refused, no finding under tda-2024."""
    if not CORPUS.is_dir():
        pytest.skip("the shared corpus is not beside the project")
    assert findings(CORPUS, hands=91) == []
