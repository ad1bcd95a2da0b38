"""The `auditor` command.

Exit status of `audit` is the contract CI jobs rely on: 0 nothing at or above --fail-on and every
hand read was audited; 1 findings at or above --fail-on; 2 usage error, nothing readable, no hand
audited, or a --pack that has no rule for any hand read; 3 nothing at or above --fail-on, but
something went unaudited (a hand quarantined or not covered by its pack, or a skipped file that is a
hand history of a room this auditor cannot read). `--allow-unaudited` turns 3 into 0: a run must say
so explicitly to pass over hands it never judged. Findings always give 1.

Importing this module imports click and nothing heavy: each command imports what it runs (pandas, Arrow, Numba,
the readers and the packs) when it runs, so `auditor --version`, `--help` or `rules show` do not wait for the
machinery of an audit (`tests/test_startup.py` holds `import auditor.cli` free of pandas, pyarrow and numba).
"""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from auditor.model.inputs import INPUT_FORMATS
from auditor.report.formats import FORMATS
from auditor.resources import room_names, xml_room_names

if TYPE_CHECKING:
    from auditor.check.packs import Pack

FAIL_ON = ("error", "warning", "info", "never")
#: `audit` exit status when no finding reaches --fail-on but some hand or hand-history file went unaudited
EXIT_UNAUDITED = 3
#: `audit --format` choices: the report formats (`report.formats`, which names each one's writer)
REPORT_FORMATS = tuple(FORMATS)
#: `simulate --format` and `verify --via` choices (simulate.writer.FORMATS, simulate.verify.VIA; kept in step by a test)
SIMULATE_FORMATS = ("jsonl", *room_names(), *xml_room_names(), "ohh", "phh", "pokernow")
VERIFY_VIA = ("canonical", *room_names(), *xml_room_names(), "ohh", "phh", "pokernow")
#: `compile --format` choices (precompile.FORMATS; kept in step by a test)
COMPILE_FORMATS = ("jsonl", "parquet", "phh", *room_names(), "ohh")


def _machinery() -> None:
    """Import what reading and auditing hands needs (pandas, Arrow, Numba, the readers, the engines, the packs) with
    the garbage collector off, then freeze what was made (`gc.freeze`): those imports make objects by the hundred
    thousand that live as long as the process, and collecting while they are made frees nothing and cost ~0.1 s of
    every command that reads hands; frozen, no later collection walks them (an audit of one hand: 1.02 s -> 0.78 s,
    medians of 11; disabled without the freeze, the first collection after walks them all and nothing is won).
    Once a process: a process that has imported them (a test session, a library caller) is left as it is."""
    if "auditor.pipeline" in sys.modules:
        return
    enabled = gc.isenabled()
    gc.disable()
    try:
        import auditor.pipeline  # noqa: F401
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def _audit_or_exit(paths: tuple[Path, ...], pack: str | None, quiet: bool, **options):
    """The audit behind `audit` and `explain`, with a progress bar on a terminal; exit 2 on a usage error."""
    _machinery()
    from auditor.check.packs import PackError
    from auditor.model.inputs import UsageError
    from auditor.pipeline import audit as run_audit
    from auditor.precompile import first_run
    from auditor.report.progress import progress_bar

    bar = progress_bar(sys.stderr, quiet)
    notice = None if quiet else _notice
    try:
        return run_audit(paths, pack, progress=bar, prepare=first_run(notice), **options)
    except (UsageError, PackError) as exc:
        click.echo(f"auditor: {exc}", err=True)
        sys.exit(2)
    finally:
        if bar is not None:
            bar.close()


def _notice(line: str) -> None:
    click.echo(line, err=True)


def _exit_status(result, fail_on: str, allow_unaudited: bool = False) -> int:
    """0 clean, 1 findings at or above `fail_on`, 2 nothing audited, 3 clean but something unaudited
    (0 with `allow_unaudited`); see the module docstring."""
    from auditor.check.run import SEVERITY_ORDER

    if result.hands_read == 0 or result.hands_audited == 0:
        return 2
    if fail_on != "never" and len(result.findings):
        threshold = SEVERITY_ORDER[fail_on]
        if min(SEVERITY_ORDER[s] for s in result.findings["severity"]) <= threshold:
            return 1
    return EXIT_UNAUDITED if result.unaudited and not allow_unaudited else 0


