"""Opening input files: gzip is undone here, once, for every reader.

A reader of any format calls `open_binary` (streaming) or `read_all` (whole file) and never looks
for the gzip magic itself, so `.gz` works the same for every format and the decompression limit is
enforced in one place.
"""

from __future__ import annotations

import gzip
import io
from pathlib import Path
from typing import BinaryIO

GZIP_MAGIC = b"\x1f\x8b"
#: refuse input that unpacks to more than this (a decompression bomb)
MAX_UNPACKED_BYTES = 4 * 1024**3


def is_gzip(path: Path) -> bool:
    with path.open("rb") as raw:
        return raw.read(2) == GZIP_MAGIC


def open_binary(path: Path) -> BinaryIO:
    """The file's bytes, decompressed on the fly when it is gzip."""
    raw = path.open("rb")
    if raw.peek(2)[:2] == GZIP_MAGIC:
        return io.BufferedReader(gzip.GzipFile(fileobj=raw))
    return raw


def read_all(path: Path) -> bytes:
    """The whole (decompressed) content; every failure is an OSError whose text says what went wrong."""
    with open_binary(path) as stream:
        try:
            data = stream.read(MAX_UNPACKED_BYTES + 1)
        except EOFError as exc:
            raise OSError(f"truncated gzip: {exc}") from exc
    if len(data) > MAX_UNPACKED_BYTES:
        raise OSError(f"unpacks to more than {MAX_UNPACKED_BYTES} bytes (refused as a decompression bomb)")
    return data
