"""Escaping at the terminal: log text that reaches the console report (player names, table names, hand
ids, quoted log lines in quarantine reasons, archive member names) cannot drive the terminal.

The samples are real attacks: CSI sequences that clear the screen, move the cursor or recolour text;
OSC sequences that set the window title or hide a hyperlink; the 8-bit CSI (0x9b); BEL and backspaces;
a carriage return that overwrites a line; a bidi override that shows text in another order. They go
through the readers and audit() into the console report (auditor/report/text.py, whose `clean` is the
filter) and the CLI's quarantine lines (records.Quarantined.one_line).
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from auditor.cli import main
from auditor.model.records import Quarantined
from auditor.pipeline import audit
from auditor.report.text import clean, write_text

ROOT = Path(__file__).resolve().parents[1]
PLANTED = ROOT / "sample_logs" / "holdem-planted.jsonl"

ATTACKS = {
    "clear screen": "\x1b[2J\x1b[H",
    "recolour": "\x1b[31;1mRED\x1b[0m",
    "cursor up and erase": "\x1b[1A\x1b[2K",
    "window title": "\x1b]0;pwned\x07",
    "hidden hyperlink": "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\",
    "8-bit CSI": "\x9b31m",
    "bell and backspaces": "\x07\x08\x08\x08",
    "carriage return": "\rFAKE",
    "DEL and NUL": "\x7f\x00",
    "device status query": "\x1b[6n",
}
#: what must never reach the terminal: ESC, C0 controls but tab and newline, DEL, C1 controls
FORBIDDEN = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _hostile_log(tmp_path: Path) -> Path:
    """The planted hold'em log with every player, table and hand id carrying an attack."""
    attacks = list(ATTACKS.values())
    out = []
    for n, line in enumerate(PLANTED.read_text(encoding="utf-8").splitlines()):
        hand = json.loads(line)
        for k, seat in enumerate(hand["seats"]):
            seat["player"] = f"p{k}{attacks[(n + k) % len(attacks)]}"[:128]
        hand["table_id"] = (hand["table_id"] + attacks[n % len(attacks)])[:128]
        hand["hand_id"] = (hand["hand_id"] + attacks[(n + 3) % len(attacks)])[:128]
        out.append(json.dumps(hand))
    path = tmp_path / "hostile.jsonl"
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_clean_drops_each_attack(name):
    text = clean(f"alice{ATTACKS[name]}bob")
    assert not FORBIDDEN.search(text), repr(text)
    assert text.startswith("alice") and text.endswith("bob")


def test_clean_drops_whole_sequences_not_just_their_escape_byte():
    assert clean("a\x1b[31;1mb\x1b[0mc") == "abc"
    assert clean("a\x1b]0;title\x07b") == "ab"


def test_console_report_of_hostile_names_holds_no_control_characters(tmp_path):
    log = _hostile_log(tmp_path)
    result = audit([log])
    assert len(result.findings) > 0
    # the attacks are in the findings as the log wrote them (evidence is kept verbatim)...
    assert any("\x1b" in str(m) for m in result.findings["message"])
    out = io.StringIO()
    write_text(result, out)
    text = out.getvalue()
    # ...and none of them reaches the terminal
    assert not FORBIDDEN.search(text), repr(FORBIDDEN.search(text))
    assert "pwned" not in text and "evil.example" not in text  # OSC bodies go with their escape


def test_cli_console_and_quarantine_lines_hold_no_control_characters(tmp_path):
    log = _hostile_log(tmp_path)
    with log.open("a", encoding="utf-8") as f:  # lines the reader quarantines, quoting hostile text
        f.write('{"hand_id": "x\\u001b[2J", "bad": "\\u001b]0;pwned\\u0007"}\n')
        f.write("\x1b[2J\x1b]0;pwned\x07 not json\n")
    archive = tmp_path / "names.zip"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("\x1b[2J\x1b]0;pwned\x07.jsonl", b"{}\n")
    archive.write_bytes(buf.getvalue())
    for fmt in ("text", "jsonl"):
        result = CliRunner().invoke(main, ["audit", str(log), str(archive), "--format", fmt, "--fail-on", "never"])
        assert result.exit_code == 3, result.output  # nothing at --fail-on, but hands were quarantined
        console = result.stdout if fmt == "text" else result.stderr
        assert "quarantined:" in console
        lines = [line for line in console.splitlines() if line.startswith("quarantined:")]
        assert len(lines) == 3  # the hand without fields, the line that is not JSON, the zip member
        assert not any(FORBIDDEN.search(line) for line in lines), lines
    assert "\\x1b" in Quarantined("a\x1bb", 1, "r", code="damaged").one_line()


def test_console_report_cannot_be_given_forged_lines(tmp_path):
    hands = [json.loads(line) for line in PLANTED.read_text(encoding="utf-8").splitlines()]
    for hand in hands:
        for seat in hand["seats"]:
            seat["player"] = "x\nsample_logs/holdem.jsonl:1: error FORGED finding\u202e"
    log = tmp_path / "forged.jsonl"
    log.write_text("\n".join(json.dumps(h) for h in hands) + "\n", encoding="utf-8")
    out = io.StringIO()
    write_text(audit([log]), out)
    assert not any(line.startswith("sample_logs/holdem.jsonl:1: error FORGED") for line in out.getvalue().splitlines())
    assert "\u202e" not in out.getvalue()
