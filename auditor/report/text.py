"""The console report: findings a person can read, then a summary that reconciles.

The summary's tables (findings by category, rules checked) are laid out by `rich`: columns as wide
as their longest entry (a long rule id keeps every column aligned), numbers right-aligned, bold
headings on a terminal and plain text, without trailing spaces or escape codes, into a pipe or a file.
Every cell is a `rich.text.Text` made from `clean()`ed text, never markup, so a pack or a log cannot
style or forge a line.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from typing import TextIO

import pandas as pd
from rich.console import Console
from rich.table import Table
from rich.text import Text

from auditor.model.inputs import shown_text
from auditor.model.records import printable
from auditor.model.results import MAX_FINDINGS_PER_HAND_RULE, AuditResult

#: whole escape sequences first (CSI like colours, OSC like window titles), else their bodies would stay
_CONTROL = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def strip_control(text: str) -> str:
    """Log text without control characters and ANSI escapes (tab and newline kept).

    Every report shares this one filter: a terminal would obey an escape sequence in a player's
    name, and XML cannot hold most control characters at all. A byte of a file name that is not
    UTF-8 (a surrogate escape) is written `\\xff`: no output stream can encode it.
    """
    return _CONTROL.sub("", shown_text(text))


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


def unaudited_lines(result: AuditResult) -> list[str]:
    """What the run did not audit, in a few plain lines: the first thing every report says.

    Quarantined hands by code, hands not covered (their pack has no rule for their game) by pack and
    game, skipped files that are hand histories of rooms we cannot read, and rules not assessable on
    most hands they apply to. Shared by the console summary and the reports that print prose.
    """
    lines = []
    rooms = result.skipped_hand_histories
    if not result.unaudited:
        lines.append("not audited: nothing (every hand read was audited)")
    else:
        lines.append(f"not audited: {result.hands_quarantined} hand(s) quarantined, {result.hands_not_covered} "
                     f"hand(s) not covered, {len(rooms)} hand-history file(s) skipped")
    if result.quarantined:
        codes = ", ".join(f"{code} {count}" for code, count in result.quarantined_by_code().items())
        lines.append(f"  quarantined by code: {codes}")
    if result.hands_not_covered:
        games = ", ".join(f"{clean(pack)} {clean(variant)} {clean(structure)} {count}" for (pack, variant, structure),
                          count in sorted(result.not_covered.items()))
        lines.append(f"  not covered, no rule of their pack applies to their game: {games}")
    if rooms:
        lines.append(f"  skipped, hand histories this auditor cannot read: {len(rooms)} file(s)")
        kinds: dict[str, list] = {}
        for path, known in rooms.items():
            kinds.setdefault(known, []).append(path)
        for known, paths in list(kinds.items())[:8]:
            example = f", e.g. {clean(paths[0])}" if len(paths) > 1 else f": {clean(paths[0])}"
            lines.append(f"    {clean(known)}: {len(paths)} file(s){example}")
        if len(kinds) > 8:
            lines.append(f"    and {len(kinds) - 8} more kinds")
    partly = result.partly_assessed()
    if len(partly):
        named = ", ".join(f"{clean(r.rule_id)} ({r.hands_not_assessable} of {r.hands_in_scope})"
                          for r in partly.head(6).itertuples(index=False))
        more = f" and {len(partly) - 6} more" if len(partly) > 6 else ""
        lines.append(f"rules partly assessed, not assessable on most hands they apply to: {len(partly)}: "
                     f"{named}{more}")
    return lines


def not_listed_line(result: AuditResult) -> str:
    """How many findings the per-hand cap left out, by rule (`model.results.MAX_FINDINGS_PER_HAND_RULE`)."""
    rules = ", ".join(f"{clean(rule)} ({clean(pack)}) {count}"
                      for (pack, rule), count in result.findings_not_listed.most_common(8))
    more = f" and {len(result.findings_not_listed) - 8} more rules" if len(result.findings_not_listed) > 8 else ""
    return (f"  findings not listed: {sum(result.findings_not_listed.values())}, beyond {MAX_FINDINGS_PER_HAND_RULE} "
            f"of one rule in one hand (counted, not kept): {rules}{more}")


def verdict(result: AuditResult) -> str:
    """One line: the findings in the audited hands, and how much was not audited beside them."""
    findings = result.findings
    if len(findings):
        by_sev = findings["severity"].value_counts()
        found = f"{len(findings)} finding(s) (" + ", ".join(
            f"{by_sev[s]} {s}" for s in ("error", "warning", "info") if s in by_sev) + ")"
        if result.findings_not_listed:
            found += f" listed, and {sum(result.findings_not_listed.values())} more not listed"
    else:
        found = "no findings"
    line = f"verdict: {found} in {result.hands_audited} audited hand(s)"
    missed = result.hands_quarantined + result.hands_not_covered
    if missed or result.skipped_hand_histories:
        line += f"; {missed} hand(s) and {len(result.skipped_hand_histories)} hand-history file(s) not audited"
    return line


def _is_terminal(out: TextIO) -> bool:
    isatty = getattr(out, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


def table_lines(headers: Sequence[str], rows: Sequence[Sequence[object]], out: TextIO, indent: int = 4,
                right: Sequence[int] = ()) -> list[str]:
    """A table as lines of text: `rich` aligns it; bold headings only when `out` is a terminal.

    `right`: the indexes of the columns to right-align (counts). Cells are shown with `clean()`."""
    terminal = _is_terminal(out)
    table = Table(box=None, show_edge=False, pad_edge=False, padding=(0, 2, 0, 0), header_style="bold" if terminal
                  else "", expand=False)
    for i, header in enumerate(headers):
        table.add_column(Text(header), justify="right" if i in right else "left", no_wrap=True)
    for row in rows:
        table.add_row(*(Text(clean(cell)) for cell in row))
    console = Console(file=io.StringIO(), width=100_000, force_terminal=terminal,
                      color_system="standard" if terminal else None, highlight=False, markup=False, emoji=False)
    with console.capture() as captured:
        console.print(table)
    return [" " * indent + line.rstrip() for line in captured.get().splitlines()]


def write_quiet_summary(result: AuditResult, out: TextIO) -> None:
    """`--quiet`: the headline and the counts only (what was not audited, the verdict, hands read)."""
    out.write("\nSummary\n")
    for line in [*unaudited_lines(result), verdict(result)]:
        out.write(f"  {line}\n")
    out.write(f"  hands read: {result.hands_read} = audited {result.hands_audited} + not covered "
              f"{result.hands_not_covered} + quarantined {result.hands_quarantined}\n")
    if len(result.findings):
        counts = result.findings.groupby("category").size().sort_values(ascending=False)
        out.write("  findings by category: " + ", ".join(f"{clean(c)} {n}" for c, n in counts.items()) + "\n")


def write_summary(result: AuditResult, out: TextIO) -> None:
    packs = ", ".join(f"{p.name} {p.version}" for p in result.packs.values()) or "none"
    rate = result.hands_read / result.seconds if result.seconds else 0.0
    out.write("\nSummary\n")
    for line in [*unaudited_lines(result), verdict(result)]:
        out.write(f"  {line}\n")
    if result.notes:
        out.write("  notes (conventions of the files' rooms the readers applied; not findings):\n")
        for note in result.notes[:10]:
            out.write(f"    {clean(note.one_line())}\n")
        if len(result.notes) > 10:
            out.write(f"    and {len(result.notes) - 10} more\n")
    out.write(f"  inputs: {len(result.inputs)} file(s); rule packs: {packs}\n")
    out.write(f"  hands read: {result.hands_read} = audited {result.hands_audited} + not covered "
              f"{result.hands_not_covered} + quarantined {result.hands_quarantined}\n")
    special = result.skipped_not_regular
    others = [p for p in result.skipped_files if p not in result.skipped_hand_histories and p not in special]
    if others:
        documents = result.skipped_documents
        names = ", ".join(clean(p) + (f": a {clean(documents[p])}" if p in documents else "") for p in others[:5])
        more = f" and {len(others) - 5} more" if len(others) > 5 else ""
        out.write(f"  files skipped, not recognised as hand logs: {len(others)} ({names}{more})\n")
    if special:
        names = ", ".join(f"{clean(p)}: {clean(why)}" for p, why in list(special.items())[:5])
        more = f" and {len(special) - 5} more" if len(special) > 5 else ""
        out.write(f"  skipped, not regular files (never opened): {len(special)} ({names}{more})\n")
    if result.findings_not_listed:
        out.write(not_listed_line(result) + "\n")
    if len(result.findings):
        out.write("  findings by category:\n")
        counts = result.findings.groupby("category").size().sort_values(ascending=False)
        for line in table_lines(("category", "findings"), list(counts.items()), out, right=(1,)):
            out.write(line + "\n")
    cov = result.coverage
    if len(cov):
        partly = set(result.partly_assessed()["rule_id"] + "\x00" + result.partly_assessed()["pack"])
        out.write("  rules with a hand in scope:\n")
        scoped = cov[cov["hands_in_scope"] > 0]
        rows = [(row.pack, row.rule_id, row.hands_checked, row.hands_not_assessable, row.hands_with_violations,
                 row.category + ("  (partly assessed)" if f"{row.rule_id}\x00{row.pack}" in partly else ""))
                for row in scoped.itertuples(index=False)]
        for line in table_lines(("pack", "rule", "hands checked", "not assessable", "with violations", "category"),
                                rows, out, right=(2, 3, 4)):
            out.write(line + "\n")
        idle = cov[cov["hands_in_scope"] == 0]
        if len(idle):
            out.write(f"  rules with no hand in scope: {', '.join(idle['rule_id'])}\n")
    out.write(f"  time: {result.seconds:.2f} s ({rate:,.0f} hands/s)\n")
