"""Canonical hands written as a PokerNow game log (CSV `entry,at,order`, newest row first): the reader's
description (`auditor.ingest.pokernow`) run backwards.

Why: `auditor verify --via pokernow` proves the PokerNow reader by writing simulated hands, one planted fault
each, as PokerNow logs them and auditing what the reader gives back.

What a PokerNow log cannot carry, and how it is handled:

- Stakes: declared by admin lines before the first hand and wherever they change (`The game's big blind was
  changed from 0 to 100.`), as the reader reads them. Two blinds; an ante. Chips are written in the hand's chip
  unit (every amount divided by `stakes.chip_unit`: the reader takes one chip as the unit); a cash hand in
  cents with two decimals (`0.10`), as PokerNow's cent tables write them.
- Players: `"Name @ id"`; the id is the identity the reader keeps, so a player is written `"P @ P"` (a name
  holding ` @ ` or a `"` cannot be). Only the players dealt in are listed (`Player stacks:`): no seat
  sitting out, no seat draw, request or fill, no house kill.
- Cards: a PokerNow log shows no one's hole cards as dealt (the exporter's own `Your hand is` names nobody), only
  the cards shown. A hand whose audit needs an unshown card (a card dealt twice, a show of cards not dealt, hole
  cards of another count than the game's, a player still in at the end who did not show) cannot be written.
  Burns are not logged (`HIDDEN_CATEGORIES`).
- Amounts: `calls X`, `bets X`, `raises to X` state the round total only, so an action whose stated total
  disagrees with its chips cannot be written; awards name no pot (`collected X from pot`), so awards the reader
  does not lay on the pots as the hand does cannot be; there is no rake and no muck line.
- Hand numbers: `#N` counts the file's distinct hand ids in order, so a repeated id is written repeated.
- `cannot_express` writes the hand and reads it back: whatever the reader would give back differently from
  `carried(hand)` is refused, named by what differs.

A writer never judges: an illegal action is written as PokerNow would log it, so the reader records it and a
rule reports it.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from auditor.export import burns_left_out
from auditor.export.game_checks import game_problem
from auditor.ingest.limits import DEFAULT_LIMITS
from auditor.ingest.pokernow import HOLE_CARDS, MAX_SEATS, ROOM, read_text
from auditor.model.records import ReaderNote, SourceHand

__all__ = ["HIDDEN_CATEGORIES", "IMPLIED_CHIP_UNIT", "NEWEST_FIRST", "SUFFIX", "cannot_express",
           "cannot_express_together", "carried", "event_index", "log_text", "write_hands"]

SUFFIX = ".csv"
#: the log is written newest row first, as PokerNow exports it: a file's hands read back in reverse line order
NEWEST_FIRST = True
#: the reader counts chips in ones (PokerNow states no chip unit)
IMPLIED_CHIP_UNIT = 1
HIDDEN_CATEGORIES = {
    "burn": "a PokerNow log writes no burn cards, so a missing or extra burn cannot be seen in it",
    "raise-cap": "PokerNow deals no limit game (no limit and pot limit only), and the raise cap is a limit-game rule",
}
GAMES = {("holdem", "no-limit"): "No Limit Texas Hold'em", ("holdem", "pot-limit"): "Pot Limit Texas Hold'em",
         ("omaha", "no-limit"): "No Limit Omaha Hi", ("omaha", "pot-limit"): "Pot Limit Omaha Hi"}
POSTS = {"straddle": "a straddle", "ante": "an ante", "dead": "a missing small blind", "missed": "a missed big blind"}
VERBS = {"call": "calls", "bet": "bets", "raise": "raises to"}
STREETS = ("Flop", "Turn", "River")
RANKS = {"T": "10"}
SUITS = {"s": "♠", "c": "♣", "h": "♥", "d": "♦"}
NO_WORDS = {"seat_draw": "a seat draw", "seat_request": "a seat request", "seat_fill": "a seat filled",
            "kill": "a hand killed by the house", "draw": "a draw", "muck": "a muck", "rake": "rake"}
_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)


def cannot_express(hand: dict) -> str | None:
    """Why a PokerNow log cannot hold `hand` so that it reads back to the same audit, or None (see the module)."""
    problem = game_problem(ROOM, "log", hand, ("holdem", "omaha"), ("no-limit", "pot-limit"), 2)
    if problem:
        return problem
    for e in hand["events"]:
        if e["kind"] in NO_WORDS:
            return f"a PokerNow log has no line for {NO_WORDS[e['kind']]}"
    for s in hand["seats"]:
        if s.get("status", "active") != "active":
            return f"a PokerNow log lists only the players dealt in: a seated player is {s['status']}"
        if " @ " in s["player"] or '"' in s["player"] or s["player"] != s["player"].strip() or any(
                ord(c) < 32 for c in s["player"]):
            return f"player {s['player']!r}: PokerNow writes `\"Name @ id\"`, which this name cannot be"
    unit = _unit(hand)
    if any(e.get(k, 0) % unit for e in hand["events"] if e["kind"] != "deal" for k in ("amount", "to")) or any(
            s["stack"] % unit for s in hand["seats"]):
        return f"an amount that is no whole number of chips of {unit}"
    return _cards_problem(hand) or _round_trip_problem(hand)


def cannot_express_together(hands: Iterable[dict]) -> str | None:
    """A PokerNow log is one table's, counted in one unit."""
    hands = list(hands)
    if len({h["table_id"] for h in hands}) > 1:
        return "a PokerNow log is one table's: these hands are at several tables"
    if len({h.get("money_scale", 1) if h.get("currency") is not None else 1 for h in hands}) > 1:
        return "a PokerNow log counts every hand in one unit: these hands are in several"
    return None


