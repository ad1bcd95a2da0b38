"""Rule readings out of the engine: the replay writes neutral facts, the pack decides.

Each test replays a rule example (or a small hand) and checks the neutral facts that let a pack choose its
reading, then that the built-in pack's choice gives the findings the example declares.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pandas as pd
import pytest

from auditor.check.packs import RUN_FACTS, PackError, declared_pack, load_pack
from auditor.ingest.tables import build_tables
from auditor.model.records import SourceHand
from auditor.pipeline import audit
from auditor.replay.house import HouseRules, ReplayRules
from auditor.replay.kernel import replay

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


# -- duplicate hand ids: a run-wide rule property (scope: run), judged by the ledger only ------------------

_RUN_RULE = """
rules:
  - id: HOUSE-id-seat
    title: Hand id used twice, told by the seat count too
    category: record
    severity: warning
    citation: house
    text: Every hand has its own id.
    why: A repeated id hides a hand.
    applies: {variants: [holdem], structures: [pot-limit, no-limit]}
    facts: FACTS
SCOPE    violation: VIOLATION
    message: "MESSAGE"
    examples:
      violating: [{file: twice.jsonl, about: "one hand twice", findings: 1}]
      clean: [{file: once.jsonl, about: "one hand once"}]
"""


def _house_pack(tmp_path: Path, scope: str | None, facts: str = "hands",
                violation: str = "duplicate_hand_id and players > 1",
                message: str = "hand {hand_id} repeats {duplicate_of} with {players} players") -> Path:
    line = (ROOT / "sample_logs" / "holdem.jsonl").read_text(encoding="utf-8").splitlines()[0]
    (tmp_path / "twice.jsonl").write_text(line + "\n" + line + "\n", encoding="utf-8")
    (tmp_path / "once.jsonl").write_text(line + "\n", encoding="utf-8")
    rule = _RUN_RULE.replace("FACTS", facts).replace("SCOPE", f"    scope: {scope}\n" if scope else "")
    text = "pack: house-ids\nversion: 1.0.0\ntitle: House ids\nextends: tda-2024\n" + rule.replace(
        "VIOLATION", violation).replace("MESSAGE", message)
    path = tmp_path / "house.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_rule_reading_a_run_wide_fact_must_say_scope_run(tmp_path):
    with pytest.raises(PackError, match="reads duplicate_hand_id, duplicate_of, which only the whole run knows"):
        load_pack(_house_pack(tmp_path, None))
    with pytest.raises(PackError, match="scope: run rules judge the hands table"):
        load_pack(_house_pack(tmp_path, "run", facts="actions", violation="amount > 0", message="seat {seat}"))
    pack = load_pack(_house_pack(tmp_path, "run"))
    assert {r.id for r in pack.rules if r.scope == "run"} == {"TDA-INT-id", "HOUSE-id-seat"}
    for name in ("tda-2024", "nz-casino-1999", "online-five-card-draw"):
        assert [r.id for r in declared_pack(name).rules if r.scope == "run"] == [r.id for r in declared_pack(
            name).rules if r.reads & RUN_FACTS]


def test_the_replay_leaves_hand_ids_to_the_ledger(tmp_path):
    """The replay has no memory of ids: both hands of one id have null run-wide facts in a batch's facts,
    and the audit (the ledger) finds the repeat, with the first use as evidence, for every scope: run rule."""
    line = (ROOT / "sample_logs" / "holdem.jsonl").read_text(encoding="utf-8").splitlines()[0]
    hand = json.loads(line)
    facts = _hands_facts([hand, hand], HouseRules())
    assert facts["duplicate_hand_id"].isna().all() and facts["duplicate_of"].isna().all()
    (tmp_path / "logs").mkdir()
    log = tmp_path / "logs" / "twice.jsonl"
    log.write_text(line + "\n" + line + "\n", encoding="utf-8")
    result = audit([log], pack=str(_house_pack(tmp_path, "run")), jobs=1)
    found = result.findings.sort_values("rule_id")
    assert list(found["rule_id"]) == ["HOUSE-id-seat", "TDA-INT-id"]
    assert list(found["line"]) == [2, 2]
    assert f"repeats {log}:1 with" in found["message"].iloc[0]
    coverage = result.coverage.set_index("rule_id")
    assert coverage.loc["HOUSE-id-seat", "hands_with_violations"] == 1


# -- the simulator's settings are not the replay's -----------------------------------------------------


def test_the_replay_reads_none_of_the_simulators_settings():
    """max_raises, heads_up_uncapped and odd_chip_method are the pack's (its predicates, its simulator), not
    the replay's: they are not ReplayRules fields, and changing them changes no fact."""
    replay_fields = {f.name for f in dataclasses.fields(ReplayRules)}
    assert not replay_fields & {"max_raises", "heads_up_uncapped", "odd_chip_method"}
    assert isinstance(declared_pack("tda-2024").house, ReplayRules)
    hands = _example_hands(EXAMPLES / "tda-2024/TDA-48/heads-up-fourth-raise.jsonl") + _example_hands(
        EXAMPLES / "tda-2024/TDA-20/odd-chips-not-broken.jsonl") + _example_hands(
        EXAMPLES / "nz-casino-1999/NZ17-5e-odd/three-way-two-odd-chips-wrong.jsonl")
    plain = HouseRules()
    other = HouseRules(max_raises=1, heads_up_uncapped=False, odd_chip_method="position")
    for a, b in zip(_all_facts(hands, plain), _all_facts(hands, other), strict=True):
        pd.testing.assert_frame_equal(a, b)


def _all_facts(hands: list[dict], house: HouseRules) -> list[pd.DataFrame]:
    tables = build_tables([SourceHand(h, "t.jsonl", i + 1) for i, h in enumerate(hands)])
    facts, failures = replay(tables, [house] * len(hands), None)
    assert failures == []
    return [facts[name] for name in sorted(facts.tables)]
