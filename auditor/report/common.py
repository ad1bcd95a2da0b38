"""What several report formats need: the tool's version, rule lookup, rows as JSON values."""

from __future__ import annotations

from typing import Any

import pandas as pd

from auditor.check.packs import Rule
from auditor.model.results import AuditResult
from auditor.report.jsonl import plain
from auditor.resources import package_version


def tool_version() -> str:
    """The version reports name as their generator (`auditor.resources.package_version`, one lookup per process)."""
    return package_version()


def rules_by_id(result: AuditResult) -> dict[tuple[str, str], Rule]:
    """Every rule of the packs the run used, by (pack name, rule id): findings and coverage name both."""
    return {(pack.name, rule.id): rule for pack in result.packs.values() for rule in pack.rules}


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows as plain JSON values (pandas NA and NumPy scalars become null and Python numbers)."""
    columns = list(frame.columns)
    return [{c: plain(v) for c, v in zip(columns, values, strict=True)}
            for values in frame.itertuples(index=False, name=None)]
