"""What every hostile test needs: a command run as a user runs it, and what it left behind.

`run_escoba` starts a command in a scratch folder of its own (its working folder, HOME and
TMPDIR), as a child process in a session of its own, marked with an environment variable that
everything it starts inherits. When it ends (or is killed at its deadline) the result says its
exit code, what it printed, how long it took, its peak memory (its own or any of its
children's), the processes still carrying the mark (a process left behind), and every file
written or changed in the scratch folder outside the outputs it was told to write.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from .texts import NEVER_RAW

ROOT = Path(__file__).parents[2]
FAKE = ROOT / "tests" / "engines" / "fake_engine.py"
DEEP = os.environ.get("ESCOBA_HOSTILE", "").lower() == "deep"  # every engine against every command
MARK = "ESCOBA_HOSTILE_RUN"
PEAK_MIB = 600  # memory a command (with its engines) may use at its peak
ONE_CASE = "base.2p.1"


def engine(mode: str, *extra: str) -> str:
    """The command line of the fake engine in `mode`."""
    return shlex.join([sys.executable, str(FAKE), mode, *extra])


@dataclass
class Ran:
    code: int
    out: str
    err: str
    seconds: float
    peak_mib: float
    left: list[int] = field(default_factory=list)  # processes of the run still alive after it
    stray: list[str] = field(default_factory=list)  # files written outside what it was told to write

    def one_line_error(self) -> str:
        """The one line of an error on stderr (the test fails if there are more, or a traceback)."""
        lines = [line for line in self.err.splitlines() if line.strip()]
        assert len(lines) == 1 and "Traceback" not in self.err, self.err[-2000:]
        return lines[0]

    def assert_clean(self, seconds: float = 120.0) -> None:
        """No traceback, nothing raw on the terminal, no process left, nothing written
        outside what was named, bounded time and memory."""
        assert "Traceback" not in self.err + self.out, (self.err + self.out)[-3000:]
        raw = sorted({c for c in self.out + self.err if c in NEVER_RAW and c != "\n"})
        assert not raw, f"raw on the terminal: {raw!r}"
        assert not self.left, f"left running: {self.left}"
        assert not self.stray, f"written outside what was named: {self.stray}"
        assert self.seconds < seconds, f"{self.seconds:.1f} s"
        assert self.peak_mib < PEAK_MIB, f"{self.peak_mib:.0f} MiB at the peak"


def _snapshot(folder: Path) -> dict[str, tuple[int, int, int]]:
    found = {}
    for path in folder.rglob("*"):
        with contextlib.suppress(OSError):
            st = path.lstat()
            # a folder by its existence: a file made and removed in it (a probe) changes its times
            same = (st.st_mode, 0, 0) if path.is_dir() and not path.is_symlink() else (st.st_mode, st.st_size, st.st_mtime_ns)
            found[path.relative_to(folder).as_posix()] = same
    return found


def _marked(token: str) -> set[int]:
    mark = f"{MARK}={token}".encode()
    pids = set()
    for name in os.listdir("/proc"):
        if name.isdigit():
            with contextlib.suppress(OSError), open(f"/proc/{name}/environ", "rb") as f:
                if mark in f.read().split(b"\0"):
                    pids.add(int(name))
    return {p for p in pids if _alive(p)}


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except OSError:
        return False


def run_argv(
    argv: Sequence[str], work: Path, *, named: Sequence[str] = (), timeout: float = 180, env: dict[str, str] | None = None,
    stdin: int | None = subprocess.DEVNULL, signal_after: tuple[Callable[[int], bool], int] | None = None,
) -> Ran:
    """Run `argv` in the scratch folder `work`; `named` are the outputs (paths relative to
    `work`) it may write. With `signal_after` (ready, signum), the signal is sent to the
    command once `ready(pid)` is true (SIGINT to its whole group, as a terminal sends it), and
    the seconds are counted from the signal."""
    token = uuid.uuid4().hex
    for sub in ("home", "tmp"):
        (work / sub).mkdir(parents=True, exist_ok=True)
    before = _snapshot(work)
    full = {**os.environ, "HOME": str(work / "home"), "TMPDIR": str(work / "tmp"), MARK: token, **(env or {})}
    full.pop("PYTEST_ADDOPTS", None)
    out_path, err_path = work.parent / f"{work.name}.out", work.parent / f"{work.name}.err"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        proc = subprocess.Popen(list(argv), cwd=work, env=full, stdout=out, stderr=err, stdin=stdin, start_new_session=True)
    began = time.monotonic()
    deadline = began + timeout
    status = usage = None
    sent = False
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if signal_after is not None and not sent and signal_after[0](proc.pid):
            sent = True
            began = time.monotonic()  # from the signal on: how long the command takes to stop
            if signal_after[1] == signal.SIGINT:
                os.killpg(proc.pid, signal.SIGINT)
            else:
                os.kill(proc.pid, signal_after[1])
        if time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = -9
            pytest.fail(f"{shlex.join(argv)[:300]} did not end within {timeout} s: {err_path.read_text(errors='replace')[-2000:]}")
        time.sleep(0.02)
    seconds = time.monotonic() - began
    proc.returncode = os.waitstatus_to_exitcode(status)
    left = _marked(token)
    end = time.monotonic() + 3
    while left and time.monotonic() < end:  # a process being killed as we look
        time.sleep(0.05)
        left = _marked(token)
    for pid in left:  # not the next test's problem
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    after = _snapshot(work)
    allowed = tuple(n.rstrip("/") for n in named)
    changed = [k for k in after if before.get(k) != after[k]]
    stray = [k for k in changed if not any(k == n or k.startswith(n + "/") for n in allowed)]
    stray += [f"tmp/{p.name}" for p in (work / "tmp").iterdir()]  # a temporary file left behind
    return Ran(
        proc.returncode, out_path.read_text(errors="replace"), err_path.read_text(errors="replace"), seconds,
        usage.ru_maxrss / 1024 if usage is not None else 0.0, sorted(left), sorted(set(stray)),
    )  # fmt: skip


def run_escoba(*argv: str, work: Path, **kw) -> Ran:  # type: ignore[no-untyped-def]
    """`escoba ARGV` as `run_argv` runs it."""
    return run_argv([sys.executable, "-m", "escoba", *argv], work, **kw)


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """A scratch folder to run a command in."""
    folder = tmp_path / "work"
    folder.mkdir()
    return folder
