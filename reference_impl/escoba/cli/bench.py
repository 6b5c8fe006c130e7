"""`escoba bench`: hands per CPU-second of `simulate`, beside a plain hand-written loop."""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from escoba.cli.main import UsageError, add_format_argument

HELP = "hands per CPU-second of simulate, whole process and in process, beside a plain hand-written loop"
DESCRIPTION = """\
Measures random play as `escoba simulate` runs it, in hands per CPU-second (user +
system time, so that other work on the machine does not count against it), beside a
yardstick: a plain hand-written Python loop of one ruleset.

The yardstick is ../shared/bench/limit_sim.py (a plain loop of the sv rules, 2 players)
when it is found beside the checkout (in the folder above it, or above that), or the file
given with --yardstick or the ESCOBA_YARDSTICK environment variable; otherwise the loop
in escoba/baseline.py (base rules, 2 players). Its ruleset is the headline:

  the yardstick, whole process     python YARDSTICK N
  escoba simulate, whole process   python -m escoba simulate RULESET --hands N
  simulate(), in process           the library call, its memos cleared first
  playouts from a dealt hand       escoba.engine.fused.playout, N dealt hands

then simulate() in process for every ruleset and player count asked for, each with
its ratio to the headline row and to the yardstick, and whether it runs the fused path
or falls back to Hand (and why). All rows run once per round, --repeat rounds
interleaved, and each is reported as min / median / max over the rounds; ratios are
of medians. Figures depend on the machine: compare rows of one run, not runs.
In a checkout, benchmarks/speed.py checks every speed goal of the project."""
EPILOG = """\
examples:
  escoba bench sv                                 sv at 2, 3 and 4 players, beside the yardstick
  escoba bench                                    every bundled ruleset (takes a few minutes)
  escoba bench sv da --hands 20000 --repeat 5 --players 2
  escoba bench sv --yardstick ~/limit_sim.py      another plain loop (run as: python FILE N)
  escoba bench sv --format json                   for a CI job that keeps the figures"""

DEFAULT_HANDS = 5000
DEFAULT_REPEAT = 3
YARDSTICK_FILE = Path("shared") / "bench" / "limit_sim.py"
YARDSTICK_RULES = "sv"  # what limit_sim.py plays (its README): sv scoring, 2 players, random play
BASELINE_RULES = "base"  # what escoba/baseline.py plays


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("rulesets", nargs="*", metavar="FILE-OR-ID", help="rulesets to time (default: every bundled one)")
    parser.add_argument("--hands", type=int, default=DEFAULT_HANDS, metavar="N", help=f"hands per run (default {DEFAULT_HANDS})")
    parser.add_argument(
        "--players", type=int, action="append", metavar="N", help="only this player count (repeatable; default 2, 3 and 4)"
    )
    parser.add_argument("--repeat", type=int, default=DEFAULT_REPEAT, metavar="R", help=f"interleaved rounds (default {DEFAULT_REPEAT})")
    parser.add_argument("--yardstick", metavar="FILE", help="the plain loop to compare with (default: see above)")
    parser.add_argument("--seed", type=int, default=1, metavar="S", help="seed of the simulations (default 1)")
    add_format_argument(parser)


def run(args: argparse.Namespace) -> int:
    import escoba
    from escoba.rules import bundled_ids

    if args.hands < 1:
        raise UsageError(f"--hands must be at least 1, got {args.hands}")
    if args.repeat < 1:
        raise UsageError(f"--repeat must be at least 1, got {args.repeat}")
    for n in args.players or ():
        if n < 2:
            raise UsageError(f"--players must be 2 or more, got {n}")
    yardstick = find_yardstick(args.yardstick)
    names = list(args.rulesets) or bundled_ids()
    loaded = [escoba.load_ruleset(name) for name in names]  # every bad name fails before any timing
    counts = args.players or [2, 3, 4]
    rows = [(rules, n) for rules in loaded for n in counts if n in rules.player_counts]
    if not rows:
        raise UsageError(f"none of these rulesets is played by {' or '.join(map(str, counts))} players")
    report = measure(yardstick, rows, args.hands, args.repeat, args.seed, live=sys.stderr.isatty())
    if args.format == "json":
        print(json.dumps(report, indent=2))
    else:
        sys.stdout.write(format_report(report))
    return 0


