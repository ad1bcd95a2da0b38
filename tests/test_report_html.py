"""The HTML report: its content checked as text, then rendered in real headless Chromium.

In the browser: the page renders (a screenshot is taken), its own script runs under the page's
Content-Security-Policy, the charts are in the rendered DOM, and players named `<script>...</script>`
show as text and run nothing (their script would set document.title). `.ci/run` installs Debian's
Chromium; the browser test is skipped, saying so, only where /usr/bin/chromium is absent.

`AUDITOR_SCREENSHOT=1 python3 -m pytest tests/test_report_html.py` also rewrites
docs/report-screenshot.png from the sample logs' report.
"""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import zipfile
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from auditor.cli import main
from auditor.model.results import AuditResult
from auditor.pipeline import audit
from auditor.report.html import Names, column_chart, environment, render, time_buckets

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_logs"
MALICIOUS = Path(__file__).resolve().parent / "fixtures" / "reports" / "malicious.jsonl"
CHROMIUM = Path("/usr/bin/chromium")
CHARTS = ("chart-category", "chart-severity", "chart-table", "chart-rate", "chart-time")


@pytest.fixture(scope="module")
def result() -> AuditResult:
    return audit([SAMPLE])


@pytest.fixture(scope="module")
def page(result) -> str:
    return render(result)


def _json_ok(line: str) -> bool:
    try:
        return isinstance(json.loads(line).get("started_at"), str)
    except ValueError:
        return False


def _articles(page: str) -> list[str]:
    return re.findall(r'<article class="finding" id="finding-\d+">.*?</article>', page, flags=re.S)


def test_the_page_is_self_contained(page):
    assert not re.search(r'(src|href)="(https?:)?//', page)  # nothing fetched from anywhere
    assert "default-src 'none'" in page  # and the policy forbids it anyway
    assert page.count("<script") == 1 and page.count("<style") == 1


def test_run_summary_reconciles_and_names_inputs_and_packs(result, page):
    summary = page[page.index('<section id="summary">'):page.index('<section id="charts">')]
    assert (f"<b>{result.hands_read:,}</b> = audited <b>{result.hands_audited:,}</b> + not covered\n"
            f"<b>{result.hands_not_covered:,}</b> + quarantined <b>{result.hands_quarantined:,}</b>") in summary
    # what was not audited is the first thing the page says, before the verdict
    assert summary.index('id="not-audited"') < summary.index('class="verdict')
    box = summary[summary.index('id="not-audited"'):summary.index("</div>")]
    by_code = ", ".join(f"{code} {count}" for code, count in result.quarantined_by_code().items())
    assert "2 hand(s) quarantined" in box and f"quarantined by code: {by_code}" in box
    assert "rules partly assessed" in box and "NZ17-6c-max (293 of 411)" in box
    for pack in result.packs.values():
        assert f"<b>{pack.name}</b> version {pack.version}" in summary
    # paths as the inputs were given, their common folder stated once and cut from every name
    names = Names(result)
    assert names.prefix == "sample_logs/" and "relative to <code>sample_logs/</code>" in summary
    for item in result.inputs:
        assert f"<li>{html.escape(names(item.name))}</li>" in summary
    # no absolute machine path anywhere, though the findings name absolute files; the manifest states the
    # working directory once (if the manifest module is there)
    stated = re.sub(r'<tr><th>Working directory</th><td class="free">[^<]*</td></tr>', "", page)
    assert str(ROOT) not in stated
    assert "28 finding(s)" in summary


def test_charts_count_what_the_findings_say(result, page):
    for chart in CHARTS:
        assert f'<svg id="{chart}" class="chart"' in page
    category = page[page.index('<svg id="chart-category"'):page.index("</svg>", page.index('<svg id="chart-category"'))]
    for name, count in result.findings["category"].value_counts().items():
        assert f"<title>{name}: {count:,}</title>" in category
    time = page[page.index('<svg id="chart-time"'):page.index("</svg>", page.index('<svg id="chart-time"'))]
    counts = [int(x) for x in re.findall(r"<title>2024-01-01 \d\d:00: (\d+)</title>", time)]
    assert sum(counts) == len(result.findings)  # every finding's hand has a start time in the samples


