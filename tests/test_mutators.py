"""Each mutator, applied to the clean example hand of the rule it illustrates, makes exactly the
committed violating example; and every registered mutator is used by some rule's examples.

The rule example tests prove each violating example gives exactly its rule's finding; this proves the
mutators that made them still do what they did, so the examples can be regenerated with confidence.
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

CASES = [pytest.param(pack, rule, how, id=f"{rule}:{how}") for (pack, rule), (_, _, how) in PLAN.items()
         if how in REGISTRY]


def _hands(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize(("pack", "rule_id", "how"), CASES)
def test_mutator_reproduces_the_committed_example(pack, rule_id, how):
    rule = load_pack(builtin_pack_paths()[pack]).rule(rule_id)
    clean, violating = _hands(rule.clean[0].path), _hands(rule.violating[0].path)
    assert len(clean) == len(violating) == 1
    mutated = copy.deepcopy(clean[0])
    assert REGISTRY[how].apply(mutated)
    assert mutated == violating[0]
    # the mutator's declared category is the rule's
    assert REGISTRY[how].category == rule.category


def test_every_mutator_is_used():
    used = {how for (_, _, how) in PLAN.values()}
    planted = {"swap_seat_draw", "swap_blind_order", "button_one_seat_early", "shrink_raise", "unequal_split"}
    unused = set(REGISTRY) - used - planted
    # blind_over, table_minimum_above_blind and swap_draw_order are available for other packs' rules
    assert unused <= {"blind_over", "table_minimum_above_blind", "swap_draw_order"}, unused