# --------------------------------------------------------------------------- the yardstick
def find_yardstick(explicit: str | None = None) -> dict[str, Any]:
    """The plain loop to compare with: --yardstick, $ESCOBA_YARDSTICK, shared/bench/limit_sim.py
    in the folder above the working folder or the checkout (or the one above that), else
    escoba/baseline.py."""
    given = explicit or os.environ.get("ESCOBA_YARDSTICK")
    if given:
        path = Path(given).expanduser()
        if not path.is_file():
            where = "--yardstick" if explicit else "ESCOBA_YARDSTICK"
            raise UsageError(f"{where}: no such file: {given}")
        return {"path": str(path), "argv": [sys.executable, str(path)], "rules": YARDSTICK_RULES, "players": 2}
    import escoba

    # Above the folder escoba runs in (an installed escoba, as CI's, is not in a checkout) and
    # above the checkout when escoba is run from one (reference_impl/escoba/__init__.py).
    here = Path.cwd().resolve()
    checkout = Path(escoba.__file__).resolve().parents[2]
    for folder in dict.fromkeys((here.parent, here.parent.parent, checkout.parent, checkout.parent.parent)):
        candidate = folder / YARDSTICK_FILE
        if candidate.is_file():
            return {"path": str(candidate), "argv": [sys.executable, str(candidate)], "rules": YARDSTICK_RULES, "players": 2}
    return {"path": "escoba/baseline.py", "argv": [sys.executable, "-m", "escoba.baseline"], "rules": BASELINE_RULES, "players": 2}


# --------------------------------------------------------------------------- measuring
# The kernel counts a child's CPU time in clock ticks (os.times: 10 ms where there are 100 a
# second), so a run shorter than a tick can read 0. A run is taken to last at least one tick:
# a rate then errs low, and is never a division by zero.
try:
    TICK = 1 / os.sysconf("SC_CLK_TCK")
except (AttributeError, ValueError, OSError):  # no sysconf (Windows): the usual 100 a second
    TICK = 0.01


