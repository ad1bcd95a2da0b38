"""The console report: findings a person can read, then a summary that reconciles."""

from __future__ import annotations

import re
from typing import TextIO

import pandas as pd

from auditor.ingest.records import printable
from auditor.pipeline import AuditResult

#: whole escape sequences first (CSI like colours, OSC like window titles), else their bodies would stay
_CONTROL = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def strip_control(text: str) -> str:
    """Log text without control characters and ANSI escapes (tab and newline kept).

    Every report shares this one filter: a terminal would obey an escape sequence in a player's
    name, and XML cannot hold most control characters at all.
    """
    return _CONTROL.sub("", text)


def clean(value: object) -> str:
    """Log text (player names) is attacker-controlled: drop ANSI escapes and write what is left of
    line breaks, tabs and bidirectional overrides as visible escapes, so a name can neither drive the
    terminal nor forge a line of the report (`x\\n<file>:1: error ...`) nor reorder what is shown."""
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return "-"
    return printable(strip_control(str(value)))


def write_text(result: AuditResult, out: TextIO) -> None:
    for row in result.findings.itertuples(index=False):
        seat = f" seat {clean(row.seat)}" if not pd.isna(row.seat) else ""
        event = f" event {clean(row.seq)}" if not pd.isna(row.seq) else ""
        out.write(f"{clean(row.file)}:{row.line}: {row.severity} {row.category} [{row.rule_id}] "
                  f"hand {clean(row.hand_id)}{event}{seat}: {clean(row.message)}\n")
        detail = []
        if row.expected:
            detail.append(f"expected {clean(row.expected)}")
        if row.actual:
            detail.append(f"actual {clean(row.actual)}")
        out.write(f"    {'; '.join([*detail, clean(row.citation)])}\n")
    for q in result.quarantined:
        out.write(f"quarantined: {clean(q.one_line())}\n")
    write_summary(result, out)


def write_summary(result: AuditResult, out: TextIO) -> None:
    packs = ", ".join(f"{p.name} {p.version}" for p in result.packs.values()) or "none"
    rate = result.hands_read / result.seconds if result.seconds else 0.0
    out.write("\nSummary\n")
    out.write(f"  inputs: {len(result.inputs)} file(s); rule packs: {packs}\n")
    out.write(f"  hands read: {result.hands_read} = audited {result.hands_audited} + quarantined "
              f"{result.hands_quarantined}\n")
    if result.skipped_files:
        names = ", ".join(clean(p) for p in result.skipped_files[:5])
        more = f" and {len(result.skipped_files) - 5} more" if len(result.skipped_files) > 5 else ""
        out.write(f"  files skipped, not recognised as hand logs: {len(result.skipped_files)} ({names}{more})\n")
    out.write(f"  findings: {len(result.findings)}")
    if len(result.findings):
        by_sev = result.findings["severity"].value_counts()
        out.write(" (" + ", ".join(f"{by_sev[s]} {s}" for s in ("error", "warning", "info") if s in by_sev) + ")")
    out.write("\n")
    if len(result.findings):
        counts = result.findings.groupby("category").size().sort_values(ascending=False)
        for category, count in counts.items():
            out.write(f"    {category:<18} {count}\n")
    cov = result.coverage
    if len(cov):
        out.write("  rules (pack, rule: hands checked / not assessable / with violations):\n")
        for row in cov.itertuples(index=False):
            if row.hands_in_scope == 0:
                continue
            out.write(f"    {row.pack:<22} {row.rule_id:<14} {row.hands_checked:>7} / {row.hands_not_assessable:>5} "
                      f"/ {row.hands_with_violations:>5}  {row.category}\n")
        idle = cov[cov["hands_in_scope"] == 0]
        if len(idle):
            out.write(f"  rules with no hand in scope: {', '.join(idle['rule_id'])}\n")
    out.write(f"  time: {result.seconds:.2f} s ({rate:,.0f} hands/s)\n")
