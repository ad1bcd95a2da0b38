"""The command line's help: descriptions never cut off, exit codes and the built-in pack
names in `audit --help`, help text on every option, and --output errors that say what is wrong."""

from __future__ import annotations

import io
import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from auditor.check.packs import builtin_pack_paths
from auditor.cli import main
from auditor.report.formats import OutputError, plan
from auditor.report.text import table_lines

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_logs"


def _help(*args: str, columns: int = 80) -> str:
    run = CliRunner().invoke(main, [*args, "--help"], env={"COLUMNS": str(columns)}, terminal_width=columns)
    assert run.exit_code == 0, run.output
    return run.output


@pytest.mark.parametrize("columns", [80, 120])
def test_the_command_list_is_never_cut_off(columns):
    text = _help(columns=columns)
    listed = text[text.index("Commands:"):]
    assert "..." not in listed  # click's mark of a description cut to fit
    for name, command in main.commands.items():
        assert command.short_help, name
        line = re.search(rf"^  {re.escape(name)} +(.+)$", listed, flags=re.M)
        assert line and line.group(1) == command.short_help, name  # whole, on one line
    rules = _help("rules", columns=columns)
    assert "..." not in rules[rules.index("Commands:"):]


def test_audit_help_gives_the_exit_codes_and_the_builtin_packs():
    text = _help("audit")
    flat = " ".join(text.split())
    assert "Exit status: 0 nothing at or above --fail-on" in flat
    for code in ("1 findings at or above --fail-on", "2 usage error", "3 nothing at or above --fail-on"):
        assert code in flat
    packs = list(builtin_pack_paths())
    assert packs and "Built-in rule packs" in text
    assert ", ".join(packs) in flat


@pytest.mark.parametrize("command", ["audit", "simulate", "verify", "convert", "explain", "check-manifest"])
def test_every_option_has_help_text(command):
    cmd = main.commands[command]
    for param in cmd.params:
        if isinstance(param, click.Option) and not param.hidden:
            assert param.help and len(param.help) > 10, f"{command} {param.opts}"


def test_help_is_also_h():
    run = CliRunner().invoke(main, ["audit", "-h"])
    assert run.exit_code == 0 and "--fail-on" in run.output


def test_quiet_prints_the_headline_and_counts_only():
    run = CliRunner().invoke(main, ["audit", str(SAMPLE), "--quiet"])
    assert run.exit_code == 1
    lines = run.stdout.strip().splitlines()
    assert lines[0] == "Summary"
    assert any(line.startswith("  verdict: 28 finding(s)") for line in lines)
    assert any(line.startswith("  hands read: 1427 = ") for line in lines)
    assert any(line.startswith("  findings by category: blind-order 9") for line in lines)
    # no findings, no quarantine lines, no rule table
    assert "[TDA-43A]" not in run.output and "quarantined:" not in run.output and "TDA-47A" not in run.output
    assert len(lines) <= 8


def test_the_rule_table_stays_aligned_for_the_longest_rule_id():
    run = CliRunner().invoke(main, ["audit", str(SAMPLE)])
    text = run.stdout
    table = text[text.index("  rules with a hand in scope:\n"):].splitlines()[1:]
    table = [line for line in table if line.startswith("    ")]
    header, rows = table[0], table[1:]
    assert len(rows) > 20
    # the numbers end in the same column on every row, whatever the rule id's length
    end = header.index("hands checked") + len("hands checked")
    for row in rows:
        assert row[end - 1].isdigit() and row[end] == " ", row
    longest = max(len(row.split()[1]) for row in rows)
    assert header.index("hands checked") > header.index("rule") + longest
    assert all(line == line.rstrip() for line in table)  # no trailing spaces into a pipe
    assert "\x1b[" not in text  # no escape codes into a pipe


def test_output_errors_say_what_is_wrong_in_words(tmp_path):
    a_file = tmp_path / "x.json"
    a_file.write_text("{}", encoding="utf-8")
    with pytest.raises(OutputError, match=r"x\.json is a file, not a directory"):
        plan(["html", "sarif"], str(a_file))
    with pytest.raises(OutputError, match=r"--output .*x\.json/report\.html: .*x\.json is a file, not a directory"):
        plan(["html"], str(a_file / "report.html"))
    with pytest.raises(OutputError, match=r"x\.json is a file, not a directory"):
        plan(["html"], str(a_file) + "/")
    with pytest.raises(OutputError, match="writes a binary file"):
        plan(["parquet"], "-")
    with pytest.raises(OutputError, match="need --output DIRECTORY"):
        plan(["html", "csv"], "-")
    run = CliRunner().invoke(main, ["audit", str(SAMPLE), "--format", "html", "--output", str(a_file / "r.html")])
    assert run.exit_code == 2 and "x.json is a file, not a directory" in run.stderr
    # a folder that does not exist yet is made
    assert plan(["html"], str(tmp_path / "new" / "r.html"))[0].path == tmp_path / "new" / "r.html"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_summary_tables_are_text_never_markup_and_bold_only_on_a_terminal():
    rows = [("[bold red]forged[/]", "\x1b[31mred\x1b[0m", 7), ("x", "a-much-longer-rule-id-than-the-others", 12345)]
    piped = table_lines(("pack", "rule", "count"), rows, io.StringIO(), right=(2,))
    assert piped[1].startswith("    [bold red]forged[/]")  # shown as written: rich markup is not read
    assert "\x1b" not in "".join(piped) and "red" in piped[1]  # the log's escape dropped, its text kept
    assert piped[1].index("7") + 1 == piped[2].index("12345") + 5  # the counts end in one column
    on_screen = table_lines(("pack", "rule", "count"), rows, _Terminal(), right=(2,))
    assert "\x1b[1m" in on_screen[0] and "\x1b[31m" not in "".join(on_screen)
