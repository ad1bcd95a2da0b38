"""Findings as CSV, one row per finding, safe to open in a spreadsheet.

Log text is attacker-controlled and spreadsheets execute cells that look like formulas
(`=HYPERLINK(...)`, `+cmd|...`, `@SUM(...)`): every text cell that starts like one is prefixed with a
single quote, which spreadsheets show as text (the OWASP "CSV injection" advice). Control characters
and terminal escapes are dropped, as in every report.
"""

from __future__ import annotations

import csv
from typing import TextIO

import pandas as pd

from auditor.model.results import AuditResult
from auditor.report.text import strip_control

#: first characters a spreadsheet reads as the start of a formula (tab and CR are read through); the
#: full-width forms too, which some spreadsheets fold to the plain ones
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
#: characters before a formula that a spreadsheet may skip: every kind of white space (line breaks, the
#: non-breaking and other Unicode spaces: str.isspace) and the invisible format characters (zero-width
#: spaces and joiners, word joiner, byte-order mark, Mongolian vowel separator)
_INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff\u180e\u00ad"


def neutralise(value: object) -> object:
    """A cell value that no spreadsheet evaluates; numbers and empty cells pass through unchanged."""
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return ""
    if not isinstance(value, str):
        return value.item() if hasattr(value, "item") else value
    text = strip_control(value)
    # a formula may also hide behind leading blanks, a line break or a non-breaking space, which some
    # spreadsheets skip
    if text.startswith(FORMULA_STARTS) or _lstrip_blank(text).startswith(FORMULA_STARTS):
        return "'" + text
    return text


def _lstrip_blank(text: str) -> str:
    """`text` without what may come before a formula unseen: white space of any kind and invisible characters."""
    start = 0
    while start < len(text) and (text[start].isspace() or text[start] in _INVISIBLE):
        start += 1
    return text[start:]


def write_csv(result: AuditResult, out: TextIO) -> None:
    """The findings table with a header row; the stream should be opened with newline=''."""
    writer = csv.writer(out, lineterminator="\r\n")
    columns = list(result.findings.columns)
    writer.writerow(columns)
    for values in result.findings.itertuples(index=False, name=None):
        writer.writerow([neutralise(v) for v in values])
