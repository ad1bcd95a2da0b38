"""The canonical tables every reader produces: hands, seats, events (Arrow), as a type and three schemas.

One row per hand, per seat per hand, per event; `hand` is the row number of the hand within the
batch and links the three. Money is int64 in the table's smallest unit. These tables are what
`auditor convert` writes to Parquet and what the replay engine reads, whatever the source format;
they live in the model because the readers make them and the replay, Parquet and reports read them
(`auditor.ingest.tables.build_tables` makes them from reader records).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

#: the log's amounts: at most this many integer digits and this many decimals (its range and finest scale, so that
#: an amount times its scale holds in int64); a reader refuses a hand with an amount beyond them
MAX_DIGITS = 15
MAX_PLACES = 6

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

    def keep(self, keep: np.ndarray) -> CanonicalTables:
        """The hands where `keep` (a bool per hand), with their seats and events, renumbered 0.. in order (the
        column-wise readers drop the hands their validator refused this way)."""
        if keep.all():
            return self
        number = np.cumsum(keep, dtype=np.int64) - 1
        out = []
        for table in (self.hands, self.seats, self.events):
            hand = table["hand"].to_numpy(zero_copy_only=False).astype(np.int64)
            rows = keep[hand] if len(hand) else np.zeros(0, bool)
            table = table.filter(pa.array(rows))
            out.append(table.set_column(0, "hand", pa.array(number[hand[rows]].astype(np.int32))))
        return CanonicalTables(*out)

    def between(self, a: int, b: int, seat_starts: np.ndarray, event_starts: np.ndarray) -> CanonicalTables:
        """Hands a..b - 1 with their seats and events (where each starts: `starts()`), renumbered from 0: slices,
        no copy of the other columns."""
        sa, sb = int(seat_starts[a]), int(seat_starts[b])
        ea, eb = int(event_starts[a]), int(event_starts[b])
        parts = []
        for table, lo, hi in ((self.hands, a, b), (self.seats, sa, sb), (self.events, ea, eb)):
            part = table.slice(lo, hi - lo)
            if a:
                shifted = part["hand"].to_numpy(zero_copy_only=False).astype(np.int32) - np.int32(a)
                part = part.set_column(0, "hand", pa.array(shifted))
            parts.append(part)
        return CanonicalTables(*parts)

    def starts(self) -> tuple[np.ndarray, np.ndarray]:
        """Per hand 0..n, where its seats and where its events start (their rows are in hand order)."""
        out = []
        for table in (self.seats, self.events):
            hand = table["hand"].to_numpy(zero_copy_only=False).astype(np.int64)
            out.append(np.searchsorted(hand, np.arange(self.num_hands + 1), side="left"))
        return out[0], out[1]
