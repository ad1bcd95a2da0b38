"""The package works when installed from its wheel, not only as the editable install of a checkout.

The fast tests run everywhere: the checkout's data links point at the top-level `rules/` and `schemas/`, and
a broken installation is one error at start-up. The installed-wheel tests build the sdist and, from it, the
wheel (`python -m build`, the way a release is made) out of a copy of the checkout's files, install the wheel
into a fresh virtual environment outside the checkout, and run the installed `auditor` from another
directory. They need a package index and take a minute, so they run only when AUDITOR_WHEEL_TEST is set, as
`.ci/run` does.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

import auditor.check.packs as packs
from auditor import resources
from auditor.cli import main

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_logs"
SLOW = os.environ.get("AUDITOR_WHEEL_TEST") is None
wheel_test = pytest.mark.skipif(SLOW, reason="builds and installs the wheel (a minute, needs a package index); "
                                            "set AUDITOR_WHEEL_TEST=1 to run (.ci/run does)")


# -- the checkout (always run) ---------------------------------------------------------------------------------


def test_the_package_reads_the_top_level_folders_of_a_checkout():
    """Editing rules/ or schemas/ changes what the editable install audits with: no copy to keep in step."""
    assert resources.rules_dir() == (ROOT / "rules").resolve()
    assert resources.schema_dir() == (ROOT / "schemas").resolve()
    assert set(packs.builtin_pack_paths()) == {p.stem for p in (ROOT / "rules").glob("*.yaml")}
    assert {resources.schema_path(name).name for name in resources.SCHEMAS} == set(resources.SCHEMAS)
    assert resources.missing() == []


def _data_without(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, schema: str | None = None,
                  packs_too: bool = True) -> Path:
    """A data folder like the package's, less one schema or less every pack, made the package's own."""
    data = tmp_path / "data"
    shutil.copytree(ROOT / "schemas", data / "schemas")
    (data / "rules").mkdir()
    if packs_too:
        for pack in (ROOT / "rules").glob("*.yaml"):
            shutil.copy(pack, data / "rules" / pack.name)
    if schema:
        (data / "schemas" / schema).unlink()
    monkeypatch.setattr(resources, "_data", lambda name: data / name)
    return data


def test_a_missing_schema_is_one_error_at_start_up_not_a_quarantine_per_file(tmp_path, monkeypatch):
    data = _data_without(tmp_path, monkeypatch, schema="hand-log.schema.json")
    result = CliRunner().invoke(main, ["audit", str(SAMPLES)])
    assert result.exit_code == 2
    lines = result.output.splitlines()
    assert len(lines) == 1, result.output
    assert "this installation is incomplete" in lines[0]
    assert str(data / "schemas" / "hand-log.schema.json") in lines[0]
    assert "quarantined" not in result.output
    with pytest.raises(resources.ResourceError, match=r"hand-log\.schema\.json is missing"):
        resources.schema_path("hand-log.schema.json")


def test_a_library_audit_with_a_schema_missing_raises_once(tmp_path, monkeypatch):
    from auditor.pipeline import audit

    _data_without(tmp_path, monkeypatch, schema="ohh.schema.json")
    with pytest.raises(resources.ResourceError, match=r"ohh\.schema\.json"):
        audit([SAMPLES])


def test_an_installation_without_packs_stops_every_command(tmp_path, monkeypatch):
    data = _data_without(tmp_path, monkeypatch, packs_too=False)
    for args in (["rules", "list"], ["audit", str(SAMPLES)], ["verify", "--hands", "5"]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2, args
        assert "built-in rule packs" in result.output and str(data / "rules") in result.output


def test_rules_list_with_no_pack_is_an_error(monkeypatch):
    """Even past the start-up check (packs removed while running, a future caller): never an empty exit 0."""
    monkeypatch.setattr(resources, "check_installation", lambda: None)
    monkeypatch.setattr(packs, "builtin_pack_paths", dict)
    result = CliRunner().invoke(main, ["rules", "list"])
    assert result.exit_code == 2
    assert "no built-in rule packs" in result.output


def test_version_names_the_installation():
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    assert result.output.startswith(f"auditor {resources.package_version()} (poker-auditor; Python ")
    assert str(resources.rules_dir()) in result.output
    assert resources.package_version() != "unknown"


# -- the installed wheel (AUDITOR_WHEEL_TEST=1) ----------------------------------------------------------------


def _checkout_files() -> list[str]:
    """The files a clean checkout of this working tree holds: tracked and new ones, not ignored, not deleted."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode("utf-8").split("\0")
    return sorted(f for f in listed if f and os.path.lexists(ROOT / f))


