"""Which reader reads a file: by content first (sniffing the opening bytes), by name second.

Every format is one row of FORMATS. Archives (`.zip`) are opened here; gzip is undone for every
reader by `files.open_binary`, so a reader only ever sees its own format. Archive members are
unpacked into a private temporary folder under names we choose, so a member called
`../../etc/passwd` can never be written outside it.

A file no reader recognises is not a hand this auditor can audit; `recognise_other` still names
the well-known room formats we have no reader for (888poker, Merge, MicroGaming, ...), so the summary
can say "888poker hand history: no reader for this room" instead of "not recognised".

What this module refuses, each with its quarantine code (docs/readers.md, "Archives and files"):
an unreadable or damaged zip archive or member (`damaged`); an archive with too many members, or
that unpacks past `max_unpacked_bytes` or the compression ratio (`limit`: the ratio and its grace are
judged for each member and over the whole archive, gzip members unpacked while copied counting as the
archive's; the first member past the archive's ratio ends the archive); a member whose name would
leave the archive or holds a NUL byte (`damaged`: a name no archive writer produces honestly); a
folder entry that holds data, a zip inside a zip, a device or socket, and a file or member in no
format we read (`unsupported-format`, naming the room when `recognise_other` knows it); and, from
`contained`, a reader that failed, a Rust panic included (`internal-error`).

A FIFO is read once into a temporary file before detection looks at it (`files.spool_if_unseekable`),
and a file of nothing but white space is not handed to its reader (`files.only_blank`).
"""

from __future__ import annotations

import contextlib
import gzip
import os
import re
import stat
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import BinaryIO

from auditor.ingest.files import (
    GZIP_MAGIC,
    bomb_message,
    only_blank,
    open_binary,
    open_failure,
    spool_if_unseekable,
    unseekable_kind,
)
from auditor.ingest.limits import DEFAULT_LIMITS, LimitExceeded, Limits
from auditor.ingest.parquet import is_parquet_dataset
from auditor.model.inputs import TEXT_FORMATS
from auditor.model.records import Quarantined, ReaderNote, SourceHand
from auditor.resources import room_names, room_suffix, xml_room_names, xml_room_suffix

SNIFF_BYTES = 4096
#: the pack a room export is audited under when neither the file nor --pack names one
DEFAULT_PACK = "tda-2024"

#: a reader takes the file to open, the name the user knows it by (hand ids of formats without
#: their own ids, PHH, are built from that name, so they do not depend on where a corpus is mounted)
#: and the input limits
Reader = Callable[[Path, str, Limits], Iterator[SourceHand | Quarantined]]


def _sniff_jsonl(head: bytes) -> bool:
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    return text.startswith(b"{") and b'"hand_id"' in head and b'"events"' in head and not text.startswith(b'{"ohh"')


@dataclass(frozen=True)
class Format:
    name: str
    suffixes: tuple[str, ...]
    sniff: Callable[[bytes], bool]
    read: Reader


# Each reader's module is imported when a file of its format is sniffed past the formats before it, or read:
# a run of JSON Lines never imports the PokerStars reader.
def _sniff_ohh(head: bytes) -> bool:
    from auditor.ingest.ohh import sniff_ohh

    return sniff_ohh(head)


def _sniff_phh(head: bytes) -> bool:
    from auditor.ingest.phh import sniff_phh

    return sniff_phh(head)


def _sniff_room(room: str, head: bytes) -> bool:
    from auditor.ingest.rooms import sniff

    return sniff(room, head)


def _read_jsonl(path: Path, _name: str, limits: Limits) -> Iterator[SourceHand | Quarantined]:
    from auditor.ingest.jsonl import read_jsonl

    return read_jsonl(path, limits=limits)


def _read_ohh(path: Path, _name: str, limits: Limits) -> Iterator[SourceHand | Quarantined]:
    from auditor.ingest.ohh import read_ohh

    return read_ohh(path, rule_pack=DEFAULT_PACK, limits=limits)


def _read_phh(path: Path, name: str, limits: Limits) -> Iterator[SourceHand | Quarantined]:
    from auditor.ingest.phh import read_phh

    return read_phh(path, rule_pack=DEFAULT_PACK, label=name, limits=limits)


