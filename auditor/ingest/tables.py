"""The canonical tables every reader produces, built from reader records (the type and its schemas:
`auditor.model.tables`).

One row per hand, per seat per hand, per event; `hand` is the row number of the hand within the
batch and links the three. Money is int64 in the table's smallest unit. These tables are what
`auditor convert` writes to Parquet and what the replay engine reads, whatever the source format.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa
import pyarrow.compute as pc

from auditor.model.records import SourceHand
from auditor.model.tables import EVENTS_SCHEMA, HANDS_SCHEMA, SEATS_SCHEMA, CanonicalTables


def _columns(schema: pa.Schema) -> dict[str, list]:
    return {name: [] for name in schema.names}


#: keys an event may carry (hand-log schema); each becomes a raw column before the event columns are made
_EVENT_KEYS = ("kind", "seat", "player", "action", "post", "blind", "amount", "to", "all_in", "pot", "t", "from_seat",
               "cards", "discard", "receive", "awarded_to", "draws")
_ABSENT = object()  # a key the event does not have (where that differs from a key set to null)


def build_tables(source: Sequence[SourceHand]) -> CanonicalTables:
    """Canonical tables from validated hands (plain lists first, one Arrow conversion per column).

    Events, nine in ten of the rows, are spread into columns by walking each event's own keys once
    (five or six) rather than asking every event for all seventeen columns; what depends on the kind
    of event (a deal's `to` is its target, a seat draw's player and cards) is derived afterwards.
    """
    hands = [item.hand for item in source]
    stakes = [hand["stakes"] for hand in hands]
    spreads = [st.get("spread") or [] for st in stakes]
    h = {
        "hand": list(range(len(hands))),
        "hand_id": [hand["hand_id"] for hand in hands],
        "table_id": [hand["table_id"] for hand in hands],
        "room": [hand.get("room") for hand in hands],
        "started_at": [hand.get("started_at") for hand in hands],
        "variant": [hand["variant"] for hand in hands],
        "structure": [hand["structure"] for hand in hands],
        "rule_pack": [hand["rule_pack"] for hand in hands],
        "currency": [hand.get("currency") for hand in hands],
        "max_seats": [hand["max_seats"] for hand in hands],
        "blinds": [st["blinds"] for st in stakes],
        "ante": [st.get("ante", 0) for st in stakes],
        "bet_units": [st.get("bet_units") or [] for st in stakes],
        "spread_min": [[x["min"] for x in spread] for spread in spreads],
        "spread_max": [[x["max"] for x in spread] for spread in spreads],
        "table_min": [st.get("table_min") for st in stakes],
        "table_max": [st.get("table_max") for st in stakes],
        "chip_unit": [st["chip_unit"] for st in stakes],
        "file": [item.file for item in source],
        "line": [item.line for item in source],
        "money_scale": [hand.get("money_scale", 1) for hand in hands],
    }
    seat_lists = [hand["seats"] for hand in hands]
    seats = [seat for listed in seat_lists for seat in listed]
    s = {
        "hand": [index for index, listed in enumerate(seat_lists) for _ in listed],
        "seat": [seat["seat"] for seat in seats],
        "player": [seat["player"] for seat in seats],
        "stack": [seat["stack"] for seat in seats],
        "status": [seat.get("status", "active") for seat in seats],
    }
    event_lists = [hand["events"] for hand in hands]
    events = [ev for listed in event_lists for ev in listed]
    n = len(events)
    raw: dict[str, list] = {key: [None] * n for key in _EVENT_KEYS}
    raw["cards"] = [_ABSENT] * n
    for i, ev in enumerate(events):
        for key, value in ev.items():
            try:  # noqa: SIM105 - contextlib.suppress costs a call per key; this loop is the hot one
                raw[key][i] = value
            except KeyError:  # not a column (the schema admits no such key; nothing to keep)
                pass
    kinds = raw["kind"]
    to, player, receive = raw["to"], raw["player"], raw["receive"]
    cards = [discard if c is _ABSENT else c for c, discard in zip(raw["cards"], raw["discard"], strict=True)]
    draw_players: list = [None] * n
    for i in (i for i, kind in enumerate(kinds) if kind == "seat_draw"):
        ev = events[i]
        draws = ev["draws"]
        player[i] = ev["awarded_to"]
        cards[i] = [d["card"] for d in draws]
        draw_players[i] = [d["player"] for d in draws]
        receive[i] = None
    e = {
        "hand": [index for index, listed in enumerate(event_lists) for _ in listed],
        "seq": [seq for listed in event_lists for seq in range(len(listed))],
        "kind": kinds,
        "seat": raw["seat"],
        "player": player,
        "action": raw["action"],
        "post": raw["post"],
        "blind": raw["blind"],
        "amount": raw["amount"],
        "to": [None if kind == "deal" else value for kind, value in zip(kinds, to, strict=True)],
        "all_in": raw["all_in"],
        "target": [value if kind == "deal" else None for kind, value in zip(kinds, to, strict=True)],
        "cards": cards,
        "receive": receive,
        "draw_players": draw_players,
        "pot": raw["pot"],
        "t": raw["t"],
        "from_seat": raw["from_seat"],
    }
    return CanonicalTables(
        pa.Table.from_pydict(h, schema=HANDS_SCHEMA),
        pa.Table.from_pydict(s, schema=SEATS_SCHEMA),
        pa.Table.from_pydict(e, schema=EVENTS_SCHEMA),
    )


def concat_tables(parts: Sequence[CanonicalTables]) -> CanonicalTables:
    """One batch from several, renumbering `hand` so it stays the row number of the hand."""
    hands, seats, events = [], [], []
    offset = 0
    for part in parts:
        shift = pa.scalar(offset, pa.int32())
        hands.append(part.hands.set_column(0, "hand", pc.add(part.hands["hand"], shift)))
        seats.append(part.seats.set_column(0, "hand", pc.add(part.seats["hand"], shift)))
        events.append(part.events.set_column(0, "hand", pc.add(part.events["hand"], shift)))
        offset += part.num_hands
    if not parts:
        return build_tables([])
    return CanonicalTables(pa.concat_tables(hands), pa.concat_tables(seats), pa.concat_tables(events))
