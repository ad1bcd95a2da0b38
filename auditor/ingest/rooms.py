"""Reading a text room's export by its dialect: the file's blocks, lines and hands, the headers, then the compiled
ledger (`room_ledger`) for every hand, and canonical tables out. One path for every hand of every text room.

The contract is docs/readers.md: every hand ends as exactly one canonical hand (in a `TableChunk`) or one
`Quarantined` naming file, line and reason; notes of the conventions applied come once per file; a hand is
refused only when the canonical log cannot hold what its text says, never for being illegal.

Why the header is read here, in Python: a header holds few facts (game, stakes, time, tournament) but in free
order, and is read once per hand against the dialect's game and structure words; everything after it is read
by the compiled ledger.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from functools import cache, lru_cache
from pathlib import Path
from typing import NamedTuple
from zoneinfo import ZoneInfo

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from auditor.ingest import room_ledger as L
from auditor.ingest.arrow_columns import EventNames, card_lists, event_table, list_array, span_positions, texts
from auditor.ingest.detect import SNIFF_BYTES
from auditor.ingest.dialect import Dialect, amount_pattern, dialect, stake_pattern
from auditor.ingest.limits import DEFAULT_LIMITS, Limits
from auditor.ingest.parquet import TableChunk
from auditor.ingest.text_blocks import decode_block, decode_bytes, in_blocks, line_start, wide
from auditor.model.inputs import shown_text
from auditor.model.pots import attribute_winnings, build_pots
from auditor.model.records import Quarantined, ReaderNote, SourceHand
from auditor.model.seats import clockwise_after
from auditor.model.tables import EVENTS_SCHEMA, HANDS_SCHEMA, SEATS_SCHEMA, CanonicalTables

__all__ = ["read_room"]

Item = TableChunk | SourceHand | Quarantined | ReaderNote
#: hands read by one call of the ledger (its fixed costs spread, its arrays a few tens of MB)
BATCH_HANDS = 4096
#: at most this many hands per TableChunk
CHUNK_HANDS = 1000
MAX_REASON_TEXT = 60
_EVENT_NAMES = EventNames.of(type("Names", (), {"KIND_NAMES": L.KIND_NAMES, "ACTION_NAMES": L.ACTION_NAMES,
                                               "POST_NAMES": L.POST_NAMES, "TARGET_NAMES": L.TARGET_NAMES}))
_CARDS = pa.array(L.CARD_NAMES, pa.string())
_STATUS = pa.array(["active", "sitting_out"], pa.string())


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_REASON_TEXT else text[: MAX_REASON_TEXT - 3] + "..."


class _Bad(Exception):
    def __init__(self, reason: str, code: str) -> None:
        super().__init__(reason)
        self.reason, self.code = reason, code


# ------------------------------------------------------------------------------------------------ the dialect

@dataclass(frozen=True, eq=False)
class Room:
    """A dialect made ready for the ledger: the kernel's tuple of tables (`words`) and the header's patterns."""

    dialect: Dialect
    words: tuple
    width: int
    prefix: np.ndarray
    fold_case: bool
    header: re.Pattern[str]
    separator: re.Pattern[str] | None
    #: what separator lines begin with (`recognise.separator_lead`, one or several); none: the kernel's `L_STARS`
    #: lines
    separator_leads: tuple[bytes, ...]
    limit: re.Pattern[str]
    stakes: re.Pattern[str]
    #: a cash table's largest buy-in, where the room names a table by it (`stakes_written`)
    buy_in: re.Pattern[str] | None
    stamp: re.Pattern[str]
    #: the stamp has a zone field (`syntax.time.pattern`)
    stamp_zoned: bool
    code: re.Pattern[str]
    games: tuple[tuple[re.Pattern[str], str, str | None, int | None], ...]
    structures: dict[str, str | None]
    symbols: dict[str, str]
    tournament: str
    older: str | None
    kills: bool
    deal_mode: int
    return_mode: int
    summary_awards: bool
    silent_out: bool
    #: `board_lines` (`room_ledger.BOARD_MODES`)
    new_cards: int
    #: `summary_section`: written (0), none (1: the showdown marker closes the hand), none and no showdown marker
    #: either (2: the first show, muck or award after the play opens the showdown)
    no_summary: int
    rake_derived: bool
    predeal_fold_out: bool
    table: re.Pattern[str]
    #: the templates of a hand's header lines after its first (`header.lines`), and how many lines its table
    #: template reads
    header_more: tuple
    table_lines: int
    #: the table template has a `tournament` part (a table line naming the hand's tournament)
    table_names_tournament: bool
    zones: dict[str, str]
    written_zone: ZoneInfo
    unseated_act: re.Pattern[str]
    unseated_collect: re.Pattern[str]
    #: the literal text the room begins these lines with (`Template.lead`): the header as written, the table
    #: line, a seat line, a `*** NAME ***` marker; the words after a speaker's name in chat, and in an award line
    header_lead: str
    table_lead: str
    seat_lead: str
    marker_lead: str
    chat_lead: str
    collect_word: str
    #: the room says the button in a line of its own after the seats (`lines.button`), not in the table line
    button_line: bool
    #: the room exports some tournaments' hands without their blind lines (`blinds_written`)
    blinds_unwritten: bool
    #: the room's award line names the pot it pays (`collect` has a `pot` field); where it does not, the awards
    #: of a hand with side pots are attributed to its pots (`_attribute_awards`)
    pots_named: bool
    #: the table line states the game and stakes (the table template's `facts` field, read with the header's, as
    #: `Table: Baguio [362012167] (NO_LIMIT TEXAS_HOLDEM $0.50/$1, Real money)`)
    table_facts: bool = False
    #: heads-up, the big blind's line written before the small blind's (`blinds_order`, `room_ledger.BLINDS_ORDERS`)
    blinds_order: int = 0
    #: the time is written in the line that closes each hand (`syntax.time.written_in: hand_end`), not the header
    stamp_at_end: re.Pattern[str] | None = None
    #: the header states no stakes: the blinds are the posts', the currency the symbol of the seats' stacks
    #: (`stakes_written: posted`)
    stakes_posted: bool = False
    #: players are written by their position in the hand and named by seat in the log (`players_named`); the
    #: button's position, whose seat must be the one the hand's dealer is set on
    names_by_position: bool = False
    button_position: bytes = b""
    #: the table template has a fast-fold pool's part (`{pool?:Zone Poker ID#}`): such a hand is its own table
    pooled: bool = False

    @property
    def table_word(self) -> str:
        """What the table line is called in a refusal: its first word."""
        return (self.table_lead.split() or ["table"])[0]

    @classmethod
    def of(cls, spoken: Dialect) -> Room:
        program = spoken.program
        syntax = spoken.syntax
        count = len(program.kinds)
        conventions = spoken.data["conventions"]
        # a room with no summary section that states its rake (`summary_section` not `written`, `rake_line:
        # written`): the rake's line is among the showdown's, read as the play's lines are
        rake_in_play = conventions["summary_section"]["value"] != "written" and \
            conventions["rake_line"]["value"] == "written"
        t_kind = np.full(count, -1, dtype=np.int64)
        t_group = np.full(count, -1, dtype=np.int64)
        slot_of = np.full((count, len(L.FIELDS)), -1, dtype=np.int64)
        amounts = np.zeros((count, program.width), dtype=np.bool_)
        for t, (kind, slots, template) in enumerate(zip(program.kinds, program.slots, program.templates,
                                                        strict=True)):
            if kind in L.WRITE_ONLY:
                continue
            t_kind[t] = L.KINDS.index(kind)
            starts_with_player = getattr(template.parts[0], "type", None) == "player"
            # a seat line is read only at the head of a hand (`room_ledger._seat_list`), in no group
            t_group[t] = (-1 if kind in ("seat", "seat_waiting") else L.G_MARKER if kind == "marker" else
                          L.G_ROOM if kind == "total" and rake_in_play else
                          L.G_SUMMARY if L.KINDS.index(kind) in L.SUMMARY_KINDS else
                          L.G_PLAYER if starts_with_player else
                          L.G_QUIET if kind == "quiet" else L.G_ROOM)
            for name, slot in slots.items():
                if name in L.FIELDS:
                    slot_of[t, L.FIELDS.index(name)] = slot
                    if slot in program.amount_slots[t]:
                        amounts[t, slot] = True
        status_codes = {"sitting_out": L.ST_SITTING_OUT, "after_button": L.ST_AFTER_BUTTON,
                        "out_of_hand": L.ST_OUT_OF_HAND}
        status_words = np.array([(*program.literal(word), status_codes[name])
                                 for name, word in syntax["seat_status"].items()], dtype=np.int64).reshape(-1, 3)
        roles = {"hole_cards": L.M_HOLE, "show_down": L.M_SHOW_DOWN, "summary": L.M_SUMMARY,
                 "run_twice": L.M_RUN_TWICE, "blinds": L.M_BLINDS}
        markers = [(*program.literal(w), roles[role], 0) for role, ws in syntax["markers"].items() for w in ws]
        markers += [(*program.literal(w), L.M_STREET, k) for k, w in enumerate(syntax["streets"])]
        markers += [(*program.literal(w), L.M_DRAW, 0) for w in syntax["draws"]]
        shown = [program.literal(w) for w in spoken.data["summary"]["shown"]]
        ranks, suits = syntax["cards"]["ranks"], syntax["cards"]["suits"]
        rank_of, suit_of = np.full(256, -1, dtype=np.int64), np.full(256, -1, dtype=np.int64)
        rank_of[[ord(c) for c in ranks]] = np.arange(len(ranks))
        suit_of[[ord(c) for c in suits]] = np.arange(len(suits))
        # each group's templates in order (`_try` walks a group's own, not every template)
        members = np.zeros((L.G_QUIET + 1, count + 1), dtype=np.int64)
        # the summary's catch-all seat line is tried after every other
        for t, group in sorted(enumerate(t_group.tolist()), key=lambda x: program.kinds[x[0]] == "summary_other_seat"):
            if group < 0:  # a template only written (`room_ledger.WRITE_ONLY`), or the seat lines
                continue
            members[group, 0] += 1
            members[group, members[group, 0]] = t
        words = (program.rows, program.lit, program.words, program.symbols, np.int64(program.thousands),
                 np.int64(program.decimal), program.starts, t_kind, members, slot_of, status_words,
                 np.array(markers, dtype=np.int64).reshape(-1, 4), np.array(shown, dtype=np.int64).reshape(-1, 2),
                 rank_of, suit_of, amounts, np.array(program.literal(syntax["pots"]["side"]), dtype=np.int64))
        recognise = spoken.data["recognise"]
        fold = bool(recognise.get("case_insensitive"))
        start = spoken.header["hand_start"]
        lead = start.parts[0].text if hasattr(start.parts[0], "text") else ""
        flags = re.IGNORECASE if fold else 0
        amount = amount_pattern(syntax["amount"])
        stake = stake_pattern(syntax["amount"])
        symbols = dict(syntax["amount"]["symbols"])
        games = []
        for game in syntax["games"]:
            word = game["name"]
            pattern = re.compile(rf"(?<![\w.,{''.join(map(re.escape, symbols))}+-]){re.escape(word)}(?![\w+-])",
                                 re.IGNORECASE)
            games.append((pattern, word, game.get("unsupported") or game["variant"],
                          None if "unsupported" in game else _HOLE[game["variant"]]))
        structures = {words.lower(): (value if isinstance(value, str) else None)
                      for words, value in syntax["structures"].items()}
        limit_words = sorted(syntax["structures"], key=len, reverse=True)
        implied = conventions["implied_uncalled_return"]
        separator = recognise.get("separator")
        table = spoken.header["table"]
        return cls(spoken, words, program.width, np.frombuffer(lead.encode("utf-8"), dtype=np.uint8).copy(), fold,
                   re.compile(start.pattern.pattern + r"\s*(?P<rest>.*)$", flags),
                   re.compile(separator) if separator else None, _leads(recognise.get("separator_lead", ())),
                   re.compile(r"\b(?P<limit>" + "|".join(map(re.escape, limit_words)) + r")\b", re.IGNORECASE),
                   # blinds, after the ante where the room writes it first (`ante/small/big`)
                   re.compile(rf"(?<![\d/.,])(?:{stake}/)?(?P<small>{stake})/(?P<big>{stake})(?![\d/])"),
                   re.compile(rf"(?<![\d/.,]){stake}(?![\d/])")
                   if conventions["stakes_written"]["value"] == "buy_in_when_one_amount" else None,
                   re.compile(_stamp_pattern(spoken.time.pattern.pattern)), "zone" in spoken.time.pattern.groupindex,
                   re.compile(r"\b([A-Z]{3})\b"), tuple(games), structures, symbols,
                   spoken.header["tournament"].parts[0].text.lower(),
                   implied["evidence"] if implied["value"] == "older_header_only" else None,
                   conventions["room_folds"]["value"] == "kill",
                   L.DEAL_MODES.index(conventions["hole_cards_marker"]["value"]),
                   L.RETURN_MODES.index(conventions["uncalled_return"]["value"]),
                   conventions["summary_awards"]["value"] == "when_no_award_line",
                   conventions["silent_seats"]["value"] == "sitting_out",
                   L.BOARD_MODES.index(conventions["board_lines"]["value"]),
                   L.SUMMARY_MODES.index(conventions["summary_section"]["value"]),
                   conventions["rake_line"]["value"] == "not_written",
                   conventions["folds_before_the_deal"]["value"] == "sitting_out", table.pattern,
                   spoken.header_more, spoken.table_lines,
                   "tournament" in table.pattern.groupindex,
                   dict(syntax["time"]["zones"]), ZoneInfo(syntax["time"]["zones"][syntax["time"]["written_zone"]]),
                   *_unseated(spoken, amount), spoken.header["write"].lead, table.lead, spoken.lines["seat"].lead,
                   spoken.lines["marker"].lead, _chat_lead(spoken), _collect_word(spoken),
                   "button" in spoken.lines,
                   conventions["blinds_written"]["value"] == "not_in_some_tournaments",
                   "pot" in spoken.lines["collect"].pattern.groupindex,
                   spoken.table_lines > 0 and "facts" in table.pattern.groupindex,
                   L.BLINDS_ORDERS.index(conventions.get("blinds_order", {}).get("value", "as_posted")),
                   spoken.lines["hand_end"].pattern if syntax["time"].get("written_in") == "hand_end" else None,
                   stakes_posted=conventions["stakes_written"]["value"] == "posted",
                   names_by_position=conventions["players_named"]["value"] == "by_position",
                   button_position=conventions["players_named"].get("evidence", "").encode("utf-8"),
                   pooled="pool" in table.pattern.groupindex)


def _leads(leads: str | list[str]) -> tuple[bytes, ...]:
    return tuple(lead.encode("utf-8") for lead in ([leads] if isinstance(leads, str) else leads))


#: the digits each field of a time stamp has (`syntax.time.pattern`), so a stamp's numbers are always small
_STAMP_DIGITS = {"year": "{4}", "month": "{1,2}", "day": "{1,2}", "hour": "{1,2}", "minute": "{2}", "second": "{2}"}


def _stamp_pattern(pattern: str) -> str:
    """The dialect's time pattern with each number bounded to the digits it can have."""
    for name, digits in _STAMP_DIGITS.items():
        pattern = pattern.replace(rf"(?P<{name}>\d+)", rf"(?P<{name}>\d{digits})")
    return pattern


