"""The same hand written by every text room's writer reads back as the same canonical hand: the same events
(posts, actions, returns, deals, shows, awards, rake, in order) and the same facts, whichever room's text carried
it. A room's own words and conventions change the text, never the hand.

The hands are the rooms' fixtures (real-style hands of PartyPoker, Full Tilt and 888poker, with all-ins, a dead
blind, returns paid in the award and a silent seat); each room writes those its text can express (a room that marks
no player sitting out refuses the hand with one, with its reason) and its reader gives them back.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from reader_items import room_hands

from auditor.export import writer
from auditor.ingest.dialect import dialect
from auditor.pipeline import audit
from auditor.resources import room_names

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SOURCES = [("partypoker", "cash.txt"), ("fulltilt", "cash.txt"), ("888poker", "cash.txt")]


def _events(hand: dict, hole: bool = True) -> tuple[list[tuple], int]:
    """The hand's events as facts, and its rake: where the rake stands among the awards is the order of a room's
    summary, not a fact (a room writing `Rake $0` and one writing no rake take the same nothing). Without `hole`,
    the hole cards dealt are left out (a room that prints none gives back only those shown)."""
    events = hand["events"]
    return ([(e["kind"], e.get("seat"), e.get("action") or e.get("post") or e.get("to"), e.get("amount"),
              e.get("all_in"), tuple(e.get("cards") or ()) if hole or e.get("to") != "hole" else (), e.get("pot"))
             for e in events if e["kind"] != "rake"],
            sum(e["amount"] for e in events if e["kind"] == "rake"))


def _written_back(room: str, hands: list[dict], tmp: Path) -> dict[str, dict]:
    w = writer(room)
    expressible = [h for h in hands if w.cannot_express(h) is None]
    path = tmp / f"{room}.txt"
    assert w.write_hands(expressible, path) == len(expressible)
    return {h["hand_id"]: h for h in room_hands(path, room)}


@pytest.mark.parametrize(("source", "name"), SOURCES)
def test_every_room_gives_the_same_hand_back(source, name, tmp_path):
    hands = room_hands(FIXTURES / source / name, source)
    by_room = {room: _written_back(room, hands, tmp_path) for room in room_names()}
    reference = by_room["pokerstars"]
    assert len(reference) == len(hands)
    compared = 0
    for room, back in by_room.items():
        for hand_id, hand in back.items():
            hole = "dealt" in dialect(room).lines
            assert _events(hand, hole) == _events(reference[hand_id], hole), (room, hand_id)
            assert [(s["seat"], s["stack"], s.get("status")) for s in hand["seats"]] == \
                [(s["seat"], s["stack"], s.get("status")) for s in reference[hand_id]["seats"]], (room, hand_id)
            compared += 1
    assert compared >= 5 * len(hands)  # most rooms express every hand; those that cannot say why


def test_the_same_hands_give_the_same_findings_through_every_room(tmp_path):
    """Each room's text of the same hands, audited: the same findings (here none: the hands are clean), and every
    hand written is audited, none refused."""
    hands = [h for source, name in SOURCES for h in room_hands(FIXTURES / source / name, source)]
    for room in room_names():
        w = writer(room)
        expressible = [h for h in hands if w.cannot_express(h) is None]
        path = tmp_path / f"{room}.txt"
        w.write_hands(expressible, path)
        result = audit([path], pack="tda-2024")
        assert result.quarantined == [] and result.hands_audited == len(expressible), room
        assert result.findings.empty, (room, result.findings[["hand_id", "rule_id"]].values.tolist())
