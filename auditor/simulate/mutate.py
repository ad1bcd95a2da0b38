"""Mutators: each takes a legal hand and plants exactly one violation of one kind.

They are how rule examples and planted sample logs are made, and how the accuracy of the auditor
is measured: every mutator keeps the rest of the hand consistent (chips still balance, the turn
still passes correctly), so the hand breaks one rule and no other. A mutator edits the hand dict in
place and returns True, or returns False (unchanged) when the hand offers no place for its fault.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

Hand = dict


@dataclass(frozen=True)
class Mutator:
    name: str
    category: str
    what: str
    apply: Callable[[Hand], bool]


REGISTRY: dict[str, Mutator] = {}


def mutator(category: str, what: str) -> Callable[[Callable[[Hand], bool]], Callable[[Hand], bool]]:
    def register(fn: Callable[[Hand], bool]) -> Callable[[Hand], bool]:
        REGISTRY[fn.__name__] = Mutator(fn.__name__, category, what, fn)
        return fn
    return register


# -- helpers ----------------------------------------------------------------------------------

def _events(hand: Hand) -> list[dict]:
    return hand["events"]


def _is(ev: dict, kind: str, **fields) -> bool:
    return ev["kind"] == kind and all(ev.get(k) == v for k, v in fields.items())


def _unit(hand: Hand) -> int:
    return hand["stakes"]["chip_unit"]


def _rounds(hand: Hand) -> list[tuple[int, int]]:
    """(start, end) event index ranges of the betting rounds: split at board deals and draws."""
    ev = _events(hand)
    cuts = [i for i, e in enumerate(ev) if (_is(e, "deal", to="board") or _is(e, "draw"))
            and any(x["kind"] == "action" for x in ev[:i])]
    bounds, start = [], 0
    for cut in cuts:
        if any(x["kind"] == "action" for x in ev[start:cut]):
            bounds.append((start, cut))
            start = cut
    bounds.append((start, len(ev)))
    return bounds


def _single_winner(hand: Hand) -> dict | None:
    awards = [e for e in _events(hand) if e["kind"] == "award"]
    return awards[0] if len(awards) == 1 else None


def _showdown(hand: Hand) -> bool:
    return any(e["kind"] == "show" for e in _events(hand))


def _followed_by_folds_and_return(ev: list[dict], i: int) -> int | None:
    """Index of the `return` that follows action i when only folds come between (the bet was not called)."""
    j = i + 1
    while j < len(ev) and _is(ev[j], "action", action="fold"):
        j += 1
    if j > i + 1 and j < len(ev) and _is(ev[j], "return", seat=ev[i]["seat"]):
        return j
    return None


def _resize_uncalled(hand: Hand, new_to: int) -> bool:
    """Change the last, uncalled bet or raise of the hand to `new_to`, adjusting its return."""
    ev = _events(hand)
    for i in range(len(ev) - 1, -1, -1):
        e = ev[i]
        if e["kind"] == "action" and e["action"] in ("bet", "raise") and not e.get("all_in"):
            r = _followed_by_folds_and_return(ev, i)
            if r is None:
                return False
            delta = new_to - e["to"]
            seat_stack = next(s["stack"] for s in hand["seats"] if s["seat"] == e["seat"])
            if ev[r]["amount"] + delta <= 0 or delta == 0 or e["amount"] + delta >= seat_stack:
                return False
            e["to"] += delta
            e["amount"] += delta
            ev[r]["amount"] += delta
            return True
    return False


def _last_uncalled(hand: Hand, *structures: str) -> dict | None:
    """The hand's last bet or raise that nobody called (only in the given structures, if any)."""
    if structures and hand["structure"] not in structures:
        return None
    ev = _events(hand)
    for i in range(len(ev) - 1, -1, -1):
        e = ev[i]
        if e["kind"] == "action" and e["action"] in ("bet", "raise") and not e.get("all_in"):
            return e if _followed_by_folds_and_return(ev, i) is not None else None
    return None


# -- seating, button and blinds -----------------------------------------------------------------

@mutator("seat-draw", "the cards of the seat's winner and a loser swapped, so the lower card got the seat")
def swap_seat_draw(hand: Hand) -> bool:
    for e in _events(hand):
        if e["kind"] == "seat_draw":
            draws = e["draws"]
            won = next(k for k, d in enumerate(draws) if d["player"] == e["awarded_to"])
            other = next(k for k in range(len(draws)) if k != won)
            draws[won]["card"], draws[other]["card"] = draws[other]["card"], draws[won]["card"]
            return True
    return False