def _read_room(room: str, path: Path, _name: str, limits: Limits) -> Iterator[SourceHand | Quarantined]:
    from auditor.ingest.rooms import read_room

    return read_room(path, room, rule_pack=DEFAULT_PACK, limits=limits)


def _sniff_xml_room(room: str, head: bytes) -> bool:
    from auditor.ingest.xml_rooms import sniff

    return sniff(room, head)


def _read_xml_room(room: str, path: Path, _name: str, limits: Limits) -> Iterator[SourceHand | Quarantined]:
    from auditor.ingest.xml_rooms import read_xml_room

    return read_xml_room(path, room, rule_pack=DEFAULT_PACK, limits=limits)


def _sniff_pokernow(head: bytes) -> bool:
    from auditor.ingest.pokernow import sniff_pokernow

    return sniff_pokernow(head)


def _read_pokernow(path: Path, name: str, limits: Limits) -> Iterator[SourceHand | Quarantined]:
    from auditor.ingest.pokernow import read_pokernow

    return read_pokernow(path, rule_pack=DEFAULT_PACK, limits=limits, name=name)


FORMATS: tuple[Format, ...] = (
    Format("jsonl", (".jsonl", ".ndjson"), _sniff_jsonl, _read_jsonl),
    Format("ohh", (".ohh", ".json"), _sniff_ohh, _read_ohh),
    Format("phh", (".phh", ".phhs"), _sniff_phh, _read_phh),
    # every room with a dialect (`rooms/<room>.yaml`): a room is added by adding its file
    *(Format(room, (room_suffix(room),), partial(_sniff_room, room), partial(_read_room, room))
      for room in room_names()),
    # every XML room with a dialect (`rooms/xml/<room>.yaml`)
    *(Format(room, (xml_room_suffix(room),), partial(_sniff_xml_room, room), partial(_read_xml_room, room))
      for room in xml_room_names()),
    # PokerNow's game log (CSV rows, newest first): a reader of its own (docs/readers.md, "PokerNow")
    Format("pokernow", (".csv",), _sniff_pokernow, _read_pokernow),
)
BY_NAME = {f.name: f for f in FORMATS}
if tuple(BY_NAME) != TEXT_FORMATS:  # the names the command line offers (model.inputs) are these readers'
    raise ImportError(f"ingest.detect reads {tuple(BY_NAME)}, model.inputs.TEXT_FORMATS says {TEXT_FORMATS}")
KNOWN_SUFFIXES = tuple(s for f in FORMATS for s in f.suffixes)
DEFINITE_SUFFIXES = (".jsonl", ".ndjson", ".ohh", ".phh", ".phhs")


def _base_name(path: Path) -> str:
    name = path.name.lower()
    return name[:-3] if name.endswith(".gz") else name


