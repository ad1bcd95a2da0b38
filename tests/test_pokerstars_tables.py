"""PokerStars text read column-wise (`auditor.ingest.pokerstars_tables`, `pokerstars_kernel`) against the reference.

The exactness contract: for every file, the items of `read_pokerstars_tables` are those of `read_pokerstars`
(`rule_pack`, `limits` the same), except that runs of hands the fast path took come as TableChunks: a chunk's
tables equal `build_tables` of the reference's hands at those places (same columns, values and order) and its
`source(i)` is the reference's very hand; every other item (each quarantine entry: code, file, line, reason,
ids; each reader note; each hand the fast path declined) is the reference's own, in the same order. Held on the
PokerStars corpus, every PokerStars fixture under tests/ (and their mutants, `test_reader_identity.cases`), the
rule examples and simulated hands written by our writer (the dialect's, `auditor.export.text_room`), byte-level
variants of them (line ends, blanks, limits, hostile bytes), with the kernels compiled with NUMBA_BOUNDSCHECK=1
(conftest).
Then audits through both paths give the same findings, coverage, quarantines and per-file counts.
"""

from __future__ import annotations

import dataclasses
import random
import sys
from pathlib import Path

import pytest

from auditor.check.packs import resolve_pack
from auditor.export.text_room import room_writer
from auditor.ingest import compiled, pokerstars_tables
from auditor.ingest.compiled import takes_column_wise
from auditor.ingest.jsonl import read_jsonl
from auditor.ingest.limits import DEFAULT_LIMITS, Limits
from auditor.ingest.parquet import TableChunk
from auditor.ingest.pokerstars import read_pokerstars
from auditor.ingest.pokerstars_tables import read_pokerstars_tables
from auditor.ingest.tables import build_tables
from auditor.model.records import SourceHand
from auditor.pipeline import audit
from auditor.simulate import simulate_mixed

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "pokerstars"
sys.path.insert(0, str(ROOT / "tests"))
from paths_agree import assert_audits_agree, assert_tables_equal  # noqa: E402
from test_reader_identity import cases  # noqa: E402

needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="needs ../shared/corpus")

ps_export = room_writer("pokerstars")


def assert_same_as_reference(path: Path, limits: Limits = DEFAULT_LIMITS, rule_pack: str = "tda-2024",
                             **kwargs) -> int:
    """The contract above for one file; returns how many hands the fast path took."""
    del pokerstars_tables.FAILURES[:]
    got = list(read_pokerstars_tables(path, limits, rule_pack, **kwargs))
    assert not pokerstars_tables.FAILURES, pokerstars_tables.FAILURES
    expected = list(read_pokerstars(path, rule_pack=rule_pack, limits=limits))
    taken = 0
    k = 0
    for item in got:
        if not isinstance(item, TableChunk):
            assert k < len(expected), (path, item)
            assert item == expected[k], (path, item, expected[k])
            k += 1
            continue
        n = item.num_hands
        assert n > 0
        hands = expected[k:k + n]
        assert len(hands) == n and all(isinstance(h, SourceHand) for h in hands), (path, k, hands[:1])
        assert_tables_equal(item.tables, build_tables(hands))
        assert item.quarantined == ()
        for i in {0, n // 2, n - 1}:
            assert item.source(i) == hands[i]
        assert list(item.files()) == [str(path)] * n
        taken += n
        k += n
    assert k == len(expected), (path, k, len(expected))
    return taken


def _write(folder: Path, name: str, data: str | bytes) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data)
    return path


def _writer_text(hands: list[dict]) -> str:
    """Hands as our writer writes them (those it can express), one text."""
    blocks = ["\n".join(ps_export.format_hand(h)) for h in hands if ps_export.cannot_express(h) is None]
    return "\n\n\n".join(blocks) + "\n"


def _simulated(count: int, seed: int) -> list[dict]:
    """Hands of every game PokerStars text holds, tables of 2-9 seats with players sitting out, cash and chips."""
    out: list[dict] = []
    for k, (pack_name, games) in enumerate((
            ("tda-2024", [("holdem", "no-limit"), ("holdem", "pot-limit"), ("holdem", "fixed-limit"),
                          ("omaha", "pot-limit"), ("omaha", "no-limit")]),
            ("online-five-card-draw", [("five-card-draw", "fixed-limit")]))):
        pack = resolve_pack(pack_name)
        out += list(simulate_mixed(games, count, seed + k, house=pack.house, rule_pack=pack.name, table_size=(2, 9),
                                   sit_outs=True, rake=pack.house.rake, table_prefix=f"T{k}-",
                                   chip_unit_mix=(0.3, 1)))
    return out


