"""The Dask engine: partitions audited on a dask.distributed cluster (`--engine dask`).

Each partition is one task (`partition.run_partition`); its result — findings and coverage as pandas,
quarantines, counts, the run-wide rows — is gathered back to this process as soon as it finishes and
merged in partition order, exactly as the local engine's are, so the findings are the same.

`scheduler` is the address of a running scheduler (`tcp://host:8786`), or a `distributed.Client`
already connected (library use, tests); with neither, a `LocalCluster` of `jobs` single-threaded
worker processes is started for the run and closed after it.

Workers are other processes, often on other machines, started in whatever directory their operator
chose (relative input paths sent as given made every file 'cannot open' on the workers,
and 1,418 hands that were never opened showed up as seven one-line quarantines). So before anything
is audited:

- every input path (and a `--pack` file) is sent as this process resolved it, absolute
  (`absolute_partitions`); what reports call a file, and the hand ids built from it, do not change:
  they come from `InputFile.name` and `InputFile.label`, how the user named the file;
- every worker is asked (`client.run(probe)`) for its `poker-auditor` version, a digest of its
  built-in packs and schemas and of the `--pack` files, and whether it can open each input this
  process can open. A worker that differs, or cannot open an input, refuses the run
  (`ClusterMismatch`, a usage error: exit 2) naming the worker and the difference. An input this
  process cannot open either is left to the reader, which quarantines it exactly as `--jobs 1` does.

The same check runs again inside every task, for that task's inputs only (`audit_on_worker`): a
worker that joined after the first check, or a file removed meanwhile, fails the run the same way,
never as a quiet 'cannot open' quarantine.

A partition whose workers keep dying (Dask retries a task on another worker, then gives up with
`KilledWorker`) comes back as `lost-worker` quarantine entries (`partition.lost_partition`): on
record, never silence, and the rest of the run is still audited.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import socket
import stat
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auditor.engines.partition import (
    Partition,
    PartitionFailure,
    PartitionResult,
    RunOptions,
    lost_partition,
    run_partition,
)
from auditor.model.inputs import shown_text

if TYPE_CHECKING:
    from auditor.model.inputs import InputFile

#: how long a run waits for a scheduler that has no worker yet (one being started) before refusing
WAIT_FOR_WORKERS_SECONDS = 30.0
#: unreadable inputs named in a refusal, and workers named as failing the same way; the rest are counted
SHOWN_UNREADABLE = 5
SHOWN_WORKERS = 5


class EngineUnavailable(RuntimeError):
    """dask[distributed] is not installed, or the scheduler cannot be reached (a usage error: exit 2)."""


class ClusterMismatch(EngineUnavailable):
    """A worker is not fit for the run: another poker-auditor version or other packs, or it cannot open an
    input this process opens. Refused, naming the worker: its results could not be the ones `--jobs 1`
    gives, and a file it cannot open would otherwise be one quarantine line standing for all its hands."""


@dataclass(frozen=True)
class Fingerprint:
    """What decides the findings besides the inputs: the code's version and the data files it judges by."""

    version: str
    #: ("pack tda-2024.yaml" or "schema hand-log.schema.json", sha256) for every built-in pack and schema
    data: tuple[tuple[str, str], ...]
    #: (absolute path, sha256 or "unreadable: why") of the `--pack` file and the pack files it extends
    pack_files: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Probe:
    """One process's answer: who it is, its fingerprint, and the inputs it cannot open."""

    worker: str
    host: str
    fingerprint: Fingerprint
    #: (absolute path, why) of every path asked about that it cannot open as a regular file
    unreadable: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Refused:
    """A task's answer instead of a result when its worker fails the check (`audit_on_worker`)."""

    worker: str
    host: str
    problems: tuple[str, ...]
    unreadable: tuple[tuple[str, str], ...]


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


@lru_cache(maxsize=4)
def fingerprint(run_id: str, pack_files: tuple[str, ...] = ()) -> Fingerprint:
    """This process's fingerprint, computed once per run (a long-lived worker may be upgraded between runs).

    The built-in packs and schemas are digested whole, so a worker whose packs were edited, or that has
    another set of them, is told apart even when its version string is the same (an editable checkout)."""
    from auditor.check.packs import builtin_pack_paths
    from auditor.resources import SCHEMAS, package_version, schema_dir

    data: list[tuple[str, str]] = []
    for name, path in builtin_pack_paths().items():
        data.append((f"pack {name}", _digest_or_why(path)))
    folder = schema_dir()
    for name in SCHEMAS:
        data.append((f"schema {name}", _digest_or_why(folder / name)))
    return Fingerprint(package_version(), tuple(data), tuple((p, _digest_or_why(Path(p))) for p in pack_files))


