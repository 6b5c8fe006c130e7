"""`escoba explore`: seeded games on an engine in lockstep with the reference, until they disagree."""

from __future__ import annotations

import argparse
import shlex
import sys

from escoba.cli.conformance import _Progress
from escoba.cli.main import UsageError, add_format_argument, check_timeout

HELP = "play seeded games on an engine against the reference until they disagree, and shrink each divergence"
DESCRIPTION = """\
Play seeded games on an engine, in lockstep with the reference engine: the same deck
orders, and at each decision a move chosen among the moves legal in the reference,
biased toward what random play rarely reaches (opening tables that make the target,
captures that sweep, last plays, ties, hands where nobody captures, short matches).
Every reply is compared (the deal, the legal moves, each play's events, the scores,
the match's end), and half the games also probe a decision with a move the engine
must refuse. A game stops at its first divergence.

Each new kind of divergence (a rule point and class not seen before in the run, a
crash, a timeout, a refused request) is shrunk to the smallest case that still shows
it: fewer hands, the hand stopped at the divergence, the position dealt at once,
fewer players, a simpler deck order. With --out DIR each is written as a case file
that 'escoba conformance --cases-dir DIR' runs, its shrinking steps in its notes.

Exit status: 0 when no game diverged; 1 when one did; 2 for a usage error or an
engine that cannot start."""
EPILOG = """\
examples:
  escoba explore --engine './my-engine --jsonl'
  escoba explore --engine 'python tests/engines/mutant_engine.py capture-optional' --out found
  escoba explore --engine ./my-engine --ruleset sv --games 500 --seed 7 --players 3,4
  escoba conformance --engine ./my-engine --cases-dir found      (replay what explore found)
  escoba explore --engine ./my-engine --format json"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--engine", metavar="CMD", help="the engine command (default: the reference engine)")
    parser.add_argument(
        "--ruleset", nargs="+", action="extend", default=[], metavar="ID-OR-FILE",
        help="the rulesets to play, in turn (default: base)",
    )  # fmt: skip
    parser.add_argument("--games", type=int, default=200, metavar="N", help="games to play (default 200)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="the seed of the whole run (default 0)")
    parser.add_argument("--players", metavar="N,N", help="table sizes to draw from (default: all the ruleset and the engine allow)")
    parser.add_argument("--out", metavar="DIR", help="write each divergence's shrunk case into DIR")
    parser.add_argument("--first", action="store_true", help="stop at the first divergence")
    parser.add_argument("--no-shrink", dest="shrink", action="store_false", help="report divergences as found")
    parser.add_argument("--no-probes", dest="probes", action="store_false", help="never probe with an illegal move")
    parser.add_argument("--timeout", type=float, default=10.0, metavar="S", help="seconds to wait for each reply (default 10)")
    add_format_argument(parser)


def engine_command(engine: str | None) -> tuple[list[str], str]:
    """The engine's argv and how to show it; the reference engine when none is named."""
    from escoba.cli.conformance import reference_command

    if engine is None:
        return reference_command(), "escoba engine"
    try:
        argv = shlex.split(engine)
    except ValueError as problem:
        raise UsageError(f"--engine: {problem}") from None
    if not argv:
        raise UsageError("--engine: an empty command")
    return argv, engine


def parse_players(text: str | None) -> list[int] | None:
    if text is None:
        return None
    try:
        found = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise UsageError(f"--players: a list of numbers like 2,3,4, got {text!r}") from None
    if not found or any(n < 2 or n > 4 for n in found):
        raise UsageError(f"--players: table sizes from 2 to 4, got {text!r}")
    return found


def check_rulesets(names: list[str]) -> list[str]:
    """Bundled ids and ruleset files, each checked to load (a usage error names the first that does not)."""
    import escoba
    from escoba.errors import RulesetError

    for name in names:
        try:
            escoba.load_ruleset(name)
        except RulesetError as problem:
            raise UsageError(str(problem).splitlines()[0]) from None
    return names


def start_engine(argv: list[str], shown: str, timeout: float, command: str):
    """A harness whose engine has started (its hello answered); an engine that cannot start is
    a one-line usage error (exit 2), like a command that does not exist."""
    from escoba.conformance.report import did_not_start
    from escoba.explore.harness import Harness
    from escoba.protocol.client import SubprocessSession
    from escoba.protocol.messages import EngineFailure

    harness = Harness(lambda: SubprocessSession(argv, timeout=timeout), command=shown)
    try:
        harness.open()
    except EngineFailure as failure:
        harness.close()
        raise UsageError(did_not_start(shown, failure)) from None
    return harness