@pytest.fixture(scope="module")
def simulated_text() -> str:
    return _writer_text(_simulated(500, 11))


def _examples() -> list[dict]:
    return [item.hand for path in sorted((ROOT / "rules" / "examples").rglob("*.jsonl"))
            for item in read_jsonl(path) if isinstance(item, SourceHand)]


@needs_corpus
def test_the_corpus_reads_as_the_reference_reads_it():
    paths = sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.name.lower().endswith(".txt"))
    assert len(paths) > 50
    taken = sum(assert_same_as_reference(p) for p in paths)
    assert taken >= 150, taken  # of 212 hands the reference reads


def test_every_fixture_and_its_mutants_read_as_the_reference_reads_them(tmp_path):
    taken = 0
    for k, (_name, text) in enumerate(cases("pokerstars")):
        taken += assert_same_as_reference(_write(tmp_path, f"case{k:04}.txt", text))
    assert taken >= 180, taken  # of 237 hands the reference reads


def test_rule_examples_written_as_pokerstars_read_as_the_reference_reads_them(tmp_path):
    text = _writer_text(_examples())
    path = _write(tmp_path, "examples.txt", text)
    assert assert_same_as_reference(path) >= 50
    # one hand a file too: a declined hand next to taken ones, or alone, reads the same
    blocks = text.split("\n\n\n")
    for k, block in enumerate(blocks[::7]):
        assert_same_as_reference(_write(tmp_path, f"one{k:03}.txt", block + "\n"))


def test_simulated_hands_read_as_the_reference_reads_them(tmp_path, simulated_text):
    path = _write(tmp_path, "simulated.txt", simulated_text)
    hands = simulated_text.count("PokerStars Hand #")
    taken = assert_same_as_reference(path)
    assert taken >= hands * 0.95, (taken, hands)
    # batches and chunks of other sizes cut the runs elsewhere: the same items
    assert assert_same_as_reference(path, batch_hands=37, chunk_hands=5) == taken
    assert assert_same_as_reference(path, rule_pack="house") == taken


def _variants(text: str, rng: random.Random) -> dict[str, str | bytes]:
    """The same hands with the file-level conventions the reference reads: line ends, blanks, padding, text
    before the first hand, odd bytes."""
    lines = text.split("\n")
    out: dict[str, str | bytes] = {
        "crlf": text.replace("\n", "\r\n"),
        "cr": text.replace("\n", "\r"),
        "mixed-ends": "".join(line + rng.choice(("\n", "\r\n", "\r", "\n\n")) for line in lines),
        "padded": "\n".join(rng.choice(("", " ", "\t", "  \t")) + line + rng.choice(("", " ", "\t "))
                            for line in lines),
        "fragment-first": "Seat 1: x (5 in chips)\nx: folds\n\n" + text,
        "title-first": "My hands\n" + text,
        "no-final-newline": text.rstrip("\n"),
        "odd-blanks": "\n".join(line if rng.random() > 0.05 else rng.choice(("\x0b", "\x1c", "\u3000", "\u00a0",
                                                                               " \x0c ", "\u2028")) + "\n" + line
                                for line in lines),
        "bom": "\ufeff" + text,
        "separators": text.replace("\n\n\nPokerStars", "\n\n*********** # 2 **************\nPokerStars", 3),
        "inner-name": text.replace("-p1", "-PokerStars Hand #1: ", 5),
        "latin-1": text.replace("-p2", "-p\u00e9").encode("latin-1", "replace"),
        "utf-16": text[:3000].encode("utf-16"),
        "nul-bytes": text.replace("-p3", "-p\x003", 3),
        # characters the reference folds or strips: a header it reads where the kernel would see none
        "kelvin": text.replace("\n\n\nPokerStars Hand", "\n\n\nPo\u212aerStars Hand", 2),
        "long-s": text.replace("\n\n\nPokerStars Hand", "\n\n\nPokerStar\u017f Hand", 2),
        "feff-inside": text.replace("\n*** SUMMARY", "\n\ufeff*** SUMMARY", 2),
        "separator-alone": text.replace("\n\n\nPokerStars", "\n\n* #3\nPokerStars", 1),
    }
    return out


def test_file_level_variants_read_as_the_reference_reads_them(tmp_path, simulated_text):
    rng = random.Random(3)
    text = simulated_text[:60_000]
    text = text[:text.rindex("\n\n\nPokerStars")] + "\n"
    for name, data in _variants(text, rng).items():
        assert_same_as_reference(_write(tmp_path, f"{name}.txt", data))
    path = _write(tmp_path, "limits.txt", text)
    for limits in (dataclasses.replace(DEFAULT_LIMITS, pokerstars_max_hand_bytes=1500),
                   dataclasses.replace(DEFAULT_LIMITS, pokerstars_max_line_bytes=60)):
        assert_same_as_reference(path, limits)


