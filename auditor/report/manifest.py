"""The evidence manifest of a run: exactly what was audited, under which rules, by which tool.

An audit is evidence. Later, a regulator must be able to show which files were audited (path as given,
size, SHA-256, hands read / audited / not covered / quarantined), under which rules (every pack's name,
version, files with their SHA-256, and a SHA-256 of the *effective* pack after `extends:` — its rules
and parameters as the run applied them), by which tool (name, version), when (start and end of the run)
and over which period of play (first and last hand start, per file and overall, over the hands that
reached the replay: a hand its reader quarantined has no time to trust; `engines.periods`). `manifest_dict` is
that record; the JSON, SARIF, Parquet and HTML reports carry it, `audit --manifest FILE` writes it alone
and `check-manifest FILE` re-hashes the inputs to say whether they are still the files audited.

Identical inputs and packs give a byte-identical manifest apart from the `run` section (the times, and
the command line and working directory as the user typed them): nothing else depends on the engine,
the number of workers or the order of partitions. Lists are in the run's input order (sorted paths).

What is hashed is the bytes on disk the readers open (`fingerprint_input`, called by the pipeline on
each input once, streaming, before the run): the same path the reader opens, gzip and zip hashed as
stored (the archive, not what it unpacks to), the files of a Parquet dataset each, the spooled copy
of standard input or a FIFO (what the readers read in place of the stream). Hashing inside the readers
would tie every reader and both engines (partitions of one dataset read on several workers, detection
reading a file's head apart) to the hash; one streaming pass in the driver is simpler and costs about
what reading the file once does (measured: 350 MB/s, the corpus's 5,203 files in 0.43 s of a 13.5 s
run; the readers then read from the page cache). A file no longer than detection's read of its opening
bytes is hashed by discovery from those bytes (`model.inputs.Seen`): a folder of one-hand PHH files paid
a second open and read per file for it, ~20 us each. On a remote Dask cluster the hash is of the files as
this machine sees them; the engine checks that every worker opens each input, not that its copy has the
same bytes. To be sure the bytes hashed are the bytes audited, each file's size,
modification time and inode are taken before hashing and again after the run: an input that moved in
between is marked `changed_during_audit` (and the audit must be run again to be evidence of anything).
A `--pack` file is hashed when the run loads it (`AuditResult.pack_records`), built-in packs declared by
the logs when the run has met them, so an edit to a pack file during the run does not change the record.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import shlex
import stat
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from auditor.model.inputs import shown_text, stat_state
from auditor.model.periods import Period, instant_text

if TYPE_CHECKING:
    from datetime import datetime

    from auditor.check.packs import Pack
    from auditor.model.inputs import InputFile
    from auditor.model.results import AuditResult

#: the manifest's own format; raised when a field changes meaning
MANIFEST_VERSION = 1
#: bytes read at a time when hashing (streaming: memory stays flat whatever the file's size)
CHUNK = 1 << 20
#: at most this many members of a zip archive are listed (each with its size and CRC-32)
MAX_MEMBERS_LISTED = 10_000
HAND_KEYS = ("read", "audited", "not_covered", "quarantined")


class ManifestError(ValueError):
    """A manifest file that cannot be read or is not a manifest: exit 2 of `check-manifest`."""


# -- hashing ---------------------------------------------------------------------------------------------

def sha256_file(path: Path) -> tuple[int, str]:
    """(size, SHA-256 hex) of a regular file, read in `CHUNK`s. Refuses anything that is not a regular file
    (a FIFO would block, a device never end): OSError."""
    if not stat.S_ISREG(os.stat(path).st_mode):  # looked at before opening: opening a device may act
        raise OSError(f"{shown_text(str(path))}: not a regular file")
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(f"{shown_text(str(path))}: not a regular file")
        digest = hashlib.sha256()
        size = 0
        with os.fdopen(fd, "rb", buffering=0, closefd=False) as raw:
            # a buffer the file's size (one read; a file that grows meanwhile takes more): a folder of
            # thousands of one-hand PHH files zero-filled a 1 MiB buffer for each, ~40 us a file
            buffer = bytearray(min(CHUNK, max(st.st_size + 1, 1 << 12)))
            view = memoryview(buffer)
            while n := raw.readinto(buffer):
                digest.update(view[:n])
                size += n
        return size, digest.hexdigest()
    finally:
        os.close(fd)


def file_state(path: Path) -> tuple[int, int, int, int] | None:
    """(size, mtime_ns, ctime_ns, inode): what changes when a file is written or replaced."""
    try:
        return stat_state(os.stat(path))
    except OSError:
        return None


def _dataset_files(path: Path) -> list[Path]:
    from auditor.ingest.parquet import dataset_files

    # the three tables, and quarantined.parquet when the dataset has one (its entries are read too)
    return [path / f"{name}.parquet" for name in dataset_files(path)]


def watched_files(item: InputFile) -> list[Path]:
    """The files whose bytes the readers of `item` open: the file, or the files of a dataset."""
    return _dataset_files(item.path) if item.format == "parquet" and item.path.is_dir() else [item.path]


def fingerprint_input(item: InputFile) -> dict[str, Any]:
    """Size and SHA-256 of what the readers of `item` read, as the manifest states them (without counts).

    A Parquet dataset lists its files (the three tables, and quarantined.parquet if any) with their own
    hashes; its `sha256` is that of the listing (`hands.parquet <size> <sha256>\\n` ... in that order),
    so one value still names the whole input.
    A zip archive lists its members from the central directory (name, size, CRC-32; no member is
    unpacked to be hashed: the archive's hash covers them, and unpacking twice what may be a bomb is
    what the readers' limits exist to avoid). A file that cannot be read has `error` instead of a hash.
    """
    found: dict[str, Any] = {}
    try:
        if item.format == "parquet" and item.path.is_dir():
            files = []
            for path in _dataset_files(item.path):
                size, digest = sha256_file(path)
                files.append({"file": path.name, "size": size, "sha256": digest})
            listing = "".join(f"{f['file']} {f['size']} {f['sha256']}\n" for f in files)
            found.update(size=sum(f["size"] for f in files), sha256=hashlib.sha256(listing.encode()).hexdigest(),
                         files=files)
        else:
            # discovery hashed a small file from the bytes detection read of it, all of them (`Seen`)
            seen = item.seen
            size, digest = (seen.state[0], seen.sha256) if seen is not None and seen.sha256 is not None \
                else sha256_file(item.path)
            found.update(size=size, sha256=digest)
            if item.path.name.lower().endswith(".zip"):
                found["members"], unlisted = _zip_members(item.path)
                if unlisted:
                    found["members_not_listed"] = unlisted
    except OSError as exc:
        found.update(size=None, sha256=None, error=f"cannot read: {exc.strerror or exc}")
    return found


def _zip_members(path: Path) -> tuple[list[dict[str, Any]] | None, int]:
    """Members of a zip archive from its central directory (no member unpacked), at most
    `MAX_MEMBERS_LISTED`, and how many more there are; (None, 0) if the archive is damaged."""
    try:
        with zipfile.ZipFile(path) as archive:
            infos = [i for i in archive.infolist() if not i.is_dir()]
    except (OSError, zipfile.BadZipFile, ValueError, EOFError):
        return None, 0
    return ([{"member": shown_text(i.filename), "size": i.file_size, "crc32": f"{i.CRC:08x}"}
             for i in infos[:MAX_MEMBERS_LISTED]], max(0, len(infos) - MAX_MEMBERS_LISTED))


# -- packs -----------------------------------------------------------------------------------------------

def _canonical(value: Any) -> bytes:
    """One serialisation for one value: sorted keys, no spaces, ASCII with escapes (what `effective_sha256` hashes)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=str).encode("ascii")


