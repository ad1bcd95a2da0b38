"""Hostile cases for the replay engine.

8. Hands are ordered by the instant they started, not by the text of `started_at`: NZ local times
   written with their offset sort wrongly as text across the daylight-saving change.
9. Unknown cards ("??", or a hand never shown) are never evaluated as if the known cards were all the
   hand had: the rules that read cards are not assessable for that pot.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from auditor.pipeline import audit
from auditor.replay.state import replay_order

ROOT = Path(__file__).resolve().parents[1]
NZ_SAMPLE = ROOT / "sample_logs" / "nz-omaha.jsonl"
TABLE = "NZOMAHA0002"  # 56 hands, as in the issue
#: NZ daylight time ended at 2024-04-07 03:00 NZDT (+13:00) = 2024-04-06 14:00 UTC; clocks went back to 02:00 NZST
DST_END = datetime(2024, 4, 6, 14, 0, tzinfo=UTC)


def _nz_local(moment: datetime) -> str:
    """The instant as an NZ wall clock with its offset (+13:00 before the change, +12:00 after)."""
    offset = timezone(timedelta(hours=13 if moment < DST_END else 12))
    return moment.astimezone(offset).isoformat()


def _table_hands() -> list[dict]:
    hands = [json.loads(line) for line in NZ_SAMPLE.read_text(encoding="utf-8").splitlines()]
    return [h for h in hands if h["table_id"] == TABLE]


def _write(path: Path, hands: list[dict]) -> Path:
    path.write_text("".join(json.dumps(h) + "\n" for h in hands), encoding="utf-8")
    return path


def _findings(path: Path) -> list[tuple[str, str]]:
    result = audit([path])
    assert result.hands_audited > 0, [q.one_line() for q in result.quarantined]
    assert not result.quarantined, [q.one_line() for q in result.quarantined]
    return sorted(zip(result.findings["hand_id"], result.findings["rule_id"], strict=True))


def _across_dst(hands: list[dict]) -> list[tuple[dict, datetime]]:
    """The table's hands moved to start 40 minutes before the change, same gaps between them."""
    first = datetime.fromisoformat(hands[0]["started_at"])
    start = DST_END - timedelta(minutes=40)
    return [(h, start + (datetime.fromisoformat(h["started_at"]) - first)) for h in hands]


def test_local_offsets_across_the_nz_dst_change_give_the_utc_findings(tmp_path):
    moved = _across_dst(_table_hands())
    utc = [dict(h, started_at=t.strftime("%Y-%m-%dT%H:%M:%SZ")) for h, t in moved]
    local = [dict(h, started_at=_nz_local(t)) for h, t in moved]
    # the case is hostile only if the text order is not the order of the instants
    assert sorted(range(len(local)), key=lambda i: local[i]["started_at"]) != list(range(len(local)))
    assert {h["started_at"][-6:] for h in local} == {"+13:00", "+12:00"}
    expected = _findings(_write(tmp_path / "utc.jsonl", utc))
    assert expected == []  # the simulated sample is clean
    assert _findings(_write(tmp_path / "local.jsonl", local)) == expected
    # written out of order in the file (newest first), the instants still put them in play order
    assert _findings(_write(tmp_path / "reversed.jsonl", local[::-1])) == expected


@pytest.mark.parametrize("missing", [[0], [30], "all"])
def test_hands_without_a_time_keep_the_log_order(tmp_path, missing):
    """A table with a hand whose time is missing is walked in file order (here the order of play), never
    with the untimed hand sorted first or last."""
    local = [dict(h, started_at=_nz_local(t)) for h, t in _across_dst(_table_hands())]
    for i, hand in enumerate(local):
        if missing == "all" or i in missing:
            del hand["started_at"]
    assert _findings(_write(tmp_path / "untimed.jsonl", local)) == []


def test_fractional_seconds_and_z_are_instants():
    started = ["2024-01-01T00:00:00.5Z", "2024-01-01T00:00:00.25Z", "2024-01-01T09:00:00.1+09:00",
               "2023-12-31T19:00:00.75-05:00"]
    # 00:00:00.1 UTC < 0.25 < 0.5 < 0.75
    assert replay_order(["f"] * 4, ["t"] * 4, started) == [2, 1, 0, 3]


