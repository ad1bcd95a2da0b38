"""Safe, vectorised rule predicates and message templates.

Rule packs are written by users and must be treated as untrusted input.  This
module turns predicate text such as::

    structure in ["fixed-limit", "spread-limit"] and abs(amount - expected_amount) > chip_unit

into an :class:`Expression` that is evaluated over a whole facts table at once
(NumPy elementwise operations over columns converted once, see :class:`Column`),
and message templates such as::

    "{player} raised by {raise_increment}; the previous bet or raise was {last_full_raise}"

into a :class:`Template` that renders one message per row.

Security model
--------------
Nothing in a rule is ever executed: there is no ``eval``/``exec``, no
``DataFrame.query``/``DataFrame.eval`` and no ``str.format``.  Predicate text is
parsed with :func:`ast.parse` and every node is checked against an allow-list
before it is compiled into a small tree of Python closures, each operating on
whole columns.  Identifiers must match ``^[a-z][a-z0-9_]*$`` (so no dunders and
no private names); the only callable things are the functions listed in
:data:`FUNCTIONS`, called by bare name.  Templates only support ``{name}``
placeholders; values are inserted as plain text and never re-interpreted.

Expression language
-------------------
* ``and``, ``or``, ``not`` (elementwise);
* ``+ - * / // %`` and unary ``-``/``+`` on numbers (booleans count as 0/1);
* ``== != < <= > >=`` (chains such as ``0 < x <= y`` are allowed), and
  ``in`` / ``not in`` whose right operand is a list literal of constants, a
  list-valued pack parameter or a list column (below);
* literals: integers (``|v| <= 10**18``), floats, strings, ``True``, ``False``,
  ``None``;
* functions: ``abs(x)``, ``min(a, b, ...)``, ``max(a, b, ...)`` (elementwise),
  ``isnull(x)``, ``notnull(x)``, ``startswith(x, "literal")``, ``len(x)`` (the
  number of items of a list column).

Names resolve to a column of the facts table first, then to a pack parameter.

List columns
------------
Some facts hold a list per row (``odd_chip_seats``, ``winner_seats``,
``killed_seats``, ``owed``, ``pots_misawarded``, ...: the ``LIST_INT`` /
``LIST_STR`` columns of ``auditor/replay/facts.py``). A row's list is either
missing (the fact is not known) or a list, possibly empty (known: none). With
a list column:

* ``a == b`` / ``a != b`` of two list columns compare item by item, in order
  (``odd_chip_seats != odd_chip_seats_by_suit``); a list of numbers equals a
  list of text only when both are empty;
* a list compared with text (``==``, ``!=``, ``in [...]``, ``startswith``) is
  compared as the text a message shows for it: its items joined by the fact's
  separator (``"1,3"``, ``"pot 0: held 300, paid 250; pot 1: ..."``), and
  ``""`` for an empty list, so ``paid_without_showing != ""`` means "paid to
  someone" and ``owed != "" or isnull(owed)`` "owes something, or not known";
* ``x in a`` / ``x not in a`` ask whether row by row the list ``a`` holds ``x``
  (a number or text, a literal or a column: ``seat in killed_seats``); a number
  is never in a list of text;
* ``len(a)`` is the number of items; a list used as a condition is true when it
  holds any (as text is when not ``""``);
* a list is never compared with a number nor ordered (``<``): refused when the
  rule is evaluated, with the way to say it instead.

Missing works as everywhere: a comparison, ``in`` or ``len`` with a missing list
is missing (so ``odd_chip_seats != odd_chip_seats_by_suit`` is *not assessable*
where the suit reading is not known, whatever ``needs:`` lists), and
``isnull(a)`` is how a rule says what to do with it. Lists are flat NumPy
arrays (offsets and items) inside: no Python object per row.

Missing values: three-valued logic
----------------------------------
Columns may contain missing values (``pd.NA``, ``NaN``, ``None``): a fact the
log does not establish. A predicate over a missing value is *missing* too (SQL's
NULL, Kleene's "unknown"), never silently true or false:

* a comparison with a missing operand is missing, including ``!=`` and
  ``not in`` (``x != 3`` is missing where ``x`` is, not True);
* arithmetic on a missing value gives a missing value, and so does division
  (``/``, ``//``, ``%``) by zero, which never raises;
* ``not`` of a missing condition is missing (``not (x > 1)`` is missing where
  ``x`` is, not True);
* ``and`` / ``or`` are three-valued: a known False decides an ``and`` and a known
  True decides an ``or`` whatever the other parts are, so
  ``notnull(x) and x > 1`` is False and ``isnull(x) or x > 1`` is True where
  ``x`` is missing; otherwise a missing part makes the whole missing;
* a missing value used as a condition (``when: all_in`` with a nullable boolean
  column) is missing; so is ``startswith()`` of a missing text;
* ``isnull(x)`` and ``notnull(x)`` are two-valued: always True or False, the
  way to say what a rule does with a missing fact.

A rule's check (``auditor/check/run.py``) counts a row whose ``when`` or
``violation`` is missing as *not assessable* -- never a pass and never a
violation -- whether or not the rule's ``needs:`` lists the fact; ``needs:``
still sets aside a row missing a listed fact before the predicate is asked.
:meth:`Expression.judge` returns the three outcomes apart (holds, missing,
overflowed); :meth:`Expression.evaluate` is True only where the predicate is
known to hold. Comparing directly with ``None`` is refused at compile time (it
would always be missing); use ``isnull(x)`` / ``notnull(x)``.

Overflow: the third outcome
---------------------------
Integer arithmetic is done in int64 and *checked*: ``+ - * // %``, unary ``-``
and ``abs()`` detect, column-wise, every row where the true result leaves int64
(numpy would wrap silently, so ``amount * 10000 < 0`` would fire on a legal bet
of 999,999,999,999,750).  Float arithmetic that overflows to infinity from
finite operands, and column values that do not fit int64 (uint64 above 2**63-1,
Python integers beyond 64 bits), are treated the same.  Narrower integer
columns are widened to int64 first.  Such a row's value is *unknown*, and a
condition over it is neither true nor false: :meth:`Expression.judge` reports
it as *overflowed* (the check counts the hand as not assessable, and in
``hands_overflow``, never as a violation and never as a pass).  ``and`` / ``or``
/ ``not`` treat it like a missing value, so a known ``False`` still decides an
``and`` and a known ``True`` an ``or``.  A missing value wins over an unknown
one (``isnull(x) or x * y > 0`` is assessable where ``x`` is missing; ``x > 0
and x * y > 0`` is missing, not overflowed, where ``x`` is missing).  Mixing an integer with a float computes
in float64, which cannot wrap but rounds above 2**53.
"""

from __future__ import annotations

import ast
import math
import operator
import re
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import reduce
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from auditor.replay.facts import LIST_SEPARATORS

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "FUNCTIONS",
    "MAX_DEPTH",
    "MAX_INT_LITERAL",
    "MAX_NODES",
    "MAX_TEMPLATE_LENGTH",
    "MAX_TEXT_LENGTH",
    "MISSING_TEXT",
    "Column",
    "Expression",
    "ExpressionError",
    "Template",
    "compile_expression",
    "compile_template",
    "prepare_column",
]

MAX_TEXT_LENGTH = 1000
MAX_NODES = 200
MAX_DEPTH = 30
MAX_INT_LITERAL = 10**18
MAX_TEMPLATE_LENGTH = 4000
MISSING_TEXT = "n/a"

_NAME_RE = re.compile(r"[a-z][a-z0-9_]*")
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


class ExpressionError(ValueError):
    """A rule expression or template was refused or could not be evaluated.

    ``reason`` is a single line suitable for showing to the rule author.
    """

    def __init__(self, reason: str) -> None:
        reason = _one_line(reason)
        super().__init__(reason)
        self.reason = reason


