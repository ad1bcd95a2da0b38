"""Rule readings out of the engine (issue 16): the replay writes neutral facts, the pack decides.

Each test replays a rule example (or a small hand) and checks the neutral facts that let a pack choose its
reading, then that the built-in pack's choice gives the findings the example declares.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from auditor.check.packs import declared_pack
from auditor.ingest.records import SourceHand
from auditor.ingest.tables import build_tables
from auditor.replay.engine import replay
from auditor.replay.house import HouseRules

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


BUTTON = EXAMPLES / "online-five-card-draw/ONL5CD-button"


def _hands_facts(hands: list[dict], house: HouseRules):
    tables = build_tables([SourceHand(h, "t.jsonl", i + 1) for i, h in enumerate(hands)])
    facts, failures = replay(tables, [house] * len(hands), None)
    assert failures == []
    return facts["hands"]


def _example_hands(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_the_previous_small_blind_is_written_whatever_the_pack_and_the_heir_only_by_its_button_heir():
    """Seed 004's button: the engine writes who posted the previous small blind and how; which blind gives
    the button is the pack's `button_heir` (no heir named: button_by_blinds is null, not assessable)."""
    hands = _example_hands(BUTTON / "violating.jsonl")
    seed = _hands_facts(hands, declared_pack("online-five-card-draw").house)
    none = _hands_facts(hands, HouseRules())
    big = _hands_facts(hands, HouseRules(button_heir=("big-blind",)))
    for facts in (seed, none, big):
        assert facts.loc[1, "previous_small_blind_player"] == "T0002-p2"
        assert not facts.loc[1, "previous_small_blind_missed"]
        assert not facts.loc[1, "previous_small_blind_on_button"]
        assert facts.loc[0, ["previous_small_blind_player", "previous_small_blind_missed"]].isna().all()
    assert seed.loc[1, "button_by_blinds"] == 2
    assert pd.isna(none.loc[1, "button_by_blinds"])
    assert big.loc[1, "button_by_blinds"] == 3  # the previous big blind's seat


def test_a_missed_small_blind_passes_the_button_to_the_big_blind_under_seed_004():
    hands = _example_hands(BUTTON / "violating.jsonl")
    first = hands[0]
    small = next(e for e in first["events"] if e.get("kind") == "post" and e.get("blind") == 1)
    first["events"].remove(small)
    facts = _hands_facts(hands, declared_pack("online-five-card-draw").house)
    assert bool(facts.loc[1, "previous_small_blind_missed"]) is True
    assert pd.isna(facts.loc[1, "previous_small_blind_player"])
    assert facts.loc[1, "button_by_blinds"] == 3  # "catches a break"
    only_small = _hands_facts(hands, HouseRules(button_heir=("small-blind",)))
    assert pd.isna(only_small.loc[1, "button_by_blinds"])


def test_button_heir_names_only_blinds():
    with pytest.raises(ValueError, match="button_heir"):
        HouseRules(button_heir=("button",))
