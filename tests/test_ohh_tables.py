"""OHH read column-wise (`auditor.ingest.ohh_tables`) gives what the object-by-object reader gives.

The contract, file by file: the items of `read_ohh_tables` are those of `read_ohh` in the same order, except that
runs of hands the fast path took come as TableChunks, whose tables equal `build_tables` of the reference's hands
(same columns, values and order: file and line included) and whose hands' dicts (`source`) are the reference's;
every other item (a hand the reference gave, a quarantine entry with its code, file, line and reason) is the
reference's own. Held on the corpus's OHH files, the fixtures, the rule examples and simulated hands written by
our writer (one object a line and pretty-printed), and mutants (the reader-identity test's JSON mutants, files of
many objects with one damaged in the middle, byte-level mutants of `scripts/fuzz.py`), also with small limits and
small blocks (the kernels compiled with NUMBA_BOUNDSCHECK=1: tests/conftest.py). Then audits through both paths
give the same findings, coverage, quarantines and counts.
"""

from __future__ import annotations

import dataclasses
import json
import random
import sys
from pathlib import Path

import pytest

from auditor.check.packs import resolve_pack
from auditor.export import ohh as ohh_export
from auditor.ingest import compiled, ohh_tables
from auditor.ingest.compiled import takes_column_wise
from auditor.ingest.jsonl import read_jsonl
from auditor.ingest.limits import DEFAULT_LIMITS
from auditor.ingest.ohh import read_ohh
from auditor.ingest.parquet import TableChunk
from auditor.ingest.tables import build_tables
from auditor.model.inputs import InputFile
from auditor.model.records import SourceHand
from auditor.pipeline import audit
from auditor.simulate import simulate_mixed

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus" / "ohh"
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(Path(__file__).parent))

import fuzz  # noqa: E402
from paths_agree import assert_audits_agree, assert_tables_equal  # noqa: E402
from test_reader_identity import cases as identity_cases  # noqa: E402

needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="needs ../shared/corpus")
PACK = resolve_pack("tda-2024")


