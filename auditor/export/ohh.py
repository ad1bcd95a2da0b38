"""Writer: canonical hands -> Open Hand History 1.4 (`.ohh`, hh-specs.handhistory.org).

It exists so that `auditor verify --via ohh` can measure the OHH reader (`auditor/ingest/ohh.py`)
on exactly the hands the canonical log holds, and so that `auditor simulate --format ohh` writes
files other OHH tools read. A writer never judges: an illegal action (a check facing a bet, an
action after a fold, a board of the wrong size) is written as it happened, for the reader to record
and a rule to report.

How a canonical hand is written (the choices the specification leaves open):

- One `{"ohh": {...}}` object per hand, each on one line and followed by a blank line (the
  specification's storage format: objects separated by blank lines; our reader also reads one
  object per line). `spec_version` is "1.4".
- Money: OHH amounts are decimals in the hand's currency. A canonical amount `a` of a hand with
  `money_scale` m is written as the exact decimal a / m (never through a float). A hand with a
  currency is a cash game; a hand kept in whole chips (money_scale 1) without a currency is written
  with `"tournament": true`, the OHH convention whose amounts are whole chips (a cash game without
  a currency would be read back in hundredths). `chip_unit` cannot be stated (OHH has no smallest
  chip): the reader takes one cent, or one chip.
- `game_number` is `hand_id`, `table_name` `table_id`, `site_name` `room` ("poker-auditor" when
  the hand names none), `start_date_utc` `started_at`. Players get ids 0.. in seat order; a seat
  not `active` is `is_sitting_out`.
- Rounds: "Preflop" holds the posts, the hole cards ("Dealt Cards"; a seat whose cards are all
  unknown gets none) and the first betting round; each board deal opens the next street ("Flop",
  "Turn", "River") with that deal's cards; shows and mucks after the last betting action and the
  last board deal go to a "Showdown" round, any earlier ones (an all-in hand's shows before the
  run-out) stay where they happened. Action numbers run through the hand.
- Posts: blind 1 is "Post SB" (or "Post BB" when the stakes have a single blind), blind 2
  "Post BB", a missed (live) big blind "Post Extra Blind", dead money "Post Dead", straddles
  "Straddle", antes "Post Ante".
- Actions: "Fold", "Check", "Call", "Bet", "Raise" with `amount` = the chips the action adds (the
  specification's reading of a Raise; the canonical `amount`), `is_allin` from the canonical flag.
- Pots: one entry per pot number the hand forms, awards or rakes (main pot 0, then side pots),
  `amount` = the chips the pot held (computed from the contributions, as the replay builds pots),
  `rake` = the rake the log puts on it, `player_wins` = its awards. Uncalled bets have no OHH
  action: the pots imply them.

What OHH cannot hold is named by `cannot_express` (see its docstring); `verify` lists those hands
instead of counting them as misses.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from decimal import Decimal
from pathlib import Path
from typing import Any

from auditor.ingest.jsonl import consistency_error
from auditor.model.pots import build_pots

__all__ = ["HIDDEN_CATEGORIES", "burn_problem", "cannot_express", "cannot_express_together", "chip_unit_problem",
           "contributions", "event_index", "implied_return", "returns_problem", "to_ohh", "to_problem", "write_hands"]

SPEC_VERSION = "1.4"
DEFAULT_SITE = "poker-auditor"
GAME_TYPES = {"holdem": "Holdem", "omaha": "Omaha"}
BET_TYPES = {"no-limit": "NL", "pot-limit": "PL", "fixed-limit": "FL"}
STREETS = ("Flop", "Turn", "River")
POST_NAMES = {"straddle": "Straddle", "ante": "Post Ante", "dead": "Post Dead"}
ACTION_NAMES = {"fold": "Fold", "check": "Check", "call": "Call", "bet": "Bet", "raise": "Raise"}
#: canonical events OHH has no words for, with the reason
NO_WORDS = {
    "seat_draw": "OHH has no seat draw (a hand history starts with the players seated)",
    "seat_request": "OHH has no seat request",
    "seat_fill": "OHH has no seat fill",
    "draw": "OHH 1.4 has no draw (discard and replace) action",
    "kill": "OHH has no hand killed by the house (only the player's own Fold)",
}
#: finding categories OHH cannot show at all (verify lists them instead of planting them)
HIDDEN_CATEGORIES = {"burn": "OHH records no burn cards, so a missing or extra burn cannot be seen in it"}
#: the chip unit (in the log's integer amounts) the reader takes, since OHH states none: a hand kept in
#: chips of this unit carries every split pot (verify simulates a share of its tables in it)
IMPLIED_CHIP_UNIT = 1
#: canonical post kinds whose live money counts toward the poster's pots
LIVE_POSTS = frozenset({"blind", "missed", "straddle", "ante"})


# -- checks shared with the PHH writer ---------------------------------------------------------


def burn_problem(hand: dict, fmt: str) -> str | None:
    """Why dropping the hand's burn cards would change its audit, or None.

    Neither OHH nor PHH records burns, so the writers drop them. A hand with no burns, or with
    exactly one burn card before each board deal and none elsewhere, audits the same without
    them (the burn rule cannot judge a log without burns and finds nothing on the regular
    pattern); any other burn pattern is what the burn rule would report, and the format cannot
    carry it.
    """
    events = hand["events"]
    if not any(ev["kind"] == "deal" and ev["to"] == "burn" for ev in events):
        return None
    pending = 0
    for ev in events:
        if ev["kind"] != "deal":
            continue
        if ev["to"] == "burn":
            pending += len(ev["cards"])
        elif ev["to"] == "board":
            if pending != 1:
                return f"{fmt} records no burn cards: this hand burns other than one card before each board deal"
            pending = 0
    if pending:
        return f"{fmt} records no burn cards: this hand burns a card after the last board deal"
    return None


def chip_unit_problem(hand: dict, implied: int, fmt: str) -> str | None:
    """Why reading the hand back with the format's implied smallest chip would change its audit, or None.

    OHH and PHH do not state the table's smallest chip; their readers take one cent (or one chip),
    which is `implied` canonical units. The chip unit is read only where a pot is split (equal
    shares and odd chips are counted in chip units) and where rake is rounded. A pot of T split
    among w seats is judged alike under both units when T is a multiple of w chip units: no odd
    chip under either, the same equal share. So a hand is expressible unless it rakes or splits a
    pot that leaves odd chips of its own unit.
    """
    unit = hand["stakes"]["chip_unit"]
    if unit == implied:
        return None
    paid: dict[int, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    for ev in hand["events"]:
        if ev["kind"] == "award":
            paid[ev["pot"]][ev["seat"]] += ev["amount"]
        elif ev["kind"] == "rake":
            return (f"{fmt} does not state the smallest chip (its reader takes one cent or one chip), "
                    "and this hand's rake is rounded to the hand's own")
    for shares in paid.values():
        if len(shares) > 1 and sum(shares.values()) % (unit * len(shares)):
            return (f"{fmt} does not state the smallest chip (its reader takes one cent or one chip), "
                    "and this hand splits a pot with odd chips of the hand's own")
    return None


def contributions(hand: dict) -> tuple[dict[int, int], dict[int, int], int, set[int]]:
    """(live chips each seat put in, chips returned to each seat, dead money, folded seats)."""
    live: dict[int, int] = defaultdict(int)
    returned: dict[int, int] = defaultdict(int)
    dead = 0
    folded: set[int] = set()
    for ev in hand["events"]:
        kind = ev["kind"]
        if kind == "post":
            if ev["post"] in LIVE_POSTS:
                live[ev["seat"]] += ev["amount"]
            else:
                dead += ev["amount"]
        elif kind == "action":
            if ev["action"] == "fold":
                folded.add(ev["seat"])
            else:
                live[ev["seat"]] += ev.get("amount") or 0
        elif kind == "kill":
            folded.add(ev["seat"])
        elif kind == "return":
            returned[ev["seat"]] += ev["amount"]
    return live, returned, dead, folded


def implied_return(live: dict[int, int], among: Iterable[int] | None = None) -> tuple[int, int] | None:
    """(seat, amount) of the uncalled bet the contributions imply, or None.

    The largest contributor (among `among` when given: the players still in) gets back what no
    other seat matched. Formats without an "uncalled bet returned" line leave it to be derived so.
    """
    candidates = [s for s in (live if among is None else among) if live.get(s, 0) > 0]
    if not candidates:
        return None
    top = max(candidates, key=lambda s: (live[s], -s))
    second = max((v for s, v in live.items() if s != top), default=0)
    return (top, live[top] - second) if live[top] > second else None


def returns_problem(hand: dict, fmt: str, among_in_hand: bool) -> str | None:
    """Why the hand's uncalled-bet returns are not the one its contributions imply, or None."""
    live, returned, _, folded = contributions(hand)
    stated = sorted((s, a) for s, a in returned.items() if a)
    among = [s for s in live if s not in folded] if among_in_hand else None
    implied = implied_return(live, among)
    expected = [implied] if implied else []
    if stated != expected:
        what = ("returns nothing where the chips imply an uncalled bet" if not stated else
                "returns chips where the chips imply no uncalled bet" if not expected else
                "returns other chips than the chips imply")
        return f"{fmt} has no line for an uncalled bet returned (the chips imply it): this hand {what}"
    return None


