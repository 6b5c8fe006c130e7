"""The conformance cases as pytest tests: an engine's own test suite runs them in its CI.

    pytest --escoba-engine "./my-engine --jsonl" [--escoba-ruleset ID-OR-FILE]... [--escoba-case PATTERN]...
           [--escoba-cases-dir DIR] [--escoba-expectations FILE] [--escoba-timeout S] [--escoba-strict]

Installing escoba registers this plugin (entry point `pytest11`); without `--escoba-engine` it
does nothing. With it, every selected case is one pytest test, `escoba::<case id>`: a pass
passes, a failure fails with the report the runner prints (the rule point, the events, the
diff, the command that replays it), a case pinned by the expectations file is an expected
failure, and `unsupported` is a skip (a failure under `--escoba-strict`). The engine is started
once and restarted only after it crashes, as `escoba conformance` does; one that cannot start
stops the session with one line. `--escoba-ruleset FILE` generates cases for a ruleset file, as
`escoba conformance --ruleset FILE` does. pytest's own options work as usual: `-k`, `-x`,
`--junitxml`, `-q`/`-v`.
"""

from __future__ import annotations

import contextlib
import shlex
import signal
from pathlib import Path
from typing import Any

import pytest

from escoba import processes


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("escoba", "Escoba conformance (escoba.pytest_plugin)")
    group.addoption("--escoba-engine", metavar="CMD", help="run the Escoba conformance cases against this engine command")
    group.addoption("--escoba-ruleset", action="append", default=[], metavar="ID-OR-FILE",
                    help="only cases of this ruleset (repeatable); a ruleset file: cases generated for it")  # fmt: skip
    group.addoption("--escoba-case", action="append", default=[], metavar="PATTERN", help="only cases whose id matches this glob")
    group.addoption("--escoba-rules", metavar="FILE-OR-ID",
                    help="the rules the engine plays (wins over its hello's): every case a scenario of them")  # fmt: skip
    group.addoption("--escoba-cases-dir", metavar="DIR", help="your own cases instead of the bundled suite")
    group.addoption("--escoba-expectations", metavar="FILE", help="known failures, pinned by how they fail")
    group.addoption("--escoba-timeout", type=float, default=10.0, metavar="S", help="seconds to wait for each reply (default 10)")
    group.addoption("--escoba-strict", action="store_true", help="an unsupported case fails instead of being skipped")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "escoba: an Escoba conformance case (escoba.pytest_plugin)")
    if config.getoption("escoba_engine") is None:
        return
    from escoba.cli.main import check_timeout
    from escoba.errors import UsageError

    try:
        check_timeout(config.getoption("escoba_timeout"), "--escoba-timeout")
    except UsageError as problem:
        raise pytest.UsageError(str(problem)) from None
    # The conformance runner's own handling of stop signals for the whole session: Ctrl-C and
    # SIGTERM (a cancelled CI job) stop at once, without waiting for a reply, and the engine
    # goes with everything it started (pytest_unconfigure, then the session's close).
    stack = contextlib.ExitStack()
    stack.enter_context(processes.signals_handled(_interrupt))
    config.stash[_SIGNALS] = stack


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP during the session: to pytest an interrupt (it ends the session, runs
    its cleanup and reports it), and exit status 143 afterwards, as `escoba conformance` exits."""

    def __init__(self, signum: int):
        self.signum = signum
        super().__init__(f"terminated by {signal.Signals(signum).name}")


def _interrupt(signum: int) -> BaseException:
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A session ended by SIGTERM or SIGHUP exits 143 (pytest's own status for an interrupt is 2)."""
    if session.config.stash.get(_SIGNALS, None) is not None and processes.stop_signal() in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        session.exitstatus = processes.EXIT_TERMINATED


