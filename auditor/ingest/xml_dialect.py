"""An XML room's dialect (`rooms/xml/<room>.yaml`): loaded, checked against `schemas/xml-dialect.schema.json`,
and the few things in it that are code-like (the game line's pattern, amounts, cards) made ready to use.

Why a dialect: the reader (`xml_rooms`, `xml_hand`) and the writer (`export/xml_room`) must agree on every
element, attribute, action code and convention of the room; holding them in one data file lets both run the
same description in opposite directions, and adding an XML room is adding its file. No room is named in code.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from auditor.model.tables import MAX_DIGITS

__all__ = ["XmlDialect", "XmlDialectError", "xml_dialect"]


class XmlDialectError(ValueError):
    """A dialect file that cannot be used: a broken installation or a bad edit, named with its file."""


def _xml_rooms_dir() -> Path:
    from auditor.resources import rooms_dir
    return rooms_dir() / "xml"


@cache
def xml_dialect(room: str) -> XmlDialect:
    """The checked dialect of XML room `room`, loaded once per process."""
    return load(_xml_rooms_dir() / f"{room}.yaml")


def load(path: Path) -> XmlDialect:
    import jsonschema
    import yaml

    from auditor.resources import schema_path

    try:
        data = yaml.safe_load(path.read_text("utf-8"))
    except (OSError, yaml.YAMLError, UnicodeDecodeError) as exc:
        raise XmlDialectError(f"{path}: cannot read the dialect: {exc}") from exc
    schema = json.loads(schema_path("xml-dialect.schema.json").read_text("utf-8"))
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(data))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(top)"
        raise XmlDialectError(f"{path}: {where}: {error.message}")
    try:
        return XmlDialect(data)
    except re.error as exc:
        raise XmlDialectError(f"{path}: game/pattern: {exc}") from exc


@dataclass(frozen=True)
class Amount:
    """An amount as written: its value in units of 10**-places of the money, and the currency its symbol names."""
    value: int
    currency: str | None


_UNSEEN = object()
#: amounts remembered at most (the memo starts again past it: a file of hostile amounts costs no memory)
_MEMO = 65536


class XmlDialect:
    """The dialect's data (`data`), with its pattern compiled and its tables inverted for the writer."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.room: str = data["room"]
        self.title: str = data["title"]
        self.suffix: str = data["suffix"]
        self.doc: dict[str, Any] = data["document"]
        self.game_pattern = re.compile(data["game"]["pattern"])
        pattern = self.doc.get("table_pattern")
        self.table_pattern = re.compile(pattern) if pattern else None
        self.actions: dict[str, dict[str, Any]] = data["actions"]
        self.places: int = data["money"]["places"]
        self.scale = 10 ** self.places
        self.symbols: dict[str, str] = data["money"]["symbols"]
        seps = "".join(re.escape(s) for s in data["money"]["separators"])
        self._split = re.compile(f"[{seps}]")
        self._symbol = re.compile("|".join(re.escape(s) for s in sorted(self.symbols, key=len, reverse=True)))
        cards = data["cards"]
        self.suits: dict[str, str] = {k.upper(): v for k, v in cards.get("suits", {}).items()}
        self.ranks: dict[str, str] = {k.upper(): v for k, v in cards.get("ranks", {}).items()}
        self.hidden: str = cards["hidden"]
        self.suit_first: bool = cards.get("suit_first", False)
        # cards written as numbers (`numbered`): n is the rank ranks[n % 13] of the suit suits[n // 13]
        numbered = cards.get("numbered")
        self.number_ranks: list[str] = list(numbered["ranks"]) if numbered else []
        self.number_suits: list[str] = list(numbered["suits"]) if numbered else []
        self.conventions: dict[str, dict[str, Any]] = data["conventions"]
        # the writer's side: canonical -> the room's words
        self.suit_word = {v: k for k, v in cards.get("suits", {}).items()}
        self.rank_word = {v: k for k, v in cards.get("ranks", {}).items()}
        self.symbol_of = {code: sym for sym, code in reversed(list(self.symbols.items()))}
        self._amounts: dict[str, Amount | None] = {}
        # the reader's side, worked out once: each round the dialect names -> 0 for the posts, 1.. for the betting
        # rounds, -1 for those after them; whether actions are taken by their numbers; the codes of events that
        # are no bet (a deal of the board, cards dealt, shown or mucked, a return, a fee)
        rounds = data["rounds"]
        self.round_index = {str(rounds["posts"]): 0, **{str(r): k for k, r in enumerate(rounds["betting"], 1)},
                            **{str(r): -1 for r in rounds.get("after", [])}}
        self.by_number = self.convention("action_order") == "by_number"
        self.said_codes = {code for code, spec in self.actions.items()
                           if any(k in spec for k in ("deal", "cards", "shows", "returned", "fee"))}

    def convention(self, name: str) -> str:
        return str(self.conventions[name]["value"])

    def code_for(self, **wanted: Any) -> str:
        """The room's action code whose description holds `wanted` (the first, as the dialect lists them)."""
        for code, spec in self.actions.items():
            if all(spec.get(k) == v for k, v in wanted.items()):
                return code
        raise KeyError(wanted)

    def amount(self, text: str | None) -> Amount | None:
        """`£1,000.50`, `1.000,50 €`, `$5`, `12` as an integer of 10**-places units, or None when it is no amount.

        A separator followed by more digits than `places` groups thousands (three digits each); the last one
        followed by 1..places digits at the end is the decimal mark. Never a float. A file repeats the same few
        amounts (`€0`, the blinds), so each text is worked out once (a bounded memo)."""
        if text is None:
            return None
        known = self._amounts.get(text, _UNSEEN)
        if known is not _UNSEEN:
            return known  # type: ignore[return-value]
        if len(self._amounts) >= _MEMO:
            self._amounts.clear()
        found = self._amounts[text] = self._amount(text)
        return found

    def _amount(self, text: str) -> Amount | None:
        currency = None
        found = self._symbol.findall(text)
        if found:
            if len(set(found)) > 1:
                return None
            currency = self.symbols[found[0]]
            text = self._symbol.sub("", text)
        text = text.strip()
        if not text or len(text) > 40:
            return None
        parts = self._split.split(text)
        marks = self._split.findall(text)
        if not all(p.isascii() and p.isdigit() for p in parts):
            return None
        frac = ""
        if len(parts) > 1 and len(parts[-1]) != 3 and len(parts[-1]) <= self.places:
            frac = parts.pop()
            decimal = marks.pop()
            if decimal in marks:  # the same mark cannot both group and be the decimal mark
                return None
        if len(set(marks)) > 1 or any(len(p) != 3 for p in parts[1:]) or (len(parts) > 1 and len(parts[0]) > 3):
            return None
        digits = "".join(parts)
        if len(digits) > MAX_DIGITS:  # (and Python refuses to read a number of thousands of digits at all)
            return None
        return Amount(int(digits) * self.scale + int(frac.ljust(self.places, "0") or 0), currency)

    def too_large(self, text: str) -> bool:
        """Whether `text` is digits (and separators) beyond the log's range, rather than no number at all."""
        return sum(c.isdigit() for c in text) > MAX_DIGITS and all(c.isdigit() or c in ",. '" for c in text.strip())

    def card(self, token: str) -> str | None:
        """`S10` -> `Ts`, `HA` -> `Ah`, a number of a dialect that numbers its cards (`38` -> `Kh`); the hidden mark
        -> `??`; None when it is no card."""
        if token == self.hidden:
            return "??"
        if self.number_ranks:  # `38`: the number's rank and suit (`numbered`)
            if not token.isascii() or not token.isdigit() or len(token) > 2:
                return None
            number, width = int(token), len(self.number_ranks)
            if number >= width * len(self.number_suits):
                return None
            return self.number_ranks[number % width] + self.number_suits[number // width]
        up = token.upper()
        suit, rank = (up[:1], up[1:]) if self.suit_first else (up[-1:], up[:-1])
        if suit in self.suits and rank in self.ranks:
            return self.ranks[rank] + self.suits[suit]
        return None

    def card_word(self, card: str) -> str:
        """The room's spelling of a canonical card (`Ts` -> `S10`), or the hidden mark for `??`."""
        if card == "??":
            return self.hidden
        if self.number_ranks:
            return str(self.number_suits.index(card[1]) * len(self.number_ranks) + self.number_ranks.index(card[0]))
        rank, suit = self.rank_word[card[0]], self.suit_word[card[1]]
        return suit + rank if self.suit_first else rank + suit

    def money_text(self, value: int, currency: str | None, scale: int) -> str:
        """An amount of the log (`value` in 1/scale units of the money) written as the room writes it: the
        currency's symbol first, thousands grouped by `,`, and decimals only when there are any (`€0.05`, `$5`,
        `$5,753.50`)."""
        units = value * self.scale // scale if scale != self.scale else value
        whole, frac = divmod(units, self.scale)
        text = f"{whole:,}"
        if frac:
            text += "." + str(frac).rjust(self.places, "0")
        return (self.symbol_of.get(currency, "") if currency else "") + text
