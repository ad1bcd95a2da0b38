"""Report formats: each checked for content against the audit result, schema-validated where a schema
exists, the exit-code contract in every format, and hostile log text made harmless in every format.

The hostile sample (`fixtures/reports/malicious.jsonl`) is two hands of `sample_logs/holdem-planted.jsonl`
whose players and table are named `=HYPERLINK("http://x")`, `<script>alert(1)</script>`,
`]]></failure>`, ANSI/OSC terminal escapes and the like; both hands keep their planted min-raise.
"""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import unquote

import jsonschema
import pandas as pd
import pyarrow.parquet as pq
import pytest
import xmlschema
from click.testing import CliRunner

from auditor.cli import REPORT_FORMATS, main
from auditor.model.records import QUARANTINE_CODES
from auditor.model.results import AuditResult, Progress
from auditor.pipeline import audit
from auditor.report.csv_report import neutralise, write_csv
from auditor.report.formats import FORMATS, OutputError, plan
from auditor.report.json_report import document as json_document
from auditor.report.junit import write_junit
from auditor.report.progress import ProgressBar, progress_bar
from auditor.report.sarif import SRCROOT
from auditor.report.sarif import document as sarif_document

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_logs"
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "reports"
MALICIOUS = FIXTURES / "malicious.jsonl"
HOLDEM_PLANTED = SAMPLE / "holdem-planted.jsonl"
OMAHA_PLANTED = SAMPLE / "nz-omaha-planted.jsonl"
DAMAGED = SAMPLE / "damaged.jsonl"
EXAMPLES = ROOT / "rules" / "examples" / "nz-casino-1999"
SHORT_RAISE = EXAMPLES / "NZ17-6c" / "short-raise-pot-limit.jsonl"
CLEAN = EXAMPLES / "NZ17-6c" / "full-raises.jsonl"
HOSTILE_NAMES = ('=HYPERLINK("http://x")', "<script>alert(1)</script>", "<script>document.title='pwned'</script>",
                 "]]></failure>")


@pytest.fixture(scope="module")
def result() -> AuditResult:
    return audit([SAMPLE])


@pytest.fixture(scope="module")
def hostile() -> AuditResult:
    return audit([MALICIOUS])


def _written(tmp_path: Path, *args: str) -> tuple[int, Path, str]:
    out = tmp_path / "reports"
    run = CliRunner().invoke(main, ["audit", *args, "--output", str(out)])
    return run.exit_code, out, run.output


def test_every_format_the_cli_offers_names_a_writer_that_exists():
    assert tuple(FORMATS) == REPORT_FORMATS
    for fmt in FORMATS.values():  # imported only when a report of the format is written: a typo would wait till then
        assert callable(fmt.write), fmt.writer


# ------------------------------------------------------------------------------------------------ CSV


def test_csv_has_one_row_per_finding_with_the_findings_columns(result):
    out = io.StringIO(newline="")
    write_csv(result, out)
    rows = list(csv.reader(io.StringIO(out.getvalue(), newline="")))
    assert rows[0] == list(result.findings.columns)
    assert len(rows) - 1 == len(result.findings) > 0
    body = [dict(zip(rows[0], row, strict=True)) for row in rows[1:]]
    assert [r["rule_id"] for r in body] == list(result.findings["rule_id"])
    assert [int(r["line"]) for r in body] == list(result.findings["line"])
    assert [r["seq"] for r in body] == ["" if pd.isna(v) else str(v) for v in result.findings["seq"]]


@pytest.mark.parametrize("value, cell", [
    ('=HYPERLINK("http://x")', '\'=HYPERLINK("http://x")'),
    ("+1+1", "'+1+1"), ("-2+3", "'-2+3"), ("@SUM(A1)", "'@SUM(A1)"), ("\t=1", "'\t=1"),
    ("  =1", "'  =1"), ("plain name", "plain name"), ("a=b", "a=b"), (7, 7), (None, ""),
    ("\x1b[31m=red", "'=red"),
])
def test_csv_cells_that_a_spreadsheet_would_evaluate_are_neutralised(value, cell):
    assert neutralise(value) == cell


