"""Arrow columns from the column-wise readers' flat arrays, one helper per conversion.

The column-wise readers (`phh_tables`, `ohh_tables`, the rooms' engine `rooms`) turn their kernels' int64 rows into
the canonical tables' Arrow columns the same way: lists from per-row counts, names from codes, small integers
and texts with nulls, cards from spans of a card-code array. They share these helpers so that the three give
exactly the types `build_tables` gives (their identity tests compare the tables column by column), and a
change of one conversion is made once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from auditor.model.tables import EVENTS_SCHEMA

__all__ = ["EventNames", "card_lists", "coded", "event_table", "list_array", "small_ints", "span_positions", "texts"]


def list_array(counts: np.ndarray, values: pa.Array, mask: np.ndarray | None = None) -> pa.Array:
    """A list column: row i holds the next `counts[i]` of `values` (null where `mask`)."""
    offsets = np.zeros(len(counts) + 1, dtype=np.int32)
    np.cumsum(counts, out=offsets[1:])
    return pa.ListArray.from_arrays(pa.array(offsets), values, mask=None if mask is None else pa.array(mask))


def coded(names: pa.Array, codes: np.ndarray) -> pa.Array:
    """`names[code]` per row, null where the code is negative."""
    return names.take(pa.array(codes, pa.int64(), mask=codes < 0))


def small_ints(values: np.ndarray) -> pa.Array:
    """An int8 column (seats, blinds, pots), null where the value is negative."""
    return pa.array(values.astype(np.int8), pa.int8(), mask=values < 0)


def texts(values: list[str | None]) -> pa.Array:
    """A text column; all nulls without a list conversion when it is (`room`, `currency`: usually absent)."""
    if values.count(None) == len(values):
        return pa.nulls(len(values), pa.string())
    return pa.array(values, pa.string())


def span_positions(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(per row, how many items its span lo..hi holds: 0 where lo is negative; every item's position, in row
    order), computed without a loop over the rows."""
    counts = np.where(lo >= 0, hi - lo, 0)
    total = int(counts.sum())
    at = np.repeat(lo, counts) + np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    return counts, at


def card_lists(lo: np.ndarray, hi: np.ndarray, cards: np.ndarray, names: pa.Array) -> pa.Array:
    """Per row, the cards `cards[lo:hi]` (codes into `names`) as a list of names; null where lo is negative."""
    counts, at = span_positions(lo, hi)
    return list_array(counts, names.take(pa.array(cards[at].astype(np.int64))), lo < 0)


@dataclass(frozen=True)
class EventNames:
    """A reader kernel's codes for the event columns, as Arrow texts (`names[code]`)."""

    kinds: pa.Array
    actions: pa.Array
    posts: pa.Array
    targets: pa.Array

    @classmethod
    def of(cls, kernel: Any) -> EventNames:
        """From a kernel module's KIND_NAMES, ACTION_NAMES, POST_NAMES and TARGET_NAMES."""
        return cls(*(pa.array(getattr(kernel, f"{what}_NAMES"), pa.string())
                     for what in ("KIND", "ACTION", "POST", "TARGET")))


def event_table(per_hand: np.ndarray, names: EventNames, *, kind: np.ndarray, seat: np.ndarray, action: np.ndarray,
                post: np.ndarray, blind: np.ndarray, amount: np.ndarray, to: np.ndarray, all_in: np.ndarray,
                target: np.ndarray, pot: np.ndarray, cards: pa.Array, receive: pa.Array | None = None) -> pa.Table:
    """The canonical events table of a reader kernel's event rows (`per_hand[i]` rows for hand i, in order): codes
    and negative numbers as nulls, `all_in` 1/0/-1 as true/false/null, `cards` (and `receive`, else null) built by
    the caller; the columns no reader kernel writes (player, draw_players, t, from_seat) null."""
    n = len(kind)
    owner = np.repeat(np.arange(len(per_hand), dtype=np.int64), per_hand)
    first = np.repeat(np.cumsum(per_hand) - per_hand, per_hand)
    string_nulls = pa.nulls(n, pa.string())
    list_nulls = pa.nulls(n, pa.list_(pa.string()))
    columns = {
        "hand": pa.array(owner.astype(np.int32)),
        "seq": pa.array((np.arange(n, dtype=np.int64) - first).astype(np.int32)),
        "kind": names.kinds.take(pa.array(kind)),
        "seat": small_ints(seat),
        "player": string_nulls,
        "action": coded(names.actions, action),
        "post": coded(names.posts, post),
        "blind": small_ints(blind),
        "amount": pa.array(amount, pa.int64(), mask=amount < 0),
        "to": pa.array(to, pa.int64(), mask=to < 0),
        "all_in": pa.array(all_in == 1, pa.bool_(), mask=all_in < 0),
        "target": coded(names.targets, target),
        "cards": cards,
        "receive": list_nulls if receive is None else receive,
        "draw_players": list_nulls,
        "pot": small_ints(pot),
        "t": string_nulls,
        "from_seat": pa.nulls(n, pa.int8()),
    }
    return pa.table([columns[field.name] for field in EVENTS_SCHEMA], schema=EVENTS_SCHEMA)
