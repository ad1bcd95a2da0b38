"""Money as the log wrote it: `$0.50`, `€2`, `1,500` chips, `12.5` half chips.

Canonical logs keep every amount as an integer of the table's smallest unit, because the rules must
add and compare exactly. People must not see those integers: a short raise of `$0.25` written as
`25` reads as twenty-five dollars, and a PHH hand the reader keeps in half chips would show every
amount doubled. So everything that turns money into text for a person (rule messages and their
expected/actual, `auditor explain`, the HTML replay) goes through this module, which divides by the
hand's `money_scale` exactly (integers and `Fraction`, never float) and writes the hand's currency
as the room did. The machine formats keep the integers in their typed columns; only their human
`message`/`expected`/`actual` text carries formatted money.

Which template placeholders are money is declared here, not guessed from a column's name at run
time: `MONEY_FACTS` lists the integer facts that are amounts, `COUNT_FACTS` every other integer fact,
and a test fails when a facts column is added without being put in one of them.

pandas is imported by the functions that format columns, not by the module: loading a pack (`auditor rules show`)
reads `MONEY_FACTS` and formats no column.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from auditor.check import words
from auditor.check.expr import MISSING_TEXT, Template
from auditor.replay.facts import LIST_SEPARATORS

if TYPE_CHECKING:
    import pandas as pd

#: integer facts (and hand columns joined onto every facts table) that are amounts of money
MONEY_FACTS = frozenset({
    # actions
    "amount", "to", "made", "current_bet", "amount_to_call", "min_raise_increment", "raise_increment", "pot_before",
    "pot_limit_max", "bet_unit", "spread_min", "spread_max", "stack_before", "min_bet", "amount_to_call_in_full",
    # rounds
    "uncalled_expected", "returned", "hand_chip_balance",
    # blinds
    "expected_amount",
    # pots
    "pot_amount", "rake", "awarded", "equal_share", "min_share", "max_share", "chip_unit",
    # hands
    "chips_in", "chip_balance", "lowest_stack", "contested", "rake_allowed", "returned_net",
    # hand columns
    "table_min", "table_max",
})

#: integer facts that are not money: seats, event indexes, rounds, counts of players, cards, raises or chips
COUNT_FACTS = frozenset({
    "hand", "seq", "street", "round", "seat", "expected_seat", "raises_before", "raise_number", "live_players",
    "active_players", "close_seq", "board_cards", "board_expected", "burns", "burns_expected", "live_at_deal",
    "able_players", "pending_seat", "uncalled_seat", "actions", "discards", "receives", "max_draw", "blind",
    "button", "players", "blinds_required", "seat_after_previous_blind", "pot", "winners",
    # a number of chip units, not an amount: "2 odd chip(s) of $0.01"
    "odd_chips",
    "pots_formed", "contenders", "previous_button", "expected_button", "button_by_blinds", "first_shown_seat",
    "expected_first_to_show", "final_aggressor", "final_round", "line", "max_seats", "money_scale",
})

_AMOUNT_AFTER_WORD = re.compile(r"(?<=held )-?\d+|(?<=paid )-?\d+")


def _shares_text(text: str, money: Callable[[int], str]) -> str:
    """`2:150, 4:150` -> `2:$1.50 / 4:$1.50`: a slash between seats, since `1,500` holds a comma and
    the templates put a semicolon after the list."""
    parts = []
    for part in text.split(", "):
        seat, colon, amount = part.partition(":")
        parts.append(f"{seat}:{money(int(amount))}" if colon and amount.lstrip("-").isdigit() else part)
    return " / ".join(parts)


def _misawarded_text(text: str, money: Callable[[int], str]) -> str:
    """`pot 0: held 300, paid 250` with both amounts formatted."""
    return _AMOUNT_AFTER_WORD.sub(lambda m: money(int(m.group(0))), text)


#: text facts the engine writes with amounts inside, and how to format the amounts in each
MONEY_IN_TEXT: dict[str, Callable[[str, Callable[[int], str]], str]] = {
    "shares": _shares_text,
    "pots_misawarded": _misawarded_text,
}

#: currencies written with a symbol before the number, as the rooms write them; any other code goes after it
SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£"}

#: a currency is log text: keep only what a currency code or symbol can hold, so it cannot carry markup
_UNSAFE = re.compile(r"[^A-Za-z0-9$€£¥]")


def format_money(amount: int, currency: str | None = None, scale: int = 1) -> str:
    """One amount of the log's integers in the log's own units.

    `scale` integers make one unit of `currency` (100 for cents). A currency with a symbol is written
    `$0.50`, `€2` (whole amounts without decimals, others with at least two, as the rooms write them);
    another currency `12.50 CAD`; chips (no currency) `1,500`, or `12.5` when kept in half chips.
    An amount the scale does not divide into a finite decimal (scale 3) is written as a fraction.
    """
    scale = int(scale) if scale and scale > 0 else 1
    code = _UNSAFE.sub("", currency)[:16] if currency else ""
    whole, rest = divmod(abs(int(amount)), scale)
    number = f"{whole:,}"
    if rest:
        number += _fraction_digits(Fraction(rest, scale), minimum=2 if code else 0)
    sign = "-" if amount < 0 else ""
    symbol = SYMBOLS.get(code.upper())
    if symbol:
        return f"{sign}{symbol}{number}"
    return f"{sign}{number} {code}" if code else f"{sign}{number}"


def _fraction_digits(part: Fraction, minimum: int) -> str:
    """The digits after the decimal point of a proper fraction, exactly (`.5`, `.50`), or ` 1/3`."""
    denominator = part.denominator
    for factor in (2, 5):
        while denominator % factor == 0:
            denominator //= factor
    if denominator != 1:
        return f" {part.numerator}/{part.denominator}"
    places = 0
    while (part * 10**places).denominator != 1:
        places += 1
    places = max(places, minimum)
    return "." + str(int(part * 10**places)).rjust(places, "0")


def format_money_list(amounts: Iterable[int], currency: str | None = None, scale: int = 1, sep: str = "/") -> str:
    """Several amounts, as stakes are written: `$0.50/$1`, `50/100`."""
    return sep.join(format_money(a, currency, scale) for a in amounts)


def money_formatter(currency: str | None, scale: int | None) -> Callable[[int | None], str]:
    """A one-argument formatter for one hand's amounts; None formats as empty text."""
    unit = int(scale) if scale else 1

    def money(amount: int | None) -> str:
        return "" if amount is None else format_money(amount, currency, unit)

    return money