class _Run:
    """The engine and the cases of one pytest session: the cases are selected first, then the
    engine is started once (an engine that cannot start is one usage error, not a failure per
    case) and restarted by the runner only after a crash."""

    def __init__(self, config: pytest.Config, command: str):
        from escoba.protocol.client import SubprocessSession

        try:
            argv = shlex.split(command)
        except ValueError as problem:
            raise pytest.UsageError(f"--escoba-engine: {problem}") from None
        if not argv:
            raise pytest.UsageError("--escoba-engine: an empty command")
        self.folders: list[Any] = []
        self.first: list[SubprocessSession] = []
        self.runner: Any = None
        try:
            self._open(config, command, argv)
        except BaseException:
            self.close()  # no folder or engine left behind by a session that stops here
            raise

    def _open(self, config: pytest.Config, command: str, argv: list[str]) -> None:
        from escoba.conformance import expectations
        from escoba.conformance.runner import Runner
        from escoba.protocol.client import SubprocessSession

        self.entries, files = self._select(config)
        pins = {}
        if config.getoption("escoba_expectations"):
            try:
                pins = expectations.load(config.getoption("escoba_expectations"))
            except expectations.ExpectationsError as problem:
                raise pytest.UsageError(str(problem)) from None
        timeout = config.getoption("escoba_timeout")
        self.first.append(self._start(argv, command, timeout))
        rules = self._rules(config.getoption("escoba_rules"), self.first[0].hello)

        def connect() -> SubprocessSession:
            return self.first.pop() if self.first else SubprocessSession(argv, timeout=timeout)

        selection = "".join(f" --ruleset {shlex.quote(f)}" for f in files)
        if config.getoption("escoba_cases_dir") and not files:
            selection = f" --cases-dir {shlex.quote(config.getoption('escoba_cases_dir'))}"
        if config.getoption("escoba_rules"):
            selection += f" --rules {shlex.quote(config.getoption('escoba_rules'))}"
        flag = f"escoba conformance --engine {shlex.quote(command)}{selection}"
        self.strict = config.getoption("escoba_strict")
        self.runner = Runner(
            connect, command=command, expectations=pins, replay=lambda case: f"{flag} --case {shlex.quote(case)}", strict=self.strict,
            rules=rules,
        )  # fmt: skip

    @staticmethod
    def _rules(option: str | None, hello: Any) -> Any:
        """The rules the engine plays: the option's, else its hello's (conformance/declared.py)."""
        from escoba.conformance.declared import HELLO, OPTION, DeclaredRulesError, load_declared

        try:
            if option:
                return load_declared(option, OPTION, overrides=getattr(hello, "rules", None))
            if getattr(hello, "rules", None):
                return load_declared(hello.rules, HELLO)
        except DeclaredRulesError as problem:
            raise pytest.UsageError(str(problem)) from None
        return None

    def _select(self, config: pytest.Config) -> tuple[list[Any], list[str]]:
        import tempfile

        from escoba.conformance.selection import select
        from escoba.errors import EscobaError

        def folder(ruleset: str) -> str:  # generated cases, removed at the session's end
            self.folders.append(tempfile.TemporaryDirectory(prefix="escoba-cases-"))
            return self.folders[-1].name

        try:
            return select(config.getoption("escoba_cases_dir"), config.getoption("escoba_case"), config.getoption("escoba_ruleset"), folder)
        except EscobaError as problem:
            raise pytest.UsageError(str(problem).splitlines()[0]) from None

    @staticmethod
    def _start(argv: list[str], command: str, timeout: float) -> Any:
        from escoba.conformance.report import did_not_start
        from escoba.protocol.client import SubprocessSession
        from escoba.protocol.messages import EngineFailure

        try:
            return SubprocessSession(argv, timeout=timeout)
        except EngineFailure as failure:
            raise pytest.UsageError(did_not_start(command, failure)) from None

    def close(self) -> None:
        for session in self.first:
            session.close()
        if self.runner is not None:
            self.runner.close()
        for folder in self.folders:
            folder.cleanup()


@pytest.hookimpl(tryfirst=True)  # before -k and -m deselect
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    command = config.getoption("escoba_engine")
    if command is None:  # without the option the plugin does nothing (an empty command is an error)
        return
    run = _Run(config, command)
    config.stash[_RUN] = run
    items.extend(EscobaCase.from_parent(session, name=f"escoba::{entry.id}", entry=entry) for entry in run.entries)


def pytest_unconfigure(config: pytest.Config) -> None:
    try:
        run = config.stash.get(_RUN, None)
        if run is not None:
            run.close()
    finally:
        stack = config.stash.get(_SIGNALS, None)
        if stack is not None:
            stack.close()


_RUN = pytest.StashKey[_Run]()
_SIGNALS = pytest.StashKey[contextlib.ExitStack]()


class EscobaCaseFailed(Exception):
    """A case that did not pass (the runner's report is the message)."""


class EscobaCase(pytest.Item):
    """One golden case, run through the session's engine."""

    def __init__(self, *, entry: Any, **kw: Any):
        super().__init__(**kw)
        self.entry = entry
        self.add_marker("escoba")

    def runtest(self) -> None:
        from escoba.conformance.report import case_details

        run = self.config.stash[_RUN]
        try:
            result = run.runner.run_one(self.entry)
        except (KeyboardInterrupt, processes.Terminated):
            run.close()  # the engine goes now, not after pytest's own report of the interrupt
            raise
        self.user_properties.append(("outcome", result.outcome))
        if result.divergence is not None and result.divergence.point:
            self.user_properties.append(("rule_point", result.divergence.point))
        if result.outcome == "pass":
            return
        if result.outcome == "xfail":
            pytest.xfail(result.note or "known failure, as pinned")
        if result.outcome == "unsupported" and (not run.strict or result.pin is not None):
            pytest.skip(f"unsupported: {result.message}")
        raise EscobaCaseFailed("\n".join(case_details(result, all_divergences=True)))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, EscobaCaseFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        path = getattr(self.entry.case, "path", None) if self.entry.case is not None else None
        return (path or Path("escoba"), None, f"escoba case {self.entry.id}")
