"""The readers' compiled kernels an audit's inputs will run, for the first-run notice (`model.compiled`).

The replay's kernels run in every audit and the command line announces their first compilation before it starts.
The readers' run only for some inputs, and cost as much again on a first run (measured with an empty Numba cache:
the PHH scanner ~6 s of CPU, the PHH converter ~6 s, the columnar validator ~3.3 s, the JSON Lines scanner several
more), so the command line asks here once discovery knows the inputs (`precompile.first_run`), and announces what
is still to compile instead of waiting in silence. The answer follows the readers' own choices: a `.phh` file goes
through the PHH scanner, a run of `phh_tables.MIN_FILES` of them through the converter and the validator too; a
Parquet dataset through the validator; a JSON Lines or OHH file through its scanner and the validator only when
`takes_column_wise` says so (its size: `MIN_FILE_BYTES`); a room's text through the dialect engine's, always.
The optional paths only save time, so a first run reads a format the reference way instead when that costs less
than compiling its kernels (`reference_first`).

The size gates are here, not in the column-wise readers: asking whether a file takes a path must not import the
path's kernels (a one-hand audit would load what it never runs).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from auditor.ingest.files import GZIP_MAGIC, large_plain_input
from auditor.model import compiled as cache
from auditor.model.inputs import InputFile
from auditor.resources import room_names

#: a text file smaller than this (as stored: a gzip file's compressed size) is read by its format's reference
#: reader, a larger one column-wise (`takes_column_wise`). Both give the same items (tests/test_jsonl_tables.py,
#: test_ohh_tables.py), so this decides only the time, and a run of small files
#: (sample_logs, the corpus) neither compiles nor loads the kernels:
#: - JSON Lines: the kernels cost ~0.3-0.5 s a process to load from Numba's cache and ~9 s of CPU to compile on the
#:   first run after an install, against ~40-60 µs a hand saved: below ~4,000 hands (~8 MiB at ~2 KB a hand) they
#:   cost more than they save;
#: - OHH: ~0.15-0.2 s of CPU to load in an audit (Numba loaded for the replay), against ~150 µs a hand saved (audits
#:   of 280 and 1,619 of our writer's ~2.6 KB objects through both paths): it pays from ~1,100 hands (~3 MB); 4 MiB
#:   (~1,600 hands) keeps a margin. Their first compile costs ~31 s of CPU;
MIN_FILE_BYTES = {"jsonl": 8 << 20, "ohh": 4 << 20}

_VALIDATOR = ("auditor.ingest.columnar_kernels", "auditor.ingest.columnar_validate")
_PHH_SCANNER = ("auditor.ingest.phh_scan",)
_PHH_TABLES = ("auditor.ingest.phh_kernel", *_VALIDATOR)
_JSONL_TABLES = ("auditor.ingest.jsonl_scan", *_VALIDATOR)
_OHH_TABLES = ("auditor.ingest.ohh_kernel", *_VALIDATOR)
#: a text room's one reader (every file of it, whatever its size): the dialect engine
_ROOMS = ("auditor.ingest.room_match", "auditor.ingest.room_ledger", *_VALIDATOR)
#: the kernel modules each input format's reader can call, on every path it has (`auditor compile --format`)
FORMAT_MODULES = {"jsonl": _JSONL_TABLES, "parquet": _VALIDATOR, "phh": (*_PHH_SCANNER, *_PHH_TABLES),
                  **dict.fromkeys(room_names(), _ROOMS), "ohh": _OHH_TABLES}
#: the text formats whose column-wise path a file of `MIN_FILE_BYTES` takes, with the kernel modules that path runs
TEXT_PATHS = {"jsonl": _JSONL_TABLES, "ohh": _OHH_TABLES}
#: the text rooms, read by the dialect engine alone (no other path): its kernels run for every such input
ROOM_FORMATS = dict.fromkeys(room_names(), _ROOMS)
#: the formats whose compiled path only saves time (each file it does not take, or a format read the reference way
#: this run, the reference reader reads to the same hands): the text formats' column-wise paths and PHH's byte
#: scanner and converter
OPTIONAL_PATHS = {**TEXT_PATHS, "phh": FORMAT_MODULES["phh"]}
#: CPU seconds to compile each optional path's module on an empty cache (2-core AMD EPYC: `auditor
#: compile --format F` over a cache holding the replay's kernels; the OHH scanner's includes the JSON Lines
#: scanner's routines it calls)
COMPILE_S = {"auditor.ingest.jsonl_scan": 8.5, "auditor.ingest.ohh_kernel": 24.0,
             "auditor.ingest.phh_scan": 6.0, "auditor.ingest.phh_kernel": 6.0,
             "auditor.ingest.columnar_kernels": 1.5, "auditor.ingest.columnar_validate": 1.5}
#: CPU seconds a byte of input costs the whole audit more when read the reference way than column-wise (20,000
#: hands of our writer's in each text format, the corpus's 5,123 PHH files; `audit()` both ways, kernels cached)
REFERENCE_EXTRA_S_PER_BYTE = {"jsonl": 49e-9, "ohh": 69e-9, "phh": 560e-9}
#: what each module's kernels are, for the notice
_WORDS = {"auditor.ingest.phh_scan": "the PHH reader", "auditor.ingest.phh_kernel": "the PHH reader",
          "auditor.ingest.jsonl_scan": "the JSON Lines reader", "auditor.ingest.ohh_kernel": "the OHH reader",
          "auditor.ingest.room_match": "the text rooms' reader", "auditor.ingest.room_ledger": "the text rooms' reader",
          "auditor.ingest.columnar_kernels": "the columnar validator",
          "auditor.ingest.columnar_validate": "the columnar validator"}


def takes_column_wise(path: Path, fmt: str, label: str) -> bool:
    """Whether an audit input of a text format is read column-wise (`jsonl_tables`, `ohh_tables`): a regular
    file named by its own path (what `detect.read_file` would give its reference reader unchanged: not a zip
    archive, not a FIFO spooled first, no label put in place of the path), of `MIN_FILE_BYTES[fmt]` or more; an
    OHH file not gzip too (its column-wise reader reads plain bytes)."""
    if fmt not in MIN_FILE_BYTES or not large_plain_input(path, label, MIN_FILE_BYTES[fmt]):
        return False
    if fmt != "ohh":
        return True
    try:
        with path.open("rb") as stream:
            return stream.read(2) != GZIP_MAGIC
    except OSError:  # gone or unreadable: the reference path words why
        return False


def _takes(fmt: str, item: InputFile) -> bool:
    """Whether `item` takes format `fmt`'s compiled path (`OPTIONAL_PATHS`): a plain `.phh` the PHH scanner, a text
    file what `takes_column_wise` says."""
    if item.format != fmt:
        return False
    if fmt == "phh":
        return item.path.name.lower().endswith(".phh")
    return takes_column_wise(item.path, item.format, item.label)


def reader_modules(inputs: Sequence[InputFile], reference: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """The modules whose kernels the readers of `inputs` will call (each once, in a stable order); `reference`:
    formats read the reference way this run (`reference_first`), whose compiled path is not taken."""
    modules: dict[str, None] = {}
    plain_phh = 0 if "phh" in reference else sum(1 for item in inputs if _takes("phh", item))
    if plain_phh:
        from auditor.ingest.phh_tables import MIN_FILES

        modules.update(dict.fromkeys(_PHH_SCANNER))
        if plain_phh >= MIN_FILES:
            modules.update(dict.fromkeys(_PHH_TABLES))
    if any(item.format == "parquet" for item in inputs):
        modules.update(dict.fromkeys(_VALIDATOR))
    for fmt, path_modules in TEXT_PATHS.items():
        if fmt not in reference and any(_takes(fmt, item) for item in inputs):
            modules.update(dict.fromkeys(path_modules))
    for fmt, path_modules in ROOM_FORMATS.items():
        if any(item.format == fmt for item in inputs):
            modules.update(dict.fromkeys(path_modules))
    return tuple(modules)


def reference_first(inputs: Sequence[InputFile], missing: Sequence[str]) -> frozenset[str]:
    """The formats a first run reads the reference way rather than wait for their compiled path's kernels: those
    of `OPTIONAL_PATHS` with a module in `missing` (not compiled yet), whose inputs' bytes on that path cost less
    extra reading the reference way (`REFERENCE_EXTRA_S_PER_BYTE`) than their missing modules take to compile
    (`COMPILE_S`). The compiled path is a speed path only (its hands are the reference reader's, held equal by
    the readers' identity tests), so the choice changes the run's time, never what it reports.

    Why: on a first run after an install the replay's kernels compile first (~13 s on two cores here); a reader's
    compiled beside them made a 20,000-hand file's first audit take 33-44 s against 20 s read the reference way."""
    chosen = set()
    for fmt, path_modules in OPTIONAL_PATHS.items():
        to_compile = [name for name in path_modules if name in missing]
        if not to_compile:
            continue
        size = 0
        for item in inputs:
            if _takes(fmt, item):
                try:
                    size += item.path.stat().st_size
                except OSError:  # gone: its reader says so, whichever path reads it
                    continue
        if size and size * REFERENCE_EXTRA_S_PER_BYTE[fmt] <= sum(COMPILE_S[name] for name in to_compile):
            chosen.add(fmt)
    return frozenset(chosen)


def reader_kernels(inputs: Sequence[InputFile], reference: frozenset[str] = frozenset()) -> list[str]:
    """The kernels the readers of `inputs` will compile on first use: those of the modules not run yet since an
    install (`never_run`; a module that has run may still have kernels only some data needs, compiled in a
    fraction of a second when it does, not worth a notice on every run); `reference` as for `reader_modules`."""
    modules = reader_modules(inputs, reference)
    fresh = set(cache.never_run(modules))
    return [name for name in cache.uncached(modules) if name.rsplit(".", 1)[0] in fresh]


def reader_words(kernels: Sequence[str]) -> str:
    """Whose `kernels` (as `reader_kernels` names them) are, in words: "the PHH reader and the columnar validator"."""
    words = list(dict.fromkeys(_WORDS.get(name.rsplit(".", 1)[0], "the readers") for name in kernels))
    return " and ".join(words) if len(words) < 3 else ", ".join(words[:-1]) + " and " + words[-1]
