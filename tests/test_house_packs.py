"""House packs without traps: every name a house pack gives must mean something, `overrides:`
changes one field of an inherited rule by id, `rules show` and `rules check` say what the house changed,
`rules check` runs the house's own examples, and docs/house-packs.md is run as written."""

from __future__ import annotations

import re
import shlex
import shutil
import textwrap
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from auditor.check.packs import PackError, builtin_pack_paths, load_pack
from auditor.cli import main
from auditor.pipeline import audit

ROOT = Path(__file__).resolve().parents[1]
TDA = builtin_pack_paths()["tda-2024"]
FOURTH_RAISE = ROOT / "rules" / "examples" / "tda-2024" / "TDA-48" / "heads-up-fourth-raise.jsonl"
CAPPED = ROOT / "rules" / "examples" / "tda-2024" / "TDA-48" / "capped.jsonl"
HEAD = "pack: house-tda\nversion: 1.0.0\ntitle: A house's TDA rules\nextends: tda-2024\n"


def _house(tmp_path: Path, body: str, name: str = "house.yaml", head: str = HEAD) -> Path:
    path = tmp_path / name
    path.write_text(head + textwrap.dedent(body).lstrip("\n"), encoding="utf-8")
    return path


def _refused(path: Path) -> tuple[str, str]:
    """(the line of the pack file the error points at, the error's message after file:line)."""
    with pytest.raises(PackError) as info:
        load_pack(path)
    error = info.value
    assert error.file == str(path) and error.line, str(error)
    return path.read_text(encoding="utf-8").splitlines()[error.line - 1], error.message


def _rule_ids(log: Path, pack: Path | str) -> list[str]:
    result = audit([log], pack=str(pack))
    assert result.quarantined == [] and result.hands_audited == 1
    return list(result.findings["rule_id"])


# -- unknown names: file, line and the nearest valid name --------------------------------------------------


def test_unknown_parameter_names_the_nearest(tmp_path):
    line, message = _refused(_house(tmp_path, "parameters:\n  max_raise: 4\n"))
    assert line == "  max_raise: 4"
    assert message.startswith("unknown parameter max_raise; did you mean max_raises?")


def test_unknown_parameter_of_a_stand_alone_pack(tmp_path):
    data = yaml.safe_load(TDA.read_text(encoding="utf-8"))
    data["parameters"]["odd_chip_methd"] = "suit"
    for rule in data["rules"]:
        for kind in ("violating", "clean"):
            for example in rule["examples"][kind]:
                example["file"] = str((TDA.parent / example["file"]).resolve())
                example.pop("pack", None)
    path = tmp_path / "alone.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    line, message = _refused(path)
    assert line.strip() == "odd_chip_methd: suit" and "did you mean odd_chip_method?" in message


def test_a_parameter_a_house_rule_reads_is_not_unknown(tmp_path):
    rule = yaml.safe_load(TDA.read_text(encoding="utf-8"))["rules"][1]  # TDA-48
    rule.update(id="HOUSE-cap", violation="raises_before >= house_cap")
    for kind in ("violating", "clean"):
        for example in rule["examples"][kind]:
            example["file"] = str((TDA.parent / example["file"]).resolve())
    body = "parameters:\n  house_cap: 5\n" + yaml.safe_dump({"rules": [rule]}, sort_keys=False)
    assert load_pack(_house(tmp_path, body)).parameters["house_cap"] == 5


@pytest.mark.parametrize(("body", "text", "wanted"), [
    ("overides:\n  TDA-38: {severity: error}\n", "overides:", "unknown key 'overides'; did you mean overrides?"),
    ("parameters:\n  rake_schedule: {percent: 5, cpa: 300}\n", "rake_schedule", "unknown key 'cpa'; did you mean cap?"),
    ("overrides:\n  TDA-38:\n    applies: {structure: [no-limit]}\n", "applies",
     "unknown key 'structure'; did you mean structures?"),
])
def test_unknown_key_names_the_nearest(tmp_path, body, text, wanted):
    line, message = _refused(_house(tmp_path, body))
    assert text in line and wanted in message, message