_NAMES = ["a", "ab", "Dealt", "Uncalled", "*** x", "x: y", "x:", "é", "Ωmega", "a b", " lead", "trail ", "a(1)",
          "[x]", "x said", "Seat 1", "Total pot", "PokerStars", "\u2028", "\x00", "99", "$5", "a\tb", "D"]
_AMOUNT_WORDS = ["0", "1", "1,000", "10,00", "1,0000", "1.5", "1.50", "1.005", "$1", "€2", "£0.5", "0001", "1e5",
                 "\u0661", "99999999999999999", "1.", ".5", "-1", "2,000,000"]


def _mutant(lines: list[str], rng: random.Random) -> list[str]:
    """A hand changed a little: a name, an amount or a byte changed, a line dropped or doubled, a line of
    another kind put in (most mutants stay near what the fast path takes, so its own declines are reached)."""
    lines = list(lines)
    for _ in range(rng.randint(1, 3)):
        if not lines:
            break
        i = rng.randrange(len(lines))
        line = lines[i]
        op = rng.randrange(8)
        if op == 0:
            words = line.split(" ")
            numeric = [k for k, w in enumerate(words) if any(c.isdigit() for c in w)]
            if numeric:
                words[rng.choice(numeric)] = rng.choice(_AMOUNT_WORDS)
            lines[i] = " ".join(words)
        elif op == 1:
            seat_names = [ln.split(": ", 1)[1].rsplit(" (", 1)[0] for ln in lines if ln.startswith("Seat ")
                          and ": " in ln and " in chips" in ln]
            if seat_names:
                old = rng.choice(seat_names)
                new = rng.choice([*_NAMES, old[:-1], old + "x", rng.choice(seat_names)])
                lines = [ln.replace(old, new) if rng.random() < 0.9 else ln for ln in lines]
        elif op == 2:
            del lines[i]
        elif op == 3:
            lines.insert(i, line)
        elif op == 4 and line:
            k = rng.randrange(len(line))
            lines[i] = line[:k] + rng.choice("[]():,.#*$ x9\t") + line[k + 1:]
        elif op == 5:
            lines.insert(i, rng.choice(("x: sits out", "*** FIRST FLOP *** [2c 3c 4c]", "Hand cancelled",
                                        "Betting is capped", "*** DRAW ***", "Total pot 5 | Rake 1")))
        elif op == 6:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        else:
            lines[i] = line[:rng.randrange(len(line) + 1)]
    return lines


def test_a_mutation_property_holds_the_paths_equal(tmp_path, simulated_text):
    """Mutated files of several hands each (the kernels compiled with bounds checks: an index out of range
    would raise, and fail this test through FAILURES or an error)."""
    rng = random.Random(16)
    blocks = [b.split("\n") for b in simulated_text.split("\n\n\n") if b.startswith("PokerStars")]
    for k in range(150):
        hands = [rng.choice(blocks) for _ in range(rng.randint(1, 6))]
        hands = [_mutant(h, rng) if rng.random() < 0.7 else h for h in hands]
        text = "\n\n".join("\n".join(h) for h in hands) + "\n"
        assert_same_as_reference(_write(tmp_path, f"m{k:03}.txt", text))


@needs_corpus
def test_corpus_hands_mutated_keep_the_paths_equal(tmp_path):
    """The room's own hands (amounts in dollars, rake, chat, players coming and going) mutated, some files with a
    byte-order mark or CR LF line ends."""
    rng = random.Random(8)
    blocks: list[list[str]] = []
    for path in sorted(CORPUS.rglob("*.txt")):
        lines = path.read_bytes().decode("utf-8", "replace").lstrip("\ufeff").replace("\r\n", "\n").split("\n")
        for line in lines:
            if line.startswith("PokerStars ") or not blocks:
                blocks.append([])
            blocks[-1].append(line)
    blocks = [b for b in blocks if b[0].startswith("PokerStars ")]
    for k in range(120):
        hands = [rng.choice(blocks) for _ in range(rng.randint(1, 4))]
        hands = [_mutant(h, rng) if rng.random() < 0.8 else h for h in hands]
        text = ("\ufeff" if rng.random() < 0.3 else "") + "\n\n".join("\n".join(h) for h in hands) + "\n"
        assert_same_as_reference(_write(tmp_path, f"c{k:03}.txt", text.replace("\n", "\r\n") if k % 3 == 0 else
                                        text))


