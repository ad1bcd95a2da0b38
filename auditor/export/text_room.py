"""Canonical hands written as a text room's hand history: the room's dialect (`rooms/<room>.yaml`) run backwards.

Why one writer for every text room: `auditor verify --via ROOM` proves a room's reader by writing simulated
hands with one planted fault each in the room's text and auditing what the reader gives back. A writer of its
own per room would be one more description of the format to keep equal to the reader's; here the words are
the dialect's templates (the same ones the reader compiles) and only the order of statements is code.

What the text cannot carry, and how it is handled (the dialect names the room's own limits in `writes`):

- Hand ids are numbers: an id of digits is kept, any other becomes a number derived from it (`hand_number`:
  equal ids give equal numbers, so a repeated id stays repeated).
- Chips: a play-money or tournament hand is written in its own chip units (every amount divided by
  `stakes.chip_unit`), because the reader takes the smallest unit the text shows as the chip unit; a raked
  hand in other chips is refused (a rake schedule is in the log's own units, which that count would change).
  A cash hand is written in its money with the room's decimals and a one-cent chip.
- Rake: the room states one rake for the hand, in the summary: the rake events become their sum, read back as
  one `rake` event without a pot, after the awards.
- Burn cards and the events in `writes.unsayable` have no words: a burn is left out (`HIDDEN_CATEGORIES`
  names the category for verify), a hand with an unsayable event is not written.
- A hand the house killed (`kill`) is written as the room does (`P has timed out`, then `P: folds`) where the
  dialect's `room_folds` convention is `kill`; a fold by a player the text shows absent or without chips
  behind then cannot be the player's own, and such a hand is not written.

A writer never judges: an illegal action is written as the room would have printed it (a check facing a bet
is `checks`, an action after a fold is one more line), so the reader records it and a rule reports it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from auditor.export.game_checks import game_problem
from auditor.ingest.dialect import Dialect, Money, dialect
from auditor.model.pots import attribute_winnings, build_pots

__all__ = ["RoomWriter", "hand_number", "room_writer"]

#: the chip unit (in the log's integer amounts) a text room's reader takes, since the text states none: a hand
#: in other chips is written counted in its own unit, which keeps split pots but not a raked hand (verify
#: simulates a share of its tables in this unit, so a raking pack's rake is measured)
IMPLIED_CHIP_UNIT = 1


def hand_number(hand_id: str) -> str:
    """The room's hand number for a canonical id: the id itself when it is digits, else a number derived from
    it (64 bits of BLAKE2b), so equal ids stay equal and different ids stay different."""
    if hand_id.isascii() and hand_id.isdigit() and len(hand_id) <= 30:
        return hand_id
    digest = hashlib.blake2b(hand_id.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return str(int.from_bytes(digest, "big"))


def room_writer(room: str) -> RoomWriter:
    """The writer of the room with dialect `room` (KeyError if there is none)."""
    try:
        return RoomWriter(dialect(room))
    except FileNotFoundError as exc:
        raise KeyError(room) from exc


class RoomWriter:
    """A text room's writer (the interface `auditor.export` documents), from its dialect."""

    IMPLIED_CHIP_UNIT = IMPLIED_CHIP_UNIT

    def __init__(self, spoken: Dialect) -> None:
        self.dialect = spoken
        self.SUFFIX = spoken.data["suffix"]
        self.HIDDEN_CATEGORIES = dict(spoken.data["writes"]["hidden_categories"])
        self.unsayable = dict(spoken.data["writes"]["unsayable"])
        syntax = spoken.syntax
        self.games = {g["variant"]: g["name"] for g in reversed(syntax["games"]) if "variant" in g}
        self.limits: dict[str, str] = {}
        for words, structure in syntax["structures"].items():
            if isinstance(structure, str):
                self.limits[structure] = words  # the last name of a structure is the one the room prints
        self.streets = syntax["streets"]
        self.zone = ZoneInfo(syntax["time"]["zones"][syntax["time"]["written_zone"]])
        self.kills = spoken.convention("room_folds") == "kill"
        self.ways = _Ways.of(spoken)
        #: the header states no stakes: the reader takes them from the posts (`stakes_written: posted`)
        self.stakes_posted = spoken.convention("stakes_written") == "posted"
        #: the button's line names the player on it (`Dealer : Set dealer [3]`): no words for an empty button seat
        self.button_named = "button" in spoken.lines and "player" in spoken.lines["button"].pattern.groupindex
        #: players are written by their position and read back named by seat (`players_named: by_position`)
        self.names_by_seat = spoken.convention("players_named") == "by_position"
        #: a show writes no cards: it tables the cards the player was dealt (`Showdown [best five] (One pair)`)
        self.shows_dealt = "cards" not in spoken.lines["show"].pattern.groupindex
        self.line_kinds = frozenset(spoken.lines)
        #: the line between hands (`recognise.separator`), which a line beginning with a name must not read as
        self.separator = re.compile(spoken.data["recognise"]["separator"]) if "separator" in spoken.data["recognise"] \
            else None

    hand_number = staticmethod(hand_number)

    # -- what the text can hold ----------------------------------------------------------------------------

    def _expected_stakes(self, hand: dict) -> dict[str, Any]:
        """The stakes the room's reader derives from the text this writer prints for `hand`."""
        stakes = hand["stakes"]
        unit = stakes["chip_unit"]
        out: dict[str, Any] = {}
        if hand["structure"] == "fixed-limit":
            units = stakes.get("bet_units") or []
            small, big = (units[0], units[-1]) if units else (0, 0)
            sb = next((e["amount"] for e in hand["events"] if e["kind"] == "post" and e["post"] == "blind"
                       and e.get("blind") == 1 and not e.get("all_in")), None)
            if sb is None:  # the reader halves the small bet, counted in the chips the text shows
                sb = (small // unit) // 2 * unit
            out["blinds"] = [sb, small]
            out["bet_units"] = [small, big] if hand["variant"] == "five-card-draw" else [small, small, big, big]
        elif self.stakes_posted:  # the first small and big blinds posted in full, or half the big blind
            posts = [e for e in hand["events"] if e["kind"] == "post" and e["post"] == "blind" and not e.get("all_in")]
            big = next((e["amount"] for e in posts if e.get("blind") == 2), None)
            sb = next((e["amount"] for e in posts if e.get("blind") == 1), None)
            out["blinds"] = [sb if sb is not None else (big or 0) // 2, big]
        else:
            out["blinds"] = list(stakes.get("blinds", []))
        antes = [e["amount"] for e in hand["events"] if e["kind"] == "post" and e["post"] == "ante"]
        if antes:
            out["ante"] = max(antes)
        out["chip_unit"] = unit
        return out

    def cannot_express(self, hand: dict) -> str | None:
        """Why the room's text cannot hold `hand`, or None when it can (see the module docstring)."""
        room = self.dialect.title
        problem = game_problem(room, "text", hand, self.games, self.limits,
                               self.dialect.syntax["amount"]["cash_places"])
        if problem:
            return problem
        stakes = hand["stakes"]
        expected = self._expected_stakes(hand)
        if {k: v for k, v in stakes.items() if k in expected} != expected or set(stakes) != set(expected):
            return (f"the stakes {stakes} are not what {room} text states ({expected}: "
                    + ("it writes no stakes, and its reader takes the blinds posted in full)" if self.stakes_posted else
                       "a limit header gives the bets, the small blind is read from its post and the ante from the "
                       "antes posted)"))
        return (self._names_problem(hand) or self._events_problem(hand) or self._order_problem(hand)
                or self._posts_problem(hand) or self._amounts_problem(hand) or self._conventions_problem(hand))

    def _conventions_problem(self, hand: dict) -> str | None:
        """What the room's conventions leave its text unable to tell apart: an uncalled bet kept in the pot
        from one paid back with the pot (a room writing no return), a player dealt in who never acts from one
        sitting out (a room marking neither)."""
        room, events = self.dialect.title, hand["events"]
        if self.dialect.convention("uncalled_return") == "in_the_award":
            returns = sum(e["amount"] for e in events if e["kind"] == "return")
            if not returns and _unmatched(events)[1] > 0:
                return (f"an uncalled bet kept in the pot: {room} pays an uncalled bet back with the pot and writes "
                        "no return, so its text cannot tell a bet kept from one returned")
            put = sum(e.get("amount", 0) for e in events if e["kind"] in ("post", "action"))
            if returns and put - returns != sum(e["amount"] for e in events if e["kind"] in ("award", "rake")):
                return (f"an uncalled bet returned in a hand whose chips do not balance: {room} pays the bet back "
                        "with the pot, and its reader takes the return out of the award only where the chips do")
        if self.dialect.convention("uncalled_return") in ("not_written", "paid_as_a_pot", "not_written_nor_awarded"):
            returns = [e for e in events if e["kind"] == "return"]
            bettor, unmatched = _unmatched(events, folded_too=True)
            if sum(e["amount"] for e in returns) != unmatched or len(returns) > 1 or (
                    returns and returns[0]["seat"] != bettor):
                return (f"an uncalled bet kept, or a return other than the unmatched part of the last bet: {room} "
                        "writes no return, and its reader returns that part")
        if self.dialect.convention("rake_line") == "not_written":
            put = sum(e.get("amount", 0) for e in events if e["kind"] in ("post", "action"))
            kept = put - sum(e["amount"] for e in events if e["kind"] in ("return", "award"))
            rake = sum(e["amount"] for e in events if e["kind"] == "rake")
            if kept != rake and not (kept < 0 and rake == 0):  # (awards above the chips in stay to be seen)
                return (f"chips put in that were neither paid out nor raked, or a rake other than those chips: "
                        f"{room} writes no rake, and its reader takes the chips not paid out for the rake")
        if "pot" not in self.dialect.lines["collect"].pattern.groupindex and not _paid_as_attributed(hand):
            return (f"awards other than the pots pay them as a dealer would: {room} names no pot in its award lines, "
                    "and its reader pays each player's winnings from the pots the player can win, the last first")
        if "cards" in self.dialect.lines["muck"].pattern.groupindex and any(
                e["kind"] == "muck" and "??" in next((d["cards"] for d in events if d["kind"] == "deal"
                                                      and d["to"] == "hole" and d["seat"] == e["seat"]), ["??"])
                for e in events):
            return f"a muck of hole cards the log does not know: {room} writes a muck with the cards mucked"
        if self.ways.big_blind_first and _big_blind_first_heads_up(hand):
            return (f"heads-up, the big blind posted before the small blind: {room} writes a heads-up hand's big "
                    "blind first, and its reader reads the two as posted small blind first")
        if self.dialect.convention("all_in_marker") == "none" and _all_in_behind(hand):
            return f"a post or action called all-in that leaves chips behind: {room} writes no all-in mark"
        if "status" not in self.dialect.lines["seat"].pattern.groupindex and \
                self.dialect.convention("folds_before_the_deal") != "sitting_out" and \
                any(s.get("status") == "sitting_out" for s in hand["seats"]):
            return f"a player sitting out: {room} marks none in its seat lines"
        if self.dialect.convention("silent_seats") == "sitting_out":
            named = {e.get("seat") for e in events if not (e["kind"] == "deal" and e["to"] == "hole")}
            cash = hand.get("currency") is not None
            if cash and any(e["kind"] == "deal" and e["to"] == "hole" and e["seat"] not in named for e in events):
                return (f"a player dealt in who never acts: {room} marks no player sitting out, so its text cannot "
                        "tell that player from one sitting out")
            if any(s.get("status") == "sitting_out" and (not cash or s["seat"] in named) for s in hand["seats"]):
                return (f"a player sitting out who is named in the hand, or at a tournament: {room} marks no player "
                        "sitting out, so its text tells one only by the silence of a cash seat")
        return None

    def _names_problem(self, hand: dict) -> str | None:
        """A table or player name the room's lines cannot keep: the reader splits lines on CR and LF, cuts
        blanks and byte-order marks at both ends of a line, and reads `*** ... ***` lines (the room's marker) as
        markers."""
        for what, name in [("table", hand["table_id"])] + [("player", s["player"]) for s in hand["seats"]]:
            if "\n" in name or "\r" in name:
                return f"{what} {name!r} holds a line break"
            if name != name.strip(" \t\ufeff"):
                return f"{what} {name!r} starts or ends in a blank, which the room's lines do not keep"
            marker = self.dialect.lines["marker"]
            if name.startswith(marker.lead) if marker.lead else marker.pattern.fullmatch(f"{name}  Check"):
                return f"{what} {name!r} reads as a street marker"
            if self.separator is not None and self.separator.match(f"{name}  Check"):
                return f"{what} {name!r} begins as the line between hands does"
            try:
                name.encode("utf-8")
            except UnicodeEncodeError:
                return f"{what} {name!r} is not valid Unicode text"
        room = self.dialect.title
        if len({s["player"] for s in hand["seats"]}) < len(hand["seats"]):
            return (f"one player name in two seats: {room} lines name the player, not the seat, so the text "
                    "cannot say which of the two seats acts")
        if any(s.get("status", "active") not in ("active", "sitting_out") for s in hand["seats"]):
            return f"{room} marks an absent seat only as sitting out (no 'new' or 'away')"
        return None

    def _events_problem(self, hand: dict) -> str | None:
        room = self.dialect.title
        unit = hand["stakes"]["chip_unit"]
        events = hand["events"]
        unsayable = next((e["kind"] for e in events if e["kind"] in self.unsayable), None)
        if unsayable:
            return f"{room} text has no words for {self.unsayable[unsayable]}"
        if hand["variant"] != "five-card-draw" and any(e["kind"] == "draw" for e in events):
            return f"{room} text has no draw street in {hand['variant']} (its reader refuses one as damaged)"
        if not events or events[0]["kind"] != "button" or sum(e["kind"] == "button" for e in events) != 1:
            return f"{room} names one button, before the hand starts"
        if self.button_named and not any(s["seat"] == events[0]["seat"] for s in hand["seats"]):
            return f"{room} names the button by the player on it, so a button on an empty seat has no words"
        if self.shows_dealt:
            dealt = {e["seat"]: e["cards"] for e in events if e["kind"] == "deal" and e.get("to") == "hole"}
            if any(e["kind"] == "show" and e.get("cards") != dealt.get(e["seat"]) for e in events):
                return f"{room} writes a show as the tabling of the cards dealt, so other cards shown have no words"
        for e in events:
            if e["kind"] == "post" and e["post"] == "blind" and e.get("blind") not in (1, 2):
                return f"{room} has no third blind"
            for key in ("amount", "to") if e["kind"] == "action" else ("amount",):
                if key in e and e[key] % unit:
                    return f"an amount ({e[key]}) that is not a whole number of chips of {unit}"
            if e["kind"] == "deal" and e["to"] != "burn":
                cards = e["cards"]
                if e["to"] == "board" and "??" in cards:
                    return f"a community card whose face the log does not know ({room} prints every board card)"
                if e["to"] == "hole" and "??" in cards and len(set(cards)) > 1:
                    return f"hole cards partly known ({room} prints a hand whole or not at all)"
            if e["kind"] == "draw" and "??" in e["receive"] and len(set(e["receive"])) > 1:
                return "drawn cards partly known"
        if any(s["stack"] % unit for s in hand["seats"]):
            return f"a stack that is not a whole number of chips of {unit}"
        if unit != 1 and any(e["kind"] == "rake" for e in events):
            return (f"a raked hand in chips of {unit}: {room} text states no chip unit, so this writer counts "
                    "chips in the hand's unit, which would move the rake against a schedule in the log's own units")
        boards = sum(e["kind"] == "deal" and e["to"] == "board" for e in events)
        if boards > len(self.streets):
            return f"{boards} community-card deals ({room} names {len(self.streets)}: {', '.join(self.streets)})"
        return None

    def _order_problem(self, hand: dict) -> str | None:
        """The reader places the hole cards at the hole-cards marker, after the posts and clockwise from the
        button, dealing every seat not sitting out (a sitting-out player who posts is dealt in)."""
        room = self.dialect.title
        events = hand["events"]
        i = 1
        while i < len(events) and events[i]["kind"] == "post":
            i += 1
        start = i
        while i < len(events) and events[i]["kind"] == "deal" and events[i]["to"] == "hole":
            i += 1
        dealt = [e["seat"] for e in events[start:i]]
        if any(e["kind"] == "deal" and e["to"] == "hole" for e in events[i:]):
            return f"hole cards dealt after the betting began ({room} deals them all at once)"
        if any(e["kind"] == "post" for e in events[i:]):
            return f"a post after the cards were dealt ({room} prints the posts before the hole cards)"
        if not dealt:
            return "nobody was dealt in"
        posted = {e["seat"] for e in events[1:start]}
        live = {s["seat"] for s in hand["seats"] if s.get("status", "active") != "sitting_out" or s["seat"] in posted}
        if not live <= set(dealt):
            return f"a seat neither sitting out nor dealt in ({room} deals every seat not sitting out)"
        if len(set(dealt)) != len(dealt):
            return "a seat dealt two hands"
        return None

    def _posts_problem(self, hand: dict) -> str | None:
        """Posts the reader can tell apart: a made-up big blind reads as a big blind post only after the
        table's big blind posted, a dead small blind as a small blind post only after the small blind, and
        both together as one post of both blinds."""
        room = self.dialect.title
        events = hand["events"]
        bb = hand["stakes"]["blinds"][1]
        seen = {1: False, 2: False}
        i = 1
        while i < len(events) and events[i]["kind"] == "post":
            e = events[i]
            nxt = events[i + 1] if i + 1 < len(events) else {}
            both = e["post"] == "missed" and nxt.get("kind") == "post" and nxt.get("post") == "dead" \
                and nxt["seat"] == e["seat"]
            needs = "post_both_blinds" if both else _POSTS[{"blind": "small blind" if e.get("blind") == 1 else
                                                            "big blind", "missed": "big blind",
                                                            "dead": "small blind"}.get(e["post"], e["post"])]
            if needs not in self.line_kinds:
                return f"{room} text has no words for a post of {needs.removeprefix('post_').replace('_', ' ')}"
            if e["post"] == "blind":
                if seen[e["blind"]]:
                    return f"blind {e['blind']} posted twice"
                seen[e["blind"]] = True
            elif e["post"] == "missed":
                if nxt.get("kind") == "post" and nxt.get("post") == "dead" and nxt["seat"] == e["seat"]:
                    if e["amount"] != bb:
                        return f"a made-up blind and dead money that {room} would print as one post of both blinds"
                    i += 1
                elif not seen[2]:
                    return f"a made-up big blind posted before the big blind ({room} would read it as the big blind)"
            elif e["post"] == "dead" and not seen[1]:
                return f"dead money posted before the small blind ({room} would read it as the small blind)"
            i += 1
        return None

    def _amounts_problem(self, hand: dict) -> str | None:
        """The room states a call's and a bet's chips, a raise's round total: an action whose total and chips
        added disagree (one of them wrong in the log) has no words. And where the room's folds are kills, the
        reader takes a fold by a seat with no chips behind, or listed as sitting out, or timed out, for the room
        killing the hand: such a fold cannot be the player's own in this text."""
        room = self.dialect.title
        round_in: dict[int, int] = {}
        first_draw = True
        left = {s["seat"]: s["stack"] for s in hand["seats"]}
        posted = {e["seat"] for e in hand["events"] if e["kind"] == "post"}
        absent = {s["seat"] for s in hand["seats"] if s.get("status") == "sitting_out" and s["seat"] not in posted}
        for e in hand["events"]:
            kind = e["kind"]
            if kind in ("post", "action") and "amount" in e:
                left[e["seat"]] = left.get(e["seat"], 0) - e["amount"]
            elif kind == "return":
                left[e["seat"]] = left.get(e["seat"], 0) + e["amount"]
            elif kind == "kill":
                absent.add(e["seat"])
            if self.kills and kind == "action" and e["action"] == "fold" \
                    and (left.get(e["seat"]) == 0 or e["seat"] in absent):
                return (f"a fold by a player with no chips behind or shown absent: {room} text reads it as the "
                        "room killing the hand")
            if kind == "action" and e["action"] in ("call", "bet", "raise"):
                absent.discard(e["seat"])
            if kind == "deal" and e["to"] == "board":
                round_in = {}
            elif kind == "draw" and first_draw:
                first_draw = False
                round_in = {}
            elif kind == "post" and e["post"] in ("blind", "straddle", "missed"):
                round_in[e["seat"]] = round_in.get(e["seat"], 0) + e["amount"]
            elif kind == "return":
                round_in[e["seat"]] = round_in.get(e["seat"], 0) - e["amount"]
            elif kind == "action" and e["action"] in ("call", "bet", "raise"):
                before = round_in.get(e["seat"], 0)
                if e["to"] - before != e["amount"]:
                    return (f"an action's round total disagrees with the chips it added: {room} text gives its "
                            "reader one of the two numbers (a raise stating both is read by its total)")
                round_in[e["seat"]] = e["to"]
        return None

    # -- writing ---------------------------------------------------------------------------------------------

    def money(self, hand: dict) -> Money:
        """Amounts as the text shows them: chips counted in the hand's chip unit, or money in cents."""
        currency = hand.get("currency")
        if currency:
            return self.dialect.money(currency, self.dialect.syntax["amount"]["cash_places"])
        unit = hand["stakes"]["chip_unit"]
        return Money("", 0, unit)

    def stamp(self, started_at: str | None) -> str | None:
        """The start in the room's own clock and words (`2024/01/01 0:13:30 ET`)."""
        if not started_at:
            return None
        try:
            moment = datetime.fromisoformat(started_at)
        except ValueError:
            return None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        local = moment.astimezone(self.zone)
        time = self.dialect.syntax["time"]
        month = time["months"][local.month - 1] if "months" in time else f"{local.month:02d}"
        weekday = time["weekdays"][local.weekday()] if "weekdays" in time else ""
        return self.dialect.time.write({
            "year": f"{local.year:04d}", "month": month, "weekday": weekday, "day": f"{local.day:02d}", "sep": " ",
            "hour": f"{local.hour:0{time.get('hour_digits', 1)}d}", "minute": f"{local.minute:02d}",
            "second": f"{local.second:02d}", "zoned": True,
            "zone": self.dialect.syntax["time"]["written_zone"]})

    def format_hand(self, hand: dict) -> list[str]:
        """The lines of one hand (call only when `cannot_express` said None)."""
        return _Hand(self, hand).lines()

    def write_hands(self, hands: Iterable[dict], path: str | Path) -> int:
        """Write the hands (each one `cannot_express` accepts) to one file of the room's text, in order,
        separated by blank lines as the room does; returns how many were written. UTF-8, no byte-order mark."""
        count = 0
        with open(path, "w", encoding="utf-8", newline="\n") as stream:
            for hand in hands:
                problem = self.cannot_express(hand)
                if problem:
                    raise ValueError(f"hand {hand.get('hand_id')!r} cannot be written as {self.dialect.title} text: "
                                     f"{problem}")
                if count:
                    stream.write("\n\n")
                stream.write("\n".join(self.format_hand(hand)) + "\n")
                count += 1
        return count

    # -- how the reader gives the hand back ------------------------------------------------------------------

    def event_index(self, hand: dict) -> list[int | None]:
        """For each event of `hand`, its index in the hand read back from the text (None for a burn, which the
        room does not print; hole deals in the reader's order): how verify finds a planted event in what the
        reader gives back."""
        return _read_order(hand, inverse=True)

    def carried(self, hand: dict) -> dict:
        """`hand` as the room's reader should give it back from this writer's text: what the format carries.

        The id becomes its hand number, the room the dialect's title, a player named by position its seat (`Seat
        3`), the time whole seconds in the room's
        written zone, chips of a play-money hand count in its chip unit (chip_unit 1), burns and event times go,
        an all-in is marked on every post or action that leaves the seat without chips, a seat's status is
        kept only when sitting out and not posting, and `money_scale` is the room's. The rule pack is kept.
        """
        unit = 1 if hand.get("currency") else hand["stakes"]["chip_unit"]
        posted = {e["seat"] for e in hand["events"] if e["kind"] == "post"}
        out: dict[str, Any] = {"hand_id": hand_number(hand["hand_id"]), "table_id": hand["table_id"],
                               "room": self.dialect.title}
        if self.stamp(hand.get("started_at")):
            moment = datetime.fromisoformat(hand["started_at"])
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=UTC)
            out["started_at"] = moment.astimezone(self.zone).replace(microsecond=0).isoformat()
        out.update(variant=hand["variant"], structure=hand["structure"])
        if hand.get("currency"):
            out["currency"] = hand["currency"]
        out["money_scale"] = 10 ** self.dialect.syntax["amount"]["cash_places"] if hand.get("currency") else 1
        stakes = {k: ([x // unit for x in v] if isinstance(v, list) else v // unit)
                  for k, v in self._expected_stakes(hand).items()}
        stakes["chip_unit"] = 1
        out["stakes"] = stakes
        # (a room whose table line says no size: the reader's table of `default_max_seats`, or of the highest seat)
        out["max_seats"] = hand["max_seats"] if "max_seats" in self.dialect.header["table"].pattern.groupindex else \
            max(self.dialect.data["writes"]["default_max_seats"], *(s["seat"] for s in hand["seats"]))
        out["rule_pack"] = hand["rule_pack"]
        seats = []
        left: dict[int, int] = {}
        for s in sorted(hand["seats"], key=lambda s: s["seat"]):
            entry: dict[str, Any] = {"seat": s["seat"], "player": f"Seat {s['seat']}" if self.names_by_seat
                                     else s["player"], "stack": s["stack"] // unit}
            if s.get("status") == "sitting_out" and s["seat"] not in posted:
                entry["status"] = "sitting_out"
            seats.append(entry)
            left[s["seat"]] = s["stack"]
        events: list[dict | None] = []
        for e in hand["events"]:
            if e["kind"] == "deal" and e["to"] == "burn":
                events.append(None)
                continue
            c = {k: v for k, v in e.items() if k not in ("t", "all_in")}
            if e["kind"] in ("post", "action") and "amount" in e:
                left[e["seat"]] -= e["amount"]
                if e.get("all_in") or left[e["seat"]] == 0:
                    c["all_in"] = True
            elif e["kind"] == "return":
                left[e["seat"]] += e["amount"]
            for key in ("amount", "to") if e["kind"] == "action" else ("amount",):
                if key in c:
                    c[key] //= unit
            events.append(c)
        out["seats"] = seats
        out["events"] = [events[i] for i in _read_order(hand)]
        if "dealt" not in self.dialect.lines:
            _hole_cards_shown(out["events"], "cards" in self.dialect.lines["muck"].pattern.groupindex)
        if any(e["kind"] == "rake" for e in out["events"]):  # one rake for the hand, from no pot in particular
            out["events"][-1] = {"kind": "rake",
                                 "amount": sum(e["amount"] for e in events if e and e["kind"] == "rake")}
        return out


def _deal_order(hand: dict) -> list[int]:
    """The hole deals of `hand` (event indices) in the order the reader lists them: the text prints no order
    of dealing, so the reader deals clockwise from the button, then any seat dealt while sitting out."""
    events = hand["events"]
    button = events[0]["seat"]
    posted = {e["seat"] for e in events if e["kind"] == "post"}
    live = {s["seat"] for s in hand["seats"] if s.get("status", "active") != "sitting_out" or s["seat"] in posted}
    deals = [i for i, e in enumerate(events) if e["kind"] == "deal" and e["to"] == "hole"]
    return sorted(deals, key=lambda i: (events[i]["seat"] not in live, (events[i]["seat"] - button - 1) % 10))


def _read_order(hand: dict, inverse: bool = False) -> list:
    """The canonical event indices in the order the reader gives the events back (burns dropped, hole deals in
    dealing order, the rake once and last); with `inverse`, for each canonical event its index read back (a
    second rake event has none: the text states their sum)."""
    events = hand["events"]
    slots = iter(_deal_order(hand))
    order = []
    for i, e in enumerate(events):
        if (e["kind"] == "deal" and e["to"] == "burn") or e["kind"] == "rake":
            continue
        order.append(next(slots) if e["kind"] == "deal" and e["to"] == "hole" else i)
    order += [i for i, e in enumerate(events) if e["kind"] == "rake"][:1]
    if not inverse:
        return order
    back: list[int | None] = [None] * len(events)
    for k, i in enumerate(order):
        back[i] = k
    return back


_POSTS = {"small blind": "post_small_blind", "big blind": "post_big_blind", "both": "post_both_blinds",
          "straddle": "post_straddle", "ante": "post_ante"}


class _Hand:
    """One hand being written: the statements in the order the room prints them, each by its template."""

    def __init__(self, writer: RoomWriter, hand: dict) -> None:
        self.writer, self.hand = writer, hand
        self.line = writer.dialect.lines
        self.money = writer.money(hand)
        self.currency = hand.get("currency")
        self.seats = {s["seat"]: s for s in hand["seats"]}
        self.name = {n: s["player"] for n, s in self.seats.items()}
        self.left = {n: s["stack"] for n, s in self.seats.items()}
        self.out: list[str] = []

    def say(self, kind: str, **values: Any) -> None:
        # (the currency's code, where a room writes it after cash amounts: `[$0.05 USD]`)
        self.out.append(self.line[kind].write({"coded": self.currency is not None, "currency": self.currency,
                                               **values}, self.money))

    def lines(self) -> list[str]:
        writer, hand, say = self.writer, self.hand, self.say
        events = hand["events"]
        self.head()
        round_in: dict[int, int] = {}
        hand_now: dict[int, list[str]] = {}
        put_in = 0
        button = events[0]["seat"]
        roles: dict[int, list[str]] = {button: ["button"]}
        folded: dict[int, int] = {}
        streets = 0
        drawn = False
        shown: dict[int, list[str]] = {}
        mucked: set[int] = set()
        won: dict[int, int] = {}
        side_pots = any(e["kind"] == "award" and e["pot"] > 0 for e in events)
        board: list[str] = []
        last_play = max((i for i, e in enumerate(events) if e["kind"] in ("action", "draw", "kill")
                         or (e["kind"] == "deal" and e["to"] == "board")), default=0)
        contested = len({e["seat"] for e in events if e["kind"] == "deal" and e["to"] == "hole"}
                        - {e["seat"] for e in events if e.get("action") == "fold" or e["kind"] == "kill"}) > 1
        hole_written = False
        ways = writer.ways
        late_deal, late_return, unwritten_return, as_a_pot = (ways.late_deal, ways.late_return,
                                                              ways.unwritten_return, ways.as_a_pot)
        no_summary, marked = ways.no_summary, ways.marked
        # a return paid with the bettor's award: always, or where no rake is taken (as a walk's big blind is paid)
        returns_in_award = ways.returns_in_award or (ways.in_award_unraked
                                                     and not any(e["kind"] == "rake" for e in events))
        pot_returns: list[dict] = []
        showdown_at = next((i for i, e in enumerate(events) if i > last_play and (
            e["kind"] in ("show", "muck") or ((contested or no_summary) and e["kind"] == "award"))), None)
        out_folds = _out_folds(hand) if ways.folds_out else []
        summary_awards = ways.summary_awards and not contested
        held: list[dict] = []
        # an uncalled bet paid with the bettor's award from the highest pot it won, no line of its own
        # (`uncalled_return: in_the_award`)
        in_award: dict[int, int] = {}
        paid = {e["seat"]: i for i, e in sorted(enumerate(events), key=lambda x: x[1].get("pot", -1))
                if e["kind"] == "award"}
        skip = False
        pots = writer.dialect.syntax["pots"]
        for i, e in enumerate(events[1:], 1):
            if skip:
                skip = False
                continue
            kind = e["kind"]
            if i == showdown_at:
                if marked:
                    say("show_down")
                for r in held:
                    say("uncalled", amount=r["amount"], player=self.name[r["seat"]])
                held = []
            seat = e.get("seat")
            if kind == "post":
                nxt = events[i + 1] if i + 1 < len(events) else {}
                skip = e["post"] == "missed" and nxt.get("kind") == "post" and nxt.get("post") == "dead" \
                    and nxt["seat"] == seat  # a made-up big blind and dead money: one post of both blinds
                what = self.post(e, nxt["amount"] if skip else None, round_in, roles)
                if late_deal and what != "ante" and not hole_written:  # the room writes its blinds after it
                    say("hole_cards")
                    hole_written = True
                put_in += e["amount"] + (nxt["amount"] if skip else 0)
            elif kind == "deal" and e["to"] == "hole":
                for out in out_folds:
                    say("fold", player=self.name[out])
                out_folds = []
                if not hole_written:
                    self.deal_marker(button)
                    hole_written = True
                if "??" not in e["cards"]:
                    hand_now[seat] = list(e["cards"])
                    if "dealt" in self.line:  # (a room that prints no hole cards: only those shown)
                        say("dealt", player=self.name[seat], cards=e["cards"])
            elif kind == "deal" and e["to"] == "board":
                street = writer.streets[streets]
                if board:
                    say("next_board", street=street, board=board, cards=e["cards"])
                else:
                    say("first_board", street=street, cards=e["cards"])
                board += e["cards"]
                streets += 1
                round_in = {}
            elif kind == "deal":  # a burn: the room prints none
                continue
            elif kind == "kill":  # the room folds for a player who did not act in time
                folded.setdefault(seat, streets + (1 if drawn else 0))
                say("timed_out", player=self.name[seat])
                say("fold", player=self.name[seat])
            elif kind == "action":
                verb = e["action"]
                who = self.name[seat]
                if verb == "fold":
                    folded.setdefault(seat, streets + (1 if drawn else 0))
                    say("fold", player=who)
                elif verb == "check":
                    say("check", player=who)
                else:
                    put_in += self.bet(e, round_in)
            elif kind == "draw":
                if not drawn:
                    say("draw_round", street=writer.dialect.syntax["draws"][0])
                    drawn = True
                    round_in = {}
                self.draw(e, hand_now)
            elif kind == "show":
                shown[seat] = list(e["cards"])
                # (a room that writes the showdown's cards in the seat's result line: its stack after the hand and
                # its net result, `Seat 8: P ($350.06), net: +$113.91, [Kc, Kh]`)
                say("show", player=self.name[seat], cards=e["cards"], seat=seat, **self.result(seat))
            elif kind == "muck":
                mucked.add(seat)
                say("muck", player=self.name[seat], cards=hand_now.get(seat))  # (where the room shows them)
            elif kind == "return":
                round_in[seat] = round_in.get(seat, 0) - e["amount"]
                self.left[seat] += e["amount"]
                put_in -= e["amount"]
                if returns_in_award and seat in paid:
                    in_award[seat] = in_award.get(seat, 0) + e["amount"]
                    continue
                if late_return and showdown_at is not None and i < showdown_at and any(
                        x["kind"] == "deal" and x["to"] == "board" for x in events[i:showdown_at]) and not any(
                        x["kind"] == "action" for x in events[i:showdown_at]):
                    held.append(e)
                    continue
                if as_a_pot:  # a bettor paid nothing else: the return is a pot of its own, with the awards
                    pot_returns.append(e)
                elif not unwritten_return:
                    say("uncalled", amount=e["amount"], player=self.name[seat])
            elif kind == "award":
                for r in pot_returns:
                    say("collect", player=self.name[r["seat"]], amount=r["amount"], pot=pots["side"], numbered=True,
                        side=1)
                pot_returns = []
                amount = e["amount"] + (in_award.pop(seat, 0) if paid.get(seat) == i else 0)
                won[seat] = won.get(seat, 0) + amount
                if summary_awards:
                    continue
                pot = (pots["main"] if side_pots else pots["only"]) if e["pot"] == 0 else pots["side"]
                # (the pot's total before the rake, where the room writes it before the award: `Main pot:
                # $229.82 won by P ($226.82)`)
                say("collect", player=self.name[seat], amount=amount, pot=pot, numbered=e["pot"] > 0,
                    side=e["pot"], pot_name=pot + (f" {e['pot']}" if e["pot"] > 0 else ""),
                    pot_total=self.pot_total(e["pot"]))
            # rake: stated in the summary
        if showdown_at is None and (contested or no_summary) and marked:
            say("show_down")
        self.close(put_in, board, roles, shown, won, folded, mucked)
        return self.out

    def deal_marker(self, button: int) -> None:
        """Write what opens the play after the posts: the button where the room says it there, and the hole-cards
        marker (none where the room has none: its first line of play deals)."""
        if "button" in self.line and not self.writer.ways.button_first:
            self.say("button", seat=button, player=self.name.get(button, ""))
        if "hole_cards" in self.line:
            self.say("hole_cards")

    def bet(self, e: dict, round_in: dict[int, int]) -> int:
        """Write a call, bet or raise (an all-in as its own verb where the room writes it so); returns the chips
        it put in."""
        seat = e["seat"]
        current = max(round_in.values(), default=0)
        self.left[seat] -= e["amount"]
        round_in[seat] = e["to"]
        all_in = self.all_in(seat, e)
        self.say("all_in" if all_in and self.writer.ways.all_in_verb else e["action"], player=self.name[seat],
                 amount=e["amount"], by=max(e["to"] - current, 0), to=e["to"], all_in=all_in)
        return e["amount"]

    def draw(self, e: dict, hand_now: dict[int, list[str]]) -> None:
        """Write a draw: standing pat, or the cards discarded and, where the log knows them, those received."""
        seat, discard, receive = e["seat"], e["discard"], e["receive"]
        if not discard:
            self.say("stand_pat", player=self.name[seat])
            return
        self.say("discard", player=self.name[seat], count=len(discard), plural=len(discard) != 1,
                 shown="??" not in discard, cards=discard)
        if "??" not in receive:  # (none received for a discard: `[]`, as it happened)
            kept = [c for c in hand_now.get(seat, []) if c not in discard]
            hand_now[seat] = kept + list(receive)
            self.say("redealt", player=self.name[seat], kept=kept, cards=receive)

    def close(self, put_in: int, board: list[str], roles: dict[int, list[str]], shown: dict[int, list[str]],
              won: dict[int, int], folded: dict[int, int], mucked: set[int]) -> None:
        """Write what follows the play: the rake among the showdown's lines (a room with no summary that states
        its rake), else the summary; and the line the room closes each hand with."""
        events = self.hand["events"]
        if self.writer.ways.no_summary and self.writer.ways.rake_written:
            rakes = [e["amount"] for e in events if e["kind"] == "rake"]
            self.say("total", total=put_in, pots="", raked=bool(rakes), rake=sum(rakes), unraked=not rakes,
                     **{f"deduct_{n}": 0 for n in range(1, 5)})
        if not self.writer.ways.no_summary:
            self.summary(put_in, board, roles, shown, won, folded, mucked)
        if "hand_end" in self.line:  # (with the time, where the room writes it there)
            stamp = self.writer.stamp(self.hand.get("started_at"))
            self.say("hand_end", hand_id=hand_number(self.hand["hand_id"]), stamped=stamp is not None, stamp=stamp)

    def post(self, e: dict, dead: int | None, round_in: dict[int, int], roles: dict[int, list[str]]) -> str:
        """Write a post (with `dead`, the dead money posted with it: both blinds at once); returns what it was."""
        seat, amount = e["seat"], e["amount"]
        if dead is not None:
            what = "both"
        elif e["post"] == "blind":
            what = "small blind" if e["blind"] == 1 else "big blind"
            roles.setdefault(seat, []).append(what)
        elif e["post"] in ("missed", "straddle"):
            what = "big blind" if e["post"] == "missed" else "straddle"
        else:
            what = "small blind" if e["post"] == "dead" else "ante"
        if what not in ("ante", "small blind") or e["post"] == "blind":  # live money
            round_in[seat] = round_in.get(seat, 0) + amount
        self.left[seat] -= amount + (dead or 0)
        template = self.line[_POSTS[what]]
        if "dead" in template.pattern.groupindex:  # both blinds as two amounts: dead, then live
            self.say(_POSTS[what], player=self.name[seat], amount=amount, dead=dead or 0,
                     all_in=self.all_in(seat, e))
        else:
            self.say(_POSTS[what], player=self.name[seat], amount=amount + (dead or 0), dead=0,
                     all_in=self.all_in(seat, e))
        return what

    def result(self, seat: int) -> dict[str, Any]:
        """A seat's stack after the hand and its net result as the room writes it (`+$113.91`, `-$0.00`)."""
        net = 0
        for e in self.hand["events"]:
            if e.get("seat") == seat and e["kind"] in ("post", "action"):
                net -= e.get("amount", 0)
            elif e.get("seat") == seat and e["kind"] in ("award", "return"):
                net += e["amount"]
        money = self.money
        return {"stack": self.seats[seat]["stack"] + net, "net": ("+" if net > 0 else "-") + money(abs(net))}

    def pot_total(self, pot: int) -> int:
        """A pot's total before the rake: its awards, and the rake where it is the main pot."""
        events = self.hand["events"]
        total = sum(e["amount"] for e in events if e["kind"] == "award" and e["pot"] == pot)
        return total + (sum(e["amount"] for e in events if e["kind"] == "rake") if pot == 0 else 0)

    def all_in(self, seat: int, event: dict) -> bool:
        return bool(event.get("all_in")) or self.left[seat] == 0

    def head(self) -> None:
        writer, hand = self.writer, self.hand
        stakes = hand["stakes"]
        if hand["structure"] == "fixed-limit":
            small, big = stakes["bet_units"][0], stakes["bet_units"][-1]
        else:
            small, big = stakes["blinds"]
        stamp = writer.stamp(hand.get("started_at"))
        header = writer.dialect.header
        words = writer.dialect.data["header"].get("write_words", {})
        game, limit = writer.games[hand["variant"]], writer.limits[hand["structure"]]
        self.out.append(header["write"].write({
            **words, "hand_id": hand_number(hand["hand_id"]), "table": hand["table_id"], "game": f"{game} {limit}",
            "variant": game, "sized": True, "max_seats": hand["max_seats"],
            "limit": limit, "small": small, "big": big, "cash": bool(hand.get("currency")),
            "currency": hand.get("currency"), "stamped": stamp is not None, "stamp": stamp}, self.money))
        if writer.dialect.table_lines:  # (else the header's own line names the table)
            # (the game and stakes too, where the table line states them)
            self.out.append(header["table"].write({**words, "table": hand["table_id"], "sized": True, "mid": " ",
                                                   "max_seats": hand["max_seats"], "buttoned": True,
                                                   "button": hand["events"][0]["seat"],
                                                   "players": len(self.seats), "facts": True, "variant": game,
                                                   "limit": limit, "small": small, "big": big}, self.money))
        for n in sorted(self.seats):
            away = self.seats[n].get("status") == "sitting_out"
            self.say("seat", seat=n, player=self.name[n], stack=self.seats[n]["stack"], status=away,
                     status_text=self.writer.dialect.syntax["seat_status"].get("sitting_out", ""), status_tail="")
        if "blinds" in self.line:  # the room's marker before the forced bets
            self.say("blinds")
        if writer.ways.button_first:  # the button said after the seats (`writes.button_at: seats`)
            button = hand["events"][0]["seat"]
            self.say("button", seat=button, player=self.name[button])

    def summary(self, put_in: int, board: list[str], roles: dict[int, list[str]], shown: dict[int, list[str]],
                won: dict[int, int], folded: dict[int, int], mucked: set[int]) -> None:
        writer, hand, say = self.writer, self.hand, self.say
        events = hand["events"]
        syntax = writer.dialect.syntax
        words = writer.dialect.data["summary"]["roles"]
        results = writer.dialect.results
        rakes = [e["amount"] for e in events if e["kind"] == "rake"]
        say("summary")
        # a room that pays an uncalled bet with the pot states the awards as the total
        total = sum(won.values()) if writer.dialect.convention("uncalled_return") == "in_the_award" else put_in
        say("total", total=total, pots="", raked=bool(rakes), rake=sum(rakes), unraked=not rakes,
            **{f"deduct_{n}": 0 for n in range(1, 5)})
        if board:
            say("board", cards=board)
        dealt = [e["seat"] for e in events if e["kind"] == "deal" and e["to"] == "hole"]
        for seat in sorted(dict.fromkeys(dealt)):
            role = "".join(words[r.replace(" ", "_")] for r in roles.get(seat, []))
            if seat in shown:
                result = results["showed_won" if seat in won else "showed_lost"].write(
                    {"cards": shown[seat], "amount": won.get(seat)}, self.money)
            elif seat in won:
                result = results["collected"].write({"amount": won[seat]}, self.money)
            elif seat in folded:
                where = folded[seat]
                at = (syntax["folded_at_draw"][min(where, 1)] if hand["variant"] == "five-card-draw"
                      else syntax["folded_at"][min(where, 3)])
                result = results["folded"].write({"where": at})
            elif seat in mucked:
                result = results["mucked"].write({})
            else:
                result = results["lost"].write({})
            say("summary_seat", seat=seat, player=self.name[seat], roles=role, result=result)


@dataclass(frozen=True)
class _Ways:
    """What the dialect's conventions ask of the writer, read once per writer rather than once per hand."""

    #: the blinds written after the hole-cards marker (`hole_cards_marker: before_blinds`)
    late_deal: bool
    #: a return before a board run out with no more betting, written at the showdown
    late_return: bool
    #: the room writes no return line (`not_written`, `paid_as_a_pot`, `not_written_nor_awarded`)
    unwritten_return: bool
    #: a return always paid with the bettor's award (`in_the_award`, `paid_as_a_pot`), or only where no rake is
    #: taken (`not_written`; never with `not_written_nor_awarded`, whose walks pay the matched chips alone)
    returns_in_award: bool
    in_award_unraked: bool
    #: a return to a bettor who won nothing written as a pot of its own (`paid_as_a_pot`)
    as_a_pot: bool
    #: no summary section; the showdown marked (else the shows and awards follow the play with no marker)
    no_summary: bool
    marked: bool
    #: an all-in written as a verb of its own
    all_in_verb: bool
    #: a player declining the hand written as a fold before the deal; an uncontested pot's award written in the
    #: summary alone; the rake written (with no summary: among the showdown's lines)
    folds_out: bool
    summary_awards: bool
    rake_written: bool
    #: the button line written after the seats, before the posts (`writes.button_at: seats`)
    button_first: bool = False
    #: heads-up, the big blind's line first (`blinds_order: big_blind_first_heads_up`)
    big_blind_first: bool = False

    @classmethod
    def of(cls, spoken: Dialect) -> _Ways:
        returns, summary = spoken.convention("uncalled_return"), spoken.convention("summary_section")
        return cls(late_deal=spoken.convention("hole_cards_marker") == "before_blinds",
                   late_return=returns == "after_the_board",
                   unwritten_return=returns in ("not_written", "paid_as_a_pot", "not_written_nor_awarded"),
                   returns_in_award=returns in ("in_the_award", "paid_as_a_pot"),
                   in_award_unraked=returns == "not_written", as_a_pot=returns == "paid_as_a_pot",
                   no_summary=summary not in ("written", "written_no_showdown_marker"),
                   marked=summary not in ("none_and_no_showdown_marker", "written_no_showdown_marker"),
                   all_in_verb=spoken.convention("all_in_marker") == "verb",
                   folds_out=spoken.convention("folds_before_the_deal") == "sitting_out",
                   summary_awards=spoken.convention("summary_awards") == "when_no_award_line",
                   rake_written=spoken.convention("rake_line") == "written",
                   button_first=spoken.data["writes"].get("button_at") == "seats",
                   big_blind_first=spoken.data["conventions"].get("blinds_order", {}).get("value")
                   == "big_blind_first_heads_up")


def _out_folds(hand: dict) -> list[int]:
    """The seats sitting out that posted nothing, which a room writes as folds before the deal."""
    posted = {e["seat"] for e in hand["events"] if e["kind"] == "post"}
    return [s["seat"] for s in hand["seats"] if s.get("status") == "sitting_out" and s["seat"] not in posted]


def _paid_as_attributed(hand: dict) -> bool:
    """Whether the awards of `hand` are, in order, what a reader that knows only each player's winnings pays from
    the pots (`model.pots.attribute_winnings`, as `ingest.rooms` does for a room naming no pot)."""
    events = hand["events"]
    contributed: dict[int, int] = {}
    dead = rake = 0
    folded: set[int] = set()
    won: dict[int, int] = {}
    for e in events:
        kind = e["kind"]
        if kind == "post":
            if e["post"] == "dead":
                dead += e["amount"]
            else:
                contributed[e["seat"]] = contributed.get(e["seat"], 0) + e["amount"]
        elif kind == "action" and e["action"] != "fold" and e.get("amount", 0) > 0:
            contributed[e["seat"]] = contributed.get(e["seat"], 0) + e["amount"]
        elif kind == "return":
            contributed[e["seat"]] = contributed.get(e["seat"], 0) - e["amount"]
        elif kind == "rake":
            rake += e["amount"]
        elif kind == "award":
            won[e["seat"]] = won.get(e["seat"], 0) + e["amount"]
        if kind == "kill" or (kind == "action" and e["action"] == "fold"):
            folded.add(e["seat"])
    awards = [(e["pot"], e["seat"], e["amount"]) for e in events if e["kind"] == "award"]
    pots = build_pots(contributed, folded, dead)
    if len(pots) <= 1:
        return all(pot == 0 for pot, _, _ in awards)
    order = [events[i]["seat"] for i in _deal_order(hand)]
    return attribute_winnings(pots, won, order, rake)[0] == awards


def _hole_cards_shown(events: list[dict | None], muck_shows: bool) -> None:
    """The hole cards of `events` as a room that prints none gives them back: those a show (or a muck, where the
    room writes its cards) states, as many as were dealt, the last stated; else unknown."""
    dealt = {e["seat"]: e["cards"] for e in events if e and e["kind"] == "deal" and e["to"] == "hole"}
    known: dict[int, list[str]] = {}
    for e in events:
        if e and e["kind"] == "show" and len(e["cards"]) == len(dealt.get(e["seat"], ())):
            known[e["seat"]] = list(e["cards"])
        elif e and e["kind"] == "muck" and muck_shows and e["seat"] in dealt:
            known[e["seat"]] = list(dealt[e["seat"]])
    for e in events:
        if e and e["kind"] == "deal" and e["to"] == "hole":
            e["cards"] = known.get(e["seat"], ["??"] * len(e["cards"]))


def _big_blind_first_heads_up(hand: dict) -> bool:
    """Whether `hand`, of two players, posts the big blind right after the button, the small blind next: the order
    a room writing a heads-up hand's big blind first cannot tell from the order posted (`blinds_order`)."""
    events = hand["events"]
    playing = [s for s in hand["seats"] if s.get("status", "active") != "sitting_out"]
    return len(playing) == 2 and len(events) > 2 and all(e["kind"] == "post" and e["post"] == "blind"
                                                         for e in events[1:3]) \
        and events[1].get("blind") == 2 and events[2].get("blind") == 1 and events[1]["seat"] != events[2]["seat"]


def _all_in_behind(hand: dict) -> bool:
    """Whether a post or action of `hand` is called all-in yet leaves chips behind."""
    left = {s["seat"]: s["stack"] for s in hand["seats"]}
    for e in hand["events"]:
        if e["kind"] in ("post", "action") and "amount" in e:
            left[e["seat"]] -= e["amount"]
            if e.get("all_in") and left[e["seat"]] != 0:
                return True
        elif e["kind"] == "return":
            left[e["seat"]] += e["amount"]
    return False


def _unmatched(events: list[dict], folded_too: bool = False) -> tuple[int | None, int]:
    """(the bettor, the unmatched part) of the last betting round's top bet, its bettor not folded (or folded too,
    `folded_too`): the chips a return would give back; (None, 0) for none."""
    rounds: list[dict[int, int]] = [{}]  # each round's chips in, by seat
    folded: set[int] = set()
    drawn = False
    for e in events:
        if (e["kind"] == "deal" and e["to"] == "board") or (e["kind"] == "draw" and not drawn):  # a new round
            drawn = drawn or e["kind"] == "draw"
            rounds.append({})
        elif e["kind"] == "post" and e["post"] in ("blind", "missed", "straddle"):
            rounds[-1][e["seat"]] = rounds[-1].get(e["seat"], 0) + e["amount"]
        elif e["kind"] == "action" and "to" in e:
            rounds[-1][e["seat"]] = e["to"]
        if e["kind"] == "kill" or (e["kind"] == "action" and e["action"] == "fold"):
            folded.add(e["seat"])
    last = next((r for r in reversed(rounds) if any(v > 0 for v in r.values())), {})
    if not last:
        return None, 0
    top = max(last, key=lambda s: last[s])
    second = max((v for s, v in last.items() if s != top), default=0)
    if (top in folded and not folded_too) or last[top] == second:
        return None, 0
    return top, last[top] - second
