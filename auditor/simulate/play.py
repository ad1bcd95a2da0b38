"""Legal-play state machine: one hand from the button to the awards.

A hand is played in two phases so that showdowns of many tables can be evaluated in one batch:
:meth:`Hand.play` runs everything up to the showdown (button, antes, blinds, deals, draws, betting,
uncalled-bet returns) and :meth:`Hand.finish` builds the pots with
:func:`auditor.model.pots.build_pots`, takes the optional rake and writes the awards, given the
hand values from :func:`auditor.replay.evaluate.best_hands` (see :func:`evaluate_showdowns`).

The betting rules the auditor checks are the ones followed here:

* preflop the largest blind is the bet to match (a blind posted all-in for less does not lower
  it) and the last blind is the starting raise increment; later rounds open at the last blind
  (no/pot limit), the round's unit (fixed) or the spread minimum (spread);
* a raise increment is at least the largest previous bet or raise increment of the round, except
  for an all-in;
* fixed limit raises by exactly ``bet_units[round]``; spread limit raises by at most the spread
  maximum; pot limit raises to at most ``current bet + pot + amount to call``;
* fixed and spread limit allow ``house.max_raises`` raises after the opening bet (the blind is
  the preflop opening bet) unless ``house.heads_up_uncapped`` and exactly two players are live
  and not all-in;
* an all-in that is not a full raise never reopens the betting for players who already acted.

Two choices are conservative on purpose, so that every reasonable reading of a rule book accepts
the simulated play: short all-ins are counted as raises when checking the cap (the house's
``limit_reopen_fraction`` could only lower that count), and a player who already acted never
re-raises after a short all-in, even when several short all-ins add up to a full raise.

Players returning from sitting out (see :mod:`auditor.simulate.tables`) make up the blinds they
missed before the cards are dealt: the big blind live (post ``missed``, it counts toward their bet)
and the small blind dead (post ``dead``, main-pot money that is nobody's bet).

Other choices: a player alone against all-in opponents is not asked to act when he owes nothing
(no event); uncalled chips are returned at the end of the betting round in which they were bet;
every player still in shows at a showdown; split pots give equal shares in chip units and the odd
units one each to the first winners in the house order: by the highest hole card used (rank,
then the house suit order), winners who use no hole card last, remaining ties clockwise from the
button, or simply clockwise from the first seat left of the button ("position"). A winner whose
share is zero chips gets no award event.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from auditor.model.pots import build_pots
from auditor.replay.evaluate import best_hands, card_text
from auditor.replay.house import HouseRules, RakeSchedule
from auditor.replay.variants import VARIANTS, Variant

__all__ = [
    "CARD_TEXT",
    "STRUCTURES",
    "Game",
    "Hand",
    "complete_stakes",
    "default_stakes",
    "evaluate_showdowns",
    "play_hand",
]

STRUCTURES: tuple[str, ...] = ("fixed-limit", "spread-limit", "pot-limit", "no-limit")
CARD_TEXT: tuple[str, ...] = tuple(card_text(c) for c in range(52))
_LIMIT = frozenset({"fixed-limit", "spread-limit"})
#: how many cards each draw discards, weights for 0..5
_DRAW_WEIGHTS = (0.25, 0.2, 0.2, 0.25, 0.05, 0.05)
_DRAW_CUM = tuple(sum(_DRAW_WEIGHTS[: i + 1]) for i in range(len(_DRAW_WEIGHTS)))
#: per-hand aggression: probability of betting or raising when allowed (raising wars are common)
_AGGRESSION = (0.05, 0.12, 0.25, 0.45, 0.7, 0.85)


def default_stakes(variant: str | Variant, structure: str) -> dict:
    """Blinds 50/100 with a 50 chip unit (so split pots often leave odd chips).

    Fixed limit: small bet (100) in the first half of the betting rounds, big bet (200) after,
    e.g. ``[100, 100, 200, 200]`` for hold'em and ``[100, 200]`` for five-card draw. Spread
    limit: 100 to 300 early, 100 to 600 late.
    """
    return complete_stakes({"blinds": [50, 100], "chip_unit": 50}, variant, structure)


def complete_stakes(stakes: dict, variant: str | Variant, structure: str) -> dict:
    """A copy of `stakes` with the structure's missing keys derived from the last blind; validated."""
    v = VARIANTS[variant] if isinstance(variant, str) else variant
    if structure not in STRUCTURES:
        raise ValueError(f"unknown structure {structure!r}")
    out: dict[str, Any] = {k: (list(x) if isinstance(x, list) else x) for k, x in stakes.items()}
    blinds = [int(b) for b in out.get("blinds", ())]
    unit = int(out.get("chip_unit", 0))
    if not 1 <= len(blinds) <= 3:
        raise ValueError("stakes need 1 to 3 blinds")
    if unit < 1:
        raise ValueError("stakes need a positive chip_unit")
    out["blinds"] = blinds
    bb = max(blinds)
    late = v.rounds // 2
    if structure == "fixed-limit":
        if "bet_units" not in out:
            out["bet_units"] = [bb if r < late else 2 * bb for r in range(v.rounds)]
        if len(out["bet_units"]) != v.rounds:
            raise ValueError(f"bet_units needs one entry per betting round ({v.rounds})")
    else:
        out.pop("bet_units", None)
    if structure == "spread-limit":
        if "spread" not in out:
            out["spread"] = [{"min": bb, "max": (3 if r < late else 6) * bb} for r in range(v.rounds)]
        out["spread"] = [dict(x) for x in out["spread"]]
        if len(out["spread"]) != v.rounds:
            raise ValueError(f"spread needs one entry per betting round ({v.rounds})")
    else:
        out.pop("spread", None)
    amounts = [*blinds, out.get("ante", 0), *out.get("bet_units", ())]
    for x in out.get("spread", ()):
        amounts += [x["min"], x["max"]]
    if any(a % unit for a in amounts):
        raise ValueError(f"every stake must be a multiple of chip_unit {unit}: {out}")
    return out


