"""The readers' compiled kernels an audit's inputs will run, for the first-run notice (`model.compiled`).

The replay's kernels run in every audit and the command line announces their first compilation before it starts.
The readers' run only for some inputs, and cost as much again on a first run (measured with an empty Numba cache:
the PHH scanner ~6 s of CPU, the PHH converter ~6 s, the columnar validator ~3.3 s, the JSON Lines scanner several
more), so the command line asks here once discovery knows the inputs (`precompile.first_run`), and announces what
is still to compile instead of waiting in silence. The answer follows the readers' own choices: a `.phh` file goes
through the PHH scanner, a run of `phh_tables.MIN_FILES` of them through the converter and the validator too; a
Parquet dataset through the validator; a JSON Lines file through its scanner and the validator only when
`jsonl_tables.takes_tables` says so, an OHH file through its kernels (~31 s of CPU to compile) and the validator
only when `ohh_tables.takes_ohh_tables` does.
"""

from __future__ import annotations

from collections.abc import Sequence

from auditor.model import compiled as cache
from auditor.model.inputs import InputFile

_VALIDATOR = ("auditor.ingest.columnar_kernels", "auditor.ingest.columnar_validate")
_PHH_SCANNER = ("auditor.ingest.phh_scan",)
_PHH_TABLES = ("auditor.ingest.phh_kernel", *_VALIDATOR)
_JSONL_TABLES = ("auditor.ingest.jsonl_scan", *_VALIDATOR)
_OHH_TABLES = ("auditor.ingest.ohh_kernel", *_VALIDATOR)
_PS_TABLES = ("auditor.ingest.pokerstars_kernel", *_VALIDATOR)
#: the kernel modules each input format's reader can call, on every path it has (`auditor compile --format`)
FORMAT_MODULES = {"jsonl": _JSONL_TABLES, "parquet": _VALIDATOR, "phh": (*_PHH_SCANNER, *_PHH_TABLES),
                  "pokerstars": _PS_TABLES, "ohh": _OHH_TABLES}
#: what each module's kernels are, for the notice
_WORDS = {"auditor.ingest.phh_scan": "the PHH reader", "auditor.ingest.phh_kernel": "the PHH reader",
          "auditor.ingest.jsonl_scan": "the JSON Lines reader", "auditor.ingest.ohh_kernel": "the OHH reader",
          "auditor.ingest.pokerstars_kernel": "the PokerStars reader",
          "auditor.ingest.columnar_kernels": "the columnar validator",
          "auditor.ingest.columnar_validate": "the columnar validator"}


def reader_modules(inputs: Sequence[InputFile]) -> tuple[str, ...]:
    """The modules whose kernels the readers of `inputs` will call (each once, in a stable order)."""
    from auditor.ingest.jsonl_tables import takes_tables
    from auditor.ingest.ohh_tables import takes_ohh_tables
    from auditor.ingest.phh_tables import MIN_FILES
    from auditor.ingest.pokerstars_tables import takes_pokerstars_tables

    modules: dict[str, None] = {}
    plain_phh = sum(1 for item in inputs if item.format == "phh" and item.path.name.lower().endswith(".phh"))
    if plain_phh:
        modules.update(dict.fromkeys(_PHH_SCANNER))
    if plain_phh >= MIN_FILES:
        modules.update(dict.fromkeys(_PHH_TABLES))
    if any(item.format == "parquet" for item in inputs):
        modules.update(dict.fromkeys(_VALIDATOR))
    if any(takes_tables(item.path, item.format, item.label) for item in inputs if item.format == "jsonl"):
        modules.update(dict.fromkeys(_JSONL_TABLES))
    if any(takes_ohh_tables(item.path, item.format, item.label) for item in inputs if item.format == "ohh"):
        modules.update(dict.fromkeys(_OHH_TABLES))
    if any(takes_pokerstars_tables(item.path, item.format, item.label) for item in inputs
           if item.format == "pokerstars"):
        modules.update(dict.fromkeys(_PS_TABLES))
    return tuple(modules)


def reader_kernels(inputs: Sequence[InputFile]) -> list[str]:
    """The kernels the readers of `inputs` will compile on first use: those of the modules not run yet since an
    install (`never_run`; a module that has run may still have kernels only some data needs, compiled in a
    fraction of a second when it does, not worth a notice on every run)."""
    modules = reader_modules(inputs)
    fresh = set(cache.never_run(modules))
    return [name for name in cache.uncached(modules) if name.rsplit(".", 1)[0] in fresh]


def reader_words(kernels: Sequence[str]) -> str:
    """Whose `kernels` (as `reader_kernels` names them) are, in words: "the PHH reader and the columnar validator"."""
    words = list(dict.fromkeys(_WORDS.get(name.rsplit(".", 1)[0], "the readers") for name in kernels))
    return " and ".join(words) if len(words) < 3 else ", ".join(words[:-1]) + " and " + words[-1]
