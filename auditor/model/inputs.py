"""An input the run reads, how its name is shown, and the error a bad command line raises.

Names are made once: `InputFile.name` and `shown` are decided by the pipeline's `discover`
and read by the engines (which open the file), the reports and the evidence manifest (which name it),
so the type sits in the model below all of them.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from auditor.resources import room_names, xml_room_names

#: the text formats a reader reads (`ingest.detect.FORMATS`, one row each, in this order): every room with a dialect,
#: the text rooms' then the XML rooms', then PokerNow's log
TEXT_FORMATS = ("jsonl", "ohh", "phh", *room_names(), *xml_room_names(), "pokernow")
#: what `--input-format` accepts and `InputFile.format` holds: detection, a Parquet dataset, or a text format.
#: Here, below the readers, so the command line names them without importing any reader
INPUT_FORMATS = ("auto", "parquet", *TEXT_FORMATS)


class UsageError(ValueError):
    """Bad command-line input (missing path, unknown pack): exit status 2."""


@dataclass(frozen=True)
class Seen:
    """What discovery learnt of a file while finding it, so the run does not ask the file system again: a
    folder of 5,000 one-hand PHH files spent more time in these questions than in auditing its hands.

    `state` is `report.manifest.file_state`'s (size, mtime_ns, ctime_ns, inode) from the one `lstat` (and
    `stat`, for a link) discovery made; `sha256` the digest of the file's bytes when detection's read of its
    opening bytes took the whole regular file (one open instead of two: the manifest states it as it would
    have hashed it). Both are taken before any reader opens the file, as the manifest requires; a file that
    moves afterwards is caught by the run's second look at its metadata (`changed_during_audit`).

    `content`: those very bytes, for a one-hand `.phh` file while the run's budget for them lasts
    (`pipeline.KEPT_BYTES`), so the PHH reader audits what was hashed without opening the file a second time
    (opening and reading it cost ~7.5 µs a file, a seventh of a PHH folder's audit). Let go once read
    (`forget`), and at the run's end, so neither the run nor its result keeps them."""
    state: tuple[int, int, int, int]
    sha256: str | None = None
    content: bytes | None = field(default=None, compare=False, repr=False)

    def forget(self) -> None:
        """Let the kept bytes go: the one change a `Seen` allows (memory only; `content` is not compared)."""
        if self.content is not None:
            object.__setattr__(self, "content", None)


def stat_state(st: os.stat_result) -> tuple[int, int, int, int]:
    """(size, mtime_ns, ctime_ns, inode) of a stat: what changes when a file is written or replaced (`Seen.state`,
    `report.manifest.file_state`)."""
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino


@dataclass(frozen=True)
class InputFile:
    path: Path
    format: str  # a name from INPUT_FORMATS, decided once by discover(); "auto" only for a zip
    #: how the user knows the file: as named, or `<folder as named>/<path inside it>` (`_folder_names`),
    #: never where the folder happens to be mounted, so ids built from it are the same on every machine;
    #: always valid text (a byte that is not UTF-8 in a file name is written `\xff`)
    name: str = ""
    #: what findings and quarantines name the file by, in place of the path the reader opened: "" for that
    #: path itself (escaped where it is not valid text), `<stdin>` for standard input spooled to a file
    shown: str = ""
    #: keeps a spooled stream's temporary copy alive as long as the input (not compared, not sent to workers)
    spool: Any = field(default=None, compare=False, repr=False)
    #: what discovery saw of a plain file (`Seen`); None when it did not look (a dataset, a stream)
    seen: Seen | None = field(default=None, compare=False, repr=False)

    @property
    def label(self) -> str:
        """The file as reports name it: readers label positions with `str(path)`, which
        `engines.partition.read_input` replaces with this."""
        return self.shown or shown_text(str(self.path))


_SURROGATE = re.compile(r"[\ud800-\udfff]")


def shown_text(text: str) -> str:
    """`text` safe for a table, a report and a terminal: a byte that was not UTF-8 in a file name (Python
    holds it as a surrogate escape, e.g. `\\udcff` for byte 0xff) is written `\\xff`, any other lone
    surrogate `\\udxxx`. Arrow, JSON and the terminal refuse surrogates, so one name delivered by a tar or
    rsync from another system used to fail the whole run."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub(lambda m: f"\\x{ord(m[0]) - 0xDC00:02x}" if 0xDC80 <= ord(m[0]) <= 0xDCFF
                              else f"\\u{ord(m[0]):04x}", text)
    return text
