"""The canonical tables every reader produces: hands, seats, events (Arrow).

One row per hand, per seat per hand, per event; `hand` is the row number of the hand within the
batch and links the three. Money is int64 in the table's smallest unit. These tables are what
`auditor convert` writes to Parquet and what the replay engine reads, whatever the source format.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from auditor.ingest.records import SourceHand

HANDS_SCHEMA = pa.schema([
    ("hand", pa.int32()), ("hand_id", pa.string()), ("table_id", pa.string()), ("room", pa.string()),
    ("started_at", pa.string()), ("variant", pa.string()), ("structure", pa.string()),
    ("rule_pack", pa.string()), ("currency", pa.string()), ("max_seats", pa.int8()),
    ("blinds", pa.list_(pa.int64())), ("ante", pa.int64()), ("bet_units", pa.list_(pa.int64())),
    ("spread_min", pa.list_(pa.int64())), ("spread_max", pa.list_(pa.int64())),
    ("table_min", pa.int64()), ("table_max", pa.int64()), ("chip_unit", pa.int64()),
    ("file", pa.string()), ("line", pa.int64()),
])

SEATS_SCHEMA = pa.schema([
    ("hand", pa.int32()), ("seat", pa.int8()), ("player", pa.string()), ("stack", pa.int64()),
    ("status", pa.string()),
])

EVENTS_SCHEMA = pa.schema([
    ("hand", pa.int32()), ("seq", pa.int32()), ("kind", pa.string()), ("seat", pa.int8()),
    ("player", pa.string()), ("action", pa.string()), ("post", pa.string()), ("blind", pa.int8()),
    ("amount", pa.int64()), ("to", pa.int64()), ("all_in", pa.bool_()), ("target", pa.string()),
    ("cards", pa.list_(pa.string())), ("receive", pa.list_(pa.string())),
    ("draw_players", pa.list_(pa.string())), ("pot", pa.int8()), ("t", pa.string()), ("from_seat", pa.int8()),
])


@dataclass(frozen=True)
class CanonicalTables:
    hands: pa.Table
    seats: pa.Table
    events: pa.Table

    @property
    def num_hands(self) -> int:
        return self.hands.num_rows


def _columns(schema: pa.Schema) -> dict[str, list]:
    return {name: [] for name in schema.names}


def build_tables(source: Sequence[SourceHand]) -> CanonicalTables:
    """Canonical tables from validated hands (plain lists first, one Arrow conversion per column)."""
    h, s, e = _columns(HANDS_SCHEMA), _columns(SEATS_SCHEMA), _columns(EVENTS_SCHEMA)
    for index, item in enumerate(source):
        hand = item.hand
        stakes = hand["stakes"]
        spread = stakes.get("spread") or []
        h["hand"].append(index)
        h["hand_id"].append(hand["hand_id"])
        h["table_id"].append(hand["table_id"])
        h["room"].append(hand.get("room"))
        h["started_at"].append(hand.get("started_at"))
        h["variant"].append(hand["variant"])
        h["structure"].append(hand["structure"])
        h["rule_pack"].append(hand["rule_pack"])
        h["currency"].append(hand.get("currency"))
        h["max_seats"].append(hand["max_seats"])
        h["blinds"].append(stakes["blinds"])
        h["ante"].append(stakes.get("ante", 0))
        h["bet_units"].append(stakes.get("bet_units") or [])
        h["spread_min"].append([x["min"] for x in spread])
        h["spread_max"].append([x["max"] for x in spread])
        h["table_min"].append(stakes.get("table_min"))
        h["table_max"].append(stakes.get("table_max"))
        h["chip_unit"].append(stakes["chip_unit"])
        h["file"].append(item.file)
        h["line"].append(item.line)
        for seat in hand["seats"]:
            s["hand"].append(index)
            s["seat"].append(seat["seat"])
            s["player"].append(seat["player"])
            s["stack"].append(seat["stack"])
            s["status"].append(seat.get("status", "active"))
        for seq, ev in enumerate(hand["events"]):
            kind = ev["kind"]
            e["hand"].append(index)
            e["seq"].append(seq)
            e["kind"].append(kind)
            e["seat"].append(ev.get("seat"))
            e["action"].append(ev.get("action"))
            e["post"].append(ev.get("post"))
            e["blind"].append(ev.get("blind"))
            e["amount"].append(ev.get("amount"))
            e["to"].append(ev.get("to") if kind != "deal" else None)
            e["all_in"].append(ev.get("all_in"))
            e["pot"].append(ev.get("pot"))
            e["t"].append(ev.get("t"))
            e["from_seat"].append(ev.get("from_seat"))
            if kind == "seat_draw":
                draws = ev["draws"]
                e["player"].append(ev["awarded_to"])
                e["target"].append(None)
                e["cards"].append([d["card"] for d in draws])
                e["draw_players"].append([d["player"] for d in draws])
                e["receive"].append(None)
            else:
                e["player"].append(ev.get("player"))
                e["target"].append(ev.get("to") if kind == "deal" else None)
                e["cards"].append(ev.get("cards", ev.get("discard")))
                e["draw_players"].append(None)
                e["receive"].append(ev.get("receive"))
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