@mutator("blind-order", "the second blind posted before the first")
def swap_blind_order(hand: Hand) -> bool:
    ev = _events(hand)
    posts = [i for i, e in enumerate(ev) if _is(e, "post", post="blind")]
    if len(posts) < 2:
        return False
    ev[posts[0]], ev[posts[1]] = ev[posts[1]], ev[posts[0]]
    return True


@mutator("blind-order", "the button recorded one seat early, so the blinds came from the wrong seats")
def button_one_seat_early(hand: Hand) -> bool:
    seats = sorted(s["seat"] for s in hand["seats"])
    if len(seats) < 3:
        return False
    for i, e in enumerate(_events(hand)):
        if e["kind"] == "button":
            _events(hand)[i] = {**e, "seat": seats[seats.index(e["seat"]) - 1]}
            return True
    return False


@mutator("blind-amount", "the first blind posted one chip unit too much (and the winner paid that much more)")
def blind_over(hand: Hand) -> bool:
    ev = _events(hand)
    post = next((e for e in ev if _is(e, "post", post="blind", blind=1)), None)
    winner = _single_winner(hand)
    if post is None or winner is None or post.get("all_in") or len(hand["stakes"]["blinds"]) < 2:
        return False
    seat = post["seat"]
    first_round = _rounds(hand)[0]
    mine = [e for e in ev[first_round[0]:first_round[1]] if e["kind"] == "action" and e["seat"] == seat]
    # the poster folds at once, facing a raise, so nothing else depends on the blind's size
    if len(mine) != 1 or mine[0]["action"] != "fold" or post["amount"] + _unit(hand) >= hand["stakes"]["blinds"][1]:
        return False
    if not any(e["kind"] == "action" and e["action"] == "raise" for e in ev[first_round[0]:ev.index(mine[0])]):
        return False
    post["amount"] += _unit(hand)
    winner["amount"] += _unit(hand)
    return True


@mutator("blind-amount", "a walk: the big blind posted one chip unit short (its uncalled excess that much smaller)")
def short_big_blind(hand: Hand) -> bool:
    ev = _events(hand)
    post = next((e for e in ev if _is(e, "post", post="blind", blind=2)), None)
    if post is None or post.get("all_in") or post["amount"] <= _unit(hand):
        return False
    returns = [e for e in ev if e["kind"] == "return"]
    if len(returns) != 1 or returns[0]["seat"] != post["seat"] or returns[0]["amount"] < _unit(hand):
        return False
    if any(e["kind"] == "action" and e["action"] != "fold" for e in ev):
        return False
    post["amount"] -= _unit(hand)
    returns[0]["amount"] -= _unit(hand)
    if not returns[0]["amount"]:
        ev.remove(returns[0])
    return True


@mutator("blind-amount", "the table minimum raised above the last blind")
def table_minimum_above_blind(hand: Hand) -> bool:
    blinds = hand["stakes"]["blinds"]
    if not blinds:
        return False
    hand["stakes"]["table_min"] = blinds[-1] + _unit(hand)
    return True


@mutator("seating", "one player's name in two seats of the hand")
def one_player_two_seats(hand: Hand) -> bool:
    seats = hand["seats"]
    if len(seats) < 3:
        return False
    seats[-1]["player"] = seats[0]["player"]
    return True


# -- dealing -------------------------------------------------------------------------------------

def _folder_before_showdown(hand: Hand) -> int | None:
    folds = [e["seat"] for e in _events(hand) if _is(e, "action", action="fold")]
    return folds[0] if folds else None


@mutator("deal", "a player who folded was dealt one hole card too few")
def short_hole(hand: Hand) -> bool:
    seat = _folder_before_showdown(hand)
    for e in _events(hand):
        if seat is not None and _is(e, "deal", to="hole", seat=seat) and len(e["cards"]) > 1:
            e["cards"] = e["cards"][:-1]
            return True
    return False


@mutator("deal", "a folded player's hole card is also on the board")
def duplicate_card(hand: Hand) -> bool:
    seat = _folder_before_showdown(hand)
    board = [c for e in _events(hand) if _is(e, "deal", to="board") for c in e["cards"] if c != "??"]
    for e in _events(hand):
        if seat is not None and board and _is(e, "deal", to="hole", seat=seat):
            e["cards"] = [board[0], *e["cards"][1:]]
            return True
    return False