# ------------------------------------------------------------------------------------ whole columns


@dataclass(frozen=True)
class MoneyUnits:
    """Currency and scale of each row of a set of facts rows (findings), taken from their hands."""

    currency: np.ndarray  # object: str or None
    scale: np.ndarray  # int64, >= 1

    @classmethod
    def of_rows(cls, hands: pd.DataFrame, hand_rows: Any) -> MoneyUnits:
        """The units of the hands the rows belong to (`hands` indexed by hand row number). A hands table
        without the columns (an older Parquet dataset, the run-wide ledger) counts as chips, scale 1."""
        rows = np.asarray(hand_rows, dtype=np.int64)
        if "currency" in hands.columns:
            currency = hands["currency"].reindex(rows).to_numpy(dtype=object, na_value=None)
        else:
            currency = np.full(len(rows), None, dtype=object)
        if "money_scale" in hands.columns:
            scale = hands["money_scale"].reindex(rows).to_numpy(dtype=np.float64, na_value=1.0)
            scale = np.where(scale >= 1, scale, 1).astype(np.int64)
        else:
            scale = np.ones(len(rows), dtype=np.int64)
        return cls(currency, scale)

    @classmethod
    def of_positions(cls, hands: pd.DataFrame, positions: np.ndarray) -> MoneyUnits:
        """As `of_rows`, for rows given by their hands' positions in `hands` (all valid): no label lookup."""
        import pandas as pd

        rows = np.asarray(positions, dtype=np.int64)
        if "currency" in hands.columns:
            currency = pd.array(hands["currency"].array.take(rows)).to_numpy(dtype=object, na_value=None)
        else:
            currency = np.full(len(rows), None, dtype=object)
        if "money_scale" in hands.columns:
            scale = pd.array(hands["money_scale"].array.take(rows)).to_numpy(dtype=np.float64, na_value=1.0)
            scale = np.where(scale >= 1, scale, 1).astype(np.int64)
        else:
            scale = np.ones(len(rows), dtype=np.int64)
        return cls(currency, scale)

    def groups(self) -> Iterator[tuple[str | None, int, np.ndarray]]:
        """(currency, scale, row positions) for each distinct pair: a run has one or a few."""
        import pandas as pd

        codes, currencies = pd.factorize(pd.Series(self.currency, dtype=object), use_na_sentinel=True)
        scales, scale_values = pd.factorize(self.scale)
        key = (codes.astype(np.int64) + 1) * (len(scale_values) + 1) + scales
        for value in np.unique(key):
            at = np.flatnonzero(key == value)
            code = codes[at[0]]
            yield (None if code < 0 else str(currencies[code])), int(scale_values[scales[at[0]]]), at


