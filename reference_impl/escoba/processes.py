"""Ending cleanly: signals to exit codes, worker pools that die with their parent, and engine
process trees that are found and killed whatever they do.

Every command runs inside `signals_handled()` (cli/main.py): Ctrl-C (SIGINT) raises
`KeyboardInterrupt` and ends the command with status 130; SIGTERM, and SIGHUP (the terminal
went away: the same request to stop), raise `Terminated` and end it with status 143. Only the
first signal raises: later ones are noted and dropped, so the cleanup that the first one set
off (killing workers and engines, removing temporary files) runs to its end instead of being
cut short half-way.

Parallel work goes through `worker_pool(jobs, tasks, ...)`: never more processes than tasks;
each worker ignores the terminal's signals (the parent decides), and dies with its parent
(Linux: `PR_SET_PDEATHSIG`; elsewhere a thread watching the parent), so not even a SIGKILL of
the parent leaves workers behind (an escoba command another one starts, as the site starts
its conformance and diff runs, does the same through `stop_with_parent`, by SIGTERM so that it
cleans up); and when the parent stops early (an interrupt, an error) the
workers are killed at once instead of finishing their tasks.

Engines run by the conformance runner may start processes of their own, even in a session of
their own (`setsid()`), out of reach of a process-group kill. `kill_engine_tree` finds them
three ways: the descendants of the engine's process; every process whose environment carries
the session's `ENGINE_TOKEN` (inherited by everything the engine starts); and, on Linux, the
runner is a child subreaper (`PR_SET_CHILD_SUBREAPER`, `become_subreaper()`), so a descendant
orphaned by its parent's exit is re-parented to the runner, not to init, and can be reaped. A
process that both leaves the engine's session and clears its environment is out of reach once
its parent has exited: the protocol asks engines not to do that.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence

TYPE_CHECKING = False  # True for type checkers; `typing` is not imported at run time (escoba/__init__.py)
if TYPE_CHECKING:  # a pool is imported where one is made: commands that start none (check) skip it
    from concurrent.futures import ProcessPoolExecutor
    from typing import Any

EXIT_INTERRUPTED = 130  # SIGINT (Ctrl-C): 128 + 2
EXIT_TERMINATED = 143  # SIGTERM: 128 + 15; SIGHUP ends a command the same way
ENGINE_TOKEN = "ESCOBA_ENGINE_SESSION"  # environment variable marking an engine's processes
STOP_WITH_PARENT = "ESCOBA_STOP_WITH_PARENT"  # a child command's parent, by pid: stop_with_parent()

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_STOP_SIGNALS = tuple(s for s in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None)) if s is not None)


class Terminated(BaseException):
    """SIGTERM or SIGHUP: like KeyboardInterrupt, a request to stop that ordinary
    `except Exception` handlers let through."""

    def __init__(self, signum: int):
        self.signum = signum
        super().__init__(f"terminated by {signal.Signals(signum).name}")


# --------------------------------------------------------------------------- signals
_received: int | None = None
_last: int | None = None
_deferring = False
_held: int | None = None  # a stop signal that arrived in a `stops_deferred` block


def _in_main_thread() -> bool:
    """Is this the main thread, the one signals interrupt and the only one that may set their
    handlers? Threads are started through `threading`: while it is not imported, no other
    thread runs Python code. (Importing it is a twentieth of `escoba check`'s start-up.)"""
    threading = sys.modules.get("threading")
    return threading is None or threading.current_thread() is threading.main_thread()


def _on_signal(signum: int, _frame: Any) -> None:
    global _received, _held
    if _received is not None:
        return  # already stopping: let the cleanup finish
    _received = signum
    if _deferring:
        _held = signum
        return
    raise _stop(signum)


def default_stop(signum: int) -> BaseException:
    """What a stop signal raises: KeyboardInterrupt for Ctrl-C, Terminated for the others."""
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)


_stop: Callable[[int], BaseException] = default_stop


@contextlib.contextmanager
def stops_deferred() -> Iterator[None]:
    """A stop signal that arrives in the block raises when the block ends, not inside it: for
    starting a process, whose pid is lost if the raise lands between the fork and the return
    of `Popen` (and the process with it)."""
    global _deferring, _held
    if _deferring or not _in_main_thread():
        yield  # signals raise in the main thread only: elsewhere there is nothing to hold
        return
    _deferring = True
    try:
        yield
    finally:
        _deferring = False
        held, _held = _held, None
        if held is not None:
            raise _stop(held)  # the stop wins over whatever else the block raised


def stopped_by() -> int | None:
    """The stop signal received in the last `signals_handled` block, if any."""
    return _last


def stop_signal() -> int | None:
    """The stop signal received in the `signals_handled` block now running, if any."""
    return _received


