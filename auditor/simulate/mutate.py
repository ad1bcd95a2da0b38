"""Mutators: each takes a legal hand and plants exactly one violation of one kind.

They are how rule examples and planted sample logs are made, and how the accuracy of the auditor
is measured (:mod:`auditor.simulate.verify`): every mutator keeps the rest of the hand consistent
(chips still balance, the turn still passes correctly), so the hand breaks one rule and no other.

A mutator is registered with the finding category it plants and the built-in rules that forbid
the fault (``rules``), which is how the accuracy report knows which packs must catch it; a rule
no mutator names is a rule nobody has shown the auditor can catch, and a test lists it.

:meth:`Mutator.plant` edits the hand dict in place and returns a :class:`Planted`: the hands to
audit (the mutated hand last, after any of the table's earlier hands the fault depends on) and
the finding expected on it: category and, where the rule reports one, the event index it points
at. It returns None, and leaves the hand unchanged, when the hand offers no place for the fault.
Most mutators need the hand alone; a few (a skipped hand, a repeated hand id, missed blinds) need
the table's earlier hands and are given them as `history` (read, never edited).

What a mutator knows of the betting (the bet an action faced, who may still raise, the pot, the final
aggressor) it reads from the replay's facts (:func:`prime`: the kernel engine under the hand's pack's
house), so the one betting state machine decides it; the simulator's play stays apart as its oracle.
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from auditor.model.seats import clockwise_after
from auditor.replay.house import HouseRules
from auditor.replay.variants import VARIANTS

Hand = dict
#: what a mutator function returns: the event the finding points at, WHOLE_HAND when the rule's
#: finding is about the hand (no event), or None/False when the hand offers no place for the fault
Mark = dict | bool | None
WHOLE_HAND = True


@dataclass(frozen=True)
class Planted:
    """One planted violation: audit `hands` in order; exactly one finding is expected, on the last."""

    mutator: str
    category: str
    #: event index of the expected finding in the last hand, None when the finding names no event
    seq: int | None
    #: the table's earlier hands the fault depends on (the mutator's history, unchanged), then the
    #: mutated hand
    hands: list[Hand] = field(default_factory=list)


@dataclass(frozen=True)
class Mutator:
    name: str
    category: str
    what: str
    #: ids of the built-in rules that forbid the fault: a pack is expected to catch the mutation
    #: exactly when one of them is in it and applies to the hand's game
    rules: frozenset[str]
    fn: Callable[..., Any]
    #: True: fn(hand, history) -> (mark, earlier hands to audit first) or None; else fn(hand) -> mark
    needs_history: bool = False
    #: whether a house (a pack's settings) can commit the fault at all: a rake over the posted
    #: schedule needs a posted schedule; a pack without one cannot report it, whatever its rules
    live: Callable[[HouseRules], bool] = lambda house: True
    #: why `live` may say no, for the accuracy report
    idle_reason: str = ""

    def plant(self, hand: Hand, history: Sequence[Hand] = ()) -> Planted | None:
        """Plant the fault in `hand` (edited in place); None, with `hand` unchanged, if it has no place for it."""
        before: list[Hand] = []
        if self.needs_history:
            got = self.fn(hand, history)
            if got is None:
                return None
            mark, before = got
        else:
            mark = self.fn(hand)
        if mark is None or mark is False:
            return None
        seq = None if mark is WHOLE_HAND else _index_of(hand, mark)
        return Planted(self.name, self.category, seq, [*before, hand])

    def apply(self, hand: Hand) -> bool:
        """Plant the fault in `hand` alone; False for a mutator that needs the table's earlier hands."""
        return not self.needs_history and self.plant(hand) is not None


REGISTRY: dict[str, Mutator] = {}


def mutator(category: str, what: str, rules: Sequence[str] = (),
            live: tuple[Callable[[HouseRules], bool], str] | None = None,
            ) -> Callable[[Callable[[Hand], Mark]], Callable[[Hand], Mark]]:
    """Register a mutator that needs only the hand it edits (`live`: the house condition it needs, and why)."""
    def register(fn: Callable[[Hand], Mark]) -> Callable[[Hand], Mark]:
        test, why = live or ((lambda house: True), "")
        REGISTRY[fn.__name__] = Mutator(fn.__name__, category, what, frozenset(rules), fn, live=test, idle_reason=why)
        return fn
    return register


TableMutation = Callable[[Hand, Sequence[Hand]], tuple[Mark, list[Hand]] | None]


def table_mutator(category: str, what: str, rules: Sequence[str] = ()) -> Callable[[TableMutation], TableMutation]:
    """Register a mutator whose fault lies across hands: it reads the table's earlier hands."""
    def register(fn: TableMutation) -> TableMutation:
        REGISTRY[fn.__name__] = Mutator(fn.__name__, category, what, frozenset(rules), fn, needs_history=True)
        return fn
    return register


def _index_of(hand: Hand, event: dict) -> int:
    for i, e in enumerate(hand["events"]):
        if e is event:
            return i
    raise ValueError(f"the event a mutator marked is not in hand {hand.get('hand_id')}: {event}")


# -- helpers ----------------------------------------------------------------------------------

def _events(hand: Hand) -> list[dict]:
    return hand["events"]


def _is(ev: dict, kind: str, **fields) -> bool:
    return ev["kind"] == kind and all(ev.get(k) == v for k, v in fields.items())


def _unit(hand: Hand) -> int:
    return hand["stakes"]["chip_unit"]


#: packs that are not built in (house pack files), by the name their hands declare
_REGISTERED: dict[str, Any] = {}


def register_pack(pack: Any) -> None:
    """Let mutators find `pack` by the name hands declare: a house pack file is not a built-in name."""
    _REGISTERED[pack.name] = pack
    _judged_facts.cache_clear()
    _FACTS.clear()  # replayed under the house of a pack that name may no longer mean


def _pack(pack_name: str) -> Any:
    """The pack a hand declares (None if it cannot be loaded)."""
    return _REGISTERED.get(pack_name) or _builtin_pack(pack_name)


@functools.cache
def _builtin_pack(pack_name: str) -> Any:
    from auditor.check.packs import PackError, resolve_pack

    try:
        return resolve_pack(pack_name)
    except PackError:
        return None


def _house(pack_name: str) -> HouseRules | None:
    """The house settings of the pack a hand declares (a cap or a reopening rule depends on them)."""
    pack = _pack(pack_name)
    return pack.house if pack is not None else None


@functools.cache
def _judged_facts(pack_name: str, variant: str, structure: str) -> frozenset[str]:
    """Every fact a rule of the hand's pack reads for this game."""
    pack = _pack(pack_name)
    names: set[str] = set()
    for rule in pack.rules if pack is not None else ():
        if variant in rule.variants and structure in rule.structures:
            names |= set(rule.needs) | set(rule.violation.names)
            if rule.when is not None:
                names |= set(rule.when.names)
    return frozenset(names)


def _judges(hand: Hand, fact: str) -> bool:
    """Whether the hand's pack has a rule on `fact` for its game: a fault whose side effect only
    such a rule would see may be planted where the pack has none, and must avoid it where it has."""
    return fact in _judged_facts(hand["rule_pack"], hand["variant"], hand["structure"])


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