def format_money_column(values: Any, units: MoneyUnits) -> np.ndarray | None:
    """Each row's amount in its hand's units (MISSING_TEXT where missing); None if the column is not integers.

    Formatting is per distinct amount per (currency, scale), not per row: findings repeat amounts.
    """
    import pandas as pd

    try:
        array = pd.array(values, dtype="Int64")
    except (TypeError, ValueError):
        return None
    missing = np.asarray(array.isna(), dtype=bool)
    ints = array.to_numpy(dtype=np.int64, na_value=0)
    out = np.full(len(ints), MISSING_TEXT, dtype=object)
    for currency, scale, at in units.groups():
        at = at[~missing[at]]
        if not len(at):
            continue
        distinct, inverse = np.unique(ints[at], return_inverse=True)
        texts = np.array([format_money(int(v), currency, scale) for v in distinct], dtype=object)
        out[at] = texts[inverse]
    return out


def format_money_in_text(values: Any, rewrite: Callable[[str, Callable[[int], str]], str],
                         units: MoneyUnits) -> np.ndarray:
    """A text column the engine wrote with amounts inside (`2:150, 4:150`), its amounts formatted."""
    import pandas as pd

    series = pd.Series(values, dtype="string").reset_index(drop=True)
    out = np.asarray(series.fillna(MISSING_TEXT).to_numpy(dtype=object), dtype=object)
    present = ~np.asarray(series.isna(), dtype=bool)
    for currency, scale, at in units.groups():
        money = money_formatter(currency, scale)
        for i in at[present[at]]:
            out[i] = rewrite(str(out[i]), money)
    return out


class _Overlay(Mapping[str, Any]):
    """A facts frame seen through formatted money columns, for Template.render (which reads by name)."""

    def __init__(self, frame: pd.DataFrame, formatted: dict[str, np.ndarray]):
        self._frame, self._formatted = frame, formatted

    def __getitem__(self, name: str) -> Any:
        if name in self._formatted:
            return self._formatted[name]
        if name in self._frame.columns:
            return self._frame[name]
        raise KeyError(name)

    def __contains__(self, name: object) -> bool:
        return name in self._formatted or name in self._frame.columns

    def __iter__(self) -> Iterator[str]:
        return iter(self._frame.columns)

    def __len__(self) -> int:
        return len(self._frame.columns)


def money_columns(template: Template) -> frozenset[str]:
    """The placeholders of a template that are money (amount facts or text facts holding amounts)."""
    return template.names & (MONEY_FACTS | MONEY_IN_TEXT.keys())


def lists_as_text(rows: pd.DataFrame, names: Iterable[str]) -> pd.DataFrame:
    """`rows` with each list column among `names` as the text a person reads, its items joined by the fact's
    declared separator (`fact_frames.list_text`: `[1, 3]` -> "1,3", as the engine once wrote them): the one place a
    list fact becomes message text, before money and floor words rewrite it (so `{odd_chip_seats}` still
    reads "seats 1 and 3"). Only the findings' rows reach here; a frame without list columns is returned as is."""
    import pandas as pd

    from auditor.replay.fact_frames import is_list, list_text

    joined = {name: pd.array(list_text(rows[name], LIST_SEPARATORS.get(name, ",")), dtype="string")
              for name in names if name in rows.columns and is_list(rows[name])}
    return rows.assign(**joined) if joined else rows


def render(template: Template, rows: pd.DataFrame, parameters: Mapping[str, Any], length: int,
           units: MoneyUnits | None) -> list[str]:
    """A rule's message, expected or actual text for each row, with its money in the hands' units.

    Only facts columns are formatted; a pack parameter named in a template is the pack's own text. List
    facts are written as text first (`lists_as_text`).
    """
    rows = lists_as_text(rows, template.names)
    names = [n for n in money_columns(template) if n in rows.columns] if units is not None else []
    formatted: dict[str, np.ndarray] = {}
    for name in names:
        if name in MONEY_IN_TEXT:
            formatted[name] = format_money_in_text(rows[name], MONEY_IN_TEXT[name], units)
        else:
            column = format_money_column(rows[name], units)
            if column is not None:
                formatted[name] = column
    # pots, blinds, streets, seat lists and booleans in floor words (auditor.check.words)
    formatted.update(words.in_words(template.names, rows, formatted))
    if not formatted:
        return template.render(rows, parameters, length)
    return template.render(_Overlay(rows, formatted), parameters, length)
