"""The PHH TOML fast path (`auditor.ingest.phh_toml`) must read every text exactly as `tomllib` does.

It is only a shortcut: on any text, `phh_toml.loads` returns what `tomllib.loads` returns (same keys,
same value types) or raises the same error. Held to that on the whole PHH corpus, on hand-picked
TOML corners the shortcut must leave to tomllib, and on fuzz-mutated PHH files.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from auditor.ingest import phh_toml

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "phh" / "data"
sys.path.insert(0, str(ROOT / "scripts"))
import fuzz  # noqa: E402


def assert_agrees(text: str) -> None:
    fuzz.check_phh_toml(text, "text")


@pytest.mark.skipif(not CORPUS.is_dir(), reason="needs ../shared/corpus")
def test_corpus_files_read_as_tomllib_reads_them_and_almost_all_by_the_fast_path():
    texts = [p.read_bytes().decode("utf-8-sig") for p in sorted(CORPUS.rglob("*.phh"))]
    assert len(texts) > 5000
    for text in texts:
        assert_agrees(text)
    fast = sum(phh_toml._flat(text) is not None for text in texts)
    assert fast / len(texts) > 0.99, fast  # the few others have comments or multi-line arrays


BASE = "variant = 'NT'\nantes = [0, 0]\nactions = ['d dh p1 AsKs', 'p1 cbr 20']\n"

#: TOML the fast path must not misread: each either parses to the same value or fails the same way
CORNERS = [
    "a = 007", "a = +1", "a = 1_000", "a = 1e5", "a = 1.5e3", "a = 1.", "a = .5", "a = inf", "a = nan",
    "a = -0", "a = -0.0", "a = 0.1", "a = 0x10", "a = 0o7", "a = 0b1", "a = 12345678901234567890",
    "a = " + "9" * 5000, "a = 1979-05-27", "a = 07:32:00", "a = 1979-05-27T07:32:00Z", "a = -",
    "a = 1\na = 2", "a = 1\nA = 2", "a = 'x'\n[t]\nb = 1", "a.b = 1", "'a' = 1", '"a" = 1', "a=1", "a\t=\t1\t",
    "a = 1 # note", "# note\na = 1", "  a = 1", "a = 1\r\nb = 2\r\n", "a = 1\rb = 2", "a = 1\r\r\nb = 2",
    "\r", "a = 1\r", "a = 1\n\r", "a = 1\r\n",
    "a = 'x\x00y'", "a = 'x\x7fy'", "a = 'x\ty'", "a = \"x\\ny\"", "a = \"x\\\"y\"", "a = \"tab\there\"",
    "a = 'it''s'", "a = \"it's\"", "a = '\"q\"'", "a = '''x'''", 'a = """x"""', "a = 'x\u2028y'", "a = 'é'",
    "a = []", "a = [,]", "a = [1,]", "a = [1,,2]", "a = [1 2]", "a = [[1], [2]]", "a = [1, 'x', true]",
    "a = [ 'x' , 'y' ]", "a = ['a, b', 'c]d']", "a = ['x'", "a = [\n1]", "a = {b = 1}", "a = true", "a = True",
    "a = false\nb = []", "", "\n\n", " \t\n", "\x0c\na = 1", "a = 1\n\x0b", "\ufeffa = 1", "a = 'x' 'y'",
    "a = 1 2", "= 1", "a =", "a = 'x'y'", "-a_b-9 = 1", "a = -1.25", "a = 1.000000000000000001",
]


@pytest.mark.parametrize("text", CORNERS)
def test_toml_corners_agree_with_tomllib(text):
    assert_agrees(text)
    assert_agrees(BASE + text)


@pytest.mark.skipif(not CORPUS.is_dir(), reason="needs ../shared/corpus: its seeds are the corpus's files")
def test_mutated_phh_files_agree_with_tomllib():
    seeds = fuzz.load_seeds("phh", phh_files=60)
    rng = random.Random(2026)
    took_fast = 0
    for _ in range(6000):
        _suffix, piece = rng.choice(seeds.pieces)
        data, _names = fuzz.mutate(piece, rng, seeds)
        text = data.decode("utf-8", "replace")
        assert_agrees(text)
        took_fast += phh_toml._flat(text) is not None
    assert took_fast > 1000, took_fast  # the mutations kept enough texts on the fast path to test it