def _digest_or_why(path: Path) -> str:
    try:
        return _sha256(path)
    except OSError as exc:
        return f"unreadable: {exc.strerror or exc}"


def cannot_open(path: str) -> str | None:
    """Why this process cannot open `path` as a regular file for reading, or None if it can. Opened without
    blocking (a FIFO put in a file's place must not hang a worker) and closed at once; nothing is read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        return exc.strerror or str(exc)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return "not a regular file"
    finally:
        os.close(fd)
    return None


def _whoami() -> str:
    """The worker's address (and its name if it has another one), or 'this process' outside a worker."""
    try:
        from distributed import get_worker

        worker = get_worker()
    except (ImportError, ValueError):
        return "this process"
    name = str(worker.name)
    return worker.address if name in ("", worker.address) else f"{worker.address} (name {name})"


def probe(run_id: str, paths: Sequence[str], pack_files: Sequence[str] = ()) -> Probe:
    """What `client.run` asks every worker (and this process asks itself): small, no input is read."""
    unreadable = tuple((p, why) for p in paths if (why := cannot_open(p)) is not None)
    return Probe(_whoami(), socket.gethostname(), fingerprint(run_id, tuple(pack_files)), unreadable)


def differences(expected: Fingerprint, found: Fingerprint) -> list[str]:
    """How a worker's fingerprint differs from this process's, one phrase each; empty when they agree."""
    problems = []
    if found.version != expected.version:
        problems.append(f"poker-auditor {found.version} on the worker, {expected.version} here")
    ours, theirs = dict(expected.data), dict(found.data)
    for name in ours.keys() | theirs.keys():
        if name not in theirs:
            problems.append(f"{name} missing on the worker")
        elif name not in ours:
            problems.append(f"{name} on the worker only")
        elif ours[name] != theirs[name]:
            problems.append(f"{name} differs ({_short(theirs[name])} on the worker, {_short(ours[name])} here)")
    ours, theirs = dict(expected.pack_files), dict(found.pack_files)
    for path, digest in ours.items():
        if theirs.get(path) != digest:
            problems.append(f"--pack file {_shown(path)} differs ({_short(theirs.get(path, 'not checked'))} on the "
                            f"worker, {_short(digest)} here)")
    return sorted(problems)


def _short(digest: str) -> str:
    return digest if digest.startswith(("unreadable", "not ")) else f"sha256 {digest[:12]}"


def _shown(text: str) -> str:
    """A path for a message on a terminal: undecodable bytes and control characters escaped (names are
    the attacker's)."""
    text = shown_text(text)
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def refusal(worker: str, host: str, problems: Iterable[str], unreadable: Sequence[tuple[str, str]],
            workers: int = 1) -> str:
    """The message a refused run exits with: the worker (or `workers` of them, failing alike), what differs,
    and which inputs it cannot open."""
    parts = []
    problems = list(problems)
    if problems:
        verb = "runs" if workers == 1 else "run"
        parts.append(f"{verb} other code or packs than this process: {'; '.join(problems)} (install the same "
                     "poker-auditor on every worker)")
    if unreadable:
        named = ", ".join(f"{_shown(path)} ({why})" for path, why in unreadable[:SHOWN_UNREADABLE])
        more = f" and {len(unreadable) - SHOWN_UNREADABLE:,} more" if len(unreadable) > SHOWN_UNREADABLE else ""
        parts.append(f"cannot open {len(unreadable):,} input file(s) this process reads: {named}{more} (the inputs "
                     "must be readable on every worker under the same absolute path: a shared filesystem)")
    who = f"dask worker {worker}" if workers == 1 else f"dask workers {worker}"
    return f"{who} on {host} " + ("; and it " if workers == 1 else "; and they ").join(parts) + "; nothing was audited"


def _absolute_input(item: InputFile, cwd: Path) -> InputFile:
    """`item` with its path absolute, named in reports exactly as before (`shown` keeps the old label)."""
    if item.path.is_absolute():
        return item
    return dataclasses.replace(item, path=cwd / item.path, shown=item.label)