def to_problem(hand: dict, fmt: str) -> str | None:
    """Why an action's `to` is not the chips the seat has in the round plus the action's amount, or None.

    OHH and PHH state one number per action; the round total is implied by the chips before it.
    Live posts (blinds, missed blinds, straddles) count toward the first round's totals.
    """
    in_round: dict[int, int] = defaultdict(int)
    for ev in hand["events"]:
        kind = ev["kind"]
        if (kind == "deal" and ev["to"] == "board") or kind == "draw":
            in_round.clear()
        elif kind == "post" and ev["post"] in ("blind", "missed", "straddle"):
            in_round[ev["seat"]] += ev["amount"]
        elif kind == "action" and ev["action"] in ("call", "bet", "raise"):
            want = in_round[ev["seat"]] + ev["amount"]
            if ev["to"] != want:
                return (f"{fmt} states the chips an action adds, not the round total: this hand has a total "
                        "that its chips do not add up to")
            in_round[ev["seat"]] = want
    return None


def _scale_problem(hand: dict, fmt: str, max_places: int) -> str | None:
    """Why amounts a / money_scale are not exact decimals of at most `max_places` places, or None."""
    m = hand.get("money_scale", 1)
    places = _places(m)
    if places is None or places > max_places:
        return f"{fmt} amounts are decimals: money_scale {m} is not a power of ten times 2 and 5"
    return None


