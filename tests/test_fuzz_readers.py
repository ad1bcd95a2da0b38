"""Fuzzing every reader and audit() with mutated real hand histories (Hypothesis), and the regression
tests of every crash the fuzzer found, each holding its minimal reproducer.

The property: whatever the bytes, a reader yields only hands that pass the canonical schema and
quarantine entries whose reason is one printable line naming file and line; no exception escapes,
no reader error is even contained (scripts/fuzz.py `check_items`); and audit() over fuzzed inputs
reconciles hands read = audited + quarantined, for the run and per file. The mutators, seeds and checks
are those of `scripts/fuzz.py`, which runs the same property for millions of inputs; here Hypothesis
draws the seed piece, the mutators and their randomness, so a failure shrinks to a small example.

The corpus in ../shared/corpus/ adds seeds when it is beside the project; without it the sample logs
and test fixtures are the seeds.
"""

from __future__ import annotations

import gzip
import io
import random
import re
import shutil
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reader_items import one_by_one

from auditor.ingest import detect
from auditor.ingest.detect import read_file
from auditor.ingest.limits import Limits
from auditor.model.records import Quarantined, SourceHand
from auditor.pipeline import audit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import fuzz  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures"
REPRODUCERS = FIXTURES / "fuzz"
TEXT_READERS = ("jsonl", "pokerstars", "ohh", "phh", "pokernow")
#: every mutator but the 10 MB line, which tests/test_limits.py covers once per reader
CHEAP = sorted(set(fuzz.MUTATORS) - {"huge_line"})
FUZZ = settings(deadline=None, database=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

_SEEDS: dict[str, fuzz.Seeds] = {}


def seeds(reader: str) -> fuzz.Seeds:
    if reader not in _SEEDS:
        _SEEDS[reader] = fuzz.load_seeds(reader, phh_files=60)
    return _SEEDS[reader]


def read_bytes(data: bytes, suffix: str, fmt: str, limits: Limits | None = None) -> list:
    """Write `data` to a file with `suffix`, read it as `fmt` and check the reader's contract."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"input{suffix}"
        path.write_bytes(data)
        items = list(read_file(path, fmt, None, limits))
        fuzz.check_items(items, str(path))
        return items


def _reconcile(folder: Path, fmt: str) -> None:
    fuzz.check_audit(folder, fmt, Limits())


# --------------------------------------------------------------------------------------- properties


@pytest.mark.parametrize("reader", TEXT_READERS)
@settings(FUZZ, max_examples=60)
@given(data=st.data())
def test_reader_keeps_its_contract_on_mutated_seeds(reader, data):
    pool = seeds(reader)
    suffix, piece = pool.pieces[data.draw(st.integers(0, len(pool.pieces) - 1), label="piece")]
    names = data.draw(st.lists(st.sampled_from(CHEAP), min_size=1, max_size=3), label="mutators")
    rng = random.Random(data.draw(st.integers(0, 2**32 - 1), label="rng"))
    mutated, _ = fuzz.mutate(piece, rng, pool, names)
    wrapped, suffix, _ = fuzz.wrap(mutated, suffix, rng)
    mode = data.draw(st.sampled_from((reader, "auto")), label="mode")
    read_bytes(wrapped, suffix, mode)


@settings(FUZZ, max_examples=25)
@given(seed=st.integers(0, 2**32 - 1))
def test_parquet_reader_keeps_its_contract_on_mutated_datasets(seed):
    rng = random.Random(seed)
    tables = None
    while tables is None:
        tables = fuzz.parquet_tables(seeds("parquet").pick(rng)[1])
    with tempfile.TemporaryDirectory() as tmp:
        dataset = Path(tmp) / "dataset"
        fuzz.write_dataset(dataset, tables, rng)
        fuzz.check_items(list(read_file(dataset, "parquet")), str(dataset))


@pytest.mark.parametrize("reader", TEXT_READERS)
@settings(FUZZ, max_examples=4)
@given(seed=st.integers(0, 2**32 - 1))
def test_audit_of_mutated_inputs_reconciles_per_file(reader, seed):
    """Several fuzzed files audited together: audit() never raises and every count adds up."""
    rng = random.Random(seed)
    pool = seeds(reader)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for k in range(6):
            suffix, piece = pool.pick(rng)
            mutated, _ = fuzz.mutate(piece, rng, pool)
            data, suffix, _ = fuzz.wrap(mutated, suffix, rng)
            (folder / f"in{k}{suffix}").write_bytes(data)
        _reconcile(folder, reader)


# ----------------------------------------------------------------------- the named hostile cases


CASES = {
    "truncated hands": ["truncate"],
    "shuffled lines": ["shuffle_lines"],
    "wrong encodings": ["encoding"],
    "NUL bytes": ["nul"],
    "deeply nested JSON": ["deep_nesting"],
    "huge and negative numbers": ["numbers"],
    "duplicate hand ids": ["duplicate_hand"],
    "unknown cards and cards dealt twice": ["cards"],
    "random byte flips": ["flip"],
    "control characters and escapes in names": ["names"],
    "empty inputs": ["blank_out"],
}


@pytest.mark.parametrize("reader", TEXT_READERS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_named_hostile_case(reader, case):
    """Each named hostile case on twelve seeds of every reader (fixed randomness, so failures repeat)."""
    pool = seeds(reader)
    for k in range(12):
        rng = random.Random(f"{reader}:{case}:{k}")
        suffix, piece = pool.pick(rng)
        mutated, _ = fuzz.mutate(piece, rng, pool, CASES[case])
        read_bytes(mutated, suffix, reader)


def test_duplicate_hand_ids_are_read_and_found_not_lost(tmp_path):
    line = (ROOT / "sample_logs" / "holdem.jsonl").open("rb").readline()
    (tmp_path / "twice.jsonl").write_bytes(line + line)
    result = audit([tmp_path], pack="tda-2024")
    assert result.hands_read == 2 == result.hands_audited  # both audited, neither dropped
    assert list(result.findings["rule_id"]) == ["TDA-INT-id"]
    assert list(result.findings["line"]) == [2]


def test_corpus_seeds_are_used_when_present():
    corpus = ROOT.parent / "shared" / "corpus"
    if not (corpus / "pokerstars").is_dir():
        pytest.skip("the corpus is not beside the project")
    fixtures_only = fuzz.load_seeds("pokerstars", corpus=Path("/nonexistent"))
    assert len(seeds("pokerstars").pieces) > len(fixtures_only.pieces)


# ---------------------------------------------------------- regressions: crashes the fuzzer found


def _damaged_gzip(data: bytes) -> bytes:
    """A gzip stream whose deflate data is corrupt (a flipped byte after the 10-byte header)."""
    packed = bytearray(gzip.compress(data, compresslevel=1, mtime=0))
    packed[12] ^= 0xFF
    packed[14] ^= 0x55
    return bytes(packed)


@pytest.mark.parametrize(("fixture", "fmt"), [
    ("../../sample_logs/damaged.jsonl", "jsonl"), ("pokerstars/five_card_draw.txt", "pokerstars"),
    ("ohh/side-pot.ohh", "ohh"), ("phh/side-pots.phhs", "phh"),
])
def test_damaged_gzip_is_quarantined_in_every_reader(fixture, fmt):
    """zlib.error ('invalid distance too far back') escaped read_jsonl, read_ohh, read_all and detect."""
    data = (FIXTURES / fixture).read_bytes()
    suffix = Path(fixture).suffix + ".gz"
    items = read_bytes(_damaged_gzip(data), suffix, fmt)
    assert items and any(isinstance(i, Quarantined) for i in items)
    read_bytes(_damaged_gzip(data), suffix, "auto")  # detection reads the head through gzip too


def test_saved_damaged_gzip_reproducer():
    """The first crash of the fuzzer, as it found it: a JSON Lines hand whose gzip has one flipped bit."""
    path = REPRODUCERS / "damaged-deflate.jsonl.gz"
    items = list(read_file(path, "jsonl"))
    fuzz.check_items(items, str(path))
    assert [type(i) for i in items] == [Quarantined]
    assert "damaged or truncated compressed data" in items[0].reason


def test_zip_member_with_unknown_compression_is_quarantined(tmp_path):
    """NotImplementedError ('That compression method is not supported') escaped _read_zip."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("a.jsonl", b"{}\n")
    data = bytearray(buf.getvalue())
    data[8] = 99  # compression method of the local header
    data[data.index(b"PK\x01\x02") + 10] = 99  # and of the central directory entry
    path = tmp_path / "odd.zip"
    path.write_bytes(bytes(data))
    items = list(read_file(path))
    fuzz.check_items(items, str(path))
    assert len(items) == 1 and "unreadable archive member" in items[0].reason


def test_zip_member_without_a_name_is_quarantined():
    """zipfile's ZipInfo.is_dir() raised IndexError on a member named '' (found by scripts/fuzz.py)."""
    path = Path(__file__).resolve().parent / "fixtures" / "fuzz" / "zip-member-without-name.zip"
    items = list(read_file(path))
    fuzz.check_items(items, str(path))
    assert [i.reason for i in items if isinstance(i, Quarantined)] == ["archive member without a name (refused)"]


BIG = "9" * 5000  # Python refuses int() of more than 4,300 digits with ValueError


def test_five_thousand_digit_numbers_are_quarantined_in_every_reader():
    """ValueError ('Exceeds the limit (4300 digits) for integer string conversion') escaped json.loads in
    the JSONL and OHH readers, tomllib and the player token in PHH, and int() of seat numbers in PokerStars."""
    jsonl = read_bytes(f'{{"hand_id": "x", "max_seats": {BIG}}}\n'.encode(), ".jsonl", "jsonl")
    assert "invalid JSON" in jsonl[0].reason
    ohh = read_bytes(f'{{"ohh": {{"table_size": {BIG}}}}}\n'.encode(), ".ohh", "ohh")
    assert "invalid JSON" in ohh[0].reason
    phh = read_bytes(f"variant = 'NT'\nhand = {BIG}\n".encode(), ".phh", "phh")
    assert "invalid TOML" in phh[0].reason
    player = (REPRODUCERS / "phh-player-digits.phh").read_bytes()
    assert b"p" + b"9" * 5000 in player
    phh = read_bytes(player, ".phh", "phh")
    assert "unknown player" in phh[0].reason
    log = (FIXTURES / "pokernow" / "clean.csv").read_text(encoding="utf-8")
    items = read_bytes(log.replace("(1000)", f"({BIG})", 1).encode(), ".csv", "pokernow")
    assert any("an amount above 10^15" in getattr(i, "reason", "") for i in items)
    items = read_bytes(log.replace("#5 ", f"#{BIG} ", 1).encode(), ".csv", "pokernow")
    assert any("(the log numbers seats 1..10)" in getattr(i, "reason", "") for i in items)
    stars = (FIXTURES / "pokerstars" / "sitting_out.txt").read_text(encoding="utf-8")
    stars = re.sub(r"^Seat 1:", f"Seat {BIG}:", stars, count=1, flags=re.MULTILINE)
    items = read_bytes(stars.encode(), ".txt", "pokerstars")
    assert "out of range" in items[0].reason


def test_pokerstars_amount_of_thousands_of_digits_is_refused():
    """A 5,000-digit stack became a 5,000-digit integer, which jsonschema-rs passes as valid: the hand
    would have reached the int64 tables."""
    log = (FIXTURES / "pokernow" / "clean.csv").read_text(encoding="utf-8")
    items = read_bytes(log.replace("(1000)", f"({BIG})", 1).encode(), ".csv", "pokernow")
    assert any("an amount above 10^15" in getattr(i, "reason", "") for i in items)
    items = read_bytes(log.replace("#5 ", f"#{BIG} ", 1).encode(), ".csv", "pokernow")
    assert any("(the log numbers seats 1..10)" in getattr(i, "reason", "") for i in items)
    stars = (FIXTURES / "pokerstars" / "sitting_out.txt").read_text(encoding="utf-8")
    huge = re.sub(r"\(\$?[\d.,]+ in chips", f"(${BIG} in chips", stars, count=1)
    assert huge != stars
    items = read_bytes(huge.encode(), ".txt", "pokerstars")
    assert isinstance(items[0], Quarantined) and "too large" in items[0].reason
    tiny = re.sub(r"\(\$?[\d.,]+ in chips", r"($0.0000001 in chips", stars, count=1)
    assert "decimal places" in read_bytes(tiny.encode(), ".txt", "pokerstars")[0].reason


def test_hexadecimal_toml_integer_of_thousands_of_digits_is_quarantined():
    """tomllib reads `hand = 0x999...` of any length; str() of it raised ValueError while the hand id was
    built (contained as 'reader error: ValueError'). Found by the long fuzz run; its reproducer."""
    path = REPRODUCERS / "phh-hex-hand-number.phh"
    items = list(read_file(path, "phh"))
    fuzz.check_items(items, str(path))
    assert len(items) == 1 and "more than 30 digits" in items[0].reason


def test_deep_toml_nesting_is_quarantined():
    """RecursionError escaped tomllib.loads in the PHH reader (and its table-by-table fallback)."""
    deep = b"variant = 'NT'\nactions = " + b"[" * 20000 + b"]" * 20000 + b"\n"
    assert "nested too deeply" in read_bytes(deep, ".phh", "phh")[0].reason
    tables = (FIXTURES / "phh" / "side-pots.phhs").read_bytes() + b"\n[9]\nx = " + b"[" * 20000 + b"\n"
    items = read_bytes(tables, ".phhs", "phh")
    assert any(isinstance(i, SourceHand) for i in items)
    assert any(isinstance(i, Quarantined) and "nested too deeply" in i.reason for i in items)


def test_deep_json_nesting_is_quarantined():
    deep = b"[" * 100_000 + b"]" * 100_000 + b"\n"
    assert "nested too deeply" in read_bytes(deep, ".jsonl", "jsonl")[0].reason
    assert "nested too deeply" in read_bytes(b'{"ohh": ' + deep, ".ohh", "ohh")[0].reason


def test_ohh_amount_with_a_huge_exponent_is_refused_at_once():
    """`1e999990` is a valid JSON number; scaling it to an integer took about a minute per hand."""
    text = (FIXTURES / "ohh" / "side-pot.ohh").read_text(encoding="utf-8")
    bomb = re.sub(r'"starting_stack": ?[0-9.]+', '"starting_stack": 1e999990', text, count=1)
    started = time.process_time()
    items = read_bytes(bomb.encode(), ".ohh", "ohh")
    assert time.process_time() - started < 2
    assert "too large" in items[0].reason


def test_pokerstars_chat_flood_is_read_in_linear_time():
    """`^.+? said, ".*"$` took quadratic time on a line full of ` said, "` (0.1 s for 32 KB, 1.7 s for a
    1 MB hand); the dialect's matcher resolves a `text` before a closing literal at once, so a flood of chat
    lines is read in linear time, and read as the chat it is."""
    hand = (FIXTURES / "pokerstars" / "small_and_big_blinds.txt").read_text(encoding="utf-8")
    flood = ('rail said, "' + ' said, "' * 2000 + '"\n') * 6
    poisoned = hand.replace("*** SUMMARY ***", flood + "*** SUMMARY ***", 1)
    read_bytes(hand.encode(), ".txt", "pokerstars")  # (compiled before the clock starts)
    started = time.process_time()
    items = one_by_one(read_bytes(poisoned.encode(), ".txt", "pokerstars"))
    assert time.process_time() - started < 1.0
    assert [type(i).__name__ for i in items] == ["SourceHand"]


@given(st.text(alphabet=' said,"ab\u00e9\n', max_size=40))
@FUZZ
def test_chat_is_read_as_the_regex_of_the_old_reader_read_it(line):
    """A line is chat (`NAME said, "..."`) exactly where `^.+? said, ".*"$` matched (the dialect's template)."""
    from auditor.ingest.dialect import dialect

    chat = next(t for t in dialect("pokerstars").quiet if "said" in t.source)
    line = line.replace("\n", "")
    assert (chat.pattern.fullmatch(line) is not None) == bool(re.match(r'^.+? said, ".*"$', line))


def test_ohh_object_of_many_closing_lines_is_parsed_in_near_linear_time():
    """Each line starting with `}` re-parsed the whole buffered object: quadratic in its size. And the
    schema's first error was found by building every error (30,000 here: 4 s); validate() stops at one."""
    body = b'{"ohh": {"rounds": [\n' + b'{"a": 1\n},\n' * 30_000 + b"{}\n]}}\n"
    started = time.process_time()
    items = read_bytes(body, ".ohh", "ohh")
    assert time.process_time() - started < 3
    assert len(items) == 1 and "ohh schema" in items[0].reason


def test_non_utf8_byte_in_jsonl_costs_only_its_line():
    """It used to stop the reader: every later hand of the file was lost without being counted."""
    lines = (ROOT / "sample_logs" / "holdem.jsonl").read_bytes().splitlines(keepends=True)[:3]
    bad = lines[1].replace(b"Sample casino", b"Sample casino \xff", 1)
    items = read_bytes(lines[0] + bad + lines[2], ".jsonl", "jsonl")
    assert [type(i) for i in items] == [SourceHand, Quarantined, SourceHand]
    assert items[1].line == 2 and "not UTF-8" in items[1].reason
    # old Mac line ends still separate hands, as text mode did
    cr = read_bytes(lines[0].rstrip(b"\n") + b"\r" + lines[2], ".jsonl", "jsonl")
    assert [(type(i), i.line) for i in cr] == [(SourceHand, 1), (SourceHand, 2)]


def test_quarantine_lines_stay_one_printable_line(tmp_path):
    """A zip member name, or log text quoted in a reason, carried newlines and ANSI escapes into the
    one-line quarantine entries (the terminal obeyed them)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("evil\n\x1b[2J\x1b[31mfake.jsonl", b"not json\n")
    path = tmp_path / "names.zip"
    path.write_bytes(buf.getvalue())
    items = list(read_file(path))
    fuzz.check_items(items, str(path))
    line = items[0].one_line()
    assert "\\x0a" in line and "\\x1b[2J" in line and "\n" not in line and "\x1b" not in line
    stars = b"PokerStars Hand #1: Hold'em No Limit ($0.01/$0.02) - 2020/01/01 1:00:00 ET\n\x1b[31mjunk\n"
    fuzz.check_items(read_bytes(stars, ".txt", "pokerstars"), "stars")


def test_uncalled_bet_to_a_player_with_nothing_in_is_not_a_reader_error():
    """`Uncalled bet (0) returned to VillainB` after VillainB's post was lost: KeyError in the reader
    (contained as 'reader could not convert: KeyError: 3'); the fuzzer's reproducer, as found."""
    path = REPRODUCERS / "pokerstars-uncalled-zero.txt"
    items = list(read_file(path, "pokerstars"))
    fuzz.check_items(items, str(path))
    assert [type(i) for i in items] == [Quarantined]


def test_cp1252_text_is_decoded_in_linear_c_time():
    """A 10 MB non-UTF-8 file full of euro signs spent 2 s in str.translate; the decode is now all in C
    and gives what the translate table gave."""
    from auditor.ingest.text_blocks import decode_bytes

    undefined = (0x81, 0x8D, 0x8F, 0x90, 0x9D)
    table = str.maketrans({b: bytes([b]).decode("cp1252") for b in range(0x80, 0xA0) if b not in undefined})
    every = bytes(range(256))
    assert decode_bytes(every) == every.decode("latin-1").translate(table)
    big = b"\xe2\x82\xac\x80\x81" * 2_000_000 + b"\xff"
    started = time.process_time()  # this process's CPU, not the clock: a loaded machine does not fail it
    assert decode_bytes(big)[:3] == "\u00e2\u201a\u00ac"
    assert time.process_time() - started < 1.0


def test_parquet_line_column_of_text_is_refused():
    """A dataset whose `line` column held text gave SourceHand(line='x'), which broke the int64 tables."""
    items = list(read_file(REPRODUCERS / "parquet-line-as-text", "parquet"))
    fuzz.check_items(items, "dataset")
    assert len(items) == 1 and "column line has type string" in items[0].reason


def test_a_reader_that_fails_is_contained_and_the_run_goes_on(tmp_path, monkeypatch):
    """An internal error is itself a quarantine entry with its cause; the other files are still read."""
    real = detect.BY_NAME["jsonl"]

    def failing(path, name, limits):
        items = real.read(path, name, limits)
        yield next(items)
        raise RuntimeError("a reader bug")

    monkeypatch.setitem(detect.BY_NAME, "jsonl", detect.Format("jsonl", real.suffixes, real.sniff, failing))
    monkeypatch.setattr("auditor.engines.partition.takes_column_wise", lambda *_: False)  # through detect's reader
    lines = (ROOT / "sample_logs" / "holdem.jsonl").read_bytes().splitlines(keepends=True)[:3]
    (tmp_path / "a.jsonl").write_bytes(b"".join(lines))
    (tmp_path / "b.jsonl").write_bytes(b"".join(lines))
    result = audit([tmp_path], input_format="jsonl")
    assert result.hands_read == 4 == result.hands_audited + result.hands_quarantined
    reasons = [q.one_line() for q in result.quarantined]
    assert len(reasons) == 2 and all(":2: [internal-error] reader error, the rest of the file is not read: "
                                     "RuntimeError: a reader bug"
                                     in r for r in reasons)
    per_file = result.per_file()
    assert (per_file["hands_read"] == per_file["hands_audited"] + per_file["hands_quarantined"]).all()


# ------------------------------------------------------------------------- grammar-built inputs (--grammar)

#: inputs per grammar in the suite's short run (scripts/fuzz.py --grammar runs the same for millions)
GRAMMAR_RUN = {"g-jsonl": 100, "g-export": 100, "g-parquet": 40, "g-archive": 40, "g-names": 40}


@pytest.mark.parametrize("grammar", sorted(GRAMMAR_RUN))
def test_grammar_built_inputs_keep_the_contract(grammar, tmp_path):
    """Schema-valid drawn hands (each exactly one item), hostile Parquet encodings, archives one step
    either side of each limit and hostile names: no exception, every item valid; the recent inputs of
    each grammar then audited together reconcile. Bound: 30 s per grammar (about 5 s on an idle core)."""
    started = time.monotonic()
    batch = tmp_path / "batch"
    batch.mkdir()
    work = tmp_path / "work"
    for index in range(GRAMMAR_RUN[grammar]):
        work.mkdir()
        rng = random.Random(f"suite:{grammar}:{index}")
        path, fmt, _how, expected = fuzz.GRAMMARS[grammar](work, rng)
        fuzz.run_grammar(path, fmt, expected, fuzz.GRAMMAR_LIMITS)
        if grammar != "g-names" and index % 4 == 0:
            path.rename(batch / f"{index:04d}{''.join(path.suffixes[-2:]) if path.is_file() else ''}")
        elif grammar == "g-names" and index % 10 == 0:
            fuzz.check_audit(path, "auto", fuzz.GRAMMAR_LIMITS)
        shutil.rmtree(work)
    if grammar != "g-names":
        fuzz.check_audit(batch, "auto", fuzz.GRAMMAR_LIMITS)
    assert time.monotonic() - started < 30


def test_a_drawn_hand_passes_the_schema_and_is_recorded_even_when_illegal():
    rng = random.Random("one")
    hands = [fuzz.grammar_hand(rng, i) for i in range(200)]
    valid = [h for h in hands if fuzz.schema_error(h) is None]
    assert len(valid) > 150  # the grammar is the schema's: almost every drawn hand is valid
    kinds = {e["kind"] for h in valid for e in h["events"]}
    assert kinds == set(fuzz._KINDS)
