"""Reader for PokerStars hand-history text: every hand in a file ends as a SourceHand or a Quarantined.

The contract is docs/readers.md. PokerStars writes one hand after another, each beginning with a
line `PokerStars Hand #…:` (or `Game #`, `Zoom Hand #`, `POKERSTARS GAME #` from tracking software;
archives may separate hands with `*********** # 1 **************` and indent lines); a hand is read
line by line into canonical events, with money in one integer scale per hand (cents for cash games,
chips for tournaments, finer when the text has finer amounts), stated in the header's `money_scale`.

**Readers record; rules judge.** This reader writes what the text says happened, illegal or not: a
check facing a bet, an action after a fold or after going all-in, a flop of two or four cards, a draw
that received more or fewer cards than were discarded, an uncalled bet returned that was never bet,
a bet after the showdown, a player dealt cards or acting while listed as sitting out (who was, then,
dealt in), a seat listed twice, hole cards of the wrong number. The rules report those as findings.
Room conventions it applies, each documented where it is read:

- tournaments deal players who are `sitting out` in (the room posts their antes and blinds and folds
  for them), but not a seat `out of hand` (moved in from another table);
- a fold the text shows to be the room's doing is the `kill` event, not an action (PokerStars' help:
  a tournament player sitting out "automatically folds while still posting blinds and antes"; when
  the time to act expires, the hand is folded): the player was absent by the file's own markers (`is
  sitting out` in the seat list or said during the hand, `sits out`; undone by `has returned`, by a
  bet, and in cash games by posting), or the fold is the next action after `X has timed out…` (that
  marker binds to that one action; `is disconnected` alone proves nothing), or the player had no
  chips behind because forced posts took them (all-in, with no decision to make: real exports show a
  player sitting out who "posts small blind 31 and is all-in" and then "folds"; pokerdf-tests hand
  33332 is such a fold). Never after the text showed the player's cards, and never for a player who went
  all-in by a bet, call or raise of their own: that "fold" is the player's, recorded for the rules to
  judge, so a forged fold cannot pass as the house's (`_HandReader.room_folds`);
- older exports with no `Uncalled bet (X) returned to` line that leave the uncalled chips out of
  `Total pot`: in a hand with the older export's header (`PokerStars Game #`, never today's `Hand #`),
  when the chips put in exceed the chips paid by exactly the unmatched part of the last bet, and the
  stated total agrees with the awards, the `return` is written; a ReaderNote (`implied-uncalled-return`)
  says so once per file.

The summary's `Total pot X Main pot Y. Side pot-1 Z.` is not compared with the awards here: the
awards are what the log records, and the pot rules judge them.

What it still refuses, each with its quarantine code (auditor/model/records.py), because the
canonical log cannot hold what the text says:

- `unsupported-game`: a game or betting structure the log does not have (hi/lo, stud, razz, triple
  draw, short deck, spread limit…), or a header naming no game it knows;
- `unsupported-feature`: run it twice, an all-in cash-out, a button blind or bring-in, a side pot
  past side pot-10, a table of more than 10 seats;
- `truncated`: the hand stops before its table line, its deal, its summary or its showdown (two live
  players and no `*** SHOW DOWN ***`); it has no `collected` line (PokerStars always writes one, and
  without an award the chips cannot be judged at all, so the hand would pass unjudged); or it is a
  fragment of a hand before the first header;
- `cancelled`: `Hand cancelled`;
- `damaged`: lines not understood (an amount that is no number, a card that is no card, a seat
  number of five digits); a player acting who has no seat (no name in the seat list), a
  line that could belong to two seats with the same name; streets in an impossible order (a post or
  a bet before or after the deal it belongs to, a second deal, a board in five-card draw); text that
  contradicts itself about cards (a turn that does not repeat the flop, a summary board that differs);
- `inconsistent-amounts`: a player putting in more than they have behind, called all-in with chips
  behind, or "raising" to no more than they have in; an amount that is no number of the hand's units;
- `limit`: a line or hand longer than the limits allow (auditor/ingest/limits.py);
- `invalid-record`: the canonical hand fails the schema or `consistency_error` (reported as found);
- `internal-error`: a fault of this reader, never of the file.

Player names are whatever the players chose: they can hold spaces, colons, brackets and markup. They
are never split on punctuation. A line is matched against the names seated in that hand, longest first,
and only the text after a known name is parsed, so a name can never be mistaken for part of a line.
"""

from __future__ import annotations

import math
import re
from collections.abc import Generator, Iterator
from datetime import datetime
from decimal import Decimal, InvalidOperation
from functools import cache, lru_cache
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from auditor.ingest.jsonl import consistency_error
from auditor.ingest.limits import DEFAULT_LIMITS, Limits
from auditor.ingest.text_blocks import (
    decode_block,
    decode_bytes,
    in_blocks,
    line_start,
    split_lines,
)
from auditor.ingest.validate import schema_error
from auditor.model.records import Quarantined, ReaderNote, SourceHand

ROOM = "PokerStars"
SNIFF_BYTES = 4096
DEFAULT_MAX_SEATS = 9
MAX_REASON_TEXT = 60
#: amounts are refused beyond 10**MAX_DIGITS in the file's units or with more than MAX_PLACES decimals
MAX_DIGITS = 15
MAX_PLACES = 6

ET = ZoneInfo("America/New_York")
#: The zone names PokerStars prints after a time. They follow daylight saving (a "CET" stamp in July is
#: summer time), so each maps to a place, not to a fixed offset.
ZONES = {
    "ET": "America/New_York", "EST": "America/New_York", "EDT": "America/New_York",
    "CT": "America/Chicago", "MT": "America/Denver", "PT": "America/Los_Angeles", "AT": "America/Halifax",
    "BRT": "America/Sao_Paulo", "ART": "America/Argentina/Buenos_Aires",
    "WET": "Europe/Lisbon", "CET": "Europe/Paris", "EET": "Europe/Helsinki", "MSK": "Europe/Moscow",
    "UTC": "UTC", "GMT": "UTC", "IST": "Asia/Kolkata", "CCT": "Asia/Shanghai", "HKT": "Asia/Hong_Kong",
    "JST": "Asia/Tokyo", "KST": "Asia/Seoul", "AWST": "Australia/Perth", "ACST": "Australia/Adelaide",
    "AET": "Australia/Sydney", "AEST": "Australia/Sydney", "NZT": "Pacific/Auckland",
}

_AMT = r"[$€£]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_CARD = re.compile(r"[2-9TJQKA][cdhs]")
#: the 52 strings `_CARD` matches whole: a set lookup per card instead of a pattern (`_cards`)
_CARD_SET = frozenset(rank + suit for rank in "23456789TJQKA" for suit in "cdhs")

#: `PokerStars Hand #`, `PokerStars Game #` (older exports), `PokerStars Zoom Hand #`, `PokerStars Home Game
#: Hand #`, and any case (`POKERSTARS GAME #` from tracking software)
HEADER = re.compile(r"^PokerStars (?:[\w']+ ){0,3}?(?:Hand|Game) #(?P<id>\d+):\s*(?P<rest>.*)$", re.IGNORECASE)
#: a header that begins inside a line (see _hand_spans)
INNER_HEADER = re.compile(r"PokerStars (?:[\w']+ ){0,3}?(?:Hand|Game) #\d+:", re.IGNORECASE)
#: the line archives put between hands (`*********** # 1 **************`): not part of any hand
SEPARATOR = re.compile(r"^\*{3,} ?# ?\d+ ?\*{3,}$")
TABLE = re.compile(r"^Table '(?P<name>.*)' (?:(?P<max>\d+)-max\b)?(?P<mid>.*?)"
                   r"(?:Seat #(?P<button>\d+) is the button)?$")
SEAT = re.compile(rf"^Seat (?P<seat>\d+): (?P<name>.+) \((?P<stack>{_AMT}) in chips(?:, [^()]*)?\)"
                  r"(?P<suffix>| is sitting out| out of hand.*| will be allowed to play after the button)$")
