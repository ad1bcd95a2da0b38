"""The data files the package ships, found with `importlib.resources`: JSON schemas, built-in rule packs and
room dialects.

The source of truth is the repository's top-level `schemas/` and `rules/` folders (documents users read
and edit, with the rules' example hands under `rules/examples/`). The package reaches them as
`auditor/data/schemas` and `auditor/data/rules`: in a checkout these are symbolic links to the top-level
folders, so an editable install reads the very files being edited; building a wheel or an sdist copies
what the links point to, so an installed package carries real directories. Either way the files are
found relative to the imported `auditor` package, never relative to the current directory or to a
checkout that an installed tool does not have.

A missing file here means a broken installation, not bad input: `check_installation()` names every
missing file in one message, which the command line prints once at start-up (exit 2), instead of
every input file being quarantined with the same "No such file or directory".
"""

from __future__ import annotations

import tomllib
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from importlib.resources import files
from pathlib import Path

#: every schema the package opens: hand logs, Open Hand History input, rule packs
SCHEMAS = ("hand-log.schema.json", "ohh.schema.json", "rule-pack.schema.json", "dialect.schema.json",
           "xml-dialect.schema.json")
#: what to tell someone whose installation lacks a data file
_REINSTALL = ("reinstall poker-auditor (python3 -m pip install --force-reinstall poker-auditor), or from a source "
              "checkout: python3 -m pip install -e .")


#: the distribution name (the import package is `auditor`)
DISTRIBUTION = "poker-auditor"


@cache
def package_version() -> str:
    """The installed distribution's version; in a source tree never installed, the one its pyproject.toml
    declares, so reports and `--version` never claim a version the code is not; "unknown" if neither exists."""
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        pass
    try:
        project = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text("utf-8"))
        return str(project["project"]["version"])
    except (OSError, ValueError, KeyError, TypeError):
        return "unknown"


class ResourceError(RuntimeError):
    """A data file the package needs is not installed: a broken installation, reported once."""


def _data(name: str) -> Path:
    """The package's data folder `name`, as a real path (a checkout's symbolic link resolved to its target).

    Pack loading, `extends:` and rule examples need real file paths (they resolve names relative to a
    pack file), so a package imported from a zip archive is refused with a clear error rather than half
    working. Resolving the link keeps a checkout's paths what they always were (`rules/tda-2024.yaml`).
    """
    folder = files("auditor") / "data" / name
    if not isinstance(folder, Path):
        raise ResourceError(f"poker-auditor is imported from an archive ({folder}); its rule packs and schemas "
                            "need an unpacked installation (pip install, not a zip)")
    return folder.resolve()


def schema_dir() -> Path:
    return _data("schemas")


def rules_dir() -> Path:
    """The folder of the built-in rule packs (one `<name>.yaml` each) and their `examples/`."""
    return _data("rules")


def rooms_dir() -> Path:
    """The folder of the room dialects (one `<room>.yaml` each: how a room's export is read and written)."""
    return _data("rooms")


def room_names() -> tuple[str, ...]:
    """The rooms with a dialect (`rooms/<room>.yaml`), by file name: a room is added by adding its file."""
    return tuple(sorted(path.stem for path in rooms_dir().glob("*.yaml")))


def xml_room_names() -> tuple[str, ...]:
    """The rooms whose exports are XML, with a dialect in `rooms/xml/<room>.yaml` (not globbed by `room_names`)."""
    folder = rooms_dir() / "xml"
    return tuple(sorted(path.stem for path in folder.glob("*.yaml"))) if folder.is_dir() else ()


def xml_room_suffix(room: str) -> str:
    """The file suffix an XML room's exports carry, as its dialect declares it."""
    for line in (rooms_dir() / "xml" / f"{room}.yaml").read_text("utf-8").splitlines():
        if line.startswith("suffix:"):
            return line.split(":", 1)[1].strip().strip("'\"")
    raise ResourceError(f"this installation is incomplete: the dialect of {room} declares no suffix; {_REINSTALL}")


def room_suffix(room: str) -> str:
    """The file suffix a room's exports carry, as its dialect declares it (read alone, without compiling the
    dialect: every start names the formats, few read a room)."""
    for line in (rooms_dir() / f"{room}.yaml").read_text("utf-8").splitlines():
        if line.startswith("suffix:"):
            return line.split(":", 1)[1].strip().strip("'\"")
    raise ResourceError(f"this installation is incomplete: the dialect of {room} declares no suffix; {_REINSTALL}")


def schema_path(name: str) -> Path:
    """The installed schema `name` (one of SCHEMAS); ResourceError if it is missing."""
    path = schema_dir() / name
    if not path.is_file():
        raise ResourceError(f"this installation is incomplete: schema {path} is missing; {_REINSTALL}")
    return path


def missing() -> list[str]:
    """What the package needs and does not have: each missing schema, and the rule packs if there are none."""
    schemas, rules = schema_dir(), rules_dir()
    problems = [f"schema {schemas / name}" for name in SCHEMAS if not (schemas / name).is_file()]
    if not rules.is_dir() or not any(rules.glob("*.yaml")):
        problems.append(f"built-in rule packs ({rules}/*.yaml)")
    rooms = rooms_dir()
    if not rooms.is_dir() or not any(rooms.glob("*.yaml")):
        problems.append(f"room dialects ({rooms}/*.yaml)")
    return problems


def check_installation() -> None:
    """Raise one ResourceError naming everything missing, or return if the installation is complete."""
    problems = missing()
    if problems:
        raise ResourceError(f"this installation is incomplete, missing: {'; '.join(problems)}; {_REINSTALL}")
