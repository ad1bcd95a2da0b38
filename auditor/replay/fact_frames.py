"""The facts tables as typed frames: what a writer's columns become, the declaration (`replay.facts`) enforced.

`facts_frame` builds a table from its columns by name, refusing a missing, undeclared or wrongly typed one
(`FactContractError`); `FactRows` (rows written in Python) and the kernel engine's arrays go through it. List
facts are real list columns (`LIST_TYPES`: Arrow lists in pandas), built straight from a kernel's offsets and
values (`list_column`) and shown to people only through `list_text`.

Apart from the declaration because this is where pandas and Arrow come in: loading a pack or documenting a
rule reads the declaration alone and imports neither.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from auditor.replay.facts import (
    BOOL,
    FACT_COLUMNS,
    FACT_TABLES,
    INT,
    LIST_DTYPES,
    LIST_INT,
    LIST_STR,
    STR,
    Fact,
    FactContractError,
    fact_table,
)

#: the Arrow type of each list dtype
LIST_TYPES: dict[str, pa.DataType] = {LIST_INT: pa.list_(pa.int64()), LIST_STR: pa.list_(pa.string())}


def facts_frame(table: str, columns: Mapping[str, Any], nulls: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """The facts table `table` from its columns by name, in contract order, each of its declared dtype.

    `columns` maps every declared column name to its values: a NumPy array (what a kernel writes), an
    Arrow or pandas array, or a list of Python values (`FactRows`' rows, None for null).
    `nulls` optionally maps a column name to a boolean mask, True where the value is null (a kernel's
    array cannot hold a null). A missing or undeclared column, a mask for an unknown column, columns of
    different lengths, or an array of the wrong kind (a float array for an integer fact, numbers for a
    text fact) is a `FactContractError` naming the table and column: writing by name only helps if a
    wrong name or type cannot pass silently."""
    spec = fact_table(table)
    nulls = nulls or {}
    given, declared = set(columns), set(spec.names)
    if given != declared:
        missing, extra = [n for n in spec.names if n not in given], sorted(given - declared)
        raise FactContractError(f"facts table {table!r}: " + "; ".join(
            part for part in (f"missing column(s) {', '.join(missing)}" if missing else "",
                              f"undeclared column(s) {', '.join(extra)}" if extra else "") if part))
    unknown = sorted(set(nulls) - declared)
    if unknown:
        raise FactContractError(f"facts table {table!r}: null mask for undeclared column(s) {', '.join(unknown)}")
    out: dict[str, Any] = {}
    length: int | None = None
    for fact in spec.columns:
        array = _column(table, fact, columns[fact.name], nulls.get(fact.name))
        if length is None:
            length = len(array)
        elif len(array) != length:
            raise FactContractError(f"{table}.{fact.name}: {len(array)} values where {spec.names[0]} has {length}")
        out[fact.name] = array
    return frame_of(out)


def frame_of(columns: dict[str, Any]) -> pd.DataFrame:
    """A DataFrame of these pandas arrays, taken as they are where that is safe.

    pandas copies every column of a dict by default, a quarter of the facts' building time; the builders'
    arrays are new, so the frame can take them (`copy=False`), except an array that is read-only (a NumPy
    view of an Arrow buffer: the frame's columns must stay writable, as a copy's are), that is given twice, or
    whose values or null mask overlap in memory those of a column before it (writing into one column must
    never change another). Those few are copied. Overlap is judged on the bytes each buffer spans, not on a
    shared base array: the kernels write a table's columns as the rows of one 2-D array, and rows of it side
    by side are distinct columns that may be taken without a copy. Every span is checked at once first (sorted
    by start), so a frame with nothing to copy costs no Python per pair of columns."""
    buffers = [_buffers(array) for array in columns.values()]
    flat = [b for parts in buffers for b in parts if b.size]
    if len({id(array) for array in columns.values()}) == len(columns) and all(b.flags.writeable for b in flat):
        roots = [_root(b) for b in flat]  # buffers can overlap only if they are views of one owner
        shared = {r for r, k in Counter(map(id, roots)).items() if k > 1}
        spans = np.array([_span(b) for b, r in zip(flat, roots, strict=True) if id(r) in shared], np.int64)
        spans = spans.reshape(-1, 2)[np.argsort(spans.reshape(-1, 2)[:, 0], kind="stable")]
        if not (spans[1:, 0] < np.maximum.accumulate(spans[:-1, 1])).any():  # the usual case: nothing to copy
            return _frame_taking(columns)
    seen: set[int] = set()
    taken: list[tuple[int, int]] = []
    out: dict[str, Any] = {}
    for (name, array), parts in zip(columns.items(), buffers, strict=True):
        if id(array) in seen or any(not b.flags.writeable or _overlaps(b, taken) for b in parts):
            array = array.copy()
            parts = _buffers(array)
        seen.add(id(array))
        taken.extend(_span(b) for b in parts if b.size)
        out[name] = array
    return _frame_taking(out)


def _frame_taking(columns: dict[str, Any]) -> pd.DataFrame:
    """`pd.DataFrame(columns, copy=False)` without its per-column sanitising (a few µs a column, half of
    building a frame; the facts' columns are pandas arrays already): pandas' own constructor from arrays, the
    lengths checked here. The public constructor where pandas does not have it."""
    arrays = list(columns.values())
    lengths = {len(array) for array in arrays}
    if len(lengths) > 1:
        raise ValueError(f"columns of different lengths {sorted(lengths)}")
    from_arrays = getattr(pd.DataFrame, "_from_arrays", None)
    if from_arrays is None or not arrays:
        return pd.DataFrame(dict(columns), copy=False)
    return from_arrays(arrays, columns=pd.Index(list(columns)), index=pd.RangeIndex(lengths.pop()),
                       verify_integrity=False)


def _buffers(array: Any) -> list[np.ndarray]:
    """The NumPy buffers of a pandas masked array (values and null mask); none for an Arrow-backed one."""
    return [b for b in (getattr(array, "_data", None), getattr(array, "_mask", None)) if isinstance(b, np.ndarray)]


def _root(buffer: np.ndarray) -> Any:
    """The object that owns a buffer's memory (the end of its chain of bases)."""
    while isinstance(buffer, np.ndarray) and buffer.base is not None:
        buffer = buffer.base
    return buffer


def _span(buffer: np.ndarray) -> tuple[int, int]:
    return np.lib.array_utils.byte_bounds(buffer)


def _overlaps(buffer: np.ndarray, spans: list[tuple[int, int]]) -> bool:
    """Whether the bytes `buffer` spans meet any of `spans` (an empty buffer meets nothing). A strided view
    is judged by its whole span: conservative (a copy where none was needed), never a missed overlap."""
    if not buffer.size:
        return False
    lo, hi = _span(buffer)
    return any(lo < b_hi and b_lo < hi for b_lo, b_hi in spans)


def allocate(table: str, n: int) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Preallocated output arrays for the integer and boolean columns of `table`, by name: values
    (int64 zeros, False) and null masks (all True: a value is null until a kernel writes it and clears
    its mask). Text and list columns are not allocated: a kernel writes codes the caller turns into text, and
    offsets and values the caller makes a list column of (`list_column`)."""
    n = max(0, int(n))
    values: dict[str, np.ndarray] = {}
    masks: dict[str, np.ndarray] = {}
    for fact in fact_table(table).columns:
        if fact.dtype == STR or fact.dtype in LIST_DTYPES:
            continue
        values[fact.name] = np.zeros(n, dtype=np.int64 if fact.dtype == INT else np.bool_)
        masks[fact.name] = np.ones(n, dtype=np.bool_)
    return values, masks


def _column(table: str, fact: Fact, values: Any, null: Any) -> pd.api.extensions.ExtensionArray:
    where = f"{table}.{fact.name}"
    if fact.dtype in LIST_DTYPES:
        return _list_values(where, fact.dtype, values, null)
    if isinstance(values, list | tuple):
        if null is not None:
            values = [None if n else v for v, n in zip(values, _mask(where, null, len(values)), strict=True)]
        try:
            return _array(values if isinstance(values, list) else list(values), fact.dtype)
        except (TypeError, ValueError, pa.ArrowException) as exc:
            raise FactContractError(f"{where} ({fact.dtype}): {exc}") from exc
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if isinstance(values, pa.Array):
        return _from_arrow(where, fact.dtype, values, null)
    if isinstance(values, pd.api.extensions.ExtensionArray | pd.Series):
        if str(values.dtype) != fact.dtype:
            raise FactContractError(f"{where}: a {values.dtype} column where the contract declares {fact.dtype}")
        array = pd.array(values, dtype=fact.dtype)
        if null is not None:
            array = array.copy()
            array[_mask(where, null, len(array))] = pd.NA
        return array
    if isinstance(values, np.ndarray):
        return _from_numpy(where, fact.dtype, values, null)
    raise FactContractError(f"{where}: values of type {type(values).__name__} (give an array or a list)")


def _mask(where: str, null: Any, n: int) -> np.ndarray:
    mask = np.asarray(null)
    if mask.dtype != np.bool_ or mask.ndim != 1 or len(mask) != n:
        raise FactContractError(f"{where}: the null mask must be {n} booleans (got {mask.dtype}, shape {mask.shape})")
    return mask


def _from_numpy(where: str, dtype: str, values: np.ndarray, null: Any) -> pd.api.extensions.ExtensionArray:
    if values.ndim != 1:
        raise FactContractError(f"{where}: a {values.ndim}-dimensional array (a column is one-dimensional)")
    mask = _mask(where, null, len(values)) if null is not None else np.zeros(len(values), dtype=np.bool_)
    kind = values.dtype.kind
    if dtype == INT:
        if kind not in "iu":
            raise FactContractError(f"{where}: a {values.dtype} array where the contract declares integers")
        if kind == "u" and values.dtype.itemsize == 8 and len(values) and values.max() > np.iinfo(np.int64).max:
            raise FactContractError(f"{where}: unsigned values beyond int64")
        return pd.arrays.IntegerArray(values.astype(np.int64, copy=True), mask.copy())
    if dtype == BOOL:
        if kind != "b":
            raise FactContractError(f"{where}: a {values.dtype} array where the contract declares booleans")
        return pd.arrays.BooleanArray(values.copy(), mask.copy())
    if kind not in "OUT":
        raise FactContractError(f"{where}: a {values.dtype} array where the contract declares text")
    text = values.astype(object)
    if null is not None:
        text = np.where(mask, None, text)
    try:  # Arrow checks in C that every value is text or None (pandas would quietly turn 1 into "1")
        arrow = pa.array(text, pa.string(), from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise FactContractError(f"{where}: {exc} (the contract declares text)") from exc
    return pd.array(arrow, dtype=STR)


def _from_arrow(where: str, dtype: str, values: pa.Array, null: Any) -> pd.api.extensions.ExtensionArray:
    t = values.type
    fits = (pa.types.is_integer(t) if dtype == INT else pa.types.is_boolean(t) if dtype == BOOL
            else pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t))
    if not fits and not pa.types.is_null(t):
        raise FactContractError(f"{where}: an Arrow {t} array where the contract declares {dtype}")
    if null is not None:
        values = pc.if_else(pa.array(_mask(where, null, len(values))), pa.nulls(len(values), values.type), values)
    target = pa.int64() if dtype == INT else pa.bool_() if dtype == BOOL else pa.string()
    try:
        values = values.cast(target)
    except pa.ArrowInvalid as exc:
        raise FactContractError(f"{where}: {exc}") from exc
    mask = values.is_null().to_numpy(zero_copy_only=False)
    if dtype == INT:
        return pd.arrays.IntegerArray(pc.fill_null(values, 0).to_numpy(zero_copy_only=False), mask)
    if dtype == BOOL:
        return pd.arrays.BooleanArray(pc.fill_null(values, False).to_numpy(zero_copy_only=False), mask)
    return pd.array(values, dtype=STR)


def _list_values(where: str, dtype: str, values: Any, null: Any) -> pd.api.extensions.ExtensionArray:
    """A list column from an Arrow list array (what `list_column` builds from a kernel's offsets and values),
    a pandas column of the same dtype, or Python rows (`FactRows`: a list or tuple of items per row, None for
    null). Text where a list belongs is refused, never split into characters as Arrow would, and so are
    items of the wrong kind (a float or a bool among seats, a number among words)."""
    target = LIST_TYPES[dtype]
    if isinstance(values, pd.Series):
        values = values.array
    if isinstance(values, pd.api.extensions.ExtensionArray):
        if str(values.dtype) != dtype:
            raise FactContractError(f"{where}: a {values.dtype} column where the contract declares {dtype}")
        values = pa.array(values)
    elif isinstance(values, np.ndarray):
        if values.ndim != 1 or values.dtype != np.dtype(object):
            raise FactContractError(f"{where}: a {values.dtype} array where the contract declares {dtype} "
                                    f"(give one list per row)")
        values = values.tolist()
    if isinstance(values, list | tuple):
        item = int if dtype == LIST_INT else str
        for row in values:
            if row is not None and (not isinstance(row, list | tuple)
                                    or not all(type(v) is item or (item is int and isinstance(v, np.integer))
                                               for v in row)):
                raise FactContractError(f"{where}: {type(row).__name__} value {str(row)[:40]!r} where the contract "
                                        f"declares {dtype} (a list of {item.__name__} per row, or None)")
        try:
            values = pa.array(values, target)
        except (TypeError, ValueError, pa.ArrowException) as exc:
            raise FactContractError(f"{where} ({dtype}): {exc}") from exc
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if not isinstance(values, pa.Array):
        raise FactContractError(f"{where}: values of type {type(values).__name__} (give an array or a list)")
    t = values.type
    fits = pa.types.is_null(t) or ((pa.types.is_list(t) or pa.types.is_large_list(t)) and (
        pa.types.is_integer(t.value_type) if dtype == LIST_INT else
        pa.types.is_string(t.value_type) or pa.types.is_large_string(t.value_type) or pa.types.is_null(t.value_type)))
    if not fits:
        raise FactContractError(f"{where}: an Arrow {t} array where the contract declares {dtype}")
    try:
        values = values.cast(target)
    except pa.ArrowInvalid as exc:
        raise FactContractError(f"{where}: {exc}") from exc
    if null is not None:
        values = pc.if_else(pa.array(~_mask(where, null, len(values))), values, pa.nulls(len(values), target))
    return pd.arrays.ArrowExtensionArray(values)


def list_column(offsets: np.ndarray, values: pa.Array | np.ndarray, null: np.ndarray | None = None,
                ) -> pd.api.extensions.ExtensionArray:
    """A list column straight from offsets (n + 1, int, starting at 0, never decreasing: the caller's own) and
    the items in row order (int64 NumPy values or an Arrow string array): no Python per row. `null` marks the
    rows that are not known (their items, if any, are dropped); an empty row is a known empty list."""
    items = values if isinstance(values, pa.Array) else pa.array(np.asarray(values, dtype=np.int64))
    if pa.types.is_large_string(items.type) or pa.types.is_string_view(items.type):
        items = items.cast(pa.string())
    offsets = np.asarray(offsets, dtype=np.int64)
    if len(offsets) and offsets[-1] > np.iinfo(np.int32).max:  # a batch is far smaller: never wrap silently
        raise FactContractError(f"a list column of {offsets[-1]} items (more than 32-bit offsets hold)")
    mask = None if null is None or not np.any(null) else pa.array(np.asarray(null, dtype=np.bool_))
    array = pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)), items, mask=mask)
    return pd.arrays.ArrowExtensionArray(array)


def list_text(values: Any, separator: str = ",") -> pa.Array:
    """A list column as text, each row's items joined by `separator` ("1,3"; a null row stays null, an empty
    list is ""): the one place a list fact becomes the text messages, reports and snapshots show, so a
    finding reads exactly as it did when the engine wrote joined strings. `values` is a pandas list
    column or an Arrow list array; the separator of a fact is `LIST_SEPARATORS[name]`."""
    if isinstance(values, pd.Series):
        values = values.array
    array = pa.array(values) if not isinstance(values, pa.Array | pa.ChunkedArray) else values
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if not (pa.types.is_list(array.type) or pa.types.is_large_list(array.type)):
        raise FactContractError(f"list_text of a {array.type} array (a list column is needed)")
    if not pa.types.is_string(array.type.value_type):
        array = array.cast(pa.list_(pa.string()))
    return pc.binary_join(array, separator)


def is_list(values: Any) -> bool:
    """Whether a pandas column (or array) is a list column."""
    dtype = getattr(values, "dtype", None)
    return isinstance(dtype, pd.ArrowDtype) and (pa.types.is_list(dtype.pyarrow_dtype)
                                                 or pa.types.is_large_list(dtype.pyarrow_dtype))


@dataclass
class FactRows:
    """Rows written in Python (tuples in contract order, or dicts by column name: the replay's seat events); one
    conversion at the end, through the same named builder (`facts_frame`) the kernels use."""

    actions: list = field(default_factory=list)
    blinds: list = field(default_factory=list)
    pots: list = field(default_factory=list)
    seat_draws: list = field(default_factory=list)
    hands: list = field(default_factory=list)
    rounds: list = field(default_factory=list)
    draws: list = field(default_factory=list)
    seats: list = field(default_factory=list)
    seat_fills: list = field(default_factory=list)

    def extend(self, other: FactRows) -> None:
        for name in FACT_COLUMNS:
            getattr(self, name).extend(getattr(other, name))

    def to_facts(self, names: tuple[str, ...] | None = None) -> Facts:
        """The tables `names` (None: every table) as frames; a writer that fills only some of them asks for
        those, and pays nothing for the others."""
        return Facts({name: _frame(name, getattr(self, name)) for name in (names or FACT_COLUMNS)})


def _frame(table: str, rows: list) -> pd.DataFrame:
    """Rows to named columns, then `facts_frame`. A tuple row is read in contract order, so its width
    must be the table's; a dict row must have exactly the declared keys (a misspelt key is an error,
    not a column silently left null)."""
    names = fact_table(table).names
    if rows and isinstance(rows[0], dict):
        extra = set().union(*rows) - set(names)
        if extra:
            raise FactContractError(f"facts table {table!r}: dict rows with undeclared key(s) "
                                    f"{', '.join(sorted(extra))}")
        try:
            columns = {name: [row[name] for row in rows] for name in names}
        except KeyError as exc:
            raise FactContractError(f"facts table {table!r}: a dict row without the key {exc.args[0]!r}") from None
        return facts_frame(table, columns)
    widths = set(map(len, rows))
    if widths - {len(names)}:
        raise FactContractError(f"facts table {table!r}: rows of {sorted(widths)} values, the contract declares "
                                f"{len(names)} columns ({', '.join(names)})")
    columns = list(zip(*rows, strict=True)) if rows else [() for _ in names]
    return facts_frame(table, dict(zip(names, columns, strict=True)))


def _array(values: list, dtype: str) -> pd.api.extensions.ExtensionArray:
    """A nullable pandas column from Python values. Integers and booleans go through Arrow, which
    converts a list in C, about ten times faster than pandas' own inference on this many rows; a value
    Arrow will not take as that type (a float, a bool among ints) falls back to pandas, so the column
    is always what `pd.array(values, dtype)` gives."""
    if dtype in (INT, BOOL):
        try:
            arrow = pa.array(values, pa.int64() if dtype == INT else pa.bool_())
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
            return pd.array(values, dtype=dtype)
        mask = arrow.is_null().to_numpy(zero_copy_only=False)
        if dtype == INT:
            return pd.arrays.IntegerArray(pc.fill_null(arrow, 0).to_numpy(), mask)
        return pd.arrays.BooleanArray(pc.fill_null(arrow, False).to_numpy(zero_copy_only=False), mask)
    return pd.array(values, dtype=dtype)


@dataclass
class Facts:
    """Every facts table of a replay, by name."""

    tables: dict[str, pd.DataFrame]

    def __getitem__(self, name: str) -> pd.DataFrame:
        return self.tables[name]

    @classmethod
    def empty(cls) -> Facts:
        """Every declared table with its columns and no rows (a batch with nothing to replay)."""
        return cls({name: _frame(name, []) for name in FACT_TABLES})
