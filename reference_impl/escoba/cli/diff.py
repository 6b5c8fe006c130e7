"""`escoba diff A B`: which rules differ, and what that does to the score."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from typing import Any

from escoba.cli.main import UsageError, add_format_argument
from escoba.cli.simulate import add_cluster_argument
from escoba.game.seats import next_dealer

HELP = "compare two rulesets: the rules that differ, the same games scored both ways, and simulations"
DESCRIPTION = """\
Three views of two rulesets A and B (bundled ids or files):

1. the rules that differ, read off the resolved documents and grouped by concern (deck,
   players & turn, deal, opening table, capture, leftovers, scoring, match), each with
   both sides' citation (status · source, ← where it is inherited from). Measures are
   compared by meaning, categories by id; comments, titles, moved keys and citations
   alone are not differences;
2. the same games scored both ways: hands played under A by seeded bots (or the hands
   of a golden transcript) are replayed move by move under B, and each category's points
   are compared: how many moved, from which side to which, how often the hand's winner
   changes. Hands that cannot be replayed under B (a move B forbids, a different opening
   table, deal or turn order) are counted with the first reason;
3. each ruleset on its own from the same seeds: mean points per hand per category,
   escobas per hand, the dealer's side's hand wins, hands per match and match wins, with
   95% intervals; each difference B − A is measured pair by pair (hand i under A against
   hand i under B, match j against match j), with an interval on the difference and
   McNemar's test for who wins.

The headline differences (all points, escobas, the dealer's side's wins per hand, hands
per match) close the report, their intervals corrected for being read together (Holm):
negligible when the whole interval lies within a stated size, higher or lower when it
excludes zero, else unresolved. With --until-resolved the hands are played in batches
(the first of --batch hands, then doubling) until every headline is resolved or
--max-hands is reached; the intervals are widened for the planned number of looks too.

