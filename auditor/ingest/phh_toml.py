"""TOML parsing for PHH: a fast path for the flat, one-line-per-field files PHH writers produce.

Parsing TOML was a quarter of an audit of the PHH corpus: `tomllib` is a general, pure-Python parser,
and almost every PHH file is a list of `key = value` lines whose values are integers, booleans,
quoted strings without escapes, or one-line arrays of those. `loads` reads such text with a handful
of regular expressions and hands anything else (comments, tables, multi-line arrays, escapes, dates,
hex or underscored numbers, repeated keys, any control character...) to `tomllib` unchanged, so the
result is always what `tomllib.loads` returns, or its error. `tests/test_phh_toml.py` holds the two
to that on the corpus and on mutated files.

The PHH reader's `.phh` files go through the compiled byte scanner (`phh_scan`, the same subset, held to
the same property) first; this module reads what it leaves, and every `.phhs` table.
"""

from __future__ import annotations

import re
import tomllib
from typing import Any

# A value the fast path reads. Strings exclude what TOML forbids or escapes (control characters,
# DEL, the quote itself, and backslash in basic strings); numbers are plain decimal, without a
# leading zero, sign "+", underscores or exponent, and short (longer ones go to tomllib, which says
# what it says about 5,000-digit integers), so `int()`/`float()` read them exactly as TOML does.
_STRING = r"'[^'\x00-\x08\x0a-\x1f\x7f]*'|\"[^\"\\\x00-\x08\x0a-\x1f\x7f]*\""
_NUMBER = r"-?(?:0|[1-9][0-9]{0,17})(?:\.[0-9]{1,17})?(?![0-9.eE_xob:\-+])"
_SCALAR = rf"(?:{_STRING}|{_NUMBER}|true|false)"
_LINE = re.compile(
    rf"([A-Za-z0-9_-]+)[ \t]*=[ \t]*({_SCALAR}|\[[ \t]*(?:{_SCALAR}[ \t]*,[ \t]*)*(?:{_SCALAR}[ \t]*,?[ \t]*)?\])[ \t]*"
)
_ITEM = re.compile(rf"{_SCALAR}")


def loads(text: str) -> dict[str, Any]:
    """`tomllib.loads(text)`, faster for the common PHH shape; raises what `tomllib` raises."""
    fields = _flat(text)
    return fields if fields is not None else tomllib.loads(text)


def _flat(text: str) -> dict[str, Any] | None:
    """The fields of `text` if every line is blank or one `key = value` the fast path reads, else None."""
    fields: dict[str, Any] = {}
    match = _LINE.fullmatch
    lines = text.split("\n")
    last = len(lines) - 1
    for number, line in enumerate(lines):
        if number < last and line.endswith("\r"):  # CRLF; a carriage return alone is not a line end in TOML
            line = line[:-1]
        if not line.strip(" \t"):
            continue
        m = match(line)
        if m is None:
            return None
        key, raw = m.groups()
        if key in fields:
            return None  # tomllib's error for a repeated key
        fields[key] = _value(raw) if raw[0] != "[" else [_value(item) for item in _ITEM.findall(raw)]
    return fields


def _value(raw: str) -> Any:
    first = raw[0]
    if first == "'" or first == '"':
        return raw[1:-1]
    if raw == "true":
        return True
    if raw == "false":
        return False
    return float(raw) if "." in raw else int(raw)
