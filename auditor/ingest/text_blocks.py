"""A text export's bytes as blocks of whole lines, decoded: how every text room's file is read, whatever its words.

Why blocks: a million hands are a gigabyte of text; a file is held about `BLOCK_BYTES` at a time, each block cut
where a whole line ends, and the reader says how much of a block it used (up to the start of its last hand,
which may go on in the next block). Text is UTF-8, else cp1252 (a file whose first bytes say UTF-16 or UTF-32,
by a byte-order mark or the zeros of ASCII text, is read whole, up to `max_file_bytes`).
"""

from __future__ import annotations

import codecs
import itertools
import re
from collections.abc import Callable, Generator, Iterator
from pathlib import Path

from auditor.ingest.files import open_binary, open_failure
from auditor.ingest.limits import LimitExceeded, Limits
from auditor.model.records import Quarantined, ReaderNote, SourceHand

__all__ = ["BLOCK_BYTES", "BlockReader", "decode_block", "decode_bytes", "in_blocks", "line_start", "wide"]


# cp1252 leaves five bytes undefined; Windows maps them to the same code points as Latin-1 (_cp1252).
_UNDEFINED_IN_CP1252 = (0x81, 0x8D, 0x8F, 0x90, 0x9D)


def decode_bytes(raw: bytes) -> str:
    """Text of a hand-history file: BOM first (UTF-8, UTF-16, UTF-32), then UTF-8 strict, then cp1252."""
    for bom, codec in _WIDE_BOMS:
        if raw.startswith(bom):
            return raw[len(bom):].decode(codec, errors="replace")
    if raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8):]
    else:
        codec = _utf16_without_bom(raw)
        if codec:
            return raw.decode(codec, errors="replace")
    return decode_block(raw)


#: the byte-order marks of text read whole, with their codecs (`decode_bytes`, `wide`)
_WIDE_BOMS = ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
              (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))


def _cp1252(raw: bytes) -> str:
    """cp1252 that cannot fail: the five bytes cp1252 leaves undefined become the Latin-1 code points, as on
    Windows. All in C: a str.translate table took 2 s for 10 MB (it was the cost of a hostile file)."""
    text = raw.decode("cp1252", errors="surrogateescape")
    for byte in _UNDEFINED_IN_CP1252:
        text = text.replace(chr(0xDC00 + byte), chr(byte))
    return text


def _utf16_without_bom(raw: bytes) -> str | None:
    """UTF-16 text of ASCII-range lines has a zero in every other byte."""
    sample = raw[:512]
    if len(sample) < 8:
        return None
    even = sample[0::2].count(0)
    odd = sample[1::2].count(0)
    half = len(sample) // 2
    if odd > half * 0.4 and even == 0:
        return "utf-16-le"
    if even > half * 0.4 and odd == 0:
        return "utf-16-be"
    return None


#: a text export is read about this many bytes at a time, each block cut where a hand begins (`in_blocks`)
BLOCK_BYTES = 16 << 20

#: what reads one block: (its bytes, whole lines; lines of the file before it; whether it is the file's last) ->
#: the block's items, then (bytes, lines) of the block they used up: the rest is read again with the next block
BlockReader = Callable[[bytes, int, bool], Generator[SourceHand | Quarantined | ReaderNote, None, tuple[int, int]]]


def in_blocks(path: Path, limits: Limits, read: BlockReader) -> Iterator[SourceHand | Quarantined | ReaderNote]:
    """The items `read` gives for a file's (decompressed) bytes a block of `BLOCK_BYTES` at a time, so that a file
    of any size is held one block at a time (a million hands are a gigabyte of text).

    A block is whole lines. The reader reads the hands it knows to be whole and says how much of the block that
    was: up to the start of its last hand, which may go on in the next block, and is read again at the head of
    it. Such a start is a line where a hand begins at its first character, so the next block begins with it: a
    hand's start is decided by the lines after the hand before it (the names seated there), and a block that
    begins with a hand's start has no hand before it; so the hands and their items are those the whole file read
    at once gives. Each block is decoded on its own (UTF-8, else cp1252); a file in UTF-16 or UTF-32 is read whole
    (`limits.max_file_bytes`), and so is a stretch with no hand start past that size. Reading stops with a
    quarantine entry for the rest of the file at a limit or an unreadable byte (a damaged gzip stream).
    """
    name = str(path)
    try:
        blocks = _Blocks(path, limits)
    except OSError as exc:
        reason, code = open_failure(exc)
        yield Quarantined(name, 0, reason, code=code)
        return
    with blocks:
        line0, kept = 0, b""
        while True:
            try:
                raw, final = blocks.take(kept)
            except OSError as exc:
                reason, code = open_failure(exc)
                if line0 == 0:  # nothing read yet: as a file that could not be read at all
                    yield Quarantined(name, 0, reason, code=code)
                else:
                    yield Quarantined(name, line0 + 1, f"{reason}; the rest of the file is not read", code=code)
                return
            used, lines = yield from read(raw, line0, final)
            if final:
                return
            kept = raw[used:]
            line0 += lines