def _unseated(spoken: Dialect, amount: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """What a line of someone with no seat looks like: a player's statement (`NAME: verb...`, the verbs of the
    dialect's player lines) or an award (`NAME collected X from ...`)."""
    verbs = set()
    for template in spoken.every:
        parts = template.parts
        if template.kind != "quiet" and len(parts) > 1 and getattr(parts[0], "type", None) == "player" \
                and hasattr(parts[1], "text") and parts[1].text.startswith(": "):
            verbs.add(parts[1].text[2:].split(" ")[0])
    act = re.compile(r"^(?P<player>.+?): (?:" + "|".join(sorted(map(re.escape, verbs))) + r")\b")
    collect = spoken.lines["collect"].parts
    after = collect[3].text if len(collect) > 3 and hasattr(collect[3], "text") else ""
    return act, re.compile(rf"^(?P<player>.+?){re.escape(_collect_word(spoken))}{amount}{re.escape(after)}")


def _chat_lead(spoken: Dialect) -> str:
    """The words after a speaker's name in the room's chat line (a quiet line with a `chat` field), or ""."""
    chat = [t.parts for t in spoken.quiet if len(t.parts) > 1 and any(getattr(p, "name", "") == "chat"
                                                                        for p in t.parts)]
    return getattr(chat[0][1], "text", "") if chat else ""


def _collect_word(spoken: Dialect) -> str:
    """The words after the player's name in the room's award line (`NAME collected X`: " collected ")."""
    parts = spoken.lines["collect"].parts
    return getattr(parts[1], "text", "") if len(parts) > 1 else ""


_HOLE = {"holdem": 2, "omaha": 4, "five-card-draw": 5, "omaha-nz": 4, "three-card-nz": 3}


@cache
def room(name: str) -> Room:
    return Room.of(dialect(name))


# ------------------------------------------------------------------------------------------------ headers

class Header(NamedTuple):
    """What a hand's header says (`read_header`), in the log's words; `row` is its part of the hand's ledger row
    (`room_ledger.H_HOLE` to `H_IMPLIED`: hole cards, tournament, older export, the game, the stakes...). A
    named tuple: one is made per hand."""

    hand_id: str
    variant: str
    structure: str
    currency: str | None
    started_at: str | None
    row: tuple[int, ...]


def _places(value: Decimal) -> int:
    exponent = value.as_tuple().exponent
    return -exponent if isinstance(exponent, int) and exponent < 0 else 0


def read_header(spoken: Room, m: re.Match[str], more: Sequence[str] = (), in_table: bool = False,
                table_facts: str | None = None, closing: str | None = None) -> Header:
    """The header's facts (`_Bad` for a header that names no game, structure or stakes the log can hold); `m`:
    the dialect's header pattern on the header line, as the hand's span was found by it (`_Block.header_matches`);
    `more`: the header's next lines, where the dialect's header has several (`header.lines`: each must match its
    template, and its `facts` field is read with the first line's rest); `in_table`: the table line says the hand
    is a tournament's; `table_facts`: the table line's `facts` field, where the table line states the game and
    stakes (`Room.table_facts`), read with the header's; `closing`: the line that closes the hand, where the room
    writes the time there (`Room.stamp_at_end`).

    Why the stamps are cut out before the facts are read: the facts (game, stakes, tournament) are the same for
    every hand of a table, while the stamps change with each; read once per distinct header, they cost one
    lookup a hand."""
    line = m.string
    rest = m["rest"]
    templates = spoken.header_more
    if templates:
        if len(more) < len(templates):
            raise _Bad("truncated: the header is cut short", "truncated")
        for template, text in zip(templates, more, strict=False):
            found = template.pattern.fullmatch(text)
            if found is None:
                raise _Bad(f"header line not understood: '{_short(text)}'", "damaged")
            rest += "\n" + (found.groupdict().get("facts") or "")
    if table_facts is not None:
        rest += "\n" + table_facts
    stamps = list(spoken.stamp.finditer(rest))
    key = rest
    for found in reversed(stamps):
        key = key[:found.start()] + "\x00" + key[found.end():]
    if closing is not None:
        stamps += list(spoken.stamp.finditer(closing))
    # where the room writes it: before the hand id or after, or on the table line
    tournament = in_table or spoken.tournament in line.lower() or bool(templates and spoken.tournament in rest.lower())
    try:
        facts = _header_facts(spoken, key, tournament) if len(key) <= 256 else _read_rest(spoken, key, tournament)
    except _Bad:
        facts = _read_rest(spoken, rest, tournament)  # worded with the header's own text
    variant, structure, currency, hole, tournament, row = facts
    older = spoken.older is not None and line[:len(spoken.older)].lower() == spoken.older.lower()
    return Header(m["hand_id"], variant, structure, currency, _started_at(spoken, stamps),
                  (hole, tournament, older, *row))


@lru_cache(maxsize=4096)
def _header_facts(spoken: Room, rest: str, tournament: bool) -> tuple:
    return _read_rest(spoken, rest, tournament)


def _read_rest(spoken: Room, rest: str, tournament: bool) -> tuple:
    limit = spoken.limit.search(rest)
    if not limit:
        raise _Bad(f"header names no betting structure: '{_short(rest)}'", "damaged")
    before = rest[: limit.start()]
    game = _find_game(spoken, before)
    if game is not None:
        at, what, hole = game
        game_text = (before[at:] + limit["limit"]).strip()
    else:  # a room that names the structure first: `No Limit Holdem`
        game = _find_game(spoken, rest[limit.end():])
        if game is None:
            raise _Bad(f"game not recognised: '{_short(before + limit['limit'])}'", "unsupported-game")
        at, what, hole = game
        game_text = rest[limit.start():].split("\n")[0].split(" - ")[0].strip()
    if hole is None:
        raise _Bad(f"unsupported variant: {game_text} is {what}, which the engine does not have", "unsupported-game")
    structure = spoken.structures.get(limit["limit"].lower())
    if structure is None:
        raise _Bad(f"unsupported betting structure: {game_text}", "unsupported-game")
    after = rest[limit.end():]
    stakes = spoken.stakes.search(after)
    if not stakes:  # a room that writes the stakes first: `$0.50/$1 Blinds No Limit Holdem`
        after = before
        stakes = spoken.stakes.search(after)
    if stakes:
        small, big, stated = _money(spoken, stakes["small"]), _money(spoken, stakes["big"]), stakes["small"]
        tail = after[stakes.end():]
    elif spoken.stakes_posted:  # no stakes written: the big blind's post (the ledger's `H_BIG`)
        small = big = _FROM_POST
        stated, tail = "", ""
    else:
        big, stated, tail = _buy_in_stakes(spoken, before, tournament, rest)
        small = _FROM_POST
    symbol = next((s for s in spoken.symbols if stated.startswith(s) or stated.endswith(s)), None)
    closing = tail.find(")")
    code = spoken.code.search(tail[:closing] if closing >= 0 else "")
    if stakes and not code and after is not before:  # or between the structure and the stakes (`No Limit EUR 1/2`)
        code = spoken.code.fullmatch(after[:stakes.start()].strip())
    currency = None
    if not tournament and (code or symbol):
        currency = code[1] if code else spoken.symbols[symbol]
    # the ledger's row from H_DRAW to H_PREDEAL_FOLD_OUT
    row = (what == "five-card-draw", structure == "fixed-limit", _mantissa(small), _places(small), _mantissa(big),
           _places(big), spoken.kills, spoken.older is not None, spoken.deal_mode, spoken.return_mode,
           spoken.summary_awards, spoken.silent_out, spoken.new_cards, spoken.no_summary, spoken.rake_derived,
           spoken.predeal_fold_out)
    return what, structure, currency, hole, tournament, row


#: a small blind the header does not state (`stakes_written: buy_in_when_one_amount`): its post's, or half the big
_FROM_POST = Decimal(-1)


def _buy_in_stakes(spoken: Room, before: str, tournament: bool, rest: str) -> tuple[Decimal, str, str]:
    """(big blind, the amount as written, the text after it) of a cash table the header names by its largest
    buy-in of a hundred big blinds, where the dialect says its room does (`stakes_written`)."""
    cap = spoken.buy_in.search(before) if spoken.buy_in is not None and not tournament else None
    if cap is None:
        raise _Bad(f"header has no stakes: '{_short(rest)}'", "damaged")
    return _money(spoken, cap[0]) / 100, cap[0], before[cap.end():]


def _money(spoken: Room, text: str) -> Decimal:
    amount = spoken.dialect.syntax["amount"]
    for symbol in spoken.symbols:
        text = text.removeprefix(symbol).removesuffix(symbol)
    for separator in (amount["thousands"], *amount.get("header_thousands", ())):
        if separator:
            text = text.replace(separator, "")
    factor = 1
    for suffix, times in amount.get("suffixes", {}).items():
        if text.endswith(suffix):
            text, factor = text.removesuffix(suffix), times
    value = Decimal(text.replace(amount["decimal"], ".")) * factor
    if factor != 1 and value == value.to_integral_value():  # `1.6K`: 1600 chips, no decimal place
        value = value.to_integral_value()
    if value.adjusted() > L.MAX_DIGITS:
        raise _Bad(f"amount '{_short(text)}' is too large", "damaged")
    if _places(value) > L.MAX_PLACES:
        raise _Bad(f"amount '{_short(text)}' has more than {L.MAX_PLACES} decimal places", "damaged")
    return value


def _find_game(spoken: Room, before: str) -> tuple[int, str, int | None] | None:
    """(position, what, hole cards) of the game the header names before its structure: any game the engine lacks
    named anywhere there wins over the game it qualifies ("Omaha Hi/Lo" is hi/lo), else the first listed."""
    found = [(m.start(), rank, what, hole) for rank, (pattern, _, what, hole) in enumerate(spoken.games)
             if (m := pattern.search(before))]
    if not found:
        return None
    at = min(f[0] for f in found)
    unsupported = [f for f in found if f[3] is None]
    chosen = min(unsupported or found, key=lambda f: f[1])
    return at, chosen[2], chosen[3]


def _started_at(spoken: Room, stamps: list[re.Match[str]]) -> str | None:
    """The header's first time in a zone the dialect knows (none written: the room's own), as ISO 8601 in the
    room's written zone. The hour is looked up by its text (`_hour`); minutes and seconds written with two
    digits each are the result's own text."""
    for m in stamps:
        zone = (m["zone"] if spoken.stamp_zoned else None) or spoken.dialect.syntax["time"]["written_zone"]
        if zone not in spoken.zones:
            continue
        y, mo, d, h, mi, s = m.group("year", "month", "day", "hour", "minute", "second")
        if not mo.isdigit():  # a month by its name (`syntax.time.months`)
            mo = str(spoken.dialect.syntax["time"]["months"].index(mo) + 1)
        hour = _hour(spoken, zone, y, mo, d, h)
        if hour is not None and len(mi) == 2 == len(s) and (mi + s).isascii() and mi <= "59" and s <= "59":
            return f"{hour[0]}:{mi}:{s}{hour[1]}"
        return _stamp_time(spoken, int(y), int(mo), int(d), int(h), int(mi), int(s), zone)
    return None


def _stamp_time(spoken: Room, year: int, month: int, day: int, hour: int, minute: int, second: int,
                zone: str) -> str | None:
    try:
        local = datetime(year, month, day, hour, minute, second, tzinfo=_zone(spoken.zones[zone]))
        return local.astimezone(spoken.written_zone).isoformat()
    except (ValueError, OverflowError):
        return None


@lru_cache(maxsize=65536)
def _hour(spoken: Room, zone: str, year: str, month: str, day: str, hour: str) -> tuple[str, str] | None:
    """The hour's start in the room's written zone (`YYYY-MM-DDTHH`) and the offset written, when every time of
    the hour moves there by the same whole hours; else None (a change of offset within the hour, a shift of
    minutes, an hour the calendar does not have), and each time is converted alone (`_stamp_time`).

    Why: the zone conversion was most of a header's cost, and the hands of an hour share it; keyed by the hour's
    digits as written, a hand's lookup converts no number."""
    y, mo, d, h = int(year), int(month), int(day), int(hour)
    first = _stamp_time(spoken, y, mo, d, h, 0, 0, zone)
    last = _stamp_time(spoken, y, mo, d, h, 59, 59, zone)
    if first is None or last != first[:14] + "59:59" + first[19:] or first[14:19] != "00:00":
        return None
    return first[:13], first[19:]


@cache
def _zone(name: str) -> ZoneInfo:
    return ZoneInfo(name)


@lru_cache(maxsize=4096)
def _table_match(spoken: Room, line: str) -> re.Match[str] | None:
    """The table template on the table line (a table's lines differ only in the button's seat: matched once
    each)."""
    return spoken.table.fullmatch(line)


def _table_id(m: re.Match[str]) -> str | None:
    """The table the line names; where it names the tournament first, the tournament's, its name kept whole."""
    return ((m.groupdict().get("tournament") or "") + m["table"]) or None


@lru_cache(maxsize=4096)
def read_table(spoken: Room, line: str) -> tuple[str | None, int, int | None]:
    """(table id, button seat, table size) of the table line, read once per distinct line."""
    m = _table_match(spoken, line)
    if not m:
        raise _Bad(f"table line not understood: '{_short(line)}'", "damaged")
    if m.groupdict().get("buttoned"):
        button = _whole(m["button"], "button seat")
    elif spoken.button_line:  # said by a line of its own after the seats (`lines.button`)
        button = -1
    else:
        raise _Bad("the table line names no button seat", "damaged")
    size = _whole(m["max_seats"], "table size") if m.groupdict().get("sized") else None
    if size is not None and not 2 <= size <= 10:
        raise _Bad(f"a {size}-seat table (the canonical log has 2 to 10 seats)", "unsupported-feature")
    return _table_id(m), button, size


def _whole(digits: str, what: str) -> int:
    if len(digits) > 4:
        raise _Bad(f"{what} {_short(digits)} is out of range", "damaged")
    return int(digits)


# ------------------------------------------------------------------------------------------------ the file

def read_room(path: Path | str, room_name: str, *, rule_pack: str = "tda-2024", limits: Limits = DEFAULT_LIMITS,
              batch_hands: int | None = None, chunk_hands: int | None = None) -> Iterator[Item]:
    """Every hand of a text export of room `room_name`: runs of read hands as TableChunks, each refused hand a
    Quarantined, each convention applied a ReaderNote once per file (before the first hand it was applied to).
    Never raises on bad input. The file is read a block at a time (`text_blocks.in_blocks`)."""
    spoken = room(room_name)
    name = str(path)
    noted: set[str] = set()
    batch = max(1, batch_hands or BATCH_HANDS)
    chunk = max(1, chunk_hands or CHUNK_HANDS)

    def block(raw: bytes, line0: int, final: bool) -> Generator[Item, None, tuple[int, int]]:
        return _Block(spoken, raw, line0, final, name, limits, rule_pack).items(noted, batch, chunk)

    yield from in_blocks(Path(path), limits, block)


class _Block:
    """One block of a file: its text as UTF-8 bytes, its lines and its hands' spans."""

    def __init__(self, spoken: Room, raw: bytes, line0: int, final: bool, name: str, limits: Limits,
                 rule_pack: str) -> None:
        self.spoken, self.raw, self.line0, self.final = spoken, raw, line0, final
        self.name, self.limits, self.rule_pack = name, limits, rule_pack
        text = _utf8(raw, line0 == 0)
        self.same = text is raw  # the block's bytes are its text's: a line's offset is its byte in the file
        self.bytes = text
        self.data = np.frombuffer(text, dtype=np.uint8)
        cap = text.count(b"\n") + text.count(b"\r") + 1
        starts = np.empty(cap, dtype=np.int64)
        ends = np.empty(cap, dtype=np.int64)
        flags = np.empty(cap, dtype=np.int64)
        n = L.lines(self.data, spoken.prefix, spoken.fold_case, limits.room_max_line_bytes, starts, ends, flags)
        self.starts, self.ends, self.flags = starts[:n], ends[:n], flags[:n]
        self.number = np.arange(n, dtype=np.int64)  # each line's number in the block (0-based)
        self.header_matches: dict[int, re.Match[str]] = {}
        self._settle_blanks_and_separators()
        self.spans = self._spans()

    def text(self, i: int) -> str:
        return self.bytes[self.starts[i]:self.ends[i]].decode("utf-8", "replace")

    def _settle_blanks_and_separators(self) -> None:
        """Lines of blanks beyond ASCII (Python says whether they are blank) and archive separators become blank
        (the candidates the kernel flags, or those beginning with the dialect's `separator_lead`)."""
        candidates = self.flags & (L.L_MAYBE_BLANK | L.L_STARS)
        if len(self.data):
            first = self.data[np.minimum(self.starts, len(self.data) - 1)]
            for lead in self.spoken.separator_leads:
                candidates = candidates | ((first == lead[0]) & (self.ends - self.starts >= len(lead)))
        for i in np.flatnonzero(candidates).tolist():
            line = self.text(i)
            if self.flags[i] & L.L_MAYBE_BLANK:
                if line.isspace() or not line:
                    self.flags[i] |= L.L_BLANK
            elif self.spoken.separator is not None and self.spoken.separator.match(line):
                self.flags[i] |= L.L_BLANK

    def _spans(self) -> list[tuple[int, int]]:
        """[start, end) of each hand (and of any text before the first, a fragment): a hand starts at a line the
        dialect's hand start matches. Where a line holds a hand start after its beginning (an export that lost the
        end of a hand) or a seated name looks like one, `_careful_spans` decides, as a name can never start a hand."""
        if (self.flags & L.L_INNER).any():
            return self._careful_spans()
        candidates = np.flatnonzero((self.flags & L.L_HEADER) & ~(self.flags & L.L_LONG)).tolist()
        header = self.spoken.header
        self.header_matches = {i: m for i in candidates if (m := header.match(self.text(i)))}
        return self._with_fragment(list(self.header_matches))

    def _with_fragment(self, heads: list[int]) -> list[tuple[int, int]]:
        """The hands' spans; text before the first header that is not blank is `fragment`."""
        n = len(self.starts)
        first = heads[0] if heads else n
        self.fragment = None if (self.flags[:first] & L.L_BLANK).all() else (0, first)
        return list(zip(heads, [*heads[1:], n], strict=False))

    def _careful_spans(self) -> list[tuple[int, int]]:
        """The reference rule for hand starts: a header-like line is no new hand when it begins with the name of a
        player seated in the hand being read; a header may begin inside a line (the next line a table line, the
        line no seat line, no seated player's line, no chat), and then the line is cut in two there."""
        spoken = self.spoken
        seat = spoken.dialect.lines["seat"].pattern
        heads = self.header_matches
        names: list[str] = []
        in_seats = False
        i = 0
        while i < len(self.starts):
            if self.flags[i] & (L.L_BLANK | L.L_LONG):
                i += 1
                continue
            line = self.text(i)
            if self.flags[i] & L.L_HEADER and (m := spoken.header.match(line)) and \
                    not (heads and any(line.startswith((n + ":", n + " ")) for n in names)):
                heads[i] = m
                names, in_seats = [], True
                i += 1
                continue
            inner = self._inner_header(i, line, names) if self.flags[i] & L.L_INNER else 0
            if inner:
                self._cut(i, len(line[:inner].encode("utf-8")))
                heads[i + 1] = spoken.header.match(self.text(i + 1))  # the match `_inner_header` found
                names, in_seats = [], True
                i += 2
                continue
            if in_seats:
                if line.startswith(self.spoken.marker_lead):
                    in_seats = False
                elif line.startswith(self.spoken.seat_lead):
                    m = seat.fullmatch(line)
                    if m:
                        names.append(m["player"])
            i += 1
        return self._with_fragment(list(heads))

    def _inner_header(self, i: int, line: str, names: list[str]) -> int:
        """Where a whole header (its date too) begins inside line i, when the next line is the table line."""
        spoken = self.spoken
        more = spoken.dialect.header_more
        if i + 1 >= len(self.starts) or (spoken.seat_lead and line.startswith(spoken.seat_lead)) or \
                any(line.startswith(n) for n in names):
            return 0
        nxt = i + 1  # the header's second line (blank lines passed over), or the table line when it is one line
        while more and nxt + 1 < len(self.starts) and self.flags[nxt] & L.L_BLANK:
            nxt += 1
        after = self.text(nxt)
        if not (more[0].pattern.fullmatch(after) if more else after.startswith(spoken.table_lead)):
            return 0
        lead = spoken.prefix.tobytes().decode("utf-8")
        at = 1
        while True:
            at = line.lower().find(lead.lower(), at) if spoken.fold_case else line.find(lead, at)
            if at < 0:
                return 0
            m = spoken.header.match(line[at:])
            if m and (not spoken.chat_lead or spoken.chat_lead not in line[:at]) and \
                    (more or spoken.stamp.search(m["rest"])):
                return at
            at += 1

    def _cut(self, i: int, at: int) -> None:
        """Line i cut at byte `at` of it: two lines of one number (the hand before ends inside it)."""
        lo, hi = self.starts[i], self.ends[i]
        self.starts = np.insert(self.starts, i + 1, lo + at)
        self.ends = np.insert(self.ends, i + 1, hi)
        self.ends[i] = lo + at
        while self.ends[i] > lo and (self.bytes[self.ends[i] - 1] in b" \t" or
                                     self.bytes[max(lo, self.ends[i] - 3):self.ends[i]] == codecs.BOM_UTF8):
            # (a line's blanks and byte-order marks cut at its end, as `room_ledger.lines` cuts them)
            self.ends[i] -= 3 if self.bytes[self.ends[i] - 1] not in b" \t" else 1
        self.flags = np.insert(self.flags, i + 1, L.L_HEADER)
        self.flags[i] &= ~(L.L_INNER | L.L_HEADER)
        if self.spoken.separator is not None and self.spoken.separator.match(self.text(i)):
            self.flags[i] |= L.L_BLANK  # (the hand before ended with the line that closes a hand, `Game ended ...`)
        self.number = np.insert(self.number, i + 1, self.number[i])
        self.cuts = getattr(self, "cuts", set()) | {i}


def _utf8(raw: bytes, first: bool) -> bytes:
    """A block's text as UTF-8 bytes: the bytes themselves when they are UTF-8 (after a UTF-8 byte-order mark at
    the file's start), else decoded (`text_blocks`) and encoded again."""
    if first and raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8):]
    elif first and wide(raw):
        return decode_bytes(raw).encode("utf-8", "surrogatepass")
    try:
        raw.decode("utf-8")
        return raw
    except UnicodeDecodeError:
        return decode_block(raw).encode("utf-8", "surrogatepass")


