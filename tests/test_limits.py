"""Input limits (auditor/ingest/limits.py) against real malicious samples built here: a zip whose members
climb out of the archive, gzip and zip bombs, 10 MB lines in every format, and the settings that change
each limit from the library and the command line.

Every refusal must name the limit, leave the other hands of the run readable, and keep the count
hands read = audited + quarantined.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import threading
import time
import zipfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from reader_items import one_by_one

from auditor.cli import main
from auditor.ingest.detect import read_file, unsafe_member_name
from auditor.ingest.files import read_all
from auditor.ingest.limits import DEFAULT_LIMITS, LimitExceeded, Limits, parse_size
from auditor.ingest.parquet import write_parquet
from auditor.ingest.tables import build_tables
from auditor.model.records import Quarantined, SourceHand
from auditor.pipeline import audit

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_logs" / "holdem.jsonl"
PS_FIXTURE = ROOT / "tests" / "fixtures" / "pokerstars" / "small_and_big_blinds.txt"
OHH_FIXTURE = ROOT / "tests" / "fixtures" / "ohh" / "side-pot.ohh"
PHH_FIXTURE = ROOT / "tests" / "fixtures" / "phh" / "side-pots.phhs"
TEN_MB = 10 * 1024 * 1024


def _hand_lines(n: int = 3) -> list[bytes]:
    with SAMPLE.open("rb") as f:
        return [f.readline() for _ in range(n)]


def _kinds(items: list) -> list[str]:
    return [type(i).__name__ for i in items]


def _reconciles(result) -> None:
    assert result.hands_read == result.hands_audited + result.hands_quarantined
    per_file = result.per_file()
    assert int(per_file["hands_read"].sum()) == result.hands_read
    assert (per_file["hands_read"] == per_file["hands_audited"] + per_file["hands_quarantined"]).all()


# ------------------------------------------------------------------------------------------ the settings


def test_limits_are_one_frozen_dataclass_with_sane_defaults():
    limits = Limits()
    assert limits == DEFAULT_LIMITS
    with pytest.raises(AttributeError):
        limits.max_unpacked_bytes = 1  # type: ignore[misc]
    assert limits.max_unpacked_bytes == 4 * 1024**3
    assert limits.jsonl_max_line_bytes == 8 * 1024**2
    assert limits.room_max_line_bytes < limits.jsonl_max_line_bytes
    # every field is settable by name, as the command line does
    for name in Limits.names():
        assert getattr(Limits.parse([f"{name}=12345"]), name) == 12345


def test_parse_sizes_and_refuse_nonsense():
    assert parse_size("4096") == 4096
    assert parse_size("64K") == 65536
    assert parse_size("8m") == 8 * 1024**2
    assert parse_size("4GiB") == 4 * 1024**3
    assert Limits.parse(["jsonl_max_line_bytes=1M", " max_compression_ratio = 50 "]) == \
        Limits(jsonl_max_line_bytes=1024**2, max_compression_ratio=50)
    # a limit's former name still sets it
    assert Limits.parse(["pokerstars_max_line_bytes=1K"]) == Limits(room_max_line_bytes=1024)
    with pytest.raises(ValueError, match="unknown limit nonsense"):
        Limits.parse(["nonsense=1"])
    with pytest.raises(ValueError, match="expected NAME=VALUE"):
        Limits.parse(["max_file_bytes"])
    with pytest.raises(ValueError, match="not a size"):
        Limits.parse(["max_file_bytes=-5"])
    with pytest.raises(ValueError, match="positive integer"):
        Limits(max_file_bytes=0)


# ------------------------------------------------------------------------------------- path traversal


@pytest.mark.parametrize("member", [
    "../../evil.jsonl", "/etc/cron.d/evil.jsonl", "..\\..\\evil.jsonl", "C:\\Windows\\evil.jsonl",
    "logs/../../evil.jsonl", "C:evil.jsonl",
])
def test_zip_members_that_leave_the_archive_are_refused(tmp_path, member):
    archive = tmp_path / "malicious.zip"
    lines = _hand_lines(2)
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr(member, lines[0])
        z.writestr("good.jsonl", lines[1])
    items = one_by_one(read_file(archive))
    assert _kinds(items) == ["Quarantined", "SourceHand"]
    assert "refused" in items[0].reason and items[0].code == "damaged"
    assert items[0].file == f"{archive}!{member}"
    assert "\n" not in items[0].one_line() and "\x00" not in items[0].one_line()
    # nothing was written outside the temporary folder, or anywhere near the archive
    assert sorted(p.name for p in tmp_path.iterdir()) == ["malicious.zip"]
    assert not (tmp_path.parent / "evil.jsonl").exists()


def test_member_names_are_judged_both_ways():
    assert unsafe_member_name("logs/day1.jsonl") is None
    assert unsafe_member_name("a..b.jsonl") is None  # dots in a name are not a parent directory
    for bad in ("../x", "/x", "\\\\server\\share\\x", "..\\x", "D:\\x", "x\x00y"):
        assert unsafe_member_name(bad) is not None, bad


def test_zip_with_too_many_members_is_refused(tmp_path):
    archive = tmp_path / "many.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for i in range(30):
            z.writestr(f"h{i}.jsonl", b"\n")
    items = one_by_one(read_file(archive, limits=Limits(max_archive_members=20)))
    assert len(items) == 1
    assert "30 members" in items[0].reason and "max_archive_members" in items[0].reason
    assert items[0].code == "limit"


def test_damaged_and_encrypted_zip_members_are_quarantined(tmp_path):
    lines = _hand_lines(1)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("a.jsonl", lines[0] * 50)
    data = bytearray(buf.getvalue())
    data[60] ^= 0xFF  # inside the deflate stream of the first member
    damaged = tmp_path / "damaged.zip"
    damaged.write_bytes(bytes(data))
    items = one_by_one(read_file(damaged))
    assert items and all(isinstance(i, Quarantined | SourceHand) for i in items)
    assert any("unreadable archive member" in i.reason or "invalid JSON" in i.reason or "not UTF-8" in i.reason
               for i in items if isinstance(i, Quarantined))
    # a member flagged as encrypted (general purpose bit 0, set in its local and central headers)
    # needs a password the auditor does not have
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("secret.jsonl", b"x" * 20)
    data = bytearray(buf.getvalue())
    data[6] |= 0x01
    central = data.index(b"PK\x01\x02")
    data[central + 8] |= 0x01
    secret = tmp_path / "secret.zip"
    secret.write_bytes(bytes(data))
    items = one_by_one(read_file(secret))
    assert len(items) == 1 and "unreadable archive member" in items[0].reason


# ------------------------------------------------------------------------------------ decompression bombs


def test_gzip_bomb_of_high_ratio_is_refused(tmp_path):
    bomb = tmp_path / "bomb.jsonl.gz"
    bomb.write_bytes(gzip.compress(b"\n" * (24 * 1024 * 1024), compresslevel=9))
    assert bomb.stat().st_size < 100_000  # ratio about 1,000
    items = one_by_one(read_file(bomb))
    assert len(items) == 1
    reason = items[0].reason
    assert "max_compression_ratio" in reason and "decompression bomb" in reason and items[0].code == "limit"
    with pytest.raises(LimitExceeded, match="max_compression_ratio"):
        read_all(bomb)
    # the same file is read when the limit allows its ratio
    assert read_all(bomb, Limits(max_compression_ratio=100_000)) == b"\n" * (24 * 1024 * 1024)


def test_gzip_past_the_total_unpacked_limit_is_refused_in_every_reader(tmp_path):
    limits = Limits(max_unpacked_bytes=1_000_000, ratio_grace_bytes=10**9)
    for fixture, fmt in ((SAMPLE, "jsonl"), (PS_FIXTURE, "pokerstars"), (OHH_FIXTURE, "ohh"),
                         (PHH_FIXTURE, "phh")):
        data = fixture.read_bytes()
        big = tmp_path / f"big{fixture.suffix}.gz"
        big.write_bytes(gzip.compress(data * (1_200_000 // len(data) + 1)))
        quarantined = [i for i in one_by_one(read_file(big, fmt, limits=limits)) if isinstance(i, Quarantined)]
        assert any("max_unpacked_bytes" in q.reason and q.code == "limit" for q in quarantined), fmt


def test_zip_bomb_member_is_refused_and_the_rest_read(tmp_path):
    archive = tmp_path / "bomb.zip"
    lines = _hand_lines(1)
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("bomb.jsonl", b" " * (20 * 1024 * 1024))
        z.writestr("hands.jsonl", lines[0])
    items = one_by_one(read_file(archive))
    assert _kinds(items) == ["Quarantined", "SourceHand"]
    assert "max_compression_ratio" in items[0].reason and items[0].file.endswith("!bomb.jsonl")
    assert items[0].code == "limit"


def test_zip_past_the_total_limit_is_refused_before_unpacking(tmp_path):
    archive = tmp_path / "big.zip"
    member = _hand_lines(1)[0] * 20
    with zipfile.ZipFile(archive, "w") as z:
        for i in range(3):
            z.writestr(f"h{i}.jsonl", member)
    # zipfile never yields more than a member's declared size, so the declared total is a true bound
    items = one_by_one(read_file(archive, limits=Limits(max_unpacked_bytes=len(member) * 3 - 1)))
    assert len(items) == 1 and "max_unpacked_bytes" in items[0].reason and items[0].code == "limit"
    assert len(one_by_one(read_file(archive, limits=Limits(max_unpacked_bytes=len(member) * 3)))) == 60


def test_a_device_is_refused_at_once_whatever_the_format():
    """/dev/zero named as a log has no newline and no end: it is not a file of hands, and is refused
    before anything is read from it (bound: one second for all five formats)."""
    zero = Path("/dev/zero")
    if not zero.exists():
        pytest.skip("no /dev/zero here")
    started = time.monotonic()
    for fmt in ("auto", "jsonl", "ohh", "pokerstars", "phh"):
        items = one_by_one(read_file(zero, fmt))
        assert len(items) == 1 and items[0].code == "unsupported-format" and "a device" in items[0].reason, fmt
    assert time.monotonic() - started < 1


def _fifo_writer(fifo: Path, data: bytes, repeat: int) -> threading.Thread:
    def write() -> None:
        try:
            with fifo.open("wb") as out:
                for _ in range(repeat):
                    out.write(data)
        except BrokenPipeError:  # the reader refused the rest: what a never-ending writer sees
            pass

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("over", [False, True])
def test_a_fifo_is_spooled_under_max_unpacked_bytes(tmp_path, over):
    """A FIFO that goes on is cut at max_unpacked_bytes while spooled (just over: refused naming the
    limit); just under, every hand is read, none lost to detection (bound: 10 s)."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    hand = _hand_lines(1)[0]
    writer = _fifo_writer(fifo, hand, 50)
    limit = len(hand) * 50 - (1 if over else 0)
    started = time.monotonic()
    items = one_by_one(read_file(fifo, limits=Limits(max_unpacked_bytes=limit)))
    writer.join(5)
    assert time.monotonic() - started < 10
    if over:
        assert len(items) == 1 and items[0].code == "limit" and "max_unpacked_bytes" in items[0].reason
    else:
        assert len(items) == 50 and all(isinstance(i, SourceHand) and i.file == str(fifo) for i in items)


