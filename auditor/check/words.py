"""Facts in the words of the trade: `main pot`, `big blind`, `on the flop`, `seats 3 and 5`, `hidden`.

The facts tables keep numbers and codes, because rules compare them: pot 0, blind 2, round 2,
`3,5`, `bb`, `True`. A floor supervisor says none of these. So when a rule's message, expected or
actual text names one of the columns below, the column is written in floor words instead, for the
whole column at once (never per row in Python where a lookup over distinct values will do):

- `pot`: `main pot`, `side pot 1`, `side pot 2` (pot 0 is the main pot, then side pots in the order
  they formed);
- `blind`: `small blind` / `big blind` at a two-blind table, `first blind` ... `third blind` at a table
  of three or more (the NZ §15 game names them so), `blind` where only one is required;
- `round`, `street`, `final_round`: the street by game, as an adverb phrase that reads after a verb:
  `pre-flop`, `on the flop`, `on the turn`, `on the river`; `before the draw`, `after the draw` (with
  several draws `after the first draw` ...); `on 3rd street` ... for stud; other games `in the first
  betting round` ...;
- counts of `COUNT_NOUNS` with their noun: `no burn cards`, `1 odd chip`, `4 community cards`;
- seat columns: `3 (button)` when the row also says the button is there, `none` when missing;
  player columns: `nobody` when missing;
- seat lists (`3,5`): `seat 3`, `seats 3 and 5`, `seats 1, 3 and 5`, `no seat`;
- `shares` (after money.py formatted its amounts): `$5.50 to seat 3 and $5.25 to seat 5`;
- `top_hole_cards_used` (`3:Kc, 5:??`): `Kc (seat 3), hidden (seat 5)`; every card text: `??` is `hidden`;
- `owed`, `missed_now` (`bb,sb`): `big blind and small blind`;
- `pots_misawarded`: the engine writes `pot 0: held ...`; written `main pot: held ...`;
- `seating_conflicts` (`Ann in seats 1,4`): `Ann in seats 1 and 4`;
- `closed_by` (`next round`, `end of hand`): `when the next round began`, `when the hand ended`;
- a boolean: the phrases of `PHRASES` for the columns that have them, else `yes` / `no`;
- any of these missing: `unknown` (seats `none`, players `nobody`), never the code `n/a`.

List facts (`[3, 5]`) arrive here as their text, the items joined by the fact's declared separator
(`money.lists_as_text`, `fact_frames.list_text`), and are rewritten from that text as above.

Templates therefore write `on the {round}`-free text: `raised {round}` reads "raised on the flop".
The module only changes how a column is shown; it never changes what a rule selects.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from auditor.check.expr import MISSING_TEXT
from auditor.replay.variants import VARIANTS

if TYPE_CHECKING:
    import pandas as pd

#: placeholders holding a betting round, and the number of their first round (street is 0-based)
STREET_FACTS: dict[str, int] = {"round": 1, "street": 0, "final_round": 1}

#: counts written with their noun, so a message never hedges "card(s)": (one, many); 0 is "no" + many
COUNT_NOUNS: dict[str, tuple[str, str]] = {
    "odd_chips": ("odd chip", "odd chips"),
    "board_cards": ("community card", "community cards"),
    "board_expected": ("community card", "community cards"),
    "burns": ("burn card", "burn cards"),
    "burns_expected": ("burn card", "burn cards"),
    "live_at_deal": ("player", "players"),
    "discards": ("card", "cards"),
    "receives": ("card", "cards"),
}

#: placeholders holding one seat number
SEAT_FACTS = frozenset({
    "seat", "expected_seat", "pending_seat", "uncalled_seat", "first_shown_seat", "expected_first_to_show",
    "final_aggressor", "button", "previous_button", "expected_button", "button_by_blinds",
    "seat_after_previous_blind",
})

#: placeholders holding one player's name
PLAYER_FACTS = frozenset({
    "player", "expected_player", "pending_player", "uncalled_player", "awarded_to", "highest_card_holder",
    "big_blind_player", "previous_big_blind_player",
})

#: placeholders holding a list of seats (list columns of integers), which reach these words as the text
#: `money.lists_as_text` makes of them (`3,5`)
SEAT_LIST_FACTS = frozenset({
    "eligible_seats", "winner_seats", "odd_chip_seats", "odd_chip_seats_by_suit", "odd_chip_seats_by_position",
    "winner_seats_by_evaluation", "paid_without_showing", "wrong_hole_counts", "killed_seats",
})

#: placeholders holding blind codes (`sb`, `bb`, comma-separated)
BLIND_CODE_FACTS = frozenset({"owed", "missed_now"})

#: text placeholders that may hold card codes, where the unknown card `??` is written `hidden`
CARD_FACTS = frozenset({"draws", "duplicate_cards", "best_hand", "shown_not_dealt"})

#: booleans that read better as a phrase: (when true, when false[, when missing])
PHRASES: dict[str, tuple[str, ...]] = {
    "in_order": ("in order", "out of order, after a later blind", "never posted"),
    "posted": ("posted", "not posted"),
    "all_in": ("all-in", "not all-in"),
    "all_in_declared": ("declared all-in", "not declared all-in"),
    "between_button_and_big_blind": ("from a seat between the button and the big blind",
                                     "from a seat left of the blinds"),
    "posted_live_big_blind": ("with a live big blind posted", "without posting a big blind"),
    "in_big_blind": ("in the big blind", "not in the big blind"),
    "made_up": ("made up what was owed", "did not make up what was owed"),
    "new_player": ("new at the table", "not new at the table"),
    "heads_up": ("heads-up", "not heads-up"),
    "showdown": ("at showdown", "without a showdown"),
    "full_raise": ("a full raise", "a short raise"),
    "from_seated": ("to a seated player", "to a player from the waiting list"),
}

#: a missing fact in words: `n/a` is a code, not something a supervisor says
UNKNOWN = "unknown"

_BLIND_CODES = {"sb": "small blind", "bb": "big blind"}
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
_POT_IN_TEXT = re.compile(r"\bpot (\d+)\b")
_SEATS_IN_TEXT = re.compile(r"\bseats (\d+(?:,\d+)+)\b")


def ordinal(n: int) -> str:
    """`first` ... `tenth`, then `11th`: floor words for a small count."""
    if 1 <= n <= len(_ORDINALS):
        return _ORDINALS[n - 1]
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def pot_name(pot: int) -> str:
    """0 -> `main pot`, 1 -> `side pot 1`: the pots as the floor numbers them."""
    return "main pot" if pot == 0 else f"side pot {pot}"


def blind_name(blind: int, required: int | None = None) -> str:
    """A blind by its place in the blind order (1 = first), at a table requiring `required` blinds.

    Two blinds are the small and the big blind; a table of three or more names them by order (the NZ
    §15 game says "first blind bet", "second blind bet"); with `required` unknown, 1 and 2 are taken
    as small and big (the common case), later ones by order.
    """
    if required == 1:
        return "blind"
    if required is None or required == 2:
        if blind == 1:
            return "small blind"
        if blind == 2:
            return "big blind"
    return f"{ordinal(blind)} blind"


def street_names(variant: str) -> tuple[str, ...]:
    """The betting rounds of a game as adverb phrases, first round first (`pre-flop`, `on the flop`, ...)."""
    game = VARIANTS.get(variant)
    if game is None:
        return ()
    if game.board_schedule[:4] == (0, 3, 1, 1):
        return ("pre-flop", "on the flop", "on the turn", "on the river")[: game.rounds]
    draws = sum(game.draw_before)
    if draws:
        names, seen = [], 0
        for before in game.draw_before:
            seen += before
            if not seen:
                names.append("before the draw" if draws == 1 else "before the first draw")
            else:
                names.append("after the draw" if draws == 1 else f"after the {ordinal(seen)} draw")
        return tuple(names)
    if variant.startswith("stud") or variant.startswith("razz"):
        return tuple(f"on {n}{'rd' if n == 3 else 'th'} street" for n in range(3, 3 + game.rounds))
    return tuple(f"in the {ordinal(n)} betting round" for n in range(1, game.rounds + 1))


def street_name(variant: str, round_number: int) -> str:
    """One betting round (1 = first) of a game in words; a round the game does not have by its number."""
    names = street_names(variant)
    if 1 <= round_number <= len(names):
        return names[round_number - 1]
    return f"in betting round {round_number}"


def street_heading(variant: str, round_number: int) -> str:
    """A betting round as a heading (`Pre-flop`, `Flop`, `After the draw`, `First betting round`), for the
    explain text and the HTML replay, which title each round rather than say when something happened."""
    name = street_name(variant, round_number)
    for lead in ("on the ", "in the ", "on ", "in "):
        if name.startswith(lead):
            name = name[len(lead):]
            break
    return name[:1].upper() + name[1:]


def counted(n: int, one: str, many: str) -> str:
    """`no burn cards`, `1 odd chip`, `3 community cards`."""
    return f"no {many}" if n == 0 else f"{n:,} {one if n == 1 else many}"


def seat_list(text: str) -> str:
    """`3,5` -> `seats 3 and 5`; `3` -> `seat 3`; empty -> `no seat`."""
    seats = [s.strip() for s in text.split(",") if s.strip()]
    if not seats:
        return "no seat"
    if len(seats) == 1:
        return f"seat {seats[0]}"
    return "seats " + ", ".join(seats[:-1]) + " and " + seats[-1]


def _and(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def shares_text(text: str) -> str:
    """`3:$5.50 / 5:$5.25` (money.py's form) -> `$5.50 to seat 3 and $5.25 to seat 5`."""
    parts = []
    for part in text.split(" / "):
        seat, colon, amount = part.partition(":")
        parts.append(f"{amount} to seat {seat}" if colon else part)
    return _and(parts) if parts else text


def cards_text(text: str) -> str:
    """The unknown card `??` is a hidden card to a person."""
    return text.replace("??", "hidden")


def top_cards_text(text: str) -> str:
    """`3:Kc, 5:Kh` -> `Kc (seat 3) and Kh (seat 5)`."""
    parts = []
    for part in text.split(", "):
        seat, colon, card = part.partition(":")
        parts.append(f"{cards_text(card)} (seat {seat})" if colon else cards_text(part))
    return _and(parts)


def blind_codes_text(text: str) -> str:
    """`bb,sb` -> `big blind and small blind`."""
    codes = [c.strip() for c in text.split(",") if c.strip()]
    return _and([_BLIND_CODES.get(c, c) for c in codes]) if codes else text


def seating_text(text: str) -> str:
    """`Ann in seats 1,4; seat 5 listed for Bo, Cy` -> `Ann in seats 1 and 4; seat 5 listed for Bo, Cy`."""
    return _SEATS_IN_TEXT.sub(lambda m: seat_list(m.group(1)), text)


#: what ended a betting round, as the engine writes it, said as when it happened
_CLOSED_BY = {"next round": "when the next round began", "end of hand": "when the hand ended"}


def closed_by_text(text: str) -> str:
    """`next round` -> `when the next round began`; `end of hand` -> `when the hand ended`."""
    return _CLOSED_BY.get(text, text)


def misawarded_text(text: str) -> str:
    """`pot 0: held $3, paid $2; pot 1: ...` -> `main pot: held $3, paid $2; side pot 1: ...`."""
    return _POT_IN_TEXT.sub(lambda m: pot_name(int(m.group(1))), text)


#: text placeholders rewritten piece by piece (after money.py formatted the amounts inside them)
TEXT_REWRITES: dict[str, Callable[[str], str]] = {
    "shares": shares_text,
    "top_hole_cards_used": top_cards_text,
    "pots_misawarded": misawarded_text,
    "seating_conflicts": seating_text,
    "closed_by": closed_by_text,
    **{name: seat_list for name in SEAT_LIST_FACTS},
    **{name: blind_codes_text for name in BLIND_CODE_FACTS},
    **{name: cards_text for name in CARD_FACTS},
}

#: every placeholder this module writes in words
WORD_FACTS = (frozenset(STREET_FACTS) | COUNT_NOUNS.keys() | SEAT_FACTS | PLAYER_FACTS | TEXT_REWRITES.keys()
              | {"pot", "blind"})


def _ints(values: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """(integers, missing mask) of a column, or None if it is not integers."""
    import pandas as pd

    try:
        array = pd.array(values, dtype="Int64")
    except (TypeError, ValueError):
        return None
    return array.to_numpy(dtype=np.int64, na_value=0), np.asarray(array.isna(), dtype=bool)


def _by_distinct(keys: np.ndarray, text_of: Callable[..., str], *columns: np.ndarray) -> np.ndarray:
    """text_of(*key) for each row, computed once per distinct key (findings repeat their values).

    Each column is factorized on its own and the codes combined into one integer key, which is far
    cheaper than hashing tuples of mixed types."""
    import pandas as pd

    arrays = (keys, *columns)
    if not len(keys):
        return np.empty(0, dtype=object)
    combined = np.zeros(len(keys), dtype=np.int64)
    for array in arrays:
        codes, uniques = pd.factorize(array)
        combined = combined * (len(uniques) + 1) + codes
    _, first, inverse = np.unique(combined, return_index=True, return_inverse=True)
    texts = np.array([text_of(*(array[i] for array in arrays)) for i in first], dtype=object)
    return texts[inverse.reshape(-1)]


def _pot_words(rows: pd.DataFrame) -> np.ndarray | None:
    got = _ints(rows["pot"])
    if got is None:
        return None
    ints, missing = got
    out = _by_distinct(ints, pot_name)
    return np.where(missing, UNKNOWN, out).astype(object)


def _blind_words(rows: pd.DataFrame) -> np.ndarray | None:
    got = _ints(rows["blind"])
    if got is None:
        return None
    ints, missing = got
    required = _ints(rows["blinds_required"]) if "blinds_required" in rows.columns else None
    req = required[0] if required is not None else np.zeros(len(ints), dtype=np.int64)
    req_missing = required[1] if required is not None else np.ones(len(ints), dtype=bool)
    req = np.where(req_missing, -1, req)
    out = _by_distinct(ints, lambda b, r: blind_name(int(b), None if r < 0 else int(r)), req)
    return np.where(missing, UNKNOWN, out).astype(object)


def _street_words(rows: pd.DataFrame, name: str) -> np.ndarray | None:
    got = _ints(rows[name])
    if got is None or "variant" not in rows.columns:
        return None
    ints, missing = got
    ints = ints + (1 - STREET_FACTS[name])
    variants = rows["variant"].astype("string").fillna("").to_numpy(dtype=object)
    out = _by_distinct(ints, lambda r, v: street_name(str(v), int(r)), variants)
    return np.where(missing, UNKNOWN, out).astype(object)


def _count_words(rows: pd.DataFrame, name: str) -> np.ndarray | None:
    got = _ints(rows[name])
    if got is None:
        return None
    ints, missing = got
    one, many = COUNT_NOUNS[name]
    out = _by_distinct(ints, lambda n: counted(int(n), one, many))
    return np.where(missing, UNKNOWN, out).astype(object)


def _seat_words(rows: pd.DataFrame, name: str) -> np.ndarray | None:
    got = _ints(rows[name])
    if got is None:
        return None
    ints, missing = got
    out = _by_distinct(ints, str)
    if name != "button" and "button" in rows.columns:
        button = _ints(rows["button"])
        if button is not None:
            on_button = ~missing & ~button[1] & (ints == button[0])
            out[on_button] = out[on_button] + " (button)"
    out[missing] = "none"
    return out


def _bool_words(values: pd.Series, name: str) -> np.ndarray | None:
    import pandas as pd

    if not (pd.api.types.is_bool_dtype(values.dtype) or str(values.dtype) == "boolean"):
        return None
    yes, no, *unknown = PHRASES.get(name, ("yes", "no"))
    array = pd.array(values, dtype="boolean")
    missing = np.asarray(array.isna(), dtype=bool)
    truth = array.to_numpy(dtype=bool, na_value=False)
    out = np.array([no, yes], dtype=object)[truth.astype(np.int8)]
    out[missing] = unknown[0] if unknown else UNKNOWN
    return out


def _text_words(values: Any, rewrite: Callable[[str], str]) -> np.ndarray:
    """A text column rewritten once per distinct value; a missing value is `unknown`."""
    import pandas as pd

    text = pd.Series(pd.array(np.asarray(values, dtype=object), dtype="string"))
    present = (text.notna() & (text != MISSING_TEXT)).to_numpy(dtype=bool, na_value=False)
    codes, distinct = pd.factorize(text.where(present))
    rewritten = np.array([rewrite(str(t)) for t in distinct], dtype=object)
    out = np.full(len(text), UNKNOWN, dtype=object)
    out[present] = rewritten[codes[present]]
    return out


def in_words(names: Iterable[str], rows: pd.DataFrame, formatted: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The placeholders of a template that read better in words, written so for every row.

    `formatted` holds the columns money.py already formatted (their text is rewritten further, e.g.
    the shares' amounts); the result replaces or adds to them. A pack parameter is never touched:
    it is the pack's own text.
    """
    out: dict[str, np.ndarray] = {}
    for name in names:
        if name not in rows.columns:
            continue
        words: np.ndarray | None = None
        if name in TEXT_REWRITES:
            words = _text_words(formatted.get(name, rows[name]), TEXT_REWRITES[name])
        elif name == "pot":
            words = _pot_words(rows)
        elif name == "blind":
            words = _blind_words(rows)
        elif name in COUNT_NOUNS:
            words = _count_words(rows, name)
        elif name in STREET_FACTS:
            words = _street_words(rows, name)
        elif name in SEAT_FACTS:
            words = _seat_words(rows, name)
        elif name in PLAYER_FACTS:
            column = rows[name].astype("string")
            words = column.fillna("nobody").to_numpy(dtype=object)
        else:
            words = _bool_words(rows[name], name)
        if words is not None:
            out[name] = words
    return out
