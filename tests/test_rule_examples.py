"""Every rule's example hands, discovered from the packs themselves (ruff-style fixtures).

A violating example must produce findings of its rule and of no other rule; a clean example must
produce no finding at all. Adding an example to a pack adds a test; nothing is listed here.
"""

from __future__ import annotations

import pytest

from auditor.check.packs import builtin_pack_paths, load_pack

CASES = []
for pack_path in builtin_pack_paths().values():
    pack = load_pack(pack_path)
    for rule in pack.rules:
        for example in rule.violating:
            name = f"{pack.name}:{rule.id}:violating:{example.path.name}"
            CASES.append(pytest.param(pack, rule, example, True, id=name))
        for example in rule.clean:
            name = f"{pack.name}:{rule.id}:clean:{example.path.name}"
            CASES.append(pytest.param(pack, rule, example, False, id=name))


def test_every_rule_has_examples_of_both_kinds():
    assert CASES
    for pack_path in builtin_pack_paths().values():
        for rule in load_pack(pack_path).rules:
            assert rule.violating and rule.clean, rule.id
            for example in (*rule.violating, *rule.clean):
                assert example.path.is_file(), f"{rule.id}: missing example {example.path}"


@pytest.mark.parametrize(("pack", "rule", "example", "violating"), CASES)
def test_example(example_audit, pack, rule, example, violating):
    result = example_audit(example.path, str(example.pack or pack.path))  # the audit test_messages.py reads too
    assert result.quarantined == [], [q.one_line() for q in result.quarantined]
    assert result.hands_audited >= 1
    findings = result.findings
    if violating:
        assert set(findings["rule_id"]) == {rule.id}, findings[["rule_id", "message"]].to_string()
        assert (findings["category"] == rule.category).all()
        assert (findings["citation"] == rule.citation).all()
        if example.findings is not None:
            assert len(findings) == example.findings, findings["message"].tolist()
        else:
            assert len(findings) >= 1
        assert findings["hand_id"].notna().all() and findings["line"].notna().all()
    else:
        assert len(findings) == 0, findings[["rule_id", "message"]].to_string()
        cov = result.coverage.set_index("rule_id").loc[rule.id]
        # A clean example may sit outside the rule's scope on purpose (no cap in no limit); inside
        # it, the rule must actually have decided a hand, not found them all not assessable (a rule
        # about consecutive hands cannot judge a table's first hand).
        if cov["hands_in_scope"]:
            assert cov["hands_checked"] >= 1