def _unused_card(hand: Hand) -> str | None:
    used = {c for e in _events(hand) for key in ("cards", "discard", "receive") for c in e.get(key, [])}
    used |= {d["card"] for e in _events(hand) if e["kind"] == "seat_draw" for d in e["draws"]}
    for rank in "23456789TJQKA":
        for suit in "cdhs":
            if rank + suit not in used:
                return rank + suit
    return None


@mutator("deal", "a community-card round dealt one card too many, in a hand decided without a showdown")
def extra_board_card(hand: Hand) -> bool:
    if _showdown(hand):
        return False
    card = _unused_card(hand)
    for e in _events(hand):
        if _is(e, "deal", to="board") and card:
            e["cards"] = [*e["cards"], card]
            return True
    return False


@mutator("deal", "a community card dealt after the hand was won (rabbit hunting)")
def rabbit_hunt(hand: Hand) -> bool:
    ev = _events(hand)
    if _showdown(hand) or hand["variant"] == "five-card-draw":
        return False
    # after the last action and the return of the uncalled bet, before the pot is paid
    last_action = max((i for i, e in enumerate(ev) if e["kind"] in ("action", "return")), default=None)
    card = _unused_card(hand)
    boards = sum(len(e["cards"]) for e in ev if _is(e, "deal", to="board"))
    burns = any(_is(e, "deal", to="burn") for e in ev)
    if last_action is None or card is None or boards >= 4 or boards == 0:
        return False
    extra = [{"kind": "deal", "to": "burn", "cards": ["??"]}] if burns else []
    extra.append({"kind": "deal", "to": "board", "cards": [card]})
    ev[last_action + 1:last_action + 1] = extra
    return True


@mutator("burn", "a burn card missing before a community-card deal")
def remove_burn(hand: Hand) -> bool:
    ev = _events(hand)
    for i, e in enumerate(ev):
        if _is(e, "deal", to="burn"):
            del ev[i]
            return True
    return False


@mutator("draw", "two players drew out of order")
def swap_draw_order(hand: Hand) -> bool:
    ev = _events(hand)
    for i in range(len(ev) - 1):
        if ev[i]["kind"] == "draw" and ev[i + 1]["kind"] == "draw":
            ev[i], ev[i + 1] = ev[i + 1], ev[i]
            return True
    return False


@mutator("draw", "a player who later folded received one card fewer than discarded")
def short_draw(hand: Hand) -> bool:
    ev = _events(hand)
    folded_later = {e["seat"] for e in ev if _is(e, "action", action="fold")}
    for e in ev:
        if e["kind"] == "draw" and e["seat"] in folded_later and e["receive"]:
            e["receive"] = e["receive"][:-1]
            return True
    return False


# -- action ------------------------------------------------------------------------------------

@mutator("illegal-action", "a player facing a bet checked, then folded")
def check_facing_bet(hand: Hand) -> bool:
    ev = _events(hand)
    for start, end in _rounds(hand):
        bet = False
        for i in range(start, end):
            e = ev[i]
            if e["kind"] == "action" and e["action"] in ("bet", "raise"):
                bet = True
            elif bet and _is(e, "action", action="fold"):
                ev.insert(i, {"kind": "action", "seat": e["seat"], "action": "check"})
                return True
    return False


@mutator("illegal-action", "a player acted again after folding")
def act_after_fold(hand: Hand) -> bool:
    ev = _events(hand)
    for start, end in _rounds(hand):
        for i in range(start, end - 1):
            e = ev[i]
            if _is(e, "action", action="fold") and ev[i + 1]["kind"] == "action":
                ev.insert(i + 2, {"kind": "action", "seat": e["seat"], "action": "fold"})
                return True
    return False


@mutator("illegal-action", "the last check of a round left out: the round closed with a player still to act")
def round_closed_early(hand: Hand) -> bool:
    ev = _events(hand)
    for start, end in _rounds(hand)[:-1]:
        acts = [i for i in range(start, end) if ev[i]["kind"] == "action"]
        if len(acts) >= 2 and ev[acts[-1]]["action"] == "check":
            del ev[acts[-1]]
            return True
    return False


