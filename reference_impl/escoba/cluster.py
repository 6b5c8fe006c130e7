"""Running chunks of work on a Dask cluster (`--cluster ADDRESS` or `--cluster local`).

`escoba simulate` and `escoba diff` cut their hands into chunks whose integer sums merge
exactly; with `--jobs J` the chunks go to J local processes, with `--cluster` to the workers of
a Dask distributed scheduler. The chunks, their seeds and the merge (in chunk order) are the
same either way, so the results are identical bit for bit.

- `ADDRESS` is a scheduler address (`tcp://10.0.0.5:8786`, `localhost:8786`); the workers need
  `escoba` installed (the same version) and nothing else: a task carries the resolved ruleset
  document, and each worker compiles it once.
- `local` starts a `LocalCluster` on this machine (loopback only) with `--jobs`
  worker processes, and stops it at the end.

Dask is an optional extra (`pip install 'escoba[cluster]'`); it is imported only here, only
when a cluster is asked for. Every wait on the network has a deadline: reaching the scheduler
and its handshake (`CONNECT_TIMEOUT`; Dask's own client waits for the handshake without one,
so something that accepts the connection and never speaks would hang it), finding a worker,
sending the shared data, and each chunk's result (`REPLY_TIMEOUT` without a chunk finished). A
listener that is no Dask scheduler is found before Dask's client reads a byte from it: the
first thing a scheduler sends is its handshake, a length of 8 bytes and that many bytes of
message; a length past `HANDSHAKE_LIMIT` (an SSH banner, an HTTP reply, garbage) is refused,
where Dask would try to allocate it. An address that does not parse is a usage error (exit 2);
a scheduler that cannot be reached, or fails, is one line and exit 1.

A scheduler is trusted as any Dask scheduler must be: Dask sends pickles, and running a task's
result is running the scheduler's code. The checks here stop mistakes (a wrong port, a service
that is not Dask), not a hostile scheduler.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import shutil
import signal
import socket
import struct
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from escoba.errors import EscobaError, UsageError

CONNECT_TIMEOUT = 10.0  # seconds to reach a scheduler, finish its handshake and find a worker
REPLY_TIMEOUT = 300.0  # seconds the cluster may go without finishing a chunk (no worker left, a lost one)
HANDSHAKE_LIMIT = 64 * 1024  # bytes a scheduler's handshake may announce: Dask's is a few hundred
LOCAL = "local"
_QUIET = logging.CRITICAL + 1  # Dask's own log lines: none (its errors come back as one line here)

Task = Callable[..., Any]


class ClusterError(EscobaError):
    """No cluster to run on: Dask missing, or a scheduler that cannot be reached or fails."""


class ClusterAddressError(ClusterError, UsageError):
    """An address that names no scheduler: a usage error (exit status 2)."""


def run(
    address: str,
    workers: int,
    task: Task,
    shared: Any,
    calls: Sequence[tuple],
    on_result: Callable[[int, Any], None],
) -> None:
    """Run `task(shared, *call)` for every call on the cluster; `on_result(index, result)` is
    called in this process as each finishes (in any order). `shared` (plain data) is sent to the
    workers once."""
    from escoba import processes

    with _dask_quiet():
        before = processes.descendants(os.getpid())
        client = cluster = None
        # A local cluster keeps its scratch files (locks, spill) in a folder of ours, removed
        # at the end however the run ends (Dask's default is a shared one in the temp folder).
        scratch = tempfile.mkdtemp(prefix="escoba-dask-") if address == LOCAL else None
        try:
            client, cluster = connect(address, workers, scratch)
            _run_on(client, address, task, shared, calls, on_result)
        finally:
            if processes.stopping():
                # A stop signal (even while the local cluster starts): its workers go now
                # (SIGKILL), not after Dask's goodbyes; the process is ending, and the
                # scheduler's threads with it. Not multiprocessing's resource tracker: killed,
                # it would be started again (printing) at the next semaphore Dask makes; it ends
                # when this process does.
                warnings.simplefilter("ignore")
                for _ in range(3):  # (a nanny may start a worker again meanwhile)
                    for pid in processes.descendants(os.getpid()) - before - _resource_tracker():
                        with contextlib.suppress(OSError):
                            os.kill(pid, signal.SIGKILL)
                    time.sleep(0.02)
            else:
                if client is not None:
                    with contextlib.suppress(Exception):
                        client.close(timeout=2)
                if cluster is not None:
                    with contextlib.suppress(Exception):
                        cluster.close(timeout=5)
            if scratch is not None:
                shutil.rmtree(scratch, ignore_errors=True)


def _resource_tracker() -> set[int]:
    """The pid of this process's multiprocessing resource tracker, if it has one."""
    from multiprocessing import resource_tracker

    pid = getattr(getattr(resource_tracker, "_resource_tracker", None), "_pid", None)
    return {pid} if isinstance(pid, int) else set()


