"""Plain `.phh` files read column-wise (`auditor.ingest.phh_tables`, `phh_kernel`) against the reference path.

The exactness contract: for every file, what `phh.read_plain_phh_batch(..., tables=True)` gives is what the
reader without the fast path gives (`phh._read_phh_reference`): a file the fast path took is a hand of a
TableChunk whose tables equal `build_tables` of the reference's hands (same columns, values and order) and
whose `source(i)` is the reference's very item; every other file has the reference's items (the same
quarantines: code, line, reason), or None where the caller reads it (`detect.read_file`, the reference
again). Held on the whole PHH corpus, the fixtures and crafted hands of `tests/test_phh.py`, the rule examples
and simulated hands written as PHH (`auditor.export.phh`), and fuzz-mutated files (the suite runs the kernels
with NUMBA_BOUNDSCHECK=1). Then audits through both paths give the same findings, quarantines and counts.
"""

from __future__ import annotations

import dataclasses
import json
import random
import sys
from pathlib import Path

import pytest

from auditor.check.packs import resolve_pack
from auditor.export import phh as phh_export
from auditor.ingest import phh_tables
from auditor.ingest.jsonl import read_jsonl
from auditor.ingest.limits import DEFAULT_LIMITS
from auditor.ingest.parquet import TableChunk
from auditor.ingest.phh import _read_phh_reference, read_plain_phh_batch
from auditor.ingest.tables import build_tables
from auditor.model.records import SourceHand
from auditor.pipeline import audit
from auditor.simulate import simulate_hands

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "phh"
FIXTURES = ROOT / "tests" / "fixtures" / "phh"
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "tests"))
import fuzz  # noqa: E402
from paths_agree import assert_audits_agree, assert_tables_equal  # noqa: E402
from test_phh import CRAFTED_HEAD, DEAL, HEADS_UP, ILLEGAL  # noqa: E402

needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="needs ../shared/corpus")
PACK = resolve_pack("tda-2024")


def read_fast(paths: list[Path], labels: list[str], limits=DEFAULT_LIMITS) -> list[tuple | None]:
    """Every file's entry of `read_plain_phh_batch` with the columnar path, batch after batch."""
    got: list[tuple | None] = []
    while len(got) < len(paths):
        k = len(got)
        got.extend(read_plain_phh_batch(paths[k:], labels[k:], rule_pack="tda-2024", limits=limits, tables=True))
    return got


