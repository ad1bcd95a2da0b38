"""The whole run as one JSON document: summary, findings, coverage, quarantine and per-file counts.

For machines that want one object rather than a stream (JSON Lines): everything the console summary
says, with the numbers that must reconcile (hands read = audited + not covered + quarantined, overall
and per file) stated as numbers, not prose. What was *not* audited comes first (`summary.not_audited`):
quarantined hands by code, hands not covered by pack and game, skipped hand-history files with their
format, rules partly assessed; then the verdict. `manifest` is the run's evidence record
(`report.manifest`: inputs with their SHA-256 and hand counts, packs with their digests, tool, times,
command line, period of play), the same object `audit --manifest FILE` writes alone.
"""

from __future__ import annotations

import json
from typing import Any, TextIO

from auditor.model.inputs import shown_text
from auditor.model.results import MAX_FINDINGS_PER_HAND_RULE, AuditResult
from auditor.report.common import records, rules_by_id, tool_version
from auditor.report.manifest import manifest_dict


def not_audited(result: AuditResult) -> dict[str, Any]:
    """What the run did not audit, as numbers: the first thing the document says."""
    return {
        "any": result.unaudited,
        "hands_quarantined": result.hands_quarantined,
        "quarantined_by_code": result.quarantined_by_code(),
        "hands_not_covered": result.hands_not_covered,
        "not_covered": [{"pack": pack, "variant": variant, "structure": structure, "hands": count}
                        for (pack, variant, structure), count in sorted(result.not_covered.items())],
        "skipped_hand_histories": [{"file": shown_text(path.as_posix()), "format": known}
                                   for path, known in result.skipped_hand_histories.items()],
        "skipped_documents": [{"file": shown_text(path.as_posix()), "what": known}
                              for path, known in result.skipped_documents.items()],
        "rules_partly_assessed": [{"pack": r.pack, "rule_id": r.rule_id, "hands_in_scope": int(r.hands_in_scope),
                                   "hands_not_assessable": int(r.hands_not_assessable)}
                                  for r in result.partly_assessed().itertuples(index=False)],
    }


def summary(result: AuditResult) -> dict[str, Any]:
    findings = result.findings
    by_severity = findings["severity"].value_counts().to_dict() if len(findings) else {}
    by_category = findings["category"].value_counts().to_dict() if len(findings) else {}
    return {
        "not_audited": not_audited(result),
        "tool": {"name": "poker-auditor", "version": tool_version()},
        "inputs": [item.name or item.path.as_posix() for item in result.inputs],
        "packs": [{"name": p.name, "version": p.version, "title": p.title, "rules": len(p.rules)}
                  for p in result.packs.values()],
        "hands_read": result.hands_read,
        "hands_audited": result.hands_audited,
        "hands_not_covered": result.hands_not_covered,
        "hands_quarantined": result.hands_quarantined,
        "quarantined_by_code": result.quarantined_by_code(),
        "skipped_files": [shown_text(p.as_posix()) for p in result.skipped_files],
        "notes": [{"file": note.file, "line": note.line, "code": note.code, "text": note.text}
                  for note in result.notes],
        "findings": len(findings),
        # findings beyond the per-hand cap of one rule (MAX_FINDINGS_PER_HAND_RULE): counted, not listed
        "findings_not_listed": sum(result.findings_not_listed.values()),
        "findings_not_listed_by_rule": [{"pack": pack, "rule_id": rule, "findings": count}
                                        for (pack, rule), count in sorted(result.findings_not_listed.items())],
        "findings_per_hand_rule_cap": MAX_FINDINGS_PER_HAND_RULE,
        "skipped_not_regular": [{"file": shown_text(p.as_posix()), "why": why}
                                for p, why in result.skipped_not_regular.items()],
        "findings_by_severity": {str(k): int(v) for k, v in by_severity.items()},
        "findings_by_category": {str(k): int(v) for k, v in by_category.items()},
        "seconds": round(result.seconds, 3),
    }


def document(result: AuditResult) -> dict[str, Any]:
    rules = rules_by_id(result)
    return {
        "summary": summary(result),
        "manifest": manifest_dict(result),
        "findings": records(result.findings),
        "coverage": [{**row, "title": rules[row["pack"], row["rule_id"]].title,
                      "citation": rules[row["pack"], row["rule_id"]].citation}
                     if (row["pack"], row["rule_id"]) in rules else row for row in records(result.coverage)],
        "quarantined": [{"file": q.file, "line": q.line, "hand_id": q.hand_id, "code": q.code, "reason": q.reason}
                        for q in result.quarantined],
        "files": records(result.per_file()),
    }


def write_json(result: AuditResult, out: TextIO) -> None:
    # ensure_ascii: C1 controls and other odd code points in log text are escaped too, never written raw
    json.dump(document(result), out, ensure_ascii=True, indent=1)
    out.write("\n")
