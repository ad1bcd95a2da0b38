"""ingest → replay → check, once, for a set of paths: the one function the CLI and tests call.

A run accounts for every hand it read: `hands read = audited + not covered + quarantined`, overall and
per file. A hand is *not covered* when the pack it is audited under has no rule for its game (variant
and structure): nothing judged it, so it is not counted as audited. Files found in a folder that are
not hand logs are skipped; those recognisably hand histories of a room this auditor cannot read are
named with their format (`detect.recognise_other`), because a compliance gate must not pass over them
in silence (issue #13).
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from auditor.check.packs import Pack, declared_pack, resolve_pack
from auditor.check.run import check, covered_games, partly_assessed
from auditor.engines import local
from auditor.engines.ledger import Ledger
from auditor.engines.partition import (
    COVERAGE_KEYS,
    Partition,
    PartitionFailure,
    PartitionResult,
    RunOptions,
    empty_batch,
    plan,
    sum_coverage,
)
from auditor.ingest.detect import detect, looks_like_log, read_file
from auditor.ingest.parquet import is_parquet_dataset
from auditor.ingest.records import QUARANTINE_CODES, Quarantined, ReaderNote, SourceHand
from auditor.resources import check_installation

if TYPE_CHECKING:
    from auditor.ingest.limits import Limits


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
    #: hands not covered (their pack has no rule for their game), by (pack, variant, structure)
    not_covered: Counter = field(default_factory=Counter)
    #: the same hands by file
    not_covered_per_file: Counter = field(default_factory=Counter)
    #: what readers said about files (a room convention applied), one per (file, code), in input order
    notes: list[ReaderNote] = field(default_factory=list)
    #: skipped files that are recognisably hand histories of a room this auditor cannot read: path -> what
    #: they are (`detect.recognise_other`: "888poker hand history: no reader for this room")
    skipped_hand_histories: dict[Path, str] = field(default_factory=dict)

    @property
    def hands_quarantined(self) -> int:
        return len(self.quarantined)

    @property
    def hands_not_covered(self) -> int:
        return sum(self.not_covered.values())

    @property
    def unaudited(self) -> bool:
        """Something went unaudited: a hand quarantined or not covered, or a hand-history file skipped."""
        return bool(self.quarantined or self.hands_not_covered or self.skipped_hand_histories)

    def quarantined_by_code(self) -> dict[str, int]:
        """Quarantined hands per code (`QUARANTINE_CODES`), in that list's order, codes with none left out."""
        counts = Counter(q.code for q in self.quarantined)
        return {code: counts[code] for code in QUARANTINE_CODES if counts[code]}

    def partly_assessed(self) -> pd.DataFrame:
        """Coverage rows of the rules not assessable on most of the hands they apply to."""
        return partly_assessed(self.coverage)

    def per_file(self) -> pd.DataFrame:
        """One row per file: hands read = audited + not covered + quarantined, and findings."""
        files = list(self.read_per_file)
        quarantined = Counter(q.file for q in self.quarantined)
        found = Counter(self.findings["file"]) if len(self.findings) else Counter()
        read = [self.read_per_file[f] for f in files]
        held = [quarantined.get(f, 0) for f in files]
        outside = [self.not_covered_per_file.get(f, 0) for f in files]
        return pd.DataFrame({"file": files, "hands_read": read,
                             "hands_audited": [r - q - o for r, q, o in zip(read, held, outside, strict=True)],
                             "hands_not_covered": outside, "hands_quarantined": held,
                             "findings": [found.get(f, 0) for f in files]})


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
                known = recognise_skipped([path]).get(path) if path.is_file() else None
                if known:
                    raise UsageError(f"{path}: {known}")
                raise UsageError(f"{path}: not a hand log this auditor reads (use --input-format to force one)")
            found.append(InputFile(path, fmt, path.as_posix()))
            continue
        entries = sorted(path.rglob("*"))
        datasets = [p for p in entries if is_parquet_dataset(p)]
        top = path.resolve().name or path.as_posix()  # names inside the folder start with its own name
        for p in entries:
            if datasets and any(d == p or d in p.parents for d in datasets):
                if p in datasets:
                    found.append(InputFile(p, "parquet", _name_inside(top, path, p)))
                continue
            if p.is_file():
                fmt = _format_of(p, input_format) if input_format != "auto" or looks_like_log(p) else None
                (found.append(InputFile(p, fmt, _name_inside(top, path, p))) if fmt else skipped.append(p))
    # One order whatever order the paths were given in: partitions, batches and therefore findings,
    # quarantines and which of two hands with one id is the duplicate do not depend on it.
    found.sort(key=lambda item: (item.path.as_posix(), item.name))
    skipped.sort(key=lambda p: p.as_posix())
    return found, skipped