def _unit(hand: dict) -> int:
    return 1 if hand.get("currency") is not None else hand["stakes"]["chip_unit"]


def _cards_problem(hand: dict) -> str | None:
    """The hole cards a PokerNow log cannot say (it shows only the cards shown)."""
    events = hand["events"]
    n = HOLE_CARDS[hand["variant"]]
    holes = {e["seat"]: e["cards"] for e in events if e["kind"] == "deal" and e["to"] == "hole"}
    shown = {e["seat"]: e["cards"] for e in events if e["kind"] == "show"}
    if any(len(c) != n for c in holes.values()):
        return f"hole cards of another count than {n}: a PokerNow log writes no deal (every player gets the game's)"
    if set(holes) != {s["seat"] for s in hand["seats"]}:
        return "a seat not dealt in, or dealt twice: a PokerNow log deals every player listed, once"
    for seat, cards in shown.items():
        if "??" in cards or sorted(cards) != sorted(holes.get(seat, [])):
            return "a show of cards other than those dealt: a PokerNow log writes no deal to compare them with"
    seen = [c for e in events if e["kind"] in ("deal", "show") and e.get("to") != "hole" for c in e["cards"]]
    hidden = [c for seat, cards in holes.items() if seat not in shown for c in cards if c != "??"]
    known = [c for c in seen if c != "??"] + [c for s in shown for c in holes[s] if c != "??"]
    if len(set(hidden)) < len(hidden) or set(hidden) & set(known):
        return "a card dealt twice that no show reveals: a PokerNow log shows only the cards shown"
    return None