def _nothing_audited(result) -> str:
    """One line saying why no hand was audited: quarantine codes and counts, hands not covered."""
    parts = []
    if result.quarantined:
        codes = ", ".join(f"{code} {count}" for code, count in result.quarantined_by_code().items())
        parts.append(f"{result.hands_quarantined} quarantined ({codes})")
    if result.hands_not_covered:
        parts.append(f"{result.hands_not_covered} not covered by their pack")
    return f"auditor: no hand was audited of {result.hands_read} read: {'; '.join(parts)}"


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """`--version`: the version, and which installation answers (its Python and where its rule packs are)."""
    if not value or ctx.resilient_parsing:
        return
    import platform

    from auditor.resources import DISTRIBUTION, package_version, rules_dir

    click.echo(f"auditor {package_version()} ({DISTRIBUTION}; Python {platform.python_version()}; "
               f"built-in rule packs in {rules_dir()})")
    ctx.exit()


class _Auditor(click.Group):
    """The command group, remembering the arguments it was given: the evidence manifest records the command
    line (`sys.argv` is not it when the CLI is invoked from Python, as tests do)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta["auditor.argv"] = list(args)
        return super().parse_args(ctx, args)


def _command_line() -> tuple[str, ...]:
    """`auditor` and the arguments as given."""
    ctx = click.get_current_context(silent=True)
    argv = ctx.meta.get("auditor.argv") if ctx is not None else None
    return ("auditor", *(sys.argv[1:] if argv is None else argv))


class _AuditCommand(click.Command):
    """`audit --help` ends with the names of the built-in rule packs (read when help is asked for, so
    the list is the installation's own, and importing the CLI reads no pack folder)."""

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_epilog(ctx, formatter)
        from auditor.check.packs import builtin_pack_paths

        names = ", ".join(builtin_pack_paths()) or "none found (give --pack FILE)"
        with formatter.section("Built-in rule packs (--pack NAME; `auditor rules list` lists their rules)"):
            formatter.write_text(names)


#: help up to 100 columns wide (click stops at 80 whatever the terminal), and -h as well as --help
CONTEXT = {"max_content_width": 100, "help_option_names": ["-h", "--help"]}


@click.group(cls=_Auditor, context_settings=CONTEXT)
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version, the Python and the rule pack folder, and exit.")
def main() -> None:
    """Audit poker hand histories against declarative rule packs."""
    from auditor.resources import ResourceError, check_installation

    try:  # a broken installation is one error here, not the same quarantine reason for every input file
        check_installation()
    except ResourceError as exc:
        click.echo(f"auditor: {exc}", err=True)
        sys.exit(2)


@main.command(cls=_AuditCommand, short_help="Audit hand logs against rule packs: findings and summary.")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--pack", "pack", metavar="NAME_OR_FILE",
              help="Audit every hand under this pack, a built-in name (listed below) or a pack file "
                   "(default: the built-in pack each table declares).")
@click.option("--format", "fmt", type=click.Choice(REPORT_FORMATS), multiple=True, default=("text",),
              show_default=True, help="Report format; repeat for several reports in one run (into --output DIR).")
@click.option("--output", "output", default="-", metavar="FILE|DIR|-", show_default=True,
              help="Where reports go: a file or - (one format), or a directory (default names, any number).")
@click.option("--fail-on", type=click.Choice(FAIL_ON), default="error", show_default=True,
              help="Exit 1 if any finding is at or above this severity (else 0, or 3 if something went unaudited).")
@click.option("--allow-unaudited", is_flag=True,
              help="Exit 0, not 3, when nothing reaches --fail-on but hands went unaudited (quarantined, not "
                   "covered by their pack) or a skipped file is a hand history of a room this auditor cannot read.")
@click.option("--quiet", is_flag=True,
              help="Print only the headline and the counts: no findings on the terminal, no quarantine lines, no "
                   "rule table, no progress bar. Report files are written in full.")