def test_tables_hold_every_finding_rule_and_quarantined_hand(result, page):
    findings = page[page.index('<table id="findings-table"'):page.index("</table>", page.index('id="findings-table"'))]
    assert findings.count("<tr data-severity=") == len(result.findings)
    coverage = page[page.index('<section id="coverage">'):page.index('<section id="quarantine">')]
    assert coverage.count("<tr class=") == len(result.coverage)
    assert coverage.count('<tr class="bad">') == int((result.coverage["hands_with_violations"] > 0).sum())
    quarantine = page[page.index('<section id="quarantine">'):page.index('<section id="files">')]
    names = Names(result)
    for q in result.quarantined:
        assert f"{html.escape(names(q.file))}:{q.line}" in quarantine
    assert "-100 is less than the minimum of 0" in quarantine
    # grouped by code: a count per code, and the code on every row
    codes = quarantine[quarantine.index('id="quarantine-codes"'):quarantine.index("</table>")]
    want = [(code, str(count)) for code, count in result.quarantined_by_code().items()]
    assert re.findall(r'<tr><td>([a-z-]+)</td><td class="num">(\d+)</td>', codes) == want and len(want) >= 1
    for q in result.quarantined:
        assert f'<tr><td>{q.code}</td><td class="free">{html.escape(names(q.file))}:{q.line}</td>' in quarantine
    assert "partly assessed" in coverage  # a rule not assessable on most hands is never shown as "no violation"


def test_each_finding_replays_its_hand_with_the_violating_event_highlighted(result, page):
    articles = _articles(page)
    assert len(articles) == len(result.findings)
    first = articles[0]
    finding = result.findings.iloc[0]
    assert f'{finding["rule_id"]}</span> — Raise smaller than the largest prior full bet or raise' in first
    assert "<th>Expected</th><td>a raise of at least 100</td>" in first
    assert "<th>Actual</th><td>a raise of 50</td>" in first
    assert "Poker TDA Rules 2024, Rule 43-A" in first and "<blockquote>" not in first
    # the rule's text is written once, in its own section, and the finding links to it
    anchor = re.search(r'<a href="#(rule-\d+)">Poker TDA Rules 2024, Rule 43-A</a>', first).group(1)
    rule = re.search(rf'<article class="rule" id="{anchor}">.*?</article>', page, flags=re.S).group(0)
    assert "<blockquote>A raise must be at least" in rule and page.count("<blockquote>A raise must be at least") == 1
    # replays are closed until opened (the page's script keeps one open at a time)
    assert '<details class="replay">' in first and "<details class=\"replay\" open" not in page
    highlighted = re.findall(r'<tr class="violation"><td>(\d+)</td><td class="free">(.*?)</td>', first)
    assert highlighted == [("7", 'seat 2 (HE-MR0002-p2) raises 100 to 150 <span class="marker">◀ this finding</span>')]
    # the state the rule saw: pot 150 before the raise, 50 to call, no raise yet
    row = re.search(r'<tr class="violation">(.*?)</tr>', first).group(1)
    assert re.findall(r'<td class="num">([\d,]*)</td>', row) == ["150", "50", "0"]
    # a finding about the whole hand has no highlighted event
    whole = next(a for a in articles if "NZ17-1b</span> —" in a)
    assert "about the hand as a whole" in whole and '<tr class="violation">' not in whole
    # rounds and blinds as the floor names them (words.street_heading, words.blind_name), never numbers
    assert '<tr class="round"><th colspan="6">Pre-flop</th></tr>' in first and "colspan=\"6\">Betting round" not in page
    assert "posts small blind: 50" in first and "posts blind 1" not in page
    assert '<tr class="round"><th colspan="6">River — board: ' in page


def test_autoescaping_is_on_and_hostile_names_stay_text():
    """Fails if the templates' autoescaping is turned off: the fixture's player names are markup."""
    assert environment().autoescape("report.html.j2") is True
    page = render(audit([MALICIOUS]))
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<img" not in page
    assert page.count("<script") == 1


