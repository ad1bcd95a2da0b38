"""Hostile input, round two: what a byte fuzzer does not make. Each test builds its malicious sample
in tmp_path and checks that the run ends without a traceback and that its summary reconciles
(hands read = audited + not covered + quarantined).

- a file name that is not valid UTF-8 (byte 0xff), as a tar or rsync from another system delivers;
- `-` (standard input) and a FIFO on the command line, read once into a temporary file;
- a hand that breaks one rule thousands of times, capped per hand and rule, the rest counted;
- PHH folders of one name in two places (`casinoA/day1`, `casinoB/day1`), ids kept apart;
- FIFOs, device links and dangling links inside a folder skipped with why, never opened;
  CSV cells with a formula behind a line break, a no-break space or an invisible character.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from auditor import pipeline
from auditor.cli import main
from auditor.engines.partition import cap_findings
from auditor.model.inputs import UsageError, shown_text
from auditor.model.results import MAX_FINDINGS_PER_HAND_RULE
from auditor.pipeline import audit, discover
from auditor.report.csv_report import neutralise
from auditor.report.formats import FORMATS, Target, write

ROOT = Path(__file__).resolve().parents[1]
HOLDEM = ROOT / "sample_logs" / "holdem.jsonl"
BAD_NAME = os.fsdecode(b"bad\xff.jsonl")  # a surrogate escape: what Python makes of byte 0xff in a name


def _reconciles(result) -> None:
    assert result.hands_read == result.hands_audited + result.hands_not_covered + result.hands_quarantined
    per_file = result.per_file()
    assert (per_file["hands_read"] == per_file["hands_audited"] + per_file["hands_not_covered"]
            + per_file["hands_quarantined"]).all()


def _no_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _hands(n: int) -> bytes:
    return b"".join(HOLDEM.read_bytes().splitlines(keepends=True)[:n])


# ----------------------------------------------------------------------------------- names that are not UTF-8


@pytest.fixture
def bad_name_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "good.jsonl").write_bytes(_hands(3))
    # hands with planted violations, so findings name the file too
    (folder / BAD_NAME).write_bytes((ROOT / "sample_logs" / "holdem-planted.jsonl").read_bytes())
    (folder / os.fsdecode(b"notes\xfe.txt")).write_text("not a hand log")
    return folder


def test_shown_text_escapes_only_what_is_not_text():
    assert shown_text("casino/day1/x.phh") == "casino/day1/x.phh"
    assert shown_text(BAD_NAME) == "bad\\xff.jsonl"
    assert shown_text("\ud800x") == "\\ud800x"


def test_a_name_that_is_not_utf8_is_audited_and_shown_escaped(bad_name_folder: Path, tmp_path: Path):
    result = audit([bad_name_folder])
    assert result.hands_read == 10 and result.hands_audited == 10
    _reconciles(result)
    files = set(result.read_per_file)
    assert files == {(bad_name_folder / "good.jsonl").as_posix(), (bad_name_folder / "bad\\xff.jsonl").as_posix()}
    assert all(_no_surrogate(item.name) and _no_surrogate(item.label) for item in result.inputs)
    assert any(item.path.name == BAD_NAME for item in result.inputs)  # opened by its real name
    for fmt in FORMATS.values():  # every report can be written, and none holds a surrogate
        path = tmp_path / "out" / fmt.filename
        write(Target(fmt, path), result, io.StringIO())
        if not fmt.binary:
            text = path.read_text(encoding="utf-8")
            # as text; JSON doubles the backslash; SARIF's artifact URIs percent-encode it
            assert any(f"bad{slash}xff.jsonl" in text for slash in ("\\", "\\\\", "%5C")), fmt.name
    stdout = io.StringIO()
    write(Target(FORMATS["text"], None), result, stdout)
    assert "notes\\xfe.txt" in stdout.getvalue()


def test_cli_audit_and_convert_survive_a_name_that_is_not_utf8(bad_name_folder: Path, tmp_path: Path):
    runner = CliRunner()
    audited = runner.invoke(main, ["audit", str(bad_name_folder), "--format", "json", "--output",
                                   str(tmp_path / "r.json")])
    assert audited.exception is None or isinstance(audited.exception, SystemExit), audited.output
    assert audited.exit_code == 1, audited.output  # the planted findings; every hand audited
    summary = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["summary"]
    assert summary["hands_read"] == 10
    assert any(name.endswith("logs/bad\\xff.jsonl") for name in summary["inputs"])
    converted = runner.invoke(main, ["convert", str(bad_name_folder), "-o", str(tmp_path / "dataset")])
    assert converted.exit_code == 0, converted.output
    import pyarrow.parquet as pq

    files = set(pq.read_table(tmp_path / "dataset" / "hands.parquet", columns=["file"]).column("file").to_pylist())
    assert len(files) == 2 and any(f.endswith("logs/bad\\xff.jsonl") for f in files)  # escaped in the dataset
    assert audit([tmp_path / "dataset"]).hands_read == 10


# ----------------------------------------------------------------------------------- standard input, FIFOs


def test_standard_input_is_read_once_as_stdin():
    """`cat sample_logs/holdem.jsonl | auditor audit -` reads all 400 hands (a real pipe, a real process)."""
    with HOLDEM.open("rb") as source:
        done = subprocess.run([sys.executable, "-m", "auditor.cli", "audit", "-", "--quiet", "--format", "json",
                               "--jobs", "1"], stdin=source, capture_output=True, timeout=300, cwd=ROOT)
    assert b"Traceback" not in done.stderr
    summary = json.loads(done.stdout)["summary"]
    assert summary["hands_read"] == 400 and summary["hands_audited"] == 400
    assert summary["inputs"] == ["<stdin>"]


def test_gzip_on_stdin_is_named_stdin_in_findings(monkeypatch: pytest.MonkeyPatch):
    planted = (ROOT / "sample_logs" / "holdem-planted.jsonl").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(gzip.compress(planted))))
    result = audit([Path("-")])
    assert result.hands_read == len(planted.splitlines())
    assert set(result.findings["file"]) == {"<stdin>"} and len(result.findings)
    _reconciles(result)


def test_stdin_twice_a_terminal_or_empty_is_a_usage_error(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(_hands(2))))
    with pytest.raises(UsageError, match="only once"):
        discover([Path("-"), Path("-")])
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    with pytest.raises(UsageError, match="empty"):
        discover([Path("-")])

    class Terminal(io.BytesIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(Terminal(b"")))
    with pytest.raises(UsageError, match="terminal"):
        discover([Path("-")])


def test_a_fifo_nobody_writes_to_is_refused_not_waited_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    fifo = tmp_path / "hands.jsonl"
    os.mkfifo(fifo)
    monkeypatch.setattr(pipeline, "STREAM_IDLE_SECONDS", 0.3)
    started = time.monotonic()
    with pytest.raises(UsageError, match="FIFO, and nothing was written"):
        audit([fifo])
    assert time.monotonic() - started < 10


def test_a_fifo_on_the_command_line_is_read_once_as_a_stream(tmp_path: Path):
    fifo = tmp_path / "hands.jsonl"
    os.mkfifo(fifo)

    def writer() -> None:
        with fifo.open("wb") as out:
            out.write(_hands(5))

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        result = audit([fifo])
    finally:
        thread.join(timeout=30)
    assert result.hands_read == 5 and result.hands_audited == 5
    assert set(result.read_per_file) == {fifo.as_posix()}  # named as given, not by its temporary copy


def test_a_device_on_the_command_line_is_refused(tmp_path: Path):
    with pytest.raises(UsageError, match="a device"):
        discover([Path("/dev/zero")])
    dangling = tmp_path / "gone.jsonl"
    dangling.symlink_to(tmp_path / "nowhere")
    with pytest.raises(UsageError, match="a link to nothing"):
        discover([dangling])


# ------------------------------------------------------------------------------------ special files in a folder


def test_fifos_device_links_and_dangling_links_in_a_folder_are_skipped_with_why(tmp_path: Path):
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "good.jsonl").write_bytes(_hands(2))
    os.mkfifo(folder / "pipe.jsonl")  # opening it would block the run forever
    (folder / "zero.jsonl").symlink_to("/dev/zero")  # reading it would never end
    (folder / "gone.jsonl").symlink_to(folder / "nowhere")
    (folder / "loop.jsonl").symlink_to(folder / "loop.jsonl")
    (folder / "more").symlink_to(folder)  # a link to a directory is not followed, and says so
    result = audit([folder])
    assert result.hands_read == 2
    _reconciles(result)
    why = {p.name: text for p, text in result.skipped_not_regular.items()}
    assert why == {"pipe.jsonl": "a FIFO (named pipe)", "zero.jsonl": "a link to a device",
                   "gone.jsonl": "a link to nothing", "loop.jsonl": "a link to nothing",
                   "more": "a link to a directory (not followed: name the directory itself to audit it)"}
    out = io.StringIO()
    write(Target(FORMATS["text"], None), result, out)
    assert "not regular files (never opened): 5" in out.getvalue()
    assert "pipe.jsonl: a FIFO (named pipe)" in out.getvalue()


@pytest.mark.parametrize("cell", ["\n=HYPERLINK(\"http://x\")", "\u00a0=cmd|' /C calc'!A0", "\u2003+1+1",
                                  "\u200b@SUM(A1)", " \r\n -2+3", "\u3000=1", "\uff1d1+1", "\t=1"])
def test_csv_cells_with_a_formula_behind_blanks_are_neutralised(cell: str):
    assert str(neutralise(cell)).startswith("'")


@pytest.mark.parametrize("cell", ["seat 2 raised", "a=b", "HE-0001", "1,500"])
def test_csv_plain_cells_stay_as_they_are(cell: str):
    assert neutralise(cell) == cell


def test_a_player_name_with_a_hidden_formula_is_neutralised_in_the_csv_report(tmp_path: Path):
    hand = json.loads(HOLDEM.read_bytes().splitlines()[0])
    hand["seats"][0]["player"] = "\u00a0=HYPERLINK(\"http://evil\")"
    bet = next(e for e in hand["events"] if e.get("action") == "bet")
    hand["events"].insert(hand["events"].index(bet) + 1, {"kind": "action", "seat": 2, "action": "check"})
    (tmp_path / "h.jsonl").write_text(json.dumps(hand) + "\n")
    result = audit([tmp_path / "h.jsonl"])
    assert len(result.findings)
    out = tmp_path / "f.csv"
    write(Target(FORMATS["csv"], out), result, io.StringIO())
    rows = list(csv.reader(out.open(encoding="utf-8", newline="")))
    cells = [c for row in rows[1:] for c in row]
    assert "'\u00a0=HYPERLINK(\"http://evil\")" in cells  # the player column, its no-break space kept
    assert not any(c.lstrip("\u00a0 ").startswith("=") for c in cells)
    assert any(c.startswith("seat 2 (\u00a0=HYPERLINK") for row in rows[1:] for c in row)  # prose stays prose


# ----------------------------------------------------------------------------------- findings bounded per hand


def _check_storm(path: Path, hands: int, checks: int) -> None:
    """Hands in which seat 2 checks `checks` times facing a river bet: one violation per check."""
    hand = json.loads(HOLDEM.read_bytes().splitlines()[0])
    events = hand["events"]
    bet = next(i for i, e in enumerate(events) if e.get("action") == "bet" and e["amount"] == 3050)
    hand["events"] = events[:bet + 1] + [{"kind": "action", "seat": 2, "action": "check"}] * checks + events[bet + 1:]
    with gzip.open(path, "wt") as out:
        for n in range(hands):
            hand["hand_id"] = f"STORM-{n:04d}"
            out.write(json.dumps(hand) + "\n")


def test_findings_of_one_rule_in_one_hand_are_capped_and_the_rest_counted(tmp_path: Path):
    checks = MAX_FINDINGS_PER_HAND_RULE * 3
    _check_storm(tmp_path / "storm.jsonl.gz", 4, checks)
    result = audit([tmp_path / "storm.jsonl.gz"])
    _reconciles(result)
    assert result.hands_audited == 4
    per_rule = result.findings.groupby(["hand_id", "rule_id"]).size()
    assert per_rule.max() == MAX_FINDINGS_PER_HAND_RULE
    assert result.findings_not_listed
    capped = [key for key, n in result.findings_not_listed.items() if n]
    for pack, rule in capped:  # every check beyond the cap is counted against its rule, none lost
        listed = int((result.findings["rule_id"] == rule).sum())
        assert listed == 4 * MAX_FINDINGS_PER_HAND_RULE
        assert listed + result.findings_not_listed[pack, rule] >= 4 * checks
    assert result.findings_total == len(result.findings) + sum(result.findings_not_listed.values())
    out = io.StringIO()
    write(Target(FORMATS["text"], None), result, out)
    assert "findings not listed:" in out.getvalue()
    summary = io.StringIO()
    write(Target(FORMATS["json"], None), result, summary)
    parsed = json.loads(summary.getvalue())["summary"]
    assert parsed["findings_not_listed"] == sum(result.findings_not_listed.values())
    assert parsed["findings_per_hand_rule_cap"] == MAX_FINDINGS_PER_HAND_RULE
    sarif = io.StringIO()
    write(Target(FORMATS["sarif"], None), result, sarif)
    properties = json.loads(sarif.getvalue())["runs"][0]["invocations"][0]["properties"]
    assert properties["findings_not_listed"] == parsed["findings_not_listed"]
    junit = io.StringIO()
    write(Target(FORMATS["junit"], None), result, junit)
    assert f'name="findings_not_listed" value="{parsed["findings_not_listed"]}"' in junit.getvalue()


def test_cap_findings_keeps_the_first_of_each_hand_and_rule():
    import pandas as pd

    frame = pd.DataFrame({"file": ["f"] * 7, "line": [1, 1, 1, 2, 2, 1, 1], "pack": ["p"] * 7,
                          "rule_id": ["A", "A", "A", "A", "A", "B", "B"], "seq": [1, 2, 3, 1, 2, 4, 5]})
    kept, dropped = cap_findings(frame, cap=2)
    assert kept["seq"].tolist() == [1, 2, 1, 2, 4, 5]
    assert dropped == {("p", "A"): 1}


# ------------------------------------------------------------------------------------ folders of one name


#: a PHH hand (two players, the small blind folds); `hand` numbers it within its folder's session
PHH_HAND = """variant = 'NT'
antes = [0, 0]
blinds_or_straddles = [50, 100]
min_bet = 100
starting_stacks = [10000, 10000]
actions = ['d dh p1 Tc9s', 'd dh p2 9dTs', 'p1 f']
hand = {n}
players = ['Ann', 'Bob']
finishing_stacks = [9950, 10050]
"""


def _two_casinos(tmp_path: Path) -> list[Path]:
    """Two casinos' exports, each a folder `day1` of hands numbered 1-3: the same file names, other hands."""
    folders = []
    for casino in ("casinoA", "casinoB"):
        folder = tmp_path / casino / "day1"
        folder.mkdir(parents=True)
        for n in (1, 2, 3):
            (folder / f"{n}.phh").write_text(PHH_HAND.format(n=n))
        folders.append(folder)
    return folders


