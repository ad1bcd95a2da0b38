"""Layers one way: no stage of the auditor imports a stage above it.

The order, lowest first (a module may import its own package and any package of a lower layer, never a
package of its own layer or a higher one):

    resources < paths < model < ingest < replay = export < check < report < engines < simulate < pipeline
        < precompile = convert < cli < __main__

- `resources`, `paths`: where the installed data is; they import nothing else of the auditor.
- `model`: the data types the stages exchange (canonical tables, reader records, pots, input files, a
  run's result), so two stages never need each other to name what passes between them.
- `ingest < replay < check < report`: readers record, the engine replays, rules judge, reports print.
- `export` sits beside `replay`, not above or below it: it writes canonical hands back out as a room's
  text (the readers' inverse), so it needs the canonical log (`model`, `ingest`) and nothing that replays
  or judges, and the replay needs nothing of it. Neither imports the other.
- `engines < pipeline < cli` orchestrate: engines may import every stage (a partition reads, replays,
  checks and keeps report views), the pipeline the engines, the CLI everything. The order among them is
  strict too, so an engine never imports the pipeline that runs it.
- `simulate` sits between the engines and the pipeline: it makes hands, writes them through `export`, and
  its `verify` is a whole run of its own (replay, check, and the engines' ledger for the `scope: run`
  rules: `engines.ledger.check_whole`), so it may import every stage and the engines; no stage and no
  engine imports it (only the CLI does), and it never runs the pipeline.
- `precompile` sits between the pipeline and the CLI: it compiles kernels ahead by auditing built-in sample
  hands through the pipeline, and hands the pipeline the command line's first-run plan as a callable
  (`pipeline.audit(prepare=)`), so the pipeline never imports it.
- `convert` sits beside `precompile`: it finds inputs as the pipeline does (`pipeline.discover`) and reads them
  with the engines' readers into a Parquet dataset, for the CLI's `auditor convert`; nothing imports it but the CLI.
- `__main__` is `python -m auditor`, which runs the CLI.

Every import counts: at module level, inside functions (a lazy import is still a dependency), and under
`if TYPE_CHECKING:`. The one exception is `TYPE_ONLY`: names a lower module may mention in annotations
only, under `if TYPE_CHECKING:` (never imported when the program runs), each listed with why.
Tests, scripts and benchmarks may import anything; they are not layers.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "auditor"

#: top-level parts of `auditor`, lowest first; names in one tuple are one layer (they may not import each other)
LAYERS: tuple[tuple[str, ...], ...] = (
    ("resources",), ("paths",), ("model",), ("ingest",), ("replay", "export"), ("check",), ("report",),
    ("engines",), ("simulate",), ("pipeline",), ("precompile", "convert"), ("cli",), ("__main__",),
)
RANK = {part: rank for rank, layer in enumerate(LAYERS) for part in layer}

#: (importing module, imported module, name): allowed upward under `if TYPE_CHECKING:` only, for annotations.
#: `AuditResult` holds the packs the run applied and the views of the hands it kept; those types do the check
#: stage's and the report's work (compiling predicates, wording a hand), so they cannot move into the model,
#: and the pipeline is what builds the result from them.
TYPE_ONLY = frozenset({
    ("auditor.model.results", "auditor.check.packs", "Pack"),
    ("auditor.model.results", "auditor.report.hands", "HandView"),
})


@dataclass(frozen=True)
class Import:
    module: str  # the module imported from (absolute)
    names: tuple[str, ...]  # names taken from it ("" for `import module`)
    line: int
    type_only: bool  # under `if TYPE_CHECKING:`


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports_of(source: str, module: str, is_package: bool = False) -> list[Import]:
    """Every import in `source` (module `module`), at any depth: functions, classes, `try`, `if TYPE_CHECKING:`,
    plus `importlib.import_module("auditor...")` with a literal name. Relative imports made absolute."""
    found: list[Import] = []
    package = module if is_package else module.rpartition(".")[0]

    def visit(node: ast.AST, type_only: bool) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                visit(child, True)
            for child in node.orelse:
                visit(child, type_only)
            return
        if isinstance(node, ast.Import):
            found.extend(Import(alias.name, ("",), node.lineno, type_only) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[:len(parts) - (node.level - 1)]
                base = ".".join([*parts, base] if base else parts)
            found.append(Import(base, tuple(alias.name for alias in node.names), node.lineno, type_only))
        elif (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)
              and ((isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                   or (isinstance(node.func, ast.Name) and node.func.id in ("import_module", "__import__")))):
            found.append(Import(node.args[0].value, ("",), node.lineno, type_only))
        for child in ast.iter_child_nodes(node):
            visit(child, type_only)

    visit(ast.parse(source), False)
    return found


def _part(module: str) -> str | None:
    """The layer part of an auditor module (`auditor.ingest.phh` -> `ingest`), None outside the auditor."""
    parts = module.split(".")
    if parts[0] != "auditor" or len(parts) < 2:
        return None
    return parts[1]


def violations(source: str, module: str, is_package: bool = False) -> list[str]:
    """What in `source` breaks the layer order, one line each naming the module, the line and the import."""
    own = _part(module)
    if own is None:
        return []
    if own not in RANK:
        return [f"{module}: `auditor.{own}` has no place in LAYERS (tests/test_layers.py): decide its layer"]
    wrong: list[str] = []
    for item in imports_of(source, module, is_package):
        if item.module == "auditor":  # `from auditor import x` names the package's parts one by one
            targets = [(f"auditor.{name}", (name,)) for name in item.names]
        else:
            targets = [(item.module, item.names)]
        for target, names in targets:
            part = _part(target)
            if part is None or part == own:
                continue
            if part not in RANK:
                wrong.append(f"{module}:{item.line} imports {target}, which has no place in LAYERS")
                continue
            if RANK[part] < RANK[own]:
                continue
            upward = [n for n in names if not (item.type_only and (module, target, n) in TYPE_ONLY)]
            if upward:
                what = ", ".join(n for n in upward if n) or target
                wrong.append(f"{module}:{item.line} ({own}) imports {what} from {target} ({part}): "
                             f"{'the same layer' if RANK[part] == RANK[own] else 'a higher layer'}")
    return wrong


def _sources() -> list[tuple[Path, str]]:
    return [(path, module_name(path)) for path in sorted(PACKAGE.rglob("*.py"))]


def test_no_stage_imports_a_higher_one():
    wrong = [line for path, module in _sources()
             for line in violations(path.read_text(encoding="utf-8"), module, path.name == "__init__.py")]
    assert not wrong, "imports against the layer order (see this test's docstring):\n" + "\n".join(wrong)


def test_every_package_has_a_layer():
    parts = {path.stem if path.is_file() else path.name for path in PACKAGE.iterdir()
             if (path.suffix == ".py" and path.stem != "__init__") or (path / "__init__.py").is_file()}
    assert parts - set(RANK) == set(), "packages of auditor without a layer in LAYERS"


def test_the_model_imports_nothing_above_resources():
    """The bottom layer stands alone: `auditor.model` imports no stage at run time (TYPE_ONLY is annotations)."""
    runtime = {item.module for path, module in _sources() if module.startswith("auditor.model")
               for item in imports_of(path.read_text(encoding="utf-8"), module, path.name == "__init__.py")
               if not item.type_only and item.module.startswith("auditor")}
    assert {m for m in runtime if _part(m) not in ("model", "resources", "paths")} == set()


def test_type_only_exceptions_are_still_needed():
    """An entry of TYPE_ONLY that no module uses any more is removed, so the list cannot grow stale."""
    used = {(module, item.module, name) for path, module in _sources()
            for item in imports_of(path.read_text(encoding="utf-8"), module, path.name == "__init__.py")
            if item.type_only for name in item.names}
    assert used >= TYPE_ONLY, f"unused TYPE_ONLY entries: {sorted(TYPE_ONLY - used)}"


@pytest.mark.parametrize(("module", "source", "expected"), [
    # a reader importing the replay at module level
    ("auditor.ingest.phh", "from auditor.replay.kernel import replay\n",
     ["auditor.ingest.phh:1 (ingest) imports replay from auditor.replay.kernel (replay): a higher layer"]),
    # an engine importing the pipeline inside a function, and under TYPE_CHECKING (not a TYPE_ONLY entry)
    ("auditor.engines.local",
     "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from auditor.pipeline import audit\n"
     "def f():\n    from auditor import cli\n",
     ["auditor.engines.local:3 (engines) imports audit from auditor.pipeline (pipeline): a higher layer",
      "auditor.engines.local:5 (engines) imports cli from auditor.cli (cli): a higher layer"]),
    # a relative import climbing into a higher stage, and a literal import_module
    ("auditor.check.run", "from ..report import text\nimport importlib\nimportlib.import_module('auditor.cli')\n",
     ["auditor.check.run:1 (check) imports text from auditor.report (report): a higher layer",
      "auditor.check.run:3 (check) imports auditor.cli from auditor.cli (cli): a higher layer"]),
    # siblings of one layer
    ("auditor.export.phh", "import auditor.replay.kernel\n",
     ["auditor.export.phh:1 (export) imports auditor.replay.kernel from auditor.replay.kernel (replay): "
      "the same layer"]),
    # TYPE_ONLY holds under TYPE_CHECKING only
    ("auditor.model.results", "from auditor.check.packs import Pack\n",
     ["auditor.model.results:1 (model) imports Pack from auditor.check.packs (check): a higher layer"]),
    ("auditor.model.results", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
     "    from auditor.check.packs import Pack\n", []),
    # downward and own-package imports are fine
    ("auditor.report.text", "from auditor.model.results import AuditResult\nfrom . import common\n", []),
])
def test_the_checker_names_what_breaks_the_order(module, source, expected):
    """The check itself: function-level, TYPE_CHECKING, relative and `import_module` imports are all seen."""
    assert violations(source, module) == expected


def _defined(tree: ast.Module) -> set[str]:
    """Names a module defines itself at top level (inside `if`/`try` too), not names it only imports."""
    names: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Assign):
                names.update(n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name))
            elif isinstance(node, ast.AnnAssign | ast.AugAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
            elif isinstance(node, ast.If | ast.Try | ast.With):
                for block in ("body", "orelse", "finalbody"):
                    visit(getattr(node, block, []))
                for handler in getattr(node, "handlers", []):
                    visit(handler.body)

    visit(tree.body)
    return names


def test_one_way_to_import_each_thing():
    """`from auditor.x import name` takes `name` from the module that defines it, never from one that only
    imports it (no re-export left behind by a move). A package's `__init__` may present its parts' API
    (`auditor.simulate`); a plain module may not."""
    modules = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    defined = {module: _defined(ast.parse(path.read_text(encoding="utf-8"))) for module, path in modules.items()}
    wrong = []
    for folder in ("auditor", "tests", "scripts", "benchmarks"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for item in imports_of(path.read_text(encoding="utf-8"), module_name(path), path.name == "__init__.py"):
                target = modules.get(item.module)
                if target is None or target.name == "__init__.py":
                    continue
                missing = [n for n in item.names if n and f"{item.module}.{n}" not in modules
                           and n not in defined[item.module]]
                wrong += [f"{path.relative_to(ROOT)}:{item.line} imports {n} from {item.module}, "
                          "which does not define it" for n in missing]
    assert not wrong, "\n".join(wrong)