class _Hands:
    """A batch of a block's hands made ready for the ledger: their `h` rows and what the header gave each."""

    def __init__(self, count: int) -> None:
        self.h = np.zeros((count, len(L.H_COLUMNS)), dtype=np.int64)
        self.header: list[Header | None] = [None] * count
        self.table: list[tuple[str | None, int, int | None] | None] = [None] * count
        self.refused: list[Quarantined | None] = [None] * count


def _block_items(self: _Block, noted: set[str], batch: int, chunk: int) -> Generator[Item, None, tuple[int, int]]:
    """The block's items (`text_blocks.in_blocks`): all its hands when it is the file's last, else all but the
    last that begins a line (it may go on in the next block, which begins with it); returns the (bytes, lines)
    of the block used."""
    hands = self.spans
    cuts = getattr(self, "cuts", set())
    done = len(hands)
    if not self.final:
        done = next((k for k in range(len(hands) - 1, -1, -1) if hands[k][0] - 1 not in cuts), 0)
    if self.fragment is not None and (hands or self.final):
        a, b = self.fragment
        too_long = _too_long(self, a, b)
        if too_long:
            yield Quarantined(self.name, self.line0 + int(self.number[a]) + 1, f"{too_long}; the hand is not read",
                              code="limit")
        else:
            first = next(i for i in range(a, b) if not self.flags[i] & L.L_BLANK)
            yield Quarantined(self.name, self.line0 + int(self.number[first]) + 1,
                              f"not a whole hand: text before the first '{self.spoken.header_lead}' header "
                              "(a fragment of a hand)", code="truncated")
    for a in range(0, done, batch):
        yield from _batch(self, hands[a:min(done, a + batch)], noted, chunk)
    if self.final:
        return len(self.raw), int(self.number[-1]) + 1 if len(self.number) else 0
    if done >= len(hands):
        return 0, 0
    start = int(self.number[hands[done][0]])
    first = hands[done][0]
    return (int(self.starts[first]) if self.same else line_start(self.raw, start)), start