def assert_same_as_reference(paths: list[Path], labels: list[str], limits=DEFAULT_LIMITS) -> int:
    """The contract above, file by file; returns how many files the fast path took."""
    got = read_fast(paths, labels, limits)
    assert len(got) == len(paths)
    assert not phh_tables.FAILURES, phh_tables.FAILURES
    expected = [list(_read_phh_reference(p, label=label, limits=limits)) for p, label in zip(paths, labels,
                                                                                              strict=True)]
    taken = 0
    k = 0
    while k < len(got):
        entry = got[k]
        assert entry != (), f"{paths[k]}: a file with no item outside a run"
        if entry is not None and len(entry) == 1 and isinstance(entry[0], TableChunk):
            chunk = entry[0]
            m = chunk.num_hands
            assert all(e == () for e in got[k + 1:k + m]), "a run's other files give no item"
            hands = []
            for j in range(k, k + m):
                assert len(expected[j]) == 1 and isinstance(expected[j][0], SourceHand), (paths[j], expected[j])
                hands.append(expected[j][0])
            assert_tables_equal(chunk.tables, build_tables(hands))
            assert list(chunk.files()) == [str(p) for p in paths[k:k + m]]
            assert chunk.quarantined == ()
            for i in (0, m - 1, m // 2):
                assert repr(chunk.source(i)) == repr(hands[i])
            taken += m
            k += m
            continue
        if entry is not None:  # today's item of a file the fast path left
            assert [repr(x) for x in entry] == [repr(x) for x in expected[k]], paths[k]
        k += 1
    return taken


def write(folder: Path, texts: dict[str, str | bytes]) -> tuple[list[Path], list[str]]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in texts.items():
        path = folder / name
        path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
        paths.append(path)
    return paths, [f"{folder.name}/{p.name}" for p in paths]


@needs_corpus
def test_the_corpus_reads_as_the_reference_reads_it():
    paths = sorted(CORPUS.rglob("*.phh"))
    assert len(paths) == 5123
    taken = assert_same_as_reference(paths, [p.relative_to(CORPUS).as_posix() for p in paths])
    # the rest: split pots (half chips), side pots, comments or multi-line arrays, variants not supported
    assert taken >= 4900, taken


def _untimed(lines: list[str]) -> str:
    """A written hand without its time (a TOML time is beyond the scanner, so the file would take the
    reference path): the same hand, read by the fast path."""
    return "\n".join(line for line in lines if not line.startswith(("time", "year", "month", "day"))) + "\n"


def _exported() -> dict[str, str]:
    """The rule examples and simulated hands of three games, written as PHH (each with and without its time)."""
    hands = [item.hand for path in sorted((ROOT / "rules" / "examples").rglob("*.jsonl"))
             for item in read_jsonl(path) if isinstance(item, SourceHand)]
    for k, (variant, structure) in enumerate((("holdem", "no-limit"), ("holdem", "fixed-limit"),
                                              ("omaha", "pot-limit"))):
        hands += list(simulate_hands(variant, structure, 60, 40 + k, house=PACK.house, rule_pack=PACK.name))
    texts = {}
    for k, hand in enumerate(hands):
        if phh_export.cannot_express(hand) is not None:
            continue
        lines = phh_export.to_phh(hand, 1, k + 1)
        texts[f"x{k:04}.phh"] = "\n".join(lines) + "\n"
        texts[f"u{k:04}.phh"] = _untimed(lines)
    return texts


def _crafted() -> dict[str, str]:
    """The hands `tests/test_phh.py` writes by hand, and the fixtures' `.phhs` tables as files of their own."""
    texts = {}
    for name, (actions, _category) in ILLEGAL.items():
        listed = ", ".join(json.dumps(a) for a in [*DEAL, *actions])
        texts[f"{name}.phh"] = f"{CRAFTED_HEAD}actions = [{listed}]\n"
    tails = ["finishing_stacks = [106, 94]\n", "finishing_stacks = [110, 94]\n", "winnings = [12, 0]\n",
             "winnings = [12, 0]\nfinishing_stacks = [106, 94]\n", "rake = 1\nfinishing_stacks = [105, 94]\n",
             "currency = 'USD'\nfinishing_stacks = [106, 94]\n", "currency = 'JPY'\nvenue = ' Bellagio '\n",
             "seat_count = 9\nseats = [3, 7]\nfinishing_stacks = [106, 94]\n", "seats = [3, 3]\n",
             "players = [' Ann ', '']\nhand = 7\ntable = 'T'\n", "venue = ''\nevent = 'WSOP'\n",
             "seat_count = 0\n", "seat_count = 11\n", "rake = 0.5\nfinishing_stacks = [105.5, 94]\n"]
    for k, tail in enumerate(tails):
        texts[f"heads-up-{k}.phh"] = HEADS_UP + tail
    for path in sorted(FIXTURES.glob("*.phhs")):
        body: list[str] = []
        tables = []
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("["):
                tables.append(body)
                body = []
            else:
                body.append(line)
        tables.append(body)
        for k, lines in enumerate(tables):
            texts[f"{path.stem}-{k}.phh"] = "\n".join(lines) + "\n"
    return texts


def test_fixtures_crafted_hands_rule_examples_and_simulated_hands(tmp_path):
    exported = _exported()
    for prefix in ("x", "u"):  # with a time (a TOML local time: the scanner reads it) and without: both taken
        part = {name: text for name, text in exported.items() if name.startswith(prefix)}
        paths, labels = write(tmp_path / f"exported-{prefix}", part)
        assert assert_same_as_reference(paths, labels) >= len(part) // 3, prefix
    paths, labels = write(tmp_path / "crafted", _crafted())
    assert assert_same_as_reference(paths, labels) >= 10


@needs_corpus  # its seeds are the corpus's files
def test_mutated_files_read_as_the_reference_reads_them(tmp_path):
    seeds = fuzz.load_seeds("phh", phh_files=60)
    rng = random.Random(16)
    plain = [piece for suffix, piece in seeds.pieces if suffix == ".phh"]
    texts: dict[str, str | bytes] = {}
    for k in range(900):
        piece = rng.choice(plain)
        texts[f"m{k:04}.phh"] = fuzz.mutate(piece, rng, seeds)[0] if k % 4 else piece
    paths, labels = write(tmp_path / "mutated", texts)
    small = dataclasses.replace(DEFAULT_LIMITS, phh_max_hand_bytes=700, phh_max_line_bytes=600)
    assert assert_same_as_reference(paths, labels) >= 100
    assert_same_as_reference(paths, labels, small)


def _audits(folder: Path, monkeypatch) -> tuple:
    results = []
    for fast in (False, True):
        monkeypatch.setattr(phh_tables, "MIN_FILES", 0 if fast else 10**9)
        monkeypatch.setattr(phh_tables, "_loaded", False)
        results.append(audit([folder], pack="tda-2024", jobs=1, batch_size=700))
    return tuple(results)


def test_audits_through_both_paths_agree(tmp_path, monkeypatch):
    texts: dict[str, str | bytes] = dict(_exported())
    texts.update(_crafted())
    if CORPUS.is_dir():  # an even sample of the corpus (its whole audit: tests/test_corpus.py)
        for k, path in enumerate(sorted(CORPUS.rglob("*.phh"))[::5]):
            texts[f"c{k:04}.phh"] = path.read_bytes()
    folder = tmp_path / "audited"
    write(folder, texts)
    slow, fast = _audits(folder, monkeypatch)
    assert_audits_agree(fast, slow, 500 if CORPUS.is_dir() else 400)  # without the corpus: 500 hands exactly


@needs_corpus  # its seeds are the corpus's files
def test_a_partition_reads_runs_of_phh_inputs_as_chunks_with_read_pieces_items(tmp_path, monkeypatch):
    """`partition.read_pieces` with the columnar path: piece by piece, the items are `read_piece`'s, a run's hands
    coming as one chunk with the run's first piece (its other pieces give none), odd files as before."""
    from auditor.engines import partition
    from auditor.model.inputs import InputFile

    seeds = fuzz.load_seeds("phh", phh_files=40)
    rng = random.Random(5)
    plain = [piece for suffix, piece in seeds.pieces if suffix == ".phh"]
    inputs = []
    for k in range(150):
        data = fuzz.mutate(plain[k % len(plain)], rng, seeds)[0] if k % 5 == 4 else plain[k % len(plain)]
        name = "other.jsonl" if k == 70 else f"m{k:03}.phh"
        path = tmp_path / name
        path.write_bytes(b"{}\n" if k == 70 else data)
        inputs.append(InputFile(path, "jsonl" if k == 70 else "phh", name))
    pieces = [partition.Piece(i, item) for i, item in enumerate(inputs)]
    monkeypatch.setattr(phh_tables, "MIN_FILES", 0)
    monkeypatch.setattr("auditor.ingest.phh._BATCH_FILES", 32)  # runs cut into batches
    expected = [[repr(x) for x in partition.read_piece(p)] for p in pieces]
    got = []
    chunks = 0
    for piece, items in partition.read_pieces(pieces):
        shown = []
        for item in items:
            if isinstance(item, TableChunk):
                chunks += 1
                assert item.files()[0] == str(piece.input.path)
                shown += [[repr(h)] for h in item.sources()]
            else:
                shown.append([repr(item)])
        got.append((piece.input_index, shown))
    flat_got = [x for _i, shown in got for one in shown for x in one]
    assert flat_got == [x for items in expected for x in items]
    assert [i for i, _ in got] == list(range(len(pieces)))
    assert chunks >= 5


def test_edges_of_amounts_names_and_sizes(tmp_path):
    """Amounts at and past the log's bounds, decimals the kernel reads exactly or leaves, long action lists, names
    the reference strips: each file as the reference reads it."""
    head = "variant = 'NT'\nantes = [0, 0, 0]\nblinds_or_straddles = [1, 2, 0]\n"
    deal = "'d dh p1 AsKs', 'd dh p2 QdQc', 'd dh p3 7h8c'"
    texts = {
        "max.phh": head + f"starting_stacks = [{10**15 - 10}, 5, 5]\nactions = [{deal}, 'p3 f', "
                          f"'p1 cbr {10**15 - 10}', 'p2 f']\nfinishing_stacks = [{10**15 - 8}, 3, 5]\n",
        "over.phh": head + f"starting_stacks = [{10**15 + 1}, 5, 5]\nactions = [{deal}]\n",
        "fine.phh": head + "starting_stacks = [5, 5, 5]\nactions = [" + deal + ", 'p3 cbr 0.0000001']\n",
        "digits15.phh": head + "starting_stacks = [1234567890.12345, 5, 5]\nactions = [" + deal + ", 'p3 f', 'p1 f']"
                               "\nfinishing_stacks = [1234567889.12345, 6, 5]\n",
        "digits16.phh": head + "starting_stacks = [12345678901.12345, 5, 5]\nactions = [" + deal + ", 'p3 f', 'p1 f']"
                               "\nfinishing_stacks = [12345678900.12345, 6, 5]\n",
        "eighths.phh": head + "starting_stacks = [12.125, 5, 5]\nactions = [" + deal + ", 'p3 f', 'p1 f']"
                              "\nwinnings = [0, 2, 0]\n",
        "halves.phh": head + "starting_stacks = [10.5, 5, 5.25]\nactions = [" + deal + ", 'p3 cbr 2.75', 'p1 f', "
                             "'p2 f']\nfinishing_stacks = [9.5, 3, 8.25]\n",
        "long.phh": head + "starting_stacks = [100, 100, 100]\nactions = [" + deal + ", 'p3 cc', 'p1 cc', 'p2 cc', "
                           + ", ".join(["'p1 cc'", "'p2 cc'", "'p3 cc'"] * 200)
                           + "]\nfinishing_stacks = [98, 104, 98]\n",
        "shows.phh": head + "starting_stacks = [100, 100, 100]\nactions = [" + deal + ", "
                            + ", ".join(["'p1 sm -'", "'p2 sm'", "'p3 sm 2c3c'"] * 300) + "]\n",
        "names.phh": head + "starting_stacks = [100, 100, 100]\nplayers = ['\u2003Ann\u2003', ' ', '" + "x" * 300
                            + "']\nactions = [" + deal + ", 'p3 f', 'p1 f']\nfinishing_stacks = [99, 101, 100]\n",
        "count.phh": head + "starting_stacks = [100, 100, 100]\nseat_count = -1\nactions = [" + deal + "]\n",
        "ten.phh": "variant = 'NT'\nantes = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\nblinds_or_straddles = [1, 2, 4, 0, 0, 0, "
                   "0, 0, 0, 0]\nstarting_stacks = [1, 2, 50, 50, 50, 50, 50, 50, 50, 50]\nactions = ['p4 f', "
                   "'p5 f', 'p6 f', 'p7 f', 'p8 f', 'p9 f', 'p10 f', 'p1 cc', 'p2 cc']\n",
    }
    paths, labels = write(tmp_path / "edges", texts)
    assert assert_same_as_reference(paths, labels) >= 8
