"""The parallel compile of the replay kernels (`auditor.replay.kernel.warm`, the first-run target).

What must hold: the two parts are the notice's kernel modules, split so that no part's kernel calls the
other's; a part compiles its own kernels and only those (the others run as Python and are restored after);
the helper process writes the cache this process then loads; and nothing that goes wrong in the helper
reaches the audit. The end-to-end tests compile small kernels only (the blinds and showdown kernels, a few
seconds), in copies of the suite's cache with those entries left out.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from numba.core.registry import CPUDispatcher

from auditor.replay.kernel import KERNEL_MODULES, warm

ROOT = Path(__file__).resolve().parents[1]
BLINDS, SHOWDOWN = "auditor.replay.kernel.blinds", "auditor.replay.kernel.showdown"


def test_the_two_parts_are_the_kernel_modules_once_each():
    assert sorted(warm.HERE + warm.HELPER) == sorted(KERNEL_MODULES)
    assert not set(warm.HERE) & set(warm.HELPER)


@pytest.mark.parametrize("part", [warm.HERE, warm.HELPER])
def test_no_kernel_of_a_part_calls_a_kernel_of_the_other(part):
    """A kernel compiles the kernels it calls: one calling into the other part would compile it twice."""
    for name in part:
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if isinstance(value, CPUDispatcher):
                assert value.__module__ in part, f"{name}.{attr} is {value.__module__}'s kernel"


def test_as_python_swaps_the_part_everywhere_it_is_named_and_restores_it():
    from auditor.replay.kernel import blinds, table

    replay = importlib.import_module("auditor.replay.kernel.replay")  # the package's `replay` is the function
    kernel, cross = blinds._blinds_kernel, replay.cross_hands
    with warm.as_python([BLINDS, "auditor.replay.kernel.table"]):
        assert blinds._blinds_kernel is kernel.py_func
        assert replay.cross_hands is cross.py_func  # the driver's own name for it
        assert table.cross_hands is cross.py_func
    assert blinds._blinds_kernel is kernel and replay.cross_hands is cross and table.cross_hands is cross


def test_the_helper_refuses_what_is_not_a_kernel_module_or_another_installation():
    assert warm._main(["os"]) == 1
    assert warm._main([]) == 1
    assert warm._main(["--root", "/nonexistent", BLINDS]) == 1


@pytest.fixture(scope="module")
def suite_cache() -> Path:
    """The suite's cache folder of this checkout's kernels, filled (if the warm-up has not already)."""
    fill = [sys.executable, "-c", "from auditor.replay.kernel import warm; warm.compile_kernels()"]
    subprocess.run(fill, check=True, cwd=ROOT, capture_output=True)
    from auditor.replay.kernel import hand

    return Path(hand.replay_hands._cache._cache_path)  # one folder for every kernel module here


def _cache_without(suite_cache: Path, tmp_path: Path, *modules: str) -> Path:
    """A copy of the suite's cache with `modules`' kernels left out (as if never compiled)."""
    copy = tmp_path / "cache"
    patterns = [f"{name.rsplit('.', 1)[1]}.*" for name in modules]
    shutil.copytree(suite_cache, copy / suite_cache.relative_to(os.environ["NUMBA_CACHE_DIR"]),
                    ignore=shutil.ignore_patterns(*patterns))
    return copy


WARM = """
import json, sys
from auditor.replay.kernel import blinds, showdown, uncached_kernels, warm
warm.HERE, warm.HELPER = tuple(sys.argv[1].split(",")), tuple(sys.argv[2].split(","))
for name, value in json.loads(sys.argv[3]).items():
    setattr(warm, name, value)
before = uncached_kernels()
report = warm.compile_kernels()
print(json.dumps({"before": before, "after": uncached_kernels(), "helper": report["helper"],
                  "compiled_here": [name for name, kernel in (("blinds", blinds._blinds_kernel),
                                    ("showdown", showdown._showdown_kernel)) if kernel.signatures]}))