def effective_pack(pack: Pack) -> dict[str, Any]:
    """What a pack judges with, after `extends:` and overrides: its identity, parameters and every rule's
    scope, facts, predicates, messages, severity, citation and texts. Where rules are written (files,
    lines) and the example hands are left out: they do not change a judgement, and leaving them out makes
    the digest the same wherever the pack is installed."""
    def text(part: Any) -> str | None:
        return None if part is None else part.text

    rules = [{"id": r.id, "title": r.title, "category": r.category, "severity": r.severity, "citation": r.citation,
              "text": r.text, "why": r.why, "notes": r.notes, "variants": list(r.variants),
              "structures": list(r.structures), "facts": r.facts, "needs": list(r.needs), "when": text(r.when),
              "violation": text(r.violation), "message": text(r.message), "expected": text(r.expected),
              "actual": text(r.actual), "seat": r.seat_column, "player": r.player_column,
              "catalogue": list(r.catalogue),
              # a house override's parameter values for this rule alone (absent otherwise: digests unchanged)
              **({} if r.parameters is None else {"parameters": dict(r.parameters)})} for r in pack.rules]
    return {"pack": pack.name, "version": pack.version, "title": pack.title, "description": pack.description,
            "documents": list(pack.documents), "parameters": pack.parameters, "rules": rules}


