"""Findings for machines: one JSON object per line, the columns of the findings table."""

from __future__ import annotations

import json
from typing import TextIO

import pandas as pd

from auditor.model.results import AuditResult


def plain(value: object) -> object:
    """A cell as a JSON value: pandas NA and NaN become null, NumPy scalars Python numbers."""
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return None
    if hasattr(value, "item"):
        return value.item()
    return value


def write_jsonl(result: AuditResult, out: TextIO) -> None:
    columns = list(result.findings.columns)
    for values in result.findings.itertuples(index=False, name=None):
        out.write(json.dumps({c: plain(v) for c, v in zip(columns, values, strict=True)}, ensure_ascii=False))
        out.write("\n")
