"""Every size limit the readers enforce on hostile input, in one place.

Hand logs come from outside (rooms, players, other tools): a file may be a decompression bomb, a
single line may be gigabytes long, a JSON hand may be nested a million levels deep. Each reader
reads under a `Limits`; what exceeds a limit is quarantined (or, for a whole archive, refused) with
the quarantine code `limit` and a message naming the limit, so a regulator can tell a refused input
from a bad hand, and the run goes on. The defaults are far above any real hand history (a PokerStars hand is 1-3 KB, a
canonical JSON hand 2 KB) and low enough that one input cannot exhaust memory or time.

`Limits()` holds the defaults; `Limits.parse(["jsonl_max_line_bytes=1M", ...])` is what the
command line's `--limit NAME=VALUE` builds; `audit(..., limits=...)` and `read_file(..., limits=...)`
take one in the library API.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from dataclasses import dataclass

KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB


class LimitExceeded(OSError):
    """An input went past a limit while being read. An OSError, so every reader's "cannot read"
    path already turns it into a quarantine entry with this message."""


@dataclass(frozen=True)
class Limits:
    """Input limits. Sizes are bytes of the (decompressed) input."""

    #: what one input may unpack to: a gzip file, all members of a zip archive together, a FIFO spooled
    #: to a temporary file, or the decoded columns of a Parquet dataset read whole (`read_parquet`); a
    #: dataset streamed in ranges (the pipeline's path for a sorted canonical dataset) holds only what one
    #: range reads, so the limit applies to the row groups each range reads, not to the dataset: a range
    #: past it is refused alone and the rest audits (10,000,000 hands decode to far more than 4 GiB)
    max_unpacked_bytes: int = 4 * GiB
    #: unpacked / compressed size above which a gzip stream, a zip member, a whole zip archive (its
    #: members together, gzip members unpacked) or a Parquet table (its columns as decoded, dictionaries
    #: and run lengths expanded; streamed, each row group's footer sizes, then the row groups a range
    #: reads, one by one and per file) is refused as a bomb (hand logs compress 5-30x, Parquet tables of
    #: real hands decode to 3-11x their file; a deflate bomb reaches about 1,000x)
    max_compression_ratio: int = 200
    #: the ratio is judged only once this much has been unpacked (a tiny file may compress well); for an
    #: archive, once its members together have unpacked this much, not member by member
    ratio_grace_bytes: int = 8 * MiB
    #: members of one zip archive
    max_archive_members: int = 10_000
    #: readers that take a whole file into memory (a `.phh`, a `.phhs` with keys before its first table; a
    #: `.phhs` otherwise streams table by table; PokerStars text in UTF-16 or UTF-32, while PokerStars text
    #: otherwise streams a block of hands at a time and holds at most this much text without a hand's start),
    #: and each file of a Parquet dataset read whole; not a table file of a dataset streamed in ranges, which is
    #: never held whole (a row group too large to hold is refused by the per-range decoded-size check instead)
    max_file_bytes: int = 512 * MiB
    #: canonical JSON Lines: one line is one hand
    jsonl_max_line_bytes: int = 8 * MiB
    #: Open Hand History: one `{"ohh": ...}` object (may span many lines)
    ohh_max_hand_bytes: int = 16 * MiB
    #: Open Hand History: one physical line
    ohh_max_line_bytes: int = 16 * MiB
    #: a room's text (PokerStars...): one line (real lines are under 200 characters; chat lines are the longest)
    room_max_line_bytes: int = 16 * KiB
    #: a room's text: one hand, header to the next header
    room_max_hand_bytes: int = 1 * MiB
    #: PHH: one `.phh` document, or one table (hand) of a `.phhs` file
    phh_max_hand_bytes: int = 1 * MiB
    #: PHH: one physical line (the `actions` array is often written on one line)
    phh_max_line_bytes: int = 256 * KiB
    #: an XML room (iPoker...): one hand element (`<game>`), from its start tag to its end tag (real ones are 2-10 KB)
    xml_max_hand_bytes: int = 1 * MiB
    #: an XML room: the bytes between one `>` and the next (a tag with its attributes, with the text before it; real
    #: ones are under 300 bytes), judged before the XML parser holds them
    xml_max_token_bytes: int = 64 * KiB
    #: an XML room: elements nested in one another (real files nest 6 deep)
    xml_max_depth: int = 32
    #: Parquet: the footer (metadata) of one table file, parsed before anything else; `auditor convert`
    #: writes a few KB, while a footer of a million row groups takes Arrow gigabytes to hold
    parquet_max_footer_bytes: int = 16 * MiB

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"limit {f.name} must be a positive integer, not {value!r}")

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(cls))

    def replace(self, **changes: int) -> Limits:
        unknown = sorted(set(changes) - set(self.names()))
        if unknown:
            raise ValueError(f"unknown limit {', '.join(unknown)} (known: {', '.join(self.names())})")
        return dataclasses.replace(self, **changes)

    @classmethod
    def parse(cls, settings: Iterable[str], base: Limits | None = None) -> Limits:
        """Limits from `NAME=VALUE` strings; VALUE is an integer with an optional K, M or G (binary) suffix."""
        changes: dict[str, int] = {}
        for setting in settings:
            name, sep, value = setting.partition("=")
            if not sep:
                raise ValueError(f"limit {setting!r}: expected NAME=VALUE")
            changes[RENAMED.get(name.strip(), name.strip())] = parse_size(value)
        return (base or cls()).replace(**changes)


#: limits' former names, still accepted (a user's scripts keep working)
RENAMED = {"pokerstars_max_line_bytes": "room_max_line_bytes", "pokerstars_max_hand_bytes": "room_max_hand_bytes"}

_SIZE = re.compile(r"^\s*(\d{1,15})\s*([KMG]?)(?:i?B)?\s*$", re.IGNORECASE)
_UNIT = {"": 1, "K": KiB, "M": MiB, "G": GiB}


def parse_size(text: str) -> int:
    """`4096`, `64K`, `8M`, `4G` (binary units; `KiB`/`KB` spellings accepted) as an integer."""
    m = _SIZE.match(text)
    if not m:
        raise ValueError(f"limit value {text!r} is not a size such as 4096, 64K, 8M or 4G")
    return int(m[1]) * _UNIT[m[2].upper()]


#: the limits used when a caller gives none
DEFAULT_LIMITS = Limits()

__all__ = ["DEFAULT_LIMITS", "GiB", "KiB", "LimitExceeded", "Limits", "MiB", "parse_size"]