def _builtin_name(path: Path) -> str | None:
    """`tda-2024.yaml` when `path` is a built-in pack file, else None."""
    from auditor.resources import rules_dir

    try:
        folder = rules_dir().resolve()
        resolved = path.resolve()
    except OSError:
        return None
    return resolved.name if resolved.parent == folder else None


def pack_files(pack: Pack) -> list[Path]:
    """The pack's file, the files of its `extends:` chain (parameters-only files too) and the files its
    rules are written in, each once, the pack's own first. The chain is followed by each file's top-level
    `extends:` line (read, not parsed: a 20,000-rule pack is not loaded again), as `packs` resolves it."""
    from auditor.check.packs import PackError, _parent_path

    found: dict[Path, None] = {pack.path: None}
    current = pack.path
    while True:
        extends = _extends_of(current)
        if not extends:
            break
        try:
            parent = _parent_path(current, extends, None)
        except PackError:
            break
        if parent in found:
            break
        found[parent] = None
        current = parent
    for rule in pack.rules:
        if rule.file is not None:
            found.setdefault(Path(rule.file), None)
    return list(found)


def _extends_of(path: Path) -> str | None:
    try:
        with path.open("rb") as f:
            for raw in f:
                if raw.startswith(b"extends:"):
                    value = raw[len(b"extends:"):].split(b" #")[0].strip().decode("utf-8", "replace")
                    return value.strip("'\"") or None
    except OSError:
        return None
    return None


def pack_file_entry(path: Path) -> dict[str, Any]:
    builtin = _builtin_name(path)
    entry: dict[str, Any] = {"file": builtin or shown_text(path.as_posix()), "builtin": builtin is not None}
    try:
        entry["size"], entry["sha256"] = sha256_file(path)
    except OSError as exc:
        entry.update(size=None, sha256=None, error=f"cannot read: {exc.strerror or exc}")
    return entry


def pack_entry(pack: Pack) -> dict[str, Any]:
    """A pack as the manifest states it: what it is, its files (with SHA-256 of their bytes), and the
    SHA-256 of its effective rules and parameters (`effective_pack`), with the rule ids it ran."""
    files = [pack_file_entry(p) for p in pack_files(pack)]
    return {"name": pack.name, "version": pack.version, "title": pack.title, "extends": pack.extends,
            "file": files[0]["file"], "builtin": files[0]["builtin"], "sha256": files[0]["sha256"],
            "files": files, "effective_sha256": hashlib.sha256(_canonical(effective_pack(pack))).hexdigest(),
            "rules": [r.id for r in pack.rules], "parameters": json.loads(_canonical(pack.parameters))}


# -- the manifest ----------------------------------------------------------------------------------------

def _period_dict(period: Period | None) -> dict[str, Any]:
    period = period or Period()
    return {"first_hand_at": instant_text(period.first), "last_hand_at": instant_text(period.last),
            "hands_without_time": period.untimed, "hands_time_without_offset": period.no_offset}


