"""Findings as SARIF 2.1.0, the format code-scanning tools and editors read.

Every rule of the packs the run used is in `tool.driver.rules` with its text, why it matters and
its citation (so a viewer can explain a result without the YAML); every finding is one result
located at its log file and line, with the hand, event and seat in its properties.

What the run did not audit goes where SARIF puts what a tool could not do: the invocation's
`toolExecutionNotifications`, first in the run's record. One notification per quarantined hand, its
descriptor the quarantine code (`quarantine/damaged`, ...) so viewers group them by code; one per
pack and game no rule covers (`not-covered`), per skipped hand-history file (`skipped-hand-history`),
per rule partly assessed (`partly-assessed`), and per reader note (`reader-note`, level note). The
invocation's properties count them (`quarantined_by_code`, `hands_not_covered`, ...).

The run's evidence manifest (`report.manifest`) is stated the SARIF way too: the invocation
carries the command line, its arguments, the working directory and the start and end time (UTC);
`artifacts` lists every input with its length, `sha-256` hash and hand counts (zip members and a Parquet
dataset's three files as its children, `parentIndex`), and every pack file (`toolSpecifiedConfiguration`
for a built-in pack, relative to `AUDITOR_RULES`; `userSpecifiedConfiguration` for a --pack file). The
whole manifest is in the run's properties (`manifest`), as in the JSON report.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path, PurePosixPath
from typing import Any, TextIO
from urllib.parse import quote

from auditor.check.packs import Pack, Rule
from auditor.model.inputs import shown_text
from auditor.model.records import QUARANTINE_CODES
from auditor.model.results import AuditResult
from auditor.report.common import records, tool_version
from auditor.report.manifest import manifest_dict

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}
#: the base that relative file names in results are relative to: where the audit ran
SRCROOT = "SRCROOT"
#: the base built-in pack files are relative to: the installation's rules folder
RULES_ROOT = "AUDITOR_RULES"


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


#: notification descriptors besides the quarantine codes: id -> what it means
NOTIFICATIONS = {
    "not-covered": "hands read whose rule pack has no rule for their game (variant and structure): not audited",
    "skipped-hand-history": "a hand history of a room this auditor cannot read, skipped: its hands were not audited",
    "partly-assessed": "a rule not assessable on most of the hands it applies to (the logs lack a fact it needs)",
    "reader-note": "a convention of the file's room the reader applied (not a finding)",
}


def _notification_descriptors() -> list[dict[str, Any]]:
    items = [(f"quarantine/{code}", f"hand quarantined, not audited: {text}")
             for code, text in QUARANTINE_CODES.items()]
    items += list(NOTIFICATIONS.items())
    return [{"id": key, "shortDescription": {"text": text}} for key, text in items]


def _location(file: str, line: int) -> dict[str, Any]:
    where: dict[str, Any] = {"artifactLocation": artifact_location(file)}
    if line > 0:
        where["region"] = {"startLine": line}
    return {"physicalLocation": where}


def notifications(result: AuditResult) -> list[dict[str, Any]]:
    """What was not audited, and the readers' notes, as SARIF tool execution notifications."""
    found: list[dict[str, Any]] = []
    for q in result.quarantined:
        found.append({"descriptor": {"id": f"quarantine/{q.code}"}, "level": "error",
                      "message": {"text": q.one_line()}, "locations": [_location(q.file, q.line)],
                      "properties": {"code": q.code, "hand_id": q.hand_id, "reason": q.reason}})
    for (pack, variant, structure), count in sorted(result.not_covered.items()):
        found.append({"descriptor": {"id": "not-covered"}, "level": "error",
                      "message": {"text": f"{count} hand(s) of {variant} {structure} not covered: no rule of {pack} "
                                          "applies to that game"},
                      "properties": {"pack": pack, "variant": variant, "structure": structure, "hands": count}})
    for path, known in result.skipped_hand_histories.items():
        found.append({"descriptor": {"id": "skipped-hand-history"}, "level": "error",
                      "message": {"text": f"{shown_text(path.as_posix())}: skipped, not audited: {known}"},
                      "locations": [_location(shown_text(path.as_posix()), 0)], "properties": {"format": known}})
    for row in result.partly_assessed().itertuples(index=False):
        found.append({"descriptor": {"id": "partly-assessed"}, "level": "warning",
                      "message": {"text": f"{row.pack} {row.rule_id} partly assessed: not assessable in "
                                          f"{row.hands_not_assessable} of {row.hands_in_scope} hand(s) in scope"},
                      "properties": {"pack": row.pack, "rule_id": row.rule_id,
                                     "hands_in_scope": int(row.hands_in_scope),
                                     "hands_not_assessable": int(row.hands_not_assessable)}})
    for note in result.notes:
        found.append({"descriptor": {"id": "reader-note"}, "level": "note", "message": {"text": note.one_line()},
                      "locations": [_location(note.file, note.line)], "properties": {"code": note.code}})
    return found


