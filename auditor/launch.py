"""The `auditor` command's entry point (and `python -m auditor`'s): the worker pool's fork server started before
the command's own imports, when the command line says the run will use it.

Why: a pool's workers are forked from a fork server that imports what a partition runs and loads the cached
kernels (`engines.preload`, ~1.1 s of CPU). The pipeline starts it as soon as the inputs are found, which is
after `auditor.cli` has imported pandas, Arrow, Numba and the packs (~1 s): the workers then waited for the
two one after the other. Measured on 1,000,000 hands from Parquet, `--jobs 2`, two cores: the server started
at 1.1 s, the workers at 2.35 s. Started here, the server warms up on the second core while this process
imports, and the workers start about a second earlier.

Only a guess from the command line and the inputs' sizes (`early_readers`: no input byte is read, nothing is
imported), and a cautious one: `auditor audit` on the local engine with more than one job, and a Parquet
dataset whose hands.parquet is large enough (`PARQUET_HANDS_BYTES`) that the run cannot be too small for a
pool (`engines.local.POOL_MIN_HANDS`), with the replay's kernels in Numba's cache (a first run compiles them
first, and stops a server started here: `precompile.first_run`). Anything else starts the server where it
always did. A wrong guess costs the server's warm-up on another core, never a different result: the server
the pipeline asks for is this one (`engines.server`), restarted if the environment changed meanwhile.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Sequence

#: hands.parquet at least this big holds far more than `POOL_MIN_HANDS` hands (our datasets: ~16 bytes a hand)
PARQUET_HANDS_BYTES = 1 << 20
#: the reader modules a Parquet dataset needs (`ingest.compiled.FORMAT_MODULES["parquet"]`; a test holds them equal)
PARQUET_READERS = ("auditor.ingest.columnar_kernels", "auditor.ingest.columnar_validate")
#: `audit` options that take a value, and those that do not (`auditor.cli.audit`; a test holds them equal)
VALUE_OPTIONS = ("--pack", "--format", "--output", "--fail-on", "--input-format", "--jobs", "-j", "--engine",
                 "--scheduler", "--limit", "--manifest")
FLAG_OPTIONS = ("--allow-unaudited", "--quiet")
#: the replay's largest kernel, whose cache index says whether the replay has been compiled here
_REPLAY_INDEX = ("replay/kernel", "hand.replay_hands-")


def main() -> None:
    """Start the fork server if the command line says so, then run the `auditor` command."""
    readers = early_readers(sys.argv[1:])
    if readers is not None:
        try:
            from auditor.engines.server import start_early

            start_early(readers)
        except Exception:  # an optimisation only: the pipeline starts it as always
            pass
    from auditor.cli import main as command

    command()


def early_readers(argv: Sequence[str], cores: int | None = None) -> tuple[str, ...] | None:
    """The reader modules to start the fork server with now, or None to leave it to the pipeline."""
    if not argv or argv[0] != "audit":
        return None
    options: dict[str, str] = {}
    paths: list[str] = []
    words = list(argv[1:])
    while words:
        word = words.pop(0)
        if word == "--":
            paths.extend(words)
            break
        if not word.startswith("-") or word == "-":
            paths.append(word)
            continue
        name, equals, value = word.partition("=")
        if name in FLAG_OPTIONS and not equals:
            continue
        if name not in VALUE_OPTIONS:
            return None  # --help, or an option this guess does not know
        if not equals:
            if not words:
                return None
            value = words.pop(0)
        options[name] = value
    if options.get("--engine", "local") != "local" or options.get("--input-format", "auto") not in ("auto", "parquet"):
        return None
    jobs = options.get("--jobs", options.get("-j"))
    if jobs is not None:
        if not jobs.isdigit() or int(jobs) <= 1:
            return None
    elif (cores if cores is not None else _cores()) <= 1:
        return None
    if not paths or not any(_large_dataset(path) for path in paths) or not replay_cached():
        return None
    return PARQUET_READERS


def _large_dataset(path: str) -> bool:
    try:
        return os.stat(os.path.join(path, "hands.parquet")).st_size >= PARQUET_HANDS_BYTES
    except (OSError, ValueError):
        return False


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def replay_cached() -> bool:
    """Whether Numba's cache holds an index of the replay's main kernel where Numba looks first: beside the
    source, or under NUMBA_CACHE_DIR, in the folder Numba names after the source's (a stale index only means
    the server loads less)."""
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), *_REPLAY_INDEX[0].split("/"))
    place = os.path.join(source, "__pycache__")
    if os.environ.get("NUMBA_CACHE_DIR"):
        # numba.core.caching.UserProvidedCacheLocator.get_suitable_cache_subpath
        digest = hashlib.sha1(source.encode()).hexdigest()
        place = os.path.join(os.environ["NUMBA_CACHE_DIR"], f"{os.path.basename(source)}_{digest}")
    try:
        with os.scandir(place) as entries:
            return any(e.name.startswith(_REPLAY_INDEX[1]) and e.name.endswith(".nbi") for e in entries)
    except OSError:
        return False
