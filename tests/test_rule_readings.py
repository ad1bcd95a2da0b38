"""Rule readings out of the engine (issue 16): the replay writes neutral facts, the pack decides.

Each test replays a rule example (or a small hand) and checks the neutral facts that let a pack choose its
reading, then that the built-in pack's choice gives the findings the example declares.
"""

from __future__ import annotations

import json
from pathlib import Path

from auditor.check.packs import declared_pack
from auditor.ingest.records import SourceHand
from auditor.ingest.tables import build_tables
from auditor.replay.engine import replay

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "rules/examples"


def _facts_of(path: Path, pack: str):
    hands = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    tables = build_tables([SourceHand(h, path.name, i + 1) for i, h in enumerate(hands)])
    facts, failures = replay(tables, [declared_pack(pack).house] * len(hands), None)
    assert failures == []
    return facts


def _raises(path: Path):
    actions = _facts_of(path, "tda-2024")["actions"]
    return actions[actions["is_raise"].fillna(False) & ~actions["actor_all_in"].fillna(False)]


def test_cumulative_short_all_ins_reopen_only_under_the_cumulative_reading():
    """TDA 47-A's "cumulative multiple short all-ins": the re-raise after two short all-ins that add up to a
    full raise is open by the cumulative reading and closed by the full-raise-only one."""
    last = _raises(EXAMPLES / "tda-2024/TDA-47A/reraise-after-cumulative-short-all-ins.jsonl").iloc[-1]
    assert bool(last["open_after_cumulative_raise"]) is True
    assert bool(last["open_after_full_raise"]) is False


def test_a_single_short_all_in_reopens_under_neither_reading():
    last = _raises(EXAMPLES / "tda-2024/TDA-47A/reraise-after-short-all-in.jsonl").iloc[-1]
    assert bool(last["open_after_cumulative_raise"]) is False
    assert bool(last["open_after_full_raise"]) is False


def test_limit_half_bet_all_in_is_a_full_raise_for_both_readings():
    last = _raises(EXAMPLES / "tda-2024/TDA-47B/reraise-after-half-bet-all-in.jsonl").iloc[-1]
    assert bool(last["open_after_full_raise"]) is True
    assert bool(last["open_after_cumulative_raise"]) is True
