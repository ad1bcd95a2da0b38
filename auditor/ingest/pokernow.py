"""PokerNow logs (the game log a PokerNow table exports as CSV, `entry,at,order`) read into canonical hands.

Why a reader of its own and not a text dialect (docs/readers.md, "PokerNow"): a PokerNow log is not a file of
hands but the table's event stream, newest first, one event per CSV row with its own time and sequence number.
What the text dialect engine reads from a hand's own text, PokerNow says across the stream: the stakes in
admin lines between hands (`The game's big blind was changed from 20 to 100.`), the button of a `dead button`
hand in the hand before it, a player's identity in an id that an admin line may change. Its amounts are round
totals (`calls 1156` is the player's total in the round), its seats are one line, its hero's cards name nobody,
and its hands have no header, table line, markers or summary. Holding that in the dialect engine would need
stream state and room-specific switches in its compiled matcher; this module instead reads the rows in play
order and feeds the canonical events and pots (`model.pots`) every other reader feeds.

Readers record, rules judge: an action is written as the log has it, legal or not. A hand is refused only when
the canonical log cannot hold it: a game the engine lacks (`unsupported-game`: Omaha hi/lo...), run it twice or
a bomb pot (`unsupported-feature`), a line it does not know, a player acting who has no seat, a row that is no
`entry,at,order` row inside the hand (`damaged`), a hand with no end or no start (`truncated`), chips put in
that the player does not have (`inconsistent-amounts`). Rows that are not hands (admin lines between hands)
say nothing the log holds except the blinds and ids they change.

Identity: a player is written `"Name @ id"`; the id is the identity (names can be changed at the table, the
id is PokerNow's), so the canonical `player` is the id, and an id an admin line changes (`changed the ID from
A to B because authenticated login`) keeps the first id for the rest of the file.
"""

from __future__ import annotations

import csv
import io
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from auditor.ingest.files import open_binary, open_failure
from auditor.ingest.jsonl import consistency_error
from auditor.ingest.limits import DEFAULT_LIMITS, Limits
from auditor.ingest.validate import schema_error
from auditor.model.pots import attribute_winnings, build_pots
from auditor.model.records import Quarantined, ReaderNote, SourceHand

__all__ = ["HEADER", "ROOM", "parse_amount", "read_pokernow", "read_text", "sniff_pokernow", "table_of"]

ROOM = "PokerNow"
HEADER = b"entry,at,order"
MAX_SEATS = 10
HOLE_CARDS = {"holdem": 2, "omaha": 4}
Item = SourceHand | Quarantined | ReaderNote

#: the game words of a hand's start line, longest first: (words, variant or None, why not)
GAMES = (("Omaha Hi/Lo", None, "Omaha hi/lo, a split-pot game"), ("Hi/Lo", None, "a hi/lo split-pot game"),
         ("8 or Better", None, "a hi/lo split-pot game"), ("5 Card Omaha", None, "five-card Omaha"),
         ("Omaha 5 Card", None, "five-card Omaha"), ("6 Card Omaha", None, "six-card Omaha"),
         ("Texas Hold'em", "holdem", ""), ("Hold'em", "holdem", ""), ("Omaha Hi", "omaha", ""),
         ("Omaha", "omaha", ""))
STRUCTURES = (("No Limit", "no-limit"), ("Pot Limit", "pot-limit"), ("Fixed Limit", "fixed-limit"),
              ("Limit", "fixed-limit"))
RANKS = {"10": "T", "A": "A", "K": "K", "Q": "Q", "J": "J", **{str(r): str(r) for r in range(2, 10)}}
SUITS = {"♠": "s", "♣": "c", "♥": "h", "♦": "d"}

_AMOUNT = r"(\d+(?:\.\d+)?)"
START = re.compile(r'-- starting hand #(?P<n>\d+) +\((?P<game>[^()]*(?:\([^()]*\))?[^()]*)\) '
                   r'\((?:dealer: "(?P<dealer>.+)"|(?P<dead>dead button))\) --')
END = re.compile(r"-- ending hand #(?P<n>\d+) --")
SEAT = re.compile(r'#(\d+) "(.*)" \(' + _AMOUNT + r"\)")
SEAT_END = re.compile(r'" \(' + _AMOUNT + r"\)\Z")
# what follows a seated player's `"Name @ id" ` (the player is found first, among the hand's seats: `_Hand.split`)
POST = re.compile(r"posts (?P<what>a small blind|a big blind|a straddle|an ante|a missing small blind|"
                  r"a missed big blind) of (?P<amount>\d+(?:\.\d+)?)(?P<all_in> and go all in)?")