def _time_text(when: datetime | None) -> str | None:
    return None if when is None else when.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _owner(labels: dict[str, int], file: str) -> int | None:
    """The input a position's file belongs to: itself, or the archive before a `!member` suffix."""
    key = file
    while True:
        if key in labels:
            return labels[key]
        key, bang, _ = key.rpartition("!")
        if not bang:
            return None


def command_text(command: Iterable[str]) -> str:
    """The command line as one shell-quoted string (the list is the exact record)."""
    return shlex.join(shown_text(a) for a in command)


def manifest_dict(result: AuditResult) -> dict[str, Any]:
    """The manifest of a finished run, as plain JSON values (see the module docstring)."""
    from auditor.report.common import tool_version

    inputs = list(result.inputs)
    digests: list[dict[str, Any]] = list(getattr(result, "input_digests", None) or [{} for _ in inputs])
    periods: dict[str, Period] = getattr(result, "hand_periods", None) or {}
    changed = set(getattr(result, "changed_during_audit", ()) or ())
    labels: dict[str, int] = {}
    for i, item in enumerate(inputs):
        labels.setdefault(item.name or item.path.as_posix(), i)
        labels[item.label] = i
    counts = [dict.fromkeys(HAND_KEYS, 0) for _ in inputs]
    member_counts: dict[tuple[int, str], dict[str, int]] = {}
    per_file = result.per_file()
    for row in per_file.itertuples(index=False):  # one row per file read, not per hand
        owner = _owner(labels, row.file)
        if owner is None:
            continue
        values = (int(row.hands_read), int(row.hands_audited), int(row.hands_not_covered),
                  int(row.hands_quarantined))
        for key, value in zip(HAND_KEYS, values, strict=True):
            counts[owner][key] += value
        if row.file != inputs[owner].label:
            member_counts[owner, row.file] = dict(zip(HAND_KEYS, values, strict=True))
    file_periods: dict[int, Period] = {}
    member_periods: dict[tuple[int, str], Period] = {}
    overall = Period()
    for file, period in periods.items():
        owner = _owner(labels, file)
        if owner is None:
            continue
        file_periods[owner] = file_periods[owner] + period if owner in file_periods else period
        if file != inputs[owner].label:
            member_periods[owner, file] = period
        overall = overall + period
    listed = []
    for i, item in enumerate(inputs):
        digest = digests[i] if i < len(digests) else {}
        stream = item.spool is not None
        entry: dict[str, Any] = {
            "name": item.label, "path": None if stream else shown_text(item.path.as_posix()),
            "format": item.format, "size": digest.get("size"), "sha256": digest.get("sha256"),
            "hands": counts[i], "period": _period_dict(file_periods.get(i))}
        if stream:
            entry["stream"] = True  # standard input or a FIFO: hashed as spooled, cannot be hashed again
        elif shown_text(item.path.as_posix()) != item.path.as_posix():
            entry["path_bytes_hex"] = os.fsencode(item.path).hex()  # the real name, to open it again
        if "error" in digest:
            entry["error"] = digest["error"]
        if "files" in digest:
            entry["files"] = digest["files"]
        if "members" in digest:
            entry["members"] = _members(i, item.label, digest["members"], member_counts, member_periods)
            if "members_not_listed" in digest:
                entry["members_not_listed"] = digest["members_not_listed"]
        if i in changed:
            entry["changed_during_audit"] = True
        listed.append(entry)
    command = getattr(result, "command", None)
    records: dict[str, dict[str, Any]] = getattr(result, "pack_records", None) or {}
    return {
        "manifest": MANIFEST_VERSION,
        "tool": {"name": "poker-auditor", "version": tool_version()},
        "paths": list(getattr(result, "paths_given", None) or []),
        # `run` stays just before `inputs`: tests/test_dask_real_cluster.py cuts it out of the report by that
        "run": {"command": None if command is None else [shown_text(a) for a in command],
                "command_line": None if command is None else command_text(command),
                "working_directory": _shown_or_none(getattr(result, "working_directory", None)),
                "started_at": _time_text(getattr(result, "started_at", None)),
                "ended_at": _time_text(getattr(result, "ended_at", None))},
        "inputs": listed,
        "packs": [copy.deepcopy(records[name]) if name in records else pack_entry(p)
                  for name, p in result.packs.items()],
        "hands": {"read": result.hands_read, "audited": result.hands_audited,
                  "not_covered": result.hands_not_covered, "quarantined": result.hands_quarantined},
        "period": _period_dict(overall),
    }