class Game:
    """What does not change between hands of a table: variant, structure, stakes, house rules."""

    def __init__(
        self,
        variant: str,
        structure: str,
        stakes: dict | None,
        house: HouseRules,
        rake: tuple[float, int] | RakeSchedule | None = None,
    ) -> None:
        self.name = variant
        self.variant = house.variant(variant)
        self.structure = structure
        self.stakes = complete_stakes(stakes, variant, structure) if stakes else default_stakes(variant, structure)
        self.house = house
        if house.odd_chip_method not in ("suit", "position"):
            raise ValueError(f"unknown odd_chip_method {house.odd_chip_method!r}")
        self.rake = rake
        v = self.variant
        st = self.stakes
        self.blinds: tuple[int, ...] = tuple(st["blinds"])
        self.unit: int = st["chip_unit"]
        self.ante: int = st.get("ante", 0)
        self.last_blind = self.blinds[-1]
        self.nominal = max(self.blinds)
        self.rounds = v.rounds
        self.fixed = structure == "fixed-limit"
        self.spread = structure == "spread-limit"
        self.pot_limit = structure == "pot-limit"
        self.capped = structure in _LIMIT and house.max_raises is not None
        self.max_raises = house.max_raises if house.max_raises is not None else 0
        self.hu_uncapped = house.heads_up_uncapped
        if self.fixed:
            self.open_min = tuple(st["bet_units"])
            self.open_max = self.open_min
        elif self.spread:
            self.open_min = tuple(x["min"] for x in st["spread"])
            self.open_max = tuple(x["max"] for x in st["spread"])
        else:
            self.open_min = (self.last_blind,) * v.rounds
            self.open_max = (0,) * v.rounds  # unused
        #: odd-chip order of a card code: rank first, then the house's suit order
        self.card_order = tuple(house.card_key(c) for c in range(52))
        #: most players the deck serves (five-card draw keeps cards back for the draw)
        if v.max_draw:
            self.max_players = min(10, 7, 52 // v.hole_cards)
        else:
            board_and_burns = v.board_cards + sum(1 for r, n in enumerate(v.board_schedule) if n and r)
            self.max_players = min(10, (52 - board_and_burns) // v.hole_cards)
        self.min_players = max(2, len(self.blinds))


class Hand:
    """One hand in play. ``seats``: (seat, player, stack) for every seat dealt in; ``deck``: a
    shuffled permutation of the 52 card codes (shuffled with `rng` when not given); ``make_up``:
    seat -> (live, dead) chips a returning player posts for the blinds missed while away."""

    def __init__(
        self,
        game: Game,
        rng: random.Random,
        seats: Sequence[tuple[int, str, int]],
        button: int,
        deck: list[int] | None = None,
        make_up: Mapping[int, tuple[int, int]] | None = None,
    ) -> None:
        self.game = game
        self.rng = rng
        ring = sorted(s for s, _, _ in seats)
        if len(ring) < game.min_players:
            raise ValueError(f"{len(ring)} players cannot post {len(game.blinds)} blinds")
        if len(ring) > game.max_players:
            raise ValueError(f"{game.name} deals to at most {game.max_players} players")
        bi = ring.index(button)
        self.button = button
        #: occupied seats clockwise from the first seat left of the button (button last)
        self.order = ring[bi + 1 :] + ring[: bi + 1]
        self.stack = {s: st for s, _, st in seats}
        self.contrib = dict.fromkeys(ring, 0)
        self.round_in = dict.fromkeys(ring, 0)
        self.folded: set[int] = set()
        self.allin: set[int] = set()
        self.make_up = dict(make_up or {})
        self.dead = 0  # dead money (made-up small blinds): in the main pot, nobody's bet
        self.events: list[dict] = []
        self.hole: dict[int, list[int]] = {}
        self.board: list[int] = []
        self.aggressor: int | None = None  # last bettor/raiser of the last round with actions
        if deck is None:
            deck = list(range(52))
            rng.shuffle(deck)
        self.deck = deck  # dealt from the end
        self.agg = _AGGRESSION[int(rng.random() * len(_AGGRESSION))]
        self.fold_p = 0.1 + 0.35 * rng.random()
        self.needs_eval = False

    # ------------------------------------------------------------------ phase 1

    def play(self) -> Hand:
        g = self.game
        v = g.variant
        ev = self.events
        ev.append({"kind": "button", "seat": self.button})
        if g.ante:
            for s in self.order:
                self._post(s, g.ante, {"kind": "post", "seat": s, "post": "ante"})
        first = self._blinds()
        if self.make_up:
            self._post_missed()
        self._deal_hole()
        for r in range(g.rounds):
            if v.draw_before[r]:
                self._draw_phase()
            n_board = v.board_schedule[r]
            if n_board:
                if r:
                    ev.append({"kind": "deal", "to": "burn", "cards": ["??"]})
                    self.deck.pop()
                cards = [self.deck.pop() for _ in range(n_board)]
                self.board += cards
                ev.append({"kind": "deal", "to": "board", "cards": [CARD_TEXT[c] for c in cards]})
            self._betting(r, first if r == 0 else self.order[0])
            self._return_uncalled()
            if len(self.folded) == len(self.order) - 1:
                return self
        self.needs_eval = True
        return self

    def _post(self, s: int, amount: int, event: dict) -> int:
        st = self.stack[s]
        amt = amount if amount < st else st
        if amt <= 0:
            return 0
        self.stack[s] = st - amt
        self.contrib[s] += amt
        event["amount"] = amt
        event["all_in"] = amt == st
        if amt == st:
            self.allin.add(s)
        self.events.append(event)
        return amt

    def _blinds(self) -> int:
        """Post the blinds; returns the seat that acts first preflop."""
        g = self.game
        order = self.order
        n = len(order)
        if n == 2 and len(g.blinds) == 2:
            posters = [order[1], order[0]]  # heads-up: the button posts the first blind
        else:
            posters = [order[i % n] for i in range(len(g.blinds))]
        for k, (s, b) in enumerate(zip(posters, g.blinds, strict=True)):
            amt = self._post(s, b, {"kind": "post", "seat": s, "post": "blind", "blind": k + 1})
            self.round_in[s] += amt
        return order[(order.index(posters[-1]) + 1) % n]

    def _post_missed(self) -> None:
        """Returning players make up what they missed: the big blind live, the small blind dead."""
        for s in self.order:
            live, dead = self.make_up.get(s, (0, 0))
            if live:
                self.round_in[s] += self._post(s, live, {"kind": "post", "seat": s, "post": "missed"})
            if dead:
                if dead >= self.stack[s]:
                    raise ValueError(f"seat {s} cannot post {dead} dead from a stack of {self.stack[s]}")
                self.stack[s] -= dead
                self.dead += dead
                self.events.append({"kind": "post", "seat": s, "post": "dead", "amount": dead, "all_in": False})

    def _deal_hole(self) -> None:
        k = self.game.variant.hole_cards
        deck = self.deck
        for s in self.order:
            cards = [deck.pop() for _ in range(k)]
            self.hole[s] = cards
            self.events.append({"kind": "deal", "to": "hole", "seat": s, "cards": [CARD_TEXT[c] for c in cards]})

    def _draw_phase(self) -> None:
        rng = self.rng
        deck = self.deck
        for s in self.order:
            if s in self.folded:
                continue
            u = rng.random()
            k = 0
            while u > _DRAW_CUM[k]:
                k += 1
            k = min(k, len(deck))
            cards = self.hole[s]
            idx = sorted(rng.sample(range(len(cards)), k))
            discard = [cards[i] for i in idx]
            receive = [deck.pop() for _ in range(k)]
            for i, c in zip(idx, receive, strict=True):
                cards[i] = c
            self.events.append(
                {
                    "kind": "draw",
                    "seat": s,
                    "discard": [CARD_TEXT[c] for c in discard],
                    "receive": [CARD_TEXT[c] for c in receive],
                }
            )

    def _betting(self, r: int, start: int) -> None:
        g = self.game
        rng = self.rng
        order = self.order
        n = len(order)
        folded, allin = self.folded, self.allin
        stack, round_in, contrib = self.stack, self.round_in, self.contrib
        ev = self.events
        need = {s for s in order if s not in folded and s not in allin}
        if not need:
            return
        can = set(need)
        if r == 0:
            cur = g.nominal
            inc = g.open_min[0] if g.fixed else g.last_blind
            opened = True
        else:
            cur = 0
            inc = g.open_min[r]
            opened = False
        raises = 0
        agg = self.agg
        fold_p = self.fold_p * (1.0 if r == 0 else 0.6)
        i = order.index(start)
        acted = False
        aggressor = None
        while need:
            s = order[i]
            i = i + 1 if i + 1 < n else 0
            if s not in need:
                continue
            need.discard(s)
            st = stack[s]
            rin = round_in[s]
            owed = cur - rin if cur > rin else 0
            active = n - len(folded) - len(allin)
            if active == 1 and owed == 0:
                continue  # nobody left to bet against
            may_raise = s in can and st > owed and active >= 2
            if may_raise and opened and g.capped and raises >= g.max_raises:
                may_raise = g.hu_uncapped and active == 2
            p_raise = agg if raises < 2 else agg * 0.8 ** (raises - 1)
            u = rng.random()
            acted = True
            to = None
            if may_raise and u < (p_raise if owed else p_raise * 0.8):
                to = self._raise_to(r, s, cur, inc, opened, owed)
            if to is not None:
                amt = to - rin
                stack[s] = st - amt
                round_in[s] = to
                contrib[s] += amt
                all_in = amt == st
                if all_in:
                    allin.add(s)
                ev.append(
                    {
                        "kind": "action",
                        "seat": s,
                        "action": "raise" if opened else "bet",
                        "amount": amt,
                        "to": to,
                        "all_in": all_in,
                    }
                )
                d = to - cur
                others = [p for p in order if p not in folded and p not in allin and p != s]
                if d >= inc:
                    if not g.fixed and d > inc:
                        inc = d
                    can = set(others)
                else:  # short all-in: no raise rights for those who already acted
                    can = {p for p in can if p in need}
                need = set(others)
                if opened:
                    raises += 1
                opened = True
                cur = to
                aggressor = s
            elif owed:
                if rng.random() < fold_p:
                    folded.add(s)
                    ev.append({"kind": "action", "seat": s, "action": "fold"})
                    if len(folded) == n - 1:
                        break
                else:
                    amt = owed if owed < st else st
                    stack[s] = st - amt
                    round_in[s] = rin + amt
                    contrib[s] += amt
                    all_in = amt == st
                    if all_in:
                        allin.add(s)
                    ev.append(
                        {
                            "kind": "action",
                            "seat": s,
                            "action": "call",
                            "amount": amt,
                            "to": rin + amt,
                            "all_in": all_in,
                        }
                    )
            else:
                ev.append({"kind": "action", "seat": s, "action": "check"})
        if acted:  # the show order follows the last round in which anyone acted
            self.aggressor = aggressor

    def _raise_to(self, r: int, s: int, cur: int, inc: int, opened: bool, owed: int) -> int | None:
        """The total a bet or raise goes to, or None when no legal size exists."""
        g = self.game
        rng = self.rng
        unit = g.unit
        allin_to = self.round_in[s] + self.stack[s]
        if opened:
            lo = cur + inc
            if g.fixed:
                hi = lo
            elif g.spread:
                hi = cur + g.open_max[r]
            elif g.pot_limit:
                hi = cur + sum(self.contrib.values()) + self.dead + owed
            else:
                hi = allin_to
        else:
            lo = g.open_min[r]
            if g.fixed or g.spread:
                hi = g.open_max[r]
            elif g.pot_limit:
                hi = sum(self.contrib.values()) + self.dead
            else:
                hi = allin_to
        if allin_to <= lo:
            return allin_to if allin_to <= hi else None  # all-in, possibly short
        if hi < lo:
            return None
        if allin_to < hi:
            hi = allin_to
        u = rng.random()
        if u < 0.35 or hi == lo:
            return lo  # exactly the minimum
        if not (g.fixed or g.spread or g.pot_limit):  # no limit: sizes relative to the pot
            if u < 0.47:
                return hi  # shove
            pot = sum(self.contrib.values()) + self.dead + owed
            top = min(hi, max(lo, cur + owed + pot))
            span = (top - lo) // unit
            return lo + int(rng.random() * (span + 1)) * unit
        if u < 0.65:
            return hi  # the maximum (pot-limit: a pot-sized raise)
        span = (hi - lo) // unit
        return lo + int(rng.random() * (span + 1)) * unit

    def _return_uncalled(self) -> None:
        ri = self.round_in
        top = second = 0
        holder = -1
        for s, x in ri.items():
            if x > top:
                second = top
                top, holder = x, s
            elif x > second:
                second = x
        if top > second:
            ret = top - second
            ri[holder] -= ret
            self.contrib[holder] -= ret
            self.stack[holder] += ret
            self.allin.discard(holder)
            self.events.append({"kind": "return", "seat": holder, "amount": ret})
        for s in ri:
            ri[s] = 0

    # ------------------------------------------------------------------ phase 2

    def show_order(self) -> list[int]:
        """Players still in, starting with the last aggressor (else left of the button)."""
        live = [s for s in self.order if s not in self.folded]
        if self.aggressor in live:
            k = live.index(self.aggressor)
            live = live[k:] + live[:k]
        return live

    def finish(self, values: dict[int, int] | None = None, tops: dict[int, int] | None = None) -> list[dict]:
        """Pots, rake and awards; `values`/`tops` per seat from :func:`evaluate_showdowns`."""
        g = self.game
        ev = self.events
        unit = g.unit
        if values is not None:
            for s in self.show_order():
                ev.append({"kind": "show", "seat": s, "cards": [CARD_TEXT[c] for c in self.hole[s]]})
        pots = build_pots(self.contrib, self.folded, self.dead)
        amounts = [p.amount for p in pots]
        if isinstance(g.rake, RakeSchedule) and amounts and amounts[0] > 0:
            # a house's posted schedule, from the main pot (less than it allows harms no player)
            v = g.variant
            contested = sum(self.contrib.values()) + self.dead
            x = g.rake.allowed(contested, unit, v.board_cards > 0, len(self.board) > v.board_schedule[0])
            x = min(x, amounts[0]) // unit * unit
            if x > 0:
                amounts[0] -= x
                ev.append({"kind": "rake", "pot": 0, "amount": x})
        elif g.rake and amounts and amounts[0] > 0:
            fraction, cap = g.rake
            x = min(int(amounts[0] * fraction) // unit * unit, cap // unit * unit)
            if x > 0:
                amounts[0] -= x
                ev.append({"kind": "rake", "pot": 0, "amount": x})
        pos = {s: k for k, s in enumerate(self.order)}
        for pid, (pot, amount) in enumerate(zip(pots, amounts, strict=True)):
            elig = [s for s in pot.eligible if s not in self.folded]
            if not elig or amount <= 0:
                continue
            if values is None or len(elig) == 1:
                winners = elig
            else:
                best = max(values[s] for s in elig)
                winners = [s for s in elig if values[s] == best]
            if len(winners) > 1:
                if g.house.odd_chip_method == "suit" and tops is not None:
                    order = g.card_order
                    winners.sort(key=lambda w: (-(order[tops[w]] if tops[w] >= 0 else -1), pos[w]))
                else:
                    winners.sort(key=pos.__getitem__)
            units = amount // unit
            share, odd = divmod(units, len(winners))
            for k, w in enumerate(winners):
                won = (share + (1 if k < odd else 0)) * unit
                if won:
                    self.stack[w] += won
                    ev.append({"kind": "award", "pot": pid, "seat": w, "amount": won})
        return ev


def evaluate_showdowns(hands: Sequence[Hand]) -> list[tuple[dict[int, int], dict[int, int]]]:
    """Hand values and top used hole cards per seat, one :func:`best_hands` call per variant."""
    out: list[Any] = [None] * len(hands)
    groups: dict[str, list[int]] = {}
    for k, h in enumerate(hands):
        groups.setdefault(h.game.variant.name + repr(h.game.variant.hole_use), []).append(k)
    for members in groups.values():
        rows: list[list[int]] = []
        boards: list[list[int]] = []
        seats: list[tuple[int, list[int]]] = []
        for k in members:
            h = hands[k]
            live = [s for s in h.order if s not in h.folded]
            seats.append((k, live))
            for s in live:
                rows.append(h.hole[s])
                boards.append(h.board)
        v = hands[members[0]].game.variant
        hole = np.array(rows, dtype=np.int8)
        board = np.array(boards, dtype=np.int8).reshape(len(rows), v.board_cards)
        res = best_hands(hole, board, v.hole_use, v.board_use)
        vals = res.value.tolist()
        top = res.top_hole_used.tolist()
        j = 0
        for k, live in seats:
            out[k] = (
                dict(zip(live, vals[j : j + len(live)], strict=True)),
                dict(zip(live, top[j : j + len(live)], strict=True)),
            )
            j += len(live)
    return out


def play_hand(
    game: Game,
    rng: random.Random,
    seats: Sequence[tuple[int, str, int]],
    button: int,
) -> tuple[list[dict], dict[int, int]]:
    """Play one hand alone: its events and every seat's stack after it."""
    hand = Hand(game, rng, seats, button).play()
    if hand.needs_eval:
        values, tops = evaluate_showdowns([hand])[0]
        hand.finish(values, tops)
    else:
        hand.finish()
    return hand.events, hand.stack