def test_misspelt_rule_key_is_named_not_the_missing_one(tmp_path):
    rule = yaml.safe_load(TDA.read_text(encoding="utf-8"))["rules"][1]
    rule["severty"] = rule.pop("severity")
    line, message = _refused(_house(tmp_path, yaml.safe_dump({"rules": [rule]}, sort_keys=False)))
    assert line.strip().startswith("severty:") and "unknown key 'severty'; did you mean severity?" in message
    assert message.startswith("at rules/0: ")


def test_disable_of_an_unknown_rule_names_the_nearest(tmp_path):
    line, message = _refused(_house(tmp_path, "disable: [TDA-82]\n"))
    assert "TDA-82" in line and message.endswith("did you mean TDA-28?")


# -- overrides --------------------------------------------------------------------------------------------


def test_override_changes_severity_without_copying_the_rule(tmp_path):
    pack = load_pack(_house(tmp_path, "overrides:\n  TDA-48: {severity: warning}\n"))
    rule, original = pack.rule("TDA-48"), load_pack(TDA).rule("TDA-48")
    assert rule.severity == "warning" and rule.file == TDA and rule.violation.text == original.violation.text
    result = audit([FOURTH_RAISE], pack=str(pack.path))
    assert list(result.findings["severity"]) == ["warning"]
    assert result.coverage.set_index("rule_id").loc["TDA-48", "severity"] == "warning"
    [change] = pack.changes
    assert change.one_line() == f"{pack.path}:6: house-tda overrides TDA-48: severity error -> warning"


def test_override_changes_scope(tmp_path):
    path = _house(tmp_path, "overrides:\n  TDA-48:\n    applies: {structures: [spread-limit]}\n")
    rule = load_pack(path).rule("TDA-48")
    assert rule.structures == ("spread-limit",) and rule.variants == ("holdem", "omaha")  # the other kept
    result = audit([FOURTH_RAISE], pack=str(path))  # a fixed-limit hand: out of the rule's scope now
    assert list(result.findings["rule_id"]) == []
    assert result.coverage.set_index("rule_id").loc["TDA-48", "hands_in_scope"] == 0


def test_override_gives_one_rule_its_own_parameter_value(tmp_path):
    path = _house(tmp_path, "overrides:\n  TDA-48:\n    parameters: {max_raises: 4}\n")
    pack = load_pack(path)
    assert pack.parameters["max_raises"] == 3 and pack.rule("TDA-48").parameters["max_raises"] == 4
    assert pack.rule("TDA-43A").parameters is None
    assert _rule_ids(FOURTH_RAISE, path) == []
    assert _rule_ids(FOURTH_RAISE, TDA) == ["TDA-48"]
    shown = CliRunner().invoke(main, ["rules", "show", "TDA-48", "--pack", str(path)]).output
    assert "    max_raises = 4\n" in shown  # the value the rule is checked with
    assert f"{path}:6: house-tda overrides TDA-48: parameter max_raises = 4 for this rule only" in shown


@pytest.mark.parametrize(("body", "text", "wanted"), [
    ("overrides:\n  TDA-83: {severity: info}\n", "TDA-83",
     "overrides: no rule 'TDA-83' in the pack; did you mean TDA-38?"),
    ("overrides:\n  TDA-38: {severit: info}\n", "severit", "unknown field 'severit'; did you mean severity?"),
    ("overrides:\n  TDA-38: {violation: 'false'}\n", "violation", "'violation' cannot be overridden"),
    ("overrides:\n  TDA-48:\n    parameters: {max_raise: 4}\n", "max_raise",
     "overrides: TDA-48: unknown parameter max_raise; did you mean max_raises? (the rule reads heads_up_uncapped, "
     "max_raises)"),
    ("overrides:\n  TDA-48:\n    parameters: {suit_order: [clubs, diamonds, hearts, spades]}\n", "suit_order",
     "parameter suit_order shapes the facts every rule reads"),
    ("disable: [TDA-38]\noverrides:\n  TDA-38: {severity: info}\n", "TDA-38:",
     "TDA-38 is both disabled and overridden"),
    ("overrides:\n  TDA-38: {}\n", "TDA-38", "should be non-empty"),
])
def test_override_that_cannot_apply_is_refused_with_the_nearest(tmp_path, body, text, wanted):
    line, message = _refused(_house(tmp_path, body))
    assert text in line and wanted in message, message


