"""The HTML report: one self-contained page for a person who is not a programmer.

What it holds, top to bottom: what the run did *not* audit (quarantined hands by code, hands not
covered by their pack, skipped hand histories of rooms we cannot read, rules partly assessed), then
the verdict and the run (inputs, packs and versions, hands read = audited + not covered +
quarantined, readers' notes, time), charts of the findings by category, severity, table and over time (SVG drawn
here, no library, no network), the findings table, the rule coverage table (checked / not assessable
/ violations), the quarantined hands with their reasons, and a section per finding that replays its
hand event by event with the violating event highlighted, expected vs actual, and the rule's citation
and text.

Everything in a hand log is attacker-controlled (player and table names, ids, cards as written), so
every value goes through `e()` (control characters dropped, then HTML-escaped, quotes included) and
none is ever placed in a script, a URL or an id: anchors are numbered. The one inline script is ours;
a Content-Security-Policy allows only it (by hash) and no network at all, so even a value that got
past the escaping could not run code or fetch anything.

Replaying needs the hands again: they are re-read from their logs (only the files that have
findings) and replayed with the packs the audit used, for at most `max_replays` findings per page,
which the page says.
"""

from __future__ import annotations

import base64
import hashlib
import html
from collections import Counter
from datetime import UTC, datetime
from typing import Any, TextIO

import pandas as pd

from auditor.check.packs import Rule
from auditor.ingest.records import QUARANTINE_CODES, SourceHand
from auditor.pipeline import AuditResult
from auditor.report.common import records, rules_by_id, tool_version
from auditor.report.hands import HandKey, HandView, build_views, scan_hands
from auditor.report.text import not_listed_line, strip_control, unaudited_lines

MAX_REPLAYS = 500
MAX_TABLE_ROWS = 10_000
SEVERITIES = ("error", "warning", "info")


def e(value: object) -> str:
    """Any value as HTML text or attribute content: control characters dropped, <>&\"' escaped."""
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return ""
    return html.escape(strip_control(str(value)), quote=True)


def n(value: object) -> str:
    """A count with thousands separators; empty when missing."""
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return ""
    return f"{int(value):,}"


# ---------------------------------------------------------------------------------------------- charts


def bar_chart(chart_id: str, title: str, items: list[tuple[str, int, str]], note: str = "") -> str:
    """Horizontal bars, one per (label, value, css class), largest first as given."""
    row, top, label_w, bar_w = 24, 8, 170, 260
    height = top * 2 + row * max(len(items), 1)
    peak = max((v for _, v, _ in items), default=0) or 1
    parts = [f'<svg id="{chart_id}" class="chart" role="img" aria-labelledby="{chart_id}-title" '
             f'viewBox="0 0 {label_w + bar_w + 70} {height}" width="100%" preserveAspectRatio="xMinYMin meet">',
             f'<title id="{chart_id}-title">{e(title)}</title>']
    if not items:
        parts.append(f'<text x="10" y="{top + 16}" class="empty">{e(note or "no findings")}</text>')
    for i, (label, value, css) in enumerate(items):
        y = top + i * row
        width = max(round(bar_w * value / peak), 1)
        short = label if len(label) <= 30 else label[:29] + "…"
        parts.append(f'<text x="{label_w - 8}" y="{y + 16}" text-anchor="end" class="label">{e(short)}</text>'
                     f'<rect class="bar {css}" x="{label_w}" y="{y + 3}" width="{width}" height="17">'
                     f'<title>{e(label)}: {value:,}</title></rect>'
                     f'<text x="{label_w + width + 6}" y="{y + 16}" class="value">{value:,}</text>')
    parts.append("</svg>")
    return "".join(parts)