@click.option("--input-format", type=click.Choice(INPUT_FORMATS), default="auto", show_default=True,
              help="Read every input as this format instead of detecting it per file.")
@click.option("--jobs", "-j", type=click.IntRange(1), default=None, metavar="N",
              help="Worker processes (default: every core). The findings are the same for any N.")
@click.option("--engine", type=click.Choice(["local", "dask"]), default="local", show_default=True,
              help="local: worker processes on this machine; dask: a dask.distributed cluster (the 'dask' extra).")
@click.option("--scheduler", metavar="ADDRESS",
              help="--engine dask: the scheduler to use (tcp://host:8786); default: start a local cluster.")
@click.option("--limit", "limit_settings", multiple=True, metavar="NAME=VALUE",
              help="Change an input limit, e.g. jsonl_max_line_bytes=1M (repeatable; docs/hostile-input.md lists "
                   "them).")
@click.option("--manifest", "manifest", type=click.Path(path_type=Path, dir_okay=False, allow_dash=True), default=None,
              metavar="FILE|-",
              help="Also write the run's evidence manifest alone to FILE, or - (standard output, when no report goes "
                   "there): JSON, inputs with SHA-256 and hand counts, packs, tool, times; `auditor check-manifest "
                   "FILE` checks the inputs against it later.")
def audit(paths: tuple[Path, ...], pack: str | None, fmt: tuple[str, ...], output: str, fail_on: str,
          allow_unaudited: bool, quiet: bool, input_format: str, jobs: int | None, engine: str, scheduler: str | None,
          limit_settings: tuple[str, ...] = (), manifest: Path | None = None) -> None:
    """Audit the hand logs under PATHS (directories are searched recursively; `-` is standard input).

    A FIFO named in PATHS is read once, like standard input; inside a directory, FIFOs, devices and
    links to nothing or to directories are skipped and listed with why. At most 100 findings of one
    rule are listed per hand; the summary counts the rest.

    \b
    Exit status: 0 nothing at or above --fail-on and every hand read was audited;
    1 findings at or above --fail-on; 2 usage error, or no hand audited (nothing readable, every
    hand quarantined, or a --pack with no rule for any hand read); 3 nothing at or above --fail-on
    but something went unaudited (hands quarantined or not covered by their pack, hand histories
    of a room this auditor cannot read): 0 instead with --allow-unaudited.
    """
    from auditor.report.formats import OutputError, plan

    try:
        targets = plan(fmt, output)
    except OutputError as exc:
        click.echo(f"auditor: {exc}", err=True)
        sys.exit(2)
    from auditor.ingest.limits import Limits

    try:
        limits = Limits.parse(limit_settings)
    except ValueError as exc:
        click.echo(f"auditor: --limit: {exc}", err=True)
        sys.exit(2)
    problem = _manifest_problem(manifest, paths, targets)
    if problem:
        click.echo(f"auditor: --manifest {problem}", err=True)
        sys.exit(2)
    result = _audit_or_exit(paths, pack, quiet, input_format=input_format, jobs=jobs, engine=engine,
                            scheduler=scheduler, limits=limits, command=_command_line())
    _write_reports(result, targets, quiet)
    if manifest is not None:
        _write_manifest(result, manifest)
    if result.hands_read == 0:
        click.echo("auditor: no hands found in the given paths", err=True)
    elif result.hands_audited == 0:
        click.echo(_nothing_audited(result), err=True)
    sys.exit(_exit_status(result, fail_on, allow_unaudited))


def _manifest_problem(manifest: Path | None, paths: tuple[Path, ...], targets: list) -> str | None:
    """Why `--manifest` cannot be written where asked (decided before the run, so a bad one costs nothing)."""
    if manifest is None:
        return None
    if manifest.as_posix() == "-":
        return ("-: a report already goes to standard output; give --manifest FILE"
                if any(t.path is None for t in targets) else None)
    for given in paths:  # writing over an input would destroy what the manifest is the evidence of
        try:
            if manifest.exists() and given.as_posix() != "-" and manifest.samefile(given):
                return f"{manifest}: is an input of this run"
        except OSError:
            continue
    return None


