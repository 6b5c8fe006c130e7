"""The bot ladder: pairs of bots played in duplicate format on several rulesets.

    python benchmarks/bots.py --format markdown               # the tables of docs/bots.md
    python benchmarks/bots.py --pairs expert/greedy --games da sv --deals 2000 --jobs 2

Duplicate format: deal d (its deck orders shuffled from `derive_seed(seed, "deal", d)`, seat
d mod N dealing) is played once per side, with bot A on that side's seats and bot B on every
other seat. A's lead in a game is its side's points minus the mean of the other sides'; its
lead on the deal is the mean over those games. Each bot is dealt the same cards in turn, so the
luck of the deal cancels within the deal, and the table gives A's mean lead in points per hand
over the deals with a paired 95% interval (the deals' leads are independent: mean ± 1.96 ×
their standard deviation / √deals). CPU per decision is `time.thread_time` around a bot's call
on turns with more than one legal move, over every game of the run in which it played.

A game is `RULESET` or `RULESET:PLAYERS` (`de:4`: four players, in partnerships as de plays
them). A pair is `A/B`, A measured against B. A benchmark, never a test: the figures in
docs/bots.md come from a run of it, with the command (tests/test_bots_doc.py keeps the doc's
tables in step with what this prints, not with its figures).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import time
from collections.abc import Sequence
from concurrent.futures import as_completed
from dataclasses import dataclass, field
from functools import cache

import escoba
from escoba.engine.bots import BotMaker, bot_maker
from escoba.engine.hand import Hand, shuffled_decks
from escoba.engine.scoring import leads
from escoba.engine.worth import worth_of
from escoba.processes import worker_pool
from escoba.simulate import Z95, derive_seed

PAIRS = ("greedy/random", "expert/greedy", "search:50/greedy")
GAMES = ("da", "sv", "fr", "scopa", "de:4")
CHUNK = 20  # deals per unit of work
MIN_DEALS = 30  # fewer deals give no interval worth printing


@dataclass
class Tally:
    """One pair on one game: each deal's lead of A, and each bot's CPU seconds and decisions."""

    leads: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=lambda: [0.0, 0.0])
    decisions: list[int] = field(default_factory=lambda: [0, 0])

    def merge(self, other: Tally) -> None:
        self.leads += other.leads
        for k in (0, 1):
            self.cpu[k] += other.cpu[k]
            self.decisions[k] += other.decisions[k]

    def interval(self) -> tuple[float, float]:
        """A's mean lead per hand and the half width of its 95% interval."""
        n = len(self.leads)
        mean = statistics.fmean(self.leads)
        return mean, Z95 * statistics.stdev(self.leads) / math.sqrt(n) if n > 1 else math.nan


def parse_game(text: str) -> tuple[str, int]:
    """`da` -> ("da", 2); `de:4` -> ("de", 4)."""
    ruleset, _, players = text.partition(":")
    return ruleset, int(players) if players else 2


def game_label(text: str) -> str:
    ruleset, players = parse_game(text)
    return ruleset if players == 2 else f"{ruleset}, {players} players"


def parse_pair(text: str) -> tuple[str, str]:
    a, slash, b = text.partition("/")
    if not slash or not a or not b:
        raise SystemExit(f"a pair is A/B (e.g. expert/greedy), not {text!r}")
    return a, b


@cache
def load(ruleset: str) -> escoba.Rules:
    """Loaded once per process: the bots' card worths are measured once per ruleset object."""
    return escoba.load_ruleset(ruleset)


@cache
def warm(ruleset: str, players: int) -> escoba.Rules:
    """The ruleset, its card worths measured (`escoba.engine.worth`, a second or so once per
    process) before any clock runs: CPU per decision is then what a decision costs."""
    rules = load(ruleset)
    worth_of(rules, len(rules.sides(players)))
    return rules


def play_game(rules: escoba.Rules, players: int, d: int, seed: int, side: int, makers: tuple[BotMaker, BotMaker], tally: Tally) -> float:
    """Deal `d` with bot A on `side`'s seats: A's lead; each bot's CPU added to `tally`."""
    deal_seed = derive_seed(seed, "deal", d)
    hand = Hand(rules, players, d % players, shuffled_decks(rules, random.Random(deal_seed)), record=False)
    side_of = hand.side_of
    which = [0 if side_of[s] == side else 1 for s in range(players)]
    seats = [makers[which[s]](derive_seed(deal_seed, "seat", s, "side", side)) for s in range(players)]
    clock = time.thread_time
    while hand.to_play is not None:
        seat = hand.to_play
        k = which[seat]
        if len(hand.legal_moves()) > 1:
            start = clock()
            move = seats[seat](hand)
            tally.cpu[k] += clock() - start
            tally.decisions[k] += 1
        else:
            move = seats[seat](hand)
        hand.apply(move)
    assert hand.points is not None
    return leads(hand.points)[side]


def play_deals(task: tuple[str, int, str, str, int, int, int]) -> Tally:
    """Deals start … stop-1 of one pair on one game."""
    ruleset, players, a, b, seed, start, stop = task
    rules = warm(ruleset, players)
    makers = (bot_maker(a), bot_maker(b))
    sides = len(rules.sides(players))
    tally = Tally()
    for d in range(start, stop):
        tally.leads.append(statistics.fmean(play_game(rules, players, d, seed, side, makers, tally) for side in range(sides)))
    return tally


