"""Arrow columns from the column-wise readers' flat arrays, one helper per conversion.

The column-wise readers (`phh_tables`, `ohh_tables`, `pokerstars_tables`) turn their kernels' int64 rows into
the canonical tables' Arrow columns the same way: lists from per-row counts, names from codes, small integers
and texts with nulls, cards from spans of a card-code array. They share these helpers so that the three give
exactly the types `build_tables` gives (their identity tests compare the tables column by column), and a
change of one conversion is made once.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

__all__ = ["card_lists", "coded", "list_array", "small_ints", "span_positions", "texts"]


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