def _money(amount: int, hand: dict) -> str:
    if hand.get("currency") is not None:
        return f"{amount // 100}.{amount % 100:02d}"
    return str(amount // hand["stakes"]["chip_unit"])


def _card(card: str) -> str:
    return RANKS.get(card[0], card[0]) + SUITS[card[1]]


def _token(player: str) -> str:
    return f'"{player} @ {player}"'


def _lines(hand: dict, number: int, declared: dict[str, str]) -> list[str]:
    """One hand's rows in play order, the admin lines declaring its stakes first where they changed."""
    out: list[str] = []
    stakes = hand["stakes"]
    want = {"small blind": _money(stakes["blinds"][0], hand), "big blind": _money(stakes["blinds"][1], hand),
            "ante": _money(stakes.get("ante", 0), hand)}
    for which in ("small blind", "big blind", "ante"):
        if declared.get(which) != want[which]:
            out.append(f"The game's {which} was changed from {declared.get(which, '0')} to {want[which]}.")
            declared[which] = want[which]
    seats = {s["seat"]: s for s in hand["seats"]}
    events = hand["events"]
    button = next(e["seat"] for e in events if e["kind"] == "button")
    dealer = f"(dealer: {_token(seats[button]['player'])})" if button in seats else "(dead button)"
    out.append(f"-- starting hand #{number}  ({GAMES[(hand['variant'], hand['structure'])]}) {dealer} --")
    out.append("Player stacks: " + " | ".join(f"#{s} {_token(seats[s]['player'])} ({_money(seats[s]['stack'], hand)})"
                                              for s in sorted(seats)))
    board = 0
    shown: list[str] = []
    for e in events:
        line = _event(e, hand, seats, board, shown)
        if e["kind"] == "deal" and e["to"] == "board":
            board += 1
            shown += e["cards"]
        if line:
            out.append(line)
    out.append(f"-- ending hand #{number} --")
    return out


def _event(e: dict, hand: dict, seats: dict[int, dict], board: int, shown: list[str]) -> str | None:
    kind = e["kind"]
    who = _token(seats[e["seat"]]["player"]) if "seat" in e and e["seat"] in seats else None
    all_in = " and go all in" if e.get("all_in") else ""
    if kind == "post":
        what = POSTS.get(e["post"]) or ("a small blind" if e.get("blind") == 1 else "a big blind")
        return f"{who} posts {what} of {_money(e['amount'], hand)}{all_in}"
    if kind == "action":
        if e["action"] in ("fold", "check"):
            return f"{who} {'folds' if e['action'] == 'fold' else 'checks'}"
        return f"{who} {VERBS[e['action']]} {_money(e['to'], hand)}{all_in}"
    if kind == "deal" and e["to"] == "board":
        street = STREETS[board] if board < len(STREETS) else f"Street {board + 1}"
        new = ", ".join(_card(c) if c != "??" else "??" for c in e["cards"])
        if not shown:
            return f"{street}:  [{new}]"
        return f"{street}: {', '.join(_card(c) for c in shown)} [{new}]"
    if kind == "show":
        return f"{who} shows a {', '.join(_card(c) if c != '??' else '??' for c in e['cards'])}."
    if kind == "return":
        return f"Uncalled bet of {_money(e['amount'], hand)} returned to {who}"
    if kind == "award":
        return f"{who} collected {_money(e['amount'], hand)} from pot"
    return None


def log_text(hands: Sequence[dict]) -> str:
    """The hands as one PokerNow CSV log (newest row first)."""
    rows: list[tuple[str, int]] = []
    numbers: dict[str, int] = {}
    declared: dict[str, str] = {}
    last = -1
    for hand in hands:
        number = numbers.setdefault(hand["hand_id"], len(numbers) + 1)
        start = _start_ms(hand.get("started_at"))
        for k, line in enumerate(_lines(hand, number, declared)):
            ms = max(start + k, last + 1)
            last = ms
            rows.append((line, ms))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["entry", "at", "order"])
    for line, ms in reversed(rows):
        moment = _EPOCH + timedelta(milliseconds=ms - int(_EPOCH.timestamp() * 1000))
        writer.writerow([line, moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z", ms * 100])
    return out.getvalue()


def _start_ms(started: str | None) -> int:
    try:
        moment = datetime.fromisoformat((started or "").replace("Z", "+00:00"))
    except ValueError:
        moment = _EPOCH
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def write_hands(hands: Iterable[dict], path: Path) -> int:
    """Write the hands (one table's, in play order) as one PokerNow log at `path`; how many were written."""
    hands = list(hands)
    Path(path).write_text(log_text(hands), encoding="utf-8")
    return len(hands)


def carried(hand: dict, number: int = 1, table: str = "1") -> dict:
    """The canonical hand the reader gives back for `hand` written as hand `number` of a log of table `table`:
    ids, room and time as the log states them, chips in ones, every hole card not shown unknown, ten seats."""
    unit = _unit(hand)
    n = HOLE_CARDS[hand["variant"]]
    shown = {e["seat"] for e in hand["events"] if e["kind"] == "show" and len(e["cards"]) == n}
    events = []
    for e in hand["events"]:
        if e["kind"] == "deal" and e["to"] == "burn":
            continue
        e = {k: v for k, v in e.items() if k != "t"}
        for k in ("amount", "to"):
            if k in e and e["kind"] != "deal":
                e[k] //= unit
        if e["kind"] == "deal" and e["to"] == "hole" and e["seat"] not in shown:
            e["cards"] = ["??"] * len(e["cards"])
        events.append(e)
    stakes = {k: ([b // unit for b in v] if k == "blinds" else v // unit) for k, v in hand["stakes"].items()
              if k in ("blinds", "ante")}
    stakes["chip_unit"] = 1
    out: dict[str, Any] = {"hand_id": f"{table}#{number}", "table_id": table, "room": ROOM,
                           "variant": hand["variant"], "structure": hand["structure"], "rule_pack": hand["rule_pack"],
                           "stakes": stakes, "max_seats": MAX_SEATS,
                           "seats": [{"seat": s["seat"], "player": s["player"], "stack": s["stack"] // unit}
                                     for s in hand["seats"]], "events": events}
    if hand.get("currency") is not None and hand.get("money_scale", 1) != 1:
        out["money_scale"] = hand["money_scale"]
    return out


def _round_trip_problem(hand: dict) -> str | None:
    """Write the hand, read it back, and name the first thing the reader would give back otherwise."""
    items = [i for i in read_text(log_text([hand]), "1.csv", "1", rule_pack=hand["rule_pack"],
                                  limits=DEFAULT_LIMITS) if not isinstance(i, ReaderNote)]
    if len(items) != 1 or not isinstance(items[0], SourceHand):
        code = getattr(items[0], "code", "") if items else ""
        if code == "inconsistent-amounts":
            return ("chips a PokerNow log cannot state: it writes round totals and stacks, from which the reader "
                    "derives every amount, and this hand's amounts contradict them")
        return f"the PokerNow reader does not read the hand back whole ({code or f'{len(items)} items'})"
    got = dict(items[0].hand)
    got.pop("started_at", None)
    want = carried(hand)
    for key in ("hand_id", "table_id", "variant", "structure", "money_scale", "max_seats", "stakes", "seats"):
        if want.get(key) != got.get(key):
            return f"a PokerNow log reads back another {key.replace('_', ' ')} ({got.get(key)!r})"
    a, b = want["events"], [{k: v for k, v in e.items() if k != "t"} for e in got["events"]]
    for x, y in zip(a, b, strict=False):
        if _norm(x) != _norm(y):
            article = "an" if x["kind"][0] in "aeiou" else "a"
            return f"{article} {x['kind']} event a PokerNow log reads back otherwise ({_what(x['kind'])})"
    if len(a) != len(b):
        return "events a PokerNow log reads back otherwise"
    return None


def _norm(e: dict) -> dict:
    return {k: v for k, v in e.items() if not (k == "all_in" and v is False)}


def _what(kind: str) -> str:
    return {"award": "its awards name no pot: they are laid on the pots as a dealer pays them",
            "deal": "it writes no deal: hole cards are dealt to every listed player when the betting starts",
            "action": "it states a round total, never the chips added",
            "return": "the uncalled bet is returned where the log writes it",
            "button": "a dead button lies where the dead-button rule puts it",
            "post": "its posts are small and big blinds, straddles, antes, missing and missed blinds"}.get(kind, kind)


def event_index(hand: dict) -> list[int | None]:
    """Each canonical event's place in the hand read back: burns are not written."""
    return burns_left_out(hand)