def run(pairs: Sequence[str], games: Sequence[str], deals: int, seed: int, jobs: int) -> dict[tuple[str, str], Tally]:
    """Every pair on every game, in chunks of deals over `jobs` processes."""
    tasks = [(pair, game, lo) for pair in pairs for game in games for lo in range(0, deals, CHUNK)]
    found = {(pair, game): Tally() for pair in pairs for game in games}
    parts: dict[tuple[str, str, int], Tally] = {}

    def task_of(pair: str, game: str, lo: int) -> tuple[str, int, str, str, int, int, int]:
        (ruleset, players), (a, b) = parse_game(game), parse_pair(pair)
        return ruleset, players, a, b, seed, lo, min(lo + CHUNK, deals)

    if jobs > 1:
        with worker_pool(jobs, len(tasks)) as pool:
            futures = {pool.submit(play_deals, task_of(*t)): t for t in tasks}
            for future in as_completed(futures):
                parts[futures[future]] = future.result()
    else:
        for t in tasks:
            parts[t] = play_deals(task_of(*t))
    for pair, game, lo in tasks:  # merged in deal order: any --jobs gives the same figures
        found[pair, game].merge(parts[pair, game, lo])
    return found


def bots_of(pairs: Sequence[str]) -> list[str]:
    """Every bot of the pairs, in the order they first appear (B before A: the weaker first)."""
    names: list[str] = []
    for pair in pairs:
        a, b = parse_pair(pair)
        for name in (b, a):
            if name not in names:
                names.append(name)
    return names


def cpu_per_decision(results: dict[tuple[str, str], Tally], bot: str, game: str) -> float:
    """Milliseconds of CPU per decision of `bot` over every pair it played in on `game`."""
    seconds, decisions = 0.0, 0
    for (pair, g), tally in results.items():
        if g != game:
            continue
        for k, name in enumerate(parse_pair(pair)):
            if name == bot:
                seconds += tally.cpu[k]
                decisions += tally.decisions[k]
    return 1000 * seconds / decisions if decisions else math.nan


def tables(results: dict[tuple[str, str], Tally], pairs: Sequence[str], games: Sequence[str]) -> list[list[list[str]]]:
    """The two tables, as rows of cells: the leads, then the CPU per decision."""
    header = [game_label(g) for g in games]
    leads = [["lead per hand (A against B)", *header]]
    for pair in pairs:
        a, b = parse_pair(pair)
        row = [f"{a} against {b}"]
        for game in games:
            mean, half = results[pair, game].interval()
            row.append(f"{mean:+.2f} ± {half:.2f}")
        leads.append(row)
    cpu = [["ms of CPU per decision", *header]]
    for bot in bots_of(pairs):
        cpu.append([bot, *(f"{cpu_per_decision(results, bot, g):.3f}" for g in games)])
    return [leads, cpu]


def markdown(rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(rows[0]) + " |", "|---" + "|---:" * (len(rows[0]) - 1) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows[1:]]
    return "\n".join(lines)


def plain(rows: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths)))
                     for row in rows)  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", nargs="+", default=list(PAIRS), metavar="A/B", help="default: " + " ".join(PAIRS))
    parser.add_argument("--games", nargs="+", default=list(GAMES), metavar="RULESET[:PLAYERS]", help="default: " + " ".join(GAMES))
    parser.add_argument("--deals", type=int, default=1000, help="deals per pair and game, each played once per side (default 1000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.deals < MIN_DEALS:
        parser.error(f"--deals must be at least {MIN_DEALS}")
    for pair in args.pairs:  # refuse a bad spec before any work
        for name in parse_pair(pair):
            bot_maker(name)
    for game in args.games:
        ruleset, players = parse_game(game)
        if players not in load(ruleset).player_counts:
            parser.error(f"{ruleset} is not played by {players} players")
    load_before, started = os.getloadavg()[0], time.perf_counter()
    results = run(args.pairs, args.games, args.deals, args.seed, args.jobs)
    wall = time.perf_counter() - started
    if args.format == "json":
        print(json.dumps({
            "deals": args.deals, "seed": args.seed, "wall_seconds": round(wall, 1),
            "load": [round(load_before, 1), round(os.getloadavg()[0], 1)],
            "leads": [{"pair": pair, "game": game, "lead": results[pair, game].interval()[0],
                       "half_width": results[pair, game].interval()[1], "deals": len(results[pair, game].leads)}
                      for pair in args.pairs for game in args.games],
            "cpu_ms_per_decision": {bot: {game: cpu_per_decision(results, bot, game) for game in args.games}
                                    for bot in bots_of(args.pairs)},
        }))  # fmt: skip
        return 0
    show = markdown if args.format == "markdown" else plain
    leads, cpu = tables(results, args.pairs, args.games)
    print(show(leads))
    print()
    print(show(cpu))
    print()
    print(f"{args.deals:,} deals per pair and game, each played once per side; seed {args.seed}; "
          f"{wall:.0f} s wall with --jobs {args.jobs}; load average {load_before:.1f} at the start, "
          f"{os.getloadavg()[0]:.1f} at the end")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