def test_override_of_a_rule_also_given_whole_is_refused(tmp_path):
    rule = yaml.safe_load(TDA.read_text(encoding="utf-8"))["rules"][1]
    for kind in ("violating", "clean"):
        for example in rule["examples"][kind]:
            example["file"] = str((TDA.parent / example["file"]).resolve())
    body = "overrides:\n  TDA-48: {severity: info}\n" + yaml.safe_dump({"rules": [rule]}, sort_keys=False)
    line, message = _refused(_house(tmp_path, body))
    assert line.startswith("  TDA-48") and "also given whole under rules:" in message


def test_overrides_need_extends(tmp_path):
    data = yaml.safe_load(TDA.read_text(encoding="utf-8"))
    data["overrides"] = {"TDA-38": {"severity": "error"}}
    path = tmp_path / "alone.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    with pytest.raises(PackError, match="'extends' is a dependency of 'overrides'"):
        load_pack(path)


def test_overrides_follow_an_extends_chain(tmp_path):
    _house(tmp_path, "overrides:\n  TDA-48: {severity: warning}\n", name="base.yaml")
    leaf = _house(tmp_path, "overrides:\n  TDA-48:\n    parameters: {max_raises: 2}\n", name="leaf.yaml",
                  head="pack: leaf\nversion: 1.0.0\ntitle: Leaf\nextends: base.yaml\n")
    pack = load_pack(leaf)
    rule = pack.rule("TDA-48")
    assert (rule.severity, rule.parameters["max_raises"]) == ("warning", 2)
    assert [c.file.name for c in pack.changes_of("TDA-48")] == ["base.yaml", "leaf.yaml"]
    assert _rule_ids(FOURTH_RAISE, leaf) == ["TDA-48", "TDA-48"]


# -- rules show / list say what the house changed ----------------------------------------------------------


def test_rules_show_says_a_rule_was_disabled_and_what_changed(tmp_path):
    path = _house(tmp_path, "parameters:\n  max_raises: 4\ndisable: [TDA-28]\n")
    runner = CliRunner()
    shown = runner.invoke(main, ["rules", "show", "TDA-28", "--pack", str(path)])
    assert shown.exit_code == 0
    assert shown.output.startswith("TDA-28 is DISABLED in house-tda: its checks do not run it.")
    assert f"{path}:7: house-tda disables TDA-28" in shown.output
    capped = runner.invoke(main, ["rules", "show", "TDA-48", "--pack", str(path)]).output
    assert f"Changed by the house pack:\n    {path}:6: house-tda changes parameter max_raises: 3 -> 4\n" in capped
    untouched = runner.invoke(main, ["rules", "show", "TDA-43A", "--pack", str(path)]).output
    assert "Changed by the house pack" not in untouched
    listed = runner.invoke(main, ["rules", "list", "--pack", str(path)]).output
    assert "  disabled: TDA-28\n" in listed and "TDA-28 " not in listed.split("disabled:")[0]


def test_rules_list_marks_overridden_rules(tmp_path):
    path = _house(tmp_path, "overrides:\n  TDA-38: {severity: error}\n")
    listed = CliRunner().invoke(main, ["rules", "list", "--pack", str(path)]).output
    [line] = [row for row in listed.splitlines() if row.lstrip().startswith("TDA-38 ")]
    assert " error " in line and line.endswith("[overridden]")


# -- rules check runs a house's own examples ---------------------------------------------------------------


def _house_rule(violating: str, clean: str, findings: int | None = 1) -> dict:
    """A house rule that duplicates TDA-48's three-raise cap, with the given example files."""
    example: dict = {"file": violating, "about": "a fourth raise"}
    if findings is not None:
        example["findings"] = findings
    return {
        "id": "HOUSE-cap", "title": "Three raises", "category": "raise-cap", "severity": "error",
        "citation": "House rules §1", "text": "Three raises.", "why": "House policy.",
        "applies": {"variants": ["holdem"], "structures": ["fixed-limit"]}, "facts": "actions",
        "when": "is_raise and full_raise", "violation": "raises_before >= 3", "message": "raise {raise_number}",
        "examples": {"violating": [example], "clean": [{"file": clean, "about": "three raises"}]},
    }