def _write_manifest(result, path: Path) -> None:
    """`audit --manifest FILE`: the evidence manifest alone (`report.manifest`); exit 2 if it cannot be written."""
    from auditor.report.manifest import write_manifest

    if path.as_posix() == "-":
        write_manifest(result, sys.stdout)
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", encoding="utf-8") as out:
            write_manifest(result, out)
    except OSError as exc:
        click.echo(f"auditor: cannot write the manifest {exc.filename or path}: {exc.strerror or exc}", err=True)
        sys.exit(2)
    for i in getattr(result, "changed_during_audit", ()):
        click.echo(f"auditor: {result.inputs[i].label} changed while it was audited: the manifest's hash may not be "
                   "of the bytes audited; audit it again", err=True)


@main.command("check-manifest", short_help="Check that a manifest's inputs are the files audited.")
@click.argument("manifest", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--root", type=click.Path(path_type=Path, file_okay=False), default=None, metavar="DIR",
              help="Where the manifest's relative paths are (default: the current directory; the audit ran in the "
                   "manifest's run.working_directory).")
def check_manifest(manifest: Path, root: Path | None) -> None:
    """Hash again every input (and pack file) a manifest lists: are they still the files that were audited?

    MANIFEST is a file `audit --manifest` wrote, or a JSON report (its `manifest`). Each file is
    listed as ok, changed, missing or not-checkable (standard input, a FIFO); a file now in a folder
    that was audited, and not in the manifest, is listed as added.

    \b
    Exit status: 0 every file is as audited; 1 a file changed, is missing or was added;
    2 the manifest cannot be read; 3 nothing changed, but some input cannot be checked again.
    """
    from auditor.pipeline import discover
    from auditor.report.manifest import ManifestError, read_manifest
    from auditor.report.manifest import check_manifest as run_check
    from auditor.report.text import clean

    try:
        doc = read_manifest(manifest)
        checks = run_check(doc, root, discover=discover)
    except ManifestError as exc:
        click.echo(f"auditor: {clean(str(exc))}", err=True)
        sys.exit(2)
    tool, run = doc.get("tool"), doc.get("run")
    if isinstance(tool, dict) and isinstance(run, dict):
        click.echo(clean(f"manifest of {tool.get('name')} {tool.get('version')}, run started {run.get('started_at')} "
                         f"in {run.get('working_directory')}"))
    for item in checks:
        click.echo(clean(item.one_line()))
    counts = {status: sum(c.status == status for c in checks) for status in ("ok", "changed", "missing", "added",
                                                                               "not-checkable")}
    click.echo(", ".join(f"{n} {status}" for status, n in counts.items()) + f" of {len(checks)} file(s)")
    if counts["changed"] or counts["missing"] or counts["added"]:
        sys.exit(1)
    sys.exit(3 if counts["not-checkable"] else 0)


def _write_reports(result, targets: list, quiet: bool) -> None:
    """Write every report; the terminal always ends with the summary, on stdout when the text report is there."""
    from auditor.report.formats import write
    from auditor.report.text import clean, write_quiet_summary, write_summary

    try:
        for target in targets:
            write(target, result, sys.stdout, quiet)
    except BrokenPipeError:
        # the reader of stdout stopped early (`| head`): not an error of the audit, whose status still stands
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - so the interpreter's final flush does not fail
    except OSError as exc:
        click.echo(f"auditor: cannot write {exc.filename or 'the report'}: {exc.strerror or exc}", err=True)
        sys.exit(2)
    if any(t.path is None and t.format.name == "text" for t in targets):
        return  # the text report on stdout already ends with the summary
    if quiet:
        write_quiet_summary(result, sys.stderr)
        return
    for q in result.quarantined:
        click.echo(f"quarantined: {clean(q.one_line())}", err=True)
    write_summary(result, sys.stderr)


@main.command(short_help="Replay one hand, its findings on their events.")
@click.argument("hand_id")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--pack", "pack", metavar="NAME_OR_FILE",
              help="Audit under this pack, as `audit --pack` would (default: the pack each table declares).")
@click.option("--input-format", type=click.Choice(INPUT_FORMATS), default="auto", show_default=True,
              help="Read every input as this format instead of detecting it per file.")
