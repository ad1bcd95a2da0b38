"""Suite-wide settings, applied before any test module imports the auditor.

The replay kernels are compiled with Numba's bounds checks for the whole suite: a kernel index that a
hostile or malformed log pushes out of range raises IndexError in a test instead of reading stray memory
silently. Numba's on-disk cache does not key on that flag (a kernel cached unchecked would be loaded
unchecked), so checked kernels are cached in a folder of their own. Both can be overridden from the
environment.

The suite runs in two processes (`-n 2` in pyproject's addopts, pytest-xdist, whole files to a worker so a
module's fixtures are computed once). Two workers starting with an empty Numba cache would each compile the
same kernels, the same two minutes spent twice on two cores; so before the workers start, the controller
compiles them once into the cache the workers then load (`pytest_configure` below). `-n 0` runs the suite in
one process, as `--pdb` needs.
"""

from __future__ import annotations

import functools
import os
import tempfile
import time
from pathlib import Path

import pytest

os.environ.setdefault("NUMBA_BOUNDSCHECK", "1")
os.environ.setdefault("NUMBA_CACHE_DIR", str(Path(tempfile.gettempdir()) / "poker-auditor-numba-boundscheck"))

# Property tests draw the same examples on every run, so a CI result is reproducible and a red run is not a
# lottery ticket; the fuzz scripts (scripts/fuzz.py) and `AUDITOR_HYPOTHESIS=explore` draw fresh ones.
from hypothesis import settings

settings.register_profile("suite", derandomize=True, print_blob=True)
settings.register_profile("explore", print_blob=True)
settings.load_profile("explore" if os.environ.get("AUDITOR_HYPOTHESIS") == "explore" else "suite")


#: test files that share a session fixture go to the same worker (`xdist_group`; every other file is a group
#: of its own): the rule example audits are read by both of these
GROUPS = {"test_rule_examples.py": "rule-examples", "test_messages.py": "rule-examples"}

#: the slowest test files, slowest first (per-file times of a cold-cache run, 2026-12-01): handed to the workers
#: first, so no long file starts last and leaves one worker alone at the end while the other idles
SLOW_FIRST = ("test_installed_wheel.py", "test_rule_examples.py", "test_messages.py", "test_property_mutated.py",
              "test_parquet_tables.py", "test_dask_real_cluster.py", "test_sample_logs.py", "test_manifest.py",
              "test_hostile_packs.py", "test_unaudited.py", "test_reports.py", "test_phh.py", "test_ohh_tables.py")

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SAMPLES = Path(__file__).resolve().parents[1] / "sample_logs"


def _compile_kernels() -> float:
    """Compile the kernels every worker's audits run (into the suite's Numba cache), once, before the workers.

    The replay kernels first, on two processes as the command line's first run does (`kernel.warm`); then an
    audit of the sample logs and of one PHH, PokerStars and OHH file each runs every kernel an audit
    compiles (the PHH scanner only for PHH), loading the replay's from the cache. A failure here is not the
    suite's to report: the tests that hit it will, with their own names, so it is swallowed and the workers
    compile as they would have.
    """
    start = time.perf_counter()
    try:
        from auditor.pipeline import audit
        from auditor.replay.kernel import warm

        warm.compile_kernels()

        audit([SAMPLES, FIXTURES / "phh" / "side-pots.phhs", FIXTURES / "pokerstars" / "sitting_out.txt",
               FIXTURES / "ohh" / "side-pot.ohh"])
    except Exception:  # see the docstring: the tests report it
        pass
    return time.perf_counter() - start


def pytest_configure(config: pytest.Config) -> None:
    """In the xdist controller only (a worker has `workerinput`), before any worker starts."""
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        config._auditor_warmup_s = _compile_kernels()  # type: ignore[attr-defined]


def pytest_report_header(config: pytest.Config) -> str | None:
    spent = getattr(config, "_auditor_warmup_s", None)
    return None if spent is None else f"replay kernels compiled or loaded in {spent:.1f} s before the workers started"


@pytest.hookimpl(tryfirst=True)  # before xdist's own, which writes each item's group into its node id
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Each file a group of its own for `--dist loadgroup` (so a module's fixtures are computed once), files
    that share a session fixture one group; the slowest files first (a stable sort: every other test keeps
    its place; each worker sorts alike)."""
    if not hasattr(config, "workerinput"):  # only a worker collects; order matters only to the schedule
        return
    for item in items:
        item.add_marker(pytest.mark.xdist_group(GROUPS.get(item.path.name, item.path.name)))
    rank = {name: n for n, name in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(SLOW_FIRST)))


@pytest.fixture(scope="session")
def example_audit():
    """`audit([path], pack=pack)` of one rule example hand, run once per test process and shared:
    tests/test_rule_examples.py judges every example's findings and tests/test_messages.py their wording,
    from the same audits. The results are only read."""
    from auditor.pipeline import audit

    @functools.cache
    def run(path: Path, pack: str):
        return audit([path], pack=pack)

    return run