def _pack_with_rule(tmp_path: Path, name: str, violating: str, clean: str, findings: int | None = 1) -> Path:
    rules = yaml.safe_dump({"rules": [_house_rule(violating, clean, findings)]}, sort_keys=False)
    return _house(tmp_path, "disable: [TDA-48]\n" + rules, name=name)


def test_rules_check_runs_the_house_rules_examples(tmp_path):
    (tmp_path / "examples").mkdir()
    shutil.copy(FOURTH_RAISE, tmp_path / "examples" / "four.jsonl")
    shutil.copy(CAPPED, tmp_path / "examples" / "three.jsonl")
    runner = CliRunner()
    good = _pack_with_rule(tmp_path, "good.yaml", "examples/four.jsonl", "examples/three.jsonl")
    result = runner.invoke(main, ["rules", "check", str(good)])
    assert result.exit_code == 0, result.output
    assert "  examples: 2 of 2 as their rules say" in result.stdout  # the built-in rules' are not run again
    # a clean example that breaks the rule, and a violating one that does not
    swapped = _pack_with_rule(tmp_path, "swapped.yaml", "examples/three.jsonl", "examples/four.jsonl", None)
    result = runner.invoke(main, ["rules", "check", str(swapped)])
    assert result.exit_code == 1, result.output
    assert f"{swapped}:" in result.stderr and "rule HOUSE-cap: violating example" in result.stderr
    assert "expected at least 1 finding(s) of HOUSE-cap, found 0" in result.stderr
    assert "rule HOUSE-cap: clean example" in result.stderr
    assert "expected no finding, found 1 (HOUSE-cap)" in result.stderr
    assert "  examples: 0 of 2 as their rules say" in result.stdout
    # a missing example file, and a violating example found the wrong number of times
    missing = _pack_with_rule(tmp_path, "missing.yaml", "examples/four.jsonl", "examples/none.jsonl", 3)
    result = runner.invoke(main, ["rules", "check", str(missing)])
    assert result.exit_code == 1
    assert "expected 3 finding(s) of HOUSE-cap, found 1" in result.stderr
    assert f"{tmp_path / 'examples' / 'none.jsonl'}: no such file" in result.stderr
    # --no-examples only loads; a pack that does not load is still 2
    assert runner.invoke(main, ["rules", "check", "--no-examples", str(swapped)]).exit_code == 0
    broken = _house(tmp_path, "parameters:\n  max_raise: 4\n", name="broken.yaml")
    assert runner.invoke(main, ["rules", "check", str(good), str(broken)]).exit_code == 2


# -- docs/house-packs.md, run as written ---------------------------------------------------------------------

DOC = ROOT / "docs" / "house-packs.md"


def _blocks(text: str) -> list[tuple[str, str]]:
    return re.findall(r"^```(\w+)\n(.*?)^```$", text, re.S | re.M)


def _matches(expected: list[str], actual: list[str]) -> bool:
    """`expected` lines, with "..." standing for any lines, are `actual` exactly."""
    pattern = "".join(r"(?:.*\n)*?" if line == "..." else re.escape(line) + r"\n" for line in expected)
    return re.fullmatch(pattern, "".join(line + "\n" for line in actual)) is not None