def _run_on(client: Any, address: str, task: Task, shared: Any, calls: Sequence[tuple], on_result: Callable[[int, Any], None]) -> None:
    import queue
    from concurrent.futures import CancelledError

    from distributed import TimeoutError as DaskTimeout
    from distributed.scheduler import KilledWorker

    from escoba import processes

    finished: queue.Queue[tuple[int, Any]] = queue.Queue()
    try:
        data = client.scatter(shared, broadcast=True, hash=False, timeout=CONNECT_TIMEOUT)
        futures = []
        for k, call in enumerate(calls):  # (thousands, for a long run: seconds, a stop checked each)
            processes.raise_if_stopped()
            futures.append(client.submit(task, data, *call, pure=False))
            futures[-1].add_done_callback(lambda done, k=k: finished.put((k, done)))  # from Dask's thread
        for _ in futures:
            k, future = _next_finished(finished)
            on_result(k, future.result(timeout=REPLY_TIMEOUT))
    except (TimeoutError, DaskTimeout):
        processes.raise_if_stopped()
        raise ClusterError(f"the Dask cluster at {address} finished no chunk within {REPLY_TIMEOUT:g} s (no worker left?)") from None
    except (OSError, EOFError, KilledWorker, CancelledError) as error:
        processes.raise_if_stopped()  # a chunk cancelled because the run is being stopped
        raise ClusterError(f"the Dask cluster at {address} failed: {_reason(error)}") from None


def _next_finished(finished: Any) -> tuple[int, Any]:
    """The next chunk done, waited for in short slices: a stop signal whose exception Dask
    swallowed (it can land in Dask's garbage collector callback) is raised between them."""
    import queue

    from escoba import processes

    deadline = time.monotonic() + REPLY_TIMEOUT
    while True:
        processes.raise_if_stopped()
        try:
            return finished.get(timeout=min(0.2, max(deadline - time.monotonic(), 0.001)))
        except queue.Empty:
            if time.monotonic() >= deadline:
                raise TimeoutError from None


def check_address(address: str) -> None:
    """A usage error unless `address` is `local` or an address Dask can connect to (its form
    only: nothing is reached). Raises ClusterError when Dask is not installed."""
    if address == LOCAL:
        return
    _distributed()
    from distributed.comm import registry
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, location = parse_address(address)
        registry.get_backend(scheme)
        if scheme in ("tcp", "tls"):
            host, port = parse_host_port(location)
            if not host or not 0 < int(port) < 65536:
                raise ValueError(f"no host, or a port out of 1 to 65535 in {location!r}")
    except (ValueError, TypeError) as error:
        raise ClusterAddressError(
            f"--cluster: {address!r} is not a scheduler address ({_reason(error)}); write tcp://HOST:PORT, or local"
        ) from None


