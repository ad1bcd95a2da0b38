"""`--engine dask`: the same findings, coverage and quarantines as the local engine.

A LocalCluster of two worker threads keeps the test quick (no processes to start); the tasks, their
pickled results and the gathering are the same as on a real cluster.
"""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest
from test_parallel import assert_same  # one definition of 'the same result'

from auditor.engines import dask_cluster
from auditor.engines.partition import RunOptions, plan, read_input
from auditor.pipeline import audit, discover

distributed = pytest.importorskip("distributed")

SAMPLES = Path(__file__).resolve().parents[1] / "sample_logs"
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        yield client


def test_dask_gives_the_findings_of_the_local_engine(client):
    local = audit([SAMPLES], batch_size=300, jobs=1)
    on_dask = audit([SAMPLES], batch_size=300, engine="dask", scheduler=client)
    assert_same(local, on_dask)
    assert len(on_dask.findings) == 28


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared corpus is not beside the project")
def test_dask_on_real_logs_with_ids_repeated_across_files(client):
    paths = [CORPUS / "pokerstars", CORPUS / "ohh"]
    local = audit(paths, pack="tda-2024", batch_size=100, jobs=1)
    on_dask = audit(list(reversed(paths)), pack="tda-2024", batch_size=100, engine="dask", scheduler=client)
    assert_same(local, on_dask)
    assert (on_dask.findings["rule_id"] == "TDA-INT-id").sum() == 61


# -- what a worker elsewhere is sent and checked for ---------------------------------------------


def test_paths_sent_to_workers_are_absolute_and_reports_name_files_as_given(monkeypatch):
    monkeypatch.chdir(SAMPLES.parent)
    inputs, _ = discover([Path("sample_logs")])
    partitions = plan(inputs, 300)
    sent = dask_cluster.absolute_partitions(partitions)
    before = [piece.input for p in partitions for piece in p.pieces]
    after = [piece.input for p in sent for piece in p.pieces]
    assert all(not item.path.is_absolute() for item in before)
    assert [item.path for item in after] == [SAMPLES.parent / item.path for item in before]
    assert [(item.name, item.label) for item in after] == [(item.name, item.label) for item in before]
    # read from the absolute path, every position is named as from the relative one
    assert [(h.file, h.line) for h in read_input(after[1])] == [(h.file, h.line) for h in read_input(before[1])]


def test_a_pack_file_is_sent_absolute_and_a_built_in_pack_by_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "house.yaml").write_text("pack: h\n")
    sent = dask_cluster.absolute_options(RunOptions(pack="house.yaml"))
    assert sent.pack == str(tmp_path / "house.yaml")
    assert dask_cluster.absolute_options(RunOptions(pack="tda-2024")).pack == "tda-2024"


def test_pack_files_digested_are_the_chain_of_a_house_pack(tmp_path):
    (tmp_path / "base.yaml").write_text("pack: base\nversion: 1.0.0\ntitle: Base\nextends: tda-2024\n"
                                        "parameters: {max_raises: 4}\n")
    (tmp_path / "house.yaml").write_text("pack: house\nversion: 1.0.0\ntitle: House\nextends: base.yaml\n")
    files = dask_cluster.pack_files(RunOptions(pack=str(tmp_path / "house.yaml")))
    # the built-in tda-2024 the rules come from is compared by name: a worker keeps it in its own installation
    assert files == (str(tmp_path / "house.yaml"), str(tmp_path / "base.yaml"))
    assert dask_cluster.pack_files(RunOptions(pack="tda-2024")) == ()


def test_cannot_open_says_why_without_blocking(tmp_path):
    (tmp_path / "log.jsonl").write_text("{}\n")
    os.mkfifo(tmp_path / "fifo")  # nobody writes to it: opening it to read must not wait for a writer
    assert dask_cluster.cannot_open(str(tmp_path / "log.jsonl")) is None
    assert dask_cluster.cannot_open(str(tmp_path / "gone.jsonl")) == "No such file or directory"
    assert dask_cluster.cannot_open(str(tmp_path)) == "not a regular file"
    assert dask_cluster.cannot_open(str(tmp_path / "fifo")) == "not a regular file"


def fingerprint(version: str = "0.1.0", pack: str = "a" * 64, house: str = "b" * 64) -> dask_cluster.Fingerprint:
    return dask_cluster.Fingerprint(version, (("pack tda-2024", pack), ("schema hand-log.schema.json", "c" * 64)),
                                    (("/packs/house.yaml", house),))


def test_a_worker_with_other_code_or_packs_differs_and_says_how():
    assert dask_cluster.differences(fingerprint(), fingerprint()) == []
    assert dask_cluster.differences(fingerprint(), fingerprint(version="0.2.0")) == [
        "poker-auditor 0.2.0 on the worker, 0.1.0 here"]
    assert dask_cluster.differences(fingerprint(), fingerprint(pack="d" * 64)) == [
        "pack tda-2024 differs (sha256 dddddddddddd on the worker, sha256 aaaaaaaaaaaa here)"]
    assert dask_cluster.differences(fingerprint(), fingerprint(house="unreadable: Permission denied")) == [
        "--pack file /packs/house.yaml differs (unreadable: Permission denied on the worker, sha256 bbbbbbbbbbbb here)"]
    fewer = dask_cluster.Fingerprint("0.1.0", fingerprint().data[1:], fingerprint().pack_files)
    assert dask_cluster.differences(fingerprint(), fewer) == ["pack tda-2024 missing on the worker"]
    assert dask_cluster.differences(fewer, fingerprint()) == ["pack tda-2024 on the worker only"]