def _places(m: int) -> int | None:
    """Decimal places every a / m needs at most (None when some a / m is not a finite decimal)."""
    twos = fives = 0
    while m % 2 == 0:
        m //= 2
        twos += 1
    while m % 5 == 0:
        m //= 5
        fives += 1
    return max(twos, fives) if m == 1 else None


# -- OHH -------------------------------------------------------------------------------------------


def _reader_scale(hand: dict) -> int:
    """The integer scale the OHH reader applies to this hand's written amounts (one per hand)."""
    m = hand.get("money_scale", 1)
    tournament = not hand.get("currency") and m == 1
    places = 0
    for a in _all_amounts(hand):
        d = (Decimal(a) / Decimal(m)).normalize()
        exp = d.as_tuple().exponent
        if isinstance(exp, int):
            places = max(places, -exp)
    return 10 ** max(places, 0 if tournament else 2)


def _all_amounts(hand: dict) -> Iterable[int]:
    stakes = hand["stakes"]
    yield from stakes.get("blinds", ())
    yield stakes.get("ante", 0)
    for s in hand["seats"]:
        yield s["stack"]
    for ev in hand["events"]:
        if "amount" in ev:
            yield ev["amount"]


def cannot_express(hand: dict) -> str | None:
    """Why OHH 1.4 cannot hold `hand` so that it reads back to the same audit, or None.

    - games: OHH's game types here are Holdem and Omaha (OmahaHiLo, Stud and Draw are other games;
      OHH 1.4 has no draw action); NZ casino Omaha and three-card NZ have no game type (Omaha
      would be read back as the online game, under other rules);
    - structures: no spread limit (bet types NL, PL, FL); fixed limit states only the blinds, so
      bet units other than (bb, bb, 2bb, 2bb) cannot be said;
    - stakes: two blinds at most (small and big), no table minimum or maximum;
    - events: no seat draw, request or fill, no draw, no hand killed by the house, no burns (a hand
      is expressible when dropping them changes nothing: see `burn_problem`), one button;
    - money: amounts come back on the reader's scale (cents for cash, chips for tournaments), so
      the hand's `money_scale` must be that scale; the smallest chip is not stated
      (`chip_unit_problem`);
    - players: a seat is dealt in or sitting out; a seated player who is not sitting out must be
      dealt cards, and a hand's hole cards are all known or all unknown per seat; `new` players
      (who owe nothing) are not distinguished from players sitting out;
    - actions: one amount per action (a `to` other than the round's chips plus the amount cannot be
      said); no uncalled-bet line (a return other than the one the chips imply cannot be said);
      rake belongs to a pot.
    """
    unplaced = consistency_error(hand)
    if unplaced:  # the writer would have no player to put the event on (KeyError)
        return f"the hand cannot be replayed: {unplaced}"
    variant = hand["variant"]
    if variant not in GAME_TYPES:
        if variant == "omaha-nz":
            return "OHH has no game type for NZ casino Omaha (its Omaha is read back as the online game)"
        if variant == "five-card-draw":
            return "OHH 1.4 has no draw action (the reader refuses game type Draw)"
        return f"OHH has no game type for {variant}"
    structure = hand["structure"]
    if structure not in BET_TYPES:
        return f"OHH has no bet type for {structure} (only NL, PL and FL)"
    stakes = hand["stakes"]
    blinds = stakes.get("blinds", [])
    if len(blinds) > 2:
        return "OHH states two blinds at most; the stakes have three"
    if "table_min" in stakes or "table_max" in stakes:
        return "OHH has no table minimum or maximum"
    if structure == "fixed-limit":
        bb = blinds[-1] if blinds else 0
        if stakes.get("bet_units") != [bb, bb, 2 * bb, 2 * bb]:
            return "OHH fixed limit states only the blinds (bet units bb, bb, 2bb, 2bb); the hand's differ"
    buttons = 0
    for ev in hand["events"]:
        kind = ev["kind"]
        if kind in NO_WORDS:
            return NO_WORDS[kind]
        if kind == "button":
            buttons += 1
        elif kind == "rake" and ev.get("pot") is None:
            return "OHH states rake per pot; this hand's rake names no pot"
        elif kind == "deal" and ev["to"] == "hole" and "??" in ev["cards"] and set(ev["cards"]) != {"??"}:
            return "OHH states hole cards in full or not at all; this hand knows some of a player's cards"
        elif kind == "show" and "??" in ev["cards"]:
            return "OHH shows cards in full; this hand shows an unknown card"
    if buttons != 1:
        return "OHH states one dealer seat; the hand has none or several button events"
    if sum(1 for ev in hand["events"] if ev["kind"] == "deal" and ev["to"] == "board") > len(STREETS):
        return "OHH has three board streets (Flop, Turn, River); the hand deals the board more often"
    problem = (_scale_problem(hand, "OHH", 6) or burn_problem(hand, "OHH") or to_problem(hand, "OHH")
               or returns_problem(hand, "OHH", among_in_hand=False) or _posts_problem(hand)
               or _seats_problem(hand))
    if problem:
        return problem
    m = hand.get("money_scale", 1)
    scale = _reader_scale(hand)
    if scale != m:
        return (f"OHH amounts come back at a scale of {scale} to the unit (cents for cash, chips for "
                f"tournaments); the hand's money_scale is {m}")
    return chip_unit_problem(hand, 1, "OHH")  # the reader's chip is one of its units


