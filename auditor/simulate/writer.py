"""Write hands as JSON Lines: one compact JSON object per line, ``.gz`` paths gzip-compressed.

The bytes depend only on the hands: keys keep their insertion order, separators are compact and
the gzip header carries no file name and no timestamp.
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterable
from typing import BinaryIO

__all__ = ["write_jsonl"]


def write_jsonl(hands: Iterable[dict], path: str | os.PathLike[str]) -> int:
    """Write `hands` to `path` (gzip when it ends in ``.gz``); returns how many were written."""
    path = os.fspath(path)
    encoder = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
    count = 0
    with open(path, "wb") as raw:
        if path.endswith(".gz"):
            with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as stream:
                count = _write(hands, stream, encoder)
        else:
            count = _write(hands, raw, encoder)
    return count


def _write(hands: Iterable[dict], stream: BinaryIO, encoder: json.JSONEncoder) -> int:
    count = 0
    buffer: list[str] = []
    for hand in hands:
        buffer.append(encoder.encode(hand))
        count += 1
        if len(buffer) >= 512:
            stream.write(("\n".join(buffer) + "\n").encode("utf-8"))
            buffer.clear()
    if buffer:
        stream.write(("\n".join(buffer) + "\n").encode("utf-8"))
    return count