def connect(address: str, workers: int, scratch: str | None = None) -> tuple[Any, Any]:
    """A Dask client for `address` (and the LocalCluster it started, for `local`, its files in
    the folder `scratch`)."""
    _distributed()
    import dask
    from distributed import LocalCluster

    if address == LOCAL:
        with _workers_say_nothing(), dask.config.set({"temporary-directory": scratch} if scratch else {}):
            cluster = LocalCluster(
                n_workers=max(1, workers), threads_per_worker=1, processes=True, host="127.0.0.1",
                dashboard_address="127.0.0.1:0", silence_logs=_QUIET,
            )  # fmt: skip
        try:
            return _BoundedClient(cluster), cluster
        except BaseException:
            from escoba import processes

            if not processes.stopping():  # (after a stop, run() kills its workers at once)
                cluster.close(timeout=5)
            raise
    check_address(address)
    _preflight(address)
    try:
        client = _BoundedClient(address, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as error:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {_reason(error)}") from None
    except Exception as error:  # Dask decoding what is no scheduler's message: any exception
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: it does not speak Dask ({_reason(error)})") from None
    try:
        client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
    except (TimeoutError, OSError) as error:
        client.close(timeout=2)
        why = f"it has no worker after {CONNECT_TIMEOUT:g} s" if isinstance(error, TimeoutError) else _reason(error)
        raise ClusterError(f"the Dask scheduler at {address} cannot run chunks: {why}") from None
    return client, None


def _preflight(address: str) -> None:
    """Before Dask's client reads from a TCP address: connect, and read the length of the
    scheduler's handshake, each within CONNECT_TIMEOUT; refuse a silent peer or a length no
    handshake has."""
    from distributed.comm.addressing import parse_address, parse_host_port

    scheme, location = parse_address(address)
    if scheme != "tcp":  # TLS and the rest: only Dask knows how to start them (its deadline holds)
        return
    host, port = parse_host_port(location)
    deadline = time.monotonic() + CONNECT_TIMEOUT
    try:
        with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT) as peer:
            head = b""
            while len(head) < 8:
                peer.settimeout(max(0.01, deadline - time.monotonic()))
                chunk = peer.recv(8 - len(head))
                if not chunk:
                    raise ClusterError(f"cannot reach the Dask scheduler at {address}: it closed the connection without a handshake")
                head += chunk
    except TimeoutError:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: no handshake within {CONNECT_TIMEOUT:g} s") from None
    except OSError as error:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {_reason(error)}") from None
    (length,) = struct.unpack("<Q", head)
    if not 0 < length <= HANDSHAKE_LIMIT:
        raise ClusterError(
            f"cannot reach the Dask scheduler at {address}: it does not speak Dask (a first message of {length} bytes)"
        )


def _bounded_client_type() -> type:
    from distributed import Client

    class BoundedClient(Client):
        """Dask's client, whose start (connection and handshake) has a deadline: `start` hands
        its keywords to `distributed.utils.sync`, which bounds the wait by `callback_timeout`
        and cancels the handshake's read when it passes."""

        def start(self, **kwargs: Any) -> Any:
            kwargs.setdefault("callback_timeout", CONNECT_TIMEOUT)
            try:
                return super().start(**kwargs)
            except BaseException:
                with contextlib.suppress(Exception):
                    self.close(timeout=1)
                raise

    return BoundedClient


def _BoundedClient(*args: Any, **kwargs: Any) -> Any:
    return _bounded_client_type()(*args, **kwargs)


def _distributed() -> None:
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise ClusterError("--cluster needs Dask: pip install 'escoba[cluster]'") from None


@contextlib.contextmanager
def _workers_say_nothing() -> Iterator[None]:
    """The worker processes started in the block write their standard error to /dev/null: a
    Ctrl-C goes to the whole foreground group, and each worker would print a traceback of its
    own before this process stops them (a task's errors come back through Dask, not there).
    Their signals cannot be set instead: multiprocessing starts its children with none blocked,
    and an ignored SIGINT here would lose a Ctrl-C taken by a thread that does not block it."""
    with contextlib.suppress(Exception):
        sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:  # no standard error at all: nothing of theirs to hide
        yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


@contextlib.contextmanager
def _dask_quiet() -> Iterator[None]:
    """Dask's loggers, and asyncio's under them, say nothing while we run: a stopped or failed
    run would print their tracebacks (a comm closed under the scheduler, a worker's start cut
    short) before our one line. After a stop signal they stay quiet: the process is ending,
    and Dask's threads may still be winding down."""
    from escoba import processes

    saved: list[tuple[logging.Logger | logging.Handler, int]] = []
    for name in ("distributed", "asyncio"):
        logger = logging.getLogger(name)
        saved += [(logger, logger.level), *((h, h.level) for h in logger.handlers)]
    for item, _ in saved:
        item.setLevel(_QUIET)
    try:
        yield
    finally:
        if not processes.stopping():
            for item, level in saved:
                item.setLevel(level)


def _reason(error: BaseException) -> str:
    return " ".join(str(error).split())[:300] or type(error).__name__


def token(data: Any) -> str:
    """A name for plain data (a job), the same in every process: workers cache by it."""
    text = json.dumps(data, sort_keys=True, default=str)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()
