"""Writer: canonical hands -> PHH (the uoftcprg Poker Hand History format, phh-std), one `.phhs` file.

It exists so that `auditor verify --via phh` can measure the PHH reader (`auditor/ingest/phh.py`) on
exactly the hands the canonical log holds, and so that `auditor simulate --format phh` writes files
PokerKit and other PHH tools read. A writer never judges: an illegal action (a fold by a player who
already folded, an action out of turn, a raise of nothing) is written as it happened, for the
reader to record and a rule to report.

How a canonical hand is written:

- A `.phhs` file: each hand is a TOML table `[1]`, `[2]`, ... in the order given. `table` numbers
  the file's distinct canonical tables 1, 2, ... in order of appearance and `hand` numbers the
  hands of the file, so the reader's ids keep hands of one table together (a PHH `table` and `hand`
  are integers; the canonical ids are not kept).
- Players by position: the seat that posted blind 1 first, blind 2 second, straddlers next, then
  the other seats clockwise from the button, the button last (heads-up: the big blind first, the
  button, who posts the small blind, last; the per-player arrays are then written reversed, as
  phh-std says). For a legal hand that is PHH's order (small blind first, button last); for a
  hand whose blinds came from the wrong seats it is still who posted what, and `seats` says where
  each player sat. `seat_count` is `max_seats`; `players` the names.
- `variant`: NT (no-limit hold'em), FT (fixed-limit hold'em, with `small_bet` and `big_bet`), PO
  (pot-limit Omaha). `antes` and `blinds_or_straddles` per player; `min_bet` the big blind;
  `starting_stacks`; `finishing_stacks` (starting stack - chips put in + chips returned + chips
  won: PHH records no pot awards, the reader attributes the winnings to pots); no `rake` (not in
  phh-std: PokerKit 0.7 takes `rake` for its rake function and fails on a number); `venue` the
  room, `currency`; `year`, `month`, `day`, `time` and `time_zone = "UTC"` from `started_at`.
- Money: a canonical amount `a` of a hand with `money_scale` m is written as a / m, an integer when
  m divides it, else the exact decimal (TOML floats; phh-std allows non-integer amounts): so a game
  kept in half chips (m = 2) writes its half chips as .5 and the reader's half-chip scaling is
  invisible after the round trip.
- `actions`: `d dh pN cards` for hole deals (`????` for unknown cards), `d db cards` for board
  deals, `pN f`, `pN cc` (check or call), `pN cbr X` (bet or raise to X, the round total),
  `pN sm cards` (show) and bare `pN sm` (muck). Burns, returns and awards have no action: PHH
  implies the uncalled bet and the pots from the chips.

What PHH cannot hold is named by `cannot_express` (see its docstring).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path

from auditor.export.ohh import burn_problem, chip_unit_problem, contributions, returns_problem, to_problem
from auditor.ingest.jsonl import consistency_error
from auditor.model.pots import build_pots, share_winnings
from auditor.model.seats import clockwise_after

__all__ = ["HIDDEN_CATEGORIES", "cannot_express", "cannot_express_together", "event_index", "to_phh", "write_hands"]

#: (variant, structure) -> PHH variant code (phh-std)
CODES = {("holdem", "no-limit"): "NT", ("holdem", "fixed-limit"): "FT", ("omaha", "pot-limit"): "PO"}
#: ISO 4217 currencies without minor units (the reader counts every other named currency in cents)
ZERO_DECIMAL_CURRENCIES = frozenset({"JPY", "KRW", "VND", "CLP", "ISK", "PYG", "UGX", "XAF", "XOF", "RWF"})
#: finding categories PHH cannot show at all (verify lists them instead of planting them)
HIDDEN_CATEGORIES = {
    "burn": "PHH records no burn cards, so a missing or extra burn cannot be seen in it",
    "record": ("PHH has no hand id (the reader names hands by file and table key) and no round total "
               "(cbr states it, cc implies it), so neither a repeated id nor a wrong total can be written"),
    "rake": "phh-std has no rake field (PokerKit reads `rake` as its rake function and fails on a number), "
            "so no raked hand can be written",
}
#: the chip unit (in the log's integer amounts) the reader takes, since PHH states none: a hand kept in
#: chips of this unit carries every split pot (verify simulates a share of its tables in it)
IMPLIED_CHIP_UNIT = 1
NO_WORDS = {
    "seat_draw": "PHH has no seat draw (a hand starts with the players seated)",
    "seat_request": "PHH has no seat request",
    "seat_fill": "PHH has no seat fill",
    "kill": "PHH has no hand killed by the house (only the player's own fold)",
    "draw": "PHH has draws only in lowball and badugi variants, which the canonical log does not have",
}


# -- what PHH cannot hold ----------------------------------------------------------------------


def cannot_express(hand: dict) -> str | None:
    """Why PHH cannot hold `hand` so that it reads back to the same audit, or None.

    - games: phh-std's codes for the canonical games are NT (no-limit hold'em), FT (fixed-limit
      hold'em) and PO (pot-limit Omaha) only: no pot-limit hold'em, no no-limit or fixed-limit
      Omaha high (FO, which our reader accepts, is not in phh-std nor in PokerKit), no spread
      limit, no NZ casino games, no five-card draw (PHH's draw games are lowball and badugi);
    - stakes: a small and a big blind (PHH's blinds are per position: one blind, or three, cannot
      be said), fixed-limit bet units small, small, big, big, no table minimum or maximum;
    - players: PHH lists the players in the hand: a seated player sitting out (or new, or away)
      cannot be written; the button sits in the hand and, with three or more players, posts no
      blind;
    - posts: antes by two or more players (or one player's ante for the table, which PHH's reader
      takes as dead money: the canonical `dead` post), the two blinds and straddles, each the
      stakes' amount (or the poster's whole stack): no missed blinds, no other dead money, no blind
      posted short;
    - actions: `cc` is a check or a call as the bet faced decides, so a check facing a bet, or a
      call of other than the chips owed (capped at the stack), cannot be said; `cbr` is a bet or a
      raise as the round decides, so a "bet" into a bet, or a "raise" or "call" to other than the
      round state implies, cannot be said; a `to` other than the round's chips plus the amount;
    - no seat draw, request or fill, no kill, no burns (unless dropping them changes nothing:
      `burn_problem`), no uncalled-bet line (a return other than the one the chips imply), no pot
      awards (awards other than those the reader attributes from the finishing stacks), no rake
      (phh-std has no rake field; see `_rake_problem`);
    - money: amounts a / money_scale must be exact decimals that the reader's one scale per hand
      brings back to the same integers; the smallest chip is not stated (`chip_unit_problem`).
    """
    unplaced = consistency_error(hand)
    if unplaced:  # the writer would have no player to put the event on (KeyError)
        return f"the hand cannot be replayed: {unplaced}"
    code = CODES.get((hand["variant"], hand["structure"]))
    if code is None:
        return (f"PHH has no variant code for {hand['structure']} {hand['variant']} "
                "(it has NT, FT and PO for these games)")
    stakes = hand["stakes"]
    blinds = stakes.get("blinds", [])
    if len(blinds) != 2 or not blinds[0]:
        return "PHH's forced bets are per position (small blind, big blind, straddles): the stakes have other blinds"
    if "table_min" in stakes or "table_max" in stakes:
        return "PHH has no table minimum or maximum"
    if code == "FT":
        units = stakes.get("bet_units") or []
        if len(units) != 4 or units[0] != units[1] or units[2] != units[3]:
            return "PHH fixed limit has a small and a big bet (small, small, big, big); the hand's units differ"
    for ev in hand["events"]:
        if ev["kind"] in NO_WORDS:
            return NO_WORDS[ev["kind"]]
        if ev["kind"] == "post" and ev["post"] == "missed":
            return "PHH has no missed blind (only antes, blinds and straddles)"
    for s in hand["seats"]:
        if s.get("status", "active") != "active":
            return f"PHH lists only the players in the hand: a seated player is {s['status']}"
    try:
        order = _positions(hand)
    except _Cannot as exc:
        return str(exc)
    return (_posts_problem(hand, order) or burn_problem(hand, "PHH") or to_problem(hand, "PHH")
            or _actions_problem(hand) or returns_problem(hand, "PHH", among_in_hand=True)
            or _rake_problem(hand) or _money_problem(hand) or _awards_problem(hand, order))


def cannot_express_together(hands: Iterable[dict]) -> str | None:
    """Why PHH cannot hold these hands in one file so that they read back to the same audit, or None.

    `cannot_express` judges a hand alone; this is what only several hands show. PHH has no hand
    id: the reader names each hand by its file and table key, which TOML keeps unique, so a hand id
    repeated in the log (the `record` rule on ids) cannot be written.
    """
    seen: set[str] = set()
    for hand in hands:
        if hand["hand_id"] in seen:
            return "PHH has no hand id (the reader names hands by file and table key): a hand id repeats"
        seen.add(hand["hand_id"])
    return None


class _Cannot(Exception):
    """PHH cannot say this; the message is why."""


def _positions(hand: dict) -> list[int]:
    """Seats in the order PHH lists the players (see the module docstring)."""
    seats = [s["seat"] for s in hand["seats"]]
    buttons = [ev["seat"] for ev in hand["events"] if ev["kind"] == "button"]
    if len(buttons) != 1:
        raise _Cannot(f"PHH's button is the last player: the hand has {len(buttons)} button events")
    button = buttons[0]
    if button not in seats:
        raise _Cannot(f"PHH's button is the last player: the button (seat {button}) is not in the hand")
    posters: dict[int, int] = {}
    straddlers: list[int] = []
    for ev in hand["events"]:
        if ev["kind"] == "post" and ev["post"] == "blind":
            if ev["blind"] in posters or ev["seat"] in posters.values():
                raise _Cannot("PHH posts one blind per position: a blind is posted twice")
            posters[ev["blind"]] = ev["seat"]
        elif ev["kind"] == "post" and ev["post"] == "straddle":
            if ev["seat"] in straddlers:
                raise _Cannot("PHH posts one straddle per position: seat {ev['seat']} straddles twice")
            straddlers.append(ev["seat"])
    if sorted(posters) != [1, 2]:
        raise _Cannot(f"PHH's blinds are positional: the hand posts blind(s) {sorted(posters)}, not 1 and 2")
    first, second = posters[1], posters[2]
    n = len(seats)
    if n == 2:
        if first != button:
            raise _Cannot("PHH heads-up: the button posts the small blind; here another seat does")
        return [second, button]
    if button in (first, second) or button in straddlers or set(straddlers) & {first, second}:
        raise _Cannot("PHH's positions: the button or a blind also posts another blind or straddle")
    fixed = [first, second, *straddlers]
    rest = [s for s in clockwise_after(sorted(seats), button) if s not in fixed and s != button]
    return [*fixed, *rest, button]


def _posts_problem(hand: dict, order: list[int]) -> str | None:
    """Why the posts are not what PHH's per-position antes and forced bets give back, or None.

    The reader posts every ante (in position order), then blind 1, blind 2 and the straddles (in
    position order), each the amount the file states or the poster's whole stack, before anything
    else happens; the stakes' ante is the antes' amount when two or more players post equal antes.
    """
    stakes = hand["stakes"]
    stack = {s["seat"]: s["stack"] for s in hand["seats"]}
    posts = []
    started = False
    for i, ev in enumerate(hand["events"]):
        kind = ev["kind"]
        if kind in ("action", "show", "muck") or (kind == "deal" and ev["to"] != "burn"):
            started = True
        elif kind == "post":
            if started:
                return "PHH posts every forced bet before the deal; this hand posts later"
            posts.append((i, ev))
    position = {seat: p for p, seat in enumerate(order)}
    antes = [ev for _, ev in posts if ev["post"] == "ante"]
    dead = [ev for _, ev in posts if ev["post"] == "dead"]
    if dead:
        # one player's ante for the table (a big-blind or button ante) is what PHH's lone ante means
        if len(dead) > 1 or antes:
            return "PHH has no dead blind (only antes, blinds and straddles; one player's ante is dead money)"
        antes = dead
    straddles = sorted((ev for _, ev in posts if ev["post"] == "straddle"), key=lambda ev: position[ev["seat"]])
    blinds = sorted((ev for _, ev in posts if ev["post"] == "blind"), key=lambda ev: ev["blind"])
    want = sorted(antes, key=lambda ev: position[ev["seat"]]) + blinds + straddles
    if [ev for _, ev in posts] != want:
        return "PHH posts the antes (in position order), then the blinds, then the straddles; this hand posts otherwise"
    for _, ev in posts:
        seat = ev["seat"]
        if ev["post"] == "blind":
            expected = min(stakes["blinds"][ev["blind"] - 1], stack[seat])
            if ev["amount"] != expected:
                return "PHH's blinds are the stakes (or the poster's stack): this hand posts a blind of another amount"
        elif ev["amount"] > stack[seat]:
            return "PHH posts at most the stack: this hand posts more"
        stack[seat] -= ev["amount"]
    if len({ev["seat"] for ev in antes}) != len(antes):
        return "PHH has one ante per player; a player antes twice"
    if len(antes) == 1:
        if antes[0]["post"] != "dead":
            return "PHH reads a lone ante as dead money for the pot, not the poster's live ante"
        return None if "ante" not in stakes else "PHH implies no stakes' ante from one player's ante"
    amounts = {ev["amount"] for ev in antes}
    implied = amounts.pop() if len(amounts) == 1 else None
    if stakes.get("ante") != implied:
        return "PHH implies the stakes' ante from equal antes posted: this hand's stakes say otherwise"
    return None


def _actions_problem(hand: dict) -> str | None:
    """Why a check, call, bet or raise is not what `cc` or `cbr` gives back in its round, or None."""
    stack = {s["seat"]: s["stack"] for s in hand["seats"]}
    in_round: dict[int, int] = defaultdict(int)
    for ev in hand["events"]:
        kind = ev["kind"]
        if kind == "post":
            stack[ev["seat"]] -= ev["amount"]
            if ev["post"] in ("blind", "straddle"):
                in_round[ev["seat"]] += ev["amount"]
        elif kind == "deal" and ev["to"] == "board":
            in_round.clear()
        elif kind == "action":
            seat, action = ev["seat"], ev["action"]
            current = max(in_round.values(), default=0)
            owed = max(0, current - in_round[seat])
            if action == "check":
                if owed and stack[seat] > 0:
                    return "PHH's cc is a check or a call as the bet faced decides: a check facing a bet cannot be said"
            elif action == "call" and (ev["amount"] != min(owed, stack[seat]) or ev["amount"] == 0):
                return "PHH's cc calls the chips owed (or the stack): a call of another amount cannot be said"
            elif action in ("bet", "raise"):
                target = ev["to"]
                if ev["amount"] == 0:
                    want = "raise" if current > 0 else "bet"
                else:
                    want = "call" if target <= current else "raise" if current > 0 else "bet"
                if want != action:
                    return (f"PHH's cbr is a bet or a raise as the round decides: a {action} the round "
                            f"makes a {want} cannot be said")
                if ev["amount"] > stack[seat]:
                    return "PHH bets at most the stack: this hand bets more"
            if action != "fold":
                amount = ev.get("amount") or 0
                stack[seat] -= amount
                in_round[seat] += amount
    return None


def _rake_problem(hand: dict) -> str | None:
    """phh-std has no rake field. Our reader reads a `rake` number (some converters write one), but
    PokerKit, the format's reference implementation, takes `rake` to be its rake function and fails
    on a number, so the writer writes no rake and a raked hand cannot be written."""
    if any(ev["kind"] == "rake" for ev in hand["events"]):
        return "phh-std has no rake field (PokerKit reads `rake` as its rake function and fails on a number)"
    return None


def _implied_chip(hand: dict) -> Fraction:
    """The smallest chip the reader assumes, in the hand's currency."""
    currency = hand.get("currency")
    if currency is None or currency.upper() in ZERO_DECIMAL_CURRENCIES:
        return Fraction(1)
    return Fraction(1, 100)


def _money_problem(hand: dict) -> str | None:
    """Why the reader's one scale per hand would not bring the written amounts back, or the chip unit matters."""
    m = hand.get("money_scale", 1)
    chip = _implied_chip(hand)
    scale = chip.denominator
    for a in _amounts(hand):
        scale = math.lcm(scale, Fraction(a, m).denominator)
    if scale != m:
        return (f"PHH amounts come back at a scale of {scale} to the unit (the reader's one scale per hand); "
                f"the hand's money_scale is {m}")
    if any(Fraction(a, m).denominator > 1 and not _finite_decimal(Fraction(a, m)) for a in _amounts(hand)):
        return f"PHH amounts are decimals: money_scale {m} gives amounts that are not"
    return chip_unit_problem(hand, int(chip * scale), "PHH")


def _finite_decimal(x: Fraction) -> bool:
    d = x.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    return d == 1


def _amounts(hand: dict) -> Iterable[int]:
    """Every amount the PHH text states (stakes, stacks, posts, bet totals, finishing stacks)."""
    stakes = hand["stakes"]
    yield from stakes.get("blinds", ())
    yield from stakes.get("bet_units", ())
    yield stakes.get("ante", 0)
    for s in hand["seats"]:
        yield s["stack"]
    for ev in hand["events"]:
        if ev["kind"] in ("post", "rake"):
            yield ev["amount"]
        elif ev["kind"] == "action" and ev["action"] in ("bet", "raise"):
            yield ev["to"]
    yield from _finishing(hand).values()


def _finishing(hand: dict) -> dict[int, int]:
    """Each seat's stack at the end: starting - chips put in + chips returned + chips won."""
    stack = {s["seat"]: s["stack"] for s in hand["seats"]}
    for ev in hand["events"]:
        kind = ev["kind"]
        if kind == "post" or (kind == "action" and ev["action"] != "fold"):
            stack[ev["seat"]] -= ev.get("amount") or 0
        elif kind in ("return", "award"):
            stack[ev["seat"]] += ev["amount"]
    return stack


def _awards_problem(hand: dict, order: list[int]) -> str | None:
    """Why the hand's awards are not the ones the finishing stacks imply, or None.

    PHH records each player's finishing stack, not who won which pot; the reader (its module
    docstring) builds the pots from the contributions and pays each player's winnings from the last
    side pot to the main pot, to the eligible players who won anything, as equally as their
    winnings allow, a remainder to the player with most winnings left (ties in position order).
    This is that rule, written again from its description, so that a difference is found here
    rather than counted as a miss.
    """
    live, returned, dead, folded = contributions(hand)
    net = {s: live[s] - returned.get(s, 0) for s in live}
    pots = build_pots(net, folded, dead)
    stated: dict[tuple[int, int], int] = defaultdict(int)
    won: dict[int, int] = defaultdict(int)
    for ev in hand["events"]:
        if ev["kind"] == "award":
            stated[(ev["pot"], ev["seat"])] += ev["amount"]
            won[ev["seat"]] += ev["amount"]
    rake = sum(ev["amount"] for ev in hand["events"] if ev["kind"] == "rake")
    position = {seat: p for p, seat in enumerate(order)}
    remaining = {s: w for s, w in won.items() if w > 0}
    implied: dict[tuple[int, int], int] = defaultdict(int)
    for p in range(len(pots) - 1, -1, -1):
        amount = pots[p].amount - (rake if p == 0 else 0)
        takers = sorted((s for s in pots[p].eligible if remaining.get(s, 0) > 0), key=position.__getitem__)
        for s, a in share_winnings(amount, takers, remaining).items():
            remaining[s] -= a
            implied[(p, s)] += a
    for s, w in remaining.items():
        if w > 0:
            implied[(0, s)] += w
    implied = {k: v for k, v in implied.items() if v > 0}
    if dict(stated) != implied:
        return ("PHH records finishing stacks, not pot awards: this hand's awards are not the ones "
                "its stacks imply")
    return None


# -- writing ---------------------------------------------------------------------------------------


def to_phh(hand: dict, table: int = 1, number: int = 1) -> list[str]:
    """The TOML lines (without the `[k]` header) of one canonical hand; `table` and `number` are the
    PHH `table` and `hand` integers."""
    m = hand.get("money_scale", 1)

    def money(a: int) -> str:
        x = Fraction(a, m)
        if x.denominator == 1:
            return str(x.numerator)
        return _decimal_text(x)

    try:
        order = _positions(hand)
    except _Cannot:  # cannot_express says why; write the seats as they sit, button last
        order = _fallback_order(hand)
    n = len(order)
    player = {seat: f"p{i + 1}" for i, seat in enumerate(order)}
    by_seat = {s["seat"]: s for s in hand["seats"]}
    stakes = hand["stakes"]
    antes = dict.fromkeys(order, 0)
    forced = dict.fromkeys(order, 0)
    actions: list[str] = []
    for ev in hand["events"]:
        kind = ev["kind"]
        if kind == "post":
            if ev["post"] in ("ante", "dead"):  # a dead post is one player's ante for the table
                antes[ev["seat"]] += ev["amount"]
            elif ev["post"] == "blind":
                # an all-in blind is written as the stakes' blind: the reader posts what the stack allows
                k = ev["blind"] - 1
                stake = stakes["blinds"][k] if k < len(stakes.get("blinds", ())) else ev["amount"]
                forced[ev["seat"]] = max(ev["amount"], stake) if ev.get("all_in") else ev["amount"]
            else:
                forced[ev["seat"]] += ev["amount"]
        elif kind == "deal":
            if ev["to"] == "hole":
                actions.append(f"d dh {player[ev['seat']]} {''.join(ev['cards'])}")
            elif ev["to"] == "board":
                actions.append(f"d db {''.join(ev['cards'])}")
        elif kind == "action":
            who = player[ev["seat"]]
            action = ev["action"]
            if action == "fold":
                actions.append(f"{who} f")
            elif action in ("check", "call"):
                actions.append(f"{who} cc")
            else:
                actions.append(f"{who} cbr {money(ev['to'])}")
        elif kind == "show":
            actions.append(f"{player[ev['seat']]} sm {''.join(ev['cards'])}")
        elif kind == "muck":
            actions.append(f"{player[ev['seat']]} sm")
    finishing = _finishing(hand)
    ante_list = [antes[s] for s in order]
    forced_list = [forced[s] for s in order]
    if n == 2:  # phh-std: heads-up, the arrays apply reversed (the button posts the small blind)
        ante_list, forced_list = ante_list[::-1], forced_list[::-1]
    code = CODES.get((hand["variant"], hand["structure"]), "NT")
    blinds = stakes.get("blinds", [])
    lines = [f"variant = {_str(code)}"]
    lines.append(f"antes = [{', '.join(money(a) for a in ante_list)}]")
    lines.append(f"blinds_or_straddles = [{', '.join(money(b) for b in forced_list)}]")
    if code == "FT":
        units = stakes.get("bet_units") or [0, 0, 0, 0]
        lines.append(f"small_bet = {money(units[0])}")
        lines.append(f"big_bet = {money(units[-1])}")
    else:
        lines.append(f"min_bet = {money(blinds[-1] if blinds else 0)}")
    lines.append(f"starting_stacks = [{', '.join(money(by_seat[s]['stack']) for s in order)}]")
    lines.append(f"actions = [{', '.join(_str(a) for a in actions)}]")
    lines.append(f"seats = [{', '.join(str(s) for s in order)}]")
    lines.append(f"seat_count = {hand['max_seats']}")
    lines.append(f"players = [{', '.join(_str(by_seat[s]['player']) for s in order)}]")
    lines.append(f"finishing_stacks = [{', '.join(money(finishing[s]) for s in order)}]")
    if hand.get("room"):
        lines.append(f"venue = {_str(hand['room'])}")
    if hand.get("currency"):
        lines.append(f"currency = {_str(hand['currency'])}")
    started = _utc(hand.get("started_at"))
    if started is not None:
        lines.append(f"year = {started.year}")
        lines.append(f"month = {started.month}")
        lines.append(f"day = {started.day}")
        lines.append(f"time = {started.strftime('%H:%M:%S')}")
        lines.append('time_zone = "UTC"')
    lines.append(f"table = {table}")
    lines.append(f"hand = {number}")
    return lines


def event_index(hand: dict) -> list[int | None]:
    """For each event of `hand`, its index in the hand the PHH reader gives back (None for a burn,
    which PHH does not record): how verify finds a planted event in what the reader gives back.

    The reader gives the button, the posts (in the order `cannot_express` requires), the actions in
    the order of the file, the uncalled bet right after the last betting action (or the posts), then
    the rake and the awards pot by pot, each pot's awards in position order.
    """
    events = hand["events"]
    try:
        position = {seat: p for p, seat in enumerate(_positions(hand))}
    except _Cannot:
        position = {seat: p for p, seat in enumerate(_fallback_order(hand))}
    order = [i for i, ev in enumerate(events) if ev["kind"] == "button"][:1]
    order += [i for i, ev in enumerate(events) if ev["kind"] == "post"]
    last_bet = len(order)
    for i, ev in enumerate(events):
        kind = ev["kind"]
        if kind in ("button", "post", "return", "rake", "award") or (kind == "deal" and ev["to"] == "burn"):
            continue
        order.append(i)
        if kind == "action":
            last_bet = len(order)
    order[last_bet:last_bet] = [i for i, ev in enumerate(events) if ev["kind"] == "return"]
    order += [i for i, ev in enumerate(events) if ev["kind"] == "rake"]
    awards = [i for i, ev in enumerate(events) if ev["kind"] == "award"]
    order += sorted(awards, key=lambda i: (events[i]["pot"], position.get(events[i]["seat"], 99)))
    back: list[int | None] = [None] * len(events)
    for k, i in enumerate(order):
        back[i] = k
    return back


def _fallback_order(hand: dict) -> list[int]:
    seats = sorted(s["seat"] for s in hand["seats"])
    button = next((ev["seat"] for ev in hand["events"] if ev["kind"] == "button"), None)
    if button not in seats:
        return seats
    return [s for s in clockwise_after(seats, button) if s != button] + [button]


def _utc(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def _decimal_text(x: Fraction) -> str:
    """The exact decimal of a fraction whose denominator has only the factors 2 and 5 (others are
    cut at 12 places; cannot_express refuses such hands)."""
    places = next((p for p in range(13) if (x * 10**p).denominator == 1), 12)
    whole = x * 10**places
    digits = str(whole.numerator // whole.denominator).rjust(places + 1, "0")
    return f"{digits[:-places]}.{digits[-places:]}" if places else digits


def _str(text: str) -> str:
    """A TOML basic string: player names and rooms are untrusted text, every control character and
    quote is escaped (TOML forbids raw control characters in strings)."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\u{code:04X}")
        elif 0xD800 <= code <= 0xDFFF:  # a lone surrogate is no character; TOML cannot hold it
            out.append("\\uFFFD")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def write_hands(hands: Iterable[dict], path: Path) -> int:
    """Write `hands` to the `.phhs` file `path` as tables [1], [2], ...; return how many were written."""
    tables: dict[str, int] = {}
    count = 0
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for hand in hands:
            count += 1
            table = tables.setdefault(hand["table_id"], len(tables) + 1)
            out.write(f"[{count}]\n")
            out.write("\n".join(to_phh(hand, table, count)))
            out.write("\n\n")
    return count