@pytest.mark.parametrize("started", [
    [None, None, None],
    ["2024-01-01T00:00:03Z", None, "2024-01-01T00:00:01Z"],  # one time missing
    ["2024-01-01T00:00:03Z", "not a time", "2024-01-01T00:00:01Z"],  # one time that does not parse
    ["2024-01-01T00:00:03Z", "2024-01-01T00:00:02", "2024-01-01T00:00:01Z"],  # a wall clock among instants
    ["2024-01-01T00:00:00Z"] * 3,  # a tie
    ["\udcff", "2024-13-45T99:00:00Z", "99999-01-01T00:00:00Z"],
])
def test_a_table_whose_times_cannot_order_it_keeps_the_log_order(started):
    assert replay_order(["f"] * 3, ["t"] * 3, started) == [0, 1, 2]


def test_tables_and_files_are_still_walked_apart():
    files = ["b.jsonl", "a.jsonl", "a.jsonl", "a.jsonl"]
    tables = ["T", "U", "T", "T"]
    started = ["2024-01-01T00:00:00Z", "2024-01-01T00:00:00Z", "2024-01-01T02:00:00+01:00",
               "2024-01-01T00:30:00Z"]
    # (a, T): row 2 (01:00 UTC) after row 3 (00:30 UTC); then (a, U); then (b, T)
    assert replay_order(files, tables, started) == [3, 2, 1, 0]
    # another table's missing time does not stop this one being ordered by its instants
    assert replay_order(files, tables, [None, None, started[2], started[3]]) == [3, 2, 1, 0]


# -- 9. no evidence from unknown cards ----------------------------------------------------------------

EXAMPLES = ROOT / "rules" / "examples"


def _example(relative: str) -> dict:
    return json.loads((EXAMPLES / relative).read_text(encoding="utf-8").splitlines()[0])


def _hide(hand: dict, seats: set[int] | None = None, keep: int = 0, drop_shows: bool = True,
          board: int | None = None) -> dict:
    """The hand with the hole cards of `seats` (all if None) dealt face down but their first `keep` cards,
    their show events dropped (never shown), and optionally board card `board` hidden."""
    hand = json.loads(json.dumps(hand))
    events = []
    for e in hand["events"]:
        mine = seats is None or e.get("seat") in seats
        if e["kind"] == "deal" and e.get("to") == "hole" and mine:
            e["cards"] = e["cards"][:keep] + ["??"] * (len(e["cards"]) - keep)
        elif e["kind"] == "draw" and mine:
            e["discard"], e["receive"] = ["??"] * len(e["discard"]), ["??"] * len(e["receive"])
        elif e["kind"] == "show" and mine and drop_shows:
            continue
        events.append(e)
    if board is not None:
        deals = [e for e in events if e["kind"] == "deal" and e.get("to") == "board"]
        flat = [(e, i) for e in deals for i in range(len(e["cards"]))]
        e, i = flat[board]
        e["cards"][i] = "??"
    hand["events"] = events
    return hand


def _run(tmp_path: Path, hand: dict, rule: str):
    path = _write(tmp_path / "hand.jsonl", [hand])
    result = audit([path])
    assert result.hands_audited == 1, [q.one_line() for q in result.quarantined]
    cov = result.coverage.set_index("rule_id").loc[rule]
    return result.findings, cov


def _not_assessable(tmp_path: Path, hand: dict, rule: str) -> None:
    findings, cov = _run(tmp_path, hand, rule)
    assert rule not in set(findings["rule_id"]), findings[["rule_id", "message"]].to_string()
    assert (cov["hands_in_scope"], cov["hands_checked"], cov["hands_not_assessable"]) == (1, 0, 1)


def test_the_issue_case_two_unknown_hands_never_shown_is_not_assessable(tmp_path):
    """Both hands '??' and never shown: the board alone (high card, jack) is no evidence of a winner."""
    hand = _hide(_example("tda-2024/TDA-12/violating.jsonl"))
    _not_assessable(tmp_path, hand, "TDA-12")
    findings, _ = _run(tmp_path, hand, "TDA-12")
    assert not findings["message"].str.contains("high card").any()
    # paid without showing is what the log does say (a rule that reads no card)
    assert set(findings["rule_id"]) == {"TDA-13A"}