def explain(hand_id: str, paths: tuple[Path, ...], pack: str | None, input_format: str) -> None:
    """Replay hand HAND_ID from the logs under PATHS, round by round, with every finding on its event.

    PATHS are audited in full first, so the findings are exactly those `auditor audit PATHS` reports
    for the hand, including those that depend on the table's earlier hands. Exit status: 0 the hand
    was shown, 2 no hand with that id (or a usage error).
    """
    from auditor.report.explain import explain as write_explain
    from auditor.report.text import clean

    result = _audit_or_exit(paths, pack, False, input_format=input_format, keep_hands=[hand_id])
    if not write_explain(result, hand_id, sys.stdout):
        click.echo(f"auditor: no hand '{clean(hand_id)}' in {result.hands_read} hand(s) read", err=True)
        sys.exit(2)


@main.command("compile", short_help="Compile the kernels ahead (e.g. in an image build).")
@click.option("--format", "formats", type=click.Choice(COMPILE_FORMATS), multiple=True, metavar="FORMAT",
              help="Compile the replay's kernels and those of this input format's reader (repeatable; "
                   f"default: every format: {', '.join(COMPILE_FORMATS)}).")
def compile_command(formats: tuple[str, ...]) -> None:
    """Compile into Numba's on-disk cache every kernel an audit of the given input formats runs, so that no
    audit waits for it: the replay's on two processes, each reader's by auditing a built-in hand written in its
    format. Waits first for a compile a first run started in the background. Exit 1 when some kernel could not
    be compiled (the audits then compile it on first use, as always)."""
    import time

    from auditor.precompile import compile_formats

    start = time.perf_counter()
    before, left = compile_formats(formats or COMPILE_FORMATS, wait=lambda: click.echo(
        "auditor: waiting for the compile a first run started in the background...", err=True))
    if not before:
        click.echo("auditor: nothing to compile: every kernel those audits run is in the cache")
        return
    click.echo(f"auditor: compiled in {time.perf_counter() - start:.1f} s: {', '.join(before)}")
    if left:
        click.echo(f"auditor: still not compiled (audits compile them on first use): {', '.join(left)}", err=True)
        sys.exit(1)
    click.echo("auditor: all compiled; cached on disk for every later audit")


@main.command(short_help="Convert hand logs to a Parquet dataset, in bounded memory.")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--output", "-o", required=True, type=click.Path(path_type=Path),
              help="Directory to write the Parquet dataset into (hands/seats/events.parquet and "
                   "quarantined.parquet; made if missing).")
@click.option("--overwrite", is_flag=True, help="Replace a dataset already in the output directory.")
@click.option("--quiet", is_flag=True, help="No quarantine lines and no progress bar; only the last line.")
def convert(paths: tuple[Path, ...], output: Path, overwrite: bool, quiet: bool) -> None:
    """Convert hand logs (any format `audit` reads) to a Parquet dataset; hands that cannot be read are
    quarantined, not converted.

    The hands are read and written a batch at a time, so memory does not grow with the input. The quarantined
    hands are stored in the dataset too (quarantined.parquet, with file, line, code and reason), so auditing
    the dataset reports them again and counts the same hands read as the logs. The dataset appears only once it
    is whole: an interrupted convert leaves none that looks complete. An existing dataset is replaced only with
    --overwrite. `-` in PATHS is standard input. Exit status: 0 hands were written, 2 none (or a usage error).
    """
    import signal

    _machinery()
    from auditor.convert import convert as run_convert
    from auditor.model.inputs import UsageError
    from auditor.report.progress import progress_bar
    from auditor.report.text import clean

    bar = progress_bar(sys.stderr, quiet)

    def told(entry) -> None:
        if bar is not None:
            bar.close()
        click.echo(f"quarantined: {clean(entry.one_line())}", err=True)

    # a kill (SIGTERM) unwinds like Ctrl-C, so the half-written files are removed; never a dataset either way
    previous = signal.signal(signal.SIGTERM, _terminated)
    try:
        done = run_convert(paths, output, overwrite=overwrite, progress=bar, quarantined=None if quiet else told)
    except UsageError as exc:
        click.echo(f"auditor: {exc}", err=True)
        sys.exit(2)
    finally:
        signal.signal(signal.SIGTERM, previous)
        if bar is not None:
            bar.close()
    click.echo(f"{done.hands} hands written to {clean(str(output))}; {done.quarantined} quarantined", err=True)
    sys.exit(0 if done.hands else 2)


