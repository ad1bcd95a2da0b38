"""Room dialects: a room's hand-history export described as data (`rooms/<room>.yaml`) and compiled once.

Why data: every room writes the same facts (seats, posts, bets, boards, awards) in its own words, and the
anchors that wrote one converter class per room (800-2,400 lines each) broke whenever a room changed a line.
A dialect holds the room's words as line *templates*, its syntax (amounts, cards, times, game names) as
tables and its export habits as named *conventions*; one engine reads every dialect, and the same templates,
run backwards, write the room's text (so `verify --via ROOM` proves each room with the mutation suite).

A template is text with typed fields: `{player:player}: raises {by:amount} to {to:amount}{all_in?: and is
all-in}`. `{name:type}` is a field; `{name?:text}` an optional part (the flag `name` says whether it is
there; it may hold fields). A template compiles into a regular expression with a named group per field
(`Template.pattern`) and writes itself from values (`Template.write`). The types are `FIELD_TYPES`; a
dialect's `syntax` gives the room's words for the types that are the room's own (amounts, streets, pots).

The dialect files are checked against `schemas/dialect.schema.json` when loaded; a broken dialect is an
installation fault (`DialectError`), never a verdict on a hand.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["FIELD_TYPES", "Dialect", "DialectError", "Money", "Program", "Template", "amount_pattern", "dialect"]

#: a field's type -> what it matches (`{}` marks a pattern the dialect's syntax supplies)
FIELD_TYPES = {
    "int": r"\d+",
    "amount": "{amount}",
    "cards": r"[^\])]*",
    "player": r".+?",
    "name": r".+",
    "rest": r".*",
    "text": r".*?",
    "word": r"\S+",
    "words": r"(?:[\w']+ ){0,3}?",
    "code": r"\b[A-Z]{3}\b",
    "zone": r"[A-Z]{2,5}",
    "time_sep": r" - | ",
    "hand_word": r"Hand|Game",
    "street": "{street}",
    "draw": "{draw}",
    "pot": "{pot}",
    "pot_list": r".*?",
    "roles": "{roles}",
    "seat_status": "{seat_status}",
    "bracketless": r"[^()]*",
    "time": "{time}",
    "brand": "{brand}",
    "month": "{month}",
    "stake": "{stake}",
    # one or more blanks, never after a blank (a name before them ends in no blank); written up to the next of
    # `syntax.tab_stops` (one blank past the last), as rooms that pad their lines into columns write them
    "blanks": r"(?<! ) +",
    # a zone written as its offset from GMT (`GMT+01:00`), for a time stamp's `zone` field
    "offset_zone": r"[A-Z]{3}[+-]\d{2}:\d{2}",
}
_FIELD = re.compile(r"\{(?P<name>\w+)(?P<optional>\?)?:")


class DialectError(ValueError):
    """A dialect file that cannot be used (missing, not YAML, against its schema, a template that does not
    compile): a broken installation or a dialect being written, reported once with the file's name."""


@dataclass(frozen=True)
class Lit:
    text: str


@dataclass(frozen=True)
class Field:
    name: str
    type: str


@dataclass(frozen=True)
class Maybe:
    name: str
    parts: tuple[Lit | Field | Maybe, ...]


Part = Lit | Field | Maybe


def parse_template(text: str) -> tuple[Part, ...]:
    """A template's parts (`{name:type}` fields and `{name?:...}` optional parts, which nest)."""
    parts, _ = _parse(text, 0, top=True)
    return parts


def _parse(text: str, at: int, top: bool) -> tuple[tuple[Part, ...], int]:
    parts: list[Part] = []
    literal: list[str] = []
    while at < len(text):
        char = text[at]
        if char == "}" and not top:
            break
        match = _FIELD.match(text, at) if char == "{" else None
        if match is None:
            if char in "{}":
                raise DialectError(f"unbalanced brace at {at} in template {text!r}")
            literal.append(char)
            at += 1
            continue
        if literal:
            parts.append(Lit("".join(literal)))
            literal = []
        name, at = match["name"], match.end()
        if match["optional"]:
            inner, at = _parse(text, at, top=False)
            parts.append(Maybe(name, inner))
        else:
            close = text.find("}", at)
            kind = text[at:close]
            if close < 0 or kind not in FIELD_TYPES:
                raise DialectError(f"field {name!r} of unknown type {kind!r} in template {text!r}")
            parts.append(Field(name, kind))
            at = close
        if at >= len(text) or text[at] != "}":
            raise DialectError(f"unclosed field {name!r} in template {text!r}")
        at += 1
    if not top and (at >= len(text) or text[at] != "}"):
        raise DialectError(f"unclosed optional part in template {text!r}")
    if literal:
        parts.append(Lit("".join(literal)))
    return tuple(parts), at


