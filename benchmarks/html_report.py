"""The HTML report at 50,000 findings: its size, the time to write it, and whether Chromium opens it.

Run by hand (not a timed test; the README quotes its figures):

    python3 benchmarks/html_report.py [--findings 50000] [--replays 500] [--no-browser]

The findings are the sample logs' 28, repeated under distinct hand ids (each on a hand really in the
logs, so the replays work) with long names, the layout's worst case. Reported: seconds to render and
write, bytes, and in headless Chromium (if /usr/bin/chromium exists) the seconds until the page's own
script has run (`data-report-ready`), the rows in the document (one page of the findings table), and
`scrollWidth` at 1280 px. The measuring script is added to a copy of the page, its hash added to the
page's Content-Security-Policy, as tests/test_report_html_size.py does.
"""

from __future__ import annotations

import argparse
import base64
import dataclasses
import hashlib
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from auditor.model.results import AuditResult
from auditor.pipeline import audit
from auditor.report.html import write_html

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
PROBE = ('window.addEventListener("load", function () { var r = document.documentElement;'
         ' document.title = "probe " + Math.round(performance.now()) + " " + r.scrollWidth + " "'
         ' + document.querySelectorAll("#findings-table tbody tr").length + " "'
         ' + (r.getAttribute("data-report-ready") || "0"); });')


def many_findings(result: AuditResult, count: int) -> AuditResult:
    base = result.findings
    big = base.iloc[[i % len(base) for i in range(count)]].reset_index(drop=True).copy()
    big["hand_id"] = big["hand_id"] + "-" + pd.Series(range(count)).astype(str).str.zfill(9)
    big["player"] = big["player"].astype("string") + "_with_a_long_screen_name"
    big["table_id"] = big["table_id"] + "-" + (pd.Series(range(count)) % 400).astype(str)
    return dataclasses.replace(result, findings=big)


def in_chromium(page: Path, width: int = 1280) -> tuple[float, int, int, str, float]:
    """(ms until load, scrollWidth, findings rows in the document, ready flag, wall seconds)."""
    text = page.read_text(encoding="utf-8")
    digest = "sha256-" + base64.b64encode(hashlib.sha256(PROBE.encode()).digest()).decode()
    text = text.replace("script-src '", f"script-src '{digest}' '", 1).replace(
        "</body>", f"<script>{PROBE}</script></body>", 1)
    probed = page.with_name("probed.html")
    probed.write_text(text, encoding="utf-8")
    with tempfile.TemporaryDirectory() as profile:
        started = time.perf_counter()
        run = subprocess.run([str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                              "--disable-background-networking", "--disable-component-update", "--disable-sync",
                              f"--user-data-dir={profile}", "--dump-dom", "--virtual-time-budget=30000",
                              f"--window-size={width},1000", "--hide-scrollbars", probed.as_uri()],
                             capture_output=True, text=True, timeout=600, check=False)
        wall = time.perf_counter() - started
    found = re.search(r"<title>probe (\d+) (\d+) (\d+) (\d)</title>", run.stdout)
    if not found:
        raise SystemExit(f"Chromium did not report: {run.stderr[-1000:]}")
    return float(found.group(1)), int(found.group(2)), int(found.group(3)), found.group(4), wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--findings", type=int, default=50_000)
    parser.add_argument("--replays", type=int, default=500)
    parser.add_argument("--no-browser", action="store_true")
    args = parser.parse_args()
    result = many_findings(audit([ROOT / "sample_logs"]), args.findings)
    with tempfile.TemporaryDirectory() as folder:
        page = Path(folder) / "report.html"
        started = time.perf_counter()
        with page.open("w", encoding="utf-8") as out:
            write_html(result, out, max_replays=args.replays)
        seconds = time.perf_counter() - started
        size = page.stat().st_size
        print(f"findings: {args.findings:,}  replays: {args.replays:,}")
        print(f"write: {seconds:.2f} s  size: {size / 1e6:.1f} MB ({size / args.findings:,.0f} bytes a finding)")
        if args.no_browser or not CHROMIUM.exists():
            print("chromium: not run" + ("" if CHROMIUM.exists() else " (/usr/bin/chromium is missing)"))
            return
        load_ms, scroll, rows, ready, wall = in_chromium(page)
        print(f"chromium: loaded in {load_ms / 1000:.1f} s (process {wall:.1f} s), script ran: {ready == '1'}, "
              f"findings rows in the document: {rows}, scrollWidth at 1280 px: {scroll}")
        sys.exit(0 if ready == "1" and scroll <= 1280 else 1)


if __name__ == "__main__":
    main()
