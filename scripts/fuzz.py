"""Fuzz every reader (and audit()) with mutated real hand histories; print inputs/s, crashes, totals.

    python scripts/fuzz.py -n 100000                       # every reader, 100,000 inputs each
    python scripts/fuzz.py --readers pokerstars,phh -n 1e6 --seconds 1800
    python scripts/fuzz.py --replay CRASH_FILE --reader ohh # run one saved reproducer again
    python scripts/fuzz.py --engine atheris --readers ohh -n 100000   # coverage-guided (pip install atheris)
    python scripts/fuzz.py --grammar -n 200000 --seconds 3600 # grammar-built inputs (see "grammar-built inputs")

Each input is a real seed (sample_logs/*.jsonl, tests/fixtures/, the corpus in ../shared/corpus/ read
where it lies) with one to three mutations stacked: truncation, shuffled lines, other encodings, NUL
bytes, 10 MB lines, deep JSON nesting, huge and negative numbers, unknown and repeated cards, duplicated
hands, control characters and ANSI escapes in names, random byte flips, splices of another seed, and
gzip or zip wrapping (with hostile member names). Parquet datasets are mutated as tables (columns
dropped, retyped, nulled, filled with huge values) and as bytes.

The property checked on every input: the reader yields only SourceHand or Quarantined, never raises,
each quarantine has a reason and one printable line naming file and line, and each hand passes the
canonical schema; for PHH, the reader's TOML fast path reads the text as tomllib does; for a plain PokerStars,
OHH or `.phh` file, the column-wise reader an audit takes for large inputs (its size threshold waived) gives
the same hands as canonical tables, the same quarantines and notes. Every `--audit-every` inputs the last `--audit-batch` inputs are audited together
with `audit()`, which must not raise and must reconcile: hands read = audited + quarantined, for the
run and per file, and hands read = what the readers yielded.

A crash (an exception, a broken property, or an input still running after `--timeout` seconds) is
saved with its traceback under `--out` (a few reproducers per distinct crash); inputs slower than
`--slow` seconds are saved as slow. The built-in engine is a seeded PRNG, so `--seed` and the input
number reproduce any input; Hypothesis drives the same mutators in tests/test_fuzz_readers.py (it
shrinks, but stops at the first failure, which suits tests and not a million-input run); atheris, when
installed, adds coverage guidance (`--engine atheris`, one reader at a time; it stops at the first crash).
"""

from __future__ import annotations

import argparse
import codecs
import functools
import gzip
import hashlib
import io
import logging
import os
import random
import re
import shutil
import signal
import sys
import tempfile
import time
import tomllib
import traceback
import warnings
import zipfile
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# The replay kernels run with bounds checks while fuzzing: an index a hostile log could push out of range
# raises IndexError (a crash the fuzzer reports) instead of reading or writing stray memory. Numba's cache
# does not key on the flag, so checked kernels get their own cache folder.
os.environ.setdefault("NUMBA_BOUNDSCHECK", "1")
os.environ.setdefault("NUMBA_CACHE_DIR", str(Path(tempfile.gettempdir()) / "poker-auditor-numba-boundscheck"))

import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

from auditor.ingest import phh_scan, phh_toml  # noqa: E402
from auditor.ingest.detect import read_file  # noqa: E402
from auditor.ingest.limits import DEFAULT_LIMITS, Limits  # noqa: E402
from auditor.ingest.phh import _read_phh_reference, read_phh  # noqa: E402
from auditor.ingest.validate import schema_error  # noqa: E402
from auditor.model.records import Quarantined, ReaderNote, SourceHand  # noqa: E402
from auditor.resources import room_names, xml_room_names  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"
ROOMS = room_names()
XML_ROOMS = xml_room_names()
READERS = ("jsonl", "parquet", *ROOMS, *XML_ROOMS, "ohh", "phh", "pokernow")
TEN_MB = 10 * 1024 * 1024


# ----------------------------------------------------------------------------------------------- seeds


@dataclass
class Seeds:
    """Real inputs of one format, cut into small pieces (one to a few hands) so each input is cheap."""

    reader: str
    #: (suffix, bytes) of whole small files or excerpts of big ones
    pieces: list[tuple[str, bytes]] = field(default_factory=list)

    def pick(self, rng: random.Random) -> tuple[str, bytes]:
        return rng.choice(self.pieces)


def _windows(parts: list[bytes], joiner: bytes, most: int = 3) -> list[bytes]:
    """Runs of 1..`most` consecutive parts: excerpts that keep hands whole and in their order."""
    out = []
    for i in range(len(parts)):
        for k in range(1, most + 1):
            if i + k <= len(parts) and (k == 1 or i % k == 0):
                out.append(joiner.join(parts[i:i + k]))
    return out


def _split_at(data: bytes, pattern: bytes) -> list[bytes]:
    starts = [m.start() for m in re.finditer(pattern, data, re.MULTILINE)]
    if not starts:
        return [data]
    return [data[a:b] for a, b in zip(starts, [*starts[1:], len(data)], strict=True)]


def _files(*globs: tuple[Path, str]) -> list[Path]:
    found: list[Path] = []
    for base, pattern in globs:
        if base.is_dir():
            found.extend(sorted(p for p in base.glob(pattern) if p.is_file()))
    return found


