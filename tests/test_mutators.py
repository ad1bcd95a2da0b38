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

import pandas as pd
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


# -- the replay's facts, which the mutators read instead of walking the betting themselves ---------------------

def _simulated(n: int = 60) -> list[dict]:
    from auditor.simulate.tables import simulate_mixed
    from auditor.simulate.verify import SESSION_HANDS, pack_games

    pack = PACKS["tda-2024"]
    return list(simulate_mixed(pack_games(pack), n, 3, house=pack.house, rule_pack=pack.name, table_size=(2, 10),
                               seat_draws=True, sit_outs=True, table_prefix="M-", session_hands=SESSION_HANDS))


def test_the_betting_mutators_read_is_the_kernel_replays_actions_facts():
    from auditor.ingest.tables import build_tables
    from auditor.model.records import SourceHand
    from auditor.replay.kernel import replay
    from auditor.replay.state import TableState
    from auditor.simulate import mutate

    hands = _simulated(30)
    facts, failures = replay(build_tables([SourceHand(h, "t", k + 1) for k, h in enumerate(hands)]),
                             [PACKS["tda-2024"].house] * len(hands), TableState())
    assert not failures
    actions, by_hand = facts["actions"], facts["hands"].set_index("hand")
    for k, hand in enumerate(hands):
        mine = actions[actions["hand"] == k].sort_values("seq")
        acts = mutate._betting(hand)  # replayed alone: not primed
        assert [a.index for a in acts] == mine["seq"].tolist()
        assert [a.current_bet for a in acts] == mine["current_bet"].tolist()
        assert [a.owed for a in acts] == mine["amount_to_call_in_full"].tolist()
        assert [a.stack_before for a in acts] == mine["stack_before"].tolist()
        assert [a.increment for a in acts] == [None if x is pd.NA else x for x in mine["raise_increment"]]
        aggressor = by_hand.at[k, "final_aggressor"]
        assert mutate._final_aggressor(hand) == (None if aggressor is pd.NA else aggressor)


def test_facts_are_never_those_of_another_state_of_the_hand():
    from auditor.simulate import mutate

    hand = next(h for h in _simulated() if any(e["kind"] == "action" and e["action"] == "call" for e in h["events"]))
    mutate.prime([hand])
    twin = copy.deepcopy(hand)
    assert mutate._betting(twin) == mutate._betting(hand)  # an equal copy is found again
    call = next(e for e in hand["events"] if e["kind"] == "action" and e["action"] == "call")
    at = hand["events"].index(call)
    del hand["events"][at]  # the hand edited in place: same object, same id
    assert len(mutate._betting(hand)) == len(mutate._betting(twin)) - 1
    assert any(a.index == at and a.verb == "call" for a in mutate._betting(twin))


def test_primed_yields_the_stream_unchanged_and_replays_it_in_stretches(monkeypatch):
    from auditor.simulate import mutate

    hands = _simulated(25)
    calls: list[int] = []
    real = mutate.prime
    monkeypatch.setattr(mutate, "prime", lambda stretch: (calls.append(len(stretch)), real(stretch)))
    assert list(mutate.primed(iter(hands), size=10)) == hands
    assert calls == [10, 10, 5]
    monkeypatch.setattr(mutate, "prime", lambda stretch: pytest.fail("a primed hand was replayed again"))
    for hand in hands:
        mutate._betting(copy.deepcopy(hand))


def test_a_hand_the_replay_cannot_take_offers_no_place_for_a_fault():
    from auditor.simulate import mutate

    hand = copy.deepcopy(_simulated(5)[0])
    hand["seats"][0]["stack"] = "many"  # no log could hold this hand: the tables refuse it
    assert mutate._betting(hand) == [] and mutate._final_aggressor(hand) is None
    for name in ("check_facing_bet", "undercall", "table_maximum_below_largest", "reraise_after_short_all_in",
                 "raise_past_cap", "shrink_raise", "over_pot", "off_unit", "spread_over", "button_one_seat_early"):
        assert REGISTRY[name].plant(copy.deepcopy(hand)) is None, name