def _copy_checkout(target: Path) -> None:
    """Copy the checkout's files, links kept as links (auditor/data/* must reach the build as links)."""
    for name in _checkout_files():
        source, copy = ROOT / name, target / name
        copy.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            copy.symlink_to(os.readlink(source))
        else:
            shutil.copy2(source, copy)


class Installed:
    """A wheel and sdist built from the checkout, the wheel installed in a fresh virtual environment."""

    def __init__(self, root: Path):
        self.source, self.dist, self.venv, self.cwd = root / "src", root / "dist", root / "venv", root / "elsewhere"
        self.cwd.mkdir()
        _copy_checkout(self.source)
        run([sys.executable, "-m", "build", "--outdir", str(self.dist), str(self.source)], cwd=root)
        self.wheel = next(self.dist.glob("*.whl"))
        self.sdist = next(self.dist.glob("*.tar.gz"))
        run([sys.executable, "-m", "venv", str(self.venv)], cwd=root)  # without the system's site-packages
        run([str(self.venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(self.wheel)], cwd=root)
        self.auditor = str(self.venv / "bin" / "auditor")
        self.python = str(self.venv / "bin" / "python")


def run(args: list[str], cwd: Path, check: bool = True, isolated: bool = True,
        extra: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run a command; `isolated` drops the variables that would let the venv's Python import the checkout."""
    env = dict(os.environ)
    if isolated:
        env = {k: v for k, v in env.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env.update(extra or {})
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, env=env, timeout=900)
    if check and done.returncode:
        raise AssertionError(f"{args} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done


def editable(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """The same command under this interpreter, from the same directory, running this checkout's code: the
    checkout first on the path, since the editable install may belong to another checkout (a git worktree
    tested beside the main one compared the wheel with the main one's code)."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    return run([sys.executable, "-m", "auditor.cli", *args], cwd, check=False, isolated=False,
               extra={"PYTHONPATH": path})


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs a git checkout to know which files a clean clone holds")
    return _built(tmp_path_factory.getbasetemp())


@functools.cache
def _built(base: Path) -> Installed:
    """Built once per test process: pytest-xdist tears a module's fixtures down whenever a worker's queue runs dry
    between two of its tests, and each setup built and installed the wheel again (~30 s)."""
    root = base / "wheel"
    root.mkdir()
    return Installed(root)


def _package_files() -> set[str]:
    """Every tracked file of the checkout's package, as paths inside a wheel: auditor/data/* links followed
    to the tracked files of the folders they point to."""
    tracked = set(_checkout_files())
    found = set()
    for name in tracked:
        if not name.startswith("auditor/"):
            continue
        path = ROOT / name
        if path.is_symlink() and path.is_dir():
            target = path.resolve().relative_to(ROOT).as_posix()
            found |= {name + f.removeprefix(target) for f in tracked if f.startswith(target + "/")}
        else:
            found.add(name)
    return found


@wheel_test
def test_wheel_and_sdist_hold_the_packs_schemas_examples_and_metadata(installed):
    with zipfile.ZipFile(installed.wheel) as wheel:
        names = set(wheel.namelist())
        metadata = wheel.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode("utf-8")
    package = _package_files()
    assert {f for f in package if f.startswith("auditor/data/rules/examples/")}, "no rule examples in the checkout"
    assert package - names == set()  # packs, schemas, every rule example, and any future non-Python asset
    assert not any(n.startswith(("rules/", "schemas/", "tests/")) for n in names)
    for field in ("Name: poker-auditor", "Summary: ", "License-Expression: MIT", "Requires-Python: >=3.11",
                  "Classifier: Programming Language :: Python :: 3.11", "Description-Content-Type: text/markdown"):
        assert field in metadata, field
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    with tarfile.open(installed.sdist) as sdist:
        top = sdist.getnames()[0].split("/")[0]
        in_sdist = {n.removeprefix(top + "/") for n in sdist.getnames()}
    assert package - in_sdist == set()
    assert {"LICENSE", "README.md", "pyproject.toml"} <= in_sdist


def _without_timings(text: str) -> str:
    return re.sub(r"\d[\d.,]* s \([\d,]+ [a-z ]*hands/s\)", "TIME", text)


@wheel_test
def test_installed_audit_of_sample_logs_matches_the_editable_install(installed):
    ours, theirs = installed.cwd / "installed.jsonl", installed.cwd / "editable.jsonl"
    done = run([installed.auditor, "audit", str(SAMPLES), "--format", "jsonl", "--output", str(ours)], installed.cwd,
               check=False)
    reference = editable(["audit", str(SAMPLES), "--format", "jsonl", "--output", str(theirs)], installed.cwd)
    assert "No such file" not in done.stderr and "internal-error" not in done.stderr, done.stderr
    assert done.returncode == reference.returncode == 1  # findings at severity error
    findings = [json.loads(line) for line in ours.read_text(encoding="utf-8").splitlines()]
    planted = json.loads((SAMPLES / "planted.json").read_text(encoding="utf-8"))
    assert len(findings) == len(planted["findings"])
    assert ours.read_text(encoding="utf-8") == theirs.read_text(encoding="utf-8")
    text = run([installed.auditor, "audit", str(SAMPLES)], installed.cwd, check=False)
    assert _without_timings(text.stdout) == _without_timings(editable(["audit", str(SAMPLES)], installed.cwd).stdout)
    # the fresh installation's first audit ran its kernels as Python while a background process compiled them
    # (`precompile.first_run`); `auditor compile` waits for that process, and the next audit runs them compiled
    assert "runs them as plain Python, the same code, while a background process compiles them" in done.stderr
    run([installed.auditor, "compile", "--format", "parquet"], installed.cwd)
    compiled = run([installed.auditor, "audit", str(SAMPLES), "--format", "jsonl", "--output", str(ours)],
                   installed.cwd, check=False)
    assert compiled.returncode == 1 and "auditor:" not in compiled.stderr, compiled.stderr
    assert ours.read_text(encoding="utf-8") == theirs.read_text(encoding="utf-8")


@wheel_test
def test_installed_rules_list_and_verify_match_the_editable_install(installed):
    listed = run([installed.auditor, "rules", "list"], installed.cwd)
    assert listed.stdout == editable(["rules", "list"], installed.cwd).stdout
    assert all(f"\n{name} " in "\n" + listed.stdout for name in packs.builtin_pack_paths())
    verified = run([installed.auditor, "verify", "--hands", "200"], installed.cwd, check=False)
    reference = editable(["verify", "--hands", "200"], installed.cwd)
    assert "Traceback" not in verified.stderr, verified.stderr
    assert verified.returncode == reference.returncode
    assert _without_timings(verified.stdout) == _without_timings(reference.stdout)


@wheel_test
def test_installed_version_and_data_come_from_the_installed_package(installed):
    site = run([installed.python, "-c", "import auditor, pathlib; print(pathlib.Path(auditor.__file__).parent)"],
               installed.cwd).stdout.strip()
    assert not site.startswith(str(ROOT))
    version = run([installed.auditor, "--version"], installed.cwd).stdout
    assert version.startswith(f"auditor {resources.package_version()} (poker-auditor; ")
    assert f"built-in rule packs in {site}/data/rules" in version
    # `rules show` names files a user can open: full paths into the installation, not ones relative to site-packages
    name, path = next(iter(packs.builtin_pack_paths().items()))
    rule = packs.load_pack(path).rules[0]
    shown = run([installed.auditor, "rules", "show", rule.id, "--pack", name], installed.cwd).stdout
    assert f"defined at: {site}/data/rules/{path.name}:{rule.line}" in shown


@wheel_test
def test_installed_tool_with_a_schema_removed_says_so_once(installed):
    site = Path(run([installed.python, "-c", "import auditor; print(auditor.__file__)"], installed.cwd).stdout.strip())
    schema = site.parent / "data" / "schemas" / "hand-log.schema.json"
    kept = schema.read_bytes()
    schema.unlink()
    try:
        done = run([installed.auditor, "audit", str(SAMPLES)], installed.cwd, check=False)
    finally:
        schema.write_bytes(kept)
    assert done.returncode == 2
    assert done.stdout == "" and len(done.stderr.splitlines()) == 1, done.stderr
    assert "this installation is incomplete" in done.stderr and f"schema {schema}" in done.stderr