def _hashed(length: Any, sha256: Any) -> dict[str, Any]:
    found: dict[str, Any] = {}
    if isinstance(length, int):
        found["length"] = length
    if isinstance(sha256, str):
        found["hashes"] = {"sha-256": sha256}
    return found


def artifacts(manifest: dict[str, Any]) -> list[dict[str, Any]]:
    """The manifest's inputs and pack files as SARIF artifacts: each input with its length, SHA-256 and hand
    counts (zip members and a dataset's files as children), then each pack file with its SHA-256."""
    found: list[dict[str, Any]] = []
    for entry in manifest["inputs"]:
        index = len(found)
        dataset = "files" in entry
        location = artifact_location(entry["name"] + ("/" if dataset else ""))
        found.append({"location": location, **_hashed(entry["size"], entry["sha256"]),
                      "roles": ["analysisTarget", "directory"] if dataset else ["analysisTarget"],
                      "properties": {k: entry[k] for k in ("format", "hands", "period", "path") if k in entry}})
        for part in entry.get("files") or []:
            found.append({"location": {"uri": quote(part["file"], safe="/!")}, "parentIndex": index,
                          **_hashed(part["size"], part["sha256"]), "roles": ["analysisTarget"]})
        for member in entry.get("members") or []:
            found.append({"location": {"uri": quote(member["member"], safe="/!")}, "parentIndex": index,
                          "length": member["size"], "roles": ["analysisTarget"],
                          "properties": {"crc32": member["crc32"], "hands": member["hands"],
                                         "period": member["period"]}})
    seen: set[tuple[bool, str]] = set()
    for pack in manifest["packs"]:
        for part in pack["files"]:
            key = (part["builtin"], part["file"])
            if key in seen:
                continue
            seen.add(key)
            where = ({"uri": quote(part["file"], safe="/!"), "uriBaseId": RULES_ROOT} if part["builtin"]
                     else artifact_location(part["file"]))
            role = "toolSpecifiedConfiguration" if part["builtin"] else "userSpecifiedConfiguration"
            found.append({"location": where, **_hashed(part["size"], part["sha256"]), "roles": [role],
                          "properties": {"pack": pack["name"], "pack_version": pack["version"],
                                         "effective_sha256": pack["effective_sha256"]}})
    return found


def _invocation_record(manifest: dict[str, Any]) -> dict[str, Any]:
    """The invocation's command line, directory and times, where the run recorded them."""
    run = manifest["run"]
    found: dict[str, Any] = {}
    if run["command"] is not None:
        found["commandLine"] = run["command_line"]
        found["arguments"] = run["command"][1:]
    for key, name in (("started_at", "startTimeUtc"), ("ended_at", "endTimeUtc")):
        if run[key] is not None:
            found[name] = run[key]
    if run["working_directory"] is not None:
        found["workingDirectory"] = {"uri": Path(run["working_directory"]).as_uri() + "/"}
    return found


def document(result: AuditResult) -> dict[str, Any]:
    from auditor.resources import rules_dir

    manifest = manifest_dict(result)
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
                                "semanticVersion": tool_version(), "rules": descriptors,
                                "notifications": _notification_descriptors()}},
            "originalUriBaseIds": {SRCROOT: {"uri": Path.cwd().as_uri() + "/"},
                                   RULES_ROOT: {"uri": rules_dir().absolute().as_uri() + "/"}},
            "artifacts": artifacts(manifest),
            "invocations": [{
                "executionSuccessful": True,
                **_invocation_record(manifest),
                "toolExecutionNotifications": notifications(result),
                "properties": {"not_audited": result.unaudited,
                               "hands_read": result.hands_read, "hands_audited": result.hands_audited,
                               "hands_not_covered": result.hands_not_covered,
                               "hands_quarantined": result.hands_quarantined,
                               "quarantined_by_code": result.quarantined_by_code(),
                               "hand_history_files_skipped": len(result.skipped_hand_histories),
                               "files_skipped_not_regular": len(result.skipped_not_regular),
                               # beyond the per-hand cap of one rule: counted, not listed as results
                               "findings_not_listed": sum(result.findings_not_listed.values()),
                               "findings_not_listed_by_rule": {f"{pack}/{rule}": count for (pack, rule), count
                                                               in sorted(result.findings_not_listed.items())},
                               "quarantined": [q.one_line() for q in result.quarantined]},
            }],
            "results": results,
            "columnKind": "unicodeCodePoints",
            "properties": {"manifest": manifest},
        }],
    }


def write_sarif(result: AuditResult, out: TextIO) -> None:
    json.dump(document(result), out, ensure_ascii=True, indent=1)
    out.write("\n")