MARKER = re.compile(r"^\*\*\* (?P<name>[A-Za-z0-9 ]+?) \*\*\*(?P<rest>.*)$")
LIMIT = re.compile(r"\b(?P<limit>No Limit|Pot Limit|Fixed Limit|Spread Limit|Limit)\b", re.IGNORECASE)
STAKES = re.compile(rf"(?<![\d/.,])(?P<small>{_AMT})/(?P<big>{_AMT})(?![\d/])")
STAMP = re.compile(r"(?P<y>\d{4})/(?P<mo>\d{1,2})/(?P<d>\d{1,2})(?: - | )(?P<h>\d{1,2}):(?P<mi>\d{2}):(?P<s>\d{2})"
                   r"(?: \(?(?P<zone>[A-Z]{2,5})\)?)?")
BRACKETS = re.compile(r"\[([^\]]*)\]")
#: a currency code in the header's stakes parentheses (`($0.01/$0.02 USD)`)
CURRENCY_CODE = re.compile(r"\b([A-Z]{3})\b")

POST = re.compile(rf"^posts (?P<what>small blind|big blind|small & big blinds|the ante|straddle|button blind"
                  rf"|bring-in) (?P<amt>{_AMT})(?P<all_in> and is all-in)?$")
CALL = re.compile(rf"^calls (?P<amt>{_AMT})(?P<all_in> and is all-in)?(?: and has reached the {_AMT} cap)?$")
BET = re.compile(rf"^bets (?P<amt>{_AMT})(?P<all_in> and is all-in)?(?: and has reached the {_AMT} cap)?$")
RAISE = re.compile(rf"^raises (?P<by>{_AMT}) to (?P<to>{_AMT})(?P<all_in> and is all-in)?"
                   rf"(?: and has reached the {_AMT} cap)?$")
FOLD = re.compile(r"^folds(?: \[(?P<cards>[^\]]*)\])?$")
SHOW = re.compile(r"^shows \[(?P<cards>[^\]]*)\](?: \(.*\))?$")
MUCK = re.compile(r"^mucks(?: hand| \[(?P<cards>[^\]]*)\])$")
DISCARD = re.compile(r"^discards (?P<n>\d+) cards?(?: \[(?P<cards>[^\]]*)\])?$")
PAT = re.compile(r"^stands pat(?: on \[[^\]]*\])?$")
COLLECT = re.compile(rf"^collected (?P<amt>{_AMT}) from (?P<pot>pot|main pot|side pot(?:-(?P<n>\d+))?)$")
#: what a player may say that moves no chips (after "name: " and after "name " respectively); a tournament's
#: results ("wins the tournament…", "wins $2 for eliminating…", "wins entry to tournament #…", "wins a
#: ticket…") are paid outside the hand
QUIET_COLON = re.compile(r"^(?:doesn't show hand|sits out|is sitting out|is all-in)$")
QUIET_PLAIN = re.compile(
    r'^(?:said, ".*"|joins the table at seat #\d+|leaves the table|will be allowed to play after the button'
    r"|is disconnected|is connected|has returned|has timed out(?: while (?:being )?disconnected)?"
    r"|was removed from the table for failing to post|finished the tournament.*|wins .*|re-buys and receives .*"
    r"|takes the add-on and receives .*|is sitting out)$")
#: the same, said by someone with no seat in this hand (a railbird, a player waiting for a seat); chat
#: (`NAME said, "..."`) is matched by `_unseated_chat`, since `^.+? said, ".*"$` takes quadratic time on
#: a line full of ` said, "`
UNSEATED_QUIET = re.compile(
    r'^.+?(?:: (?:sits out|is sitting out|doesn\'t show hand)| joins the table at seat #\d+'
    r"| leaves the table| will be allowed to play after the button| is disconnected| is connected"
    r"| has returned| has timed out(?: while (?:being )?disconnected)?"
    r"| was removed from the table for failing to post)$")
UNSEATED_ACT = re.compile(r"^(?P<name>.+?): (?P<verb>posts|folds|checks|calls|bets|raises|shows|mucks|discards"
                          r"|stands pat)\b")
UNSEATED_COLLECT = re.compile(rf"^(?P<name>.+?) collected {_AMT} from ")
UNCALLED = re.compile(rf"^Uncalled bet \((?P<amt>{_AMT})\) returned to (?P<name>.+)$")
DEALT = re.compile(r"^Dealt to (?P<rest>.+)$")
TOTAL = re.compile(rf"^Total pot (?P<total>{_AMT})(?P<pots>.*?)(?: \| Rake (?P<rake>{_AMT}))?(?: \|.*)?$")
SUMMARY_SEAT = re.compile(r"^Seat (?P<seat>\d+): (?P<rest>.*)$")
#: the cards a summary's seat line shows (`Seat 3: P showed [Ah Kd] and won`)
SHOWN = re.compile(r"\b(?:showed|mucked) \[([^\]]*)\]")

#: games the engine does not have, as the header names them (checked before the games it has)
UNSUPPORTED_GAMES = (
    ("Hi/Lo", "a hi/lo split-pot game"), ("H/L", "a hi/lo split-pot game"),
    ("8 or Better", "a hi/lo split-pot game"), ("5 Card Omaha", "five-card Omaha"),
    ("6 Card Omaha", "six-card Omaha"), ("Courchevel", "Courchevel"), ("7 Card Stud", "seven-card stud"),
    ("Stud", "stud"), ("Razz", "razz"),
    ("Badugi", "badugi"), ("Badeucy", "badeucy"), ("Badacey", "badacey"), ("Triple Draw", "triple draw"),
    ("Single Draw", "single-draw lowball"), ("2-7", "deuce-to-seven lowball"), ("A-5", "ace-to-five lowball"),
    ("Lowball", "lowball"), ("6+", "short-deck hold'em"), ("Short Deck", "short-deck hold'em"),
    ("Big O", "Big O"),
)
SUPPORTED_GAMES = (("5 Card Draw", "five-card-draw", 5), ("Omaha", "omaha", 4), ("Hold'em", "holdem", 2))


def _game_word(word: str) -> re.Pattern[str]:
    """A game's name as a whole word, in any case: "6+" in "6+ Hold'em" but not in the buy-in
    "$3.26+$0.24", "2-7" but not in "12-7"."""
    return re.compile(rf"(?<![\w.,$€£+-]){re.escape(word)}(?![\w+-])", re.IGNORECASE)


GAME_WORDS = {word: _game_word(word) for word, _ in UNSUPPORTED_GAMES} | \
    {word: _game_word(word) for word, _, _ in SUPPORTED_GAMES}
STRUCTURES = {"no limit": "no-limit", "pot limit": "pot-limit", "limit": "fixed-limit", "fixed limit": "fixed-limit"}
CURRENCY_OF_SYMBOL = {"$": "USD", "€": "EUR", "£": "GBP"}
#: the verbs of the patterns `colon_line` tries after the betting ones (a line of any other verb matches none)
_RARE_VERBS = frozenset({"shows", "mucks", "discards", "stands"})
RUN_TWICE = re.compile(r"^(?:FIRST|SECOND|THIRD) (?:FLOP|TURN|RIVER|SHOW DOWN)$")


#: amounts as read (`_HandReader.money`): text -> (value, decimal places), for the texts read without fault. Stacks,
#: blinds and bets repeat from hand to hand, and a Decimal built and checked costs ~3 us; bounded by clearing
_AMOUNTS: dict[str, tuple[Decimal, int]] = {}
_AMOUNTS_KEPT = 16384
_AMOUNT_KEY_CHARS = 32
_ZERO = Decimal(0)


class _Bad(Exception):
    """The hand cannot be converted; `reason` is the one-line quarantine reason, `code` one of
    QUARANTINE_CODES (given every time: the same cause gets the same code in every reader)."""

    def __init__(self, reason: str, code: str):
        super().__init__(reason)
        self.reason = reason
        self.code = code


# -- bytes to lines -----------------------------------------------------------------------------------

def _unseated_chat(line: str) -> bool:
    """`NAME said, "..."` for any non-empty NAME: what `^.+? said, ".*"$` matches, in linear time."""
    at = line.find(' said, "', 1)
    return at >= 1 and len(line) > at + 8 and line.endswith('"')


def is_hand_start(line: str) -> bool:
    return line[:11].lower() == "pokerstars " and HEADER.match(line) is not None


def sniff_pokerstars(head: bytes) -> bool:
    """True when a line of the (decompressed) head of a file is a PokerStars hand header.

    Usually the first line is; but an export split by size starts with the end of a hand, and some
    tools put a title line first. Such a file is still PokerStars text: its first lines are then a
    fragment, quarantined as such, and every whole hand after it is read, instead of the whole file
    being skipped as "not recognised". Only the other sniffers' files are asked (this one is last)."""
    try:
        text = decode_bytes(head[:SNIFF_BYTES])
    except Exception:  # sniffing never raises
        return False
    return any(is_hand_start(line) for line in split_lines(text))