ACTION = re.compile(r"(?P<verb>calls|bets|raises to) (?P<amount>\d+(?:\.\d+)?)(?P<all_in> and go all in)?")
PLAIN = re.compile(r"(?P<verb>folds|checks)")
SHOW = re.compile(r"shows a (?P<cards>[^.]*)\.")
COLLECT = re.compile(r"collected (?P<amount>\d+(?:\.\d+)?) from pot(?P<tail>.*)")
CHOOSES = re.compile(r"chooses to +(not )?run it twice\.")
UNCALLED = re.compile(r"Uncalled bet of (?P<amount>\d+(?:\.\d+)?) returned to (?P<token>.+)")
BOARD = re.compile(r"(?P<street>Flop|Turn|River)(?P<second> \(second run\))?: +(?P<old>[^\[]*)\[(?P<new>[^\]]*)\]")
BOMB = "(bomb pot bet)"
BLINDS_CHANGED = re.compile(r"The game's (?P<which>small blind|big blind|ante) was changed from " + _AMOUNT +
                            r" to " + _AMOUNT + r"\.")
ID_CHANGED = re.compile(r'The player ".+ @ .+" changed the ID from (?P<old>\S+) to (?P<new>\S+) because .*')
#: lines inside a hand that move no chips and say nothing the canonical log holds (admin, seat requests, the
#: run-it-twice vote when it was not run twice, the log owner's own cards, which name no player)
QUIET = re.compile(r"The player |The admin |WARNING: |Remaining players decide whether to run it twice\.|"
                   r"Some players choose to not run it twice\.|Your hand is |Dead Small Blind|The game's |"
                   r"Player stacks: ")
RUN_TWICE = "All players in hand choose to run it twice."


class Refusal(Exception):
    """Why a hand cannot be a canonical hand: a quarantine code and a one-line reason."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code, self.reason = code, reason


@dataclass
class Row:
    """One CSV row: the line it starts on, its entry, its time and its sequence number."""
    line: int
    entry: str
    at: str
    order: int


@dataclass
class Session:
    """What the stream says between hands and each hand reads: the table's declared blinds and ante, the ids an
    admin line changed, the last hand's small-blind seat (where a dead button lies), the log owner's id."""
    blinds: dict[str, int] = field(default_factory=dict)
    hero: str | None = None
    declared: bool = False
    aliases: dict[str, str] = field(default_factory=dict)
    last_small_seat: int | None = None
    learnt: list[int] | None = None


def sniff_pokernow(head: bytes) -> bool:
    """A PokerNow CSV log: its header row `entry,at,order`, after a byte-order mark or none."""
    text = head[3:] if head.startswith(b"\xef\xbb\xbf") else head
    rest = text[len(HEADER):]
    return text.startswith(HEADER) and (rest[:1] in (b"\n", b"") or rest[:2] == b"\r\n")


def parse_amount(text: str, scale: int) -> int:
    """`12.5` at scale 100 -> 1250: a decimal amount in the file's unit, never through a float."""
    whole, _, frac = text.partition(".")
    if len(whole) > 16:  # also keeps int() from a 5,000-digit string
        raise Refusal("unsupported-feature", f"an amount above 10^15: {text[:20]}...")
    places = len(str(scale)) - 1
    if len(frac) > places:
        raise Refusal("inconsistent-amounts", f"an amount finer than the file's unit: {text}")
    return int(whole) * scale + (int(frac.ljust(places, "0")) if places else 0)


def table_of(path: Path) -> str:
    """The table: PokerNow's game id from the export's name (`poker_now_log_<id>.csv`), else the file's stem."""
    stem = path.name.split(".")[0]
    return stem[len("poker_now_log_"):] or stem if stem.startswith("poker_now_log_") else stem


def read_pokernow(path: Path | str, *, rule_pack: str = "tda-2024", limits: Limits = DEFAULT_LIMITS,
                  name: str | None = None) -> Iterator[Item]:
    """Every hand of a PokerNow log, in play order (see the module); never raises on bad input. `name`: how the
    user knows the file (an archive member's name), which names the table."""
    path = Path(path)
    label = str(path)
    try:
        with open_binary(path, limits) as stream:
            data = stream.read(limits.max_file_bytes + 1)
    except (OSError, EOFError) as exc:
        reason, code = open_failure(exc) if isinstance(exc, OSError) else (f"cannot open: {exc}", "damaged")
        yield Quarantined(label, 1, reason, code=code)
        return
    if len(data) > limits.max_file_bytes:
        yield Quarantined(label, 1, f"the file is larger than max_file_bytes ({limits.max_file_bytes})",
                          code="limit")
        return
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        yield Quarantined(label, 1, f"not UTF-8 text (byte {exc.start})", code="damaged")
        return
    yield from read_text(text, label, table_of(Path(name or label)), rule_pack=rule_pack, limits=limits)


