"""`--engine dask` on a real cluster: a scheduler and workers started as their own processes, elsewhere.

What broke: with `dask scheduler` and `dask worker --nworkers 2 --nthreads 1` started in another directory,
`auditor audit sample_logs ... --engine dask --scheduler ...` sent the relative paths as given; every
`sample_logs` file was 'cannot open' on the workers, and 1,418 hands that were never opened stood as seven
one-line quarantines. A `LocalCluster` in the test process cannot show that (its workers share the test's
directory), so these tests start `python -m dask scheduler` and `python -m dask worker` as subprocesses
whose working directory is a temporary folder, run the command line from the repository root as a
subprocess, and require the report `--jobs 1` writes, byte for byte apart from the run time and the
report's record of the command that made it.

The other half of the issue — a worker that runs other code, or cannot open an input the client opens,
refuses the run naming the worker — is tested on the same cluster (the check functions called on its
workers) and end to end on two workers set up by `--preload` scripts: one whose poker-auditor reports another
version, one that cannot import poker-auditor at all; the run exits 2 naming both.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")

from auditor.engines import dask_cluster  # noqa: E402
from auditor.engines.partition import RunOptions, plan  # noqa: E402
from auditor.pipeline import discover  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "pokerstars"
#: how long a scheduler or its workers may take to come up on a loaded 2-core machine
START_SECONDS = 60
#: one audit of sample_logs and the PokerStars corpus (about 1,650 hands) takes 3-6 s
RUN_SECONDS = 120


class Cluster:
    """A scheduler and `dask worker` commands (a nanny per worker process) started as separate process groups,
    with `cwd` a folder that is not the repository; killed, whole groups, when the test is done."""

    def __init__(self, folder: Path, workers: list[tuple[int, Path | None]]):
        """`workers`: one `dask worker` command per (number of worker processes, --preload script or None)."""
        self.folder = folder
        self.processes: list[subprocess.Popen] = []
        folder.mkdir(parents=True, exist_ok=True)
        try:
            self._start_all(workers)
        except BaseException:  # whatever started is stopped: a cluster that failed to come up leaves nothing
            self.close()
            raise

    def _start_all(self, workers: list[tuple[int, Path | None]]) -> None:
        folder = self.folder
        info = folder / "scheduler.json"
        self._start([sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1", "--port", "0",
                     "--no-dashboard", "--no-show", "--scheduler-file", str(info)], "scheduler.log")
        deadline = time.monotonic() + START_SECONDS
        while True:  # the scheduler writes its address (the port it was given) once it listens
            try:
                self.address = json.loads(info.read_text())["address"]
                break
            except (OSError, ValueError, KeyError):
                self._alive_or_fail()
                if time.monotonic() > deadline:
                    raise TimeoutError("the scheduler did not start") from None
                time.sleep(0.2)
        for i, (nworkers, preload) in enumerate(workers):
            command = [sys.executable, "-m", "dask", "worker", self.address, "--nworkers", str(nworkers),
                       "--nthreads", "1", "--host", "127.0.0.1", "--no-dashboard", "--local-directory",
                       str(folder / "space")]
            self._start(command + (["--preload", str(preload)] if preload is not None else []), f"worker{i}.log")
        with distributed.Client(self.address, timeout="30s") as client:
            client.wait_for_workers(sum(n for n, _ in workers), timeout=START_SECONDS)
            self.workers = sorted(client.scheduler_info()["workers"])

    def _start(self, args: list[str], log: str) -> None:
        with (self.folder / log).open("wb") as out:
            self.processes.append(subprocess.Popen(args, cwd=self.folder, stdout=out, stderr=subprocess.STDOUT,
                                                   stdin=subprocess.DEVNULL, start_new_session=True))

    def _alive_or_fail(self) -> None:
        for process in self.processes:
            if process.poll() is not None:
                raise RuntimeError(f"{process.args[3]} exited with {process.returncode}: see {self.folder}")

    def close(self) -> None:
        """SIGTERM to each process group started here (a worker's nanny has children), SIGKILL if it lingers."""
        for process in reversed(self.processes):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in reversed(self.processes):
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=15)
            with contextlib.suppress(ProcessLookupError):  # the nanny's worker processes, if any outlived it
                os.killpg(process.pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    started = Cluster(tmp_path_factory.mktemp("elsewhere"), [(2, None)])
    try:
        yield started
    finally:
        started.close()


def audit_cli(*args: str, output: Path) -> subprocess.CompletedProcess:
    """`auditor audit <args> --format json --output <output>` from the repository root, as a user runs it."""
    return subprocess.run([sys.executable, "-m", "auditor.cli", "audit", *args, "--quiet", "--format", "json",
                           "--output", str(output)], cwd=ROOT, capture_output=True, text=True, timeout=RUN_SECONDS)


#: the report's record of its own invocation (the evidence manifest's `run`: the command line, when it started
#: and ended), which names `--engine dask --scheduler ...` in one run and `--jobs 1` in the other
RUN_RECORD = re.compile(rb'"run": \{\n.*?\n\s*\},\n(?=\s*"inputs")', re.DOTALL)


def without_timing(report: bytes) -> bytes:
    """The JSON report with its run time (`"seconds"`) set to 0 and its invocation record left out: what is
    left is what the audit found, byte for byte."""
    cleared, count = re.subn(rb'"seconds": [0-9.eE+-]+', b'"seconds": 0', report)
    assert count == 1
    cleared, count = RUN_RECORD.subn(b'"run": "this run",\n', cleared)
    assert count <= 1
    return cleared


def inputs() -> list[str]:
    """Relative to the repository root, as the failing run named them: that is what broke."""
    return ["sample_logs"] + ([os.path.relpath(CORPUS, ROOT)] if CORPUS.is_dir() else [])


def test_real_cluster_elsewhere_gives_the_report_of_jobs_1(cluster: Cluster, tmp_path: Path):
    assert not (cluster.folder / "sample_logs").exists()  # the workers cannot find the inputs by their names
    alone = audit_cli(*inputs(), "--jobs", "1", output=tmp_path / "jobs1.json")
    on_cluster = audit_cli(*inputs(), "--engine", "dask", "--scheduler", cluster.address,
                           output=tmp_path / "dask.json")
    assert on_cluster.returncode == alone.returncode, on_cluster.stderr
    assert alone.returncode in (0, 1, 3), alone.stderr  # the inputs hold findings and quarantines
    expected = without_timing((tmp_path / "jobs1.json").read_bytes())
    assert without_timing((tmp_path / "dask.json").read_bytes()) == expected
    summary = json.loads(expected)["summary"]
    assert "cannot open" not in expected.decode()
    # what broke: 236 hands read on the cluster instead of 1,654, the rest as seven 'cannot open' lines
    assert summary["hands_read"] == (1654 if CORPUS.is_dir() else 1427)


def test_each_worker_of_the_cluster_is_named_when_it_cannot_open_an_input(cluster: Cluster, tmp_path: Path):
    options = RunOptions()
    expected = dask_cluster.fingerprint(options.run_id)
    missing = str(tmp_path / "moved-away.jsonl")  # as if the client saw it and the workers do not
    with distributed.Client(cluster.address, timeout="30s") as client:
        dask_cluster.check_workers(client, options.run_id, expected, [str(ROOT / "sample_logs" / "holdem.jsonl")])
        with pytest.raises(dask_cluster.ClusterMismatch) as refused:
            dask_cluster.check_workers(client, options.run_id, expected, [missing])
        message = str(refused.value)  # both workers fail alike: one line names them both
        assert f"dask workers {', '.join(cluster.workers)} on " in message
        assert f"{missing} (No such file or directory)" in message
        # the same check in the task itself (a worker that joined later, a file removed since the first check)
        inputs, _ = discover([ROOT / "sample_logs" / "holdem.jsonl"])
        partition = dask_cluster.absolute_partitions(plan(inputs, 1000))[0]
        answer = client.submit(dask_cluster.audit_on_worker, partition, [missing], options=options,
                               expected=expected, pure=False).result(timeout=RUN_SECONDS)
        assert isinstance(answer, dask_cluster.Refused)
        assert answer.worker in cluster.workers and answer.unreadable[0][0] == missing
        audited = client.submit(dask_cluster.audit_on_worker, partition, dask_cluster.input_paths(partition),
                                options=options, expected=expected, pure=False).result(timeout=RUN_SECONDS)
        assert audited.hands_read > 0 and not audited.quarantined


#: run by a worker at start (`--preload`): its poker-auditor reports another version
OTHER_VERSION = "import auditor.resources\n\nauditor.resources.package_version = lambda: '0.0.0-other'\n"
#: ... or it has no poker-auditor at all (the import of `auditor` fails)
NO_AUDITOR = ("import sys\n\nfor name in [n for n in sys.modules if n == 'auditor' or n.startswith('auditor.')]:\n"
              "    del sys.modules[name]\nsys.modules['auditor'] = None\n")


def test_workers_of_another_version_or_without_poker_auditor_refuse_the_run(tmp_path: Path):
    (tmp_path / "other_version.py").write_text(OTHER_VERSION)
    (tmp_path / "no_auditor.py").write_text(NO_AUDITOR)
    other = Cluster(tmp_path / "other", [(1, tmp_path / "other_version.py"), (1, tmp_path / "no_auditor.py")])
    try:
        with distributed.Client(other.address, timeout="30s") as client:
            versions = client.run(lambda: __import__("sys").modules.get("auditor") is None)
        done = audit_cli("sample_logs", "--engine", "dask", "--scheduler", other.address,
                         output=tmp_path / "refused.json")
    finally:
        other.close()
    assert done.returncode == 2, done.stderr
    without = next(worker for worker, missing in versions.items() if missing)
    older = next(worker for worker, missing in versions.items() if not missing)
    assert f"dask worker {older} on " in done.stderr
    assert "poker-auditor 0.0.0-other on the worker" in done.stderr
    assert f"dask worker {without} cannot run poker-auditor's check" in done.stderr
    assert "No module named 'auditor" in done.stderr
    assert not (tmp_path / "refused.json").exists()
