"""Stop signals where issue 34 found them mishandled: the pytest plugin and `--cluster local`.

The plugin shares the conformance runner's handling (escoba.processes.signals_handled): SIGTERM
(a cancelled CI job) ends pytest with 143 and kills the engine with everything it started,
Ctrl-C ends it without waiting for the reply under way; `--cluster local` stops on Ctrl-C with
exit 130 and the one word, no traceback of Dask's own.
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import pytest

from escoba import processes

from .conftest import DEEP, ONE_CASE, engine, run_argv, run_escoba

PYTEST_STOP = 30.0  # pytest's own ending takes seconds on a loaded machine; the reply timeout is 120
STOP_LIMIT = 2.0  # docs/errors.md: Ctrl-C, SIGTERM and SIGHUP end every command within two seconds


@pytest.mark.parametrize("signame, code", [("SIGTERM", 143), ("SIGINT", 2), *([("SIGHUP", 143)] if DEEP else [])])
def test_a_stopped_pytest_session_kills_the_engine_tree_at_once(work: Path, signame: str, code: int) -> None:
    """An engine hanging mid-case with a child in a session of its own: SIGTERM (or SIGHUP)
    ends pytest with 143, Ctrl-C with pytest's 2 for an interrupt, long before the reply's
    timeout; neither the engine nor its detached child is left."""
    pidfile = work / "pids"
    eng = engine("setsid-hang", "--after", "2", "--pidfile", str(pidfile))
    argv = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--escoba-engine", eng, "--escoba-case", ONE_CASE, "--escoba-timeout", "120"]
    ran = run_argv(argv, work, named=["pids", "pids.tmp"], signal_after=(lambda _pid: pidfile.exists(), getattr(signal, signame)))
    ran.assert_clean(seconds=PYTEST_STOP)
    assert ran.code == code, (ran.code, ran.out[-2000:], ran.err[-2000:])
    if code == 143:
        assert "terminated by " + signame in ran.out


@pytest.mark.parametrize("argv", [("--escoba-timeout", "0"), ("--escoba-timeout", "nan"), ("--escoba-engine", "")], ids=["timeout-0", "timeout-nan", "empty-engine"])
def test_plugin_usage_errors_are_one_line(work: Path, argv: tuple[str, ...]) -> None:
    """A timeout that is no positive number, or an empty engine command: pytest's usage error
    (exit 4), one line, no case run."""
    full = ["--escoba-engine", engine("hostile-hello"), *argv] if argv[0] != "--escoba-engine" else list(argv)
    ran = run_argv([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *full], work)
    ran.assert_clean(seconds=60)
    assert ran.code == 4, (ran.code, ran.err)
    assert ran.one_line_error() in (
        f"ERROR: --escoba-timeout must be more than 0 seconds, got {argv[1]}",
        "ERROR: --escoba-engine: an empty command",
    )


def _workers_running(pid: int) -> bool:
    return len(processes.descendants(pid)) >= 3  # the resource tracker and two workers


def test_ctrl_c_on_a_local_cluster_prints_one_word(work: Path) -> None:
    """Ctrl-C (to the whole group, workers included) on `--cluster local`: exit 130, stderr
    `interrupted` and nothing of Dask's, within two seconds, no worker left."""
    pytest.importorskip("distributed")
    ran = run_escoba(
        "simulate", "sv", "--hands", "10000000", "--cluster", "local", "--jobs", "2", work=work,
        signal_after=(_workers_running, signal.SIGINT),
    )  # fmt: skip
    ran.assert_clean(seconds=STOP_LIMIT)
    assert ran.code == 130 and ran.err == "interrupted\n", ran.err[-3000:]


def test_a_site_killed_outright_leaves_no_conformance_run_nor_engine(work: Path) -> None:
    """SIGKILL of `escoba site` while its conformance run waits on an engine hanging with a
    detached child: the run, told by the kernel that its parent died, stops as on SIGTERM and
    kills the engine tree; nothing of the build is left running."""
    pidfile = work / "pids"
    eng = engine("setsid-hang", "--after", "2", "--pidfile", str(pidfile))
    ran = run_escoba("site", "--out", "s", "--engine", eng, "--timeout", "120", "--quiet", work=work,
                     named=["s", "pids", "pids.tmp"], signal_after=(lambda _pid: pidfile.exists(), signal.SIGKILL))  # fmt: skip
    assert ran.code == -signal.SIGKILL
    assert not ran.left, f"left running: {ran.left}"