def raise_if_stopped() -> None:
    """Raise the stop now if a signal arrived whose exception was swallowed where it landed:
    in a garbage collector's callback or a `__del__` Python reports an exception as ignored
    and goes on (Dask's client has such callbacks), and later signals are dropped while the
    first one's cleanup is expected to run. Code that waits in a loop calls this between waits."""
    if _received is not None:
        raise _stop(_received)


def stopping() -> bool:
    """True once a stop signal arrived: skip anything polite (a `quit` to an engine), just end."""
    return _received is not None


def exit_code(stop: BaseException) -> int:
    """The exit status for a KeyboardInterrupt or a Terminated."""
    return EXIT_TERMINATED if isinstance(stop, Terminated) else EXIT_INTERRUPTED


@contextlib.contextmanager
def signals_handled(stop: Callable[[int], BaseException] = default_stop) -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP raise `stop(signum)` (once) while the block runs; the
    previous handlers come back after it (tests run many commands in one process). `stop`
    is for a host with its own ideas of an interrupt (the pytest plugin: pytest ends a session
    on a KeyboardInterrupt, and would take any other exception for a failing test)."""
    global _received, _last, _stop
    if not _in_main_thread():
        yield  # only the main thread may set handlers; it is the one signals interrupt
        return
    previous = {s: signal.getsignal(s) for s in _STOP_SIGNALS}
    _received, _stop = None, stop
    for s in _STOP_SIGNALS:
        signal.signal(s, _on_signal)
    hook = sys.unraisablehook
    sys.unraisablehook = _quiet_about_stops(hook)
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        sys.unraisablehook = hook
        _last, _received, _stop = _received, None, default_stop


def _quiet_about_stops(hook: Callable[[Any], object]) -> Callable[[Any], object]:
    """An unraisable-exception hook that, once a stop signal arrived, says nothing: the stop
    swallowed where it landed (a garbage collector's callback; `raise_if_stopped` raises it
    again where it counts), and what it broke there, are not the user's to read. Before a
    stop, `hook` as usual."""

    def quiet(unraisable: Any) -> object:
        return None if _received is not None else hook(unraisable)

    return quiet


# --------------------------------------------------------------------------- pools
def _prctl(option: int, value: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def die_with_parent(parent: int, signum: int = signal.SIGKILL) -> None:
    """Make this process end when `parent` does (called first thing in a worker): by SIGKILL,
    or by `signum` (SIGTERM: a command that then cleans up as on any stop)."""

    def end() -> None:
        if signum == signal.SIGKILL:
            os._exit(1)
        os.kill(os.getpid(), signum)

    if _prctl(_PR_SET_PDEATHSIG, signum):
        if os.getppid() != parent:  # it died before the request took effect
            end()
        return

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        end()

    import threading

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def stop_with_parent() -> None:
    """An escoba command started by another (the site's conformance and diff runs) stops as on
    SIGTERM, its engines killed and temporary files removed, when that process ends, even by
    SIGKILL. The variable naming the parent is removed first, so that nothing this command
    starts (an engine that is itself `escoba engine`) reads it as its own."""
    value = os.environ.pop(STOP_WITH_PARENT, "")
    if value.isdigit():
        die_with_parent(int(value), signal.SIGTERM)


def _worker_start(parent: int, initializer: Callable[..., Any] | None, initargs: tuple) -> None:
    # The parent handles Ctrl-C and hang-ups and kills its workers; a worker that also raised
    # would print a traceback of its own. SIGTERM (from the parent) ends a worker at once.
    for s in _STOP_SIGNALS:
        signal.signal(s, signal.SIG_DFL if s == signal.SIGTERM else signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):  # forked while the parent blocked them (worker_pool)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
    die_with_parent(parent)
    if initializer is not None:
        initializer(*initargs)


def _forks() -> bool:
    import multiprocessing

    return multiprocessing.get_start_method() in ("fork", "spawn")


@contextlib.contextmanager
def worker_pool(
    jobs: int, tasks: int, initializer: Callable[..., Any] | None = None, initargs: Sequence[Any] = ()
) -> Iterator[ProcessPoolExecutor]:
    """A `ProcessPoolExecutor` of `min(jobs, tasks)` workers, each running `initializer(*initargs)`
    first. On a normal exit it waits for the tasks; on any exception (an interrupt too) it
    cancels what has not started and kills the workers at once."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # With a fork server the worker's parent is the server, which ends when this process does.
    parent = os.getpid() if _forks() else -1
    before = set(multiprocessing.active_children())
    pool: ProcessPoolExecutor | None = None
    try:
        # The pool's helper threads and its workers are started with the stop signals blocked,
        # so that they inherit the block: the kernel then hands a Ctrl-C to the calling thread,
        # the one Python runs handlers in, and never to a helper while the caller sleeps.
        with _stop_signals_blocked():
            pool = ProcessPoolExecutor(
                max_workers=max(1, min(jobs, tasks)),
                initializer=_worker_start if parent != -1 else _worker_start_any_parent,
                initargs=(parent, initializer, tuple(initargs)),
            )
            pool.submit(_nothing).result()
        yield pool
    except BaseException:
        # A signal may land while a worker is being started, before the pool has noted it:
        # every process started meanwhile goes, or the interpreter would wait for it at exit.
        if pool is not None:
            stop_pool(pool, set(multiprocessing.active_children()) - before)
        raise
    pool.shutdown(wait=True)


def _nothing() -> None:
    return None


@contextlib.contextmanager
def _stop_signals_blocked() -> Iterator[None]:
    """Block the stop signals in this thread for the block (threads started inside inherit the
    block); signals that arrive meanwhile are delivered, and raise, when it ends."""
    if not _in_main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _worker_start_any_parent(parent: int, initializer: Callable[..., Any] | None, initargs: tuple) -> None:
    _worker_start(os.getppid(), initializer, initargs)


def stop_pool(pool: ProcessPoolExecutor, also: Iterable[Any] = ()) -> None:
    """Kill a pool's workers (and the processes `also`) now: pending tasks are cancelled,
    running ones lost."""
    workers = list({*(getattr(pool, "_processes", None) or {}).values(), *also})
    pool.shutdown(wait=False, cancel_futures=True)
    for worker in workers:
        with contextlib.suppress(Exception):
            worker.kill()
    for worker in workers:
        with contextlib.suppress(Exception):
            worker.join(1.0)


# --------------------------------------------------------------------------- engine trees
def become_subreaper() -> bool:
    """On Linux, adopt the orphaned descendants of our children (instead of init), so that an
    engine's detached grandchildren can still be reaped. False where it is not available."""
    return _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def _parents() -> dict[int, int]:
    """pid → parent pid of every process (Linux /proc); empty elsewhere."""
    table: dict[int, int] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return table
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # The command name is in parentheses and may hold anything: the fields follow the last ')'.
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 1:
            table[int(name)] = int(fields[1])
    return table


def _marked(token: str) -> set[int]:
    """The processes whose (initial) environment holds `ENGINE_TOKEN=token`."""
    mark = f"{ENGINE_TOKEN}={token}".encode()
    found: set[int] = set()
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                if mark in f.read().split(b"\0"):
                    found.add(int(name))
        except OSError:
            continue
    return found


def descendants(pid: int, parents: dict[int, int] | None = None) -> set[int]:
    """Every process below `pid` in the process tree (not `pid` itself)."""
    parents = _parents() if parents is None else parents
    children: dict[int, list[int]] = {}
    for child, parent in parents.items():
        children.setdefault(parent, []).append(child)
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def kill_engine_tree(pid: int, token: str | None, rounds: int = 20) -> None:
    """SIGKILL the engine `pid`, its process group, its descendants and every process marked
    with `token`, until none is left (a process may fork while we look); reap the ones that
    were re-parented to us."""
    me = os.getpid()
    with contextlib.suppress(OSError):
        os.killpg(pid, signal.SIGKILL)
    killed: set[int] = set()
    for _ in range(rounds):
        parents = _parents()
        targets = descendants(pid, parents) | ({pid} if pid in parents else set())
        if token is not None:
            targets |= _marked(token)
        targets.discard(me)
        targets = {t for t in targets if not _is_zombie(t)}
        if not targets:
            break
        for target in targets:
            with contextlib.suppress(OSError):
                os.kill(target, signal.SIGKILL)
        killed |= targets
        time.sleep(0.01)
    _reap(killed - {pid})


def _is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return True  # gone
    return stat[stat.rfind(b")") + 2 :][:1] in (b"Z", b"X")


def _reap(pids: set[int], seconds: float = 1.0) -> None:
    """Collect the exit status of those of `pids` that are, or become, our children (an
    orphan is re-parented to us when its parent dies), so that none stays a zombie."""
    end = time.monotonic() + seconds
    left = set(pids)
    while left and time.monotonic() < end:
        for pid in list(left):
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:  # not ours: gone, or still its dying parent's
                if not os.path.exists(f"/proc/{pid}"):
                    left.discard(pid)
                continue
            if done:
                left.discard(pid)
        if left:
            time.sleep(0.01)


__all__ = [
    "ENGINE_TOKEN",
    "EXIT_INTERRUPTED",
    "EXIT_TERMINATED",
    "Terminated",
    "become_subreaper",
    "default_stop",
    "descendants",
    "die_with_parent",
    "exit_code",
    "kill_engine_tree",
    "raise_if_stopped",
    "signals_handled",
    "stop_pool",
    "stop_signal",
    "stopped_by",
    "stopping",
    "stops_deferred",
    "worker_pool",
]