@mutator("action-order", "two players' checks recorded in the wrong order")
def out_of_turn(hand: Hand) -> bool:
    ev = _events(hand)
    for i in range(len(ev) - 1):
        a, b = ev[i], ev[i + 1]
        if _is(a, "action", action="check") and _is(b, "action", action="check") and a["seat"] != b["seat"]:
            ev[i], ev[i + 1] = b, a
            return True
    return False


@mutator("call-amount", "a call one chip unit short of the bet, not all-in (the pot that much smaller)")
def undercall(hand: Hand) -> bool:
    winner = _single_winner(hand)
    if winner is None or any(e["kind"] == "return" for e in _events(hand)):
        return False
    for e in _events(hand):
        if _is(e, "action", action="call") and not e.get("all_in") and e["amount"] > _unit(hand) \
                and e["seat"] != winner["seat"]:
            e["amount"] -= _unit(hand)
            e["to"] -= _unit(hand)
            winner["amount"] -= _unit(hand)
            return True
    return False


# -- bet sizing --------------------------------------------------------------------------------

def _bet_faced(hand: Hand, e: dict) -> int:
    """The highest round total before action `e` in its betting round (the first round counts the blind)."""
    ev = _events(hand)
    i = ev.index(e)
    start = max((k for k, x in enumerate(ev[:i]) if _is(x, "deal", to="board") or x["kind"] == "draw"), default=-1)
    round_tos = [x["to"] for x in ev[start + 1:i] if x["kind"] == "action" and x.get("to")]
    blinds = hand["stakes"]["blinds"]
    first_round = not any(x["kind"] == "action" for x in ev[:start + 1])
    return max([*round_tos, blinds[-1] if first_round and blinds else 0])


@mutator("min-raise", "an uncalled raise cut to one chip unit over the bet it faced, not all-in")
def shrink_raise(hand: Hand) -> bool:
    e = _last_uncalled(hand, "no-limit", "pot-limit")
    if e is None or e["action"] != "raise":
        return False
    faced = _bet_faced(hand, e)
    return faced > 0 and _resize_uncalled(hand, faced + _unit(hand))


@mutator("bet-limit", "an uncalled spread-limit bet or raise one chip unit over the spread maximum")
def spread_over(hand: Hand) -> bool:
    e = _last_uncalled(hand, "spread-limit")
    spread = hand["stakes"].get("spread") or []
    if e is None or not spread:
        return False
    return _resize_uncalled(hand, _bet_faced(hand, e) + max(s["max"] for s in spread) + _unit(hand))


@mutator("min-bet", "an uncalled opening bet cut below the minimum bet, not all-in")
def short_bet(hand: Hand) -> bool:
    e = _last_uncalled(hand)
    if e is None or e["action"] != "bet":
        return False
    blinds = hand["stakes"]["blinds"]
    minimum = {"fixed-limit": None, "spread-limit": None}.get(hand["structure"], blinds[-1] if blinds else None)
    if minimum is None or minimum <= _unit(hand):
        return False
    return _resize_uncalled(hand, minimum - _unit(hand))


@mutator("bet-limit", "an uncalled pot-limit bet or raise made larger than the pot allows")
def over_pot(hand: Hand) -> bool:
    e = _last_uncalled(hand, "pot-limit")
    if e is None:
        return False
    # the largest legal total is at most the whole pot plus the call plus the bet faced: exceed
    # it by working out the pot from the chips in before this action
    ev = _events(hand)
    i = ev.index(e)
    pot = sum(x.get("amount", 0) for x in ev[:i] if x["kind"] in ("post", "action")) - \
        sum(x["amount"] for x in ev[:i] if x["kind"] == "return")
    return _resize_uncalled(hand, 3 * pot + e["to"] + _unit(hand))


@mutator("bet-limit", "an uncalled fixed-limit bet or raise one unit larger than the limit")
def off_unit(hand: Hand) -> bool:
    e = _last_uncalled(hand, "fixed-limit")
    if e is None:
        return False
    ev = _events(hand)
    i = ev.index(e)
    if hand["variant"] == "five-card-draw":
        street = int(any(x["kind"] == "draw" for x in ev[:i]))
    else:
        street = sum(1 for x in ev[:i] if _is(x, "deal", to="board"))
        if hand["variant"] == "three-card-nz":  # its first community card comes with the hole cards
            street -= 1
    units = hand["stakes"].get("bet_units") or []
    if not 0 <= street < len(units):
        return False
    return _resize_uncalled(hand, e["to"] + units[street])


# -- pots and showdown ------------------------------------------------------------------------

