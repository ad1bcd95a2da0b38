"""Findings as a Parquet file: the findings table with its column types, for analysis in bulk.

The run's summary (what was not audited first, then inputs, packs, hands read = audited + not covered
+ quarantined, quarantines by code) rides in the file's schema metadata under `poker-auditor`, so a
table read back still says what it is a result of, and what it is not.
"""

from __future__ import annotations

import json
from typing import BinaryIO

import pyarrow as pa
import pyarrow.parquet as pq

from auditor.pipeline import AuditResult
from auditor.report.json_report import summary


def write_parquet_report(result: AuditResult, out: BinaryIO) -> None:
    table = pa.Table.from_pandas(result.findings, preserve_index=False)
    metadata = dict(table.schema.metadata or {})
    metadata[b"poker-auditor"] = json.dumps(summary(result)).encode("utf-8")
    pq.write_table(table.replace_schema_metadata(metadata), out)
