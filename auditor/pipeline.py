"""ingest → replay → check, once, for a set of paths: the one function the CLI and tests call."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from auditor.check.packs import Pack, PackError, resolve_pack
from auditor.check.run import check
from auditor.ingest.detect import detect, looks_like_log, read_file
from auditor.ingest.limits import Limits
from auditor.ingest.parquet import is_parquet_dataset
from auditor.ingest.records import Quarantined, SourceHand
from auditor.ingest.tables import build_tables
from auditor.replay.engine import TableState, replay


class UsageError(ValueError):
    """Bad command-line input (missing path, unknown pack): exit status 2."""


@dataclass(frozen=True)
class InputFile:
    path: Path
    format: str  # a name from detect.INPUT_FORMATS, decided once by discover(); "auto" only for a zip
    #: how the user knows the file: as named, or `<named folder>/<path inside it>`, never where the
    #: folder happens to be mounted, so ids built from it are the same on every machine
    name: str = ""


@dataclass(frozen=True)
class Progress:
    """Where a run is, for a progress bar: reported after every file and every batch."""

    files_done: int
    files_total: int
    hands_read: int
    seconds: float


@dataclass
class AuditResult:
    findings: pd.DataFrame
    coverage: pd.DataFrame
    quarantined: list[Quarantined]
    hands_read: int
    hands_audited: int
    inputs: list[InputFile]
    packs: dict[str, Pack]
    seconds: float
    skipped_files: list[Path] = field(default_factory=list)
    #: hands read per input file (archive members as `archive!member`), so each file reconciles too
    read_per_file: Counter = field(default_factory=Counter)

    @property
    def hands_quarantined(self) -> int:
        return len(self.quarantined)

    def per_file(self) -> pd.DataFrame:
        """One row per file: hands read = audited + quarantined, and findings."""
        files = list(self.read_per_file)
        quarantined = Counter(q.file for q in self.quarantined)
        found = Counter(self.findings["file"]) if len(self.findings) else Counter()
        read = [self.read_per_file[f] for f in files]
        held = [quarantined.get(f, 0) for f in files]
        return pd.DataFrame({"file": files, "hands_read": read,
                             "hands_audited": [r - q for r, q in zip(read, held, strict=True)],
                             "hands_quarantined": held, "findings": [found.get(f, 0) for f in files]})


def discover(paths: Iterable[Path], input_format: str = "auto") -> tuple[list[InputFile], list[Path]]:
    """Input files under the given paths (directories recursively), and files that are not hand logs.

    A file named on the command line is always read (its format detected, or forced); inside a
    directory only files with a hand-log name are, so a README beside the logs is skipped, not
    reported as a bad hand.
    """
    found: list[InputFile] = []
    skipped: list[Path] = []
    for path in paths:
        if not path.exists():
            raise UsageError(f"{path}: no such file or directory")
        if is_parquet_dataset(path) or not path.is_dir():
            fmt = _format_of(path, input_format)
            if fmt is None:
                raise UsageError(f"{path}: not a hand log this auditor reads (use --input-format to force one)")
            found.append(InputFile(path, fmt, path.as_posix()))
            continue
        datasets = [p for p in sorted(path.rglob("*")) if is_parquet_dataset(p)]
        for p in sorted(path.rglob("*")):
            if any(d == p or d in p.parents for d in datasets):
                if p in datasets:
                    found.append(InputFile(p, "parquet", _name_inside(path, p)))
                continue
            if p.is_file():
                fmt = _format_of(p, input_format) if input_format != "auto" or looks_like_log(p) else None
                (found.append(InputFile(p, fmt, _name_inside(path, p))) if fmt else skipped.append(p))
    return found, skipped


def _name_inside(folder: Path, path: Path) -> str:
    return f"{folder.resolve().name or folder.as_posix()}/{path.relative_to(folder).as_posix()}"


def _format_of(path: Path, input_format: str) -> str | None:
    """The format to read `path` as, decided once here (detection reads the file's opening bytes)."""
    if input_format != "auto":
        return input_format
    if is_parquet_dataset(path):
        return "parquet"
    if path.name.lower().endswith(".zip"):
        return "auto"  # members are detected one by one
    fmt = detect(path)
    return fmt.name if fmt else None


def read_inputs(inputs: Iterable[InputFile]) -> Iterator[SourceHand | Quarantined]:
    for item in inputs:
        yield from read_file(item.path, item.format, item.name or None)


def audit(paths: Iterable[Path], pack: str | None = None, batch_size: int = 20_000,
          input_format: str = "auto", progress: Callable[[Progress], None] | None = None,
          limits: Limits | None = None) -> AuditResult:
    """Audit every hand under `paths`, each under `pack` if given, else under the pack its table declares.

    `limits` bounds what hostile input may cost (line, hand and unpacked sizes; ingest/limits.py).

    Hands are processed in batches of `batch_size`, so memory stays flat however many hands a run
    reads; the table state a replay needs from earlier hands is carried from batch to batch.
    """
    started = time.perf_counter()
    inputs, skipped = discover(paths, input_format)
    forced = resolve_pack(pack) if pack else None
    packs: dict[str, Pack] = {forced.name: forced} if forced else {}
    unknown_packs: dict[str, str] = {}
    quarantined: list[Quarantined] = []
    findings: list[pd.DataFrame] = []
    coverage: list[pd.DataFrame] = []
    table_state = TableState()
    hands_read = 0
    read_per_file: Counter = Counter()
    batch: list[SourceHand] = []

    def flush() -> None:
        if batch:
            found, cov, failed = _audit_batch(batch, packs, forced, table_state)
            findings.append(found)
            coverage.append(cov)
            quarantined.extend(failed)
            batch.clear()

    def report(files_done: int) -> None:
        if progress is not None:
            progress(Progress(files_done, len(inputs), hands_read, time.perf_counter() - started))

    for files_done, item in _with_file_numbers(inputs, report, limits):
        hands_read += 1
        read_per_file[item.file] += 1
        if hands_read % 1000 == 0:
            report(files_done)
        if isinstance(item, Quarantined):
            quarantined.append(item)
            continue
        name = forced.name if forced else item.hand["rule_pack"]
        if name not in packs and name not in unknown_packs:
            try:
                packs[name] = resolve_pack(name)
            except PackError as exc:
                unknown_packs[name] = exc.message
        if name in unknown_packs:
            quarantined.append(Quarantined(item.file, item.line, f"declares rule pack '{name}', which cannot be "
                                           f"used: {unknown_packs[name]}", item.hand["hand_id"]))
            continue
        batch.append(item)
        if len(batch) >= batch_size:
            flush()
    flush()
    report(len(inputs))
    all_findings = pd.concat(findings, ignore_index=True) if findings else check(*_empty(packs))[0]
    all_findings = all_findings.sort_values(["file", "line", "seq", "rule_id"], kind="stable", ignore_index=True)
    all_coverage = _sum_coverage(coverage, packs)
    return AuditResult(all_findings, all_coverage, quarantined, hands_read, hands_read - len(quarantined), inputs,
                       packs, time.perf_counter() - started, skipped, read_per_file)


def _with_file_numbers(inputs: list[InputFile], report: Callable[[int], None], limits: Limits | None = None,
                       ) -> Iterator[tuple[int, SourceHand | Quarantined]]:
    """Each hand with the number of files finished before it; `report` is called as each file ends."""
    for done, item in enumerate(inputs):
        for hand in read_file(item.path, item.format, item.name or None, limits):
            yield done, hand
        report(done + 1)


def _audit_batch(batch: list[SourceHand], packs: dict[str, Pack], forced: Pack | None,
                 table_state: TableState) -> tuple[pd.DataFrame, pd.DataFrame, list[Quarantined]]:
    tables = build_tables(batch)
    hands = tables.hands.to_pandas()
    if forced:
        hands["rule_pack"] = forced.name
    houses = [packs[name].house for name in hands["rule_pack"]]
    facts, failures = replay(tables, houses, table_state)
    failed_hands = []
    if failures:
        failed = {h for h, _ in failures}
        failed_hands = [Quarantined(hands.at[h, "file"], int(hands.at[h, "line"]), reason, hands.at[h, "hand_id"])
                        for h, reason in failures]
        hands = hands[~hands["hand"].isin(failed)]
    findings, coverage = check(facts, hands, packs)
    return findings, coverage, failed_hands


def _empty(packs: dict[str, Pack]) -> tuple:
    """An empty batch, so a run with no readable hand still has well-formed findings and coverage."""
    tables = build_tables([])
    facts, _ = replay(tables, [])
    return facts, tables.hands.to_pandas(), packs


def _sum_coverage(parts: list[pd.DataFrame], packs: dict[str, Pack]) -> pd.DataFrame:
    if not parts:
        return check(*_empty(packs))[1]
    keys = ["pack", "rule_id", "category", "severity"]
    combined = pd.concat(parts, ignore_index=True)
    order = combined[keys].drop_duplicates()
    return order.merge(combined.groupby(keys, sort=False, as_index=False).sum(), on=keys, how="left")
