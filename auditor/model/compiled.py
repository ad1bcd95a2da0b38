"""How the auditor's kernels are compiled and loaded, and which are still to compile.

Every kernel is made by this module's `njit`: Numba's, with the cached versions loaded lean (`_LeanCache`).
Kernels are compiled on first use and cached on disk (`@njit(cache=True)`). The command line asks, before a
run, whether that first compilation is still to come for the kernels the run will use (the replay's:
`replay.kernel.uncached_kernels`; the readers' for the inputs found: `ingest.compiled.reader_kernels`), so a
wait of seconds is announced rather than taken for a hang. Here, at the bottom of the layers, so both ask
the same way.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from typing import Any, NamedTuple


class Prepared(NamedTuple):
    """What a first run's plan (`pipeline.audit(prepare=)`, the command line's `precompile.first_run`) gives the
    run: the context it is audited in, whether it must stay in this process (its kernels run as Python), and the
    input formats it reads the reference way rather than wait for their column-wise kernels to compile
    (`ingest.compiled.reference_first`)."""

    context: AbstractContextManager
    in_process: bool
    reference_formats: frozenset[str] = frozenset()


def njit(**options: Any) -> Callable[[Callable], Any]:
    """`numba.njit(**options)` for a kernel of the auditor: the same compiled code, cached in the same files, but
    a version found in the cache loads without Numba's compile-time set-up (`_LeanCache`).

    Why: before each load from its on-disk cache, Numba `refresh()`es its target context: it imports and registers
    every lowering and typing module it has (NumPy's linear algebra with SciPy's BLAS, random generators, typed
    containers, ...), which only a compile uses. That was 0.3-0.45 s of every run's start, a third of an audit of
    one hand, and the fork server's warm-up paid it again. Loading compiled code needs only Numba's runtime
    (NRT), whose functions that code calls. A cache miss compiles as before, and Numba's compiler refreshes the
    contexts itself first (`CompilerBase.__init__`), so nothing compiles against a context not set up.
    Numba's cache class is internal API: if it is not the shape this was written for, the kernel keeps Numba's
    own loading (only the time is lost). Under `NUMBA_DISABLE_JIT=1` a kernel is its plain function, as with
    Numba's `njit`."""
    import numba

    decorate = numba.njit(**options)

    def make(func: Callable) -> Any:
        kernel = decorate(func)
        lean = _lean_cache_class()
        if lean is not None and type(getattr(kernel, "_cache", None)) is lean.__base__:
            kernel._cache = lean(kernel.py_func)
        if callable(getattr(kernel, "get_call_template", None)):
            _typed_without_literals(kernel)
        return kernel

    return make


def callee(func: Callable) -> Any:
    """A kernel only other kernels call, that allocates nothing: compiled without reference counting, with no
    entry point for Python, and not cached on its own (it is compiled into, and cached with, the kernels that
    call it).

    Why: a compiled call takes and drops a reference on every array it is given, atomically; a reader's ledger
    gives its functions a dozen arrays and the dialect's tables on every line, and that bookkeeping was more
    than half of its time. An entry point for Python and a cache entry of its own are compile time and disk for
    nothing, as Python never calls it and its callers' cache holds it. A callee that allocates does not compile
    ("NRT required but not enabled"): its caller allocates and hands the array down. A callee returns no array:
    a counted caller would drop a reference the callee never took."""
    return njit(_nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)(func)


def _typed_without_literals(kernel: Any) -> None:
    """A kernel called from another is compiled for its arguments' types, never their values.

    Why: Numba compiles a kernel called from compiled code for the literal values of its constant arguments
    (`_fail(V, X_NO_SEATS, -1, 0, 0, 0)` is one version, `_fail(V, X_TOO_LONG, line, 0, 0, 0)` another), and
    links every version, with its own callees, into every caller: the room ledger's error helper alone was
    compiled 44 times. Compiled once per argument type, each kernel is one function. Where Numba's dispatcher
    is not the shape this was written for, the kernel keeps Numba's own typing (only compile time is lost)."""
    from numba.core import types

    template = kernel.get_call_template

    def get_call_template(args: tuple, kws: dict) -> Any:
        return template(tuple(types.unliteral(a) for a in args), {k: types.unliteral(v) for k, v in kws.items()})

    kernel.get_call_template = get_call_template