def column_chart(chart_id: str, title: str, items: list[tuple[str, int]], note: str) -> str:
    """Vertical columns over time buckets, with a few labels on the axis so they never overlap."""
    width, height, left, bottom, top = 1000, 220, 48, 40, 12
    plot_w, plot_h = width - left - 10, height - top - bottom
    parts = [f'<svg id="{chart_id}" class="chart" role="img" aria-labelledby="{chart_id}-title" '
             f'viewBox="0 0 {width} {height}" width="100%" preserveAspectRatio="xMinYMin meet">',
             f'<title id="{chart_id}-title">{e(title)}</title>']
    if not items:
        parts.append(f'<text x="10" y="30" class="empty">{e(note)}</text></svg>')
        return "".join(parts)
    peak = max(v for _, v in items) or 1
    slot = plot_w / len(items)
    bar = max(min(slot * 0.8, 40), 1)
    base = top + plot_h
    parts.append(f'<line class="axis" x1="{left}" y1="{base}" x2="{left + plot_w}" y2="{base}"/>'
                 f'<text x="{left - 6}" y="{top + 10}" text-anchor="end" class="value">{peak:,}</text>'
                 f'<text x="{left - 6}" y="{base}" text-anchor="end" class="value">0</text>')
    every = max(1, round(len(items) / 8))
    for i, (label, value) in enumerate(items):
        h = round(plot_h * value / peak)
        x = left + i * slot + (slot - bar) / 2
        parts.append(f'<rect class="bar time" x="{x:.1f}" y="{base - h}" width="{bar:.1f}" height="{h}">'
                     f'<title>{e(label)}: {value:,}</title></rect>')
        if i % every == 0:
            parts.append(f'<text x="{x + bar / 2:.1f}" y="{base + 16}" text-anchor="middle" class="tick">'
                         f'{e(label)}</text>')
    if note:
        parts.append(f'<text x="{left}" y="{height - 6}" class="note">{e(note)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def time_buckets(times: pd.Series) -> tuple[list[tuple[str, int]], str]:
    """Findings per hour, day or month (whichever keeps the chart readable), and a note on unknown times."""
    parsed = pd.to_datetime(times, utc=True, errors="coerce")
    unknown = int(parsed.isna().sum())
    known = parsed.dropna()
    note = f"{unknown:,} finding(s) in hands with no start time are not shown" if unknown else ""
    if known.empty:
        return [], note or "no start times"
    span = known.max() - known.min()
    if span <= pd.Timedelta(days=2):
        unit, fmt, label = "h", "%Y-%m-%d %H:00", "hour"
    elif span <= pd.Timedelta(days=92):
        unit, fmt, label = "D", "%Y-%m-%d", "day"
    else:
        unit, fmt, label = "M", "%Y-%m", "month"
    naive = known.dt.tz_localize(None)
    periods = naive.dt.to_period(unit)
    counts = periods.value_counts()
    full = pd.period_range(periods.min(), periods.max(), freq=unit)
    items = [(p.strftime(fmt), int(counts.get(p, 0))) for p in full]
    per = f"findings per {label} (UTC) of the hands' start times"
    return items, f"{per}; {note}" if note else per


# ------------------------------------------------------------------------------------------ the page


def _hands_for(result: AuditResult, max_replays: int) -> tuple[dict[HandKey, str | None], dict[HandKey, HandView]]:
    """Start time of every hand with a finding, and the replayed view of those the page replays."""
    findings = result.findings
    if not len(findings):
        return {}, {}
    keys = list(zip(findings["file"], findings["line"].astype(int), strict=True))
    packs = dict(zip(keys, findings["pack"], strict=True))
    wanted = set(keys)
    replay_keys = set(keys[:max_replays])
    started: dict[HandKey, str | None] = {}
    kept: list[tuple[SourceHand, str | None]] = []
    for hand in scan_hands(result.inputs, lambda h: (h.file, h.line) in wanted, set(findings["file"])):
        key = (hand.file, hand.line)
        if key in started:
            continue  # a Parquet dataset and its source log both named: the first copy is the one audited
        started[key] = hand.hand.get("started_at")
        if key in replay_keys:
            kept.append((hand, packs[key]))
    views = build_views(result, kept)
    return started, {(v.file, v.line): v for v in views}


def render(result: AuditResult, max_replays: int = MAX_REPLAYS, max_rows: int = MAX_TABLE_ROWS) -> str:
    started, views = _hands_for(result, max_replays)
    rules = rules_by_id(result)
    findings = result.findings
    generated = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    body = [
        _summary(result, generated),
        _charts(result, started),
        _findings_table(result, max_rows, max_replays),
        _coverage(result, rules),
        _quarantine(result, max_rows),
        _files(result),
        _finding_sections(result, views, rules, max_replays),
    ]
    verdict = f"{len(findings):,} finding(s)" if len(findings) else "no findings"
    missed = result.hands_quarantined + result.hands_not_covered + len(result.skipped_hand_histories)
    if missed:
        verdict += f", {missed:,} not audited"
    return _page(f"Poker audit report — {verdict}", "\n".join(body))


def write_html(result: AuditResult, out: TextIO, max_replays: int = MAX_REPLAYS,
               max_rows: int = MAX_TABLE_ROWS) -> None:
    out.write(render(result, max_replays, max_rows))


def _summary(result: AuditResult, generated: str) -> str:
    findings = result.findings
    by_sev = findings["severity"].value_counts() if len(findings) else pd.Series(dtype=int)
    sev = ", ".join(f'<span class="sev sev-{s}">{by_sev[s]:,} {s}</span>' for s in SEVERITIES if s in by_sev)
    packs = "".join(f"<li><b>{e(p.name)}</b> version {e(p.version)} — {e(p.title)} ({len(p.rules)} rules)</li>"
                    for p in result.packs.values()) or "<li>none</li>"
    names = [item.name or item.path.as_posix() for item in result.inputs]
    shown = "".join(f"<li>{e(x)}</li>" for x in names[:20])
    more = f"<li>… and {len(names) - 20:,} more (see “Files”)</li>" if len(names) > 20 else ""
    skipped = ""
    special = result.skipped_not_regular
    others = [p for p in result.skipped_files if p not in result.skipped_hand_histories and p not in special]
    if others:
        listed = ", ".join(e(p.as_posix()) for p in others[:10])
        extra = f" and {len(others) - 10:,} more" if len(others) > 10 else ""
        skipped = (f"<tr><th>Files skipped</th><td>{len(others):,} not recognised as hand logs: "
                   f"{listed}{extra}</td></tr>")
    if special:
        listed = ", ".join(f"{e(p.as_posix())} ({e(why)})" for p, why in list(special.items())[:10])
        extra = f" and {len(special) - 10:,} more" if len(special) > 10 else ""
        skipped += (f"<tr><th>Not regular files</th><td>{len(special):,} skipped, never opened: "
                    f"{listed}{extra}</td></tr>")
    if result.findings_not_listed:
        skipped += (f"<tr><th>Findings not listed</th><td>{e(not_listed_line(result).strip())}</td></tr>")
    notes = ""
    if result.notes:
        listed = "".join(f"<li>{e(note.one_line())}</li>" for note in result.notes[:50])
        extra = (f"<li>… and {len(result.notes) - 50:,} more (see the JSON report)</li>"
                 if len(result.notes) > 50 else "")
        notes = (f"<tr><th>Reader notes</th><td>conventions of the files' rooms the readers applied (not findings)"
                 f"<ul>{listed}{extra}</ul></td></tr>")
    rate = result.hands_read / result.seconds if result.seconds else 0.0
    status = "bad" if len(findings) else "warn" if result.unaudited else "good"
    missed = ""
    if result.hands_quarantined or result.hands_not_covered:
        missed = f" {result.hands_quarantined + result.hands_not_covered:,} hand(s) were not audited."
    return f"""<section id="summary"><h2>The run</h2>
{_not_audited(result)}
<p class="verdict {status}">{len(findings):,} finding(s){': ' + sev if sev else ''} in
{result.hands_audited:,} audited hand(s).{missed}</p>
<table class="facts">
<tr><th>Hands read</th><td><b>{result.hands_read:,}</b> = audited <b>{result.hands_audited:,}</b> + not covered
<b>{result.hands_not_covered:,}</b> + quarantined <b>{result.hands_quarantined:,}</b></td></tr>
<tr><th>Inputs</th><td>{len(names):,} file(s)<ul class="inputs">{shown}{more}</ul></td></tr>
{skipped}
{notes}
<tr><th>Rule packs</th><td><ul>{packs}</ul></td></tr>
<tr><th>Time</th><td>{result.seconds:,.2f} s ({rate:,.0f} hands/s)</td></tr>
<tr><th>Report</th><td>generated {e(generated)} by poker-auditor {e(tool_version())}</td></tr>
</table></section>"""


def _not_audited(result: AuditResult) -> str:
    """The first thing on the page: what the run did not audit (the console summary's lines, as a box)."""
    lines = unaudited_lines(result)
    css = "bad" if result.unaudited else ("warn" if len(lines) > 1 else "good")
    items = "".join(f"<li>{e(line.strip())}</li>" for line in lines)
    return f'<div id="not-audited" class="not-audited {css}"><h3>Not audited</h3><ul>{items}</ul></div>'


def _charts(result: AuditResult, started: dict[HandKey, str | None]) -> str:
    findings = result.findings
    categories = findings["category"].value_counts() if len(findings) else pd.Series(dtype=int)
    by_category = [(str(k), int(v), "category") for k, v in categories.items()]
    severities = findings["severity"].value_counts() if len(findings) else pd.Series(dtype=int)
    by_severity = [(s, int(severities[s]), f"sev-{s}") for s in SEVERITIES if s in severities]
    tables = Counter(findings["table_id"]) if len(findings) else Counter()
    top = tables.most_common(15)
    by_table = [(str(k), int(v), "table") for k, v in top]
    table_note = f"the 15 with the most findings, of {len(tables):,} tables" if len(tables) > 15 else ""
    times = pd.Series([started.get((f, int(line))) for f, line in zip(findings["file"], findings["line"],
                                                                       strict=True)], dtype=object)
    buckets, time_note = time_buckets(times) if len(findings) else ([], "no findings")
    return f"""<section id="charts"><h2>Findings at a glance</h2>
<div class="charts">
<figure><figcaption>By category</figcaption>{bar_chart("chart-category", "Findings by category", by_category)}</figure>
<figure><figcaption>By severity</figcaption>{bar_chart("chart-severity", "Findings by severity", by_severity)}</figure>
<figure><figcaption>By table{' (' + e(table_note) + ')' if table_note else ''}</figcaption>
{bar_chart("chart-table", "Findings by table", by_table)}</figure>
<figure class="wide"><figcaption>Over time</figcaption>{column_chart("chart-time", "Findings over time", buckets,
                                                                         time_note)}</figure>
</div></section>"""


def _where(row: dict[str, Any]) -> str:
    return f"{e(row['file'])}:{row['line']}"


def _findings_table(result: AuditResult, max_rows: int, max_replays: int) -> str:
    rows = records(result.findings.head(max_rows))
    total = len(result.findings)
    out = [f"""<section id="findings"><h2>Findings ({total:,})</h2>"""]
    if not total:
        out.append("<p>No rule was violated in the audited hands.</p></section>")
        return "".join(out)
    if total > max_rows:
        out.append(f'<p class="cap">This table lists the first {max_rows:,} of {total:,} findings. Every finding is '
                   f"in the CSV, JSON, JSON Lines, SARIF and JUnit reports (<code>--format</code>).</p>")
    out.append("""<p class="filters"><label>Filter <input id="filter" type="search" placeholder="text in any column">
</label> <label>Severity <select id="severity-filter"><option value="">all</option><option>error</option>
<option>warning</option><option>info</option></select></label> <span id="filter-count"></span></p>
<table id="findings-table" class="sortable data"><thead><tr><th>#</th><th>Severity</th><th>Category</th><th>Rule</th>
<th>Hand</th><th>Event</th><th>Seat</th><th>Player</th><th>What happened</th><th>Where</th></tr></thead><tbody>""")
    for number, row in enumerate(rows, start=1):
        link = f'<a href="#finding-{number}">{number}</a>' if number <= max_replays else str(number)
        out.append(f'<tr data-severity="{e(row["severity"])}"><td data-value="{number}">{link}</td>'
                   f'<td><span class="sev sev-{e(row["severity"])}">{e(row["severity"])}</span></td>'
                   f'<td>{e(row["category"])}</td><td>{e(row["rule_id"])}</td><td>{e(row["hand_id"])}</td>'
                   f'<td data-value="{e(row["seq"])}">{e(row["seq"])}</td><td>{e(row["seat"])}</td>'
                   f'<td>{e(row["player"])}</td><td>{e(row["message"])}</td><td>{_where(row)}</td></tr>')
    out.append("</tbody></table></section>")
    return "".join(out)


def _coverage(result: AuditResult, rules: dict[tuple[str, str], Rule]) -> str:
    out = ["""<section id="coverage"><h2>Rules checked</h2>
<p>For each rule: the audited hands it applies to, how many could be checked, how many could not because the log
lacks a fact the rule needs (<em>not assessable</em> — never counted as passed), and how many broke it.</p>
<table class="sortable data"><thead><tr><th>Pack</th><th>Rule</th><th>Title</th><th>Category</th><th>Severity</th>
<th>Hands in scope</th><th>Checked</th><th>Not assessable</th><th>With violations</th><th>Violations</th>
<th>Result</th></tr></thead><tbody>"""]
    partly = {(r.pack, r.rule_id) for r in result.partly_assessed().itertuples(index=False)}
    for row in records(result.coverage):
        rule = rules.get((row["pack"], row["rule_id"]))
        if row["hands_with_violations"]:
            status, css = "violated", "bad"
        elif not row["hands_in_scope"]:
            status, css = "no hand in scope", "idle"
        elif not row["hands_checked"]:
            status, css = "not assessable", "idle"
        elif (row["pack"], row["rule_id"]) in partly:
            status, css = "partly assessed", "idle"
        else:
            status, css = "no violation", "good"
        out.append(f'<tr class="{css}"><td>{e(row["pack"])}</td><td>{e(row["rule_id"])}</td>'
                   f'<td>{e(rule.title if rule else "")}</td><td>{e(row["category"])}</td>'
                   f'<td><span class="sev sev-{e(row["severity"])}">{e(row["severity"])}</span></td>'
                   + "".join(f'<td class="num" data-value="{row[c]}">{n(row[c])}</td>'
                             for c in ("hands_in_scope", "hands_checked", "hands_not_assessable",
                                       "hands_with_violations", "violations"))
                   + f"<td>{status}</td></tr>")
    out.append("</tbody></table></section>")
    return "".join(out)


def _quarantine(result: AuditResult, max_rows: int) -> str:
    total = len(result.quarantined)
    out = [f"""<section id="quarantine"><h2>Quarantined hands ({total:,})</h2>
<p>Hands that could not be audited — unreadable, invalid against the hand-log schema, or impossible to replay — with
the reason, grouped by code. They are counted in “hands read” and never silently dropped.</p>"""]
    if not total:
        out.append("<p>None.</p></section>")
        return "".join(out)
    out.append('<table id="quarantine-codes" class="data"><thead><tr><th>Code</th><th>Hands</th><th>Meaning</th>'
               "</tr></thead><tbody>")
    for code, count in result.quarantined_by_code().items():
        out.append(f'<tr><td>{e(code)}</td><td class="num">{count:,}</td><td>{e(QUARANTINE_CODES[code])}</td></tr>')
    out.append("</tbody></table>")
    if total > max_rows:
        out.append(f'<p class="cap">The first {max_rows:,} of {total:,} are listed; all are in the JSON report.</p>')
    out.append('<table class="sortable data"><thead><tr><th>Code</th><th>Where</th><th>Hand</th><th>Reason</th></tr>'
               "</thead><tbody>")
    order = {code: i for i, code in enumerate(QUARANTINE_CODES)}
    listed = sorted(result.quarantined[:max_rows], key=lambda q: order.get(q.code, len(order)))
    for q in listed:
        out.append(f"<tr><td>{e(q.code)}</td><td>{e(q.file)}:{q.line}</td><td>{e(q.hand_id)}</td>"
                   f"<td>{e(' '.join(q.reason.split()))}</td></tr>")
    out.append("</tbody></table></section>")
    return "".join(out)


def _files(result: AuditResult) -> str:
    out = ["""<section id="files"><h2>Files</h2><p>Each file reconciles on its own: hands read = audited + not
covered + quarantined.</p><table class="sortable data"><thead><tr><th>File</th><th>Hands read</th><th>Audited</th>
<th>Not covered</th><th>Quarantined</th><th>Findings</th></tr></thead><tbody>"""]
    for row in records(result.per_file()):
        out.append(f'<tr><td>{e(row["file"])}</td>'
                   + "".join(f'<td class="num" data-value="{row[c]}">{n(row[c])}</td>'
                             for c in ("hands_read", "hands_audited", "hands_not_covered", "hands_quarantined",
                                       "findings"))
                   + "</tr>")
    out.append("</tbody></table></section>")
    return "".join(out)


def _finding_sections(result: AuditResult, views: dict[HandKey, HandView], rules: dict[tuple[str, str], Rule],
                      max_replays: int) -> str:
    findings = result.findings
    total = len(findings)
    if not total:
        return ""
    shown = min(total, max_replays)
    out = ['<section id="details"><h2>Each finding, with its hand replayed</h2>']
    if total > max_replays:
        out.append(f'<p class="cap">Replays are shown for the first {shown:,} of {total:,} findings, in the order of '
                   f"the findings table; the others are listed in the table and in the other report formats. "
                   f"<code>auditor explain HAND_ID PATH…</code> replays any hand in the terminal.</p>")
    rows = records(findings.head(shown))
    on_hand: dict[HandKey, list[int]] = {}
    for row in records(findings):
        if row["seq"] is not None:
            on_hand.setdefault((row["file"], int(row["line"])), []).append(int(row["seq"]))
    for number, row in enumerate(rows, start=1):
        key = (row["file"], int(row["line"]))
        out.append(_finding_section(result, number, row, views.get(key), rules.get((row["pack"], row["rule_id"])),
                                    set(on_hand.get(key, []))))
    out.append("</section>")
    return "\n".join(out)


def _finding_section(result: AuditResult, number: int, row: dict[str, Any], view: HandView | None,
                     rule: Rule | None, flagged: set[int]) -> str:
    pack = result.packs.get(row["pack"])
    sev = e(row["severity"])
    seat = f" · seat {e(row['seat'])} ({e(row['player'])})" if row["seat"] is not None else ""
    event = f" · event {e(row['seq'])}" if row["seq"] is not None else " · the hand as a whole"
    out = [f'<article class="finding" id="finding-{number}">',
           f'<h3><span class="sev sev-{sev}">{sev}</span> {number}. {e(row["rule_id"])} — '
           f'{e(rule.title if rule else row["category"])}</h3>',
           f'<p class="where">hand <b>{e(row["hand_id"])}</b>{event}{seat} · table {e(row["table_id"])} · '
           f'{e(row["variant"])} {e(row["structure"])} · {_where(row)}</p>',
           f'<p class="message">{e(row["message"])}</p>',
           '<table class="expected"><tr><th>Expected</th><td>'
           f'{e(row["expected"]) or "—"}</td></tr><tr><th>Actual</th><td>{e(row["actual"]) or "—"}</td></tr></table>']
    pack_text = f"{pack.name} {pack.version}" if pack else row["pack"]
    out.append(f'<div class="rule"><p><b>Rule:</b> {e(row["citation"])} <span class="muted">({e(pack_text)}, '
               f'category {e(row["category"])})</span></p>')
    if rule:
        out.append(f"<blockquote>{e(' '.join(rule.text.split()))}</blockquote>")
        out.append(f'<p class="why"><b>Why it matters:</b> {e(" ".join(rule.why.split()))}</p>')
        if rule.notes:
            out.append(f'<p class="why"><b>How it is read:</b> {e(" ".join(rule.notes.split()))}</p>')
    out.append("</div>")
    if view is None:
        out.append('<p class="muted">The hand could not be read again from its log (was the file changed or moved '
                   "since the audit?), so it is not replayed here.</p>")
    else:
        out.append(_replay(view, row, flagged))
    out.append("</article>")
    return "".join(out)


def _replay(view: HandView, row: dict[str, Any], flagged: set[int]) -> str:
    target = row["seq"]
    seats = ", ".join(f"{seat} {e(player)} ({e(view.money(stack))}{'' if status == 'active' else ', ' + e(status)})"
                      for seat, player, stack, status in view.seats)
    out = [f'<details open><summary>Replay of hand {e(view.hand_id)} ({len(view.steps)} events)</summary>',
           f'<p class="muted">started {e(view.started_at) or "—"} · stakes: {e(view.stakes)} · seats: {seats}</p>']
    if target is None:
        out.append('<p class="muted">This finding is about the hand as a whole, not one event.</p>')
    if view.state_note:
        out.append(f'<p class="muted">The table state is not shown: {e(view.state_note)}</p>')
    out.append('<table class="replay"><thead><tr><th>#</th><th>Event</th><th>Pot before</th><th>To call</th>'
               "<th>Raises so far</th><th>Whose turn</th></tr></thead><tbody>")
    current: object = object()
    for step in view.steps:
        if step.round != current:
            current = step.round
            if step.round is not None:
                opener = view.round_openers.get(step.round)
                heading = f"Betting round {step.round}" + (f" — {e(opener)}" if opener else "")
                out.append(f'<tr class="round"><th colspan="6">{heading}</th></tr>')
        css = "violation" if step.seq == target else ("flagged" if step.seq in flagged else "")
        marker = ' <span class="marker">◀ this finding</span>' if step.seq == target else (
            ' <span class="marker other">◀ another finding</span>' if step.seq in flagged else "")
        turn = ""
        if step.kind == "action" and step.pot is not None:
            turn = f"seat {step.expected_seat}" if step.expected_seat is not None else "nobody (round over)"
        out.append(f'<tr class="{css}"><td>{step.seq}</td><td>{e(step.text)}{marker}</td>'
                   f'<td class="num">{e(view.money(step.pot))}</td><td class="num">{e(view.money(step.to_call))}</td>'
                   f'<td class="num">{n(step.raises)}</td><td>{turn}</td></tr>')
    out.append("</tbody></table></details>")
    return "".join(out)


# ------------------------------------------------------------------------------------- page chrome

_STYLE = """
:root{--fg:#1d2330;--muted:#5b6472;--line:#d9dde3;--bg:#fff;--soft:#f4f6f8;--bad:#c62828;--good:#2e7d32}
*{box-sizing:border-box}body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);
background:var(--bg);margin:0}header{background:#17324d;color:#fff;padding:18px 28px}header h1{margin:0;font-size:22px}
header nav a{color:#cfe3ff;margin-right:14px;text-decoration:none}main{padding:8px 28px 40px;max-width:1400px}
h2{border-bottom:2px solid var(--line);padding-bottom:4px;margin-top:32px}h3{margin:0 0 6px;font-size:17px}
table{border-collapse:collapse}table.data,table.replay{width:100%;font-size:13px}
th,td{text-align:left;padding:4px 8px;border-bottom:1px solid var(--line);vertical-align:top}
thead th{background:var(--soft);position:sticky;top:0}table.sortable thead th{cursor:pointer}
td.num{text-align:right;font-variant-numeric:tabular-nums}table.facts th{width:150px;color:var(--muted)}
table.facts ul{margin:2px 0;padding-left:18px}.inputs{max-height:220px;overflow:auto}
.verdict{font-size:18px;font-weight:600;padding:8px 12px;border-radius:6px}
.verdict.bad{background:#fdecea}.verdict.good{background:#e8f5e9}.verdict.warn{background:#fff4e5}
.not-audited{border:1px solid var(--line);border-left:5px solid var(--good);border-radius:6px;padding:6px 14px;
margin:12px 0}.not-audited.bad{border-left-color:var(--bad);background:#fdecea}
.not-audited.warn{border-left-color:#e07000;background:#fff4e5}.not-audited ul{margin:4px 0}
.sev{display:inline-block;padding:0 6px;border-radius:4px;color:#fff;font-size:12px;font-weight:600}
.sev-error{background:#c62828}.sev-warning{background:#e07000}.sev-info{background:#1565c0}
tr.bad td{background:#fff5f5}tr.idle td{color:var(--muted)}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(420px,1fr));gap:18px}
figure{margin:0;border:1px solid var(--line);border-radius:6px;padding:10px}figure.wide{grid-column:1/-1}
figcaption{font-weight:600;margin-bottom:6px}svg.chart{display:block;max-width:100%;height:auto}
svg .label,svg .value,svg .tick,svg .note,svg .empty{font-size:12px;fill:#333}svg .note{fill:var(--muted)}
svg .bar{fill:#4a78a8}svg .bar.sev-error{fill:#c62828}svg .bar.sev-warning{fill:#e07000}
svg .bar.sev-info{fill:#1565c0}svg .bar.time{fill:#5c6bc0}svg .axis{stroke:#999}
.filters input,.filters select{font:inherit;padding:2px 6px}.cap{background:#fff8e1;padding:6px 10px;border-radius:4px}
article.finding{border:1px solid var(--line);border-left:5px solid var(--bad);border-radius:6px;padding:12px 16px;
margin:16px 0}.where,.muted{color:var(--muted);font-size:13px}.message{font-weight:600}
table.expected th{color:var(--muted);width:90px}
blockquote{margin:6px 0;padding:6px 12px;border-left:3px solid var(--line);background:var(--soft)}
tr.round th{background:#e8eef6}tr.violation td{background:#ffe3e0;font-weight:600}
tr.flagged td{background:#fff4e5}.marker{color:var(--bad);font-weight:700}.marker.other{color:#a65b00}
summary{cursor:pointer;font-weight:600;margin:8px 0}code{background:var(--soft);padding:0 4px}
@media print{header nav,.filters{display:none}thead th{position:static}details{display:block}}
"""

_SCRIPT = """
(function () {
  "use strict";
  var root = document.documentElement;
  var input = document.getElementById("filter");
  var severity = document.getElementById("severity-filter");
  var table = document.getElementById("findings-table");
  function applyFilter() {
    if (!table) { return; }
    var text = input.value.toLowerCase(), sev = severity.value, shown = 0;
    Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
      var ok = (!text || row.textContent.toLowerCase().indexOf(text) >= 0) &&
               (!sev || row.getAttribute("data-severity") === sev);
      row.hidden = !ok;
      if (ok) { shown += 1; }
    });
    document.getElementById("filter-count").textContent = shown + " shown";
  }
  if (table) {
    input.addEventListener("input", applyFilter);
    severity.addEventListener("change", applyFilter);
    applyFilter();
  }
  function cellValue(row, index) {
    var cell = row.cells[index];
    var raw = cell.getAttribute("data-value");
    if (raw !== null && raw !== "" && !isNaN(Number(raw))) { return Number(raw); }
    return cell.textContent.trim().toLowerCase();
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (sortable) {
    Array.prototype.forEach.call(sortable.tHead.rows[0].cells, function (th, index) {
      th.addEventListener("click", function () {
        var body = sortable.tBodies[0], rows = Array.prototype.slice.call(body.rows);
        var down = th.getAttribute("data-sorted") === "up";
        rows.sort(function (a, b) {
          var x = cellValue(a, index), y = cellValue(b, index);
          if (x === y) { return 0; }
          return (x < y ? -1 : 1) * (down ? -1 : 1);
        });
        rows.forEach(function (row) { body.appendChild(row); });
        th.setAttribute("data-sorted", down ? "down" : "up");
      });
    });
  });
  root.setAttribute("data-report-ready", "1");
}());
"""


def _hash(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def _page(title: str, body: str) -> str:
    policy = (f"default-src 'none'; script-src '{_hash(_SCRIPT)}'; style-src '{_hash(_STYLE)}'; img-src data:; "
              "base-uri 'none'; form-action 'none'")
    nav = "".join(f'<a href="#{anchor}">{label}</a>' for anchor, label in (
        ("summary", "Run"), ("charts", "Charts"), ("findings", "Findings"), ("coverage", "Rules"),
        ("quarantine", "Quarantine"), ("files", "Files"), ("details", "Replays")))
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{policy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="poker-auditor {e(tool_version())}">
<title>{e(title)}</title>
<style>{_STYLE}</style>
</head>
<body>
<header><h1>{e(title)}</h1><nav>{nav}</nav></header>
<main>
{body}
</main>
<script>{_SCRIPT}</script>
</body>
</html>
"""
