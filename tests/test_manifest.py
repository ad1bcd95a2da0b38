"""The evidence manifest: what was audited, under which rules, by which tool, when.

Hashes are recomputed here from the files themselves (never read back from the manifest to compare
with itself); the SARIF report with its artifacts is validated against the OASIS schema; the manifest
is the same object in the JSON, SARIF and Parquet reports and in `--manifest FILE`; `check-manifest`
says ok for untouched inputs and names a changed, a missing and an uncheckable one; runs with --jobs 1
and 2 (and the Dask engine) give byte-identical manifests apart from the `run` section.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import zipfile
from datetime import datetime
from pathlib import Path

import jsonschema
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from auditor.cli import main
from auditor.engines.periods import merge, periods_of
from auditor.model.periods import Period, instant_text
from auditor.pipeline import audit
from auditor.report.manifest import effective_pack, manifest_dict, without_times
from auditor.resources import rules_dir

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_logs"
FIXTURES = ROOT / "tests" / "fixtures"
HOLDEM = SAMPLES / "holdem.jsonl"
DAMAGED = SAMPLES / "damaged.jsonl"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _lines(path: Path, count: int) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)[:count]


@pytest.fixture
def corpus(tmp_path, monkeypatch):
    """A folder of one plain log, one gzipped, one zip of two members, one damaged file and a Parquet
    dataset, audited from inside tmp_path by relative paths (as a user would)."""
    monkeypatch.chdir(tmp_path)
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "a.jsonl").write_text("".join(_lines(HOLDEM, 30)), encoding="utf-8")
    (logs / "b.jsonl.gz").write_bytes(gzip.compress("".join(_lines(HOLDEM, 60)[30:]).encode(), mtime=0))
    with zipfile.ZipFile(logs / "c.zip", "w") as archive:
        archive.writestr("day1.jsonl", "".join(_lines(HOLDEM, 80)[60:70]))
        archive.writestr("day2.jsonl", "".join(_lines(HOLDEM, 80)[70:80]))
    shutil.copy(DAMAGED, logs / "damaged.jsonl")
    dataset = tmp_path / "dataset"
    converted = CliRunner().invoke(main, ["convert", str(logs / "a.jsonl"), "-o", str(dataset)])
    assert converted.exit_code == 0, converted.output
    return tmp_path


def assert_valid(manifest: dict) -> None:
    """The manifest against its published schema (`schemas/manifest.schema.json`), formats checked."""
    schema = json.loads((ROOT / "schemas" / "manifest.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker()).validate(manifest)
    hands = manifest["hands"]
    assert hands["read"] == hands["audited"] + hands["not_covered"] + hands["quarantined"]


def _audit(*args: str) -> tuple[int, str]:
    run = CliRunner().invoke(main, ["audit", *args, "--quiet", "--fail-on", "never", "--allow-unaudited"])
    return run.exit_code, run.output


def test_manifest_states_every_input_with_its_hash_and_hands(corpus):
    code, output = _audit("logs", "dataset", "--format", "json", "--output", "report.json",
                          "--manifest", "manifest.json", "--jobs", "1")
    assert code == 0, output
    manifest = json.loads(Path("manifest.json").read_text(encoding="utf-8"))
    report = json.loads(Path("report.json").read_text(encoding="utf-8"))
    assert report["manifest"] == manifest  # one record, in the report and alone
    assert_valid(manifest)
    assert manifest["tool"]["name"] == "poker-auditor" and manifest["tool"]["version"]
    run = manifest["run"]
    assert run["command"] == ["auditor", "audit", "logs", "dataset", "--format", "json", "--output", "report.json",
                              "--manifest", "manifest.json", "--jobs", "1", "--quiet", "--fail-on", "never",
                              "--allow-unaudited"]
    assert run["working_directory"] == os.getcwd()
    started, ended = (datetime.fromisoformat(run[k].replace("Z", "+00:00")) for k in ("started_at", "ended_at"))
    assert started <= ended

    by_name = {entry["name"]: entry for entry in manifest["inputs"]}
    assert list(by_name) == ["dataset", "logs/a.jsonl", "logs/b.jsonl.gz", "logs/c.zip", "logs/damaged.jsonl"]
    for name in ("logs/a.jsonl", "logs/b.jsonl.gz", "logs/c.zip", "logs/damaged.jsonl"):
        entry = by_name[name]
        assert entry["path"] == name
        assert entry["sha256"] == _sha(Path(name)) and entry["size"] == Path(name).stat().st_size, name
    # the gzip is hashed as stored, not as it unpacks
    assert by_name["logs/b.jsonl.gz"]["sha256"] != hashlib.sha256(gzip.decompress(Path("logs/b.jsonl.gz").read_bytes())
                                                                  ).hexdigest()
    # a dataset: each of its files (convert writes quarantined.parquet too), and one hash of that listing
    files = by_name["dataset"]["files"]
    assert [f["file"] for f in files] == ["hands.parquet", "seats.parquet", "events.parquet", "quarantined.parquet"]
    for part in files:
        assert part["sha256"] == _sha(Path("dataset") / part["file"])
    listing = "".join(f"{f['file']} {f['size']} {f['sha256']}\n" for f in files)
    assert by_name["dataset"]["sha256"] == hashlib.sha256(listing.encode()).hexdigest()
    # zip members from the central directory, each with its own hands
    members = by_name["logs/c.zip"]["members"]
    with zipfile.ZipFile("logs/c.zip") as archive:
        assert [(m["member"], m["size"], m["crc32"]) for m in members] == [
            (i.filename, i.file_size, f"{i.CRC:08x}") for i in archive.infolist()]
    assert [m["hands"]["read"] for m in members] == [10, 10]

    # hand counts: those of the report's per-file reconciliation, gathered per input
    assert by_name["logs/a.jsonl"]["hands"] == {"read": 30, "audited": 30, "not_covered": 0, "quarantined": 0}
    assert by_name["dataset"]["hands"]["read"] == 30
    assert by_name["logs/c.zip"]["hands"]["read"] == 20
    damaged = by_name["logs/damaged.jsonl"]["hands"]
    assert damaged["quarantined"] > 0 and damaged["read"] == damaged["audited"] + damaged["quarantined"]
    for key in ("read", "audited", "not_covered", "quarantined"):
        assert sum(e["hands"][key] for e in manifest["inputs"]) == manifest["hands"][key]
    assert manifest["hands"]["read"] == report["summary"]["hands_read"]


def test_packs_are_stated_with_file_hashes_and_the_digest_of_what_they_judge(corpus):
    house = corpus / "house.yaml"
    house.write_text("pack: house\nversion: 1.0.0\ntitle: House\nextends: tda-2024\nparameters:\n  max_raises: 4\n",
                     encoding="utf-8")
    assert _audit("logs/a.jsonl", "--pack", "house.yaml", "--manifest", "m1.json")[0] == 0
    first = json.loads(Path("m1.json").read_text(encoding="utf-8"))
    assert_valid(first)
    (pack,) = first["packs"]
    assert (pack["name"], pack["version"], pack["file"], pack["builtin"]) == ("house", "1.0.0", "house.yaml", False)
    assert pack["sha256"] == _sha(house)
    assert [(f["file"], f["builtin"]) for f in pack["files"]] == [("house.yaml", False), ("tda-2024.yaml", True)]
    assert pack["files"][1]["sha256"] == _sha(rules_dir() / "tda-2024.yaml")
    assert pack["parameters"]["max_raises"] == 4
    assert pack["rules"] and pack["extends"] == "tda-2024"

    # a comment changes the file's hash, not what the pack judges; a parameter changes both
    house.write_text(house.read_text(encoding="utf-8") + "# reviewed\n", encoding="utf-8")
    assert _audit("logs/a.jsonl", "--pack", "house.yaml", "--manifest", "m2.json")[0] == 0
    commented = json.loads(Path("m2.json").read_text(encoding="utf-8"))["packs"][0]
    assert commented["sha256"] != pack["sha256"] and commented["effective_sha256"] == pack["effective_sha256"]
    house.write_text(house.read_text(encoding="utf-8").replace("max_raises: 4", "max_raises: 5"), encoding="utf-8")
    assert _audit("logs/a.jsonl", "--pack", "house.yaml", "--manifest", "m3.json")[0] == 0
    raised = json.loads(Path("m3.json").read_text(encoding="utf-8"))["packs"][0]
    assert raised["effective_sha256"] != pack["effective_sha256"]


def test_effective_digest_is_over_the_rules_after_extends():
    result = audit([HOLDEM])
    pack = result.packs["tda-2024"]
    effective = effective_pack(pack)
    assert [r["id"] for r in effective["rules"]] == [r.id for r in pack.rules]
    assert effective["parameters"] == pack.parameters
    expected = hashlib.sha256(json.dumps(effective, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                                         default=str).encode("ascii")).hexdigest()
    assert manifest_dict(result)["packs"][0]["effective_sha256"] == expected


def test_period_of_play_per_file_and_overall(tmp_path):
    rows = [json.loads(line) for line in _lines(HOLDEM, 6)]
    times = ["2024-03-31T01:30:00+13:00", "2024-03-30T11:00:00Z", None, "2024-03-30T12:00:00-01:00", None,
             "2024-03-30T20:00:00.250+00:00"]
    for row, when in zip(rows, times, strict=True):
        row.pop("started_at", None)
        if when is not None:
            row["started_at"] = when
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    first.write_text("".join(json.dumps(r) + "\n" for r in rows[:3]), encoding="utf-8")
    second.write_text("".join(json.dumps(r) + "\n" for r in rows[3:]), encoding="utf-8")
    manifest = manifest_dict(audit([first, second]))
    assert_valid(manifest)
    one, two = manifest["inputs"]
    # 01:30+13:00 is 12:30Z the day before: an instant, not text order
    assert one["period"] == {"first_hand_at": "2024-03-30T11:00:00Z", "last_hand_at": "2024-03-30T12:30:00Z",
                             "hands_without_time": one["hands"]["read"] - 2, "hands_time_without_offset": 0}
    period = two["period"]
    assert (period["first_hand_at"], period["last_hand_at"]) == ("2024-03-30T13:00:00Z", "2024-03-30T20:00:00.250000Z")
    assert period["hands_without_time"] == 1 and period["hands_time_without_offset"] == 0
    overall = manifest["period"]
    assert (overall["first_hand_at"], overall["last_hand_at"]) == ("2024-03-30T11:00:00Z",
                                                                  "2024-03-30T20:00:00.250000Z")
    assert overall["hands_without_time"] == one["period"]["hands_without_time"] + period["hands_without_time"]


def test_times_without_offset_or_unparsable_are_counted_not_guessed():
    """The canonical schema refuses both (RFC 3339 date-time); other readers' hands may carry them."""
    spans = periods_of(["x", "x", "x", "y"], ["2024-01-01T10:00:00", "garbage", "2024-01-01T09:00:00+01:00", 17])
    assert spans["x"] == Period(spans["x"].first, spans["x"].last, untimed=1, no_offset=1)
    assert (instant_text(spans["x"].first), instant_text(spans["x"].last)) == ("2024-01-01T08:00:00Z",
                                                                               "2024-01-01T10:00:00Z")
    assert spans["y"] == Period(None, None, untimed=1, no_offset=0)
    merged = {"x": spans["x"]}
    merge(merged, {"x": Period(1, 2, 3, 4), "z": Period()})
    assert merged["x"] == Period(1, spans["x"].last, 4, 5) and merged["z"] == Period()