#: bytes of a skipped file looked at to tell whether it is a hand history of a room we cannot read
#: (what `detect` sniffs)
HEAD_BYTES = 4096


def recognise_skipped(paths: Iterable[Path]) -> dict[Path, str]:
    """Which skipped files are recognisably hand histories of another room, and what they are.

    Uses `auditor.ingest.detect.recognise_other` when that exists (it reads only the opening bytes,
    decompressed, and the name); without it nothing is recognised and every skipped file stays "not a
    hand log"."""
    try:
        from auditor.ingest.detect import recognise_other  # type: ignore[attr-defined]
        from auditor.ingest.files import open_binary
    except ImportError:
        return {}
    found: dict[Path, str] = {}
    for path in paths:
        try:
            with open_binary(path) as f:
                head = f.read(HEAD_BYTES)
        except (OSError, EOFError, ValueError):  # unreadable or a damaged archive: stays "not a hand log"
            continue
        known = recognise_other(head, path.name)
        if known:
            found[path] = known
    return found


def _name_inside(top: str, folder: Path, path: Path) -> str:
    return f"{top}/{path.relative_to(folder).as_posix()}"


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
    """Every hand of the inputs, read or quarantined (readers' notes about files are left out: not hands)."""
    for item in inputs:
        for read in read_file(item.path, item.format, item.name or None):
            if not isinstance(read, ReaderNote):
                yield read


