"""Our own Parquet footer parse (auditor.ingest.parquet_footer): it equals pyarrow's metadata on every valid file,
and a footer that makes pyarrow abort the process (a C++ exception through `row_group(i).column(j)`, which
Cython cannot turn into a Python one: SIGABRT) is refused as `damaged` with the file named instead.

Found by scripts/fuzz.py --readers parquet (seeds 1717, 2026, 7): a seats.parquet whose schema element
`seat` had its repetition damaged, so Arrow's SizeStatistics::Validate threw "Definition level histogram
size mismatch" from the ColumnChunkMetaData constructor and the whole audit died.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from auditor.cli import main
from auditor.ingest.parquet_footer import FooterError, parse_footer, read_footer

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ("holdem.jsonl", "nz-omaha.jsonl", "online-draw.jsonl", "nz-three-card.jsonl")


@pytest.fixture(scope="module")
def datasets(tmp_path_factory) -> list[Path]:
    out = []
    for sample in SAMPLES:
        target = tmp_path_factory.mktemp("ds") / sample.split(".")[0]
        result = CliRunner().invoke(main, ["convert", str(ROOT / "sample_logs" / sample), "-o", str(target)])
        assert result.exit_code == 0, result.output
        out.append(target)
    return out


def _written_variants(dataset: Path, tmp_path: Path) -> list[Path]:
    """The canonical tables written the other ways a writer may: many row groups, no dictionary, an encoding
    the limits refuse, size statistics per page and a page index, no compression; and the hostile sets of
    the other tests (a column dropped or retyped, a column stored twice)."""
    out = []
    for table in ("hands", "seats", "events"):
        data = pq.read_table(dataset / f"{table}.parquet")
        variants = {
            "groups": {"row_group_size": 7},
            "plain": {"use_dictionary": False, "compression": "none"},
            "delta": {"use_dictionary": False, "column_encoding": {"hand": "DELTA_BINARY_PACKED"}},
            "pages": {"write_page_index": True, "store_schema": False, "data_page_size": 64,
                      "write_statistics": True, "row_group_size": 50},
        }
        for name, options in variants.items():
            path = tmp_path / f"{table}-{name}.parquet"
            pq.write_table(data, path, **options)
            out.append(path)
        dropped = tmp_path / f"{table}-dropped.parquet"
        pq.write_table(data.remove_column(1), dropped)
        twice = tmp_path / f"{table}-twice.parquet"
        pq.write_table(pa.table([*data.columns, data.column(0)], names=[*data.column_names, data.column_names[0]]),
                       twice)
        retyped = tmp_path / f"{table}-retyped.parquet"
        pq.write_table(data.set_column(1, data.column_names[1], pa.array(["x"] * data.num_rows)), retyped)
        out += [dropped, twice, retyped]
    return out


def _pyarrow_view(path: Path) -> tuple:
    meta = pq.ParquetFile(path).metadata
    groups = []
    for i in range(meta.num_row_groups):
        group = meta.row_group(i)
        chunks = tuple((c.path_in_schema, c.physical_type, tuple(c.encodings), c.num_values, c.total_compressed_size,
                        c.total_uncompressed_size) for c in (group.column(j) for j in range(group.num_columns)))
        groups.append((group.num_rows, group.total_byte_size, chunks))
    return meta.num_rows, tuple(groups)


def _our_view(path: Path) -> tuple:
    info = read_footer(path, 1 << 24)
    return info.num_rows, tuple((g.num_rows, g.total_byte_size, tuple(
        (c.path_in_schema, c.physical_type, c.encodings, c.num_values, c.total_compressed_size,
         c.total_uncompressed_size) for c in g.columns)) for g in info.row_groups)


def test_the_parse_equals_pyarrow_on_every_valid_file(datasets, tmp_path):
    files = [d / f"{t}.parquet" for d in datasets for t in ("hands", "seats", "events", "quarantined")]
    files += _written_variants(datasets[0], tmp_path)
    chunks = 0
    for path in files:
        ours, theirs = _our_view(path), _pyarrow_view(path)
        assert ours == theirs, path.name
        chunks += sum(len(g[2]) for g in ours[1])
    assert chunks > 500  # the comparison covered many column chunks, nested lists among them


def _footer_span(data: bytes) -> tuple[int, int]:
    length = int.from_bytes(data[-8:-4], "little")
    return len(data) - 8 - length, len(data) - 8


def _with_repetition(seats: Path, out: Path, repetition: int) -> Path:
    """seats.parquet with schema element `seat`'s repetition (OPTIONAL, zigzag 2) patched to `repetition`:
    0 (REQUIRED) makes its definition level histogram one entry too long; 17 is what the fuzzer wrote."""
    data = bytearray(seats.read_bytes())
    start, end = _footer_span(bytes(data))
    needle = b"\x25\x02\x18\x04seat"  # field 3 (repetition_type, i32) = 1, then field 4 (name) "seat"
    at = bytes(data).find(needle, start, end)
    assert at > 0, "the written footer no longer has the layout this test patches"
    data[at + 1] = (repetition << 1) ^ (repetition >> 31)
    out.mkdir()
    for name in ("hands", "events", "quarantined"):
        shutil.copy(seats.parent / f"{name}.parquet", out / f"{name}.parquet")
    (out / "seats.parquet").write_bytes(bytes(data))
    return out


_PROBE = """
import json, sys
from pathlib import Path
from auditor.ingest.parquet import read_parquet
from auditor.model.records import Quarantined
from auditor.pipeline import audit
path = Path(sys.argv[1])
alone = [(q.code, q.reason) for q in read_parquet(path) if isinstance(q, Quarantined)]
result = audit([path], pack="tda-2024")
print(json.dumps({"alone": alone, "audit": [(q.code, q.reason) for q in result.quarantined],
                  "read": result.hands_read}))
