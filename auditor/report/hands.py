"""The hands behind findings, as the audit saw them, for the reports that show them.

Data flows one way (ingest -> replay -> check -> report): a report never reads a log again or replays
a hand again. While a partition is audited, for the hands the reports will show (the first
`MAX_VIEWS` hands with findings, in the findings' order, and any hand `auditor explain` asked for by
id) the worker turns the canonical hand and the engine's facts of that very replay (pot, amount to
call, raises so far at every action) into a `HandView`, which travels back with the partition's result
(`KeptViews`, picklable). The HTML report and `auditor explain` only format those views, so what they
print is what the rules saw, even if the files were moved or changed since.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import pandas as pd

from auditor.check import words
from auditor.check.money import format_money, format_money_list
from auditor.model.results import MAX_VIEWS, HandKey

if TYPE_CHECKING:
    from auditor.model.records import Quarantined, SourceHand
    from auditor.model.results import AuditResult


@dataclass(frozen=True)
class Step:
    """One event of a hand as a person reads it, with the table state before it (actions only)."""

    seq: int
    round: int | None  # betting round the event belongs to, 1 = first (None: not replayed)
    kind: str
    seat: int | None
    player: str | None
    text: str  # log text inside: renderers escape it
    pot: int | None = None
    to_call: int | None = None
    current_bet: int | None = None
    raises: int | None = None
    expected_seat: int | None = None
    stack: int | None = None


@dataclass(frozen=True)
class HandView:
    """A hand ready to be shown event by event: the canonical hand as audited, with the table state the
    engine had at each action of the replay that audited it.

    Only what the replay knew is stored (made in the worker, cheaply: a few integers an action); the words
    (`steps`, `seats`, `stakes`, `round_openers`) are made when a report asks, for the few hands it shows.
    """

    hand: dict[str, Any]
    file: str
    line: int
    pack: str
    #: event index -> (pot, amount to call, current bet, raises so far, seat whose turn, stack) before it
    state: dict[int, tuple[int | None, ...]] = field(default_factory=dict)
    #: betting round -> index of the event (deal or draw) that opened it; empty when not replayed
    openers: dict[int, int] = field(default_factory=dict)
    replayed: bool = True
    #: why the table state is missing (the replay failed), else None
    state_note: str | None = None

    @property
    def hand_id(self) -> str:
        return self.hand["hand_id"]

    @property
    def table_id(self) -> str:
        return self.hand["table_id"]

    @property
    def variant(self) -> str:
        return self.hand["variant"]

    @property
    def structure(self) -> str:
        return self.hand["structure"]

    @property
    def started_at(self) -> str | None:
        return self.hand.get("started_at")

    @property
    def currency(self) -> str | None:
        return self.hand.get("currency")

    @property
    def money_scale(self) -> int:
        return self.hand.get("money_scale") or 1

    def money(self, amount: int | None) -> str:
        """An amount of this hand as the log wrote it (`$0.50`, `1,500`); empty when there is none."""
        return "" if amount is None else format_money(amount, self.currency, self.money_scale)

    @cached_property
    def _words(self) -> tuple[HandMoney, dict[int, str], int | None]:
        blinds = len(self.hand["stakes"].get("blinds") or []) or None
        return HandMoney(self.currency, self.money_scale), {s["seat"]: s["player"] for s in self.hand["seats"]}, blinds

    @property
    def stakes(self) -> str:
        return describe_stakes(self.hand["stakes"], self._words[0])

    @property
    def seats(self) -> list[tuple[int, str, int, str]]:
        """seat, player, stack, status"""
        return [(s["seat"], s["player"], s["stack"], s.get("status", "active")) for s in self.hand["seats"]]

    @cached_property
    def round_openers(self) -> dict[int, str]:
        """Round number -> what opened it (the board cards or the draw), for headings."""
        money, players, blinds = self._words
        events = self.hand["events"]
        return {rnd: describe(events[seq], players, money, blinds) for rnd, seq in self.openers.items()
                if seq < len(events)}

    @cached_property
    def steps(self) -> list[Step]:
        """Every event in words, with its betting round and the table state before it (actions only)."""
        money, players, blinds = self._words
        events = self.hand["events"]
        starts = sorted((_with_burns(events, seq), rnd) for rnd, seq in self.openers.items())
        steps = []
        for seq, event in enumerate(events):
            rnd: int | None = None
            if self.replayed and self.state_note is None:
                rnd = 1
                for start, number in starts:
                    if seq >= start:
                        rnd = number
            seat = event.get("seat")
            player = players.get(seat) if seat is not None else event.get("player")
            row = self.state.get(seq)
            pot, to_call, current, raises, expected, stack = row if row is not None else (None,) * 6
            steps.append(Step(seq, rnd, event["kind"], seat, player, describe(event, players, money, blinds),
                              pot=pot, to_call=to_call, current_bet=current, raises=raises, expected_seat=expected,
                              stack=stack))
        return steps


@dataclass
class KeptViews:
    """The views a run keeps, at most `limit` of them: those of the smallest hand keys (file, line).

    Findings are listed sorted by file and line, so the first hands with findings are the ones with the
    smallest keys; each partition keeps its smallest and the driver merges partitions into the run's
    smallest, in whatever order they finish, so what is kept never depends on `--jobs` or the engine.
    Of two hands at one key (a Parquet dataset and its source log both named), the first audited is kept:
    `order` is (partition index, hand read) and the lower wins."""

    limit: int = MAX_VIEWS
    kept: dict[HandKey, tuple[tuple[int, int], HandView]] = field(default_factory=dict)

    def ceiling(self) -> HandKey | None:
        """The largest key kept once full (a hand above it need not be viewed at all), else None."""
        return max(self.kept) if len(self.kept) >= self.limit else None

    def offer(self, key: HandKey, order: tuple[int, int], view: HandView) -> None:
        held = self.kept.get(key)
        if held is not None and held[0] <= order:
            return
        self.kept[key] = (order, view)
        if len(self.kept) > self.limit:
            del self.kept[max(self.kept)]

    def merge(self, other: KeptViews) -> None:
        for key, (order, view) in other.kept.items():
            self.offer(key, order, view)

    def views(self) -> dict[HandKey, HandView]:
        """The views by key, in key order (the findings' order)."""
        return {key: self.kept[key][1] for key in sorted(self.kept)}


def wanted_rows(hands: pd.DataFrame, keys: pd.DataFrame, kept: KeptViews) -> list[int]:
    """Batch rows (`hand`) of the hands at `keys` (file, line) that `kept` would take: at most its limit,
    the smallest keys, none above what it already holds when full, the first copy of a key."""
    if not len(keys):
        return []
    rows = hands[["file", "line", "hand"]].merge(keys.drop_duplicates(), on=["file", "line"])
    rows = rows.drop_duplicates(["file", "line"]).sort_values(["file", "line"], kind="stable").head(kept.limit)
    ceiling = kept.ceiling()
    picked = []
    for file, line, row in zip(rows["file"], rows["line"], rows["hand"], strict=True):
        if ceiling is not None and (str(file), int(line)) > ceiling:
            break
        picked.append(int(row))
    return picked


def hand_views(sources: list[SourceHand], hands: pd.DataFrame, facts: dict[str, pd.DataFrame],
               rows: Iterable[int]) -> dict[int, HandView]:
    """The views of the given batch rows, from the canonical hands (`sources`, by row) and the facts of
    the replay that audited them: called in the worker, never after the audit. Columns are turned into
    lists once for all the rows (no per-row pandas), the words left for when a report shows the hand."""
    rows = sorted(set(rows))
    if not rows:
        return {}
    state = _by_hand(facts["actions"], rows, ["seq", *_STATE])
    rounds = _by_hand(facts["rounds"], rows, ["round", "seq"])
    chosen = hands[hands["hand"].isin(rows)]
    packs = dict(zip(chosen["hand"].astype(int), chosen["rule_pack"], strict=True))
    views = {}
    for row in rows:
        source = sources[row]
        acts = {int(seq): tuple(values) for seq, *values in state.get(row, [])}
        opened = {int(rnd): int(seq) for rnd, seq in rounds.get(row, []) if seq is not None}
        views[row] = HandView(source.hand, source.file, source.line, str(packs.get(row, "")), acts, opened,
                              row in rounds)
    return views


def _by_hand(frame: pd.DataFrame, rows: list[int], columns: list[str]) -> dict[int, list[list[int | None]]]:
    """`columns` of the rows of `frame` for the given hands, as Python ints or None, by hand."""
    if not len(frame):
        return {}
    frame = frame[frame["hand"].isin(rows)]
    lists = [[None if pd.isna(v) else int(v) for v in frame[c].tolist()] if c in frame else [None] * len(frame)
             for c in ["hand", *columns]]
    out: dict[int, list[list[int | None]]] = {}
    for hand, *values in zip(*lists, strict=True):
        out.setdefault(int(hand), []).append(values)  # type: ignore[arg-type]
    return out


_STATE = ("pot_before", "amount_to_call", "current_bet", "raises_before", "expected_seat", "stack_before")


def round_heading(view: HandView, number: int) -> str:
    """A betting round as the floor names it (`Pre-flop`, `Flop`, `After the draw`), for the explain text
    and the HTML replay: never a bare number."""
    return words.street_heading(view.variant, number)


def _with_burns(events: list[dict[str, Any]], seq: int) -> int:
    """Where a round's section starts: at the burn cards dealt just before the cards that open it."""
    while seq > 0 and events[seq - 1]["kind"] == "deal" and events[seq - 1].get("to") == "burn":
        seq -= 1
    return seq


class HandMoney:
    """A hand's currency and scale, formatting its amounts; None (a field the log left out) shows as `?`."""

    def __init__(self, currency: str | None = None, scale: int = 1):
        self.currency, self.scale = currency, scale

    def __call__(self, amount: Any) -> str:
        return "?" if amount is None else format_money(amount, self.currency, self.scale)

    def list(self, amounts: list[int]) -> str:
        return format_money_list(amounts, self.currency, self.scale)


_CHIPS = HandMoney()


def describe_stakes(stakes: dict[str, Any], money: HandMoney = _CHIPS) -> str:
    """The stakes in the log's own units (`blinds $0.05/$0.10`), not the canonical integers."""
    parts = ["blinds " + money.list(stakes.get("blinds", []))] if stakes.get("blinds") else []
    if stakes.get("ante"):
        parts.append(f"ante {money(stakes['ante'])}")
    if stakes.get("bet_units"):
        parts.append("bet units " + money.list(stakes["bet_units"]))
    if stakes.get("spread"):
        parts.append("spread " + ", ".join(f"{money(s['min'])}-{money(s['max'])}" for s in stakes["spread"]))
    for key, label in (("table_min", "table minimum"), ("table_max", "table maximum")):
        if stakes.get(key) is not None:
            parts.append(f"{label} {money(stakes[key])}")
    parts.append(f"chip unit {money(stakes.get('chip_unit'))}")
    return ", ".join(parts)


def _who(seat: int | None, players: dict[int, str]) -> str:
    if seat is None:
        return "?"
    name = players.get(seat)
    return f"seat {seat} ({name})" if name is not None else f"seat {seat}"


def _cards(cards: list[str] | None) -> str:
    """Cards as written, an unknown card (`??`) said as a hidden one (`words.cards_text`)."""
    return words.cards_text(" ".join(cards)) if cards else "-"


def describe(event: dict[str, Any], players: dict[int, str], money: HandMoney = _CHIPS,
             blinds: int | None = None) -> str:
    """One event in words, from the canonical log (player names included verbatim: escape when rendering),
    amounts in the log's own units; a blind by its floor name at a table requiring `blinds` blinds
    (`words.blind_name`: `small blind`, `second blind`)."""
    kind = event["kind"]
    who = _who(event.get("seat"), players)
    all_in = ", all-in" if event.get("all_in") else ""
    if kind == "button":
        return f"button at seat {event.get('seat')}"
    if kind == "post":
        post = event.get("post")
        what = post
        if post == "blind":
            number = event.get("blind")
            what = words.blind_name(int(number), blinds) if isinstance(number, int) else "a blind"
        return f"{who} posts {what}: {money(event.get('amount'))}{all_in}"
    if kind == "deal":
        target = event.get("to")
        if target == "hole":
            return f"{who} dealt {_cards(event.get('cards'))}"
        return f"{target}: {_cards(event.get('cards'))}"
    if kind == "draw":
        discard, receive = event.get("discard") or [], event.get("receive") or []
        if not discard and not receive:
            return f"{who} stands pat"
        return f"{who} discards {len(discard)} ({_cards(discard)}), receives {len(receive)} ({_cards(receive)})"
    if kind == "action":
        verb = event.get("action")
        if verb in ("fold", "check"):
            return f"{who} {verb}s{all_in}"
        if verb == "call":
            return f"{who} calls {money(event.get('amount'))} (round total {money(event.get('to'))}){all_in}"
        if verb == "bet":
            return f"{who} bets {money(event.get('amount'))} (round total {money(event.get('to'))}){all_in}"
        return f"{who} raises {money(event.get('amount'))} to {money(event.get('to'))}{all_in}"
    if kind == "show":
        return f"{who} shows {_cards(event.get('cards'))}"
    if kind == "muck":
        return f"{who} mucks"
    if kind == "kill":
        return f"{who}: hand declared dead by the house"
    if kind == "return":
        return f"uncalled {money(event.get('amount'))} returned to {who}"
    if kind == "rake":
        return f"rake {money(event.get('amount'))} from {_pot(event.get('pot'))}"
    if kind == "award":
        return f"{who} wins {money(event.get('amount'))} from {_pot(event.get('pot'))}"
    if kind == "seat_request":
        origin = f" (from seat {event['from_seat']})" if event.get("from_seat") is not None else ""
        return f"{event.get('player')} requests seat {event.get('seat')}{origin}"
    if kind == "seat_fill":
        return f"{event.get('player')} takes seat {event.get('seat')}"
    if kind == "seat_draw":
        draws = ", ".join(f"{d.get('player')} {words.cards_text(str(d.get('card')))}" for d in event.get("draws") or [])
        return f"draw for seat {event.get('seat')}: {draws}; awarded to {event.get('awarded_to')}"
    return kind


def _pot(pot: int | None) -> str:
    return "the main pot" if not pot else f"side pot {pot}"


def quarantined_with_id(result: AuditResult, hand_id: str) -> list[Quarantined]:
    return [q for q in result.quarantined if q.hand_id == hand_id]