_Block.items = _block_items  # type: ignore[attr-defined]


def _batch(block: _Block, spans: list[tuple[int, int]], noted: set[str], chunk: int) -> Iterator[Item]:
    """A batch of hands: each header and table line read, the rest by the ledger, the items in order."""
    spoken, name = block.spoken, block.name
    hands = _Hands(len(spans))
    h = hands.h
    line_of = block.number
    flags = block.flags
    over = _over_limits(block, spans)
    one_line = not spoken.header_more and spoken.table_lines == 1
    rows = []
    kept = []
    for k, (a, b) in enumerate(spans):
        m = block.header_matches[a]  # the hand's header as `_spans` matched it
        hand_id = m["hand_id"]
        if k in over:
            too_long = _too_long(block, a, b)
            hands.refused[k] = Quarantined(name, block.line0 + int(line_of[a]) + 1, f"{too_long}; the hand is not read",
                                           None if flags[a] & L.L_LONG else hand_id, code="limit")
            continue
        if one_line:  # one header line, one table line: the common layout, read here
            body = a + 1
            while body < b and flags[body] & L.L_BLANK:
                body += 1
            more, table_text = (), block.text(body) if body < b else ""
        else:
            more, table_text, body = _head(block, a, b)
        if not spoken.table_lines:  # the table named in the header's own line (`header.table_lines: 0`), and in the
            # header's further lines where the table template has as many (`Players(max 6):`, the table's size)
            table_text = "\n".join([m["rest"], *more][:spoken.table.pattern.count("\n") + 1])
        table_id = None
        try:
            tm = _table_match(spoken, table_text) if spoken.table_names_tournament or spoken.table_facts or \
                spoken.pooled else None
            in_tournament = bool(tm and tm.groupdict().get("tournament"))
            if spoken.names_by_position and in_tournament:
                raise _Bad("the room numbers a tournament's players, not its seats: the hand's seating cannot be "
                           "placed", "unsupported-feature")
            header = read_header(spoken, m, more, in_tournament,
                                 ((tm and tm["facts"]) or "") if spoken.table_facts else None,
                                 _closing(block, a, b) if spoken.stamp_at_end is not None else None)
            if not table_text.startswith(spoken.table_lead) or table_text.count("\n") < spoken.table_lines - 1:
                raise _Bad(f"truncated: no '{spoken.table_word}' line after the header", "truncated")
            table = read_table(spoken, table_text)
        except _Bad as bad:
            if table_text.startswith(spoken.table_lead):
                tm = _table_match(spoken, table_text)
                table_id = _table_id(tm) if tm else None
            hands.refused[k] = Quarantined(name, block.line0 + int(line_of[a]) + 1, bad.reason, hand_id,
                                           code=bad.code, table_id=table_id)
            continue
        if spoken.stakes_posted and not header.row[1] and a + 1 < b:  # cash: the stacks' symbol is the currency
            header = _currency_of_stacks(spoken, header, block.text(a + 1))
        if tm is not None and spoken.pooled and tm["pool"] is not None:
            # a fast-fold pool deals each hand at a table of its own: no rule follows the pool from hand to hand
            table = (f"{table[0]}#{hand_id}", *table[1:])
        hands.header[k], hands.table[k] = header, table
        rows.append((body + 1, b, table[1], *header.row))
        kept.append(k)
    if kept:
        h[kept, :len(rows[0])] = np.array(rows, dtype=np.int64)
        cash = spoken.dialect.syntax["amount"]["cash_places"]
        h[kept, L.H_PLACES] = [cash if hands.header[k].currency else 0 for k in kept]
        h[kept, L.H_BLINDS_ORDER] = spoken.blinds_order
    read = [k for k in range(len(spans)) if hands.header[k] is not None]
    tables = None
    if read:
        rows = h[read]
        lines = int((rows[:, L.H_LINE_HI] - rows[:, L.H_LINE_LO]).sum())
        data_size = int(sum(block.ends[b - 1] - block.starts[a] for a, b in (spans[k] for k in read)))
        s_out = np.zeros((len(read) * 12 + 16, 5), dtype=np.int64)
        ev = np.zeros((lines + 16 * len(read) + 16, len(L.EV_COLUMNS)), dtype=np.int64)
        cards = np.zeros(data_size // 2 + 64 * len(read) + 64, dtype=np.int64)
        ns, ne, nc = L.convert(block.data, block.starts, block.ends, block.flags, rows, spoken.words, s_out, ev, cards,
                               spoken.width)
        h[read] = rows
        if spoken.blinds_unwritten:
            _refuse_unwritten_blinds(block, spans, hands, read, ev[:ne])
        if spoken.stakes_posted:
            _refuse_unstaked(block, spans, hands, read)
        if spoken.button_position:
            _button_where_positioned(block, spans, hands, read, s_out[:ns])
        if spoken.blinds_unwritten or spoken.stakes_posted or spoken.button_position:
            (s_out, ns), (ev, ne) = _rows_of_hands_read(h, read, s_out[:ns], ev[:ne])
        if not spoken.pots_named:
            ev, ne = _attribute_awards(h, read, ev[:ne])
        ok = [k for k in read if h[k, L.H_OK]]
        for k in read:
            if not h[k, L.H_OK] and hands.refused[k] is None:
                hands.refused[k] = _refusal(block, spans[k], hands, k)
        if ok:
            tables = _tables(block, [spans[k] for k in ok], hands, ok, s_out[:ns], ev[:ne], cards[:nc])
            from auditor.ingest import columnar_validate

            verdicts = columnar_validate.validate(tables.hands, tables.seats, tables.events)
            for j, k in enumerate(ok):
                if not verdicts.valid[j]:
                    hands.refused[k] = Quarantined(name, block.line0 + int(line_of[spans[k][0]]) + 1,
                                                   f"reader could not convert: {verdicts.reasons[j]}",
                                                   hands.header[k].hand_id, code="invalid-record",
                                                   table_id=hands.table[k][0])
            tables = tables.keep(verdicts.valid)
    yield from _in_order(block, spans, hands, tables, noted, chunk)


def _closing(block: _Block, a: int, b: int) -> str | None:
    """The line that closes the hand at lines a..b - 1 (its last line not empty), where the room writes the time in
    it (`Room.stamp_at_end`); None when the hand has none (a file cut short)."""
    pattern = block.spoken.stamp_at_end
    for i in range(b - 1, a, -1):
        if block.ends[i] > block.starts[i]:
            line = block.text(i)
            return line if pattern is not None and pattern.fullmatch(line) else None
    return None


def _refuse_unwritten_blinds(block: _Block, spans: list[tuple[int, int]], hands: _Hands, read: list[int],
                             ev: np.ndarray) -> None:
    """Refuse the tournament hands the ledger read that post no blind at all, where the dialect says its room
    exports some tournaments' hands without their blind lines (`blinds_written: not_in_some_tournaments`): a
    tournament always posts its blinds, so the text lost them, and the hand's play cannot be replayed from it (a
    call of the blind's balance would read as a short call, the pot as paid from nowhere)."""
    h = hands.h
    ok = np.array([k for k in read if h[k, L.H_OK] and h[k, L.H_TOURNAMENT]], dtype=np.int64)
    if not len(ok):
        return
    blind = (ev[:, L.C_KIND] == L.E_POST) & np.isin(ev[:, L.C_POST], (L.P_BLIND, L.P_MISSED))
    counts = np.concatenate([[0], np.cumsum(blind)])
    for k in ok[counts[h[ok, L.H_EV_HI]] == counts[h[ok, L.H_EV_LO]]].tolist():
        _refuse(block, spans, hands, k, "the tournament's blinds are not written: the hand's play cannot be replayed "
                "from its text", "damaged")


def _rows_of_hands_read(h: np.ndarray, read: list[int], seats: np.ndarray,
                        ev: np.ndarray) -> tuple[tuple[np.ndarray, int], tuple[np.ndarray, int]]:
    """The seat and event rows of the hands still read, after a check of the batch refused some the ledger had
    read (`_refuse_unwritten_blinds`, `_refuse_unstaked`, `_button_where_positioned`): a refused hand's rows go,
    and every hand's ranges (`H_SEAT_*`, `H_EV_*`) are moved to match, as the tables are built from the rows of
    the hands kept, in order."""
    order = np.array(read, dtype=np.int64)
    gone = order[h[order, L.H_OK] == 0]
    out = []
    for table, lo_col, hi_col in ((seats, L.H_SEAT_LO, L.H_SEAT_HI), (ev, L.H_EV_LO, L.H_EV_HI)):
        keep = np.ones(len(table), dtype=bool)
        for k in gone.tolist():
            keep[h[k, lo_col]:h[k, hi_col]] = False
        before = np.concatenate([[0], np.cumsum(keep)])  # kept rows before each row
        h[order, lo_col] = before[h[order, lo_col]]
        h[order, hi_col] = before[h[order, hi_col]]
        h[gone, hi_col] = h[gone, lo_col]
        out.append((table[keep], int(keep.sum())))
    return out[0], out[1]


def _currency_of_stacks(spoken: Room, header: Header, seat_line: str) -> Header:
    """The header of a room that writes no stakes (`stakes_written: posted`) with the currency of its first seat's
    chips (`Seat 1: UTG ($5 in chips)`: the symbol before or after the number; a name may hold any symbol)."""
    stack = seat_line[seat_line.rfind("(") + 1:].split(" ")[0]
    symbol = next((s for s in spoken.symbols if stack.startswith(s) or stack.endswith(s)), None)
    currency = spoken.symbols[symbol] if symbol else None
    return header if currency == header.currency else header._replace(currency=currency)


def _refuse(block: _Block, spans: list[tuple[int, int]], hands: _Hands, k: int, reason: str, code: str) -> None:
    """Hand k of the batch, read by the ledger, refused after all (a check of the whole batch found it out)."""
    hands.h[k, L.H_OK] = 0
    header, table = hands.header[k], hands.table[k]
    assert header is not None and table is not None
    hands.refused[k] = Quarantined(block.name, block.line0 + int(block.number[spans[k][0]]) + 1, reason,
                                   header.hand_id, code=code, table_id=table[0])


def _refuse_unstaked(block: _Block, spans: list[tuple[int, int]], hands: _Hands, read: list[int]) -> None:
    """Refuse the hands whose header states no stakes (`stakes_written: posted`) and that post no big blind in full:
    the ledger stakes a hand by its big blind's post (`H_BIG`), and without one its bets could not be measured
    against any blind. (The small blind is its post's, or half the big: `_tables`.)"""
    h = hands.h
    for k in read:
        if h[k, L.H_OK] and h[k, L.H_BIG] < 0:
            _refuse(block, spans, hands, k, "the stakes are not written and no big blind is posted in full: the "
                    "hand's bets cannot be measured", "unsupported-feature")


def _button_where_positioned(block: _Block, spans: list[tuple[int, int]], hands: _Hands, read: list[int],
                             seats: np.ndarray) -> None:
    """Refuse the hands of a room that writes players by position (`players_named: by_position`) whose dealer is
    set on one seat while the seat list puts the button's position on another: the text contradicts itself on
    the button, and every rule of order would judge the play from a guess."""
    h = hands.h
    label = np.frombuffer(block.spoken.button_position, dtype=np.uint8)
    if not read or not len(seats):
        return
    lo, hi = seats[:, L.S_NAME_LO], seats[:, L.S_NAME_HI]
    labelled = np.flatnonzero(hi - lo == len(label))
    labelled = labelled[(block.data[lo[labelled, None] + np.arange(len(label))] == label).all(axis=1)]
    # each labelled seat row's hand: the hand whose seat rows hold it (every hand the ledger read has its range,
    # in order; a hand it refused, an empty one), judged if not refused since
    order = np.array(read, dtype=np.int64)
    owner = order[np.searchsorted(h[order, L.H_SEAT_HI], labelled, side="right")]
    wrong = (seats[labelled, L.S_SEAT] != h[owner, L.H_BUTTON]) & (h[owner, L.H_OK] == 1)
    for k, row in zip(owner[wrong].tolist(), labelled[wrong].tolist(), strict=True):
        _refuse(block, spans, hands, k, f"the dealer is set on seat {h[k, L.H_BUTTON]}, but the seat list puts the "
                f"{block.spoken.button_position.decode('utf-8')} on seat {seats[row, L.S_SEAT]}: the text "
                "contradicts itself on the button", "damaged")


def _attribute_awards(h: np.ndarray, read: list[int], ev: np.ndarray) -> tuple[np.ndarray, int]:
    """The awards of a room whose award lines name no pot, attributed to the pots of the hand where it has side
    pots: as a dealer pays them, from the last side pot to the main pot, each to the players eligible for it who
    won anything (`model.pots.attribute_winnings`, as PHH's winnings are). The ledger wrote them all to the main
    pot; the rule that judges who won each pot needs each pot's own. Returns the event rows with those hands'
    awards rewritten in place of the first (the hands' `H_EV_*` ranges moved to match) and their count.

    Why so: the facts of every hand of the batch are summed at once (`_PotFacts`); only a hand whose players still
    in put in different amounts has side pots, and only such a hand is paid out in Python, by the model's pot
    layers (`model.pots.build_pots`), shared with the replay engine, so the pot numbers agree."""
    ok = [k for k in read if h[k, L.H_OK]]
    if not ok:
        return ev, len(ev)
    facts = _PotFacts(h[ok, L.H_EV_LO], h[ok, L.H_EV_HI], ev)
    at: list[int] = []  # where each hand's new awards go (its first award row), and the rows
    rows: list[list[int]] = []
    gone: list[np.ndarray] = []
    delta = np.zeros(len(ok), dtype=np.int64)
    for j in facts.side_pot_hands():
        paid = facts.paid(j)
        if paid is None:
            continue
        awards = facts.award_rows(j)
        template = ev[awards[0]].tolist()
        for pot, seat, amount in paid:
            row = list(template)
            row[L.C_POT], row[L.C_SEAT], row[L.C_AMOUNT] = pot, seat, amount
            at.append(int(awards[0]))
            rows.append(row)
        gone.append(awards)
        delta[j] = len(paid) - len(awards)
    if not rows:
        return ev, len(ev)
    grown = np.insert(ev, at, np.array(rows, dtype=ev.dtype), axis=0)
    old = np.concatenate(gone)
    out = np.delete(grown, old + np.searchsorted(np.array(at), old, side="right"), axis=0)
    after = np.cumsum(delta)
    h[ok, L.H_EV_LO] += after - delta
    h[ok, L.H_EV_HI] += after
    return out, len(out)


class _PotFacts:
    """What the pots of a batch's hands are made of, summed for all hands at once from their event rows (hand j's
    rows are lo[j]..hi[j] - 1): each seat's chips in (live, less returns), the dead money, the rake, each seat's
    winnings, who folded and who was dealt in."""

    def __init__(self, lo: np.ndarray, hi: np.ndarray, ev: np.ndarray) -> None:
        counts = hi - lo
        n = len(lo)
        owner = np.repeat(np.arange(n), counts)
        rows = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts) + np.repeat(lo, counts)
        kind, amount = ev[rows, L.C_KIND], ev[rows, L.C_AMOUNT]
        seat = ev[rows, L.C_SEAT].clip(0, 10)
        post, action = ev[rows, L.C_POST], ev[rows, L.C_ACTION]
        live = ((kind == L.E_POST) & (post != L.P_DEAD)) | ((kind == L.E_ACTION) & (action != L.A_FOLD))
        self.put = np.zeros((n, 11), dtype=np.int64)
        np.add.at(self.put, (owner, seat), np.where(live & (amount > 0), amount, 0)
                  - np.where(kind == L.E_RETURN, amount, 0))
        self.won = np.zeros((n, 11), dtype=np.int64)
        award = kind == L.E_AWARD
        np.add.at(self.won, (owner[award], seat[award]), amount[award])
        self.dead = np.bincount(owner, np.where((kind == L.E_POST) & (post == L.P_DEAD), amount, 0),
                                minlength=n).astype(np.int64)
        self.rake = np.bincount(owner, np.where(kind == L.E_RAKE, amount, 0), minlength=n).astype(np.int64)
        folds = (kind == L.E_KILL) | ((kind == L.E_ACTION) & (action == L.A_FOLD))
        self.out = np.zeros((n, 11), dtype=bool)
        self.out[owner[folds], seat[folds]] = True
        hole = (kind == L.E_DEAL) & (ev[rows, L.C_TARGET] == 0)
        self.dealt = np.zeros((n, 11), dtype=bool)
        self.dealt[owner[hole], seat[hole]] = True
        self.button = ev[lo, L.C_SEAT]
        self.awards = rows[award]
        self.award_owner = owner[award]

    def side_pot_hands(self) -> list[int]:
        """The hands with an award whose players still in at the end put in different amounts."""
        still_in = self.dealt & ~self.out
        top = np.where(still_in, self.put, np.iinfo(np.int64).min).max(axis=1)
        least = np.where(still_in, self.put, np.iinfo(np.int64).max).min(axis=1)
        awarded = np.zeros(len(self.put), dtype=bool)
        awarded[self.award_owner] = True
        return np.flatnonzero(awarded & still_in.any(axis=1) & (top != least)).tolist()

    def award_rows(self, j: int) -> np.ndarray:
        return self.awards[self.award_owner == j]

    def paid(self, j: int) -> list[tuple[int, int, int]] | None:
        """Hand j's awards (pot, seat, amount) as its pots pay them, or None when it has one pot."""
        put, won = self.put[j].tolist(), self.won[j].tolist()
        contributed = {s: put[s] for s in range(11) if put[s]}
        folded = {s for s in range(11) if self.out[j, s]}
        pots = build_pots(contributed, folded, int(self.dead[j]))
        if len(pots) <= 1:
            return None
        order = clockwise_after(np.flatnonzero(self.dealt[j]).tolist(), int(self.button[j]))
        return attribute_winnings(pots, {s: won[s] for s in range(11) if won[s]}, order, int(self.rake[j]))[0]