def run(args: argparse.Namespace) -> int:
    if args.games < 1:
        raise UsageError(f"--games must be at least 1, got {args.games}")
    check_timeout(args.timeout)
    players = parse_players(args.players)
    rulesets = check_rulesets(args.ruleset or ["base"])
    out = None
    if args.out:
        from escoba.outputs import OutputFolder
        from escoba.rules import registry

        files = [r for r in rulesets if r not in registry.bundled()]
        if files:
            raise UsageError(f"--out writes case files, which name a bundled ruleset; {files[0]} is a file")
        out = OutputFolder(args.out, "--out")  # before the games: a folder that cannot be is found now
    argv, shown = engine_command(args.engine)
    from escoba.explore.lockstep import explore, write_cases

    harness = start_engine(argv, shown, args.timeout, "explore")
    progress = _Progress(sys.stderr) if sys.stderr.isatty() else None

    def on_game(game: int, games: int, run) -> None:
        if progress is not None:
            found = len(run.findings)
            progress.show(game, games, f"{found} kind{'s' if found != 1 else ''} of divergence")

    try:
        run = explore(
            harness, rulesets=rulesets, games=args.games, seed=args.seed, players=players, probes=args.probes,
            shrinking=args.shrink, stop_after=1 if args.first else None, on_game=on_game,
        )  # fmt: skip
    finally:
        harness.close()
        if progress:
            progress.clear()
    written = write_cases(run.findings, out) if out is not None else []
    if out is not None:
        out.close()
    if args.format == "json":
        import json

        data = run.to_json()
        for item, path in zip(data["findings"], written):
            item["written"] = str(path)
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        print(render(run, shown, args, written), end="")
    return 0 if run.ok else 1


def render(run, shown: str, args: argparse.Namespace, written: list) -> str:
    from escoba.conformance.compare import format_event
    from escoba.conformance.report import NAME_LIMIT
    from escoba.escape import terminal

    lines = [f"escoba explore: {terminal(run.engine, NAME_LIMIT)} — {shown}", f"rulesets: {', '.join(run.rulesets)}; seed {run.seed}", ""]
    for n, finding in enumerate(run.findings):
        result = finding.case_result
        d = result.divergence
        inferred = f", as if {d.inferred}" if d is not None and d.inferred else ""
        more = f" (and in {finding.games - 1} more game{'s' if finding.games > 2 else ''})" if finding.games > 1 else ""
        lines.append(f"FOUND {finding.describe()}{inferred}: game {finding.game}{more}")
        lines.append(f"  game {finding.game}: {finding.setup.describe()}")
        if finding.shrunk is not None and finding.shrunk.steps:
            lines.append(f"  shrunk from {finding.shrunk.original} to {finding.shrunk.length} events ({finding.shrunk.tried} smaller cases tried)")
        if d is not None:
            lines.append(f"  expected #{d.index}: {format_event(d.expected)}")
            lines.append(f"  observed #{d.index}: {format_event(d.observed)}")
            lines += [f"    {f.path}: {f.note or f'expected {f.expected}, observed {f.observed}'}" for f in d.diff[:4]]
        else:
            lines.append(f"  {result.message}")
        if written:
            folder = shlex.quote(str(written[n].parent))
            lines.append(f"  case: {written[n]}")
            engine = f" --engine {shlex.quote(args.engine)}" if args.engine else ""
            lines.append(f"  replay: escoba conformance{engine} --cases-dir {folder} --case {finding.case['id']}")
        else:
            lines.append(f"  case: {finding.case['id']} (--out DIR writes it)")
        lines.append("")
    kinds = len(run.findings)
    counts = f"{run.games} games, {run.cases} cases run, {run.skipped} skipped; {run.seconds:.1f} s"
    if kinds:
        lines.append(f"FAILED: {kinds} kind{'s' if kinds > 1 else ''} of divergence ({counts})")
    elif run.why_nothing_ran is not None:
        lines.append(f"FAILED: {run.why_nothing_ran} ({counts})")
    else:
        lines.append(f"OK: no divergence ({counts})")
    return "\n".join(map(terminal, lines)) + "\n"  # what the engine said, escaped (escoba.escape)