def test_truncated_gzip_is_quarantined_not_raised(tmp_path):
    data = gzip.compress(b"".join(_hand_lines(3)))
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(data[: len(data) // 2])
    items = one_by_one(read_file(cut, "jsonl"))
    assert items and isinstance(items[-1], Quarantined)
    assert "truncated" in items[-1].reason or "damaged" in items[-1].reason


def test_parquet_bomb_is_refused_from_its_footer(tmp_path):
    from auditor.ingest.jsonl import parse_hand_line

    line = _hand_lines(1)[0].decode()
    dataset = tmp_path / "dataset"
    write_parquet(build_tables([parse_hand_line(line, "x.jsonl", n) for n in range(1, 2001)]), dataset)
    # 2,000 copies of one hand: the tables unpack (and decode) to over 10 times their files
    items = one_by_one(read_file(dataset, limits=Limits(max_compression_ratio=10, ratio_grace_bytes=1)))
    assert len(items) == 1 and "refused Parquet dataset: hands.parquet" in items[0].reason
    assert "max_compression_ratio" in items[0].reason and items[0].code == "limit"
    items = one_by_one(read_file(dataset, limits=Limits(max_unpacked_bytes=100_000)))
    assert len(items) == 1 and "max_unpacked_bytes" in items[0].reason
    assert len(one_by_one(read_file(dataset))) == 2000


# --------------------------------------------------------------------------------------- 10 MB lines


def test_ten_megabyte_line_in_jsonl_is_quarantined_and_reading_goes_on(tmp_path):
    lines = _hand_lines(2)
    path = tmp_path / "long.jsonl"
    path.write_bytes(lines[0] + b'{"hand_id": "' + b"x" * TEN_MB + b'"}\n' + lines[1])
    items = one_by_one(read_file(path))
    assert _kinds(items) == ["SourceHand", "Quarantined", "SourceHand"]
    assert items[1].line == 2 and "jsonl_max_line_bytes" in items[1].reason
    assert items[2].line == 3
    # a lower limit applies per run
    small = one_by_one(read_file(path, limits=Limits(jsonl_max_line_bytes=1000)))
    assert _kinds(small) == ["Quarantined"] * 3


def test_ten_megabyte_line_in_pokerstars_costs_only_its_hand(tmp_path):
    hand = PS_FIXTURE.read_bytes().strip() + b"\n\n\n"
    chat = b'railbird said, "' + b' said, "' * (TEN_MB // 8) + b'"\n'
    poisoned = hand.replace(b"*** SUMMARY ***", chat + b"*** SUMMARY ***", 1)
    path = tmp_path / "long.txt"
    path.write_bytes(hand + poisoned + hand)
    items = one_by_one(read_file(path, "pokerstars"))
    assert _kinds(items) == ["SourceHand", "Quarantined", "SourceHand"]
    assert "room_max_line_bytes" in items[1].reason and items[1].hand_id == items[0].hand["hand_id"]


def test_ten_megabyte_line_in_ohh_costs_only_its_object(tmp_path):
    obj = OHH_FIXTURE.read_bytes().strip()
    path = tmp_path / "long.ohh"
    path.write_bytes(obj + b"\n\n" + b'{"ohh": "' + b"y" * TEN_MB + b'"}\n\n' + obj + b"\n")
    # within the default limits (16 MB: one-line JSON arrays of many hands are real) the object is parsed
    # and refused by the schema; under a lower limit it is never held in memory
    for limits, reason in ((DEFAULT_LIMITS, "ohh schema"), (Limits(ohh_max_line_bytes=1024**2), "ohh_max_line_bytes")):
        items = one_by_one(read_file(path, "ohh", limits=limits))
        assert _kinds(items) == ["SourceHand", "Quarantined", "SourceHand"]
        assert reason in items[1].reason and len(items[1].one_line()) < 1000


def test_ten_megabyte_line_in_phh_costs_only_its_table(tmp_path):
    text = PHH_FIXTURE.read_bytes()
    path = tmp_path / "long.phhs"
    path.write_bytes(text + b"\n[99]\nvariant = 'NT'\nactions = ['" + b"z" * TEN_MB + b"']\n")
    items = one_by_one(read_file(path, "phh"))
    before = one_by_one(read_file(PHH_FIXTURE, "phh"))
    assert [i.line for i in items[:-1]] == [i.line for i in before]  # the file's own hands, read as before
    assert isinstance(items[-1], Quarantined) and "phh_max_line_bytes" in items[-1].reason
    assert items[-1].code == "limit"


def test_oversized_hands_are_refused_per_reader(tmp_path):
    tiny = Limits(room_max_hand_bytes=200, ohh_max_hand_bytes=200, phh_max_hand_bytes=200)
    for fixture, fmt, limit in ((PS_FIXTURE, "pokerstars", "room_max_hand_bytes"),
                                (OHH_FIXTURE, "ohh", "ohh_max_hand_bytes"), (PHH_FIXTURE, "phh", "phh_max_hand_bytes")):
        items = one_by_one(read_file(fixture, fmt, limits=tiny))
        assert items and all(isinstance(i, Quarantined) and limit in i.reason and i.code == "limit"
                             for i in items), fmt


def test_whole_file_readers_refuse_files_past_max_file_bytes():
    items = one_by_one(read_file(PS_FIXTURE, "pokerstars", limits=Limits(max_file_bytes=100)))
    assert len(items) == 1 and "max_file_bytes" in items[0].reason


# -------------------------------------------------------------------------- through audit() and the CLI


def test_audit_takes_limits_and_reconciles(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    lines = _hand_lines(3)
    (logs / "a.jsonl").write_bytes(b"".join(lines))
    (logs / "bomb.jsonl.gz").write_bytes(gzip.compress(b" " * (20 * 1024 * 1024)))
    result = audit([logs], pack="tda-2024")
    _reconciles(result)
    assert result.hands_read == 4 and result.hands_quarantined == 1
    limited = audit([logs], pack="tda-2024", limits=Limits(jsonl_max_line_bytes=100))
    _reconciles(limited)
    assert limited.hands_quarantined == 4


def test_cli_limit_option(tmp_path):
    log = tmp_path / "a.jsonl"
    log.write_bytes(b"".join(_hand_lines(2)))
    runner = CliRunner()
    result = runner.invoke(main, ["audit", str(log), "--quiet", "--fail-on", "never",
                                  "--limit", "jsonl_max_line_bytes=100"])
    assert result.exit_code == 2, result.output  # nothing readable under that limit
    assert "hands read: 2 = audited 0 + not covered 0 + quarantined 2" in result.output
    assert "limit 2" in result.output  # quarantined by code
    bad = runner.invoke(main, ["audit", str(log), "--limit", "no_such_limit=5"])
    assert bad.exit_code == 2 and "unknown limit no_such_limit" in bad.output


def test_parquet_dataset_missing_or_retyped_columns_is_quarantined_naming_the_column(tmp_path):
    from auditor.ingest.jsonl import parse_hand_line

    hands = [parse_hand_line(line.decode(), "x.jsonl", n) for n, line in enumerate(_hand_lines(2), 1)]
    dataset = tmp_path / "d"
    write_parquet(build_tables(hands), dataset)
    events = pq.read_table(dataset / "events.parquet")
    pq.write_table(events.drop_columns(["kind"]), dataset / "events.parquet")
    items = one_by_one(read_file(dataset))
    assert len(items) == 1 and "events.parquet: no column kind" in items[0].reason
    assert items[0].code == "invalid-record"
    write_parquet(build_tables(hands), dataset)
    table = pq.read_table(dataset / "hands.parquet")
    table = table.set_column(table.schema.get_field_index("line"), "line", pa.array(["x", "y"]))
    pq.write_table(table, dataset / "hands.parquet")
    items = one_by_one(read_file(dataset))
    assert len(items) == 1 and "column line has type string" in items[0].reason
    assert items[0].code == "invalid-record"
    json.dumps([i.reason for i in items])  # reasons are plain text


# ------------------------------------------------------------------------- every limit, just under and over

PHHS = PHH_FIXTURE.read_bytes()
PHH_TABLE = PHHS[PHHS.index(b"[1]"):PHHS.index(b"[2]")]


def _zip(path: Path, members: dict[str, bytes], method: int = zipfile.ZIP_STORED) -> Path:
    with zipfile.ZipFile(path, "w", method) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path


def _edge_jsonl(tmp: Path) -> tuple[Path, str, int, dict]:
    line = _hand_lines(1)[0]
    (tmp / "a.jsonl").write_bytes(line * 3)
    return tmp / "a.jsonl", "auto", len(line), {}  # a line counts its newline


def _edge_ohh_line(tmp: Path) -> tuple[Path, str, int, dict]:
    data = OHH_FIXTURE.read_bytes()
    (tmp / "a.ohh").write_bytes(data)
    return tmp / "a.ohh", "auto", max(len(x) for x in data.splitlines(keepends=True)), {}


def _edge_ohh_hand(tmp: Path) -> tuple[Path, str, int, dict]:
    data = OHH_FIXTURE.read_bytes()
    (tmp / "a.ohh").write_bytes(data)
    return tmp / "a.ohh", "auto", len(data.strip()) + 1, {}  # the object and its newline


def _edge_ps_line(tmp: Path) -> tuple[Path, str, int, dict]:
    data = PS_FIXTURE.read_bytes()
    (tmp / "a.txt").write_bytes(data)
    return tmp / "a.txt", "pokerstars", max(len(x) for x in data.splitlines()), {}  # without the newline


def _edge_ps_hand(tmp: Path) -> tuple[Path, str, int, dict]:
    data = PS_FIXTURE.read_bytes()
    (tmp / "a.txt").write_bytes(data)
    return tmp / "a.txt", "pokerstars", len(data) + 1, {}


def _edge_file(tmp: Path) -> tuple[Path, str, int, dict]:
    data = PS_FIXTURE.read_bytes()
    (tmp / "a.txt").write_bytes(data)
    return tmp / "a.txt", "pokerstars", len(data), {}


def _edge_phh_line(tmp: Path) -> tuple[Path, str, int, dict]:
    (tmp / "a.phhs").write_bytes(PHHS)
    return tmp / "a.phhs", "auto", max(len(x) for x in PHHS.splitlines(keepends=True)), {}


def _edge_phh_hand(tmp: Path) -> tuple[Path, str, int, dict]:
    (tmp / "a.phhs").write_bytes(PHH_TABLE * 3)  # three copies of table [1] (keys repeat: streamed alone)
    return tmp / "a.phhs", "auto", len(PHH_TABLE), {}  # the table, its header line included


def _edge_unpacked(tmp: Path) -> tuple[Path, str, int, dict]:
    line = _hand_lines(1)[0]
    (tmp / "a.jsonl.gz").write_bytes(gzip.compress(line * 3))
    return tmp / "a.jsonl.gz", "auto", len(line) * 3, {}


def _edge_ratio(tmp: Path) -> tuple[Path, str, int, dict]:
    path = _zip(tmp / "a.zip", {"s.jsonl": b" " * (1 << 20) + _hand_lines(1)[0]}, zipfile.ZIP_DEFLATED)
    info = zipfile.ZipFile(path).infolist()[0]
    return path, "auto", -(-info.file_size // info.compress_size), {"ratio_grace_bytes": 1}


def _edge_grace(tmp: Path) -> tuple[Path, str, int, dict]:
    path = _zip(tmp / "a.zip", {"s.jsonl": b" " * (1 << 20) + _hand_lines(1)[0]}, zipfile.ZIP_DEFLATED)
    return path, "auto", zipfile.ZipFile(path).infolist()[0].file_size, {}


def _edge_members(tmp: Path) -> tuple[Path, str, int, dict]:
    line = _hand_lines(1)[0]
    return _zip(tmp / "a.zip", {f"{i}.jsonl": line for i in range(5)}), "auto", 5, {}


def _edge_footer(tmp: Path) -> tuple[Path, str, int, dict]:
    from auditor.ingest.jsonl import parse_hand_line
    from auditor.ingest.parquet import footer_bytes

    dataset = tmp / "dataset"
    write_parquet(build_tables([parse_hand_line(_hand_lines(1)[0].decode(), "x.jsonl", 1)]), dataset)
    return dataset, "auto", max(footer_bytes(dataset / f"{t}.parquet") for t in ("hands", "seats", "events")), {}


IPOKER_FIXTURE = Path(__file__).resolve().parent / "fixtures" / "ipoker" / "cash.xml"


def _edge_xml_depth(tmp: Path) -> tuple[Path, str, int, dict]:
    (tmp / "a.xml").write_bytes(IPOKER_FIXTURE.read_bytes())
    return tmp / "a.xml", "ipoker", 5, {}  # session / game / general / players / player


def _edge_xml_hand(tmp: Path) -> tuple[Path, str, int, dict]:
    data = IPOKER_FIXTURE.read_bytes()
    (tmp / "a.xml").write_bytes(data)
    starts = [i for i in range(len(data)) if data.startswith(b"<game ", i)]
    return tmp / "a.xml", "ipoker", max(data.index(b"</game>", i) - i for i in starts), {}  # start tag to end tag


def _edge_xml_token(tmp: Path) -> tuple[Path, str, int, dict]:
    data = IPOKER_FIXTURE.read_bytes()
    (tmp / "a.xml").write_bytes(data)
    return tmp / "a.xml", "ipoker", max(len(run) for run in data.split(b">")), {}  # between one `>` and the next


#: limit -> (sample builder, what the refusal names); the sample sits exactly at the limit it is read under
EDGES = {
    "max_unpacked_bytes": (_edge_unpacked, "max_unpacked_bytes"),
    "max_compression_ratio": (_edge_ratio, "max_compression_ratio"),
    "ratio_grace_bytes": (_edge_grace, "max_compression_ratio"),  # past the grace, the ratio is judged
    "max_archive_members": (_edge_members, "max_archive_members"),
    "max_file_bytes": (_edge_file, "max_file_bytes"),
    "jsonl_max_line_bytes": (_edge_jsonl, "jsonl_max_line_bytes"),
    "ohh_max_hand_bytes": (_edge_ohh_hand, "ohh_max_hand_bytes"),
    "ohh_max_line_bytes": (_edge_ohh_line, "ohh_max_line_bytes"),
    "room_max_line_bytes": (_edge_ps_line, "room_max_line_bytes"),
    "room_max_hand_bytes": (_edge_ps_hand, "room_max_hand_bytes"),
    "phh_max_hand_bytes": (_edge_phh_hand, "phh_max_hand_bytes"),
    "phh_max_line_bytes": (_edge_phh_line, "phh_max_line_bytes"),
    "parquet_max_footer_bytes": (_edge_footer, "parquet_max_footer_bytes"),
    "xml_max_depth": (_edge_xml_depth, "xml_max_depth"),
    "xml_max_hand_bytes": (_edge_xml_hand, "xml_max_hand_bytes"),
    "xml_max_token_bytes": (_edge_xml_token, "xml_max_token_bytes"),
}


def test_every_limit_has_its_edge_test():
    assert set(EDGES) == set(Limits.names())


@pytest.mark.parametrize("name", sorted(EDGES))
def test_each_limit_just_under_and_just_over(tmp_path, name):
    """At the limit the input is read (every hand, in under 5 s); one byte (or member, or ratio step) under
    it, the refusal is a `limit` quarantine that names the limit (also in under 5 s)."""
    build, named = EDGES[name]
    path, fmt, size, extra = build(tmp_path)
    started = time.monotonic()
    at = one_by_one(read_file(path, fmt, limits=Limits(**{name: size}, **extra)))
    assert time.monotonic() - started < 5
    assert at and not [i for i in at if isinstance(i, Quarantined) and i.code == "limit"], at
    assert any(isinstance(i, SourceHand) for i in at)
    started = time.monotonic()
    over = one_by_one(read_file(path, fmt, limits=Limits(**{name: size - 1}, **extra)))
    assert time.monotonic() - started < 5
    refusals = [i for i in over if isinstance(i, Quarantined) and i.code == "limit"]
    assert refusals and all(named in i.reason for i in refusals), over