def _one_line(text: object, limit: int = 300) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _show(name: str, limit: int = 40) -> str:
    """Quote an identifier (possibly attacker-chosen) for use in a reason."""
    name = _one_line(name, limit)
    return f"'{name}'"


# ---------------------------------------------------------------------------
# Values flowing through a compiled expression
# ---------------------------------------------------------------------------

_BOOL = "boolean"
_NUM = "number"
_TEXT = "text"
_OTHER = "other"
_NULL = "null"
_LIST = "list"
#: a list column (a list fact per row, `auditor.replay.facts.LIST_INT` / `LIST_STR`); ``data`` is an `_Items`
_ITEMS = "list column"


@dataclass(frozen=True, slots=True)
class _Val:
    """One intermediate result.

    ``data`` is a scalar or a 1-D array of the table's length.  ``missing`` is
    ``False`` (nothing missing), ``True`` (a missing scalar) or a boolean array.
    Positions flagged as missing hold a harmless filler in ``data``.

    ``unknown`` has the same shape as ``missing`` and flags the rows whose value
    exists but could not be computed: integer arithmetic that would leave int64
    (it would wrap), float arithmetic that overflowed to infinity, or a column
    value that does not fit int64.  Unlike a missing value, an unknown one makes
    a condition neither true nor false: the row is *not assessable*.  A row that
    is missing is never also unknown (missing wins: the value does not exist).
    """

    kind: str
    data: Any
    missing: Any = False
    unknown: Any = False
    #: a text column's dictionary, when known: (codes int64, distinct values object), code -1 where missing.
    #: ``==``, ``in`` and ``startswith`` against literals then test the few distinct values, not every row.
    codes: Any = None


_NULL_VAL = _Val(_NULL, None, True)