# -- the reader ---------------------------------------------------------------------------------------

def read_pokerstars(path: Path, *, rule_pack: str = "tda-2024",
                    limits: Limits = DEFAULT_LIMITS) -> Iterator[SourceHand | Quarantined | ReaderNote]:
    """Yield every hand in a PokerStars text file as a canonical hand or a quarantine entry; never raise.

    A hand with a line longer than `limits.pokerstars_max_line_bytes`, or longer itself than
    `limits.pokerstars_max_hand_bytes`, is quarantined unread (no pattern is ever run on such a line).
    A ReaderNote, once per file and kind, says which export convention was applied (before the first
    hand it was applied to); it is not a hand. The file is read a block at a time (`in_blocks`).
    """
    name = str(path)
    noted: set[str] = set()
    yield from in_blocks(path, limits, lambda raw, line0, final: block_items(raw, line0, final, name, rule_pack,
                                                                            limits, noted))


def block_items(raw: bytes, line0: int, final: bool, name: str, rule_pack: str, limits: Limits,
                noted: set[str]) -> Generator[SourceHand | Quarantined | ReaderNote, None, tuple[int, int]]:
    """The items of one block of a file (`in_blocks`: `raw` whole lines, `line0` lines of the file before it,
    `final` its last), as the whole file read at once gives them; returns the (bytes, lines) of the block used:
    up to its last hand's start unless `final`."""
    decoded = decode_bytes(raw) if line0 == 0 else decode_block(raw)
    lines = split_lines(decoded)
    # archive separators between hands are no part of any hand (short lines: the pattern is cheap); a separator
    # holds "*#" or "* #", so a text with neither has none
    if "*#" in decoded or "* #" in decoded:
        lines = ["" if line[:3] == "***" and "#" in line and SEPARATOR.match(line) else line for line in lines]
    del decoded  # (the block's text is held once, as its lines)
    max_line = limits.pokerstars_max_line_bytes
    # (a line of at most max_line / 4 characters cannot be more than max_line bytes: no encoding needed)
    overlong = [i for i, line in enumerate(lines) if len(line) * 4 > max_line and _size(line, max_line) > max_line] \
        if lines and max(map(len, lines)) * 4 > max_line else []
    spans = _hand_spans(lines, set(overlong))
    # the hands read now: all of the last block; else those before the last hand that begins at its line's start
    # (not the fragment before the first header, which is no hand: a block's first span when it is one)
    done = len(spans) if final else next((k for k in range(len(spans) - 1, 0, -1) if spans[k][2] == 0), 0)
    for k, (start, end, column) in enumerate(spans[:done]):
        long_line = next((i for i in overlong if start <= i < end), None) if overlong else None
        size = _span_size(lines, start, end, limits.pokerstars_max_hand_bytes)
        text = lines[start:end]
        text[0] = text[0][column:]
        # the next hand's header begins inside this hand's last line: the text of this hand stops there
        cut = spans[k + 1][2] if k + 1 < len(spans) and spans[k + 1][0] == end - 1 else 0
        if cut:
            text[-1] = text[-1][:cut] if len(text) > 1 else text[-1][: cut - column]
        yield from span_items(text, start + line0, end + line0, size, name, rule_pack, limits, noted,
                              None if long_line is None else long_line + line0, cut)
    if final:
        return len(raw), len(lines)
    if not done:
        return 0, 0
    start = spans[done][0]
    return line_start(raw, start), start


def span_items(text: list[str], start: int, end: int, size: int, name: str, rule_pack: str, limits: Limits,
               noted: set[str], long_line: int | None = None,
               cut: int = 0) -> Iterator[SourceHand | Quarantined | ReaderNote]:
    """The items of one span of `_hand_spans` (`text` its lines, from line `start` + 1 to `end` of the file,
    `size` its bytes by `_span_size`): a quarantine entry or the hand, after the notes not yet given in this
    file (`noted`, updated). `read_pokerstars` reads every span with it; the column-wise path
    (`pokerstars_tables`) reads here each hand it does not take, so both word it the same way."""
    max_line = limits.pokerstars_max_line_bytes
    header = is_hand_start(text[0]) and start != long_line
    if long_line is not None or size > limits.pokerstars_max_hand_bytes:
        what = (f"line {long_line + 1} is longer than {max_line} bytes (limit pokerstars_max_line_bytes)"
                if long_line is not None else
                f"hand is longer than {limits.pokerstars_max_hand_bytes} bytes (limit pokerstars_max_hand_bytes)")
        match = HEADER.match(text[0]) if header else None
        yield Quarantined(name, start + 1, f"{what}; the hand is not read", match["id"] if match else None,
                          code="limit")
        return
    if not header:
        first = next(start + i for i, line in enumerate(text) if line.strip())
        yield Quarantined(name, first + 1, "not a whole hand: text before the first 'PokerStars Hand #' "
                                           "header (a fragment of a hand)", code="truncated")
        return
    item, notes = _convert(text, name, start + 1, rule_pack)
    if cut and isinstance(item, Quarantined):
        item = Quarantined(name, item.line, f"truncated: the hand's text stops inside line {end}, where the "
                                            f"next hand's header begins ({item.reason})", item.hand_id,
                           code="truncated", table_id=item.table_id)
    for note in notes:
        if note.code not in noted:
            noted.add(note.code)
            yield note
    yield item


def _size(line: str, cap: int) -> int:
    """Bytes of `line` in UTF-8; exact only when it may exceed `cap` (a character is 1 to 4 bytes)."""
    if len(line) * 4 <= cap:
        return len(line)
    return len(line.encode("utf-8", "surrogatepass"))


def _span_size(lines: list[str], start: int, end: int, cap: int) -> int:
    """Bytes of lines[start:end] in UTF-8 with their newlines; exact only when they may exceed `cap`."""
    chars = sum(map(len, lines[start:end])) + (end - start)
    if chars * 4 <= cap:
        return chars
    return sum(_size(line, 0) + 1 for line in lines[start:end])


def _hand_spans(lines: list[str], skip: set[int] | frozenset[int] = frozenset()) -> list[tuple[int, int, int]]:
    """(start, end, column) of each hand, and of any non-blank text before the first header: lines
    [start, end), the first one read from `column` on.

    A header-like line is not a new hand when it begins with the name of a player seated in the hand
    being read (a player may call themselves "PokerStars Hand #1"). A header may also begin inside a
    line, where an export lost the end of the hand before it ("*** RIVER *** [4d Kh JPokerStars Hand
    #…"): the new hand starts there, and the hand before ends with that line cut short. Only when the
    next line is a table line, and never inside a seat line, a line that begins with a seated player's
    name or chat: a player's name cannot start a hand. Lines in `skip` (too long to be read) are never
    matched against a pattern.
    """
    starts: list[tuple[int, int]] = []
    names: list[str] = []
    in_seats = False
    for i, line in enumerate(lines):
        if not line or (skip and i in skip):  # a blank line is no header, no seat and ends no seat list
            continue
        if line[0] in "Pp" and is_hand_start(line) and \
                not (starts and any(line.startswith((n + ":", n + " ")) for n in names)):
            starts.append((i, 0))
            names = []
            in_seats = True
            continue
        inner = _inner_header(line) if "#" in line and lines[i + 1: i + 2] and \
            lines[i + 1].startswith("Table '") else 0
        if inner and not line.startswith("Seat ") and not any(line.startswith(n) for n in names):
            starts.append((i, inner))
            names = []
            in_seats = True
            continue
        if in_seats:
            if line.startswith("*** "):
                in_seats = False
            elif line[:5] == "Seat ":
                m = SEAT.match(line)
                if m:
                    names.append(m["name"])
    spans = []
    first, column = starts[0] if starts else (len(lines), 0)
    before = lines[:first] + ([lines[first][:column]] if column else [])
    if any(line.strip() for line in before):
        spans.append((0, first + (1 if column else 0), 0))
    for k, (start, column) in enumerate(starts):
        after, cut = starts[k + 1] if k + 1 < len(starts) else (len(lines), 0)
        spans.append((start, after + (1 if cut else 0), column))
    return spans


