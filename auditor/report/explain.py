"""`auditor explain`: one hand replayed in the terminal, round by round, with every finding on its event.

For the person who has to decide whether a finding is right: each event of the log in words, the
table state the engine had when each action came (pot, amount to call, raises so far in the round,
whose turn it was) and, under the event a rule objects to, the finding with expected vs actual and
the rule it cites. Amounts are shown as the log wrote them (`$0.50`, `1,500` chips, never the
canonical smallest-unit integers), as the findings' messages show them. Log text goes through
`text.clean`: a player's name cannot move the cursor or recolour the terminal.

Nothing is read or replayed here: the audit kept the hand's view, made from the replay that audited it
(`audit(keep_hands=[hand_id])`, `report.hands`), so this only formats what the result holds. Rounds are
headed as the floor names them (`Pre-flop`, `After the draw`), unknown cards said as hidden.
"""

from __future__ import annotations

from typing import Any, TextIO

import pandas as pd

from auditor.model.results import AuditResult
from auditor.report.hands import HandView, quarantined_with_id, round_heading
from auditor.report.text import clean

EVENT_WIDTH = 58


def explain(result: AuditResult, hand_id: str, out: TextIO) -> int:
    """Write every hand with this id the audit kept a view of, in file and line order; return how many
    hands were named (shown or quarantined).

    The audit keeps the views of hands asked for by id (`audit(keep_hands=...)`, at most
    `result.view_limit` of them) and of the first hands with findings; hands the audit quarantined are
    named with their reason (they were never replayed).
    """
    kept = {**result.views, **result.asked_views}
    views = [kept[key] for key in sorted(kept) if kept[key].hand_id == hand_id]
    findings = result.findings[result.findings["hand_id"] == hand_id]
    for number, view in enumerate(views):
        if number:
            out.write("\n")
        here = findings[(findings["file"] == view.file) & (findings["line"] == view.line)]
        _write_hand(result, view, here, out)
    quarantined = quarantined_with_id(result, hand_id)
    for q in quarantined:
        out.write(f"quarantined, not audited: {clean(q.one_line())}\n")
    return len(views) + len(quarantined)


def _write_hand(result: AuditResult, view: HandView, findings: pd.DataFrame, out: TextIO) -> None:
    pack = result.packs.get(view.pack)
    pack_text = f"{pack.name} {pack.version}" if pack else clean(view.pack or "none")
    out.write(f"hand {clean(view.hand_id)}  {clean(view.file)}:{view.line}\n")
    out.write(f"  table {clean(view.table_id)}, {view.variant} {view.structure}, rule pack {pack_text}, "
              f"started {clean(view.started_at)}\n")
    out.write(f"  stakes: {clean(view.stakes)}\n")
    seats = "  ".join(f"{seat} {clean(player)} ({clean(view.money(stack))}"
                      f"{'' if status == 'active' else ', ' + status})" for seat, player, stack, status in view.seats)
    out.write(f"  seats: {seats}\n")
    severities = findings["severity"].value_counts()
    counts = ", ".join(f"{severities[s]} {s}" for s in ("error", "warning", "info") if s in severities)
    out.write(f"  findings: {len(findings)}" + (f" ({counts})" if counts else "") + "\n")
    if view.state_note:
        out.write(f"  table state not shown: {clean(view.state_note)}\n")
    by_event: dict[int, list[Any]] = {}
    whole_hand: list[Any] = []
    for row in findings.itertuples(index=False):
        if pd.isna(row.seq) or not 0 <= int(row.seq) < len(view.steps):
            whole_hand.append(row)
        else:
            by_event.setdefault(int(row.seq), []).append(row)
    width = min(EVENT_WIDTH, max((len(clean(s.text)) for s in view.steps), default=10))
    # the pot and to-call columns hold money as the log wrote it ($1,234.56): as wide as the widest
    money_width = max((len(clean(view.money(a))) for s in view.steps for a in (s.pot, s.to_call)), default=0)
    money_width = max(8, money_width)
    current = object()
    for step in view.steps:
        if step.round != current:
            current = step.round
            if step.round is None:
                out.write("\n  events\n")
            else:
                opener = view.round_openers.get(step.round)
                out.write(f"\n  {round_heading(view, step.round)}" + (f" — opened by {clean(opener)}" if opener else "")
                          + "\n")
            out.write(f"  {'#':>4}  {'event':<{width}}  {'pot':>{money_width}}  {'to call':>{money_width}}  "
                      f"{'raises':>6}  turn of\n")
        text = clean(step.text)
        if len(text) > width:
            text = text[: width - 1] + "…"
        state = ""
        if step.kind == "action" and step.pot is not None:
            turn = f"seat {step.expected_seat}" if step.expected_seat is not None else "nobody"
            pot, to_call = clean(view.money(step.pot)), clean(view.money(step.to_call))
            state = f"  {pot:>{money_width}}  {to_call:>{money_width}}  {_number(step.raises):>6}  {turn}"
        mark = ">>" if step.seq in by_event else "  "
        out.write(f"{mark}{step.seq:>4}  {text:<{width}}{state}\n".rstrip() + "\n")
        for row in by_event.get(step.seq, []):
            _write_finding(result, row, out, indent=" " * 8)
    if whole_hand:
        out.write("\n  about the hand as a whole\n")
        for row in whole_hand:
            _write_finding(result, row, out, indent=" " * 4)


def _number(value: int | None) -> str:
    return "" if value is None else f"{value:,}"


def _write_finding(result: AuditResult, row: Any, out: TextIO, indent: str) -> None:
    """One finding under its event: rule, message, expected vs actual, citation (`row` is a findings tuple)."""
    pack = result.packs.get(row.pack)
    rule = next((r for r in pack.rules if r.id == row.rule_id), None) if pack else None
    title = f" {rule.title}" if rule else ""
    out.write(f"{indent}{row.severity} {row.category} [{row.rule_id}]{title}: {clean(row.message)}\n")
    detail = [f"expected {clean(row.expected)}" if row.expected and not pd.isna(row.expected) else "",
              f"actual {clean(row.actual)}" if row.actual and not pd.isna(row.actual) else ""]
    detail = [d for d in detail if d]
    if detail:
        out.write(f"{indent}  {'; '.join(detail)}\n")
    out.write(f"{indent}  {clean(row.citation)}\n")