"""


def _warm(cache: Path, here: str, helper: str, **settings) -> dict:
    run = [sys.executable, "-c", WARM, here, helper, json.dumps(settings)]
    out = subprocess.run(run, check=True, cwd=ROOT, capture_output=True, text=True,
                         env={**os.environ, "NUMBA_CACHE_DIR": str(cache)})
    return json.loads(out.stdout.splitlines()[-1])


def test_each_process_compiles_its_part_into_the_cache(suite_cache, tmp_path):
    """This process compiles the blinds kernels, the helper the showdown kernels: afterwards nothing is missing,
    the helper exited cleanly, and this process never compiled the helper's part (the cache has it)."""
    cache = _cache_without(suite_cache, tmp_path, BLINDS, SHOWDOWN)
    got = _warm(cache, BLINDS, SHOWDOWN, BUSY_LOAD_PER_CORE=1e9)  # a helper however busy the machine
    assert {k.rsplit(".", 1)[0] for k in got["before"]} == {BLINDS, SHOWDOWN}
    assert got["after"] == [] and got["helper"] == 0
    assert got["compiled_here"] == ["blinds"]


def test_a_helper_that_hangs_is_stopped_and_its_part_left_to_the_audit(suite_cache, tmp_path):
    """A helper given no time is taken for hung and killed (its exit status then unknown): what it did not
    write stays uncached, and the audit compiles it on first use, as without the warm-up."""
    cache = _cache_without(suite_cache, tmp_path, SHOWDOWN)  # this process's part is cached: no wait before
    got = _warm(cache, BLINDS, SHOWDOWN, MIN_WAIT_S=0.0, WAIT_FACTOR=0.0, BUSY_LOAD_PER_CORE=1e9)
    assert got["helper"] is None and got["compiled_here"] == []
    assert got["after"] and all(k.startswith(SHOWDOWN) for k in got["after"])


def test_on_a_busy_machine_this_process_compiles_both_parts(suite_cache, tmp_path):
    """With no idle core a helper would only add its start-up: none is started, and both parts compile here."""
    cache = _cache_without(suite_cache, tmp_path, BLINDS, SHOWDOWN)
    got = _warm(cache, BLINDS, SHOWDOWN, BUSY_LOAD_PER_CORE=0.0)
    assert got["helper"] is None and got["after"] == []
    assert got["compiled_here"] == ["blinds", "showdown"]


def test_a_part_compiles_lean_and_everything_is_restored_after(monkeypatch):
    """Inside `_lean_compile` the part's kernels compile without Numba's rewrites and LLVM runs at the lean
    level without loop vectorisation; outside it, every setting is what it was (a kernel's own `no_rewrites`
    included), so nothing compiled later in the process is affected."""
    from numba.core import config

    from auditor.replay.kernel import blinds, hand

    monkeypatch.delenv("NUMBA_OPT", raising=False)
    monkeypatch.delenv("NUMBA_LOOP_VECTORIZE", raising=False)
    before = config.OPT, config.LOOP_VECTORIZE
    own = hand.replay_hands.targetoptions.get("no_rewrites")  # set by hand.py's decorator
    blinds_before = dict(blinds._blinds_kernel.targetoptions)
    with warm._lean_compile([BLINDS, "auditor.replay.kernel.hand"]):
        assert int(config.OPT) == warm.LEAN_OPT and config.LOOP_VECTORIZE == warm.LEAN_LOOP_VECTORIZE
        assert blinds._blinds_kernel.targetoptions["no_rewrites"] is True
        assert hand.replay_hands.targetoptions["no_rewrites"] is True
    assert before == (config.OPT, config.LOOP_VECTORIZE)
    assert dict(blinds._blinds_kernel.targetoptions) == blinds_before
    assert hand.replay_hands.targetoptions.get("no_rewrites") == own


def test_a_users_own_llvm_settings_are_kept(monkeypatch):
    """NUMBA_OPT or NUMBA_LOOP_VECTORIZE set by the user (to debug, or to trade compile time for speed) wins."""
    from numba.core import config

    monkeypatch.setenv("NUMBA_OPT", "3")
    monkeypatch.setenv("NUMBA_LOOP_VECTORIZE", "1")
    before = config.OPT, config.LOOP_VECTORIZE
    with warm._lean_compile([BLINDS]):
        assert before == (config.OPT, config.LOOP_VECTORIZE)
