"""The replay engine: walks every hand's events and records what the table state says at each one.

It is rules-neutral. It never decides that something is a violation; it writes, beside what the
log did, what the state says (whose turn it was, what a call cost, the largest bet or raise so far,
how many raises the round has seen, who should get an odd chip under each house method). The rule
packs turn those facts into findings.

The loop is plain Python over lists taken from the Arrow columns: one pass per hand, no pandas
per row. Showdown evaluation is deferred and done in NumPy batches at the end (`showdown.py`).

Where a rule book could be read two ways, the engine writes the facts of both and the pack chooses
(TDA 47-A: `open_after_full_raise` / `open_after_cumulative_raise`; seed 004's button: the
`previous_small_blind_*` facts and the house setting `button_heir`; hand ids: the run-wide ledger).
One reading stays here because it *is* the state machine: whose turn it is after an action out of
turn. The turn does not move (TDA 53-A: play backs up to the player skipped), so `expected_seat`
of every later action of the round, and the draw order's `expected_seat`, are counted from the last
player who acted in turn. The other reading ("the action stands and play continues from it") is not
a different predicate over the same facts but a different walk, whose every later `expected_seat`
differs; and under it one out-of-turn action would become a finding on each later action of the
round. The rules that consume this reading: TDA-53, NZ17-2a, NZ15-2a and ONL5CD-order (the draws
table's expected_seat is counted the same way; no built-in rule reads it); docs/house-packs.md says
so for pack authors.
"""

from __future__ import annotations

import bisect
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from auditor.model.pots import build_pots
from auditor.model.tables import CanonicalTables
from auditor.replay.facts import FactRows, Facts
from auditor.replay.house import ReplayRules
from auditor.replay.showdown import Showdown, code, resolve, seat_list
from auditor.replay.state import TableState, replay_order, table_key

AGGRESSIVE = frozenset({"bet", "raise"})
CHIPS_IN = frozenset({"call", "bet", "raise"})


@dataclass
class _Columns:
    """The canonical tables as Python lists, with each hand's slice of seats and events."""

    hands: dict[str, list]
    seats: dict[str, list]
    events: dict[str, list]
    seat_start: list[int]
    event_start: list[int]

    @classmethod
    def of(cls, tables: CanonicalTables) -> _Columns:
        hands = tables.hands.to_pydict()
        seats = tables.seats.to_pydict()
        events = tables.events.to_pydict()
        n = len(hands["hand"])
        return cls(hands, seats, events, _starts(seats["hand"], n), _starts(events["hand"], n))


def _starts(hand_col: list[int], n: int) -> list[int]:
    """Row offsets of each hand in a table sorted by hand (NumPy boundaries, no groupby)."""
    return np.searchsorted(np.asarray(hand_col, dtype=np.int64), np.arange(n + 1)).tolist()


def _clockwise_after(seats: Sequence[int], start: int) -> list[int]:
    """`seats` (ascending) in clockwise order beginning with the first seat after `start`."""
    i = bisect.bisect_right(seats, start)
    return list(seats[i:]) + list(seats[:i])