# -------------------------------------------------------------------------------------------- Parquet


def test_parquet_holds_the_findings_table_and_the_run_summary(result, tmp_path):
    target = tmp_path / "findings.parquet"
    with target.open("wb") as stream:
        FORMATS["parquet"].write(result, stream)
    table = pq.read_table(target)
    assert table.column_names == list(result.findings.columns)
    assert table.num_rows == len(result.findings)
    back = table.to_pandas()
    assert list(back["hand_id"]) == list(result.findings["hand_id"])
    assert list(back["seq"].astype("Int64")) == list(result.findings["seq"])
    summary = json.loads(table.schema.metadata[b"poker-auditor"])
    assert summary["hands_read"] == result.hands_read
    assert summary["findings"] == len(result.findings)


# ----------------------------------------------------------------------------------------------- JSON


def test_json_document_reconciles_and_counts_per_file(result):
    doc = json.loads(json.dumps(json_document(result)))
    summary = doc["summary"]
    assert next(iter(summary)) == "not_audited"  # what was not audited comes first
    assert summary["not_audited"]["any"] is True
    assert summary["not_audited"]["quarantined_by_code"] == summary["quarantined_by_code"] == \
        result.quarantined_by_code()
    assert sum(summary["quarantined_by_code"].values()) == 2
    assert {r["rule_id"] for r in summary["not_audited"]["rules_partly_assessed"]} == {
        "TDA-HOUSE-rake", "NZ17-6b", "NZ17-6c-max"}
    assert summary["hands_read"] == (summary["hands_audited"] + summary["hands_not_covered"]
                                     + summary["hands_quarantined"]) == result.hands_read
    assert summary["hands_quarantined"] == len(doc["quarantined"]) == 2
    assert [q["code"] for q in doc["quarantined"]] == [q.code for q in result.quarantined]
    assert set(summary["quarantined_by_code"]) <= set(QUARANTINE_CODES)
    assert summary["findings"] == len(doc["findings"]) == len(result.findings) == 28
    assert sum(summary["findings_by_severity"].values()) == summary["findings"]
    assert {p["name"]: p["version"] for p in summary["packs"]} == {p.name: p.version for p in result.packs.values()}
    files = {f["file"]: f for f in doc["files"]}
    assert len(files) == len(result.inputs)
    for row in files.values():
        assert row["hands_read"] == row["hands_audited"] + row["hands_not_covered"] + row["hands_quarantined"]
    assert sum(f["hands_read"] for f in files.values()) == result.hands_read
    assert sum(f["findings"] for f in files.values()) == len(result.findings)
    damaged = next(f for name, f in files.items() if name.endswith("damaged.jsonl"))
    assert damaged["hands_quarantined"] == 2
    assert {(q["line"], q["hand_id"]) for q in doc["quarantined"]} == {(2, None), (3, "DMG0001-000002")}
    assert len(doc["coverage"]) == len(result.coverage)
    assert all(c["title"] and c["citation"] for c in doc["coverage"])


# ---------------------------------------------------------------------------------------------- SARIF


