"""Findings as a Parquet file: the findings table with its column types, for analysis in bulk.

The run's summary (what was not audited first, then inputs, packs, hands read = audited + not covered
+ quarantined, quarantines by code) rides in the file's schema metadata under `poker-auditor`, so a
table read back still says what it is a result of, and what it is not. The evidence manifest
(`report.manifest`: inputs with their SHA-256, packs with their digests, tool, times, command line,
period of play) rides beside it under `poker-auditor-manifest`.
"""

from __future__ import annotations

import json
from typing import BinaryIO

import pyarrow as pa
import pyarrow.parquet as pq

from auditor.model.results import AuditResult
from auditor.report.json_report import summary
from auditor.report.manifest import manifest_dict

#: the schema metadata keys: the run's summary, and its evidence manifest
SUMMARY_KEY = b"poker-auditor"
MANIFEST_KEY = b"poker-auditor-manifest"


def write_parquet_report(result: AuditResult, out: BinaryIO) -> None:
    table = pa.Table.from_pandas(result.findings, preserve_index=False)
    metadata = dict(table.schema.metadata or {})
    metadata[SUMMARY_KEY] = json.dumps(summary(result)).encode("utf-8")
    metadata[MANIFEST_KEY] = json.dumps(manifest_dict(result), ensure_ascii=True).encode("ascii")
    pq.write_table(table.replace_schema_metadata(metadata), out)