@dataclass(frozen=True)
class Money:
    """Amounts as a room prints them: an integer count of the hand's units (`places` decimals; a cash amount
    with its currency's symbol) written and read in the dialect's syntax."""

    symbol: str
    places: int
    #: chips of a play-money or tournament hand are printed counted in this unit (the text states none)
    unit: int = 1
    #: the symbol written after the number (`5€`), not before
    after: bool = False

    def __call__(self, amount: int) -> str:
        if self.places == 0:
            number = f"{amount // self.unit}"
        else:
            whole, part = divmod(amount, 10 ** self.places)
            number = f"{whole}.{part:0{self.places}d}"
        return f"{number}{self.symbol}" if self.after else f"{self.symbol}{number}"


@dataclass(frozen=True)
class Template:
    """One kind of line: its parts, the regular expression that reads it and the text that writes it."""

    kind: str
    source: str
    parts: tuple[Part, ...]
    pattern: re.Pattern[str]
    #: what the room writes between cards (`syntax.cards.separator`)
    card_separator: str = " "
    #: the columns a `blanks` field pads the line to (`syntax.tab_stops`)
    tab_stops: tuple[int, ...] = ()

    @property
    def lead(self) -> str:
        """The literal text the line begins with, before its first field ("" when a field comes first)."""
        first = self.parts[0] if self.parts else None
        return first.text if isinstance(first, Lit) else ""

    def write(self, values: Mapping[str, Any], money: Money | None = None) -> str:
        """The line for `values` (a field's value: an int, an amount in the hand's units, a list of cards or a
        text; an optional part is written when its flag is true)."""
        if not self.tab_stops:
            return "".join(_write(part, values, money, self.card_separator) for part in self.parts)
        out: list[str] = []
        for part in self.parts:
            _write_padded(part, values, money, self.card_separator, self.tab_stops, out)
        return "".join(out)

    def read(self, line: str) -> dict[str, str | None] | None:
        """The fields of `line` as texts (None for an optional part not there), or None when it is not this
        kind of line."""
        match = self.pattern.fullmatch(line)
        return None if match is None else match.groupdict()


def _write(part: Part, values: Mapping[str, Any], money: Money | None, card_separator: str) -> str:
    if isinstance(part, Lit):
        return part.text
    if isinstance(part, Maybe):
        return "".join(_write(p, values, money, card_separator) for p in part.parts) if values.get(part.name) else ""
    if part.type == "blanks":  # (no tab stops: one blank)
        return " "
    value = values[part.name]
    if part.type == "amount":
        if money is None:
            raise ValueError(f"amount {part.name} written without the hand's money")
        return money(value)
    if part.type == "cards":
        return card_separator.join(value)
    return str(value)


def _write_padded(part: Part, values: Mapping[str, Any], money: Money | None, card_separator: str,
                  stops: tuple[int, ...], out: list[str]) -> None:
    """`_write` for a line with `blanks` fields: each pads the line so far to the next tab stop past it."""
    if isinstance(part, Maybe):
        if values.get(part.name):
            for inner in part.parts:
                _write_padded(inner, values, money, card_separator, stops, out)
    elif isinstance(part, Field) and part.type == "blanks":
        column = len("".join(out).rsplit("\n", 1)[-1])
        out.append(" " * (next((stop for stop in stops if stop > column), column + 1) - column))
    else:
        out.append(_write(part, values, money, card_separator))


#: the syntax word lists a `choice` field of each type chooses from
_CHOICES = {"street": lambda x: x["streets"], "draw": lambda x: x["draws"],
            "pot": lambda x: [x["pots"]["only"], x["pots"]["main"], x["pots"]["side"]],
            "seat_status": lambda x: list(x["seat_status"].values())}
#: dialect field types as the compiled matcher's (`room_match.TYPES`; the choices above are "choice")
_KERNEL_TYPES = {"int": "int", "amount": "amount", "cards": "cards", "player": "player", "name": "name",
                 "text": "text", "word": "word", "code": "code", "zone": "zone", "bracketless": "bracketless",
                 "pot_list": "text", "roles": "text", "rest": "name", "blanks": "blanks"}