def test_house_packs_page_runs_as_written(tmp_path, monkeypatch):
    blocks = _blocks(DOC.read_text(encoding="utf-8"))
    files = [body for lang, body in blocks if lang == "yaml"]
    assert len(files) >= 2
    for body in files:  # every YAML block is a whole file the page tells the reader to save
        first = body.splitlines()[0]
        assert first.startswith("# file: "), first
        (tmp_path / first.removeprefix("# file: ")).write_text(body, encoding="utf-8")
    shutil.copy(FOURTH_RAISE, tmp_path / FOURTH_RAISE.name)  # the hand the page audits
    monkeypatch.chdir(tmp_path)
    commands = 0
    runner = CliRunner()
    for lang, body in blocks:
        if lang != "console":
            continue
        for chunk in re.split(r"^(?=\$ )", body, flags=re.M):
            if not chunk.strip():
                continue
            command, *expected = chunk.rstrip("\n").split("\n")
            argv = shlex.split(command.removeprefix("$ "))
            assert argv[0] == "auditor", command
            result = runner.invoke(main, argv[1:])
            assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
            actual = result.output.rstrip("\n").split("\n")
            assert _matches(expected, actual), f"{command}\n--- page:\n" + "\n".join(expected) + \
                "\n--- actual:\n" + result.output
            commands += 1
    assert commands >= 5
    # the worked example does what the page says it does
    pack = load_pack(tmp_path / "house.yaml")
    assert pack.house.rake is not None and pack.house.max_raises == 4
    assert pack.rule("TDA-38").severity == "error" and "TDA-28" not in [r.id for r in pack.rules]
    assert _rule_ids(FOURTH_RAISE, tmp_path / "house.yaml") == []
    with pytest.raises(PackError, match="did you mean max_raises"):
        load_pack(tmp_path / "typo.yaml")


def test_manifest_digest_covers_a_rules_own_parameters(tmp_path):
    """The manifest's effective digest says what a pack judges with: a per-rule parameter override is part of it."""
    from auditor.report.manifest import pack_entry

    plain = pack_entry(load_pack(_house(tmp_path, "", name="plain.yaml")))
    own = pack_entry(load_pack(_house(tmp_path, "overrides:\n  TDA-48:\n    parameters: {max_raises: 4}\n",
                                      name="own.yaml")))
    assert plain["parameters"] == own["parameters"]  # the pack's parameters are the same...
    assert plain["effective_sha256"] != own["effective_sha256"]  # ...but TDA-48 judges with another cap


@pytest.mark.parametrize(("body", "wanted"), [
    ("extends: tda-2042\n", "no such rule pack 'tda-2042'; did you mean tda-2024?"),
])
def test_unknown_parent_names_the_nearest(tmp_path, body, wanted):
    path = tmp_path / "p.yaml"
    path.write_text("pack: p\nversion: 1.0.0\ntitle: P\n" + body, encoding="utf-8")
    line, message = _refused(path)
    assert line == body.strip() and wanted in message


def test_misspelt_fact_in_a_house_rule_names_the_nearest(tmp_path):
    rule = yaml.safe_load(TDA.read_text(encoding="utf-8"))["rules"][1]  # TDA-48
    rule["needs"] = ["raise_before"]
    line, message = _refused(_house(tmp_path, yaml.safe_dump({"rules": [rule]}, sort_keys=False)))
    assert "unknown fact 'raise_before' in table actions; did you mean raises_before?" in message
    rule["needs"], rule["violation"] = ["raises_before"], "raises_before >= max_raise"
    line, message = _refused(_house(tmp_path, yaml.safe_dump({"rules": [rule]}, sort_keys=False)))
    assert line.strip().startswith("violation:")
    assert message.endswith("violation: unknown name 'max_raise'; did you mean max_raises?")


def test_parameter_with_the_name_of_a_fact_is_refused(tmp_path):
    """A predicate finds a fact before a parameter: a parameter named raises_before would never be read."""
    line, message = _refused(_house(tmp_path, "parameters:\n  raises_before: 4\n"))
    assert line == "  raises_before: 4"
    assert message.startswith("parameter raises_before has the name of a fact (the actions table)")


def _with_rule(change) -> str:
    rule = yaml.safe_load(TDA.read_text(encoding="utf-8"))["rules"][1]  # TDA-48
    change(rule)
    return yaml.safe_dump({"rules": [rule]}, sort_keys=False)