def _head(block: _Block, a: int, b: int) -> tuple[list[str], str, int]:
    """The header's lines after the first and the table's text (its lines joined by line breaks) of the hand at
    lines a..b - 1, blank lines skipped, and the last of those lines (the seat list follows it)."""
    spoken = block.spoken
    flags = block.flags
    more: list[str] = []
    table: list[str] = []
    body = a
    i = a + 1
    skipped = spoken.dialect.header_skipped
    while i < b and len(more) + len(table) < len(spoken.header_more) + spoken.table_lines:
        if not flags[i] & L.L_BLANK:
            text = block.text(i)
            if not any(t.pattern.fullmatch(text) for t in skipped):
                (more if len(more) < len(spoken.header_more) else table).append(text)
                body = i
        i += 1
    return more, "\n".join(table), body


def _over_limits(block: _Block, spans: list[tuple[int, int]]) -> set[int]:
    """The hands of `spans` (by index) with a line past its limit or past the hand's limit, all at once."""
    if not spans:
        return set()
    lo = np.array([a for a, _ in spans], dtype=np.int64)
    hi = np.array([b for _, b in spans], dtype=np.int64)
    sizes = np.cumsum(np.concatenate(([0], block.ends - block.starts + 1)))
    longs = np.cumsum(np.concatenate(([0], (block.flags & L.L_LONG) != 0)))
    over = (sizes[hi] - sizes[lo] > block.limits.room_max_hand_bytes) | (longs[hi] > longs[lo])
    return set(np.flatnonzero(over).tolist())


