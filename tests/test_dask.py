"""`--engine dask`: the same findings, coverage and quarantines as the local engine.

A LocalCluster of two worker threads keeps the test quick (no processes to start); the tasks, their
pickled results and the gathering are the same as on a real cluster.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_parallel import assert_same  # one definition of 'the same result'

from auditor.pipeline import audit

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