#: the "you wrote" cell of each row of the page's table of traps -> a house pack body that writes it
TRAPS = {
    "`max_raise: 4` under `parameters:`": "parameters:\n  max_raise: 4\n",
    "`overides:`": "overides:\n  TDA-38: {severity: error}\n",
    "`severty: warning` in a rule": _with_rule(lambda r: r.update(severty=r.pop("severity"))),
    "`overrides: {TDA-83: ...}`": "overrides:\n  TDA-83: {severity: info}\n",
    "`overrides: {TDA-38: {violation: ...}}`": "overrides:\n  TDA-38: {violation: 'false'}\n",
    "`disable: [TDA-82]`": "disable: [TDA-82]\n",
    "`raises_before: 4` under `parameters:` (the name of a fact)": "parameters:\n  raises_before: 4\n",
    "`needs: [raise_before]` in a rule, or `max_raise` in its predicate": _with_rule(
        lambda r: r.update(needs=["raise_before"])),
    "`extends: tda-2042`": None,  # a head of its own
}


def test_the_pages_table_of_traps_is_what_the_auditor_says(tmp_path):
    rows = [line.split(" | ") for line in DOC.read_text(encoding="utf-8").splitlines()
            if line.startswith("| `") or line.startswith("| a rule both")]
    checked = 0
    for cells in rows:
        wrote, says = cells[0].removeprefix("| "), cells[1].removesuffix(" |")
        if not says.startswith("`"):
            continue
        assert wrote in TRAPS, f"a row of the page's table this test does not know: {wrote}"
        body = TRAPS[wrote]
        path = _house(tmp_path, body) if body is not None else _house(
            tmp_path, "", head="pack: p\nversion: 1.0.0\ntitle: P\nextends: tda-2042\n")
        _, message = _refused(path)
        for part in says.strip("`").split("..."):
            part = part.strip(" ;(")
            if part:
                assert part in message, (wrote, part, message)
        checked += 1
    assert checked == len(TRAPS)


def test_the_page_names_every_house_setting_of_the_replay():
    from auditor.check.packs import PREDICATE_PARAMETERS, engine_parameters

    text = DOC.read_text(encoding="utf-8")
    settings = text.split("The house settings are ", 1)[1].split("\n\n", 1)[0]
    assert set(re.findall(r"`([a-z_]+)`", settings)) == engine_parameters()
    assert all(f"`{name}`" in text.split("### Overrides", 1)[1] for name in PREDICATE_PARAMETERS)


# -- a pack loaded again (load_pack's memo) -------------------------------------------------------------


def test_a_pack_is_loaded_once_while_its_files_are_unchanged(tmp_path):
    path = _house(tmp_path, "overrides:\n  TDA-48: {severity: warning}\n")
    first = load_pack(path)
    assert load_pack(path) is first  # nothing changed: the same Pack, not parsed again
    path.write_text(path.read_text().replace("warning", "info"))
    again = load_pack(path)
    assert again is not first and again.rule("TDA-48").severity == "info"


def test_a_pack_is_loaded_again_when_a_parent_file_changes_or_appears(tmp_path):
    parent = _house(tmp_path, "overrides:\n  TDA-48: {severity: warning}\n", name="base.yaml")
    child = _house(tmp_path, "", name="child.yaml", head=HEAD.replace("extends: tda-2024", "extends: base.yaml"))
    assert load_pack(child).rule("TDA-48").severity == "warning"
    parent.write_text(parent.read_text().replace("warning", "info"))  # the chain's parent file changed
    assert load_pack(child).rule("TDA-48").severity == "info"
    # `extends: tda-2024` names the built-in pack until a file of that name appears beside the house pack
    (tmp_path / "sub").mkdir()
    plain = _house(tmp_path / "sub", "", name="plain.yaml")
    assert load_pack(plain).rule("TDA-48").severity == "error"
    _house(tmp_path / "sub", "", name="tda-2024", head=HEAD.replace("extends: tda-2024", "extends: ../base.yaml"))
    assert load_pack(plain).rule("TDA-48").severity == "info"


def test_a_refused_pack_is_not_remembered(tmp_path):
    path = _house(tmp_path, "disable: [TDA-82]\n")
    with pytest.raises(PackError):
        load_pack(path)
    path.write_text(path.read_text().replace("TDA-82", "TDA-28"))
    assert "TDA-28" not in {r.id for r in load_pack(path).rules}