def default_jobs() -> int:
    """All the cores this process may use (`--jobs` default)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def audit(paths: Iterable[Path], pack: str | None = None, batch_size: int = 20_000,
          input_format: str = "auto", progress: Callable[[Progress], None] | None = None,
          limits: Limits | None = None, *, jobs: int | None = 1, engine: str = "local",
          scheduler: Any = None) -> AuditResult:
    """Audit every hand under `paths`, each under `pack` if given, else under the pack its table declares.

    `limits` bounds what hostile input may cost (line, hand and unpacked sizes; ingest/limits.py).

    The sorted inputs are cut into partitions that never split a table (`engines.partition`), audited
    by `jobs` worker processes (None: every core) with the local engine, or on a dask.distributed
    cluster with `engine="dask"` (`scheduler`: an address or a Client; none starts a local cluster).
    Within a partition hands are processed in batches of `batch_size`, so memory stays flat however
    many hands a run reads, and the table state a replay needs from earlier hands is carried from
    batch to batch. Hand ids are judged across the whole run once every partition is in
    (`engines.ledger`). The result is the same, in the same order, whatever the engine, the number of
    workers or the order in which `paths` are given.
    """
    started = time.perf_counter()
    check_installation()  # a missing schema or pack is one ResourceError, not the same quarantine for every file
    if engine not in ENGINES:
        raise UsageError(f"unknown engine '{engine}' (engines: {', '.join(ENGINES)})")
    if scheduler is not None and engine != "dask":
        raise UsageError("a scheduler address needs the dask engine (--engine dask)")
    inputs, skipped = discover(paths, input_format)
    forced = resolve_pack(pack) if pack else None
    partitions = plan(inputs, batch_size, limits)
    options = RunOptions(pack, batch_size, limits)
    workers = default_jobs() if jobs is None else max(1, jobs)
    tracker = _Tracker(progress, len(inputs), partitions, started)
    results: dict[int, PartitionResult] = {}
    ledger = Ledger()
    try:
        with closing(_run(engine, partitions, options, workers, scheduler, tracker.notify)) as finished:
            for result in finished:
                if isinstance(result, PartitionFailure):
                    raise result.error()
                ledger.add(result.index, result.ledger)
                result.ledger = []
                results[result.index] = result
                tracker.finished(result)
        ordered = [results[i] for i in sorted(results)]
        packs: dict[str, Pack] = {forced.name: forced} if forced else {}
        for result in ordered:
            for name in result.pack_names:
                if name not in packs:
                    packs[name] = declared_pack(name)
        wide_findings, wide_coverage = ledger.resolve(packs)
    finally:
        ledger.close()
    findings = [r.findings for r in ordered] + wide_findings
    all_findings = pd.concat(findings, ignore_index=True) if findings else check(*empty_batch(packs))[0]
    all_findings = all_findings.sort_values(["file", "line", "seq", "rule_id"], kind="stable", ignore_index=True)
    coverage = [r.coverage for r in ordered if r.coverage is not None] + wide_coverage
    quarantined = [q for r in ordered for q in r.quarantined]
    read_per_file: Counter = Counter()
    not_covered: Counter = Counter()
    not_covered_per_file: Counter = Counter()
    notes: dict[tuple[str, str], ReaderNote] = {}
    for result in ordered:
        read_per_file.update(result.read_per_file)
        not_covered.update(result.not_covered)
        not_covered_per_file.update(result.not_covered_per_file)
        for note in result.notes:
            notes.setdefault((note.file, note.code), note)
    hands_read = sum(r.hands_read for r in ordered)
    tracker.end(hands_read)
    outside = sum(not_covered.values())
    if forced is not None and outside and hands_read - len(quarantined) - outside == 0:
        raise UsageError(pack_covers_none(forced, not_covered))
    return AuditResult(all_findings, _total_coverage(coverage, packs), quarantined, hands_read,
                       hands_read - len(quarantined) - outside, inputs, packs, time.perf_counter() - started,
                       skipped, read_per_file, not_covered, not_covered_per_file, list(notes.values()),
                       recognise_skipped(skipped))


def games_text(games: Iterable[tuple[str, str]]) -> str:
    """`omaha-nz (fixed-limit, pot-limit), three-card-nz (no-limit)`: games grouped by variant."""
    by_variant: dict[str, list[str]] = {}
    for variant, structure in sorted(games):
        by_variant.setdefault(variant, []).append(structure)
    return ", ".join(f"{v} ({', '.join(s)})" for v, s in by_variant.items()) or "none"


def pack_covers_none(pack: Pack, not_covered: Counter) -> str:
    """Why `--pack` audited nothing: the games the pack has rules for, and the games of the hands read."""
    found = Counter()
    for (_, variant, structure), count in not_covered.items():
        found[variant, structure] += count
    hands = ", ".join(f"{v} {s} ({n})" for (v, s), n in sorted(found.items()))
    return (f"--pack {pack.name} has no rule for any hand read: it covers {games_text(covered_games(pack))}; "
            f"the hands are {hands}")


ENGINES = ("local", "dask")


def _run(engine: str, partitions: list[Partition], options: RunOptions, jobs: int, scheduler: Any,
         notify: Callable[[str, int, int], None]) -> Iterator[PartitionResult | PartitionFailure]:
    if engine == "dask":
        from auditor.engines import dask_cluster

        try:
            yield from dask_cluster.run(partitions, options, jobs, scheduler)
        except dask_cluster.EngineUnavailable as exc:
            raise UsageError(str(exc)) from exc
        return
    yield from local.run(partitions, options, jobs, notify)


def _total_coverage(parts: list[pd.DataFrame], packs: dict[str, Pack]) -> pd.DataFrame:
    """Coverage summed over every batch, one row per rule of every pack used, in pack and rule order."""
    if not parts:
        return check(*empty_batch(packs))[1]
    summed = sum_coverage(parts)
    order = pd.DataFrame([(p.name, r.id, r.category, r.severity) for p in packs.values() for r in p.rules],
                         columns=COVERAGE_KEYS)
    counts = [c for c in summed.columns if c not in COVERAGE_KEYS]
    total = order.merge(summed, on=COVERAGE_KEYS, how="left")
    total[counts] = total[counts].fillna(0).astype("int64")
    return total


class _Tracker:
    """Progress of a run spread over partitions: files done and hands read, never going backwards.

    Workers report as they read (the local engine); a partition's final counts replace its reports
    when its result arrives (the only news from a Dask cluster).
    """

    def __init__(self, callback: Callable[[Progress], None] | None, files: int, partitions: list[Partition],
                 started: float):
        self.callback = callback
        self.files = files
        self.started = started
        self.partitions = {p.index: p for p in partitions}
        self.pieces_left = Counter(piece.input_index for p in partitions for piece in p.pieces)
        self.pieces_done: Counter = Counter()  # partition -> pieces reported, in order
        self.hands: Counter = Counter()  # partition -> hands reported
        self.closed: set[int] = set()
        self.files_done = 0

    def notify(self, kind: str, partition: int, value: int) -> None:
        if partition in self.closed:
            return
        if kind == "hands":
            self.hands[partition] += value
        elif kind == "piece":
            self.pieces_done[partition] += 1
            self._piece_done(value)
        self._emit()

    def finished(self, result: PartitionResult) -> None:
        pieces = self.partitions[result.index].pieces
        for piece in pieces[self.pieces_done[result.index]:]:
            self._piece_done(piece.input_index)
        self.closed.add(result.index)
        self.hands[result.index] = max(self.hands[result.index], result.hands_read)
        self._emit()

    def end(self, hands_read: int) -> None:
        self.files_done = self.files
        if self.callback is not None:
            self.callback(Progress(self.files, self.files, hands_read, time.perf_counter() - self.started))

    def _piece_done(self, input_index: int) -> None:
        self.pieces_left[input_index] -= 1
        if self.pieces_left[input_index] == 0:
            self.files_done += 1

    def _emit(self) -> None:
        if self.callback is not None:
            self.callback(Progress(self.files_done, self.files, sum(self.hands.values()),
                                   time.perf_counter() - self.started))
