"""Findings as JUnit XML, the test report every CI server shows: one test case per rule.

A rule is a test of the logs: it passes when no hand in scope violates it, fails with one <failure>
per violation (file:line, hand, event, expected vs actual, citation), and is skipped when no hand
could be checked against it (none in scope, or every one lacked a fact it needs), because a rule
that checked nothing has not passed; a rule *partly assessed* (not assessable on most of the hands
it applies to) with no violation is skipped too, never shown as passed. One <testsuite> per rule pack.

The first <testsuite>, "not audited", says what the run did not audit, so a CI server shows it
before anything else: one failing test case per quarantine code (its hands listed), per pack and game
no rule covers, and per skipped hand-history file of a room we cannot read; a single passing case
when every hand read was audited.

Every string goes through ElementTree, which escapes markup; log text is also stripped of control
characters first, which XML 1.0 cannot carry even escaped.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import defaultdict
from datetime import UTC, datetime
from typing import Any, TextIO

from auditor.model.inputs import shown_text
from auditor.model.results import AuditResult
from auditor.report.common import records, rules_by_id
from auditor.report.text import strip_control

#: code points XML 1.0 forbids even as character references (after control characters are stripped)
_NOT_XML = re.compile("[\ud800-\udfff\ufffe\uffff]")


def xml_text(value: object) -> str:
    """Text safe to put in an XML document: no control characters, no code point XML 1.0 forbids."""
    return "" if value is None else _NOT_XML.sub("\ufffd", strip_control(str(value)))


def _failure_text(row: dict[str, Any]) -> str:
    event = f" event {row['seq']}" if row["seq"] is not None else ""
    seat = f" seat {row['seat']}" if row["seat"] is not None else ""
    lines = [f"{row['file']}:{row['line']}: hand {row['hand_id']}{event}{seat}: {row['message']}"]
    if row["expected"]:
        lines.append(f"expected: {row['expected']}")
    if row["actual"]:
        lines.append(f"actual: {row['actual']}")
    lines.append(f"rule: {row['citation']}")
    return "\n".join(lines)


#: quarantine lines listed in one test case at most (the JSON report has them all)
MAX_LISTED = 1000


def _not_audited_suite(root: ET.Element, result: AuditResult, stamp: str) -> dict[str, int]:
    """The "not audited" suite: one failing case per cause, grouped by quarantine code."""
    suite = ET.SubElement(root, "testsuite", name="not audited", timestamp=stamp, time="0")
    props = ET.SubElement(suite, "properties")
    run = [("hands_read", result.hands_read), ("hands_audited", result.hands_audited),
           ("hands_not_covered", result.hands_not_covered), ("hands_quarantined", result.hands_quarantined),
           *((f"quarantined_{code}", count) for code, count in result.quarantined_by_code().items()),
           ("hand_history_files_skipped", len(result.skipped_hand_histories)),
           ("files_skipped_not_regular", len(result.skipped_not_regular)),
           # findings beyond the per-hand cap of one rule: counted, not listed as cases
           ("findings_not_listed", sum(result.findings_not_listed.values())),
           *((f"findings_not_listed_{pack}_{rule}", count)
             for (pack, rule), count in sorted(result.findings_not_listed.items()))]
    for name, value in run:
        ET.SubElement(props, "property", name=name, value=xml_text(value))
    cases: list[tuple[str, str, str, str]] = []  # name, classname, message, text
    by_code: dict[str, list[str]] = defaultdict(list)
    for q in result.quarantined:
        by_code[q.code].append(q.one_line())
    for code, count in result.quarantined_by_code().items():
        lines = by_code[code]
        more = f"\n... and {len(lines) - MAX_LISTED} more" if len(lines) > MAX_LISTED else ""
        cases.append((f"quarantined [{code}]: {count} hand(s)", "not-audited.quarantined",
                      f"{count} hand(s) quarantined [{code}], not audited", "\n".join(lines[:MAX_LISTED]) + more))
    for (pack, variant, structure), count in sorted(result.not_covered.items()):
        cases.append((f"not covered: {count} {variant} {structure} hand(s) under {pack}", "not-audited.not-covered",
                      f"{count} hand(s) of {variant} {structure}: no rule of {pack} applies to that game",
                      f"pack {pack}, game {variant} {structure}, hands {count}"))
    for path, known in result.skipped_hand_histories.items():
        shown = shown_text(path.as_posix())
        cases.append((f"skipped: {shown}", "not-audited.skipped", f"skipped, not audited: {known}", shown))
    for name, classname, message, text in cases:
        case = ET.SubElement(suite, "testcase", name=xml_text(name), classname=xml_text(classname), time="0")
        failure = ET.SubElement(case, "failure", type="not-audited", message=xml_text(message))
        failure.text = xml_text(text)
    if not cases:
        ET.SubElement(suite, "testcase", name="every hand read was audited", classname="not-audited", time="0")
    counts = {"tests": max(len(cases), 1), "failures": len(cases), "skipped": 0}
    for key, value in counts.items():
        suite.set(key, str(value))
    suite.set("errors", "0")
    return counts


def document(result: AuditResult) -> ET.Element:
    rules = rules_by_id(result)
    partly = {(r.pack, r.rule_id) for r in result.partly_assessed().itertuples(index=False)}
    failures: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in records(result.findings):
        failures[row["pack"], row["rule_id"]].append(row)
    coverage = records(result.coverage)
    covered = {(row["pack"], row["rule_id"]) for row in coverage}
    # a finding of a rule the coverage does not list still gets a test case: no violation is dropped
    for pack, rule_id in failures:
        if (pack, rule_id) not in covered:
            coverage.append({"pack": pack, "rule_id": rule_id, "category": failures[pack, rule_id][0]["category"],
                             "severity": failures[pack, rule_id][0]["severity"], "hands_in_scope": None,
                             "hands_checked": None, "hands_not_assessable": None, "hands_with_violations": None})
    by_pack: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in coverage:
        by_pack[row["pack"]].append(row)
    stamp = datetime.now(UTC).replace(microsecond=0, tzinfo=None).isoformat()
    root = ET.Element("testsuites", name="poker-auditor", time=f"{result.seconds:.3f}")
    totals = _not_audited_suite(root, result, stamp)
    for pack_name, rows in by_pack.items():
        pack = result.packs.get(pack_name)
        suite = ET.SubElement(root, "testsuite", name=xml_text(f"{pack_name} {pack.version}" if pack else pack_name),
                              timestamp=stamp, time=f"{result.seconds:.3f}")
        props = ET.SubElement(suite, "properties")
        run = (("hands_read", result.hands_read), ("hands_audited", result.hands_audited),
               ("hands_not_covered", result.hands_not_covered), ("hands_quarantined", result.hands_quarantined),
               ("pack_title", pack.title if pack else ""))
        for name, value in run:
            ET.SubElement(props, "property", name=name, value=xml_text(value))
        counts = {"tests": 0, "failures": 0, "skipped": 0}
        for row in rows:
            rule = rules.get((pack_name, row["rule_id"]))
            title = f"{row['rule_id']}: {rule.title}" if rule else row["rule_id"]
            case = ET.SubElement(suite, "testcase", name=xml_text(title),
                                 classname=xml_text(f"{pack_name}.{row['category']}"), time="0")
            counts["tests"] += 1
            found = failures.get((pack_name, row["rule_id"]), [])
            for item in found:
                message = f"{item['file']}:{item['line']}: {item['message']}"
                failure = ET.SubElement(case, "failure", type=xml_text(item["severity"]), message=xml_text(message))
                failure.text = xml_text(_failure_text(item))
            if found:
                counts["failures"] += 1
            elif row["hands_checked"] == 0 or (pack_name, row["rule_id"]) in partly:
                if not row["hands_in_scope"]:
                    reason = "no hand in scope"
                elif row["hands_checked"] == 0:
                    reason = (f"not assessable in all {row['hands_in_scope']} hand(s) in scope: "
                              "the log lacks a fact the rule needs")
                else:
                    reason = (f"partly assessed: not assessable in {row['hands_not_assessable']} of "
                              f"{row['hands_in_scope']} hand(s) in scope (the log lacks a fact the rule needs); "
                              f"no violation in the {row['hands_checked']} checked")
                ET.SubElement(case, "skipped", message=xml_text(reason))
                counts["skipped"] += 1
            if row["hands_checked"] is not None:
                out = ET.SubElement(case, "system-out")
                out.text = (f"hands in scope {row['hands_in_scope']}, checked {row['hands_checked']}, "
                            f"not assessable {row['hands_not_assessable']}, "
                            f"with violations {row['hands_with_violations']}"
                            + (f"\nsource: {xml_text(rule.citation)}" if rule else ""))
        suite.set("tests", str(counts["tests"]))
        suite.set("failures", str(counts["failures"]))
        suite.set("errors", "0")
        suite.set("skipped", str(counts["skipped"]))
        for key in totals:
            totals[key] += counts[key]
    root.set("tests", str(totals["tests"]))
    root.set("failures", str(totals["failures"]))
    root.set("errors", "0")
    return root


def write_junit(result: AuditResult, out: TextIO) -> None:
    root = document(result)
    ET.indent(root)
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(ET.tostring(root, encoding="unicode"))
    out.write("\n")
