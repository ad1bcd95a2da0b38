"""Findings as SARIF 2.1.0, the format code-scanning tools and editors read.

Every rule of the packs the run used is in `tool.driver.rules` with its text, why it matters and
its citation (so a viewer can explain a result without the YAML); every finding is one result
located at its log file and line, with the hand, event and seat in its properties.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path, PurePosixPath
from typing import Any, TextIO
from urllib.parse import quote

from auditor.check.packs import Pack, Rule
from auditor.pipeline import AuditResult
from auditor.report.common import records, tool_version

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}
#: the base that relative file names in results are relative to: where the audit ran
SRCROOT = "SRCROOT"


def artifact_location(file: str) -> dict[str, str]:
    """A file name as SARIF wants it: a URI (percent-encoded), relative to SRCROOT unless absolute."""
    path = PurePosixPath(file)
    if path.is_absolute():
        return {"uri": Path(file).as_uri()}
    return {"uri": quote(file, safe="/!"), "uriBaseId": SRCROOT}


def rule_ids(packs: list[Pack]) -> dict[tuple[str, str], str]:
    """SARIF rule ids: the pack's rule id, qualified by the pack only where two packs of the run share it."""
    counts = Counter(rule.id for pack in packs for rule in pack.rules)
    return {(pack.name, rule.id): rule.id if counts[rule.id] == 1 else f"{pack.name}/{rule.id}"
            for pack in packs for rule in pack.rules}


def _descriptor(pack: Pack, rule: Rule, sarif_id: str) -> dict[str, Any]:
    text = " ".join(rule.text.split())
    why = " ".join(rule.why.split())
    reading = f"\n\nHow the rule is read: {' '.join(rule.notes.split())}" if rule.notes else ""
    return {
        "id": sarif_id,
        "name": rule.title,
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": text},
        "help": {
            "text": f"{text}\n\nWhy it matters: {why}{reading}\n\nSource: {rule.citation} ({pack.name} {pack.version})",
            "markdown": f"{text}\n\n**Why it matters:** {why}{reading}\n\n**Source:** {rule.citation} "
                        f"(`{pack.name}` {pack.version})",
        },
        "defaultConfiguration": {"level": LEVELS.get(rule.severity, "warning")},
        "properties": {"tags": [rule.category, pack.name], "category": rule.category, "citation": rule.citation,
                       "pack": pack.name, "pack_version": pack.version, "rule_id": rule.id},
    }


def document(result: AuditResult) -> dict[str, Any]:
    packs = list(result.packs.values())
    ids = rule_ids(packs)
    descriptors, index = [], {}
    for pack in packs:
        for rule in pack.rules:
            index[pack.name, rule.id] = len(descriptors)
            descriptors.append(_descriptor(pack, rule, ids[pack.name, rule.id]))
    results = []
    for row in records(result.findings):
        key = (row["pack"], row["rule_id"])
        where = f"hand {row['hand_id']}" + (f", event {row['seq']}" if row["seq"] is not None else "")
        detail = "; ".join(x for x in (f"expected {row['expected']}" if row["expected"] else "",
                                       f"actual {row['actual']}" if row["actual"] else "", row["citation"]) if x)
        item: dict[str, Any] = {
            "ruleId": ids.get(key, row["rule_id"]),
            "level": LEVELS.get(row["severity"], "warning"),
            "message": {"text": f"{where}: {row['message']} ({detail})"},
            "locations": [{
                "physicalLocation": {"artifactLocation": artifact_location(row["file"]),
                                     "region": {"startLine": max(int(row["line"]), 1)}},
                "logicalLocations": [{"name": str(row["hand_id"]), "kind": "object"}],
            }],
            "partialFingerprints": {"hand/rule/event": f"{row['hand_id']}/{row['rule_id']}/{row['seq']}"},
            "properties": {k: row[k] for k in ("hand_id", "seq", "seat", "player", "expected", "actual", "citation",
                                               "category", "pack", "table_id", "variant", "structure")},
        }
        if key in index:
            item["ruleIndex"] = index[key]
        results.append(item)
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "poker-auditor", "version": tool_version(),
                                "semanticVersion": tool_version(), "rules": descriptors}},
            "originalUriBaseIds": {SRCROOT: {"uri": Path.cwd().as_uri() + "/"}},
            "invocations": [{
                "executionSuccessful": True,
                "properties": {"hands_read": result.hands_read, "hands_audited": result.hands_audited,
                               "hands_quarantined": result.hands_quarantined,
                               "quarantined": [q.one_line() for q in result.quarantined]},
            }],
            "results": results,
            "columnKind": "unicodeCodePoints",
        }],
    }


def write_sarif(result: AuditResult, out: TextIO) -> None:
    json.dump(document(result), out, ensure_ascii=True, indent=1)
    out.write("\n")
