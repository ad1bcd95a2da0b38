"""Write hands as JSON Lines: one compact JSON object per line, ``.gz`` paths gzip-compressed; or, with
:func:`write_format`, in any format that has a writer in :mod:`auditor.export` (PokerStars text, OHH, PHH).

The bytes depend only on the hands: keys keep their insertion order, separators are compact and
the gzip header carries no file name and no timestamp.
"""

from __future__ import annotations

import gzip
import json
import os
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import BinaryIO

from auditor.export import SUFFIXES, writer

__all__ = ["FORMATS", "write_format", "write_jsonl"]

#: what `auditor simulate --format` can write
FORMATS = ("jsonl", *SUFFIXES)


def write_format(hands: Iterable[dict], path: str | os.PathLike[str], fmt: str = "jsonl") -> tuple[int, Counter]:
    """Write `hands` to `path` in format `fmt`: how many were written, and the hands left out because the
    format cannot express them, counted by the writer's reason (JSON Lines holds every hand)."""
    if fmt == "jsonl":
        return write_jsonl(hands, path), Counter()
    module = writer(fmt)
    skipped: Counter = Counter()

    def expressible() -> Iterator[dict]:
        for hand in hands:
            why = module.cannot_express(hand)
            if why:
                skipped[why] += 1
            else:
                yield hand

    return module.write_hands(expressible(), path), skipped


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
