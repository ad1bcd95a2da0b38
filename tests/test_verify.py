"""The accuracy report (`auditor verify`): 100 % precision and recall for every category of every
built-in pack, every rule shown catching a planted violation, and the report's own accounting
(misses, false findings, categories not measured, exit status) checked against mutators that are
wrong on purpose.

The full measurement (`auditor verify --hands 100000`) is in the README; the suite runs the same
code at 1,500 hands per pack, which still plants every kind of fault (about 16 s on one core).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from auditor.check.packs import builtin_pack_paths, load_pack, resolve_pack
from auditor.cli import main
from auditor.simulate.mutate import REGISTRY, WHOLE_HAND, Mutator
from auditor.simulate.verify import (
    TABLE_COLUMNS,
    VerifyResult,
    applicable_mutators,
    format_report,
    idle_rules,
    verify,
    verify_pack,
)

HANDS = 1500
SEED = 0
PACKS = {name: load_pack(path) for name, path in builtin_pack_paths().items()}


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    return verify(HANDS, SEED, repro_dir=tmp_path_factory.mktemp("repro"))


def test_every_category_of_every_pack_is_at_100_percent(result):
    assert [p.pack for p in result.packs] == list(PACKS)
    problems = "\n".join(q.one_line() for q in result.problems[:20])
    assert not result.problems, problems
    table = result.table
    assert list(table.columns) == TABLE_COLUMNS
    for p in result.packs:
        categories = {r.category for r in PACKS[p.pack].rules if r.id not in p.idle}
        assert set(p.table["category"]) == categories, p.pack
        assert p.clean_hands == HANDS
        assert not p.unmeasured
    assert (table["expected"] > 0).all()
    assert (table["found"] == table["expected"]).all()
    assert (table["missed"] == 0).all() and (table["false"] == 0).all()
    assert (table["precision"] == 1.0).all() and (table["recall"] == 1.0).all()
    assert result.ok


def test_every_rule_catches_a_planted_violation(result):
    """Not only every category: each rule itself reported a planted fault at least once (a rule added
    without a mutator, or one no mutation reaches, is named here)."""
    silent = [f"{p.pack} {rule.id} ({rule.category})" for p in result.packs for rule in PACKS[p.pack].rules
              if rule.id not in p.rules_caught and rule.id not in p.idle]
    assert not silent, "rules never shown catching a planted violation: " + ", ".join(silent)


def test_only_unset_house_settings_leave_a_rule_unmeasured(result):
    """A built-in rule may be idle only because the pack as shipped cannot report it: the TDA's
    rake rule waits for a house pack that posts a rake schedule."""
    idle = {(p.pack, rule) for p in result.packs for rule in p.idle}
    assert idle == {("tda-2024", "TDA-HOUSE-rake")}
    assert "rake schedule" in result.packs[2].idle["TDA-HOUSE-rake"]


def test_mutators_are_matched_to_the_games_their_rules_cover():
    tda, draw = PACKS["tda-2024"], PACKS["online-five-card-draw"]
    names = {m.name for m in applicable_mutators(tda, "holdem", "no-limit")}
    assert {"shrink_raise", "reraise_after_short_all_in", "heads_up_big_blind_twice"} <= names
    assert "over_pot" not in names and "raise_past_cap" not in names  # pot limit, limit games only
    assert "rake_over_schedule" not in names  # no posted schedule
    assert "over_pot" in {m.name for m in applicable_mutators(tda, "omaha", "pot-limit")}
    draw_names = {m.name for m in applicable_mutators(draw, "five-card-draw", "fixed-limit")}
    assert {"skip_dead_blind", "new_player_without_posting", "off_unit", "raise_past_cap"} <= draw_names
    assert "act_after_fold" not in draw_names  # the draw room's rules do not judge it
    assert idle_rules(tda) == {"TDA-HOUSE-rake": REGISTRY["rake_over_schedule"].idle_reason}


def test_a_house_pack_with_a_rake_schedule_measures_rake(tmp_path):
    """The example house pack posts a schedule: the simulator rakes by it, every rake is legal, and
    a rake over it is found."""
    house = resolve_pack(str(Path(__file__).resolve().parents[1] / "rules/examples/tda-2024/TDA-HOUSE-rake/"
                             "house-pack.yaml"))
    report = verify_pack(house, 600, 3)
    assert not report.idle
    rake = report.table.set_index("category").loc["rake"]
    assert rake["expected"] > 0 and rake["found"] == rake["expected"] and rake["false"] == 0


def _broken(name: str, category: str, rules: tuple[str, ...], fn) -> dict[str, Mutator]:
    return {name: Mutator(name, category, "deliberately wrong, for the test", frozenset(rules), fn)}


def test_a_mutator_that_plants_nothing_is_a_miss_with_a_reproducer(tmp_path):
    report = verify_pack("tda-2024", 60, 1, repro_dir=tmp_path,
                         registry=_broken("plants_nothing", "chip-conservation", ("TDA-INT-chips",),
                                          lambda hand: WHOLE_HAND))
    row = report.table.set_index("category").loc["chip-conservation"]
    assert row["expected"] == 60 and row["found"] == 0 and row["missed"] == 60
    assert row["recall"] == 0.0 and math.isnan(row["precision"])
    assert not report.ok
    missed = [q for q in report.problems if q.kind == "missed"]
    assert len(missed) == 60 and missed[0].mutator == "plants_nothing"
    assert missed[0].reproducer is not None and missed[0].reproducer.parent == tmp_path / "tda-2024"
    hands = [json.loads(line) for line in missed[0].reproducer.read_text().splitlines()]
    assert hands[-1]["hand_id"] == missed[0].hand_id
    # every other category of the pack had nothing planted: not measured, which also fails
    assert len(report.unmeasured) > 0
    lines = list(format_report(VerifyResult([report])))
    assert any("not measured" in line for line in lines)


def test_a_second_violation_is_a_false_finding_of_its_own_category():
    def two_faults(hand):
        calls = [e for e in hand["events"] if e["kind"] == "action" and e["action"] == "call"]
        awards = [e for e in hand["events"] if e["kind"] == "award"]
        if not calls or len(awards) != 1 or awards[0]["amount"] <= hand["stakes"]["chip_unit"]:
            return None
        calls[0]["to"] += hand["stakes"]["chip_unit"]  # a wrong round total (record) ...
        awards[0]["amount"] -= hand["stakes"]["chip_unit"]  # ... and a chip that leaks (chip-conservation)
        return calls[0]

    report = verify_pack("tda-2024", 80, 2, registry=_broken("two_faults", "record", ("TDA-INT-total",), two_faults))
    table = report.table.set_index("category")
    assert table.loc["record", "found"] == table.loc["record", "expected"] > 0
    assert table.loc["record", "precision"] == 1.0
    chips = table.loc["chip-conservation"]
    assert chips["false_extra"] == table.loc["record", "expected"] and chips["precision"] == 0.0
    assert {q.kind for q in report.problems} == {"extra on mutated hand"}


def test_a_mutator_that_edits_a_hand_it_declines_stops_the_run():
    def sloppy(hand):
        hand["events"][0]["sloppy"] = True
        return None

    with pytest.raises(AssertionError, match="changed hand"):
        verify_pack("tda-2024", 5, 1, registry=_broken("sloppy", "record", ("TDA-INT-total",), sloppy))


def test_cli_prints_the_table_and_fails_when_categories_are_not_measured():
    runner = CliRunner()
    out = runner.invoke(main, ["verify", "--hands", "30", "--seed", "4", "--pack", "online-five-card-draw"])
    assert out.exit_code == 1, out.output
    assert "online-five-card-draw" in out.output and "precision" in out.output and "recall" in out.output
    assert "not measured" in out.output
    assert out.output.rstrip().endswith("some categories below 100 % or not measured")
    bad = runner.invoke(main, ["verify", "--pack", "no-such-pack"])
    assert bad.exit_code == 2