def test_this_process_matches_itself():
    here = dask_cluster.fingerprint("a run")
    assert here.version and len(here.data) >= 6  # three built-in packs and three schemas
    assert dask_cluster.differences(here, dask_cluster.probe("another run", []).fingerprint) == []


def test_a_refusal_names_the_worker_the_difference_and_the_files_escaped():
    unreadable = [(f"/logs/{i}.txt", "No such file or directory") for i in range(7)]
    unreadable[0] = ("/logs/\x1b[31mred.txt", "Permission denied")
    text = dask_cluster.refusal("tcp://10.0.0.7:4100", "node7", ["poker-auditor 0.2.0 on the worker, 0.1.0 here"],
                                unreadable)
    assert text.startswith("dask worker tcp://10.0.0.7:4100 on node7 runs other code or packs than this process: "
                           "poker-auditor 0.2.0 on the worker, 0.1.0 here")
    assert "cannot open 7 input file(s) this process reads: /logs/\\x1b[31mred.txt (Permission denied)" in text
    assert "/logs/4.txt (No such file or directory) and 2 more" in text and "\x1b" not in text


def test_a_worker_that_cannot_open_an_input_refuses_the_task_and_audits_nothing(client, tmp_path):
    options = RunOptions()
    expected = dask_cluster.fingerprint(options.run_id)
    partition = dask_cluster.absolute_partitions(plan(discover([SAMPLES / "holdem.jsonl"])[0], 300))[0]
    missing = str(tmp_path / "renamed.jsonl")
    answer = client.submit(dask_cluster.audit_on_worker, partition, [missing], options=options,
                           expected=expected, pure=False).result()
    assert isinstance(answer, dask_cluster.Refused)
    assert answer.unreadable == ((missing, "No such file or directory"),) and answer.problems == ()
    with pytest.raises(dask_cluster.ClusterMismatch, match="cannot open 1 input file"):
        dask_cluster.check_workers(client, options.run_id, expected, [missing])
    other = dask_cluster.Fingerprint("0.0.0-other", expected.data)
    with pytest.raises(dask_cluster.ClusterMismatch, match=r"poker-auditor \S+ on the worker, 0\.0\.0-other here"):
        dask_cluster.check_workers(client, options.run_id, other, [])


def test_a_house_pack_named_relatively_audits_as_on_the_local_engine(client, monkeypatch):
    monkeypatch.chdir(SAMPLES.parent)
    house = "rules/examples/tda-2024/TDA-HOUSE-rake/house-pack.yaml"
    local = audit([Path("sample_logs/holdem-planted.jsonl")], pack=house, batch_size=300, jobs=1)
    on_dask = audit([Path("sample_logs/holdem-planted.jsonl")], pack=house, batch_size=300, engine="dask",
                    scheduler=client)
    assert_same(local, on_dask)
    assert list(on_dask.packs) == ["example-house-rake"] and len(on_dask.findings)


def test_a_partition_whose_workers_keep_dying_is_lost_worker_and_the_rest_audited(client, monkeypatch):
    """Dask gives an erred future's result as (type, exception, traceback): a KilledWorker must still be seen as
    one, so the partition is on record as lost and the others are audited (it once came back as a tuple)."""
    from distributed.scheduler import KilledWorker

    from auditor.engines.partition import run_partition

    def first_dies(partition, required, options, expected):  # nested: pickled by value, as a task on a worker
        if partition.index == 0:
            raise KilledWorker("audit-0", SimpleNamespace(address="tcp://10.0.0.7:4100"), 3)
        return run_partition(partition, options)

    monkeypatch.setattr(dask_cluster, "audit_on_worker", first_dies)
    first = plan(discover([SAMPLES])[0], 300)[0]
    result = audit([SAMPLES], batch_size=300, engine="dask", scheduler=client)
    lost = [q for q in result.quarantined if q.code == "lost-worker"]
    assert [q.file for q in lost] == [piece.input.name for piece in first.pieces]
    assert all("the worker process auditing it died" in q.reason for q in lost)
    assert result.hands_read > len(lost) and len(result.findings)


def test_an_error_in_a_task_is_raised_as_itself(client, monkeypatch):
    def fails(partition, required, options, expected):
        raise ZeroDivisionError("a bug of ours")

    monkeypatch.setattr(dask_cluster, "audit_on_worker", fails)
    with pytest.raises(ZeroDivisionError, match="a bug of ours"):
        audit([SAMPLES / "holdem.jsonl"], engine="dask", scheduler=client)


def test_the_files_a_worker_must_open_are_each_input_or_a_datasets_three_files():
    dataset = Path(__file__).parent / "fixtures" / "parquet" / "batches-end-quietly"
    inputs, _ = discover([dataset, SAMPLES / "holdem.jsonl"])
    paths = [path for partition in plan(inputs, 300) for path in dask_cluster.input_paths(partition)]
    assert sorted(paths) == sorted([str(dataset / f"{name}.parquet") for name in ("hands", "seats", "events")]
                                   + [str(SAMPLES / "holdem.jsonl")])