def _round_seq(hand: Hand, start: int, end: int) -> int | None:
    """The event a round's findings point at: the board deal or draw that opened it (None: the first
    round without community cards)."""
    ev = _events(hand)
    return next((i for i in range(start, end) if _is(ev[i], "deal", to="board") or ev[i]["kind"] == "draw"), None)


def _award_seq(hand: Hand, pot: int) -> dict:
    """The event a pot's findings point at: its first award."""
    return next(e for e in _events(hand) if _is(e, "award", pot=pot))


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


def _resize_uncalled(hand: Hand, new_to: int) -> dict | None:
    """Change the last, uncalled bet or raise of the hand to `new_to`, adjusting its return; the action."""
    ev = _events(hand)
    for i in range(len(ev) - 1, -1, -1):
        e = ev[i]
        if e["kind"] == "action" and e["action"] in ("bet", "raise") and not e.get("all_in"):
            r = _followed_by_folds_and_return(ev, i)
            if r is None:
                return None
            delta = new_to - e["to"]
            behind = next((a.stack_before for a in _betting(hand) if a.index == i), None)
            if behind is None:  # (a hand the replay refused)
                return None
            if ev[r]["amount"] + delta <= 0 or delta == 0 or e["amount"] + delta >= behind:
                return None
            e["to"] += delta
            e["amount"] += delta
            ev[r]["amount"] += delta
            return e
    return None


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


@dataclass(frozen=True, slots=True)
class _Act:
    """One action as the replay's facts describe it (`auditor.replay.facts`, table actions): mutators read
    the one betting state machine's account of the hand instead of walking the events with their own."""

    index: int  # seq: the event index
    street: int
    seat: int
    verb: str
    current_bet: int  # the bet it faced
    owed: int  # chips needed to call: amount_to_call_in_full
    pot_before: int  # every chip put in before it (posts, dead money, bets)
    made: int  # the player's round total after it
    increment: int | None  # bets and raises: raise_increment
    largest: int  # min_raise_increment: largest full bet or raise increment of the round before it
    full: bool | None  # bets and raises: full_raise
    #: the player may raise: not acted since the betting last reopened, as the turn order reads it
    #: (open_after_full_raise in a fixed-limit round, open_after_cumulative_raise otherwise: the
    #: replay sends the action round again after short all-ins adding up to a full raise only there)
    raise_allowed: bool
    raises_before: int  # full raises of the round before it
    able: int  # active_players: neither folded nor all-in, before it
    all_in: bool  # the player has no chips left after it
    stack_before: int  # chips behind before it
    #: nobody else still owed an action after it: it is the last action of its round and the replay
    #: closed the round with nobody pending (what a log the turn order played legally says)
    last_to_act: bool = False


@dataclass(frozen=True, slots=True)
class _HandFacts:
    """What mutators read of one hand's replay."""

    acts: list[_Act]
    #: the last betting round reached, 0 = first (hands.final_round - 1); None if the replay refused the hand
    final_street: int | None
    final_aggressor: int | None  # hands.final_aggressor
    big_blind_seat: int | None  # blinds: the seat that posted the last compulsory blind first


#: facts of the hands replayed lately, by hand id: (a copy of the hand as replayed, its facts). A mutator
#: asks several times per hand, and verify primes a whole stretch of clean hands in one replay; a hand is
#: found again only while it still equals the copy, so a mutated, copied or reused hand object is never
#: given another hand's facts.
_FACTS: OrderedDict[str, list[tuple[Hand, _HandFacts]]] = OrderedDict()
_FACTS_KEPT = 8192  # hand ids: more than a stretch verify primes, with the history it reads


def prime(hands: Sequence[Hand]) -> None:
    """Replay `hands` in one call of the kernel engine and keep their facts for the mutators.

    One replay per hand costs a whole batch's fixed overheads (tens of milliseconds); a caller that is about
    to plant faults in many hands (verify) replays them here together. Each hand is replayed alone in
    effect: mutators read only facts of the hand itself (no cross-hand state), under its pack's house.
    """
    if not hands:
        return
    import pickle

    from auditor.ingest.tables import build_tables
    from auditor.model.records import SourceHand
    from auditor.replay.kernel import replay
    from auditor.replay.state import TableState

    try:
        tables = build_tables([SourceHand(h, "mutate", k + 1) for k, h in enumerate(hands)])
        facts, failures = replay(tables, [_house(h["rule_pack"]) or HouseRules() for h in hands], TableState())
    except (KeyError, TypeError, ValueError, IndexError):  # a hand no log could hold (the simulator's bug)
        if len(hands) > 1:  # the others still get their facts; that one offers no place for a fault
            for hand in hands:
                prime([hand])
            return
        facts, failures = None, [(0, "not replayable")]
    refused = {h for h, _ in failures}
    per_hand = _split_facts(facts, len(hands)) if facts is not None else []
    for k, hand in enumerate(hands):
        got = _HandFacts([], None, None, None) if k in refused else per_hand[k]
        entries = _FACTS.setdefault(hand["hand_id"], [])
        entries.append((pickle.loads(pickle.dumps(hand, pickle.HIGHEST_PROTOCOL)), got))
        del entries[:-4]  # (a hand id shared by a few hands: the table's duplicate-id mutation)
        _FACTS.move_to_end(hand["hand_id"])
    while len(_FACTS) > _FACTS_KEPT:
        _FACTS.popitem(last=False)


def primed(hands: Iterable[Hand], size: int = 1000) -> Iterator[Hand]:
    """`hands` unchanged, each stretch of `size` replayed together (`prime`) before it is yielded: a stream
    of hands to plant faults in (verify's) gets every hand's facts from a few large replays."""
    stretch: list[Hand] = []
    for hand in hands:
        stretch.append(hand)
        if len(stretch) == size:
            prime(stretch)
            yield from stretch
            stretch = []
    prime(stretch)
    yield from stretch


def _column(frame: Any, name: str) -> list:
    """A facts column as a list, None for null."""
    col = frame[name]
    return [None if null else v for v, null in zip(col.astype(object).tolist(), col.isna().tolist(), strict=True)]


def _split_facts(facts: Any, n: int) -> list[_HandFacts]:
    """Per hand row of the batch, its actions, final round, final aggressor and big blind seat."""
    a = facts["actions"].sort_values(["hand", "seq"], kind="stable")
    cols = {name: _column(a, name) for name in (
        "hand", "seq", "street", "seat", "action", "current_bet", "amount_to_call_in_full", "pot_before", "made",
        "raise_increment", "min_raise_increment", "full_raise", "open_after_full_raise",
        "open_after_cumulative_raise", "bet_unit", "raises_before", "active_players", "all_in", "stack_before")}
    r = facts["rounds"]
    pending = {(h, s) for h, s, p in zip(_column(r, "hand"), _column(r, "street"), _column(r, "pending_seat"),
                                         strict=True) if p is not None}
    acts: list[list[_Act]] = [[] for _ in range(n)]
    rows = zip(*(cols[k] for k in cols), strict=True)
    for (h, seq, street, seat, verb, bet, owed, pot, made, increment, largest, full, open_full, open_cumulative,
         unit, raises, able, all_in, behind) in rows:
        acts[h].append(_Act(seq, street, seat, verb, bet, owed, pot, made, increment, largest, full,
                            bool(open_full if unit is not None else open_cumulative), raises, able, bool(all_in),
                            behind))
    for h, mine in enumerate(acts):
        for k, act in enumerate(mine):
            if (k + 1 == len(mine) or mine[k + 1].street != act.street) and (h, act.street) not in pending:
                mine[k] = replace(act, last_to_act=True)
    hands = facts["hands"]
    final = dict(zip(_column(hands, "hand"), zip(_column(hands, "final_round"), _column(hands, "final_aggressor"),
                                                  strict=True), strict=True))
    b = facts["blinds"]
    big: dict[int, int] = {}
    for h, number, required, seat, posted in zip(_column(b, "hand"), _column(b, "blind"),
                                                 _column(b, "blinds_required"), _column(b, "seat"),
                                                 _column(b, "posted"), strict=True):
        if posted and number == required and seat is not None:
            big.setdefault(h, seat)
    out = []
    for h in range(n):
        final_round, aggressor = final.get(h, (None, None))
        out.append(_HandFacts(acts[h], None if final_round is None else final_round - 1, aggressor, big.get(h)))
    return out