def read_text(text: str, label: str, table: str, *, rule_pack: str = "tda-2024",
              limits: Limits = DEFAULT_LIMITS) -> Iterator[Item]:
    """Every hand of a PokerNow log's decoded text (the reader's work once the file is read; the writer reads its
    own text back with it)."""
    rows, bad = _rows(text, limits)
    if rows is None:
        yield Quarantined(label, 1, bad[0][1], code="damaged")
        return
    yield from _hands(rows, bad, label, table, rule_pack, limits)


def _rows(text: str, limits: Limits) -> tuple[list[Row] | None, list[tuple[int, str]]]:
    """The file's rows in play order (by `order`, the log being newest first), and the rows that are no row
    (line, reason). None for rows when the file has no `entry,at,order` header."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    bad: list[tuple[int, str]] = []
    rows: list[Row] = []
    try:
        header = next(reader, None)
    except csv.Error as exc:
        return None, [(1, f"line 1: not a PokerNow CSV header: {exc}")]
    if header != ["entry", "at", "order"]:
        return None, [(1, "line 1: not a PokerNow CSV log (its first row is not entry,at,order)")]
    line = reader.line_num + 1
    seconds: dict[str, int | None] = {}  # a time's whole seconds, once per second (rows come many a second)
    most = limits.room_max_line_bytes
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            bad.append((line, f"line {line}: a row that is no CSV row ({exc}); the rest of the file is not read"))
            break
        start, line = line, reader.line_num + 1
        if len(fields) != 3:
            if fields:
                bad.append((start, f"line {start}: a row of {len(fields)} fields, not entry,at,order"))
            continue
        entry, at, order = fields
        if not order.isdigit() or len(order) > 30:
            bad.append((start, f"line {start}: a row whose order is no number ({order[:40]!r})"))
            continue
        if not _agrees(at, int(order), seconds):
            bad.append((start, f"line {start}: a row whose order {order[:40]} is not of its time {at[:40]!r} "
                               "(PokerNow numbers a row by its time in ms, times 100, plus its place)"))
            continue
        if len(entry) * 4 > most and len(entry.encode("utf-8")) > most:
            bad.append((start, f"line {start}: an entry longer than room_max_line_bytes ({most})"))
            continue
        rows.append(Row(start, entry, at, int(order)))
    rows.sort(key=lambda r: (r.order, -r.line))
    return rows, bad


_AT = re.compile(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)")


def _agrees(at: str, order: int, seconds: dict[str, int | None]) -> bool:
    """Whether a row's `order` is its `at` (`2022-11-12T02:15:05.590Z`) in milliseconds times 100 plus its place
    among rows of that millisecond, as in every real log: a row whose order is not is damaged (a digit lost moves
    it anywhere). `seconds` keeps each second's epoch seconds (None: no time)."""
    if len(at) != 24 or at[19] != "." or at[23] != "Z" or not at[20:23].isdigit():
        return False
    whole = at[:19]
    if whole not in seconds:
        m = _AT.fullmatch(whole)
        try:
            seconds[whole] = int(datetime(*(int(m[k]) for k in range(1, 7)), tzinfo=UTC).timestamp()) if m else None
        except ValueError:
            seconds[whole] = None
    epoch = seconds[whole]
    return epoch is not None and order // 100 == epoch * 1000 + int(at[20:23])


#: a decimal amount (not a time's seconds, `05:35.590Z`, whose digits follow a colon)
_DECIMALS = re.compile(r"(?<![:\d])\d+\.(\d+)")


def _scale(rows: list[Row]) -> int:
    """The file's unit: 100 when any amount has cents (`0.05`), else whole chips (one scale for the file, so a
    player's stack reads the same from hand to hand)."""
    places = max((len(frac) for frac in _DECIMALS.findall("\n".join(row.entry for row in rows))), default=0)
    return 10 ** min(places, 6)