@dataclass(frozen=True, slots=True)
class _Items:
    """A list column as flat arrays: row i's items are ``values[offsets[i]:offsets[i + 1]]`` (int64 numbers or
    text objects, per ``text``); a missing row holds no items (a harmless filler, as everywhere here).
    ``separator`` is the one its items are written with (`facts.LIST_SEPARATORS`): comparing a list with text
    compares the text a message shows ("1,3", "" for an empty list)."""

    offsets: np.ndarray
    values: np.ndarray
    text: bool
    separator: str

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def rows(self) -> np.ndarray:
        """The row of each item."""
        return np.repeat(np.arange(len(self.offsets) - 1, dtype=np.int64), self.lengths)

    def take(self, positions: np.ndarray) -> _Items:
        lo, lengths = self.offsets[positions], self.lengths[positions]
        offsets = np.zeros(len(positions) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        starts = np.repeat(lo - offsets[:-1], lengths) + np.arange(offsets[-1], dtype=np.int64)
        return _Items(offsets, self.values[starts], self.text, self.separator)

    def joined(self) -> np.ndarray:
        """Each row's items as the text messages show (object array; a missing row's filler is "")."""
        import pyarrow as pa

        from auditor.replay.fact_frames import list_text

        items = pa.array(self.values, pa.string() if self.text else pa.int64())
        lists = pa.ListArray.from_arrays(pa.array(self.offsets.astype(np.int32)), items)
        return np.asarray(list_text(lists, self.separator).to_numpy(zero_copy_only=False), dtype=object)


def _items_value(series: pd.Series, name: str | None) -> _Val:
    """A pandas list column (Arrow lists) as `_Items` and a missing mask: offsets and values straight from
    Arrow (no Python per row); null items inside a list (never written by the engine) read as 0 or ""."""
    import pyarrow as pa
    import pyarrow.compute as pc

    array = pa.array(series.array)
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    missing = array.is_null().to_numpy(zero_copy_only=False)
    lengths = pc.fill_null(pc.list_value_length(array), 0).to_numpy(zero_copy_only=False).astype(np.int64)
    flat = pc.list_flatten(array)
    item = array.type.value_type
    text = pa.types.is_string(item) or pa.types.is_large_string(item)
    if pa.types.is_integer(item) or pa.types.is_null(item):  # list<null>: lists that are all empty
        values = pc.fill_null(flat.cast(pa.int64()), 0).to_numpy(zero_copy_only=False)
    elif text:
        values = np.asarray(pc.fill_null(flat.cast(pa.string()), "").to_numpy(zero_copy_only=False), dtype=object)
    else:
        raise ExpressionError(f"column {_show(name or '?')} is a list of {flat.type}: only lists of integers or "
                              f"text can be compared")
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    separator = LIST_SEPARATORS.get(name or "", ",")
    return _Val(_ITEMS, _Items(offsets, values, text, separator), _mask(missing))


def _items_text(value: _Val) -> _Val:
    """A list value as the text a message shows for it: how a list compares with text (``owed != ""``)."""
    return _Val(_TEXT, value.data.joined(), value.missing)


def _mask(arr: Any) -> Any:
    """Normalise a missing-mask: scalar -> bool, all-false array -> False."""
    if np.ndim(arr) == 0:
        return bool(arr)
    arr = np.asarray(arr, dtype=bool)
    return arr if arr.any() else False


def _or_mask(a: Any, b: Any) -> Any:
    if a is False:
        return b
    if b is False:
        return a
    if a is True or b is True:
        return True
    return a | b


def _and_not(a: Any, b: Any) -> Any:
    """Mask ``a`` without the rows of mask ``b`` (both normalised by :func:`_mask`)."""
    if a is False or b is False:
        return a
    if b is True:
        return False
    return _mask(np.logical_and(a, np.logical_not(b)))


def _drop_missing(raw: Any, missing: Any) -> Any:
    """Force ``raw`` (booleans) to False wherever ``missing`` is set."""
    if missing is False:
        return raw
    if missing is True:
        return False
    return np.logical_and(raw, ~missing)


def _as_bool(raw: Any) -> Any:
    if np.ndim(raw) == 0:
        return bool(raw)
    return np.asarray(raw, dtype=bool)


def _scalar_value(value: Any, what: str) -> _Val:
    if value is None:
        return _NULL_VAL
    if isinstance(value, bool | np.bool_):
        return _Val(_BOOL, bool(value))
    if isinstance(value, int | np.integer):
        if not _INT64_MIN <= int(value) <= _INT64_MAX:
            raise ExpressionError(f"{what} is too large for a 64-bit integer")
        return _Val(_NUM, np.int64(value))
    if isinstance(value, float | np.floating):
        number = np.float64(value)
        return _Val(_NUM, number, bool(np.isnan(number)))
    if isinstance(value, str):
        return _Val(_TEXT, value)
    raise ExpressionError(f"{what} has unsupported type {type(value).__name__}")


def _list_item(value: Any, what: str) -> Any:
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise ExpressionError(f"{what} contains an unsupported item of type {type(value).__name__}")


def _parameter_value(name: str, value: Any) -> _Val:
    what = f"parameter {_show(name)}"
    if isinstance(value, list | tuple | set | frozenset):
        return _Val(_LIST, tuple(_list_item(v, what) for v in value))
    return _scalar_value(value, what)


def _as_series(name: str, obj: Any, length: int) -> pd.Series:
    import pandas as pd

    if isinstance(obj, pd.Series):
        series = obj
    else:
        arr = np.asarray(obj)
        if arr.ndim != 1:
            raise ExpressionError(f"column {_show(name)} is not one-dimensional")
        series = pd.Series(arr, copy=False)
    if len(series) != length:
        raise ExpressionError(f"column {_show(name)} has {len(series)} rows, expected {length}")
    return series


def _series_value(series: pd.Series, name: str | None = None) -> _Val:
    import pandas as pd

    from auditor.replay.fact_frames import is_list

    dtype = series.dtype
    if is_list(series):
        return _items_value(series, name)
    if isinstance(dtype, pd.CategoricalDtype):
        series = series.astype(object)
        dtype = series.dtype
    masked = _masked(series)
    if masked is not None:  # nullable Int64 / boolean: their values and mask as they are, exact
        data, missing = masked
        return _Val(_BOOL, data, missing) if data.dtype.kind == "b" else _int64_value(data, missing)
    if pd.api.types.is_bool_dtype(dtype):
        if isinstance(dtype, np.dtype):
            return _Val(_BOOL, series.to_numpy())
        missing = series.isna().to_numpy(dtype=bool)
        return _Val(_BOOL, series.to_numpy(dtype=bool, na_value=False), _mask(missing))
    if pd.api.types.is_numeric_dtype(dtype) and dtype.kind in "iuf":
        if dtype.kind in "iu":
            if isinstance(dtype, np.dtype):
                return _int64_value(series.to_numpy(), False)
            # nullable Int64 & co.: keep the integers exact (float64 would round above 2**53)
            missing = _mask(series.isna().to_numpy(dtype=bool))
            return _int64_value(series.to_numpy(dtype=dtype.numpy_dtype, na_value=0), missing)
        data = series.to_numpy(dtype=np.float64, na_value=np.nan)
        return _Val(_NUM, data, _mask(np.isnan(data)))
    if isinstance(dtype, pd.StringDtype):
        return _coded_text(series)
    missing = series.isna().to_numpy(dtype=bool)
    if dtype == np.dtype(object):
        inferred = pd.api.types.infer_dtype(series, skipna=True)
        if inferred == "empty":
            return _Val(_NULL, None, True) if missing.all() else _Val(_OTHER, series.to_numpy(), False)
        if inferred == "string":
            return _coded_text(series)
        if inferred == "boolean":
            data = series.to_numpy(dtype=object, copy=True)
            data[missing] = False
            return _Val(_BOOL, data.astype(bool), _mask(missing))
        if inferred == "integer":  # Python integers: exact in int64, or unknown where they do not fit
            data = series.to_numpy(dtype=object, copy=True)
            data[missing] = 0
            try:
                return _Val(_NUM, data.astype(np.int64), _mask(missing))
            except OverflowError:
                return _big_integers(data, _mask(missing))
        if inferred in ("floating", "mixed-integer-float"):
            return _series_value(pd.to_numeric(series))
        data = series.to_numpy(dtype=object, copy=True)
        data[missing] = None
        return _Val(_OTHER, data, _mask(missing))
    # datetimes, timedeltas and other exotic dtypes: handed to numpy as they are.
    return _Val(_OTHER, series.to_numpy(), _mask(missing))


def _masked(series: pd.Series) -> tuple[np.ndarray, Any] | None:
    """A pandas masked integer or boolean column (the facts tables' Int64 and boolean) as its NumPy
    values and missing mask without pandas' generic conversion (a third of its cost): the values are
    copied with 0 / False under the mask, so a missing row's filler is harmless, as everywhere here."""
    import pandas as pd

    array = series.array
    if not isinstance(array, pd.arrays.IntegerArray | pd.arrays.BooleanArray):
        return None
    data, mask = getattr(array, "_data", None), getattr(array, "_mask", None)
    if not isinstance(data, np.ndarray) or not isinstance(mask, np.ndarray) or data.shape != mask.shape:
        return None  # a pandas whose masked arrays are laid out otherwise: the generic path
    if not mask.any():
        return data, False
    return np.where(mask, np.zeros(1, dtype=data.dtype), data), mask.copy()


def _coded_text(series: pd.Series) -> _Val:
    """A text column through its dictionary: the distinct values once (hashing, not a Python object per
    row from Arrow), the rows as codes; ``data`` holds the same text objects, missing rows "" (filler)."""
    import pandas as pd

    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    codes = np.asarray(codes, dtype=np.int64)
    values = np.empty(len(uniques) + 1, dtype=object)
    values[:-1] = np.asarray(uniques, dtype=object)
    values[-1] = ""
    missing = codes < 0
    return _Val(_TEXT, values[codes], _mask(missing), False, (codes, values[:-1]))


def _code_lookup(value: _Val, member: Callable[[str], bool]) -> np.ndarray:
    """``member`` asked once per distinct value of a coded text column, spread over its rows."""
    codes, values = value.codes
    table = np.zeros(len(values) + 1, dtype=bool)
    table[:-1] = [bool(member(v)) for v in values]
    return table[codes]


def _int64_value(data: np.ndarray, missing: Any) -> _Val:
    """An integer column as int64, the one integer type arithmetic is checked in.

    Narrower columns (int8..int32, uint8..uint32) are widened, so ``seat * seat`` cannot wrap at 2**15;
    uint64 values above 2**63 - 1 cannot be represented and are *unknown* (the row is not assessable).
    """
    if data.dtype == np.int64:
        return _Val(_NUM, data, missing)
    if data.dtype.kind == "u" and data.dtype.itemsize == 8:
        too_big = _and_not(_mask(data > np.uint64(_INT64_MAX)), missing)
        if too_big is not False:
            return _Val(_NUM, np.where(too_big, 0, data).astype(np.int64), missing, too_big)
    return _Val(_NUM, data.astype(np.int64), missing)


def _big_integers(data: np.ndarray, missing: Any) -> _Val:
    """An object column of Python integers (missing rows already 0) some of which do not fit int64: those
    rows are unknown. Only reached for hand-made tables (the engine writes int64), so one pass in Python is
    acceptable here.
    """
    fits = np.fromiter((_INT64_MIN <= int(v) <= _INT64_MAX for v in data), dtype=bool, count=len(data))
    values = np.fromiter((int(v) if ok else 0 for v, ok in zip(data, fits, strict=True)), dtype=np.int64,
                         count=len(data))
    missing_mask = missing if missing is not False else np.zeros(len(data), dtype=bool)
    return _Val(_NUM, values, _mask(missing_mask), _and_not(_mask(~fits), _mask(missing_mask)))


class _Env:
    """Name resolution for one evaluation: columns first, then parameters."""

    __slots__ = ("cache", "columns", "length", "parameters")

    def __init__(self, columns: Mapping[str, Any], parameters: Mapping[str, Any], length: int) -> None:
        self.columns = columns
        self.parameters = parameters
        self.length = length
        self.cache: dict[str, _Val] = {}

    def lookup(self, name: str) -> _Val:
        value = self.cache.get(name)
        if value is None:
            if name in self.columns:
                column = self.columns[name]
                if isinstance(column, Column):
                    if column.length != self.length:
                        raise ExpressionError(f"column {_show(name)} has {column.length} rows, expected {self.length}")
                    value = column._value
                else:
                    value = _series_value(_as_series(name, column, self.length), name)
            elif name in self.parameters:
                value = _parameter_value(name, self.parameters[name])
            else:
                raise ExpressionError(f"unknown name {_show(name)}")
            self.cache[name] = value
        return value


# ---------------------------------------------------------------------------
# Elementwise operations
# ---------------------------------------------------------------------------


def _reject_list(value: _Val) -> None:
    if value.kind == _LIST:
        raise ExpressionError("a list can only be used as the right operand of 'in' / 'not in'")


def _truth(value: _Val) -> _Val:
    """The value used as a condition: a boolean value in three-valued logic.

    ``data`` is True only where the condition is known to hold; ``missing`` flags the rows where it is
    missing (a missing operand: SQL's NULL), ``unknown`` those where it could not be computed (overflow).
    Both are *undecided*: neither true nor false.
    """
    kind = value.kind
    if kind == _NULL:
        return _Val(_BOOL, False, True)
    _reject_list(value)
    if kind == _BOOL:
        raw = value.data
    elif kind == _NUM:
        raw = value.data != 0
    elif kind == _TEXT:
        raw = value.data != ""
    elif kind == _ITEMS:  # a list is true when it holds something, as its text is when not ""
        raw = value.data.lengths > 0
    else:
        raise ExpressionError("a value of this type cannot be used as a condition")
    unknown = _and_not(value.unknown, value.missing)
    return _Val(_BOOL, _as_bool(_drop_missing(raw, _or_mask(value.missing, unknown))), value.missing, unknown)


def _decided(data: Any, missing: Any, unknown: Any) -> _Val:
    """A boolean value with ``data`` forced False on its undecided rows (missing wins over unknown)."""
    unknown = _and_not(unknown, missing)
    return _Val(_BOOL, _as_bool(_drop_missing(data, _or_mask(missing, unknown))), missing, unknown)


def _kleene(parts: list[_Val], conjunction: bool) -> _Val:
    """``and`` / ``or`` over boolean values in three-valued (Kleene) logic.

    A known False decides an ``and`` and a known True decides an ``or`` whatever the undecided parts are,
    so ``x > 0 or x * y > z`` stays assessable where ``x`` is positive, however large ``x * y`` is, and
    ``notnull(x) and x > 1`` is known False where ``x`` is missing. Otherwise the result is undecided
    when any part is: missing if any part is missing, else unknown.
    """
    combine = np.logical_and if conjunction else np.logical_or
    value = _as_bool(reduce(combine, (p.data for p in parts)))
    missing = reduce(_or_mask, (p.missing for p in parts))
    unknown = reduce(_or_mask, (p.unknown for p in parts))
    if missing is False and unknown is False:
        return _Val(_BOOL, value)
    if conjunction:
        # decided where some part is known False (neither true nor undecided)
        decided = reduce(_or_mask, (_mask(np.logical_not(np.logical_or(p.data, _or_mask(p.missing, p.unknown))))
                                    for p in parts))
    else:
        decided = _mask(value)
    return _decided(value, _and_not(missing, decided), _and_not(unknown, decided))


def _numbers(value: _Val, what: str) -> Any:
    _reject_list(value)
    if value.kind == _NUM:
        return value.data
    if value.kind == _BOOL:
        data = value.data
        return np.int64(data) if np.ndim(data) == 0 else np.asarray(data, dtype=np.int64)
    raise ExpressionError(f"{what} needs numbers, not {value.kind}")


_BINOPS: dict[type, tuple[str, Callable[[Any, Any], Any]]] = {
    ast.Add: ("+", np.add),
    ast.Sub: ("-", np.subtract),
    ast.Mult: ("*", np.multiply),
    ast.Div: ("/", np.true_divide),
    ast.FloorDiv: ("//", np.floor_divide),
    ast.Mod: ("%", np.remainder),
}
_DIVISIONS = (ast.Div, ast.FloorDiv, ast.Mod)
_REFUSED_BINOPS = {
    ast.Pow: "operator '**' is not allowed",
    ast.BitAnd: "operator '&' is not allowed; use 'and'",
    ast.BitOr: "operator '|' is not allowed; use 'or'",
    ast.BitXor: "operator '^' is not allowed",
    ast.LShift: "operator '<<' is not allowed",
    ast.RShift: "operator '>>' is not allowed",
    ast.MatMult: "operator '@' is not allowed",
}


def _arith(op: type, left: _Val, right: _Val) -> _Val:
    symbol, func = _BINOPS[op]
    _reject_list(left)
    _reject_list(right)
    if left.kind == _NULL or right.kind == _NULL:
        return _NULL_VAL
    what = f"operator '{symbol}'"
    x, y = _numbers(left, what), _numbers(right, what)
    with np.errstate(all="ignore"):
        result = func(x, y)
        overflow = _overflow(op, x, y, result)
    missing = _or_mask(left.missing, right.missing)
    if op in _DIVISIONS:  # by zero: missing, unless the zero is the filler of a divisor too large to compute
        missing = _or_mask(missing, _and_not(_mask(np.equal(y, 0)), right.unknown))
    inputs_unknown = _or_mask(left.unknown, right.unknown)
    if np.asarray(result).dtype.kind == "f":
        # NaN is missing (0/0, inf - inf of the data), except where an operand was already unknown: the
        # infinity there stands for a number too large to compute, so the result is unknown too
        missing = _or_mask(missing, _and_not(_mask(np.isnan(result)), inputs_unknown))
    unknown = _and_not(_or_mask(inputs_unknown, overflow), missing)
    return _Val(_NUM, result, missing, unknown)


def _overflow(op: type, x: Any, y: Any, result: Any) -> Any:
    """Rows where ``result`` is not the true value of ``x op y``: the int64 operation wrapped, or a float
    one overflowed to infinity from finite operands. Whole-column tests, no Python per row.

    * ``+``: the result's sign differs from both operands' (which agree);
    * ``-``: the operands' signs differ and the result's sign differs from ``x``'s;
    * ``*``: on the rows a float product puts near 2**63 (usually none), ``result // x != y`` (exact: a
      wrapped product is at least 2**64 away from the true one, further than one step of ``x``), and
      ``-1 * -2**63``, whose wrapped result passes that test;
    * ``//``: only ``-2**63 // -1``.  ``%`` never overflows, ``/`` computes in float64.
    """
    kinds = np.asarray(x).dtype.kind + np.asarray(y).dtype.kind
    if np.asarray(result).dtype.kind == "f":
        if op in _DIVISIONS:  # x / 0 is missing (division by zero), not an overflow
            return _mask(np.isinf(result) & np.isfinite(x) & np.isfinite(y) & (np.not_equal(y, 0)))
        return _mask(np.isinf(result) & np.isfinite(x) & np.isfinite(y))
    if kinds != "ii":
        return False
    if op is ast.Add:
        return _mask(((x ^ result) & (y ^ result)) < 0)
    if op is ast.Sub:
        return _mask(((x ^ y) & (x ^ result)) < 0)
    if op is ast.Mult:
        # integer division is slow: first a float product, exact to a factor of 1 +- 2**-52, so a true
        # |x * y| >= 2**63 shows as at least 2**62; only those rows (usually none) get the exact test
        near = _mask(np.abs(np.multiply(x, y, dtype=np.float64)) >= 2.0**62)
        if near is False:
            return False
        if near is not True:
            x, y, result = (np.broadcast_to(v, near.shape)[near] for v in (x, y, result))
        safe = np.where(np.equal(x, 0), 1, x)
        wrapped = _mask(np.not_equal(x, 0) & np.not_equal(result // safe, y)
                        | (np.equal(x, -1) & np.equal(y, _INT64_MIN)))
        if near is True or wrapped is False:
            return wrapped
        rows = np.zeros(near.shape, dtype=bool)
        rows[near] = wrapped
        return rows
    if op is ast.FloorDiv:
        return _mask(np.equal(x, _INT64_MIN) & np.equal(y, -1))
    return False


def _negative_overflow(data: Any) -> Any:
    """Rows where ``-x`` or ``abs(x)`` leaves int64: only ``x == -2**63``."""
    if np.asarray(data).dtype.kind != "i":
        return False
    return _mask(np.equal(data, _INT64_MIN))


_COMPARE: dict[type, tuple[str, Callable[[Any, Any], Any]]] = {
    ast.Eq: ("==", operator.eq),
    ast.NotEq: ("!=", operator.ne),
    ast.Lt: ("<", operator.lt),
    ast.LtE: ("<=", operator.le),
    ast.Gt: (">", operator.gt),
    ast.GtE: (">=", operator.ge),
}


def _family(kind: str) -> str:
    return _NUM if kind in (_NUM, _BOOL) else kind


def _compare(op: type, left: _Val, right: _Val) -> _Val:
    """One comparison, a boolean value: missing where either side is missing, unknown where a side is."""
    _reject_list(left)
    _reject_list(right)
    if left.kind == _NULL or right.kind == _NULL:
        return _Val(_BOOL, False, True)
    symbol, func = _COMPARE[op]
    if _ITEMS in (left.kind, right.kind):
        return _compare_items(op, symbol, left, right)
    families = {_family(left.kind), _family(right.kind)}
    if families == {_NUM, _TEXT}:
        if op is ast.Eq:
            raw: Any = False
        elif op is ast.NotEq:
            raw = True
        else:
            raise ExpressionError(f"cannot compare text with a number using '{symbol}'")
    elif op in (ast.Eq, ast.NotEq) and _coded_against_literal(left, right):
        coded, literal = (left, right) if left.codes is not None else (right, left)
        raw = _code_lookup(coded, lambda v: v == literal.data)
        if op is ast.NotEq:
            raw = np.logical_not(raw)
    else:
        with np.errstate(all="ignore"):
            raw = _as_bool(func(left.data, right.data))
    return _decided(raw, _or_mask(left.missing, right.missing), _or_mask(left.unknown, right.unknown))


def _compare_items(op: type, symbol: str, left: _Val, right: _Val) -> _Val:
    """``==`` / ``!=`` with a list column: two lists are equal when they hold the same items in the same order
    (a list of numbers never equals a list of text unless both are empty); a list and text compare the list's
    text as a message writes it (``paid_without_showing != ""`` is "paid to someone"). A list is never
    compared with a number (ask ``3 in killed_seats``) nor ordered."""
    if op not in (ast.Eq, ast.NotEq):
        raise ExpressionError(f"a list can only be compared with '==' or '!=', not '{symbol}'")
    if left.kind == _ITEMS and right.kind == _ITEMS:
        raw: Any = _items_equal(left.data, right.data)
    else:
        items, other = (left, right) if left.kind == _ITEMS else (right, left)
        if other.kind not in (_TEXT, _OTHER):
            raise ExpressionError(f"cannot compare a list with a {other.kind}; write 'x in list' to ask whether a "
                                  f"list holds x, or len(list) for its length")
        text = _items_text(items)
        return _compare(op, text, other) if items is left else _compare(op, other, text)
    if op is ast.NotEq:
        raw = np.logical_not(raw)
    return _decided(raw, _or_mask(left.missing, right.missing), _or_mask(left.unknown, right.unknown))


def _items_equal(a: _Items, b: _Items) -> np.ndarray:
    """Row by row, whether two list columns hold the same items in the same order (vectorised: lengths first,
    then the items of the rows whose lengths agree, compared in one pass)."""
    la, lb = a.lengths, b.lengths
    if len(la) != len(lb):
        raise ExpressionError(f"list columns of {len(la)} and {len(lb)} rows")
    same = la == lb
    if a.text != b.text:
        return same & (la == 0)
    rows = np.flatnonzero(same & (la > 0))
    if not len(rows):
        return same
    left, right = a.take(rows), b.take(rows)
    differ = np.asarray(left.values != right.values, dtype=bool)
    bad = np.zeros(len(la), dtype=bool)
    bad[rows[left.rows()[differ]]] = True
    return same & ~bad


def _in_items(left: _Val, right: _Val) -> Any:
    """Row by row, whether the list column ``right`` holds ``left`` (a value or a column of values): one pass
    over the items. A number is never found in a list of text, nor text in a list of numbers."""
    items = right.data
    family = _family(left.kind)
    if family not in (_NUM, _TEXT) or (family == _TEXT) != items.text:
        if family not in (_NUM, _TEXT):
            raise ExpressionError(f"'in' a list needs a number or text on the left, not {left.kind}")
        return np.zeros(len(items.lengths), dtype=bool)
    rows = items.rows()
    wanted = left.data if np.ndim(left.data) == 0 else np.asarray(left.data)[rows]
    if family == _NUM and np.asarray(wanted).dtype.kind == "b":
        wanted = np.asarray(wanted, dtype=np.int64)
    hit = np.asarray(items.values == wanted, dtype=bool)
    found = np.zeros(len(items.lengths), dtype=bool)
    found[rows[hit]] = True
    return found


def _coded_against_literal(left: _Val, right: _Val) -> bool:
    """One side a coded text column, the other one text value (a literal or a text parameter)."""
    for coded, other in ((left, right), (right, left)):
        if coded.codes is not None and other.kind == _TEXT and np.ndim(other.data) == 0:
            return True
    return False


def _isin(left: _Val, right: _Val, negate: bool) -> _Val:
    """``in`` / ``not in``, a boolean value: missing where the left operand is (``None`` never matches)."""
    import pandas as pd

    _reject_list(left)
    if right.kind == _ITEMS:
        if left.kind == _NULL:
            return _Val(_BOOL, False, True)
        if left.kind == _ITEMS:
            raise ExpressionError("a list in a list column: compare two lists with '==' or '!='")
        raw_items = _in_items(left, right)
        return _decided(np.logical_not(raw_items) if negate else raw_items, _or_mask(left.missing, right.missing),
                        _or_mask(left.unknown, right.unknown))
    if right.kind != _LIST:
        raise ExpressionError("the right operand of 'in' / 'not in' must be a list")
    if left.kind == _NULL:
        return _Val(_BOOL, False, True)
    if left.kind == _ITEMS:  # a list column among literal values: its text, as in a comparison with text
        left = _items_text(left)
    items = [v for v in right.data if v is not None and not (isinstance(v, float) and math.isnan(v))]
    data = left.data
    if np.ndim(data) == 0:
        scalar = data.item() if isinstance(data, np.generic) else data
        raw: Any = any(_same_family(scalar, item) and scalar == item for item in items)
    elif left.codes is not None:  # text never equals a number in a list
        texts = frozenset(item for item in items if isinstance(item, str))
        raw = _code_lookup(left, texts.__contains__)
    else:
        raw = pd.Series(data, copy=False).isin(items).to_numpy(dtype=bool)
    if negate:
        raw = np.logical_not(raw)
    return _decided(raw, left.missing, left.unknown)


def _same_family(a: Any, b: Any) -> bool:
    return isinstance(a, str) == isinstance(b, str)


# ---------------------------------------------------------------------------
# Functions callable from expressions
# ---------------------------------------------------------------------------


def _fn_abs(x: _Val) -> _Val:
    if x.kind == _NULL:
        return _NULL_VAL
    data = _numbers(x, "abs()")
    with np.errstate(all="ignore"):
        result = np.abs(data)
    return _Val(_NUM, result, x.missing, _and_not(_or_mask(x.unknown, _negative_overflow(data)), x.missing))


def _extreme(func: Callable[[Any, Any], Any], name: str) -> Callable[..., _Val]:
    def run(*args: _Val) -> _Val:
        if any(a.kind == _NULL for a in args):
            return _NULL_VAL
        data = reduce(func, [_numbers(a, f"{name}()") for a in args])
        missing = reduce(_or_mask, [a.missing for a in args])
        unknown = reduce(_or_mask, [a.unknown for a in args])
        return _Val(_NUM, data, missing, _and_not(unknown, missing))

    return run


def _fn_isnull(x: _Val) -> _Val:
    _reject_list(x)
    missing = x.missing
    return _Val(_BOOL, missing if missing is not False else False)


def _fn_notnull(x: _Val) -> _Val:
    return _Val(_BOOL, _as_bool(np.logical_not(_fn_isnull(x).data)))


def _fn_startswith(x: _Val, prefix: _Val) -> _Val:
    import pandas as pd

    _reject_list(x)
    if prefix.kind != _TEXT or np.ndim(prefix.data) != 0:
        raise ExpressionError("the second argument of startswith() must be a text literal")
    if x.kind == _NULL:
        return _Val(_BOOL, False, True)
    if x.kind == _ITEMS:
        x = _items_text(x)
    if x.kind not in (_TEXT, _OTHER):
        raise ExpressionError(f"startswith() needs text, not {x.kind}")
    # text is never unknown (only numbers overflow), so there is no unknown mask to carry
    if np.ndim(x.data) == 0:
        raw: Any = isinstance(x.data, str) and x.data.startswith(prefix.data)
    elif x.codes is not None:
        raw = _code_lookup(x, lambda v: v.startswith(prefix.data))
    else:
        series = pd.Series(x.data, dtype=object, copy=False)
        raw = series.str.startswith(prefix.data, na=False).to_numpy(dtype=bool)
    return _decided(raw, x.missing, False)


def _fn_len(x: _Val) -> _Val:
    if x.kind == _NULL:
        return _NULL_VAL
    if x.kind != _ITEMS:
        raise ExpressionError(f"len() needs a list column, not {x.kind}")
    return _Val(_NUM, x.data.lengths, x.missing)


#: name -> (implementation, minimum number of arguments, maximum or None)
FUNCTIONS: dict[str, tuple[Callable[..., _Val], int, int | None]] = {
    "abs": (_fn_abs, 1, 1),
    "min": (_extreme(np.minimum, "min"), 2, None),
    "max": (_extreme(np.maximum, "max"), 2, None),
    "isnull": (_fn_isnull, 1, 1),
    "notnull": (_fn_notnull, 1, 1),
    "startswith": (_fn_startswith, 2, 2),
    "len": (_fn_len, 1, 1),
}


# ---------------------------------------------------------------------------
# Compilation
# ---------------------------------------------------------------------------

_Fn = Callable[[_Env], _Val]

_REFUSED_NODES: dict[type, str] = {
    ast.Attribute: "attribute access is not allowed",
    ast.Subscript: "indexing / subscripts ([...]) are not allowed",
    ast.Slice: "slices are not allowed",
    ast.Lambda: "lambda is not allowed",
    ast.ListComp: "comprehensions are not allowed",
    ast.SetComp: "comprehensions are not allowed",
    ast.DictComp: "comprehensions are not allowed",
    ast.GeneratorExp: "generator expressions are not allowed",
    ast.Dict: "dict literals are not allowed",
    ast.Set: "set literals are not allowed; write a list [...] on the right of 'in'",
    ast.Starred: "starred expressions (*x) are not allowed",
    ast.JoinedStr: "f-strings are not allowed",
    ast.FormattedValue: "f-strings are not allowed",
    ast.NamedExpr: "assignment expressions (:=) are not allowed",
    ast.IfExp: "conditional expressions (x if c else y) are not allowed",
    ast.Await: "await is not allowed",
    ast.Yield: "yield is not allowed",
    ast.YieldFrom: "yield is not allowed",
    ast.List: "list literals are only allowed as the right operand of 'in' / 'not in'",
    ast.Tuple: "tuple literals are only allowed as the right operand of 'in' / 'not in'",
}


def _check_size(root: ast.AST) -> None:
    """Enforce the node-count and nesting limits without recursion."""
    count = 0
    stack: list[tuple[ast.AST, int]] = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, ast.expr):
            count += 1
            if count > MAX_NODES:
                raise ExpressionError(f"expression is too complex (more than {MAX_NODES} nodes)")
            if depth > MAX_DEPTH:
                raise ExpressionError(f"expression is nested too deeply (more than {MAX_DEPTH} levels)")
        child_depth = depth + 1 if isinstance(node, ast.expr) else depth
        stack.extend((child, child_depth) for child in ast.iter_child_nodes(node))


def _literal(node: ast.expr, *, in_list: bool) -> Any:
    """Validate a literal and return its Python value."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd) and in_list:
        operand = node.operand
        if isinstance(operand, ast.Constant) and type(operand.value) in (int, float):
            value = _literal(operand, in_list=True)
            return -value if isinstance(node.op, ast.USub) else value
        raise ExpressionError("list items must be literal values")
    if not isinstance(node, ast.Constant):
        if in_list:
            raise ExpressionError("list items must be literal values")
        raise ExpressionError(_REFUSED_NODES.get(type(node), f"{type(node).__name__} is not allowed"))
    value = node.value
    if value is None:
        if in_list:
            raise ExpressionError("None in a list never matches; use isnull(x)")
        return None
    if isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        if abs(value) > MAX_INT_LITERAL:
            raise ExpressionError(f"integer literal out of range (limit is 10**{len(str(MAX_INT_LITERAL)) - 1})")
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ExpressionError("float literal out of range")
        return value
    if isinstance(value, bytes):
        raise ExpressionError("bytes literals are not allowed")
    if isinstance(value, complex):
        raise ExpressionError("complex numbers are not allowed")
    if value is Ellipsis:
        raise ExpressionError("'...' is not allowed")
    raise ExpressionError(f"constant of type {type(value).__name__} is not allowed")


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


class _Compiler:
    def __init__(self) -> None:
        self.names: set[str] = set()

    def compile(self, node: ast.expr) -> _Fn:
        handler = self._HANDLERS.get(type(node))
        if isinstance(node, ast.Attribute):
            raise ExpressionError(f"attribute access ('.{_one_line(node.attr, 40)}') is not allowed")
        if handler is None:
            raise ExpressionError(_REFUSED_NODES.get(type(node), f"{type(node).__name__} is not allowed"))
        return handler(self, node)

    def _name(self, node: ast.Name) -> _Fn:
        name = node.id
        if not _NAME_RE.fullmatch(name):
            raise ExpressionError(
                f"name {_show(name)} is not allowed (names must be lowercase letters, digits and "
                "underscores, starting with a letter)"
            )
        self.names.add(name)

        def run(env: _Env) -> _Val:
            return env.lookup(name)

        return run

    def _constant(self, node: ast.Constant) -> _Fn:
        value = _scalar_value(_literal(node, in_list=False), "literal")

        def run(env: _Env) -> _Val:
            return value

        return run

    def _list_literal(self, node: ast.List | ast.Tuple) -> _Fn:
        value = _Val(_LIST, tuple(_literal(item, in_list=True) for item in node.elts))

        def run(env: _Env) -> _Val:
            return value

        return run

    def _boolop(self, node: ast.BoolOp) -> _Fn:
        parts = [self.compile(v) for v in node.values]
        conjunction = isinstance(node.op, ast.And)

        def run(env: _Env) -> _Val:
            return _kleene([_truth(part(env)) for part in parts], conjunction)

        return run

    def _unaryop(self, node: ast.UnaryOp) -> _Fn:
        op = node.op
        if isinstance(op, ast.Invert):
            raise ExpressionError("operator '~' is not allowed; use 'not'")
        operand = self.compile(node.operand)
        if isinstance(op, ast.Not):

            def run_not(env: _Env) -> _Val:
                value = _truth(operand(env))
                return _decided(np.logical_not(value.data), value.missing, value.unknown)

            return run_not
        negate = isinstance(op, ast.USub)
        symbol = "-" if negate else "+"

        def run_sign(env: _Env) -> _Val:
            value = operand(env)
            if value.kind == _NULL:
                return _NULL_VAL
            data = _numbers(value, f"unary '{symbol}'")
            unknown = value.unknown
            if negate:
                unknown = _and_not(_or_mask(unknown, _negative_overflow(data)), value.missing)
                with np.errstate(all="ignore"):
                    data = np.negative(data)
            return _Val(_NUM, data, value.missing, unknown)

        return run_sign

    def _binop(self, node: ast.BinOp) -> _Fn:
        op = type(node.op)
        if op not in _BINOPS:
            raise ExpressionError(_REFUSED_BINOPS.get(op, f"operator {op.__name__} is not allowed"))
        left, right = self.compile(node.left), self.compile(node.right)

        def run(env: _Env) -> _Val:
            return _arith(op, left(env), right(env))

        return run

    def _compare(self, node: ast.Compare) -> _Fn:
        ops = [type(op) for op in node.ops]
        operands = [node.left, *node.comparators]
        for op in ops:
            if op in (ast.Is, ast.IsNot):
                raise ExpressionError("'is' is not allowed; use isnull(x) / notnull(x) or ==")
        fns: list[_Fn] = []
        for index, operand in enumerate(operands):
            after_in = index > 0 and ops[index - 1] in (ast.In, ast.NotIn)
            if isinstance(operand, ast.List | ast.Tuple):
                if not after_in or index != len(ops):
                    raise ExpressionError(_REFUSED_NODES[type(operand)])
                fns.append(self._list_literal(operand))
                continue
            if after_in and not isinstance(operand, ast.Name):
                raise ExpressionError(
                    "the right operand of 'in' / 'not in' must be a list literal such as "
                    '["a", "b"] or a list parameter'
                )
            if _is_none(operand):
                raise ExpressionError("comparison with None is always false; use isnull(x) / notnull(x)")
            fns.append(self.compile(operand))

        def run(env: _Env) -> _Val:
            values = [fn(env) for fn in fns]
            links = []
            for index, op in enumerate(ops):
                left, right = values[index], values[index + 1]
                if op is ast.In or op is ast.NotIn:
                    links.append(_isin(left, right, negate=op is ast.NotIn))
                else:
                    links.append(_compare(op, left, right))
            return links[0] if len(links) == 1 else _kleene(links, conjunction=True)

        return run

    def _call(self, node: ast.Call) -> _Fn:
        func = node.func
        if isinstance(func, ast.Attribute):
            raise ExpressionError(
                f"attribute access ('.{_one_line(func.attr, 40)}') is not allowed; methods cannot be called"
            )
        if not isinstance(func, ast.Name):
            raise ExpressionError("only the functions abs, min, max, isnull, notnull, startswith and len can be "
                                  "called")
        name = func.id
        if name not in FUNCTIONS:
            raise ExpressionError(f"call of {_show(name)} is not allowed")
        if node.keywords:
            raise ExpressionError(f"keyword arguments are not allowed (in call of '{name}')")
        impl, min_args, max_args = FUNCTIONS[name]
        count = len(node.args)
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                raise ExpressionError(_REFUSED_NODES[ast.Starred])
        if count < min_args or (max_args is not None and count > max_args):
            expected = str(min_args) if min_args == max_args else f"at least {min_args}"
            raise ExpressionError(f"{name}() takes {expected} argument(s), got {count}")
        if name == "startswith":
            prefix = node.args[1]
            if not (isinstance(prefix, ast.Constant) and isinstance(prefix.value, str)):
                raise ExpressionError("the second argument of startswith() must be a text literal")
        args = [self.compile(arg) for arg in node.args]

        def run(env: _Env) -> _Val:
            return impl(*(arg(env) for arg in args))

        return run

    _HANDLERS: ClassVar[dict[type, Callable[[_Compiler, Any], _Fn]]] = {
        ast.Name: _name,
        ast.Constant: _constant,
        ast.BoolOp: _boolop,
        ast.UnaryOp: _unaryop,
        ast.BinOp: _binop,
        ast.Compare: _compare,
        ast.Call: _call,
    }


@dataclass(frozen=True)
class Expression:
    """A compiled, validated predicate.  Build with :func:`compile_expression`."""

    text: str
    names: frozenset[str]
    _root: _Fn = field(repr=False, compare=False)

    def check_names(self, known: Iterable[str]) -> None:
        """Raise :class:`ExpressionError` if the expression uses names not in ``known``."""
        unknown = sorted(self.names - set(known))
        if unknown:
            listed = ", ".join(_show(n) for n in unknown[:10])
            more = f" and {len(unknown) - 10} more" if len(unknown) > 10 else ""
            noun = "name" if len(unknown) == 1 else "names"
            raise ExpressionError(f"unknown {noun} {listed}{more}")

    def evaluate(
        self,
        columns: Mapping[str, pd.Series | np.ndarray | Column],
        parameters: Mapping[str, object],
        length: int,
    ) -> np.ndarray:
        """Evaluate over whole columns; returns a fresh boolean array of ``length``: True where the
        predicate is known to hold.

        ``columns`` may be a DataFrame or any mapping of name -> Series/array/:class:`Column`. Rows
        where the predicate is missing or not assessable (see the module docstring) are False here;
        callers that judge rows must use :meth:`judge`, which tells the three outcomes apart.
        """
        return self.judge(columns, parameters, length)[0]

    def assess(
        self,
        columns: Mapping[str, pd.Series | np.ndarray | Column],
        parameters: Mapping[str, object],
        length: int,
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(holds, overflowed)``: :meth:`judge` without the missing mask (kept for callers that only
        ask about overflow; a missing row is False in both)."""
        holds, _, overflowed = self.judge(columns, parameters, length)
        return holds, overflowed

    def judge(
        self,
        columns: Mapping[str, pd.Series | np.ndarray | Column],
        parameters: Mapping[str, object],
        length: int,
        *,
        positions: bool = False,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Evaluate over whole columns in three-valued logic: ``(holds, missing, overflowed)``.

        Three fresh boolean arrays of ``length``, pairwise disjoint. ``missing`` flags the rows whose
        outcome depends on a missing value (SQL's NULL: a missing operand of a comparison, arithmetic or
        condition, division by zero), ``overflowed`` those whose outcome depends on arithmetic that
        left int64 (see the module docstring). A row is exactly one of: holds, does not hold, missing,
        overflowed; a check counts the last two as *not assessable*.

        With ``positions=True`` each outcome is the sorted int64 array of its row positions instead
        (what a check needs: the few violating or undecided rows, without a full mask to scan).
        """
        length = operator.index(length)
        if length < 0:
            raise ValueError("length must not be negative")
        env = _Env(columns, parameters if parameters is not None else {}, length)
        try:
            value = _truth(self._root(env))
        except ExpressionError:
            raise
        except (TypeError, ValueError, ArithmeticError) as exc:
            raise ExpressionError(f"cannot evaluate {_one_line(self.text, 200)!r}: {exc}") from exc
        if positions:
            return _where(value.data, length), _where(value.missing, length), _where(value.unknown, length)
        return _full(value.data, length), _full(value.missing, length), _full(value.unknown, length)


@dataclass(frozen=True, slots=True, eq=False)
class Column:
    """One column converted once to the arrays expressions compute with (values, missing mask, and
    the rows whose value does not fit int64), so that the rules of a batch reading the same fact do
    not each convert the pandas column again. Build with :func:`prepare_column`; ``take`` selects rows
    by position with NumPy indexing (no pandas on the hot path)."""

    _value: _Val = field(repr=False)
    length: int

    def take(self, positions: np.ndarray) -> Column:
        """The rows at ``positions`` (an int64 array of valid positions, checked by the caller)."""
        value = self._value
        codes = None if value.codes is None else (value.codes[0][positions], value.codes[1])
        data = value.data.take(positions) if value.kind == _ITEMS else _rows(value.data, positions)
        return Column(_Val(value.kind, data, _take_mask(value.missing, positions),
                           _take_mask(value.unknown, positions), codes), len(positions))

    def missing(self) -> np.ndarray:
        """A fresh boolean array: the rows where the value is missing."""
        return _full(self._value.missing, self.length)


def _rows(data: Any, positions: np.ndarray) -> Any:
    return data if np.ndim(data) == 0 else data[positions]


def _take_mask(mask: Any, positions: np.ndarray) -> Any:
    return mask if np.ndim(mask) == 0 else _mask(mask[positions])


def prepare_column(name: str, obj: pd.Series | np.ndarray, length: int) -> Column:
    """Convert one facts column (a Series or 1-D array of ``length``) for repeated evaluation."""
    return Column(_series_value(_as_series(name, obj, length), name), length)


def _where(mask: Any, length: int) -> np.ndarray:
    """The positions where a scalar or array condition of ``length`` rows holds."""
    if np.ndim(mask) == 0:
        return np.arange(length, dtype=np.int64) if mask else np.zeros(0, dtype=np.int64)
    if np.shape(mask) != (length,):
        raise ExpressionError(f"result has shape {np.shape(mask)}, expected ({length},)")
    return np.flatnonzero(mask).astype(np.int64, copy=False)


def _full(mask: Any, length: int) -> np.ndarray:
    """A scalar or array condition as a fresh boolean array of ``length``."""
    if np.ndim(mask) == 0:
        return np.full(length, bool(mask), dtype=bool)
    result = np.array(mask, dtype=bool, copy=True)
    if result.shape != (length,):
        raise ExpressionError(f"result has shape {result.shape}, expected ({length},)")
    return result


def compile_expression(text: str) -> Expression:
    """Validate and compile predicate ``text``; raises :class:`ExpressionError`."""
    if not isinstance(text, str):
        raise ExpressionError(f"expression must be text, not {type(text).__name__}")
    if len(text) > MAX_TEXT_LENGTH:
        raise ExpressionError(f"expression is too long ({len(text)} characters; the limit is {MAX_TEXT_LENGTH})")
    source = text.strip()
    if not source:
        raise ExpressionError("expression is empty")
    lead = len(text) - len(text.lstrip())
    try:
        # Python only warns about `3and` or `0x1for` (a number run into a word), on stderr, and reads
        # them anyway; a rule's text must say exactly one thing, so they are syntax errors here.
        with warnings.catch_warnings():
            warnings.simplefilter("error", SyntaxWarning)
            tree = ast.parse(source, mode="eval")
    except SyntaxError as exc:
        line = exc.lineno or 1
        lines = source.splitlines() or [""]
        offset = exc.offset or 0
        if offset <= 0:  # reported at the end of the input
            line = min(line, len(lines))
            offset = len(lines[line - 1]) + 1
        where = f"column {offset + lead}" if line == 1 else f"line {line} column {offset}"
        raise ExpressionError(f"syntax error at {where}: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise ExpressionError(f"expression cannot be parsed ({type(exc).__name__})") from None
    _check_size(tree.body)
    compiler = _Compiler()
    root = compiler.compile(tree.body)
    return Expression(text=text, names=frozenset(compiler.names), _root=root)


# ---------------------------------------------------------------------------
# Message templates
# ---------------------------------------------------------------------------

_TEMPLATE_TOKEN = re.compile(r"\{\{|\}\}|\{([a-z][a-z0-9_]*)\}|\{|\}|[^{}]+")


def _placeholder_refusal(rest: str) -> str:
    close = rest.find("}")
    if close < 0:
        return "unclosed '{' in template; write '{{' for a literal brace"
    body = rest[1:close]
    if not body:
        return "empty placeholder '{}' is not allowed; write '{{}}' for literal braces"
    for char in body:
        if char == ".":
            return "attribute access is not allowed in template placeholders"
        if char == "[":
            return "indexing is not allowed in template placeholders"
        if char == "!":
            return "conversions (!r, !s, !a) are not allowed in template placeholders"
        if char == ":":
            return "format specs are not allowed in template placeholders"
    return f"invalid placeholder {_show(body)}; use {{name}} with a lowercase name"


@dataclass(frozen=True)
class Template:
    """A compiled message template.  Build with :func:`compile_template`."""

    text: str
    names: frozenset[str]
    #: literal text (str) alternating with placeholder names (wrapped in a 1-tuple)
    _parts: tuple[str | tuple[str], ...] = field(repr=False, compare=False)

    def check_names(self, known: Iterable[str]) -> None:
        """Raise :class:`ExpressionError` if the template uses names not in ``known``."""
        unknown = sorted(self.names - set(known))
        if unknown:
            noun = "name" if len(unknown) == 1 else "names"
            raise ExpressionError(f"unknown {noun} " + ", ".join(_show(n) for n in unknown[:10]))

    def render(
        self,
        columns: Mapping[str, pd.Series | np.ndarray],
        parameters: Mapping[str, object],
        length: int,
    ) -> list[str]:
        """Render one message per row.  Values are inserted verbatim as text."""
        length = operator.index(length)
        if length < 0:
            raise ValueError("length must not be negative")
        parameters = parameters if parameters is not None else {}
        pieces: list[str | np.ndarray] = []
        cache: dict[str, str | np.ndarray] = {}
        for part in self._parts:
            if isinstance(part, str):
                piece: str | np.ndarray = part
            else:
                name = part[0]
                if name not in cache:
                    cache[name] = _text_of(name, columns, parameters, length)
                piece = cache[name]
            if pieces and isinstance(piece, str) and isinstance(pieces[-1], str):
                pieces[-1] = pieces[-1] + piece
            else:
                pieces.append(piece)
        if all(isinstance(p, str) for p in pieces):
            return ["".join(pieces)] * length  # type: ignore[arg-type]
        out = np.full(length, "", dtype=object)
        for piece in pieces:
            np.add(out, piece, out=out)
        return out.tolist()


def _text_of(name: str, columns: Mapping[str, Any], parameters: Mapping[str, Any], length: int) -> str | np.ndarray:
    if name in columns:
        return _column_text(_as_series(name, columns[name], length), name)
    if name in parameters:
        return _parameter_text(name, parameters[name])
    raise ExpressionError(f"unknown name {_show(name)}")


def _float_text(data: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        integral = np.isfinite(data) & (np.mod(data, 1) == 0) & (np.abs(data) < 2**53)
    out = np.where(integral, data, 0).astype(np.int64).astype(str).astype(object)
    other = ~integral
    if other.any():
        out[other] = data[other].astype(str)
    return out


def _column_text(series: pd.Series, name: str | None = None) -> np.ndarray:
    import pandas as pd

    from auditor.replay.fact_frames import is_list, list_text

    missing = series.isna().to_numpy(dtype=bool)
    dtype = series.dtype
    if is_list(series):  # a list as messages write it: its items joined by the fact's separator ("1,3")
        joined = list_text(series, LIST_SEPARATORS.get(name or "", ","))
        out = np.asarray(joined.to_numpy(zero_copy_only=False), dtype=object)
    elif pd.api.types.is_float_dtype(dtype):
        out = _float_text(series.to_numpy(dtype=np.float64, na_value=np.nan))
    elif isinstance(dtype, np.dtype) and dtype.kind == "b":
        out = np.where(series.to_numpy(), "True", "False").astype(object)
    else:
        out = np.asarray(series.astype(str).to_numpy(dtype=object), dtype=object)
    if missing.any():
        out = np.where(missing, MISSING_TEXT, out).astype(object)
    return out


def _parameter_text(name: str, value: Any) -> str:
    if isinstance(value, list | tuple | set | frozenset):
        return ", ".join(_parameter_text(name, item) for item in value)
    if isinstance(value, np.generic):
        value = value.item()
    if value is None:
        return MISSING_TEXT
    if isinstance(value, float):
        if math.isnan(value):
            return MISSING_TEXT
        if value.is_integer() and abs(value) < 2**53:
            return str(int(value))
        return repr(value)
    if isinstance(value, bool | int | str):
        return str(value)
    raise ExpressionError(f"parameter {_show(name)} has unsupported type {type(value).__name__}")


def compile_template(text: str) -> Template:
    """Validate a message template with ``{name}`` placeholders only.

    Literal braces are written ``{{`` and ``}}``.  Format specs, conversions,
    attribute access and indexing inside braces are refused.
    """
    if not isinstance(text, str):
        raise ExpressionError(f"template must be text, not {type(text).__name__}")
    if len(text) > MAX_TEMPLATE_LENGTH:
        raise ExpressionError(f"template is too long ({len(text)} characters; the limit is {MAX_TEMPLATE_LENGTH})")
    parts: list[str | tuple[str]] = []
    names: set[str] = set()
    literal: list[str] = []
    for match in _TEMPLATE_TOKEN.finditer(text):
        token = match.group(0)
        if match.group(1) is not None:
            if literal:
                parts.append("".join(literal))
                literal = []
            parts.append((match.group(1),))
            names.add(match.group(1))
        elif token == "{{":
            literal.append("{")
        elif token == "}}":
            literal.append("}")
        elif token == "{":
            raise ExpressionError(_placeholder_refusal(text[match.start() :]))
        elif token == "}":
            raise ExpressionError("single '}' in template; write '}}' for a literal brace")
        else:
            literal.append(token)
    if literal:
        parts.append("".join(literal))
    return Template(text=text, names=frozenset(names), _parts=tuple(parts))