def _inner_header(line: str) -> int:
    """Where a PokerStars header begins inside `line` (not at its start, not in chat), or 0.

    Only a whole header counts, its date stamp included: player names are attacker-chosen, and a name
    such as `PokerStars Hand #1: collected` must not cut a hand in two. (A name holding a whole header
    with its date still could; the hand it cut off is then quarantined as truncated, on record.)"""
    m = INNER_HEADER.search(line, 1)
    if m is None or ' said, "' in line[: m.start()] or not HEADER.match(line[m.start():]) \
            or not STAMP.search(line, m.end()):
        return 0
    return m.start()


def convert_hand(lines: list[str], file: str, line_no: int, rule_pack: str = "tda-2024") -> SourceHand | Quarantined:
    """One hand's lines (header first) as a SourceHand, or a Quarantined saying why not."""
    return _convert(lines, file, line_no, rule_pack)[0]


def _convert(lines: list[str], file: str, line_no: int,
             rule_pack: str) -> tuple[SourceHand | Quarantined, list[ReaderNote]]:
    """convert_hand, with the notes on the room conventions applied to the hand."""
    m = HEADER.match(lines[0])
    hand_id = m["id"] if m else None
    reader = _HandReader(lines, line_no, rule_pack)
    try:
        hand = reader.read()
    except _Bad as bad:
        return Quarantined(file, line_no, bad.reason, hand_id, code=bad.code, table_id=reader.table_id), []
    except Exception as exc:  # a reader bug must not stop the run: the hand is quarantined with it
        return Quarantined(file, line_no, f"reader could not convert: {type(exc).__name__}: {exc}", hand_id,
                           code="internal-error", table_id=reader.table_id), []
    problem = schema_error(hand) or consistency_error(hand)
    if problem:
        return Quarantined(file, line_no, f"reader could not convert: {problem}", hand_id, code="invalid-record",
                           table_id=reader.table_id), []
    notes = [ReaderNote(file, line_no, code, text) for code, text in reader.notes]
    return SourceHand(hand, file, line_no), notes


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_REASON_TEXT else text[: MAX_REASON_TEXT - 3] + "..."


def _whole(digits: str, what: str) -> int:
    """A seat number or count from the text; more than four digits is no seat or count of a poker hand
    (and Python refuses to convert a number of more than 4,300 digits at all)."""
    if len(digits) > 4:
        raise _Bad(f"{what} {_short(digits)} is out of range", "damaged")
    return int(digits)


def _cards(text: str, line: int) -> list[str]:
    cards = text.split()
    for card in cards:
        if card not in _CARD_SET:
            raise _Bad(f"line {line}: card '{_short(card)}' is not a card", "damaged")
    return cards


def _started_at(rest: str) -> str | None:
    """The header's first timestamp in its own zone, as ISO 8601 in Eastern time (the room's clock)."""
    for m in STAMP.finditer(rest):
        year, month, day, hour, minute, second, zone = m.groups()
        zone = zone or "ET"
        if zone not in ZONES:
            continue
        return stamp_time(int(year), int(month), int(day), int(hour), int(minute), int(second), zone)
    return None


def stamp_time(year: int, month: int, day: int, hour: int, minute: int, second: int, zone: str) -> str | None:
    """A stamp's time in `zone` (a name of ZONES) as ISO 8601 in Eastern time, or None for a time that is none."""
    try:
        local = datetime(year, month, day, hour, minute, second, tzinfo=_zone(zone))
        return local.astimezone(ET).isoformat()
    except (ValueError, OverflowError):  # no such day, or a year 9999 stamp that leaves the calendar in ET
        return None


@cache
def _zone(name: str) -> ZoneInfo:
    """The place of a zone name of ZONES (ZoneInfo caches too, but its call costs a microsecond a hand)."""
    return ZoneInfo(ZONES[name])


def _first_game(before: str) -> tuple[int, str, str, int | None] | None:
    """`_find_game`, cached for the ordinary header (a hostile one, up to a line's limit long, is not kept)."""
    return _cached_game(before) if len(before) <= 256 else _find_game(before)


@lru_cache(maxsize=4096)
def _cached_game(before: str) -> tuple[int, str, str, int | None] | None:
    return _find_game(before)


def _find_game(before: str) -> tuple[int, str, str, int | None] | None:
    """(position, word, what, hole cards) of the first game named in the header text before the limit:
    an unsupported game carries hole cards None. The first one named is the game ("Hold'em" in
    "Hold'em No Limit"; "Omaha Hi/Lo" is hi/lo, not Omaha), so both lists are searched. A pure function
    of text every hand of a table repeats, so `_first_game` caches it (it took a tenth of the reader's time)."""
    found: list[tuple[int, int, str, str, int | None]] = []
    for rank, (word, what) in enumerate(UNSUPPORTED_GAMES):
        m = GAME_WORDS[word].search(before)
        if m:
            found.append((m.start(), rank, word, what, None))
    for rank, (word, variant, hole) in enumerate(SUPPORTED_GAMES, start=len(UNSUPPORTED_GAMES)):
        m = GAME_WORDS[word].search(before)
        if m:
            found.append((m.start(), rank, word, variant, hole))
    if not found:
        return None
    at = min(f[0] for f in found)
    # any unsupported qualifier anywhere (e.g. "Omaha Hi/Lo") wins over the supported game it qualifies
    unsupported = [f for f in found if f[4] is None]
    chosen = min(unsupported, key=lambda f: f[1]) if unsupported else min(found, key=lambda f: f[1])
    return at, chosen[2], chosen[3], chosen[4]