def test_the_manifest_section_lists_every_input_with_its_hash(result, page):
    manifest = pytest.importorskip("auditor.report.manifest", reason="the manifest module is not here")
    doc = manifest.manifest_dict(result)
    start = page.index('<section id="manifest">')
    section = page[start:page.index("</section>", start)]
    names = Names(result)
    for entry in doc["inputs"]:
        assert f'<td class="free">{html.escape(names(entry["name"]))}</td>' in section
        assert entry["sha256"] in section
    for pack in doc["packs"]:
        assert pack["effective_sha256"] in section


def test_a_run_without_findings_draws_no_empty_chart(tmp_path):
    page = render(audit([SAMPLE / "holdem.jsonl"]))
    assert "<svg" not in page and 'id="charts"' not in page
    assert "No rule was violated in the audited hands." in page
    assert "<b>Verdict:</b> no findings in 400 audited hand(s)" in page


def test_the_headline_states_verdict_what_was_not_audited_and_the_period(page):
    headline = re.search(r'<p class="headline" id="headline">(.*?)</p>', page, flags=re.S).group(1)
    assert "<b>Verdict:</b> 28 finding(s) (28 error) in 1,425 audited hand(s)." in headline
    assert "<b>Not audited:</b> 2 hand(s) quarantined." in headline
    # every hand read counts (the sample logs are small): the earliest and latest start of any of them
    starts = sorted(json.loads(line)["started_at"] for file in SAMPLE.glob("*.jsonl")
                    for line in file.read_text(encoding="utf-8").splitlines()
                    if line.startswith("{") and '"started_at"' in line and _json_ok(line))
    first, last = (s[:16].replace("T", " ") for s in (starts[0], starts[-1]))
    assert f"<b>Period:</b> hands played {first} to {last} UTC." in headline


def test_findings_per_thousand_hands_by_table(result, page):
    chart = page[page.index('<svg id="chart-rate"'):page.index("</svg>", page.index('<svg id="chart-rate"'))]
    table = page[page.index('id="tables-table"'):page.index("</table>", page.index('id="tables-table"'))]
    rows = re.findall(r'<tr><td class="free">([^<]+)</td><td class="num" data-value="(\d+)">[\d,]+</td>'
                      r'<td class="num" data-value="(\d+)">', table)
    found = result.findings["table_id"].value_counts()
    assert {t for t, _, _ in rows} == set(found.index)
    for table_id, hands, count in rows:
        assert int(count) == found[table_id] and int(hands) >= 1
        assert f"<title>{table_id}: {1000 * int(count) / int(hands):,.1f}</title>" in chart or len(rows) > 15


def test_replays_are_capped_and_the_page_says_so(result):
    page = render(result, max_replays=3)
    assert len(_articles(page)) == 3
    assert f"Replays are shown for the first 3 of {len(result.findings)} findings" in page
    capped = render(result, max_rows=5)
    assert "This table lists the first 5 of 28 findings" in capped


# ------------------------------------------------------------------------------------------- Chromium