def _shown_or_none(text: str | None) -> str | None:
    return None if text is None else shown_text(text)


def _members(index: int, label: str, members: list[dict[str, Any]] | None,
             counts: dict[tuple[int, str], dict[str, int]],
             periods: dict[tuple[int, str], Period]) -> list[dict[str, Any]] | None:
    if members is None:
        return None
    out = []
    for member in members:
        key = (index, f"{label}!{member['member']}")
        out.append({**member, "hands": counts.get(key, dict.fromkeys(HAND_KEYS, 0)),
                    "period": _period_dict(periods.get(key))})
    return out


def write_manifest(result: AuditResult, out: TextIO) -> None:
    """The manifest alone, as `audit --manifest FILE` writes it."""
    json.dump(manifest_dict(result), out, ensure_ascii=True, indent=1)
    out.write("\n")


def without_times(manifest: dict[str, Any]) -> dict[str, Any]:
    """The manifest with the run's times left out: what two runs of identical inputs and packs share."""
    run = {k: v for k, v in manifest["run"].items() if k not in ("started_at", "ended_at")}
    return {**manifest, "run": run}


# -- check-manifest --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Check:
    """One file of a manifest looked at again: `ok`, `changed`, `missing` or `not-checkable`; or `added`: a
    file the run's paths now hold that the manifest does not list (re-running the command would audit it)."""

    kind: str  # "input" or "pack"
    name: str
    status: str
    detail: str = ""

    def one_line(self) -> str:
        return f"{self.status:<13} {self.kind} {self.name}" + (f": {self.detail}" if self.detail else "")