def _head(path: Path) -> tuple[bytes, bool]:
    """The first SNIFF_BYTES of the file, decompressed if it is gzip, and whether they are the whole file
    as stored (a plain regular file no longer than that: its bytes as its hash covers them).

    A plain regular file (nearly every input) is read with one `os.read`: discovery detects every file of
    a folder, and Python's file objects cost about three times the read for a one-hand `.phh`. Anything
    else (gzip, a directory, a FIFO met in a race) is opened by `open_binary` as before."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except ValueError:
        return b"", False
    except OSError:
        fd = -1  # open_binary says why
    if fd >= 0:
        try:
            st = os.fstat(fd)
            if stat.S_ISREG(st.st_mode):
                head = os.read(fd, SNIFF_BYTES)
                # as a buffered read: short only at the end (the whole file as opened needs no read more)
                while 0 < len(head) < SNIFF_BYTES and len(head) != st.st_size:
                    more = os.read(fd, SNIFF_BYTES - len(head))
                    if not more:
                        break
                    head += more
                if head[:2] != GZIP_MAGIC:
                    return head, len(head) == st.st_size
        except OSError:
            pass
        finally:
            os.close(fd)
    try:
        with open_binary(path) as stream:
            return stream.read(SNIFF_BYTES), False
    except (EOFError, ValueError):
        return b"", False


def detect(path: Path, *, regular: bool = False) -> Format | None:
    """The format of one file: the sniffer that recognises its content; failing that, its suffix.

    A FIFO or device is never read here (what detection read of a pipe would be lost to its reader):
    it is judged by its suffix alone; `read_file` spools a FIFO before it looks. `regular`: the caller
    has just seen a regular file at `path` (discovery's one `lstat` per entry), so that is not asked again;
    `_head` still opens it without blocking and reads it directly only when its descriptor is a regular file."""
    return detect_head(path, regular=regular)[0]


def detect_head(path: Path, *, regular: bool = False) -> tuple[Format | None, bytes | None]:
    """`detect`'s answer, and the file's bytes when the opening bytes it read were the whole of a plain
    regular file (None otherwise), so discovery can hash a small file without opening it again."""
    if not regular and unseekable_kind(path) is not None:
        return _by_suffix(path), None
    try:
        head, whole = _head(path)
    except OSError:
        return None, None
    for fmt in FORMATS:
        try:
            if fmt.sniff(head):
                return fmt, head if whole else None
        except Exception:  # a sniffer that chokes on odd bytes has simply not recognised them
            continue
    return _by_suffix(path), head if whole else None


def _by_suffix(path: Path) -> Format | None:
    """Content not recognised (or not to be read): trust only suffixes no other kind of file uses (not .json,
    not .txt)."""
    name = _base_name(path)
    return next((f for f in FORMATS if name.endswith(tuple(x for x in f.suffixes if x in DEFINITE_SUFFIXES))), None)


def looks_like_log(path: Path) -> bool:
    """Worth reading when found in a directory: a hand-log suffix, plain or compressed, or an archive."""
    name = _base_name(path)
    return name.endswith(KNOWN_SUFFIXES) or path.name.lower().endswith(".zip")


def read_file(path: Path, fmt: str = "auto", name: str | None = None,
              limits: Limits | None = None) -> Iterator[SourceHand | Quarantined]:
    """Every hand of one input (file, archive or Parquet dataset), each read or quarantined.

    `name` is how the user knows the file (see pipeline.discover); by default the path as given.
    `limits` bounds what hostile input may cost (`limits.Limits`; the defaults when None).
    """
    name = path.as_posix() if name is None else name
    limits = DEFAULT_LIMITS if limits is None else limits
    yield from contained(_read_spooled(path, fmt, name, limits), str(path))


def read_plain_phh(paths: Sequence[Path], names: Sequence[str | None], limits: Limits | None = None,
                   contents: Sequence[bytes | None] | None = None) -> list[tuple | None]:
    """For many `.phh` inputs of format "phh", the items `read_file(path, "phh", name, limits)` gives for
    each, all read by one call of the PHH byte scanner (`phh.read_plain_phh_batch`: a tuple of items per file,
    the hands of a run of files possibly one `TableChunk` given with the run's first file); None for a file
    that path does not take, which the caller reads with `read_file` (a file that is not a plain regular
    `.phh` under the limits, not UTF-8, or beyond the scanner's TOML). Only the first files, up to a batch of
    bytes, are read (at least one; the list is theirs): the caller asks again for the rest. Should the batch
    itself fail (a bug), every file is None: read one by one, each failure is then on record (`contained`).
    `contents`: per file, its bytes as discovery read them whole (`Seen.content`), or None to read it.
    """
    limits = DEFAULT_LIMITS if limits is None else limits
    from auditor.ingest.phh import read_plain_phh_batch

    labels = [path.as_posix() if name is None else name for path, name in zip(paths, names, strict=True)]
    try:
        return read_plain_phh_batch(paths, labels, rule_pack=DEFAULT_PACK, limits=limits, contents=contents)
    except Exception:  # the files are read again one by one, where a failure is recorded per file
        return [None] * len(paths)


def _read_spooled(path: Path, fmt: str, name: str, limits: Limits) -> Iterator[SourceHand | Quarantined]:
    """`_read_any`, with a FIFO first read once into a temporary file (`files.spool_if_unseekable`):
    detection reads the opening bytes of what it looks at, and a pipe does not give them back, so
    reading a pipe in place lost the hands in its first 64 KiB. Positions and
    reasons name the FIFO, never the copy. A device or socket is refused: it may never end."""
    kind = unseekable_kind(path)
    if kind is not None and kind != "a FIFO (named pipe)":
        yield Quarantined(str(path), 0, f"{kind}, not a file of hands (refused: it may never end)",
                          code="unsupported-format")
        return
    with contextlib.ExitStack() as stack:
        try:
            real = stack.enter_context(spool_if_unseekable(path, limits))
        except OSError as exc:
            reason, code = open_failure(exc)
            yield Quarantined(str(path), 0, reason, code=code)
            return
        items = _read_any(real, fmt, name, limits)
        yield from items if real == path else _relabel(items, str(real), str(path))


def _read_any(path: Path, fmt: str, name: str, limits: Limits) -> Iterator[SourceHand | Quarantined]:
    if fmt == "parquet" or (fmt == "auto" and is_parquet_dataset(path)):
        from auditor.ingest.parquet import read_parquet

        yield from read_parquet(path, limits)
        return
    if path.name.lower().endswith(".zip"):
        yield from _read_zip(path, fmt, name, limits)
        return
    chosen = BY_NAME.get(fmt) if fmt != "auto" else detect(path)
    if chosen is None:
        yield _not_recognised(str(path), path)
        return
    if _blank_is_no_hand(chosen, path) and only_blank(path, limits):
        return  # no hand, and no reader walking millions of empty lines
    yield from chosen.read(path, name, limits)


def _blank_is_no_hand(chosen: Format, path: Path) -> bool:
    """Whether a file of nothing but white space holds no hand in this format. A `.phh` is one hand by
    definition: an empty one is a hand without its fields, and its reader says so."""
    return chosen.name != "phh" or _base_name(path).endswith(".phhs")


ZIP_MAGIC = b"PK\x03\x04"


def _not_recognised(label: str, path: Path) -> Quarantined:
    """The entry for a file no reader reads: the room named when `recognise_other` knows the format."""
    try:
        head = _head(path)[0]
        room = recognise_other(head, label)
    except OSError:
        head, room = b"", None
    if head.startswith(ZIP_MAGIC) and "!" in label:
        return Quarantined(label, 0, "a zip archive inside a zip archive (not read: unpack the outer archive "
                                     "and audit what it holds)", code="unsupported-format")
    if room:
        return Quarantined(label, 0, room, code="unsupported-format")
    return Quarantined(label, 0, "not a hand log this auditor reads (format not recognised)", code="unsupported-format")


def contained(items: Iterator[SourceHand | Quarantined], file: str) -> Iterator[SourceHand | Quarantined]:
    """The reader's items; should the reader itself fail (a bug, not the file's fault), one more quarantine
    entry naming the error and where reading stopped, so the run goes on and the loss is on record.

    Readers quarantine what they cannot read hand by hand; this is the last line of defence, and the
    fuzzer (scripts/fuzz.py) counts every time it is reached as a crash to fix.
    """
    last: SourceHand | Quarantined | None = None
    try:
        for item in items:
            last = item
            yield item
    except BaseException as exc:
        # Not only Exception: a Rust extension's panic (pyo3's PanicException, raised by jsonschema-rs
        # when an allocation fails) derives from BaseException. Only what asks the process or this
        # generator to stop is let through.
        if isinstance(exc, KeyboardInterrupt | SystemExit | GeneratorExit):
            raise
        where, line = (last.file, last.line + 1) if last is not None else (file, 0)
        yield Quarantined(where, line, f"reader error, the rest of the file is not read: "
                                       f"{type(exc).__name__}: {str(exc)[:300]}", code="internal-error")


#: gzip layers undone inside one archive member (honest files have one; each layer is another stream
#: wrapped around the last, so a member of thousands would exhaust the stack)
MAX_GZIP_LAYERS = 4


@dataclass
class _Budget:
    """What the members of one archive have unpacked so far, and from how many compressed bytes: the
    ratio and its grace are judged over the whole archive, not member by member (200
    members of 8 MiB - 1 newlines each stayed under a per-member grace and ran for ten minutes)."""

    unpacked: int = 0
    packed: int = 0


def _copy_limited(src: BinaryIO, dst: BinaryIO, info: zipfile.ZipInfo, budget: _Budget, limits: Limits) -> int:
    """Copy one member, undoing every gzip layer inside it (`x.jsonl.gz` in a zip is read as `x.jsonl`,
    its bytes counted as the archive's); refuse it as soon as the archive's total, the archive's ratio or
    the member's own ratio passes a limit.

    The ratio is judged against the compressed sizes in the archive's directory, the most compressed
    input the reader will consume for each member, so a lying header cannot hide a bomb.
    """
    stream: BinaryIO = src
    packed = budget.packed + info.compress_size
    copied = 0
    try:
        head = stream.read(2)
        # every gzip layer (a .gz of a .gz too), so no layer is left for a reader to unpack outside the
        # archive's budget
        layers = 0
        while head == GZIP_MAGIC:
            layers += 1
            if layers > MAX_GZIP_LAYERS:
                raise ValueError(f"more than {MAX_GZIP_LAYERS} gzip layers inside one another (refused)")
            stream = gzip.GzipFile(fileobj=_Prefixed(head, stream))  # type: ignore[assignment]
            head = stream.read(2)
        while chunk := head + stream.read(1 << 20):
            head = b""
            copied += len(chunk)
            total = budget.unpacked + copied
            if total > limits.max_unpacked_bytes:
                raise _ArchiveTooBig(f"zip archive unpacks to more than {limits.max_unpacked_bytes} bytes (limit "
                                     "max_unpacked_bytes; refused as a decompression bomb; the rest of the archive "
                                     "is not read)")
            problem = bomb_message(copied, info.compress_size, limits)
            if problem:
                raise LimitExceeded(problem)
            whole = bomb_message(total, packed, limits)
            if whole:
                raise _ArchiveTooBig(f"zip archive {whole.replace('its compressed size', 'its members compressed')}"
                                     " (judged over the whole archive; the rest of the archive is not read)")
            dst.write(chunk)
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise ValueError(f"damaged gzip data inside the member: {exc}") from exc
    budget.unpacked += copied
    budget.packed = packed
    return copied


class _Prefixed:
    """A stream with bytes already read put back in front (gzip needs its magic)."""

    def __init__(self, prefix: bytes, inner: BinaryIO):
        self._prefix = prefix
        self._inner = inner

    def read(self, n: int = -1) -> bytes:
        if not self._prefix:
            return self._inner.read(n)
        if n < 0:
            head, self._prefix = self._prefix, b""
            return head + self._inner.read()
        head, self._prefix = self._prefix[:n], self._prefix[n:]
        return head + (self._inner.read(n - len(head)) if n > len(head) else b"")


class _ArchiveTooBig(LimitExceeded):
    """The archive as a whole passed max_unpacked_bytes: no further member is read."""


def _relabel(items: Iterator[SourceHand | Quarantined], real: str, label: str) -> Iterator[SourceHand | Quarantined]:
    """Report positions against the name the user gave (the archive member), not our temporary copy."""
    from auditor.ingest.parquet import TableChunk

    for item in items:
        if isinstance(item, TableChunk):
            yield item.renamed(label, lambda reason: reason.replace(real, label))
        elif isinstance(item, SourceHand):
            yield SourceHand(item.hand, label, item.line, item.claimed_file, item.claimed_line)
        elif isinstance(item, ReaderNote):
            yield ReaderNote(label, item.line, item.code, item.text)
        else:
            yield Quarantined(label, item.line, item.reason.replace(real, label), item.hand_id, code=item.code,
                              table_id=item.table_id)


def unsafe_member_name(name: str) -> str | None:
    """Why an archive member's name is refused (it would leave the archive if unpacked as named), or None.

    Names are judged both the POSIX and the Windows way (`..\\..\\x`, `C:\\x`), since archives are
    written on both; members are never written under their own names, but a refused name tells the
    user the archive was built to attack whoever unpacks it.
    """
    if "\x00" in name:
        return "archive member name holds a NUL byte (refused)"
    for pure in (PurePosixPath(name), PureWindowsPath(name)):
        if pure.is_absolute() or pure.drive or pure.root or ".." in pure.parts:
            return "archive member path leaves the archive (refused)"
    return None


_SAFE_SUFFIX = re.compile(r"^(?:\.[A-Za-z0-9]{1,10}){1,2}$")


def _member_suffix(name: str) -> str:
    """The member's last two suffixes (`.jsonl.gz`) when they are plain, for our temporary copy's name."""
    suffix = "".join(PurePosixPath(name.replace("\\", "/")).suffixes[-2:])
    return suffix if _SAFE_SUFFIX.match(suffix) else ""


def _read_zip(path: Path, fmt: str, name: str, limits: Limits) -> Iterator[SourceHand | Quarantined]:
    try:
        archive = zipfile.ZipFile(path)
        members = archive.infolist()
    except Exception as exc:  # zipfile raises many kinds on a damaged directory; each is one reason
        yield Quarantined(str(path), 0, f"unreadable zip archive: {type(exc).__name__}: {exc}", code="damaged")
        return
    with archive, tempfile.TemporaryDirectory(prefix="auditor-") as tmp:
        if len(members) > limits.max_archive_members:
            yield Quarantined(str(path), 0, f"zip archive has {len(members)} members, over the limit of "
                                            f"{limits.max_archive_members} (limit max_archive_members; refused)",
                              code="limit")
            return
        total = sum(info.file_size for info in members)
        if total > limits.max_unpacked_bytes:
            yield Quarantined(str(path), 0, f"zip archive unpacks to {total} bytes, over the limit of "
                                            f"{limits.max_unpacked_bytes} (limit max_unpacked_bytes; "
                                            "refused as a decompression bomb)", code="limit")
            return
        budget = _Budget()
        for number, info in enumerate(members):
            if not info.filename:  # zipfile's own is_dir() fails on a member without a name
                yield Quarantined(f"{path}!", 0, "archive member without a name (refused)", code="damaged")
                continue
            label = f"{path}!{info.filename}"
            if info.is_dir():
                if info.file_size or info.compress_size > 2:  # an empty deflate stream is 2 bytes
                    # a folder entry holding data: no archive tool writes one, and what it holds has no
                    # file name to tell its format by; said, never skipped unseen
                    yield Quarantined(label, 0, f"archive entry named as a folder holds {info.file_size} bytes "
                                                "(not read: a folder has no format; rename the entry)",
                                      code="unsupported-format")
                continue
            unsafe = unsafe_member_name(info.filename)
            if unsafe:
                yield Quarantined(label, 0, unsafe, code="damaged")
                continue
            declared = bomb_message(info.file_size, info.compress_size, limits)
            if declared:
                yield Quarantined(label, 0, f"archive member {declared}", code="limit")
                continue
            target = Path(tmp) / f"member-{number}{_member_suffix(info.filename)}"
            try:
                with archive.open(info) as src, target.open("wb") as dst:
                    _copy_limited(src, dst, info, budget, limits)
            except _ArchiveTooBig as exc:
                yield Quarantined(label, 0, str(exc), code="limit")
                return
            except LimitExceeded as exc:
                yield Quarantined(label, 0, f"archive member {exc}", code="limit")
                target.unlink(missing_ok=True)
                continue
            except Exception as exc:  # damaged data, encryption, an unknown compression method...
                yield Quarantined(label, 0, f"unreadable archive member: {type(exc).__name__}: {exc}", code="damaged")
                target.unlink(missing_ok=True)
                continue
            chosen = BY_NAME.get(fmt) if fmt != "auto" else detect(target)
            if chosen is None:
                yield _not_recognised(label, target)
            elif not (_blank_is_no_hand(chosen, target) and only_blank(target, limits)):
                yield from _relabel(chosen.read(target, f"{name}!{info.filename}", limits), str(target), label)
            target.unlink()


# --------------------------------------------------------------------------- formats we have no reader for

#: rooms that export hand histories in PokerStars' own format under their own name: (the header's brand, the room)
_STARS_FORMAT_BRANDS = (("Hive Poker", "Hive Poker"), ("Run It Once Poker", "Run It Once Poker"),
                        ("PokerMaster", "PokerMaster"), ("PokerBros", "PokerBros"), ("MPLPoker", "MPL Poker"),
                        ("SupremaPoker", "Suprema Poker"), ("BetOnline", "BetOnline"),
                        ("Full Tilt", "Full Tilt Poker"))

#: (room, what the file is, pattern on the opening text). Learnt from the first lines of the samples in the shared
#: corpus (other-rooms/, rooms-2/) and, for the rooms it has no sample of, from the header shapes the open-source
#: tracker fpdb-3 recognises each room's exports by (its `re_Identify`, its parsers' header patterns and comments;
#: tests/test_other_rooms.py holds one header of each). The first pattern that matches names the file; a pattern
#: with a `room` group names the room by what it matched (a brand of a network). Order matters where formats share
#: a line: 888poker's "#Game No :" header is also written by some PartyPoker exports, so 888 is named by its brand
#: or its "Blinds ... - *** dd mm yyyy" game line, PartyPoker by what is left; the rooms that write PokerStars'
#: format under their own name come before GGPoker, whose "Poker Hand #" header is the end of theirs, and every
#: header is anchored at a line's start for the same reason.
_OTHER_ROOMS: tuple[tuple[str, str, re.Pattern[str]], ...] = tuple(
    (room, what, re.compile(pattern, re.MULTILINE)) for room, what, pattern in (
        ("888poker", "tournament summary", r"^\*{5} (?:888poker|Cassava|Pacific Poker) Tournament Summary \*{5}"),
        ("888poker", "hand history",
         r"^\*{4,5} (?:888poker|888 ?Poker|888|Cassava|Pacific Poker|LuckyAcePoker\.com)(?:\.[a-z]{2})?(?:-[a-z]{2})?"
         r" (?:Snap Poker |BLAST )?Hand History for Game \d+"),
        ("888poker", "hand history", r"^#Game No : \d+\s*\n.*\n.* Blinds .* - \*{3} \d\d \d\d \d{4} "),
        ("Betfair Poker", "hand history", r"^\*{5} Betfair Poker Hand History for Game \d+"),
        ("PartyPoker", "hand history", r"^\*{5} Hand History [Ff]or Game \d+ \*{5}"),
        ("Everleaf", "hand history", r"^\*{5} Hand history for game #\d+|^Everleaf Gaming Game #\d+"),
        ("Partouche Poker", "hand history", r"^Partouche Poker "),
        ("Full Tilt Poker", "hand history", r"^Full ?Tilt ?Poker (?:Game|Tournament) #\d+"),
        *((room, "hand history in PokerStars' format", rf"^{re.escape(brand)} (?:Game|Hand|Zoom Hand|Home Game) #\d+:")
          for brand, room in _STARS_FORMAT_BRANDS),
        ("Seals With Clubs", "hand history", r"^SwCPoker Hand #\d+|^Site: Seals With Clubs"),
        ("GGPoker", "hand history", r"^Poker Hand #[A-Z]{0,2}\d+: "),
        ("Bovada", "hand history", r"^(?P<room>Ignition|Bovada|Bodog(?:\.com|\.eu| UK| Canada|88)?) Hand #\d+"),
        ("BetOnline", "hand history",
         r"^(?P<room>BetOnline|PayNoRake|ActionPoker\.com|Gear Poker|SportsBetting\.ag|Tiger Gaming)(?: Poker)?"
         r" Game #\d+"),
        ("Unibet", "hand history", r"^Unibet Hand #\d+(?: - |, Tournament #)|^Game #\d+: Table [€$£]\d+ (?:PL|NL|FL) "),
        ("Winning Poker Network", "hand history", r"^(?:Game )?Hand #\d+ - "),
        ("Cake Poker", "hand history", r"^Hand#[A-Z0-9]+ - "),
        ("PKR", "hand history", r"^Starting Hand #\d+\s*$"),
        ("Absolute Poker / UltimateBet", "hand history", r"^Stage #C?\d+: "),
        ("iPoker", "XML hand history", r"^(?:<\?xml[^>]*\?>\s*)?<session sessioncode=\"|<game gamecode=\"\d+\">"),
        ("Everest Poker", "XML hand history", r"<HAND time=\"\d+\" id="),
        ("Boss Media", "XML hand history", r"<HISTORY ID=\"\d+\" SESSION=\""),
        ("Merge Gaming", "XML hand history",
         r"^\s*<description type=\"[^\"]*\" stakes=\"|<game id=\"[\d-]+\" starttime=\""),
        ("MicroGaming", "XML hand history", r"^(?:<\?xml[^>]*\?>\s*)?<Game (?:hhversion=\"\d\" )?id=\"\d+\" date="),
        ("Winamax", "tournament summary", r"^Winamax Poker - Tournament summary : "),
        ("Winamax", "hand history", r"^Winamax Poker - "),
        ("OnGame", "hand history", r"^\*{5} History for hand [A-Z0-9]+-[\d-]+ \*{5}"),
        ("Entraction", "hand history", r"^Game # \d+ - .+ - Table \"[^\"]*\"\s*\nPlayers\(max \d+\):|^Game # \d+ - "),
        ("Winning Poker Network", "hand history", r"^Game started at: \d{4}/\d{1,2}/\d{1,2} [\d:]+\s*\nGame ID: \d+ "),
        ("Enet", "hand history", r"\AGame #\d+: (?:Hold'em|Omaha)"),
        ("KingsClub", "hand history", r"\A#\d+: "),
        ("iPoker", "hand history exported by PokerTracker", r"^GAME #\d+ Version:"),
        ("Everest Poker", "hand history exported by PokerTracker", r"^EverestPoker Game #\d+"),
        ("Merge Gaming", "hand history exported by PokerTracker", r"^(?:MERGE_GAME|Merge Game) #\d+"),
        ("MicroGaming", "hand history exported by PokerTracker", r"^\*\* (?:Game ID|Hand #) \d+"),
        ("PokerNow", "CSV log", r"\Aentry,at,order\s*$"),
    ))


def _opening_text(head: bytes) -> str:
    """The opening bytes as text, whatever the file's encoding: UTF-16 (with a byte-order mark, or without
    one but with a NUL in every other byte, as some Windows exports write), else UTF-8 with anything
    undecodable replaced (a multi-byte character cut at the end of `head` costs one character)."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return head.decode("utf-16", "replace").lstrip("\ufeff")
    if len(head) >= 4 and head[1:4:2] == b"\x00\x00" and head[0:4:2] != b"\x00\x00":
        return head.decode("utf-16-le", "replace")
    return head.decode("utf-8", "replace").lstrip("\ufeff")


def other_room(head: bytes, name: str = "") -> tuple[str, str] | None:
    """(room, what the file is) when the opening bytes of a file are a well-known room's export that no
    reader of ours reads, else None.

    The content decides, never `name`: a file's name or folder says nothing a mislabelled sample folder
    could not get wrong (the corpus has PartyPoker files in its 888poker folder). `name` is accepted so
    callers pass what they have, and for messages.
    """
    text = _opening_text(head[:SNIFF_BYTES]).replace("\r\n", "\n").replace("\r", "\n").lstrip()
    if not text:
        return None
    for room, what, pattern in _OTHER_ROOMS:
        m = pattern.search(text)
        if m:
            return (m["room"] if "room" in pattern.groupindex else room), what
    return None


#: what a room exports beside its hand histories: named when skipped, but no hands went unaudited
NOT_HAND_HISTORIES = ("tournament summary",)


def recognise_other(head: bytes, name: str = "") -> str | None:
    """Name the format of a hand history we have no reader for, e.g. "888poker hand history: no reader for
    this room", or None when the opening bytes (`head`: the first SNIFF_BYTES of the file, decompressed) are
    no hand history we know. For the summary's list of skipped files: a skipped hand history is hands not
    audited, which a regulator must be told, unlike a README beside the logs."""
    found = other_room(head, name)
    return f"{found[0]} {found[1]}: no reader for this room" if found and found[1] not in NOT_HAND_HISTORIES \
        else None


def recognise_document(head: bytes, name: str = "") -> str | None:
    """Name a room's file that is not a hand history (e.g. "Winamax tournament summary"), else None."""
    found = other_room(head, name)
    return f"{found[0]} {found[1]}" if found and found[1] in NOT_HAND_HISTORIES else None


__all__ = ["FORMATS", "NOT_HAND_HISTORIES", "detect", "looks_like_log", "other_room", "read_file", "read_plain_phh",
           "recognise_document", "recognise_other", "unsafe_member_name"]
