"""The CLI contract: formats, exit codes, quarantine with file:line:reason, summary that adds up."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from auditor.cli import main
from auditor.model.records import QUARANTINE_CODES
from auditor.pipeline import audit

EXAMPLES = Path(__file__).resolve().parents[1] / "rules" / "examples" / "nz-casino-1999"
SHORT_RAISE = EXAMPLES / "NZ17-6c" / "short-raise-pot-limit.jsonl"
CLEAN = EXAMPLES / "NZ17-6c" / "full-raises.jsonl"


def _mixed_file(tmp_path: Path) -> Path:
    good = CLEAN.read_text(encoding="utf-8").strip()
    bad_schema = json.loads(good)
    bad_schema["hand_id"] = "BAD-1"
    bad_schema["events"][7]["amount"] = -5
    lines = [good, "{not json", "", json.dumps(bad_schema), json.dumps([1, 2]), SHORT_RAISE.read_text().strip()]
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_bad_lines_are_quarantined_and_the_summary_adds_up(tmp_path):
    path = _mixed_file(tmp_path)
    result = audit([path])
    assert result.hands_read == 5  # the blank line is not a hand
    assert result.hands_audited == 2
    assert result.hands_read == result.hands_audited + result.hands_quarantined
    reasons = {q.line: q.one_line() for q in result.quarantined}
    assert set(reasons) == {2, 4, 5}
    assert reasons[2].startswith(f"{path}:2: [damaged] invalid JSON")
    # the code is the reader's to choose (invalid-record once the JSON Lines reader names it), the form is fixed
    assert re.match(rf"{re.escape(str(path))}:4 \(hand BAD-1\): \[({'|'.join(QUARANTINE_CODES)})\] schema: at "
                    "events/7/amount", reasons[4])
    assert 'is not of type "object"' in reasons[5]
    # the good hands after the bad ones are still audited
    assert list(result.findings["rule_id"]) == ["NZ17-6c"]
    assert list(result.findings["line"]) == [6]


def test_jsonl_format_and_exit_codes(tmp_path):
    runner = CliRunner()
    out = runner.invoke(main, ["audit", str(SHORT_RAISE), "--format", "jsonl"])
    assert out.exit_code == 1, out.output
    rows = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    assert len(rows) == 1
    row = rows[0]
    for key in ("hand_id", "category", "rule_id", "pack", "citation", "severity", "seat", "seq", "message",
                "expected", "actual", "file", "line"):
        assert key in row
    assert row["category"] == "min-raise" and row["seat"] == 8 and row["line"] == 1
    assert row["citation"] == "NZ casino rules, Schedule §17.6(c)"
    assert runner.invoke(main, ["audit", str(SHORT_RAISE), "--fail-on", "never"]).exit_code == 0
    assert runner.invoke(main, ["audit", str(CLEAN)]).exit_code == 0
    assert runner.invoke(main, ["audit", str(tmp_path / "missing.jsonl")]).exit_code == 2
    assert runner.invoke(main, ["audit", str(CLEAN), "--pack", "no-such-pack"]).exit_code == 2
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    assert runner.invoke(main, ["audit", str(empty)]).exit_code == 2


def test_text_report_has_summary(tmp_path):
    path = _mixed_file(tmp_path)
    out = CliRunner().invoke(main, ["audit", str(path)])
    assert out.exit_code == 1
    assert "hands read: 5 = audited 2 + not covered 0 + quarantined 3" in out.output
    assert f"quarantined: {path}:2: [damaged] invalid JSON" in out.output
    assert "min-raise" in out.output


def test_output_file(tmp_path):
    target = tmp_path / "findings.jsonl"
    out = CliRunner().invoke(main, ["audit", str(SHORT_RAISE), "--format", "jsonl", "--output", str(target)])
    assert out.exit_code == 1
    assert json.loads(target.read_text(encoding="utf-8").splitlines()[0])["rule_id"] == "NZ17-6c"


def test_parquet_round_trip_gives_the_same_findings(tmp_path):
    # one file in, one dataset out: state across a table's hands is kept within one input
    source = Path(__file__).resolve().parents[1] / "sample_logs" / "nz-omaha-planted.jsonl"
    dataset = tmp_path / "logs.parquet"
    out = CliRunner().invoke(main, ["convert", str(source), "-o", str(dataset)])
    assert out.exit_code == 0, out.output
    from_jsonl = audit([source])
    from_parquet = audit([dataset])
    assert from_parquet.hands_read == from_jsonl.hands_read > 0
    # the same findings; they point at the dataset's rows (the source file and line a dataset stores are
    # only claimed provenance), in the log's order
    columns = ["hand_id", "rule_id", "seat", "seq", "message", "expected", "actual"]
    left = from_jsonl.findings[columns].sort_values(["hand_id", "seq"]).reset_index(drop=True)
    right = from_parquet.findings[columns].sort_values(["hand_id", "seq"]).reset_index(drop=True)
    assert left.equals(right)
    assert set(from_parquet.findings["file"]) == {str(dataset)}
    assert from_parquet.findings["line"].tolist() == from_jsonl.findings["line"].tolist()


def test_gzip_input(tmp_path):
    import gzip
    path = tmp_path / "log.jsonl.gz"
    path.write_bytes(gzip.compress(SHORT_RAISE.read_bytes()))
    result = audit([path])
    assert result.hands_audited == 1 and list(result.findings["rule_id"]) == ["NZ17-6c"]


def test_a_predicate_that_cannot_be_evaluated_stops_with_the_place_to_fix(tmp_path):
    pack = tmp_path / "types.yaml"
    pack.write_text("""extends: tda-2024
pack: bad-types
version: 1.0.0
title: a user's pack with a type error
rules:
  - id: X-1
    title: compare text with a number
    category: record
    severity: error
    citation: nowhere
    text: t
    why: w
    applies: {variants: [holdem], structures: [no-limit]}
    facts: actions
    violation: player > 3
    message: m
    examples:
      violating: [{file: x.jsonl, about: a}]
      clean: [{file: x.jsonl, about: a}]
""", encoding="utf-8")
    hands = Path(__file__).resolve().parents[1] / "sample_logs" / "holdem.jsonl"
    out = CliRunner().invoke(main, ["audit", str(hands), "--pack", str(pack)])
    assert out.exit_code == 2
    assert f"{pack}:6: rule X-1: cannot evaluate: cannot compare text with a number" in out.output
