"""Table sessions: seats, players and stacks that persist, a button that moves, seat draws.

Hands are played in sessions of 20 to 200 hands at one table; then a new table starts. A table
has ``max_seats`` seats of which some are occupied (not necessarily next to each other); stacks
carry over from hand to hand and a player who busts re-buys for their starting stack before the
next hand (the new stack simply shows in the next hand's header).

With ``sit_outs=True`` players sit out and come back, so tables carry missed blinds across hands,
played the way every built-in rule book accepts: on half of the tables of four or more players a
player may sit out (status ``sitting_out``, not dealt in) while three or more stay in, never the
player who posted the small blind in the hand before (the button goes to that player next); the
button moves to the next seat dealt in. A seated player whom the blinds pass over misses them: the
first seat after the button the small blind, later seats before the big blind the big blind. A
player comes back either in the big blind or in a seat after the big blind and before the button,
and then "posts all": what they owe of the big blind live and the small blind dead (nothing when
the blinds never passed them). Tables with other than two blinds never sit out.

Every table draws its own ``random.Random`` from the run's seed, so a table's hands do not
depend on how the tables are interleaved; several tables are played in lockstep only so that
their showdowns are evaluated in one :func:`auditor.replay.evaluate.best_hands` call, and their
hands are then yielded table by table. ``simulate_hands(..., hands=n)`` is a prefix of the
same call with more hands.

Measured speed (one core, Python 3.11, NumPy 2; ``auditor.simulate.tables.benchmark()``
reproduces it): about 8,600 hands/s overall, from ~7,300 hands/s (three-card-nz, five betting
rounds) to ~9,700 hands/s (five-card draw, hold'em no-limit), including the showdown evaluation;
about 7,800 hands/s overall with another process competing for the core.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

from auditor.model.seats import clockwise_after
from auditor.replay.house import HouseRules, RakeSchedule
from auditor.simulate.play import CARD_TEXT, STRUCTURES, Game, Hand, evaluate_showdowns

__all__ = ["SEAT_DRAW_RANK_TIE", "benchmark", "simulate_hands", "simulate_mixed"]

#: share of seat draws in which the two highest cards have the same rank (suit decides)
SEAT_DRAW_RANK_TIE = 0.3
#: tables played in lockstep (their showdowns share one evaluator call)
_LOCKSTEP = 64
_EPOCH = "2024-01-01T00:00:00Z"


def simulate_hands(variant: str, structure: str, hands: int, seed: int, **options: Any) -> Iterator[dict]:
    """`hands` canonical hand logs of one game, deterministic for `seed`.

    `options` are :func:`simulate_mixed`'s (`house` and `rule_pack` required; table size, stakes,
    seat draws, rake, session length, start time optional), so the two cannot drift apart.
    """
    return simulate_mixed([(variant, structure)], hands, seed, **options)


def simulate_mixed(
    games: Sequence[tuple[str, str]],
    hands: int,
    seed: int,
    *,
    house: HouseRules,
    rule_pack: str,
    table_size: int | tuple[int, int] = (2, 9),
    stakes: dict | None = None,
    table_prefix: str = "T",
    room: str = "Simulated room",
    seat_draws: bool = False,
    rake: tuple[float, int] | RakeSchedule | None = None,
    session_hands: tuple[int, int] = (20, 200),
    start: str = _EPOCH,
    sit_outs: bool = False,
    chip_unit_mix: tuple[float, int] | None = None,
) -> Iterator[dict]:
    """`hands` canonical hand logs, each table playing a (variant, structure) drawn from `games`.

    Deterministic for `seed`. `stakes` defaults to :func:`auditor.simulate.play.default_stakes`; a
    given dict is completed (fixed limit ``bet_units``, spread limit ``spread``) from its last blind.
    `rake` is (fraction, cap) of the main pot, rounded down to the chip unit, or a house's posted
    :class:`~auditor.replay.house.RakeSchedule` (what it allows, from the main pot); off by default.
    `sit_outs` lets players sit out and return, making up missed blinds (module docstring); off by
    default, and when off no random draw is spent on it, so earlier runs replay unchanged.
    `chip_unit_mix` = (share, unit): that share of the tables plays in chips of `unit` instead of the
    stakes' own, blinds and bets unchanged (they must be multiples of it). It exists for formats that
    do not state the chip unit (OHH, PHH: their readers take one chip), in which a split pot's odd
    chips of 50 cannot be written. Which tables are drawn from a generator of its own, so every table
    keeps its game, size, seed and start whether or not the mix is asked for.
    """
    if not games:
        raise ValueError("no games to simulate")
    for _, structure in games:
        if structure not in STRUCTURES:
            raise ValueError(f"unknown structure {structure!r}")
    built = {g: Game(g[0], g[1], stakes, house, rake) for g in dict.fromkeys(tuple(x) for x in games)}
    keys = list(built)
    fine: dict[tuple[str, str], Game] = {}
    mixer: random.Random | None = None
    share = 0.0
    if chip_unit_mix is not None:
        share, unit = chip_unit_mix
        if not 0.0 <= share <= 1.0 or unit < 1:
            raise ValueError(f"chip_unit_mix must be (share in 0..1, unit >= 1), got {chip_unit_mix!r}")
        fine = {g: Game(g[0], g[1], {**game.stakes, "chip_unit": unit}, house, rake) for g, game in built.items()}
        mixer = random.Random(f"{seed}/chip-unit-{unit}")
    lo, hi = (table_size, table_size) if isinstance(table_size, int) else table_size
    if not 2 <= lo <= hi <= 10:
        raise ValueError(f"table_size must be within 2..10, got {table_size!r}")
    for game in built.values():
        if game.min_players > hi:
            raise ValueError(f"{len(game.blinds)} blinds need at least {game.min_players} seats")
    rng = random.Random(seed)
    t0 = datetime.strptime(start, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    plans: list[tuple[str, Game, int, int, int, int]] = []
    left = hands
    offset = 0
    number = 0
    while left > 0:
        number += 1
        key = keys[int(rng.random() * len(keys))]
        game = fine[key] if mixer is not None and mixer.random() < share else built[key]
        n = min(left, rng.randint(*session_hands))
        max_seats = rng.randint(lo, hi)
        offset += rng.randint(30, 900)
        plans.append((f"{table_prefix}{number:04d}", game, n, max_seats, rng.getrandbits(64), offset))
        left -= n
    return _play(plans, t0, house, rule_pack, room, seat_draws, sit_outs)


def _play(plans, t0, house, rule_pack, room, seat_draws, sit_outs=False) -> Iterator[dict]:
    for g in range(0, len(plans), _LOCKSTEP):
        tables = [
            _Table(
                tid,
                game,
                n,
                max_seats,
                random.Random(tseed),
                t0 + timedelta(seconds=off),
                rule_pack=rule_pack,
                room=room,
                seat_draws=seat_draws,
                sit_outs=sit_outs,
            )
            for tid, game, n, max_seats, tseed, off in plans[g : g + _LOCKSTEP]
        ]
        outputs: list[list[dict]] = [[] for _ in tables]
        running = list(range(len(tables)))
        while running:
            hands = [tables[k].begin() for k in running]
            showdowns = [h for h in hands if h.needs_eval]
            results = iter(evaluate_showdowns(showdowns)) if showdowns else iter(())
            for k, h in zip(running, hands, strict=True):
                if h.needs_eval:
                    h.finish(*next(results))
                else:
                    h.finish()
                outputs[k].append(tables[k].end(h))
            running = [k for k in running if tables[k].remaining]
        for out in outputs:
            yield from out


class _Table:
    """One table session."""

    def __init__(
        self,
        table_id: str,
        game: Game,
        n_hands: int,
        max_seats: int,
        rng: random.Random,
        clock: datetime,
        *,
        rule_pack: str,
        room: str,
        seat_draws: bool,
        sit_outs: bool = False,
    ) -> None:
        self.table_id = table_id
        self.game = game
        self.rng = rng
        self.shuffler = np.random.default_rng(rng.getrandbits(64))
        self.remaining = n_hands
        self.clock = clock
        self.number = 0
        self.max_seats = max_seats
        self.room = room
        self.rule_pack = rule_pack
        top = min(max_seats, game.max_players)
        low = game.min_players
        heads_up = low <= 2 and rng.random() < 0.25
        players = 2 if heads_up else rng.randint(low, max(low, top))
        seats = sorted(rng.sample(range(1, max_seats + 1), players))
        bb = game.last_blind
        unit = game.unit
        self.players: dict[int, str] = {}
        self.start_stack: dict[int, int] = {}
        for s in seats:
            self.players[s] = f"{table_id}-p{s}"
            lo, hi = (2, 15) if rng.random() < 0.22 else (50, 200)
            units = rng.randint(lo * bb // unit, hi * bb // unit)
            self.start_stack[s] = max(unit, units * unit)
        self.stacks = dict(self.start_stack)
        self.seats = seats
        self.button = seats[int(rng.random() * len(seats))]
        self.pre_events: list[dict] = []
        if seat_draws and rng.random() < 0.8:
            self.pre_events = self._seat_draws()
        self.hand: Hand | None = None
        #: seats sitting out, and blinds each seat's player missed and still owes ("sb", "bb")
        self.out: set[int] = set()
        self.owed: dict[int, set[str]] = {}
        self.dealt: list[int] = list(seats)
        self.make_up: dict[int, tuple[int, int]] = {}
        self.previous_small_blind: int | None = None
        self.sit_outs = sit_outs and len(seats) >= 4 and len(game.blinds) == 2 and rng.random() < 0.5

    def _seat_draws(self) -> list[dict]:
        """One or two seat draws; each contested seat goes to the highest card."""
        rng = self.rng
        house = self.game.house
        contested = rng.sample(self.seats, min(len(self.seats), 1 if rng.random() < 0.6 else 2))
        used: set[int] = set()  # one fresh deck for the whole draw
        events = []
        for s in sorted(contested):
            k = 2 if rng.random() < 0.6 else 3
            cards: list[int] = []
            if rng.random() < SEAT_DRAW_RANK_TIE:
                while True:
                    rank = rng.randint(1, 12)
                    suits = [x for x in range(4) if rank * 4 + x not in used]
                    if len(suits) >= 2:
                        break
                cards = [rank * 4 + x for x in rng.sample(suits, 2)]
                lower = [c for c in range(rank * 4) if c not in used]
                cards += rng.sample(lower, k - 2)
            else:
                free_ranks = [r for r in range(13) if any(r * 4 + x not in used for x in range(4))]
                for r in rng.sample(free_ranks, k):
                    cards.append(rng.choice([r * 4 + x for x in range(4) if r * 4 + x not in used]))
            used.update(cards)
            rng.shuffle(cards)
            best = max(cards, key=house.card_key)
            names = [f"{self.table_id}-s{s}{chr(97 + j)}" for j in range(k)]
            winner = names[cards.index(best)]
            self.players[s] = winner
            events.append(
                {
                    "kind": "seat_draw",
                    "seat": s,
                    "draws": [{"player": p, "card": CARD_TEXT[c]} for p, c in zip(names, cards, strict=True)],
                    "awarded_to": winner,
                }
            )
        return events

    def begin(self) -> Hand:
        if self.number:
            if self.sit_outs:
                self._sit_out_or_return()
            else:
                k = self.seats.index(self.button)
                self.button = self.seats[(k + 1) % len(self.seats)]
            self.clock += timedelta(seconds=self.rng.randint(25, 180))
        self.number += 1
        self.remaining -= 1
        self.start = dict(self.stacks)
        seats = [(s, self.players[s], self.stacks[s]) for s in self.dealt]
        hand = Hand(self.game, self.rng, seats, self.button, self.shuffler.permutation(52).tolist(), self.make_up)
        hand.events.extend(self.pre_events)
        self.pre_events = []
        return hand.play()

    def _sit_out_or_return(self) -> None:
        """Who is dealt in this hand, the button, and what each returning player posts."""
        rng = self.rng
        g = self.game
        sb, bb = g.blinds
        out = set(self.out)
        back = {s for s in sorted(out) if rng.random() < 0.3}
        for s in self.seats:
            if s not in out and s != self.previous_small_blind and rng.random() < 0.04 \
                    and len(self.seats) - len(out) - 1 >= 3:
                out.add(s)
        while True:
            dealt = [s for s in self.seats if s not in out or s in back]
            button = clockwise_after(dealt, self.button)[0]
            order = clockwise_after(dealt, button)  # first blind first, button last
            make_up = {}
            late = []
            for s in sorted(back):
                owes = self.owed.get(s, set())
                live, dead = (bb if "bb" in owes else 0, sb if owes else 0)
                if s == order[1]:
                    live, dead = 0, 0  # back in the big blind: the blind itself settles what is owed
                elif s in (order[0], button) or self.stacks[s] <= live + dead:
                    late.append(s)
                if live or dead:
                    make_up[s] = (live, dead)
            if not late:
                break
            back.difference_update(late)
        self.out = out - back
        self.dealt = dealt
        self.button = button
        self.make_up = make_up

    def _missed_blinds(self, hand: Hand) -> None:
        """Blinds the players sitting out missed this hand; players back in the big blind or who made
        up what they owed owe nothing more."""
        order = hand.order
        big_blind = order[1]
        for s in order:
            if s == big_blind or s in self.make_up:
                self.owed.pop(s, None)
        for position, s in enumerate(clockwise_after(self.seats, self.button)):
            if s == big_blind:
                break
            if s in self.out:
                self.owed.setdefault(s, set()).add("sb" if position == 0 else "bb")
        self.previous_small_blind = order[0]

    def end(self, hand: Hand) -> dict:
        g = self.game
        for s, st in hand.stack.items():
            self.stacks[s] = st if st > 0 else self.start_stack[s]  # bust: re-buy
        if self.sit_outs:
            self._missed_blinds(hand)
        stakes = {
            k: ([dict(x) for x in v] if k == "spread" else list(v) if isinstance(v, list) else v)
            for k, v in g.stakes.items()
        }
        return {
            "hand_id": f"{self.table_id}-{self.number:06d}",
            "table_id": self.table_id,
            "room": self.room,
            "started_at": self.clock.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "variant": g.name,
            "structure": g.structure,
            "stakes": stakes,
            "max_seats": self.max_seats,
            "rule_pack": self.rule_pack,
            "seats": [
                {"seat": s, "player": self.players[s], "stack": self.start[s],
                 "status": "sitting_out" if s in self.out else "active"}
                for s in self.seats
            ],
            "events": hand.events,
        }


def benchmark(hands: int = 10_000, seed: int = 1) -> dict[str, float]:
    """Hands per second for every variant and structure under the default house rules.

    The figures in the module docstring come from this (10,000 hands per game).
    """
    from auditor.replay.variants import VARIANTS

    house = HouseRules()
    rates: dict[str, float] = {}
    total_hands = 0
    total_time = 0.0
    for variant in VARIANTS:
        for structure in STRUCTURES:
            t0 = time.perf_counter()
            n = sum(1 for _ in simulate_hands(variant, structure, hands, seed, house=house, rule_pack="bench"))
            elapsed = time.perf_counter() - t0
            rates[f"{variant} {structure}"] = n / elapsed
            total_hands += n
            total_time += elapsed
    rates["overall"] = total_hands / total_time
    return rates
