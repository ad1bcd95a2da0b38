"""Reader for Open Hand History files (`.ohh`, hh-specs.handhistory.org): `{"ohh": {...}}` objects.

A file holds one or more `{"ohh": {...}}` objects separated by blank lines (the specification's
storage format); a single object, a JSON array of objects and one object per line are read too.
Every object ends as one `SourceHand` or one `Quarantined` whose `line` is the line where the
object starts. A chunk that is not valid JSON is quarantined with its line and the JSON error, and
reading resumes at the next line that starts (in column 0) with `{` or `[`, which is where the
next object of a blank-line separated or one-per-line file begins. (Inside a JSON array, whose
elements are indented, a broken element loses the rest of the array; the entry says so.)

Each object is checked against `schemas/ohh.schema.json` (jsonschema-rs) first; a failure is
quarantined with the first error's path and message. Then the hand is mapped to the canonical
log (docs/readers.md), and the result must pass the canonical schema and consistency check.

How the mapping reads OHH (the choices the specification leaves open, and its examples' leniency):

- Money: amounts are parsed as decimals (never floats) and scaled to integers with one scale per
  hand: cents for cash games, whole chips for tournaments (`tournament: true` or a
  `tournament_info`), a finer power of ten when an amount of the hand needs it (up to six decimal
  places; more is float noise and is quarantined). `chip_unit` is 1: OHH does not state the
  smallest chip.
- Seats are `players[].seat`; `max_seats` is `table_size`, raised to the highest seat number used
  when a site numbers seats on a larger layout (the 888 and iPoker examples seat players 10 at
  9- and 6-max tables). `is_sitting_out` players, and players whose only actions are "Sits Down"
  or "Stands Up", are `sitting_out`; everyone else is dealt in, and gets `??` cards when the file
  has no "Dealt Cards" for them. Hole deals are written after the opening posts, clockwise from the
  button, wherever the file lists "Dealt Cards".
- Rounds are taken in `id` order (the specification: the id is the order the rounds happened), so
  the shows of an all-in hand can come before the run-out's board deals, as at the table.
- Posts: the first "Post SB" is blind 1 and the first "Post BB" blind 2 (blind 1 when the small
  blind is 0); a later "Post BB", and a "Post Extra Blind" of the big blind, are `missed` (live);
  a later "Post SB", "Post Dead" and any other "Post Extra Blind" are `dead`; "Straddle" is
  `straddle`, "Post Ante" is `ante`. A post is all-in when it empties the stack.
- Actions: `amount` is the chips the action adds, as the specification says for "Raise"; `to` is
  computed (the player's total in the round, live blinds included). Because some writers put the
  "raise to" total in a Raise's `amount`, both readings are checked against the chip totals:
  the specification's reading is used when the chips reconcile under it, else the "raise to"
  reading if the chips reconcile under that; a hand that reconciles under neither is quarantined
  with the totals. "Reconcile" means no stack goes below zero and the chips put in, less the
  uncalled bet, equal the pots' `amount` total (or, when that field is wrong, the wins plus rake).
  A bet or raise is called "bet" when nobody has bet in the round and "raise" otherwise (the
  blinds are the first round's bet); one that does not exceed the bet to call (an all-in for less)
  is a "call". `all_in` is true when the action empties the stack.
- Uncalled bets: OHH has no action for them, so the reader derives the return from the chips: the
  largest live contributor gets back what nobody else matched (the pots' amounts then check it).
  The return is written after the hand's last betting action.
- Pots: each `pots[]` entry's `rake` is a rake event for pot `number` (0 = main pot, 1.. = side
  pots in the order they formed) and each `player_wins` entry with a non-zero `win_amount` an
  award. A jackpot drop or a cash-out cannot be written as canonical events and is quarantined;
  `bonus_amount` is paid beside the pot and is ignored.
- Ignored actions, which move no chips in the hand: "Payout" (written by the specification's
  PokerStars example; the pots say who won), "Sits Down", "Stands Up". "Added Chips" (a stack
  change during the hand) and "Add to Pot" (money added by the site) are quarantined.
- Variants: Holdem and Omaha (the others are refused, below). NL, PL and FL become no-limit,
  pot-limit and fixed-limit; fixed limit gets `bet_units` [bb, bb, 2bb, 2bb].
- `hand_id` is `game_number` (unique on its network per the specification; `room` is
  `site_name`), `table_id` is `table_name`; `start_date_utc` without a zone suffix gets "Z".
  `money_scale` is the hand's scale (100 for cents) when it is not 1.

Readers record; rules judge (auditor/ingest/__init__.py): illegal play is written as the file says
and left to the rules: a check facing a bet, any action by a player who folded or is all-in, out of
turn, rounds out of order or twice (a Preflop round that is not first), board rounds with the wrong
number of cards (and cards listed on a Preflop or Showdown round, dealt to the board there), "Dealt
Cards" twice for a player (one deal of all the cards), two players listed in one seat (chips are
counted by player id; the seating rules report the conflict), a player marked `is_sitting_out` who
is dealt cards (status `sitting_out`, and the deal).

Still refused, with the quarantine code (docs/readers.md, "OHH"):

- `unsupported-game`: OmahaHiLo, Stud, StudHiLo and Draw ("unsupported variant: <game> (OHH
  game_type <name>)"), and capped betting ("unsupported betting structure").
- `unsupported-feature`: run it twice (the flag, or two rounds of one board street), bomb pots, a
  jackpot drop, a cash-out, "Added Chips" and "Add to Pot" (no canonical event holds them); an
  amount above the log's largest or needing a unit finer than 1/10^6.
- `inconsistent-amounts`: chips that do not reconcile under either reading of Raise amounts (a
  stack below zero, or chips put in that disagree with the pots and the wins).
- `invalid-record`: an object that fails `schemas/ohh.schema.json`, is not `{"ohh": ...}` (an Open
  Tournament Summary included), lists a player id twice or names one that is not in `players`;
  and a converted hand that breaks the hand-log schema or its consistency check.
- `damaged`: JSON that does not parse, is nested too deeply, is not UTF-8 or holds a lone UTF-16
  surrogate; an unreadable file. `truncated`: the file ends inside an object or array.
- `limit`: an object or line past `limits.Limits` (the message names the limit), or a gzip input
  past the decompression limits. `internal-error`: the reader itself failed on the object.
"""