def load_seeds(reader: str, corpus: Path = CORPUS, phh_files: int = 400) -> Seeds:
    """Seed pieces for `reader` from the sample logs, the test fixtures and the corpus (when present)."""
    seeds = Seeds(reader)
    if reader in ("jsonl", "parquet"):
        for path in _files((ROOT / "sample_logs", "*.jsonl")):
            lines = path.read_bytes().splitlines(keepends=True)
            # every hand of the planted and damaged files, a sample of the big clean ones
            step = 1 if len(lines) < 100 else 25
            seeds.pieces += [(".jsonl", piece) for piece in _windows(lines[::step], b"", 3)]
    elif reader in ROOMS:
        from auditor.ingest.detect import detect
        from auditor.ingest.dialect import dialect

        # the room's fixtures and every corpus file detected as the room's, cut at its hands' first words
        lead = re.escape(dialect(reader).header["hand_start"].lead.encode("utf-8"))
        for path in _files((ROOT / "tests/fixtures" / reader, "**/*.txt"), (corpus, "**/*.txt"), (corpus, "**/HH*")):
            if path.is_relative_to(corpus) and getattr(detect(path), "name", None) != reader:
                continue
            data = path.read_bytes()
            hands = _split_at(data, rb"^(?:\xef\xbb\xbf)?" + lead)
            seeds.pieces += [(".txt", piece) for piece in _windows(hands, b"", 3)]
            if len(data) < 20_000:
                seeds.pieces.append((".txt", data))
    elif reader in XML_ROOMS:
        from auditor.ingest.detect import detect
        from auditor.ingest.xml_dialect import xml_dialect

        # the room's fixtures and every corpus file detected as the room's, whole and cut at its hands (the
        # dialect's hand element)
        hand = re.escape(xml_dialect(reader).doc["hand"].encode())
        for path in _files((ROOT / "tests/fixtures" / reader, "**/*.xml"), (corpus, "**/*.txt"), (corpus, "**/*.xml")):
            if path.is_relative_to(corpus) and getattr(detect(path), "name", None) != reader:
                continue
            data = path.read_bytes()
            seeds.pieces.append((".xml", data))
            games = re.split(rb"(?=<" + hand + rb"[ >])", data)
            seeds.pieces += [(".xml", games[0] + piece) for piece in games[1:3]]
    elif reader == "pokernow":
        # the fixtures and the corpus's PokerNow logs, whole and cut into runs of rows (newest first, as exported)
        for path in _files((ROOT / "tests/fixtures/pokernow", "*.csv"), (corpus, "**/pokernow*/**/*.csv"),
                           (corpus, "**/pokernow*/**/*.txt"), (corpus, "**/pokernow_csv/*.csv")):
            data = path.read_bytes()
            seeds.pieces.append((".csv", data))
            head, _, rows = data.partition(b"\n")
            lines = rows.splitlines(keepends=True)
            seeds.pieces += [(".csv", head + b"\n" + b"".join(lines[k:k + 60])) for k in range(0, len(lines), 60)]
    elif reader == "ohh":
        for path in _files((ROOT / "tests/fixtures/ohh", "*.ohh"), (corpus / "ohh", "**/*.ohh")):
            data = path.read_bytes()
            objects = [o for o in re.split(rb"\n\s*\n", data) if o.strip()]
            seeds.pieces += [(".ohh", piece) for piece in _windows(objects, b"\n\n", 2)]
    elif reader == "phh":
        for path in _files((ROOT / "tests/fixtures/phh", "*.phh*")):
            seeds.pieces.append((path.suffix, path.read_bytes()))
        every = _files((corpus / "phh" / "data", "**/*.phh"))
        # every non-Pluribus hand (WSOP and the famous hands) and an even sample of Pluribus
        other = [p for p in every if "pluribus" not in p.parts]
        pluribus = [p for p in every if "pluribus" in p.parts]
        step = max(1, len(pluribus) // max(phh_files, 1))
        for path in other + pluribus[::step]:
            seeds.pieces.append((".phh", path.read_bytes()))
    if not seeds.pieces:
        raise SystemExit(f"no seeds for {reader}")
    return seeds


# ------------------------------------------------------------------------------------------- mutators

Mutator = Callable[[bytes, random.Random, "Seeds"], bytes]

_NUMBER = re.compile(rb"-?\d+(?:\.\d+)?")
_CARD = re.compile(rb"(?<![A-Za-z0-9])[2-9TJQKA][cdhs](?![A-Za-z0-9])")
_QUOTED = re.compile(rb'"[^"\n]{1,40}"|\'[^\'\n]{1,40}\'')
_HAND_ID = re.compile(rb'"hand_id": ?"[^"]*"|"game_number": ?"[^"]*"|Hand #\d+|^hand = \d+', re.MULTILINE)

HOSTILE_NUMBERS = (b"-1", b"0", b"-0", b"99999999999999999999999", b"1e999999999", b"-9223372036854775809",
                   b"18446744073709551616", b"9" * 5000, b"1.0000000001", b"NaN", b"Infinity", b"-Infinity",
                   b"1e-400", b"0.5", b"1E+9", b"2147483648", b"1000000000000001", b"12,345", b"$5", b"0x10")
HOSTILE_CARDS = (b"Xx", b"1s", b"??", b"A", b"Ahh", b"ah", b"10h", b"\x00\x00", b"As As", b"", b"Ac Kd Qh Js Tc 9d")
HOSTILE_TEXT = (b"\x1b[2J\x1b[31mred", b"\x1b]8;;http://evil\x07link\x1b]8;;\x07", b"a\nb", b"a\rb", b"\x00",
                b"\xe2\x80\xae", b"\xe2\x80\xa8", b"\\u0000", b"\\ud800", b"\\udfff\\ud800", b"\\n", b"'", b'"', b"\\", b"}", b"]", b"[1]",
                b"PokerStars Hand #1: ", b"*** SUMMARY ***", b"\xff\xfe", b"\xc3", b"\xed\xa0\x80", b"\t" * 50,
                b"../../etc/passwd", b"%s%n", b"{{x}}", b"x" * 300)


def m_truncate(data: bytes, rng: random.Random, _s: Seeds) -> bytes:
    return data[: rng.randrange(len(data) + 1)]


def m_flip(data: bytes, rng: random.Random, _s: Seeds) -> bytes:
    if not data:
        return bytes([rng.randrange(256)])
    buf = bytearray(data)
    for _ in range(rng.choice((1, 1, 2, 4, 8))):
        buf[rng.randrange(len(buf))] ^= 1 << rng.randrange(8) if rng.random() < 0.7 else rng.randrange(1, 256)
    return bytes(buf)


def m_insert(data: bytes, rng: random.Random, _s: Seeds) -> bytes:
    at = rng.randrange(len(data) + 1)
    what = rng.choice((rng.choice(HOSTILE_TEXT), bytes(rng.randrange(256) for _ in range(rng.randrange(1, 16))),
                       b"\x00" * rng.randrange(1, 64)))
    return data[:at] + what + data[at:]


def m_nul(data: bytes, rng: random.Random, _s: Seeds) -> bytes:
    """NUL bytes: a run inserted, or bytes of the input overwritten with zeros."""
    if not data or rng.random() < 0.5:
        at = rng.randrange(len(data) + 1)
        return data[:at] + b"\x00" * rng.choice((1, 2, 7, 512)) + data[at:]
    buf = bytearray(data)
    for _ in range(rng.choice((1, 3, 16))):
        buf[rng.randrange(len(buf))] = 0
    return bytes(buf)


def m_delete(data: bytes, rng: random.Random, _s: Seeds) -> bytes:
    if not data:
        return data
    a = rng.randrange(len(data))
    return data[:a] + data[a + rng.randrange(1, 64):]


def m_duplicate_range(data: bytes, rng: random.Random, _s: Seeds) -> bytes:
    if not data:
        return data
    a = rng.randrange(len(data))
    b = min(len(data), a + rng.randrange(1, 512))
    return data[:b] + data[a:b] + data[b:]


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def m_shuffle_lines(data: bytes, rng: random.Random, _s: Seeds) -> bytes:
    lines = _lines(data)
    if len(lines) < 2:
        return data
    a = rng.randrange(len(lines))
    b = min(len(lines), a + rng.randrange(2, 12))
    window = lines[a:b]
    rng.shuffle(window)
    return b"".join(lines[:a] + window + lines[b:])


def m_line_ops(data: bytes, rng: random.Random, _s: Seeds) -> bytes:
    lines = _lines(data)
    if not lines:
        return data
    i = rng.randrange(len(lines))
    op = rng.randrange(3)
    if op == 0:
        del lines[i]
    elif op == 1:
        lines.insert(rng.randrange(len(lines) + 1), lines[i])
    else:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    return b"".join(lines)


def m_encoding(data: bytes, rng: random.Random, _s: Seeds) -> bytes:
    text = data.decode("utf-8", "replace")
    choice = rng.randrange(9)
    if choice == 0:
        return codecs.BOM_UTF16_LE + text.encode("utf-16-le", "replace")
    if choice == 1:
        return text.encode("utf-16-be", "replace")
    if choice == 2:
        return codecs.BOM_UTF32_LE + text.encode("utf-32-le", "replace")
    if choice == 3:
        return text.encode("cp1252", "replace")
    if choice == 4:
        return text.encode("latin-1", "replace")
    if choice == 5:
        return codecs.BOM_UTF8 + data
    if choice == 6:
        return data.replace(b"\n", b"\r\n")
    if choice == 7:
        return data.replace(b"\n", b"\r")
    return text.encode("utf-16-le", "replace")  # UTF-16 without a BOM


def m_numbers(data: bytes, rng: random.Random, _s: Seeds) -> bytes:
    found = list(_NUMBER.finditer(data))
    if not found:
        return data
    for _ in range(rng.choice((1, 1, 3))):
        m = rng.choice(found)
        data = data[: m.start()] + rng.choice(HOSTILE_NUMBERS) + data[m.end():]
        found = list(_NUMBER.finditer(data))
        if not found:
            break
    return data


def m_cards(data: bytes, rng: random.Random, _s: Seeds) -> bytes:
    found = list(_CARD.finditer(data))
    if not found:
        return data
    m = rng.choice(found)
    if rng.random() < 0.5:  # a card dealt twice: another card of the hand written over this one
        other = rng.choice(found).group(0)
        return data[: m.start()] + other + data[m.end():]
    return data[: m.start()] + rng.choice(HOSTILE_CARDS) + data[m.end():]


def m_names(data: bytes, rng: random.Random, _s: Seeds) -> bytes:
    found = list(_QUOTED.finditer(data))
    if not found:
        return m_insert(data, rng, _s)
    m = rng.choice(found)
    inner = m.start() + 1 + rng.randrange(max(1, m.end() - m.start() - 2))
    return data[:inner] + rng.choice(HOSTILE_TEXT) + data[inner:]


def m_duplicate_hand(data: bytes, rng: random.Random, _s: Seeds) -> bytes:
    """The whole input twice (every hand id repeated), or one id copied over another."""
    ids = list(_HAND_ID.finditer(data))
    if len(ids) >= 2 and rng.random() < 0.5:
        a, b = rng.sample(ids, 2)
        if a.start() < b.start():
            return data[: b.start()] + a.group(0) + data[b.end():]
        return data[: a.start()] + b.group(0) + data[a.end():]
    sep = b"" if data.endswith(b"\n") else b"\n"
    return data + sep + (b"\n" if rng.random() < 0.5 else b"") + data


def m_splice(data: bytes, rng: random.Random, seeds: Seeds) -> bytes:
    _, other = seeds.pick(rng)
    a = rng.randrange(len(data) + 1)
    b = rng.randrange(len(other) + 1)
    return data[:a] + other[b:]


def m_deep_nesting(data: bytes, rng: random.Random, _s: Seeds) -> bytes:
    depth = rng.choice((100, 999, 1001, 5000, 100_000))
    opener, closer = rng.choice(((b"[", b"]"), (b'{"a":', b"}"), (b"[{\"x\":", b"}]")))
    nested = opener * depth + b"1" + closer * depth
    found = list(_NUMBER.finditer(data))
    if found and rng.random() < 0.7:  # a value replaced by the nest, so the rest stays well formed
        m = rng.choice(found)
        return data[: m.start()] + nested + data[m.end():]
    return data + b"\n" + (nested if rng.random() < 0.5 else opener * depth) + b"\n"


def m_huge_line(data: bytes, rng: random.Random, _s: Seeds) -> bytes:
    unit = rng.choice((b"a", b"[", b'{"a":', b' said, "', b"9", b"\x00", b"Seat 1: x (", b"\xe2\x82\xac"))
    line = (unit * (TEN_MB // len(unit) + 1))[:TEN_MB]
    lines = _lines(data)
    at = rng.randrange(len(lines) + 1)
    return b"".join(lines[:at]) + line + b"\n" + b"".join(lines[at:])


def m_blank_out(data: bytes, rng: random.Random, _s: Seeds) -> bytes:
    """Whitespace only, empty, or one byte: inputs with nothing in them."""
    return rng.choice((b"", b"\n", b"\n\n\n", b" ", b"\xef\xbb\xbf", b"\x00", data[:1]))


MUTATORS: dict[str, Mutator] = {
    "truncate": m_truncate, "flip": m_flip, "insert": m_insert, "nul": m_nul, "delete": m_delete,
    "duplicate_range": m_duplicate_range, "shuffle_lines": m_shuffle_lines, "line_ops": m_line_ops,
    "encoding": m_encoding, "numbers": m_numbers, "cards": m_cards, "names": m_names,
    "duplicate_hand": m_duplicate_hand, "splice": m_splice, "deep_nesting": m_deep_nesting,
    "huge_line": m_huge_line, "blank_out": m_blank_out,
}
#: how often each mutator is drawn (a 10 MB line costs as much as a thousand other inputs)
WEIGHTS: dict[str, float] = {name: 1.0 for name in MUTATORS} | {
    "huge_line": 0.002, "deep_nesting": 0.05, "blank_out": 0.02, "numbers": 2.0, "cards": 1.5, "flip": 2.0}


def mutate(data: bytes, rng: random.Random, seeds: Seeds, names: list[str] | None = None) -> tuple[bytes, list[str]]:
    """`data` with 1-3 mutators applied (or exactly `names`); returns the result and the mutators used."""
    if names is None:
        pool = list(MUTATORS)
        names = rng.choices(pool, weights=[WEIGHTS[n] for n in pool], k=rng.choice((1, 1, 2, 3)))
    for name in names:
        data = MUTATORS[name](data, rng, seeds)
    return data, names


def wrap(data: bytes, suffix: str, rng: random.Random) -> tuple[bytes, str, list[str]]:
    """Sometimes gzip the input (and maybe damage the gzip), or put it in a zip with a hostile member name."""
    roll = rng.random()
    if roll < 0.08:
        packed = gzip.compress(data, compresslevel=1, mtime=0)
        if rng.random() < 0.3:
            packed = m_flip(packed, rng, Seeds("")) if rng.random() < 0.5 else packed[: rng.randrange(len(packed))]
            return packed, suffix + ".gz", ["gzip-damaged"]
        return packed, suffix + ".gz", ["gzip"]
    if roll < 0.11:
        buf = io.BytesIO()
        member = rng.choice((f"hands{suffix}", f"../../evil{suffix}", f"/abs/hands{suffix}", f"..\\x{suffix}",
                             f"C:\\x{suffix}", f"a\x1b[31m{suffix}", f"dir/hands{suffix}", f"x{suffix}.gz"))
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr(member, gzip.compress(data, mtime=0) if member.endswith(".gz") else data)
            if rng.random() < 0.3:
                archive.writestr(f"second{suffix}", data)
        packed = buf.getvalue()
        if rng.random() < 0.2:
            packed = m_flip(packed, rng, Seeds(""))
            return packed, ".zip", ["zip-damaged"]
        return packed, ".zip", ["zip"]
    return data, suffix, []


# -------------------------------------------------------------------------------------- parquet inputs


@functools.lru_cache(maxsize=4096)
def parquet_tables(piece: bytes) -> tuple[pa.Table, pa.Table, pa.Table] | None:
    """The canonical tables of the valid hands in a JSONL piece (None when it holds none). Cached: the
    same seed pieces come back again and again, and Arrow tables are immutable."""
    from auditor.ingest.jsonl import parse_hand_line
    from auditor.ingest.tables import build_tables

    hands = [parse_hand_line(line, "seed.jsonl", n) for n, line in
             enumerate(piece.decode("utf-8", "replace").splitlines(), 1) if line.strip()]
    good = [h for h in hands if isinstance(h, SourceHand)]
    if not good:
        return None
    tables = build_tables(good)
    return tables.hands, tables.seats, tables.events


_HOSTILE_INTS = (-1, 0, 2**31 - 1, -(2**31), 2**62, -(2**62), 10**15 + 1, 127, -128)


def mutate_table(table: pa.Table, rng: random.Random) -> tuple[pa.Table, str]:
    """One table-level change: a column dropped, renamed, retyped, nulled, filled with hostile values,
    rows shuffled, duplicated or removed, or a column added."""
    if table.num_columns == 0:
        return table, "empty"
    i = rng.randrange(table.num_columns)
    name = table.column_names[i]
    column = table.column(i)
    op = rng.randrange(9)
    n = table.num_rows
    if op == 0:
        return table.remove_column(i), f"drop {name}"
    if op == 1:
        return table.rename_columns([c if c != name else name.upper() for c in table.column_names]), f"rename {name}"
    if op == 2:
        try:
            return table.set_column(i, name, column.cast(pa.string())), f"{name} as string"
        except pa.ArrowException:
            return table.set_column(i, name, pa.array([str(x) for x in column.to_pylist()])), f"{name} as text"
    if op == 3:
        return table.set_column(i, name, pa.nulls(n, column.type)), f"{name} all null"
    if op == 4 and pa.types.is_integer(column.type):
        values = [rng.choice(_HOSTILE_INTS) for _ in range(n)]
        return table.set_column(i, name, pa.array(values, pa.int64())), f"{name} hostile ints"
    if op == 5 and n:
        order = list(range(n))
        rng.shuffle(order)
        return table.take(order), "rows shuffled"
    if op == 6 and n:
        rows = [rng.randrange(n) for _ in range(n + rng.randrange(3))]
        return table.take(rows), "rows duplicated"
    if op == 7 and n:
        return table.slice(0, rng.randrange(n)), "rows cut"
    return table.append_column("extra", pa.array([rng.random() for _ in range(n)])), "extra column"


def write_dataset(directory: Path, tables: tuple[pa.Table, ...], rng: random.Random) -> list[str]:
    """Write a mutated dataset; returns what was done to it."""
    from auditor.ingest.parquet import TABLE_FILES

    done = []
    tables = list(tables)
    for _ in range(rng.choice((0, 1, 1, 2, 3))):
        k = rng.randrange(3)
        tables[k], what = mutate_table(tables[k], rng)
        done.append(f"{TABLE_FILES[k]}: {what}")
    directory.mkdir(parents=True, exist_ok=True)
    for name, table in zip(TABLE_FILES, tables, strict=True):
        pq.write_table(table, directory / f"{name}.parquet", compression=rng.choice(("zstd", "snappy", "none")))
    if rng.random() < 0.15:  # damage the bytes of one file
        path = directory / f"{rng.choice(TABLE_FILES)}.parquet"
        data = path.read_bytes()
        path.write_bytes(m_flip(data, rng, Seeds("")) if rng.random() < 0.6 else data[: rng.randrange(len(data))])
        done.append(f"{path.name}: bytes damaged")
    if rng.random() < 0.03:
        (directory / f"{rng.choice(TABLE_FILES)}.parquet").write_bytes(b"")
        done.append("a table file emptied")
    return done


# ------------------------------------------------------------------------------- grammar-built inputs
#
# `--grammar`: inputs built from what the formats allow, not from seeds' bytes. Canonical hands are
# drawn from the hand-log schema (every event kind, any order, extreme amounts and hostile names), so
# each one passes the schema and the reader must record it (never refuse it: readers record, rules
# judge); Parquet datasets of those hands are written with hostile encodings (dictionary, run-length,
# delta, tiny and huge pages, one long value shared by every row); archives are shaped around each
# input limit (members, ratio, grace, total, folder entries, gzip inside zip, zip inside zip); and file
# names are hostile (control characters, bidirectional overrides, bytes that are not UTF-8).

GRAMMAR_READERS = ("g-jsonl", "g-export", "g-parquet", "g-archive", "g-names", "g-pokernow")
_VARIANTS = ("holdem", "omaha", "omaha-nz", "three-card-nz", "five-card-draw")
_STRUCTURES = ("fixed-limit", "spread-limit", "pot-limit", "no-limit")
_KINDS = ("seat_draw", "seat_request", "seat_fill", "button", "post", "deal", "draw", "action", "show", "muck",
          "return", "rake", "award", "kill")
_MONEY_EDGES = (0, 1, 2, 5, 10, 99, 100, 10**6, 2**31 - 1, 2**31, 2**49 + 1, 10**15 - 1, 10**15)  # 10**15: the schema's most
_NAMES = ("Ann", "Bob", "=HYPERLINK(\"http://x\")", "\u202eevil", "a\x1b[31mred", "x" * 128, "\u00e9l\u00e8ve",
          "<script>alert(1)</script>", "   lead", "tab\there", "\u2028line", "\U0001f0a1", "-flag", "..", "NUL\x00x")
_CARDS = [r + s for r in "23456789TJQKA" for s in "cdhs"] + ["??"]
#: limits small enough that archives shaped around them stay cheap to build and read
GRAMMAR_LIMITS = Limits(max_unpacked_bytes=4 << 20, ratio_grace_bytes=64 << 10, max_archive_members=20,
                        max_file_bytes=2 << 20, jsonl_max_line_bytes=256 << 10)


def _money(rng: random.Random) -> int:
    return rng.choice(_MONEY_EDGES) if rng.random() < 0.3 else rng.choice((rng.randrange(0, 200),
                                                                             rng.randrange(0, 10**6)))


def _cards(rng: random.Random, most: int = 5) -> list[str]:
    return [rng.choice(_CARDS) for _ in range(rng.randrange(0, most + 1))]


def grammar_event(rng: random.Random, seats: list[int], players: list[str]) -> dict:
    """One schema-valid event of a random kind, its fields drawn from what the schema allows."""
    kind = rng.choice(_KINDS)
    seat = rng.choice(seats) if rng.random() < 0.9 else rng.randrange(1, 11)
    ev: dict = {"kind": kind}
    if kind == "seat_draw":
        ev.update(seat=seat, awarded_to=rng.choice(players),
                  draws=[{"player": rng.choice(players), "card": rng.choice(_CARDS)} for _ in range(rng.randrange(2, 5))])
    elif kind == "seat_request":
        ev.update(player=rng.choice(players))
        if rng.random() < 0.5:
            ev["seat"] = seat
        if rng.random() < 0.3:
            ev["from_seat"] = rng.randrange(1, 11)
    elif kind == "seat_fill":
        ev.update(player=rng.choice(players), seat=seat)
    elif kind in ("button", "muck", "kill"):
        ev["seat"] = seat
    elif kind == "post":
        post = rng.choice(("blind", "blind", "ante", "straddle", "dead", "missed"))
        ev.update(seat=seat, post=post, amount=_money(rng))
        if post == "blind" or rng.random() < 0.1:
            ev["blind"] = rng.randrange(1, 4)
        if rng.random() < 0.2:
            ev["all_in"] = rng.random() < 0.5
    elif kind == "deal":
        to = rng.choice(("hole", "hole", "board", "burn"))
        ev.update(to=to, cards=_cards(rng))
        if to == "hole" or rng.random() < 0.1:
            ev["seat"] = seat
    elif kind == "draw":
        ev.update(seat=seat, discard=_cards(rng), receive=_cards(rng))
    elif kind == "action":
        action = rng.choice(("fold", "check", "call", "bet", "raise"))
        ev.update(seat=seat, action=action)
        if action in ("call", "bet", "raise") or rng.random() < 0.1:
            ev.update(amount=_money(rng), to=_money(rng))
        if rng.random() < 0.2:
            ev["all_in"] = rng.random() < 0.5
    elif kind == "show":
        ev.update(seat=seat, cards=_cards(rng, 7))
    elif kind == "return":
        ev.update(seat=seat, amount=_money(rng))
    elif kind == "rake":
        ev["amount"] = _money(rng)
        if rng.random() < 0.5:
            ev["pot"] = rng.randrange(0, 11)
    elif kind == "award":
        ev.update(pot=rng.randrange(0, 11) if rng.random() < 0.2 else 0, seat=seat, amount=_money(rng))
    if rng.random() < 0.05:
        ev["t"] = rng.choice(("2024-01-01T00:00:00Z", "", "not a time", "9" * 64))
    return ev


def _skeleton(rng: random.Random, seats: list[int], structure: str, blinds: list[int]) -> list[dict]:
    """A plausible opening (button, blinds, hole cards, a round of actions), so the replay gets deep."""
    order = seats[:]
    events: list[dict] = [{"kind": "button", "seat": order[-1]}]
    for n, (seat, amount) in enumerate(zip(order, blinds, strict=False), 1):
        events.append({"kind": "post", "seat": seat, "post": "blind", "blind": n, "amount": amount})
    deck = _CARDS[:-1]
    rng.shuffle(deck)
    for seat in order:
        events.append({"kind": "deal", "to": "hole", "seat": seat, "cards": [deck.pop(), deck.pop()]})
    to = max(blinds or [0])
    for seat in order[len(blinds):] + order[:len(blinds)]:
        choice = rng.random()
        if choice < 0.4:
            events.append({"kind": "action", "seat": seat, "action": "fold"})
        elif choice < 0.8 or structure == "fixed-limit":
            events.append({"kind": "action", "seat": seat, "action": "call", "amount": to, "to": to})
        else:
            to = to * 2 + rng.choice((0, 1, 10**12))
            events.append({"kind": "action", "seat": seat, "action": "raise", "amount": to, "to": to})
    events.append({"kind": "deal", "to": "board", "cards": [deck.pop() for _ in range(rng.choice((3, 3, 0, 2, 4)))]})
    return events


def grammar_hand(rng: random.Random, number: int, table: str = "T1") -> dict:
    """A canonical hand that passes the hand-log schema, with random (mostly illegal) contents."""
    n = rng.randrange(1, 11)
    seat_numbers = rng.sample(range(1, 11), n) if rng.random() < 0.9 else [rng.randrange(1, 11) for _ in range(n)]
    players = [rng.choice(_NAMES) if rng.random() < 0.3 else f"P{i}" for i in range(n)]
    structure = rng.choice(_STRUCTURES)
    blinds = sorted(_money(rng) for _ in range(rng.randrange(0, 4)))
    stakes: dict = {"blinds": blinds, "chip_unit": rng.choice((1, 1, 5, 25, 10**6))}
    if structure == "fixed-limit" or rng.random() < 0.1:
        stakes["bet_units"] = [_money(rng) for _ in range(rng.randrange(0, 9))]
    if structure == "spread-limit" or rng.random() < 0.05:
        stakes["spread"] = [{"min": _money(rng), "max": _money(rng)} for _ in range(rng.randrange(0, 5))]
    if rng.random() < 0.3:
        stakes["ante"] = _money(rng)
    hand: dict = {
        "hand_id": f"G{number}" if rng.random() < 0.95 else rng.choice(_NAMES)[:128],
        "table_id": table, "variant": rng.choice(_VARIANTS), "structure": structure, "stakes": stakes,
        "max_seats": max(2, *seat_numbers) if rng.random() < 0.9 else rng.randrange(2, 11), "rule_pack": rng.choice(("tda-2024", "tda-2024", "no-such-pack")),
        "seats": [{"seat": s, "player": p, "stack": _money(rng)} for s, p in zip(seat_numbers, players, strict=True)],
    }
    for seat in hand["seats"]:
        if rng.random() < 0.1:
            seat["status"] = rng.choice(("active", "sitting_out", "new", "away"))
    if rng.random() < 0.2:
        hand["money_scale"] = rng.choice((1, 2, 100, 10**6))
    if rng.random() < 0.3:
        hand["room"] = rng.choice(_NAMES)
    if rng.random() < 0.3:
        hand["started_at"] = rng.choice(("2024-02-29T23:59:59Z", "2024-01-01T00:00:00+14:00", "1970-01-01T00:00:00Z"))
    events = _skeleton(rng, seat_numbers, structure, blinds) if rng.random() < 0.7 else []
    for _ in range(rng.choice((0, 1, 3, 8, 20, 60))):
        events.insert(rng.randrange(len(events) + 1), grammar_event(rng, seat_numbers, players))
    if rng.random() < 0.2 and events:
        rng.shuffle(events)
    hand["events"] = events[:2000]
    return hand


def grammar_hands(rng: random.Random) -> list[dict]:
    tables = [f"T{i}" for i in range(rng.randrange(1, 4))]
    hands = [grammar_hand(rng, i, rng.choice(tables)) for i in range(rng.randrange(1, 12))]
    if rng.random() < 0.1 and hands:
        hands.append(dict(hands[0]))  # the same hand twice
    return [h for h in hands if schema_error(h) is None]


def _jsonl(hands: list[dict]) -> bytes:
    import json

    return "".join(json.dumps(h, ensure_ascii=False) + "\n" for h in hands).encode("utf-8", "surrogatepass")


def grammar_jsonl(work: Path, rng: random.Random) -> tuple[Path, str, list[str], int | None]:
    """(path, format, what was done, how many items the reader must yield) for a JSONL file of drawn hands."""
    hands = grammar_hands(rng)
    path = work / "input.jsonl"
    data = _jsonl(hands)
    how = [f"{len(hands)} drawn hands"]
    if rng.random() < 0.2:
        path = work / "input.jsonl.gz"
        data = gzip.compress(data)
        how.append("gzip")
    path.write_bytes(data)
    return path, "jsonl", how, len(hands)


def grammar_export(work: Path, rng: random.Random, fmt: str | None = None) -> tuple[Path, str, list[str], int | None]:
    """Drawn hands written by one of the writers (each room's dialect, OHH, PHH, PokerNow) and read back by its
    reader."""
    from auditor.export import SUFFIXES, writer

    fmt = fmt or rng.choice((*ROOMS, *XML_ROOMS, "ohh", "phh", "pokernow"))
    module = writer(fmt)
    from auditor.ingest.jsonl import consistency_error

    # a writer is given hands a reader made, which are consistent (every seat named is seated); the
    # writers' own refusals (cannot_express) are tested on those
    hands = [h for h in grammar_hands(rng) if consistency_error(h) is None and module.cannot_express(h) is None]
    if not hands:  # nothing this writer can express: the drawn hands are read as canonical JSON instead
        return grammar_jsonl(work, rng)
    path = work / f"input{SUFFIXES[fmt]}"
    module.write_hands(hands, path)
    return path, fmt, [f"{len(hands)} drawn hands via the {fmt} writer"], None


_INT_ENCODINGS = ("PLAIN", "DELTA_BINARY_PACKED", "BYTE_STREAM_SPLIT")
_STR_ENCODINGS = ("PLAIN", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY")


def grammar_parquet(work: Path, rng: random.Random) -> tuple[Path, str, list[str], int | None]:
    """A dataset of drawn hands with hostile encodings; sometimes one long value shared by every row."""
    from auditor.ingest.jsonl import parse_hand_line
    from auditor.ingest.parquet import TABLE_FILES
    from auditor.ingest.tables import build_tables

    hands = grammar_hands(rng) or [grammar_hand(rng, 0)]
    items = [parse_hand_line(line, "g.jsonl", n) for n, line in enumerate(_jsonl(hands).decode().splitlines(), 1)]
    good = [i for i in items if isinstance(i, SourceHand)]
    path = work / "input"
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir()
    how: list[str] = [] if good else ["no hand: empty tables"]
    tables = build_tables(good)
    for name in TABLE_FILES:
        table = getattr(tables, name)
        bomb = rng.random() < 0.15 and table.num_rows > 0
        if bomb:  # one long value shared by many rows, dictionary-encoded
            column = rng.choice([f.name for f in table.schema if pa.types.is_string(f.type)])
            rows = rng.choice((table.num_rows, 500, 5000))
            table = table.take([i % table.num_rows for i in range(rows)])
            value = "V" * rng.choice((1, 1 << 10, 64 << 10, 1 << 20))
            index = table.schema.get_field_index(column)
            table = table.set_column(index, column, pa.DictionaryArray.from_arrays(
                pa.array([0] * rows, pa.int32()), pa.array([value])))
            how.append(f"{name}.{column}: {len(value)}-byte value in {rows} rows")
        options: dict = {"compression": rng.choice(("zstd", "snappy", "none", "gzip")),
                         "store_schema": rng.random() < 0.5, "write_statistics": rng.random() < 0.5}
        if rng.random() < 0.3 and not bomb:  # (tiny pages of a bomb take the writer minutes)
            options["data_page_size"] = rng.choice((1, 64, 1 << 30))
        if rng.random() < 0.3 and not bomb:
            options["row_group_size"] = rng.choice((1, 2, 7, 1 << 20))
        if bomb:
            options["dictionary_pagesize_limit"] = 8 << 20
        elif rng.random() < 0.3:
            options["dictionary_pagesize_limit"] = rng.choice((1, 1 << 10, 8 << 20))
        if rng.random() < 0.4 and not bomb:  # (a bomb written plain would cost its gigabytes here)
            options["use_dictionary"] = False
            encodings = {}
            for f in table.schema:
                if pa.types.is_integer(f.type) and rng.random() < 0.5:
                    encodings[f.name] = rng.choice(_INT_ENCODINGS)
                elif pa.types.is_string(f.type) and rng.random() < 0.5:
                    encodings[f.name] = rng.choice(_STR_ENCODINGS)
            if encodings:
                options["column_encoding"] = encodings
        try:
            pq.write_table(table, path / f"{name}.parquet", **options)
        except (pa.ArrowException, ValueError, TypeError):  # an option this table cannot take
            options = {"compression": options["compression"]}
            pq.write_table(table, path / f"{name}.parquet", **options)
        how.append(f"{name}: {sorted(options)}")
    return path, "parquet", how, None


def grammar_archive(work: Path, rng: random.Random) -> tuple[Path, str, list[str], int | None]:
    """A zip shaped around one of GRAMMAR_LIMITS: members, grace, ratio or total one step either side."""
    limits = GRAMMAR_LIMITS
    hands = _jsonl(grammar_hands(rng) or [grammar_hand(rng, 0)])
    path = work / "input.zip"
    step = rng.choice((-1, 0, 1))
    shape = rng.choice(("members", "grace", "ratio", "total", "folder", "nested", "names"))
    members: list[tuple[str, bytes]] = []
    if shape == "members":
        members = [(f"m{i}.jsonl", hands) for i in range(limits.max_archive_members + step)]
    elif shape == "grace":
        members = [(f"b{i}.jsonl", b"\n" * (limits.ratio_grace_bytes + step)) for i in range(rng.randrange(1, 30))]
        members.append(("hands.jsonl", hands))
    elif shape == "ratio":
        members = [("r.jsonl", hands + b" " * (limits.ratio_grace_bytes * rng.randrange(1, 8) + step))]
    elif shape == "total":
        filler = limits.max_unpacked_bytes // 4  # lines of blanks: ratio-friendly, few lines
        line = b" " * 1023 + b"\n"
        members = [(f"t{i}.jsonl", hands + line * ((filler - len(hands)) // 1024)) for i in range(4)]
        short = limits.max_unpacked_bytes - sum(len(m[1]) for m in members) + step
        members.append(("last.jsonl", b" " * max(short, 0)))
    elif shape == "folder":
        members = [("x.jsonl/", hands), ("y/", b""), ("y/z.jsonl", hands)]
    elif shape == "nested":
        inner = io.BytesIO()
        with zipfile.ZipFile(inner, "w") as z:
            z.writestr("inner.jsonl", hands)
        members = [("a.jsonl.gz", gzip.compress(hands)), ("b.zip", inner.getvalue()),
                   ("c.jsonl.gz", gzip.compress(b" " * (limits.ratio_grace_bytes * 4 + step)))]
    else:
        members = [(name, hands) for name in ("../up.jsonl", "C:\\x.jsonl", "/abs.jsonl", "a\x1b[2Jb.jsonl",
                                              "\u202egnp.jsonl", "ok.jsonl", "dup.jsonl", "dup.jsonl")]
    method = rng.choice((zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED))
    with zipfile.ZipFile(path, "w", method) as z, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Duplicate name": the point of the names shape
        for name, data in members:
            z.writestr(zipfile.ZipInfo(name) if name.endswith("/") or rng.random() < 0.5 else name, data)
    return path, "auto", [f"zip {shape} {step:+d}", f"{len(members)} members"], None


def grammar_names(work: Path, rng: random.Random) -> tuple[Path, str, list[str], int | None]:
    """A folder of inputs under hostile names (read one by one, and audited as a folder)."""
    folder = work / "named"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    hands = _jsonl(grammar_hands(rng) or [grammar_hand(rng, 0)])
    names = [b"a\nb.jsonl", b"\x1b[31mred.jsonl", "\u202elnosj.jsonl".encode(), b"bad\xff.jsonl", b"-rf.jsonl",
             b"=1+1.jsonl", b" lead.jsonl", b"x" * 200 + b".jsonl", b"quote\".jsonl", b"sub\xfe.txt"]
    for raw in rng.sample(names, rng.randrange(1, 4)):
        (folder / os.fsdecode(raw)).write_bytes(hands)
    return folder, "auto", ["hostile names"], None


GRAMMARS: dict[str, Callable[[Path, random.Random], tuple[Path, str, list[str], int | None]]] = {
    "g-jsonl": grammar_jsonl, "g-export": grammar_export, "g-parquet": grammar_parquet,
    "g-archive": grammar_archive, "g-names": grammar_names,
    # PokerNow's writer alone (its log: one table's rows, newest first), read back by its reader
    "g-pokernow": lambda work, rng: grammar_export(work, rng, "pokernow"),
    # each XML room's writer alone (`--readers g-<room>`), read back by its dialect
    **{f"g-{room}": functools.partial(grammar_export, fmt=room) for room in XML_ROOMS},
}


def run_grammar(path: Path, fmt: str, expected: int | None, limits: Limits) -> list:
    """Read a grammar-built input (a folder: each file in it) and check the contract; schema-valid
    canonical hands are each one item, never lost nor doubled."""
    paths = sorted(path.iterdir()) if path.is_dir() and fmt == "auto" else [path]
    items: list = []
    for one in paths:
        got = list(read_file(one, fmt, None, limits))
        check_items(got, str(one))
        items += got
    if expected is not None:
        counted = [i for i in items if not isinstance(i, ReaderNote)]
        if len(counted) != expected:
            raise PropertyBroken(f"{path}: {expected} schema-valid hands written, the reader yielded {len(counted)}")
    return items


# ---------------------------------------------------------------------------------------- the property


class PropertyBroken(AssertionError):
    """A reader or audit() broke the contract (an item that is neither a hand nor a quarantine...)."""


class Hang(Exception):
    """An input still running after --timeout seconds."""


#: a quarantine reason that reports a reader's own exception: contained, but a bug all the same
INTERNAL_ERROR = re.compile(r"^(?:reader error(?:, the rest of the file is not read)?|reader could not convert|"
                            r"the reader failed on this hand): "
                            r"[A-Z][A-Za-z]*(?:Error|Exception|Iteration)\b")


class ContainedError(PropertyBroken):
    """A reader failed on an input and the failure was quarantined: the run went on, but it is a bug."""


def check_items(items: list, label: str) -> None:
    """Every item a reader yields is a valid hand or a quarantine with a one-line reason naming file and line,
    and no quarantine reports an exception of the reader's own."""
    from auditor.ingest.parquet import TableChunk

    expanded = []
    for item in items:  # a text room's hands come as chunks: each hand and quarantine entry of them is checked
        expanded += [*item.quarantined, *item.sources()] if isinstance(item, TableChunk) else [item]
    for item in expanded:
        if isinstance(item, Quarantined):
            if not isinstance(item.reason, str) or not item.reason.strip():
                raise PropertyBroken(f"{label}: quarantine without a reason: {item!r}")
            if INTERNAL_ERROR.match(item.reason):
                raise ContainedError(f"{label}: {item.one_line()}"[:2000])
            if not isinstance(item.file, str) or not item.file or not isinstance(item.line, int) or item.line < 0:
                raise PropertyBroken(f"{label}: quarantine without file and line: {item!r}")
            text = item.one_line()
            if any(c in text for c in "\n\r\x1b\x00\u2028\u2029\u202e"):
                raise PropertyBroken(f"{label}: quarantine line is not one printable line: {text!r}")
        elif isinstance(item, SourceHand):
            if not isinstance(item.hand, dict) or not isinstance(item.line, int) or not isinstance(item.file, str):
                raise PropertyBroken(f"{label}: malformed hand item: {item!r}"[:500])
            problem = schema_error(item.hand)
            if problem:
                raise PropertyBroken(f"{label}: reader yielded a hand that fails the schema: {problem}")
            if _outsized(item.hand):  # jsonschema-rs passes integers of more than 4,300 digits
                raise PropertyBroken(f"{label}: reader yielded a hand with an integer beyond 64 bits")
        elif isinstance(item, ReaderNote):  # a note on the file's conventions: one printable line
            if any(c in item.one_line() for c in "\n\r\x1b\x00\u2028\u2029\u202e"):
                raise PropertyBroken(f"{label}: reader note is not one printable line: {item!r}"[:500])
        else:
            raise PropertyBroken(f"{label}: reader yielded {type(item).__name__}")


def _counted(items) -> int:
    """Hands and quarantine entries among a reader's items (a chunk's each counted)."""
    from auditor.ingest.parquet import TableChunk

    return sum(x.num_hands + len(x.quarantined) if isinstance(x, TableChunk) else isinstance(x, SourceHand | Quarantined)
               for x in items)


def _tally(items) -> tuple[int, int]:
    """(hands read, quarantine entries) among a reader's items, a chunk's hands and entries each counted."""
    from auditor.ingest.parquet import TableChunk

    chunks = [x for x in items if isinstance(x, TableChunk)]
    return (sum(isinstance(x, SourceHand) for x in items) + sum(x.num_hands for x in chunks),
            sum(isinstance(x, Quarantined) for x in items) + sum(len(x.quarantined) for x in chunks))


def _outsized(value: object) -> bool:
    """True if any integer in a parsed hand is beyond 64 bits (the canonical tables are int64)."""
    stack = [value]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
        elif isinstance(x, int) and not -(1 << 63) <= x < (1 << 63):
            return True
    return False


def run_reader(path: Path, fmt: str, limits: Limits) -> list:
    items = list(read_file(path, fmt, None, limits))
    check_items(items, str(path))
    if fmt == "phh" and path.suffix in (".phh", ".phhs"):
        check_phh_toml(path.read_bytes().decode("utf-8-sig", "replace"), str(path))
        scanned = [repr(x) for x in read_phh(path, limits=limits)]  # a .phh goes through the byte scanner
        if scanned != [repr(x) for x in _read_phh_reference(path, limits=limits)]:
            raise PropertyBroken(f"{path}: read_phh (byte scanner) and _read_phh_reference give different items")
    check_column_wise(path, fmt, limits, items)
    return items


def _column_wise(path: Path, fmt: str, limits: Limits) -> list | None:
    """The items the column-wise reader an audit takes for a large input of `fmt` gives for `path`, its size
    threshold waived; None when no such reader takes this kind of file (archives, gzip, other suffixes)."""
    if fmt == "ohh" and path.suffix in (".ohh", ".json") and path.read_bytes()[:2] != b"\x1f\x8b":
        from auditor.ingest.ohh_tables import read_ohh_tables

        return list(read_ohh_tables(path, limits))
    if fmt == "phh" and path.suffix == ".phh":
        from auditor.ingest.phh import read_plain_phh_batch

        got = read_plain_phh_batch([path], [path.as_posix()], rule_pack="tda-2024", limits=limits, tables=True)
        return list(got[0]) if got and got[0] is not None else list(read_file(path, fmt, None, limits))
    return None


def check_column_wise(path: Path, fmt: str, limits: Limits, items: list) -> None:
    """The column-wise reader gives what the reference gave: the same hands as canonical tables, the same
    quarantine entries (code, line, reason) and notes, and its kernels (bounds-checked here) never fail."""
    from auditor.ingest.parquet import TableChunk
    from auditor.simulate.readback import difference, from_items

    fast = _column_wise(path, fmt, limits)
    if fast is None:
        return
    check_items([x for x in fast if not isinstance(x, TableChunk)], str(path))
    count = sum(isinstance(x, SourceHand | Quarantined) for x in items)
    label = path.as_posix()
    a, b = from_items(fast, [label], count), from_items(items, [label], count)
    differs = difference(a, b)
    notes = [[repr(x) for x in got if isinstance(x, ReaderNote)] for got in (fast, items)]
    if differs is None and notes[0] != notes[1]:
        differs = "reader notes"
    if differs is not None:
        raise PropertyBroken(f"{path}: the {fmt} column-wise reader and the reference differ: {differs}")


def toml_outcome(loads: Callable[[str], dict], text: str) -> tuple[str, object]:
    """What `loads` made of `text`: ("value", the dict) or (the exception's type name, its message)."""
    try:
        return "value", loads(text)
    except Exception as exc:  # the error is part of what the PHH fast path must reproduce
        return type(exc).__name__, str(exc)


def same_value(a: object, b: object) -> bool:
    """Equal with equal types all the way down (1, 1.0 and True are all == to each other)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)  # type: ignore[attr-defined,index]
    if isinstance(a, list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))  # type: ignore[arg-type]
    return a == b or (a != a and b != b)  # nan


def check_phh_toml(text: str, label: str) -> None:
    """The PHH reader's TOML fast path reads `text` exactly as tomllib does: same value, or same error."""
    fast, slow = toml_outcome(phh_toml.loads, text), toml_outcome(tomllib.loads, text)
    if fast[0] != slow[0] or not same_value(fast[1], slow[1]):
        raise PropertyBroken(f"{label}: phh_toml.loads gives {str(fast)[:300]}, tomllib {str(slow)[:300]}")
    scanned = toml_outcome(phh_scan.loads, text)  # the byte scanner: the same subset, the same property
    if scanned[0] != slow[0] or not same_value(scanned[1], slow[1]):
        raise PropertyBroken(f"{label}: phh_scan.loads gives {str(scanned)[:300]}, tomllib {str(slow)[:300]}")


def check_audit(directory: Path, fmt: str, limits: Limits) -> str:
    """audit() over a folder of fuzzed inputs: no exception, and every count reconciles, with what the
    readers yield for each input read on its own, too."""
    from auditor.model.inputs import UsageError
    from auditor.pipeline import audit

    # hands and quarantine entries only: a ReaderNote (a room's convention applied) is neither
    expected_read = sum(_counted(read_file(p, fmt, None, limits)) for p in sorted(directory.iterdir()))
    try:
        result = audit([directory], pack="tda-2024", input_format=fmt, limits=limits)
    except UsageError as exc:  # every readable hand is a game tda-2024 has no rule for: the run stops, by design
        if "has no rule for any hand read" in str(exc):
            return "no hand covered by tda-2024"
        raise
    if result.hands_read != result.hands_audited + result.hands_not_covered + result.hands_quarantined:
        raise PropertyBroken(f"audit: hands read {result.hands_read} != audited {result.hands_audited} + not "
                             f"covered {result.hands_not_covered} + quarantined {result.hands_quarantined}")
    if result.hands_read != expected_read:
        raise PropertyBroken(f"audit read {result.hands_read} hands, the readers yielded {expected_read}")
    per_file = result.per_file()
    if int(per_file["hands_read"].sum()) != result.hands_read:
        raise PropertyBroken("audit: per-file hands read do not add up to the total")
    bad = per_file[(per_file["hands_audited"] < 0) |
                   (per_file["hands_read"] != per_file["hands_audited"] + per_file["hands_not_covered"]
                    + per_file["hands_quarantined"])]
    if len(bad):
        raise PropertyBroken(f"audit: per-file counts do not reconcile: {bad.to_dict('records')[:3]}")
    for q in result.quarantined:
        if "\n" in q.one_line() or not q.reason.strip():
            raise PropertyBroken(f"audit: quarantine line not one line with a reason: {q.one_line()!r}")
    return f"{result.hands_read} = {result.hands_audited} + {result.hands_quarantined}"


# ------------------------------------------------------------------------------------------ the runner


@dataclass
class Stats:
    reader: str
    inputs: int = 0
    seconds: float = 0.0
    crashes: int = 0
    unique: Counter = field(default_factory=Counter)
    slow: int = 0
    hands: int = 0
    quarantined: int = 0
    audits: int = 0
    audit_hands: int = 0
    mutators: Counter = field(default_factory=Counter)

    def line(self) -> str:
        rate = self.inputs / self.seconds if self.seconds else 0.0
        return (f"{self.reader:<10} {self.inputs:>9} inputs {self.seconds:>8.1f} s {rate:>8.0f}/s  crashes "
                f"{self.crashes} ({len(self.unique)} distinct)  slow {self.slow}  items {self.hands} hands + "
                f"{self.quarantined} quarantined  audits {self.audits} ({self.audit_hands} hands)")


def _signature(exc: BaseException) -> str:
    if isinstance(exc, ContainedError):  # the reader's exception is in the reason, not the traceback
        reason = str(exc).split(": ", 2)[-1]
        return "contained " + re.sub(r"\d+", "N", reason)[:100]
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/auditor/" in f.filename]
    where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else "?"
    message = re.sub(r"\d+", "N", str(exc))[:60]
    return f"{type(exc).__name__} at {where}: {message}"


def _on_alarm(_signum, _frame):
    raise Hang("input still running after the timeout")


class Fuzzer:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.out = Path(args.out)
        self.limits = DEFAULT_LIMITS
        self.work = Path(tempfile.mkdtemp(prefix="auditor-fuzz-", dir="/dev/shm" if Path("/dev/shm").is_dir()
                                          else None))
        self.saved: Counter = Counter()

    def save(self, stats: Stats, kind: str, signature: str, path: Path, detail: str, how: str) -> None:
        key = (stats.reader, kind, signature)
        self.saved[key] += 1
        if self.saved[key] > self.args.keep:
            return
        digest = hashlib.sha1(signature.encode()).hexdigest()[:10]
        folder = self.out / stats.reader / kind
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / f"{digest}-{self.saved[key]}{''.join(path.suffixes[-2:]) if path.is_file() else ''}"
        if path.is_dir():
            shutil.copytree(path, target, dirs_exist_ok=True)
        else:
            shutil.copyfile(path, target)
        target.with_name(target.name + ".txt").write_text(
            f"{signature}\nmutations: {how}\nreplay: python scripts/fuzz.py --replay {target} --reader "
            f"{stats.reader}\n\n{detail}\n", encoding="utf-8")
        print(f"  {kind}: {signature} -> {target}", flush=True)

    def one_grammar(self, stats: Stats, index: int, recent: deque) -> None:
        """One grammar-built input (`--grammar`): built, read under GRAMMAR_LIMITS, its items checked; kept
        for the next audit() batch (a folder of hostile names is audited on its own, now and then)."""
        rng = random.Random(f"{self.args.seed}:{stats.reader}:{index}")
        for old in self.work.glob("input*"):
            shutil.rmtree(old) if old.is_dir() else old.unlink()
        started = time.perf_counter()
        signal.setitimer(signal.ITIMER_REAL, self.args.timeout)
        path = self.work / "input"
        how: list[str] = []
        try:
            path, fmt, how, expected = GRAMMARS[stats.reader](self.work, rng)
            stats.mutators.update(how[:1])
            items = run_grammar(path, fmt, expected, GRAMMAR_LIMITS)
            if stats.reader == "g-names" and rng.random() < 0.05:
                check_audit(path, "auto", GRAMMAR_LIMITS)
                stats.audits += 1
        except BaseException as exc:
            signal.setitimer(signal.ITIMER_REAL, 0)
            if isinstance(exc, KeyboardInterrupt):
                raise
            stats.crashes += 1
            signature = _signature(exc)
            stats.unique[signature] += 1
            # a failure while the input was being built (a writer's) leaves the work folder to look at
            self.save(stats, "crash", signature, path if path.exists() else self.work,
                      "".join(traceback.format_exception(exc)), str(how) or f"input {index} (--seed, --start)")
            return
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        elapsed = time.perf_counter() - started
        if elapsed > self.args.slow:
            stats.slow += 1
            self.save(stats, "slow", f"slow {elapsed:.1f} s ({', '.join(how)})", path, f"{elapsed:.2f} s", str(how))
        hands, quarantined = _tally(items)
        stats.hands += hands
        stats.quarantined += quarantined
        if self.args.audit_every and stats.reader != "g-names" and path.exists():
            keep = self.work / "recent" / f"{index:09d}{''.join(path.suffixes[-2:]) if path.is_file() else ''}"
            keep.parent.mkdir(exist_ok=True)
            shutil.copytree(path, keep) if path.is_dir() else shutil.copyfile(path, keep)
            recent.append(keep)
            while len(recent) > self.args.audit_batch:
                old = recent.popleft()
                shutil.rmtree(old) if old.is_dir() else old.unlink()

    def one(self, stats: Stats, index: int, seeds: Seeds, recent: deque) -> None:
        if stats.reader in GRAMMARS:
            self.one_grammar(stats, index, recent)
            return
        rng = random.Random(f"{self.args.seed}:{stats.reader}:{index}")
        fmt = stats.reader
        if fmt == "parquet":
            path = self.work / "input"
            shutil.rmtree(path, ignore_errors=True)
            tables = None
            while tables is None:
                tables = parquet_tables(seeds.pick(rng)[1])
            how = write_dataset(path, tables, rng)
        else:
            suffix, data = seeds.pick(rng)
            data, names = mutate(data, rng, seeds)
            data, suffix, wrapped = wrap(data, suffix, rng)
            how = names + wrapped
            path = self.work / f"input{suffix}"
            for old in self.work.glob("input*"):
                if old.is_file():
                    old.unlink()
            path.write_bytes(data)
        stats.mutators.update(how)
        # "auto" now and then, so detection is fuzzed too (PHH decides .phh/.phhs by name, so keep it forced)
        mode = "auto" if fmt != "parquet" and rng.random() < 0.1 else fmt
        started = time.perf_counter()
        signal.setitimer(signal.ITIMER_REAL, self.args.timeout)
        try:
            items = run_reader(path, mode, self.limits)
        except BaseException as exc:
            signal.setitimer(signal.ITIMER_REAL, 0)
            if isinstance(exc, KeyboardInterrupt):
                raise
            stats.crashes += 1
            signature = _signature(exc)
            stats.unique[signature] += 1
            self.save(stats, "crash", signature, path, "".join(traceback.format_exception(exc)), f"{how} ({mode})")
            return
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        elapsed = time.perf_counter() - started
        if elapsed > self.args.slow:
            stats.slow += 1
            self.save(stats, "slow", f"slow {elapsed:.1f} s ({', '.join(how)})", path, f"{elapsed:.2f} s", str(how))
        hands, quarantined = _tally(items)
        stats.hands += hands
        stats.quarantined += quarantined
        if self.args.audit_every and path.exists():
            keep = self.work / "recent" / f"{index:09d}{''.join(path.suffixes[-2:]) if path.is_file() else ''}"
            keep.parent.mkdir(exist_ok=True)
            if path.is_dir():
                shutil.copytree(path, keep)
            else:
                shutil.copyfile(path, keep)
            recent.append(keep)
            while len(recent) > self.args.audit_batch:
                old = recent.popleft()
                shutil.rmtree(old) if old.is_dir() else old.unlink()

    def audit_recent(self, stats: Stats, recent: deque) -> None:
        folder = self.work / "recent"
        if not recent or not folder.is_dir():
            return
        grammar = stats.reader in GRAMMARS
        try:
            summary = check_audit(folder, "auto" if grammar else stats.reader, GRAMMAR_LIMITS if grammar else self.limits)
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            stats.crashes += 1
            signature = "audit: " + _signature(exc)
            stats.unique[signature] += 1
            self.save(stats, "crash", signature, folder, "".join(traceback.format_exception(exc)), "audit batch")
            return
        stats.audits += 1
        stats.audit_hands += int(summary.split(" = ")[0])

    def run(self, reader: str, count: int) -> Stats:
        stats = Stats(reader)
        seeds = Seeds(reader) if reader in GRAMMARS else load_seeds(reader, Path(self.args.corpus))
        recent: deque = deque()
        shutil.rmtree(self.work / "recent", ignore_errors=True)
        started = time.perf_counter()
        last_report = started
        deadline = started + self.args.seconds if self.args.seconds else None
        index = self.args.start
        while stats.inputs < count and (deadline is None or time.perf_counter() < deadline):
            self.one(stats, index, seeds, recent)
            stats.inputs += 1
            index += 1
            if self.args.audit_every and stats.inputs % self.args.audit_every == 0:
                self.audit_recent(stats, recent)
            now = time.perf_counter()
            if now - last_report > self.args.report_every:
                stats.seconds = now - started
                print("  " + stats.line(), flush=True)
                last_report = now
        stats.seconds = time.perf_counter() - started
        return stats

    def close(self) -> None:
        shutil.rmtree(self.work, ignore_errors=True)


def replay(path: Path, reader: str) -> int:
    """Run one saved reproducer through its reader (and audit()) and say what happens."""
    try:
        items = run_reader(path, reader, DEFAULT_LIMITS)
    except BaseException:
        traceback.print_exc()
        return 1
    for item in items:
        print(item.one_line() if isinstance(item, Quarantined) else f"hand {item.hand['hand_id']} at line {item.line}")
    folder = Path(tempfile.mkdtemp(prefix="auditor-replay-"))
    try:
        if path.is_dir():  # a saved audit batch: its files, as the fuzzer audited them (not one folder inside)
            shutil.copytree(path, folder, dirs_exist_ok=True)
        else:
            shutil.copyfile(path, folder / path.name)
        print("audit:", check_audit(folder, reader, DEFAULT_LIMITS))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


def run_atheris(args: argparse.Namespace) -> int:
    """Coverage-guided fuzzing of one reader with atheris; our mutators are its custom mutator."""
    try:
        import atheris
    except ImportError:
        print("atheris is not installed: python3 -m pip install atheris", file=sys.stderr)
        return 2
    reader = args.readers.split(",")[0]
    if reader == "parquet":
        print("the atheris engine mutates bytes; use the built-in engine for parquet", file=sys.stderr)
        return 2
    seeds = load_seeds(reader, Path(args.corpus))
    suffix = seeds.pieces[0][0]
    # libFuzzer keeps its corpus (the seeds, then every input that found new coverage) between runs;
    # atheris.Fuzz() ends the process, so nothing can be cleaned up after it anyway
    work = Path(args.out) / reader
    corpus = work / "atheris-corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    for i, (_, data) in enumerate(seeds.pieces[:500]):
        (corpus / f"seed-{i}").write_bytes(data)
    path = work / f"atheris-input{suffix}"

    def test_one(data: bytes) -> None:
        path.write_bytes(data)
        run_reader(path, reader, DEFAULT_LIMITS)

    def custom_mutator(data: bytes, max_size: int, seed: int) -> bytes:
        rng = random.Random(seed)
        if rng.random() < 0.2:
            return atheris.Mutate(data, max_size)
        out, _ = mutate(data, rng, seeds)
        return out if len(out) <= max(max_size, 1 << 20) else out[:max_size]

    # the readers are imported already (at the top of this script), so instrument what is loaded
    atheris.instrument_all()
    crashes = Path(args.out) / reader / "atheris"
    crashes.mkdir(parents=True, exist_ok=True)
    argv = [sys.argv[0], f"-runs={int(args.n)}", f"-artifact_prefix={crashes}/", "-max_len=1048576",
            f"-timeout={int(args.timeout)}", "-print_final_stats=1", str(corpus)]
    atheris.Setup(argv, test_one, custom_mutator=custom_mutator)
    atheris.Fuzz()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=float, default=10_000, help="inputs per reader (1e6 works)")
    parser.add_argument("--readers", default=",".join(READERS), help=f"comma-separated, of {', '.join(READERS)}")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--start", type=int, default=0, help="first input number (to continue an earlier run)")
    parser.add_argument("--seconds", type=float, default=0, help="stop each reader after this long (0: no limit)")
    parser.add_argument("--out", default=str(Path(tempfile.gettempdir()) / "poker-auditor-fuzz"),
                        help="where reproducers are saved")
    parser.add_argument("--corpus", default=str(CORPUS))
    parser.add_argument("--timeout", type=float, default=20.0, help="an input running longer is a crash (hang)")
    parser.add_argument("--slow", type=float, default=2.0, help="an input running longer is saved as slow")
    parser.add_argument("--keep", type=int, default=3, help="reproducers kept per distinct crash")
    parser.add_argument("--audit-every", type=int, default=2000, help="audit() the recent inputs this often (0: never)")
    parser.add_argument("--audit-batch", type=int, default=100)
    parser.add_argument("--report-every", type=float, default=60.0, help="seconds between progress lines")
    parser.add_argument("--engine", choices=("random", "atheris"), default="random")
    parser.add_argument("--replay", type=Path, help="run one saved input again (with --reader)")
    parser.add_argument("--reader", choices=READERS, help="the reader of --replay")
    parser.add_argument("--grammar", action="store_true",
                        help=f"grammar-built inputs instead of mutated seeds ({', '.join(GRAMMAR_READERS)})")
    args = parser.parse_args(argv)
    if args.replay:
        if not args.reader:
            parser.error("--replay needs --reader")
        return replay(args.replay, args.reader)
    if args.engine == "atheris":
        return run_atheris(args)
    if args.grammar and args.readers == ",".join(READERS):
        args.readers = ",".join(GRAMMAR_READERS)
    readers = [r.strip() for r in args.readers.split(",") if r.strip()]
    unknown = set(readers) - set(READERS) - set(GRAMMARS)
    if unknown:
        parser.error(f"unknown reader(s): {', '.join(sorted(unknown))}")
    signal.signal(signal.SIGALRM, _on_alarm)
    # `kill PID` ends the run like Ctrl-C, so its working folder in /dev/shm is removed
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    # readers log what they repair (PHH winnings); a million inputs would bury the report in it
    logging.disable(logging.WARNING)
    fuzzer = Fuzzer(args)
    totals: list[Stats] = []
    print(f"fuzzing {', '.join(readers)}: {int(args.n)} inputs each, seed {args.seed}, start {args.start}, "
          f"reproducers in {args.out} (pid {os.getpid()})", flush=True)
    try:
        for reader in readers:
            stats = fuzzer.run(reader, int(args.n))
            totals.append(stats)
            print(stats.line(), flush=True)
            for signature, count in stats.unique.most_common():
                print(f"    {count:>6}  {signature}")
    finally:
        fuzzer.close()
    inputs = sum(s.inputs for s in totals)
    seconds = sum(s.seconds for s in totals)
    crashes = sum(s.crashes for s in totals)
    print(f"total: {inputs} inputs in {seconds:.1f} s ({inputs / seconds if seconds else 0:.0f}/s); crashes {crashes} "
          f"({sum(len(s.unique) for s in totals)} distinct); slow {sum(s.slow for s in totals)}; audits "
          f"{sum(s.audits for s in totals)}")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