def _chromium(tmp_path: Path, url: str, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / f"profile-{len(list(tmp_path.iterdir()))}"
    command = [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               f"--user-data-dir={profile}", *args, url]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def _dom(tmp_path: Path, path: Path) -> str:
    run = _chromium(tmp_path, path.as_uri(), "--dump-dom", "--virtual-time-budget=2000")
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout


needs_chromium = pytest.mark.skipif(not CHROMIUM.exists(),
                                    reason="Chromium is not installed (/usr/bin/chromium); .ci/run installs "
                                           "Debian's chromium package for this test")


@needs_chromium
def test_sample_report_renders_in_chromium_with_its_charts(result, page, tmp_path):
    report = tmp_path / "report.html"
    report.write_text(page, encoding="utf-8")
    dom = _dom(tmp_path, report)
    assert 'data-report-ready="1"' in dom  # our script ran: the CSP let it
    assert "28 shown" in dom  # the findings filter counted the rows
    for chart in CHARTS:
        svg = re.search(rf'<svg id="{chart}" class="chart".*?</svg>', dom, flags=re.S)
        assert svg, chart
        assert "<rect" in svg.group(0), chart
    assert len(re.findall(r'<rect class="bar category"', dom)) == result.findings["category"].nunique()
    shot = tmp_path / "shot.png"
    run = _chromium(tmp_path, report.as_uri(), f"--screenshot={shot}", "--window-size=1280,2000",
                    "--hide-scrollbars")
    assert run.returncode == 0, run.stderr[-2000:]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
    if os.environ.get("AUDITOR_SCREENSHOT") == "1":
        # the README's picture (and docs/reports.md's): the report of the sample logs as the repository shows it
        relative = tmp_path / "relative.html"
        cwd = Path.cwd()
        os.chdir(ROOT)
        try:
            relative.write_text(render(audit([Path("sample_logs")])), encoding="utf-8")
        finally:
            os.chdir(cwd)
        target = ROOT / "docs" / "report-screenshot.png"
        run = _chromium(tmp_path, relative.as_uri(), f"--screenshot={target}", "--window-size=1280,1600",
                        "--hide-scrollbars")
        assert run.returncode == 0, run.stderr[-2000:]


@needs_chromium
def test_hostile_player_names_show_as_text_and_run_nothing(tmp_path):
    report = tmp_path / "hostile.html"
    report.write_text(render(audit([MALICIOUS])), encoding="utf-8")
    dom = _dom(tmp_path, report)
    title = re.search(r"<title>(.*?)</title>", dom).group(1)
    assert title == "Poker audit report — 2 finding(s)"  # neither injected script set it
    assert "pwned" not in title
    assert 'data-report-ready="1"' in dom
    assert len(re.findall(r"<script\b", dom)) == 1  # only ours exists as an element
    assert "<img" not in dom  # the table name did not become an image with an onerror handler
    # shown as text: the DOM serialises text nodes escaped
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in dom
    assert "&lt;script&gt;document.title='pwned'&lt;/script&gt;" in dom
    assert '=HYPERLINK("http://x")' in dom


def test_hands_inside_archives_and_parquet_datasets_are_found_again_for_their_replays(tmp_path):
    archive = tmp_path / "logs.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.write(SAMPLE / "holdem-planted.jsonl", "holdem-planted.jsonl")
    dataset = tmp_path / "omaha.parquet"
    converted = CliRunner().invoke(main, ["convert", str(SAMPLE / "nz-omaha-planted.jsonl"), "-o", str(dataset)])
    assert converted.exit_code == 0
    for source in (archive, dataset):
        result = audit([source])
        page = render(result)
        assert len(_articles(page)) == len(result.findings) > 0
        assert "did not keep this hand's replay" not in page
        assert page.count('<tr class="violation">') == int(result.findings["seq"].notna().sum())


@pytest.mark.parametrize(("start", "end", "unit", "label"), [
    ("2024-01-01T00:00:00Z", "2024-01-01T20:00:00Z", "hour", "2024-01-01 20:00"),
    ("2024-01-01T00:00:00Z", "2024-02-15T00:00:00Z", "day", "2024-02-15"),
    ("2023-01-01T00:00:00Z", "2024-06-30T00:00:00Z", "month", "2024-06"),
])
def test_over_time_buckets_follow_the_period_and_label_by_date(start, end, unit, label):
    times = pd.Series([start, end, None, "not a time"], dtype=object)
    items, note, bucket = time_buckets(times)
    assert bucket == unit and items[-1] == (label, 1) and sum(v for _, v in items) == 2
    assert f"findings per {unit} (UTC)" in note and "2 finding(s) in hands with no start time" in note
    chart = column_chart("t", "over time", items, note, unit)
    ticks = chart.ticks
    assert ticks[0].anchor == "start" and ticks[0] is chart.columns[0]  # the first date is never clipped
    assert len(ticks) <= 12  # labels spaced so they never overlap
