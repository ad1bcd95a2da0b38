"""The PHH byte scanner (`auditor.ingest.phh_scan`) and the batch reader built on it (`phh.read_phh_files`).

The scanner is a shortcut like `phh_toml`'s fast path, and held to the same property: whatever it reads
it reads exactly as `tomllib.loads` does (same keys, values and types), and whatever `tomllib` refuses it
leaves alone. Its action tokens are exactly `phh._parse_actions`' tuples, and it leaves alone every
action string `_parse_actions` would refuse (so the refusal keeps its wording). Held on the corpus, the
TOML corners of `tests/test_phh_toml.py`, action corners and fuzz-mutated files; and `read_phh_files` and
`read_phh` (which reads a `.phh` through the scanner) give the very items of the reader without the
scanner, `_read_phh_reference`, file by file.
"""

from __future__ import annotations

import dataclasses
import gzip
import os
import random
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

from auditor.ingest import phh_scan
from auditor.ingest.limits import DEFAULT_LIMITS
from auditor.ingest.phh import _parse_actions, _read_phh_reference, _Reject, read_phh, read_phh_files

ROOT = Path(__file__).resolve().parents[1]
PHH = ROOT.parent / "shared" / "corpus" / "phh"
CORPUS = PHH / "data"
FIXTURES = ROOT / "tests" / "fixtures" / "phh"
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "tests"))
import fuzz  # noqa: E402
from test_phh_toml import BASE, CORNERS  # noqa: E402

needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="needs ../shared/corpus")


def tomllib_outcome(text: str) -> dict | None:
    try:
        return tomllib.loads(text)
    except (ValueError, RecursionError):
        return None


def assert_scanner_agrees(texts: list[str]) -> tuple[int, int]:
    """Scan all `texts` in one call; each read must equal tomllib's, and each of tomllib's refusals be left
    to it. Returns (texts the scanner read, texts whose actions it tokenized)."""
    scan, found = phh_scan.scan_texts(texts)
    docs = phh_scan.Documents(scan)
    read = tokenized = 0
    for d, (text, fields) in enumerate(zip(texts, found, strict=True)):
        if fields is None:
            continue
        read += 1
        expected = tomllib_outcome(text)
        assert expected is not None, f"scanner read what tomllib refuses: {text!r}"
        assert fuzz.same_value(fields, expected), (text, fields, expected)
        players = len(fields["starting_stacks"]) if isinstance(fields.get("starting_stacks"), list) else 6
        tokens = docs.actions(d, players)
        if tokens is not None:
            tokenized += 1
            assert tokens == _parse_actions(fields["actions"], players), text
            assert [type(x) for a in tokens for x in a] == [type(x) for a in _parse_actions(fields["actions"],
                                                                                            players) for x in a]
    return read, tokenized


@needs_corpus
def test_corpus_files_read_as_tomllib_reads_them_and_almost_all_by_the_scanner():
    texts = [p.read_bytes().decode("utf-8-sig") for p in sorted(CORPUS.rglob("*.phh"))]
    assert len(texts) > 5000
    read, tokenized = assert_scanner_agrees(texts)
    # the five that are not flat have comments or multi-line arrays; the regex fast path leaves them too
    assert read == tokenized == len(texts) - 5, (read, tokenized)


@pytest.mark.parametrize("text", CORNERS)
def test_toml_corners_agree_with_tomllib(text):
    read, _ = assert_scanner_agrees([text, BASE + text])
    if tomllib_outcome(BASE + text) is None:
        assert read == 0


#: TOML local times (PHH's `time`): what tomllib reads, the scanner reads the same; what it refuses is left to it
TIME_CORNERS = [
    "a = 00:06:48", "a = 23:59:59.9999999", "a = 24:00:00", "a = 00:06:48.", "a = 0:06:48", "a = 00:06",
    "a = 00:06:48Z",
    "a = 00:06:60", "a = 00:06:48.5 ", "a = 00:06:48-05:00", "a = 00:06:48 00", "a = 19:60:00", "a = 20:00:00.000001",
    "a = [00:06:48]", "a = 00:06:48\nb = 1", "a = 09:5:00", "a = 12:34:56.1234567890123", "a = 00:06:48,",
    "a = 00:06:48.x", "a = 1979-05-27 07:32:00", "a = 07:32:00\r\n", "a = 07:32:00\t", "a = 29:00:00", "a = 0a:00:00",
]


