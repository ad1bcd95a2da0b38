"""Opening input files: gzip is undone here, once, for every reader, under the input limits.

A reader of any format calls `open_binary` (streaming) or `read_all` (whole file) and never looks
for the gzip magic itself, so `.gz` works the same for every format and the decompression limits
(total unpacked size, compression ratio: `limits.Limits`) are enforced in one place. Going past a
limit raises `LimitExceeded`, an OSError, which every reader already turns into a quarantine entry.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import select
import stat
import tempfile
import zlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

import numpy as np

from auditor.ingest.limits import DEFAULT_LIMITS, LimitExceeded, Limits

GZIP_MAGIC = b"\x1f\x8b"
#: kept for callers of the old constant: the default total an input may unpack to
MAX_UNPACKED_BYTES = DEFAULT_LIMITS.max_unpacked_bytes


def is_gzip(path: Path) -> bool:
    with path.open("rb") as raw:
        return raw.read(2) == GZIP_MAGIC


def bomb_message(unpacked: int, packed: int, limits: Limits) -> str | None:
    """Why `unpacked` bytes from `packed` compressed bytes are refused, or None if they are not."""
    if unpacked > limits.max_unpacked_bytes:
        return (f"unpacks to more than {limits.max_unpacked_bytes} bytes (limit max_unpacked_bytes; "
                "refused as a decompression bomb)")
    if unpacked > limits.ratio_grace_bytes and unpacked > limits.max_compression_ratio * max(packed, 1):
        return (f"unpacks to more than {limits.max_compression_ratio} times its compressed size ({unpacked} bytes "
                f"from {packed}; limit max_compression_ratio; refused as a decompression bomb)")
    return None


class GuardedStream(io.RawIOBase):
    """A decompressing stream that counts what it yields and stops at the first limit it passes.

    `packed` tells how many compressed bytes have been consumed so far (the position in the
    compressed file), so the ratio is judged on what was actually read, whatever sizes a header claims.
    With `packed` None the stream is not compressed (a pipe, a device) and only the total is limited.
    """

    def __init__(self, inner: BinaryIO, packed: Callable[[], int] | None, limits: Limits, closing: tuple = ()):
        super().__init__()
        self._inner = inner
        self._packed = packed
        self._limits = limits
        self._closing = closing
        self.unpacked = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        try:
            data = self._inner.read(len(buffer))
        except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
            raise OSError(f"damaged or truncated compressed data: {exc}") from exc
        n = len(data)
        self.unpacked += n
        if self._packed is None:
            problem = (f"input goes on past {self._limits.max_unpacked_bytes} bytes (limit max_unpacked_bytes; a "
                       "pipe or device that never ends?)") if self.unpacked > self._limits.max_unpacked_bytes else None
        else:
            problem = bomb_message(self.unpacked, self._packed(), self._limits)
        if problem:
            raise LimitExceeded(problem)
        buffer[:n] = data
        return n

    def close(self) -> None:
        if not self.closed:
            try:
                self._inner.close()
                for item in self._closing:
                    item.close()
            finally:
                super().close()


def open_binary(path: Path, limits: Limits = DEFAULT_LIMITS) -> BinaryIO:
    """The file's bytes, decompressed on the fly when it is gzip (within `limits`)."""
    raw = path.open("rb")
    try:
        gzipped = raw.peek(2)[:2] == GZIP_MAGIC
    except OSError:
        raw.close()
        raise
    if not gzipped:
        if stat.S_ISREG(os.fstat(raw.fileno()).st_mode):
            return raw  # a regular file ends
        # a pipe or a device (/dev/zero) may never end: it gets the total limit of unpacked input
        return io.BufferedReader(GuardedStream(raw, None, limits), buffer_size=64 * 1024)
    inner = gzip.GzipFile(fileobj=raw)
    return io.BufferedReader(GuardedStream(inner, raw.tell, limits, (raw,)), buffer_size=64 * 1024)


def read_all(path: Path, limits: Limits = DEFAULT_LIMITS, max_bytes: int | None = None) -> bytes:
    """The whole (decompressed) content, at most `max_bytes` (default `limits.max_file_bytes`).

    Every failure is an OSError whose text says what went wrong (a `LimitExceeded` for a limit).
    """
    cap = limits.max_file_bytes if max_bytes is None else max_bytes
    with open_binary(path, limits) as stream:
        try:
            data = stream.read(cap + 1)
        except EOFError as exc:
            raise OSError(f"truncated gzip: {exc}") from exc
    if len(data) > cap:
        raise LimitExceeded(f"file is larger than {cap} bytes (limit max_file_bytes; this reader reads whole files)")
    return data


def open_failure(exc: OSError) -> tuple[str, str]:
    """(reason, quarantine code) for a file that could not be opened or read to its end.

    Every reader words it the same way ("cannot open: <why>"): a limit passed is `limit` (the message
    names the limit), anything else (no permission, damaged or truncated gzip, a directory) `damaged`.
    """
    return f"cannot open: {exc.strerror or exc}", "limit" if isinstance(exc, LimitExceeded) else "damaged"