def test_a_file_without_times_has_no_period(tmp_path):
    rows = [json.loads(line) for line in _lines(HOLDEM, 2)]
    for row in rows:
        row.pop("started_at", None)
    log = tmp_path / "untimed.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    period = manifest_dict(audit([log]))["inputs"][0]["period"]
    assert period["first_hand_at"] is None and period["last_hand_at"] is None
    assert period["hands_without_time"] == 2


def _validator() -> jsonschema.Draft4Validator:
    schema = json.loads((FIXTURES / "reports" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())


def test_sarif_states_the_invocation_and_every_artifact_with_its_hash(corpus):
    code, output = _audit("logs", "dataset", "--pack", "tda-2024", "--format", "sarif", "--output", "out.sarif")
    assert code == 0, output
    sarif = json.loads(Path("out.sarif").read_text(encoding="utf-8"))
    _validator().validate(sarif)
    run = sarif["runs"][0]
    invocation = run["invocations"][0]
    assert invocation["commandLine"].startswith("auditor audit logs dataset --pack tda-2024")
    assert invocation["arguments"][:3] == ["audit", "logs", "dataset"]
    assert invocation["workingDirectory"]["uri"] == Path.cwd().as_uri() + "/"
    assert invocation["startTimeUtc"] <= invocation["endTimeUtc"]
    artifacts = run["artifacts"]
    top = {a["location"]["uri"]: a for a in artifacts if "parentIndex" not in a}
    for name in ("logs/a.jsonl", "logs/b.jsonl.gz", "logs/c.zip", "logs/damaged.jsonl"):
        assert top[name]["hashes"]["sha-256"] == _sha(Path(name))
        assert top[name]["length"] == Path(name).stat().st_size
        assert top[name]["roles"] == ["analysisTarget"]
    children = [a for a in artifacts if "parentIndex" in a]
    parents = {artifacts[a["parentIndex"]]["location"]["uri"] for a in children}
    assert parents == {"dataset/", "logs/c.zip"}
    for child in children:
        if artifacts[child["parentIndex"]]["location"]["uri"] == "dataset/":
            assert child["hashes"]["sha-256"] == _sha(Path("dataset") / child["location"]["uri"])
    (pack_file,) = [a for a in artifacts if a["roles"] == ["toolSpecifiedConfiguration"]]
    assert pack_file["location"] == {"uri": "tda-2024.yaml", "uriBaseId": "AUDITOR_RULES"}
    assert pack_file["hashes"]["sha-256"] == _sha(rules_dir() / "tda-2024.yaml")
    assert run["originalUriBaseIds"]["AUDITOR_RULES"]["uri"] == rules_dir().absolute().as_uri() + "/"
    assert run["properties"]["manifest"]["inputs"][1]["sha256"] == _sha(Path("logs/a.jsonl"))


def test_parquet_report_carries_the_manifest(corpus):
    assert _audit("logs/a.jsonl", "--format", "parquet", "--output", "f.parquet", "--manifest", "m.json")[0] == 0
    metadata = pq.read_schema("f.parquet").metadata
    assert json.loads(metadata[b"poker-auditor-manifest"]) == json.loads(Path("m.json").read_text(encoding="utf-8"))


def _check(*args: str) -> tuple[int, str]:
    run = CliRunner().invoke(main, ["check-manifest", *args])
    return run.exit_code, run.output


def test_check_manifest_says_ok_then_names_a_changed_and_a_missing_input(corpus):
    assert _audit("logs", "dataset", "--manifest", "m.json")[0] == 0
    code, output = _check("m.json")
    assert code == 0, output
    assert "ok            input logs/a.jsonl" in output and "0 changed, 0 missing, 0 added" in output
    assert json.loads(Path("m.json").read_text(encoding="utf-8"))["paths"] == ["logs", "dataset"]
    # a folder given climbing out of where the run was (`../`): its files are not taken for new ones
    os.chdir("dataset")
    assert _audit("../logs", "--manifest", "../up.json")[0] == 0
    code, output = _check("../up.json")
    assert code == 0, output
    os.chdir(corpus)

    data = bytearray(Path("logs/a.jsonl").read_bytes())
    data[100] ^= 1  # one bit, the size unchanged
    Path("logs/a.jsonl").write_bytes(bytes(data))
    code, output = _check("m.json")
    assert code == 1
    (line,) = [line for line in output.splitlines() if line.startswith("changed")]
    assert "logs/a.jsonl" in line and "sha256" in line

    Path("logs/b.jsonl.gz").unlink()
    (Path("dataset") / "events.parquet").write_bytes(b"PAR1")
    code, output = _check("m.json")
    assert code == 1
    assert any(line.startswith("missing") and "logs/b.jsonl.gz" in line for line in output.splitlines())
    assert any(line.startswith("changed") and "dataset" in line and "events.parquet" in line
               for line in output.splitlines())

    # a file added to a folder that was audited: the same command would audit more than the manifest lists
    Path("logs/late.jsonl").write_text("".join(_lines(HOLDEM, 2)), encoding="utf-8")
    code, output = _check("m.json")
    assert code == 1
    assert any(line.startswith("added") and "logs/late.jsonl" in line for line in output.splitlines())

    # from elsewhere, --root says where the relative paths are; a JSON report is a manifest too
    elsewhere = corpus / "elsewhere"
    elsewhere.mkdir()
    os.chdir(elsewhere)
    code, output = _check("../m.json")
    assert code == 1 and output.count("missing") >= 5
    assert _check("../m.json", "--root", str(corpus))[0] == 1


def test_check_manifest_of_a_json_report_and_of_standard_input(corpus):
    assert _audit("logs/a.jsonl", "--format", "json", "--output", "r.json")[0] == 0
    assert _check("r.json")[0] == 0
    piped = CliRunner().invoke(main, ["audit", "-", "--quiet", "--manifest", "s.json", "--fail-on", "never"],
                               input=Path("logs/a.jsonl").read_bytes())
    assert piped.exit_code == 0, piped.output
    piped_manifest = json.loads(Path("s.json").read_text(encoding="utf-8"))
    assert_valid(piped_manifest)
    entry = piped_manifest["inputs"][0]
    assert entry["stream"] is True and entry["path"] is None and entry["name"] == "<stdin>"
    assert entry["sha256"] == _sha(Path("logs/a.jsonl"))  # the spooled copy is the bytes given
    code, output = _check("s.json")
    assert code == 3 and "not-checkable" in output


def test_check_manifest_refuses_what_is_not_a_manifest_and_never_blocks(corpus):
    Path("junk.json").write_text("[1, 2]", encoding="utf-8")
    assert _check("junk.json")[0] == 2
    Path("text.json").write_text("not json", encoding="utf-8")
    assert _check("text.json")[0] == 2
    assert _check("absent.json")[0] == 2
    # a manifest is data: a path naming a FIFO is looked at, never opened (opening would block)
    os.mkfifo("pipe")
    forged = {"manifest": 1, "inputs": [{"name": "pipe", "path": "pipe", "size": 1, "sha256": "0" * 64}]}
    Path("forged.json").write_text(json.dumps(forged), encoding="utf-8")
    code, output = _check("forged.json")
    assert code == 1 and "not a regular file" in output


def test_a_file_changed_during_the_audit_is_marked(tmp_path):
    log = tmp_path / "a.jsonl"
    log.write_text("".join(_lines(HOLDEM, 5)), encoding="utf-8")
    touched = []

    def progress(_):
        if not touched:
            touched.append(True)
            with log.open("a", encoding="utf-8") as f:
                f.write("\n")

    result = audit([log], progress=progress)
    assert_valid(manifest_dict(result))
    assert manifest_dict(result)["inputs"][0].get("changed_during_audit") is True
    assert "changed_during_audit" not in manifest_dict(audit([log]))["inputs"][0]


def test_a_pack_file_is_recorded_as_it_was_loaded(tmp_path):
    house = tmp_path / "house.yaml"
    house.write_text("pack: house\nversion: 1.0.0\ntitle: House\nextends: tda-2024\n", encoding="utf-8")
    loaded = _sha(house)
    log = tmp_path / "a.jsonl"
    log.write_text("".join(_lines(HOLDEM, 5)), encoding="utf-8")

    def edit(_):
        house.write_text(house.read_text(encoding="utf-8") + "# edited during the run\n", encoding="utf-8")

    result = audit([log], pack=str(house), progress=edit)
    assert _sha(house) != loaded
    assert manifest_dict(result)["packs"][0]["sha256"] == loaded


def test_a_file_name_that_is_not_utf8_is_shown_escaped_and_found_again(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    name = os.fsdecode(b"caf\xe9.jsonl")
    Path(name).write_text("".join(_lines(HOLDEM, 3)), encoding="utf-8")
    assert _audit(name, "--manifest", "m.json")[0] == 0
    written = json.loads(Path("m.json").read_text(encoding="utf-8"))
    assert_valid(written)
    entry = written["inputs"][0]
    assert entry["name"] == entry["path"] == "caf\\xe9.jsonl"
    assert bytes.fromhex(entry["path_bytes_hex"]) == b"caf\xe9.jsonl"
    assert entry["sha256"] == _sha(Path(name))
    assert _check("m.json")[0] == 0


def _manifest_of(*args: str) -> tuple[str, dict]:
    """The manifest of the sample logs as written (`m.json`, one name: the command line records it) and parsed."""
    assert _audit(str(SAMPLES), *args, "--manifest", "m.json")[0] == 0
    text = Path("m.json").read_text(encoding="utf-8")
    return text, json.loads(text)


def _bytes_but(text: str, *keys: str) -> str:
    """The manifest's text with the given `run` fields taken out, every other byte as written."""
    doc = json.loads(text)
    for key in keys:
        del doc["run"][key]
    return json.dumps(doc, ensure_ascii=True, indent=1) + "\n"


def test_manifest_is_byte_identical_for_any_number_of_jobs_apart_from_the_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (text_one, one), (text_two, two), (text_again, again) = (_manifest_of("--jobs", jobs) for jobs in "122")
    assert json.dumps(json.loads(text_two), ensure_ascii=True, indent=1) + "\n" == text_two  # the round trip is exact
    assert one["run"]["command"] != two["run"]["command"]  # --jobs 1 / --jobs 2: as typed
    times = ("started_at", "ended_at")
    assert _bytes_but(text_one, *times, "command", "command_line") == _bytes_but(text_two, *times, "command",
                                                                                  "command_line")
    # the same command twice: nothing differs but the times
    assert _bytes_but(text_two, *times) == _bytes_but(text_again, *times)
    assert without_times(two) == without_times(again)
    assert two["run"]["started_at"] != again["run"]["started_at"] or two["run"]["ended_at"] != again["run"]["ended_at"]


def test_dask_engine_gives_the_manifest_of_the_local_engine():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        on_dask = manifest_dict(audit([SAMPLES], batch_size=300, engine="dask", scheduler=client))
    local = manifest_dict(audit([SAMPLES], batch_size=300, jobs=1))
    assert json.dumps({**on_dask, "run": None}) == json.dumps({**local, "run": None})


def test_an_archive_of_many_members_says_how_many_are_not_listed(corpus, monkeypatch):
    from auditor.report import manifest

    monkeypatch.setattr(manifest, "MAX_MEMBERS_LISTED", 1)
    whole = manifest_dict(audit([Path("logs/c.zip")]))
    assert_valid(whole)
    entry = whole["inputs"][0]
    assert [m["member"] for m in entry["members"]] == ["day1.jsonl"] and entry["members_not_listed"] == 1
    assert entry["hands"]["read"] == 20  # the archive's hands are all counted, listed or not


def test_a_malformed_manifest_is_refused_not_a_crash(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for inputs in ([1], [{"name": "x", "path": "x", "sha256": "0", "files": [3]}]):
        Path("m.json").write_text(json.dumps({"manifest": 1, "inputs": inputs}), encoding="utf-8")
        code, output = _check("m.json")
        assert code == 2 and "auditor:" in output, output
    Path("m.json").write_text(json.dumps({"manifest": 1, "inputs": [], "packs": [{"files": ["x"]}]}), encoding="utf-8")
    assert _check("m.json")[0] == 2


def test_manifest_to_standard_output_and_where_it_cannot_go(corpus):
    run = CliRunner().invoke(main, ["audit", "logs/a.jsonl", "--quiet", "--format", "json", "--output", "r.json",
                                    "--manifest", "-"])
    assert run.exit_code == 0
    printed = json.loads(run.stdout)
    assert printed["inputs"][0]["sha256"] == _sha(Path("logs/a.jsonl"))
    assert printed == json.loads(Path("r.json").read_text(encoding="utf-8"))["manifest"]
    code, output = _audit("logs/a.jsonl", "--manifest", "-")  # the text report is on standard output
    assert code == 2 and "--manifest -" in output
    before = _sha(Path("logs/a.jsonl"))
    code, output = _audit("logs/a.jsonl", "--manifest", "logs/a.jsonl")
    assert code == 2 and "is an input of this run" in output and _sha(Path("logs/a.jsonl")) == before


@pytest.mark.parametrize("size", [0, 1, 4095, 4096, 4097, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, 3 * (1 << 20) + 7])
def test_sha256_file_is_the_hash_of_the_bytes_whatever_the_size(tmp_path, size):
    """The buffer is sized to the file (a small file is one read): every size around the buffer's edges
    hashes exactly as hashlib does over the whole bytes."""
    from auditor.report.manifest import sha256_file

    data = bytes((i * 7 + size) % 251 for i in range(size))
    path = tmp_path / "f.bin"
    path.write_bytes(data)
    assert sha256_file(path) == (size, hashlib.sha256(data).hexdigest())


@pytest.mark.parametrize("where", ["named", "in a folder", "through a link"])
def test_small_files_are_hashed_from_the_bytes_detection_read(tmp_path, where):
    """Discovery hashes a file no longer than detection's read of its opening bytes from those bytes
    (`model.inputs.Seen`: one open, not two). The manifest must state exactly hashlib's digest and the size
    of the bytes on disk at every size around that edge, plain or gzip (a gzip is hashed as stored, so it is
    never taken from the unpacked head), and a file longer than the head is still hashed from the file."""
    from auditor.ingest.detect import SNIFF_BYTES
    from auditor.pipeline import discover

    hand = HOLDEM.read_bytes().splitlines(keepends=True)[0]
    logs = tmp_path / "logs"
    logs.mkdir()
    made = {}
    for size in (len(hand), SNIFF_BYTES - 1, SNIFF_BYTES, SNIFF_BYTES + 1, 3 * SNIFF_BYTES):
        data = hand + b" " * (size - len(hand)) if size >= len(hand) else hand
        made[f"s{size}.jsonl"] = data
    made["small.jsonl.gz"] = gzip.compress(hand, mtime=0)
    for name, data in made.items():
        (logs / name).write_bytes(data)
    if where == "named":
        paths = [logs / name for name in made]
    elif where == "in a folder":
        paths = [logs]
    else:
        links = tmp_path / "links"
        links.mkdir()
        for name in made:
            (links / name).symlink_to(logs / name)
        paths = [links / name for name in made]
    inputs, skipped = discover(paths)
    assert skipped == [] and len(inputs) == len(made)
    taken = {item.path.name: item.seen.sha256 is not None for item in inputs}
    assert taken == {name: len(data) <= SNIFF_BYTES and not name.endswith(".gz") for name, data in made.items()}
    result = audit(paths, jobs=1)
    entries = {Path(entry["path"]).name: entry for entry in manifest_dict(result)["inputs"]}
    for name, data in made.items():
        assert (entries[name]["size"], entries[name]["sha256"]) == (len(data), hashlib.sha256(data).hexdigest()), name
        assert "changed_during_audit" not in entries[name]


def test_a_small_file_replaced_after_discovery_is_marked_changed(tmp_path):
    """The digest of a small file is taken at discovery, with its state: a file rewritten after that and
    before the run ends is marked, so a manifest never states a digest of bytes other than those audited
    without saying so."""
    log = tmp_path / "a.jsonl"
    first = HOLDEM.read_bytes().splitlines(keepends=True)[0]
    log.write_bytes(first)
    touched = []

    def progress(_):
        if not touched:
            touched.append(True)
            os.utime(log, ns=(1, 1))  # the bytes unchanged, the metadata not: still marked

    entry = manifest_dict(audit([log], progress=progress))["inputs"][0]
    assert entry["sha256"] == hashlib.sha256(first).hexdigest()
    assert entry.get("changed_during_audit") is True