from __future__ import annotations

import io
import json
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import jsonschema_rs

from auditor.ingest.files import open_binary, open_failure, read_line
from auditor.ingest.jsonl import consistency_error
from auditor.ingest.limits import DEFAULT_LIMITS, LimitExceeded, Limits
from auditor.ingest.validate import first_error, load_json_schema, lone_surrogate_error, schema_error
from auditor.model.records import Quarantined, SourceHand
from auditor.model.seats import clockwise_after
from auditor.resources import schema_path

#: the default largest object; `Limits.ohh_max_hand_bytes` sets it per run
MAX_OBJECT_BYTES = DEFAULT_LIMITS.ohh_max_hand_bytes
MAX_PLACES = 6
#: the largest amount the canonical log holds (schemas/hand-log.schema.json), in the hand's units
MAX_MONEY = 10**15

VARIANTS = {"Holdem": ("holdem", 2), "Omaha": ("omaha", 4)}
UNSUPPORTED_GAMES = {"OmahaHiLo": "Omaha hi/lo", "Stud": "seven-card stud", "StudHiLo": "stud hi/lo",
                     "Draw": "draw poker"}
STRUCTURES = {"NL": "no-limit", "PL": "pot-limit", "FL": "fixed-limit"}
BOARD_CARDS = {"Flop": 3, "Turn": 1, "River": 1}
BOARD_ORDER = ("Flop", "Turn", "River")
POSTS = frozenset({"Post SB", "Post BB", "Post Extra Blind", "Post Dead", "Straddle", "Post Ante"})
BETTING = frozenset({"Fold", "Check", "Call", "Bet", "Raise"})
SEATING = frozenset({"Sits Down", "Stands Up"})

_SNIFF = re.compile(rb'^(?:\xef\xbb\xbf)?[ \t\r\n]*\[?[ \t\r\n]*\{[ \t\r\n]*"ohh"[ \t\r\n]*:')
_WS = re.compile(r"[ \t\n\r]*")
_OBJECT_START = re.compile(r"^[\[{]", re.MULTILINE)
_ZONE = re.compile(r"(Z|[+-]\d\d:\d\d)$")
_DECODER = json.JSONDecoder(parse_float=Decimal, parse_constant=str)
#: why an object holding a number no Decimal can hold is refused (a hostile exponent: Decimal raises
#: InvalidOperation, an ArithmeticError, which used to escape the reader and lose the rest of the file)
_OUT_OF_RANGE = "invalid JSON: a number out of any decimal's range"


class _Reject(Exception):
    """A hand the canonical log cannot hold: the message is the one-line quarantine reason and `code` its
    entry of QUARANTINE_CODES. Never raised because an action is illegal (rules judge those)."""

    def __init__(self, reason: str, code: str):
        super().__init__(reason)
        self.code = code


# -- file level ---------------------------------------------------------------------------


def sniff_ohh(head: bytes) -> bool:
    """True if the first bytes of a file look like Open Hand History: `{"ohh":` (or `[{"ohh":`)."""
    return bool(_SNIFF.match(head))


