"""Mutators against the rule packs.

Each mutator, applied to the clean example hand(s) of the rule it illustrates, makes exactly the
committed violating example; the rule example tests prove each violating example gives exactly its
rule's finding, so this proves the mutators that made them still do what they did.

Every rule of every built-in pack is named by some mutator (the accuracy report can only measure a
rule a mutator plants a violation of), with the rule's own category, and every rule a mutator names
exists: a rule added later without a mutator fails here, by name.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pytest

from auditor.check.packs import builtin_pack_paths, load_pack
from auditor.simulate.mutate import REGISTRY

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from make_rule_examples import PLAN  # noqa: E402

PACKS = {name: load_pack(path) for name, path in builtin_pack_paths().items()}
CASES = [pytest.param(pack, rule, how, id=f"{rule}:{how}") for (pack, rule), (_, _, how) in PLAN.items()
         if how in REGISTRY]
#: mutators no built-in rule is expected to catch, and why (they make sample logs, not measurements)
UNMEASURED = {
    "blind_over": "no rule book here sets the size of the first blind",
    "swap_draw_order": "the draw pack judges how many cards were drawn, not in what order",
}


def _hands(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize(("pack", "rule_id", "how"), CASES)
def test_mutator_reproduces_the_committed_example(pack, rule_id, how):
    rule = PACKS[pack].rule(rule_id)
    clean, violating = _hands(rule.clean[0].path), _hands(rule.violating[0].path)
    mutator = REGISTRY[how]
    mutated = copy.deepcopy(clean[-1])
    planted = mutator.plant(mutated, clean[:-1])
    assert planted is not None
    assert planted.hands == violating
    # the mutator declares the rule's category, and names the rule among those that forbid its fault
    assert mutator.category == rule.category
    assert rule_id in mutator.rules


def test_every_rule_has_a_mutator():
    named = {rule for m in REGISTRY.values() for rule in m.rules}
    missing = [f"{pack.name} {rule.id} ({rule.category})" for pack in PACKS.values() for rule in pack.rules
               if rule.id not in named]
    assert not missing, "rules no mutator plants a violation of: " + ", ".join(missing)
    categories = {rule.category for pack in PACKS.values() for rule in pack.rules}
    assert not categories - {m.category for m in REGISTRY.values()}


def test_mutators_name_real_rules_of_their_category():
    rules = {rule.id: rule for pack in PACKS.values() for rule in pack.rules}
    wrong = [f"{m.name}: {rid}" for m in REGISTRY.values() for rid in sorted(m.rules)
             if rid not in rules or rules[rid].category != m.category]
    assert not wrong, wrong


def test_every_mutator_is_measured_or_says_why_not():
    unmeasured = {name for name, m in REGISTRY.items() if not m.rules}
    assert unmeasured == set(UNMEASURED)


def test_a_mutator_that_needs_the_table_does_not_apply_to_a_hand_alone():
    hands = _hands(PACKS["nz-casino-1999"].rule("NZ17-1b").clean[0].path)
    before = copy.deepcopy(hands[-1])
    assert REGISTRY["drop_hand"].apply(hands[-1]) is False
    assert hands[-1] == before
    planted = REGISTRY["drop_hand"].plant(hands[-1], hands[:-1])
    assert planted is not None and planted.seq is None and planted.category == "button"
    assert [h["hand_id"] for h in planted.hands] == [hands[0]["hand_id"], hands[2]["hand_id"]]