@functools.cache
def _lean_cache_class() -> type | None:
    """`_LeanCache`, made once: a subclass of Numba's `FunctionCache` whose `load_overload` sets up the runtime
    only (see `njit`); None if Numba's cache is not the shape it overrides."""
    try:
        from numba.core.caching import FunctionCache
        from numba.core.runtime.nrt import rtsys
    except ImportError:
        return None
    if not all(callable(getattr(FunctionCache, name, None)) for name in
               ("load_overload", "_load_overload", "_guard_against_spurious_io_errors")):
        return None

    class _LeanCache(FunctionCache):
        """Numba's `FunctionCache`, loading without `refresh()` (`njit`)."""

        def load_overload(self, sig: Any, target_context: Any) -> Any:
            rtsys.initialize(target_context)  # the runtime the loaded code calls (what refresh would set up first)
            with self._guard_against_spurious_io_errors():
                return self._load_overload(sig, target_context)
            return None  # the guard swallowed a spurious I/O error: a miss, as in Numba's own `load_overload`

    return _LeanCache


def uncached(modules: Iterable[str]) -> list[str]:
    """The kernels defined by `modules` with no entry in Numba's on-disk cache (they compile on first use), as
    `module.name`.

    A kernel is cached when its cache index, where Numba looks for it (beside the source, a user-wide folder,
    or NUMBA_CACHE_DIR), lists a compiled version for this Numba and this very source: an index left by an
    older source (an upgrade over an old cache, an edited checkout) is obsolete, and Numba compiles again
    (its own index load, which answers nothing for a missing, foreign or stale index). Numba's cache object is
    internal API: if it changes shape, the answer is "unknown", reported as nothing uncached, so a wrong guess
    only loses the notice.
    """
    return [name for module in modules for name, kernel in _kernels(module) if not in_cache(name, kernel)]


def _kernels(module_name: str) -> list[tuple[str, Any]]:
    """(`module.name`, the kernel) of each kernel `module_name` defines."""
    from numba.core.registry import CPUDispatcher

    module = importlib.import_module(module_name)
    return [(f"{module_name}.{attr}", value) for attr, value in vars(module).items()
            if isinstance(value, CPUDispatcher) and value.__module__ == module_name]


def in_cache(name: str, kernel: Any) -> bool:
    """Whether Numba's cache index lists a compiled version of `kernel` (`name`: `module.name`) for this Numba
    and this very source (see `uncached`); True when the cache object is not the shape this was written for."""
    try:
        load_index = kernel._cache._cache_file._load_index
    except AttributeError:
        return True
    try:
        return bool(load_index())
    except Exception:  # a damaged index: Numba compiles again, as for a missing one
        return False


def never_run(modules: Iterable[str]) -> list[str]:
    """Those of `modules` (in the order given) none of whose kernels is in Numba's cache: kernel modules not yet
    run since an install or since their source changed (which drops all of a module's entries at once).

    Why by module and not by kernel: some kernels run only for some data (the PHH scanner's `_count` only on
    buffers of several files, the JSON Lines scanner's on large files), so a module that has run can still
    have kernels no audit so far needed; they compile when one does, in a fraction of a second. A module with
    none cached is a first compile of seconds, which is what the first-run notices and the command line's
    first-run plan (`precompile.first_run`) are about. A module's indexes are read only until one lists a
    kernel: every audit asks, and a warm cache answers at the first.
    """
    return [module for module in modules
            if (kernels := _kernels(module)) and not any(in_cache(name, kernel) for name, kernel in kernels)]