def read_ohh(path: Path, *, rule_pack: str = "tda-2024",
             limits: Limits = DEFAULT_LIMITS) -> Iterator[SourceHand | Quarantined]:
    """Yield every object of an OHH file as a canonical hand or a quarantine entry; never raise on bad data."""
    name = str(path)
    try:
        stream = open_binary(path, limits)
    except OSError as exc:
        reason, code = open_failure(exc)
        yield Quarantined(name, 0, reason, code=code)
        return
    with stream:
        yield from read_ohh_stream(stream, name, rule_pack=rule_pack, limits=limits)


def read_ohh_stream(stream: io.BufferedIOBase, name: str, *, rule_pack: str = "tda-2024",
                    limits: Limits = DEFAULT_LIMITS, first_line: int = 1) -> Iterator[SourceHand | Quarantined]:
    """`read_ohh`'s items from an open stream whose next line is line `first_line` of the file (the column-wise
    reader, `ohh_tables`, hands the rest of a file over from a line where no object is open)."""
    for line, obj, error in _json_objects(stream, limits, first_line):
        if error is not None:
            yield Quarantined(name, line, error[1], code=error[0])
        else:
            yield convert_ohh(obj, name, line, rule_pack=rule_pack)


def buffer_items(data: bytes, first_line: int, name: str, *,
                 rule_pack: str = "tda-2024") -> tuple[list[SourceHand | Quarantined], bool, bool]:
    """The items `read_ohh` gives for the lines `data` (line `first_line` on) when its buffer holds exactly
    them and they end where it parses (the column-wise reader's lines it does not take itself): (items,
    whether the buffer is then empty, whether reading then skips to the next object). A buffer that is not
    empty afterwards (an object still open) gives its items only where `read_ohh` reads on: the caller hands
    the file over instead."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return [Quarantined(name, first_line, _not_utf8(data, first_line, exc), code="damaged")], True, True
    found, consumed, skipping = _parse_text(text, first_line, False, False)
    items = [Quarantined(name, line, error[1], code=error[0]) if error is not None
             else convert_ohh(obj, name, line, rule_pack=rule_pack) for line, obj, error in found]
    return items, not text[consumed:].strip(), skipping


def _not_utf8(joined: bytes, start: int, exc: UnicodeDecodeError) -> str:
    bad_line = start + joined.count(b"\n", 0, exc.start)
    column = exc.start - joined.rfind(b"\n", 0, exc.start)
    return f"not UTF-8: byte {joined[exc.start]:#04x} at line {bad_line} column {column}"


def _json_objects(stream: io.BufferedIOBase, limits: Limits = DEFAULT_LIMITS,
                  first_line: int = 1) -> Iterator[tuple[int, Any, tuple[str, str] | None]]:
    """(line, object, None) for each top-level JSON value (array elements one by one), or
    (line, None, (quarantine code, reason)).

    Lines are buffered until a point where an object can have ended (a blank line, a line starting
    with `}` or `]`, a one-line object); a buffer that holds only the beginning of an object waits
    for more lines. Each buffer is decoded on its own, so a byte that is not UTF-8 costs only the
    object it is in. A line longer than `limits.ohh_max_line_bytes` is skipped without being held in
    memory, and an object longer than `limits.ohh_max_hand_bytes` is dropped as soon as it is. The stream's
    next line is line `first_line` (1: the file's start, where a byte order mark is dropped).
    """
    max_object = limits.ohh_max_hand_bytes
    buf: list[bytes] = []
    size = 0
    start = first_line  # line number of buf[0]
    line_no = first_line - 1
    skipping = False
    waited = 0  # size of the buffer when it last proved incomplete
    while True:
        try:
            data, overlong = read_line(stream, limits.ohh_max_line_bytes)
        except (OSError, EOFError) as exc:
            code = "limit" if isinstance(exc, LimitExceeded) else "damaged"
            yield line_no + 1, None, (code, f"unreadable from line {line_no + 1} on: {exc}")
            return
        if overlong:
            line_no += 1
            yield (start if buf else line_no), None, ("limit", f"line {line_no} is longer than "
                                                      f"{limits.ohh_max_line_bytes} bytes (limit ohh_max_line_bytes)")
            buf, size, skipping, waited = [], 0, True, 0
            continue
        final = not data
        if data:
            line_no += 1
            if line_no == 1 and data.startswith(b"\xef\xbb\xbf"):
                data = data[3:]
            blank = data.isspace()
            if blank and not buf:
                continue
            if not buf:
                start = line_no
            buf.append(data)
            size += len(data)
            if size > max_object:
                yield start, None, ("limit", f"JSON object longer than {max_object} bytes, or never closed "
                                             "(limit ohh_max_hand_bytes)")
                buf, size, skipping, waited = [], 0, True, 0
                continue
            first = data[:1]
            if not (blank or first in (b"}", b"]") or (first == b"{" and data.rstrip().endswith(b"}"))):
                continue
            # A buffer that was incomplete is parsed again only once it has doubled: each attempt parses the
            # whole buffer, so an object of a million `}` lines would otherwise cost quadratic time.
            if waited and size < 2 * waited:
                continue
        if buf:
            joined = b"".join(buf)
            try:
                text = joined.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield start, None, ("damaged", _not_utf8(joined, start, exc))
                buf, size, skipping, waited = [], 0, True, 0
                if final:
                    return
                continue
            items, consumed, skipping = _parse_text(text, start, final, skipping)
            yield from items
            rest = text[consumed:]
            if rest.strip():
                start += text.count("\n", 0, consumed)
                encoded = rest.encode("utf-8")
                buf, size, waited = [encoded], len(encoded), len(encoded)
            else:
                buf, size, waited = [], 0, 0
        if final:
            return


def _incomplete(text: str, exc: json.JSONDecodeError) -> bool:
    return not text[exc.pos:].strip() or exc.msg.startswith("Unterminated string")


def _json_reason(exc: json.JSONDecodeError, first_line: int, suffix: str = "") -> str:
    message = exc.msg.removesuffix(" at")
    return f"invalid JSON at line {first_line + exc.lineno - 1} column {exc.colno}: {message}{suffix}"


def _parse_text(text: str, first_line: int, final: bool,
                skipping: bool) -> tuple[list[tuple[int, Any, tuple[str, str] | None]], int, bool]:
    """Parse what `text` holds; return the items, how much of the text was used, and the skipping state."""
    items: list[tuple[int, Any, tuple[str, str] | None]] = []
    n = len(text)
    pos = 0
    counted_to, line = 0, first_line  # incremental line counting

    def line_at(p: int) -> int:
        nonlocal counted_to, line
        line += text.count("\n", counted_to, p)
        counted_to = p
        return line

    while True:
        if skipping:
            m = _OBJECT_START.search(text, pos)
            if m is None:
                return items, n, True
            pos, skipping = m.start(), False
        pos = _WS.match(text, pos).end()
        if pos >= n:
            return items, n, False
        here = line_at(pos)
        if text[pos] == "[":
            parsed = _parse_array(text, pos, first_line, final, line_at)
            if parsed is None:
                return items, pos, False
            found, pos, failed = parsed
            items.extend(found)
            if failed:
                skipping = True
                pos = _next_line(text, pos)
            continue
        try:
            obj, end = _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            if not final and _incomplete(text, exc):
                return items, pos, False
            code = "truncated" if _incomplete(text, exc) else "damaged"  # final: the text ends inside it
            items.append((here, None, (code, _json_reason(exc, first_line))))
            skipping = True
            pos = _next_line(text, pos)
            continue
        except RecursionError:
            items.append((here, None, ("damaged", "invalid JSON: nested too deeply")))
            skipping = True
            pos = _next_line(text, pos)
            continue
        except ValueError as exc:  # an integer of more than 4,300 digits, which Python refuses to convert
            items.append((here, None, ("damaged", f"invalid JSON: {exc}")))
            skipping = True
            pos = _next_line(text, pos)
            continue
        except ArithmeticError:  # a number no Decimal holds (an exponent past its range: `1e18446744073709551616`)
            items.append((here, None, ("damaged", _OUT_OF_RANGE)))
            skipping = True
            pos = _next_line(text, pos)
            continue
        bad = lone_surrogate_error(text[pos:end], obj)
        items.append((here, None, ("damaged", bad)) if bad else (here, obj, None))
        pos = end


def _parse_array(text: str, pos: int, first_line: int, final: bool,
                 line_at: Any) -> tuple[list[tuple[int, Any, tuple[str, str] | None]], int, bool] | None:
    """Elements of the array starting at `pos`, the position after it, and whether it was broken;
    None when the text ends inside the array and more may come."""
    items: list[tuple[int, Any, tuple[str, str] | None]] = []
    start_line = line_at(pos)
    n = len(text)
    pos += 1
    while True:
        pos = _WS.match(text, pos).end()
        if pos >= n:
            if not final:
                return None
            items.append((start_line, None, ("truncated", "invalid JSON: the array is never closed")))
            return items, n, True
        if text[pos] == "]":
            return items, pos + 1, False
        here = line_at(pos)
        try:
            obj, end = _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            if not final and _incomplete(text, exc):
                return None
            code = "truncated" if _incomplete(text, exc) else "damaged"
            items.append((here, None, (code, _json_reason(exc, first_line, "; the rest of the array is skipped"))))
            return items, pos, True
        except RecursionError:
            items.append((here, None, ("damaged", "invalid JSON: nested too deeply; the rest of the array is skipped")))
            return items, pos, True
        except ValueError as exc:  # an integer of more than 4,300 digits
            items.append((here, None, ("damaged", f"invalid JSON: {exc}; the rest of the array is skipped")))
            return items, pos, True
        except ArithmeticError:  # a number no Decimal holds
            items.append((here, None, ("damaged", f"{_OUT_OF_RANGE}; the rest of the array is skipped")))
            return items, pos, True
        bad = lone_surrogate_error(text[pos:end], obj)
        items.append((here, None, ("damaged", bad)) if bad else (here, obj, None))
        pos = _WS.match(text, end).end()
        if pos < n and text[pos] == ",":
            pos += 1
        elif pos < n and text[pos] == "]":
            return items, pos + 1, False
        elif pos >= n and not final:
            return None
        else:
            what = "end of file" if pos >= n else repr(text[pos])
            code = "truncated" if pos >= n else "damaged"
            items.append((line_at(min(pos, n)), None, (code, f"invalid JSON: expected ',' or ']' in the array, "
                                                             f"found {what}; the rest of the array is skipped")))
            return items, pos, True


def _next_line(text: str, pos: int) -> int:
    nl = text.find("\n", pos)
    return len(text) if nl < 0 else nl + 1


# -- one object ---------------------------------------------------------------------------


@cache
def ohh_validator() -> Any:
    return jsonschema_rs.validator_for(load_json_schema(schema_path("ohh.schema.json")))


def ohh_schema_error(obj: Any) -> str | None:
    """None if `obj` is an OHH object we accept, else its first error as `ohh schema: at <path>: <message>`."""
    return first_error(ohh_validator(), obj, "ohh schema", "(object)")


def convert_ohh(obj: Any, file: str, line: int, *, rule_pack: str = "tda-2024") -> SourceHand | Quarantined:
    """One parsed JSON value of an OHH file → a canonical hand, or the reason it cannot be one."""
    if not isinstance(obj, dict):
        return Quarantined(file, line, f"not an OHH hand: a JSON {type(obj).__name__}, expected an object "
                                       '{"ohh": {...}}', code="invalid-record")
    if "ohh" not in obj:
        if "ots" in obj:
            return Quarantined(file, line, "an Open Tournament Summary ('ots'), not a hand history",
                               code="invalid-record")
        keys = ", ".join(sorted(map(str, obj)))[:80]
        return Quarantined(file, line, f'not an OHH hand: expected an object {{"ohh": {{...}}}}, found keys {keys}',
                           code="invalid-record")
    inner = obj["ohh"]
    hand_id = _text(inner, "game_number")
    table_id = _text(inner, "table_name")
    error = ohh_schema_error(obj)
    if error:
        return Quarantined(file, line, error, hand_id, code="invalid-record", table_id=table_id)
    try:
        hand = _Hand(inner, rule_pack).canonical()
    except _Reject as exc:
        return Quarantined(file, line, str(exc), hand_id, code=exc.code, table_id=table_id)
    except (ArithmeticError, ValueError, KeyError, TypeError, IndexError) as exc:  # a reader bug, not the file's
        return Quarantined(file, line, f"reader error: {type(exc).__name__}: {exc}", hand_id, code="internal-error",
                           table_id=table_id)
    error = schema_error(hand) or consistency_error(hand)
    if error:
        return Quarantined(file, line, error, hand_id, code="invalid-record", table_id=table_id)
    return SourceHand(hand, file, line)


def _text(inner: Any, key: str) -> str | None:
    """A non-empty string field of the hand object, or None (for quarantine entries, before validation)."""
    value = inner.get(key) if isinstance(inner, dict) else None
    return value if isinstance(value, str) and value else None


def _decimal(x: Any) -> Decimal:
    """An amount as a Decimal. The reader parses JSON numbers as Decimals; a float from a caller that
    parsed the JSON itself is taken by its shortest repr (what the file said), never by its binary value."""
    return Decimal(repr(x)) if isinstance(x, float) else Decimal(x)


def _places(x: Any) -> int:
    """Decimal places an amount needs (0 for integers)."""
    if isinstance(x, int):
        return 0
    exponent = _decimal(x).normalize().as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


@lru_cache(maxsize=1024)
def _flag_word(flag: str) -> str:
    """`_letters`, cached: flags repeat in every hand (a hostile long one is not kept: see its caller)."""
    return _letters(flag)


def _letters(flag: str) -> str:
    """A flag's letters in lower case ("Run_It_Twice" -> "runittwice")."""
    return re.sub(r"[^a-z]", "", flag.lower())


def _amounts(o: dict) -> list[Any]:
    """Every amount of the hand object, in the order the first faulty one is reported (a list: built by
    comprehensions, it costs a third of a generator's yields)."""
    values = [o["small_blind_amount"], o["big_blind_amount"], o.get("ante_amount") or 0]
    values += [p["starting_stack"] for p in o["players"]]
    values += [a["amount"] for r in o["rounds"] for a in r["actions"] if "amount" in a]
    for pot in o["pots"]:
        values += (pot["amount"], pot.get("rake") or 0, pot.get("jackpot") or 0)
        values += [w["win_amount"] for w in pot["player_wins"]]
    return values


class _Where:
    """Which action a message is about ("action 7 of the Flop round"), worded only when a message is written."""

    __slots__ = ("action", "street")

    def __init__(self, action: dict, street: str):
        self.action = action
        self.street = street

    def __str__(self) -> str:
        return f"action {self.action['action_number']} of the {self.street} round"


@dataclass
class _Built:
    events: list[dict]
    chips_in: int
    returned: int
    overdrawn: list[str]
    impossible: list[str]


class _Hand:
    """One OHH hand being mapped to the canonical log."""

    def __init__(self, o: dict, rule_pack: str):
        self.o = o
        self.rule_pack = rule_pack
        game = o["game_type"]
        if game not in VARIANTS:
            raise _Reject(f"unsupported variant: {UNSUPPORTED_GAMES[game]} (OHH game_type {game})", "unsupported-game")
        self.variant, self.hole_cards = VARIANTS[game]
        bet_limit = o["bet_limit"]
        self.structure = STRUCTURES[bet_limit["bet_type"]]
        flags = {_flag_word(text) if len(text := str(f)) <= 64 else _letters(text) for f in o.get("flags") or []}
        if bet_limit.get("bet_cap") or "cap" in flags:
            raise _Reject(f"unsupported betting structure: capped betting (bet_cap {bet_limit.get('bet_cap')})",
                          "unsupported-game")
        if "runittwice" in flags:
            raise _Reject("run it twice is not supported (the canonical log has one board)", "unsupported-feature")
        if flags & {"bomb", "bombpot"}:
            raise _Reject("bomb pots are not supported", "unsupported-feature")

        # one integer scale for every amount of the hand
        places = 0
        for x in _amounts(o):
            if type(x) is int and x <= MAX_MONEY:  # a JSON integer in range: no decimal places, nothing to check
                continue
            if _decimal(x) > MAX_MONEY:  # 1e999999999 is a valid JSON number; never scale it to an int
                raise _Reject(f"amount {_decimal(x):.6g} is too large (the canonical log holds at most {MAX_MONEY})",
                              "unsupported-feature")
            p = _places(x)
            if p > MAX_PLACES:
                raise _Reject(f"amount {x} needs a unit finer than 1/{10 ** MAX_PLACES} (the finest money scale the "
                              f"canonical log holds; {p} decimal places: float noise?)", "unsupported-feature")
            places = max(places, p)
        tournament = o.get("tournament") is True or "tournament_info" in o
        self.scale = 10 ** max(places, 0 if tournament else 2)

        self.seat_of: dict[int, int] = {}
        seats_seen: set[int] = set()
        for p in o["players"]:
            if p["id"] in self.seat_of:
                raise _Reject(f"player id {p['id']} is listed twice (actions could not be told apart)",
                              "invalid-record")
            # A seat listed twice (two players in one seat) is recorded: chips are counted by player id
            # here, and the replay and the seating rules judge the conflict.
            self.seat_of[p["id"]] = p["seat"]
            seats_seen.add(p["seat"])
        self.button = o["dealer_seat"]
        self.max_seats = max(int(o["table_size"]), max(seats_seen), self.button)

        self.rounds = sorted(o["rounds"], key=lambda r: r["id"])
        self._check_rounds()
        self.acts: dict[int, set[str]] = defaultdict(set)
        self.holes: dict[int, list[str]] = {}
        for r in self.rounds:
            for a in r["actions"]:
                kind, pid = a["action"], a["player_id"]
                if kind == "Added Chips":
                    raise _Reject(f"'Added Chips' by player id {pid} during the hand (a stack change the "
                                  "canonical log cannot express)", "unsupported-feature")
                if kind == "Add to Pot":
                    raise _Reject("'Add to Pot' (money added to the pot by the site) is not supported",
                                  "unsupported-feature")
                if pid not in self.seat_of:
                    raise _Reject(f"action {a['action_number']} ({kind}) names player id {pid}, who is not in players",
                                  "invalid-record")
                seat = self.seat_of[pid]
                self.acts[seat].add(kind)
                if kind == "Dealt Cards":
                    # dealt twice: both deals are recorded as one, and the deal rules count the cards
                    self.holes.setdefault(seat, []).extend(a.get("cards") or ["??"] * self.hole_cards)
        for pot in o["pots"]:
            if pot.get("jackpot"):
                raise _Reject(f"pot {pot['number']} has a jackpot drop of {pot['jackpot']} (no canonical event for it)",
                              "unsupported-feature")
            for w in pot["player_wins"]:
                if w["player_id"] not in self.seat_of:
                    raise _Reject(f"pot {pot['number']} pays player id {w['player_id']}, who is not in players",
                                  "invalid-record")
                if w.get("cashout_amount") or w.get("cashout_fee"):
                    raise _Reject(f"pot {pot['number']}: player id {w['player_id']} cashed out of the hand "
                                  "(not supported)", "unsupported-feature")

    def money(self, x: Any) -> int:
        if type(x) is int:  # a JSON integer (at most MAX_MONEY, checked in __init__): exact without a Decimal
            return x * self.scale
        return int(_decimal(x) * self.scale)

    def text(self, units: int) -> str:
        """An integer amount back in the file's units, for messages."""
        return str(Decimal(units) / self.scale)

    def _check_rounds(self) -> None:
        """Refuse only what the canonical log cannot hold: two boards (run it twice). Rounds out of order,
        a missing Preflop, a round twice and boards of the wrong size are recorded as they happened (in `id`
        order) for the deal and action rules to judge."""
        board = [r["street"] for r in self.rounds if r["street"] in BOARD_CARDS]
        for s in BOARD_ORDER:
            if board.count(s) > 1:
                raise _Reject(f"two {s} rounds: run it twice is not supported (the canonical log has one board)",
                              "unsupported-feature")

    # -- building -------------------------------------------------------------------------
    def canonical(self) -> dict:
        o = self.o
        built = self._build(raise_to=False)
        problem = self._unreconciled(built)
        if problem:
            alternative = self._build(raise_to=True)
            if alternative.events == built.events:
                raise _Reject(problem, "inconsistent-amounts")
            if self._unreconciled(alternative):
                raise _Reject(f"{problem}; reading Raise amounts as 'raise to' totals does not add up either",
                              "inconsistent-amounts")
            built = alternative
        sb, bb = self.money(o["small_blind_amount"]), self.money(o["big_blind_amount"])
        stakes: dict[str, Any] = {"blinds": [sb, bb] if sb else [bb] if bb else [], "chip_unit": 1}
        ante = self.money(o.get("ante_amount") or 0)
        if ante:
            stakes["ante"] = ante
        if self.structure == "fixed-limit":
            stakes["bet_units"] = [bb, bb, 2 * bb, 2 * bb]
        hand: dict[str, Any] = {
            "hand_id": o["game_number"],
            "table_id": o["table_name"],
            "room": o["site_name"],
        }
        started = o.get("start_date_utc")
        if started:
            hand["started_at"] = started if _ZONE.search(started) else started + "Z"
        hand.update({"variant": self.variant, "structure": self.structure})
        currency = o.get("currency")
        if currency:
            hand["currency"] = currency
        if self.scale != 1:  # cents of a cash game, or a finer unit a hand's amounts need
            hand["money_scale"] = self.scale
        hand.update({
            "stakes": stakes,
            "max_seats": self.max_seats,
            "rule_pack": self.rule_pack,
            "seats": [self._seat(p) for p in sorted(o["players"], key=lambda p: p["seat"])],
            "events": built.events,
        })
        return hand

    def _seat(self, p: dict) -> dict:
        seat = p["seat"]
        # A player the file marks sitting out keeps that status even when dealt cards: dealt in while
        # sitting out is recorded as both, for the rules to judge.
        active = self._dealt_in(p) and not p.get("is_sitting_out")
        return {"seat": seat, "player": p["name"], "stack": self.money(p["starting_stack"]),
                "status": "active" if active else "sitting_out"}

    def _dealt_in(self, p: dict) -> bool:
        seat = p["seat"]
        if seat in self.holes:
            return True
        if p.get("is_sitting_out"):
            return False
        acts = self.acts.get(seat, set())
        return not (acts and acts <= SEATING)

    def _unreconciled(self, built: _Built) -> str | None:
        """None if the chips of `built` add up, else why not."""
        if built.impossible:
            return built.impossible[0]
        if built.overdrawn:
            return built.overdrawn[0]
        net = built.chips_in - built.returned
        pots = self.o["pots"]
        gross = sum(self.money(p["amount"]) for p in pots)
        paid = sum(self.money(w["win_amount"]) for p in pots for w in p["player_wins"]) + \
            sum(self.money(p.get("rake") or 0) for p in pots)
        if net in (gross, paid):
            return None
        return (f"chips do not add up: posts and bets {self.text(built.chips_in)} less uncalled "
                f"{self.text(built.returned)} is {self.text(net)}, but the pots total {self.text(gross)} "
                f"and the wins plus rake {self.text(paid)}")

    def _build(self, *, raise_to: bool) -> _Built:
        o = self.o
        bb = self.money(o["big_blind_amount"])
        has_sb = self.money(o["small_blind_amount"]) > 0
        events: list[dict] = [{"kind": "button", "seat": self.button}]
        # chips are counted by player id, not seat: two players listed in one seat keep their own stacks
        stack = {p["id"]: self.money(p["starting_stack"]) for p in o["players"]}
        dealt = sorted({p["seat"] for p in o["players"] if self._dealt_in(p)})
        live: dict[Any, int] = defaultdict(int)  # by player id
        round_in: dict[Any, int] = defaultdict(int)
        current = 0
        chips_in = 0
        posted_sb = posted_bb = False
        holes_pending = True
        last_betting = 0
        overdrawn: list[str] = []
        impossible: list[str] = []

        def deal_holes() -> None:
            nonlocal holes_pending
            if holes_pending:
                holes_pending = False
                for seat in clockwise_after(dealt, self.button):
                    events.append({"kind": "deal", "to": "hole", "seat": seat,
                                   "cards": self.holes.get(seat, ["??"] * self.hole_cards)})

        def pay(pid: Any, amount: int, action: dict, street: str) -> bool:
            nonlocal chips_in
            stack[pid] -= amount
            chips_in += amount
            if stack[pid] < 0 and not overdrawn:
                overdrawn.append(f"seat {self.seat_of[pid]} puts in more than its stack ({_Where(action, street)}; "
                                 f"{self.text(-stack[pid])} short)")
            return stack[pid] <= 0

        for rnd in self.rounds:
            street = rnd["street"]
            cards = list(rnd.get("cards") or [])
            # A board round deals its cards (as many as the file lists: the deal rules judge the count);
            # cards listed on a Preflop or Showdown round are board cards dealt then, as the file says.
            if street in BOARD_CARDS or cards:
                deal_holes()
                events.append({"kind": "deal", "to": "board", "cards": cards})
            if street in BOARD_CARDS:
                round_in = defaultdict(int)
                current = 0
            for a in rnd["actions"]:
                kind = a["action"]
                pid = a["player_id"]
                seat = self.seat_of[pid]
                if kind in POSTS:
                    amount = self.money(a["amount"])
                    ev: dict[str, Any] = {"kind": "post", "seat": seat}
                    if kind == "Post SB" and not posted_sb:
                        posted_sb = True
                        if has_sb:
                            ev.update(post="blind", blind=1)
                        else:
                            ev["post"] = "dead"
                    elif kind == "Post BB" and not posted_bb:
                        posted_bb = True
                        ev.update(post="blind", blind=2 if has_sb else 1)
                    elif kind == "Post BB" or (kind == "Post Extra Blind" and amount == bb):
                        ev["post"] = "missed"
                    elif kind == "Straddle":
                        ev["post"] = "straddle"
                    elif kind == "Post Ante":
                        ev["post"] = "ante"
                    else:  # a second Post SB, Post Dead, another extra blind
                        ev["post"] = "dead"
                    ev["amount"] = amount
                    ev["all_in"] = pay(pid, amount, a, street)
                    if ev["post"] in ("blind", "missed", "straddle"):
                        round_in[pid] += amount
                        live[pid] += amount
                        current = max(current, round_in[pid])
                    events.append(ev)
                    last_betting = len(events)
                elif kind in BETTING:
                    if holes_pending:
                        deal_holes()
                    if kind in ("Fold", "Check"):
                        events.append({"kind": "action", "seat": seat, "action": kind.lower()})
                        last_betting = len(events)
                        continue
                    before = round_in[pid]
                    if kind == "Call" or not raise_to:
                        added = self.money(a["amount"])
                        to = before + added
                    else:
                        to = self.money(a["amount"])
                        added = to - before
                        if added <= 0:
                            impossible.append(f"{_Where(a, street)}: a {kind} to {self.text(to)} by a player who has "
                                              f"{self.text(before)} in")
                    aggressive = kind != "Call" and to > current
                    verb = ("bet" if current == 0 else "raise") if aggressive else "call"
                    all_in = pay(pid, added, a, street)
                    round_in[pid] = to
                    live[pid] += added
                    current = max(current, to)
                    events.append({"kind": "action", "seat": seat, "action": verb, "amount": added, "to": to,
                                   "all_in": all_in})
                    last_betting = len(events)
                elif kind == "Shows Cards":
                    deal_holes()
                    events.append({"kind": "show", "seat": seat, "cards": list(a["cards"])})
                elif kind == "Mucks Cards":
                    deal_holes()
                    events.append({"kind": "muck", "seat": seat})
                # "Dealt Cards" were collected up front; "Payout", "Sits Down", "Stands Up" move no chips
        deal_holes()

        returned = 0
        if live:
            top = max(live, key=lambda s: live[s])
            others = max((v for s, v in live.items() if s != top), default=0)
            if live[top] > others:
                returned = live[top] - others
                events.insert(last_betting, {"kind": "return", "seat": self.seat_of[top], "amount": returned})
        for pot in sorted(o["pots"], key=lambda p: p["number"]):
            rake = self.money(pot.get("rake") or 0)
            if rake:
                events.append({"kind": "rake", "pot": pot["number"], "amount": rake})
            for w in pot["player_wins"]:
                amount = self.money(w["win_amount"])
                if amount:
                    events.append({"kind": "award", "pot": pot["number"], "seat": self.seat_of[w["player_id"]],
                                   "amount": amount})
        return _Built(events, chips_in, returned, overdrawn, impossible)