def _facts(hand: Hand) -> _HandFacts:
    """The replay's facts of `hand` as it is now (replayed alone if no primed copy equals it)."""
    for _ in range(2):
        for copy, got in reversed(_FACTS.get(hand["hand_id"], ())):
            if copy == hand:
                return got
        prime([hand])
    raise AssertionError("a hand replayed for its facts was not kept")  # (prime keeps what it replays)


def _betting(hand: Hand) -> list[_Act]:
    """Every action of the hand, described by the replay's facts; mutators size a fault from them so that
    it breaks one rule and no other."""
    return _facts(hand).acts


def _final_aggressor(hand: Hand) -> int | None:
    """The last player to bet or raise in the final betting round reached (who must show first)."""
    return _facts(hand).final_aggressor


def _remaining(hand: Hand, seat: int) -> int:
    """Chips the seat still has behind at the end of the hand (before any award)."""
    # local: the facts give a player's chips behind before each action (stack_before), not at the end of the
    # hand; a seats fact "stack at the end of the betting" (or chips put in per seat) would replace this
    return _stack(hand, seat) - _chips_in(hand).get(seat, 0)


def _chips_in(hand: Hand) -> dict[int, int]:
    """Chips each seat put in over the hand (posts and actions, less returns)."""
    # local: the facts give the hand's chips in (hands.chips_in), not each seat's; a seats fact would replace it
    total: dict[int, int] = {}
    for e in _events(hand):
        if e["kind"] in ("post", "action") and e.get("amount"):
            total[e["seat"]] = total.get(e["seat"], 0) + e["amount"]
        elif e["kind"] == "return":
            total[e["seat"]] = total.get(e["seat"], 0) - e["amount"]
    return total


def _stack(hand: Hand, seat: int) -> int:
    return next(s["stack"] for s in hand["seats"] if s["seat"] == seat)


def _button(hand: Hand) -> int | None:
    return next((e["seat"] for e in _events(hand) if e["kind"] == "button"), None)


def _dealt_in(hand: Hand) -> list[int]:
    return sorted(e["seat"] for e in _events(hand) if _is(e, "deal", to="hole"))


def _players_dealt(hand: Hand) -> dict[int, str]:
    names = {s["seat"]: s["player"] for s in hand["seats"]}
    return {s: names[s] for s in _dealt_in(hand)}


def _big_blind_seat(hand: Hand) -> int | None:
    """The seat that posted the last compulsory blind (the replay's blinds facts)."""
    return _facts(hand).big_blind_seat


# -- seating, button and blinds -----------------------------------------------------------------

@mutator("seat-draw", "the cards of the seat's winner and a loser swapped, so the lower card got the seat",
         rules=("NZ17-1a",))
def swap_seat_draw(hand: Hand) -> Mark:
    for e in _events(hand):
        if e["kind"] == "seat_draw":
            draws = e["draws"]
            won = next(k for k, d in enumerate(draws) if d["player"] == e["awarded_to"])
            other = next(k for k in range(len(draws)) if k != won)
            draws[won]["card"], draws[other]["card"] = draws[other]["card"], draws[won]["card"]
            return e
    return None


@mutator("seat-priority", "a seat a seated player had asked to move to given to a player from the waiting list",
         rules=("NZ17-1a-priority",))
def pass_over_seat_request(hand: Hand) -> Mark:
    # The hand opens with the seat changes made before it: a seated player asks to move to another
    # player's seat, which that player then takes from the waiting list, passing over the request.
    ev = _events(hand)
    drawn = {e["seat"] for e in ev if e["kind"] == "seat_draw"}
    if any(e["kind"] in ("seat_request", "seat_fill") for e in ev):
        return None
    seats = [s for s in hand["seats"] if s["seat"] not in drawn and s.get("status", "active") == "active"]
    if len(seats) < 2:
        return None
    mover, taker = seats[0], seats[-1]
    at = sum(1 for e in ev if e["kind"] == "seat_draw")
    fill = {"kind": "seat_fill", "player": taker["player"], "seat": taker["seat"]}
    ev[at:at] = [{"kind": "seat_request", "player": mover["player"], "seat": taker["seat"], "from_seat": mover["seat"]},
                 {"kind": "seat_request", "player": taker["player"]}, fill]
    return fill


@mutator("blind-order", "the second blind posted before the first", rules=("NZ17-1c", "NZ15-1c", "ONL5CD-blinds"))
def swap_blind_order(hand: Hand) -> Mark:
    ev = _events(hand)
    posts = [i for i, e in enumerate(ev) if _is(e, "post", post="blind")]
    if len(posts) < 2:
        return None
    ev[posts[0]], ev[posts[1]] = ev[posts[1]], ev[posts[0]]
    # the first blind is now posted after a later one: its row is out of order
    return next(e for e in ev if _is(e, "post", post="blind", blind=1))


@mutator("blind-order", "the button recorded one seat early, so the small blind came from the wrong seat",
         rules=("TDA-32",))
def button_one_seat_early(hand: Hand) -> Mark:
    # Under a moving-button rule (NZ, the draw room) both blinds are then in the wrong seats, two
    # findings, so only the TDA's blind rule, which follows each blind from the one before, is named.
    # The button also sets who acts first after the first round and who gets an odd chip by
    # position, so the hand must end in its first round with no pot split.
    seats = sorted(s["seat"] for s in hand["seats"])
    small = next((e for e in _events(hand) if _is(e, "post", post="blind", blind=1)), None)
    if len(_dealt_in(hand)) < 3 or small is None or len(hand["stakes"].get("blinds") or []) != 2:
        return None
    facts = _facts(hand)
    if facts.final_street is None or any(a.street > 0 for a in facts.acts):  # (None: the replay refused it)
        return None
    pots = [e["pot"] for e in _events(hand) if e["kind"] == "award"]
    if len(pots) != len(set(pots)):
        return None
    for i, e in enumerate(_events(hand)):
        if e["kind"] == "button":
            _events(hand)[i] = {**e, "seat": seats[seats.index(e["seat"]) - 1]}
            return small
    return None


@table_mutator("blind-order", "heads-up, a hand left out of the log, so the same player posts the big blind twice",
               rules=("TDA-34B",))
def heads_up_big_blind_twice(hand: Hand, history: Sequence[Hand]) -> tuple[Mark, list[Hand]] | None:
    if len(history) < 2 or len(_dealt_in(hand)) != 2:
        return None
    first, skipped = history[-2], history[-1]
    if not _players_dealt(first) == _players_dealt(skipped) == _players_dealt(hand):
        return None
    bb = _big_blind_seat(hand)
    if bb is None or bb != _big_blind_seat(first):
        return None
    return WHOLE_HAND, [first]