def test_phh_folders_of_one_name_in_two_places_do_not_collide(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    folders = _two_casinos(tmp_path)
    absolute = audit(folders)
    _reconciles(absolute)
    assert absolute.hands_read == absolute.hands_audited == 6
    assert not (absolute.findings["rule_id"] == "TDA-INT-id").any()
    assert {item.name.split("/")[0] for item in absolute.inputs} == {"casinoA", "casinoB"}
    monkeypatch.chdir(tmp_path)
    relative = audit([Path("casinoA/day1"), Path("casinoB/day1")])
    assert not (relative.findings["rule_id"] == "TDA-INT-id").any()
    assert all(item.name.startswith(("casinoA/day1/", "casinoB/day1/")) for item in relative.inputs)


def test_folder_names_keep_the_given_path_and_stay_independent_of_the_mount(tmp_path: Path):
    names = pipeline._folder_names
    for place in ("a", "b/deeper"):
        (tmp_path / place / "phh").mkdir(parents=True)
    assert names([tmp_path / "a" / "phh"]) == {tmp_path / "a" / "phh": "phh"}  # as test_corpus relies on
    assert names([tmp_path / "b" / "deeper" / "phh"]) == {tmp_path / "b" / "deeper" / "phh": "phh"}
    both = names([tmp_path / "a" / "phh", tmp_path / "b" / "deeper" / "phh"])
    assert both == {tmp_path / "a" / "phh": "a/phh", tmp_path / "b" / "deeper" / "phh": "deeper/phh"}


def test_a_file_named_on_the_command_line_with_a_name_that_is_not_utf8(bad_name_folder: Path):
    result = audit([bad_name_folder / BAD_NAME])
    assert result.hands_read == result.hands_audited == 7
    assert {item.name for item in result.inputs} == {(bad_name_folder / "bad\\xff.jsonl").as_posix()}
    assert set(result.findings["file"]) == {(bad_name_folder / "bad\\xff.jsonl").as_posix()}
    with pytest.raises(UsageError, match=r"notes\\xfe\.txt: not a hand log"):
        audit([bad_name_folder / os.fsdecode(b"notes\xfe.txt")])


def test_convert_reads_standard_input(tmp_path: Path):
    out = CliRunner().invoke(main, ["convert", "-", "-o", str(tmp_path / "dataset")], input=_hands(4))
    assert out.exit_code == 0, out.output
    assert audit([tmp_path / "dataset"]).hands_read == 4