"""


@pytest.mark.parametrize("repetition", [0, 17])
def test_a_footer_pyarrow_aborts_on_is_quarantined_as_damaged(datasets, tmp_path, repetition):
    """Both readers (read whole, and audit()'s streamed planner) run in a child process: an abort fails the
    test instead of killing pytest."""
    copy = _with_repetition(datasets[0] / "seats.parquet", tmp_path / "damaged", repetition)
    probe = subprocess.run([sys.executable, "-c", _PROBE, str(copy)], capture_output=True, text=True, timeout=300,
                           cwd=ROOT)
    assert probe.returncode == 0, f"the audit died (return code {probe.returncode}): {probe.stderr[-2000:]}"
    out = json.loads(probe.stdout.strip().splitlines()[-1])
    for entries in (out["alone"], out["audit"]):
        assert len(entries) == 1
        code, reason = entries[0]
        assert code == "damaged"
        assert reason.startswith("refused Parquet dataset: seats.parquet is damaged: ")
        assert ("level histogram" if repetition == 0 else "unknown repetition 17") in reason
        assert "\n" not in reason


def test_the_patched_file_is_the_abort_this_guards_against(datasets, tmp_path):
    """The same footer handed to pyarrow's column(j) kills the interpreter (SIGABRT) in pyarrow 26: what
    makes the test above a test of the abort. Skipped once pyarrow raises a Python error instead."""
    copy = _with_repetition(datasets[0] / "seats.parquet", tmp_path / "damaged", 0)
    code = ("import pyarrow.parquet as pq, sys; m = pq.ParquetFile(sys.argv[1]).metadata.row_group(0)\n"
            "[m.column(j) for j in range(m.num_columns)]")
    probe = subprocess.run([sys.executable, "-c", code, str(copy / "seats.parquet")], capture_output=True,
                           timeout=120)
    if probe.returncode >= 0:
        pytest.skip(f"this pyarrow ({pa.__version__}) does not abort on it (return code {probe.returncode})")
    assert probe.returncode == -6  # SIGABRT


def test_any_damage_to_a_footer_is_a_footer_error_never_another_exception(datasets):
    """Bytes flipped, inserted, cut anywhere in real footers: the parse ends in a result or a FooterError
    (no IndexError, RecursionError, hang), as a hostile footer must."""
    rng = random.Random(1717)
    footers = []
    for dataset in datasets[:2]:
        for table in ("hands", "seats", "events"):
            data = (dataset / f"{table}.parquet").read_bytes()
            start, end = _footer_span(data)
            footers.append(data[start:end])
    outcomes = {"parsed": 0, "refused": 0}
    for n in range(3000):
        footer = bytearray(rng.choice(footers))
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(footer))
            op = rng.random()
            if op < 0.6:
                footer[at] = rng.randrange(256)
            elif op < 0.8:
                footer[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
            else:
                del footer[at:]
                break
        try:
            parse_footer(bytes(footer))
            outcomes["parsed"] += 1
        except FooterError as exc:
            assert str(exc) and "\n" not in str(exc), n
            outcomes["refused"] += 1
    assert outcomes["parsed"] and outcomes["refused"]


@pytest.mark.parametrize(("data", "words"), [
    (b"\x1c" * 100_000, "nests deeper"),  # struct in struct in struct ...
    (b"\x19\xfc\xff\xff\xff\x0f", "more than it holds"),  # field 1: a list of ~4 billion structs
    (b"\x18\xff\xff\xff\xff\x0f", "more than it holds"),  # field 1: a string of ~4 GB
    (b"\x16" + b"\xff" * 20, "longer than 64 bits"),
    (b"", "ends in the middle"),
    (b"\x00", "lacks its schema"),
])
def test_hostile_footers_are_refused_quickly_with_a_reason(data, words):
    with pytest.raises(FooterError, match=words):
        parse_footer(data)