def assert_same_as_reference(path: Path, limits=DEFAULT_LIMITS, **sizes) -> tuple[int, int]:
    """The contract above for one file; returns (hands the fast path took, hands in all)."""
    expected = list(read_ohh(path, limits=limits))
    got = list(ohh_tables.read_ohh_tables(path, limits, **sizes))
    assert not ohh_tables.FAILURES, ohh_tables.FAILURES
    taken = 0
    k = 0
    for item in got:
        if isinstance(item, TableChunk):
            m = item.num_hands
            hands = expected[k:k + m]
            assert len(hands) == m and all(isinstance(h, SourceHand) for h in hands), (path, k, hands[:2])
            assert_tables_equal(item.tables, build_tables(hands))
            assert item.quarantined == ()
            for i in sorted({0, m - 1, m // 2}):
                assert repr(item.source(i)) == repr(hands[i])
            taken += m
            k += m
            continue
        assert k < len(expected), (path, item)
        assert repr(item) == repr(expected[k]), path
        k += 1
    assert k == len(expected), (path, k, len(expected))
    return taken, sum(isinstance(x, SourceHand) for x in expected)


def _pretty(text: str) -> str:
    """Objects one per line written pretty-printed (indented, the closing brace in column 0), blank-line separated."""
    out = []
    for line in text.splitlines():
        if line.strip():
            out.append(json.dumps(json.loads(line), indent=2, ensure_ascii=False))
    return "\n\n".join(out) + "\n"


def _written(tmp: Path) -> dict[str, Path]:
    """The rule examples and simulated hands (cash games with cents and tournaments in chips, every structure,
    sitting out and rake) written by our OHH writer, one object a line and pretty-printed."""
    hands = [item.hand for path in sorted((ROOT / "rules" / "examples").rglob("*.jsonl"))
             for item in read_jsonl(path) if isinstance(item, SourceHand)]
    games = [("holdem", "no-limit"), ("holdem", "pot-limit"), ("holdem", "fixed-limit"), ("omaha", "pot-limit")]
    hands += list(simulate_mixed(games, 400, 11, house=PACK.house, rule_pack=PACK.name, table_size=(2, 9),
                                 sit_outs=True, rake=PACK.house.rake, chip_unit_mix=(0.3, 1)))
    hands = [hand for hand in hands if ohh_export.cannot_express(hand) is None]
    line_wise = tmp / "written.ohh"
    ohh_export.write_hands(hands, line_wise)
    pretty = tmp / "pretty.ohh"
    pretty.write_text(_pretty(line_wise.read_text(encoding="utf-8")), encoding="utf-8")
    return {"line-wise": line_wise, "pretty": pretty}


@needs_corpus
def test_the_corpus_reads_as_the_reference_reads_it():
    paths = sorted(p for p in CORPUS.rglob("*") if p.is_file())
    taken = total = 0
    for path in paths:
        t, n = assert_same_as_reference(path)
        taken, total = taken + t, total + n
    assert total >= 70 and taken >= total - 2, (taken, total)  # all but the spec example that needs "raise to"


def test_fixtures_rule_examples_and_simulated_hands(tmp_path):
    fixtures = sorted((ROOT / "tests" / "fixtures").rglob("*.ohh"))
    assert fixtures
    for path in fixtures:
        assert_same_as_reference(path)
    for kind, path in _written(tmp_path).items():
        taken, total = assert_same_as_reference(path)
        assert total > 300 and taken == total, (kind, taken, total)
        # small blocks and chunks: objects carried from block to block, runs cut into chunks
        assert assert_same_as_reference(path, block_bytes=5000, chunk_hands=7)[0] == taken


def test_mutated_files_read_as_the_reference_reads_them(tmp_path):
    small = dataclasses.replace(DEFAULT_LIMITS, ohh_max_hand_bytes=3000, ohh_max_line_bytes=2500)
    texts = [text for _name, text in identity_cases("ohh")]
    rng = random.Random(21)
    written = _written(tmp_path)["line-wise"].read_text(encoding="utf-8").split("\n\n")
    for k in range(40):  # a file of many good objects with mutants among them (a hand-over in the middle)
        good = rng.sample(written, 6)
        bad = rng.sample(texts, rng.choice((1, 2)))
        mixed = good[:3] + [b.rstrip("\n") for b in bad] + good[3:]
        rng.shuffle(mixed) if k % 3 == 0 else None
        texts.append("\n\n".join(x.strip("\n") for x in mixed) + "\n")
    seeds = fuzz.load_seeds("ohh", corpus=ROOT.parent / "shared" / "corpus")
    pieces = [piece for suffix, piece in seeds.pieces if suffix == ".ohh"]
    blobs: list[bytes] = [t.encode("utf-8", errors="surrogateescape") for t in texts]
    for _k in range(150):
        blobs.append(fuzz.mutate(rng.choice(pieces), rng, seeds)[0])
    path = tmp_path / "case.ohh"
    taken = 0
    for k, blob in enumerate(blobs):
        path.write_bytes(blob)
        taken += assert_same_as_reference(path)[0]
        if k % 4 == 0:
            assert_same_as_reference(path, small, block_bytes=700, chunk_hands=3)
    assert taken >= 150, taken


def _layouts(good: list[str]) -> dict[str, bytes]:
    """Files whose layout reaches every branch of the segmentation and hand-over: good objects around an open
    object, a damaged one and a stray line, blank lines inside an object, a byte order mark, an array, form
    feeds, CRLF, no blank lines, a pretty-printed object cut short, a last line without its newline."""
    a, b, c, d = good[:4]
    pretty = json.dumps(json.loads(b), indent=2)
    cases = {
        "open": f'{a}\n\n{{"ohh": {{"x": {{"y": 1}}}}\n\n{b}\n\n{c}\n',  # ends with } but is not closed
        "damaged-then-stray": f'{a}\n\n{{"ohh": x}}\n  stray\n{b}\n\n{c}\n',
        "damaged-then-good": f'{a}\n\n{{"ohh": x}}\n\n{b}\n\n{{"ohh": y}}\n\n{c}\n',
        "blank-inside": f'{a}\n\n' + pretty.replace("\n", "\n\n", 3) + f'\n\n{c}\n',
        "bom": f'\ufeff{a}\n\n{b}\n',
        "bom-pretty": f'\ufeff{pretty}\n{a}\n',
        "array": f'[{a},\n{b}]\n\n{c}\n',
        "form-feed": f'{a}\n\x0c\n{b}\n \t\n{c}\n',
        "crlf": f'{a}\r\n\r\n{pretty}'.replace("\n", "\r\n") + f'\r\n{c}\r\n',
        "packed": f'{a}\n{b}\n{pretty}\n{c}\n',
        "two-on-a-line": f'{a} {b}\n{c}\n',
        "cut": f'{a}\n\n{pretty[: len(pretty) // 2]}\n',
        "cut-one-line": f'{a}\n\n{b[: len(b) // 2]}',
        "no-newline": f'{a}\n\n{b}',
        "closing-comma": f'{a}\n\n{pretty},\n{c}\n',
        "indented": f'{a}\n\n  {b}\n\n{c}\n',
        "not-utf8": f'{a}\n\n'.encode() + b[:40].encode() + b"\xff" + b[40:].encode() + f'\n\n{c}\n'.encode(),
        "surrogate": f'{a}\n\n' + b.replace('"ohh": {', '"ohh": {"network_name": "\\ud800", ', 1) + f'\n\n{d}\n',
    }
    for k, flags in enumerate((["Fast"], ["Run_It_Twice"], ["BOMB-POT", "x"], ["Fast", "cap"], ["\u0130cap"],
                               ["Bomb"], [3], ["Zoom", ""], ["Kap", "\\u0041"])):
        flagged = json.dumps(json.loads(b) | {"ohh": json.loads(b)["ohh"] | {"flags": flags}}, ensure_ascii=k % 2)
        cases[f"flags-{k}"] = f'{a}\n\n{flagged}\n\n{c}\n'
    return {name: text if isinstance(text, bytes) else text.encode("utf-8") for name, text in cases.items()}


def test_layouts_and_hand_overs_read_as_the_reference_reads_them(tmp_path):
    good = _written(tmp_path)["line-wise"].read_text(encoding="utf-8").split("\n\n")[:4]
    small = dataclasses.replace(DEFAULT_LIMITS, ohh_max_hand_bytes=2 * max(map(len, good)),
                                ohh_max_line_bytes=max(map(len, good)) + 2)
    path = tmp_path / "case.ohh"
    for name, data in _layouts(good).items():
        path.write_bytes(data)
        for limits in (DEFAULT_LIMITS, small):
            for sizes in ({}, {"block_bytes": 300, "chunk_hands": 1}):
                assert assert_same_as_reference(path, limits, **sizes)[1] >= 1, name


_REPLACEMENTS = (None, "x", "", -1, 0, 1.5, 11, 10**16, 0.1234567, True, [], {}, ["Ah"], "Fold", "2024-01-01")


def _variants(obj: object, rng: random.Random, paths: int) -> list[str]:
    """`obj` with one value replaced by a value of another type, range or pattern (or its key dropped, or an
    unknown key added), at `paths` places drawn from all of them: objects the OHH schema or the mapping mostly
    refuses, one key at a time."""
    places: list[tuple] = []

    def walk(o: object, at: tuple) -> None:
        if isinstance(o, dict):
            for key, value in o.items():
                places.append((*at, key))
                walk(value, (*at, key))
        elif isinstance(o, list):
            for i, value in enumerate(o):
                places.append((*at, i))
                walk(value, (*at, i))

    walk(obj, ())
    out = []
    for place in rng.sample(places, min(paths, len(places))):
        for replacement in (*_REPLACEMENTS, "drop", "extra"):
            copy = json.loads(json.dumps(obj))
            parent = copy
            for step in place[:-1]:
                parent = parent[step]
            if replacement == "drop":
                del parent[place[-1]]
            elif replacement == "extra":
                target = parent[place[-1]]
                if not isinstance(target, dict):
                    continue
                target["unknown_key"] = 1
            else:
                parent[place[-1]] = replacement
            out.append(json.dumps(copy))
    return out


def test_objects_the_schema_or_mapping_refuses_are_never_taken(tmp_path):
    """One value at a time made wrong (type, range, pattern, enum, a key dropped or added) in written and
    corpus objects: the fast path takes exactly the objects the reference accepts, as it reads them."""
    written = [w for w in _written(tmp_path)["line-wise"].read_text(encoding="utf-8").split("\n\n") if w.strip()]
    seeds = [json.loads(written[k]) for k in (0, 1, 2, len(written) // 2, len(written) - 1)]
    if CORPUS.is_dir():
        seeds += [json.loads(p.read_text(encoding="utf-8")) for p in sorted(CORPUS.glob("spec-examples/*.ohh"))]
    rng = random.Random(7)
    path = tmp_path / "variants.ohh"
    taken = refused = 0
    for seed in seeds:
        lines = _variants(seed, rng, 60)
        path.write_text("\n\n".join(lines) + "\n", encoding="utf-8")
        t, n = assert_same_as_reference(path)
        taken, refused = taken + t, refused + len(lines) - n
    assert taken > 300 and refused > 1000, (taken, refused)


def _audits(folder: Path, monkeypatch) -> tuple:
    results = []
    for fast in (False, True):
        monkeypatch.setitem(compiled.MIN_FILE_BYTES, "ohh", 0 if fast else 10**15)
        results.append(audit([folder], pack="tda-2024", jobs=1, batch_size=300))
    return tuple(results)


def test_audits_through_both_paths_agree(tmp_path, monkeypatch):
    folder = tmp_path / "audited"
    folder.mkdir()
    for kind, path in _written(tmp_path).items():
        path.rename(folder / f"{kind}.ohh")
    texts = [text for _name, text in identity_cases("ohh")][:60]
    (folder / "mutants.ohh").write_text("\n\n".join(t.strip("\n") for t in texts) + "\n", encoding="utf-8",
                                        errors="surrogateescape")
    if CORPUS.is_dir():
        for k, path in enumerate(sorted(CORPUS.rglob("*.ohh"))):
            (folder / f"c{k}.ohh").write_bytes(path.read_bytes())
    slow, fast = _audits(folder, monkeypatch)
    assert_audits_agree(fast, slow, 500)


def test_the_threshold_keeps_small_files_gzip_and_labels_on_the_reference_path(tmp_path, monkeypatch):
    path = tmp_path / "a.ohh"
    path.write_bytes(b'{"ohh": {}}\n')
    assert not takes_column_wise(path, "ohh", str(path))  # small
    monkeypatch.setitem(compiled.MIN_FILE_BYTES, "ohh", 0)
    assert takes_column_wise(path, "ohh", str(path))
    assert not takes_column_wise(path, "jsonl", str(path))
    assert not takes_column_wise(path, "ohh", "inside.zip/a.ohh")
    assert not takes_column_wise(tmp_path / "gone.ohh", "ohh", str(tmp_path / "gone.ohh"))
    gz = tmp_path / "b.ohh"
    gz.write_bytes(b"\x1f\x8b" + b"\x00" * 20)
    assert not takes_column_wise(gz, "ohh", str(gz))
    assert [repr(x) for x in ohh_tables.read_ohh_tables(gz)] == [repr(x) for x in read_ohh(gz)]
    # the first-run notice names the OHH kernels exactly when the path will run them
    assert "auditor.ingest.ohh_kernel" in compiled.reader_modules([InputFile(path, "ohh", str(path))])
    assert "auditor.ingest.ohh_kernel" not in compiled.reader_modules([InputFile(gz, "ohh", str(gz))])