def cannot_express_together(hands: Iterable[dict]) -> str | None:
    """Why OHH cannot hold these hands in one file so that they read back to the same audit, or None.

    Nothing: each object carries its own `game_number` and `table_name`, so what only several hands
    show (a repeated id, a skipped hand, the button's movement) survives. The function exists so
    that every writer answers the same two questions.
    """
    return None


def _posts_problem(hand: dict) -> str | None:
    """Why a post would be named otherwise by OHH's post names, or None (see the module docstring)."""
    blinds = hand["stakes"].get("blinds", [])
    bb = blinds[-1] if blinds else 0
    one_blind = len(blinds) < 2 or not blinds[0]
    seen: set[int] = set()
    for ev in hand["events"]:
        if ev["kind"] != "post":
            continue
        post = ev["post"]
        if post == "blind":
            want = 1 if one_blind else ev["blind"]
            if ev["blind"] in seen or ev["blind"] != want or ev["blind"] > 2:
                return "OHH names a blind only small or big, each once: this hand posts blinds otherwise"
            seen.add(ev["blind"])
        elif post == "missed" and ev["amount"] != bb:
            return ("OHH's Post Extra Blind is read as a missed big blind only for the big blind's amount: "
                    "this hand makes up another amount")
    return None


def _seats_problem(hand: dict) -> str | None:
    dealt = {ev["seat"] for ev in hand["events"] if ev["kind"] == "deal" and ev["to"] == "hole"}
    for s in hand["seats"]:
        status = s.get("status", "active")
        if status == "active" and s["seat"] not in dealt:
            return "OHH cannot say that a seated player who is not sitting out was dealt nothing"
        if status == "new" and s["seat"] not in dealt:
            return "OHH has no new player who owes nothing (one would read as sitting out)"
    return None