@table_mutator("button", "a hand left out of the log, so the button moved two seats",
               rules=("NZ17-1b", "ONL5CD-button"))
def drop_hand(hand: Hand, history: Sequence[Hand]) -> tuple[Mark, list[Hand]] | None:
    # The three hands deal in the same players in the same seats, and nobody makes up a blind, so
    # the only thing wrong with the last hand after the first is where its button is.
    if len(history) < 2:
        return None
    first, skipped = history[-2], history[-1]
    if not _players_dealt(first) == _players_dealt(skipped) == _players_dealt(hand) or len(_dealt_in(hand)) < 2:
        return None
    if [s.get("status") for s in first["seats"]] != [s.get("status") for s in hand["seats"]]:
        return None
    if any(_is(e, "post", post="missed") or _is(e, "post", post="dead") for h in (skipped, hand) for e in _events(h)):
        return None
    return WHOLE_HAND, [first]


@mutator("blind-amount", "the first blind posted one chip unit too much (and the winner paid that much more)")
def blind_over(hand: Hand) -> Mark:
    # No built-in rule checks the first blind's size, so this one is not measured (no rules listed).
    ev = _events(hand)
    post = next((e for e in ev if _is(e, "post", post="blind", blind=1)), None)
    winner = _single_winner(hand)
    if post is None or winner is None or post.get("all_in") or len(hand["stakes"]["blinds"]) < 2:
        return None
    seat = post["seat"]
    first_round = _rounds(hand)[0]
    mine = [e for e in ev[first_round[0]:first_round[1]] if e["kind"] == "action" and e["seat"] == seat]
    # the poster folds at once, facing a raise, so nothing else depends on the blind's size
    if len(mine) != 1 or mine[0]["action"] != "fold" or post["amount"] + _unit(hand) >= hand["stakes"]["blinds"][1]:
        return None
    if not any(e["kind"] == "action" and e["action"] == "raise" for e in ev[first_round[0]:_index_of(hand, mine[0])]):
        return None
    post["amount"] += _unit(hand)
    winner["amount"] += _unit(hand)
    return post


@mutator("blind-amount", "a walk: the big blind posted one chip unit short (its uncalled excess that much smaller)",
         rules=("ONL5CD-bb-amount",))
def short_big_blind(hand: Hand) -> Mark:
    ev = _events(hand)
    post = next((e for e in ev if _is(e, "post", post="blind", blind=2)), None)
    if post is None or post.get("all_in") or post["amount"] <= _unit(hand):
        return None
    returns = [e for e in ev if e["kind"] == "return"]
    if len(returns) != 1 or returns[0]["seat"] != post["seat"] or returns[0]["amount"] < _unit(hand):
        return None
    if any(e["kind"] == "action" and e["action"] != "fold" for e in ev) or _showdown(hand):
        return None  # (against an all-in small blind the short big blind would still owe chips)
    post["amount"] -= _unit(hand)
    returns[0]["amount"] -= _unit(hand)
    if not returns[0]["amount"]:
        del ev[_index_of(hand, returns[0])]
    return post


@mutator("blind-amount", "the table minimum raised above the last blind", rules=("NZ17-6b",))
def table_minimum_above_blind(hand: Hand) -> Mark:
    blinds = hand["stakes"]["blinds"]
    if not blinds:
        return None
    # the rule judges the last blind posted in full (a short all-in blind is no evidence of the minimum)
    post = next((e for e in _events(hand) if _is(e, "post", post="blind", blind=len(blinds))), None)
    if post is None or post.get("all_in"):
        return None
    hand["stakes"]["table_min"] = blinds[-1] + _unit(hand)
    return post


@table_mutator("missed-blind", "a returning player who missed blinds while away made up the big blind but not the "
               "dead small blind (the pot that much smaller)", rules=("ONL5CD-missed",))
def skip_dead_blind(hand: Hand, history: Sequence[Hand]) -> tuple[Mark, list[Hand]] | None:
    ev = _events(hand)
    dead = next((e for e in ev if _is(e, "post", post="dead")), None)
    if dead is None:
        return None
    seat = dead["seat"]
    player = next(s["player"] for s in hand["seats"] if s["seat"] == seat)
    # the hands the player sat out, back to where the blinds began to be owed
    away: list[Hand] = []
    for earlier in reversed(history):
        mine = next((s for s in earlier["seats"] if s["seat"] == seat), None)
        if mine is None or mine["player"] != player or mine.get("status") != "sitting_out":
            break
        away.insert(0, earlier)
    if not away:
        return None
    # dead money belongs to the main pot: one player must have won it, with more than the dead blind
    main = [e for e in ev if _is(e, "award", pot=0)]
    if len(main) != 1 or main[0]["amount"] <= dead["amount"] or any(e["kind"] == "rake" for e in ev):
        return None
    if _remaining(hand, seat) <= 0 or any(e.get("seat") == seat and e.get("all_in") for e in ev):
        # with the dead blind back in their stack an all-in would no longer be one: at the hand's end, or at an
        # all-in the log declares and part of the chips then came back (an uncalled raise)
        return None
    if hand["structure"] == "pot-limit":
        # a pot-limit bet sized from the pot with the dead blind in it must still fit without it
        at = _index_of(hand, dead)
        for act in _betting(hand):
            if act.index > at and act.increment is not None and \
                    act.made > act.current_bet + act.pot_before - dead["amount"] + act.owed:
                return None
    main[0]["amount"] -= dead["amount"]
    del ev[_index_of(hand, dead)]
    return WHOLE_HAND, away


@table_mutator("missed-blind", "a new player sat down in a seat other than the big blind and was dealt in at once "
               "without posting", rules=("ONL5CD-new",))
def new_player_without_posting(hand: Hand, history: Sequence[Hand]) -> tuple[Mark, list[Hand]] | None:
    # The seat's player in the hand before left, and someone new to the table took the seat; the
    # players the previous hand's blinds name (the next button's heir) are left alone.
    if not history or len(hand["stakes"].get("blinds") or []) != 2:
        return None
    previous = history[-1]
    if {s["seat"] for s in previous["seats"]} != {s["seat"] for s in hand["seats"]}:
        return None
    blinds_before = {_players_dealt(previous).get(e["seat"]) for e in _events(previous) if _is(e, "post", post="blind")}
    big_blind = _big_blind_seat(hand)
    posted = {e["seat"] for e in _events(hand) if e["kind"] == "post" and e["post"] != "blind"}
    names = {s["player"] for h in (previous, hand) for s in h["seats"]}
    for seat in hand["seats"]:
        if seat["seat"] in _dealt_in(hand) and seat["seat"] != big_blind and seat["seat"] not in posted \
                and seat["player"] not in blinds_before and f"{seat['player']}*" not in names:
            seat["player"] = f"{seat['player']}*"
            return WHOLE_HAND, [previous]
    return None


@mutator("seating", "one player's name in two seats of the hand",
         rules=("NZ-INT-seat", "ONL5CD-INT-seat", "TDA-INT-seat"))
