"""Legal play gives no finding: every built-in pack, every game and structure it covers.

The simulator plays by each pack's house rules; the auditor, replaying the same hands, must agree
that nothing was broken. A false finding here would be an accusation against an honest table.
"""

from __future__ import annotations

import itertools

import pytest

from auditor.check.packs import builtin_pack_paths, load_pack
from auditor.pipeline import audit
from auditor.simulate import simulate_hands, write_jsonl

STRUCTURES = ("fixed-limit", "spread-limit", "pot-limit", "no-limit")
CASES = []
for name, path in builtin_pack_paths().items():
    pack = load_pack(path)
    variants = sorted({v for rule in pack.rules for v in rule.variants})
    for variant, structure in itertools.product(variants, STRUCTURES):
        CASES.append(pytest.param(pack, variant, structure, id=f"{name}:{variant}:{structure}"))


@pytest.mark.parametrize(("pack", "variant", "structure"), CASES)
def test_simulated_legal_play_is_clean(tmp_path, pack, variant, structure):
    path = tmp_path / "hands.jsonl"
    write_jsonl(simulate_hands(variant, structure, 250, seed=7, house=pack.house, rule_pack=pack.name,
                               seat_draws=True), path)
    result = audit([path])
    assert result.quarantined == []
    assert result.hands_audited == 250
    assert len(result.findings) == 0, result.findings[["hand_id", "rule_id", "message"]].head(5).to_string()
    # Rules that need data the simulator does not write (a table minimum, the previous hand of the
    # table for its first hand) or a parameter the built-in packs leave unset (a rake schedule) may
    # find hands not assessable; every other rule in scope decides some.
    optional = {r.id for r in pack.rules if {"table_min", "table_max", "rake_allowed"} & set(r.needs)}
    in_scope = result.coverage[(result.coverage["hands_in_scope"] > 0) & ~result.coverage["rule_id"].isin(optional)]
    assert (in_scope["hands_checked"] > 0).all(), in_scope[in_scope["hands_checked"] == 0]["rule_id"].tolist()


def test_deviating_house_is_caught(tmp_path):
    """Same tables played with odd chips by position: the NZ pack must flag exactly the split pots
    whose odd chip went to a different winner than the suit rule names (checked independently)."""
    from auditor.replay.evaluate import best_hands, parse_cards
    from auditor.replay.house import HouseRules

    nz = load_pack(builtin_pack_paths()["nz-casino-1999"])
    house = HouseRules(odd_chip_method="position", max_raises=nz.house.max_raises)
    hands = list(simulate_hands("omaha-nz", "pot-limit", 1500, seed=3, house=house, rule_pack=nz.name))
    path = tmp_path / "hands.jsonl"
    write_jsonl(hands, path)
    expected = set()
    for hand in hands:
        shown = {e["seat"]: e["cards"] for e in hand["events"] if e["kind"] == "show"}
        board = [c for e in hand["events"] if e["kind"] == "deal" and e["to"] == "board" for c in e["cards"]]
        pots: dict[int, dict[int, int]] = {}
        for e in hand["events"]:
            if e["kind"] == "award":
                pots.setdefault(e["pot"], {})[e["seat"]] = e["amount"]
        for paid in pots.values():
            if len(paid) < 2 or len(set(paid.values())) == 1:
                continue
            seats = sorted(paid)
            best = best_hands(parse_cards([c for s in seats for c in shown[s]]).reshape(len(seats), 4).astype(int),
                              parse_cards(board * len(seats)).reshape(len(seats), 5).astype(int), (2, 2), (3, 3))
            low = min(paid.values())
            got = {s for s in seats if paid[s] > low}
            ranked = [s for _, s in sorted(zip(best.top_hole_used.tolist(), seats, strict=True), reverse=True)]
            if got != set(ranked[: len(got)]):
                expected.add(hand["hand_id"])
    assert expected, "the simulation produced no pot where the two methods differ"
    result = audit([path])
    flagged = set(result.findings.loc[result.findings["rule_id"] == "NZ17-5e-odd", "hand_id"])
    assert flagged == expected
    assert set(result.findings["rule_id"]) == {"NZ17-5e-odd"}