def _terminated(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


@main.command(short_help="Write legal simulated hands under a pack's house rules.")
@click.option("--variant", required=True, type=click.Choice(["holdem", "omaha", "omaha-nz", "three-card-nz",
                                                              "five-card-draw"]),
              help="The game dealt (omaha-nz and three-card-nz: the New Zealand casino games).")
@click.option("--structure", required=True, type=click.Choice(["fixed-limit", "spread-limit", "pot-limit",
                                                                "no-limit"]),
              help="The betting structure: what a bet or raise may be.")
@click.option("--pack", "pack", required=True, metavar="NAME_OR_FILE",
              help="Rule pack the tables play under (a built-in name or a pack file): its house settings.")
@click.option("--hands", default=1000, show_default=True, type=click.IntRange(1), help="How many hands to write.")
@click.option("--seed", default=0, show_default=True, type=int,
              help="Random seed: the same seed and options give the same hands.")
@click.option("--seat-draws", is_flag=True, help="Open tables with seating draws.")
@click.option("--format", "fmt", type=click.Choice(SIMULATE_FORMATS), default="jsonl", show_default=True,
              help="File format: canonical JSON Lines, or a room's format (hands it cannot express are left out).")
@click.option("--output", "-o", required=True, type=click.Path(path_type=Path),
              help="File to write (.jsonl or .jsonl.gz for jsonl; .txt, .xml, .ohh, .phhs for the others).")
def simulate(variant: str, structure: str, pack: str, hands: int, seed: int, seat_draws: bool, fmt: str,
             output: Path) -> None:
    """Write legal hands played under a pack's house rules (deterministic for a seed)."""
    from auditor.check.packs import PackError, resolve_pack
    from auditor.simulate import simulate_hands, write_format

    try:
        rule_pack = resolve_pack(pack)
    except PackError as exc:
        click.echo(f"auditor: {exc}", err=True)
        sys.exit(2)
    stream = simulate_hands(variant, structure, hands, seed, house=rule_pack.house, rule_pack=rule_pack.name,
                            seat_draws=seat_draws)
    try:
        count, skipped = write_format(stream, output, fmt)
    except ImportError as exc:
        click.echo(f"auditor: no {fmt} writer: {exc}", err=True)
        sys.exit(2)
    click.echo(f"{count} hands written to {output}", err=True)
    for why, n in skipped.most_common():
        click.echo(f"{n} hands not written ({fmt} cannot express them): {why}", err=True)
    if not count:
        sys.exit(2)


@main.command(short_help="Precision and recall of every finding category.")
@click.option("--hands", default=2000, show_default=True, type=click.IntRange(1),
              help="Legal hands simulated per pack; each also gives one mutated copy where a fault fits.")
@click.option("--seed", default=0, show_default=True, type=int,
              help="Random seed of the simulation and the mutations: the same seed gives the same report.")
@click.option("--pack", "pack_names", multiple=True, metavar="NAME_OR_FILE",
              help="Measure this pack (a built-in name or a pack file); repeatable. Default: every built-in pack.")
@click.option("--repro-dir", type=click.Path(path_type=Path), default=None,
              help="Write the first few misses and false findings of each kind there as JSON Lines reproducers.")
@click.option("--via", type=click.Choice(VERIFY_VIA), default="canonical", show_default=True,
              help="Carry every hand through this format (its writer, then its reader) before the audit.")
def verify(hands: int, seed: int, pack_names: tuple[str, ...], repro_dir: Path | None, via: str) -> None:
    """Accuracy report: precision and recall of every finding category, per pack.

    Simulates legal hands (every finding on them is false) and copies with exactly one planted
    violation each (the expected finding must be reported, and nothing else). Exits 1 if any
    category is below 100 % either way or was not measured, 2 if a pack cannot be loaded.
    With --via FORMAT each hand is written in that format and read back first; categories the
    format cannot express are listed with the reason, and a hand its reader refuses is a failure.
    """
    from auditor.simulate.verify import format_report
    from auditor.simulate.verify import verify as run_verify

    packs = _load_packs(pack_names)
    try:
        result = run_verify(hands, seed, packs, repro_dir=repro_dir, via=via,
                            progress=lambda line: click.echo(line, err=True))
    except ImportError as exc:
        click.echo(f"auditor: no {via} writer: {exc}", err=True)
        sys.exit(2)
    for line in format_report(result):
        click.echo(line)
    sys.exit(0 if result.ok else 1)


@main.group(short_help="Inspect, document and validate rule packs.")
def rules() -> None:
    """Inspect, document and validate rule packs."""


def _load_packs(pack_names: tuple[str, ...]) -> list[Pack]:
    """The given packs (names or files), else every built-in pack; a pack that cannot load exits 2."""
    from auditor.check.packs import PackError, builtin_pack_paths, resolve_pack

    try:
        return [resolve_pack(name) for name in pack_names or tuple(builtin_pack_paths())]
    except PackError as exc:
        click.echo(f"auditor: {exc}", err=True)
        sys.exit(2)


@rules.command("check", short_help="Validate pack files: schema, extends, predicates, facts, examples.")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--no-examples", is_flag=True,
              help="Only load the packs; do not audit the example hands of their own rules.")