def one_player_two_seats(hand: Hand) -> Mark:
    # both seats dealt in: a name shared with a player sitting out would also carry that player's
    # missed blinds into the other seat
    dealt = set(_dealt_in(hand))
    seats = [s for s in hand["seats"] if s["seat"] in dealt]
    if len(seats) < 3:
        return None
    seats[-1]["player"] = seats[0]["player"]
    return WHOLE_HAND


# -- dealing -------------------------------------------------------------------------------------

def _folder_before_showdown(hand: Hand) -> int | None:
    folds = [e["seat"] for e in _events(hand) if _is(e, "action", action="fold")]
    return folds[0] if folds else None


@mutator("deal", "a player who folded was dealt one hole card too few",
         rules=("NZ17-1d", "NZ15-1d", "ONL5CD-deal", "TDA-35A"))
def short_hole(hand: Hand) -> Mark:
    seat = _folder_before_showdown(hand)
    for e in _events(hand):
        if seat is not None and _is(e, "deal", to="hole", seat=seat) and len(e["cards"]) > 1:
            e["cards"] = e["cards"][:-1]
            return WHOLE_HAND
    return None


@mutator("deal", "a folded player's hole card is also on the board", rules=("NZ-INT-cards", "TDA-INT-cards"))
def duplicate_card(hand: Hand) -> Mark:
    seat = _folder_before_showdown(hand)
    board = [c for e in _events(hand) if _is(e, "deal", to="board") for c in e["cards"] if c != "??"]
    for e in _events(hand):
        if seat is not None and board and _is(e, "deal", to="hole", seat=seat):
            e["cards"] = [board[0], *e["cards"][1:]]
            return WHOLE_HAND
    return None


@mutator("deal", "a folded player's hole card dealt again in another player's draw", rules=("ONL5CD-INT-cards",))
def duplicate_card_draw(hand: Hand) -> Mark:
    ev = _events(hand)
    folded = [e["seat"] for e in ev if _is(e, "action", action="fold")]
    holes = {e["seat"]: e["cards"] for e in ev if _is(e, "deal", to="hole")}
    shown = {e["seat"] for e in ev if e["kind"] == "show"}  # a drawer who shows would show a card no longer held
    for e in ev:
        if e["kind"] == "draw" and e["receive"] and folded and e["seat"] != folded[0] and e["seat"] not in shown:
            e["receive"] = [holes[folded[0]][0], *e["receive"][1:]]
            return WHOLE_HAND
    return None


@mutator("deal", "a losing player's show names a card they never held (the same rank, in a suit none of their other "
                 "cards nor the board has, so the cards still rate no higher)",
         rules=("NZ-INT-show", "ONL5CD-INT-show", "TDA-INT-show"))
def show_unheld_card(hand: Hand) -> Mark:
    ev = _events(hand)
    paid = {e["seat"] for e in ev if e["kind"] == "award"}
    board = [c for e in ev if _is(e, "deal", to="board") for c in e["cards"]]
    used = {c for e in ev for key in ("cards", "discard", "receive") for c in e.get(key, [])}
    used |= {d["card"] for e in ev if e["kind"] == "seat_draw" for d in e["draws"]}
    for e in ev:
        if e["kind"] != "show" or e["seat"] in paid or not e.get("cards") or "??" in e["cards"] + board:
            continue
        others = {c[1] for c in e["cards"][1:] + board}
        for suit in "cdhs":
            card = e["cards"][0][0] + suit
            if suit not in others and card not in used:
                e["cards"] = [card, *e["cards"][1:]]
                return WHOLE_HAND  # a fact of the hand (`shown_not_dealt`), reported without an event
    return None


@mutator("deal", "a player who later folded drew a card in a game without draws (their first hole card for one "
                 "never used)", rules=("NZ-INT-draw", "TDA-INT-draw"))
def draw_in_flop_game(hand: Hand) -> Mark:
    variant = VARIANTS.get(hand["variant"])
    if variant is None or variant.max_draw:
        return None
    ev = _events(hand)
    card = _unused_card(hand)
    holes = {e["seat"]: e["cards"] for e in ev if _is(e, "deal", to="hole")}
    for i, e in enumerate(ev):
        if card and _is(e, "action", action="fold") and holes.get(e["seat"]) and "??" not in holes[e["seat"]]:
            draw = {"kind": "draw", "seat": e["seat"], "discard": [holes[e["seat"]][0]], "receive": [card]}
            ev.insert(i, draw)
            return draw
    return None


def _unused_card(hand: Hand) -> str | None:
    used = {c for e in _events(hand) for key in ("cards", "discard", "receive") for c in e.get(key, [])}
    used |= {d["card"] for e in _events(hand) if e["kind"] == "seat_draw" for d in e["draws"]}
    for rank in "23456789TJQKA":
        for suit in "cdhs":
            if rank + suit not in used:
                return rank + suit
    return None


@mutator("deal", "a community-card round dealt one card too many, in a hand decided without a showdown",
         rules=("NZ17-3a-board", "NZ15-3a-board", "TDA-39A"))
def extra_board_card(hand: Hand) -> Mark:
    if _showdown(hand):
        return None
    card = _unused_card(hand)
    for e in _events(hand):
        if _is(e, "deal", to="board") and card:
            e["cards"] = [*e["cards"], card]
            return e
    return None


@mutator("deal", "a community card dealt after the hand was won (rabbit hunting)",
         rules=("NZ17-3a-won", "NZ15-3a-won", "TDA-28"))
def rabbit_hunt(hand: Hand) -> Mark:
    ev = _events(hand)
    if _showdown(hand) or hand["variant"] == "five-card-draw":
        return None
    # after the last action and the return of the uncalled bet, before the pot is paid
    last_action = max((i for i, e in enumerate(ev) if e["kind"] in ("action", "return")), default=None)
    card = _unused_card(hand)
    boards = sum(len(e["cards"]) for e in ev if _is(e, "deal", to="board"))
    burns = any(_is(e, "deal", to="burn") for e in ev)
    if last_action is None or card is None or boards >= 4 or boards == 0:
        return None
    extra = [{"kind": "deal", "to": "burn", "cards": ["??"]}] if burns else []
    extra.append({"kind": "deal", "to": "board", "cards": [card]})
    ev[last_action + 1:last_action + 1] = extra
    return extra[-1]


@mutator("burn", "a burn card missing before a community-card deal", rules=("NZ17-3a-burn", "NZ15-3a-burn", "TDA-38"))
def remove_burn(hand: Hand) -> Mark:
    ev = _events(hand)
    if sum(1 for e in ev if _is(e, "deal", to="burn")) < 2:
        return None  # a log with no burn at all is one that does not record burns: nothing to judge
    for i, e in enumerate(ev):
        if _is(e, "deal", to="burn"):
            del ev[i]
            return next((x for x in ev[i:] if _is(x, "deal", to="board")), None) or WHOLE_HAND
    return None


@mutator("draw", "two players drew out of order")
def swap_draw_order(hand: Hand) -> Mark:
    # The draw pack's rule judges how many cards were drawn, not in what order (no rules listed).
    ev = _events(hand)
    for i in range(len(ev) - 1):
        if ev[i]["kind"] == "draw" and ev[i + 1]["kind"] == "draw":
            ev[i], ev[i + 1] = ev[i + 1], ev[i]
            return ev[i]
    return None


