"""Opening input files: gzip is undone here, once, for every reader, under the input limits.

A reader of any format calls `open_binary` (streaming) or `read_all` (whole file) and never looks
for the gzip magic itself, so `.gz` works the same for every format and the decompression limits
(total unpacked size, compression ratio: `limits.Limits`) are enforced in one place. Going past a
limit raises `LimitExceeded`, an OSError, which every reader already turns into a quarantine entry.
"""

from __future__ import annotations

import gzip
import io
import os
import stat
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

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


__all__ = ["GZIP_MAGIC", "GuardedStream", "bomb_message", "is_gzip", "open_binary", "open_failure", "read_all",
           "read_line"]