def rules_check(files: tuple[Path, ...], no_examples: bool) -> None:
    """Validate rule pack files: schema, extends, overrides, predicates, fact names, and examples.

    Prints what each house pack changes in the pack it extends. The example hands of a pack's own rules
    (every rule not written in a built-in pack) are audited under the pack: a violating example must
    find its rule (as many times as its `findings:` says), a clean one nothing. Exit 0 when every pack
    loads and every example agrees, 1 when an example is missing or disagrees, 2 when a pack does not load.
    """
    from auditor.check.packs import PackError, resolve_pack

    status = 0
    for file in files:
        try:
            pack = resolve_pack(str(file))
        except PackError as exc:
            click.echo(str(exc), err=True)
            status = 2
            continue
        parent = f", extends {pack.extends}" if pack.extends else ""
        click.echo(f"{file}: ok ({pack.name} {pack.version}, {len(pack.rules)} rules{parent})")
        for change in pack.changes:
            click.echo(f"  {change.one_line()}")
        if no_examples:
            continue
        ran, problems = _check_examples(pack)
        for problem in problems:
            click.echo(problem, err=True)
        if ran:
            click.echo(f"  examples: {ran - len(problems)} of {ran} as their rules say")
        if problems:
            status = max(status, 1)
    sys.exit(status)


def _check_examples(pack: Pack) -> tuple[int, list[str]]:
    """(examples run, what is wrong with them) for the rules of `pack` not written in a built-in pack: a
    house's own rules, whose examples no test of this project runs. Built-in rules' examples are run by
    tests/test_rule_examples.py."""
    from auditor.check.packs import builtin_pack_paths
    from auditor.pipeline import audit

    builtin = {p.resolve() for p in builtin_pack_paths().values()}
    ran, problems = 0, []
    for rule in pack.rules:
        if rule.file is None or rule.file.resolve() in builtin:
            continue
        for kind, examples in (("violating", rule.violating), ("clean", rule.clean)):
            for example in examples:
                ran += 1
                shown = str(example.path)  # the pack's text: quoted when it could drive the terminal
                shown = shown if shown.isprintable() else ascii(shown)
                where = f"{rule.file}:{rule.line}: rule {rule.id}: {kind} example {shown}"
                if not example.path.is_file():
                    problems.append(f"{where}: no such file")
                    continue
                result = audit([example.path], pack=str(example.pack or rule.file))
                if result.quarantined:
                    problems.append(f"{where}: not audited ({result.quarantined[0].one_line()})")
                    continue
                if not result.hands_audited:
                    problems.append(f"{where}: no hand audited")
                    continue
                found = list(result.findings["rule_id"])
                mine = found.count(rule.id)
                if kind == "clean" and found:
                    names = ", ".join(sorted(set(found)))
                    problems.append(f"{where}: expected no finding, found {len(found)} ({names})")
                elif kind == "violating" and (mine == 0 if example.findings is None else mine != example.findings):
                    wanted = "at least 1" if example.findings is None else str(example.findings)
                    problems.append(f"{where}: expected {wanted} finding(s) of {rule.id}, found {mine}")
    return ran, problems