def to_ohh(hand: dict) -> dict:
    """The `{"ohh": {...}}` object for one canonical hand (amounts as Decimals)."""
    m = hand.get("money_scale", 1)

    def money(a: int) -> Decimal | int:
        return a if m == 1 else Decimal(a) / Decimal(m)

    stakes = hand["stakes"]
    blinds = stakes.get("blinds", [])
    sb, bb = (blinds[0], blinds[1]) if len(blinds) >= 2 else (0, blinds[0] if blinds else 0)
    one_blind = not sb
    player_id = {s["seat"]: i for i, s in enumerate(sorted(hand["seats"], key=lambda s: s["seat"]))}
    events = hand["events"]
    button = next((ev["seat"] for ev in events if ev["kind"] == "button"), None)

    rounds: list[dict] = []
    number = 0

    def new_round(street: str, cards: list[str] | None = None) -> list[dict]:
        rounds.append({"id": len(rounds), "street": street, "cards": list(cards or []), "actions": []})
        return rounds[-1]["actions"]

    def add(actions: list[dict], seat: int, name: str, **fields: Any) -> None:
        nonlocal number
        actions.append({"action_number": number, "player_id": player_id[seat], "action": name, **fields})
        number += 1

    last_betting = max((i for i, ev in enumerate(events) if ev["kind"] in ("action", "post")), default=-1)
    last_board = max((i for i, ev in enumerate(events) if ev["kind"] == "deal" and ev["to"] == "board"),
                     default=-1)
    showdown_from = max(last_betting, last_board)
    actions = new_round("Preflop")
    boards = 0
    in_showdown = False
    for i, ev in enumerate(events):
        kind = ev["kind"]
        if kind == "post":
            post = ev["post"]
            if post == "blind":
                name = "Post BB" if ev["blind"] == 2 or one_blind else "Post SB"
            elif post == "missed":
                name = "Post Extra Blind"
            else:
                name = POST_NAMES[post]
            add(actions, ev["seat"], name, amount=money(ev["amount"]), **_allin(ev))
        elif kind == "deal":
            if ev["to"] == "hole":
                if set(ev["cards"]) != {"??"}:
                    add(actions, ev["seat"], "Dealt Cards", cards=list(ev["cards"]))
            elif ev["to"] == "board":
                street = STREETS[min(boards, len(STREETS) - 1)]
                boards += 1
                actions = new_round(street, ev["cards"])
            # burns: OHH records none (cannot_express says when that matters)
        elif kind == "action":
            fields: dict[str, Any] = {}
            if ev["action"] in ("call", "bet", "raise"):
                fields["amount"] = money(ev["amount"])
            add(actions, ev["seat"], ACTION_NAMES[ev["action"]], **fields, **_allin(ev))
        elif kind in ("show", "muck"):
            if i > showdown_from and not in_showdown:
                in_showdown = True
                actions = new_round("Showdown")
            if kind == "show":
                add(actions, ev["seat"], "Shows Cards", cards=list(ev["cards"]))
            else:
                add(actions, ev["seat"], "Mucks Cards")
        # button, return (implied by the pots), rake and award (in pots) are written elsewhere

    live, returned, dead, folded = contributions(hand)
    net = {s: live[s] - returned.get(s, 0) for s in live}
    formed = build_pots(net, folded, dead)
    rake: dict[int, int] = defaultdict(int)
    wins: dict[int, dict[int, int]] = defaultdict(dict)
    for ev in events:
        if ev["kind"] == "rake":
            rake[ev["pot"]] += ev["amount"]
        elif ev["kind"] == "award":
            paid = wins[ev["pot"]]
            paid[ev["seat"]] = paid.get(ev["seat"], 0) + ev["amount"]
    pots = []
    for p in sorted(set(range(len(formed))) | set(rake) | set(wins)):
        amount = formed[p].amount if p < len(formed) else sum(wins[p].values()) + rake.get(p, 0)
        pots.append({"number": p, "amount": money(amount), "rake": money(rake.get(p, 0)),
                     "player_wins": [{"player_id": player_id[s], "win_amount": money(a)}
                                     for s, a in wins[p].items()]})

    o: dict[str, Any] = {
        "spec_version": SPEC_VERSION,
        "site_name": hand.get("room") or DEFAULT_SITE,
        "game_number": hand["hand_id"],
        "table_name": hand["table_id"],
        "table_size": hand["max_seats"],
        "game_type": GAME_TYPES.get(hand["variant"], hand["variant"]),
        "bet_limit": {"bet_type": BET_TYPES.get(hand["structure"], hand["structure"])},
    }
    if hand.get("started_at"):
        o["start_date_utc"] = hand["started_at"]
    if hand.get("currency"):
        o["currency"] = hand["currency"]
    elif m == 1:
        o["tournament"] = True
    o.update({
        "dealer_seat": button,
        "small_blind_amount": money(sb),
        "big_blind_amount": money(bb),
        "ante_amount": money(stakes.get("ante", 0)),
        "players": [{"id": player_id[s["seat"]], "seat": s["seat"], "name": s["player"],
                     "starting_stack": money(s["stack"]),
                     **({"is_sitting_out": True} if s.get("status", "active") != "active" else {})}
                    for s in sorted(hand["seats"], key=lambda s: s["seat"])],
        "rounds": rounds,
        "pots": pots,
    })
    return {"ohh": o}


