"""Loading rule packs: YAML → schema validation → compiled rules.

A pack that fails to load stops the run with `file:line: what is wrong`, because auditing under a
half-understood rule book would be worse than not auditing. Predicates are compiled once here,
so a predicate that tries to run code is refused before any hand is read.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from auditor.check.expr import Expression, ExpressionError, Template, compile_expression, compile_template
from auditor.ingest.validate import load_json_schema
from auditor.paths import RULES_DIR, SCHEMA_DIR
from auditor.replay.facts import FACT_COLUMNS, HAND_COLUMNS
from auditor.replay.house import HouseRules

SUIT_LETTER = {"spades": "s", "hearts": "h", "diamonds": "d", "clubs": "c"}


class PackError(ValueError):
    """A pack that cannot be used, with the place to fix it."""

    def __init__(self, file: str, line: int | None, message: str):
        self.file, self.line, self.message = file, line, message
        where = f"{file}:{line}" if line else file
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class Example:
    path: Path
    about: str
    findings: int | None


@dataclass(frozen=True)
class Rule:
    id: str
    title: str
    category: str
    severity: str
    citation: str
    text: str
    why: str
    notes: str | None
    variants: tuple[str, ...]
    structures: tuple[str, ...]
    facts: str
    needs: tuple[str, ...]
    when: Expression | None
    violation: Expression
    message: Template
    expected: Template | None
    actual: Template | None
    violating: tuple[Example, ...]
    clean: tuple[Example, ...]
    line: int
    #: the facts columns that name the seat and player a finding is about
    seat_column: str = "seat"
    player_column: str = "player"


@dataclass(frozen=True)
class Pack:
    name: str
    version: str
    title: str
    description: str | None
    documents: tuple[dict[str, Any], ...]
    parameters: dict[str, Any]
    house: HouseRules
    rules: tuple[Rule, ...]
    path: Path

    def rule(self, rule_id: str) -> Rule:
        for rule in self.rules:
            if rule.id == rule_id:
                return rule
        raise KeyError(rule_id)


@cache
def _pack_validator() -> jsonschema.protocols.Validator:
    schema = load_json_schema(SCHEMA_DIR / "rule-pack.schema.json")
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema)


def _line_of(node: yaml.Node | None, path: list[Any]) -> int | None:
    """Line (1-based) of the YAML node at a JSON path, as deep as the path can be followed."""
    line = node.start_mark.line + 1 if node is not None else None
    for key in path:
        if isinstance(node, yaml.MappingNode):
            match = next((v for k, v in node.value if getattr(k, "value", None) == str(key)), None)
            if match is None:
                break
            node = match
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            node = node.value[key]
        else:
            break
        line = node.start_mark.line + 1
    return line


def house_rules(parameters: dict[str, Any]) -> HouseRules:
    """The engine's house settings from a pack's parameters (absent ones keep the defaults)."""
    kwargs: dict[str, Any] = {}
    if "suit_order" in parameters:
        kwargs["suit_order"] = tuple(SUIT_LETTER[s] for s in parameters["suit_order"])
    for key in ("odd_chip_method", "max_raises", "heads_up_uncapped", "limit_reopen_fraction"):
        if key in parameters:
            kwargs[key] = parameters[key]
    if "hole_use" in parameters:
        kwargs["hole_use"] = {k: (v[0], v[1]) for k, v in parameters["hole_use"].items()}
    return HouseRules(**kwargs)


def load_pack(path: Path) -> Pack:
    name = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PackError(name, None, f"cannot read: {exc}") from exc
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        raise PackError(name, mark.line + 1 if mark else None, f"invalid YAML: {exc.problem}") from exc
    except yaml.YAMLError as exc:
        raise PackError(name, None, f"invalid YAML: {exc}") from exc
    error = jsonschema.exceptions.best_match(_pack_validator().iter_errors(data))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(pack)"
        raise PackError(name, _line_of(root, list(error.absolute_path)), f"at {where}: {error.message}")
    parameters = data["parameters"]
    seen: set[str] = set()
    rules = []
    for index, raw in enumerate(data["rules"]):
        line = _line_of(root, ["rules", index]) or 0
        if raw["id"] in seen:
            raise PackError(name, line, f"rule {raw['id']}: id used twice")
        seen.add(raw["id"])
        rules.append(_compile_rule(raw, parameters, path, name, root, index))
    return Pack(data["pack"], data["version"], data["title"], data.get("description"),
                tuple(data["documents"]), parameters, house_rules(parameters), tuple(rules), path)


def _compile_rule(raw: dict[str, Any], parameters: dict[str, Any], path: Path, name: str, root: yaml.Node,
                  index: int) -> Rule:
    known = {c for c, _, _ in FACT_COLUMNS[raw["facts"]]} | set(HAND_COLUMNS) | set(parameters)

    def compiled(key: str, make: Any) -> Any:
        if key not in raw:
            return None
        try:
            item = make(raw[key])
            item.check_names(known)
            return item
        except ExpressionError as exc:
            line = _line_of(root, ["rules", index, key])
            raise PackError(name, line, f"rule {raw['id']}: {key}: {exc.reason}") from exc

    for key in ("seat", "player"):
        if key in raw and raw[key] not in known:
            raise PackError(name, _line_of(root, ["rules", index, key]),
                            f"rule {raw['id']}: {key}: unknown fact '{raw[key]}' in table {raw['facts']}")
    for need in raw.get("needs", []):
        if need not in known:
            raise PackError(name, _line_of(root, ["rules", index, "needs"]),
                            f"rule {raw['id']}: needs: unknown fact '{need}' in table {raw['facts']}")

    def examples(kind: str) -> tuple[Example, ...]:
        return tuple(Example((path.parent / e["file"]).resolve(), e["about"], e.get("findings"))
                     for e in raw["examples"][kind])

    return Rule(
        raw["id"], raw["title"], raw["category"], raw["severity"], raw["citation"], raw["text"], raw["why"],
        raw.get("notes"), tuple(raw["applies"]["variants"]), tuple(raw["applies"]["structures"]), raw["facts"],
        tuple(raw.get("needs", [])), compiled("when", compile_expression), compiled("violation", compile_expression),
        compiled("message", compile_template), compiled("expected", compile_template),
        compiled("actual", compile_template), examples("violating"), examples("clean"),
        _line_of(root, ["rules", index]) or 0, raw.get("seat", "seat"), raw.get("player", "player"),
    )


def builtin_pack_paths() -> dict[str, Path]:
    return {p.stem: p for p in sorted(RULES_DIR.glob("*.yaml"))}


def resolve_pack(name_or_file: str) -> Pack:
    """A built-in pack by name, or a pack file by path."""
    path = Path(name_or_file)
    if path.suffix in (".yaml", ".yml") or path.exists():
        return load_pack(path)
    builtin = builtin_pack_paths()
    if name_or_file not in builtin:
        known = ", ".join(builtin) or "none"
        raise PackError(name_or_file, None, f"no such rule pack (built-in packs: {known})")
    return load_pack(builtin[name_or_file])
