"""Which report formats exist, where each one goes, and writing them: what `auditor audit --format` uses.

One run can write several formats (`--format html --format sarif`); they then go into the --output
directory under fixed names, so a CI job knows where to pick each up. With one format --output may
be a file, a directory, or `-` (standard output) for the formats a terminal or pipe can take.
Where reports go is decided before the audit runs, so a bad --output costs nothing, and the error
says in words what is wrong with it ("x.json is a file, not a directory").

Each format names its writer (`module:function`), imported when a report of that format is written: the command
line reads this table before every audit, and a run writing JSON Lines has no use for Jinja2 or Arrow's Parquet.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from auditor.model.results import AuditResult


class OutputError(ValueError):
    """--format/--output that cannot work together: a usage error (exit 2)."""


@dataclass(frozen=True)
class ReportFormat:
    name: str
    filename: str  # its name inside an --output directory
    writer: str  # `module:function` under auditor.report, called with (result, stream)
    binary: bool = False  # bytes, not text: never to standard output
    newline: str | None = None  # how the file is opened (CSV writes its own CRLF line ends)

    @property
    def write(self) -> Callable[[AuditResult, IO], None]:
        return _function(self.writer)


def _function(name: str) -> Callable:
    module, function = name.split(":")
    return getattr(importlib.import_module(f"auditor.report.{module}"), function)


FORMATS: dict[str, ReportFormat] = {f.name: f for f in (
    ReportFormat("text", "report.txt", "text:write_text"),
    ReportFormat("jsonl", "findings.jsonl", "jsonl:write_jsonl"),
    ReportFormat("json", "report.json", "json_report:write_json"),
    ReportFormat("csv", "findings.csv", "csv_report:write_csv", newline=""),
    ReportFormat("parquet", "findings.parquet", "parquet_report:write_parquet_report", binary=True),
    ReportFormat("html", "report.html", "html:write_html"),
    ReportFormat("junit", "junit.xml", "junit:write_junit"),
    ReportFormat("sarif", "findings.sarif", "sarif:write_sarif"),
)}


@dataclass(frozen=True)
class Target:
    format: ReportFormat
    path: Path | None  # None: standard output


def plan(names: Sequence[str], output: str) -> list[Target]:
    """Where each requested format is written; raises OutputError for combinations that cannot work."""
    formats = [FORMATS[name] for name in dict.fromkeys(names)]  # each once, in the order given
    if len(formats) == 1:
        fmt = formats[0]
        if output == "-":
            if fmt.binary:
                raise OutputError(f"--format {fmt.name} writes a binary file: give --output FILE or DIRECTORY")
            return [Target(fmt, None)]
        path = Path(output)
        if path.is_dir() or output.endswith(("/", "\\")):
            _check_folder(path, output)
            return [Target(fmt, path / fmt.filename)]
        _check_folder(path.parent, output)
        return [Target(fmt, path)]
    if output == "-":
        raise OutputError(f"{len(formats)} formats need --output DIRECTORY to write "
                          f"{', '.join(f.filename for f in formats)} into")
    path = Path(output)
    if path.exists() and not path.is_dir():
        raise OutputError(f"--output {output}: {output} is a file, not a directory; {len(formats)} formats "
                          f"({', '.join(f.name for f in formats)}) are written into a directory")
    _check_folder(path, output)
    return [Target(fmt, path / fmt.filename) for fmt in formats]


def _check_folder(folder: Path, given: str) -> None:
    """The folder reports go into (`given`: --output as typed): it may not exist yet (it is made), but
    nothing on its way may be a file, and the first part that exists must be a writable directory. Says
    which part is wrong, in words: `--output x.json/r.html: x.json is a file, not a directory`."""
    for part in (folder, *folder.parents):
        if part.exists():
            if not part.is_dir():
                raise OutputError(f"--output {given}: {part} is a file, not a directory")
            if not os.access(part, os.W_OK | os.X_OK):
                raise OutputError(f"--output {given}: the directory {part} is not writable")
            return


def write(target: Target, result: AuditResult, stdout: TextIO, quiet: bool = False) -> None:
    """Write one report. Text with --quiet is the headline and counts alone, as on the terminal."""
    fmt = target.format
    writer = _function("text:write_quiet_summary") if fmt.name == "text" and quiet else fmt.write
    if target.path is None:
        writer(result, stdout)
        return
    target.path.parent.mkdir(parents=True, exist_ok=True)
    if fmt.binary:
        with target.path.open("wb") as stream:
            writer(result, stream)
    else:
        with target.path.open("w", encoding="utf-8", newline=fmt.newline) as stream:
            writer(result, stream)