def _sarif_validator() -> jsonschema.Draft4Validator:
    schema = json.loads((FIXTURES / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    return jsonschema.Draft4Validator(schema)


def test_sarif_is_valid_and_has_every_rule_and_every_finding_at_its_file_and_line(result):
    log = json.loads(json.dumps(sarif_document(result)))
    _sarif_validator().validate(log)
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert len(rules) == sum(len(p.rules) for p in result.packs.values())
    assert len({r["id"] for r in rules}) == len(rules)
    for descriptor in rules:
        assert descriptor["help"]["text"] and descriptor["properties"]["citation"] in descriptor["help"]["text"]
        assert descriptor["fullDescription"]["text"]
    results = run["results"]
    assert len(results) == len(result.findings)
    base = run["originalUriBaseIds"][SRCROOT]["uri"]
    for item, finding in zip(results, result.findings.itertuples(index=False), strict=True):
        where = item["locations"][0]["physicalLocation"]
        uri = where["artifactLocation"]["uri"]
        path = unquote(uri.removeprefix("file://")) if uri.startswith("file:") else unquote(uri)
        assert path == finding.file or Path(unquote(base.removeprefix("file://")), path) == Path(finding.file)
        assert where["region"]["startLine"] == finding.line
        assert rules[item["ruleIndex"]]["id"] == item["ruleId"] == finding.rule_id
        assert item["level"] == {"error": "error", "warning": "warning", "info": "note"}[finding.severity]
        assert item["properties"]["hand_id"] == finding.hand_id
    # what was not audited is in the invocation's notifications, grouped by quarantine code
    invocation = run["invocations"][0]
    held = [n for n in invocation["toolExecutionNotifications"] if n["descriptor"]["id"].startswith("quarantine/")]
    assert [n["descriptor"]["id"] for n in held] == [f"quarantine/{q.code}" for q in result.quarantined]
    assert {n["locations"][0]["physicalLocation"]["region"]["startLine"] for n in held} == {2, 3}
    assert invocation["properties"]["quarantined_by_code"] == result.quarantined_by_code()
    known = {d["id"] for d in run["tool"]["driver"]["notifications"]}
    assert {n["descriptor"]["id"] for n in invocation["toolExecutionNotifications"]} <= known


# ---------------------------------------------------------------------------------------------- JUnit


def _junit(result: AuditResult) -> str:
    out = io.StringIO()
    write_junit(result, out)
    return out.getvalue()


def test_junit_is_valid_with_one_case_per_rule_and_one_failure_per_violation(result):
    text = _junit(result)
    xmlschema.XMLSchema(FIXTURES / "junit-10.xsd").validate(text)
    root = ET.fromstring(text)
    # the first suite says what was not audited: here one case, the two damaged hands of damaged.jsonl
    first, *suites = root.findall("testsuite")
    assert first.get("name") == "not audited"
    held = first.findall("testcase")
    by_code = result.quarantined_by_code()
    assert [c.get("name") for c in held] == [f"quarantined [{code}]: {n} hand(s)" for code, n in by_code.items()]
    listed = "\n".join(case.find("failure").text for case in held)
    assert sorted(listed.splitlines()) == sorted(q.one_line() for q in result.quarantined)
    cases = [case for suite in suites for case in suite.findall("testcase")]
    assert len(cases) == len(result.coverage) == int(root.get("tests")) - len(by_code)
    assert sum(len(case.findall("failure")) for case in cases) == len(result.findings)
    violated = result.coverage[result.coverage["hands_with_violations"] > 0]
    assert int(root.get("failures")) - len(by_code) == len(violated) == sum(int(s.get("failures")) for s in suites)
    # skipped: rules that checked nothing, and rules partly assessed with no violation (never shown as passed)
    partly = result.partly_assessed()
    skipped = result.coverage[(result.coverage["hands_checked"] == 0) |
                              (result.coverage["rule_id"].isin(partly["rule_id"]) &
                               (result.coverage["hands_with_violations"] == 0))]
    assert len(partly) and len(root.findall("testsuite/testcase/skipped")) == len(skipped)
    assert any("partly assessed: not assessable in 293 of 411" in s.get("message")
               for s in root.findall("testsuite/testcase/skipped"))
    by_rule = {case.get("name").split(":")[0]: case for case in cases}
    for rule_id, count in result.findings["rule_id"].value_counts().items():
        assert len(by_rule[rule_id].findall("failure")) == count
    first = result.findings.iloc[0]
    failure = by_rule[first["rule_id"]].find("failure")
    assert failure.text.startswith(f"{first['file']}:{first['line']}: hand {first['hand_id']}")
    assert first["citation"] in failure.text and failure.get("type") == first["severity"]


# ------------------------------------------------------------------------------------ the command line


def test_exit_codes_are_the_same_in_every_format(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    for fmt in REPORT_FORMATS:
        where = tmp_path / fmt
        args = ["--format", fmt]
        assert _written(where / "a", str(SHORT_RAISE), *args)[0] == 1, fmt
        assert _written(where / "b", str(SHORT_RAISE), *args, "--fail-on", "never")[0] == 0, fmt
        assert _written(where / "c", str(CLEAN), *args)[0] == 0, fmt
        assert _written(where / "d", str(tmp_path / "missing.jsonl"), *args)[0] == 2, fmt
        assert _written(where / "e", str(empty), *args)[0] == 2, fmt
        assert _written(where / "f", str(CLEAN), *args, "--pack", "no-such-pack")[0] == 2, fmt
        # the report is written even when nothing was readable, so a CI job always finds its file
        code, out, _ = _written(where / "g", str(empty), *args)
        assert code == 2 and out.is_file(), fmt


def test_several_formats_go_into_the_output_directory_with_default_names(tmp_path):
    code, out, output = _written(tmp_path, str(SHORT_RAISE), "--format", "html", "--format", "sarif",
                                 "--format", "junit", "--format", "csv")
    assert code == 1, output
    assert sorted(p.name for p in out.iterdir()) == ["findings.csv", "findings.sarif", "junit.xml", "report.html"]
    # the terminal still gets the summary (on stderr, since no report went to stdout)
    assert "hands read: 1 = audited 1 + not covered 0 + quarantined 0" in output


def test_output_plans_refuse_what_cannot_work(tmp_path):
    assert plan(["csv"], "-")[0].path is None
    assert plan(["csv"], str(tmp_path))[0].path == tmp_path / "findings.csv"
    assert plan(["csv"], str(tmp_path / "x.csv"))[0].path == tmp_path / "x.csv"
    assert [t.path.name for t in plan(["json", "json", "text"], str(tmp_path))] == ["report.json", "report.txt"]
    with pytest.raises(OutputError, match="binary"):
        plan(["parquet"], "-")
    with pytest.raises(OutputError, match="DIRECTORY"):
        plan(["html", "sarif"], "-")
    a_file = tmp_path / "file"
    a_file.write_text("", encoding="utf-8")
    with pytest.raises(OutputError, match="directory"):
        plan(["html", "sarif"], str(a_file))
    runner = CliRunner()
    assert runner.invoke(main, ["audit", str(SHORT_RAISE), "--format", "parquet"]).exit_code == 2
    assert runner.invoke(main, ["audit", str(SHORT_RAISE), "--format", "html", "--format", "csv"]).exit_code == 2


def test_text_and_jsonl_behave_as_before(tmp_path):
    runner = CliRunner()
    text = runner.invoke(main, ["audit", str(SHORT_RAISE)])
    assert text.exit_code == 1
    assert "error min-raise [NZ17-6c]" in text.stdout and "\nSummary\n" in text.stdout
    jsonl = runner.invoke(main, ["audit", str(SHORT_RAISE), "--format", "jsonl"])
    rows = [json.loads(line) for line in jsonl.stdout.splitlines()]
    assert [r["rule_id"] for r in rows] == ["NZ17-6c"]
    assert "Summary" in jsonl.stderr and "Summary" not in jsonl.stdout


def test_quiet_prints_only_the_summary(tmp_path):
    runner = CliRunner()
    quiet = runner.invoke(main, ["audit", str(DAMAGED), str(SHORT_RAISE), "--quiet"])
    assert quiet.exit_code == 1
    assert quiet.stdout.lstrip().startswith("Summary") and "[NZ17-6c]" not in quiet.stdout
    assert "quarantined:" not in quiet.stdout and "quarantined:" not in quiet.stderr
    loud = runner.invoke(main, ["audit", str(DAMAGED), str(SHORT_RAISE), "--format", "jsonl",
                                "--output", str(tmp_path / "f.jsonl")])
    assert "quarantined:" in loud.stderr


# ---------------------------------------------------------------------------------------- progress bar


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_on_a_terminal_shows_files_hands_and_rate_then_clears():
    screen = _Terminal()
    bar = ProgressBar(screen, delay=0.0, interval=0.0)
    bar(Progress(files_done=1, files_total=4, hands_read=2500, seconds=2.0))
    bar(Progress(files_done=4, files_total=4, hands_read=10000, seconds=4.0))
    drawn = screen.getvalue()
    assert "1/4 files" in drawn and "2,500 hands" in drawn and "1,250 hands/s" in drawn
    assert "4/4 files" in drawn and "10,000 hands" in drawn and "2,500 hands/s" in drawn
    assert "\n" not in drawn  # redrawn in place
    bar.close()
    assert screen.getvalue().endswith("\r")
    quick = _Terminal()
    ProgressBar(quick)(Progress(1, 1, 10, 0.1))  # a short run draws nothing
    assert quick.getvalue() == ""


def test_no_progress_bar_when_piped_or_quiet():
    assert progress_bar(io.StringIO(), quiet=False) is None
    assert progress_bar(_Terminal(), quiet=True) is None
    assert isinstance(progress_bar(_Terminal(), quiet=False), ProgressBar)
    run = CliRunner().invoke(main, ["audit", str(HOLDEM_PLANTED), "--format", "jsonl"])
    assert "\r" not in run.stderr and "files  " not in run.stderr


# -------------------------------------------------------------------------------------------- explain


def test_explain_replays_the_hand_with_state_and_the_finding_on_its_event():
    run = CliRunner().invoke(main, ["explain", "HE-MR0002-000004", str(HOLDEM_PLANTED)])
    assert run.exit_code == 0, run.output
    lines = run.stdout.splitlines()
    assert lines[0].startswith("hand HE-MR0002-000004  ") and lines[0].endswith("holdem-planted.jsonl:1")
    assert "findings: 1 (1 error)" in run.stdout
    # rounds and blinds as the floor names them, never "betting round 1" or "blind 1"
    assert "\n  Pre-flop\n" in run.stdout and "betting round" not in run.stdout
    assert "posts small blind: 50" in run.stdout and "posts big blind: 100" in run.stdout
    flagged = [line for line in lines if line.startswith(">>")]
    assert len(flagged) == 1
    # event 7: the raise to 150, with the pot (150), the amount to call (50) and no raise before it
    assert flagged[0].split()[1:8] == ["7", "seat", "2", "(HE-MR0002-p2)", "raises", "100", "to"]
    assert flagged[0].split()[-5:] == ["150", "50", "0", "seat", "2"]
    after = lines[lines.index(flagged[0]) + 1]
    assert "error min-raise [TDA-43A]" in after
    assert "expected a raise of at least 100; actual a raise of 50" in run.stdout
    assert "Poker TDA Rules 2024, Rule 43-A" in run.stdout


def test_explain_a_hand_found_across_rounds_and_a_hand_level_finding():
    run = CliRunner().invoke(main, ["explain", "NZO-RC0006-000043", str(OMAHA_PLANTED)])
    assert run.exit_code == 0
    assert "\n  River — opened by board:" in run.stdout
    assert "about the hand as a whole" in run.stdout and "[NZ17-1b]" in run.stdout  # button: no single event
    assert "[NZ17-6f]" in run.stdout


def test_explain_and_the_html_replay_say_unknown_cards_as_hidden_and_blinds_by_name():
    from auditor.report.hands import describe

    players = {1: "Ann", 2: "Bo"}
    assert describe({"kind": "deal", "to": "hole", "seat": 1, "cards": ["??", "??"]}, players) == \
        "seat 1 (Ann) dealt hidden hidden"
    assert describe({"kind": "show", "seat": 2, "cards": ["As", "??"]}, players) == "seat 2 (Bo) shows As hidden"
    post = {"kind": "post", "post": "blind", "blind": 2, "seat": 2, "amount": 100}
    assert describe(post, players, blinds=2) == "seat 2 (Bo) posts big blind: 100"
    assert describe(post, players, blinds=3) == "seat 2 (Bo) posts second blind: 100"
    assert describe(dict(post, blind=1), players, blinds=1) == "seat 2 (Bo) posts blind: 100"


def test_explain_names_quarantined_hands_and_refuses_unknown_ones():
    runner = CliRunner()
    held = runner.invoke(main, ["explain", "DMG0001-000002", str(DAMAGED)])
    assert held.exit_code == 0 and "quarantined, not audited:" in held.stdout and "-100" in held.stdout
    missing = runner.invoke(main, ["explain", "NO-SUCH-HAND", str(DAMAGED)])
    assert missing.exit_code == 2 and "no hand 'NO-SUCH-HAND'" in missing.stderr
    assert runner.invoke(main, ["explain", "X", str(SAMPLE / "nope.jsonl")]).exit_code == 2


# ------------------------------------------------------------------------------------- hostile log text


def test_hostile_names_reach_every_format_harmlessly(hostile, tmp_path):
    assert len(hostile.findings) == 2 and set(hostile.findings["player"]) <= set(HOSTILE_NAMES)
    code, out, output = _written(tmp_path, str(MALICIOUS), *[x for f in REPORT_FORMATS for x in ("--format", f)])
    assert code == 1, output
    for path in out.iterdir():
        if path.suffix != ".parquet":
            data = path.read_bytes()
            assert b"\x1b" not in data and b"\x07" not in data, path.name  # no terminal escapes in any text report
    # terminal: the console summary and explain
    assert "\x1b" not in output
    explained = CliRunner().invoke(main, ["explain", "HE-MR0002-000004", str(MALICIOUS)])
    assert explained.exit_code == 0 and "\x1b" not in explained.stdout
    assert "]]></failure>[31mRED" not in explained.stdout and "]]></failure>RED" in explained.stdout
    # JSON formats: names round-trip exactly (escaped by JSON, never raw)
    names = set(hostile.findings["player"])
    assert {json.loads(line)["player"] for line in (out / "findings.jsonl").read_text().splitlines()} == names
    assert {f["player"] for f in json.loads((out / "report.json").read_text())["findings"]} == names
    sarif = json.loads((out / "findings.sarif").read_text())
    _sarif_validator().validate(sarif)
    assert {r["properties"]["player"] for r in sarif["runs"][0]["results"]} == names
    assert set(pq.read_table(out / "findings.parquet").column("player").to_pylist()) == names
    # CSV: formula-looking cells neutralised
    rows = list(csv.DictReader(io.StringIO((out / "findings.csv").read_text(encoding="utf-8"), newline="")))
    assert {r["player"] for r in rows} == {"'=HYPERLINK(\"http://x\")", "<script>document.title='pwned'</script>"}
    assert {r["hand_id"] for r in rows} == {"HE-MR0002-000004", "'-2+3<b>id</b>"}
    # JUnit: still valid, and the names did not close or open any element
    junit = (out / "junit.xml").read_text(encoding="utf-8")
    xmlschema.XMLSchema(FIXTURES / "junit-10.xsd").validate(junit)
    root = ET.fromstring(junit)
    assert len(root.findall(".//failure")) == 2
    assert any("<script>document.title='pwned'</script>" in f.text for f in root.iter("failure"))
    # HTML: text, never markup (its behaviour in a browser is tested in test_report_html.py)
    page = (out / "report.html").read_text(encoding="utf-8")
    assert page.count("<script") == 1  # ours
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<img" not in page and "&lt;img src=x onerror=&#34;document.title=&#39;pwned-table&#39;&#34;&gt;" in page
    assert "]]></failure>" not in page
