"""Property: any legal hand the simulator plays, under any built-in pack (and a house pack that posts
a rake schedule), game and structure, at any table size, with players sitting out and coming back,
gives no finding. Hypothesis picks the seeds, table sizes and games; a false finding on legal play
would be an accusation against an honest table, so this is the auditor's precision on clean hands.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.check.packs import builtin_pack_paths, load_pack, resolve_pack
from auditor.pipeline import audit
from auditor.simulate import simulate_hands, write_jsonl

HOUSE_RAKE = Path(__file__).resolve().parents[1] / "rules/examples/tda-2024/TDA-HOUSE-rake/house-pack.yaml"
PACKS = {name: load_pack(path) for name, path in builtin_pack_paths().items()}
PACKS["example-house-rake"] = resolve_pack(str(HOUSE_RAKE))
GAMES = sorted({(name, v) for name, pack in PACKS.items() for rule in pack.rules for v in rule.variants})
STRUCTURES = ["fixed-limit", "spread-limit", "pot-limit", "no-limit"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=st.sampled_from(GAMES), structure=st.sampled_from(STRUCTURES), seed=st.integers(0, 2**31 - 1),
       low=st.integers(2, 6), extra=st.integers(0, 4))
def test_legal_play_is_never_flagged(game, structure, seed, low, extra):
    pack_name, variant = game
    pack = PACKS[pack_name]
    high = min(low + extra, 7 if variant == "five-card-draw" else 9)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "hands.jsonl"
        write_jsonl(simulate_hands(variant, structure, 40, seed, house=pack.house, rule_pack=pack.name,
                                   table_size=(min(low, high), high), seat_draws=True, sit_outs=True,
                                   rake=pack.house.rake, session_hands=(10, 40)), path)
        result = audit([path], pack=str(pack.path))
    assert result.quarantined == []
    assert result.hands_audited == 40
    assert result.findings.empty, result.findings[["hand_id", "rule_id", "message"]].head(3).to_string()
