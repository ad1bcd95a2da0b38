"""Byte-identical findings whatever the order of the inputs or the number of workers, and hand ids
judged across the whole run: the first hand in (file, line) order keeps an id, later ones repeat it."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from auditor.cli import main
from auditor.engines import ledger, local
from auditor.pipeline import audit

SAMPLES = Path(__file__).resolve().parents[1] / "sample_logs"
HOLDEM = SAMPLES / "holdem.jsonl"


def _jsonl(args: list[str]) -> str:
    # sample_logs/damaged.jsonl holds two quarantined hands: exit 3 unless unaudited hands are allowed
    out = CliRunner().invoke(main, ["audit", *args, "--format", "jsonl", "--fail-on", "never", "--allow-unaudited"])
    assert out.exit_code == 0, out.output
    return out.stdout


def test_the_order_of_the_inputs_does_not_change_the_report():
    files = sorted(str(p) for p in SAMPLES.glob("*.jsonl"))
    forward = _jsonl([*files, "--jobs", "1"])
    assert forward.count("\n") == 28
    assert _jsonl([*reversed(files), "--jobs", "2"]) == forward
    assert _jsonl([files[3], *files[:3], *files[4:], "--jobs", "1"]) == forward


def _hands(n: int) -> list[str]:
    with HOLDEM.open(encoding="utf-8") as f:
        return [next(f).rstrip("\n") for _ in range(n)]


def _duplicates(result) -> list[tuple[str, int, str]]:
    found = result.findings[result.findings["rule_id"] == "TDA-INT-id"]
    return [(Path(f).name, int(line), h) for f, line, h in found[["file", "line", "hand_id"]].itertuples(index=False)]


def test_a_repeated_id_is_the_later_hand_in_file_then_line_order_whatever_the_run(tmp_path, monkeypatch):
    hands = _hands(40)
    (tmp_path / "b.jsonl").write_text("\n".join(hands) + "\n", encoding="utf-8")
    (tmp_path / "a.jsonl").write_text("\n".join(hands[20:]) + "\n", encoding="utf-8")
    ids = [json.loads(h)["hand_id"] for h in hands]
    # a.jsonl comes first by name: its 20 hands keep their ids, and b.jsonl's copies of them repeat them
    want = [("b.jsonl", line, ids[line - 1]) for line in range(21, 41)]
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first = audit([b, a])
    assert _duplicates(first) == want
    monkeypatch.setattr(local, "POOL_MIN_HANDS", 0)
    monkeypatch.setattr(ledger, "SPILL_ROWS", 10)  # the rows of most batches go to disk and come back
    for paths, jobs, batch in (([a, b], 1, 20_000), ([b, a], 2, 7), ([tmp_path], 2, 20_000)):
        again = audit(paths, jobs=jobs, batch_size=batch)
        assert again.findings.equals(first.findings), (paths, jobs, batch)
        assert again.coverage.equals(first.coverage)


def test_a_repeated_id_in_one_file_is_found_at_the_later_line(tmp_path):
    hands = _hands(3)
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join([hands[1], hands[0], hands[2], hands[1]]) + "\n", encoding="utf-8")
    assert _duplicates(audit([path])) == [("log.jsonl", 4, json.loads(hands[1])["hand_id"])]
    coverage = audit([path]).coverage.set_index("rule_id").loc["TDA-INT-id"]
    assert (coverage["hands_checked"], coverage["hands_with_violations"]) == (4, 1)


def test_a_scheduler_without_the_dask_engine_is_a_usage_error():
    out = CliRunner().invoke(main, ["audit", str(HOLDEM), "--scheduler", "tcp://127.0.0.1:1"])
    assert out.exit_code == 2
    assert "dask engine" in out.output