def absolute_partitions(partitions: Sequence[Partition], cwd: Path | None = None) -> list[Partition]:
    """The partitions with every input path resolved against this process's directory (`cwd`), as a worker
    started anywhere must be given them. Only the path opened changes, never a file's name or label."""
    cwd = Path.cwd() if cwd is None else cwd
    return [dataclasses.replace(p, pieces=tuple(dataclasses.replace(piece, input=_absolute_input(piece.input, cwd))
                                                for piece in p.pieces)) for p in partitions]


def _pack_is_file(pack: str) -> bool:
    """As `packs.resolve_pack` decides: a pack file, not a built-in pack's name."""
    path = Path(pack)
    return path.suffix in (".yaml", ".yml") or path.exists()


def absolute_options(options: RunOptions, cwd: Path | None = None) -> RunOptions:
    """`options` with a relative `--pack` file made absolute (a built-in pack's name stays a name)."""
    if not options.pack or not _pack_is_file(options.pack) or Path(options.pack).is_absolute():
        return options
    return dataclasses.replace(options, pack=str((Path.cwd() if cwd is None else cwd) / options.pack))


def pack_files(options: RunOptions) -> tuple[str, ...]:
    """The `--pack` file, the pack files of its `extends` chain and those its rules are written in (absolute),
    to be digested; () for a built-in pack, which the built-in digest covers. The pack has already loaded in
    this process (the pipeline resolves it before the run), so loading it again cannot fail but for a file
    changed meanwhile, which is then digested alone and compared as it is."""
    if not options.pack or not _pack_is_file(options.pack):
        return ()
    from auditor.check.packs import PackError, load_pack
    from auditor.resources import rules_dir

    # a built-in pack's file is where this installation keeps it, elsewhere on a worker: compared by name
    built_in = rules_dir().resolve()
    found: dict[str, None] = {}
    try:
        pack = load_pack(Path(options.pack))
        found[str(pack.path.absolute())] = None
        for rule in pack.rules:
            if rule.file is not None and Path(rule.file).resolve().parent != built_in:
                found[str(Path(rule.file).absolute())] = None
        current, chain = pack, {pack.path.absolute()}
        while current.extends:  # as `packs._parent_path`: a file beside the pack, else a built-in pack's name
            parent = (current.path.parent / current.extends).absolute()
            if not parent.is_file() or parent in chain or parent.resolve().parent == built_in:
                break
            chain.add(parent)
            found[str(parent)] = None
            current = load_pack(parent)
    except PackError:
        found[str(Path(options.pack).absolute())] = None
    return tuple(found)


def input_paths(partition: Partition) -> list[str]:
    """The files a partition's readers open: each input, or the three files of a Parquet dataset."""
    from auditor.ingest.parquet import dataset_files

    paths: dict[str, None] = {}
    for piece in partition.pieces:
        item = piece.input
        if item.format == "parquet" and item.path.is_dir():
            for name in dataset_files(item.path):  # quarantined.parquet too, when there is one
                paths[str(item.path / f"{name}.parquet")] = None
        else:
            paths[str(item.path)] = None
    return list(paths)


def audit_on_worker(partition: Partition, required: Sequence[str], options: RunOptions,
                    expected: Fingerprint) -> PartitionResult | PartitionFailure | Refused:
    """One task: the worker checks itself against `expected` and opens `required` (this partition's inputs
    that the client can open) before auditing; if it fails, it answers `Refused` and audits nothing."""
    found = probe(options.run_id, required, [path for path, _ in expected.pack_files])
    problems = differences(expected, found.fingerprint)
    if problems or found.unreadable:
        return Refused(found.worker, found.host, tuple(problems), found.unreadable)
    return run_partition(partition, options)


