"""Which reader reads a file: by content first (sniffing the opening bytes), by name second.

Every format is one row of FORMATS. Archives (`.zip`) are opened here; gzip is undone for every
reader by `files.open_binary`, so a reader only ever sees its own format. Archive members are
unpacked into a private temporary folder under names we choose, so a member called
`../../etc/passwd` can never be written outside it.
"""

from __future__ import annotations

import tempfile
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from auditor.ingest.files import MAX_UNPACKED_BYTES, open_binary
from auditor.ingest.jsonl import read_jsonl
from auditor.ingest.ohh import read_ohh, sniff_ohh
from auditor.ingest.parquet import is_parquet_dataset, read_parquet
from auditor.ingest.phh import read_phh, sniff_phh
from auditor.ingest.pokerstars import read_pokerstars, sniff_pokerstars
from auditor.ingest.records import Quarantined, SourceHand

SNIFF_BYTES = 4096
#: the pack a room export is audited under when neither the file nor --pack names one
DEFAULT_PACK = "tda-2024"

#: a reader takes the file to open and the name the user knows it by (hand ids of formats without
#: their own ids, PHH, are built from that name, so they do not depend on where a corpus is mounted)
Reader = Callable[[Path, str], Iterator[SourceHand | Quarantined]]


def _sniff_jsonl(head: bytes) -> bool:
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    return text.startswith(b"{") and b'"hand_id"' in head and b'"events"' in head and not text.startswith(b'{"ohh"')


@dataclass(frozen=True)
class Format:
    name: str
    suffixes: tuple[str, ...]
    sniff: Callable[[bytes], bool]
    read: Reader


FORMATS: tuple[Format, ...] = (
    Format("jsonl", (".jsonl", ".ndjson"), _sniff_jsonl, lambda p, _name: read_jsonl(p)),
    Format("ohh", (".ohh", ".json"), sniff_ohh, lambda p, _name: read_ohh(p, rule_pack=DEFAULT_PACK)),
    Format("phh", (".phh", ".phhs"), sniff_phh, lambda p, name: read_phh(p, rule_pack=DEFAULT_PACK, label=name)),
    Format("pokerstars", (".txt",), sniff_pokerstars,
           lambda p, _name: read_pokerstars(p, rule_pack=DEFAULT_PACK)),
)
BY_NAME = {f.name: f for f in FORMATS}
INPUT_FORMATS = ("auto", "parquet", *BY_NAME)
KNOWN_SUFFIXES = tuple(s for f in FORMATS for s in f.suffixes)
DEFINITE_SUFFIXES = (".jsonl", ".ndjson", ".ohh", ".phh", ".phhs")


def _base_name(path: Path) -> str:
    name = path.name.lower()
    return name[:-3] if name.endswith(".gz") else name


def _head(path: Path) -> bytes:
    try:
        with open_binary(path) as stream:
            return stream.read(SNIFF_BYTES)
    except EOFError:
        return b""


def detect(path: Path) -> Format | None:
    """The format of one file: the sniffer that recognises its content; failing that, its suffix."""
    try:
        head = _head(path)
    except OSError:
        return None
    for fmt in FORMATS:
        try:
            if fmt.sniff(head):
                return fmt
        except Exception:  # a sniffer that chokes on odd bytes has simply not recognised them
            continue
    # Content not recognised: trust only suffixes no other kind of file uses (not .json, not .txt).
    name = _base_name(path)
    return next((f for f in FORMATS if name.endswith(tuple(x for x in f.suffixes if x in DEFINITE_SUFFIXES))), None)


def looks_like_log(path: Path) -> bool:
    """Worth reading when found in a directory: a hand-log suffix, plain or compressed, or an archive."""
    name = _base_name(path)
    return name.endswith(KNOWN_SUFFIXES) or path.name.lower().endswith(".zip")


def read_file(path: Path, fmt: str = "auto", name: str | None = None) -> Iterator[SourceHand | Quarantined]:
    """Every hand of one input (file, archive or Parquet dataset), each read or quarantined.

    `name` is how the user knows the file (see pipeline.discover); by default the path as given.
    """
    name = path.as_posix() if name is None else name
    if fmt == "parquet" or (fmt == "auto" and is_parquet_dataset(path)):
        yield from read_parquet(path)
        return
    if path.name.lower().endswith(".zip"):
        yield from _read_zip(path, fmt, name)
        return
    chosen = BY_NAME.get(fmt) if fmt != "auto" else detect(path)
    if chosen is None:
        yield Quarantined(str(path), 0, "not a hand log this auditor reads (format not recognised)")
        return
    yield from chosen.read(path, name)


def _copy_limited(src, dst) -> None:
    copied = 0
    while chunk := src.read(1 << 20):
        copied += len(chunk)
        if copied > MAX_UNPACKED_BYTES:
            raise ValueError(f"unpacks to more than {MAX_UNPACKED_BYTES} bytes (refused as a decompression bomb)")
        dst.write(chunk)


def _relabel(items: Iterator[SourceHand | Quarantined], real: str, label: str) -> Iterator[SourceHand | Quarantined]:
    """Report positions against the name the user gave (the archive member), not our temporary copy."""
    for item in items:
        if isinstance(item, SourceHand):
            yield SourceHand(item.hand, label, item.line)
        else:
            yield Quarantined(label, item.line, item.reason.replace(real, label), item.hand_id)


def _read_zip(path: Path, fmt: str, name: str) -> Iterator[SourceHand | Quarantined]:
    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as exc:
        yield Quarantined(str(path), 0, f"unreadable zip archive: {exc}")
        return
    with archive, tempfile.TemporaryDirectory(prefix="auditor-") as tmp:
        total = sum(info.file_size for info in archive.infolist())
        if total > MAX_UNPACKED_BYTES:
            yield Quarantined(str(path), 0, f"zip archive unpacks to {total} bytes, over the limit of "
                                            f"{MAX_UNPACKED_BYTES} (refused as a decompression bomb)")
            return
        for number, info in enumerate(archive.infolist()):
            if info.is_dir():
                continue
            label = f"{path}!{info.filename}"
            parts = Path(info.filename).parts
            if info.filename.startswith(("/", "\\")) or ".." in parts:
                yield Quarantined(label, 0, "archive member path leaves the archive (refused)")
                continue
            target = Path(tmp) / f"member-{number}{''.join(Path(info.filename).suffixes[-2:])}"
            try:
                with archive.open(info) as src, target.open("wb") as dst:
                    _copy_limited(src, dst)
            except (OSError, zipfile.BadZipFile, ValueError, EOFError) as exc:
                yield Quarantined(label, 0, f"unreadable archive member: {exc}")
                continue
            chosen = BY_NAME.get(fmt) if fmt != "auto" else detect(target)
            if chosen is None:
                yield Quarantined(label, 0, "not a hand log this auditor reads (format not recognised)")
            else:
                yield from _relabel(chosen.read(target, f"{name}!{info.filename}"), str(target), label)
            target.unlink()


__all__ = ["FORMATS", "INPUT_FORMATS", "detect", "looks_like_log", "read_file"]
