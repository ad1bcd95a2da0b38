"""Hostile cases for the replay engine (issue #14 items 8 and 9).

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
from auditor.replay.engine import replay_order

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
