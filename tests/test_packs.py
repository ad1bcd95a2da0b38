"""Rule packs: schema validation with file:line, predicates that try to run code refused at load."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from auditor.check.packs import PackError, builtin_pack_paths, load_pack

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
