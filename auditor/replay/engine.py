"""The replay engine: walks every hand's events and records what the table state says at each one.

It is rules-neutral. It never decides that something is a violation; it writes, beside what the
log did, what the state says (whose turn it was, what a call cost, the largest bet or raise so far,
how many raises the round has seen, who should get an odd chip under each house method). The rule
packs turn those facts into findings.

The loop is plain Python over lists taken from the Arrow columns: one pass per hand, no pandas
per row. Showdown evaluation is deferred and done in NumPy batches at the end.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

import numpy as np

from auditor.ingest.tables import CanonicalTables
from auditor.replay.evaluate import best_hands, card_text, describe, parse_card
from auditor.replay.facts import FactRows, Facts
from auditor.replay.house import HouseRules
from auditor.replay.pots import build_pots

AGGRESSIVE = frozenset({"bet", "raise"})


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


@dataclass
class _Showdown:
    """A pot waiting for batch evaluation of the hands that contested it."""

    row: dict
    seats: list[int]  # everyone eligible for the pot or paid from it
    holes: list[list[int]]
    board: list[int]
    variant_key: tuple
    house: HouseRules
    eligible: set[int]
    paid: list[int]
    odd_chips: int


class _HandReplay:
    """State of one hand while its events are walked."""

    def __init__(self, cols: _Columns, h: int, house: HouseRules, previous_button: int | None):
        H = cols.hands
        self.h = h
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
        self.board_cum = list(accumulate(self.variant.board_schedule))

        S = cols.seats
        lo, hi = cols.seat_start[h], cols.seat_start[h + 1]
        self.player = dict(zip(S["seat"][lo:hi], S["player"][lo:hi], strict=True))
        self.stack = dict(zip(S["seat"][lo:hi], S["stack"][lo:hi], strict=True))
        status = dict(zip(S["seat"][lo:hi], S["status"][lo:hi], strict=True))
        self.seats_sorted = sorted(self.player)
        self.dealt_in = {s for s in self.seats_sorted if status[s] == "active"}

        self.button: int | None = None
        self.folded: set[int] = set()
        self.all_in: set[int] = set()
        self.total: dict[int, int] = defaultdict(int)
        self.dead = 0
        self.hole: dict[int, list[str]] = {}
        self.shown: dict[int, list[str]] = {}
        self.board: list[str] = []
        self.blind_posts: list[tuple[int, int, int, int, bool]] = []  # blind no, seat, seq, amount, all-in
        self.awards: list[tuple[int, int, int, int]] = []  # pot, seat, amount, seq
        self.rake: dict[int, int] = defaultdict(int)
        self.returned: dict[int, int] = defaultdict(int)
        self.street = 0
        self._begin_round(0)

    # -- betting rounds -------------------------------------------------------------------
    def _begin_round(self, street: int) -> None:
        self.street = street
        self.round: dict[int, int] = defaultdict(int)
        self.current_bet = 0
        self.largest_increment = 0
        self.raises = 0
        self.acted: set[int] = set()
        self.pointer: int | None = self.button
        self.round_start_active: int | None = None

    def _unit(self, values: list[int]) -> int | None:
        return values[self.street] if self.street < len(values) else None

    def _can_bet(self) -> list[int]:
        return [s for s in self.seats_sorted if s in self.dealt_in and s not in self.folded and s not in self.all_in]

    def _next_to_act(self, candidates: list[int]) -> int | None:
        """Who the rules say acts next: clockwise from the last actor, skipping folded and all-in
        players and anyone who has acted since the last full raise and matched the bet."""
        if not candidates:
            return None
        start = self.pointer if self.pointer is not None else (self.button or 0)
        for s in _clockwise_after(candidates, start):
            if s not in self.acted or self.round[s] < self.current_bet:
                return s
        return None

    # -- events ---------------------------------------------------------------------------
    def deal(self, target: str, seat: int | None, cards: list[str]) -> None:
        if target == "hole" and seat is not None:
            self.hole.setdefault(seat, []).extend(cards)
            self.dealt_in.add(seat)
        elif target == "board":
            self.board.extend(cards)
            reached = bisect.bisect_right(self.board_cum, len(self.board)) - 1
            if reached > self.street:
                self._begin_round(reached)

    def draw(self, seat: int, discard: list[str], receive: list[str]) -> None:
        nxt = self.street + 1
        if nxt < self.variant.rounds and self.variant.draw_before[nxt]:
            self._begin_round(nxt)
        held = self.hole.setdefault(seat, [])
        for card in discard:
            if card in held:
                held.remove(card)
        held.extend(receive)

    def post(self, rows: FactRows, seq: int, seat: int, kind: str, blind: int | None, amount: int) -> None:
        self.stack[seat] = self.stack.get(seat, 0) - amount
        if self.stack[seat] <= 0:
            self.all_in.add(seat)
        if kind in ("blind", "straddle", "missed"):
            self.round[seat] += amount
            self.total[seat] += amount
            before = self.current_bet
            self.current_bet = max(self.current_bet, self.round[seat])
            if kind == "blind" and blind is not None:
                declared = self.blinds_declared[blind - 1] if blind <= len(self.blinds_declared) else amount
                self.largest_increment = max(self.largest_increment, declared)
                # A blind posted short (all-in) does not shrink the bet the others face: they call,
                # and raise from, the full blind (catalogue BLD-02).
                self.current_bet = max(self.current_bet, declared)
                self.blind_posts.append((blind, seat, seq, amount, seat in self.all_in))
                self.pointer = seat
            elif kind == "straddle":
                self.largest_increment = max(self.largest_increment, self.current_bet - before)
                self.pointer = seat
        elif kind == "ante":
            self.total[seat] += amount
        else:  # dead money: in the pot, not toward the poster's bet
            self.dead += amount

    def action(self, rows: FactRows, seq: int, seat: int, verb: str, amount: int | None, to: int | None,
               all_in_declared: bool | None) -> None:
        can_bet = self._can_bet()
        expected = self._next_to_act(can_bet)
        if self.round_start_active is None:
            self.round_start_active = len(can_bet)
        live = len(self.dealt_in - self.folded)
        owed = max(0, self.current_bet - self.round[seat])
        pot_before = self.dead + sum(self.total.values())
        stack_before = self.stack.get(seat, 0)
        actor_folded = seat in self.folded
        actor_all_in = seat in self.all_in
        current_bet = self.current_bet
        largest = self.largest_increment
        raises_before = self.raises

        added = amount or 0
        if verb in ("call", "bet", "raise"):
            self.stack[seat] = stack_before - added
            self.round[seat] += added
            self.total[seat] += added
        made = self.round[seat]
        all_in = verb in ("call", "bet", "raise") and self.stack[seat] <= 0
        if all_in:
            self.all_in.add(seat)

        increment = None
        full = None
        is_raise = verb in AGGRESSIVE and current_bet > 0
        is_bet = verb in AGGRESSIVE and current_bet == 0
        unit = self._unit(self.bet_units) if self.structure == "fixed-limit" else None
        if verb in AGGRESSIVE:
            increment = made - current_bet
            # fixed limit: an all-in of at least the house fraction of a unit counts as a raise
            full = increment >= (self.house.limit_reopen_fraction * unit if unit is not None else largest)
            if full:
                if is_raise:
                    self.raises += 1
                self.largest_increment = max(largest, increment)
                self.acted = {seat}
            else:
                self.acted.add(seat)
            self.current_bet = max(current_bet, made)
        else:
            self.acted.add(seat)
            if verb == "fold":
                self.folded.add(seat)
        self.pointer = seat

        rows.actions.append((
            self.h, seq, self.street, self.street + 1, seat, self.player.get(seat), expected, verb, added, to, made,
            all_in, all_in_declared, current_bet, owed, largest, increment, is_bet, is_raise, full,
            raises_before, self.raises if is_raise else raises_before, live, len(can_bet), len(can_bet) == 2,
            self.round_start_active == 2, pot_before, current_bet + pot_before + owed, unit,
            self._unit(self.spread_min), self._unit(self.spread_max), stack_before, actor_folded, actor_all_in,
        ))

    # -- end of hand ----------------------------------------------------------------------
    def blinds_facts(self, rows: FactRows) -> None:
        """One row per blind the table requires (and per extra blind posted)."""
        n_required = len(self.blinds_declared)
        eligible = sorted(self.dealt_in)
        expected: dict[int, int] = {}
        if self.button is not None and eligible and n_required:
            order = _clockwise_after(eligible, self.button)
            if len(eligible) == 2 and n_required == 2:
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
        numbers = sorted(set(range(1, n_required + 1)) | set(by_number))
        for n in numbers:
            post = by_number.get(n)
            exp_seat = expected.get(n)
            if post is None:
                exp_player = self.player.get(exp_seat) if exp_seat else None
                rows.blinds.append((self.h, None, n, None, None, exp_seat, exp_player, None,
                                    self._declared_blind(n), False, None, self.button, len(eligible)))
                continue
            _, seat, seq, amount, _all_in = post
            in_order = not any(p[0] > n and p[2] < seq for p in self.blind_posts)
            rows.blinds.append((self.h, seq, n, seat, self.player.get(seat), exp_seat,
                                self.player.get(exp_seat) if exp_seat else None, amount, self._declared_blind(n),
                                True, in_order, self.button, len(eligible)))
        for _, seat, seq, amount, _all_in in extra:
            rows.blinds.append((self.h, seq, _, seat, self.player.get(seat), None, None, amount, None, True, False,
                                self.button, len(eligible)))

    def _declared_blind(self, n: int) -> int | None:
        return self.blinds_declared[n - 1] if n <= len(self.blinds_declared) else None

    def pots_facts(self, rows: FactRows, showdowns: list[_Showdown]) -> None:
        contributed = {s: c - self.returned.get(s, 0) for s, c in self.total.items()}
        computed = build_pots(contributed, self.folded, self.dead)
        by_pot: dict[int, list[tuple[int, int, int]]] = defaultdict(list)
        for pot, seat, amount, seq in self.awards:
            by_pot[pot].append((seat, amount, seq))
        unit = self.chip_unit
        for pot in sorted(by_pot):
            paid = by_pot[pot]
            seats = sorted({s for s, _, _ in paid})
            share_of = defaultdict(int)
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
            first_seq = min(q for _, _, q in paid)
            gross = computed[pot].amount if pot < len(computed) else None
            eligible = computed[pot].eligible if pot < len(computed) else ()
            by_position = None
            if odd_chips and self.button is not None:
                ordered = sorted(seats, key=lambda s: (s - self.button - 1) % self.max_seats)
                by_position = _seat_list(sorted(ordered[:odd_chips]))
            focus = odd_recipients[0] if odd_recipients else seats[0]
            row = {
                "hand": self.h, "seq": first_seq, "pot": pot, "seat": focus, "player": self.player.get(focus),
                "pot_amount": gross, "rake": self.rake.get(pot, 0), "awarded": total,
                "eligible_seats": _seat_list(eligible), "winners": winners, "winner_seats": _seat_list(seats),
                "shares": ", ".join(f"{s}:{share_of[s]}" for s in seats), "equal_share": equal_share,
                "odd_chips": odd_chips, "min_share": min(shares), "max_share": max(shares), "share_ok": share_ok,
                "odd_chip_seats": _seat_list(odd_recipients), "odd_chip_seats_by_suit": None,
                "odd_chip_seats_by_position": by_position, "top_hole_cards_used": None,
                "winner_seats_by_evaluation": None, "best_hand": None, "chip_unit": unit, "button": self.button,
            }
            rows.pots.append(row)
            contest = sorted(set(eligible) | set(seats))
            if len(contest) > 1 or (winners > 1 and odd_chips):
                showdowns.append(_Showdown(row, contest, [self._final_hand(s) for s in contest], self._board_codes(),
                                           self._variant_key(), self.house, set(eligible), seats, odd_chips))

    def _final_hand(self, seat: int) -> list[int]:
        cards = self.shown.get(seat) or self.hole.get(seat) or []
        codes = [_code(c) for c in cards][: self.variant.hole_cards]
        return codes + [-1] * (self.variant.hole_cards - len(codes))

    def _board_codes(self) -> list[int]:
        codes = [_code(c) for c in self.board][: self.variant.board_cards]
        return codes + [-1] * (self.variant.board_cards - len(codes))

    def _variant_key(self) -> tuple:
        v = self.variant
        return (v.hole_cards, v.board_cards, v.hole_use, v.board_use)


_CODES = {"??": -1}


def _code(card: str) -> int:
    code = _CODES.get(card)
    if code is None:
        code = _CODES[card] = parse_card(card)
    return code


def _seat_list(seats: Sequence[int]) -> str:
    return ",".join(str(s) for s in seats)


def _seat_draw_facts(rows: FactRows, h: int, seq: int, seat: int, awarded: str, players: list[str],
                     cards: list[str], house: HouseRules) -> None:
    keys = []
    for card in cards:
        if card == "??":
            keys = []
            break
        code = _code(card)
        keys.append((code // 4) * 4 + house.suit_rank("cdhs"[code % 4]))
    highest = players[keys.index(max(keys))] if keys and len(keys) == len(players) else None
    draws = ", ".join(f"{p} {c}" for p, c in zip(players, cards, strict=False))
    rows.seat_draws.append((h, seq, seat, awarded, awarded, highest, len(players), draws))


def _resolve_showdowns(showdowns: list[_Showdown]) -> None:
    """Batch-evaluate contested pots: who wins by the cards, and who is owed odd chips by suit."""
    groups: dict[tuple, list[_Showdown]] = defaultdict(list)
    for sd in showdowns:
        groups[sd.variant_key].append(sd)
    for key, items in groups.items():
        _, _, hole_use, board_use = key
        hole = np.array([h for sd in items for h in sd.holes], dtype=np.int64)
        board = np.array([sd.board for sd in items for _ in sd.seats], dtype=np.int64).reshape(len(hole), -1)
        best = best_hands(hole, board, hole_use, board_use)
        values, tops = best.value.tolist(), best.top_hole_used.tolist()
        i = 0
        for sd in items:
            value = dict(zip(sd.seats, values[i:i + len(sd.seats)], strict=True))
            top = dict(zip(sd.seats, tops[i:i + len(sd.seats)], strict=True))
            i += len(sd.seats)
            row = sd.row
            contenders = sorted(sd.eligible)
            if contenders and all(value[s] >= 0 for s in contenders):
                high = max(value[s] for s in contenders)
                row["winner_seats_by_evaluation"] = _seat_list([s for s in contenders if value[s] == high])
                row["best_hand"] = describe(high)
            if len(sd.paid) > 1 and sd.odd_chips and all(top[s] >= 0 for s in sd.paid):
                keys = {s: (top[s] // 4) * 4 + sd.house.suit_rank("cdhs"[top[s] % 4]) for s in sd.paid}
                order = sorted(sd.paid, key=keys.__getitem__, reverse=True)
                row["odd_chip_seats_by_suit"] = _seat_list(sorted(order[: sd.odd_chips]))
                row["top_hole_cards_used"] = ", ".join(f"{s}:{card_text(top[s])}" for s in sd.paid)


def replay(tables: CanonicalTables, houses: Sequence[HouseRules],
           last_button: dict[str, int | None] | None = None) -> tuple[Facts, list[tuple[int, str]]]:
    """Replay every hand; return the facts tables and the hands that could not be replayed.

    `houses[i]` is the house settings for hand row i (from the pack that hand is audited under).
    Hands are walked table by table in start order so that cross-hand state (the previous button)
    is known; facts keep the hand row number so reports can go back to file and line. `last_button`
    carries that state from one batch to the next (it is updated in place).
    """
    cols = _Columns.of(tables)
    H, E = cols.hands, cols.events
    n = len(H["hand"])
    order = sorted(range(n), key=lambda i: (H["table_id"][i], H["started_at"][i] or "", i))
    rows = FactRows()
    failures: list[tuple[int, str]] = []
    showdowns: list[_Showdown] = []
    if last_button is None:
        last_button = {}
    kinds, seats_, actions, posts, blinds = E["kind"], E["seat"], E["action"], E["post"], E["blind"]
    amounts, tos, all_ins, targets, cards_, receive = E["amount"], E["to"], E["all_in"], E["target"], E["cards"], \
        E["receive"]
    players_, draw_players, pots_ = E["player"], E["draw_players"], E["pot"]
    for h in order:
        table = H["table_id"][h]
        local = FactRows()
        local_showdowns: list[_Showdown] = []
        try:
            state = _HandReplay(cols, h, houses[h], last_button.get(table))
            for i in range(cols.event_start[h], cols.event_start[h + 1]):
                kind = kinds[i]
                seq = i - cols.event_start[h]
                if kind == "action":
                    state.action(local, seq, seats_[i], actions[i], amounts[i], tos[i], all_ins[i])
                elif kind == "post":
                    state.post(local, seq, seats_[i], posts[i], blinds[i], amounts[i])
                elif kind == "deal":
                    state.deal(targets[i], seats_[i], cards_[i] or [])
                elif kind == "draw":
                    state.draw(seats_[i], cards_[i] or [], receive[i] or [])
                elif kind == "button":
                    state.button = seats_[i]
                    state.pointer = seats_[i]
                elif kind == "show":
                    state.shown[seats_[i]] = cards_[i] or []
                elif kind == "return":
                    state.returned[seats_[i]] += amounts[i]
                    state.stack[seats_[i]] = state.stack.get(seats_[i], 0) + amounts[i]
                elif kind == "award":
                    state.awards.append((pots_[i], seats_[i], amounts[i], seq))
                elif kind == "rake":
                    state.rake[pots_[i] or 0] += amounts[i]
                elif kind == "seat_draw":
                    _seat_draw_facts(local, h, seq, seats_[i], players_[i], draw_players[i] or [], cards_[i] or [],
                                     houses[h])
            state.blinds_facts(local)
            state.pots_facts(local, local_showdowns)
            local.hands.append((h, state.button, state.previous_button, len(state.dealt_in)))
        except (ValueError, KeyError, IndexError, TypeError, ZeroDivisionError) as exc:
            failures.append((h, f"replay failed: {type(exc).__name__}: {exc}"))
            continue
        last_button[table] = state.button
        rows.extend(local)
        showdowns.extend(local_showdowns)
    _resolve_showdowns(showdowns)
    return rows.to_facts(), failures
