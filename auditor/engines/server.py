"""The fork server the local engine's workers start from: started once, restarted when it must be, reaped.

Why a fork server: see `auditor.engines.local` and `auditor.engines.preload` (a worker forked from a
warmed-up server starts in milliseconds instead of ~1.7 s of CPU). Starting it costs this process only a
`posix_spawn`; the server's own warm-up (~1.1-1.6 s of CPU) runs beside the driver's hashing and planning.

One server serves every pool of the process (a test session's audits, the pools of `local._one_by_one`);
it is started again when the environment changed since it started (a worker must see the environment a
spawned one would: the server's is what a forked worker has), and stopped and reaped when this process
exits, so the CPU it and its workers used is counted in this process's children's
(`resource.RUSAGE_CHILDREN`, what the benchmark reads). Where the platform has no fork server (Windows),
workers are `spawn`ed.
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import os
import signal
import threading
from collections.abc import Sequence
from multiprocessing.context import BaseContext

#: the fork server's preload (see `auditor.engines.preload`)
PRELOAD = "auditor.engines.preload"
_lock = threading.Lock()
#: the environment the running fork server was started with (None: none started by this module)
_server_env: dict[str, str] | None = None
_stop_registered = threading.Event()


def worker_context(readers: Sequence[str] = ()) -> BaseContext:
    """The context workers start from: a fork server preloaded with `PRELOAD` where the platform has one
    (started now if it is not running, without waiting for its warm-up), else spawn. `readers`: the reader
    modules whose kernels the run's inputs need (`ingest.compiled.reader_modules`), imported by a server
    started now before `PRELOAD`, so its warm-up loads their cached kernels too (a running server is kept as
    it is: a worker then loads what else it needs itself, as it always could)."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    _ensure_server(context, readers)
    return context


def _ensure_server(context: BaseContext, readers: Sequence[str] = ()) -> None:
    """Start the fork server if it is not running, or again if the environment changed since it started.
    Returns at once: the server warms up on its own, and the first worker started waits for what is left of
    it (`Process.start` reads the child's pid from the server)."""
    global _server_env
    from multiprocessing import forkserver

    with _lock:
        env = dict(os.environ)
        if _server_env is not None and env != _server_env:
            stop()
        if _server_env is None:
            context.set_forkserver_preload([*(name for name in readers if name.startswith("auditor.ingest.")),
                                            PRELOAD])
        if not _stop_registered.is_set():
            _stop_registered.set()
            atexit.register(stop)
        forkserver.ensure_running()  # a no-op while it runs; starts it again if it died
        _server_env = env


def stop() -> None:
    """Stop the fork server and reap it, so its CPU time, and that of the workers it reaped, is counted in this
    process's children's. Terminated, not asked to exit: it keeps nothing worth a clean exit, and its
    interpreter's teardown would only add wall time here. At exit the pools' workers have been joined already
    (concurrent.futures joins them before `atexit` runs), so the server has reaped them. Never raises: this is
    the standard library's private state of its fork server, which may change shape."""
    global _server_env
    _server_env = None
    with contextlib.suppress(Exception):
        from multiprocessing import forkserver, util

        server = forkserver._forkserver
        pid = server._forkserver_pid
        if pid is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        with contextlib.suppress(OSError):
            os.close(server._forkserver_alive_fd)
        address = server._forkserver_address
        server._forkserver_pid = server._forkserver_alive_fd = server._forkserver_address = None
        if address and not util.is_abstract_socket_namespace(address):
            with contextlib.suppress(OSError):
                os.unlink(address)