class _HandReplay:
    """State of one hand while its events are walked; writes its facts into `rows`."""

    def __init__(self, cols: _Columns, h: int, house: ReplayRules, previous_button: int | None, rows: FactRows,
                 previous_big_blind: str | None = None, previous_button_heir: str | None = None,
                 established: set[str] | None = None, previous_hand: str | None = None,
                 previous_small_blind: tuple[str | None, bool, bool | None] | None = None):
        H = cols.hands
        self.h = h
        self.rows = rows
        self.house = house
        self.variant = house.variant(H["variant"][h])
        self.structure = H["structure"][h]
        self.blinds_declared: list[int] = H["blinds"][h] or []
        self.bet_units: list[int] = H["bet_units"][h] or []
        self.spread_min: list[int] = H["spread_min"][h] or []
        self.spread_max: list[int] = H["spread_max"][h] or []
        self.chip_unit: int = H["chip_unit"][h]
        self.max_seats: int = H["max_seats"][h]
        self.previous_button = previous_button
        self.previous_big_blind = previous_big_blind
        self.previous_button_heir = previous_button_heir
        self.previous_small_blind = previous_small_blind
        #: None for a table's first hand in the run: nobody can be told apart as new
        self.established = established
        #: id of the table's previous hand (None: first hand, or the chain was broken by a quarantine)
        self.previous_hand = previous_hand

        S = cols.seats
        lo, hi = cols.seat_start[h], cols.seat_start[h + 1]
        self.player = dict(zip(S["seat"][lo:hi], S["player"][lo:hi], strict=True))
        self.stack = dict(zip(S["seat"][lo:hi], S["stack"][lo:hi], strict=True))
        status = dict(zip(S["seat"][lo:hi], S["status"][lo:hi], strict=True))
        #: seat -> every player the log lists in it, for a seat listed more than once (see _seat_shared)
        self.shared_seats: dict[int, list[str]] = {}
        if len(self.player) != hi - lo:
            self._seat_shared(S, lo, hi, status)
        self.seats_sorted = sorted(self.player)
        self.status = status
        self.dealt_in = {s for s in self.seats_sorted if status[s] == "active"}
        self.live_posts: dict[int, int] = defaultdict(int)  # "missed" posts: owed blinds made up live
        self.dead_posts: dict[int, int] = defaultdict(int)

        self.button: int | None = None
        self.folded: set[int] = set()  # folded or killed: out of the hand
        self.killed: set[int] = set()  # declared dead by the house (kill event), not by the player
        self.ante_all_in: set[int] = set()  # emptied their stack posting an ante: no chips left for a blind
        self.mucked: set[int] = set()
        self.all_in: set[int] = set()
        self.total: dict[int, int] = defaultdict(int)
        self.dead = 0
        self.pot_in = 0  # dead money plus every player's total: the pot before an action
        #: seats able to bet, kept until someone is dealt in, folds or goes all-in (see _can_bet)
        self._able: list[int] | None = None
        self.chips_in = 0
        self.lowest_stack = min(self.stack.values(), default=0)
        self.hole: dict[int, list[str]] = {}
        self.hole_dealt: dict[int, int] = defaultdict(int)  # not Counter(): its constructor is slow
        #: seats whose held cards the log no longer tells: they discarded a card it never showed them holding
        self.hole_unknown: set[int] = set()
        self.shown: dict[int, list[str]] = {}
        self.show_order: list[int] = []
        self.board: list[str] = []
        self.burns_pending = 0
        self.burns_logged = False
        self.known_cards: list[tuple[str, str]] = []  # (card, where) for the duplicate-card check
        self.blind_posts: list[tuple[int, int, int, int, bool]] = []  # blind no, seat, seq, amount, all-in
        self.awards: list[tuple[int, int, int, int]] = []  # pot, seat, amount, seq
        self.rake: dict[int | None, int] = defaultdict(int)  # pot -> rake; None: for the hand
        self.returned: dict[int, int] = defaultdict(int)
        self.last_aggressor: int | None = None
        self.seat_requests: list[tuple[str, int | None, int | None, int]] = []  # player, seat, from, seq
        self.draw_pointer: int | None = None
        self.drawn: set[int] = set()
        self.street = -1
        self.round_row: dict | None = None
        self._begin_round(0, None)

    # -- betting rounds -------------------------------------------------------------------
    def _begin_round(self, street: int, seq: int | None) -> None:
        if self.round_row is not None:
            self._close_round("next round", seq)
        self.street = street
        # what the structure says for this round, looked up once per round instead of per action
        self.bet_unit = self._unit(self.bet_units) if self.structure == "fixed-limit" else None
        self.spread_min_now = self._unit(self.spread_min)
        self.spread_max_now = self._unit(self.spread_max)
        self.min_bet = self._min_bet()
        self.round: dict[int, int] = defaultdict(int)
        self.current_bet = 0
        self.largest_increment = 0
        self.reopen_base = 0  # the bet as it stood after the last full bet or raise
        self.raises = 0
        #: who has acted since the betting was last reopened, the turn order's memory (see _next_to_act)
        self.acted: set[int] = set()
        # Two neutral readings of "reopened" for the rules (TDA 47-A/B decide which applies): players who
        # acted since the last full bet or raise, and since the last full bet or raise or run of short
        # all-ins that together add up to a full raise over the bet it left (`short_base`).
        self.acted_full: set[int] = set()
        self.acted_cumulative: set[int] = set()
        self.short_base = 0
        self.pointer: int | None = self.button
        self.round_start_active: int | None = None
        self.round_actions = 0
        self.round_returned = 0
        self.round_returns: dict[int, int] = defaultdict(int)
        self.last_aggressor = None
        schedule = self.variant.board_schedule
        self.round_row = {
            "hand": self.h, "seq": seq, "street": street, "round": street + 1,
            "board_cards": 0, "board_expected": schedule[street] if street < len(schedule) else 0,
            "burns": None, "burns_expected": 1 if street > 0 and street < len(schedule) and schedule[street] else 0,
            "live_at_deal": len(self.dealt_in - self.folded),
            "pending_seat": None, "pending_player": None, "able_players": None, "closed_by": None,
            "uncalled_seat": None, "uncalled_player": None, "uncalled_expected": 0, "returned": 0, "actions": 0,
            "draw_round": bool(street < len(schedule) and self.variant.draw_before[street]),
        }

    def _close_round(self, how: str, seq: int | None) -> None:
        """Record how the round ended: who still owed an action, what bet was left uncalled."""
        row = self.round_row
        if row is None:
            return
        can_bet = self._can_bet()
        pending = None
        live = len(self.dealt_in - self.folded)
        if live >= 2:
            if len(can_bet) >= 2:
                pending = self._next_to_act(can_bet)
            elif len(can_bet) == 1 and self.round[can_bet[0]] < self.current_bet:
                # the last player able to bet owes an action only if someone still in has more in the round:
                # facing only a blind posted all-in short of their own chips in, there is nothing to call
                alone = can_bet[0]
                if any(self.round[s] > self.round[alone] for s in self.dealt_in - self.folded if s != alone):
                    pending = alone
        contributions = sorted(self.round.items(), key=lambda kv: kv[1], reverse=True)
        if contributions and contributions[0][1] > 0:
            top_seat, top = contributions[0]
            runner_up = contributions[1] if len(contributions) > 1 else None
            second = runner_up[1] if runner_up else 0
            # Short of the top bet because folded or all-in: the excess was never called. A live
            # player with chips behind who put in less made an undercall, which is another rule.
            undercall = runner_up is not None and runner_up[0] not in self.folded and \
                runner_up[0] not in self.all_in
            if top > second and not undercall:
                row["uncalled_seat"] = top_seat
                row["uncalled_player"] = self.player.get(top_seat)
                row["uncalled_expected"] = top - second
        row["_returned_to_bettor"] = self.round_returns.get(row["uncalled_seat"], 0)
        row.update(pending_seat=pending, pending_player=self.player.get(pending) if pending else None,
                   able_players=len(can_bet), closed_by=how, returned=self.round_returned,
                   actions=self.round_actions, live_players=live, close_seq=seq)
        self.rows.rounds.append(row)
        self.round_row = None

    def _unit(self, values: list[int]) -> int | None:
        return values[self.street] if 0 <= self.street < len(values) else None

    def _can_bet(self) -> list[int]:
        """Seats dealt in, not folded and not all-in, ascending. Shared until it changes: do not mutate."""
        able = self._able
        if able is None:
            able = self._able = [s for s in self.seats_sorted
                                 if s in self.dealt_in and s not in self.folded and s not in self.all_in]
        return able

    def _next_to_act(self, candidates: list[int]) -> int | None:
        """Who the rules say acts next: clockwise from the last actor, skipping folded and all-in
        players and anyone who has acted since the last full raise and matched the bet."""
        if not candidates:
            return None
        start = self.pointer if self.pointer is not None else (self.button or 0)
        acted, made, bet = self.acted, self.round, self.current_bet
        i = bisect.bisect_right(candidates, start)
        for s in candidates[i:]:
            if s not in acted or made[s] < bet:
                return s
        for s in candidates[:i]:
            if s not in acted or made[s] < bet:
                return s
        return None

    def _min_bet(self) -> int | None:
        if self.structure == "fixed-limit":
            return self._unit(self.bet_units)
        if self.structure == "spread-limit":
            return self._unit(self.spread_min)
        return self.blinds_declared[-1] if self.blinds_declared else None

    # -- events ---------------------------------------------------------------------------
    def deal(self, seq: int, target: str, seat: int | None, cards: list[str]) -> None:
        if target == "hole" and seat is not None:
            self.hole.setdefault(seat, []).extend(cards)
            self.hole_dealt[seat] += len(cards)
            self.dealt_in.add(seat)
            self._able = None
            self.known_cards.extend((c, f"seat {seat}") for c in cards if c != "??")
        elif target == "burn":
            self.burns_pending += 1
            self.burns_logged = True
            self.known_cards.extend((c, "burn") for c in cards if c != "??")
        elif target == "board":
            row = self.round_row
            # Cards complete this round's board if it is short and nobody has acted yet;
            # otherwise they open the next round (so a four-card flop is seen as one, not skipped).
            if row is None or self.round_actions or row["board_cards"] >= row["board_expected"]:
                self._begin_round(self.street + 1, seq)
                row = self.round_row
            if row["seq"] is None:
                row["seq"] = seq
            row["board_cards"] += len(cards)
            row["burns"] = (row["burns"] or 0) + self.burns_pending
            row["live_at_deal"] = len(self.dealt_in - self.folded)
            self.burns_pending = 0
            self.board.extend(cards)
            self.known_cards.extend((c, "board") for c in cards if c != "??")

    def draw(self, seq: int, seat: int, discard: list[str], receive: list[str]) -> None:
        nxt = self.street + 1
        if nxt < self.variant.rounds and self.variant.draw_before[nxt]:
            self._begin_round(nxt, seq)
            self.draw_pointer = self.button
            self.drawn: set[int] = set()
        live = [s for s in self.seats_sorted if s in self.dealt_in and s not in self.folded]
        start = self.draw_pointer if self.draw_pointer is not None else (self.button or 0)
        already = self.drawn
        pending = [x for x in _clockwise_after(live, start) if x not in already]
        expected = pending[0] if pending else None
        self.drawn.add(seat)
        if expected is None or seat == expected:  # as for actions: a draw out of turn does not move the turn
            self.draw_pointer = seat
        held = self.hole.setdefault(seat, [])
        for card in discard:
            if card in held:
                held.remove(card)
            else:  # "??" or a card not logged as held: which card left the hand is unknown
                self.hole_unknown.add(seat)
        held.extend(receive)
        self.known_cards.extend((c, f"seat {seat} draw") for c in receive if c != "??")
        self.rows.draws.append((self.h, seq, seat, self.player.get(seat), expected, len(discard), len(receive),
                                self.variant.max_draw, seat in self.folded))

    def post(self, seq: int, seat: int, kind: str, blind: int | None, amount: int) -> None:
        self.stack[seat] = self.stack.get(seat, 0) - amount
        self.chips_in += amount
        self.lowest_stack = min(self.lowest_stack, self.stack[seat])
        if self.stack[seat] <= 0:
            self.all_in.add(seat)
            self._able = None
        if kind in ("blind", "straddle", "missed"):
            self.round[seat] += amount
            self.total[seat] += amount
            self.pot_in += amount
            before = self.current_bet
            self.current_bet = max(self.current_bet, self.round[seat])
            if kind == "blind" and blind is not None:
                declared = self.blinds_declared[blind - 1] if blind <= len(self.blinds_declared) else amount
                self.largest_increment = max(self.largest_increment, declared)
                # A blind posted short (all-in) does not shrink the bet the others face: they call,
                # and raise from, the full blind (catalogue BLD-02).
                self.current_bet = max(self.current_bet, declared)
                self.reopen_base = self.short_base = self.current_bet
                self.blind_posts.append((blind, seat, seq, amount, seat in self.all_in))
                if blind >= max(p[0] for p in self.blind_posts):
                    # the first round starts left of the last blind in blind order, whatever order they came in
                    self.pointer = seat
            elif kind == "straddle":
                self.largest_increment = max(self.largest_increment, self.current_bet - before)
                self.reopen_base = self.short_base = self.current_bet
                self.pointer = seat
        elif kind == "ante":
            self.total[seat] += amount
            self.pot_in += amount
            if seat in self.all_in and not self.blind_posts:
                self.ante_all_in.add(seat)
        else:  # dead money: in the pot, not toward the poster's bet
            self.dead += amount
            self.pot_in += amount
        if kind == "missed":
            self.live_posts[seat] += amount
        elif kind == "dead":
            self.dead_posts[seat] += amount

    def action(self, seq: int, seat: int, verb: str, amount: int | None, to: int | None,
               all_in_declared: bool | None) -> None:
        can_bet = self._can_bet()
        expected = self._next_to_act(can_bet)
        if self.round_start_active is None:
            self.round_start_active = len(can_bet)
        live = len(self.dealt_in - self.folded)
        owed_in_full = max(0, self.current_bet - self.round[seat])
        owed = owed_in_full
        if owed and all(s == seat for s in can_bet):
            # Nobody else still in can bet: a call only has to match what they put in. The bet faced can be
            # more than that only by a big blind posted all-in short, which counts in full for players who
            # can still bet against each other (BLD-02) but not against all-in players alone: PokerStars
            # gives a small blind facing just a short all-in big blind the difference back without asking.
            matched = max((self.round[s] for s in self.dealt_in - self.folded if s != seat), default=0)
            owed = max(0, min(self.current_bet, matched) - self.round[seat])
        pot_before = self.pot_in
        stack_before = self.stack.get(seat, 0)
        actor_folded = seat in self.folded
        actor_all_in = seat in self.all_in
        open_full = seat not in self.acted_full
        open_cumulative = seat not in self.acted_cumulative
        current_bet = self.current_bet
        largest = self.largest_increment
        raises_before = self.raises
        self.round_actions += 1

        added = amount or 0
        if actor_folded or (actor_all_in and verb != "fold"):
            # A player out of the betting cannot act: the action is recorded for the rules and is
            # otherwise void, so it does not move the turn or the bet.
            self.rows.actions.append(self._action_row(
                seq, seat, expected, verb, added, to, self.round[seat], False, all_in_declared, current_bet, owed,
                largest, None, False, False, None, raises_before, raises_before, live, can_bet, pot_before,
                stack_before, actor_folded, actor_all_in, False, False, owed_in_full))
            return
        if verb in CHIPS_IN:
            self.stack[seat] = stack_before - added
            self.round[seat] += added
            self.total[seat] += added
            self.pot_in += added
            self.chips_in += added
            self.lowest_stack = min(self.lowest_stack, self.stack[seat])
        made = self.round[seat]
        all_in = verb in CHIPS_IN and self.stack[seat] <= 0
        if all_in:
            self.all_in.add(seat)
            self._able = None

        increment = None
        full = None
        is_raise = verb in AGGRESSIVE and current_bet > 0
        is_bet = verb in AGGRESSIVE and current_bet == 0
        unit = self.bet_unit
        if verb in AGGRESSIVE:
            increment = made - current_bet
            # fixed limit: an all-in of at least the house fraction of a unit counts as a raise
            threshold = self.house.limit_reopen_fraction * unit if unit is not None else largest
            full = increment >= threshold
            if full:
                if is_raise:
                    self.raises += 1
                self.largest_increment = max(largest, increment)
                self.acted = {seat}
                self.reopen_base = made
            elif unit is None and made - self.reopen_base >= largest:
                # The turn order: short all-ins that together add up to a full raise send the action round
                # again (the minimum raise stays the last full one). Whether they reopen the *betting* is
                # the pack's reading (open_after_cumulative_raise, TDA Rule 47-A).
                self.acted = {seat}
                self.reopen_base = made
            else:
                self.acted.add(seat)
            if full:
                self.acted_full = {seat}
                self.acted_cumulative = {seat}
                self.short_base = made
            else:
                self.acted_full.add(seat)
                if made - self.short_base >= threshold:
                    self.acted_cumulative = {seat}
                    self.short_base = made
                else:
                    self.acted_cumulative.add(seat)
            self.current_bet = max(current_bet, made)
            self.last_aggressor = seat
        else:
            self.acted.add(seat)
            self.acted_full.add(seat)
            self.acted_cumulative.add(seat)
            if verb == "fold":
                self.folded.add(seat)
                self._able = None
        if expected is None or seat == expected:
            # An action out of turn does not move the turn: play backs up to the player skipped
            # (TDA Rule 53), so one out-of-turn action is one finding, not a cascade. This reading is the
            # state machine's, not a pack's (see the module docstring): every later expected_seat depends on it.
            self.pointer = seat
        self.rows.actions.append(self._action_row(
            seq, seat, expected, verb, added, to, made, all_in, all_in_declared, current_bet, owed, largest,
            increment, is_bet, is_raise, full, raises_before, self.raises if is_raise else raises_before, live,
            can_bet, pot_before, stack_before, actor_folded, actor_all_in, open_full, open_cumulative, owed_in_full))

    def _action_row(self, seq, seat, expected, verb, added, to, made, all_in, all_in_declared, current_bet, owed,
                    largest, increment, is_bet, is_raise, full, raises_before, raise_number, live, can_bet,
                    pot_before, stack_before, actor_folded, actor_all_in, open_full, open_cumulative,
                    owed_in_full) -> tuple:
        return (
            self.h, seq, self.street, self.street + 1, seat, self.player.get(seat), expected, verb, added, to, made,
            all_in, all_in_declared, current_bet, owed, largest, increment, is_bet, is_raise, full,
            raises_before, raise_number, live, len(can_bet), len(can_bet) == 2,
            self.round_start_active == 2, pot_before, current_bet + pot_before + owed_in_full,
            self.bet_unit, self.spread_min_now, self.spread_max_now, stack_before, actor_folded, actor_all_in,
            open_full, open_cumulative, self.min_bet, owed_in_full,
        )

    def show(self, seat: int, cards: list[str]) -> None:
        self.shown[seat] = cards
        self.show_order.append(seat)
        dealt = set(self.hole.get(seat, []))
        self.known_cards.extend((c, f"seat {seat}") for c in cards if c != "??" and c not in dealt)

    def give_back(self, seat: int, amount: int) -> None:
        self.returned[seat] += amount
        self.round_returned += amount
        self.round_returns[seat] += amount
        self.stack[seat] = self.stack.get(seat, 0) + amount

    def kill(self, seat: int) -> None:
        """The house declared the seat's hand dead (TDA Rule 30: an absent player's hand killed).

        The seat is out of the hand as if folded (out of every pot, skipped by the turn), its chips stay
        in the pot, and nothing is recorded as an action: it is the house's doing, so no rule about how
        a player acts (order, legality, acting after folding) reads it. An action the seat takes after
        the kill is an action by a dead hand, which TDA-50 reports like one after a fold.
        """
        self.killed.add(seat)
        self.folded.add(seat)
        self._able = None

    def _seat_shared(self, S: dict[str, list], lo: int, hi: int, status: dict[int, str]) -> None:
        """A seat listed twice (two players in one seat) is illegal, not unreplayable: the seat plays as
        the first player listed in it (its stack and status), and the hand's `seating_conflicts` names
        every player listed there, for the seating rules to report."""
        self.player, self.stack = {}, {}
        status.clear()
        for seat, player, stack, state in zip(S["seat"][lo:hi], S["player"][lo:hi], S["stack"][lo:hi],
                                               S["status"][lo:hi], strict=True):
            if seat in self.player:
                self.shared_seats.setdefault(seat, [self.player[seat]]).append(player)
                continue
            self.player[seat], self.stack[seat], status[seat] = player, stack, state

    # -- end of hand ----------------------------------------------------------------------
    def finish(self, showdowns: list[Showdown], hand_id: str) -> None:
        final_round = self.round_row
        final_street = self.street
        final_aggressor = self.last_aggressor
        self._close_round("end of hand", None)
        if not self.burns_logged:  # a log that never records burns cannot show one missing
            for row in self.rows.rounds:
                row["burns"] = None
        self._blinds_facts()
        balance = self._pots_facts(showdowns)
        # On the bettor's net result: rooms book a blind's uncalled part by returning the whole blind,
        # the part called included, when the bettor then wins the whole pot ("Uncalled bet (20) returned
        # to Bob", "Bob collected 10"). The bettor ends with the same chips as with the uncalled part
        # returned and the pot won, so that excess counts as returned only up to the uncalled part.
        winners = {seat for _, seat, amount, _ in self.awards if amount}
        for row in self.rows.rounds:
            row["hand_chip_balance"] = balance
            excess = max(0, row.pop("_returned_to_bettor") - row["uncalled_expected"])
            sole_winner = excess > 0 and winners == {row["uncalled_seat"]}
            row["returned_net"] = row["returned"] - excess if sole_winner else row["returned"]
        self._hand_facts(hand_id, balance, final_round, final_street, final_aggressor)

    def _hand_facts(self, hand_id: str, balance: int | None, final_round: dict | None, final_street: int,
                    final_aggressor: int | None) -> None:
        expected_button = None
        if self.previous_button is not None and self.dealt_in:
            expected_button = _clockwise_after(sorted(self.dealt_in), self.previous_button)[0]
        # The pack's button_heir says which of the prior hand's blinds the button goes to (seed 004: "The player
        # who had posted the Small Blind in the prior hand will receive the Button"; with the small blind missed,
        # the prior big blind "catches a break"); the previous_small_blind_* facts say what that hand did.
        button_by_blinds = None
        if self.previous_button is not None and self.previous_button_heir is not None:
            button_by_blinds = next((s for s in self.dealt_in if self.player[s] == self.previous_button_heir), None)
        wrong_holes = None
        if self.hole_dealt:
            dealt, expected = self.hole_dealt, self.variant.hole_cards
            wrong_holes = seat_list(sorted(s for s in self.dealt_in if dealt.get(s, 0) != expected))
        seen: dict[str, str] = {}
        duplicates = []
        for card, where in self.known_cards:
            if card in seen:
                duplicates.append(f"{card} ({seen[card]}, {where})")
            seen.setdefault(card, where)
        live = [s for s in self.seats_sorted if s in self.dealt_in and s not in self.folded]
        showdown = len(live) >= 2
        first_expected = None
        if showdown and final_round is not None:
            if final_aggressor is not None and final_aggressor in live:
                first_expected = final_aggressor
            elif self.button is not None:
                first_expected = _clockwise_after(live, self.button)[0]
        awarded = sum(a for _, _, a, _ in self.awards)
        rake = sum(self.rake.values())
        contested = self.chips_in - sum(self.returned.values())
        rake_allowed = None
        if self.house.rake is not None:
            schedule = self.variant.board_schedule
            rake_allowed = self.house.rake.allowed(contested, self.chip_unit, self.variant.board_cards > 0,
                                                   len(self.board) > (schedule[0] if schedule else 0))
        self.rows.hands.append((
            self.h, self.button, self.previous_button, expected_button, button_by_blinds, len(self.dealt_in),
            None,  # duplicate_hand_id: the run-wide ledger's
            wrong_holes, ", ".join(duplicates), self.burns_logged, self.chips_in, sum(self.returned.values()),
            awarded, rake, balance, "; ".join(self.misawarded), self.lowest_stack, showdown,
            self.show_order[0] if self.show_order else None, first_expected, final_aggressor, final_street + 1,
            self.big_blind_player(), self.previous_big_blind,
            self._players_in_two_seats(), contested,
            rake_allowed, self.previous_hand, None, seat_list(sorted(self.killed)),  # duplicate_of: the ledger's
            self._seating_conflicts(), *(self.previous_small_blind or (None, None, None)),
        ))

    def _players_in_two_seats(self) -> str:
        names = list(self.player.values())
        if len(set(names)) == len(names):
            return ""
        return ", ".join(sorted(p for p, n in Counter(names).items() if n > 1))

    def _seating_conflicts(self) -> str:
        """One player in two seats, and two players listed in one seat, in words (empty: none)."""
        parts = []
        names = list(self.player.values())
        if len(set(names)) != len(names):
            for name in sorted(p for p, n in Counter(names).items() if n > 1):
                parts.append(f"{name} in seats {seat_list(sorted(s for s, p in self.player.items() if p == name))}")
        for seat in sorted(self.shared_seats):
            parts.append(f"seat {seat} listed for {', '.join(self.shared_seats[seat])}")
        return "; ".join(parts)

    def seat_facts(self, owed_before: dict[str, dict[str, str]] | None,
                   hand_id: str | None = None) -> dict[str, dict[str, str]]:
        """Blinds owed by players across hands (missed while sitting out), and whether they made them up.

        A seated player who is not dealt in and whom the blinds pass over this hand misses the blind of
        that position: the first seat after the button the small blind, later ones the big blind. A
        player dealt in while owing must post what is owed (big blind live and small blind dead, or the
        small blind dead) unless they are in the big blind this hand. `owed_before` is None when the
        table's previous hand is not known (its first hand, or one after a quarantined hand): what is
        owed is then unknown (null), not "nothing", and the rule about it is not assessable. Each owed
        blind remembers the hand it was missed in, which the finding names.
        """
        known = owed_before is not None
        owed = {p: dict(v) for p, v in (owed_before or {}).items() if v}
        blinds = self.blinds_declared
        bb_post = next((p for p in self.blind_posts if p[0] == len(blinds)), None) if blinds else None
        # seats the blinds pass over this hand: clockwise after the button, up to the big blind
        before_big_blind: list[int] | None = None
        if self.button is not None and bb_post is not None:
            order = _clockwise_after(self.seats_sorted, self.button)
            before_big_blind = order[:order.index(bb_post[1])] if bb_post[1] in order else order
        missed_now: dict[int, str] = {}
        if before_big_blind is not None and len(blinds) >= 2:
            for position, seat in enumerate(before_big_blind):
                if seat not in self.dealt_in and self.status[seat] != "new":  # a new player waits, owes nothing
                    missed_now[seat] = "sb" if position == 0 else "bb"
        sb_amount, bb_amount = (blinds[0], blinds[-1]) if len(blinds) >= 2 else (0, 0)
        for seat in self.seats_sorted:
            player = self.player[seat]
            before = owed.get(player, {})
            in_big_blind = bb_post is not None and bb_post[1] == seat
            if "bb" in before:  # "post all": the big blind live, the small blind dead
                made_up = self.live_posts[seat] >= bb_amount and self.dead_posts[seat] >= sb_amount
            else:
                made_up = self.dead_posts[seat] >= sb_amount
            dealt = seat in self.dealt_in
            new = None if self.established is None else player not in self.established
            self.rows.seats.append((
                self.h, None, seat, player, self.status.get(seat), dealt, ",".join(sorted(before)) if known else None,
                in_big_blind, made_up if before else None, missed_now.get(seat), new,
                None if before_big_blind is None else seat in before_big_blind,
                self.live_posts[seat] >= bb_amount > 0, self.previous_hand,
                ", ".join(sorted(set(before.values()))) if before else None,
            ))
            if dealt and (in_big_blind or made_up):
                owed.pop(player, None)
            if seat in missed_now:
                owed.setdefault(player, {}).setdefault(missed_now[seat], hand_id or "")
        return owed

    def seat_fill(self, seq: int, player: str, seat: int) -> None:
        """A vacated seat filled: seated players who asked to move come before the waiting list (SEAT-03)."""
        open_requests = [r for r in self.seat_requests if r[1] in (None, seat)]
        seated_waiting = [r for r in open_requests if r[2] is not None and r[0] != player]
        own = next((r for r in open_requests if r[0] == player), None)
        from_seated = own is not None and own[2] is not None
        logged = bool(self.seat_requests)
        self.rows.seat_fills.append((
            self.h, seq, seat, player, from_seated if logged else None,
            ", ".join(f"{r[0]} (seat {r[2]})" for r in seated_waiting) if logged else None,
        ))
        self.seat_requests = [r for r in self.seat_requests if r[0] != player]

    def big_blind_player(self) -> str | None:
        """Who posted the last compulsory blind this hand (the big blind with two blinds)."""
        posts = [p for p in self.blind_posts if p[0] == len(self.blinds_declared)]
        return self.player.get(posts[0][1]) if posts else None

    def button_heir(self) -> str | None:
        """Who gets the button next hand by the pack's `button_heir`: the player who posted the first blind it
        lists ("small-blind", "big-blind"), a blind missed or posted by the button itself (heads-up) passing
        to the next one listed; None when the pack lists none or none qualifies.

        Seed 004 ("all players must pay for their Blinds in full before they are allowed to get the Button")
        lists both: the small blind, or the big blind when the small blind was missed ("catch a break")
        or posted by the button.
        """
        if len(self.blinds_declared) != 2:
            return None
        for which in self.house.button_heir:
            number = 1 if which == "small-blind" else 2
            post = next((p for p in self.blind_posts if p[0] == number), None)
            if post is not None and post[1] != self.button:
                return self.player.get(post[1])
        return None

    def small_blind(self) -> tuple[str | None, bool, bool | None] | None:
        """This hand's small blind for the next hand's facts: who posted it, whether nobody did (missed),
        whether the button did; None unless the table has exactly two blinds."""
        if len(self.blinds_declared) != 2:
            return None
        post = next((p for p in self.blind_posts if p[0] == 1), None)
        if post is None:
            return None, True, None
        return self.player.get(post[1]), False, post[1] == self.button

    def still_established(self) -> set[str]:
        """Players who are not new at the table after this hand: dealt in now, or before and still seated.

        In a table's first hand in the log, every seated player not marked `new` counts as established:
        what they did before the log began is unknown, and a false "new player" finding is worse than
        a missed one.
        """
        if self.established is None:
            return {p for s, p in self.player.items() if s in self.dealt_in or self.status[s] != "new"}
        return {p for s, p in self.player.items() if s in self.dealt_in or p in self.established}

    def _blinds_facts(self) -> None:
        """One row per blind the table requires (and per extra blind posted)."""
        n_required = len(self.blinds_declared)
        eligible = sorted(self.dealt_in)
        # A player whose ante took their last chips has nothing to post a blind with: the blinds fall to
        # the next seats with chips (rooms post them so), while the player is still dealt in.
        owing = [s for s in eligible if s not in self.ante_all_in] if self.ante_all_in else eligible
        expected: dict[int, int] = {}
        if self.button is not None and owing and n_required:
            order = _clockwise_after(owing, self.button)
            if len(eligible) == 2 and len(owing) == 2 and n_required == 2:
                # Heads-up: the button posts the first blind (catalogue BTN-03, universal).
                other = next(s for s in eligible if s != self.button) if self.button in eligible else order[0]
                first = self.button if self.button in eligible else order[1]
                expected = {1: first, 2: other}
            else:
                expected = {n: order[(n - 1) % len(order)] for n in range(1, n_required + 1)}
        by_number: dict[int, tuple[int, int, int, int, bool]] = {}
        extra = []
        for post in self.blind_posts:
            if post[0] in by_number:
                extra.append(post)
            else:
                by_number[post[0]] = post
        # Under a dead button a blind may be missing (dead small blind), but each blind that is posted
        # comes from the first seat dealt in after the previous blind actually posted, or after the
        # button (catalogue BLD-01, BTN-02); heads-up the button posts the first.
        after_previous: dict[int, int] = {}
        if self.button is not None and owing and n_required:
            anchor = self.button
            for n in range(1, n_required + 1):
                if n == 1 and len(eligible) == 2 and n_required == 2 and self.button in owing:
                    after_previous[n] = self.button
                else:
                    after_previous[n] = _clockwise_after(owing, anchor)[0]
                if n in by_number:
                    anchor = by_number[n][1]
        for n in sorted(set(range(1, n_required + 1)) | set(by_number)):
            post = by_number.get(n)
            exp_seat = expected.get(n)
            exp_player = self.player.get(exp_seat) if exp_seat else None
            if post is None:
                self.rows.blinds.append((self.h, None, n, None, None, exp_seat, exp_player, None,
                                         self._declared_blind(n), False, None, None, self.button, len(eligible),
                                         n_required, after_previous.get(n)))
                continue
            _, seat, seq, amount, all_in = post
            in_order = not any(p[0] > n and p[2] < seq for p in self.blind_posts)
            self.rows.blinds.append((self.h, seq, n, seat, self.player.get(seat), exp_seat, exp_player, amount,
                                     self._declared_blind(n), True, in_order, all_in, self.button, len(eligible),
                                     n_required, after_previous.get(n)))
        for number, seat, seq, amount, all_in in extra:
            self.rows.blinds.append((self.h, seq, number, seat, self.player.get(seat), None, None, amount, None, True,
                                     False, all_in, self.button, len(eligible), n_required, None))

    def _declared_blind(self, n: int) -> int | None:
        return self.blinds_declared[n - 1] if n <= len(self.blinds_declared) else None

    def _misawarded(self, computed: list) -> list[str]:
        """The pots the awards misaward, against pots `computed`.

        A pot is misawarded when it paid out more than it held, or less than it held minus its rake:
        the rake the log puts on that pot, plus its part of any rake the log states for the hand without
        a pot (room exports often do), as the house allocates it (`_hand_rake_shares`).
        """
        paid: dict[int, int] = defaultdict(int)
        for pot, _, amount, _ in self.awards:
            paid[pot] += amount

        def held(pot: int) -> int:
            return computed[pot].amount if pot is not None and 0 <= pot < len(computed) else 0

        shares = self._hand_rake_shares(computed)
        misawarded = []
        for pot in sorted(set(range(len(computed))) | set(paid)):
            share = shares[pot] if pot is not None and 0 <= pot < len(shares) else 0
            if paid[pot] > held(pot) or paid[pot] < held(pot) - self.rake.get(pot, 0) - share:
                misawarded.append(f"pot {pot}: held {held(pot)}, paid {paid[pot]}")
        return misawarded

    def _hand_rake_shares(self, computed: list) -> list[int]:
        """How much of the rake stated for the whole hand each pot of `computed` may be short by.

        The log does not say which pot it came from, so the pack's house setting decides: "any" lets each
        pot carry all of it (what a reader of PokerStars text can honestly assume: real hands spread it
        neither wholly on the main pot nor exactly pro rata), "main" only the main pot (a side pot no larger
        than the rake, paid into the main pot, is then seen), "pro-rata" each pot its share by size,
        rounded up to the chip unit.
        """
        unattributed = self.rake.get(None, 0)
        if not computed or not unattributed:
            return [0] * len(computed)
        how = self.house.hand_rake_from
        if how == "main":
            return [unattributed] + [0] * (len(computed) - 1)
        if how == "pro-rata":
            total = sum(p.amount for p in computed)
            unit = self.chip_unit or 1
            if total <= 0:
                return [unattributed] * len(computed)
            shares = []
            for pot in computed:
                share = -(-unattributed * pot.amount // total)  # rake * pot / total, rounded up
                shares.append(min(unattributed, -(-share // unit) * unit))  # then up to a whole chip unit
            return shares
        return [unattributed] * len(computed)

    def _pots_facts(self, showdowns: list[Showdown]) -> int | None:
        """Pot rows; returns the hand's chip balance (in - returned - awarded - rake)."""
        contributed = {s: c - self.returned.get(s, 0) for s, c in self.total.items()}
        # A log that pays out nothing (PHH without finishing stacks) cannot show a balance.
        balance = self.chips_in - sum(self.returned.values()) - sum(a for _, _, a, _ in self.awards) - \
            sum(self.rake.values()) if self.awards else None
        computed = build_pots(contributed, self.folded, self.dead)
        self.misawarded = self._misawarded(computed)
        # A player all-in for less who then folded or was killed: rooms keep the pot closed at that
        # level. The log's awards are judged against the pots built that way when they fit them.
        split_at = {contributed[s] for s in self.all_in & self.folded if contributed.get(s, 0) > 0}
        if self.misawarded and split_at:
            split = build_pots(contributed, self.folded, self.dead, split_at)
            if not self._misawarded(split):
                computed, self.misawarded = split, []
        by_pot: dict[int, list[tuple[int, int, int]]] = defaultdict(list)
        for pot, seat, amount, seq in self.awards:
            by_pot[pot].append((seat, amount, seq))
        unit = self.chip_unit
        for pot in sorted(by_pot):
            paid = by_pot[pot]
            seats = sorted({s for s, _, _ in paid})
            share_of: dict[int, int] = defaultdict(int)
            for s, a, _ in paid:
                share_of[s] += a
            total = sum(share_of.values())
            winners = len(seats)
            units = total // unit
            equal_share = (units // winners) * unit
            odd_chips = units % winners
            shares = [share_of[s] for s in seats]
            share_ok = all(x in (equal_share, equal_share + unit) for x in shares) and \
                sum(1 for x in shares if x == equal_share + unit) == odd_chips and total % unit == 0
            odd_recipients = [s for s in seats if share_of[s] == equal_share + unit] if odd_chips else []
            gross = computed[pot].amount if pot < len(computed) else None
            eligible = computed[pot].eligible if pot < len(computed) else ()
            by_position = None
            if odd_chips and self.button is not None:
                ordered = sorted(seats, key=lambda s: (s - self.button - 1) % self.max_seats)
                by_position = seat_list(sorted(ordered[:odd_chips]))
            focus = odd_recipients[0] if odd_recipients else seats[0]
            row = {
                "hand": self.h, "seq": min(q for _, _, q in paid), "pot": pot, "seat": focus,
                "player": self.player.get(focus), "pot_amount": gross,
                "rake": self.rake.get(pot, 0) + (self.rake.get(None, 0) if pot == 0 else 0),
                "awarded": total, "eligible_seats": seat_list(eligible), "winners": winners,
                "winner_seats": seat_list(seats), "shares": ", ".join(f"{s}:{share_of[s]}" for s in seats),
                "equal_share": equal_share, "odd_chips": odd_chips, "min_share": min(shares),
                "max_share": max(shares), "share_ok": share_ok, "odd_chip_seats": seat_list(odd_recipients),
                "odd_chip_seats_by_suit": None, "odd_chip_seats_by_position": by_position,
                "top_hole_cards_used": None, "winner_seats_by_evaluation": None, "best_hand": None,
                "winners_match": None, "split_without_tie": None, "hand_chip_balance": balance,
                "pots_formed": len(computed), "chip_unit": unit, "button": self.button,
            }
            contenders = [s for s in eligible if s not in self.mucked]
            # To win a contested pot a player tables all hole cards (TDA 13-A, 19)
            row["paid_without_showing"] = seat_list([s for s in seats if s not in self.shown]) \
                if len(contenders) > 1 else ""
            self.rows.pots.append(row)
            if len(eligible) == 1:
                # uncontested: the one player left wins without showing (TDA 17-B)
                row.update(winner_seats_by_evaluation=seat_list(eligible), winners_match=set(seats) == set(eligible),
                           split_without_tie=set(seats) > set(eligible))
            evaluated = sorted(set(contenders) | set(seats))
            if len(eligible) > 1 or (winners > 1 and odd_chips):
                board, board_known = self._board_codes()
                holes = [self._final_hand(s) for s in evaluated]
                showdowns.append(Showdown(row, evaluated, [h for h, _ in holes], board, self._variant_key(),
                                          self.house, contenders, seats, odd_chips,
                                          [known and board_known for _, known in holes]))
        return balance

    def _final_hand(self, seat: int) -> tuple[list[int], bool]:
        """The seat's cards at the end of the hand as codes, and whether the log shows every one of them.

        The cards shown, else the cards dealt (after draws). A hand is known only when all the variant's
        hole cards are: one "??" (a card the log hides), fewer cards than the variant deals (never shown,
        not logged), or a draw whose discards the log does not name leaves the hand unknown. An unknown
        hand is passed on as -1s so the batch keeps its shape, and flagged: the evaluator skips
        combinations touching a -1, so unflagged it would rate the hand on its known cards alone (in
        hold'em, on the board alone), which is evidence the log does not hold.
        """
        n = self.variant.hole_cards
        for cards, usable in ((self.shown.get(seat) or [], True),
                              (self.hole.get(seat) or [], seat not in self.hole_unknown)):
            if usable and len(cards) >= n and "??" not in cards[:n]:
                return [code(c) for c in cards[:n]], True
        return [-1] * n, False

    def _board_codes(self) -> tuple[list[int], bool]:
        """The community cards as codes (padded with -1 to the variant's count), and whether none is hidden.

        A board shorter than the variant's (a hand ended early, or dealt short) is the board as dealt and
        is judged as it stands; a "??" on it is a card the log hides, and no hand can be rated without it.
        """
        cards = self.board[: self.variant.board_cards]
        codes = [code(c) for c in cards]
        return codes + [-1] * (self.variant.board_cards - len(codes)), "??" not in cards

    def _variant_key(self) -> tuple:
        v = self.variant
        return (v.hole_cards, v.board_cards, v.hole_use, v.board_use)


def _seat_draw_facts(rows: FactRows, h: int, seq: int, seat: int, awarded: str, players: list[str],
                     cards: list[str], house: ReplayRules) -> None:
    keys = []
    for card in cards:
        if card == "??":
            keys = []
            break
        value = code(card)
        keys.append(house.card_key(value))
    highest = players[keys.index(max(keys))] if keys and len(keys) == len(players) else None
    draws = ", ".join(f"{p} {c}" for p, c in zip(players, cards, strict=False))
    rows.seat_draws.append((h, seq, seat, awarded, awarded, highest, len(players), draws))


def replay(tables: CanonicalTables, houses: Sequence[ReplayRules],
           state: TableState | None = None) -> tuple[Facts, list[tuple[int, str]]]:
    """Replay every hand; return the facts tables and the hands that could not be replayed.

    `houses[i]` is the house settings for hand row i (from the pack that hand is audited under).
    Hands are walked table by table in the order of the instant they started (`replay_order`: parsed
    times, not their text; the log's order where a table's times cannot place its hands) so that
    cross-hand state (the previous button, blinds owed) is known; facts keep the hand row
    number so reports can go back to file and line. `state` carries that memory from one batch to the
    next (updated in place).
    """
    cols = _Columns.of(tables)
    H, E = cols.hands, cols.events
    order = replay_order(H["file"], H["table_id"], H["started_at"])
    state = state if state is not None else TableState()
    rows = FactRows()
    failures: list[tuple[int, str]] = []
    showdowns: list[Showdown] = []
    kinds, seats_, actions, posts, blinds = E["kind"], E["seat"], E["action"], E["post"], E["blind"]
    amounts, tos, all_ins, targets, cards_, receive = E["amount"], E["to"], E["all_in"], E["target"], E["cards"], \
        E["receive"]
    players_, draw_players, pots_, from_seats = E["player"], E["draw_players"], E["pot"], E["from_seat"]
    for h in order:
        table = table_key(H["file"][h], H["table_id"][h])
        hand_id = H["hand_id"][h]
        if state.breaks:
            state.pass_breaks(table, H["line"][h])
        local = FactRows()
        local_showdowns: list[Showdown] = []
        try:
            hand = _HandReplay(cols, h, houses[h], state.last_button.get(table), local,
                               state.last_big_blind.get(table), state.button_heir.get(table),
                               state.established.get(table), state.last_hand.get(table),
                               state.last_small_blind.get(table))
            for i in range(cols.event_start[h], cols.event_start[h + 1]):
                kind = kinds[i]
                seq = i - cols.event_start[h]
                if kind == "action":
                    hand.action(seq, seats_[i], actions[i], amounts[i], tos[i], all_ins[i])
                elif kind == "post":
                    hand.post(seq, seats_[i], posts[i], blinds[i], amounts[i])
                elif kind == "deal":
                    hand.deal(seq, targets[i], seats_[i], cards_[i] or [])
                elif kind == "draw":
                    hand.draw(seq, seats_[i], cards_[i] or [], receive[i] or [])
                elif kind == "button":
                    hand.button = seats_[i]
                    hand.pointer = seats_[i]
                elif kind == "show":
                    hand.show(seats_[i], cards_[i] or [])
                elif kind == "muck":
                    hand.mucked.add(seats_[i])
                elif kind == "kill":
                    hand.kill(seats_[i])
                elif kind == "return":
                    hand.give_back(seats_[i], amounts[i])
                elif kind == "award":
                    hand.awards.append((pots_[i], seats_[i], amounts[i], seq))
                elif kind == "rake":
                    hand.rake[pots_[i]] += amounts[i]  # None: stated for the hand, not for a pot
                elif kind == "seat_request":
                    hand.seat_requests.append((players_[i], seats_[i], from_seats[i], seq))
                elif kind == "seat_fill":
                    hand.seat_fill(seq, players_[i], seats_[i])
                elif kind == "seat_draw":
                    _seat_draw_facts(local, h, seq, seats_[i], players_[i], draw_players[i] or [], cards_[i] or [],
                                     houses[h])
            hand.finish(local_showdowns, hand_id)
            owed_after = hand.seat_facts(state.owed.get(table) if table in state.last_hand else None, hand_id)
        except (ValueError, KeyError, IndexError, TypeError, ZeroDivisionError) as exc:
            failures.append((h, f"replay failed: {type(exc).__name__}: {exc}"))
            # the failed hand is quarantined: the table's next hand must not be judged against an older one
            state.forget(table)
            continue
        state.last_button[table] = hand.button
        state.last_big_blind[table] = hand.big_blind_player()
        state.button_heir[table] = hand.button_heir()
        state.last_small_blind[table] = hand.small_blind()
        state.established[table] = hand.still_established()
        state.owed[table] = owed_after
        state.last_hand[table] = hand_id
        rows.extend(local)
        showdowns.extend(local_showdowns)
    resolve(showdowns)
    return rows.to_facts(), failures