class _Blocks:
    """A file's bytes as blocks of whole lines (`in_blocks`)."""

    def __init__(self, path: Path, limits: Limits) -> None:
        self.stream = open_binary(path, limits)
        self.cap = limits.max_file_bytes
        self.pending = b""  # read after the last whole line of the last block
        self.eof = False
        self.first = True

    def __enter__(self) -> _Blocks:
        return self

    def __exit__(self, *_: object) -> None:
        self.stream.close()

    def _read(self, size: int) -> bytes:
        try:
            return self.stream.read(size)
        except EOFError as exc:
            raise OSError(f"truncated gzip: {exc}") from exc

    def take(self, kept: bytes) -> tuple[bytes, bool]:
        """`kept` (what the reader did not use of the last block) and at least `BLOCK_BYTES` more of the file, to
        the end of its last whole line; (the block, whether it ends the file)."""
        parts, size = [kept, self.pending], len(kept) + len(self.pending)
        self.pending = b""
        while not self.eof and size <= self.cap:
            chunk = self._read(BLOCK_BYTES)
            if not chunk:
                self.eof = True
                break
            size += len(chunk)
            if self.first and wide(chunk):  # UTF-16 or UTF-32: its lines are not bytes apart; read whole
                rest = self._read(self.cap + 1 - size)
                parts.append(chunk + rest)
                size += len(rest)
                self.eof = size <= self.cap
                if size > self.cap:
                    raise LimitExceeded(f"file is larger than {self.cap} bytes (limit max_file_bytes; text in "
                                        "UTF-16 or UTF-32 is read whole)")
                break
            self.first = False
            cut = _last_line_end(chunk)
            if cut is not None:
                parts.append(chunk[:cut])
                self.pending = chunk[cut:]
                break
            parts.append(chunk)
        if size > self.cap:
            raise LimitExceeded(f"more than {self.cap} bytes of text without the start of a hand (limit "
                                "max_file_bytes)")
        return b"".join(parts), self.eof and not self.pending


def wide(head: bytes) -> bool:
    """Whether text beginning with `head` is UTF-16 or UTF-32 (`decode_bytes`' byte-order marks and guess)."""
    return head.startswith(tuple(bom for bom, _ in _WIDE_BOMS)) or (
        not head.startswith(codecs.BOM_UTF8) and _utf16_without_bom(head) is not None)


def _last_line_end(chunk: bytes) -> int | None:
    """Where the last whole line of `chunk` ends (after its line break), or None: a `\r` as the chunk's last byte
    is not taken (a `\n` may follow it in the next chunk: one break, not two)."""
    at = chunk.rfind(b"\n")
    if at >= 0:
        return at + 1
    at = chunk.rfind(b"\r", 0, len(chunk) - 1)
    return at + 1 if at >= 0 else None


def line_start(raw: bytes, line: int) -> int:
    """The byte where line `line` (0-based; lines end at CR LF, CR or LF) of `raw` begins."""
    if line == 0:
        return 0
    breaks = _BREAKS.finditer(raw)
    return next(itertools.islice(breaks, line - 1, None)).end()


_BREAKS = re.compile(rb"\r\n|\r|\n")


def decode_block(raw: bytes) -> str:
    """A block after the first: UTF-8, else cp1252 (`decode_bytes` without the byte-order marks, which only a
    file's first bytes carry)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return _cp1252(raw)
