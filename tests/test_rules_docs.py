"""docs/rules.md and `auditor rules show`: generated from the packs, so they cannot drift from them."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from auditor.check.docs import DOCS_PATH, REGENERATE, builtin_packs, facts_used, render_rules_markdown, repo_path
from auditor.cli import main

PACKS = builtin_packs()
RULES = [pytest.param(pack, rule, id=f"{pack.name}:{rule.id}") for pack in PACKS for rule in pack.rules]


def test_docs_rules_md_is_up_to_date():
    assert DOCS_PATH.is_file(), f"{repo_path(DOCS_PATH)} is missing; run: {REGENERATE}"
    assert DOCS_PATH.read_text(encoding="utf-8") == render_rules_markdown(), (
        f"{repo_path(DOCS_PATH)} does not match the rule packs; regenerate it with: {REGENERATE}")


def test_every_rule_of_every_builtin_pack_is_documented():
    text = DOCS_PATH.read_text(encoding="utf-8")
    for pack in PACKS:
        assert f"## {pack.name} {pack.version} — {pack.title}" in text
        for rule in pack.rules:
            assert f"### {rule.id} — {rule.title}" in text, rule.id
            assert rule.catalogue, f"{rule.id}: no catalogue rows"
            for row in rule.catalogue:
                assert f"| {row} |" in text


@pytest.mark.parametrize(("pack", "rule"), RULES)
def test_rules_show_prints_everything_about_the_rule(pack, rule):
    result = CliRunner().invoke(main, ["rules", "show", rule.id])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.startswith(f"{rule.id} — {rule.title}\n")
    for item in (f"{pack.name} {pack.version}", rule.category, rule.severity, rule.citation,
                 rule.violation.text.strip(), rule.message.text, *rule.catalogue, *rule.variants, *rule.structures):
        assert item in out, item
    for name, meaning in facts_used(rule, pack):
        assert f"{name:<28} {meaning}" in out
    for example in (*rule.violating, *rule.clean):
        assert repo_path(example.path) in out and example.about in out


def test_rules_show_unknown_id_names_close_matches():
    result = CliRunner().invoke(main, ["rules", "show", "TDA-43"])
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("auditor: no rule 'TDA-43'") and "TDA-43A" in lines[0]


def test_rules_show_an_id_in_several_packs_shows_each(tmp_path):
    house = tmp_path / "house.yaml"
    house.write_text("pack: house\nversion: 1.0.0\ntitle: House\nextends: tda-2024\nparameters: {max_raises: 4}\n",
                     encoding="utf-8")
    result = CliRunner().invoke(main, ["rules", "show", "tda-48", "--pack", "tda-2024", "--pack", str(house)])
    assert result.exit_code == 0, result.output
    assert result.stdout.count("TDA-48 — ") == 2
    assert "max_raises = 3" in result.stdout and "max_raises = 4" in result.stdout
    assert "(extends tda-2024)" in result.stdout
    # inherited examples stay where the parent pack put them
    assert "rules/examples/tda-2024/TDA-48/capped.jsonl" in result.stdout