def _hands(rows: list[Row], bad: list[tuple[int, str]], label: str, table: str, rule_pack: str,
           limits: Limits) -> Iterator[Item]:
    """Cut the rows into hands (start line to end line), keep the session's state between them, read each."""
    scale = _scale(rows)
    session = Session(hero=_hero(rows))
    noted: set[str] = set()
    current: list[Row] | None = None
    fragment: Row | None = None
    for row in rows:
        entry = row.entry
        if START.fullmatch(entry):
            if current is not None:
                yield _refuse(label, current, table, "truncated", "the hand has no `-- ending hand` line")
            current = [row]
            continue
        if current is None:
            _between(entry, session, scale)
            if END.fullmatch(entry) and fragment is None:
                fragment = row
            continue
        current.append(row)
        end = END.fullmatch(entry)
        if end and end["n"] != START.fullmatch(current[0].entry)["n"]:
            yield _refuse(label, current, table, "truncated", f"line {row.line}: the hand's rows end at the end of "
                                                              f"hand #{end['n']}, another hand")
            current = None
        elif end:
            yield from _one(current, bad, label, table, rule_pack, scale, session, noted, limits)
            current = None
        elif BLINDS_CHANGED.fullmatch(entry) or ID_CHANGED.fullmatch(entry):
            _between(entry, session, scale)  # takes effect from the next hand on
    if current is not None:
        yield _refuse(label, current, table, "truncated", "the log ends inside the hand (no `-- ending hand` line)")
    if fragment is not None:
        yield Quarantined(label, fragment.line, "the end of a hand whose start is not in the log", code="truncated",
                          table_id=table)
    for line, reason in bad:  # the rows no hand's span holds (those inside a hand damaged it: `_one`)
        yield Quarantined(label, line, reason, code="damaged", table_id=table)


def _id(token: str, aliases: dict[str, str]) -> str:
    """A player's id (the part after the last ` @ `), as first known in the file."""
    _name, at, pid = token.rpartition(" @ ")
    pid = pid if at and pid else token
    return aliases.get(pid, pid)


def _hero(rows: list[Row]) -> str | None:
    """The log owner's id: `Your hand is` names nobody, but the player who shows exactly those cards in a hand is
    its owner. Only when the file names one owner so (and never contradicts it) is the owner known."""
    aliases: dict[str, str] = {}
    found: set[str] = set()
    yours: frozenset[str] | None = None
    for row in rows:
        entry = row.entry
        if entry.startswith("-- starting hand #"):
            yours = None
        elif entry.startswith("Your hand is "):
            try:
                yours = frozenset(cards_of(entry[len("Your hand is "):], row.line))
            except Refusal:
                yours = None
        elif yours and entry.startswith('"') and entry.endswith(".") and '" shows a ' in entry:
            token, _, cards = entry[1:-1].rpartition('" shows a ')
            try:
                if frozenset(cards_of(cards, row.line)) == yours:
                    found.add(_id(token, aliases))
            except Refusal:
                pass
        else:
            m = ID_CHANGED.fullmatch(entry)
            if m:
                aliases[m["new"]] = aliases.get(m["old"], m["old"])
    return next(iter(found)) if len(found) == 1 else None


def _between(entry: str, session: Session, scale: int) -> None:
    """A row between hands (or an admin change inside one, which takes effect at the next hand)."""
    m = BLINDS_CHANGED.fullmatch(entry)
    if m:
        try:
            session.blinds[m["which"]] = parse_amount(m[3], scale)
            session.declared = True
        except (Refusal, ValueError):
            pass
        return
    m = ID_CHANGED.fullmatch(entry)
    if m:
        session.aliases[m["new"]] = session.aliases.get(m["old"], m["old"])


def _refuse(label: str, rows: list[Row], table: str, code: str, reason: str) -> Quarantined:
    m = START.fullmatch(rows[0].entry)
    hand_id = f"{table}#{m['n']}" if m else None
    return Quarantined(label, rows[0].line, reason, hand_id, code=code, table_id=table)


