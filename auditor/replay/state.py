"""What a replay carries between batches and the order it walks hands in: shared by every engine.

`TableState` is the memory of a table's earlier hands (button, blinds, established players, blinds owed,
quarantine breaks), handed from one batch to the next by the pipeline and the workers; `replay_order`
places a batch's hands by file, table and instant. Neither decides a rule-book question.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from auditor.model.times import plain_utc_micros


def table_key(file: str, table_id: str) -> str:
    """How the engine names a table: its input file and table id (the same table name in another file is
    another session, never the next hand)."""
    return f"{file}\x00{table_id}"


@dataclass
class TableState:
    """What a replay must remember from earlier hands, carried from one batch to the next."""

    #: keyed by input file and table id (`table_key`)
    last_button: dict[str, int | None] = field(default_factory=dict)
    last_big_blind: dict[str, str | None] = field(default_factory=dict)
    #: who the previous hand's blinds give the next button to by the pack's `button_heir` (`kernel.blinds`)
    button_heir: dict[str, str | None] = field(default_factory=dict)
    #: the previous hand's small blind: (who posted it, missed, posted by the button) (`kernel.blinds`)
    last_small_blind: dict[str, tuple[str | None, bool, bool | None] | None] = field(default_factory=dict)
    #: per table, players dealt in at an earlier hand who have stayed seated since (not new players)
    established: dict[str, set[str]] = field(default_factory=dict)
    #: per table, player -> {blind missed and still owed ("sb", "bb"): id of the hand it was missed in}
    owed: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)
    #: per table, the id of the hand the memory above comes from (the evidence a cross-hand finding names)
    last_hand: dict[str, str] = field(default_factory=dict)
    #: per table, source lines of quarantined hands the replay has not yet passed (see `break_chain`)
    breaks: dict[str, list[int]] = field(default_factory=dict)
    # No memory of hand ids: whether an id repeats is a question about the whole run, which the run-wide
    # ledger answers for the rules with `scope: run` (auditor/engines/ledger.py); a batch leaves those facts null.

    def break_chain(self, file: str, table_id: str, line: int) -> None:
        """A hand of this table at `line` of `file` was quarantined: the table's next hand after it has no
        known previous hand.

        Called in file order as the reader yields the quarantine, which may be before the hands read
        ahead of it are replayed (they wait in a batch), so the break is kept by line and takes effect at
        the first hand of the table beyond that line. Rules about the previous hand (button, blinds owed,
        new players, heads-up big blind) are then not assessable for that hand, rather than judged
        against an older hand as if the missing one had never been played.
        """
        self.breaks.setdefault(table_key(file, table_id), []).append(line)

    def forget(self, table: str) -> None:
        """Drop everything remembered about `table`'s previous hands: its next hand is judged like a first."""
        for memory in (self.last_button, self.last_big_blind, self.button_heir, self.last_small_blind, self.established,
                       self.owed, self.last_hand):
            memory.pop(table, None)

    def pass_breaks(self, table: str, line: int | None) -> bool:
        """Whether a quarantined hand of `table` lies before `line` (consumed); forget the table if so."""
        pending = self.breaks.get(table)
        if not pending or line is None:
            return False
        remaining = [at for at in pending if at >= line]
        if len(remaining) == len(pending):
            return False
        if remaining:
            self.breaks[table] = remaining
        else:
            del self.breaks[table]
        self.forget(table)
        return True


#: a time that names its offset from UTC ("Z", "+13:00", "-0500", "+12"): an instant, not a wall-clock reading
_OFFSET = r"(?:[Zz]|[+-]\d{2}(?::?\d{2})?)$"


def replay_order(files: Sequence[str], table_ids: Sequence[str], started_at: Sequence[str | None]) -> list[int]:
    """Hand rows in the order the replay walks them (`walk`, which says how)."""
    return walk(files, table_ids, started_at)[0].tolist()