def _too_long(block: _Block, a: int, b: int) -> str | None:
    """Why lines a..b - 1 are not read (a line or the hand past its limit), or None."""
    limits = block.limits
    long_line = next((i for i in range(a, b) if block.flags[i] & L.L_LONG), None)
    if long_line is not None:
        return (f"line {block.line0 + int(block.number[long_line]) + 1} is longer than "
                f"{limits.room_max_line_bytes} bytes (limit room_max_line_bytes)")
    if int((block.ends[a:b] - block.starts[a:b] + 1).sum()) > limits.room_max_hand_bytes:
        return f"hand is longer than {limits.room_max_hand_bytes} bytes (limit room_max_hand_bytes)"
    return None


def _mantissa(value: Decimal) -> int:
    return int(value.scaleb(_places(value)))


def _number_text(value: int, places: int) -> str:
    """An amount in the hand's scale as the reader says it in a reason (a plain decimal number)."""
    if places == 0:
        return str(value)
    sign = "-" if value < 0 else ""
    whole, part = divmod(abs(value), 10 ** places)
    return f"{sign}{whole}.{part:0{places}d}"


def _refusal(block: _Block, span: tuple[int, int], hands: _Hands, k: int) -> Quarantined:
    """The quarantine entry of a hand the ledger refused, worded as its error says."""
    h = hands.h[k]
    header, table = hands.header[k], hands.table[k]
    assert header is not None and table is not None
    error, code = L.ERRORS[int(h[L.H_ERROR])]
    at = int(h[L.H_ERROR_LINE])
    n = block.line0 + int(block.number[at]) + 1 if at >= 0 else 0
    a0, a1, a2, a3, a4 = (int(x) for x in h[L.H_ARG0:L.H_ARG4 + 1])
    places = int(h[L.H_PLACES])

    def number(value: int, decimals: int) -> str:  # an amount of the hand's scale, with the decimals it was given
        return _number_text(value // 10 ** (places - decimals), decimals)

    def span_text(lo: int, hi: int) -> str:
        return block.data[lo:hi].tobytes().decode("utf-8", "replace")

    line = block.text(at) if at >= 0 else ""
    written = block.spoken.dialect.lines

    def marker(name: str) -> str:  # a `*** NAME ***` line as the room writes it
        return written["marker"].write({"name": name, "rest": ""})

    reason = {
        "no_seats": lambda: "truncated: no seat lines (nobody is seated)",
        "seat_line": lambda: f"line {n}: seat line not understood: '{_short(line)}'",
        "seat_range": lambda: f"line {n}: seat {_short(span_text(a0, a1))} is out of range",
        "name_blank": lambda: (f"line {n}: seat {a0}'s player name starts or ends with a blank, which the lines "
                               "naming the player cannot show"),
        "same_name": lambda: f"line {n}: two seats have the same player name",
        "amount_large": lambda: f"amount '{_short(span_text(a0, a1))}' is too large",
        "amount_places": lambda: (f"amount '{_short(span_text(a0, a1))}' has more than {L.MAX_PLACES} decimal "
                                  "places"),
        "not_understood": lambda: _not_understood(block.spoken, n, line, _seated(block, span)),
        "before_deal": lambda: f"line {n}: {L.BEFORE_DEAL_WHAT[a0]} before the cards are dealt",
        "after_deal": lambda: f"line {n}: {L.BEFORE_DEAL_WHAT[a0]} after the cards are dealt",
        "cancelled": lambda: "hand cancelled",
        "forced_bet": lambda: (f"line {n}: a {('button blind', 'bring-in')[a0]}, which the canonical log does not "
                               "have"),
        "puts_in": lambda: f"line {n}: seat {a0} puts in {number(a1, a3)} with {number(a2, a4)} behind",
        "all_in_behind": lambda: f"line {n}: seat {a0} is said to be all-in with {number(a1, a3)} behind",
        "action_before_deal": lambda: f"line {n}: a betting action before the deal",
        "no_more": lambda: (f"line {n}: seat {a0} {_verb(line)}s to {number(a1, a3)}, no more than the "
                            f"{number(a2, a4)} it has in"),
        "run_twice": lambda: (f"run it twice: the hand has '{marker(span_text(a0, a1))}', two boards, which the "
                              "engine does not have"),
        "second_deal": lambda: f"line {n}: a second deal ('{marker(span_text(a0, a1))}')",
        "marker_predeal": lambda: f"line {n}: '{marker(span_text(a0, a1))}' before the cards are dealt",
        "no_such_draw": lambda: f"line {n}: '{marker(span_text(a0, a1))}' in a game with no such draw",
        "unknown_street": lambda: (f"line {n}: street '{marker(_short(span_text(a0, a1)))}' is not one this reader "
                                   "knows"),
        "board_in_draw": lambda: f"line {n}: a {span_text(a0, a1).lower()} in five-card draw",
        "board_after_showdown": lambda: f"line {n}: a {span_text(a0, a1).lower()} after the showdown",
        "flop_not_understood": lambda: f"line {n}: flop line not understood",
        "board_not_repeated": lambda: (f"line {n}: the {span_text(a0, a1).lower()} line does not repeat the board "
                                       "dealt so far"),
        "not_a_card": lambda: f"line {n}: card '{_short(span_text(a0, a1))}' is not a card",
        "dealt_before": lambda: f"line {n}: cards dealt before the deal",
        "draw_outside": lambda: f"line {n}: a draw outside the draw of five-card draw",
        "discard_count": lambda: f"line {n}: discards {a0} cards but shows {a1}",
        "discard_range": lambda: f"line {n}: discard count {_short(span_text(a0, a1))} is out of range",
        "side_pot": lambda: f"line {n}: side pot {a0} (the canonical log numbers pots 0 to 10)",
        "side_pot_range": lambda: f"line {n}: side pot {_short(span_text(a0, a1))} is out of range",
        "unsupported_line": lambda: f"line {n}: '{_short(line)}', which the canonical log cannot hold",
        "cashed_out": lambda: (f"line {n}: the hand was cashed out (all-in cash out), which the engine does not "
                               "model"),
        "summary_board": lambda: f"line {n}: the summary board differs from the board dealt",
        "run_twice_summary": lambda: ("run it twice: the summary shows two boards, which the engine does not "
                                      "have"),
        "summary_seat_name": lambda: f"line {n}: the summary names seat {a0} differently from the seat list",
        "summary_not_understood": lambda: f"line {n}: summary line not understood: '{_short(line)}'",
        "no_hole_cards": lambda: (f"truncated: no {written['hole_cards'].source} line" if "hole_cards" in written
                                  else "truncated: no line of play after the blinds (the room marks no deal)"),
        "no_summary": lambda: (f"truncated: no {written['summary'].source} section" if block.spoken.no_summary != 2
                               else "truncated: the hand ends before its awards"),
        "no_showdown": lambda: (f"truncated: {a0} players reach the showdown, but there is no "
                                f"{written['show_down'].source}" if block.spoken.no_summary < 2 else
                                f"truncated: {a0} players reach the showdown, but none shows or mucks"),
        "no_button": lambda: "the hand names no button seat before the deal",
        "show_unseen": lambda: f"line {n}: a show that writes no cards, by a player the text deals no cards",
        "both_unstaked": lambda: (f"line {n}: both blinds posted at once before any big blind, and the stakes are "
                                  "not written: the live part cannot be told"),
        "no_award": lambda: f"truncated: no pot was awarded (no '{block.spoken.collect_word.strip()}' line)",
        "too_long": lambda: f"line {n}: the hand holds more than the reader's arrays (limit)",
    }[error]()
    if isinstance(reason, tuple):
        reason, code = reason
    return Quarantined(block.name, block.line0 + int(block.number[span[0]]) + 1, reason, header.hand_id,
                       code=code, table_id=table[0])


def _seated(block: _Block, span: tuple[int, int]) -> list[str]:
    """The names of a hand's seat list (for wording a refusal only)."""
    seat = block.spoken.dialect.lines["seat"].pattern
    names = []
    started = False
    for i in range(span[0] + 1, span[1]):
        if block.flags[i] & L.L_BLANK:
            continue
        m = seat.fullmatch(block.text(i))
        if m:
            names.append(m["player"])
            started = True
        elif started:
            break
    return names


def _verb(line: str) -> str:
    for verb in ("call", "bet", "raise"):
        if f": {verb}s " in line:
            return verb
    return "raise"


def _not_understood(spoken: Room, n: int, line: str, names: list[str]) -> tuple[str, str]:
    """Why a line no template reads is refused, as precisely as the line allows: an uncalled bet or cards given
    to no seated player, a summary line before the summary, a player's line the room does not write, an action
    of someone with no seat."""
    lines = spoken.dialect.lines
    uncalled = lines["uncalled"].read(line)
    if uncalled:
        return f"line {n}: an uncalled bet goes back to '{_short(uncalled['player'])}', who has no seat", "damaged"
    lead = lines["dealt"].parts[0] if "dealt" in lines else None  # (a room printing no hole cards has none)
    if hasattr(lead, "text") and line.startswith(lead.text) and len(line) > len(lead.text):
        return f"line {n}: cards dealt to someone with no seat: '{_short(line[len(lead.text):])}'", "damaged"
    for kind in ("total", "board", "run_twice_summary") if "summary" in lines else ():
        if kind not in lines:
            continue
        first = lines[kind].parts[0]
        if hasattr(first, "text") and line.startswith(first.text):
            return f"line {n}: summary line before {lines['summary'].source}: '{_short(line)}'", "damaged"
    if any(line.startswith(name) for name in names):
        return f"line {n} not understood: '{_short(line)}'", "damaged"
    m = spoken.unseated_act.match(line) or spoken.unseated_collect.match(line)
    if m:
        return f"line {n}: '{_short(m['player'])}' acts but has no seat in this hand", "damaged"
    return f"line {n} not understood: '{_short(line)}'", "damaged"


# ------------------------------------------------------------------------------------------------ tables, items

def _tables(block: _Block, spans: list[tuple[int, int]], hands: _Hands, ok: list[int], seats: np.ndarray,
            ev: np.ndarray, cards: np.ndarray) -> CanonicalTables:
    """The canonical tables of the hands the ledger read (`ok`, in order), as the log's stakes rules make them."""
    count = len(ok)
    h = hands.h[ok]
    headers = [hands.header[k] for k in ok]
    tables = [hands.table[k] for k in ok]
    spoken = block.spoken
    places = h[:, L.H_PLACES]
    scale = 10 ** places
    cash = np.array([x.currency is not None for x in headers], dtype=bool)
    small = h[:, L.H_SMALL] * 10 ** (places - h[:, L.H_SMALL_PLACES])
    big = h[:, L.H_BIG] * 10 ** (places - h[:, L.H_BIG_PLACES])
    fixed = h[:, L.H_FIXED] == 1
    draw = h[:, L.H_DRAW] == 1
    # a fixed-limit header states the bets, and a table named by its buy-in the big blind alone: the small blind
    # is then its post's, or half the big blind where none was posted
    unstated = fixed | (h[:, L.H_SMALL] < 0)
    sb = np.where(h[:, L.H_SB] >= 0, h[:, L.H_SB], np.where(fixed, small, big) // 2)
    blinds = np.stack([np.where(unstated, sb, small), np.where(fixed, small, big)], axis=1)
    units = np.where(draw[:, None], np.stack([small, big, small, big], axis=1), np.stack([small, small, big, big], 1))
    unit_count = np.where(fixed, np.where(draw, 2, 4), 0)
    bet_values = units[np.arange(4)[None, :] < unit_count[:, None]]
    ante = np.where(h[:, L.H_ANTE] >= 0, h[:, L.H_ANTE], 0)
    smallest = np.where(cash & (scale >= 100), scale // 100, scale)
    # the chip unit: the gcd of the smallest chip and every amount of the hand
    per_seat = h[:, L.H_SEAT_HI] - h[:, L.H_SEAT_LO]
    per_event = h[:, L.H_EV_HI] - h[:, L.H_EV_LO]
    seat_owner = np.repeat(np.arange(count), per_seat)
    ev_owner = np.repeat(np.arange(count), per_event)
    amount, to = ev[:, L.C_AMOUNT], ev[:, L.C_TO]
    values = np.concatenate([smallest, blinds[:, 0], blinds[:, 1], np.where(fixed, small, 0), np.where(fixed, big, 0),
                             seats[:, L.S_STACK], np.where(amount >= 0, amount, 0), np.where(to >= 0, to, 0)])
    owners = np.concatenate([np.arange(count)] * 5 + [seat_owner, ev_owner, ev_owner])
    order = np.argsort(owners, kind="stable")
    grouped = values[order]
    firsts = np.searchsorted(owners[order], np.arange(count))
    chip_unit = np.gcd.reduceat(grouped, firsts)
    chip_unit = np.where(chip_unit == 0, 1, chip_unit)
    default = spoken.dialect.data["writes"]["default_max_seats"]
    max_seats = np.array([t[2] if t[2] is not None else max(default, int(x)) for t, x in
                          zip(tables, h[:, L.H_HIGHEST].tolist(), strict=True)], dtype=np.int64)
    zeros = np.zeros(count, np.int64)
    no_lists = list_array(zeros, pa.array([], pa.int64()))
    lines = [block.line0 + int(block.number[spans[j][0]]) + 1 for j in range(count)]
    columns = {
        "hand": pa.array(np.arange(count, dtype=np.int32)),
        "hand_id": pa.array([x.hand_id for x in headers], pa.string()),
        "table_id": pa.array([t[0] for t in tables], pa.string()),
        "room": pa.array([spoken.dialect.title], pa.string()).take(pa.array(zeros)),
        "started_at": texts([x.started_at for x in headers]),
        "variant": pa.array([x.variant for x in headers], pa.string()),
        "structure": pa.array([x.structure for x in headers], pa.string()),
        "rule_pack": pa.array([block.rule_pack], pa.string()).take(pa.array(zeros)),
        "currency": texts([x.currency for x in headers]),
        "max_seats": pa.array(max_seats.astype(np.int8), pa.int8()),
        "blinds": list_array(np.full(count, 2, np.int64), pa.array(blinds.reshape(-1), pa.int64())),
        "ante": pa.array(ante, pa.int64()),
        "bet_units": list_array(unit_count, pa.array(bet_values, pa.int64())),
        "spread_min": no_lists,
        "spread_max": no_lists,
        "table_min": pa.nulls(count, pa.int64()),
        "table_max": pa.nulls(count, pa.int64()),
        "chip_unit": pa.array(chip_unit, pa.int64()),
        # a file name that is no valid text cannot be an Arrow string: shown escaped, as every report shows it
        "file": pa.array([shown_text(block.name)], pa.string()).take(pa.array(zeros)),
        "line": pa.array(np.array(lines, dtype=np.int64)),
        "money_scale": pa.array(scale, pa.int64()),
    }
    hands_table = pa.table([columns[field.name] for field in HANDS_SCHEMA], schema=HANDS_SCHEMA)
    seat_columns = {
        "hand": pa.array(seat_owner.astype(np.int32)),
        "seat": pa.array(seats[:, L.S_SEAT].astype(np.int8), pa.int8()),
        "player": (pc.binary_join_element_wise("Seat ", pc.cast(pa.array(seats[:, L.S_SEAT]), pa.string()), "")
                   if spoken.names_by_position else _slices(block.data, seats[:, L.S_NAME_LO], seats[:, L.S_NAME_HI])),
        "stack": pa.array(seats[:, L.S_STACK], pa.int64()),
        "status": _STATUS.take(pa.array(seats[:, L.S_STATUS])),
    }
    seat_table = pa.table([seat_columns[field.name] for field in SEATS_SCHEMA], schema=SEATS_SCHEMA)
    events = event_table(per_event, _EVENT_NAMES, kind=ev[:, L.C_KIND], seat=ev[:, L.C_SEAT],
                         action=ev[:, L.C_ACTION], post=ev[:, L.C_POST], blind=ev[:, L.C_BLIND], amount=amount, to=to,
                         all_in=ev[:, L.C_ALL_IN], target=ev[:, L.C_TARGET], pot=ev[:, L.C_POT],
                         cards=card_lists(ev[:, L.C_CARD_LO], ev[:, L.C_CARD_HI], cards, _CARDS),
                         receive=card_lists(ev[:, L.C_RECEIVE_LO], ev[:, L.C_RECEIVE_HI], cards, _CARDS))
    return CanonicalTables(hands_table, seat_table, events)


def _slices(data: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> pa.Array:
    """The UTF-8 texts data[lo:hi] as one string array (no Python string each)."""
    lengths, at = span_positions(lo, hi)
    offsets = np.zeros(len(lo) + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    return pa.StringArray.from_buffers(len(lo), pa.py_buffer(offsets), pa.py_buffer(data[at].tobytes()))


_SILENT_NOTE = ("silent-seat-sitting-out",
                "this export lists seated players who sit out with no mark: a cash seat no line of the hand names "
                "(no post, no action, no cards) is read as sitting out, not dealt in")
#: the note of a return the text leaves out, by the dialect's `uncalled_return`: in older exports, or paid with
#: the award, or never written
_IMPLIED_NOTES = {
    L.U_WRITTEN: ("implied-uncalled-return",
            "this export writes no 'Uncalled bet (X) returned to' line and leaves the uncalled chips out of "
            "'Total pot'; the unmatched part of the last bet is read as returned to its bettor wherever the "
            "stated total agrees"),
    L.U_IN_THE_AWARD: ("uncalled-bet-in-award",
           "this export writes no uncalled-bet line: the unmatched part of the last bet is paid to its bettor with "
           "the pot; it is read as returned to the bettor, and taken out of that award, wherever every chip put in "
           "was paid out and the stated total agrees"),
    L.U_NOT_WRITTEN: ("uncalled-bet-derived",
                      "this export never writes an uncalled bet's return: the unmatched part of the last bet is read "
                      "as returned to its bettor"),
}
_IMPLIED_NOTES[L.U_AFTER_THE_BOARD] = _IMPLIED_NOTES[L.U_WRITTEN]
_IMPLIED_NOTES[L.U_NOT_AWARDED] = _IMPLIED_NOTES[L.U_NOT_WRITTEN]
_IMPLIED_NOTES[L.U_PAID_AS_A_POT] = (
    "uncalled-bet-paid-as-pot", "this export never writes an uncalled bet's return: it pays the unmatched part of "
    "the last bet to its bettor as a pot of its own; it is read as returned to the bettor and taken out of the "
    "bettor's awards")
_RAKE_NOTE = ("rake-derived", "this export writes no rake: the chips put in and not returned or awarded are read "
              "as the rake the house took")


def _in_order(block: _Block, spans: list[tuple[int, int]], hands: _Hands, tables: CanonicalTables | None,
              noted: set[str], chunk: int) -> Iterator[Item]:
    """The batch's items in file order: runs of read hands as chunks, refused hands as quarantine entries, a note
    before the first hand of the file a convention was applied to."""
    starts = tables.starts() if tables is not None else None
    row = 0
    run: list[int] = []

    def flush() -> Iterator[Item]:
        nonlocal row, run
        if run:
            assert tables is not None and starts is not None
            part = tables.between(row, row + len(run), *starts)
            yield _chunk(block, part, list(run))
            row += len(run)
            run = []

    cuts = getattr(block, "cuts", set())
    # each convention the ledger may apply to a hand (its column in the hand's row) and the note that says so
    notes = ((L.H_RETURNED, _IMPLIED_NOTES[block.spoken.return_mode]), (L.H_SILENCED, _SILENT_NOTE),
             (L.H_RAKED, _RAKE_NOTE))
    for k, span in enumerate(spans):
        refused = hands.refused[k]
        if refused is not None:
            yield from flush()
            if span[1] - 1 in cuts:
                refused = Quarantined(refused.file, refused.line, f"truncated: the hand's text stops inside line "
                                      f"{block.line0 + int(block.number[span[1] - 1]) + 1}, where the next hand's "
                                      f"header begins ({refused.reason})", refused.hand_id, code="truncated",
                                      table_id=refused.table_id)
            yield refused
            continue
        for column, note in notes:
            if hands.h[k, column] and note[0] not in noted:
                yield from flush()
                noted.add(note[0])
                yield ReaderNote(block.name, block.line0 + int(block.number[span[0]]) + 1, *note)
        run.append(k)
        if len(run) >= chunk:
            yield from flush()
    yield from flush()


def _chunk(block: _Block, tables: CanonicalTables, hands: list[int]) -> TableChunk:
    empty = np.zeros(0, np.int64)
    count = len(hands)
    return TableChunk(tables, block.name, [None] * count, [None] * count, HANDS_SCHEMA.empty_table(),
                      SEATS_SCHEMA.empty_table(), empty, empty, EVENTS_SCHEMA.empty_table(), empty, empty,
                      _Sources(tables, block.name, list(range(count))))


class _Sources(Sequence):
    """A chunk's hands as SourceHands, each rebuilt from its canonical rows when asked for (a report shows few)."""

    def __init__(self, tables: CanonicalTables, name: str, rows: list[int]) -> None:
        self.tables, self.name, self.rows = tables, name, rows

    def __len__(self) -> int:
        return len(self.rows)

    def take(self, rows: Sequence[int]) -> _Sources:
        return _Sources(self.tables, self.name, [self.rows[int(i)] for i in rows])

    def renamed(self, name: str) -> _Sources:
        return _Sources(self.tables, name, self.rows)

    def __getitem__(self, i):  # type: ignore[no-untyped-def, override]
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        from auditor.ingest.parquet import _event, _hand_dict, _strip

        r = self.rows[i]
        tables = self.tables
        h = tables.hands.slice(r, 1).to_pylist()[0]
        seat_starts, event_starts = tables.starts()
        seats = tables.seats.slice(int(seat_starts[r]), int(seat_starts[r + 1] - seat_starts[r])).to_pylist()
        events = tables.events.slice(int(event_starts[r]), int(event_starts[r + 1] - event_starts[r])).to_pylist()
        number = h["hand"]
        seat_dicts = []
        for s in seats:
            entry = _strip({k: s[k] for k in ("seat", "player", "stack", "status")})
            if entry.get("status") == "active":
                del entry["status"]
            seat_dicts.append(entry)
        hand = _hand_dict(h, {number: seat_dicts}, {number: [_event(e) for e in events]})
        return SourceHand(hand, self.name, int(h["line"]))


def sniff(room_name: str, head: bytes) -> bool:
    """Whether a line of the (decompressed) head of a file starts a hand of the room (usually the first; an export
    split by size starts with the end of a hand, and some tools put a title line first: such a file is still the
    room's, its first lines a fragment quarantined as such)."""
    spoken = room(room_name)
    try:
        text = decode_bytes(head[:SNIFF_BYTES])
    except Exception:  # sniffing never raises
        return False
    lead = spoken.prefix.tobytes().decode("utf-8")
    fold = spoken.fold_case
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = line.strip(" \t\ufeff")
        if (line[:len(lead)].lower() == lead.lower() if fold else line.startswith(lead)) and spoken.header.match(line):
            return True
    return False