@mutator("draw", "a player who later folded received one card fewer than discarded", rules=("ONL5CD-draw",))
def short_draw(hand: Hand) -> Mark:
    ev = _events(hand)
    folded_later = {e["seat"] for e in ev if _is(e, "action", action="fold")}
    for e in ev:
        if e["kind"] == "draw" and e["seat"] in folded_later and e["receive"]:
            e["receive"] = e["receive"][:-1]
            return e
    return None


# -- action ------------------------------------------------------------------------------------

@mutator("illegal-action", "a player facing a bet checked, then folded",
         rules=("NZ17-2-check", "ONL5CD-check", "TDA-55"))
def check_facing_bet(hand: Hand) -> Mark:
    ev = _events(hand)
    last = {a.index: a.last_to_act for a in _betting(hand)}
    for start, end in _rounds(hand):
        bet = False
        for i in range(start, end):
            e = ev[i]
            if e["kind"] == "action" and e["action"] in ("bet", "raise"):
                bet = True
            elif bet and _is(e, "action", action="fold") and last.get(i, False):
                # nobody else is still to act, so after the check the turn comes straight back for the fold
                check = {"kind": "action", "seat": e["seat"], "action": "check"}
                ev.insert(i, check)
                return check
    return None


@mutator("illegal-action", "a player acted again after folding", rules=("NZ17-2-out", "TDA-50"))
def act_after_fold(hand: Hand) -> Mark:
    ev = _events(hand)
    for start, end in _rounds(hand):
        for i in range(start, end - 1):
            e = ev[i]
            if _is(e, "action", action="fold") and ev[i + 1]["kind"] == "action":
                again = {"kind": "action", "seat": e["seat"], "action": "fold"}
                ev.insert(i + 2, again)
                return again
    return None


@mutator("illegal-action", "the last check of a round left out: the round closed with a player still to act",
         rules=("NZ17-2-closed", "ONL5CD-option"))
def round_closed_early(hand: Hand) -> Mark:
    ev = _events(hand)
    for start, end in _rounds(hand)[:-1]:
        acts = [i for i in range(start, end) if ev[i]["kind"] == "action"]
        if len(acts) >= 2 and ev[acts[-1]]["action"] == "check":
            opener = _round_seq(hand, start, end)
            del ev[acts[-1]]
            return ev[opener] if opener is not None else WHOLE_HAND
    return None


@mutator("illegal-action", "a player re-raised after a short all-in that did not reopen the betting for them (the "
         "raise uncalled and returned)", rules=("TDA-47A", "TDA-47B"))
def reraise_after_short_all_in(hand: Hand) -> Mark:
    house = _house(hand["rule_pack"])
    if house is None:
        return None
    ev = _events(hand)
    acts = _betting(hand)
    rounds = _rounds(hand)
    chips = _chips_in(hand)
    for k, act in enumerate(acts):
        # a call by a player the betting was not reopened for, facing a short all-in raise; after it
        # nobody else can bet, so the re-raise goes uncalled and comes straight back
        if act.verb != "call" or act.raise_allowed or act.all_in or k == 0:
            continue
        shove = next((a for a in reversed(acts[:k]) if a.street == act.street and a.increment is not None), None)
        if shove is None or not shove.all_in or shove.full or shove.verb != "raise":
            continue
        later = [a for a in acts[k + 1:] if a.street == act.street]
        if later or act.able != 1:
            continue
        end = next(r[1] for r in rounds if r[0] <= act.index < r[1])
        if any(e["kind"] == "return" for e in ev[act.index:end]):
            continue
        final = not any(_is(x, "deal", to="board") or x["kind"] == "draw" for x in ev[end:])
        increment = act.largest
        if hand["structure"] == "fixed-limit":
            units = hand["stakes"].get("bet_units") or []
            increment = units[act.street] if act.street < len(units) else 0
        raises = sum(1 for a in acts[:k] if a.street == act.street and a.verb == "raise")
        if increment <= 0 or (house.max_raises is not None and raises + 1 > house.max_raises):
            continue
        if _stack(hand, act.seat) - chips.get(act.seat, 0) <= increment:
            continue
        to = act.current_bet + increment
        if hand["structure"] == "pot-limit" and to > act.current_bet + act.pot_before + act.owed:
            continue
        if hand["structure"] == "spread-limit":
            spread = hand["stakes"].get("spread") or []
            if act.street >= len(spread) or increment > spread[act.street]["max"]:
                continue
        e = ev[act.index]
        e.update(action="raise", amount=e["amount"] + increment, to=to, all_in=False)
        ev.insert(act.index + 1, {"kind": "return", "seat": act.seat, "amount": increment})
        if final:
            # the re-raiser is now the last aggressor of the final round and shows first
            shows = [x for x in ev if x["kind"] == "show"]
            mine = next((x for x in shows if x["seat"] == act.seat), None)
            if shows and mine is not None and shows[0] is not mine:
                at = _index_of(hand, shows[0])
                del ev[_index_of(hand, mine)]
                ev.insert(at, mine)
        return e
    return None


@mutator("action-order", "two players' checks recorded in the wrong order",
         rules=("NZ17-2a", "NZ15-2a", "ONL5CD-order", "TDA-53"))
def out_of_turn(hand: Hand) -> Mark:
    ev = _events(hand)
    for i in range(len(ev) - 1):
        a, b = ev[i], ev[i + 1]
        if _is(a, "action", action="check") and _is(b, "action", action="check") and a["seat"] != b["seat"]:
            ev[i], ev[i + 1] = b, a
            return b
    return None


@mutator("call-amount", "a call one chip unit short of the bet, not all-in (the pot that much smaller)",
         rules=("NZ17-2-call", "ONL5CD-call", "TDA-51"))
def undercall(hand: Hand) -> Mark:
    winner = _single_winner(hand)
    if winner is None or any(e["kind"] in ("return", "rake") for e in _events(hand)):
        return None  # (a smaller pot could make the rake taken more than a posted schedule allows)
    ev = _events(hand)
    acts = _betting(hand)
    for k, act in enumerate(acts):
        e = ev[act.index]
        if _is(e, "action", action="call") and not e.get("all_in") and e["amount"] > _unit(hand) \
                and e["seat"] != winner["seat"]:
            # the short caller folds later without putting in another chip, so no later round total
            # depends on the call and no side pot forms; where the pack judges a round closed with a
            # player still to act, the fold comes in the same round (else the round closes on a
            # player short of the bet); a pot-limit bet sized from the pot after it still fits
            mine = [a for a in acts[k + 1:] if a.seat == act.seat]
            fold = next((a for a in mine if a.verb == "fold"), None)
            if fold is None or any(a.verb not in ("check", "fold") for a in mine if a.index < fold.index):
                continue
            if _judges(hand, "pending_seat") and (mine[0] is not fold or fold.street != act.street):
                continue
            if hand["structure"] == "pot-limit" and any(
                    a.increment is not None and a.made > a.current_bet + a.pot_before + a.owed - _unit(hand)
                    for a in acts[k + 1:]):
                continue
            e["amount"] -= _unit(hand)
            e["to"] -= _unit(hand)
            winner["amount"] -= _unit(hand)
            return e
    return None


# -- bet sizing --------------------------------------------------------------------------------

def _act_at(hand: Hand, e: dict) -> _Act | None:
    """The replay's description of action `e` (None in a hand the replay refused)."""
    i = _index_of(hand, e)
    return next((a for a in _betting(hand) if a.index == i), None)


