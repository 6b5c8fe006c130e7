"""`escoba conformance`: run the golden cases against an engine over the JSON-lines protocol."""

from __future__ import annotations

import argparse
import gc
import shlex
import sys
from typing import Any

from escoba.cli.main import UsageError, add_format_argument, check_timeout, worker_count
from escoba.outputs import check_output_file, write_atomic

HELP = "run the golden cases against an engine (default: the reference engine) and report"
DESCRIPTION = """\
Drive an engine through every selected golden case over the JSON-lines protocol
(docs/protocol.md) and report each case: pass, fail (with the first divergent
event, the events before it, a field-level diff, the class of divergence, the rule
point, the rule clause and a command that replays the case; every later divergence
with --all-divergences), xfail (a failure exactly as the expectations file pins
it), unsupported (skipped: the case needs a feature the engine did not declare),
error (the engine refused a request), crash, timeout, or broken-case (the case file
itself does not load). The run ends with two answers: the engine's bugs (each kind of
departure from the rules it plays, with its rule point, or "no rule point explains it") and
the rules profile (every rule point the engine agrees with, differs on, does not claim, or was
not exercised on); then, for an engine that declares its rules (in hello, or --rules), its
variant: those rules next to each regional ruleset, information, not failure. Every case then
runs as a scenario of the declared rules; after a divergence the runner goes on from the
engine's own state.

The engine is a command, split like a shell would split it; it is started in its
own process group, restarted after a crash, a timeout or a protocol failure, and
killed with all its children at the end. Without --engine the built-in reference
engine runs, through the same subprocess protocol ('escoba engine').

Exit status: 0 when no case failed (a skip is not a failure, unless --strict) and at
least one case ran; 1 when a case failed or none could run (the summary says why); 2 for
a usage error, declared rules that do not load, or an engine that does not start (one
line, with what it printed)."""
EPILOG = """\
examples:
  escoba conformance                                   the reference engine, every case
  escoba conformance --engine './my-engine --jsonl'    your engine
  escoba conformance --engine ./my-engine --rules my-rules.yaml       the rules it plays: every case a scenario of them
  escoba conformance --rules spec/house/no-opening-escoba.yaml        the reference engine, sent a house rule
  escoba conformance --engine ./my-engine --rules base --shrink bugs  its departures from base, each case shrunk into bugs/
  escoba conformance --engine 'python docs/examples/minimal_engine.py' --ruleset fr
  escoba conformance --case 'opening.*' --format markdown >> "$GITHUB_STEP_SUMMARY"
  escoba conformance --engine ./my-engine --expectations known-failures.yaml
  escoba conformance --engine ./my-engine --write-expectations known-failures.yaml
  escoba conformance --engine ./my-engine --all-divergences --strict
  escoba conformance --list --ruleset sv --format json
  escoba conformance --engine ./my-engine --junit escoba.xml -q       JUnit XML for CI, quiet
  escoba conformance --engine ./my-engine --jobs 4                    four engines side by side
  escoba conformance --engine 'escoba engine' --engine ./my-engine   one table, engines by outcomes"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--engine", metavar="CMD", action="append", default=None,
        help="the engine command (default: the reference engine); repeat it to compare engines in one table",
    )  # fmt: skip
    parser.add_argument(
        "--ruleset", nargs="+", action="extend", default=[], metavar="ID-OR-FILE",
        help="only cases of these rulesets; a ruleset file: cases generated for it on the fly (escoba cases generate)",
    )  # fmt: skip
    parser.add_argument(
        "--case", action="append", default=[], metavar="PATTERN",
        help="only cases whose id matches this glob (repeatable): 'opening.*'",
    )  # fmt: skip
    parser.add_argument(
        "--rules", metavar="FILE-OR-ID",
        help="the rules the engine plays (a bundled id or a ruleset file); wins over the engine's hello: "
        "every case is then a scenario under them, with targeted cases for every point they set",
    )  # fmt: skip
    parser.add_argument(
        "--no-targeted", dest="targeted", action="store_false",
        help="with declared rules, run the bundled scenarios only (no cases generated for the declared rules)",
    )  # fmt: skip
    parser.add_argument(
        "--shrink", metavar="DIR",
        help="shrink the first case of each bug to the smallest that fails the same way, written into DIR (a folder that exists)",
    )  # fmt: skip
    add_format_argument(parser, choices=("text", "json", "markdown"))
    parser.add_argument("--expectations", metavar="FILE", help="known failures, pinned by how they fail (YAML or JSON)")
    parser.add_argument(
        "--write-expectations", metavar="FILE",
        help="write an expectations file pinning every case that is not a pass (a baseline to commit)",
    )  # fmt: skip
    parser.add_argument(
        "--jobs", type=int, default=1, metavar="J",
        help="engine sessions side by side, each its own engine process; 0 = one per CPU (default 1)",
    )  # fmt: skip
    parser.add_argument("--timeout", type=float, default=10.0, metavar="S", help="seconds to wait for each reply (default 10; the handshake waits at least 10)")
    parser.add_argument("--cases-dir", metavar="DIR", help="run the cases in DIR instead of the bundled suite")
    parser.add_argument("--list", action="store_true", help="list the selected cases and their required features; run nothing")
    parser.add_argument(
        "--all-divergences", action="store_true",
        help="list every divergence of a failing case, each with its rule point (JSON always has them)",
    )  # fmt: skip
    parser.add_argument("--strict", action="store_true", help="a case skipped as unsupported fails the run (unless pinned)")
    parser.add_argument("--junit", metavar="FILE", help="also write the results as JUnit XML (for CI systems)")
    parser.add_argument("-x", "--exitfirst", dest="maxfail", action="store_const", const=1, help="stop at the first failing case")
    parser.add_argument("--maxfail", type=int, metavar="N", help="stop after N failing cases")
    parser.add_argument("-q", "--quiet", dest="verbosity", action="store_const", const=-1, default=0,
                        help="only the failing cases, the profile's count and the summary")  # fmt: skip
    parser.add_argument("-v", "--verbose", dest="verbosity", action="store_const", const=1,
                        help="every case, and every point of the rules profile")  # fmt: skip


def reference_command() -> list[str]:
    """The built-in engine, run through the real protocol like any other engine."""
    return [sys.executable, "-m", "escoba", "engine"]


def run(args: argparse.Namespace) -> int:
    import tempfile
    from contextlib import ExitStack

    from escoba.conformance import expectations as expectations_module
    from escoba.conformance.selection import SelectionError, select, split_rulesets
    from escoba.errors import TranscriptError

    check_timeout(args.timeout)
    for option, path in (("--write-expectations", args.write_expectations), ("--junit", args.junit)):
        if path:
            check_output_file(path, option)  # before the run, not after
    if args.maxfail is not None and args.maxfail < 1:
        raise UsageError(f"--maxfail must be 1 or more, got {args.maxfail}")
    jobs = worker_count(args.jobs)
    engines = []
    for command in args.engine or [None]:
        if command is None:
            engines.append((reference_command(), "escoba engine", None))
            continue
        try:
            argv = shlex.split(command)
        except ValueError as problem:
            raise UsageError(f"--engine: {problem}") from None
        if not argv:
            raise UsageError("--engine: an empty command")
        engines.append((argv, command, command))
    if len(engines) > 1 and (args.write_expectations or args.expectations):
        raise UsageError("--expectations and --write-expectations pin one engine's failures: give one --engine")
    if args.rules is not None:
        from escoba.conformance.declared import OPTION, DeclaredRulesError, load_declared

        try:
            load_declared(args.rules, OPTION)  # a bad name is refused before any engine starts
        except DeclaredRulesError as problem:
            raise UsageError(str(problem)) from None
    if args.shrink is not None:
        from pathlib import Path

        if not Path(args.shrink).is_dir():
            raise UsageError(f"--shrink: {args.shrink} is not a folder (make it first)")
    try:
        split_rulesets(args.ruleset)  # an unknown name is refused before anything is loaded
    except SelectionError as problem:
        raise UsageError(str(problem)) from None
    pins = {}
    if args.expectations:
        try:
            pins = expectations_module.load(args.expectations)
        except expectations_module.ExpectationsError as problem:
            raise UsageError(str(problem)) from None
    with ExitStack() as stack:

        def folder(ruleset: str) -> str:  # generated cases go away with the run
            if sys.stderr.isatty():
                print(f"generating cases for {ruleset}…", file=sys.stderr)
            return stack.enter_context(tempfile.TemporaryDirectory(prefix="escoba-cases-"))

        # The engines start while the cases load (a runtime's start-up is a good part of a
        # short run); each must answer hello before any case runs.
        spawned = [] if args.list else _spawn(engines, args.timeout, jobs)
        try:
            try:
                # With declared rules, cases generated for them may be all a selection names.
                entries, files = select(args.cases_dir, args.case, args.ruleset, folder, lazy=not args.list,
                                        allow_empty=not args.list and args.targeted)  # fmt: skip
            except (SelectionError, TranscriptError) as problem:
                raise UsageError(str(problem)) from None
            if args.list:
                return _list(entries, args.format)  # loaded: not `lazy`
            _load_meanwhile(entries)
            started = _handshakes(engines, spawned)
        except BaseException:
            for sessions in spawned:
                for session in sessions:
                    if not isinstance(session, Exception):
                        session.close()
            raise
        return _run(args, engines, pins, entries, files, started, jobs, folder)


def _run(
    args: argparse.Namespace, engines: list, pins: dict, entries: list, files: list[str], started: list[list], jobs: int,
    folder: Any = None,
) -> int:
    from escoba.conformance.report import render_grid, render_markdown, render_text, summary_line, to_json

    reports = []
    try:
        for (argv, shown, flag), first in zip(engines, started, strict=True):
            reports.append(_run_engine(args, argv, shown, flag, first, pins, entries, files, jobs, folder))
    finally:
        for first in started:
            for session in first:
                session.close()
    if args.junit:
        from escoba.conformance.junit import to_junit

        write_atomic(args.junit, to_junit(reports), option="--junit")
    several = len(reports) > 1
    if args.format == "json":
        import json

        data = [to_json(r) for r in reports] if several else to_json(reports[0])
        print(json.dumps(data, indent=2, ensure_ascii=False))
    elif args.format == "markdown":
        print(render_grid(reports, markdown=True) if several else render_markdown(reports[0]), end="")
    elif several:
        for report in reports:
            print(f"{report.engine.command}: {summary_line(report)}")
        print()
        print(render_grid(reports), end="")
    else:
        print(render_text(reports[0], all_divergences=args.all_divergences, verbosity=args.verbosity), end="")
    report = reports[0]
    if args.write_expectations:
        named = f"{report.engine.name} {report.engine.version}".strip()
        shown = engines[0][1]
        _write_expectations(args.write_expectations, report, f"{named} ({shown})" if named else shown)
        if args.format == "text":
            print(f"wrote {args.write_expectations}")
    elif args.format != "text" and not all(r.ok for r in reports):
        for r in reports:
            if not r.ok:
                print(summary_line(r), file=sys.stderr)
    return 0 if all(r.ok for r in reports) else 1


def _load_meanwhile(entries: list) -> None:
    """The cases load in a thread of their own while the engines start and the first cases
    run (`preload`), then their rulesets' points for the report. Loading builds every object
    the run keeps and almost no garbage: the cyclic garbage collector is paused meanwhile, and
    what was loaded is then frozen out of its reach (it walked the whole corpus again and
    again: a sixth of a run, to free nothing)."""
    from escoba.conformance.profile import ruleset_points
    from escoba.conformance.runner import preload

    def loaded() -> None:
        try:
            for entry in entries:  # the report's rule points, extracted while the engine works
                if entry.case is not None:
                    ruleset_points(entry.case.document)
        except Exception:  # the report extracts them again, and says what is wrong
            pass
        finally:
            gc.freeze()
            gc.enable()
            sys.setswitchinterval(switch)

    gc.disable()
    # The thread that feeds the engine gets the interpreter back sooner from the loading one
    # (within 0.5 ms, not 5) each time a reply wakes it: the engine waits that long otherwise.
    switch = sys.getswitchinterval()
    sys.setswitchinterval(min(switch, 0.0005))
    preload(entries, loaded)


def _spawn(engines: list, timeout: float, jobs: int) -> list[list]:
    """Each engine's `jobs` sessions started and sent hello, without waiting for the reply:
    per engine, a list of sessions, or of the EngineFailure of one that could not be started
    (told after the cases load, as before)."""
    from escoba.protocol.client import SubprocessSession
    from escoba.protocol.messages import EngineFailure

    spawned: list[list] = []
    for argv, _, _ in engines:
        sessions: list = []
        for _ in range(jobs):
            try:
                sessions.append(SubprocessSession(argv, timeout=timeout, wait=False))
            except EngineFailure as failure:
                sessions.append(failure)
        spawned.append(sessions)
    return spawned


def _handshakes(engines: list, spawned: list) -> list[list]:
    """Each engine's hello (its session kept for its first case): one that cannot start, or
    exits before `hello`, is one line and exit 2, not a crash for every case."""
    from escoba.conformance.report import did_not_start
    from escoba.protocol.messages import EngineFailure

    for (_, shown, _), sessions in zip(engines, spawned, strict=True):
        try:
            if isinstance(sessions[0], EngineFailure):
                raise sessions[0]
            sessions[0].handshake()
        except EngineFailure as failure:
            raise UsageError(did_not_start(shown, failure)) from None
    # The others answer hello when their turn comes (connect, in _run_engine); one that failed
    # to start is started again then, as after a crash.
    return [[s for s in sessions if not isinstance(s, EngineFailure)][::-1] for sessions in spawned]


def _declared_rules(args: argparse.Namespace, hello: Any, shown: str) -> Any:
    """The rules the engine plays: --rules, else its hello's `rules`, else None (a configurable
    engine). Rules that do not load are a usage error, in one line."""
    from escoba.conformance.declared import HELLO, OPTION, DeclaredRulesError, load_declared

    try:
        if args.rules is not None:
            return load_declared(args.rules, OPTION, overrides=getattr(hello, "rules", None))
        if getattr(hello, "rules", None):
            return load_declared(hello.rules, HELLO)
    except DeclaredRulesError as problem:
        raise UsageError(f"{problem} ({shown})") from None
    return None


def _run_engine(
    args: argparse.Namespace, argv: list[str], shown: str, flag: str | None, first: list, pins: dict, entries: list,
    files: list[str], jobs: int, folder: Any = None,
):  # fmt: skip
    """One engine through every case; `first` holds its sessions already started (the first
    to be used last in the list)."""
    from escoba.conformance import expectations as expectations_module
    from escoba.conformance.runner import Runner
    from escoba.conformance.selection import nothing_selected, targeted
    from escoba.protocol.client import SubprocessSession

    hello = first[-1].hello if first else None
    rules = _declared_rules(args, hello, shown)
    if rules is not None and args.targeted and folder is not None:
        entries = [*entries, *targeted(rules, folder, args.case)]
    if not entries:
        raise UsageError(nothing_selected(args.case, args.ruleset))

    def connect() -> SubprocessSession:
        try:
            session = first.pop()  # one at a time, even from several threads (the GIL)
        except IndexError:
            return SubprocessSession(argv, timeout=args.timeout)
        try:
            session.handshake()
        except BaseException:
            session.close()
            raise
        return session

    engine_flag = f" --engine {shlex.quote(flag)}" if flag is not None else ""
    cases_flag = f" --cases-dir {shlex.quote(args.cases_dir)}" if args.cases_dir else ""
    if files:  # generated cases come back from the same files, not from a folder that is gone
        cases_flag = "".join(f" --ruleset {shlex.quote(f)}" for f in files)
    if args.rules is not None:
        cases_flag += f" --rules {shlex.quote(args.rules)}"

    def replay(case_id: str) -> str:
        return f"escoba conformance{engine_flag}{cases_flag} --case {shlex.quote(case_id)}"

    progress = _Progress(sys.stderr) if sys.stderr.isatty() else None
    runner = Runner(
        connect, command=shown, expectations=pins, replay=replay,
        on_start=progress.show if progress else None, strict=args.strict, rules=rules,
    )  # fmt: skip
    try:
        report = runner.run(entries, maxfail=args.maxfail, jobs=jobs)
    finally:
        if progress:
            progress.clear()
    if pins:
        from pathlib import Path

        from escoba.transcript.case import cases_dir, iter_case_files

        every = [p.stem for p in iter_case_files(cases_dir() if args.cases_dir is None else Path(args.cases_dir))]
        stale = expectations_module.unknown_ids(pins, every)
        if stale:
            report.warnings.append(f"{args.expectations}: pinned cases that do not exist: {', '.join(stale)}")
    if args.shrink is not None and report.bugs():
        from pathlib import Path

        from escoba.explore.bugcases import shrink_bugs

        folder = Path(args.shrink)
        rules_flag = f" --rules {shlex.quote(args.rules)}" if args.rules is not None else ""

        def shrunk_replay(case_id: str) -> str:
            return f"escoba conformance{engine_flag}{rules_flag} --cases-dir {shlex.quote(str(folder))} --case {shlex.quote(case_id)}"

        if sys.stderr.isatty():
            print(f"shrinking the first case of {len(report.bugs())} bug(s) into {folder}…", file=sys.stderr)
        shrink_bugs(report.bugs(), lambda: SubprocessSession(argv, timeout=args.timeout), folder, rules, shrunk_replay)
    return report


def _list(entries, format: str = "text") -> int:
    from escoba.conformance.driver import prepare
    from escoba.errors import TranscriptError

    listed = []
    for entry in entries:
        if entry.case is None:
            listed.append({"id": entry.id, "ruleset": entry.ruleset, "broken": str(entry.problem).splitlines()[0]})
            continue
        case = entry.case
        item = {"id": case.id, "title": case.title, "kind": case.kind, "ruleset": case.ruleset, "players": case.players,
                "target": case.target, "clause": case.clause, "audit": case.audit}  # fmt: skip
        try:
            item["requires"] = sorted(prepare(case).required)
        except TranscriptError as problem:
            item["broken"] = str(problem).splitlines()[0]
        listed.append(item)
    if format == "json":
        import json

        print(json.dumps({"cases": listed}, indent=2, ensure_ascii=False))
        return 0
    for item in listed:
        if "broken" in item:
            print(f"{item['id']}  BROKEN: {item['broken']}")
        else:
            print(f"{item['id']}  [{item['kind']}, {item['ruleset']}, {item['clause']}]  needs: {', '.join(item['requires'])}")
    print(f"{len(entries)} cases")
    return 0


def _write_expectations(path: str, report, engine: str) -> None:
    from escoba.conformance.expectations import Expectation, dump

    pins = {
        r.id: Expectation(r.observed, r.cls, r.index if r.cls else None, r.message.splitlines()[0][:120] if r.message else "")
        for r in report.results
        if r.observed != "pass"
    }
    # Whole or not at all: an interrupted or failed write leaves the old baseline as it was.
    write_atomic(path, dump(pins, engine, as_json=path.endswith(".json")), option="--write-expectations")


class _Progress:
    """One self-erasing line on a terminal: how far the run is and which case is running."""

    def __init__(self, stream):
        self.stream, self.width = stream, 0

    def show(self, n: int, total: int, case_id: str) -> None:
        text = f"[{n}/{total}] {case_id}"[:78]
        self.stream.write("\r" + text.ljust(self.width))
        self.stream.flush()
        self.width = len(text)

    def clear(self) -> None:
        self.stream.write("\r" + " " * self.width + "\r")
        self.stream.flush()
