"""Reading the one time form writers and the simulator use, `YYYY-MM-DDTHH:MM:SSZ`, straight from an Arrow
string column's bytes.

Why here: two stages read a batch's `started_at` column, the replay's walk (hands in time order per table) and
the run's hand periods (first and last hand per file), and both take a fast path when every time has this form
instead of making a Python string of every value for pandas. One reading, shared, so the two can never disagree
on which texts are plain or what instant they are.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

#: days in each month of a common year (index 1-12)
_MONTH_DAYS = np.array([0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31], np.int64)
#: where `YYYY-MM-DDTHH:MM:SSZ` has its digits, and its other bytes
_DIGITS = np.array([0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18])
_MARKS = np.array([4, 7, 10, 13, 16, 19])
_MARK_BYTES = np.frombuffer(b"--T::Z", np.uint8)
_WIDTH = 20


def plain_utc_micros(arrow: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, np.ndarray] | None:
    """(instants in µs since the epoch, 0 where null; whether each value is present) of a string column whose
    every present value is `YYYY-MM-DDTHH:MM:SSZ` (upper-case `T` and `Z`) on a real day, second 59 at most,
    checked on its bytes with NumPy and read by NumPy's ISO parser (the instants
    `pd.to_datetime(utc=True, format="ISO8601")` gives for that form); None when any present value is not
    (an offset, fractions, another form, a leap second, an impossible date) or the column is not text."""
    if isinstance(arrow, pa.ChunkedArray):
        arrow = arrow.combine_chunks() if arrow.num_chunks != 1 else arrow.chunk(0)
    if pa.types.is_string(arrow.type):
        offset_type = np.int32
    elif pa.types.is_large_string(arrow.type):
        offset_type = np.int64
    else:
        return None
    n = len(arrow)
    present = arrow.is_valid().to_numpy(zero_copy_only=False) if arrow.null_count else np.ones(n, np.bool_)
    if not present.any():
        return np.zeros(n, np.int64), present
    _, offsets_buffer, data_buffer = arrow.buffers()
    if offsets_buffer is None or data_buffer is None:
        return None
    width = np.dtype(offset_type).itemsize
    offsets = np.frombuffer(offsets_buffer, offset_type, n + 1, arrow.offset * width)
    data = np.frombuffer(data_buffer, np.uint8)
    first, end = int(offsets[0]), int(offsets[-1])
    if first < 0 or end > len(data):
        return None
    if present.all():  # the usual column: contiguous values, a view of the bytes, not a gather
        if end - first != _WIDTH * n or (np.diff(offsets) != _WIDTH).any():
            return None
        chars = data[first:end].reshape(n, _WIDTH)
    else:
        starts = offsets[:-1][present].astype(np.int64)
        if ((offsets[1:][present] - starts) != _WIDTH).any() or starts.min() < 0 or starts.max() + _WIDTH > len(data):
            return None
        chars = data[starts[:, None] + np.arange(_WIDTH)]
    digits = chars[:, _DIGITS].astype(np.int64) - 48
    if not ((chars[:, _MARKS] == _MARK_BYTES).all() and ((digits >= 0) & (digits <= 9)).all()):
        return None
    year = digits[:, 0] * 1000 + digits[:, 1] * 100 + digits[:, 2] * 10 + digits[:, 3]
    month, day = digits[:, 4] * 10 + digits[:, 5], digits[:, 6] * 10 + digits[:, 7]
    hour, minute, second = (digits[:, k] * 10 + digits[:, k + 1] for k in (8, 10, 12))
    if not ((month >= 1) & (month <= 12) & (hour <= 23) & (minute <= 59) & (second <= 59)).all():
        return None
    leap = (year % 4 == 0) & ((year % 100 != 0) | (year % 400 == 0))
    if not ((day >= 1) & (day <= _MONTH_DAYS[month] + (leap & (month == 2)))).all():
        return None
    try:
        read = chars[:, :19].copy().view("S19").reshape(len(chars)).astype("datetime64[us]").view(np.int64)
    except ValueError:  # not expected after the checks: the caller's general path then judges the column
        return None
    micros = np.zeros(n, np.int64)
    micros[present] = read
    return micros, present
