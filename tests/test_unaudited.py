"""Nothing unaudited passes in silence.

A batch with a quarantined hand, a hand no rule of its pack covers, or a skipped file that is a hand
history of a room we cannot read must not exit 0 unless the user says so (`--allow-unaudited`); a
`--pack` with no rule for any hand read is a usage error naming the games; the summary and reports
start with what was not audited; readers' notes reach the result once per file and code; a worker
that dies leaves `lost-worker` quarantines, not a crash and not silence.
"""

from __future__ import annotations

import io
import json
import os
from collections import Counter
from pathlib import Path

from click.testing import CliRunner

from auditor.cli import EXIT_UNAUDITED, main
from auditor.engines import local, partition
from auditor.ingest import detect
from auditor.model.records import ReaderNote, SourceHand
from auditor.pipeline import audit
from auditor.report.json_report import document as json_document
from auditor.report.text import write_summary

ROOT = Path(__file__).resolve().parents[1]
NZ_CLEAN = ROOT / "rules" / "examples" / "nz-casino-1999" / "NZ17-6c" / "full-raises.jsonl"
NZ_SHORT_RAISE = ROOT / "rules" / "examples" / "nz-casino-1999" / "NZ17-6c" / "short-raise-pot-limit.jsonl"
OMAHA = ROOT / "rules" / "examples" / "tda-2024" / "TDA-12" / "tie-smaller-than-winners.jsonl"
HOLDEM = ROOT / "sample_logs" / "holdem.jsonl"
HOLDEM_PLANTED = ROOT / "sample_logs" / "holdem-planted.jsonl"


def _run(*args: str):
    return CliRunner().invoke(main, ["audit", *[str(a) for a in args]])


def _first_hand(path: Path) -> dict:
    with path.open(encoding="utf-8") as f:
        return json.loads(next(f))


def _folder(tmp_path: Path, **files: str) -> Path:
    folder = tmp_path / "logs"
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def _summary(output: str) -> list[str]:
    lines = output.splitlines()
    return lines[lines.index("Summary") + 1:]


def test_a_clean_hand_beside_a_quarantined_one_does_not_pass(tmp_path):
    folder = _folder(tmp_path, **{"a.jsonl": NZ_CLEAN.read_text(encoding="utf-8").strip() + "\n{cut off\n"})
    out = _run(folder)
    assert out.exit_code == EXIT_UNAUDITED == 3, out.output
    summary = _summary(out.output)
    # the headline comes first: what was not audited, by code, then the verdict
    assert summary[0] == "  not audited: 1 hand(s) quarantined, 0 hand(s) not covered, 0 hand-history file(s) skipped"
    assert summary[1] == "    quarantined by code: damaged 1"
    verdict = next(i for i, line in enumerate(summary) if line.startswith("  verdict:"))
    assert summary[verdict] == ("  verdict: no findings in 1 audited hand(s); 1 hand(s) and 0 hand-history file(s) "
                                "not audited")
    assert verdict < next(i for i, line in enumerate(summary) if line.startswith("  inputs:"))
    assert "  hands read: 2 = audited 1 + not covered 0 + quarantined 1" in summary
    assert _run(folder, "--allow-unaudited").exit_code == 0
    # findings still give 1, whatever else went unaudited
    findings = _folder(tmp_path / "f", **{"a.jsonl": NZ_SHORT_RAISE.read_text(encoding="utf-8") + "{cut off\n"})
    assert _run(findings).exit_code == 1
    assert _run(findings, "--allow-unaudited").exit_code == 1
    assert _run(findings, "--allow-unaudited", "--fail-on", "never").exit_code == 0
    assert _run(findings, "--fail-on", "never").exit_code == 3


