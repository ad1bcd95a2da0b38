"""The HTML report at any size, in real headless Chromium.

The page must fit 1280 px and 1920 px without horizontal scrolling (measured in the browser:
`document.documentElement.scrollWidth`), with the sample logs and with a report of thousands of
findings whose ids, names and messages are long; its script must page such a table (one page of rows
in the document); and "print to PDF" must give a clean document (page count and text read back).

The measuring script is the test's own: it is added to a copy of the page with its hash added to the
page's Content-Security-Policy, so the page as shipped is what is measured. Skipped, saying so, where
/usr/bin/chromium is absent (`.ci/run` installs it). Size and write time at 50,000 findings are a
benchmark (`benchmarks/html_report.py`), not a timed test.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import re
import subprocess
import unicodedata
from pathlib import Path

import pandas as pd
import pytest

from auditor.model.results import AuditResult
from auditor.pipeline import audit
from auditor.report.html import PAGE_ROWS, render

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_logs"
CHROMIUM = Path("/usr/bin/chromium")
CORPUS = ROOT.parent / "shared" / "corpus"  # the real hand histories, beside the project where they are shared

needs_chromium = pytest.mark.skipif(not CHROMIUM.exists(),
                                    reason="Chromium is not installed (/usr/bin/chromium); .ci/run installs "
                                           "Debian's chromium package for this test")

#: writes what the test reads into the title once the page has laid out
_PROBE = ('window.addEventListener("load", function () { var r = document.documentElement;'
          ' document.title = "probe " + r.scrollWidth + " " + window.innerWidth + " "'
          ' + document.querySelectorAll("#findings-table tbody tr").length + " "'
          ' + (r.getAttribute("data-report-ready") || "0"); });')


#: works the findings table's controls as a person would, and writes what they showed into the title
_DRIVE = ('window.addEventListener("load", function () {'
          ' var table = document.getElementById("findings-table"), box = document.getElementById("filter");'
          ' var count = document.getElementById("filter-count"), out = [];'
          ' box.value = "NZ17-1b-EXTRA"; box.dispatchEvent(new Event("input")); out.push(count.textContent);'
          ' box.value = ""; box.dispatchEvent(new Event("input"));'
          ' var rule = document.getElementById("rule-filter"); rule.value = "TDA-48-EXTRA-LONG-RULE-IDENTIFIER";'
          ' rule.dispatchEvent(new Event("change")); out.push(count.textContent);'
          ' rule.value = ""; rule.dispatchEvent(new Event("change"));'
          ' var th = table.tHead.rows[0].cells[0]; th.click(); th.click();'
          ' out.push(table.tBodies[0].rows[0].cells[0].textContent);'
          ' document.querySelector(\'.controls[data-table="findings-table"] button.next\').click();'
          ' out.push(count.textContent); out.push(table.tBodies[0].rows.length);'
          ' document.title = "drive " + out.join("|"); });')


def _probed(page: str, probe: str = _PROBE) -> str:
    digest = "sha256-" + base64.b64encode(hashlib.sha256(probe.encode()).digest()).decode()
    page = page.replace("script-src '", f"script-src '{digest}' '", 1)
    return page.replace("</body>", f"<script>{probe}</script></body>", 1)


def _chromium(tmp_path: Path, url: str, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / f"profile-{len(list(tmp_path.iterdir()))}"
    command = [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               f"--user-data-dir={profile}", *args, url]
    return subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)


def _measure(tmp_path: Path, page: str, width: int) -> tuple[int, int, int, str]:
    """(scrollWidth, innerWidth, findings rows in the document, ready flag) at a window `width` px wide."""
    path = tmp_path / f"probe-{width}.html"
    path.write_text(_probed(page), encoding="utf-8")
    run = _chromium(tmp_path, path.as_uri(), "--dump-dom", "--virtual-time-budget=5000",
                    f"--window-size={width},1000", "--hide-scrollbars")
    assert run.returncode == 0, run.stderr[-2000:]
    title = re.search(r"<title>probe (\d+) (\d+) (\d+) (\d)</title>", run.stdout)
    assert title, run.stdout[:500]
    return int(title.group(1)), int(title.group(2)), int(title.group(3)), title.group(4)


def many_findings(result: AuditResult, count: int) -> AuditResult:
    """The sample run with its findings repeated to `count`, under long ids, names and messages (the
    worst case for the layout), each on a hand that is really in the logs, so the replays still work."""
    base = result.findings
    big = base.iloc[[i % len(base) for i in range(count)]].reset_index(drop=True).copy()
    big["rule_id"] = big["rule_id"] + "-EXTRA-LONG-RULE-IDENTIFIER"
    big["hand_id"] = big["hand_id"] + "-" + pd.Series(range(count)).astype(str).str.zfill(9)
    big["player"] = big["player"].astype("string") + "_a_player_name_without_any_spaces_at_all_" * 2
    big["message"] = big["message"] + " " + "averyveryverylongwordwithoutbreaks" * 4
    big["table_id"] = big["table_id"] + "-a-table-with-a-very-long-name-indeed"
    return dataclasses.replace(result, findings=big)


@pytest.fixture(scope="module")
def result() -> AuditResult:
    return audit([SAMPLE])


@needs_chromium
@pytest.mark.parametrize("width", [1280, 1920])
def test_the_sample_report_fits_the_window(result, tmp_path, width):
    scroll, inner, rows, ready = _measure(tmp_path, render(result), width)
    assert ready == "1" and inner == width
    assert scroll <= width, f"{scroll - width} px of horizontal overflow at {width} px"
    assert rows == len(result.findings)  # 28: one page


@needs_chromium
def test_thousands_of_long_findings_fit_and_are_paged(result, tmp_path):
    big = many_findings(result, 3_000)
    page = render(big, max_replays=50)
    assert page.count("<tr data-severity=") == 3_000  # all in the page, for the script to page
    scroll, inner, rows, ready = _measure(tmp_path, page, 1280)
    assert ready == "1" and inner == 1280
    assert scroll <= 1280, f"{scroll - 1280} px of horizontal overflow"
    assert rows == PAGE_ROWS  # one page of rows in the document at a time


@needs_chromium
def test_the_findings_table_filters_sorts_and_pages_in_the_browser(result, tmp_path):
    big = many_findings(result, 3_000)
    path = tmp_path / "drive.html"
    path.write_text(_probed(render(big, max_replays=10), _DRIVE), encoding="utf-8")
    run = _chromium(tmp_path, path.as_uri(), "--dump-dom", "--virtual-time-budget=5000", "--window-size=1280,1000")
    assert run.returncode == 0, run.stderr[-2000:]
    title = re.search(r"<title>drive (.*?)</title>", run.stdout)
    assert title, run.stdout[:500]
    by_text, by_rule, first, paged, rows = title.group(1).split("|")
    rules = big.findings["rule_id"]
    assert by_text.startswith(f"{int((rules == 'NZ17-1b-EXTRA-LONG-RULE-IDENTIFIER').sum())} shown of 3000")
    assert by_rule.startswith(f"{int((rules == 'TDA-48-EXTRA-LONG-RULE-IDENTIFIER').sum())} shown of 3000")
    assert first == "3000"  # sorted by number, descending after two clicks
    assert paged == "3000 shown of 3000 · page 2 of 30" and rows == "100"


@needs_chromium
@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared corpus is not beside the project")
def test_the_corpus_report_fits_1280_and_1920(tmp_path):
    page = render(audit([CORPUS]))
    for width in (1280, 1920):
        scroll, inner, _, ready = _measure(tmp_path, page, width)
        assert ready == "1" and inner == width
        assert scroll <= width, f"{scroll - width} px of horizontal overflow at {width} px"
    assert str(CORPUS) not in page  # its thousands of files named from the folder given


@needs_chromium
def test_print_to_pdf_gives_the_summary_and_the_findings(result, tmp_path):
    pypdf = pytest.importorskip("pypdf", reason="pypdf (the 'test' extra) reads the printed PDF back")
    report = tmp_path / "report.html"
    report.write_text(render(result), encoding="utf-8")
    pdf = tmp_path / "report.pdf"
    run = _chromium(tmp_path, report.as_uri(), f"--print-to-pdf={pdf}", "--no-pdf-header-footer",
                    "--virtual-time-budget=5000")
    assert run.returncode == 0 and pdf.exists(), run.stderr[-2000:]
    reader = pypdf.PdfReader(pdf)
    # NFKC: the PDF's text has the font's ligatures ("ﬁ" for "fi")
    text = unicodedata.normalize("NFKC", " ".join(" ".join((p.extract_text() or "").split()) for p in reader.pages))
    assert 2 <= len(reader.pages) <= 20, len(reader.pages)  # A4 landscape; measured: 17
    assert "The run" in text and "Hands read" in text and "28 finding(s)" in text
    assert "Findings (28)" in text and "HE-MR0002-000004" in text
    assert "The rules behind the findings" in text and "A raise must be at least" in text
    if 'id="manifest"' in report.read_text(encoding="utf-8"):
        assert "Manifest" in text and "SHA-256" in text
    # the screen-only parts are not printed: navigation, filters, the replays
    assert "‹ previous" not in text and "Each finding, with its hand replayed" not in text