def _one(rows: list[Row], bad: list[tuple[int, str]], label: str, table: str, rule_pack: str, scale: int,
         session: Session, noted: set[str], limits: Limits) -> Iterator[Item]:
    """One hand's rows (start to end) read, or refused with its code and reason."""
    lo, hi = min(r.line for r in rows), max(r.line for r in rows)
    k = bisect_left(bad, (lo, ""))  # `bad` is in line order: the rows no row could be made of inside this hand
    if k < len(bad) and bad[k][0] <= hi:
        end = bisect_right(bad, (hi, "\U0010ffff"))
        first = bad[k][1]
        del bad[k:end]
        yield _refuse(label, rows, table, "damaged", first)
        return
    if sum(len(r.entry) for r in rows) > limits.room_max_hand_bytes:
        yield _refuse(label, rows, table, "limit", f"the hand is longer than room_max_hand_bytes "
                                                   f"({limits.room_max_hand_bytes})")
        return
    try:
        hand, applied = _Hand(rows, table, rule_pack, scale, session).read()
    except Refusal as refusal:
        yield _refuse(label, rows, table, refusal.code, refusal.reason)
        return
    except Exception as exc:  # a bug of ours, not the file's fault: this hand only, the file reads on
        yield _refuse(label, rows, table, "internal-error", f"the reader failed on this hand: "
                                                            f"{type(exc).__name__}: {exc}")
        return
    problem = schema_error(hand) or consistency_error(hand)
    if problem:
        yield _refuse(label, rows, table, "invalid-record", problem)
        return
    for code in applied:
        if code not in noted:
            noted.add(code)
            yield ReaderNote(label, rows[0].line, code, f"{ROOM}: {NOTES[code]}")
    yield SourceHand(hand, label, rows[0].line)


#: the conventions the reader applies, each said once per file where it applied
NOTES = {
    "stakes-from-posts": "the log declares no blinds before this hand (no `The game's big blind was changed` "
                         "line), so the table's blinds are those of the first hand in the file that posts both (a "
                         "later blind of another size is judged against them)",
    "all-in-capped-at-the-covered-stack": "`and go all in` is PokerNow's all-in button, which puts in no more than "
                                          "the largest other stack still in can match: such a bet or raise, its "
                                          "total exactly that stack's, leaves the bettor chips behind and is read "
                                          "as not all-in",
    "repeated-show-read-once": "a player all in who shows is logged showing again, the same cards, at the "
                               "showdown: the repeat is read as the one show it is (other cards would be kept)",
    "owner-cards-from-your-hand": "`Your hand is` names nobody: it is the cards of the log's owner, the one player "
                                  "of the file who shows exactly those cards in a hand, and they are read as that "
                                  "player's hole cards wherever the owner is dealt in",
    "dead-button-from-last-hand": "a `(dead button)` hand names no dealer: the button is put on the seat of the "
                                  "previous hand's small blind, empty now, as the dead-button rule moves it "
                                  "(else on the empty seat before the first blind)",
}


#: every card as the log writes it (`10♦`) -> its canonical two letters (`Td`)
CARDS = {r + u: RANKS[r] + SUITS[u] for r in ("10", "A", "K", "Q", "J", *map(str, range(2, 10))) for u in SUITS}


def cards_of(text: str, line: int) -> list[str]:
    """`A♣, 10♦` -> `["Ac", "Td"]`; anything else is damaged."""
    out = []
    for part in text.split(","):
        card = CARDS.get(part.strip())
        if card is None:
            raise Refusal("damaged", f"line {line}: {part.strip()[:20]!r} is no card")
        out.append(card)
    return out


def game_of(words: str) -> tuple[str, str]:
    """(variant, structure) of a start line's game words, or Refusal(`unsupported-game`)."""
    structure = next((s for w, s in STRUCTURES if words.startswith(w + " ")), None)
    for w, variant, why in GAMES:
        if w.lower() in words.lower():
            if variant is None:
                raise Refusal("unsupported-game", f"unsupported variant: {words} ({why})")
            if structure is None:
                raise Refusal("unsupported-game", f"unsupported betting structure: {words}")
            return variant, structure
    raise Refusal("unsupported-game", f"unsupported variant: {words}")


