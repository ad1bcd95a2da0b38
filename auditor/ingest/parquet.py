"""The canonical tables as a Parquet dataset: a directory with hands/seats/events.parquet.

Reading goes back through the same per-hand validation as JSON Lines, so a Parquet file written
by someone else gets no easier ride than a log.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from auditor.ingest.jsonl import consistency_error
from auditor.ingest.records import Quarantined, SourceHand
from auditor.ingest.tables import CanonicalTables
from auditor.ingest.validate import schema_error

TABLE_FILES = ("hands", "seats", "events")


def is_parquet_dataset(path: Path) -> bool:
    return path.is_dir() and all((path / f"{name}.parquet").is_file() for name in TABLE_FILES)


def write_parquet(tables: CanonicalTables, directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for name in TABLE_FILES:
        pq.write_table(getattr(tables, name), directory / f"{name}.parquet", compression="zstd")


def _strip(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


def _event(row: dict[str, Any]) -> dict[str, Any]:
    kind = row["kind"]
    ev: dict[str, Any] = {"kind": kind, "t": row["t"]}
    if kind == "seat_draw":
        ev.update(seat=row["seat"], awarded_to=row["player"],
                  draws=[{"player": p, "card": c} for p, c in zip(row["draw_players"] or [], row["cards"] or [],
                                                                   strict=False)])
    elif kind == "deal":
        ev.update(to=row["target"], seat=row["seat"], cards=row["cards"])
    elif kind == "draw":
        ev.update(seat=row["seat"], discard=row["cards"], receive=row["receive"])
    elif kind == "show":
        ev.update(seat=row["seat"], cards=row["cards"])
    else:
        for key in ("seat", "player", "action", "post", "blind", "amount", "to", "all_in", "pot", "from_seat"):
            ev[key] = row.get(key)
    return _strip(ev)


def read_parquet(directory: Path) -> Iterator[SourceHand | Quarantined]:
    """Rebuild each hand from the three tables and validate it like any other input.

    A hand keeps the source file and line stored with it (datasets written by `auditor convert`);
    otherwise its position is the dataset and its row number in hands.parquet (1-based).
    """
    name = str(directory)
    try:
        hands = pq.read_table(directory / "hands.parquet").to_pylist()
        seats = pq.read_table(directory / "seats.parquet").to_pylist()
        events = pq.read_table(directory / "events.parquet").to_pylist()
    except Exception as exc:  # any Arrow/IO failure is one reason for the whole dataset
        yield Quarantined(name, 0, f"unreadable Parquet dataset: {exc}")
        return
    seats_by_hand: dict[int, list] = defaultdict(list)
    for row in seats:
        seats_by_hand[row["hand"]].append(_strip({k: row[k] for k in ("seat", "player", "stack", "status")}))
    events_by_hand: dict[int, list] = defaultdict(list)
    for row in sorted(events, key=lambda r: (r["hand"], r["seq"])):
        events_by_hand[row["hand"]].append(_event(row))
    for row_no, h in enumerate(hands, start=1):
        stakes = _strip({"blinds": h["blinds"], "ante": h["ante"] or None, "bet_units": h["bet_units"] or None,
                         "table_min": h["table_min"], "table_max": h["table_max"], "chip_unit": h["chip_unit"]})
        if h["spread_min"]:
            stakes["spread"] = [{"min": a, "max": b} for a, b in zip(h["spread_min"], h["spread_max"] or [],
                                                                      strict=False)]
        hand = _strip({
            "hand_id": h["hand_id"], "table_id": h["table_id"], "room": h["room"], "started_at": h["started_at"],
            "variant": h["variant"], "structure": h["structure"], "rule_pack": h["rule_pack"],
            "currency": h["currency"], "max_seats": h["max_seats"], "stakes": stakes,
            "seats": seats_by_hand.get(h["hand"], []), "events": events_by_hand.get(h["hand"], []),
        })
        error = schema_error(hand) or consistency_error(hand)
        if error:
            yield Quarantined(name, row_no, error, h["hand_id"])
        else:
            # A dataset written by `auditor convert` remembers where each hand came from; findings keep
            # pointing at the original log, and a table's hands stay grouped by their source file.
            yield SourceHand(hand, h.get("file") or name, h.get("line") or row_no)