@pytest.mark.parametrize("text", TIME_CORNERS)
def test_local_times_agree_with_tomllib(text):
    read, _ = assert_scanner_agrees([text, BASE + text])
    if tomllib_outcome(text) is not None and "[" not in text and "-" not in text:
        assert read == 2, text  # a plain local time is on the fast path, not left to tomllib


def test_mutated_times_of_our_writers_files_agree_with_tomllib():
    rng = random.Random(7)
    base = "\n".join(line for line in BASE.splitlines() if not line.startswith("time")) + "\n"
    alphabet = "0123456789:.Z-+ \tx"
    texts = []
    for _ in range(3000):
        value = list(f"{rng.randrange(30):02d}:{rng.randrange(70):02d}:{rng.randrange(70):02d}")
        if rng.random() < 0.3:
            value += ["."] + [rng.choice("0123456789") for _ in range(rng.randrange(10))]
        for _ in range(rng.randrange(3)):
            at = rng.randrange(len(value) + 1)
            if rng.random() < 0.5 and at < len(value):
                del value[at]
            else:
                value.insert(at, rng.choice(alphabet))
        texts.append(base + "time = " + "".join(value) + "\n")
    read, _ = assert_scanner_agrees(texts)
    assert read > 500, read  # enough valid times stayed on the fast path


def test_the_flat_subset_is_read_with_its_types():
    text = ("variant = 'NT'\nantes=[0,0]\t\r\nstarting_stacks = [ 1.5 , -2, 3, ]\nx-y_9 = true\nz = false\n"
            "players = [\"a b\", 'é\\\\', '']\nactions = []\n\n  \t\n")
    fields = phh_scan.scan_texts([text])[1][0]
    assert fields == tomllib.loads(text)
    assert fuzz.same_value(fields, tomllib.loads(text))
    assert fields is not None and fields["x-y_9"] is True and fields["starting_stacks"] == [1.5, -2, 3]


def test_a_byte_order_mark_is_skipped_only_where_a_file_starts():
    raw = "\ufeffvariant = 'NT'\n".encode()
    buf, starts, ends = phh_scan.join([raw, raw])
    as_file = phh_scan.Documents(phh_scan.scan(buf, starts, ends, skip_bom=True))
    as_text = phh_scan.Documents(phh_scan.scan(buf, starts, ends))
    assert as_file.fields(0) == as_file.fields(1) == {"variant": "NT"}
    assert as_text.fields(0) is None  # tomllib refuses a mark inside the text


#: action strings, each alone in a hand of two players: tokens equal `_parse_actions`' or are left to it
ACTIONS = [
    "d dh p1 AsKs", "d dh p2 ????", "d dh p1 A?", "d dh p1 ?x", "d dh p1 asKS", "d dh p1 Xx", "d dh p1 AsK",
    "d dh p1", "d dh p3 AsKs", "d dh p0 AsKs", "d dh p01 AsKs", "d db 9dJs4h", "d db", "d db 9d 4h", "d", "d xx",
    "p1 f", "p2 cc", "p1 pb", "p1 cbr 300", "p1 cbr 1.5", "p1 cbr 0012", "p1 cbr 1.", "p1 cbr .5", "p1 cbr 1e3",
    "p1 cbr -5", "p1 cbr 1.2.3", "p1 cbr " + "9" * 18, "p1 cbr " + "9" * 19, "p1 cbr " + "9" * 41, "p1 cbr",
    "p1 cbr 1 2", "p1 sm AsKs", "p1 sm -", "p1 sm", "p1 sm --", "p1 sm As Ks", "p1 sd", "p1 sd Kh", "p1 sd -",
    "p1 f x", "p1 cc 3", "p1 xx", "p1", "p3 f", "p9 cc", "p1000 f", "q1 f", "", "   ", "  p1   cbr   20  ",
    "p1 cc # note", "# note", "p1\tcc", "p1 cc\t", "p1\u00a0cc", "p1 f f f f", "p1 cbr ١٢",
]


