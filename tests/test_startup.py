"""The command starts without the machinery of an audit: `auditor --version`, `--help`, `rules list` and `rules show`
answer without importing pandas, Arrow or Numba (an audit imports them when it runs). Each check runs in a fresh
interpreter, since this test process has imported everything already. The times themselves are measured by
`benchmarks/startup.py`, not here: a timed test fails on a busy machine for no fault of the code."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("pandas", "pyarrow", "numba")


def _imported_after(code: str) -> list[str]:
    """The heavy libraries a fresh interpreter has imported once it has run `code`."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_importing_the_command_imports_no_heavy_library():
    assert _imported_after("import auditor.cli") == []


@pytest.mark.parametrize("arguments", [["--version"], ["--help"], ["audit", "--help"], ["rules", "list"],
                                       ["rules", "show", "TDA-43A"], ["rules", "show", "NZ17-5e-odd"]])
def test_commands_that_audit_nothing_import_no_heavy_library(arguments):
    code = ("import sys\nfrom auditor.cli import main\nsys.argv = ['auditor', *" + repr(arguments) + "]\n"
            "try:\n    main()\nexcept SystemExit as exc:\n    assert exc.code in (0, None), exc.code\n")
    assert _imported_after(code) == []


def test_an_audit_does_import_them():
    """The probe sees what it should: an audit needs all three."""
    code = ("from pathlib import Path\nfrom auditor.pipeline import audit\n"
            f"audit([Path({str(ROOT / 'sample_logs' / 'holdem.jsonl')!r})])")
    assert _imported_after(code) == list(HEAVY)
