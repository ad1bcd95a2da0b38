"""The HTML report: one self-contained page for a person who is not a programmer, at 28 findings or 50,000.

The page is laid out in Jinja2 templates (`report/templates/`: `report.html.j2`, `charts.html.j2`,
`report.css`, `report.js`) that a designer can edit; this module only gathers the numbers. What it
holds, top to bottom: a headline (verdict, what was not audited, the period the hands cover); what the
run did *not* audit; the run (inputs, packs, hands read = audited + not covered + quarantined, readers'
notes, time); the manifest (if `auditor.report.manifest` provides one); charts (by category, severity,
table, findings per 1,000 hands by table, over time) — a chart with nothing to show is left out, not
drawn empty; the findings table; the text of each violated rule, once; rule coverage; quarantined
hands; files; and each finding with its hand replayed (collapsed, one open at a time).

Size: tables are written whole into the page, and the page's own script pages them (100 rows a page),
filters and sorts them, so 50,000 findings open in a browser; `benchmarks/html_report.py` measures it.
File names are shown as the inputs were given, with their common folder stated once.

Everything in a hand log is attacker-controlled (player and table names, ids, cards as written). The
templates run with autoescaping on, and every value first passes `_finalize` (control characters
dropped); nothing from a log is placed in a script, a URL or an id: anchors are numbered. The one
inline script and the one stylesheet are ours; a Content-Security-Policy allows only them (by hash)
and no network at all, so even a value that got past the escaping could not run code or fetch anything.

A report never reads a log again nor replays a hand (ingest -> replay -> check -> report): the replays
are the views the audit kept of the first hands with findings (`AuditResult.views`, made from the
replay that audited them; at most `max_replays` findings per page, which the page says), the
findings-per-1,000-hands figure divides by the hands per table the audit counted (`table_hands`), the
findings over time use the start of each hand with findings it recorded (`finding_hands`), and the
period covered is the run's (`hand_periods`). The page is the same with the logs moved or deleted.
"""

from __future__ import annotations

import base64
import hashlib
import html
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from typing import Any, TextIO

import pandas as pd
from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from auditor.check.packs import Rule
from auditor.model.records import QUARANTINE_CODES
from auditor.model.results import MAX_VIEWS, AuditResult, HandKey
from auditor.report.common import records, rules_by_id, tool_version
from auditor.report.hands import HandView, round_heading
from auditor.report.text import not_listed_line, strip_control, unaudited_lines

#: findings replayed on the page: the audit keeps the views of as many hands (`model.results.MAX_VIEWS`)
MAX_REPLAYS = MAX_VIEWS
MAX_TABLE_ROWS = 50_000
SEVERITIES = ("error", "warning", "info")
#: rows a table shows per page in the browser (the page's script pages longer tables)
PAGE_ROWS = 100


def _missing(value: object) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and value != value)


def e(value: object) -> str:
    """Any value as HTML text or attribute content: control characters dropped, <>&\"' escaped.

    The templates do the same through autoescaping and `_finalize`; this is for callers outside them."""
    return "" if _missing(value) else html.escape(strip_control(str(value)), quote=True)


def n(value: object) -> str:
    """A count with thousands separators; empty when missing."""
    return "" if _missing(value) else f"{int(value):,}"


def _finalize(value: object) -> object:
    """Every `{{ value }}` of the templates passes here before autoescaping: missing values print as
    nothing and log text loses its control characters (a terminal escape has no business in a page)."""
    kind = type(value)
    if kind is str and value.isprintable():  # type: ignore[union-attr]
        return value  # the common case, in C: no control character, escape or lone surrogate to drop
    if kind is int:
        return str(value)
    if isinstance(value, Markup):
        return value
    if _missing(value):
        return ""
    return strip_control(str(value))