@dataclass(frozen=True)
class Program:
    """A dialect's reading templates as rows the compiled matcher runs (`room_match.match`): `rows` (op, a, b, c)
    with every template's program one after another (template t begins at row `starts[t]`, reads lines of kind
    `kinds[t]`, holds its fields in `slots[t][field]`), `lit` the literals' bytes, `words` the choices' word
    lists (table, word, (lo, length)) longest first, `amount_slots[t]` the slots of its amounts; and the amount
    syntax (`symbols` padded rows, `thousands` and `decimal` bytes, -1 for none), `width` the most slots."""

    rows: np.ndarray
    lit: np.ndarray
    words: np.ndarray
    starts: np.ndarray
    kinds: tuple[str, ...]
    slots: tuple[dict[str, int], ...]
    amount_slots: tuple[frozenset[int], ...]
    templates: tuple[Template, ...]
    symbols: np.ndarray
    thousands: int
    decimal: int
    width: int

    def literal(self, text: str) -> tuple[int, int]:
        """Where `text` is among the literals: (lo, length); appended when absent (before the program is used)."""
        data = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
        blob = self.lit.tobytes()
        at = blob.find(data.tobytes())
        if at < 0:
            raise DialectError(f"{text!r} is no literal of the dialect's templates")
        return at, len(data)

    @classmethod
    def of(cls, spoken: Dialect) -> Program:
        from auditor.ingest import room_match as M

        rows: list[list[int]] = []
        lit = bytearray()
        tables: list[list[tuple[int, int]]] = []
        table_of: dict[str, int] = {}

        def literal(text: str) -> tuple[int, int]:
            data = text.encode("utf-8")
            lit.extend(data)
            return len(lit) - len(data), len(data)

        def emit(parts: tuple[Part, ...], slots: dict[str, int]) -> None:
            for part in parts:
                if isinstance(part, Lit):
                    rows.append([M.OP_LIT, *literal(part.text), 0])
                elif isinstance(part, Maybe):
                    slot = slots.setdefault(part.name, len(slots))
                    at = len(rows)
                    rows.append([M.OP_MAYBE, slot, 0, 0])
                    emit(part.parts, slots)
                    rows.append([M.OP_END, slot, 0, 0])
                    rows[at][2] = len(rows)
                else:
                    slot = slots.setdefault(part.name, len(slots))
                    if part.type in _CHOICES:
                        if part.type not in table_of:
                            words = sorted(_CHOICES[part.type](spoken.syntax), key=len, reverse=True)
                            table_of[part.type] = len(tables)
                            tables.append([literal(word) for word in words])
                        rows.append([M.OP_FIELD, M.TYPES.index("choice"), slot, table_of[part.type]])
                    elif part.type in _KERNEL_TYPES:
                        rows.append([M.OP_FIELD, M.TYPES.index(_KERNEL_TYPES[part.type]), slot, 0])
                    else:
                        raise DialectError(f"a line template cannot hold a field of type {part.type!r}")

        starts: list[int] = []
        slots_of: list[dict[str, int]] = []
        amount_slots: list[frozenset[int]] = []
        for template in spoken.every:
            starts.append(len(rows))
            slots: dict[str, int] = {}
            if template.kind != "hand_end":  # (only written; read as a separator, and its time by `rooms`)
                emit(template.parts, slots)
            rows.append([M.OP_DONE, 0, 0, 0])
            slots_of.append(slots)
            amount_slots.append(frozenset(slots[p.name] for p in _fields(template.parts) if p.type == "amount"))
        # the words the engine compares with, kept among the literals (`literal`)
        for words in _CHOICES.values():
            for word in words(spoken.syntax):
                literal(word)
        for group in spoken.syntax["markers"].values():
            for word in group:
                literal(word)
        for word in spoken.data["summary"]["shown"]:
            literal(word)
        widest = max((len(t) for t in tables), default=1)
        words = np.full((max(len(tables), 1), widest, 2), -1, dtype=np.int64)
        for t, table in enumerate(tables):
            for k, (lo, n) in enumerate(table):
                words[t, k] = (lo, n)
        amount = spoken.syntax["amount"]
        symbols = [symbol.encode("utf-8") for symbol in amount["symbols"]]
        width = max((len(b) for b in symbols), default=1)
        symbol_rows = np.zeros((max(len(symbols), 1), width), dtype=np.uint8)
        for k, b in enumerate(symbols):
            symbol_rows[k, :len(b)] = np.frombuffer(b, dtype=np.uint8)
        return cls(np.array(rows, dtype=np.int64), np.frombuffer(bytes(lit) or b"\0", dtype=np.uint8).copy(), words,
                   np.array(starts, dtype=np.int64), tuple(t.kind for t in spoken.every), tuple(slots_of),
                   tuple(amount_slots), spoken.every, symbol_rows,
                   ord(amount["thousands"]) if amount["thousands"] else -1, ord(amount["decimal"]),
                   max((len(s) for s in slots_of), default=1))


