"""Loading rule packs: YAML → schema validation → `extends` merged → compiled rules.

A pack that fails to load stops the run with `file:line: what is wrong`, because auditing under a
half-understood rule book would be worse than not auditing. Predicates are compiled once here,
so a predicate that tries to run code is refused before any hand is read.

A house pack may `extends:` a built-in pack (or another pack file) and give only what differs:
parameters, replaced or added rules, disabled rules. Merging happens on the raw YAML, before
compiling, so the merged pack passes exactly the checks a stand-alone pack passes, and every error
still points at the file and line where the offending text was written.

A house pack can also change one field of an inherited rule by id without copying it (`overrides:
{TDA-38: {severity: warning}}`: severity, scope `applies`, or the values of parameters the rule
reads). The loaded pack is the *effective* pack (after extends, disable and overrides): it is what
checks run and what `rules show` prints, and `Pack.changes` says what each house file changed, so
nobody has to diff YAML to learn that a rule was silenced. House packs are where the traps are, so
every name a pack gives must mean something: an unknown key, an override of an unknown rule or field,
or a parameter that no rule reads and the replay does not know is an error naming the nearest valid
name ("unknown parameter max_raise; did you mean max_raises?"), never a silently ignored setting.

Packs are untrusted input, so a pack has size limits (MAX_PACK_BYTES per file, MAX_RULES per pack,
MAX_YAML_DEPTH, MAX_LIST_ITEMS, MAX_MAPPING_KEYS; predicates have their own in auditor/check/expr.py),
each a PackError naming the file, and an error quotes at most a short escaped excerpt of the value it
refuses (`excerpt`), never the value itself: a 50 MB string must not become a 50 MB error message.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, cached_property, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jsonschema_rs
import yaml

from auditor.check.expr import Expression, ExpressionError, Template, compile_expression, compile_template
from auditor.ingest.validate import load_json_schema
from auditor.replay.facts import FACT_COLUMNS, HAND_COLUMNS
from auditor.replay.house import HouseRules, RakeSchedule
from auditor.resources import rules_dir, schema_path

if TYPE_CHECKING:
    import jsonschema

#: libyaml's parser when installed: 30x faster than pure Python, which matters for `rules show` and tests
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
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
    #: a house pack extending the rule's pack, to audit this example under (None: the pack itself)
    pack: Path | None = None


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
    #: rule-catalogue rows (BLD-01, BET-02, ...) this rule implements
    catalogue: tuple[str, ...] = ()
    #: the pack file the rule is written in (a parent's file for an inherited rule)
    file: Path | None = None
    #: the parameter values this rule is checked with when a house pack overrides some for it alone
    #: (the pack's parameters with the override merged); None: the pack's own parameters
    parameters: Mapping[str, Any] | None = None
    #: "hand": judged batch by batch; "run": judged once over every hand of the audit by the run-wide ledger
    #: (`auditor/engines/ledger.py`), the only place facts such as duplicate_hand_id exist (RUN_FACTS)
    scope: str = "hand"

    @cached_property
    def reads(self) -> frozenset[str]:
        """Every facts column the rule reads: its needs, predicates and templates, and the columns naming
        the seat and player of a finding. Kept on the rule (computed once) because checks ask per batch."""
        names = set(self.needs) | {self.seat_column, self.player_column}
        for part in (self.when, self.violation, self.message, self.expected, self.actual):
            if part is not None:
                names |= part.names
        return frozenset(names)


@dataclass(frozen=True)
class Change:
    """One thing a house pack changed in the pack it extends, with the place it is written."""

    #: the rule changed; None for a pack parameter
    rule_id: str | None
    #: "disabled", "overridden", "replaced", "added" or "parameter"
    kind: str
    #: what changed, in words ("severity error -> warning")
    detail: str
    file: Path
    line: int | None
    #: the pack parameter changed (kind "parameter")
    parameter: str | None = None

    def one_line(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else str(self.file)
        return f"{where}: {self.detail}"


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
    #: the pack this one extends, as written in the file (None for a stand-alone pack)
    extends: str | None = None
    #: what the extending files changed, in the order they were merged (empty for a stand-alone pack)
    changes: tuple[Change, ...] = ()
    #: the rules an extending file disabled, as their own pack wrote them (for `rules show`)
    disabled: tuple[Rule, ...] = ()

    def changes_of(self, rule_id: str) -> list[Change]:
        """The changes a house pack made to one rule, and to the pack parameters the rule reads."""
        reads: frozenset[str] = frozenset()
        for rule in (*self.rules, *self.disabled):
            if rule.id == rule_id:
                reads = rule.reads
        return [c for c in self.changes if c.rule_id == rule_id or (c.rule_id is None and c.parameter in reads)]

    def rule(self, rule_id: str) -> Rule:
        for rule in self.rules:
            if rule.id == rule_id:
                return rule
        raise KeyError(rule_id)


@cache
def _pack_validator() -> jsonschema.protocols.Validator:
    """The Python validator: slow, but its errors carry the path and message a pack author needs (imported only
    for a pack jsonschema-rs refuses: a valid pack, every pack of an audit, never needs it)."""
    import jsonschema

    schema = load_json_schema(schema_path("rule-pack.schema.json"))
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema)


@cache
def _fast_validator() -> Any:
    """The same schema in jsonschema-rs: many times faster, used to pass valid packs without the slow walk."""
    return jsonschema_rs.validator_for(load_json_schema(schema_path("rule-pack.schema.json")))


def _schema_valid(data: Any) -> bool:
    """True when the fast validator accepts `data`; anything it cannot say (e.g. a YAML date, which is not
    JSON) falls back to the Python validator, which then gives the error."""
    try:
        return bool(_fast_validator().is_valid(data))
    except Exception:  # a value jsonschema-rs cannot take is not an answer: ask the Python validator
        return False


#: an error quotes at most this many characters of a value it refuses
EXCERPT_LENGTH = 60


def excerpt(value: object, limit: int = EXCERPT_LENGTH) -> str:
    """A short, escaped quotation of an (attacker-chosen) value for an error message.

    Strings are cut to `limit` characters *before* escaping, so a 50 MB string costs nothing; repr()
    escapes control, bidirectional and other unprintable characters, so the excerpt cannot rewrite the
    terminal or the report it is shown in. The full size is named when the value was cut.
    """
    if isinstance(value, str):
        if len(value) <= limit:
            return repr(value)
        return f"{value[:limit]!r}... ({len(value):,} characters)"
    if isinstance(value, dict | list | tuple):
        size = f"{type(value).__name__} of {len(value):,} item(s)"
        if len(value) > 20:  # repr() of a big container would cost as much as the container
            return f"a {size}"
        text = repr(value)
        return text if len(text) <= limit else f"{text[:limit]}... (a {size})"
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"


def _plain(text: str, limit: int = 200) -> str:
    """`text` as it is when short and printable (a path, mostly), else a quoted excerpt."""
    return text if len(text) <= limit and text.isprintable() else excerpt(text, limit)


def _schema_message(error: jsonschema.exceptions.ValidationError) -> str:
    """The validator's message with the offending value quoted as a short excerpt.

    jsonschema writes `repr(instance)` into most messages ("'...' is too long", "... is not of type"),
    and additional property names into others; both are the pack author's text, of any size.
    """
    message = error.message
    if len(message) <= 2 * EXCERPT_LENGTH:
        return message
    shown = repr(error.instance)
    if shown in message:
        message = message.replace(shown, excerpt(error.instance))
    return message if len(message) <= 300 else excerpt(message, 300)


def _path_text(path: Iterable[Any]) -> str:
    """A JSON path for an error: each key (the author's text) quoted short and escaped when unusual."""
    parts = []
    for key in path:
        text = str(key)
        if len(text) > 40 or not text.isprintable() or "/" in text:
            text = excerpt(text, 40)
        parts.append(text)
    return "/".join(parts) or "(pack)"


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
    """The pack's house from its parameters (absent ones keep the defaults): the replay reads its `ReplayRules`
    part, the simulator all of it (house.py says which setting is whose)."""
    kwargs: dict[str, Any] = {}
    if "suit_order" in parameters:
        kwargs["suit_order"] = tuple(SUIT_LETTER[s] for s in parameters["suit_order"])
    for key in ("odd_chip_method", "max_raises", "heads_up_uncapped", "limit_reopen_fraction", "hand_rake_from"):
        if key in parameters:
            kwargs[key] = parameters[key]
    if "button_heir" in parameters:
        kwargs["button_heir"] = tuple(parameters["button_heir"])
    if "hole_use" in parameters:
        kwargs["hole_use"] = {k: (v[0], v[1]) for k, v in parameters["hole_use"].items()}
    if "rake_schedule" in parameters:
        rake = parameters["rake_schedule"]
        kwargs["rake"] = RakeSchedule(Fraction(str(rake["percent"])), rake.get("cap"), rake.get("increment"),
                                      rake.get("no_flop_no_drop", True))
    return HouseRules(**kwargs)


@dataclass(frozen=True)
class _RawRule:
    """A rule as written, with the file and YAML node it came from (for file:line and example paths)."""

    raw: dict[str, Any]
    path: Path
    root: yaml.Node
    index: int
    #: parameter values an extending file's `overrides:` gives this rule alone: name -> (value, file, line)
    parameters: Mapping[str, tuple[Any, Path, int | None]] | None = None


@dataclass(frozen=True)
class _RawPack:
    data: dict[str, Any]
    rules: tuple[_RawRule, ...]
    #: parameters a file of the chain gives that its parent does not have: (name, file, line)
    introduced: tuple[tuple[str, Path, int | None], ...] = ()
    changes: tuple[Change, ...] = ()
    disabled: tuple[_RawRule, ...] = ()


#: a pack is a few levels deep; anything far deeper is hostile (and would exhaust the validator's stack)
MAX_YAML_DEPTH = 32
#: the largest pack file read. The built-in packs are 30-60 kB (20-40 rules); MAX_RULES such rules are
#: about 3 MB. Checked before parsing (one stat()): parsing YAML costs about 0.5 s per MB.
MAX_PACK_BYTES = 8 * 1024 * 1024
#: the most rules a pack may have, in one file and after `extends` is merged. The built-in packs have
#: 20-40; loading and checking cost grow with the number of rules (docs/hostile-input.md, "Pack limits"), so a
#: limit keeps a hostile or generated pack from stalling a run.
MAX_RULES = 2000
#: no list in a pack is longer (rules and disable are the longest the schema allows), and no mapping has
#: more keys than parameters may: checked in one pass before the schema, whose Python validator would
#: otherwise take half a minute to walk a list of a million items just to say it is too long
MAX_LIST_ITEMS = MAX_RULES
MAX_MAPPING_KEYS = 200


def _shape_error(data: Any) -> tuple[list[Any] | None, str] | None:
    """The first place parsed YAML is nested too deeply or holds too large a list or mapping, as (path,
    reason), without recursion; None when the shape is within the limits. Only containers are pushed."""
    stack: list[tuple[Any, int, tuple[Any, ...]]] = [(data, 1, ())]
    while stack:
        item, level, path = stack.pop()
        if level > MAX_YAML_DEPTH:
            return None, f"invalid YAML: nested more than {MAX_YAML_DEPTH} levels deep"
        if isinstance(item, dict):
            size, limit, children = len(item), MAX_MAPPING_KEYS, item.items()
        elif isinstance(item, list):
            size, limit, children = len(item), MAX_LIST_ITEMS, enumerate(item)
        else:
            continue
        if size > limit:
            kind = "keys" if isinstance(item, dict) else "items"
            return list(path), f"{size:,} {kind}; no {'mapping' if kind == 'keys' else 'list'} in a pack may " \
                               f"have more than {limit:,}"
        for key, child in children:
            if isinstance(child, dict | list):
                stack.append((child, level + 1, (*path, key)))
            elif level + 1 > MAX_YAML_DEPTH:
                return None, f"invalid YAML: nested more than {MAX_YAML_DEPTH} levels deep"
    return None


def _read(path: Path, reads: list[tuple[Path, str | bool]] | None = None) -> tuple[dict[str, Any], yaml.Node]:
    """One pack file, parsed and checked against the schema on its own."""
    name = str(path)
    try:
        size = path.stat().st_size
        if size > MAX_PACK_BYTES:
            raise PackError(name, None, f"pack file is too large ({size:,} bytes; the limit is {MAX_PACK_BYTES:,})")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PackError(name, None, f"cannot read: {_one_line(exc)}") from exc
    if len(text) > MAX_PACK_BYTES:  # a file that grew after the stat()
        raise PackError(name, None, f"pack file is too large (the limit is {MAX_PACK_BYTES:,} bytes)")
    if reads is not None:
        reads.append((path, text))
    loader = _Loader(text)
    try:  # one parse: the node tree gives file:line for errors, the same tree gives the data
        # an alias needs an anchor (&name): without '&' in the text there is none, and the event scan
        # (a second parse of the whole file) is skipped
        alias = None if "&" not in text else next(
            (e for e in yaml.parse(text, Loader=_Loader) if isinstance(e, yaml.AliasEvent)), None)
        if alias is not None:
            # a rule pack needs no anchors; refusing aliases refuses "billion laughs" expansion bombs
            raise _Refused(alias.start_mark.line + 1, "YAML aliases (*name) are not allowed in rule packs")
        root = loader.get_single_node()
        data = loader.construct_document(root) if root is not None else None
    except _Refused as exc:  # not through the ValueError handler below (PackError is one)
        raise PackError(name, exc.line, exc.message) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        raise PackError(name, mark.line + 1 if mark else None, f"invalid YAML: {_one_line(exc.problem)}") from exc
    except yaml.YAMLError as exc:
        raise PackError(name, None, f"invalid YAML: {_one_line(exc)}") from exc
    except RecursionError as exc:
        raise PackError(name, None, "invalid YAML: nested too deeply") from exc
    except ValueError as exc:  # e.g. an integer of thousands of digits, which Python refuses to convert
        raise PackError(name, None, f"invalid YAML: {_one_line(exc)}") from exc
    finally:
        loader.dispose()
    rules = data.get("rules") if isinstance(data, dict) else None
    if isinstance(rules, list) and len(rules) > MAX_RULES:  # before the schema, which would walk them all
        raise PackError(name, _line_of(root, ["rules"]), f"too many rules ({len(rules):,}; the limit is "
                                                         f"{MAX_RULES:,} rules per pack)")
    shape = _shape_error(data)
    if shape is not None:
        where, reason = shape
        if where is None:
            raise PackError(name, None, reason)
        raise PackError(name, _line_of(root, where), f"at {_path_text(where)}: {reason}")
    if not _schema_valid(data):
        errors = list(_pack_validator().iter_errors(data))
        # an unknown key first: a misspelt key (severty) also makes a required one missing, and the
        # misspelling, with the name it was meant to be, is what the author has to fix
        unknown = next((e for e in errors if e.validator == "additionalProperties"), None)
        if unknown is not None:
            path_in, message = _unknown_key(unknown)
            raise PackError(name, _key_line(root, path_in), f"at {_path_text(path_in[:-1])}: {message}")
        from jsonschema.exceptions import best_match

        error = best_match(errors)
        if error is not None:
            where = _path_text(error.absolute_path)
            raise PackError(name, _line_of(root, list(error.absolute_path)), f"at {where}: {_schema_message(error)}")
        strict = _strict_error(data)
        if strict is not None:
            path_in, message = strict
            raise PackError(name, _line_of(root, path_in), f"at {_path_text(path_in)}: {message}")
    return data, root


#: the fields of an inherited rule `overrides:` may change; anything else means replacing the whole rule
OVERRIDABLE = ("severity", "applies", "parameters")


def nearest(name: str, candidates: Iterable[str]) -> str:
    """"; did you mean X?" for the closest candidate to a misspelt name, or "" when none is close."""
    if len(name) > 100:  # no valid name is this long; a hostile one costs nothing
        return ""
    close = difflib.get_close_matches(name, sorted(set(candidates)), n=5, cutoff=0.6)
    if not close:
        return ""
    # of the close ones, the fewest typing slips away (a swap of two neighbours is one: TDA-82 is TDA-28)
    # (at equal slips, the one with the same letters: a swap, not a wrong key)
    return f"; did you mean {min(close, key=lambda c: (_slips(name, c), sorted(c) != sorted(name)))}?"


def _slips(a: str, b: str) -> int:
    """Edits (insert, delete, replace, swap of neighbours) from a to b: optimal string alignment distance."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], previous2[j - 2] + 1)
        previous2, previous = previous, row
    return previous[-1]


def _unknown_key(error: jsonschema.exceptions.ValidationError) -> tuple[list[Any], str]:
    """(path to the unknown key, message naming it and the nearest valid key) for an additionalProperties
    error. The key is the author's text, so it is quoted as an excerpt."""
    allowed = list(error.schema.get("properties", {}))
    where = list(error.absolute_path)
    key = next((k for k in error.instance if k not in allowed), None) if isinstance(error.instance, dict) else None
    if key is None:
        return where, _schema_message(error)
    text = str(key)
    shown = excerpt(text, 40)
    if len(where) == 2 and where[0] == "overrides":
        rule_fields = _rule_fields()
        reason = (f"{shown} cannot be overridden{nearest(text, OVERRIDABLE)} (an override changes "
                  f"{', '.join(OVERRIDABLE)}; to change anything else, give the whole rule under rules:)"
                  if text in rule_fields else f"unknown field {shown}{nearest(text, OVERRIDABLE)} (an override "
                                              f"changes {', '.join(OVERRIDABLE)})")
        return [*where, key], reason
    return [*where, key], f"unknown key {shown}{nearest(text, allowed)}"


@cache
def _rule_fields() -> frozenset[str]:
    return frozenset(load_json_schema(schema_path("rule-pack.schema.json"))["$defs"]["rule"]["properties"])


def _key_line(node: yaml.Node | None, path: list[Any]) -> int | None:
    """Line (1-based) of the mapping *key* at the end of a JSON path (the value of a key may start on a
    later line, e.g. a nested mapping): where a misspelt key is written."""
    if not path:
        return _line_of(node, path)
    parent = _line_of(node, path[:-1])
    for key in path[:-1]:
        if isinstance(node, yaml.MappingNode):
            node = next((v for k, v in node.value if getattr(k, "value", None) == str(key)), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            node = node.value[key]
        else:
            return parent
    if isinstance(node, yaml.MappingNode):
        for k, _ in node.value:
            if getattr(k, "value", None) == str(path[-1]):
                return k.start_mark.line + 1
    return parent


def _strict_error(data: Any) -> tuple[list[Any], str] | None:
    """What jsonschema-rs refuses that the Python validator lets through: Python's `re.search` lets a
    pattern's `$` match before a final newline, so an id "TDA-1\n" would pass and put a line break into
    every message naming the rule. None when jsonschema-rs has no error to give (a value it cannot take)."""
    try:
        _fast_validator().validate(data)
    except jsonschema_rs.ValidationError as exc:
        message = " ".join(str(exc.message).split())
        if len(message) > 2 * EXCERPT_LENGTH or not message.isprintable():
            keyword = exc.schema_path[-1] if exc.schema_path else "schema"
            message = f"{excerpt(exc.instance)} is refused by the schema ({keyword})"
        return list(exc.instance_path), message
    except Exception:  # a value jsonschema-rs cannot take: the Python validator's verdict stands
        return None
    return None


class _Refused(Exception):
    """A refusal found while parsing, raised past the parser's own error handlers."""

    def __init__(self, line: int | None, message: str):
        super().__init__(message)
        self.line, self.message = line, message


def _one_line(text: object, limit: int = 300) -> str:
    """An exception's text on one line and short (YAML errors quote the offending input)."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else excerpt(flat, limit)


def _parent_path(path: Path, extends: str, line: int | None,
                 reads: list[tuple[Path, str | bool]] | None = None) -> Path:
    """`extends:` names a built-in pack, or a pack file relative to the extending file."""
    relative = path.parent / extends
    if reads is not None:
        reads.append((relative, relative.is_file()))
    if relative.suffix in (".yaml", ".yml") or "/" in extends or relative.is_file():
        if relative.is_file():
            return relative
        raise PackError(str(path), line, f"extends: no pack file {_plain(str(relative))}")
    builtin = builtin_pack_paths()
    if extends in builtin:
        return builtin[extends]
    known = ", ".join(builtin) or "none"
    raise PackError(str(path), line, f"extends: no such rule pack {excerpt(extends)}{nearest(extends, builtin)} "
                                     f"(built-in packs: {known}; or give a path relative to this file)")


def _merged(path: Path, chain: tuple[Path, ...] = (),
            reads: list[tuple[Path, str | bool]] | None = None) -> _RawPack:
    """The pack at `path` with its `extends` chain resolved: parent first, then this file's overrides."""
    name = str(path)
    reads = [] if reads is None else reads
    data, root = _read(path, reads)
    own = tuple(_RawRule(raw, path, root, i) for i, raw in enumerate(data.get("rules", [])))
    seen: set[str] = set()
    for rule in own:
        if rule.raw["id"] in seen:
            raise PackError(name, _line_of(root, ["rules", rule.index]), f"rule {rule.raw['id']}: id used twice")
        seen.add(rule.raw["id"])
    if "extends" not in data:
        introduced = tuple((k, path, _key_line(root, ["parameters", k])) for k in data.get("parameters", {}))
        return _RawPack(data, own, introduced)
    line = _line_of(root, ["extends"])
    parent_path = _parent_path(path, data["extends"], line, reads)
    chain = (*chain, path.resolve())
    if parent_path.resolve() in chain:
        cycle = " -> ".join(p.name for p in (*chain, parent_path.resolve()))
        raise PackError(name, line, f"extends: cycle {cycle}")
    parent = _merged(parent_path, chain, reads)
    rules = {r.raw["id"]: r for r in parent.rules}
    changes, inherited = list(parent.changes), len(parent.changes)
    dropped = list(parent.disabled)
    disabled = data.get("disable", [])
    for index, rule_id in enumerate(disabled):
        if rule_id not in rules:
            raise PackError(name, _line_of(root, ["disable", index]),
                            f"disable: no rule '{rule_id}' in the pack it extends ({parent.data['pack']})"
                            f"{nearest(rule_id, rules)}")
        dropped.append(rules.pop(rule_id))
        changes.append(Change(rule_id, "disabled", f"{data['pack']} disables {rule_id}", path,
                              _line_of(root, ["disable", index])))
    for rule in own:
        if rule.raw["id"] in disabled:
            raise PackError(name, _line_of(root, ["rules", rule.index]),
                            f"rule {rule.raw['id']}: both given and disabled")
    for rule in own:  # the same id replaces the parent's rule in place; new ids go at the end
        rule_id = rule.raw["id"]
        kind = "replaced" if rule_id in rules else "added"
        verb = "replaces" if kind == "replaced" else "adds"
        changes.append(Change(rule_id, kind, f"{data['pack']} {verb} {rule_id} with its own rule", path,
                              _line_of(root, ["rules", rule.index])))
        rules[rule_id] = rule
    own_ids = {r.raw["id"] for r in own}
    for rule_id, fields in data.get("overrides", {}).items():
        rules[rule_id] = _overridden(rules, rule_id, fields, own_ids, set(disabled), data["pack"], path, root, changes)
    if not rules:
        raise PackError(name, line, "no rules left after disabling the parent's")
    if len(rules) > MAX_RULES:
        raise PackError(name, _line_of(root, ["rules"]) or line,
                        f"too many rules with the pack it extends ({len(rules):,}; the limit is {MAX_RULES:,} "
                        "rules per pack)")
    documents = {d["id"]: d for d in parent.data["documents"]} | {d["id"]: d for d in data.get("documents", [])}
    introduced = list(parent.introduced)
    for key, value in data.get("parameters", {}).items():
        key_line = _key_line(root, ["parameters", key])
        if key not in parent.data["parameters"]:
            introduced.append((key, path, key_line))
            changes.append(Change(None, "parameter", f"{data['pack']} sets parameter {key} = {_shown(value)}", path,
                                  key_line, key))
        elif parent.data["parameters"][key] != value:
            changes.append(Change(None, "parameter", f"{data['pack']} changes parameter {key}: "
                                                     f"{_shown(parent.data['parameters'][key])} -> {_shown(value)}",
                                  path, key_line, key))
    merged = {
        "pack": data["pack"], "version": data["version"], "title": data["title"],
        "description": data.get("description", parent.data.get("description")),
        "documents": list(documents.values()),
        "parameters": {**parent.data["parameters"], **data.get("parameters", {})},
        "extends": data["extends"],
    }
    changes[inherited:] = sorted(changes[inherited:], key=lambda c: c.line or 0)  # this file's, in its order
    return _RawPack(merged, tuple(rules.values()), tuple(introduced), tuple(changes), tuple(dropped))


def _shown(value: Any) -> str:
    """A parameter value as a pack writes it (flow YAML), short: for the lines saying what a house changed.
    A long list is only counted: dumping a hostile pack's 200 lists of 1,000 items would cost seconds."""
    if isinstance(value, list | dict) and len(value) > 20:
        return f"a {'list' if isinstance(value, list) else 'mapping'} of {len(value):,} items"
    text = value if isinstance(value, str) else \
        yaml.safe_dump(value, default_flow_style=True, sort_keys=False).strip().removesuffix("...").strip()
    return _plain(text, 120)


def _overridden(rules: dict[str, _RawRule], rule_id: str, fields: dict[str, Any], own: set[str], disabled: set[str],
                pack: str, path: Path, root: yaml.Node, changes: list[Change]) -> _RawRule:
    """The inherited rule `rule_id` with an `overrides:` entry applied to its raw YAML (severity, applies) and
    its own parameter values recorded (checked against what the rule reads once it is compiled)."""
    name, line = str(path), _key_line(root, ["overrides", rule_id])
    if rule_id in disabled:
        raise PackError(name, line, f"overrides: {rule_id} is both disabled and overridden")
    if rule_id in own:
        raise PackError(name, line, f"overrides: {rule_id} is also given whole under rules: (change it there)")
    if rule_id not in rules:
        raise PackError(name, line, f"overrides: no rule {excerpt(rule_id)} in the pack{nearest(rule_id, rules)}")
    base = rules[rule_id]
    raw, said = dict(base.raw), []
    if "severity" in fields:
        said.append(f"severity {raw['severity']} -> {fields['severity']}")
        raw["severity"] = fields["severity"]
    if "applies" in fields:
        applies = {**raw["applies"], **fields["applies"]}
        for key in ("variants", "structures"):
            if applies[key] != raw["applies"][key]:
                said.append(f"{key} {', '.join(raw['applies'][key])} -> {', '.join(applies[key])}")
        raw["applies"] = applies
    parameters = dict(base.parameters or {})
    for key, value in fields.get("parameters", {}).items():
        parameters[key] = (value, path, _key_line(root, ["overrides", rule_id, "parameters", key]))
        said.append(f"parameter {key} = {_shown(value)} for this rule only")
    changes.append(Change(rule_id, "overridden", f"{pack} overrides {rule_id}: {'; '.join(said) or 'nothing'}",
                          path, line))
    return _RawRule(raw, base.path, base.root, base.index, parameters or None)


#: the packs this process has loaded, by path: (what each load read, the Pack). A CLI run loaded each
#: pack twice (to name the run's packs, then for its partitions: ~13 ms a pack) and an in-process `audit()`
#: again on every call; a pack is a pure function of the files it read, so it is given again only while
#: every one of them still holds the same text (read again and compared: a few small files, well under a
#: millisecond; no trust in modification times) and every `extends` that was resolved still resolves the same
_loaded: dict[tuple[Path, Path], tuple[tuple[tuple[Path, str | bool], ...], Pack]] = {}


def load_pack(path: Path) -> Pack:
    """A pack file (its `extends` chain merged) compiled and checked, or PackError with file:line. The same
    Pack object again when nothing it was made of has changed (`_loaded`); a PackError is never remembered."""
    key = (path, path.resolve())  # the path as given too: a Pack names its file as it was given
    known = _loaded.get(key)
    if known is not None and all(_still(file, seen) for file, seen in known[0]):
        return known[1]
    reads: list[tuple[Path, str | bool]] = []  # (file, its text) read, (candidate, is_file) probed
    pack = _load_pack(path, reads)
    _loaded[key] = (tuple(reads), pack)
    return pack


def _still(file: Path, seen: str | bool) -> bool:
    """Whether `file` still reads as it did: the same text for a pack file, the same answer for a probe."""
    if isinstance(seen, bool):
        return file.is_file() == seen
    try:
        return file.read_text(encoding="utf-8") == seen
    except (OSError, UnicodeDecodeError):
        return False


def _load_pack(path: Path, reads: list[tuple[Path, str | bool]]) -> Pack:
    merged = _merged(path, reads=reads)
    data, parameters = merged.data, merged.data["parameters"]
    context = _Context(parameters)
    rules = [_compile_rule(item, context) for item in merged.rules]
    disabled = [_compile_rule(item, context) for item in merged.disabled]
    _check_parameters(merged, rules, disabled, parameters)
    return Pack(data["pack"], data["version"], data["title"], data.get("description"),
                tuple(data["documents"]), parameters, house_rules(parameters), tuple(rules), path,
                data.get("extends"), merged.changes, tuple(disabled))


#: of the house settings (`engine_parameters`), the ones the replay does not read: predicates read them (TDA-48
#: reads max_raises), so one rule may have its own value; every other house setting shapes the facts every
#: rule reads, and is set for the whole pack only
PREDICATE_PARAMETERS = frozenset(("max_raises", "heads_up_uncapped"))


@cache
def engine_parameters() -> frozenset[str]:
    """The house settings (HouseRules: what the replay reads, and the simulator's cap and odd-chip method), as
    the schema names them: a pack may set one that no rule names. Read from the schema so a new house setting
    needs no second list."""
    schema = load_json_schema(schema_path("rule-pack.schema.json"))
    return frozenset(schema["properties"]["parameters"]["properties"])


@cache
def _fact_tables() -> dict[str, str]:
    """Each fact column's name -> where it is ("the actions table", "every table" for a hand column)."""
    tables: dict[str, str] = {}
    for table, columns in FACT_COLUMNS.items():
        for column, _, _ in columns:
            tables.setdefault(column, f"the {table} table")
    return tables | {column: "a hand column of every table" for column in HAND_COLUMNS}


def _check_parameters(merged: _RawPack, rules: list[Rule], disabled: list[Rule], parameters: dict[str, Any]) -> None:
    """A parameter must mean something: a pack parameter that no rule reads (nor a disabled one) and the
    replay does not know is a misspelling or a leftover, and a rule's own override must be of a parameter
    it reads and that does not shape the facts. Either is an error naming the nearest valid name."""
    read = frozenset().union(*(r.reads for r in (*rules, *disabled)))
    for key, file, line in merged.introduced:
        table = _fact_tables().get(key)
        if table is not None:  # a predicate looks a name up in the facts first: the value would never be read
            raise PackError(str(file), line, f"parameter {key} has the name of a fact ({table}): a rule naming "
                                             f"{key} reads the fact, never this value; give the parameter another name")
        if key not in read and key not in engine_parameters():
            known = (engine_parameters() | frozenset(parameters)) - {key}
            raise PackError(str(file), line, f"unknown parameter {key}{nearest(key, known)} (no rule of the pack "
                                             "reads it and it is not a house setting of the replay)")
    for item, rule in zip(merged.rules, rules, strict=True):
        for key, (_, file, line) in (item.parameters or {}).items():
            if key in engine_parameters() - PREDICATE_PARAMETERS:
                raise PackError(str(file), line, f"overrides: {rule.id}: parameter {key} shapes the facts every rule "
                                                 "reads, so it is set for the whole pack (under parameters:)")
            if key not in rule.reads or key not in parameters:
                own = sorted(n for n in rule.reads if n in parameters)
                raise PackError(str(file), line, f"overrides: {rule.id}: unknown parameter {key}"
                                                 f"{nearest(key, own)} (the rule reads "
                                                 f"{', '.join(own) or 'no parameter'})")


@lru_cache(maxsize=8192)
def _expression(text: str) -> Expression:
    """Each distinct predicate text is compiled once (an Expression is immutable, so rules may share it):
    generated packs repeat the same few predicates thousands of times."""
    return compile_expression(text)


@lru_cache(maxsize=8192)
def _template(text: str) -> Template:
    return compile_template(text)


class _Context:
    """What every rule of one pack is compiled against, worked out once per pack rather than per rule."""

    def __init__(self, parameters: dict[str, Any]):
        self.parameters = parameters
        self._known: dict[str, frozenset[str]] = {}
        self._resolved: dict[tuple[str, str], Path] = {}

    def known(self, facts: str) -> frozenset[str]:
        """The names a rule over the `facts` table may use: its columns, the hand columns, the parameters."""
        if facts not in self._known:
            self._known[facts] = (frozenset(c for c, _, _ in FACT_COLUMNS[facts]) | frozenset(HAND_COLUMNS)
                                  | frozenset(self.parameters))
        return self._known[facts]

    def resolve(self, folder: Path, file: str) -> Path:
        """An example's path, resolved once per (folder, file): resolve() asks the file system."""
        key = (str(folder), file)  # str() of a Path is cached; hashing the Path is not (0.5 s for 2,000 rules)
        if key not in self._resolved:
            self._resolved[key] = (folder / file).resolve()
        return self._resolved[key]


#: facts of the hands table only the whole run can know (is a hand id used by another hand anywhere in the
#: audit, and where first): the run-wide ledger writes them (a batch's facts leave them null), so a rule
#: reading one must say `scope: run`, and is then judged by the ledger only
RUN_FACTS = frozenset({"duplicate_hand_id", "duplicate_of"})


def _check_scope(rule: Rule, name: str, line: int) -> None:
    """A rule reading a run-wide fact is run-wide, and a run-wide rule is about hands: anything else would
    be judged per batch on facts a batch does not have (every hand null: silently never a finding)."""
    run_facts = sorted(rule.reads & RUN_FACTS)
    if run_facts and rule.scope != "run":
        raise PackError(name, line, f"rule {rule.id}: reads {', '.join(run_facts)}, which only the whole run knows: "
                                    "give it scope: run")
    if rule.scope == "run" and rule.facts != "hands":
        raise PackError(name, line, f"rule {rule.id}: scope: run rules judge the hands table (facts: hands), not "
                                    f"{rule.facts}")


def _compile_rule(item: _RawRule, context: _Context) -> Rule:
    raw, path, root, index, name = item.raw, item.path, item.root, item.index, str(item.path)
    known = context.known(raw["facts"])

    def compiled(key: str, make: Any) -> Any:
        if key not in raw:
            return None
        made = None
        try:
            made = make(raw[key])
            made.check_names(known)
            return made
        except ExpressionError as exc:
            line = _line_of(root, ["rules", index, key])
            unknown = sorted(made.names - known) if made is not None else []
            hint = nearest(unknown[0], known) if unknown else ""  # a misspelt fact or parameter
            raise PackError(name, line, f"rule {raw['id']}: {key}: {exc.reason}{hint}") from exc

    for key in ("seat", "player"):
        if key in raw and raw[key] not in known:
            raise PackError(name, _line_of(root, ["rules", index, key]),
                            f"rule {raw['id']}: {key}: unknown fact {excerpt(raw[key])} in table {raw['facts']}"
                            f"{nearest(raw[key], known)}")
    for need in raw.get("needs", []):
        if need not in known:
            raise PackError(name, _line_of(root, ["rules", index, "needs"]),
                            f"rule {raw['id']}: needs: unknown fact {excerpt(need)} in table {raw['facts']}"
                            f"{nearest(need, known)}")

    def examples(kind: str) -> tuple[Example, ...]:
        return tuple(Example(context.resolve(path.parent, e["file"]), e["about"], e.get("findings"),
                             context.resolve(path.parent, e["pack"]) if "pack" in e else None)
                     for e in raw["examples"][kind])

    rule = Rule(
        raw["id"], raw["title"], raw["category"], raw["severity"], raw["citation"], raw["text"], raw["why"],
        raw.get("notes"), tuple(raw["applies"]["variants"]), tuple(raw["applies"]["structures"]), raw["facts"],
        tuple(raw.get("needs", [])), compiled("when", _expression), compiled("violation", _expression),
        compiled("message", _template), compiled("expected", _template),
        compiled("actual", _template), examples("violating"), examples("clean"),
        _line_of(root, ["rules", index]) or 0, raw.get("seat", "seat"), raw.get("player", "player"),
        tuple(raw.get("catalogue", [])), path,
        {**context.parameters, **{k: v for k, (v, _, _) in item.parameters.items()}} if item.parameters else None,
        raw.get("scope", "hand"),
    )
    _check_scope(rule, name, _line_of(root, ["rules", index, "scope"]) or rule.line)
    return rule


def builtin_pack_paths() -> dict[str, Path]:
    """The built-in packs by name: the YAML files of the package's rules folder (package data, so the same
    for a checkout and an installed wheel; `auditor.resources`)."""
    return {p.stem: p for p in sorted(rules_dir().glob("*.yaml"))}


def declared_pack(name: str) -> Pack:
    """The pack a hand log declares for its table: a built-in pack only, never a file.

    A log is written by the party being audited; if it could name a pack file, it could choose the
    rules it is audited under. A house's own pack is used only when the auditor passes --pack.
    """
    builtin = builtin_pack_paths()
    if name not in builtin:
        known = ", ".join(builtin) or "none"
        raise PackError(name, None, f"not a built-in rule pack (built-in packs: {known}); a log cannot name a pack "
                                    "file, use --pack to audit under a house pack")
    return load_pack(builtin[name])


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
