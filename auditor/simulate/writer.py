"""Write hands as JSON Lines: one compact JSON object per line, ``.gz`` paths gzip-compressed.

The bytes depend only on the hands: keys keep their insertion order, separators are compact and
the gzip header carries no file name and no timestamp.
"""

from __future__ import annotations

import gzip
import io
import json
import os
from collections.abc import Iterable

__all__ = ["write_jsonl"]


def write_jsonl(hands: Iterable[dict], path: str | os.PathLike[str]) -> int:
    """Write `hands` to `path` (gzip when it ends in ``.gz``); returns how many were written."""
    path = os.fspath(path)
    encoder = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
    count = 0
    with open(path, "wb") as raw:
        if path.endswith(".gz"):
            stream = gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0)
        else:
            stream = raw
        with io.TextIOWrapper(stream, encoding="utf-8", newline="\n") as text:
            for hand in hands:
                text.write(encoder.encode(hand))
                text.write("\n")
                count += 1
            text.flush()
            if stream is not raw:
                stream.close()
            text.detach()
    return count