def check_workers(client: Any, run_id: str, expected: Fingerprint, paths: Sequence[str]) -> None:
    """Refuse the run (ClusterMismatch) unless every worker matches `expected` and opens every one of `paths`."""
    try:
        client.wait_for_workers(1, timeout=WAIT_FOR_WORKERS_SECONDS)
    except (TimeoutError, OSError) as exc:
        raise ClusterMismatch(f"the Dask scheduler has no worker (waited {WAIT_FOR_WORKERS_SECONDS:.0f} s)") from exc
    try:
        answers = client.run(probe, run_id, list(paths), [p for p, _ in expected.pack_files], on_error="return")
    except Exception as exc:  # a worker that cannot even unpickle the check (no `auditor` to import there)
        raise ClusterMismatch(f"cannot check the Dask workers ({type(exc).__name__}: {exc}); install the same "
                              "poker-auditor on every worker") from exc
    failed: dict[tuple, list[str]] = {}  # one message per way of failing, naming every worker that fails so
    for address in sorted(answers):
        answer = answers[address]
        if not isinstance(answer, Probe):
            failed.setdefault(("error", f"{type(answer).__name__}: {answer}"), []).append(address)
            continue
        problems = differences(expected, answer.fingerprint)
        if problems or answer.unreadable:
            worker = answer.worker if answer.worker != "this process" else address
            failed.setdefault((answer.host, tuple(problems), answer.unreadable), []).append(worker)
    refusals = []
    for key, workers in failed.items():
        named = ", ".join(workers[:SHOWN_WORKERS]) + (f" and {len(workers) - SHOWN_WORKERS:,} more"
                                                     if len(workers) > SHOWN_WORKERS else "")
        if key[0] == "error":
            who = f"dask worker {named}" if len(workers) == 1 else f"dask workers {named}"
            refusals.append(f"{who} cannot run poker-auditor's check ({key[1]}); install the same "
                            "poker-auditor on every worker")
        else:
            refusals.append(refusal(named, *key, workers=len(workers)))
    if refusals:
        raise ClusterMismatch("refusing the run:\n  " + "\n  ".join(refusals))


def run(partitions: Sequence[Partition], options: RunOptions, jobs: int,
        scheduler: Any = None) -> Iterator[PartitionResult | PartitionFailure]:
    """Each partition's result as it finishes on the cluster."""
    try:
        from distributed import Client, LocalCluster, as_completed
        from distributed.scheduler import KilledWorker
    except ImportError as exc:
        raise EngineUnavailable("the dask engine needs dask[distributed]: pip install 'poker-auditor[dask]'") from exc
    cluster = None
    if isinstance(scheduler, Client):
        client = scheduler
    else:
        try:
            if scheduler:
                client = Client(scheduler, timeout="30s")
            else:
                cluster = LocalCluster(n_workers=max(1, jobs), threads_per_worker=1, processes=True,
                                       dashboard_address=None)
                client = Client(cluster)
        except (OSError, TimeoutError) as exc:
            raise EngineUnavailable(f"cannot reach the Dask scheduler {scheduler or '(local)'}: {exc}") from exc
    try:
        if not partitions:
            return
        sent = absolute_partitions(partitions)
        sent_options = absolute_options(options)
        expected = fingerprint(options.run_id, pack_files(sent_options))
        # only what this process can open is required of the workers: an input unreadable here too is the
        # reader's to quarantine, as with --jobs 1
        required = [[p for p in input_paths(partition) if cannot_open(p) is None] for partition in sent]
        check_workers(client, options.run_id, expected, sorted({p for paths in required for p in paths}))
        futures = client.map(audit_on_worker, sent, required, options=sent_options, expected=expected, pure=False)
        of_future = {future.key: partition for future, partition in zip(futures, partitions, strict=True)}
        try:
            for future, result in as_completed(futures, with_results=True, raise_errors=False):
                if future.status == "error":  # given as (type, exception, traceback), not the exception
                    result = result[1] if isinstance(result, tuple) and len(result) == 3 else future.exception()
                if isinstance(result, KilledWorker):
                    result = lost_partition(of_future[future.key], str(result))
                elif isinstance(result, Refused):
                    raise ClusterMismatch("refusing the run: " + refusal(result.worker, result.host, result.problems,
                                                                         result.unreadable))
                elif isinstance(result, BaseException):
                    raise result
                elif isinstance(result, PartitionFailure) and sent_options.pack != options.pack:
                    result = _named_as_given(result, sent_options.pack, options.pack)
                yield result
                if isinstance(result, PartitionFailure):
                    return
        finally:
            client.cancel(futures)
    finally:
        if client is not scheduler:
            client.close()
        if cluster is not None:
            cluster.close()


def _named_as_given(failure: PartitionFailure, sent: str | None, given: str | None) -> PartitionFailure:
    """A pack failure named by the `--pack` path the user gave, not the absolute one sent to the worker."""
    if not sent or not given:
        return failure
    return dataclasses.replace(failure, file=failure.file.replace(sent, given),
                               message=failure.message.replace(sent, given))