def _bet_faced(hand: Hand, e: dict) -> int:
    """The highest round total before action `e` in its betting round (the first round counts the blind)."""
    act = _act_at(hand, e)
    return act.current_bet if act is not None else 0


@mutator("min-raise", "an uncalled raise cut to one chip unit over the bet it faced, not all-in",
         rules=("NZ17-6c", "TDA-43A"))
def shrink_raise(hand: Hand) -> Mark:
    e = _last_uncalled(hand, "no-limit", "pot-limit")
    if e is None or e["action"] != "raise":
        return None
    faced = _bet_faced(hand, e)
    return _resize_uncalled(hand, faced + _unit(hand)) if faced > 0 else None


@mutator("bet-limit", "an uncalled spread-limit bet or raise one chip unit over the spread maximum", rules=("NZ17-6e",))
def spread_over(hand: Hand) -> Mark:
    e = _last_uncalled(hand, "spread-limit")
    spread = hand["stakes"].get("spread") or []
    if e is None or not spread:
        return None
    return _resize_uncalled(hand, _bet_faced(hand, e) + max(s["max"] for s in spread) + _unit(hand))


@mutator("min-bet", "an uncalled opening bet cut below the minimum bet, not all-in", rules=("TDA-52A",))
def short_bet(hand: Hand) -> Mark:
    e = _last_uncalled(hand)
    if e is None or e["action"] != "bet":
        return None
    blinds = hand["stakes"]["blinds"]
    minimum = {"fixed-limit": None, "spread-limit": None}.get(hand["structure"], blinds[-1] if blinds else None)
    if minimum is None or minimum <= _unit(hand):
        return None
    return _resize_uncalled(hand, minimum - _unit(hand))


@mutator("bet-limit", "an uncalled pot-limit bet or raise made larger than the pot allows", rules=("NZ17-6d", "TDA-54"))
def over_pot(hand: Hand) -> Mark:
    e = _last_uncalled(hand, "pot-limit")
    if e is None:
        return None
    # the largest legal total is at most the whole pot plus the call plus the bet faced: exceed it
    act = _act_at(hand, e)
    if act is None:
        return None
    resized = _resize_uncalled(hand, 3 * act.pot_before + e["to"] + _unit(hand))
    if resized is None:  # the stack does not cover that: one chip unit over the limit
        resized = _resize_uncalled(hand, act.current_bet + act.pot_before + act.owed + _unit(hand))
    return resized


@mutator("bet-limit", "an uncalled fixed-limit bet or raise one unit larger than the limit", rules=("ONL5CD-fixed",))
def off_unit(hand: Hand) -> Mark:
    e = _last_uncalled(hand, "fixed-limit")
    if e is None:
        return None
    act = _act_at(hand, e)
    street = act.street if act is not None else -1
    units = hand["stakes"].get("bet_units") or []
    if not 0 <= street < len(units):
        return None
    return _resize_uncalled(hand, e["to"] + units[street])


@mutator("bet-limit", "the table maximum set one chip unit below the hand's largest bet or raise",
         rules=("NZ17-6c-max",))
def table_maximum_below_largest(hand: Hand) -> Mark:
    sizes = [a for a in _betting(hand) if a.increment is not None]
    if not sizes or "table_max" in hand["stakes"]:
        return None
    largest = max(a.increment for a in sizes)
    biggest = [a for a in sizes if a.increment == largest]
    if len(biggest) != 1 or largest <= _unit(hand):
        return None
    hand["stakes"]["table_max"] = largest - _unit(hand)
    return _events(hand)[biggest[0].index]


@mutator("raise-cap", "a raise past the cap in a round of three or more players, every other player calling it "
         "(the winner paid that much more)", rules=("NZ17-6f", "ONL5CD-cap", "TDA-48"))
def raise_past_cap(hand: Hand) -> Mark:
    house = _house(hand["rule_pack"])
    if house is None or house.max_raises is None or hand["structure"] not in ("fixed-limit", "spread-limit"):
        return None
    ev = _events(hand)
    winner = _single_winner(hand)
    # (a posted rake allows at least as much from the bigger pot, so a rake taken stays within it)
    if winner is None or winner["pot"] != 0 or any(e.get("all_in") for e in ev) \
            or any(e["kind"] == "return" for e in ev):
        return None
    acts = _betting(hand)
    rounds = _rounds(hand)
    chips = _chips_in(hand)
    for start, end in rounds[:-1]:  # not the last round: the show order follows its aggressor
        mine = [a for a in acts if start <= a.index < end]
        if not mine or mine[-1].verb != "call" or mine[-1].raises_before != house.max_raises:
            continue
        closing = mine[-1]
        if closing.able < 3 or not closing.raise_allowed or not all(a.full for a in mine if a.increment is not None):
            continue
        increment = max(a.increment for a in mine if a.increment is not None)
        folded = {e["seat"] for e in ev[:closing.index] if _is(e, "action", action="fold")}
        callers = [s for s in clockwise_after(_dealt_in(hand), closing.seat) if s not in folded and s != closing.seat]
        if any(_stack(hand, s) - chips.get(s, 0) <= increment for s in [closing.seat, *callers]):
            continue
        e = ev[closing.index]
        e.update(action="raise", amount=e["amount"] + increment, to=e["to"] + increment, all_in=False)
        ev[closing.index + 1:closing.index + 1] = [
            {"kind": "action", "seat": s, "action": "call", "amount": increment, "to": e["to"], "all_in": False}
            for s in callers]
        winner["amount"] += increment * (1 + len(callers))
        return e
    return None


# -- pots and showdown ------------------------------------------------------------------------

@mutator("winner", "the pot paid to a player the cards say lost", rules=("NZ17-5d", "ONL5CD-winner", "TDA-12"))
def pay_the_loser(hand: Hand) -> Mark:
    winner = _single_winner(hand)
    shown = [e["seat"] for e in _events(hand) if e["kind"] == "show"]
    losers = [s for s in shown if winner and s != winner["seat"]]
    if winner is None or len(shown) != 2 or not losers:
        return None
    winner["seat"] = losers[0]
    return winner