@rules.command("list", short_help="List the rules of the built-in packs (or of the given packs).")
@click.option("--pack", "pack_names", multiple=True, metavar="NAME_OR_FILE",
              help="List this pack (a built-in name or a pack file); repeatable. Default: every built-in pack.")
def rules_list(pack_names: tuple[str, ...]) -> None:
    """List the rules of the built-in packs (or of the given packs).

    A house pack lists its effective rules (after extends, disable and overrides); a rule it changed is
    marked with the kind of change, and the rules it disabled are named after the list.
    """
    packs = _load_packs(pack_names)
    if not packs:  # an empty listing that exits 0 would hide an installation without its packs
        from auditor.resources import rules_dir

        click.echo(f"auditor: no built-in rule packs in {rules_dir()}; give --pack FILE", err=True)
        sys.exit(2)
    for pack in packs:
        parent = f", extends {pack.extends}" if pack.extends else ""
        click.echo(f"{pack.name} {pack.version}: {pack.title} ({len(pack.rules)} rules{parent})")
        width = max(len(rule.id) for rule in pack.rules)
        changed = {c.rule_id: c.kind for c in pack.changes if c.rule_id is not None}
        for rule in pack.rules:
            mark = f"  [{changed[rule.id]}]" if rule.id in changed else ""
            click.echo(f"  {rule.id:<{width}}  {rule.category:<17} {rule.severity:<7}  {rule.citation} — {rule.title}"
                       f"{mark}")
        if pack.disabled:
            click.echo(f"  disabled: {', '.join(rule.id for rule in pack.disabled)}")


@rules.command("show", short_help="One rule: text, reading, predicate, facts, examples.")
@click.argument("rule_id")
@click.option("--pack", "pack_names", multiple=True, metavar="NAME_OR_FILE",
              help="Look only in this pack (a built-in name or a pack file); repeatable. Default: every built-in "
                   "pack.")
def rules_show(rule_id: str, pack_names: tuple[str, ...]) -> None:
    """Everything about one rule: text, reading, predicate, facts, message and example hands.

    If RULE_ID is in several of the packs searched, each is shown in turn; --pack narrows the search.
    Ids match exactly, else ignoring case; an unknown id exits 2 naming the closest ids. Under a house
    pack the rule is shown as the house runs it, followed by what the house pack changed; a rule the
    house pack disabled is shown as its own pack wrote it, under a line saying it is disabled.
    """
    import difflib

    from auditor.check.docs import render_rule_text

    packs = _load_packs(pack_names)

    def search(match) -> list[tuple[Pack, object, bool]]:
        return [(p, r, off) for p in packs for rules, off in ((p.rules, False), (p.disabled, True))
                for r in rules if match(r.id)]

    found = search(lambda i: i == rule_id) or search(lambda i: i.lower() == rule_id.lower())
    if not found:
        ids = {r.id.lower(): r.id for p in packs for r in (*p.rules, *p.disabled)}
        close = [ids[i] for i in difflib.get_close_matches(rule_id.lower(), list(ids), n=4, cutoff=0.6)]
        hint = f"close matches: {', '.join(close)}" if close else "see `auditor rules list`"
        click.echo(f"auditor: no rule '{rule_id}' in {', '.join(p.name for p in packs)}; {hint}", err=True)
        sys.exit(2)
    parts = []
    for pack, rule, off in found:
        changes = pack.changes_of(rule.id)
        head = ""
        if off:
            head = (f"{rule.id} is DISABLED in {pack.name}: its checks do not run it. The rule as its own pack "
                    "wrote it:\n")
        text = render_rule_text(pack, rule)
        if changes:
            text += "Changed by the house pack:\n" + "".join(f"    {c.one_line()}\n" for c in changes)
        parts.append(head + text)
    click.echo("\n".join(parts), nl=False)


if __name__ == "__main__":
    main()
