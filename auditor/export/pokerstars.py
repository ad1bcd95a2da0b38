"""Canonical hands as PokerStars hand-history text, the way the room prints them.

The text follows the conventions `auditor.ingest.pokerstars` reads (and the room's real files in the
shared corpus): a header `PokerStars Hand #N: Hold'em No Limit (1/2) - 2024/01/01 0:13:30 ET`, the
table line naming the button, the seat list, posts, `*** HOLE CARDS ***` with a `Dealt to` line for
every known hand, the actions (`raises X to Y` where X is the raise over the bet faced), streets,
the draw, `Uncalled bet (X) returned to`, `*** SHOW DOWN ***`, `collected X from pot` and the
`*** SUMMARY ***` block.

What the text cannot carry, and how it is handled:

- Hand ids are numbers: an id of digits is kept, any other becomes a number derived from it
  (:func:`hand_number`: equal ids give equal numbers, so a repeated id stays repeated).
- Chips: a play-money or tournament hand is written in its own chip units (every amount divided by
  `stakes.chip_unit`), because the reader takes the smallest unit the text shows as the chip unit;
  the game is the same, only counted in chips of 1 (a raked hand is refused: a rake schedule is in the
  log's own units, which that count would change). A cash hand (`currency`) is written in its money
  and must be kept in cents with a one-cent chip (money_scale 100, chip_unit 1), the only chip unit a
  PokerStars cash table has.
- Rake: PokerStars states one rake for the hand, in the summary: the rake events become their sum,
  read back as one `rake` event without a pot, after the awards.
- Burn cards: PokerStars prints none. They are left out and the hand is still written, so a missing
  burn cannot be seen in this format: :data:`HIDDEN_CATEGORIES` names the category for verify.
- A hand the house killed (`kill`) is printed as the room does: `P has timed out`, then `P: folds`;
  so a fold of a player the text shows absent or without chips behind cannot be the player's own.
- Events the room has no words for (seat draws, seat requests and fills),
  games and structures it does not deal, a table minimum or maximum: :func:`cannot_express` says so
  and the hand is not written.

A writer never judges: an illegal action is written as the room would have printed it (a check
facing a bet is `checks`, an action after a fold is one more line), so the reader records it and a
rule reports it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from auditor.ingest.jsonl import consistency_error

__all__ = ["HIDDEN_CATEGORIES", "SUFFIX", "cannot_express", "carried", "event_index", "format_hand",
           "hand_number", "write_hands"]

SUFFIX = ".txt"
ROOM = "PokerStars"
ET = ZoneInfo("America/New_York")
GAMES = {"holdem": "Hold'em", "omaha": "Omaha", "five-card-draw": "5 Card Draw"}
LIMITS = {"no-limit": "No Limit", "pot-limit": "Pot Limit", "fixed-limit": "Limit"}
HOLE_CARDS = {"holdem": 2, "omaha": 4, "five-card-draw": 5}
SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£"}
STREETS = ("FLOP", "TURN", "RIVER")
#: where a fold happened, as the summary says it (by community-card deals or draws seen)
FOLDED_AT = ("before Flop", "on the Flop", "on the Turn", "on the River")
#: finding categories whose planted faults this format cannot show at all, and why (verify lists them)
HIDDEN_CATEGORIES = {"burn": "PokerStars prints no burn cards, so a missing burn card cannot be seen in its text"}
#: the chip unit (in the log's integer amounts) the reader takes, since the text states none: a hand in
#: other chips is written counted in its own unit, which keeps split pots but not a raked hand (verify
#: simulates a share of its tables in this unit, so a raking pack's rake is measured)
IMPLIED_CHIP_UNIT = 1
#: events with no words in PokerStars text
UNSAYABLE = {
    "seat_draw": "a draw for seats (PokerStars seats players itself)",
    "seat_request": "a seat request (PokerStars prints no waiting list)",
    "seat_fill": "a seat filled between hands (PokerStars prints no seat changes)",
}


def hand_number(hand_id: str) -> str:
    """The PokerStars hand number for a canonical id: the id itself when it is digits, else a number
    derived from it (64 bits of BLAKE2b), so equal ids stay equal and different ids stay different."""
    if hand_id.isascii() and hand_id.isdigit() and len(hand_id) <= 30:
        return hand_id
    digest = hashlib.blake2b(hand_id.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return str(int.from_bytes(digest, "big"))


def _name_problem(name: str, what: str) -> str | None:
    """Why `name` cannot stand in PokerStars text, or None: the reader splits lines on CR and LF, cuts
    blanks and byte-order marks at both ends of a line, and reads `*** ... ***` lines as streets."""
    if "\n" in name or "\r" in name:
        return f"{what} {name!r} holds a line break"
    if name != name.strip(" \t\ufeff"):
        return f"{what} {name!r} starts or ends in a blank, which the room's lines do not keep"
    if name.startswith("*** "):
        return f"{what} {name!r} reads as a street marker"
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return f"{what} {name!r} is not valid Unicode text"
    return None


def _expected_stakes(hand: dict) -> dict[str, Any]:
    """The stakes the PokerStars reader derives from the text this writer prints for `hand`."""
    stakes = hand["stakes"]
    blinds = list(stakes.get("blinds", []))
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
    else:
        out["blinds"] = blinds
    antes = [e["amount"] for e in hand["events"] if e["kind"] == "post" and e["post"] == "ante"]
    if antes:
        out["ante"] = max(antes)
    out["chip_unit"] = unit
    return out


def cannot_express(hand: dict) -> str | None:
    """Why PokerStars text cannot hold `hand`, or None when it can (see the module docstring)."""
    unplaced = consistency_error(hand)
    if unplaced:  # the writer would have no player to put the event on (KeyError)
        return f"the hand cannot be replayed: {unplaced}"
    variant, structure = hand.get("variant"), hand.get("structure")
    if variant not in GAMES:
        return f"PokerStars deals no {variant} (it has {', '.join(GAMES)})"
    if structure not in LIMITS:
        return f"PokerStars has no {structure} games"
    stakes = hand["stakes"]
    extra = sorted(set(stakes) - {"blinds", "chip_unit", "bet_units", "ante"})
    if extra:
        return f"PokerStars text has no words for stakes {', '.join(extra)}"
    if len(stakes.get("blinds", [])) != 2:
        return f"PokerStars tables have two blinds, this one {len(stakes.get('blinds', []))}"
    if hand.get("currency") is not None and (hand.get("money_scale", 1) != 100 or stakes["chip_unit"] != 1):
        return ("a PokerStars cash game counts in cents with a one-cent chip; this hand has money_scale "
                f"{hand.get('money_scale', 1)} and chip unit {stakes['chip_unit']}")
    expected = _expected_stakes(hand)
    if {k: v for k, v in stakes.items() if k in expected} != expected or set(stakes) != set(expected):
        return (f"the stakes {stakes} are not what PokerStars text states ({expected}: a limit header gives the "
                "bets, the small blind is read from its post and the ante from the antes posted)")
    for what, name in [("table", hand["table_id"])] + [("player", s["player"]) for s in hand["seats"]]:
        problem = _name_problem(name, what)
        if problem:
            return problem
    if len({s["player"] for s in hand["seats"]}) < len(hand["seats"]):
        return ("one player name in two seats: PokerStars lines name the player, not the seat, so the text "
                "cannot say which of the two seats acts")
    if any(s.get("status", "active") not in ("active", "sitting_out") for s in hand["seats"]):
        return "PokerStars marks an absent seat only as sitting out (no 'new' or 'away')"
    unit = stakes["chip_unit"]
    events = hand["events"]
    unsayable = next((e["kind"] for e in events if e["kind"] in UNSAYABLE), None)
    if unsayable:
        return f"PokerStars text has no words for {UNSAYABLE[unsayable]}"
    if variant != "five-card-draw" and any(e["kind"] == "draw" for e in events):
        return f"PokerStars text has no draw street in {variant} (its reader refuses one as damaged)"
    if not events or events[0]["kind"] != "button" or sum(e["kind"] == "button" for e in events) != 1:
        return "PokerStars names one button, before the hand starts"
    for e in events:
        if e["kind"] == "post" and e["post"] == "blind" and e.get("blind") not in (1, 2):
            return "PokerStars has no third blind"
        for key in ("amount", "to") if e["kind"] == "action" else ("amount",):
            if key in e and e[key] % unit:
                return f"an amount ({e[key]}) that is not a whole number of chips of {unit}"
        if e["kind"] == "deal" and e["to"] != "burn":
            cards = e["cards"]
            if e["to"] == "board" and "??" in cards:
                return "a community card whose face the log does not know (PokerStars prints every board card)"
            if e["to"] == "hole" and "??" in cards and len(set(cards)) > 1:
                return "hole cards partly known (PokerStars prints a hand whole or not at all)"
        if e["kind"] == "draw" and "??" in e["receive"] and len(set(e["receive"])) > 1:
            return "drawn cards partly known"
    if any(s["stack"] % unit for s in hand["seats"]):
        return f"a stack that is not a whole number of chips of {unit}"
    if unit != 1 and any(e["kind"] == "rake" for e in events):
        return (f"a raked hand in chips of {unit}: PokerStars text states no chip unit, so this writer counts chips "
                "in the hand's unit, which would move the rake against a schedule in the log's own units")
    boards = [e for e in events if e["kind"] == "deal" and e["to"] == "board"]
    if len(boards) > len(STREETS):
        return f"{len(boards)} community-card deals (PokerStars names three: flop, turn, river)"
    return _order_problem(hand) or _posts_problem(hand) or _amounts_problem(hand)


def _order_problem(hand: dict) -> str | None:
    """The reader places the hole cards at `*** HOLE CARDS ***`, after the posts and clockwise from the
    button, dealing every seat not sitting out (a sitting-out player who posts is dealt in)."""
    events = hand["events"]
    i = 1
    while i < len(events) and events[i]["kind"] == "post":
        i += 1
    start = i
    while i < len(events) and events[i]["kind"] == "deal" and events[i]["to"] == "hole":
        i += 1
    dealt = [e["seat"] for e in events[start:i]]
    if any(e["kind"] == "deal" and e["to"] == "hole" for e in events[i:]):
        return "hole cards dealt after the betting began (PokerStars deals them all at *** HOLE CARDS ***)"
    if any(e["kind"] == "post" for e in events[i:]):
        return "a post after the cards were dealt (PokerStars prints the posts before *** HOLE CARDS ***)"
    if not dealt:
        return "nobody was dealt in"
    posted = {e["seat"] for e in events[1:start]}
    live = {s["seat"] for s in hand["seats"] if s.get("status", "active") != "sitting_out" or s["seat"] in posted}
    if not live <= set(dealt):
        return "a seat neither sitting out nor dealt in (PokerStars deals every seat not sitting out)"
    if len(set(dealt)) != len(dealt):
        return "a seat dealt two hands"
    return None


def _deal_order(hand: dict) -> list[int]:
    """The hole deals of `hand` (event indices) in the order the reader lists them: the text prints no
    order of dealing, so the reader deals clockwise from the button, then any seat dealt while sitting out."""
    events = hand["events"]
    button = events[0]["seat"]
    posted = {e["seat"] for e in events if e["kind"] == "post"}
    live = {s["seat"] for s in hand["seats"] if s.get("status", "active") != "sitting_out" or s["seat"] in posted}
    deals = [i for i, e in enumerate(events) if e["kind"] == "deal" and e["to"] == "hole"]
    return sorted(deals, key=lambda i: (events[i]["seat"] not in live, (events[i]["seat"] - button - 1) % 10))


def _posts_problem(hand: dict) -> str | None:
    """Posts the reader can tell apart: a made-up big blind reads as `posts big blind` only after the
    table's big blind posted, a dead small blind as `posts small blind` only after the small blind, and
    both together as `posts small & big blinds`."""
    events = hand["events"]
    bb = hand["stakes"]["blinds"][1]
    seen = {1: False, 2: False}
    i = 1
    while i < len(events) and events[i]["kind"] == "post":
        e = events[i]
        nxt = events[i + 1] if i + 1 < len(events) else {}
        if e["post"] == "blind":
            if seen[e["blind"]]:
                return f"blind {e['blind']} posted twice"
            seen[e["blind"]] = True
        elif e["post"] == "missed":
            if nxt.get("kind") == "post" and nxt.get("post") == "dead" and nxt["seat"] == e["seat"]:
                if e["amount"] != bb:
                    return "a made-up blind and dead money that PokerStars would print as one post of both blinds"
                i += 1
            elif not seen[2]:
                return "a made-up big blind posted before the big blind (PokerStars would read it as the big blind)"
        elif e["post"] == "dead" and not seen[1]:
            return "dead money posted before the small blind (PokerStars would read it as the small blind)"
        i += 1
    return None


def _amounts_problem(hand: dict) -> str | None:
    """PokerStars states a call's and a bet's chips, a raise's round total: an action whose total and chips
    added disagree (one of them wrong in the log) has no words. And the reader takes `folds` by a seat with
    no chips behind, or listed as sitting out, or timed out, for the room killing the hand: such a fold
    cannot be the player's own in this text."""
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
        if kind == "action" and e["action"] == "fold" and (left.get(e["seat"]) == 0 or e["seat"] in absent):
            return ("a fold by a player with no chips behind or shown absent: PokerStars text reads it as the "
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
                return ("an action's round total disagrees with the chips it added: PokerStars states one of "
                        "the two numbers, never both")
            round_in[e["seat"]] = e["to"]
    return None


# -- writing ----------------------------------------------------------------------------------------

class _Money:
    """Amounts as the text shows them: chips counted in the hand's chip unit, or money in cents."""

    def __init__(self, hand: dict):
        self.currency = hand.get("currency")
        self.symbol = SYMBOLS.get(self.currency, "") if self.currency else ""
        self.unit = hand["stakes"]["chip_unit"]

    def __call__(self, amount: int) -> str:
        if self.currency:
            return f"{self.symbol}{amount // 100}.{amount % 100:02d}"
        return str(amount // self.unit)


def _stamp(started_at: str | None) -> str | None:
    """`2024/01/01 0:13:30 ET`: the room prints its own clock, Eastern time."""
    if not started_at:
        return None
    try:
        moment = datetime.fromisoformat(started_at)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    local = moment.astimezone(ET)
    return f"{local.year:04d}/{local.month:02d}/{local.day:02d} {local.hour}:{local.minute:02d}:{local.second:02d} ET"


def format_hand(hand: dict) -> list[str]:
    """The lines of one hand (call only when :func:`cannot_express` said None)."""
    money = _Money(hand)
    stakes = hand["stakes"]
    events = hand["events"]
    seats = {s["seat"]: s for s in hand["seats"]}
    name = {n: s["player"] for n, s in seats.items()}
    if hand["structure"] == "fixed-limit":
        small, big = stakes["bet_units"][0], stakes["bet_units"][-1]
    else:
        small, big = stakes["blinds"]
    game = f"{GAMES[hand['variant']]} {LIMITS[hand['structure']]}"
    price = f"{money(small)}/{money(big)}" + (f" {hand['currency']}" if money.currency else "")
    stamp = _stamp(hand.get("started_at"))
    out = [f"PokerStars Hand #{hand_number(hand['hand_id'])}:  {game} ({price})" + (f" - {stamp}" if stamp else "")]
    button = events[0]["seat"]
    out.append(f"Table '{hand['table_id']}' {hand['max_seats']}-max Seat #{button} is the button")
    for n in sorted(seats):
        s = seats[n]
        away = " is sitting out" if s.get("status") == "sitting_out" else ""
        out.append(f"Seat {n}: {s['player']} ({money(s['stack'])} in chips){away}")

    left = {n: s["stack"] for n, s in seats.items()}
    round_in: dict[int, int] = {}
    hand_now: dict[int, list[str]] = {}
    put_in = 0
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
    showdown_at = next((i for i, e in enumerate(events) if i > last_play
                        and (e["kind"] in ("show", "muck") or (contested and e["kind"] == "award"))), None)
    hole_written = False
    skip = False

    def allin(seat: int, flag: bool) -> str:
        return " and is all-in" if flag or left[seat] == 0 else ""

    for i, e in enumerate(events[1:], 1):
        if skip:
            skip = False
            continue
        kind = e["kind"]
        if i == showdown_at:
            out.append("*** SHOW DOWN ***")
        if kind == "post":
            seat, amount = e["seat"], e["amount"]
            nxt = events[i + 1] if i + 1 < len(events) else {}
            if e["post"] == "missed" and nxt.get("kind") == "post" and nxt.get("post") == "dead" \
                    and nxt["seat"] == seat:
                amount += nxt["amount"]
                skip = True
                round_in[seat] = round_in.get(seat, 0) + e["amount"]
                what = "small & big blinds"
            elif e["post"] == "blind":
                what = "small blind" if e["blind"] == 1 else "big blind"
                roles.setdefault(seat, []).append(what)
                round_in[seat] = round_in.get(seat, 0) + amount
            elif e["post"] == "missed":
                what = "big blind"
                round_in[seat] = round_in.get(seat, 0) + amount
            elif e["post"] == "dead":
                what = "small blind"
            elif e["post"] == "straddle":
                what = "straddle"
                round_in[seat] = round_in.get(seat, 0) + amount
            else:
                what = "the ante"
            left[seat] -= amount
            put_in += amount
            out.append(f"{name[seat]}: posts {what} {money(amount)}{allin(seat, bool(e.get('all_in')))}")
        elif kind == "deal" and e["to"] == "hole":
            if not hole_written:
                out.append("*** HOLE CARDS ***")
                hole_written = True
            if "??" not in e["cards"]:
                hand_now[e["seat"]] = list(e["cards"])
                out.append(f"Dealt to {name[e['seat']]} [{' '.join(e['cards'])}]")
        elif kind == "deal" and e["to"] == "board":
            street = STREETS[streets]
            if board:
                out.append(f"*** {street} *** [{' '.join(board)}] [{' '.join(e['cards'])}]")
            else:
                out.append(f"*** {street} *** [{' '.join(e['cards'])}]")
            board += e["cards"]
            streets += 1
            round_in = {}
        elif kind == "deal":  # a burn: PokerStars prints none
            continue
        elif kind == "kill":  # the room folds for a player who did not act in time
            folded.setdefault(e["seat"], streets + (1 if drawn else 0))
            out += [f"{name[e['seat']]} has timed out", f"{name[e['seat']]}: folds"]
        elif kind == "action":
            seat, verb = e["seat"], e["action"]
            who = name[seat]
            if verb == "fold":
                folded.setdefault(seat, streets + (1 if drawn else 0))
                out.append(f"{who}: folds")
            elif verb == "check":
                out.append(f"{who}: checks")
            else:
                current = max(round_in.values(), default=0)
                left[seat] -= e["amount"]
                put_in += e["amount"]
                round_in[seat] = e["to"]
                flag = allin(seat, bool(e.get("all_in")))
                if verb == "call":
                    out.append(f"{who}: calls {money(e['amount'])}{flag}")
                elif verb == "bet":
                    out.append(f"{who}: bets {money(e['amount'])}{flag}")
                else:
                    out.append(f"{who}: raises {money(max(e['to'] - current, 0))} to {money(e['to'])}{flag}")
        elif kind == "draw":
            seat = e["seat"]
            if not drawn:
                out.append("*** FIRST DRAW ***")
                drawn = True
                round_in = {}
            discard, receive = e["discard"], e["receive"]
            if not discard:
                out.append(f"{name[seat]}: stands pat")
                continue
            cards = "" if "??" in discard else f" [{' '.join(discard)}]"
            out.append(f"{name[seat]}: discards {len(discard)} card{'s' if len(discard) != 1 else ''}{cards}")
            if "??" not in receive:  # (none received for a discard: `[]`, as it happened)
                kept = [c for c in hand_now.get(seat, []) if c not in discard]
                hand_now[seat] = kept + list(receive)
                out.append(f"Dealt to {name[seat]} [{' '.join(kept)}] [{' '.join(receive)}]")
        elif kind == "show":
            shown[e["seat"]] = list(e["cards"])
            out.append(f"{name[e['seat']]}: shows [{' '.join(e['cards'])}]")
        elif kind == "muck":
            mucked.add(e["seat"])
            out.append(f"{name[e['seat']]}: mucks hand")
        elif kind == "return":
            seat = e["seat"]
            round_in[seat] = round_in.get(seat, 0) - e["amount"]
            left[seat] += e["amount"]
            put_in -= e["amount"]
            out.append(f"Uncalled bet ({money(e['amount'])}) returned to {name[seat]}")
        elif kind == "award":
            seat = e["seat"]
            won[seat] = won.get(seat, 0) + e["amount"]
            pot = ("main pot" if side_pots else "pot") if e["pot"] == 0 else f"side pot-{e['pot']}"
            out.append(f"{name[seat]} collected {money(e['amount'])} from {pot}")
        # rake: stated in the summary
    if showdown_at is None and contested:
        out.append("*** SHOW DOWN ***")
    rakes = [e["amount"] for e in events if e["kind"] == "rake"]
    rake = sum(rakes) if rakes else None
    out.append("*** SUMMARY ***")
    out.append(f"Total pot {money(put_in)}" + (f" | Rake {money(rake)}" if rake is not None else ""))
    if board:
        out.append(f"Board [{' '.join(board)}]")
    dealt = [e["seat"] for e in events if e["kind"] == "deal" and e["to"] == "hole"]
    for seat in sorted(dict.fromkeys(dealt)):
        role = "".join(f" ({r})" for r in roles.get(seat, []))
        if seat in shown:
            cards = " ".join(shown[seat])
            tail = f"showed [{cards}] and won ({money(won[seat])})" if seat in won else f"showed [{cards}] and lost"
        elif seat in won:
            tail = f"collected ({money(won[seat])})"
        elif seat in folded:
            where = folded[seat]
            tail = ("folded before the Draw" if where == 0 else "folded after the Draw") \
                if hand["variant"] == "five-card-draw" else f"folded {FOLDED_AT[min(where, 3)]}"
        elif seat in mucked:
            tail = "mucked"
        else:
            tail = "lost"
        out.append(f"Seat {seat}: {name[seat]}{role} {tail}")
    return out


def write_hands(hands: Iterable[dict], path: str | Path) -> int:
    """Write the hands (each one :func:`cannot_express` accepts) to one PokerStars text file, in order,
    separated by blank lines as the room does; returns how many were written. UTF-8, no byte-order mark."""
    count = 0
    with open(path, "w", encoding="utf-8", newline="\n") as stream:
        for hand in hands:
            problem = cannot_express(hand)
            if problem:
                raise ValueError(f"hand {hand.get('hand_id')!r} cannot be written as PokerStars text: {problem}")
            if count:
                stream.write("\n\n")
            stream.write("\n".join(format_hand(hand)) + "\n")
            count += 1
    return count


def event_index(hand: dict) -> list[int | None]:
    """For each event of `hand`, its index in the hand read back from the text (None for a burn, which
    PokerStars does not print; hole deals in the reader's order): how verify finds a planted event in
    what the reader gives back."""
    return _read_order(hand, inverse=True)


def _read_order(hand: dict, inverse: bool = False) -> list:
    """The canonical event indices in the order the reader gives the events back (burns dropped, hole deals
    in dealing order, the rake once and last); with `inverse`, for each canonical event its index read back
    (a second rake event has none: the text states their sum)."""
    events = hand["events"]
    deals = _deal_order(hand)
    slots = iter(deals)
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


def carried(hand: dict) -> dict:
    """`hand` as the PokerStars reader should give it back from this writer's text: what the format carries.

    The id becomes its hand number, the room PokerStars, the time whole seconds in Eastern time, chips of
    a play-money hand count in its chip unit (chip_unit 1), burns and event times go, an all-in is
    marked on every post or action that leaves the seat without chips, a seat's status is kept only
    when sitting out and not posting, and `money_scale` is not stated. The rule pack is left as given.
    """
    unit = 1 if hand.get("currency") else hand["stakes"]["chip_unit"]
    posted = {e["seat"] for e in hand["events"] if e["kind"] == "post"}
    out: dict[str, Any] = {"hand_id": hand_number(hand["hand_id"]), "table_id": hand["table_id"], "room": ROOM}
    stamp = _stamp(hand.get("started_at"))
    if stamp:
        moment = datetime.fromisoformat(hand["started_at"])
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        out["started_at"] = moment.astimezone(ET).replace(microsecond=0).isoformat()
    out.update(variant=hand["variant"], structure=hand["structure"])
    if hand.get("currency"):
        out["currency"] = hand["currency"]
    out["money_scale"] = 100 if hand.get("currency") else 1
    stakes = {k: ([x // unit for x in v] if isinstance(v, list) else v // unit)
              for k, v in _expected_stakes(hand).items()}
    stakes["chip_unit"] = 1
    out["stakes"] = stakes
    out["max_seats"] = hand["max_seats"]
    out["rule_pack"] = hand["rule_pack"]
    seats = []
    left: dict[int, int] = {}
    for s in sorted(hand["seats"], key=lambda s: s["seat"]):
        entry: dict[str, Any] = {"seat": s["seat"], "player": s["player"], "stack": s["stack"] // unit}
        if s.get("status") == "sitting_out" and s["seat"] not in posted:
            entry["status"] = "sitting_out"
        seats.append(entry)
        left[s["seat"]] = s["stack"]
    events = []
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
    if any(e["kind"] == "rake" for e in out["events"]):  # one rake for the hand, taken from no pot in particular
        out["events"][-1] = {"kind": "rake", "amount": sum(e["amount"] for e in events if e and e["kind"] == "rake")}
    return out