@pytest.mark.parametrize("action", ACTIONS)
def test_action_corners_agree_with_parse_actions(action):
    quote = '"' if "'" in action else "'"
    text = f"starting_stacks = [100, 100]\nactions = ['d dh p1 AsKs', {quote}{action}{quote}]\n"
    if "\\" in action or (quote == '"' and '"' in action):
        pytest.skip("not a flat TOML string")
    fields = tomllib.loads(text)
    docs = phh_scan.Documents(phh_scan.scan_texts([text])[0])
    tokens = docs.actions(0, 2)
    try:
        expected = _parse_actions(fields["actions"], 2)
    except _Reject:
        assert tokens is None  # the refusal is _parse_actions' to word
        return
    if tokens is not None:
        assert tokens == expected
    else:  # left to _parse_actions only where it would read the string differently from the plain forms
        assert any(c in action for c in "#\t\u00a0١") or "p01" in action or "9" * 19 in action


def test_action_corners_read_as_the_reference_reads_them(tmp_path):
    paths = []
    for k, action in enumerate(ACTIONS):
        quote = '"' if "'" in action else "'"
        path = tmp_path / f"a{k}.phh"
        path.write_text("variant = 'NT'\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nmin_bet = 2\n"
                        "starting_stacks = [100, 100]\nfinishing_stacks = [99, 101]\n"
                        f"actions = ['d dh p1 AsKs', 'd dh p2 7c2d', {quote}{action}{quote}]\n", encoding="utf-8")
        paths.append(path)
    new = [repr(x) for x in read_phh_files(paths, root=tmp_path)]
    assert new == items_of(paths, root=tmp_path)
    assert sum("unknown player 'p3'" in x for x in new) == 2  # tokens past the players: the strings word it


@needs_corpus  # its seeds are the corpus's files
def test_mutated_phh_files_agree_with_tomllib_and_parse_actions():
    seeds = fuzz.load_seeds("phh", phh_files=60)
    rng = random.Random(2026)
    texts = []
    for _ in range(6000):
        _suffix, piece = rng.choice(seeds.pieces)
        data, _names = fuzz.mutate(piece, rng, seeds)
        texts.append(data.decode("utf-8", "replace"))
    read, tokenized = assert_scanner_agrees(texts)
    assert read > 1000 and tokenized > 500, (read, tokenized)  # enough stayed on the fast path to test it


def test_arbitrary_bytes_never_crash_the_kernels_and_spans_stay_inside_their_document():
    rng = random.Random(16)
    alphabet = b"[]=,'\"\\ \t\r\n\xef\xbb\xbf-.0123456789eptrufalsdhcbrsm?#\x00\xff"
    raws = [bytes(rng.choice(alphabet) for _ in range(rng.randrange(0, 80))) for _ in range(3000)]
    words = [b"d", b"dh", b"db", b"p1", b"p2", b"p0", b"cbr", b"cc", b"f", b"sm", b"sd", b"-", b"AsKs", b"9dJs4h",
             b"??", b"12", b"1.5", b"9" * 25, b"#", b"\xff", b"\t", b"'", b"", b"A"]
    raws += [b"actions = ['" + b" ".join(rng.choice(words) for _ in range(rng.randrange(5))) + b"']"
             for _ in range(3000)]
    buf, starts, ends = phh_scan.join(raws)
    s = phh_scan.scan(buf, starts, ends, skip_bom=True)
    assert s.doc_ok.shape == (len(raws),)
    for d in np.flatnonzero(s.doc_ok):
        lo, hi = s.doc_field_lo[d], s.doc_field_hi[d]
        assert np.all((s.f_kstart[lo:hi] >= starts[d]) & (s.f_end[lo:hi] <= ends[d]))
        for g in range(lo, hi):
            a, b = s.f_item_lo[g], s.f_item_hi[g]
            assert np.all((s.i_start[a:b] >= starts[d]) & (s.i_end[a:b] <= ends[d]))
    assert s.doc_ok.sum() > 0 and s.actions_ok.sum() > 0
    assert np.all(s.c_code <= phh_scan.UNKNOWN_CARD)