@mutator("winner", "the pot paid to a player the cards say lost")
def pay_the_loser(hand: Hand) -> bool:
    winner = _single_winner(hand)
    shown = [e["seat"] for e in _events(hand) if e["kind"] == "show"]
    losers = [s for s in shown if winner and s != winner["seat"]]
    if winner is None or len(shown) != 2 or not losers:
        return False
    winner["seat"] = losers[0]
    return True


@mutator("split-pot", "a pot one player won divided with a loser, as if by agreement")
def chop_by_agreement(hand: Hand) -> bool:
    winner = _single_winner(hand)
    shown = [e["seat"] for e in _events(hand) if e["kind"] == "show"]
    losers = [s for s in shown if winner and s != winner["seat"]]
    unit = _unit(hand)
    if winner is None or len(shown) != 2 or not losers or winner["amount"] < 2 * unit:
        return False
    half = (winner["amount"] // unit // 2) * unit
    winner["amount"] -= half
    _events(hand).append({"kind": "award", "pot": winner["pot"], "seat": losers[0], "amount": half})
    return True


@mutator("split-pot", "a tie paid two chip units unequally")
def unequal_split(hand: Hand) -> bool:
    awards: dict[int, list[dict]] = {}
    for e in _events(hand):
        if e["kind"] == "award":
            awards.setdefault(e["pot"], []).append(e)
    for paid in awards.values():
        if len(paid) == 2 and paid[1]["amount"] > 2 * _unit(hand):
            paid[0]["amount"] += 2 * _unit(hand)
            paid[1]["amount"] -= 2 * _unit(hand)
            return True
    return False


@mutator("showdown", "a contested pot paid to a winner who never showed their cards")
def hide_winner(hand: Hand) -> bool:
    winner = _single_winner(hand)
    ev = _events(hand)
    shows = [e for e in ev if e["kind"] == "show"]
    if winner is None or len(shows) < 2:
        return False
    mine = [e for e in shows if e["seat"] == winner["seat"]]
    if not mine:
        return False
    ev.remove(mine[0])
    return True


@mutator("chip-conservation", "one chip unit of the pot never paid out")
def leak_chip(hand: Hand) -> bool:
    winner = _single_winner(hand)
    if winner is None or winner["amount"] <= _unit(hand):
        return False
    winner["amount"] -= _unit(hand)
    return True


@mutator("pot-award", "an uncalled bet kept in the pot and paid to its bettor as winnings")
def keep_uncalled(hand: Hand) -> bool:
    ev = _events(hand)
    winner = _single_winner(hand)
    returns = [e for e in ev if e["kind"] == "return"]
    if winner is None or len(returns) != 1 or returns[0]["seat"] != winner["seat"]:
        return False
    winner["amount"] += returns[0]["amount"]
    ev.remove(returns[0])
    return True


@mutator("pot-award", "a side pot paid out of the main pot")
def misaward_side_pot(hand: Hand) -> bool:
    awards = [e for e in _events(hand) if e["kind"] == "award"]
    by_pot: dict[int, list[dict]] = {}
    for e in awards:
        by_pot.setdefault(e["pot"], []).append(e)
    if len(by_pot.get(0, [])) != 1 or len(by_pot.get(1, [])) != 1 or by_pot[0][0]["seat"] != by_pot[1][0]["seat"]:
        return False
    by_pot[0][0]["amount"] += by_pot[1][0]["amount"]
    _events(hand).remove(by_pot[1][0])
    return True


@mutator("showdown", "the last aggressor showed second")
def show_out_of_order(hand: Hand) -> bool:
    ev = _events(hand)
    shows = [i for i, e in enumerate(ev) if e["kind"] == "show"]
    last_round = _rounds(hand)[-1]
    aggressors = [e["seat"] for e in ev[last_round[0]:last_round[1]] if e["kind"] == "action"
                  and e["action"] in ("bet", "raise")]
    if len(shows) < 2 or not aggressors or ev[shows[0]]["seat"] != aggressors[-1]:
        return False
    ev[shows[0]], ev[shows[1]] = ev[shows[1]], ev[shows[0]]
    return True


# -- records -------------------------------------------------------------------------------------

@mutator("record", "an action's stated round total disagrees with the chips it added")
def wrong_total(hand: Hand) -> bool:
    for e in _events(hand):
        if _is(e, "action", action="call"):
            e["to"] += _unit(hand)
            return True
    return False
