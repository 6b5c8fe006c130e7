"""`escoba bench`: random-play hands per second per ruleset, beside the hand-written baseline."""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from collections.abc import Sequence
from typing import Any

from escoba.cli.main import UsageError, add_format_argument

HELP = "measure random-play hands per second per ruleset against the hand-written baseline loop"
DESCRIPTION = """\
Plays N hands of random play for each ruleset and player count (2, 3 and 4 where
the ruleset allows them) through the public engine API (Hand, legal_moves, apply,
record=False), and in the same run the hand-written loop of the base rules
(escoba.baseline: two players, no generality at all). 'vs baseline' is
interpreter hands/s ÷ baseline hands/s: the project's goal is 1.00× or more for
base with 2 players, the one row that plays the same game as the baseline.

Then capture enumeration on large random tables of the first ruleset's deck:
microseconds per finder.captures(card, table) call, cold (a table never seen) and
memoised (the same table asked again, as every card of a hand does; the finder keeps
the last table's subsets).

Figures depend on the machine and its load; compare rows of one run, not runs."""
EPILOG = """\
examples:
  escoba bench base                          base at 2, 3 and 4 players, baseline, captures
  escoba bench                               every bundled ruleset (takes a while)
  escoba bench base da de --hands 5000 --players 2
  escoba bench base --format json            for a CI job that keeps the figures
  python -m cProfile -s tottime -m escoba bench base --hands 3000   where the time goes"""

DEFAULT_HANDS = 1000
TABLE_SIZES = (8, 12, 16)
CAPTURE_TABLES = 2000  # distinct tables per size for the cold figure


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("rulesets", nargs="*", metavar="FILE-OR-ID", help="rulesets to time (default: every bundled one)")
    parser.add_argument("--hands", type=int, default=DEFAULT_HANDS, metavar="N", help=f"hands per row (default {DEFAULT_HANDS})")
    parser.add_argument(
        "--players", type=int, action="append", metavar="N", help="only this player count (repeatable; default 2, 3 and 4)"
    )
    parser.add_argument("--seed", type=int, default=1, metavar="S", help="seed of the deals and the bots (default 1)")
    add_format_argument(parser)


def run(args: argparse.Namespace) -> int:
    import escoba
    from escoba import baseline
    from escoba.rules import bundled_ids

    if args.hands < 1:
        raise UsageError(f"--hands must be at least 1, got {args.hands}")
    for n in args.players or ():
        if n < 2:
            raise UsageError(f"--players must be 2 or more, got {n}")
    names = list(args.rulesets) or bundled_ids()
    loaded = [escoba.load_ruleset(name) for name in names]  # every bad name fails before any timing
    counts = args.players or [2, 3, 4]

    report: dict[str, Any] = {
        "hands": args.hands,
        "seed": args.seed,
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "machine": f"{platform.system()} {platform.machine()}",
    }
    jobs = [(rules, n) for rules in loaded for n in counts if n in rules.player_counts]
    if not jobs:
        raise UsageError(f"none of these rulesets is played by {' or '.join(map(str, counts))} players")
    live = sys.stderr.isatty()
    # The baseline runs before and after the rows and counts as one: on a machine whose load
    # changes during the run, bracketing keeps the ratio from favouring either side.
    before = baseline.hands_per_second(args.hands, seed=args.seed)
    rows = []
    for k, (rules, players) in enumerate(jobs, 1):
        if live:
            sys.stderr.write(f"\r\033[K{k}/{len(jobs)} {rules.id}, {players} players")
            sys.stderr.flush()
        rate = interpreter_hands_per_second(rules, players, args.hands, seed=args.seed)
        rows.append({"ruleset": rules.id, "players": players, "hands_per_second": rate})
    after = baseline.hands_per_second(args.hands, seed=args.seed)
    if live:
        sys.stderr.write("\r\033[K")
    base_rate = 2 / (1 / before + 1 / after)  # 2N hands over the time of both runs
    for row in rows:
        row["vs_baseline"] = row["hands_per_second"] / base_rate
    report["baseline"] = {"rules": "base", "players": 2, "hands_per_second": base_rate, "before": before, "after": after}
    report["rulesets"] = rows
    report["capture"] = capture = capture_timings(loaded[0], seed=args.seed)
    if args.format == "json":
        print(json.dumps(report, indent=2))
        return 0
    out = sys.stdout
    out.write(
        f"escoba bench: {args.hands:,} hands per row, random play, "
        f"{report['implementation']} {report['python']}, {report['machine']}\n\n"
        f"hand-written baseline (base rules, 2 players): {base_rate:,.0f} hands/s "
        f"({before:,.0f} before the rows, {after:,.0f} after)\n\n"
    )
    out.write(f"{'ruleset':<22} {'players':>7} {'hands/s':>9} {'vs baseline':>12}\n")
    for row in rows:
        out.write(f"{row['ruleset']:<22} {row['players']:>7} {row['hands_per_second']:>9,.0f} {row['vs_baseline']:>11.2f}×\n")
    out.write(f"\ncapture enumeration ({capture['ruleset']} deck, finder.captures, µs per call):\n")
    out.write(f"{'table':>5} {'cold':>9} {'memoised':>9} {'captures/call':>14}\n")
    for t in capture["tables"]:
        out.write(f"{t['size']:>5} {t['cold_us']:>9.1f} {t['memo_us']:>9.2f} {t['captures_per_call']:>14.2f}\n")
    return 0


def interpreter_hands_per_second(rules: Any, players: int, hands: int, seed: int = 1) -> float:
    """Random play through the public API, timed like the baseline (one generator, no stats)."""
    from escoba.engine.bots import random_bot
    from escoba.engine.hand import Hand

    rng = random.Random(seed)
    bot = random_bot(seed)
    start = time.perf_counter()
    for i in range(hands):
        hand = Hand(rules, players, i % players, seed=rng.getrandbits(64), record=False)
        while hand.to_play is not None:
            hand.apply(bot(hand))
    return hands / (time.perf_counter() - start)


def capture_timings(rules: Any, seed: int = 1, sizes: Sequence[int] = TABLE_SIZES) -> dict[str, Any]:
    """µs per `finder.captures` call on random tables: first sight of a table, then asked again."""
    from escoba.engine.capture import CaptureFinder

    deck = rules.deck
    rng = random.Random(seed)
    tables = []
    for size in sizes:
        if size + 1 > len(deck):
            continue
        tables.append((size, [rng.sample(list(deck.cards), size + 1) for _ in range(CAPTURE_TABLES)]))
    results = []
    for size, samples in tables:
        # A fresh finder, so that the figures do not depend on what the rules' finder last saw.
        f = rules.finder
        finder = CaptureFinder(f.value, f.is_joker, f.target, f.low, f.high)
        found = 0
        start = time.perf_counter()
        for card, *table in samples:
            found += len(finder.captures(card, table))
        cold = (time.perf_counter() - start) / len(samples)
        # Memoised: the same table asked again, as each card of a hand asks about one table.
        repeat, memo_time, memo_calls = 20, 0.0, 0
        for card, *table in samples[:200]:
            finder.captures(card, table)
            start = time.perf_counter()
            for _ in range(repeat):
                finder.captures(card, table)
            memo_time += time.perf_counter() - start
            memo_calls += repeat
        memo = memo_time / memo_calls
        results.append({"size": size, "cold_us": cold * 1e6, "memo_us": memo * 1e6, "captures_per_call": found / len(samples)})
    return {"ruleset": rules.id, "calls_per_size": CAPTURE_TABLES, "tables": results}