def read_line(stream: BinaryIO, max_bytes: int) -> tuple[bytes, bool]:
    """The next line (with its newline) of at most `max_bytes`, and whether it was longer.

    An overlong line is consumed to its end without keeping it, so a 10 GB line costs no memory.
    """
    line = stream.readline(max_bytes + 1)
    if len(line) <= max_bytes:
        return line, False
    if not line.endswith(b"\n"):
        while True:
            rest = stream.readline(1 << 20)
            if not rest or rest.endswith(b"\n"):
                break
    return line[:max_bytes], True


#: how long a FIFO may keep a reader waiting for its writer, or between two pieces of what it writes
STREAM_IDLE_SECONDS = 30.0


def unseekable_kind(path: Path) -> str | None:
    """"a FIFO (named pipe)" / "a socket" / "a device" when `path` can be read only once, in order (or
    never ends), else None (a regular file, a directory, or nothing there)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return None


@contextlib.contextmanager
def spool_if_unseekable(path: Path, limits: Limits = DEFAULT_LIMITS,
                        idle_seconds: float = STREAM_IDLE_SECONDS) -> Iterator[Path]:
    """`path` itself when it is a regular file (or a directory); a FIFO read once to its end into a
    temporary file (deleted when the block ends) otherwise, so detection and the reader both read the
    copy and no hand is lost to the bytes detection looked at.

    At most `limits.max_unpacked_bytes` are taken: a FIFO that goes on past it, or stays silent for
    `idle_seconds` (nobody writing to it), raises `LimitExceeded` naming why. A device (`/dev/zero`,
    a terminal) or a socket is refused with an OSError: it may never end and is not a file of hands.
    The pipeline spools `-` and FIFOs named on the command line the same way before any reader runs.
    """
    kind = unseekable_kind(path)
    if kind is None:
        yield path
        return
    if kind != "a FIFO (named pipe)":
        raise OSError(f"{kind}, not a file of hands (refused: it may never end)")
    with tempfile.TemporaryDirectory(prefix="auditor-spool-") as folder:
        copy = Path(folder) / "stream"
        with copy.open("wb") as out:
            copy_fifo(path, out, limits.max_unpacked_bytes, idle_seconds)
        yield copy


def copy_fifo(path: Path, out: BinaryIO, cap: int, idle_seconds: float) -> None:
    """Copy a FIFO without ever blocking on it: opened non-blocking (a plain open waits for a writer
    forever), read only when poll says there is something, refused after `idle_seconds` of silence.
    Before any writer comes a read says end-of-file at once; poll does not, which tells the two apart.
    Used by the readers (`spool_if_unseekable`) and by the pipeline for FIFOs named on the command line."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        copied = 0
        while True:
            if not poller.poll(int(idle_seconds * 1000)):
                said = "nothing was written to it" if copied == 0 else f"it stopped after {copied} bytes"
                raise LimitExceeded(f"a FIFO, and {said} for {idle_seconds:g} s (refused)")
            try:
                chunk = os.read(fd, 1 << 20)
            except BlockingIOError:
                continue
            if not chunk:
                return
            copied += len(chunk)
            if copied > cap:
                raise LimitExceeded(f"a FIFO that goes on past {cap} bytes (limit max_unpacked_bytes; refused)")
            out.write(chunk)
    finally:
        os.close(fd)


def only_blank(path: Path, limits: Limits = DEFAULT_LIMITS) -> bool:
    """True when the (decompressed) file holds nothing but white space: it has no hand, and its reader
    need not walk millions of empty lines one by one (8 MiB of newlines took a reader
    four seconds). Read a MiB at a time and stopped at the first byte that is not blank, so a real log
    costs one read; a file that cannot be read, or passes a limit, is not blank (its reader says why)."""
    try:
        with open_binary(path, limits) as stream:
            while chunk := stream.read(1 << 20):
                if chunk.strip(b" \t\r\n\x0b\x0c"):
                    return False
    except (OSError, EOFError, ValueError):
        return False
    return True


__all__ = ["GZIP_MAGIC", "GuardedStream", "bomb_message", "copy_fifo", "is_gzip", "only_blank", "open_binary",
           "open_failure", "read_all", "read_line", "spool_if_unseekable", "unseekable_kind"]


def utf8_mask(joined: bytes, parts: Sequence[bytes]) -> np.ndarray:
    """Per part, whether it is UTF-8: one decode of `joined` (the parts with a separator between them, so a
    sequence cut at one part's end cannot pair with the next part's first byte), part by part only when that
    fails. The column-wise readers judge a batch of lines or files this way; a part that is not UTF-8 is the
    reference path's to refuse."""
    ok = np.ones(len(parts), dtype=bool)
    try:
        joined.decode("utf-8")
    except UnicodeDecodeError:
        for i, part in enumerate(parts):
            try:
                part.decode("utf-8")
            except UnicodeDecodeError:
                ok[i] = False
    return ok


def large_plain_input(path: Path, label: str, min_bytes: int) -> bool:
    """Whether an audit input is a regular file named by its own path (what `detect.read_file` gives its reader
    unchanged: not a zip archive, not a FIFO spooled first, no label put in place of the path) of `min_bytes`
    or more: the gate the column-wise readers share, so a small file never loads their kernels. A file gone or
    unreadable is not (the reference path words why)."""
    if not (label == str(path) and not path.name.lower().endswith(".zip") and unseekable_kind(path) is None):
        return False
    try:
        return path.stat().st_size >= min_bytes
    except OSError:
        return False
