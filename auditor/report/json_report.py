"""The whole run as one JSON document: summary, findings, coverage, quarantine and per-file counts.

For machines that want one object rather than a stream (JSON Lines): everything the console summary
says, with the numbers that must reconcile (hands read = audited + quarantined, overall and per file)
stated as numbers, not prose.
"""

from __future__ import annotations

import json
from typing import Any, TextIO

from auditor.pipeline import AuditResult
from auditor.report.common import records, rules_by_id, tool_version


def summary(result: AuditResult) -> dict[str, Any]:
    findings = result.findings
    by_severity = findings["severity"].value_counts().to_dict() if len(findings) else {}
    by_category = findings["category"].value_counts().to_dict() if len(findings) else {}
    return {
        "tool": {"name": "poker-auditor", "version": tool_version()},
        "inputs": [item.name or item.path.as_posix() for item in result.inputs],
        "packs": [{"name": p.name, "version": p.version, "title": p.title, "rules": len(p.rules)}
                  for p in result.packs.values()],
        "hands_read": result.hands_read,
        "hands_audited": result.hands_audited,
        "hands_quarantined": result.hands_quarantined,
        "skipped_files": [p.as_posix() for p in result.skipped_files],
        "findings": len(findings),
        "findings_by_severity": {str(k): int(v) for k, v in by_severity.items()},
        "findings_by_category": {str(k): int(v) for k, v in by_category.items()},
        "seconds": round(result.seconds, 3),
    }


def document(result: AuditResult) -> dict[str, Any]:
    rules = rules_by_id(result)
    return {
        "summary": summary(result),
        "findings": records(result.findings),
        "coverage": [{**row, "title": rules[row["pack"], row["rule_id"]].title,
                      "citation": rules[row["pack"], row["rule_id"]].citation}
                     if (row["pack"], row["rule_id"]) in rules else row for row in records(result.coverage)],
        "quarantined": [{"file": q.file, "line": q.line, "hand_id": q.hand_id, "reason": q.reason}
                        for q in result.quarantined],
        "files": records(result.per_file()),
    }


def write_json(result: AuditResult, out: TextIO) -> None:
    # ensure_ascii: C1 controls and other odd code points in log text are escaped too, never written raw
    json.dump(document(result), out, ensure_ascii=True, indent=1)
    out.write("\n")