def test_a_hand_no_rule_of_its_pack_covers_does_not_pass(tmp_path):
    holdem = _first_hand(HOLDEM)
    holdem["rule_pack"] = "nz-casino-1999"  # a real pack, but it has no rule for hold'em
    folder = _folder(tmp_path, **{"a.jsonl": NZ_CLEAN.read_text(encoding="utf-8").strip() + "\n" + json.dumps(holdem)
                                  + "\n"})
    result = audit([folder])
    assert (result.hands_read, result.hands_audited, result.hands_not_covered, result.hands_quarantined) == (2, 1, 1, 0)
    assert result.not_covered == Counter({("nz-casino-1999", "holdem", "pot-limit"): 1})
    per_file = result.per_file()
    assert per_file[["hands_read", "hands_audited", "hands_not_covered", "hands_quarantined"]].values.tolist() == [
        [2, 1, 1, 0]]
    out = _run(folder)
    assert out.exit_code == 3, out.output
    summary = _summary(out.output)
    assert summary[0] == "  not audited: 0 hand(s) quarantined, 1 hand(s) not covered, 0 hand-history file(s) skipped"
    assert summary[1] == ("    not covered, no rule of their pack applies to their game: nz-casino-1999 holdem "
                          "pot-limit 1")
    assert "  hands read: 2 = audited 1 + not covered 1 + quarantined 0" in summary
    assert _run(folder, "--allow-unaudited").exit_code == 0
    # the same through --pack: the hold'em hand is read, not covered, never counted as audited
    both = _folder(tmp_path / "p", **{"nz.jsonl": NZ_CLEAN.read_text(encoding="utf-8"),
                                      "he.jsonl": json.dumps(_first_hand(HOLDEM)) + "\n"})
    assert _run(both, "--pack", "nz-casino-1999").exit_code == 3
    assert _run(both, "--pack", "nz-casino-1999", "--allow-unaudited").exit_code == 0


def test_a_pack_that_covers_none_of_the_hands_is_a_usage_error_naming_the_games():
    out = _run(OMAHA, "--pack", "nz-casino-1999")
    assert out.exit_code == 2
    message = out.stderr.strip()
    assert message.startswith("auditor: --pack nz-casino-1999 has no rule for any hand read: it covers omaha-nz (")
    assert "three-card-nz (" in message and message.endswith("the hands are omaha no-limit (2)")
    assert _run(OMAHA, "--pack", "nz-casino-1999", "--allow-unaudited").exit_code == 2  # no option makes it pass


def test_every_hand_quarantined_says_why_in_one_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text("{cut off\n{also cut\n", encoding="utf-8")
    out = _run(path, "--allow-unaudited")
    assert out.exit_code == 2
    assert "auditor: no hand was audited of 2 read: 2 quarantined (damaged 2)" in out.stderr.splitlines()


def test_the_json_junit_and_sarif_reports_say_first_what_was_not_audited(tmp_path):
    folder = _folder(tmp_path, **{"a.jsonl": NZ_CLEAN.read_text(encoding="utf-8").strip() + "\n{cut off\n"})
    out = tmp_path / "out"
    run = _run(folder, "--format", "json", "--format", "junit", "--format", "sarif", "--output", out)
    assert run.exit_code == 3, run.output
    doc = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert next(iter(doc)) == "summary" and next(iter(doc["summary"])) == "not_audited"
    assert doc["summary"]["not_audited"]["quarantined_by_code"] == {"damaged": 1}
    assert doc["files"][0]["hands_not_covered"] == 0
    junit = (out / "junit.xml").read_text(encoding="utf-8")
    assert junit.index('<testsuite name="not audited"') < junit.index("<testsuite name=\"nz-casino-1999")
    assert 'name="quarantined [damaged]: 1 hand(s)"' in junit
    sarif = json.loads((out / "findings.sarif").read_text(encoding="utf-8"))
    notices = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert [n["descriptor"]["id"] for n in notices if n["descriptor"]["id"].startswith("quarantine/")] == [
        "quarantine/damaged"]


