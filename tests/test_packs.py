"""Rule packs: schema validation with file:line, predicates that try to run code refused at load,
and house packs that `extends:` another pack and override only what differs."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from auditor.check.packs import PackError, builtin_pack_paths, load_pack
from auditor.cli import main
from auditor.pipeline import audit

NZ = builtin_pack_paths()["nz-casino-1999"]


def _variant_of_nz(tmp_path: Path, mutate) -> Path:
    data = yaml.safe_load(NZ.read_text(encoding="utf-8"))
    mutate(data)
    for rule in data["rules"]:
        for kind in ("violating", "clean"):
            for example in rule["examples"][kind]:
                example["file"] = str((NZ.parent / example["file"]).resolve())
    path = tmp_path / "pack.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def test_builtin_packs_load():
    packs = {name: load_pack(path) for name, path in builtin_pack_paths().items()}
    assert {"nz-casino-1999", "online-five-card-draw"} <= set(packs)
    assert packs["nz-casino-1999"].house.odd_chip_method == "suit"
    assert packs["nz-casino-1999"].house.heads_up_uncapped is True
    assert packs["online-five-card-draw"].house.heads_up_uncapped is False
    categories = Path(__file__).resolve().parents[2] / "shared" / "spec" / "finding-categories.md"
    if categories.exists():
        text = categories.read_text(encoding="utf-8")
        for pack in packs.values():
            for rule in pack.rules:
                assert f"`{rule.category}`" in text, rule.category


@pytest.mark.parametrize("predicate", [
    "__import__('os').system('id')",
    "().__class__.__bases__[0].__subclasses__()",
    "raise_increment.__class__",
    "[x for x in raise_increment]",
    "(lambda: 1)()",
    "open('/etc/passwd')",
])
def test_code_in_a_predicate_is_refused_at_load(tmp_path, predicate):
    def mutate(data):
        data["rules"][3]["violation"] = predicate
    path = _variant_of_nz(tmp_path, mutate)
    with pytest.raises(PackError) as info:
        load_pack(path)
    message = str(info.value)
    assert message.startswith(f"{path}:")
    assert "rule NZ17-6c: violation:" in message
    line = int(message.split(":")[1])
    assert "violation:" in path.read_text().splitlines()[line - 1]


def test_unknown_fact_is_refused(tmp_path):
    def mutate(data):
        data["rules"][0]["violation"] = "awarded_to != winner_of_draw"
    with pytest.raises(PackError, match="unknown name 'winner_of_draw'"):
        load_pack(_variant_of_nz(tmp_path, mutate))


def test_schema_error_names_file_and_line(tmp_path):
    def mutate(data):
        data["rules"][2]["category"] = "not-a-category"
    path = _variant_of_nz(tmp_path, mutate)
    with pytest.raises(PackError) as info:
        load_pack(path)
    line = int(str(info.value).split(":")[1])
    assert "category: not-a-category" in path.read_text().splitlines()[line - 1]
    assert "not-a-category" in str(info.value)


def test_invalid_yaml_names_line(tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("pack: x\nversion: 1.0.0\nrules:\n  - id: a\n    why: a: b\n", encoding="utf-8")
    with pytest.raises(PackError, match=r"broken.yaml:5: invalid YAML"):
        load_pack(path)


def test_duplicate_rule_id_refused(tmp_path):
    def mutate(data):
        data["rules"][1]["id"] = data["rules"][0]["id"]
    with pytest.raises(PackError, match="id used twice"):
        load_pack(_variant_of_nz(tmp_path, mutate))


# -- extends ----------------------------------------------------------------------------------------

TDA = builtin_pack_paths()["tda-2024"]
FOURTH_RAISE = TDA.parent / "examples" / "tda-2024" / "TDA-48" / "heads-up-fourth-raise.jsonl"


def _write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


def _child(tmp_path: Path, body: str = "", extends: str = "tda-2024", name: str = "house.yaml") -> Path:
    head = f"pack: house-tda\nversion: 1.0.0\ntitle: A house's TDA rules\nextends: {extends}\n"
    return _write(tmp_path / name, head + textwrap.dedent(body))


def _hand_log(tmp_path: Path) -> Path:
    """The TDA-48 example hand (heads-up limit hold'em: bet and four raises), under a new id and pack."""
    hand = json.loads(FOURTH_RAISE.read_text(encoding="utf-8").splitlines()[0])
    hand.update(hand_id="HOUSE-1", table_id="HOUSE-T", rule_pack="house-tda")
    path = tmp_path / "hand.jsonl"
    path.write_text(json.dumps(hand) + "\n", encoding="utf-8")
    return path


def _findings(log: Path, pack: Path | str) -> list[str]:
    result = audit([log], pack=str(pack))
    assert result.quarantined == [] and result.hands_audited == 1
    return list(result.findings["rule_id"])


def test_extends_overrides_a_parameter_and_changes_findings(tmp_path):
    log = _hand_log(tmp_path)
    assert _findings(log, "tda-2024") == ["TDA-48"]
    looser = load_pack(_child(tmp_path, "parameters:\n  max_raises: 4\n"))
    assert looser.extends == "tda-2024" and looser.name == "house-tda"
    assert looser.parameters["max_raises"] == 4 and looser.house.max_raises == 4
    assert looser.parameters["odd_chip_method"] == "position"  # the parent's, not given again
    assert [r.id for r in looser.rules] == [r.id for r in load_pack(TDA).rules]
    assert _findings(log, looser.path) == []
    stricter = _child(tmp_path, "parameters:\n  max_raises: 2\n", name="strict.yaml")
    assert _findings(log, stricter) == ["TDA-48", "TDA-48"]


def test_extends_replaces_a_rule_and_keeps_inherited_example_paths(tmp_path):
    parent = yaml.safe_load(TDA.read_text(encoding="utf-8"))
    rule = next(r for r in parent["rules"] if r["id"] == "TDA-48")
    rule.update(severity="warning", title="More raises than the house allows")
    for kind in ("violating", "clean"):
        for example in rule["examples"][kind]:
            example["file"] = str((TDA.parent / example["file"]).resolve())
    path = _child(tmp_path, yaml.safe_dump({"rules": [rule]}, sort_keys=False, allow_unicode=True))
    pack = load_pack(path)
    original = load_pack(TDA)
    assert [r.id for r in pack.rules] == [r.id for r in original.rules]  # replaced in place
    replaced = pack.rule("TDA-48")
    assert (replaced.severity, replaced.title, replaced.file) == ("warning", "More raises than the house allows", path)
    inherited = pack.rule("TDA-43A")
    assert inherited.file == TDA and inherited.violating == original.rule("TDA-43A").violating
    assert all(e.path.is_file() for r in pack.rules for e in (*r.violating, *r.clean))
    result = audit([_hand_log(tmp_path)], pack=str(path))
    assert list(result.findings["severity"]) == ["warning"]


def test_extends_disables_a_rule_and_adds_one(tmp_path):
    added = {
        "id": "HOUSE-cap", "title": "Limit raise cap, house reading", "category": "raise-cap", "severity": "info",
        "citation": "House rules §1", "text": "Two raises.", "why": "House policy.",
        "applies": {"variants": ["holdem"], "structures": ["fixed-limit"]}, "facts": "actions",
        "when": "is_raise and full_raise", "violation": "raises_before >= 2", "message": "raise {raise_number}",
        "examples": {"violating": [{"file": str(FOURTH_RAISE), "about": "four raises", "findings": 2}],
                     "clean": [{"file": str(FOURTH_RAISE), "about": "n/a"}]},
    }
    body = "disable: [TDA-48]\n" + yaml.safe_dump({"rules": [added]}, sort_keys=False)
    pack = load_pack(_child(tmp_path, body))
    ids = [r.id for r in pack.rules]
    assert "TDA-48" not in ids and ids[-1] == "HOUSE-cap" and len(ids) == len(load_pack(TDA).rules)
    assert _findings(_hand_log(tmp_path), pack.path) == ["HOUSE-cap", "HOUSE-cap"]


def test_extends_a_file_relative_to_the_pack(tmp_path):
    (tmp_path / "sub").mkdir()
    _child(tmp_path, "parameters:\n  max_raises: 4\n  heads_up_uncapped: true\n", name="base.yaml")
    leaf = _write(tmp_path / "sub" / "leaf.yaml", """
        pack: leaf
        version: 0.0.1
        title: Leaf
        extends: ../base.yaml
        parameters:
          max_raises: 1
        disable: [TDA-12]
    """)
    pack = load_pack(leaf)
    assert pack.parameters["max_raises"] == 1 and pack.parameters["heads_up_uncapped"] is True
    assert "TDA-12" not in [r.id for r in pack.rules] and pack.extends == "../base.yaml"


def _error(path: Path) -> tuple[str, str]:
    """(the pack file's line the error points at, the error) for a pack that must not load."""
    with pytest.raises(PackError) as info:
        load_pack(path)
    message = str(info.value)
    where, line = message.split(":")[0], int(message.split(":")[1])
    return Path(where).read_text(encoding="utf-8").splitlines()[line - 1], message


def test_extends_cycle_is_refused_with_file_and_line(tmp_path):
    a = _child(tmp_path, extends="b.yaml", name="a.yaml")
    _child(tmp_path, extends="a.yaml", name="b.yaml")
    line, message = _error(a)
    assert line.startswith("extends:") and "cycle a.yaml -> b.yaml -> a.yaml" in message
    assert message.startswith(str(tmp_path / "b.yaml") + ":4:")
    line, message = _error(_child(tmp_path, extends="self.yaml", name="self.yaml"))
    assert "cycle self.yaml -> self.yaml" in message


def test_unknown_parent_is_refused_with_file_and_line(tmp_path):
    path = _child(tmp_path, extends="tda-2099")
    line, message = _error(path)
    assert message.startswith(f"{path}:4: extends: no such rule pack 'tda-2099'") and "tda-2024" in message
    line, message = _error(_child(tmp_path, extends="missing/pack.yaml"))
    assert line == "extends: missing/pack.yaml" and "no pack file" in message


def test_extends_errors_point_at_the_overriding_text(tmp_path):
    line, message = _error(_child(tmp_path, "disable: [TDA-48, TDA-99]\n"))
    assert "no rule 'TDA-99'" in message and "TDA-99" in line
    line, message = _error(_child(tmp_path, "parameters:\n  max_raises: many\n"))
    assert "max_raises" in message and line.strip() == "max_raises: many"
    rule = yaml.safe_load(TDA.read_text(encoding="utf-8"))["rules"][1]
    rule["violation"] = "raises_before >= house_cap"
    line, message = _error(_child(tmp_path, yaml.safe_dump({"rules": [rule]}, sort_keys=False)))
    assert "rule TDA-48: violation: unknown name 'house_cap'" in message and line.strip().startswith("violation:")


def test_schema_requires_rules_without_extends_and_extends_for_disable(tmp_path):
    path = _write(tmp_path / "p.yaml", "pack: p\nversion: 1.0.0\ntitle: P\n")
    with pytest.raises(PackError, match="'documents' is a required property"):
        load_pack(path)
    data = yaml.safe_load(NZ.read_text(encoding="utf-8"))
    data["disable"] = ["NZ17-1a"]
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    with pytest.raises(PackError, match="'extends' is a dependency of 'disable'"):
        load_pack(path)


def test_rules_check_resolves_extends(tmp_path):
    good = _child(tmp_path, "parameters:\n  max_raises: 4\n")
    bad = _child(tmp_path, extends="nowhere", name="bad.yaml")
    result = CliRunner().invoke(main, ["rules", "check", str(good), str(bad)])
    assert result.exit_code == 2
    inherited = len(load_pack(builtin_pack_paths()["tda-2024"]).rules)
    assert f"{good}: ok (house-tda 1.0.0, {inherited} rules, extends tda-2024)" in result.stdout
    assert f"{bad}:4: extends: no such rule pack 'nowhere'" in result.stderr


def test_rake_schedule_parameter_sets_the_engines_allowance():
    """Percent of the contested pot, down to the increment (default: the smallest chip), capped."""
    from auditor.check.packs import house_rules

    rake = house_rules({"rake_schedule": {"percent": 2.5, "cap": 300}}).rake
    assert rake.allowed(1990, chip_unit=5, flop_game=True, flop_seen=True) == 45  # 49.75 down to the chip
    assert rake.allowed(100_000, chip_unit=5, flop_game=True, flop_seen=True) == 300
    assert rake.allowed(1990, chip_unit=5, flop_game=True, flop_seen=False) == 0
    assert rake.allowed(1990, chip_unit=5, flop_game=False, flop_seen=False) == 45  # draw games have no flop
    assert house_rules({}).rake is None