class _HandReader:
    """State of one hand while its lines are read. Amounts stay Decimal until the scale is known."""

    def __init__(self, lines: list[str], line_no: int, rule_pack: str):
        self.lines = lines
        self.line_no = line_no
        self.rule_pack = rule_pack
        self.table_id: str | None = None
        self.places = 0
        self.events: list[dict[str, Any]] = []
        self.seats: dict[int, dict[str, Any]] = {}
        #: further players listed in a seat already taken (a seat used twice): kept for the record
        self.extra_seats: list[dict[str, Any]] = []
        self.seat_of: dict[str, int] = {}
        self.names: list[str] = []
        self.simple_names = False
        self.initials: set[str] = set()
        self.left: dict[int, Decimal] = {}
        self.round_in: dict[int, Decimal] = {}
        #: the chips in of the last betting round that had any, for an implied uncalled return
        self.last_bets: dict[int, Decimal] = {}
        self.folded: set[int] = set()
        self.hole: dict[int, dict[str, Any]] = {}
        self.deal_order: list[int] = []
        self.known_hole: dict[int, list[str]] = {}
        self.board: list[str] = []
        self.section = "header"
        self.blind_posted = {1: False, 2: False}
        self.sb_posted: Decimal | None = None
        self.antes: list[Decimal] = []
        self.showdown = False
        self.summary = False
        self.drawn = False
        self.last_draw: dict[int, dict[str, Any]] = {}
        self.awards = 0
        self.returns = 0
        self.total_pot: Decimal | None = None
        #: seats the text shows absent: listed or said to be sitting out, and not returned since
        self.absent: set[int] = set()
        #: seats whose next action the room takes because they timed out (`has timed out…`)
        self.timed_out: set[int] = set()
        #: the hand's header is the older exports' (`header`)
        self.older_export = False
        #: seats that put chips in by their own bet, call or raise this hand (their all-in is their doing)
        self.voluntary: set[int] = set()
        #: seats whose cards the text shows (a fold after that is the player's, never the room's)
        self.shown: set[int] = set()
        #: (code, text) of the room conventions applied to this hand, for ReaderNotes
        self.notes: list[tuple[str, str]] = []

    # -- amounts --------------------------------------------------------------------------------------
    def money(self, text: str) -> Decimal:
        known = _AMOUNTS.get(text)
        if known is not None:  # read before, in this hand or another: the same value and places
            value, places = known
            if places > self.places:
                self.places = places
            return value
        value = self._money(text)
        if len(text) <= _AMOUNT_KEY_CHARS:  # (a hostile file's long amounts are not kept)
            if len(_AMOUNTS) >= _AMOUNTS_KEPT:
                _AMOUNTS.clear()
            exponent = value.as_tuple().exponent
            _AMOUNTS[text] = (value, -exponent if isinstance(exponent, int) and exponent < 0 else 0)
        return value

    def _money(self, text: str) -> Decimal:
        try:
            value = Decimal(text.lstrip("$€£").replace(",", ""))
        except InvalidOperation as exc:
            raise _Bad(f"amount '{_short(text)}' is not a number", "damaged") from exc
        # The canonical log holds amounts up to 10**15 units; anything near that is no chip count. Bounding
        # digits here also keeps a 16,000-digit "amount" from becoming an integer the schema validator
        # cannot judge (jsonschema-rs passes integers of more than 4,300 digits).
        if value.adjusted() > MAX_DIGITS:
            raise _Bad(f"amount '{_short(text)}' is too large", "damaged")
        exponent = value.as_tuple().exponent
        if isinstance(exponent, int) and exponent < 0:
            if -exponent > MAX_PLACES:
                raise _Bad(f"amount '{_short(text)}' has more than {MAX_PLACES} decimal places", "damaged")
            self.places = max(self.places, -exponent)
        return value

    # -- the whole hand -------------------------------------------------------------------------------
    def read(self) -> dict[str, Any]:
        # (a line is blank when it strips to nothing: empty, or white space only)
        body = [(self.line_no + i, line) for i, line in enumerate(self.lines) if i and line and not line.isspace()]
        table = TABLE.match(body[0][1]) if body and body[0][1].startswith("Table '") else None
        # known before the header is judged, so that even a hand of a game the log lacks names its table
        self.table_id = (table["name"] or None) if table else None
        self.header(self.lines[0])
        if not body or not body[0][1].startswith("Table '"):
            raise _Bad("truncated: no 'Table' line after the header", "truncated")
        self.table(body[0][1])
        i = 1
        while i < len(body) and body[i][1].startswith("Seat "):
            m = SEAT.match(body[i][1])
            if not m:
                break
            self.seat(m, body[i][0])
            i += 1
        if not self.seats:
            raise _Bad("truncated: no seat lines (nobody is seated)", "truncated")
        self.names = sorted(self.seat_of, key=len, reverse=True)
        # When no seated name begins another, at most one name begins any line, and a line `NAME: ...` or
        # `Dealt to NAME [...` is placed by one look-up instead of trying every name (`player_line`, `dealt`).
        self.simple_names = not any(a != b and b.startswith(a) for a in self.names for b in self.names)
        self.initials = {name[0] for name in self.names}
        self.events.append({"kind": "button", "seat": self.button})
        self.section = "predeal"
        self.play(body[i:])
        return self.finish()

    def play(self, body: list[tuple[int, str]]) -> None:
        """Every line after the seat list, in order (`line`). A line `NAME: ...` of a seated NAME, when no
        seated name begins another, goes straight to `colon_line`, which is where `line` would send it
        (the line is no marker and no summary line, and NAME is the one seated name it begins with);
        whatever `colon_line` does not take (it then changes nothing) takes the whole of `line`. So does a
        `Dealt to X` line when no seated name begins with "D": `line` would find no player's line, no
        uncalled bet, and give it to `dealt`."""
        seat_of = self.seat_of
        simple = self.simple_names
        colon_line = self.colon_line
        line_of = self.line
        dealt_direct = "D" not in self.initials
        for n, line in body:
            if not self.summary:
                if simple and line[:4] != "*** ":
                    at = line.find(": ")
                    if at > 0:
                        seat = seat_of.get(line[:at])
                        if seat is not None and colon_line(n, seat, line[at + 2:]):
                            continue
                if dealt_direct and line[:9] == "Dealt to " and len(line) > 9:
                    self.dealt(n, line[9:])
                    continue
            line_of(n, line)

    def header(self, line: str) -> None:
        m = HEADER.match(line)
        if not m:
            raise _Bad("not a PokerStars hand header", "damaged")
        self.hand_id = m["id"]
        # `PokerStars Game #` (in any case: a tracker's `POKERSTARS GAME #` too): the header of the older exports,
        # the evidence the implied uncalled return asks for (`implied_return`); today's say `Hand #`
        self.older_export = line[:17].lower() == "pokerstars game #"
        rest = m["rest"]
        self.tournament = rest[:12].lower() == "tournament #"
        limit = LIMIT.search(rest)
        if not limit:
            raise _Bad(f"header names no betting structure: '{_short(rest)}'", "damaged")
        before = rest[: limit.start()]
        game = _first_game(before)
        if game is None:
            raise _Bad(f"game not recognised: '{_short(before + limit['limit'])}'", "unsupported-game")
        at, _, what, hole = game
        game_text = (before[at:] + limit["limit"]).strip()
        if hole is None:
            raise _Bad(f"unsupported variant: {game_text} is {what}, which the engine does not have",
                       "unsupported-game")
        self.variant, self.hole_cards = what, hole
        structure = limit["limit"].lower()
        if structure not in STRUCTURES:
            raise _Bad(f"unsupported betting structure: {game_text}", "unsupported-game")
        self.structure = STRUCTURES[structure]
        after = rest[limit.end():]
        stakes = STAKES.search(after)
        if not stakes:
            raise _Bad(f"header has no stakes: '{_short(rest)}'", "damaged")
        self.small = self.money(stakes["small"])
        self.big = self.money(stakes["big"])
        symbol = stakes["small"][0] if stakes["small"][0] in CURRENCY_OF_SYMBOL else None
        tail = after[stakes.end():]
        closing = tail.find(")")
        inside = tail[:closing] if closing >= 0 else ""
        code = CURRENCY_CODE.search(inside)
        self.currency = None
        if not self.tournament and (code or symbol):
            self.currency = code[1] if code else CURRENCY_OF_SYMBOL[symbol]
        self.started_at = _started_at(rest)

    def table(self, line: str) -> None:
        m = TABLE.match(line)
        if not m:
            raise _Bad(f"table line not understood: '{_short(line)}'", "damaged")
        self.table_id = m["name"] or None
        if not m["button"]:
            raise _Bad("the table line names no button seat", "damaged")
        self.button = _whole(m["button"], "button seat")
        self.max_seats = _whole(m["max"], "table size") if m["max"] else None
        if self.max_seats is not None and not 2 <= self.max_seats <= 10:
            raise _Bad(f"a {self.max_seats}-seat table (the canonical log has 2 to 10 seats)", "unsupported-feature")

    def seat(self, m: re.Match, n: int) -> None:
        seat, name = _whole(m["seat"], f"line {n}: seat"), m["name"]
        if name != name.strip():
            # lines are read without their edge blanks, so ' 0: folds' would be the fold of a player '0'
            raise _Bad(f"line {n}: seat {seat}'s player name starts or ends with a blank, which the lines "
                       "naming the player cannot show", "damaged")
        if name in self.seat_of:
            # the lines that follow could be either seat's: they cannot be placed
            raise _Bad(f"line {n}: two seats have the same player name", "damaged")
        stack = self.money(m["stack"])
        entry: dict[str, Any] = {"seat": seat, "player": name, "stack": stack}
        if m["suffix"]:
            entry["status"] = "sitting_out"
        self.seat_of[name] = seat
        if seat in self.seats:
            # a seat used twice is written as listed (the log keeps both entries; consistency_error and
            # the rules judge it); the two players' chips are counted together
            self.extra_seats.append(entry)
            self.left[seat] += stack
            return
        self.seats[seat] = entry
        self.left[seat] = stack
        if m["suffix"] == " is sitting out":
            self.absent.add(seat)

    # -- one line ---------------------------------------------------------------------------------------
    def line(self, n: int, line: str) -> None:
        if self.summary:
            self.summary_line(n, line)
            return
        marker = MARKER.match(line) if line[:4] == "*** " else None
        if marker:
            self.marker(n, marker["name"], marker["rest"])
            return
        if self.player_line(n, line):
            return
        if self.room_line(n, line):
            return
        if UNSEATED_QUIET.match(line) or _unseated_chat(line):
            return
        if any(line.startswith(name) for name in self.names):
            raise _Bad(f"line {n} not understood: '{_short(line)}'", "damaged")
        m = UNSEATED_ACT.match(line) or UNSEATED_COLLECT.match(line)
        if m:
            raise _Bad(f"line {n}: '{_short(m['name'])}' acts but has no seat in this hand", "damaged")
        raise _Bad(f"line {n} not understood: '{_short(line)}'", "damaged")

    def player_line(self, n: int, line: str) -> bool:
        if line[:1] not in self.initials:  # no seated name begins the line
            return False
        names: list[str] | tuple[str] = self.names
        if self.simple_names:
            at = line.find(": ")
            if at > 0 and line[:at] in self.seat_of:
                names = (line[:at],)  # the one seated name that begins the line
        for name in names:
            if not line.startswith(name):
                continue
            rest = line[len(name):]
            seat = self.seat_of[name]
            if rest.startswith(": ") and self.colon_line(n, seat, rest[2:]):
                return True
            if rest.startswith(" ") and self.plain_line(n, seat, rest[1:]):
                return True
        return False

    def room_line(self, n: int, line: str) -> bool:
        m = UNCALLED.match(line)
        if m:
            seat = self.seat_of.get(m["name"])
            if seat is None:
                raise _Bad(f"line {n}: an uncalled bet goes back to '{_short(m['name'])}', who has no seat", "damaged")
            self.need("play", n, "an uncalled bet returned")
            amount = self.money(m["amt"])
            # written as stated even when it is more than the seat bet in the round: TDA-INT-chips judges it
            self.round_in[seat] = max(Decimal(0), self.round_in.get(seat, Decimal(0)) - amount)
            self.left[seat] += amount
            self.events.append({"kind": "return", "seat": seat, "amount": amount})
            self.returns += 1
            return True
        m = DEALT.match(line)
        if m:
            self.dealt(n, m["rest"])
            return True
        if line == "Hand cancelled":
            raise _Bad("hand cancelled", "cancelled")
        if line in ("No low hand qualified", "Betting is capped"):
            return True
        if line.startswith(("Total pot ", "Board [", "Hand was run twice", "FIRST Board", "SECOND Board")):
            raise _Bad(f"line {n}: summary line before *** SUMMARY ***: '{_short(line)}'", "damaged")
        return False

    def need(self, section: str, n: int, what: str) -> None:
        if section == "play" and self.section not in ("play", "showdown"):
            raise _Bad(f"line {n}: {what} before the cards are dealt", "damaged")
        if section == "predeal" and self.section != "predeal":
            raise _Bad(f"line {n}: {what} after the cards are dealt", "damaged")

    def colon_line(self, n: int, seat: int, rest: str) -> bool:
        # Each pattern begins with its own verb, so only the one the line's first word names can match.
        verb = rest.split(" ", 1)[0]
        m = POST.match(rest) if verb == "posts" else None
        if m:
            self.post(n, seat, m["what"], self.money(m["amt"]), bool(m["all_in"]))
            return True
        if rest == "checks":
            self.action(n, seat, "check", None, None)
            return True
        m = CALL.match(rest) if verb == "calls" else None
        if m:
            self.action(n, seat, "call", self.money(m["amt"]), None, bool(m["all_in"]))
            return True
        m = BET.match(rest) if verb == "bets" else None
        if m:
            self.action(n, seat, "bet", self.money(m["amt"]), None, bool(m["all_in"]))
            return True
        m = RAISE.match(rest) if verb == "raises" else None
        if m:
            self.money(m["by"])
            self.action(n, seat, "raise", None, self.money(m["to"]), bool(m["all_in"]))
            return True
        m = FOLD.match(rest) if verb == "folds" else None
        if m:
            if m["cards"]:
                self.remember_hole(seat, _cards(m["cards"], n))
            self.action(n, seat, "fold", None, None)
            return True
        if verb not in _RARE_VERBS:  # none of the patterns below can match: straight to the last two tests
            if rest in ("sits out", "is sitting out"):
                return self.sits_out(n, seat)
            return QUIET_COLON.match(rest) is not None
        m = SHOW.match(rest)
        if m:
            self.need("play", n, "a show")
            cards = _cards(m["cards"], n)
            self.events.append({"kind": "show", "seat": seat, "cards": cards})
            self.shown.add(seat)
            self.remember_hole(seat, cards)
            return True
        m = MUCK.match(rest)
        if m:
            self.need("play", n, "a muck")
            if m["cards"]:
                self.remember_hole(seat, _cards(m["cards"], n))
            self.events.append({"kind": "muck", "seat": seat})
            return True
        m = DISCARD.match(rest)
        if m:
            count = _whole(m["n"], f"line {n}: discard count")
            cards = _cards(m["cards"], n) if m["cards"] else ["??"] * count
            if len(cards) != count:
                raise _Bad(f"line {n}: discards {count} cards but shows {len(cards)}", "damaged")
            self.draw(n, seat, cards)
            return True
        if PAT.match(rest):
            self.draw(n, seat, [])
            return True
        if rest in ("sits out", "is sitting out"):
            return self.sits_out(n, seat)
        return QUIET_COLON.match(rest) is not None

    def sits_out(self, n: int, seat: int) -> bool:
        """`P: sits out` or `P: is sitting out`: absent (and before the deal, perhaps not dealt in)."""
        if self.section == "predeal":
            self.sit_out(n, seat)
        else:
            self.absent.add(seat)
        return True

    def plain_line(self, n: int, seat: int, rest: str) -> bool:
        m = COLLECT.match(rest)
        if m:
            self.need("play", n, "a pot collected")
            pot = 0 if m["pot"] in ("pot", "main pot") else _whole(m["n"] or "1", f"line {n}: side pot")
            if pot > 10:
                raise _Bad(f"line {n}: side pot {pot} (the canonical log numbers pots 0 to 10)", "unsupported-feature")
            self.events.append({"kind": "award", "pot": pot, "seat": seat, "amount": self.money(m["amt"])})
            self.awards += 1
            return True
        if rest.startswith("cashed out the hand"):
            raise _Bad(f"line {n}: the hand was cashed out (all-in cash out), which the engine does not model",
                       "unsupported-feature")
        if rest == "is sitting out":
            self.colon_line(n, seat, rest)
            return True
        if rest.startswith("has timed out") and QUIET_PLAIN.match(rest):
            # The room's marker of a player who did not act in time. It is about the player's next
            # action only (PokerStars checks or folds for them at once): a fold then is the room's.
            self.timed_out.add(seat)
            return True
        if rest == "has returned":
            self.absent.discard(seat)
            return True
        return QUIET_PLAIN.match(rest) is not None

    # -- what the lines do ------------------------------------------------------------------------------
    def sit_out(self, n: int, seat: int) -> None:
        """`P: sits out` before the deal: not dealt in (cash games), unless P has already put chips in;
        absent either way (a tournament deals P in, and a fold of P's is the room's)."""
        self.absent.add(seat)
        if not any(ev.get("seat") == seat for ev in self.events[1:]):
            self.seats[seat]["status"] = "sitting_out"

    def post(self, n: int, seat: int, what: str, amount: Decimal, all_in: bool) -> None:
        self.need("predeal", n, "a post")
        # A player marked as sitting out who posts is dealt in (tournaments deal to absent players,
        # who post and are folded by the room).
        self.seats[seat].pop("status", None)
        if not self.tournament:
            self.absent.discard(seat)  # in a cash game only a player at the table posts
        self.take(n, seat, amount, all_in)
        if what in ("button blind", "bring-in"):
            raise _Bad(f"line {n}: a {what}, which the canonical log does not have", "unsupported-feature")
        if what == "the ante":
            self.antes.append(amount)
            self.add_post(seat, "ante", amount, all_in)
            return
        if what == "straddle":
            self.add_post(seat, "straddle", amount, all_in, live=True)
            return
        if what == "small & big blinds":
            live = min(amount, self.big_blind())
            self.add_post(seat, "missed", live, all_in and amount == live, live=True)
            if amount > live:
                self.add_post(seat, "dead", amount - live, all_in)
            return
        number = 1 if what == "small blind" else 2
        if self.blind_posted[number]:
            # another player's post: a big blind from a new or returning player plays live, a
            # small blind alone is dead money
            if number == 2:
                self.add_post(seat, "missed", amount, all_in, live=True)
            else:
                self.add_post(seat, "dead", amount, all_in)
            return
        self.blind_posted[number] = True
        if number == 1 and not all_in:
            self.sb_posted = amount
        self.add_post(seat, "blind", amount, all_in, live=True, blind=number)

    def big_blind(self) -> Decimal:
        return self.small if self.structure == "fixed-limit" else self.big

    def add_post(self, seat: int, post: str, amount: Decimal, all_in: bool, *, live: bool = False,
                 blind: int | None = None) -> None:
        event: dict[str, Any] = {"kind": "post", "seat": seat, "post": post}
        if blind is not None:
            event["blind"] = blind
        event["amount"] = amount
        if all_in or self.left[seat] == 0:
            event["all_in"] = True
        self.events.append(event)
        if live:
            self.round_in[seat] = self.round_in.get(seat, Decimal(0)) + amount

    def take(self, n: int, seat: int, amount: Decimal, all_in: bool) -> None:
        if amount < 0 or amount > self.left[seat]:
            raise _Bad(f"line {n}: seat {seat} puts in {amount} with {self.left[seat]} behind", "inconsistent-amounts")
        self.left[seat] -= amount
        if all_in and self.left[seat] != 0:
            raise _Bad(f"line {n}: seat {seat} is said to be all-in with {self.left[seat]} behind",
                       "inconsistent-amounts")

    def action(self, n: int, seat: int, verb: str, amount: Decimal | None, to: Decimal | None,
               all_in: bool = False) -> None:
        if self.section not in ("play", "showdown"):
            raise _Bad(f"line {n}: a betting action before the deal", "damaged")
        if seat not in self.hole:
            # a seat listed as sitting out that acts was dealt in after all
            self.deal_in(seat)
        event: dict[str, Any] = {"kind": "action", "seat": seat}
        timed_out = bool(self.timed_out) and seat in self.timed_out
        if timed_out:
            self.timed_out.discard(seat)
        if verb == "fold":
            self.folded.add(seat)
            if self.room_folds(seat, timed_out):
                self.events.append({"kind": "kill", "seat": seat})
                return
        if verb in ("fold", "check"):
            event["action"] = verb
            self.events.append(event)
            return
        self.absent.discard(seat)  # a player who bets is at the table
        self.voluntary.add(seat)
        before = self.round_in.get(seat, _ZERO)
        current = max(self.round_in.values(), default=_ZERO)
        if to is None:
            assert amount is not None
            to = before + amount
        amount = to - before
        if amount <= 0:
            raise _Bad(f"line {n}: seat {seat} {verb}s to {to}, no more than the {before} it has in",
                       "inconsistent-amounts")
        self.take(n, seat, amount, all_in)
        if verb in ("bet", "raise"):
            verb = "raise" if current > 0 else "bet"
        self.round_in[seat] = to
        event.update(action=verb, amount=amount, to=to)
        if all_in or self.left[seat] == 0:
            event["all_in"] = True
        self.events.append(event)

    def room_folds(self, seat: int, timed_out: bool) -> bool:
        """Whether a fold of `seat` is the room's doing (a `kill`), by the evidence of this file alone: the
        player was absent by its own markers (tournaments fold for players sitting out), the clock folded a
        player who timed out, or the player has no chips behind only because forced posts took them (no
        decision to make: "folds" can only be the room declaring the hand dead). Never a player whose cards the
        text showed, nor one who went all-in by a bet, call or raise of their own: such a "fold" is the
        player's, recorded as it happened for the rules to judge (a convention must not turn a forged fold
        into the house's and so hide acting after all-in or a pot given to the worse hand)."""
        if seat in self.shown:
            return False
        if seat in self.absent or timed_out:
            return True
        return self.left[seat] == 0 and seat not in self.voluntary and seat not in self.folded_before(seat)

    def folded_before(self, seat: int) -> set[int]:
        """Seats with a fold or kill already written (a second fold of an all-in seat is still a fold)."""
        return {e["seat"] for e in self.events if e["kind"] == "kill" or e.get("action") == "fold"}

    def deal_in(self, seat: int) -> None:
        """Deal `seat` in after the fact, in its place in the deal order: the text shows the seat playing
        (acting, or dealt cards) though its seat line or a `sits out` said it was sitting out."""
        self.seats[seat].pop("status", None)
        event = {"kind": "deal", "to": "hole", "seat": seat, "cards": ["??"] * self.hole_cards}
        rank = {s: k for k, s in enumerate(self.deal_order)}
        deals = [i for i, e in enumerate(self.events) if e["kind"] == "deal" and e["to"] == "hole"]
        later = [i for i in deals if rank.get(self.events[i]["seat"], 99) > rank.get(seat, 99)]
        at = later[0] if later else (deals[-1] + 1 if deals else len(self.events))
        self.events.insert(at, event)
        self.hole[seat] = event

    def new_round(self) -> None:
        if any(v > 0 for v in self.round_in.values()):
            self.last_bets = self.round_in
        self.round_in = {}

    def marker(self, n: int, name: str, rest: str) -> None:
        if RUN_TWICE.match(name):
            raise _Bad(f"run it twice: the hand has '*** {name} ***', two boards, which the engine does not have",
                       "unsupported-feature")
        if name in ("HOLE CARDS", "DEALING HANDS"):
            if self.section != "predeal":
                raise _Bad(f"line {n}: a second deal ('*** {name} ***')", "damaged")
            self.deal()
            return
        if self.section == "predeal":
            raise _Bad(f"line {n}: '*** {name} ***' before the cards are dealt", "damaged")
        if name in ("FLOP", "TURN", "RIVER"):
            self.board_line(n, name, rest)
        elif name in ("DRAW", "FIRST DRAW"):
            if self.variant != "five-card-draw" or self.drawn:
                raise _Bad(f"line {n}: '*** {name} ***' in a game with no such draw", "damaged")
            self.drawn = True
            self.new_round()
        elif name == "SHOW DOWN":
            self.showdown = True
            self.section = "showdown"
        elif name == "SUMMARY":
            self.summary = True
            self.section = "summary"
        else:
            raise _Bad(f"line {n}: street '*** {_short(name)} ***' is not one this reader knows", "damaged")

    def deal(self) -> None:
        """Hole cards to every seat dealt in, clockwise from the button's left. Cash games do not deal to
        a seat sitting out; tournaments deal to players sitting out too (the room posts and folds for
        them), but not to a seat `out of hand`."""
        self.section = "play"
        button = self.button
        self.deal_order = sorted(self.seats, key=lambda s: (s - button - 1) % 10)
        for seat in self.deal_order:
            if self.tournament and seat in self.absent:
                self.seats[seat].pop("status", None)
            elif self.seats[seat].get("status") == "sitting_out":
                # a cash seat sitting out, or a tournament seat "out of hand" (moved in from another
                # table, waiting for the button to pass): not dealt in
                continue
            event = {"kind": "deal", "to": "hole", "seat": seat, "cards": ["??"] * self.hole_cards}
            self.hole[seat] = event
            self.events.append(event)

    def board_line(self, n: int, name: str, rest: str) -> None:
        if self.variant == "five-card-draw":
            raise _Bad(f"line {n}: a {name.lower()} in five-card draw", "damaged")
        if self.showdown:
            raise _Bad(f"line {n}: a {name.lower()} after the showdown", "damaged")
        groups = BRACKETS.findall(rest)
        # A board of the wrong size (a flop of two or four cards, a turn of two) is written as dealt:
        # TDA-35A and the deal rules judge it. Only a line that contradicts the board before it is refused.
        if name == "FLOP":
            if len(groups) != 1:
                raise _Bad(f"line {n}: flop line not understood", "damaged")
            new = _cards(groups[0], n)
        else:
            if len(groups) != 2 or _cards(groups[0], n) != self.board:
                raise _Bad(f"line {n}: the {name.lower()} line does not repeat the board dealt so far", "damaged")
            new = _cards(groups[1], n)
        self.board.extend(new)
        self.events.append({"kind": "deal", "to": "board", "cards": new})
        self.new_round()

    def dealt(self, n: int, rest: str) -> None:
        names: list[str] | tuple[str] = self.names
        if self.simple_names:
            at = rest.find(" [")
            if at > 0 and rest[:at] in self.seat_of:
                names = (rest[:at],)  # the one seated name `rest` begins with (see `read`)
        for name in names:
            if rest.startswith(name + " ["):
                seat = self.seat_of[name]
                groups = BRACKETS.findall(rest[len(name):])
                if not groups or not rest.endswith("]"):
                    break
                if self.section not in ("play", "showdown"):
                    raise _Bad(f"line {n}: cards dealt before the deal", "damaged")
                if seat not in self.hole:
                    self.deal_in(seat)  # dealt cards, so dealt in, whatever the seat line said
                if self.drawn and self.variant == "five-card-draw":
                    draw = self.last_draw.get(seat)
                    if draw is not None and len(groups) == 2:
                        # as many new cards as the text shows, discarded or not: ONL5CD-draw judges it
                        draw["receive"] = _cards(groups[1], n)
                    return
                cards = [c for g in groups for c in _cards(g, n)]
                # as many hole cards as the text shows (a misdeal is the deal rules' to judge)
                self.hole[seat]["cards"] = cards
                return
        raise _Bad(f"line {n}: cards dealt to someone with no seat: '{_short(rest)}'", "damaged")

    def draw(self, n: int, seat: int, discard: list[str]) -> None:
        if self.variant != "five-card-draw" or self.section != "play":
            raise _Bad(f"line {n}: a draw outside the draw of five-card draw", "damaged")
        if not self.drawn:  # the room printed no draw marker: the first discard opens the draw
            self.drawn = True
            self.new_round()
        if seat not in self.hole:
            self.deal_in(seat)
        # a draw by a folded seat, or of more than five cards, is written as it happened
        event = {"kind": "draw", "seat": seat, "discard": discard, "receive": ["??"] * len(discard)}
        self.last_draw[seat] = event
        self.events.append(event)

    def remember_hole(self, seat: int, cards: list[str]) -> None:
        if self.variant != "five-card-draw" and len(cards) == self.hole_cards:
            self.known_hole[seat] = cards

    def summary_line(self, n: int, line: str) -> None:
        m = TOTAL.match(line) if line[:10] == "Total pot " else None
        if m:
            if m["rake"] is not None:
                # stated for the hand: PokerStars does not say which pot(s) it came from
                self.events.append({"kind": "rake", "amount": self.money(m["rake"])})
            self.total_pot = self.money(m["total"])
            return
        if line.startswith("Board ["):
            groups = BRACKETS.findall(line)
            if len(groups) != 1 or _cards(groups[0], n) != self.board:
                raise _Bad(f"line {n}: the summary board differs from the board dealt", "damaged")
            return
        if line.startswith(("Hand was run twice", "FIRST Board", "SECOND Board")):
            raise _Bad("run it twice: the summary shows two boards, which the engine does not have",
                       "unsupported-feature")
        m = SUMMARY_SEAT.match(line)
        if m:
            seat = _whole(m["seat"], f"line {n}: seat")
            entry = self.seats.get(seat)
            players = [e["player"] for e in [entry, *self.extra_seats] if e is not None and e["seat"] == seat] \
                if self.extra_seats else [entry["player"]] if entry is not None else []
            player = next((p for p in players if (m["rest"] + " ").startswith(p + " ")), None)
            if player is None:
                raise _Bad(f"line {n}: the summary names seat {seat} differently from the seat list", "damaged")
            tail = m["rest"][len(player):]
            shown = SHOWN.search(tail) if "[" in tail else None
            if shown:
                self.remember_hole(seat, _cards(shown[1], n))
            return
        raise _Bad(f"line {n}: summary line not understood: '{_short(line)}'", "damaged")

    # -- the canonical hand ---------------------------------------------------------------------------
    def implied_return(self) -> None:
        """Older exports print no `Uncalled bet (X) returned` line and leave the uncalled chips out of
        `Total pot`. When no return is written, the chips put in exceed the chips paid by exactly the
        unmatched part of the last round's highest bet, and the stated total equals the awards plus the
        rake (or the awards), that part went back to its bettor: the return is written after the last action (or kill),
        where the room writes it. Any other imbalance is left as it is, for TDA-INT-chips.

        Only in a hand of the older export's own header (`PokerStars Game #`, `older_export`): today's exports
        write the line, so an uncalled bet left out of one of today's hands is not this convention but chips the
        record does not account for (a deleted line would otherwise read as a return, and a room that kept the
        chips would pass), reported by TDA-INT-chips."""
        if self.returns or self.total_pot is None or not self.older_export:
            return
        bets = self.round_in if any(v > 0 for v in self.round_in.values()) else self.last_bets
        if not bets:
            return
        top = max(bets, key=lambda s: bets[s])
        second = max((v for s, v in bets.items() if s != top), default=Decimal(0))
        unmatched = bets[top] - second
        if unmatched <= 0 or top in self.folded:
            return
        put = sum((e["amount"] for e in self.events if e["kind"] in ("post", "action") and "amount" in e), Decimal(0))
        awarded = sum((e["amount"] for e in self.events if e["kind"] == "award"), Decimal(0))
        rake = sum((e["amount"] for e in self.events if e["kind"] == "rake"), Decimal(0))
        # PokerStars states the pot before the rake; some tracking-software exports (Holdem Manager's)
        # state it after, as the awards
        if put - awarded - rake != unmatched or self.total_pot not in (awarded + rake, awarded):
            return
        last = max(i for i, e in enumerate(self.events) if e["kind"] in ("action", "kill"))
        self.events.insert(last + 1, {"kind": "return", "seat": top, "amount": unmatched})
        self.notes.append(("implied-uncalled-return",
                           "this export writes no 'Uncalled bet (X) returned to' line and leaves the uncalled "
                           "chips out of 'Total pot'; the unmatched part of the last bet is read as returned "
                           "to its bettor wherever the stated total agrees"))

    def finish(self) -> dict[str, Any]:
        if self.section == "predeal":
            raise _Bad("truncated: no *** HOLE CARDS *** line", "truncated")
        if not self.summary:
            raise _Bad("truncated: no *** SUMMARY *** section", "truncated")
        live = [s for s in self.hole if s not in self.folded]
        if len(live) > 1 and not self.showdown:
            raise _Bad(f"truncated: {len(live)} players reach the showdown, but there is no *** SHOW DOWN ***",
                       "truncated")
        if not self.awards:
            raise _Bad("truncated: no pot was awarded (no 'collected' line)", "truncated")
        for seat, cards in self.known_hole.items():
            if seat in self.hole and self.hole[seat]["cards"].count("??") == len(self.hole[seat]["cards"]):
                self.hole[seat]["cards"] = cards
        self.implied_return()

        cash = self.currency is not None
        scale = 10 ** max(self.places, 2 if cash else 0)

        def units(value: Decimal) -> int:
            scaled = value * scale
            if scaled != scaled.to_integral_value():
                raise _Bad(f"amount {value} is not a whole number of units", "inconsistent-amounts")
            return int(scaled)

        if self.structure == "fixed-limit":
            small_bet, big_bet = units(self.small), units(self.big)
            sb = units(self.sb_posted) if self.sb_posted is not None else small_bet // 2
            stakes: dict[str, Any] = {"blinds": [sb, small_bet]}
            stakes["bet_units"] = [small_bet, big_bet] if self.variant == "five-card-draw" else \
                [small_bet, small_bet, big_bet, big_bet]
        else:
            stakes = {"blinds": [units(self.small), units(self.big)]}
        if self.antes:
            stakes["ante"] = units(max(self.antes))
        seats = []
        for entry in sorted([*self.seats.values(), *self.extra_seats], key=lambda e: e["seat"]):
            entry = dict(entry)
            entry["stack"] = units(entry["stack"])
            seats.append(entry)
        amounts: list[int] = []
        for event in self.events:
            # an action's `amount` and `to` come together; `to` of a deal is where the cards go, no amount
            if "amount" in event:
                value = event["amount"] = units(event["amount"])
                amounts.append(value)
                if "to" in event and event["kind"] == "action":
                    value = event["to"] = units(event["to"])
                    amounts.append(value)
        amounts += [s["stack"] for s in seats] + stakes["blinds"] + stakes.get("bet_units", [])
        smallest_chip = scale // 100 if cash and scale >= 100 else scale
        stakes["chip_unit"] = math.gcd(smallest_chip, *amounts) or 1

        hand: dict[str, Any] = {"hand_id": self.hand_id, "table_id": self.table_id, "room": ROOM}
        if self.started_at:
            hand["started_at"] = self.started_at
        hand.update(variant=self.variant, structure=self.structure)
        if self.currency:
            hand["currency"] = self.currency
        # how many of the log's integers make one unit: of the currency (cents: 100) or of a chip
        hand["money_scale"] = scale
        highest = max(self.seats)
        max_seats = self.max_seats if self.max_seats is not None else max(DEFAULT_MAX_SEATS, highest)
        hand.update(stakes=stakes, max_seats=max_seats, rule_pack=self.rule_pack, seats=seats, events=self.events)
        return hand