def test_a_skipped_hand_history_of_a_room_we_cannot_read_does_not_pass(tmp_path, monkeypatch):
    folder = _folder(tmp_path, **{"a.jsonl": NZ_CLEAN.read_text(encoding="utf-8"),
                                  "session.txt": "***** Betfair Poker Hand History for Game 123 *****\n",
                                  "README.md": "notes\n"})

    def recognise_other(head: bytes, name: str) -> str | None:  # as detect's: what the file is, if known
        return "Betfair Poker hand history: no reader for this room" if b"Betfair Poker Hand History" in head else None

    monkeypatch.setattr(detect, "recognise_other", recognise_other, raising=False)
    result = audit([folder])
    assert list(result.skipped_hand_histories.values()) == ["Betfair Poker hand history: no reader for this room"]
    assert result.unaudited and result.hands_audited == result.hands_read == 1
    out = _run(folder)
    assert out.exit_code == 3, out.output
    summary = _summary(out.output)
    assert summary[0] == "  not audited: 0 hand(s) quarantined, 0 hand(s) not covered, 1 hand-history file(s) skipped"
    assert summary[1:3] == ["    skipped, hand histories this auditor cannot read: 1 file(s)",
                            "      Betfair Poker hand history: no reader for this room: 1 file(s): "
                            f"{folder / 'session.txt'}"]
    assert any(line.startswith("  files skipped, not recognised as hand logs: 1 (") and "README.md" in line
               for line in summary)
    assert _run(folder, "--allow-unaudited").exit_code == 0
    # named on the command line, it is a usage error that says whose file it is
    named = _run(folder / "session.txt")
    assert named.exit_code == 2
    assert f"auditor: {folder / 'session.txt'}: Betfair Poker hand history: no reader for this room" in named.stderr


def test_reader_notes_reach_the_result_once_per_file_and_code(monkeypatch):
    real = partition.read_piece

    def with_notes(piece, limits=None, reference=frozenset()):
        for item in real(piece, limits, reference):
            if isinstance(item, SourceHand):
                yield ReaderNote(item.file, item.line, "implied-uncalled-return", "no 'Uncalled bet' line")
            yield item

    monkeypatch.setattr(partition, "read_piece", with_notes)
    monkeypatch.setattr(partition, "takes_column_wise", lambda *_: False)  # read hand by hand, as above
    result = audit([NZ_CLEAN, HOLDEM], batch_size=50)
    assert [(Path(n.file).name, n.line, n.code) for n in result.notes] == [
        ("full-raises.jsonl", 1, "implied-uncalled-return"), ("holdem.jsonl", 1, "implied-uncalled-return")]
    assert result.hands_read == 1 + sum(1 for _ in HOLDEM.open(encoding="utf-8"))  # a note is not a hand
    assert result.findings.empty or "implied-uncalled-return" not in set(result.findings["rule_id"])
    text = io.StringIO()
    write_summary(result, text)
    assert ("  notes (conventions of the files' rooms the readers applied; not findings):\n"
            f"    {result.notes[0].one_line()}\n") in text.getvalue()
    assert json_document(result)["summary"]["notes"][1] == {"file": str(HOLDEM), "line": 1,
                                                            "code": "implied-uncalled-return",
                                                            "text": "no 'Uncalled bet' line"}


def _die_on_first_partition(part, options):
    """Stands in for the local engine's worker function in the spawned workers (found by module name)."""
    if part.index == 0:
        os._exit(9)  # as the kernel's OOM killer would end it: no exception, no result
    return local.run_partition(part, options)


def test_a_worker_that_dies_leaves_lost_worker_quarantines_and_the_rest_is_audited(monkeypatch):
    monkeypatch.setattr(local, "POOL_MIN_HANDS", 0)
    monkeypatch.setattr(local, "_work", _die_on_first_partition)
    # batches of one hand: each file is a partition of its own (a partition is at most one batch)
    whole = audit([NZ_CLEAN, HOLDEM_PLANTED], batch_size=1, jobs=1)
    result = audit([NZ_CLEAN, HOLDEM_PLANTED], batch_size=1, jobs=2)
    lost = [q for q in result.quarantined if q.code == "lost-worker"]
    assert [Path(q.file).name for q in lost] == ["full-raises.jsonl"]  # partition 0 holds the first file alone
    assert "worker process auditing it died" in lost[0].reason
    assert result.hands_read == result.hands_audited + result.hands_not_covered + result.hands_quarantined
    holdem = whole.findings[whole.findings["file"] == str(HOLDEM_PLANTED)]
    assert len(holdem) == 7 and result.findings.reset_index(drop=True).equals(holdem.reset_index(drop=True))
    assert result.hands_audited == whole.hands_audited - 1
