"""ingest → replay → check, once, for a set of paths: the one function the CLI and tests call.

A run accounts for every hand it read: `hands read = audited + not covered + quarantined`, overall and
per file. A hand is *not covered* when the pack it is audited under has no rule for its game (variant
and structure): nothing judged it, so it is not counted as audited. Files found in a folder that are
not hand logs are skipped; those recognisably hand histories of a room this auditor cannot read are
named with their format (`detect.recognise_other`), because a compliance gate must not pass over them
in silence.

Names are made here, once: a file's name is valid text whatever bytes the file system
holds (a byte that is not UTF-8 is written `\xff`, while the real path is what is opened); a folder
is known by the path the user gave, never by where it is mounted (`_folder_names`); standard input
(`-`) and FIFOs are read once into a temporary file (`spool_stream`) and audited from there as
`<stdin>` or the FIFO's name; what in a folder is not a regular file is skipped with why, never opened.
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing, nullcontext
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from auditor.check.packs import Pack, declared_pack, resolve_pack
from auditor.check.run import check, covered_games
from auditor.engines import local
from auditor.engines.coverage import COVERAGE_KEYS, CoverageTotal
from auditor.engines.ledger import Ledger
from auditor.engines.partition import (
    Partition,
    PartitionFailure,
    PartitionResult,
    RunOptions,
    empty_batch,
    estimated_hands,
    plan,
    read_input,
)
from auditor.engines.periods import merge
from auditor.ingest.compiled import reader_modules
from auditor.ingest.detect import detect, detect_head, looks_like_log
from auditor.ingest.parquet import is_parquet_dataset
from auditor.model.compiled import Prepared
from auditor.model.inputs import InputFile, Seen, UsageError, shown_text, stat_state
from auditor.model.periods import Period
from auditor.model.records import Quarantined, ReaderNote, SourceHand
from auditor.model.results import MAX_VIEWS, AuditResult, Progress
from auditor.report.hands import KeptViews
from auditor.resources import check_installation

if TYPE_CHECKING:
    from auditor.ingest.limits import Limits


def discover(paths: Iterable[Path], input_format: str = "auto",
             limits: Limits | None = None) -> tuple[list[InputFile], list[Path]]:
    """Input files under the given paths (directories recursively), and files that are not hand logs.

    A file named on the command line is always read (its format detected, or forced); inside a
    directory only regular files with a hand-log name are, so a README beside the logs is skipped, not
    reported as a bad hand. What inside a directory is not a regular file (a FIFO, a device, a socket, a
    link to nothing) is skipped too, never opened (a FIFO would block the run) and never ignored:
    `not_regular` says why. `-` is standard input, and a FIFO or pipe named on the command line
    (`/dev/stdin`) is read the same way: once, into a temporary file (`spool_stream`), then audited
    from there under its own name. A device named on the command line is refused.
    """
    found: list[InputFile] = []
    skipped: list[Path] = []
    given = list(paths)
    tops = _folder_names(given)
    streams = 0
    budget = [KEPT_BYTES]  # of `Seen.content`
    for path in given:
        if path.as_posix() == "-" or _is_stream(path):
            streams += path.as_posix() == "-"
            if streams > 1:
                raise UsageError("-: standard input can be read only once; give it once")
            found.append(spool_stream(path, input_format, limits))
            continue
        if not os.path.lexists(path) or not path.exists():
            why = "a link to nothing" if os.path.lexists(path) else "no such file or directory"
            raise UsageError(f"{shown_text(str(path))}: {why}")
        if is_parquet_dataset(path) or not path.is_dir():
            special, st = _kind(path)
            if special:
                raise UsageError(f"{shown_text(str(path))}: {special}, not a hand log (pipe it into `-` to read "
                                 "what it gives)")
            fmt, seen = (_format_seen(path, input_format, st) if st is not None and stat.S_ISREG(st.st_mode)
                         else (_format_of(path, input_format), None))
            if fmt is None:
                known, document = recognise_skipped([path]) if path.is_file() else ({}, {})
                if path in known:
                    raise UsageError(f"{shown_text(str(path))}: {known[path]}")
                if path in document:
                    raise UsageError(f"{shown_text(str(path))}: a {document[path]}, not a hand history")
                raise UsageError(f"{shown_text(str(path))}: not a hand log this auditor reads (use --input-format "
                                 "to force one)")
            found.append(InputFile(path, fmt, shown_text(path.as_posix()), seen=seen))
            continue
        entries = sorted(path.rglob("*"), key=_PATH_ORDER)
        # one lstat per entry (and a stat for a link) answers every question below: what is a directory, a
        # dataset's folder, a file to read or something never opened (a folder holds thousands of files)
        kinds = [_kind(p, inside_folder=True) for p in entries]
        datasets = [p for p, (_why, st) in zip(entries, kinds, strict=True)
                    if st is not None and stat.S_ISDIR(st.st_mode) and is_parquet_dataset(p)]
        top = tops[path]
        for p, (why, st) in zip(entries, kinds, strict=True):
            if datasets and any(d == p or d in p.parents for d in datasets):
                if p in datasets:
                    found.append(InputFile(p, "parquet", _name_inside(top, path, p)))
                continue
            if why:
                skipped.append(p)
                continue
            if st is None or not stat.S_ISREG(st.st_mode):  # a directory (or a link to one named on its own)
                continue
            fmt, seen = (_format_seen(p, input_format, st, budget) if input_format != "auto" or looks_like_log(p)
                         else (None, None))
            (found.append(InputFile(p, fmt, _name_inside(top, path, p), seen=seen)) if fmt else skipped.append(p))
    # One order whatever order the paths were given in: partitions, batches and therefore findings,
    # quarantines and which of two hands with one id is the duplicate do not depend on it.
    found.sort(key=lambda item: (item.path.as_posix(), item.name))
    skipped.sort(key=lambda p: p.as_posix())
    return found, skipped


#: the order of `sorted(paths)`, as a key: on POSIX a path compares by its parts (case kept), and a tuple
#: of strings compares in C where `Path.__lt__` is a Python call per comparison (a folder of 5,000 files
#: makes 35,000 of them); elsewhere (case folded) the paths' own order
_PATH_ORDER: Callable[[Path], Any] | None = (lambda p: p.parts) if os.name == "posix" else None


def not_regular(path: Path, inside_folder: bool = False) -> str | None:
    """Why `path` is not a file to read (`a FIFO`, `a link to a device`, `a link to nothing`), or None for
    a regular file or a directory (or a link to one). Looks only at metadata: never opens the path.

    `inside_folder`: the path was found in a folder, whose links to directories are not followed (a link
    may loop, or lead out of what the user named), so such a link is named too, never passed over."""
    return _kind(path, inside_folder)[0]


def _kind(path: Path, inside_folder: bool = False) -> tuple[str | None, os.stat_result | None]:
    """(`not_regular`'s answer, the metadata of what `path` leads to or None when that is not known).

    One `lstat`, and a `stat` only for a link: a path that is not a link is what its `lstat` says, so
    discovery asks the file system once per entry rather than once per question (is it special, a
    directory, a FIFO to detect by name, its size, its state for the manifest)."""
    try:
        own = os.lstat(path)
    except OSError as exc:
        return f"not readable ({exc.strerror or exc})", None
    link = stat.S_ISLNK(own.st_mode)
    if link:
        try:
            own = os.stat(path)
        except OSError:
            return "a link to nothing", None
    mode = own.st_mode
    if stat.S_ISDIR(mode) and link and inside_folder:
        return "a link to a directory (not followed: name the directory itself to audit it)", own
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None, own
    kind = ("a FIFO (named pipe)" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file")
    return (f"a link to {kind}" if link else kind), own


def _is_stream(path: Path) -> bool:
    """A FIFO or pipe (`/dev/stdin` of a pipe, `<(...)`): readable once, in order, so spooled like `-`."""
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except OSError:
        return False


#: how long a FIFO named on the command line may keep the run waiting for its writer, or between two
#: pieces of what it writes, before it is refused (standard input waits as long as its writer takes)
STREAM_IDLE_SECONDS = 30.0
#: the name findings give to what was read from standard input
STDIN_NAME = "<stdin>"


class _Detached:
    """What a spool becomes in a worker process: nothing to delete there (the driver owns the copy)."""


class _Spool:
    """The temporary folder holding a stream's copy; deleted with the last input naming it (or at exit)."""

    def __init__(self) -> None:
        self.folder = tempfile.TemporaryDirectory(prefix="auditor-stream-")

    def __reduce__(self) -> tuple:
        return (_Detached, ())


def spool_stream(path: Path, input_format: str = "auto", limits: Limits | None = None) -> InputFile:
    """Standard input (`-`) or a FIFO, read once to its end into a temporary file, as an input named
    `<stdin>` (or the FIFO's name). Detection and the reader both open the copy, so detection
    consumes nothing of the stream. At most
    `limits.max_unpacked_bytes` are taken (a stream that goes on past it is refused, exit 2); a FIFO
    that stays silent for `STREAM_IDLE_SECONDS` is refused, so a FIFO nobody writes to cannot hang a run.
    """
    from auditor.ingest.limits import DEFAULT_LIMITS

    cap = (limits or DEFAULT_LIMITS).max_unpacked_bytes
    stdin = path.as_posix() == "-"
    name = STDIN_NAME if stdin else shown_text(path.as_posix())
    spool = _Spool()
    copy = Path(spool.folder.name) / "stream"
    try:
        with copy.open("wb") as out:
            if stdin:
                if sys.stdin is None or sys.stdin.isatty():
                    raise UsageError("-: standard input is a terminal; pipe a hand log into it "
                                     "(`cat log.jsonl | auditor audit -`)")
                _copy_blocking(sys.stdin.buffer, out, cap, name)
            else:
                _copy_fifo(path, out, cap, name)
    except OSError as exc:
        spool.folder.cleanup()
        raise UsageError(f"{name}: cannot read: {exc.strerror or exc}") from exc
    except UsageError:
        spool.folder.cleanup()
        raise
    if copy.stat().st_size == 0:
        spool.folder.cleanup()
        raise UsageError(f"{name}: empty, nothing was read from it")
    fmt = input_format if input_format != "auto" else _format_of(copy, "auto")
    if fmt is None or fmt == "auto":  # "auto" would be a zip by name, which a stream has not
        spool.folder.cleanup()
        raise UsageError(f"{name}: not a hand log this auditor reads (use --input-format to force one)")
    return InputFile(copy, fmt, name, name, spool)


def _copy_blocking(stream: Any, out: Any, cap: int, name: str) -> None:
    copied = 0
    while chunk := stream.read(1 << 20):
        copied += len(chunk)
        if copied > cap:
            raise UsageError(f"{name}: goes on past {cap} bytes (limit max_unpacked_bytes; refused)")
        out.write(chunk)


def _copy_fifo(path: Path, out: Any, cap: int, name: str) -> None:
    """The readers' FIFO copy (`files.copy_fifo`), refusals worded as usage errors naming the input:
    a FIFO named on the command line is refused before the run rather than quarantined."""
    from auditor.ingest.files import copy_fifo
    from auditor.ingest.limits import LimitExceeded

    try:
        copy_fifo(path, out, cap, STREAM_IDLE_SECONDS)
    except LimitExceeded as exc:
        raise UsageError(f"{name}: {exc}; nothing of it is audited") from exc


#: bytes of a skipped file looked at to tell whether it is a hand history of a room we cannot read
#: (what `detect` sniffs)
HEAD_BYTES = 4096


def recognise_skipped(paths: Iterable[Path]) -> tuple[dict[Path, str], dict[Path, str]]:
    """Which skipped files are recognisably hand histories of another room, and what they are; and which are
    a room's other files (a tournament summary: no hands in it), named.

    Uses `auditor.ingest.detect.recognise_other` when that exists (it reads only the opening bytes,
    decompressed, and the name); without it nothing is recognised and every skipped file stays "not a
    hand log"."""
    try:
        from auditor.ingest.detect import recognise_document, recognise_other  # type: ignore[attr-defined]
        from auditor.ingest.files import open_binary
    except ImportError:
        return {}, {}
    found: dict[Path, str] = {}
    documents: dict[Path, str] = {}
    for path in paths:
        if not_regular(path, inside_folder=True):  # never opened: a FIFO would block, a device never end
            continue
        try:
            with open_binary(path) as f:
                head = f.read(HEAD_BYTES)
        except (OSError, EOFError, ValueError):  # unreadable or a damaged archive: stays "not a hand log"
            continue
        known = recognise_other(head, path.name)
        if known:
            found[path] = known
        elif document := recognise_document(head, path.name):
            documents[path] = document
    return found, documents


def _name_inside(top: str, folder: Path, path: Path) -> str:
    """`top/` and `path` below `folder`: the parts after the folder's, as `relative_to` gives them (which costs
    as much as the rest of a file's discovery), falling back to it should `path` not start with them."""
    n = len(folder.parts)
    parts = path.parts
    rel = "/".join(parts[n:]) if parts[:n] == folder.parts else path.relative_to(folder).as_posix()
    return shown_text(f"{top}/{rel}")


def _folder_names(paths: list[Path]) -> dict[Path, str]:
    """The name each folder given is known by, the start of its files' names (and so of PHH hand ids).

    A relative path without `..` is kept as the user wrote it (`casinoA/day1`): it names the folder the
    same way on every machine. An absolute path, or one climbing out with `..`, is known by its last
    part (`/mnt/ci/corpus/phh` -> `phh`), since where a corpus is mounted must not change its ids; when
    two such folders of one run end alike (`/a/casinoA/day1`, `/b/casinoB/day1`) each keeps as many
    parts as tells it apart from the others (`casinoA/day1`, `casinoB/day1`), so their hands' ids do
    not collide.
    """
    folders = [p for p in paths if p.as_posix() != "-" and not is_parquet_dataset(p) and _is_dir(p)]
    names: dict[Path, str] = {}
    climbing: dict[Path, tuple[str, ...]] = {}
    for folder in folders:
        if not folder.is_absolute() and ".." not in folder.parts and folder.parts:
            names[folder] = folder.as_posix()
        else:
            parts = folder.resolve().parts[1:] or (folder.resolve().as_posix(),)
            climbing[folder] = parts
    kept = {tuple(name.split("/")) for name in names.values()}  # as given: a climbing name must differ too
    for folder, parts in climbing.items():
        depth = 1
        while depth < len(parts) and (parts[-depth:] in kept or any(
                other != folder and o[-depth:] == parts[-depth:] for other, o in climbing.items())):
            depth += 1
        names[folder] = "/".join(parts[-depth:])
    return names


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:
        return False


#: the bytes of one-hand `.phh` files discovery keeps for the PHH reader (`Seen.content`), per discovery: past it,
#: a file is opened again by its reader, so a folder of a million files costs no more memory than this
KEPT_BYTES = 32 << 20


def _format_seen(path: Path, input_format: str, st: os.stat_result,
                 budget: list[int] | None = None) -> tuple[str | None, Seen]:
    """`_format_of` for a regular file discovery has just looked at (`st`, from `_kind`), and what it saw
    (`Seen`): its state, and the digest of its bytes when detection read the whole file; and, for a `.phh`
    file detected as PHH while `budget` (bytes left, [n]) lasts, those bytes."""
    state = stat_state(st)
    if input_format != "auto" or path.name.lower().endswith(".zip"):
        return _format_of(path, input_format, regular=True), Seen(state)
    fmt, whole = detect_head(path, regular=True)
    name = fmt.name if fmt else None
    if whole is None:
        return name, Seen(state)
    keep = budget is not None and name == "phh" and path.name.lower().endswith(".phh") and budget[0] >= len(whole)
    if keep:
        budget[0] -= len(whole)  # type: ignore[index]
    return name, Seen(state, hashlib.sha256(whole).hexdigest(), whole if keep else None)


def _format_of(path: Path, input_format: str, regular: bool = False) -> str | None:
    """The format to read `path` as, decided once here (detection reads the file's opening bytes).

    `regular`: discovery has just seen a regular file there (`_kind`), so it is neither a dataset's folder
    nor a FIFO and neither is asked again."""
    if input_format != "auto":
        return input_format
    if not regular and is_parquet_dataset(path):
        return "parquet"
    if path.name.lower().endswith(".zip"):
        return "auto"  # members are detected one by one
    fmt = detect(path, regular=regular)
    return fmt.name if fmt else None


def read_inputs(inputs: Iterable[InputFile]) -> Iterator[SourceHand | Quarantined]:
    """Every hand of the inputs, read or quarantined (readers' notes about files are left out: not hands)."""
    for item in inputs:
        for read in read_input(item):
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
          scheduler: Any = None, command: Sequence[str] | None = None, keep_hands: Iterable[str] = (),
          max_views: int = MAX_VIEWS,
          prepare: Callable[[Sequence[InputFile], str], Prepared] | None = None,
          ) -> AuditResult:
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

    What the run audited is recorded for its evidence manifest (`report.manifest`): `command` (the
    command line as typed, given by the CLI), the start and end time, and every input hashed once,
    streaming, before any reader opens it (`manifest.fingerprint_input`: the same paths the readers
    open; why not while reading is said there; a file detection read whole, from those bytes: `Seen`), with
    its metadata looked at again after the run.

    What the reports show of the hands is kept while they are audited (`AuditResult.views`, `table_hands`,
    `finding_hands`): the views of the first `max_views` hands with findings, and of the hands whose id is
    in `keep_hands` (`auditor explain`), made in the workers from the replay that audited them.

    `prepare`, when given, is called once the inputs are found, before any is read, with them and the engine:
    it returns the context the run is audited in, whether the run must stay in this process and the formats it
    reads the reference way (`Prepared`). The command line's (`precompile.first_run`) compiles what a first run
    after an install needs, or for a small run has a background process compile it while this run's kernels run
    as Python, reads a format the reference way when that is quicker than compiling its reader's kernels, and
    says on the terminal which.
    Without it, kernels compile on first use, in silence.
    """
    started = time.perf_counter()
    started_at = datetime.now(UTC)
    check_installation()  # a missing schema or pack is one ResourceError, not the same quarantine for every file
    if engine not in ENGINES:
        raise UsageError(f"unknown engine '{engine}' (engines: {', '.join(ENGINES)})")
    if scheduler is not None and engine != "dask":
        raise UsageError("a scheduler address needs the dask engine (--engine dask)")
    paths = list(paths)
    inputs, skipped = discover(paths, input_format, limits)
    context, in_process, reference = prepare(inputs, engine) if prepare is not None else \
        Prepared(nullcontext(), False)
    if scheduler is not None and any(item.spool is not None for item in inputs):
        # the copy of a stream is a file on this machine, which a remote cluster's workers cannot open
        raise UsageError("standard input or a FIFO cannot be audited on a remote cluster (--scheduler): "
                         "save it to a file the workers can read")
    workers = 1 if in_process else default_jobs() if jobs is None else max(1, jobs)
    # started now, so their imports overlap the hashing and planning below (`local.start`); the local
    # engine closes them when the run ends, and the `finally` below if it never gets that far
    # (one job never starts workers: `local.start` would return None, so its estimate, a stat per input, is not made)
    pool = local.start(workers, estimated_hands(inputs), reader_modules(inputs, reference)) if engine == "local" and \
        workers > 1 and (len(inputs) > 1 or any(item.format == "parquet" for item in inputs)) else None
    try:
        with context:
            return _audit(paths, pack, batch_size, limits, jobs=workers, engine=engine, scheduler=scheduler,
                          command=command, keep_hands=keep_hands, max_views=max_views, reference=reference,
                          started=started, started_at=started_at, inputs=inputs, skipped=skipped, progress=progress,
                          pool=pool)
    finally:
        if pool is not None:
            pool.close()


def _audit(paths: list[Path], pack: str | None, batch_size: int, limits: Limits | None, *, jobs: int, engine: str,
           scheduler: Any, command: Sequence[str] | None, keep_hands: Iterable[str], max_views: int,
           reference: frozenset[str], started: float, started_at: datetime, inputs: list[InputFile],
           skipped: list[Path], progress: Callable[[Progress], None] | None, pool: local.Workers | None) -> AuditResult:
    """`audit` once the inputs are found (and the local engine's workers started)."""
    forced = resolve_pack(pack) if pack else None
    from auditor.report.manifest import file_state, fingerprint_input, pack_entry, watched_files

    # a --pack file is hashed as it was loaded, not after the run (it could be edited meanwhile)
    pack_records = {forced.name: pack_entry(forced)} if forced else {}
    # discovery's look at a plain file is its state before hashing (`Seen`); a dataset's files are looked at here
    states = [[item.seen.state] if item.seen is not None else [file_state(p) for p in watched_files(item)]
              for item in inputs]
    # hashing (hashlib and file reads let go of the GIL) and planning at once: both only read, before any
    # hand is read, and together they are the run's serial start (1.6 s and 9 s at 1,000,000 hands)
    with ThreadPoolExecutor(1, thread_name_prefix="auditor-hash") as hashing:
        hashed = hashing.submit(lambda: [fingerprint_input(item) for item in inputs])
        partitions = plan(inputs, batch_size, limits)
        digests = hashed.result()
    ledger = Ledger()
    # the local engine's partitions write their run-wide rows into the ledger's folder themselves
    # (`ledger.spill`): a pool's workers every batch's, this process those past `ledger.SPILL_ROWS` hands of
    # a partition (a one-file partition of millions of hands would otherwise hold them all to its end)
    options = RunOptions(pack, batch_size, limits, keep_hand_ids=frozenset(keep_hands), max_views=max_views,
                         ledger_folder=ledger.folder() if engine == "local" else None,
                         spill_all_rows=pool is not None, reference_formats=reference)
    workers = jobs
    tracker = _Tracker(progress, len(inputs), partitions, started)
    views, asked, repeats = KeptViews(max_views), KeptViews(max_views), KeptViews(max_views)
    pack_name = forced.name if forced else None
    loaded: dict[str, Pack] = {}
    run = _RunTotals()
    try:
        with closing(_run(engine, partitions, options, workers, scheduler, tracker.notify, pool)) as finished:
            for result in finished:
                if isinstance(result, PartitionFailure):
                    raise result.error()
                ledger.add(result.index, result.ledger)
                result.ledger = []
                # merged as they come, so the driver holds at most max_views views of each kind
                views.merge(result.views)
                asked.merge(result.asked_views)
                repeats.merge(result.repeat_views)
                result.views = result.asked_views = result.repeat_views = KeptViews(0)
                for name in result.pack_names:  # loaded while the workers work, not after them
                    if name not in loaded and name != pack_name:
                        loaded[name] = declared_pack(name)
                tracker.finished(result)
                run.add(result)
        packs: dict[str, Pack] = {forced.name: forced} if forced else {}
        for name in run.pack_names:
            if name not in packs:
                packs[name] = loaded[name]
        wide_findings, wide_coverage = ledger.resolve(packs)
        for name, used in packs.items():
            if name not in pack_records:
                pack_records[name] = pack_entry(used)
    finally:
        ledger.close()
    findings = run.findings + wide_findings
    all_findings = pd.concat(findings, ignore_index=True) if findings else check(*empty_batch(packs))[0]
    all_findings = all_findings.sort_values(["file", "line", "seq", "rule_id"], kind="stable", ignore_index=True)
    if repeats.kept and wide_findings:  # the repeats the ledger flagged have findings now: their views count too
        flagged = set(zip(all_findings["file"].astype(object), all_findings["line"].astype("int64"), strict=True))
        for key, (order, view) in repeats.kept.items():
            if key in flagged:
                views.offer(key, order, view)
    run.coverage.add(wide_coverage)
    quarantined = run.quarantined
    read_per_file, not_covered, not_covered_per_file = run.read_per_file, run.not_covered, run.not_covered_per_file
    notes, not_listed, periods, table_hands = run.notes, run.not_listed, run.periods, run.table_hands
    hands_read = run.hands_read
    tracker.end(hands_read)
    outside = sum(not_covered.values())
    if forced is not None and outside and hands_read - len(quarantined) - outside == 0:
        raise UsageError(pack_covers_none(forced, not_covered))
    # an input whose metadata moved since it was hashed may not be the bytes the readers read
    changed = [i for i, item in enumerate(inputs) if [file_state(p) for p in watched_files(item)] != states[i]]
    for item in inputs:  # discovery's bytes of files the workers read (their copies were): the result keeps none
        if item.seen is not None:
            item.seen.forget()
    return AuditResult(all_findings, _total_coverage(run.coverage, packs), quarantined, hands_read,
                       hands_read - len(quarantined) - outside, inputs, packs, time.perf_counter() - started,
                       skipped, read_per_file, not_covered, not_covered_per_file, list(notes.values()),
                       *recognise_skipped(skipped), {p: why for p in skipped if (why := not_regular(p, True))},
                       not_listed, started_at, datetime.now(UTC), None if command is None else tuple(command),
                       _working_directory(), digests, periods, changed, pack_records,
                       [shown_text(Path(p).as_posix()) for p in paths], table_hands, run.finding_hands(),
                       views.views(), asked.views(), max_views)


class _RunTotals:
    """What the run keeps of its partitions' results, folded in partition order as soon as every earlier
    partition is in (the workers finish out of order; a result is held only until its predecessors come).

    A result is dropped once folded: the run keeps its findings when it has some, its quarantines, notes
    and the hands with findings (all in proportion to what the reports show), one coverage row a rule
    (`CoverageTotal`), and counts by file and by table; never a table per partition (the driver used to
    hold each partition's findings, coverage and counters to the end: about 5 bytes a hand, 50 MB at ten
    million, besides the ledger's 8 bytes a hand of id hashes, now on disk). Folding in partition order
    keeps every list and counter in the order one process would have made them."""

    def __init__(self) -> None:
        self.next = 0
        self.waiting: dict[int, PartitionResult] = {}
        self.findings: list[pd.DataFrame] = []
        self.coverage = CoverageTotal()
        self.quarantined: list[Quarantined] = []
        self.read_per_file: Counter = Counter()
        self.not_covered: Counter = Counter()
        self.not_covered_per_file: Counter = Counter()
        self.notes: dict[tuple[str, str], ReaderNote] = {}
        self.not_listed: Counter = Counter()
        self.periods: dict[str, Period] = {}
        self.table_hands: Counter = Counter()
        self.pack_names: dict[str, None] = {}
        self.hands_read = 0
        self._finding_hands: list[pd.DataFrame] = []

    def add(self, result: PartitionResult) -> None:
        self.waiting[result.index] = result
        while self.next in self.waiting:
            self._fold(self.waiting.pop(self.next))
            self.next += 1

    def _fold(self, result: PartitionResult) -> None:
        if len(result.findings) or not self.findings:  # the first kept whatever it holds: the columns
            self.findings.append(result.findings)
        self.coverage.add(result.coverage)
        self.quarantined.extend(result.quarantined)
        self.pack_names.update(dict.fromkeys(result.pack_names))
        self.table_hands.update(result.table_hands)
        merge(self.periods, result.hand_periods)
        self.not_listed.update(result.findings_not_listed)
        self.read_per_file.update(result.read_per_file)
        self.not_covered.update(result.not_covered)
        self.not_covered_per_file.update(result.not_covered_per_file)
        for note in result.notes:
            self.notes.setdefault((note.file, note.code), note)
        self.hands_read += result.hands_read
        if result.finding_hands is not None:
            self._finding_hands.append(result.finding_hands)

    def finding_hands(self) -> pd.DataFrame | None:
        """File, line and start of every hand with findings, the first copy of a (file, line) kept."""
        if not self._finding_hands:
            return None
        return pd.concat(self._finding_hands, ignore_index=True).drop_duplicates(["file", "line"], ignore_index=True)


def _working_directory() -> str | None:
    """Where relative input paths are relative to (None if the directory is gone)."""
    try:
        return os.getcwd()
    except OSError:
        return None


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
         notify: Callable[[str, int, int], None],
         pool: local.Workers | None = None) -> Iterator[PartitionResult | PartitionFailure]:
    if engine == "dask":
        from auditor.engines import dask_cluster

        try:
            yield from dask_cluster.run(partitions, options, jobs, scheduler)
        except dask_cluster.EngineUnavailable as exc:
            raise UsageError(str(exc)) from exc
        return
    yield from local.run(partitions, options, jobs, notify, pool)


def _total_coverage(total: CoverageTotal, packs: dict[str, Pack]) -> pd.DataFrame:
    """Coverage summed over every batch, one row per rule of every pack used, in pack and rule order."""
    summed = total.frame()
    if summed is None:
        return check(*empty_batch(packs))[1]
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