def event_index(hand: dict) -> list[int | None]:
    """For each event of `hand`, its index in the hand the OHH reader gives back (None for a burn,
    which OHH does not record): how verify finds a planted event in what the reader gives back.

    The reader writes the button first, then the events in the order of the file except that the
    hole cards of every seat dealt in come as one block, clockwise from the button, just before the
    first action, show or board deal; the uncalled bet comes right after the last post or betting
    action; rake and awards come last, pot by pot (the pot's rake, then its awards).
    """
    events = hand["events"]
    order: list[int] = [i for i, ev in enumerate(events) if ev["kind"] == "button"][:1]
    holes = {ev["seat"]: i for i, ev in enumerate(events) if ev["kind"] == "deal" and ev["to"] == "hole"}
    button = events[order[0]]["seat"] if order else 0
    pending = True

    def flush() -> None:
        nonlocal pending
        if pending:
            pending = False
            after = sorted(s for s in holes if s > button) + sorted(s for s in holes if s <= button)
            order.extend(holes[s] for s in after)

    for i, ev in enumerate(events):
        kind = ev["kind"]
        if kind in ("button", "return", "rake", "award") or (kind == "deal" and ev["to"] != "board"):
            continue
        if kind != "post":
            flush()
        order.append(i)
    flush()
    returns = [i for i, ev in enumerate(events) if ev["kind"] == "return"]
    if returns:
        last = max((k for k, i in enumerate(order) if events[i]["kind"] in ("post", "action")), default=-1)
        order[last + 1:last + 1] = returns
    for p in sorted({ev["pot"] for ev in events if ev["kind"] in ("rake", "award")}):
        order += [i for i, ev in enumerate(events) if ev["kind"] == "rake" and ev["pot"] == p]
        order += [i for i, ev in enumerate(events) if ev["kind"] == "award" and ev["pot"] == p]
    back: list[int | None] = [None] * len(events)
    for k, i in enumerate(order):
        back[i] = k
    return back


def _allin(ev: dict) -> dict:
    return {"is_allin": True} if ev.get("all_in") else {}


def dumps(value: Any) -> str:
    """JSON text of `value`, with Decimal amounts written exactly as decimals (json cannot)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))}: {dumps(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(dumps(v) for v in value) + "]"
    if isinstance(value, Decimal):
        text = format(value.normalize(), "f")
        return text
    return json.dumps(value)  # strings are escaped here: player names are untrusted text


def write_hands(hands: Iterable[dict], path: Path) -> int:
    """Write `hands` to the OHH file `path`, one object per line, blank-line separated; return the count."""
    count = 0
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for hand in hands:
            out.write(dumps(to_ohh(hand)))
            out.write("\n\n")
            count += 1
    return count
