"""The hands behind findings, re-read from their logs and replayed, for the reports that show them.

Findings carry file, line, hand id and event index, not the hand itself (a run keeps no hand in
memory once its batch is checked). The HTML report and `auditor explain` go back to the logs for the
few hands they show, and replay them again to get the table state at every event (pot, amount to
call, raises so far): the same engine and house settings the audit used, so what they print is what
the rules saw.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from auditor.check.money import format_money, format_money_list
from auditor.engines.partition import read_input
from auditor.ingest.records import Quarantined, SourceHand
from auditor.ingest.tables import build_tables
from auditor.pipeline import AuditResult, InputFile
from auditor.replay.engine import replay

#: where a hand is: (file as findings name it, line)
HandKey = tuple[str, int]


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
    """A hand ready to be shown event by event."""

    hand_id: str
    file: str
    line: int
    table_id: str
    variant: str
    structure: str
    pack: str
    started_at: str | None
    stakes: str
    seats: list[tuple[int, str, int, str]]  # seat, player, stack, status
    steps: list[Step]
    #: round number -> what opened it (the board cards or the draw), for headings
    round_openers: dict[int, str] = field(default_factory=dict)
    #: why the table state is missing (the replay failed), else None
    state_note: str | None = None
    #: the log's currency (None: chips) and how many of its integers make one unit of it
    currency: str | None = None
    money_scale: int = 1

    def money(self, amount: int | None) -> str:
        """An amount of this hand as the log wrote it (`$0.50`, `1,500`); empty when there is none."""
        return "" if amount is None else format_money(amount, self.currency, self.money_scale)


def might_hold(item: InputFile, files: set[str]) -> bool:
    """Whether reading `item` can yield hands that findings name with one of `files`.

    A finding's file is the input's name or its path as given (readers differ), or `archive!member`
    for a zip member; a Parquet dataset written by `convert` keeps each hand's original file, so it
    may hold any of them.
    """
    if item.format == "parquet":
        return True
    names = {item.name, item.label, str(item.path), item.path.as_posix()} - {""}
    prefixes = tuple(f"{name}!" for name in names)
    return any(f in names or f.startswith(prefixes) for f in files)


def scan_hands(inputs: Iterable[InputFile], keep: Callable[[SourceHand], bool],
               files: set[str] | None = None) -> Iterator[SourceHand]:
    """Read the inputs again (only those that may hold `files`, if given) and yield the hands `keep` wants."""
    for item in inputs:
        if files is not None and not might_hold(item, files):
            continue
        for hand in read_input(item):  # named as the audit named them (escaped, `<stdin>`)
            if isinstance(hand, SourceHand) and keep(hand):
                yield hand


def pack_of(result: AuditResult, hand: SourceHand, forced: str | None = None) -> str | None:
    """The pack the audit used for this hand: the one --pack forced, else the one its table declares.

    None when that pack could not be loaded (the audit quarantined the hand for it).
    """
    name = forced or hand.hand["rule_pack"]
    return name if name in result.packs else None


def build_views(result: AuditResult, hands: list[tuple[SourceHand, str | None]]) -> list[HandView]:
    """Replay the given hands (each with the pack it was audited under) and describe every event."""
    if not hands:
        return []
    with_pack = [(h, p) for h, p in hands if p in result.packs]
    facts = None
    failures: dict[int, str] = {}
    if with_pack:
        tables = build_tables([h for h, _ in with_pack])
        houses = [result.packs[p].house for _, p in with_pack]
        facts, failed = replay(tables, houses)
        failures = dict(failed)
    actions = _by_hand(facts["actions"]) if facts is not None else {}
    rounds = _by_hand(facts["rounds"]) if facts is not None else {}
    views = []
    replayed = {id(h): row for row, (h, _) in enumerate(with_pack)}
    for hand, pack in hands:
        row = replayed.get(id(hand))
        note = None
        if row is None:
            note = f"not replayed: rule pack '{pack}' was not loaded in this run"
        elif row in failures:
            note = failures[row]
        views.append(_view(hand, pack or "", actions.get(row), rounds.get(row), note))
    return views


def _by_hand(frame: pd.DataFrame) -> dict[int, pd.DataFrame]:
    return {int(h): part for h, part in frame.groupby("hand", sort=False)} if len(frame) else {}


def _value(row: Any, name: str) -> int | None:
    value = row[name]
    return None if pd.isna(value) else int(value)


def _view(source: SourceHand, pack: str, actions: pd.DataFrame | None, rounds: pd.DataFrame | None,
          note: str | None) -> HandView:
    hand = source.hand
    currency, scale = hand.get("currency"), hand.get("money_scale") or 1
    money = HandMoney(currency, scale)
    players = {s["seat"]: s["player"] for s in hand["seats"]}
    events = hand["events"]
    state = {}
    if actions is not None:
        for _, row in actions.iterrows():
            state[int(row["seq"])] = row
    openers: dict[int, int] = {}  # round -> opening event index
    if rounds is not None:
        for _, row in rounds.iterrows():
            if not pd.isna(row["seq"]):
                openers[int(row["round"])] = int(row["seq"])
    replayed = rounds is not None and note is None
    starts = sorted((_with_burns(events, seq), rnd) for rnd, seq in openers.items())
    steps = []
    for seq, event in enumerate(events):
        if replayed:
            rnd = 1
            for start, number in starts:
                if seq >= start:
                    rnd = number
        else:
            rnd = None
        seat = event.get("seat")
        player = players.get(seat) if seat is not None else event.get("player")
        row = state.get(seq)
        steps.append(Step(
            seq, rnd, event["kind"], seat, player, describe(event, players, money),
            pot=_value(row, "pot_before") if row is not None else None,
            to_call=_value(row, "amount_to_call") if row is not None else None,
            current_bet=_value(row, "current_bet") if row is not None else None,
            raises=_value(row, "raises_before") if row is not None else None,
            expected_seat=_value(row, "expected_seat") if row is not None else None,
            stack=_value(row, "stack_before") if row is not None else None,
        ))
    round_openers = {rnd: describe(events[seq], players, money) for rnd, seq in openers.items() if seq < len(events)}
    seats = [(s["seat"], s["player"], s["stack"], s.get("status", "active")) for s in hand["seats"]]
    return HandView(hand["hand_id"], source.file, source.line, hand["table_id"], hand["variant"], hand["structure"],
                    pack, hand.get("started_at"), describe_stakes(hand["stakes"], money), seats, steps, round_openers,
                    note, currency, scale)


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
    return " ".join(cards) if cards else "-"


def describe(event: dict[str, Any], players: dict[int, str], money: HandMoney = _CHIPS) -> str:
    """One event in words, from the canonical log (player names included verbatim: escape when rendering),
    amounts in the log's own units."""
    kind = event["kind"]
    who = _who(event.get("seat"), players)
    all_in = ", all-in" if event.get("all_in") else ""
    if kind == "button":
        return f"button at seat {event.get('seat')}"
    if kind == "post":
        post = event.get("post")
        what = f"blind {event.get('blind')}" if post == "blind" else post
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
        draws = ", ".join(f"{d.get('player')} {d.get('card')}" for d in event.get("draws") or [])
        return f"draw for seat {event.get('seat')}: {draws}; awarded to {event.get('awarded_to')}"
    return kind


def _pot(pot: int | None) -> str:
    return "the main pot" if not pot else f"side pot {pot}"


def quarantined_with_id(result: AuditResult, hand_id: str) -> list[Quarantined]:
    return [q for q in result.quarantined if q.hand_id == hand_id]