@cache
def environment() -> Environment:
    """The templates' environment: autoescaping on for every template (tests check it stays on)."""
    env = Environment(loader=PackageLoader("auditor.report", "templates"),
                      autoescape=select_autoescape(default=True, default_for_string=True),
                      finalize=_finalize, undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["n"] = n
    return env


def _asset(name: str) -> str:
    return environment().loader.get_source(environment(), name)[0]  # type: ignore[union-attr]


# ---------------------------------------------------------------------------------------------- names


class Names:
    """File names as the inputs were given (`sample_logs/x.jsonl`), never absolute machine paths in one
    section and relative in another: findings name the file the reader opened, so each is mapped back to
    its input's name; then the folder every name shares is stated once and cut from each."""

    def __init__(self, result: AuditResult) -> None:
        self._given: dict[str, str] = {}
        #: where the inputs' names start inside their absolute paths (`/home/x/` of `/home/x/logs/a.jsonl`
        #: given as `logs`): a skipped file is found by path, and is shown from there too
        self._roots: set[str] = set()
        for item in result.inputs:
            name = item.name or item.path.as_posix()
            for alias in {str(item.path), item.path.as_posix(), item.label, item.shown, item.name} - {""}:
                self._given[alias] = name
            full = item.path.as_posix()
            if name != full and full.endswith("/" + name):
                self._roots.add(full[:-len(name)])
        every = [self._as_given(str(f)) for f in self._all_files(result)]
        self.prefix = _common_folder(every)

    @staticmethod
    def _all_files(result: AuditResult) -> list[str]:
        files = [item.name or item.path.as_posix() for item in result.inputs]
        if len(result.findings):
            files += [str(f) for f in result.findings["file"].unique()]
        files += [q.file for q in result.quarantined]
        return files

    def _as_given(self, file: str) -> str:
        if file in self._given:
            return self._given[file]
        archive, sep, member = file.partition("!")
        if sep and archive in self._given:
            return f"{self._given[archive]}!{member}"
        root = next((r for r in sorted(self._roots, key=len, reverse=True) if file.startswith(r)), "")
        return file[len(root):]

    def in_text(self, text: str) -> str:
        """A line of prose that names files (a reader's note, the not-audited lines) with the same roots cut."""
        for root in sorted(self._roots, key=len, reverse=True):
            text = text.replace(root, "")
        if self.prefix:  # the common folder too, where a name starts (not inside another word or path)
            text = re.sub(r"(?<![\w/.~-])" + re.escape(self.prefix), "", text)
        return text

    def __call__(self, file: object) -> str:
        shown = self._as_given(str(file))
        if self.prefix and shown.startswith(self.prefix):
            return shown[len(self.prefix):]
        return shown


def _common_folder(names: list[str]) -> str:
    """The folder (ending in /) that every name is inside, else ""; a single file keeps its folder shown."""
    folders = {name.rpartition("/")[0] for name in names if "!" not in name.partition("/")[0]}
    if not names or len(set(names)) < 2 or not all("/" in name for name in names):
        return ""
    try:
        common = os.path.commonpath(list(folders))
    except ValueError:  # absolute and relative names mixed
        return ""
    return common + "/" if common not in ("", "/") else ""


# ---------------------------------------------------------------------------------------------- charts


@dataclass
class Bar:
    label: str
    short: str
    value: int
    shown: str  # the value as printed beside the bar
    css: str
    y: int
    width: int


@dataclass
class BarChart:
    """A horizontal bar chart, laid out here (coordinates) and drawn by `charts.html.j2`."""

    id: str
    title: str
    caption: str
    bars: list[Bar]
    label_w: int
    bar_w: int
    width: int
    height: int


def bar_chart(chart_id: str, title: str, items: list[tuple[str, float, str]], caption: str = "",
              value_format: str = "{:,}") -> BarChart | None:
    """Bars for (label, value, css class), largest first as given; None when there is nothing to draw.

    The label column is as wide as the longest label needs (up to 44 characters, the rest cut with an
    ellipsis and the full label in the tooltip), so table names are not clipped at a fixed width."""
    if not items:
        return None
    row, top, bar_w = 24, 8, 300
    longest = min(max(len(label) for label, _, _ in items), 44)
    label_w = max(60, round(longest * 8.2) + 20)  # 8.2 px: a 12 px capital or digit, with room
    peak = max((v for _, v, _ in items), default=0) or 1
    bars = [Bar(label, label if len(label) <= 44 else label[:43] + "…", int(value) if float(value).is_integer()
                else value, value_format.format(value), css, top + i * row, max(round(bar_w * value / peak), 1))
            for i, (label, value, css) in enumerate(items)]
    return BarChart(chart_id, title, caption, bars, label_w, bar_w, label_w + bar_w + 80,
                    top * 2 + row * len(items))


@dataclass
class Column:
    label: str
    value: int
    x: float
    y: int
    height: int
    tick: bool
    anchor: str = "middle"  # of its date label: the first starts at its column, the last ends there (never clipped)


@dataclass
class ColumnChart:
    """Findings per time bucket, laid out here and drawn by `charts.html.j2`."""

    id: str
    title: str
    caption: str
    note: str
    columns: list[Column]
    bar: float
    peak: int
    width: int = 1000
    height: int = 230
    left: int = 48
    top: int = 12
    base: int = 0
    ticks: list[Column] = field(default_factory=list)


def column_chart(chart_id: str, title: str, items: list[tuple[str, int]], note: str,
                 caption: str) -> ColumnChart | None:
    """Vertical columns over time buckets, with at most about 8 date labels on the axis so none overlap."""
    if not items:
        return None
    width, height, left, bottom, top = 1000, 230, 48, 44, 12
    plot_w, plot_h = width - left - 10, height - top - bottom
    peak = max(v for _, v in items) or 1
    slot = plot_w / len(items)
    bar = max(min(slot * 0.8, 40), 1)
    base = top + plot_h
    longest = max(len(label) for label, _ in items)
    every = max(1, -(-len(items) * longest * 7 // int(plot_w * 0.9)))  # labels' width must fit the axis
    columns = []
    for i, (label, value) in enumerate(items):
        h = round(plot_h * value / peak)
        columns.append(Column(label, value, round(left + i * slot + (slot - bar) / 2, 1), base - h, h, i % every == 0))
    ticks = [c for c in columns if c.tick]
    if len(ticks) > 1:
        ticks[0].anchor, ticks[-1].anchor = "start", "end"
    elif ticks:
        ticks[0].anchor = "start"
    return ColumnChart(chart_id, title, caption, note, columns, round(bar, 1), peak, width, height, left, top, base,
                       ticks)


def time_buckets(times: pd.Series) -> tuple[list[tuple[str, int]], str, str]:
    """Findings per hour, day or month (by the period covered), a note on unknown times, and the bucket."""
    parsed = pd.to_datetime(times, utc=True, errors="coerce", format="mixed") if len(times) else pd.Series(
        dtype="datetime64[ns, UTC]")
    unknown = int(parsed.isna().sum())
    known = parsed.dropna()
    note = f"{unknown:,} finding(s) in hands with no start time are not shown" if unknown else ""
    if known.empty:
        return [], note or "no start times", ""
    span = known.max() - known.min()
    if span <= pd.Timedelta(days=2):
        unit, fmt, label = "h", "%Y-%m-%d %H:00", "hour"
    elif span <= pd.Timedelta(days=92):
        unit, fmt, label = "D", "%Y-%m-%d", "day"
    else:
        unit, fmt, label = "M", "%Y-%m", "month"
    periods = known.dt.tz_localize(None).dt.to_period(unit)
    counts = periods.value_counts()
    full = pd.period_range(periods.min(), periods.max(), freq=unit)
    items = [(p.strftime(fmt), int(counts.get(p, 0))) for p in full]
    per = f"findings per {label} (UTC) of the hands' start times"
    return items, f"{per}; {note}" if note else per, label


# ------------------------------------------------------------------------------------------ the hands


def _finding_starts(result: AuditResult) -> pd.Series:
    """The start time of each finding's hand, in the findings' order, from what the audit recorded of the
    hands with findings (`AuditResult.finding_hands`); missing where it has none."""
    findings = result.findings
    starts = result.finding_hands
    if starts is None or not len(starts):
        return pd.Series([None] * len(findings), dtype=object)
    keys = pd.DataFrame({"file": findings["file"].astype(object).to_numpy(),
                         "line": findings["line"].astype("int64").to_numpy()})
    known = pd.DataFrame({"file": starts["file"].astype(object).to_numpy(),
                          "line": starts["line"].astype("int64").to_numpy(),
                          "started_at": starts["started_at"].astype(object).to_numpy()})
    return keys.merge(known, on=["file", "line"], how="left")["started_at"].astype(object)


# ------------------------------------------------------------------------------------------ the page


def render(result: AuditResult, max_replays: int = MAX_REPLAYS, max_rows: int = MAX_TABLE_ROWS) -> str:
    """The whole page as one string, from the result alone (no log is read again).

    At most `result.view_limit` findings are replayed, however many are asked for: the first that many
    findings lie in at most that many hands, all of which the audit kept."""
    max_replays = min(max_replays, getattr(result, "view_limit", MAX_VIEWS))
    names = Names(result)
    rules = rules_by_id(result)
    findings = result.findings
    style, script = _asset("report.css"), _asset("report.js")
    rule_anchor = _rule_anchors(result)
    context = {
        "title": _title(result),
        "headline": _headline(result),
        # ours (hashes and keywords only): as written, inside the attribute's double quotes
        "policy": Markup(f"default-src 'none'; script-src '{_hash(script)}'; style-src '{_hash(style)}'; "
                         "img-src data:; base-uri 'none'; form-action 'none'"),
        "style": Markup(style), "script": Markup(script),  # ours, from the package, never log text
        "version": tool_version(),
        "generated": datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC"),
        "result": result,
        "prefix": names.prefix,
        "not_audited": _not_audited(result, names),
        "summary": _summary(result, names),
        "manifest": _manifest(result, names),
        "charts": _charts(result),
        "findings": _findings_rows(result, names, max_rows, max_replays, rule_anchor),
        "findings_total": len(findings),
        "max_rows": max_rows,
        "page_rows": PAGE_ROWS,
        "rule_ids": sorted(set(findings["rule_id"])) if len(findings) else [],
        "severities": [s for s in SEVERITIES if len(findings) and (findings["severity"] == s).any()],
        "rule_texts": _rule_texts(result, rules, rule_anchor),
        "coverage": _coverage(result, rules),
        "quarantine": _quarantine(result, names, max_rows),
        "quarantine_codes": [(code, count, QUARANTINE_CODES[code])
                             for code, count in result.quarantined_by_code().items()],
        "files": _files(result, names),
        "tables": _tables(result),
        "details": _finding_sections(result, result.views, names, max_replays, rule_anchor),
        "max_replays": max_replays,
    }
    return environment().get_template("report.html.j2").render(context)


def write_html(result: AuditResult, out: TextIO, max_replays: int = MAX_REPLAYS,
               max_rows: int = MAX_TABLE_ROWS) -> None:
    out.write(render(result, max_replays, max_rows))


def _title(result: AuditResult) -> str:
    findings = len(result.findings)
    title = f"{findings:,} finding(s)" if findings else "no findings"
    missed = result.hands_quarantined + result.hands_not_covered + len(result.skipped_hand_histories)
    if missed:
        title += f", {missed:,} not audited"
    return f"Poker audit report — {title}"


def _run_period(result: AuditResult) -> str:
    """First to last hand start over every hand read, as the run measured it (`engines.periods`), with the
    hands that had no start time counted; "" when the run has no such record."""
    periods = getattr(result, "hand_periods", None) or {}
    firsts = [p.first for p in periods.values() if p.first is not None]
    lasts = [p.last for p in periods.values() if p.last is not None]
    if not firsts or not lasts:
        return ""
    fmt = "%Y-%m-%d %H:%M"
    first, last = pd.Timestamp(min(firsts), tz="UTC"), pd.Timestamp(max(lasts), tz="UTC")
    untimed = sum(p.untimed for p in periods.values())
    extra = f"; {untimed:,} hand(s) without a start time" if untimed else ""
    return f"{first.strftime(fmt)} to {last.strftime(fmt)} UTC{extra}"


def _headline(result: AuditResult) -> dict[str, Any]:
    """The three things the page states first: the verdict, what was not audited, the period covered."""
    missed = []
    if result.hands_quarantined:
        missed.append(f"{result.hands_quarantined:,} hand(s) quarantined")
    if result.hands_not_covered:
        missed.append(f"{result.hands_not_covered:,} hand(s) not covered by their pack")
    if result.skipped_hand_histories:
        missed.append(f"{len(result.skipped_hand_histories):,} hand-history file(s) of rooms this auditor cannot read")
    period = _run_period(result)
    if period:
        period = f"hands played {period}"
    status = "bad" if len(result.findings) else "warn" if result.unaudited else "good"
    findings = result.findings
    if len(findings):
        by_sev = findings["severity"].value_counts()
        found = f"{len(findings):,} finding(s) (" + ", ".join(f"{by_sev[s]:,} {s}" for s in SEVERITIES if s in by_sev)
        found += f") in {result.hands_audited:,} audited hand(s)"
    else:
        found = f"no findings in {result.hands_audited:,} audited hand(s)"
    return {"verdict": found, "status": status,
            "not_audited": "; ".join(missed) or "nothing: every hand read was audited", "period": period}


def _not_audited(result: AuditResult, names: Names) -> dict[str, Any]:
    lines = [names.in_text(line) for line in unaudited_lines(result)]
    css = "bad" if result.unaudited else ("warn" if len(lines) > 1 else "good")
    return {"css": css, "lines": [line.strip() for line in lines]}


def _summary(result: AuditResult, names: Names) -> dict[str, Any]:
    findings = result.findings
    by_sev = findings["severity"].value_counts() if len(findings) else pd.Series(dtype=int)
    special = result.skipped_not_regular
    others = [p for p in result.skipped_files if p not in result.skipped_hand_histories and p not in special]
    notes = [names.in_text(note.one_line()) for note in result.notes[:50]]
    return {
        "severities": [(s, int(by_sev[s])) for s in SEVERITIES if s in by_sev],
        "packs": list(result.packs.values()),
        "inputs": [names(item.name or item.path.as_posix()) for item in result.inputs[:20]],
        "inputs_total": len(result.inputs),
        "skipped": [names(p.as_posix()) + (f": a {result.skipped_documents[p]}" if p in result.skipped_documents
                                           else "") for p in others[:10]], "skipped_total": len(others),
        "special": [(names(p.as_posix()), why) for p, why in list(special.items())[:10]],
        "special_total": len(special),
        "not_listed": not_listed_line(result).strip() if result.findings_not_listed else "",
        "notes": notes, "notes_total": len(result.notes),
        "rate": result.hands_read / result.seconds if result.seconds else 0.0,
    }


def _manifest(result: AuditResult, names: Names) -> dict[str, Any] | None:
    """The run's evidence manifest (`auditor.report.manifest.manifest_dict`, when that module is there),
    laid out for reading: facts of the run, a row per input (its name as given, size, SHA-256, hands,
    period) and per pack. The working directory is the one absolute path, stated once; the JSON report
    and `audit --manifest` hold the manifest whole."""
    try:
        from auditor.report.manifest import manifest_dict
    except ImportError:
        return None
    try:
        manifest = manifest_dict(result)
    except Exception as exc:  # the report still has everything else; it says what failed
        return {"facts": [("manifest", f"could not be built: {type(exc).__name__}: {exc}")], "inputs": [],
                "packs": []}
    run = manifest.get("run") or {}
    tool = manifest.get("tool") or {}
    period = manifest.get("period") or {}
    hands = manifest.get("hands") or {}
    facts = [("Tool", f"{tool.get('name', '')} {tool.get('version', '')}".strip()),
             ("Command", run.get("command_line") or "—"),
             ("Working directory", run.get("working_directory") or "—"),
             ("Started, ended", f"{run.get('started_at') or '—'} — {run.get('ended_at') or '—'}"),
             ("Hands", ", ".join(f"{k.replace('_', ' ')} {v:,}" for k, v in hands.items() if isinstance(v, int))),
             ("Period", f"{period.get('first_hand_at') or '—'} to {period.get('last_hand_at') or '—'}"
                        + (f"; {period['hands_without_time']:,} hand(s) without a start time"
                           if period.get("hands_without_time") else ""))]
    inputs = []
    for entry in manifest.get("inputs") or []:
        read = (entry.get("hands") or {}).get("hands_read", (entry.get("hands") or {}).get("read"))
        span = entry.get("period") or {}
        inputs.append({"name": names(entry.get("name") or ""), "format": entry.get("format"),
                       "size": entry.get("size"), "sha256": entry.get("sha256") or entry.get("error") or "—",
                       "hands": read,
                       "period": f"{span.get('first_hand_at') or '—'} to {span.get('last_hand_at') or '—'}",
                       "changed": bool(entry.get("changed_during_audit"))})
    packs = [{"name": pack.get("name"), "version": pack.get("version"), "file": pack.get("file"),
              "sha256": pack.get("sha256"), "effective": pack.get("effective_sha256")}
             for pack in manifest.get("packs") or []]
    return {"facts": facts, "inputs": inputs, "packs": packs, "version": manifest.get("manifest")}


def _charts(result: AuditResult) -> list[Any]:
    """The charts that have something to show (an empty chart box is left out)."""
    findings = result.findings
    if not len(findings):
        return []
    categories = findings["category"].value_counts()
    severities = findings["severity"].value_counts()
    tables = Counter(findings["table_id"])
    top = tables.most_common(15)
    many = f" (the 15 with the most, of {len(tables):,} tables)" if len(tables) > 15 else ""
    rates = _rates(tables, result.table_hands)[:15]
    times = _finding_starts(result)
    buckets, note, unit = time_buckets(times)
    charts = [
        bar_chart("chart-category", "Findings by category", [(str(k), int(v), "category")
                                                              for k, v in categories.items()], "By category"),
        bar_chart("chart-severity", "Findings by severity", [(s, int(severities[s]), f"sev-{s}")
                                                              for s in SEVERITIES if s in severities], "By severity"),
        bar_chart("chart-table", "Findings by table", [(str(k), int(v), "table") for k, v in top],
                  f"By table{many}"),
        bar_chart("chart-rate", "Findings per 1,000 hands, by table", [(t, r, "rate") for t, _, _, r in rates],
                  "Findings per 1,000 hands, by table (compares tables of different size)", "{:,.1f}"),
        column_chart("chart-time", "Findings over time", buckets, note,
                     f"Over time, per {unit}" if unit else "Over time"),
    ]
    return [c for c in charts if c is not None]


def _rates(tables: Counter, hands: Counter) -> list[tuple[str, int, int, float]]:
    """(table, findings, hands, findings per 1,000 hands), highest rate first; tables whose hands were
    not counted are left out rather than shown with a made-up base."""
    out = [(str(t), int(f), int(hands[t]), 1000 * f / hands[t]) for t, f in tables.items() if hands.get(t)]
    return sorted(out, key=lambda r: (-r[3], r[0]))


def _tables(result: AuditResult) -> list[tuple[str, int, int, float]]:
    if not len(result.findings):
        return []
    return _rates(Counter(result.findings["table_id"]), result.table_hands)


def _rule_anchors(result: AuditResult) -> dict[tuple[str, str], int]:
    """A number per violated (pack, rule): the anchor of its text, written once (`#rule-N`)."""
    if not len(result.findings):
        return {}
    pairs = result.findings[["pack", "rule_id"]].drop_duplicates()
    return {(str(p), str(r)): i for i, (p, r) in enumerate(pairs.itertuples(index=False, name=None), start=1)}


def _rule_texts(result: AuditResult, rules: dict[tuple[str, str], Rule],
                anchors: dict[tuple[str, str], int]) -> list[dict[str, Any]]:
    if not anchors:
        return []
    counts = result.findings.groupby(["pack", "rule_id"]).size()
    first = result.findings.drop_duplicates(["pack", "rule_id"]).set_index(["pack", "rule_id"])
    out = []
    for key, number in anchors.items():
        rule = rules.get(key)
        pack = result.packs.get(key[0])
        row = first.loc[key]
        out.append({"number": number, "rule_id": key[1], "pack": f"{pack.name} {pack.version}" if pack else key[0],
                    "title": rule.title if rule else row["category"], "citation": row["citation"],
                    "category": row["category"], "severity": row["severity"], "count": int(counts[key]),
                    "text": " ".join(rule.text.split()) if rule else "",
                    "why": " ".join(rule.why.split()) if rule else "",
                    "notes": " ".join(rule.notes.split()) if rule and rule.notes else ""})
    return out


def _findings_rows(result: AuditResult, names: Names, max_rows: int, max_replays: int,
                   anchors: dict[tuple[str, str], int]) -> list[dict[str, Any]]:
    rows = records(result.findings.head(max_rows))
    for number, row in enumerate(rows, start=1):
        row["number"] = number
        row["linked"] = number <= max_replays
        row["shown_file"] = names(row["file"])
        row["rule_anchor"] = anchors.get((row["pack"], row["rule_id"]))
        row["message"] = names.in_text(row["message"] or "")  # a message may name a file (`at logs/a.txt:1`)
    return rows


def _coverage(result: AuditResult, rules: dict[tuple[str, str], Rule]) -> list[dict[str, Any]]:
    partly = {(r.pack, r.rule_id) for r in result.partly_assessed().itertuples(index=False)}
    out = []
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
        out.append({**row, "title": rule.title if rule else "", "status": status, "css": css})
    return out


def _quarantine(result: AuditResult, names: Names, max_rows: int) -> list[dict[str, Any]]:
    order = {code: i for i, code in enumerate(QUARANTINE_CODES)}
    listed = sorted(result.quarantined[:max_rows], key=lambda q: order.get(q.code, len(order)))
    return [{"code": q.code, "file": names(q.file), "line": q.line, "hand_id": q.hand_id,
             "reason": " ".join(q.reason.split())} for q in listed]


def _files(result: AuditResult, names: Names) -> list[dict[str, Any]]:
    rows = records(result.per_file())
    for row in rows:
        row["file"] = names(row["file"])
    return rows


def _finding_sections(result: AuditResult, views: dict[HandKey, HandView], names: Names, max_replays: int,
                      anchors: dict[tuple[str, str], int]) -> list[dict[str, Any]]:
    findings = result.findings
    if not len(findings):
        return []
    on_hand: dict[HandKey, set[int]] = {}
    with_seq = findings[findings["seq"].notna()]
    for file, line, seq in zip(with_seq["file"], with_seq["line"], with_seq["seq"], strict=True):
        on_hand.setdefault((file, int(line)), set()).add(int(seq))
    rules = rules_by_id(result)
    out = []
    for number, row in enumerate(records(findings.head(max_replays)), start=1):
        key = (row["file"], int(row["line"]))
        for text in ("message", "expected", "actual"):
            row[text] = names.in_text(row[text]) if isinstance(row[text], str) else row[text]
        rule = rules.get((row["pack"], row["rule_id"]))
        view = views.get(key)
        out.append({"number": number, "row": row, "shown_file": names(row["file"]),
                    "title": rule.title if rule else row["category"],
                    "rule_anchor": anchors.get((row["pack"], row["rule_id"])),
                    "replay": _replay(view, row, on_hand.get(key, set())) if view is not None else None})
    return out


def _replay(view: HandView, row: dict[str, Any], flagged: set[int]) -> dict[str, Any]:
    target = row["seq"]
    seats = ", ".join(f"{seat} {strip_control(str(player))} ({view.money(stack)}"
                      f"{'' if status == 'active' else ', ' + status})" for seat, player, stack, status in view.seats)
    steps = []
    current: object = object()
    for step in view.steps:
        heading = None
        if step.round != current:
            current = step.round
            if step.round is not None:
                opener = view.round_openers.get(step.round)
                heading = round_heading(view, step.round) + (f" — {opener}" if opener else "")
        turn = ""
        if step.kind == "action" and step.pot is not None:
            turn = f"seat {step.expected_seat}" if step.expected_seat is not None else "nobody (round over)"
        mark = "this" if step.seq == target else ("other" if step.seq in flagged else "")
        steps.append({"heading": heading, "seq": step.seq, "text": step.text, "mark": mark,
                      "pot": view.money(step.pot), "to_call": view.money(step.to_call), "raises": n(step.raises),
                      "turn": turn})
    return {"view": view, "seats": seats, "steps": steps, "whole": target is None}


def _hash(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")
