"""The conformance reports and scoring diffs a site shows, run as the `escoba` command runs them.

The site reads the same JSON a tool reads (`escoba conformance --format json`, schema
schemas/report.schema.json; `escoba diff --format json`, docs/diff.md), from a child process
of this Python: so it shows exactly what the command prints, whatever else those reports
learn to say, and an engine that misbehaves is kept at the distance the runner keeps it.
Runs go two at a time (the machine's cores); each is bounded in time and output.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from escoba.errors import EscobaError
from escoba.processes import STOP_WITH_PARENT

MAX_OUTPUT = 64 * 1024 * 1024  # a whole report is well under a megabyte
TIMEOUT = 600.0
# A run asked to stop (SIGTERM) kills its engines and workers and exits within this; only then
# is its group killed. A SIGKILL first would leave its engines running: each is in a process
# group of its own (protocol/client.py), out of reach of the run's group.
STOP_GRACE = 1.5


_RUNNING: set[subprocess.Popen] = set()  # the children now running, for stop_all()
_LOCK = threading.Lock()  # a run starting while stop_all() looks is either seen or not started
_stopped = False  # stop_all() was called: start nothing more


class GatherError(EscobaError):
    """A conformance run or a diff the site needed did not produce its report."""


@dataclass(frozen=True)
class Job:
    kind: str  # "conformance" or "diff"
    argv: tuple[str, ...]  # arguments after `escoba`
    label: str  # the engine command, or "A B"


def conformance_job(engine: str, timeout: float | None = None) -> Job:
    argv = ["conformance", "--engine", engine, "--format", "json"]
    if timeout is not None:
        argv += ["--timeout", f"{timeout:g}"]
    return Job("conformance", tuple(argv), engine)


def diff_job(a: str, b: str, hands: int | None = None, jobs: int | None = None) -> Job:
    argv = ["diff", a, b, "--format", "json"]
    if hands is not None:
        argv += ["--hands", str(hands)]
    if jobs is not None:
        argv += ["--jobs", str(jobs)]
    return Job("diff", tuple(argv), f"{a} {b}")


def run_all(jobs: Sequence[Job], workers: int = 2) -> list[dict[str, Any]]:
    """Each job's JSON report, in the order given; GatherError for the first that fails."""
    global _stopped
    if not jobs:
        return []
    _stopped = False
    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(jobs)))) as pool:
        return list(pool.map(run_one, jobs))


def run_one(job: Job) -> dict[str, Any]:
    # Output to a file, not a pipe: a report has no reason to be read while it is written, and
    # a file cannot fill up and stall the child. Its size is checked before it is parsed.
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        # Its own process group: on a timeout or an interrupt the run and the engine it
        # started go together, and nothing is left behind.
        with _LOCK:
            if _stopped:
                raise GatherError(f"escoba {job.kind} {job.label}: not run (the build was stopped)")
            child = subprocess.Popen(
                [sys.executable, "-m", "escoba", *job.argv],
                stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True,
                # It stops (and stops its engine) if this process dies, even by SIGKILL.
                env={**os.environ, "PYTHONIOENCODING": "utf-8", STOP_WITH_PARENT: str(os.getpid())},
            )  # fmt: skip
            _RUNNING.add(child)
        try:
            returncode = child.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            _kill(child)
            raise GatherError(f"escoba {job.kind} {job.label}: no report after {TIMEOUT:g} s") from None
        except BaseException:
            _kill(child)
            raise
        finally:
            _RUNNING.discard(child)
        size = out.seek(0, os.SEEK_END)
        err.seek(0)
        problem = err.read(4000).decode("utf-8", "replace").strip().splitlines()
        # conformance exits 1 when a case fails: that is a report, not an error.
        if returncode not in (0, 1) or size == 0:
            why = problem[-1] if problem else f"exit status {returncode}"
            raise GatherError(f"escoba {job.kind} {job.label}: {why}")
        if size > MAX_OUTPUT:
            raise GatherError(f"escoba {job.kind} {job.label}: a report of {size} bytes is too large")
        out.seek(0)
        try:
            report = json.loads(out.read().decode("utf-8"))
        except ValueError as error:
            raise GatherError(f"escoba {job.kind} {job.label}: the report is not JSON ({error})") from None
    if not isinstance(report, dict):
        raise GatherError(f"escoba {job.kind} {job.label}: the report is not a JSON object")
    return report


def _kill(child: subprocess.Popen) -> None:
    _stop([child])


def _stop(children: Sequence[subprocess.Popen]) -> None:
    """Ask every run to stop, give them `STOP_GRACE` together, then kill what is left."""
    for child in children:
        with contextlib.suppress(ProcessLookupError):
            child.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE
    for child in children:
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.wait(timeout=max(0.0, deadline - time.monotonic()))
    for child in children:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(child.pid, signal.SIGKILL)
        child.wait()


def stop_all() -> None:
    """Stop every run still going (the build was interrupted or failed): none is left behind,
    nor any engine one of them started."""
    global _stopped
    with _LOCK:
        _stopped = True
        children = list(_RUNNING)
    _stop(children)
