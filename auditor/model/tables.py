"""The canonical tables every reader produces: hands, seats, events (Arrow), as a type and three schemas.

One row per hand, per seat per hand, per event; `hand` is the row number of the hand within the
batch and links the three. Money is int64 in the table's smallest unit. These tables are what
`auditor convert` writes to Parquet and what the replay engine reads, whatever the source format;
they live in the model because the readers make them and the replay, Parquet and reports read them
(`auditor.ingest.tables.build_tables` makes them from reader records).
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

HANDS_SCHEMA = pa.schema([
    ("hand", pa.int32()), ("hand_id", pa.string()), ("table_id", pa.string()), ("room", pa.string()),
    ("started_at", pa.string()), ("variant", pa.string()), ("structure", pa.string()),
    ("rule_pack", pa.string()), ("currency", pa.string()), ("max_seats", pa.int8()),
    ("blinds", pa.list_(pa.int64())), ("ante", pa.int64()), ("bet_units", pa.list_(pa.int64())),
    ("spread_min", pa.list_(pa.int64())), ("spread_max", pa.list_(pa.int64())),
    ("table_min", pa.int64()), ("table_max", pa.int64()), ("chip_unit", pa.int64()),
    ("file", pa.string()), ("line", pa.int64()),
    # how many of the log's integer amounts make one unit of `currency` (1 when the log does not say)
    ("money_scale", pa.int64()),
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