def _fields(parts: tuple[Part, ...]):
    for part in parts:
        if isinstance(part, Field):
            yield part
        elif isinstance(part, Maybe):
            yield from _fields(part.parts)


@dataclass(frozen=True)
class Dialect:
    """A room's export, compiled: its templates by kind, syntax tables and conventions."""

    room: str
    title: str
    source: Path
    data: dict[str, Any]
    lines: dict[str, Template]
    quiet: tuple[Template, ...]
    every: tuple[Template, ...]
    header: dict[str, Template]
    results: dict[str, Template]
    time: Template
    zones: dict[str, str] = field(default_factory=dict)
    #: the header's lines after its first, each a template it must match (`header.lines`)
    header_more: tuple[Template, ...] = ()
    #: lines a room writes among the header's and the table's only in some exports (`header.skipped`, e.g.
    #: `User: NAME`): passed over, so the lines around them are read as where they are absent
    header_skipped: tuple[Template, ...] = ()

    @functools.cached_property
    def program(self) -> Program:
        """The reading templates as one program for the compiled matcher (`room_match`)."""
        return Program.of(self)

    @property
    def syntax(self) -> dict[str, Any]:
        return self.data["syntax"]

    @property
    def table_lines(self) -> int:
        """How many lines after the header the table template reads, joined by line breaks."""
        return int(self.data["header"].get("table_lines", 1))

    def convention(self, name: str) -> Any:
        """A convention's value (KeyError for one the dialect does not declare: never guessed)."""
        return self.data["conventions"][name]["value"]

    def money(self, currency: str | None, places: int) -> Money:
        """How this room prints amounts of `currency` (None: chips) with `places` decimals."""
        symbols = {code: symbol for symbol, code in self.syntax["amount"]["symbols"].items()}
        return Money(symbols.get(currency, "") if currency else "", places,
                     after=self.syntax["amount"]["symbol_position"] == "after")


def amount_pattern(amount: dict[str, Any]) -> str:
    """A regular expression of an amount in the dialect's syntax (`syntax.amount`): a stake's, without the header's
    own separators and letters."""
    return stake_pattern({**amount, "header_thousands": [], "suffixes": {}})


def stake_pattern(amount: dict[str, Any]) -> str:
    """An amount as a header may state a stake: in the dialect's syntax, or with one of its header's own thousands
    separators (`1 200`) or a multiplier's letter (`1.6K`, `syntax.amount.header_thousands`, `suffixes`)."""
    seps = "".join(re.escape(s) for s in [amount["thousands"], *amount.get("header_thousands", [])] if s)
    grouped = rf"\d{{1,3}}(?:[{seps}]\d{{3}})+|" if seps else ""
    suffix = "|".join(re.escape(s) for s in amount.get("suffixes", {}))
    number = rf"(?:{grouped}\d+)(?:{re.escape(amount['decimal'])}\d+)?" + (f"(?:{suffix})?" if suffix else "")
    symbols = "|".join(re.escape(s) for s in amount["symbols"])
    return rf"(?:{symbols})?{number}" if amount["symbol_position"] == "before" else rf"{number}(?:{symbols})?"


def _alternatives(words: list[str]) -> str:
    return "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))


