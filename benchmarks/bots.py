"""How strong the bots are: seeded matches of bot A against bot B, with a 95% interval.

    python benchmarks/bots.py --ruleset da --a greedy --b random --matches 2000 --jobs 2
    python benchmarks/bots.py --ruleset de --players 4 --a search:16 --b greedy --matches 2000

Match j is dealt from `derive_seed(seed, "match", j, …)` (as `escoba simulate --matches`) with
seat j mod N dealing first. A sits on side 0's seats in even matches and on side 1's in odd
ones, so neither bot gains from a seat. A's score per match is 1 for a win, 0 for a loss and
1/2 for a shared win (`match.tie: shared_win`); the report gives A's mean score with its 95%
interval (normal approximation) and whether the interval excludes 50%, and A's mean lead in
points per hand over the same hands. Prints one JSON line (and a sentence on stderr).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from functools import cache

import escoba
from escoba.engine.bots import bot_maker
from escoba.engine.match import Match
from escoba.simulate import Z95, derive_seed

CHUNK = 10


@cache
def load(ruleset: str) -> escoba.Rules:
    """The ruleset, loaded once per process: the bots' card worths are then measured once too
    (`escoba.engine.worth` caches them per ruleset object), not once per chunk of matches."""
    return escoba.load_ruleset(ruleset)


def play(task: tuple[str, int, str, str, int, int, int]) -> tuple[float, float, int, float]:
    """(A's total score, A's total lead in points, hands, squares of the scores) of matches start … stop-1."""
    ruleset, players, a, b, seed, start, stop = task
    rules = load(ruleset)
    sides = rules.sides(players)
    make_a, make_b = bot_maker(a), bot_maker(b)
    score = lead = squares = 0.0
    hands = 0
    for j in range(start, stop):
        mine = j % 2
        seats = [(make_a if s in sides[mine] else make_b)(derive_seed(seed, "match", j, "seat", s)) for s in range(players)]
        match = Match(rules, players, dealer=j % players, seed=derive_seed(seed, "match", j, "deal"), record=False)
        while not match.is_over:
            hand = match.new_hand()
            while hand.to_play is not None:
                hand.apply(seats[hand.to_play](hand))
            assert hand.points is not None
            others = [p for s, p in enumerate(hand.points) if s != mine]
            lead += hand.points[mine] - sum(others) / len(others)
            hands += 1
            match.end_hand()
        winners = match.winners or []
        s = (1.0 if len(winners) == 1 else 0.5) if mine in winners else 0.0
        score += s
        squares += s * s
    return score, lead, hands, squares


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ruleset", default="da")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--a", default="greedy", help="bot A (random, greedy, search:PLAYOUTS)")
    parser.add_argument("--b", default="random", help="bot B")
    parser.add_argument("--matches", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    bot_maker(args.a), bot_maker(args.b)  # refuse a bad spec before any work
    tasks = [(args.ruleset, args.players, args.a, args.b, args.seed, lo, min(lo + CHUNK, args.matches))
             for lo in range(0, args.matches, CHUNK)]  # fmt: skip
    started = time.perf_counter()
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            parts = list(pool.map(play, tasks))
    else:
        parts = [play(t) for t in tasks]
    score = sum(p[0] for p in parts)
    lead = sum(p[1] for p in parts)
    hands = sum(p[2] for p in parts)
    squares = sum(p[3] for p in parts)
    n = args.matches
    mean = score / n
    half = Z95 * math.sqrt(max(0.0, (squares - score * score / n) / (n - 1)) / n) if n > 1 else float("nan")
    result = {
        "ruleset": args.ruleset, "players": args.players, "a": args.a, "b": args.b, "matches": n, "seed": args.seed,
        "a_score": mean, "ci95": [mean - half, mean + half], "excludes_half": not (mean - half <= 0.5 <= mean + half),
        "hands": hands, "a_lead_per_hand": lead / hands, "seconds": round(time.perf_counter() - started, 1),
    }  # fmt: skip
    print(json.dumps(result))
    print(f"{args.a} against {args.b} on {args.ruleset} ({args.players} players): {100 * mean:.1f}% ± {100 * half:.1f} "
          f"of {n} matches, {result['a_lead_per_hand']:+.2f} points a hand", file=sys.stderr)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