Bots: random, greedy (one move ahead, by the ruleset's own scoring), expert (greedy's
judgement while cards are hidden, exact play once every card is known), learned (the
expert with a learned judgement), search:PLAYOUTS (information-set Monte Carlo tree
search; search:0.5s is a time budget, not reproducible) or strong[:PLAYOUTS] (the search
with the learned prior, the last deal solved exactly, the opponent replying from its own
view and its deals weighed by the opponent's plays; 27 to 63 ms a decision), one for all seats or one per seat, repeated round the
table. By default the diff is played by expert bots and its headlines again by greedy
ones: a headline whose conclusion differs between the two is marked bot-sensitive.

Hand i is dealt and played exactly as `escoba simulate` plays its hand i; --jobs J gives
the numbers of --jobs 1, and batches change nothing. --hands 0 shows the rules only. The
exit status is 0 whether or not the rulesets differ; 2 for a bad argument or a missing
ruleset, 1 for an invalid one."""
EPILOG = """\
examples:
  escoba diff da sv                                     2,000 hands, 2 players, expert bots (headlines: greedy too)
  escoba diff base fr --bots random                     random bots only
  escoba diff da sv --hands 10000 --jobs 2              more hands, two processes, same numbers
  escoba diff da sv --hands 100000 --cluster tcp://scheduler:8786   on a Dask cluster, same numbers
  escoba diff de fr --players 4 --format markdown       for pasting into an issue
  escoba diff da spec/house/escoba-doble.yaml --plot doble.png
  escoba diff fr spec/house/no-opening-escoba.yaml --hands 0   the rules only
  escoba diff da sv --transcript conformance/cases/generated/da.2p.1.json
  escoba diff base de --bots greedy --format json       for tools
  escoba diff da spec/house/escoba-doble.yaml --until-resolved
  escoba diff da spec/house/escoba-doble.yaml --bots search:200 --until-resolved --jobs 2"""

DEFAULT_HANDS = 2000
MATCH_SHARE = 40  # one match per this many hands: a match is 6 to 9 hands, so matches cost a fifth of the hands
RESOLVE_MATCH_SHARE = 10  # --until-resolved: hands per match is a headline, so matches get more of the work
DEFAULT_MAX_HANDS = 20_000
SEARCH_MAX_HANDS = 200  # with a search bot a hand takes seconds: the default bound keeps a run to minutes
DEFAULT_BATCH = 500
SEARCH_BATCH = 50
PROGRESS_AFTER = 1000  # hands (or any search bot): shorter runs finish before a bar is worth drawing
# The bots of a default `escoba diff`: the strongest that fits a default run's time, then the
# second strength its headlines are played under too (a conclusion that changes between them is
# bot-sensitive). The one line to change when a stronger bot lands.
DEFAULT_BOTS = ("expert", "greedy")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("a", metavar="A", help="ruleset A: a bundled id or a file")
    parser.add_argument("b", metavar="B", help="ruleset B: a bundled id or a file")
    parser.add_argument("--hands", type=int, default=DEFAULT_HANDS, metavar="N",
                        help=f"hands per view (default {DEFAULT_HANDS}; 0: the rules only)")  # fmt: skip
    parser.add_argument("--matches", type=int, metavar="M",
                        help=f"matches per ruleset for hands per match and wins (default hands/{MATCH_SHARE})")  # fmt: skip
    parser.add_argument("--players", type=int, metavar="N",
                        help="players at the table (default 2 if both rulesets allow it)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="master seed (default 0)")
    parser.add_argument("--bots", metavar="NAME[,NAME…]",
                        help="random, greedy, expert, learned, search:PLAYOUTS or strong[:PLAYOUTS]; one for all seats or one per seat, repeated round "
                             f"the table (default {DEFAULT_BOTS[0]})")  # fmt: skip
    parser.add_argument("--second-bots", metavar="NAME[,NAME…]|none",
                        help="the second strength the headlines are played under, to find bot-sensitive ones "
                             f"(default {DEFAULT_BOTS[1]} when --bots is not given, else none)")  # fmt: skip
    parser.add_argument("--until-resolved", action="store_true",
                        help="play in batches until every headline difference is resolved, or --max-hands")  # fmt: skip
    parser.add_argument("--max-hands", type=int, metavar="N",
                        help=f"with --until-resolved: at most N hands (default {DEFAULT_MAX_HANDS:,}; "
                             f"{SEARCH_MAX_HANDS} with a search bot)")  # fmt: skip
    parser.add_argument("--batch", type=int, metavar="N",
                        help=f"with --until-resolved: hands in the first batch (default {DEFAULT_BATCH}; "
                             f"{SEARCH_BATCH} with a search bot)")  # fmt: skip
    parser.add_argument("--jobs", type=int, default=1, metavar="J", help="worker processes; 0 = one per CPU (default 1)")
    add_cluster_argument(parser)
    parser.add_argument("--transcript", metavar="FILE",
                        help="rescore the hands of golden transcript cases (a case file or a folder) instead of bot games")  # fmt: skip
    add_format_argument(parser, ("text", "json", "markdown"))
    parser.add_argument("--plot", metavar="FILE", help="also draw points per category, A beside B (needs escoba[plot])")


def run(args: argparse.Namespace) -> int:
    from escoba.diff.report import PlotUnavailable, check_plot

    if args.plot:
        try:
            check_plot(args.plot)  # before any work: a missing extra or a bad file name should not cost a simulation
        except PlotUnavailable as error:
            print(f"escoba diff: {error}", file=sys.stderr)
            return 2
    report = build(args)
    if args.format == "json":
        print(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        from escoba.diff.report import render

        print(render(report, markdown=args.format == "markdown"), end="")
    if args.plot:
        from escoba.diff.report import plot

        plot(report, args.plot)
        print(f"chart written to {args.plot}", file=sys.stderr)
    return 0


def build(args: argparse.Namespace) -> Any:
    """The report for parsed arguments (tests call this directly)."""
    from escoba.diff.compare_sim import Simulated, compare
    from escoba.diff.headlines import Resolution, Strength, verdicts
    from escoba.diff.paired import ALPHA
    from escoba.diff.report import Games, Report
    from escoba.diff.rescore import Replayer
    from escoba.diff.runner import Job, replay
    from escoba.diff.structural import diff_rulesets
    from escoba.rules import load_resolved
    from escoba.rules.compile import compile_rules
    from escoba.simulate import MatchStats, Stats

    resolved_a, resolved_b = load_resolved(args.a), load_resolved(args.b)
    structural = diff_rulesets(resolved_a, resolved_b)
    until = getattr(args, "until_resolved", False)
    if args.hands < 0:
        raise UsageError(f"--hands must be 0 or more, got {args.hands}")
    if not until and (getattr(args, "max_hands", None) is not None or getattr(args, "batch", None) is not None):
        raise UsageError("--max-hands and --batch go with --until-resolved")
    if getattr(args, "cluster", None) is not None:
        from escoba.cluster import check_address

        check_address(args.cluster)  # a malformed address is a usage error before any work
    if args.hands == 0 and args.transcript is None and not until:
        return Report(structural, None, None, None)
    rules_a, rules_b = compile_rules(resolved_a.doc), compile_rules(resolved_b.doc)
    # The transcript is read before any bot plays: a file it cannot use is refused at once.
    transcript = _transcript_hands(args.transcript, rules_a, args.players) if args.transcript is not None else None
    players, bots, jobs = _arguments(rules_a, rules_b, args)
    job = Job(resolved_a.doc, resolved_b.doc, players, args.seed, bots)
    second = _second_bots(args, bots)
    # The second strength only plays the headlines of view 3, so only where B is played at all.
    jobs_played = [job] if second is None or players not in rules_b.player_counts else [job, replace(job, bots=second)]
    if until:
        parts, resolution = _until_resolved(jobs_played, args, jobs, (rules_a, rules_b))
        part = parts[0]
        hands_played, matches = resolution.hands, resolution.matches
    else:
        matches = args.matches if args.matches is not None else (max(1, args.hands // MATCH_SHARE) if args.hands else 0)
        if matches < 0:
            raise UsageError(f"--matches must be 0 or more, got {matches}")
        hands_played = args.hands
        part = None
        resolution = None
        if args.hands:
            parts = []
            for played in jobs_played:
                with _progress(played.bots, args.hands, _unit(played, jobs_played)) as progress:
                    parts.append(_run(played, args.hands, jobs, progress, (rules_a, rules_b), matches, cluster=args.cluster))
            part = parts[0]
            found = verdicts([(p.paired, p.paired_matches) for p in parts], ALPHA)
            strengths = tuple(Strength(p.bots, v) for p, v in zip(jobs_played, found))
            resolution = Resolution(False, (args.hands,), 1, ALPHA, args.hands, matches, strengths)

    rescored = Replayer(rules_a, rules_b, players).shortcut
    if transcript is not None:
        hands = transcript
        t_players = hands[0].players
        tally = replay(replace(job, players=t_players), hands, (rules_a, rules_b))
        games = Games("transcript", len(hands), t_players, args.seed, bots, args.transcript,
                      Replayer(rules_a, rules_b, t_players).shortcut)  # fmt: skip
    else:
        assert part is not None
        tally = part.tally
        games = Games("bots", hands_played, players, args.seed, bots, None, rescored)

    simulation = None
    if part is not None:
        target_a, target_b = rules_a.match_target, rules_b.match_target
        sim_a = Simulated(
            Stats.from_accumulator(rules_a, players, args.seed, bots, part.acc_a),
            part.totals_a,
            MatchStats.from_accumulator(rules_a, players, args.seed, bots, target_a, part.matches_a) if matches else None,
        )
        if part.acc_b is not None:
            assert part.matches_b is not None
            sim_b = Simulated(
                Stats.from_accumulator(rules_b, players, args.seed, bots, part.acc_b),
                part.totals_b,
                MatchStats.from_accumulator(rules_b, players, args.seed, bots, target_b, part.matches_b) if matches else None,
            )
        else:
            counts = ", ".join(map(str, rules_b.player_counts))
            sim_b = Simulated(None, None, None, f"{rules_b.id} is played by {counts} players, not {players}")
        assert resolution is not None
        simulation = compare(hands_played, matches, args.seed, players, bots, sim_a, sim_b, part.paired,
                             part.paired_matches if matches else None, resolution.alpha, resolution.verdicts)  # fmt: skip
    return Report(structural, games, tally, simulation, resolution)


def _second_bots(args: argparse.Namespace, bots: tuple[str, ...]) -> tuple[str, ...] | None:
    """The second strength: --second-bots, else DEFAULT_BOTS' second when --bots is not given;
    None for `none` or for the run's own bots again."""
    from escoba.cli.simulate import parse_bots

    spec = getattr(args, "second_bots", None)
    if spec is None:
        spec = DEFAULT_BOTS[1] if args.bots is None else "none"
    if spec.strip() == "none":
        return None
    second = parse_bots(spec, "--second-bots")
    return None if second == bots else second


def _unit(job: Any, jobs_played: list[Any]) -> str:
    """What a progress bar counts: hands, and whose when two strengths are played."""
    return "hands" if len(jobs_played) == 1 else f"hands ({','.join(job.bots)})"


def _run(job: Any, hands: int, jobs: int, progress: Any, rules: Any, matches: int, **more: Any) -> Any:
    from escoba.diff.runner import run

    return run(job, hands, jobs, progress, rules=rules, matches=matches, **more)


def _until_resolved(jobs_played: list[Any], args: argparse.Namespace, jobs: int, rules: Any) -> tuple[list[Any], Any]:
    """Batches of hands (and matches), under each strength, until every headline difference of
    the first is resolved."""
    from escoba.diff.headlines import Resolution, Strength, alpha_for, schedule, verdicts
    from escoba.diff.runner import new_pool, plan
    from escoba.engine.bots.specs import searches

    job = jobs_played[0]
    search = any(searches(b) for played in jobs_played for b in played.bots)
    if args.matches is not None:
        raise UsageError(f"--matches does not go with --until-resolved (matches grow with the hands, one per {RESOLVE_MATCH_SHARE})")
    most = args.max_hands if args.max_hands is not None else (SEARCH_MAX_HANDS if search else DEFAULT_MAX_HANDS)
    first = args.batch if args.batch is not None else (SEARCH_BATCH if search else DEFAULT_BATCH)
    if most < 2:
        raise UsageError(f"--max-hands must be at least 2, got {most}")
    if first < 2:
        raise UsageError(f"--batch must be at least 2, got {first}")
    looks = schedule(first, most)
    alpha = alpha_for(len(looks))
    parts: list[Any] = [None] * len(jobs_played)
    done_hands = done_matches = 0
    taken = 0
    found: tuple[tuple[Any, ...], ...] = ()
    ends = [(hands, max(1, hands // RESOLVE_MATCH_SHARE)) for hands in looks]  # hands and matches after each look
    # One pool for every batch of both strengths, no larger than the largest batch's chunks.
    most_tasks = max(len(plan(job, *end, *begin)) for begin, end in zip([(0, 0), *ends], ends, strict=False))
    with new_pool(jobs_played, jobs, most_tasks) as pool:
        for k, (hands, matches) in enumerate(ends, 1):
            for s, played in enumerate(jobs_played):
                unit = f"{_unit(played, jobs_played)}, look {k} of at most {len(looks)}"
                with _progress(played.bots, hands - done_hands, unit, always=True) as progress:
                    batch = _run(played, hands, jobs, progress, rules, matches, start=done_hands, match_start=done_matches,
                                 pool=pool, slot=s)  # fmt: skip
                parts[s] = batch if parts[s] is None else parts[s].merge(batch)
            done_hands, done_matches, taken = hands, matches, k
            found = verdicts([(p.paired, p.paired_matches) for p in parts], alpha)
            if all(v.resolved for v in found[0]):
                break
    strengths = tuple(Strength(played.bots, v) for played, v in zip(jobs_played, found))
    return parts, Resolution(True, tuple(looks), taken, alpha, done_hands, done_matches, strengths)


class _progress:
    """A progress bar on stderr for runs long enough to want one (drawn only on a terminal)."""

    def __init__(self, bots: Any, hands: int, unit: str, always: bool = False):
        from escoba.cli.simulate import progress_bar
        from escoba.engine.bots.specs import searches

        search = any(searches(b) for b in bots)
        self.bar = progress_bar(sys.stderr, unit) if always or search or hands >= PROGRESS_AFTER else None

    def __enter__(self) -> Any:
        return self.bar

    def __exit__(self, *_exc: Any) -> None:
        if self.bar is not None:
            self.bar.close()


def _arguments(rules_a: Any, rules_b: Any, args: argparse.Namespace) -> tuple[int, tuple[str, ...], int]:
    """Players, the run's own bots (--bots, else DEFAULT_BOTS' first) and jobs, checked."""
    from escoba.cli.simulate import check_arguments

    players = args.players
    if players is None:
        common = [c for c in rules_a.player_counts if c in rules_b.player_counts]
        players = 2 if 2 in common else (common[0] if common else None)
    # Players are checked against A only: hands are played under A, and B's refusal of the
    # player count is itself a result (no hand replays, B is not simulated).
    return check_arguments(rules_a, players, args.bots if args.bots is not None else DEFAULT_BOTS[0], args.jobs)


def _transcript_hands(path: str, rules_a: Any, players: int | None) -> list[Any]:
    """The hands of the game cases in `path` whose ruleset is A, played again under A.

    One table size at a time (`--players`, else the first case's), since sides are compared."""
    from pathlib import Path

    from escoba.diff.rescore import record
    from escoba.engine.hand import Hand
    from escoba.errors import EscobaError
    from escoba.transcript import load_cases

    if not Path(path).exists():
        raise UsageError(f"no such transcript file or folder: {path}")
    cases = [c for c in load_cases(path, replay=False) if c.kind == "game"]
    mine = [c for c in cases if c.ruleset == rules_a.id]
    if not mine:
        found = sorted({c.ruleset for c in cases})
        raise UsageError(
            f"{path} has no game of {rules_a.id}"
            + (f" (its games are of {', '.join(found)}: compare with 'escoba diff {found[0]} …')" if found else "")
        )
    size = players if players is not None else mine[0].players
    mine = [c for c in mine if c.players == size]
    if not mine:
        raise UsageError(f"{path} has no {size}-player game of {rules_a.id}")
    hands = []
    for case in mine:
        dealer = case.dealer
        for h in range(len(case.hands)):
            hand = Hand(rules_a, case.players, dealer, case.deck_orders(h), record=False)
            moves = iter(case.moves(h))
            try:
                hands.append(record(hand, f"{case.id} hand {h}", lambda _hand, moves=moves: next(moves)))
            except (EscobaError, StopIteration) as error:
                raise UsageError(f"{case.id} hand {h} does not replay under {rules_a.id}: {error}") from None
            dealer = next_dealer(dealer, rules_a.next_dealer_offset, case.players)
    return hands