# --------------------------------------------------------------------------- read_phh_files == read_phh


def items_of(paths, **kw):
    """What the reader without the scanner gives (TOML by phh_toml, actions by _parse_actions)."""
    return [repr(x) for p in paths for x in _read_phh_reference(p, **kw)]


@needs_corpus
def test_batch_reader_gives_the_reference_items_on_the_corpus():
    files = sorted(p for p in PHH.rglob("*") if p.is_file() and p.suffix in (".phh", ".phhs"))
    new = [repr(x) for x in read_phh_files(files, root=PHH)]
    assert len(new) == 5123
    assert new == items_of(files, root=PHH)


def test_batch_reader_gives_read_phhs_items_on_odd_and_mutated_files(tmp_path):
    seeds = fuzz.load_seeds("phh", phh_files=40)
    rng = random.Random(7)
    paths = [FIXTURES / "damaged.phhs", FIXTURES / "side-pots.phhs", tmp_path / "missing.phh"]
    good = seeds.pieces[0][1]
    odd = {"bom.phh": b"\xef\xbb\xbf" + good, "latin1.phh": good.replace(b"'NT'", b"'N\xe9'"),
           "gz.phh": gzip.compress(good), "empty.phh": b"", "comment.phh": b"# c\n" + good, "crlf.phh":
           good.replace(b"\n", b"\r\n"), "keys.phhs": good, "UPPER.PHH": good, "big.phh": good + b"#" * 5000}
    for name, data in odd.items():
        (tmp_path / name).write_bytes(data)
        paths.append(tmp_path / name)
    (tmp_path / "folder.phh").mkdir()
    paths.append(tmp_path / "folder.phh")
    for k in range(400):
        suffix, piece = rng.choice(seeds.pieces)
        data, _ = fuzz.mutate(piece, rng, seeds)
        path = tmp_path / f"m{k}{suffix}"
        path.write_bytes(data)
        paths.append(path)
    small = dataclasses.replace(DEFAULT_LIMITS, phh_max_hand_bytes=700, phh_max_line_bytes=600)
    for limits in (DEFAULT_LIMITS, small):
        labels = [p.name for p in paths]
        expected = [repr(x) for p, label in zip(paths, labels, strict=True)
                    for x in _read_phh_reference(p, label=label, limits=limits)]
        assert [repr(x) for x in read_phh_files(paths, labels=labels, limits=limits)] == expected
        assert [repr(x) for p, label in zip(paths, labels, strict=True)
                for x in read_phh(p, label=label, limits=limits)] == expected
    assert [repr(x) for x in read_phh_files(paths, root=tmp_path)] == items_of(paths, root=tmp_path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_left_to_read_phh(tmp_path, monkeypatch):
    fifo = tmp_path / "pipe.phh"
    os.mkfifo(fifo)
    seen = []
    monkeypatch.setattr("auditor.ingest.phh._read_phh_reference", lambda path, **kw: seen.append(path) or iter(()))
    assert list(read_phh_files([fifo])) == []
    assert seen == [fifo]


@needs_corpus  # its seeds are the corpus's files
def test_a_partition_reads_a_run_of_phh_inputs_as_read_piece_reads_each(tmp_path, monkeypatch):
    """`partition.read_pieces` reads consecutive `.phh` inputs with one scanner call (`detect.read_plain_phh`)
    and must give, piece by piece, exactly `read_piece`'s items: odd files (not UTF-8, gzip, comments, a
    folder, a missing file, a size limit) fall back to `read_piece`, an input shown under another name and
    a file of another format break the run, and a run longer than a batch continues where the batch stopped."""
    from auditor.engines import partition
    from auditor.model.inputs import InputFile

    seeds = fuzz.load_seeds("phh", phh_files=40)
    rng = random.Random(11)
    good = seeds.pieces[0][1]
    odd = {"bom.phh": b"\xef\xbb\xbf" + good, "latin1.phh": good.replace(b"'NT'", b"'N\xe9'"),
           "gz.phh": gzip.compress(good), "empty.phh": b"", "comment.phh": b"# c\n" + good,
           "big.phh": good + b"#" * 5000, "other.jsonl": b"{}\n"}
    inputs = [InputFile(tmp_path / "missing.phh", "phh", "missing.phh")]
    for name, data in odd.items():
        (tmp_path / name).write_bytes(data)
        inputs.append(InputFile(tmp_path / name, "jsonl" if name.endswith(".jsonl") else "phh", name))
    (tmp_path / "folder.phh").mkdir()
    inputs.append(InputFile(tmp_path / "folder.phh", "phh", "folder.phh"))
    for k in range(120):
        _suffix, piece = rng.choice([p for p in seeds.pieces if p[0] == ".phh"])
        data, _ = fuzz.mutate(piece, rng, seeds) if k % 3 else (piece, None)
        path = tmp_path / f"m{k:03}.phh"
        path.write_bytes(data)
        inputs.append(InputFile(path, "phh", f"folder/m{k:03}.phh", shown="<shown>" if k == 60 else ""))
    pieces = [partition.Piece(i, item) for i, item in enumerate(inputs)]
    monkeypatch.setattr("auditor.ingest.phh._BATCH_FILES", 16)  # runs cut into batches
    # the dict path, item for item: once the columnar path's kernels are loaded in this process (by an earlier
    # test) a run takes it whatever its length, and gives a run's hands as one chunk (tests/test_phh_tables.py)
    monkeypatch.setattr("auditor.ingest.phh_tables.worth_it", lambda files: False)
    batches: list[list] = []

    def recorded(*args, **kw):
        batches.append(partition_read(*args, **kw))
        return batches[-1]
    partition_read = partition.read_plain_phh
    monkeypatch.setattr(partition, "read_plain_phh", recorded)
    small = dataclasses.replace(DEFAULT_LIMITS, phh_max_hand_bytes=700, phh_max_line_bytes=600)
    for limits in (None, small):
        expected = [(p.input_index, [repr(x) for x in partition.read_piece(p, limits)]) for p in pieces]
        got = [(p.input_index, [repr(x) for x in items]) for p, items in partition.read_pieces(pieces, limits)]
        assert got == expected
        assert sum(len(items) for _i, items in got) >= len(pieces) - 2  # the folder and the jsonl may give none
    scanned = [x for batch in batches for x in batch if x is not None]
    assert len(batches) >= 8 and max(map(len, batches)) == 16 and len(scanned) >= 50, [len(b) for b in batches]
    assert sum(x is None for batch in batches for x in batch) >= 4  # the odd files went the ordinary way


@needs_corpus  # its seeds are the corpus's files
def test_phh_files_discovery_read_whole_are_read_from_its_bytes(tmp_path, monkeypatch):
    """Discovery keeps the bytes of a one-hand `.phh` file it read whole (`Seen.content`, within
    `pipeline.KEPT_BYTES`), and the PHH batch reads those instead of opening the file again: the same items
    as `read_piece` (which opens every file), for the odd files and under limits smaller than the bytes; past
    the budget a file is opened as before; and what is read is what discovery read (and hashed)."""
    from auditor import pipeline
    from auditor.engines import partition
    from auditor.ingest.detect import read_plain_phh
    from auditor.pipeline import audit

    seeds = fuzz.load_seeds("phh", phh_files=40)
    rng = random.Random(12)
    good = seeds.pieces[0][1]
    folder = tmp_path / "hands"
    folder.mkdir()
    odd = {"bom.phh": b"\xef\xbb\xbf" + good, "latin1.phh": good.replace(b"'NT'", b"'N\xe9'"),
           "gz.phh": gzip.compress(good), "empty.phh": b"", "comment.phh": b"# c\n" + good,
           "big.phh": good + b"#" * 5000, "other.jsonl": b"{}\n"}
    for name, data in odd.items():
        (folder / name).write_bytes(data)
    for k in range(60):
        _suffix, piece = rng.choice([p for p in seeds.pieces if p[0] == ".phh"])
        (folder / f"m{k:03}.phh").write_bytes(fuzz.mutate(piece, rng, seeds)[0] if k % 3 else piece)
    monkeypatch.setattr("auditor.ingest.phh_tables.worth_it", lambda files: False)  # item for item
    small = dataclasses.replace(DEFAULT_LIMITS, phh_max_hand_bytes=700, phh_max_line_bytes=600)
    default = pipeline.KEPT_BYTES
    for budget, limits in ((default, None), (default, small), (3 * len(good), None)):
        monkeypatch.setattr(pipeline, "KEPT_BYTES", budget)
        inputs, _ = pipeline.discover([folder])
        kept = [item for item in inputs if item.seen is not None and item.seen.content is not None]
        for item in kept:
            assert item.seen.content == item.path.read_bytes() and item.path.suffix == ".phh"
        assert sum(len(item.seen.content) for item in kept) <= budget
        assert len(kept) >= (50 if budget == default else 1) and (budget == default or len(kept) < 10)
        assert not any(item.name.endswith((".gz.phh", ".jsonl", "big.phh")) for item in kept)
        pieces = [partition.Piece(i, item) for i, item in enumerate(inputs)]
        expected = [(p.input_index, [repr(x) for x in partition.read_piece(p, limits)]) for p in pieces]
        got = [(p.input_index, [repr(x) for x in items]) for p, items in partition.read_pieces(pieces, limits)]
        assert got == expected
        assert all(item.seen is None or item.seen.content is None for item in inputs)  # let go once read
    from auditor.engines import local

    monkeypatch.setattr(local, "POOL_MIN_HANDS", 0)  # two jobs: the files read in worker processes
    for jobs in (1, 2):  # nor does a run's result keep them, wherever the files were read
        result = audit([folder], jobs=jobs, batch_size=8)
        assert result.hands_read > 40 and all(i.seen is None or i.seen.content is None for i in result.inputs)
    # the bytes given are the bytes read: a file rewritten since discovery is audited as discovery read it
    first, second = folder / "m000.phh", folder / "m003.phh"
    given = [first.read_bytes(), second.read_bytes()]
    expected = read_plain_phh([first, second], [None, None])  # opened and read
    first.write_bytes(b"not what was hashed")
    got = read_plain_phh([first, second], [None, None], None, given)
    assert got == expected and got[0] is not None
    assert read_plain_phh([first], [None])[0] != got[0]  # opened now, the rewritten file reads otherwise


@needs_corpus
def test_a_run_told_to_read_phh_the_reference_way_never_scans_and_audits_the_same(monkeypatch):
    """A first run's plan (`Prepared.reference_formats` with "phh", `ingest.compiled.reference_first`): every
    plain `.phh` is read by `_read_phh_reference`, not by the byte scanner or the converter (one call over a
    run of files, or one file's), and the audit is the scanner's to the letter: hands, findings, quarantine."""
    from contextlib import nullcontext

    from paths_agree import assert_audits_agree

    from auditor.engines import partition
    from auditor.ingest import phh
    from auditor.model.compiled import Prepared
    from auditor.pipeline import audit

    folder = CORPUS
    scanned = audit([folder], pack="tda-2024", jobs=1)

    def refused(*args, **kwargs):
        raise AssertionError("the byte scanner was called")

    monkeypatch.setattr(partition, "read_plain_phh", refused)
    monkeypatch.setattr(phh, "read_phh_files", refused)
    reference = audit([folder], pack="tda-2024", jobs=1,
                      prepare=lambda inputs, engine: Prepared(nullcontext(), False, frozenset({"phh"})))
    assert_audits_agree(scanned, reference, 1000)