def walk(files: Sequence[str] | pa.ChunkedArray, table_ids: Sequence[str] | pa.ChunkedArray,
         started_at: Sequence[str | None] | pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray]:
    """Hand rows in the order the replay walks them: by input file, then table, then the instant each hand
    started; hands of a table that cannot all be placed in time keep the log's order.

    A table's hands are judged as consecutive only within one input file: the same table name in another
    file (another session, another day, an unrelated sample) is not the next hand. Within a table the
    order is the instant, not the `started_at` text: local times written with their offset sort wrongly as
    text across a daylight-saving change (NZ "02:30+13:00" is an hour before "02:00+12:00"), which
    made every rule about the previous hand judge hands against the wrong one. ISO 8601 with `Z`, an
    offset and fractional seconds is parsed for the whole column at once (pandas, no per-row Python).

    When a table has a hand whose time is missing or does not parse, or mixes times with an offset and
    times without one (a wall-clock reading whose instant is unknown), its times cannot order its hands,
    and the log's order stands for the whole table: the row order, which is file position. Equal
    instants keep file position too (the sort is stable).

    Returns the walk (hand rows, int64) and each row's table as a number (0, 1, ... in sorted (file, table)
    order: the walk takes the tables in that order). The columns may be Arrow string columns (the canonical
    hands' own), read without a Python list of their values where that gives the same numbers.
    """
    n = len(files)
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    arrow_text = started_at if isinstance(started_at, pa.ChunkedArray | pa.Array) else None
    file_code = _sorted_codes(files)
    table_code = _sorted_codes(table_ids)
    group = np.unique(file_code * (int(table_code.max(initial=-1)) + 2) + table_code + 1,
                      return_inverse=True)[1].reshape(-1).astype(np.int64)
    ticks = _utc_ticks(arrow_text) if arrow_text is not None else None
    if ticks is not None:  # every time present and of the usual UTC form: every table's times are usable
        return np.lexsort((np.arange(n), ticks, group)).astype(np.int64), group
    text = pd.Series(arrow_text.to_numpy(zero_copy_only=False) if arrow_text is not None else list(started_at),
                     dtype=object)
    try:
        instant = pd.to_datetime(text, utc=True, errors="coerce", format="ISO8601")
    except (ValueError, TypeError, OverflowError):  # text pandas cannot even coerce: no time is usable
        instant = pd.Series(pd.NaT, index=text.index, dtype="datetime64[us, UTC]")
    untimed = instant.isna().to_numpy(dtype=bool)
    aware = _aware(text, arrow_text)
    # per table: any time missing, or times with an offset mixed with times without one (NumPy, no groupby)
    rows = np.bincount(group)
    aware_n = np.bincount(group, weights=aware)
    untimed_n = np.bincount(group, weights=untimed)
    usable = ~((untimed_n > 0) | ((aware_n > 0) & (aware_n < rows)))[group]
    ticks = instant.dt.tz_localize(None).to_numpy(dtype="datetime64[us]").view(np.int64)
    ticks = np.where(usable, ticks, 0)
    return np.lexsort((np.arange(n), ticks, group)).astype(np.int64), group


def _utc_ticks(arrow: pa.ChunkedArray | pa.Array) -> np.ndarray | None:
    """The instants (µs since the epoch) of a string column whose every value is a time of the usual form
    `YYYY-MM-DDTHH:MM:SSZ` (`model.times.plain_utc_micros`: read from its bytes); None for any other column (a
    null, an offset, fractions, a leap second...), which the general path reads. That path makes a Python
    string of every value first: most of the walk's time."""
    read = plain_utc_micros(arrow)
    if read is None or not read[1].all() or not len(read[1]):
        return None
    return read[0]


def _sorted_codes(values: Sequence[str] | pa.ChunkedArray) -> np.ndarray:
    """`pd.factorize(values, sort=True)` codes (-1 for null): an Arrow string column without nulls by its dense
    rank in Arrow (byte order of UTF-8 is code point order, as Python sorts str), anything else by pandas."""
    if isinstance(values, pa.ChunkedArray | pa.Array) and not values.null_count and pa.types.is_string(values.type):
        rank = pc.rank(values, sort_keys="ascending", tiebreaker="dense")
        return rank.to_numpy(zero_copy_only=False).astype(np.int64) - 1
    if isinstance(values, pa.ChunkedArray | pa.Array):
        values = values.to_pylist()
    return pd.factorize(np.asarray(list(values), dtype=object), sort=True)[0].astype(np.int64)


#: `_OFFSET` as RE2 (Arrow) reads it, matching what Python's `re.search` matches: Python's `\d` is any
#: Unicode decimal digit (RE2's only ASCII) and its `$` also matches before a final newline
_OFFSET_RE2 = r"(?:[Zz]|[+-]\p{Nd}{2}(?::?\p{Nd}{2})?)\n?\z"


def _aware(text: pd.Series, arrow: pa.ChunkedArray | pa.Array | None = None) -> np.ndarray:
    """Per row, whether the time names its offset (`_OFFSET`), for the whole column in Arrow's C (pandas'
    `str.contains` on Python objects calls the regex once per row); False for null or non-text. `arrow`: the
    same column as Arrow text, if the caller has it (no conversion back)."""
    if arrow is not None and pa.types.is_string(arrow.type):
        return pc.fill_null(pc.match_substring_regex(arrow, _OFFSET_RE2), False).to_numpy(zero_copy_only=False)
    try:
        arrow = pa.array(text.to_numpy(), pa.string(), from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeError):  # not text (or not encodable): as pandas judges it
        return text.str.contains(_OFFSET, regex=True, na=False).to_numpy(dtype=bool)
    return pc.fill_null(pc.match_substring_regex(arrow, _OFFSET_RE2), False).to_numpy(zero_copy_only=False)