class _Hand:
    """The betting ledger of one hand read from its rows: who is in, what each put in, in the round and in all."""

    def __init__(self, rows: list[Row], table: str, rule_pack: str, scale: int, session: Session) -> None:
        self.rows, self.table, self.rule_pack, self.scale, self.session = rows, table, rule_pack, scale, session
        self.applied: list[str] = []
        self.events: list[dict[str, Any]] = []
        self.seat_of: dict[str, int] = {}
        self.player_of: dict[int, str] = {}
        self.stacks: dict[int, int] = {}
        self.left: dict[int, int] = {}
        self.put: dict[int, int] = {}
        self.round: dict[int, int] = {}
        self.folded: set[int] = set()
        self.dead = 0
        self.won: dict[int, int] = {}
        self.award_at: int | None = None
        self.dealt = False
        self.posts: dict[int, int] = {}
        self.yours: list[str] | None = None

    def amount(self, text: str) -> int:
        return parse_amount(text, self.scale)

    def seat(self, token: str, line: int) -> int:
        seat = self.seat_of.get(token)
        if seat is None:
            raise Refusal("damaged", f"line {line}: a player with no seat in the hand: {token[:60]!r}")
        return seat

    def read(self) -> tuple[dict[str, Any], list[str]]:
        start = START.fullmatch(self.rows[0].entry)
        assert start is not None
        self.variant, self.structure = game_of(start["game"].strip())
        body = self.rows[1:-1]
        if any(r.entry == RUN_TWICE or (BOARD.match(r.entry) and BOARD.match(r.entry)["second"]) for r in body):
            raise Refusal("unsupported-feature", "run it twice (the canonical log has one board)")
        if any(r.entry.endswith(BOMB) for r in body):
            raise Refusal("unsupported-feature", "a bomb pot (no canonical forced bet holds it)")
        stacks_row = next((r for r in body if r.entry.startswith("Player stacks: ")), None)
        if stacks_row is None:
            raise Refusal("truncated", "the hand has no `Player stacks:` line")
        self._seats(stacks_row)
        button = self._button(start, body)
        self.events.append({"kind": "button", "seat": button})
        self.button = button
        for row in body:
            if row is not stacks_row:
                self._line(row)
        self._deal()
        self._settle()
        self._shown_holes()
        hand = self._record(start)
        return hand, self.applied

    def _seats(self, row: Row) -> None:
        """`Player stacks: #1 "A @ x" (1000) | #3 ...`: cut at ` | ` where each piece is a whole seat (a name may
        hold ` | `). A piece is matched only once a part ends as a seat does, and then it is one (or cannot start as
        one, which fails at its first character): linear in the line, whatever it holds."""
        found: list[re.Match] = []
        piece: str | None = None
        for part in row.entry[len("Player stacks: "):].split(" | "):
            piece = part if piece is None else f"{piece} | {part}"
            m = SEAT.fullmatch(piece) if SEAT_END.search(part) else None  # a seat ends in its part: no rescan
            if m:
                found.append(m)
                piece = None
        if piece is not None or not found:
            raise Refusal("damaged", f"line {row.line}: a `Player stacks:` line not understood")
        for m in found:
            seat, token = (int(m[1]) if len(m[1]) < 4 else MAX_SEATS + 1), m[2]
            if not 1 <= seat <= MAX_SEATS:
                shown = m[1] if len(m[1]) < 8 else m[1][:6] + "..."
                raise Refusal("unsupported-feature", f"line {row.line}: seat {shown} (the log numbers seats 1..10)")
            if seat in self.player_of:
                raise Refusal("damaged", f"line {row.line}: seat {seat} listed twice")
            self.seat_of.setdefault(token, seat)
            self.player_of[seat] = self.identity(token)
            self.stacks[seat] = self.amount(m[3])
        self.left = dict(self.stacks)
        self.put = dict.fromkeys(self.stacks, 0)
        self.tokens = sorted(self.seat_of, key=len, reverse=True)

    def identity(self, token: str) -> str:
        """The player's id (the part after the last ` @ `), as first known in the file."""
        return _id(token, self.session.aliases)

    def _button(self, start: re.Match, body: list[Row]) -> int:
        if start["dealer"] is not None:
            return self.seat(start["dealer"], self.rows[0].line)
        self.applied.append("dead-button-from-last-hand")
        last = self.session.last_small_seat
        if last is not None and last not in self.player_of:
            return last
        seat = next((s for s, rest in map(self.split, (r.entry for r in body)) if s is not None and
                     POST.fullmatch(rest)), None)
        if seat is None:
            seat = min(self.player_of)
        for k in range(1, MAX_SEATS):
            empty = (seat - 1 - k) % MAX_SEATS + 1
            if empty not in self.player_of:
                return empty
        return seat

    def split(self, entry: str) -> tuple[int | None, str]:
        """(seat, the rest) of a line that starts with a seated player's `"Name @ id" `, matched against the hand's
        own players longest first (a name is never cut at its punctuation); (None, the line) otherwise."""
        if entry.startswith('"'):
            for token in self.tokens:
                if entry.startswith(token, 1) and entry.startswith('" ', 1 + len(token)):
                    return self.seat_of[token], entry[len(token) + 3:]
        return None, entry

    def _line(self, row: Row) -> None:
        entry, line = row.entry, row.line
        seat, rest = self.split(entry)
        if seat is not None:
            return self._played(seat, rest, row)
        m = BOARD.fullmatch(entry)
        if m:
            return self._board(m, line)
        m = UNCALLED.fullmatch(entry)
        if m:
            token = m["token"]
            seat = self.seat(token[1:-1] if len(token) > 1 and token[0] == token[-1] == '"' else token, line)
            amount = self.amount(m["amount"])
            self.put[seat] -= amount
            self.left[seat] += amount
            self.events.append({"kind": "return", "seat": seat, "amount": amount})
            return None
        if entry.startswith("Your hand is ") and self.session.hero in self.player_of.values():
            self.yours = cards_of(entry[len("Your hand is "):], line)
            return None
        if QUIET.match(entry):
            return None
        if entry.startswith('"'):
            raise Refusal("damaged", f"line {line}: a player with no seat in the hand, or a line not understood: "
                                     f"{entry[:80]!r}")
        raise Refusal("damaged", f"line {line}: a line the PokerNow reader does not know: {entry[:80]!r}")

    def _played(self, seat: int, rest: str, row: Row) -> None:
        """A seated player's line: a post, an action, a show, a collect, or the run-it-twice vote."""
        line = row.line
        m = POST.fullmatch(rest)
        if m:
            return self._post(seat, m, line)
        m = ACTION.fullmatch(rest) or PLAIN.fullmatch(rest)
        if m:
            self._deal()
            return self._act(seat, m, line)
        m = SHOW.fullmatch(rest)
        if m:
            show = {"kind": "show", "seat": seat, "cards": cards_of(m["cards"], line)}
            if show in self.events:  # PokerNow logs an all-in player's show again at the showdown: one show
                self.applied.append("repeated-show-read-once")
                return None
            self.events.append(show)
            return None
        m = COLLECT.fullmatch(rest)
        if m:
            self.won[seat] = self.won.get(seat, 0) + self.amount(m["amount"])
            if self.award_at is None:
                self.award_at = len(self.events)
            return None
        if CHOOSES.fullmatch(rest):
            return None
        raise Refusal("damaged", f"line {line}: a line the PokerNow reader does not know: {row.entry[:80]!r}")

    def _post(self, seat: int, m: re.Match, line: int) -> None:
        amount = self.amount(m["amount"])
        what = m["what"]
        e: dict[str, Any] = {"kind": "post", "seat": seat}
        if what in ("a small blind", "a big blind"):
            blind = 1 if what == "a small blind" else 2
            if blind in self.posts.values():
                e["post"] = "dead" if blind == 1 else "missed"
            else:
                e["post"], e["blind"] = "blind", blind
                self.posts[seat] = blind
        else:
            e["post"] = {"a straddle": "straddle", "an ante": "ante", "a missed big blind": "missed"}.get(what, "dead")
        e["amount"] = amount
        dead = e["post"] in ("ante", "dead")
        self._spend(seat, amount, e, line, m["all_in"] is not None, dead)
        if not dead:
            self.round[seat] = self.round.get(seat, 0) + amount
        self.events.append(e)

    def _spend(self, seat: int, amount: int, e: dict, line: int, marked: bool, dead: bool = False) -> None:
        """Chips the seat puts in; more than it has behind, or all-in with chips behind, cannot be placed."""
        if amount > self.left[seat]:
            raise Refusal("inconsistent-amounts", f"line {line}: seat {seat} puts in {amount} with "
                                                  f"{self.left[seat]} behind")
        self.left[seat] -= amount
        if dead:
            self.dead += amount
        else:
            self.put[seat] += amount
        if marked and self.left[seat] and not self._covers(seat, e):
            raise Refusal("inconsistent-amounts", f"line {line}: seat {seat} goes all in with {self.left[seat]} "
                                                  "behind")
        e["all_in"] = self.left[seat] == 0 and (amount > 0 or marked)

    def _covers(self, seat: int, e: dict) -> bool:
        """PokerNow's all-in button puts in no more than the largest other stack still in can match: a bet or
        raise `and go all in` with chips behind is read as not all-in where its total is exactly what that
        stack can reach in the round (the evidence); anywhere else it cannot be placed."""
        others = [self.round.get(s, 0) + self.left[s] for s in self.player_of
                  if s != seat and s not in self.folded and self.left[s] > 0]
        if e.get("kind") != "action" or not others or e.get("to") != max(others):
            return False
        self.applied.append("all-in-capped-at-the-covered-stack")
        return True

    def _deal(self) -> None:
        """The hole cards, dealt clockwise from the button's left, once the posts are made (the log shows no
        player's cards as dealt: `??`, the cards a player shows come with the show)."""
        if self.dealt:
            return
        self.dealt = True
        order = sorted(self.player_of, key=lambda s: (s - self.button - 1) % MAX_SEATS)
        n = HOLE_CARDS[self.variant]
        self.events.extend({"kind": "deal", "to": "hole", "seat": s, "cards": ["??"] * n} for s in order)
        self.order = order

    def _act(self, seat: int, m: re.Match, line: int) -> None:
        verb = m["verb"]
        e: dict[str, Any] = {"kind": "action", "seat": seat}
        if verb in ("folds", "checks"):
            e["action"] = "fold" if verb == "folds" else "check"
            if verb == "folds":
                self.folded.add(seat)
            self.events.append(e)
            return
        to = self.amount(m["amount"])
        before = self.round.get(seat, 0)
        if to <= before:
            raise Refusal("inconsistent-amounts", f"line {line}: seat {seat} {verb} {m['amount']}, no more than the "
                                                  f"{before} it has in the round")
        e.update(action={"calls": "call", "bets": "bet", "raises to": "raise"}[verb], amount=to - before, to=to)
        self._spend(seat, to - before, e, line, m["all_in"] is not None)
        self.round[seat] = to
        self.events.append(e)

    def _board(self, m: re.Match, line: int) -> None:
        self._deal()
        old = cards_of(m["old"].strip().rstrip(","), line) if m["old"].strip() else []
        board = [c for e in self.events if e["kind"] == "deal" and e["to"] == "board" for c in e["cards"]]
        if old != board:
            raise Refusal("damaged", f"line {line}: the {m['street']} line repeats another board than the one dealt")
        self.events.append({"kind": "deal", "to": "board", "cards": cards_of(m["new"], line)})
        self.round = {}

    def _shown_holes(self) -> None:
        """A player's hole cards are those they show (their first show of the game's number of cards): the log
        writes no deal, and a show is the dealt cards turned face up."""
        shows: dict[int, list[str]] = {}
        for e in self.events:
            if e["kind"] == "show" and len(e["cards"]) == HOLE_CARDS[self.variant]:
                shows.setdefault(e["seat"], e["cards"])
        hero = next((s for s, p in self.player_of.items() if p == self.session.hero), None)
        if self.yours is not None and hero is not None:  # the owner's own cards, as dealt: a show cannot undo them
            shows[hero] = self.yours
            self.applied.append("owner-cards-from-your-hand")
        for e in self.events:
            if e["kind"] == "deal" and e["to"] == "hole" and e["seat"] in shows:
                e["cards"] = list(shows[e["seat"]])

    def _settle(self) -> None:
        """The awards: each player's `collected` lines paid from the pots as a dealer pays them (the log names no
        pot), the last side pot first (`model.pots.attribute_winnings`)."""
        self._deal()
        if not self.won:
            raise Refusal("truncated", "the hand has no `collected` line")
        pots = build_pots(self.put, self.folded, self.dead)
        at = self.award_at if self.award_at is not None else len(self.events)
        if pots:
            awards, _, _ = attribute_winnings(pots, self.won, self.order)
        else:
            awards = [(0, s, w) for s, w in self.won.items()]
        self.events[at:at] = [{"kind": "award", "pot": p, "seat": s, "amount": a} for p, s, a in awards if a]
        small = next((s for s, b in self.posts.items() if b == 1), None)
        self.session.last_small_seat = small

    def _record(self, start: re.Match) -> dict[str, Any]:
        session = self.session
        posted = {b: next(e["amount"] for e in self.events if e.get("blind") == b) for b in (1, 2)
                  if any(e.get("blind") == b for e in self.events)}
        if session.declared and "big blind" in session.blinds:
            blinds = [session.blinds.get("small blind", 0), session.blinds["big blind"]]
        else:
            self.applied.append("stakes-from-posts")
            if session.learnt is None and 1 in posted and 2 in posted:
                session.learnt = [posted[1], posted[2]]  # the file's first two blinds: later hands are held to them
            blinds = session.learnt or [posted.get(1, 0), posted.get(2, 0)]
        stakes: dict[str, Any] = {"blinds": blinds, "chip_unit": 1}
        ante = session.blinds.get("ante", 0)
        if ante:
            stakes["ante"] = ante
        hand: dict[str, Any] = {"hand_id": f"{self.table}#{start['n']}", "table_id": self.table, "room": ROOM}
        at = self.rows[0].at
        if re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", at):
            hand["started_at"] = at
        hand.update(variant=self.variant, structure=self.structure, rule_pack=self.rule_pack)
        if self.scale != 1:
            hand["money_scale"] = self.scale
        hand.update(stakes=stakes, max_seats=MAX_SEATS,
                    seats=[{"seat": s, "player": self.player_of[s], "stack": self.stacks[s]}
                           for s in sorted(self.player_of)],
                    events=self.events)
        return hand