@pytest.mark.parametrize(("example", "rule", "hidden"), [
    # one hold'em hand with one card hidden: never rated on the other card and the board
    ("tda-2024/TDA-12/violating.jsonl", "TDA-12", dict(seats={5}, keep=1)),
    ("tda-2024/TDA-12/clean.jsonl", "TDA-12", dict(seats={6}, keep=1)),
    # a hidden board card leaves every hand unknown
    ("tda-2024/TDA-12/violating.jsonl", "TDA-12", dict(seats=set(), board=4)),
    # Omaha (exactly 2 + 3): two of four hole cards known are not the hand
    ("nz-casino-1999/NZ17-5d/violating.jsonl", "NZ17-5d", dict(seats={1}, keep=2)),
    ("nz-casino-1999/NZ17-5f/violating.jsonl", "NZ17-5f", dict(seats={4}, keep=2)),
    ("nz-casino-1999/NZ17-5e-odd/odd-chip-by-position.jsonl", "NZ17-5e-odd", dict(seats={3}, keep=2)),
    # five-card draw: cards dealt and drawn face down and never shown
    ("online-five-card-draw/ONL5CD-winner/violating.jsonl", "ONL5CD-winner", dict(seats={1})),
])
def test_a_pot_with_an_unknown_card_is_not_assessable(tmp_path, example, rule, hidden):
    _not_assessable(tmp_path, _hide(_example(example), **hidden), rule)  # the others still show


def test_shown_cards_replace_cards_dealt_face_down(tmp_path):
    """Dealt '??' but shown at showdown: the shown cards are the evidence, and the rule judges."""
    hand = _hide(_example("tda-2024/TDA-12/violating.jsonl"), drop_shows=False)
    findings, cov = _run(tmp_path, hand, "TDA-12")
    assert list(findings["rule_id"]) == ["TDA-12"]
    assert cov["hands_checked"] == 1


def test_a_discard_the_log_does_not_name_leaves_the_known_hand_unknown(tmp_path):
    """Dealt five known cards, then a draw of unnamed discards: the first five are no longer the hand."""
    hand = json.loads(json.dumps(_example("online-five-card-draw/ONL5CD-winner/violating.jsonl")))
    for e in hand["events"]:
        if e["kind"] == "draw" and e["seat"] == 1:
            e["discard"] = ["??"] * len(e["discard"])
    hand["events"] = [e for e in hand["events"] if not (e["kind"] == "show" and e["seat"] == 1)]
    _not_assessable(tmp_path, hand, "ONL5CD-winner")


def test_odd_chip_by_suit_needs_the_winners_cards(tmp_path):
    """A split pot whose odd chip goes by the highest hole card used: not assessable with a winner's
    hand partly hidden, judged again once it is shown."""
    example = _example("nz-casino-1999/NZ17-5e-odd/odd-chip-by-position.jsonl")
    _not_assessable(tmp_path, _hide(example, seats={5}, keep=3), "NZ17-5e-odd")
    findings, _ = _run(tmp_path, _hide(example, seats={5}, keep=3, drop_shows=False), "NZ17-5e-odd")
    assert list(findings["rule_id"]) == ["NZ17-5e-odd"]


@pytest.mark.parametrize("hidden", ["Kh", "9s"])
def test_a_seating_draw_with_an_unknown_card_is_not_assessable(tmp_path, hidden):
    """Seat to the highest card drawn (NZ17-1a): with one drawn card unknown, nobody can be named highest,
    whichever card it is (the known card must not win by default)."""
    hand = json.loads(json.dumps(_example("nz-casino-1999/NZ17-1a/seat-to-lower-card.jsonl")))
    for e in hand["events"]:
        if e["kind"] == "seat_draw":
            for d in e["draws"]:
                d["card"] = "??" if d["card"] == hidden else d["card"]
    _not_assessable(tmp_path, hand, "NZ17-1a")