@mutator("split-pot", "a pot one player won divided with a loser, as if by agreement", rules=("NZ17-5f",))
def chop_by_agreement(hand: Hand) -> Mark:
    winner = _single_winner(hand)
    shown = [e["seat"] for e in _events(hand) if e["kind"] == "show"]
    losers = [s for s in shown if winner and s != winner["seat"]]
    unit = _unit(hand)
    if winner is None or len(shown) != 2 or not losers or winner["amount"] < 2 * unit:
        return None
    if winner["amount"] // unit % 2:
        return None  # halves of an odd number of chips leave an odd chip, which a pack may judge too
    half = (winner["amount"] // unit // 2) * unit
    winner["amount"] -= half
    _events(hand).append({"kind": "award", "pot": winner["pot"], "seat": losers[0], "amount": half})
    return winner


@mutator("split-pot", "a tie paid two chip units unequally", rules=("NZ17-5e-split", "TDA-20"))
def unequal_split(hand: Hand) -> Mark:
    awards: dict[int, list[dict]] = {}
    for e in _events(hand):
        if e["kind"] == "award":
            awards.setdefault(e["pot"], []).append(e)
    for paid in awards.values():
        if len(paid) == 2 and paid[1]["amount"] > 2 * _unit(hand):
            paid[0]["amount"] += 2 * _unit(hand)
            paid[1]["amount"] -= 2 * _unit(hand)
            return paid[0]
    return None


@mutator("odd-chip", "a split pot's odd chip paid to a winner the house rule does not give it to",
         rules=("NZ17-5e-odd", "TDA-20A"))
def wrong_odd_chip(hand: Hand) -> Mark:
    unit = _unit(hand)
    awards: dict[int, list[dict]] = {}
    for e in _events(hand):
        if e["kind"] == "award":
            awards.setdefault(e["pot"], []).append(e)
    for paid in awards.values():
        amounts = [e["amount"] for e in paid]
        if len(paid) < 2 or max(amounts) - min(amounts) != unit:
            continue
        # one odd chip moves from a winner the house order gave it to, to one it passed over
        given = next(e for e in paid if e["amount"] == max(amounts))
        passed = next(e for e in paid if e["amount"] == min(amounts))
        given["amount"] -= unit
        passed["amount"] += unit
        return paid[0]
    return None


@mutator("showdown", "a contested pot paid to a winner who never showed their cards",
         rules=("NZ17-5d-show", "ONL5CD-show-winner", "TDA-13A"))
def hide_winner(hand: Hand) -> Mark:
    winner = _single_winner(hand)
    ev = _events(hand)
    shows = [e for e in ev if e["kind"] == "show"]
    if winner is None or len(shows) < 2:
        return None
    mine = [e for e in shows if e["seat"] == winner["seat"]]
    if not mine or (mine[0] is shows[0] and _judges(hand, "first_shown_seat")
                    and _final_aggressor(hand) == winner["seat"]):
        return None  # (the last aggressor, who must show first, not showing at all would be a second fault)
    del ev[_index_of(hand, mine[0])]
    return winner


@mutator("chip-conservation", "one chip unit of the pot never paid out",
         rules=("NZ-INT-chips", "ONL5CD-INT-chips", "TDA-INT-chips"))
def leak_chip(hand: Hand) -> Mark:
    winner = _single_winner(hand)
    if winner is None or winner["amount"] <= _unit(hand):
        return None
    winner["amount"] -= _unit(hand)
    return WHOLE_HAND


@mutator("rake", "the house took one rake increment more than its posted schedule allows (the winner paid that "
         "much less)", rules=("TDA-HOUSE-rake",),
         live=(lambda house: house.rake is not None, "the pack posts no rake schedule (parameter rake_schedule)"))
def rake_over_schedule(hand: Hand) -> Mark:
    house = _house(hand["rule_pack"])
    if house is None or house.rake is None:
        return None
    ev = _events(hand)
    winner = _single_winner(hand)
    rakes = [e for e in ev if e["kind"] == "rake"]
    if winner is None or winner["pot"] != 0 or len(rakes) > 1 or (rakes and rakes[0]["pot"] != 0):
        return None
    v = VARIANTS[hand["variant"]]
    unit = _unit(hand)
    contested = sum(e.get("amount") or 0 for e in ev if e["kind"] in ("post", "action")) - \
        sum(e["amount"] for e in ev if e["kind"] == "return")
    board = sum(len(e["cards"]) for e in ev if _is(e, "deal", to="board"))
    allowed = house.rake.allowed(contested, unit, v.board_cards > 0, board > v.board_schedule[0])
    step = house.rake.increment or unit
    taken = rakes[0]["amount"] if rakes else 0
    over = allowed + max(step, unit) - taken  # chips moved from the winner to the house
    over = -(-over // unit) * unit  # in whole chips
    if taken + over <= allowed or over <= 0 or winner["amount"] <= over:
        return None
    if rakes:
        rakes[0]["amount"] += over
    else:
        ev.insert(_index_of(hand, winner), {"kind": "rake", "pot": 0, "amount": over})
    winner["amount"] -= over
    return WHOLE_HAND


@mutator("pot-award", "an uncalled bet kept in the pot, the pot raked, the rest paid to its bettor",
         rules=("TDA-15B",))
def keep_uncalled(hand: Hand) -> Mark:
    """Why raked: kept chips paid back to a bettor who won the pot alone, unraked, are the bettor's own chips either
    way (a converter's booking, no finding); raked with the pot, part of them went to the house."""
    ev = _events(hand)
    winner = _single_winner(hand)
    returns = [e for e in ev if e["kind"] == "return"]
    if winner is None or len(returns) != 1 or returns[0]["seat"] != winner["seat"]:
        return None
    if _showdown(hand) or any(e.get("all_in") for e in ev):
        return None  # an all-in player still in would make the kept chips a side pot paid from the main one
    raked = any(e["kind"] == "rake" for e in ev)
    house = _house(hand["rule_pack"])
    if not raked and house is not None and house.rake is not None:
        return None  # the unit of rake this adds could break the house's schedule: a second finding
    at = _index_of(hand, returns[0])
    start, end = next(r for r in _rounds(hand) if r[0] <= at < r[1])
    opener = _round_seq(hand, start, end)
    winner["amount"] += returns[0]["amount"]
    del ev[_index_of(hand, returns[0])]
    if not raked:
        unit = _unit(hand)
        ev.insert(_index_of(hand, winner), {"kind": "rake", "pot": 0, "amount": unit})
        winner["amount"] -= unit
    return ev[opener] if opener is not None else WHOLE_HAND


@mutator("pot-award", "a side pot paid out of the main pot", rules=("TDA-21",))
def misaward_side_pot(hand: Hand) -> Mark:
    awards = [e for e in _events(hand) if e["kind"] == "award"]
    by_pot: dict[int, list[dict]] = {}
    for e in awards:
        by_pot.setdefault(e["pot"], []).append(e)
    if len(by_pot.get(0, [])) != 1 or len(by_pot.get(1, [])) != 1 or by_pot[0][0]["seat"] != by_pot[1][0]["seat"]:
        return None
    by_pot[0][0]["amount"] += by_pot[1][0]["amount"]
    del _events(hand)[_index_of(hand, by_pot[1][0])]
    return WHOLE_HAND


@mutator("showdown", "the last aggressor showed second", rules=("NZ17-5d-order", "ONL5CD-show"))
def show_out_of_order(hand: Hand) -> Mark:
    ev = _events(hand)
    shows = [i for i, e in enumerate(ev) if e["kind"] == "show"]
    aggressor = _final_aggressor(hand) if len(shows) >= 2 else None
    if aggressor is None or ev[shows[0]]["seat"] != aggressor:
        return None
    ev[shows[0]], ev[shows[1]] = ev[shows[1]], ev[shows[0]]
    return WHOLE_HAND


# -- records -------------------------------------------------------------------------------------

@mutator("record", "an action's stated round total disagrees with the chips it added",
         rules=("NZ-INT-total", "ONL5CD-INT-total", "TDA-INT-total"))
def wrong_total(hand: Hand) -> Mark:
    for e in _events(hand):
        if _is(e, "action", action="call"):
            e["to"] += _unit(hand)
            return e
    return None


@table_mutator("record", "a hand logged under the id of the table's previous hand",
               rules=("NZ-INT-id", "ONL5CD-INT-id", "TDA-INT-id"))
def duplicate_id(hand: Hand, history: Sequence[Hand]) -> tuple[Mark, list[Hand]] | None:
    if not history:
        return None
    hand["hand_id"] = history[-1]["hand_id"]
    return WHOLE_HAND, [history[-1]]
