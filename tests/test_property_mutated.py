"""Property: in any legal hand the simulator plays, under any built-in pack, game, structure and
table size, every mutator the pack must catch either declines the hand (leaving it untouched) or
plants a violation the audit reports exactly: one finding, of the mutator's category, on the mutated
hand, at the event the mutator names, and nothing else on the hand or the earlier hands it needs.

Hypothesis picks the seeds, games and table sizes; the accuracy report (tests/test_verify.py) runs
the same matching over thousands of hands, this explores the corners it may not reach.
"""

from __future__ import annotations

import pickle

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.check.packs import builtin_pack_paths, load_pack
from auditor.simulate import simulate_hands
from auditor.simulate.mutate import prime
from auditor.simulate.verify import applicable_mutators, audit_planted

PACKS = {name: load_pack(path) for name, path in builtin_pack_paths().items()}
GAMES = sorted({(name, v) for name, pack in PACKS.items() for rule in pack.rules for v in rule.variants})
STRUCTURES = ["fixed-limit", "spread-limit", "pot-limit", "no-limit"]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=st.sampled_from(GAMES), structure=st.sampled_from(STRUCTURES), seed=st.integers(0, 2**31 - 1),
       low=st.integers(2, 6), extra=st.integers(0, 4))
def test_each_mutation_gives_exactly_its_expected_finding(game, structure, seed, low, extra):
    pack_name, variant = game
    pack = PACKS[pack_name]
    high = min(low + extra, 7 if variant == "five-card-draw" else 9)
    hands = list(simulate_hands(variant, structure, 60, seed, house=pack.house, rule_pack=pack.name,
                                table_size=(min(low, high), high), seat_draws=True, sit_outs=True,
                                session_hands=(15, 60)))
    prime(hands)  # their facts for the mutators from one replay, not one replay a hand (as verify does)
    planted = []
    for mutator in applicable_mutators(pack, variant, structure):
        history: list[dict] = []
        for hand in hands:
            if history and history[-1]["table_id"] != hand["table_id"]:
                history = []
            work = pickle.loads(pickle.dumps(hand))
            result = mutator.plant(work, history)
            if result is None:
                assert work == hand, f"{mutator.name} declined {hand['hand_id']} but changed it"
                history.append(hand)
                continue
            assert result.category == mutator.category and result.hands[-1] is work
            # the earlier hands it needs are the table's own, unedited and in order
            positions = [next(k for k, h in enumerate(history) if h is a) for a in result.hands[:-1]]
            assert positions == sorted(positions)
            planted.append(result)
            break
    for outcome in audit_planted(pack, planted):
        p = outcome.unit.planted
        where = f"{p.mutator} on {outcome.unit.hands[-1]['hand_id']} (seed {seed})"
        assert outcome.failure is None, f"{where}: {outcome.failure}"
        assert outcome.found is not None, f"{where}: no {p.category} finding at event {p.seq}"
        assert outcome.found["rule_id"] in {r.id for r in pack.rules}
        assert not outcome.extra, f"{where}: also " + "; ".join(f"{r['rule_id']}: {r['message']}"
                                                                 for r in outcome.extra)
