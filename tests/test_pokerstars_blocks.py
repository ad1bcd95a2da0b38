"""Room text is read a block at a time (`text_blocks.in_blocks`), so a file of any size is held a block at a time:
the items are those the whole file read at once gives, whatever the block size and the batch and chunk sizes.

Each case is read with blocks of a few hundred bytes (many cuts, in every kind of place), small batches and chunks,
and with one block holding the whole file; the items must be equal."""

from __future__ import annotations

import gzip
import random
from pathlib import Path

import pytest
from reader_items import read_pokerstars

from auditor.ingest import text_blocks
from auditor.ingest.limits import DEFAULT_LIMITS, Limits
from auditor.model.records import Quarantined, SourceHand

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
CORPUS = ROOT.parent / "shared" / "corpus" / "pokerstars"
SIMULATED = FIXTURES / "readers" / "simulated.txt"


def _read(path: Path, block: int, monkeypatch: pytest.MonkeyPatch, limits: Limits = DEFAULT_LIMITS, **sizes):
    monkeypatch.setattr(text_blocks, "BLOCK_BYTES", block)
    return read_pokerstars(path, limits=limits, **sizes)


def _cases(tmp_path: Path) -> list[Path]:
    text = SIMULATED.read_text(encoding="utf-8")
    hands = text.split("\n\n\n")
    rng = random.Random(7)
    made = []

    def write(name: str, data: bytes) -> None:
        path = tmp_path / name
        path.write_bytes(data)
        made.append(path)

    write("simulated.txt", text.encode())
    write("crlf.txt", text.replace("\n", "\r\n").encode())  # a CR LF may be cut between its two bytes
    write("cr.txt", text.replace("\n", "\r").encode())
    write("bom-fragment.txt", b"\xef\xbb\xbf" + "\n".join(hands[0].splitlines()[5:]).encode() + b"\n\n"
          + text.encode())  # a byte-order mark, then the end of a hand before the first header
    # a hand whose text stops inside a line where the next hand's header begins
    inner = hands[1].rstrip("\n") + hands[2]
    write("inner-header.txt", "\n\n\n".join([hands[0], inner, *hands[3:40]]).encode())
    # players named like a hand's header, archive separators between hands, names in other scripts
    named = "\n\n*********** # 2 **************\n\n".join(hands[:60]).replace(
        "Seat 1: ", "Seat 1: PokerStars Hand #1: ").replace("Seat 2: ", "Seat 2: Jos\u00e9 \u738b ")
    write("names.txt", named.encode())
    write("cp1252.txt", text.replace("Seat 3: ", "Seat 3: Jos\u00e9 ").encode("cp1252"))
    write("utf16.txt", text.encode("utf-16"))
    write("gzip.txt.gz", gzip.compress(text.encode()))
    shuffled = hands[:80]
    rng.shuffle(shuffled)
    write("shuffled.txt", "\n\n\n".join(h[: rng.randrange(len(h) + 1)] for h in shuffled).encode())
    return made


def test_every_block_size_gives_the_items_of_the_whole_file(tmp_path, monkeypatch):
    """The made cases with blocks smaller than a hand (97 bytes: a block grows until a second hand begins) and of a
    few hands; the real files of several hands (the corpus's multi-hand files, the fixtures') with one size."""
    cases = [(path, (97, 300, 2048)) for path in _cases(tmp_path)]
    real = sorted((FIXTURES / "pokerstars").rglob("*.txt")) + (sorted(CORPUS.rglob("*.txt")) if CORPUS.is_dir() else [])
    cases += [(path, (700,)) for path in real if path.read_bytes().count(b"PokerStars ") > 2]
    read = 0
    for path, blocks in cases:
        whole = _read(path, 1 << 30, monkeypatch)
        read += sum(isinstance(item, SourceHand) for item in whole)
        assert _read(path, 1 << 30, monkeypatch, batch_hands=7, chunk_hands=3) == whole, path
        for block in blocks:
            assert _read(path, block, monkeypatch, batch_hands=7, chunk_hands=3) == whole, (path, block)
    assert read > 800


def test_line_numbers_run_on_across_blocks(tmp_path, monkeypatch):
    path = tmp_path / "simulated.txt"
    path.write_bytes(SIMULATED.read_bytes())
    monkeypatch.setattr(text_blocks, "BLOCK_BYTES", 500)
    hands = [i for i in read_pokerstars(path) if isinstance(i, SourceHand)]
    lines = SIMULATED.read_text(encoding="utf-8").split("\n")
    assert len(hands) > 20
    for hand in hands:
        assert lines[hand.line - 1].startswith(f"PokerStars Hand #{hand.hand['hand_id']}:")


def test_a_stretch_without_a_hand_past_the_limit_stops_the_file(tmp_path, monkeypatch):
    text = SIMULATED.read_text(encoding="utf-8")
    path = tmp_path / "long.txt"
    path.write_text(text[:5000] + "\n" + "x" * 90 + ("\nchat line without end" * 400) + "\n" + text, encoding="utf-8")
    monkeypatch.setattr(text_blocks, "BLOCK_BYTES", 256)
    items = read_pokerstars(path, limits=DEFAULT_LIMITS.replace(max_file_bytes=4096))
    last = items[-1]
    assert isinstance(last, Quarantined) and last.code == "limit" and "the rest of the file is not read" in last.reason
    assert any(isinstance(i, SourceHand) for i in items)  # the hands before it were read