class _Compiler:
    """Templates to regular expressions, with the dialect's own patterns for its syntax's types."""

    def __init__(self, syntax: dict[str, Any]) -> None:
        pots = syntax["pots"]
        self.card_separator = syntax["cards"]["separator"]
        self.tab_stops = tuple(syntax.get("tab_stops", ()))
        self.own = {
            "amount": amount_pattern(syntax["amount"]),
            "street": _alternatives(syntax["streets"]),
            "draw": _alternatives(syntax["draws"]),
            "pot": _alternatives([pots["only"], pots["main"], pots["side"]]),
            "roles": "(?: \\((?:button|small blind|big blind)\\))*",
            "seat_status": _alternatives(list(syntax["seat_status"].values())),
            # the names a room's header may carry (its skins, its old names): only those start its hands
            "brand": _alternatives(syntax.get("brands", [])) or "(?!)",
            # a month by its name (`syntax.time.months`), or its number where the room writes none
            "month": _alternatives(syntax["time"].get("months", [])) or r"\d+",
            "stake": stake_pattern(syntax["amount"]),
        }
        self.own["time"] = self.regex(parse_template(syntax["time"]["pattern"]))

    def regex(self, parts: tuple[Part, ...]) -> str:
        out = []
        for part in parts:
            if isinstance(part, Lit):
                out.append(re.escape(part.text))
            elif isinstance(part, Maybe):
                out.append(f"(?P<{part.name}>{self.regex(part.parts)})?")
            else:
                body = FIELD_TYPES[part.type]
                if body.startswith("{"):
                    body = self.own[body[1:-1]]
                out.append(f"(?P<{part.name}>{body})")
        return "".join(out)

    def template(self, kind: str, source: str, flags: int = 0) -> Template:
        parts = parse_template(source)
        try:
            pattern = re.compile(self.regex(parts), flags)
        except re.error as exc:
            raise DialectError(f"template {kind!r} does not compile: {exc}") from exc
        return Template(kind, source, parts, pattern, self.card_separator, self.tab_stops)


def _rooms_dir() -> Path:
    from auditor.resources import rooms_dir
    return rooms_dir()


@cache
def dialect(room: str) -> Dialect:
    """The compiled dialect of `room` (`rooms/<room>.yaml`), loaded and checked once per process."""
    return load(_rooms_dir() / f"{room}.yaml")


def load(path: Path) -> Dialect:
    """A dialect file compiled; DialectError naming the file for anything that keeps it from being used."""
    data = _read(path, ())
    _check_schema(path, data)
    try:
        compiler = _Compiler(data["syntax"])
        flags = re.IGNORECASE if data["recognise"].get("case_insensitive") else 0
        every = tuple(compiler.template(kind, source) for kind, sources in data["lines"].items()
                      for source in ([sources] if isinstance(sources, str) else sources))
        lines = {}
        for template in every:
            lines.setdefault(template.kind, template)  # a kind's first template is the one written
        quiet = tuple(t for t in every if t.kind == "quiet")
        header = {kind: compiler.template(kind, source) for kind, source in data["header"]["find"].items()}
        header["write"] = compiler.template("header", data["header"]["write"])
        header["table"] = compiler.template("table", data["header"]["table"])
        more = tuple(compiler.template("header_line", source) for source in data["header"].get("lines", ()))
        skipped = tuple(compiler.template("header_skipped", source) for source in data["header"].get("skipped", ()))
        header["hand_start"] = compiler.template("hand_start", data["recognise"]["hand_start"], flags)
        if not isinstance(header["hand_start"].parts[0], Lit) or not header["hand_start"].parts[0].text.strip():
            # the engine finds a hand by this text at a line's start (`room_ledger.lines`)
            raise DialectError("recognise.hand_start must begin with literal text, not a field")
        results = {kind: compiler.template(kind, source) for kind, source in data["summary"]["results"].items()}
        time = compiler.template("time", data["syntax"]["time"]["pattern"])
    except DialectError as exc:
        raise DialectError(f"{path}: {exc}") from exc
    return Dialect(data["room"], data["title"], path, data, lines, quiet, every, header, results, time,
                   dict(data["syntax"]["time"]["zones"]), more, skipped)


def _read(path: Path, seen: tuple[Path, ...]) -> Any:
    """A dialect file's data, on top of its `base` dialect's when it names one: a room that writes another
    room's format under its own header says only what differs (mappings combined key by key; a list or a text
    replaces the base's whole)."""
    import yaml

    try:
        data = yaml.load(path.read_text("utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (OSError, yaml.YAMLError, UnicodeDecodeError) as exc:
        raise DialectError(f"{path}: cannot read the dialect: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("base"), str):
        return data
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", data["base"]) or path.with_name(f"{data['base']}.yaml") in seen:
        raise DialectError(f"{path}: base {data['base']!r} is not a dialect it can build on")
    return _over(_read(path.with_name(f"{data['base']}.yaml"), (*seen, path)), data)


def _over(base: Any, over: Any) -> Any:
    return ({**base, **{key: _over(base.get(key), value) for key, value in over.items()}}
            if isinstance(base, dict) and isinstance(over, dict) else over)


def _check_schema(path: Path, data: Any) -> None:
    import jsonschema

    from auditor.resources import schema_path

    schema = json.loads(schema_path("dialect.schema.json").read_text("utf-8"))
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(data))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(top)"
        raise DialectError(f"{path}: {where}: {error.message}")
