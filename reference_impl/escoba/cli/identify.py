"""`escoba identify`: which rules does this engine play?"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from escoba.cli.main import UsageError, add_format_argument, check_timeout

HELP = "infer which rules an engine plays: the closest bundled ruleset, each rule point it departs on, a house rule"
DESCRIPTION = """\
Send an engine one ruleset (--ruleset, default base), play on it, against the
reference engine, seeded games and then a targeted position for each rule point
(deals that tell the point's candidate values apart, from the deals 'escoba cases
generate' tries for it; --no-targeted: none), and change a hypothesis of what it
plays until it explains every reply: at each divergence, one rule point set to
another value (the values bundled rulesets give it, the values the schema allows,
other readings of an award), else another bundled ruleset. Then print:

- the bundled ruleset closest to what the engine plays, over the rule points some
  game decided, and each point where the engine departs from it, with the minimal
  case that shows it;
- divergences no value of any rule point explains ("differs: no value of this rule
  point matches"), with their case: never a guess;
- the points no game decided (not exercised, or the engine refused or failed);
- a house rule that extends the closest ruleset with each departing point set, each
  marked 'status: inferred' ('escoba check' accepts it), never inheriting a scoring
  category the engine does not score;
- the check of that house rule: every bundled case run on the engine as a scenario of
  it, as 'escoba conformance --rules FILE' runs them (--no-check: none), and the kinds
  of failure that remain: the engine's bugs, or points the games could not decide.

With --out DIR the house rule (ID.yaml) and the minimal case of each departure and
of each divergence no value explains are written there; 'escoba conformance --cases-dir DIR' replays the cases.

Exit status: 0 when the engine plays a bundled ruleset as far as the games told and
passes every scenario of it; 1 when it departs from every one, a scenario still fails,
or no game could run (one sentence says why); 2 for a usage error or an engine that
cannot start."""
EPILOG = """\
examples:
  escoba identify --engine './my-engine --jsonl'
  escoba identify --engine 'python tests/engines/mutant_engine.py capture-optional' --out inferred
  escoba identify --engine ./my-engine --ruleset da --games 80 --seed 3
  escoba identify --engine ./my-engine --format json"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--engine", metavar="CMD", help="the engine command (default: the reference engine)")
    parser.add_argument("--ruleset", default="base", metavar="ID-OR-FILE", help="the ruleset the engine is sent (default: base)")
    parser.add_argument("--games", type=int, default=40, metavar="N", help="games to play (default 40)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="the seed of the whole run (default 0)")
    parser.add_argument("--players", metavar="N,N", help="table sizes to play at (default: all the ruleset and the engine allow)")
    parser.add_argument("--out", metavar="DIR", help="write the house rule and each departure's minimal case into DIR")
    parser.add_argument("--no-shrink", dest="shrink", action="store_false", help="no minimal case per departure")
    parser.add_argument("--no-targeted", dest="targeted", action="store_false", help="seeded games only: no targeted position per rule point")
    parser.add_argument("--no-check", dest="check", action="store_false",
                        help="print the house rule without running the bundled scenarios under it")  # fmt: skip
    parser.add_argument("--timeout", type=float, default=10.0, metavar="S", help="seconds to wait for each reply (default 10)")
    add_format_argument(parser)


def run(args: argparse.Namespace) -> int:
    from escoba.cli.explore import check_rulesets, engine_command, parse_players, start_engine

    if args.games < 1:
        raise UsageError(f"--games must be at least 1, got {args.games}")
    check_timeout(args.timeout)
    players = parse_players(args.players)
    [ruleset] = check_rulesets([args.ruleset])
    out = None
    if args.out:
        from escoba.outputs import OutputFolder

        out = OutputFolder(args.out, "--out")  # before the games: a folder that cannot be is found now
    argv, shown = engine_command(args.engine)
    from escoba.cli.conformance import _Progress
    from escoba.explore.inference import identify

    harness = start_engine(argv, shown, args.timeout, "identify")
    progress = _Progress(sys.stderr) if sys.stderr.isatty() else None

    def on_game(game: int, games: int) -> None:
        if progress is not None:
            progress.show(game, games, "games")

    try:
        found = identify(harness, ruleset=ruleset, games=args.games, seed=args.seed, players=players,
                         shrinking=args.shrink, targeted=args.targeted, on_game=on_game)  # fmt: skip
    finally:
        harness.close()
        if progress:
            progress.clear()
    written = write(found, out) if out is not None else {}
    checked = None
    try:
        if args.check and found.nothing_ran is None:
            checked = check(found, argv, shown, args, written, out)
    finally:
        if out is not None:
            out.close()
    if args.format == "json":
        import json

        data = found.to_json()
        data["written"] = {k: str(v) for k, v in written.items()}
        data["check"] = checked.to_json() if checked is not None else None
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        print(render(found, shown, written, checked), end="")
    return 0 if found.exact and (checked is None or not checked.bugs) else 1


def check(found, argv: list[str], shown: str, args: argparse.Namespace, written: dict, out):
    """The bundled scenarios run on the engine under the house rule about to be printed (and
    written again, into `written`, when a scenario decides a point the games did not)."""
    import shlex

    from escoba.explore.recheck import settle
    from escoba.protocol.client import SubprocessSession

    def save(found):
        if out is not None:
            written.update(write(found, out))
        return written.get("house_rule")

    def replay(case_id: str) -> str:
        if "house_rule" not in written:
            return ""
        engine = f" --engine {shlex.quote(args.engine)}" if args.engine else ""
        return f"escoba conformance{engine} --rules {shlex.quote(str(written['house_rule']))} --case {shlex.quote(case_id)}"

    if sys.stderr.isatty():
        print("checking: every bundled scenario under the house rule…", file=sys.stderr)
    return settle(lambda: SubprocessSession(argv, timeout=args.timeout), found, command=shown, save=save, replay=replay)


def write(found, out) -> dict:
    """The house rule and each departure's case, written whole into the `OutputFolder` `out`: what was written."""
    import yaml

    from escoba.explore.inference import cases_of
    from escoba.transcript.build import dump_case
    from escoba.transcript.case import case_from_data

    written: dict[str, Path] = {}
    rule_id = yaml.safe_load(found.house_rule)["id"]
    files = [(f"{rule_id}.yaml", found.house_rule, "house_rule")]
    for case in cases_of(found):
        name = f"{case['id']}.json"
        case_from_data(case, out.path / name)  # the whole load-time check before the file is written
        files.append((name, dump_case(case), case["id"]))
    for name, text, key in files:
        written[key] = out.write(name, text)
    return written


def render(found, shown: str, written: dict, checked=None) -> str:
    from escoba.conformance.compare import format_event
    from escoba.conformance.report import NAME_LIMIT
    from escoba.escape import terminal

    lines = [
        f"escoba identify: {terminal(found.engine, NAME_LIMIT)} — {shown}",
        f"sent: {found.sent}; {found.positions} targeted positions and {found.games} games, {found.cases} cases run, {found.refused} refused or failed; {found.seconds:.1f} s",
        "",
        f"closest bundled ruleset: {found.closest}",
    ]
    if found.departures:
        n = len(found.departures)
        lines.append(f"departs on {n} rule point{'s' if n > 1 else ''}:")
        for d in found.departures:
            lines.append(f"  {d.point} ({d.label}): {d.text}; {found.closest} has {d.closest_text}")
            if d.case is not None:
                where = written.get(d.case["id"])
                lines.append(f"    case: {where or d.case['id']} ({len(d.case['expect'])} events)")
            elif d.scenario is not None:
                lines.append(f"    no game decided it; the bundled scenario {d.scenario} did (the check below)")
    else:
        lines.append("departs on no rule point the games decided")
    for u in found.unmatched:
        lines.append(f"differs: no value of this rule point matches: {u.point or 'an unnamed point'}")
        d = u.result.divergence
        if d is not None:
            lines.append(f"  expected #{d.index}: {format_event(d.expected)}")
            lines.append(f"  observed #{d.index}: {format_event(d.observed)}")
        if u.minimal is not None:
            lines.append(f"  case: {written.get(u.minimal['id']) or u.minimal['id']} ({len(u.minimal['expect'])} events)")
        else:
            lines.append(f"  in a game of {len(u.case['expect'])} events: {u.case['notes'][0] if u.case.get('notes') else u.case['id']}")
        category = _category_of(u.point)
        if category is not None:
            # Only the engine's author can tell a bug from a rule no key can write.
            lines.append(f"  a bug, or a rule the DSL cannot say: if the engine means it, declare it not expressible in the house "
                         f"rule (unsupported: a point scoring.{category}, docs/conformance.md section 3)")  # fmt: skip
    if found.closest != found.sent:
        departs = ", ".join(found.from_sent) or "no decided rule point"
        lines.append(f"from the ruleset sent ({found.sent}) it departs on: {departs}")
    lines.append(f"decided: {len(found.decided)} rule points")
    if found.targeted:
        lines.append(f"  of which targeted positions told every candidate value apart: {', '.join(found.targeted)}")
    if found.undecided:
        lines.append(f"not decided (no game that ran to its end exercised them): {', '.join(found.undecided)}")
    lines.append("")
    where = written.get("house_rule")
    caveat = " (the nearest the rules can say: the divergences above remain)" if found.unmatched else ""
    lines.append(f"house rule{f' ({where})' if where else ''}{caveat}:")
    lines += [f"  {line}" for line in found.house_rule.splitlines()]
    if checked is not None:
        lines += ["", *render_check(checked, written.get("house_rule") is not None)]
    if found.nothing_ran is not None:
        lines += ["", f"FAILED: {found.nothing_ran}"]
    elif found.departures or found.unmatched:
        lines += ["", f"DIFFERS: the engine departs from {found.closest}"]
    elif not found.decided:
        lines += ["", "UNDECIDED: no game ran to its end on the engine"]
    elif checked is not None and checked.bugs:
        lines += ["", f"FAILED: the engine plays {found.closest}, but {checked.failed} scenarios of it still fail"]
    else:
        lines += ["", f"OK: the engine plays {found.closest}"]
    return "\n".join(map(terminal, lines)) + "\n"  # what the engine said, escaped (escoba.escape)


def _category_of(point: str | None) -> str | None:
    """The category a scoring point names (`scoring.primera.measure` → `primera`), else None."""
    parts = (point or "").split(".")
    return parts[1] if len(parts) >= 2 and parts[0] == "scoring" and parts[1] not in ("", "*") else None


def render_check(checked, written: bool) -> list[str]:
    """The bundled scenarios under the house rule: how many ran and passed, and each kind of
    failure left, as the conformance report's bug section says it."""
    from escoba.conformance.report import render_bugs

    if checked.nothing_ran is not None:
        return [f"checked under this house rule: {checked.nothing_ran}"]
    head = (f"checked under this house rule: the engine ran {checked.ran} of the {checked.total} bundled scenarios, "
            f"{checked.passed} passed")  # fmt: skip
    if not checked.bugs:
        return [head + ", none failed"]
    lines = [head + f"; {checked.failed} still fail (the engine's bugs, or points the games could not decide):"]
    lines += render_bugs(checked.report)[1:]
    if not written:
        lines.append("  (--out DIR writes the house rule, and each failure's replay command names it)")
    return lines