def process_cpu(argv: Sequence[str]) -> float:
    """CPU seconds (user + system) of a child process run to its end, start-up included; at
    least one clock tick (`TICK`)."""
    before = os.times()
    result = subprocess.run(list(argv), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    after = os.times()
    if result.returncode != 0:
        from escoba.errors import EscobaError

        last = (result.stderr.strip().splitlines() or ["no message"])[-1]
        raise EscobaError(f"escoba bench: {' '.join(argv)} failed ({result.returncode}): {last}")
    used = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return max(used, TICK)


def call_cpu(fn: Callable[[], object]) -> float:
    """CPU seconds of this process spent in `fn()` (a clock of fine grain: at least 1 µs)."""
    start = time.process_time()
    fn()
    return max(time.process_time() - start, 1e-6)


def spread(values: Sequence[float]) -> dict[str, float]:
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def simulate_in_process(rules: Any, players: int, hands: int, seed: int) -> float:
    """Hands per CPU-second of `simulate()`, every memo of the fused path cleared first."""
    from escoba.engine.fused import clear_memos
    from escoba.simulate import simulate

    clear_memos()
    return hands / call_cpu(lambda: simulate(rules, hands, players, seed))


def playouts_per_second(rules: Any, players: int, hands: int, seed: int) -> float:
    """Playouts per CPU-second from freshly dealt hands (the dealing is not timed)."""
    import random

    from escoba.engine.fused import clear_memos, playout
    from escoba.engine.hand import Hand, shuffled_decks
    from escoba.simulate import hand_seed

    dealt = []
    for i in range(hands):
        rng = random.Random(hand_seed(seed, i))
        dealt.append((Hand(rules, players, i % players, shuffled_decks(rules, rng), record=False), rng))
    clear_memos()

    def play() -> None:
        for hand, rng in dealt:
            playout(hand, rng)

    return hands / call_cpu(play)


def measure(yardstick: dict[str, Any], rows: list[tuple[Any, int]], hands: int, repeat: int, seed: int, live: bool = False) -> dict[str, Any]:
    """Every figure of the report, `repeat` rounds interleaved."""
    import escoba

    head_rules = escoba.load_ruleset(yardstick["rules"])
    players = yardstick["players"]
    simulate_argv = [sys.executable, "-m", "escoba", "simulate", head_rules.id, "--hands", str(hands),
                     "--players", str(players), "--seed", str(seed), "--format", "json"]  # fmt: skip
    headline: list[tuple[str, Callable[[], float]]] = [
        ("the yardstick, whole process", lambda: hands / process_cpu([*yardstick["argv"], str(hands)])),
        (f"escoba simulate {head_rules.id}, whole process", lambda: hands / process_cpu(simulate_argv)),
        ("simulate(), in process", lambda: simulate_in_process(head_rules, players, hands, seed)),
        ("playouts from a dealt hand", lambda: playouts_per_second(head_rules, players, hands, seed)),
    ]
    head_runs: list[list[float]] = [[] for _ in headline]
    row_runs: list[list[float]] = [[] for _ in rows]
    steps = repeat * (len(headline) + len(rows))
    done = 0
    for _ in range(repeat):
        for k, (what, fn) in enumerate(headline):
            done += 1
            _progress(live, f"{done}/{steps} {what}")
            head_runs[k].append(fn())
        for k, (rules, n) in enumerate(rows):
            done += 1
            _progress(live, f"{done}/{steps} {rules.id}, {n} players")
            row_runs[k].append(simulate_in_process(rules, n, hands, seed))
    _progress(live, None)
    yard = statistics.median(head_runs[0])
    head_sim = statistics.median(head_runs[2])
    return {
        "hands": hands,
        "repeat": repeat,
        "seed": seed,
        "unit": "hands per CPU-second",
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "machine": f"{platform.system()} {platform.machine()}",
        "yardstick": {"path": yardstick["path"], "rules": head_rules.id, "players": players},
        "headline": [
            {"what": what, "runs": runs, **spread(runs), "vs_yardstick": statistics.median(runs) / yard}
            for (what, _), runs in zip(headline, head_runs)
        ],
        "rulesets": [
            {
                "ruleset": rules.id,
                "players": n,
                "path": "Hand" if _fallback(rules) else "fused",
                "fallback_reason": _fallback(rules),
                "runs": runs,
                **spread(runs),
                "vs_headline": statistics.median(runs) / head_sim,
                "vs_yardstick": statistics.median(runs) / yard,
            }
            for (rules, n), runs in zip(rows, row_runs)
        ],
    }


def _fallback(rules: Any) -> str | None:
    from escoba.engine.fused import fallback_reason

    return fallback_reason(rules)


def _progress(live: bool, text: str | None) -> None:
    if live:
        sys.stderr.write("\r\033[K" + (text or ""))
        sys.stderr.flush()


# --------------------------------------------------------------------------- text
def format_report(report: dict[str, Any]) -> str:
    y = report["yardstick"]
    out = [
        f"escoba bench: {report['unit']} of random play, {report['hands']:,} hands per run, "
        f"{report['repeat']} interleaved rounds (min / median / max), "
        f"{report['implementation']} {report['python']}, {report['machine']}",
        f"yardstick: {y['path']}, a plain hand-written loop of the {y['rules']} rules ({y['players']} players)",
        "",
        f"{y['rules']}, {y['players']} players".ljust(34) + f"{'min':>9} {'median':>9} {'max':>9} {'vs yardstick':>13}",
    ]
    for row in report["headline"]:
        out.append(f"{row['what']:<34}{row['min']:>9,.0f} {row['median']:>9,.0f} {row['max']:>9,.0f} {row['vs_yardstick']:>12.2f}×")
    head = f"vs {y['rules']} {y['players']}p"
    out += ["", "simulate(), in process", f"{'ruleset':<22} {'players':>7} {'min':>9} {'median':>9} {'max':>9} {head:>9} {'vs yardstick':>13}  path"]
    for row in report["rulesets"]:
        out.append(
            f"{row['ruleset']:<22} {row['players']:>7} {row['min']:>9,.0f} {row['median']:>9,.0f} {row['max']:>9,.0f} "
            f"{row['vs_headline']:>8.2f}× {row['vs_yardstick']:>12.2f}×  {row['path']}"
        )
    fallbacks = {row["ruleset"]: row["fallback_reason"] for row in report["rulesets"] if row["fallback_reason"]}
    out.append("")
    if fallbacks:
        out.append("played by Hand, not the fused path:")
        out += [f"  {rid}: {why}" for rid, why in fallbacks.items()]
    else:
        out.append("every ruleset above runs the fused path")
    return "\n".join(out) + "\n"