def read_manifest(path: Path) -> dict[str, Any]:
    """A manifest file, parsed and checked to be one (ManifestError otherwise). It is data, never run."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ManifestError(f"{shown_text(str(path))}: cannot read: {getattr(exc, 'strerror', None) or exc}") from exc
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise ManifestError(f"{shown_text(str(path))}: not JSON: {exc}") from exc
    if isinstance(doc, dict) and isinstance(doc.get("manifest"), dict):  # a whole JSON report
        doc = doc["manifest"]
    if not isinstance(doc, dict) or doc.get("manifest") != MANIFEST_VERSION or not isinstance(doc.get("inputs"), list):
        raise ManifestError(f"{shown_text(str(path))}: not a poker-auditor manifest (version {MANIFEST_VERSION})")
    return doc


def _where(entry: dict[str, Any], root: Path) -> Path | None:
    raw = entry.get("path_bytes_hex")
    if isinstance(raw, str):
        try:
            path = Path(os.fsdecode(bytes.fromhex(raw)))
        except ValueError:
            return None
    elif isinstance(entry.get("path"), str):
        path = Path(entry["path"])
    else:
        return None
    return path if path.is_absolute() else root / path


def _compare(expected_size: Any, expected_sha: Any, path: Path) -> tuple[str, str]:
    if not os.path.lexists(path):
        return "missing", "no such file"
    try:
        size, digest = sha256_file(path)
    except OSError as exc:
        return "missing", f"cannot read: {exc.strerror or exc}"
    if digest == expected_sha and size == expected_size:
        return "ok", ""
    return "changed", f"size {expected_size} -> {size}, sha256 {str(expected_sha)[:12]} -> {digest[:12]}"


#: how a run finds its inputs under the paths it was given (`auditor.pipeline.discover`): the inputs and the
#: files skipped; raises UsageError (or OSError) for a path it cannot search
Discover = Callable[[list[Path]], tuple[list["InputFile"], list[Path]]]


def check_manifest(doc: dict[str, Any], root: Path | None = None, *, discover: Discover) -> list[Check]:
    """Every input (and pack file) of a manifest hashed again, relative paths under `root` (default: the
    working directory): is each still the file that was audited? A manifest is data written by anyone who
    had the file: what is not shaped like one is a ManifestError, never a crash.

    `discover` is how `audit` finds files in a folder; the caller (the CLI) passes the pipeline's, so that
    a report module does not import the pipeline that runs it (layers one way)."""
    try:
        return _check_manifest(doc, root, discover)
    except (AttributeError, TypeError, KeyError) as exc:
        raise ManifestError(f"malformed manifest ({type(exc).__name__}: {shown_text(str(exc))[:200]})") from exc


def _check_manifest(doc: dict[str, Any], root: Path | None, discover: Discover) -> list[Check]:
    from auditor.resources import rules_dir

    root = Path.cwd() if root is None else root
    checks: list[Check] = []
    for entry in doc["inputs"]:
        if not isinstance(entry, dict):
            raise ManifestError("an input entry is not an object")
        name = shown_text(str(entry.get("name")))
        if entry.get("stream"):
            checks.append(Check("input", name, "not-checkable", "read from standard input or a FIFO"))
            continue
        path = _where(entry, root)
        if path is None or not isinstance(entry.get("sha256"), str):
            checks.append(Check("input", name, "not-checkable", entry.get("error") or "no path or hash recorded"))
            continue
        if isinstance(entry.get("files"), list):  # a Parquet dataset: each of its files
            problems = []
            for part in entry["files"]:
                status, detail = _compare(part.get("size"), part.get("sha256"), path / str(part.get("file")))
                if status != "ok":
                    problems.append((status, f"{shown_text(str(part.get('file')))}: {detail}"))
            statuses = {s for s, _ in problems}
            status = "ok" if not problems else "changed" if "changed" in statuses else "missing"
            checks.append(Check("input", name, status, "; ".join(d for _, d in problems)))
            continue
        checks.append(Check("input", name, *_compare(entry.get("size"), entry["sha256"], path)))
    for pack in doc.get("packs") or []:
        for part in pack.get("files") or [] if isinstance(pack, dict) else []:
            file = str(part.get("file"))
            label = f"{shown_text(str(pack.get('name')))} {shown_text(file)}"
            if not isinstance(part.get("sha256"), str):
                checks.append(Check("pack", label, "not-checkable", "no hash recorded"))
                continue
            path = rules_dir() / file if part.get("builtin") else root / file  # an absolute file stays itself
            checks.append(Check("pack", label, *_compare(part.get("size"), part["sha256"], path)))
    return checks + _added(doc, root, discover)


def _added(doc: dict[str, Any], root: Path, discover: Discover) -> list[Check]:
    """Files found again under the paths the run was given (`paths`, folders searched as `audit` searches
    them) that the manifest does not list: the same command would now audit more than was audited."""
    from auditor.model.inputs import UsageError

    listed = {str(e.get("path")) for e in doc["inputs"] if isinstance(e, dict)}
    listed |= {os.fsdecode(bytes.fromhex(e["path_bytes_hex"])) for e in doc["inputs"]
               if isinstance(e, dict) and isinstance(e.get("path_bytes_hex"), str)}
    found: list[Check] = []
    for given in doc.get("paths") or []:
        if not isinstance(given, str) or given == "-":
            continue
        where = root / given
        if not where.is_dir():  # a file named on the command line is an input or missing, said above
            continue
        try:
            inputs, _ = discover([where])
        except (UsageError, OSError):
            continue
        for item in inputs:
            # as the run named it: relative to where it ran (`../logs/x` too), or absolute as given
            relative = item.path if Path(given).is_absolute() else Path(os.path.relpath(item.path, root))
            if relative.as_posix() not in listed and shown_text(relative.as_posix()) not in listed:
                found.append(Check("input", shown_text(relative.as_posix()), "added",
                                   f"under {shown_text(given)}, which was audited, and not in the manifest"))
    return found