def test_bytes_flipped_keep_the_paths_equal(tmp_path, simulated_text):
    rng = random.Random(7)
    data = simulated_text[:40_000].encode()
    for k in range(40):
        mutated = bytearray(data)
        for _ in range(rng.randint(1, 20)):
            at = rng.randrange(len(mutated))
            mutated[at] = rng.randrange(256) if rng.random() < 0.5 else rng.choice(b" \n\r\t[]:()$,.#*")
        assert_same_as_reference(_write(tmp_path, f"b{k:02}.txt", bytes(mutated)))


def test_the_threshold_sends_small_files_to_the_reference(tmp_path, monkeypatch):
    small = _write(tmp_path, "small.txt", "PokerStars Hand #1: x\n")
    assert not takes_column_wise(small, "pokerstars", str(small))
    monkeypatch.setitem(compiled.MIN_FILE_BYTES, "pokerstars", 0)
    assert takes_column_wise(small, "pokerstars", str(small))
    assert not takes_column_wise(small, "pokerstars", "label")  # a label put in place of the path
    assert not takes_column_wise(small, "jsonl", str(small))
    assert not takes_column_wise(tmp_path / "gone.txt", "pokerstars", str(tmp_path / "gone.txt"))


def test_the_first_run_notice_names_the_kernels_a_large_file_compiles(tmp_path, monkeypatch, simulated_text):
    from auditor.ingest import compiled
    from auditor.pipeline import discover

    path = _write(tmp_path, "big.txt", simulated_text[:20_000])
    inputs, _ = discover([path])
    assert "auditor.ingest.pokerstars_kernel" not in compiled.reader_modules(inputs)
    monkeypatch.setitem(compiled.MIN_FILE_BYTES, "pokerstars", 0)
    assert set(compiled.reader_modules(inputs)) == {"auditor.ingest.pokerstars_kernel",
                                                    "auditor.ingest.columnar_kernels",
                                                    "auditor.ingest.columnar_validate"}


def _audits(folder: Path, monkeypatch) -> tuple:
    results = []
    for fast in (False, True):
        monkeypatch.setitem(compiled.MIN_FILE_BYTES, "pokerstars", 0 if fast else 1 << 62)
        results.append(audit([folder], pack="tda-2024", jobs=1, batch_size=300))
    return tuple(results)


def test_audits_through_both_paths_agree(tmp_path, monkeypatch, simulated_text):
    folder = tmp_path / "audited"
    _write(folder, "simulated.txt", simulated_text)
    _write(folder, "examples.txt", _writer_text(_examples()))
    rng = random.Random(9)
    blocks = [b.split("\n") for b in simulated_text.split("\n\n\n") if b.startswith("PokerStars")]
    _write(folder, "mutated.txt", "\n\n".join("\n".join(_mutant(rng.choice(blocks), rng) if k % 3 == 0 else
                                                        rng.choice(blocks)) for k in range(200)) + "\n")
    if CORPUS.is_dir():
        for k, path in enumerate(sorted(CORPUS.rglob("*.txt"))[::4]):
            _write(folder, f"c{k:03}.txt", path.read_bytes())
    slow, fast = _audits(folder, monkeypatch)
    assert_audits_agree(fast, slow, 1000)
    assert not pokerstars_tables.FAILURES


def test_a_run_told_to_read_pokerstars_the_reference_way_never_takes_the_column_wise_path(tmp_path, monkeypatch,
                                                                                         simulated_text):
    """A first run's plan (`Prepared.reference_formats`, `ingest.compiled.reference_first`) reaches the readers
    through `RunOptions`: a file the column-wise path would take is read by the reference reader instead, and the
    audit is the same as the column-wise one."""
    from contextlib import nullcontext

    from auditor.model.compiled import Prepared

    folder = tmp_path / "audited"
    _write(folder, "simulated.txt", simulated_text)
    _write(folder, "examples.txt", _writer_text(_examples()))  # hands with findings
    monkeypatch.setitem(compiled.MIN_FILE_BYTES, "pokerstars", 0)
    column = audit([folder], pack="tda-2024", jobs=1, batch_size=300)

    def refused(*args, **kwargs):
        raise AssertionError("the column-wise path was taken")

    monkeypatch.setattr(pokerstars_tables, "read_pokerstars_tables", refused)
    reference = audit([folder], pack="tda-2024", jobs=1, batch_size=300,
                      prepare=lambda inputs, engine: Prepared(nullcontext(), False, frozenset({"pokerstars"})))
    assert_audits_agree(column, reference, 400)
