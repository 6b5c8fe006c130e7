"""`escoba simulate`: bots play many seeded hands (or matches); mean points with 95% intervals."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from escoba.cli.main import UsageError, add_format_argument, worker_count

# No percent sign: argparse %-formats help strings.
HELP = "play many seeded hands or matches between bots; mean points per category and side, with confidence intervals"
DESCRIPTION = """\
Bots play independent hands of a ruleset; the table gives, for each scoring category
and each side, the mean points per hand and its 95% confidence interval (mean ± half
width, normal approximation). With --matches, whole matches are played to the target
instead: hands per match, win rate per side and shared wins.

Hand i is dealt and played from seeds derived from (--seed, i) only, and seat i mod N
deals it, so a run is reproducible anywhere and --jobs J gives exactly the numbers
of --jobs 1 (the hands are split into chunks whose integer sums are merged in order).
Bots are given per seat and repeat round the table: --bots greedy,random puts the
greedy bot on seats 0, 2, … and the random bot on seats 1, 3, …"""
EPILOG = """\
examples:
  escoba simulate base                              1,000 hands, 2 players, random bots
  escoba simulate da --hands 20000 --jobs 4         the same numbers as --jobs 1, sooner
  escoba simulate de --players 4 --bots greedy,random --hands 5000
  escoba simulate sv --matches 500 --target 21      hands per match and win rates
  escoba simulate fr --hands 2000 --format json     for tools (escoba diff reads the same numbers)
  escoba simulate sv --hands 1000000 --cluster tcp://scheduler:8786    on a Dask cluster
  escoba simulate sv --hands 100000 --cluster local --jobs 4           a local Dask cluster"""

DEFAULT_HANDS = 1000
PROGRESS_AFTER = 5000  # units of work below this finish before a progress bar is worth drawing


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("ruleset", metavar="FILE-OR-ID", help="a ruleset file or bundled id")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--hands", type=int, metavar="N", help=f"independent hands to play (default {DEFAULT_HANDS})")
    what.add_argument("--matches", type=int, metavar="M", help="play M whole matches instead of single hands")
    parser.add_argument("--players", type=int, metavar="N", help="players at the table (default 2, if the ruleset allows it)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="master seed (default 0)")
    parser.add_argument(
        "--bots", default="random", metavar="NAME[,NAME…]", help="bot per seat, repeated round the table (default random)"
    )
    parser.add_argument("--jobs", type=int, default=1, metavar="J", help="worker processes; 0 = one per CPU (default 1)")
    add_cluster_argument(parser)
    parser.add_argument("--target", type=int, metavar="T", help="match target (with --matches; default the ruleset's)")
    add_format_argument(parser)


def run(args: argparse.Namespace) -> int:
    import escoba
    from escoba.simulate import simulate, simulate_matches

    rules = escoba.load_ruleset(args.ruleset)
    players, bots, jobs = check_arguments(rules, args.players, args.bots, args.jobs)
    if args.target is not None and args.matches is None:
        raise UsageError("--target needs --matches (single hands have no target)")
    if args.target is not None and args.target < 1:
        raise UsageError(f"--target must be at least 1, got {args.target}")
    count = args.matches if args.matches is not None else (args.hands if args.hands is not None else DEFAULT_HANDS)
    unit = "matches" if args.matches is not None else "hands"
    if count < 1:
        raise UsageError(f"--{unit} must be at least 1, got {count}")
    if args.cluster is not None:
        from escoba.cluster import check_address

        check_address(args.cluster)  # a malformed address is a usage error before any work
    # A match is a handful of hands, so it weighs more in deciding whether to show progress.
    progress = progress_bar(sys.stderr, unit) if count * (6 if unit == "matches" else 1) >= PROGRESS_AFTER else None
    try:
        if unit == "matches":
            stats: Any = simulate_matches(
                rules, count, players, args.seed, bots, jobs, args.target, progress=progress, cluster=args.cluster
            )
        else:
            stats = simulate(rules, count, players, args.seed, bots, jobs, progress=progress, cluster=args.cluster)
    finally:
        if progress is not None:
            progress.close()
    if args.format == "json":
        print(json.dumps(stats.to_json(), indent=2))
    elif unit == "matches":
        print(format_matches(stats), end="")
    else:
        print(format_hands(stats), end="")
    return 0


def check_arguments(rules: Any, players: int | None, bots: str, jobs: int) -> tuple[int, tuple[str, ...], int]:
    """Players, bots and jobs checked against the ruleset; UsageError (exit 2) otherwise.

    Shared with `escoba play`, which takes the same --players and --bots.
    """
    counts = rules.player_counts
    if players is None:
        players = 2 if 2 in counts else counts[0]
    elif players not in counts:
        raise UsageError(f"{rules.id} is played by {_join(counts)} players, not {players}")
    return players, parse_bots(bots), worker_count(jobs)


def parse_bots(bots: str, option: str = "--bots") -> tuple[str, ...]:
    """The bots of a `NAME[,NAME…]` option, each checked; UsageError (exit 2) naming `option` otherwise."""
    from escoba.engine.bots import bot_maker
    from escoba.errors import EscobaError

    names = tuple(b.strip() for b in bots.split(","))
    for name in names:
        try:
            bot_maker(name, f" in {option}")
        except EscobaError as error:
            raise UsageError(str(error)) from None
    return names


def add_cluster_argument(parser: argparse.ArgumentParser) -> None:
    """--cluster, shared with `escoba diff`."""
    parser.add_argument(
        "--cluster", metavar="ADDRESS",
        help="run the chunks on a Dask scheduler (tcp://HOST:8786), or on a local cluster of --jobs "
        "workers ('local'); the same numbers as --jobs 1 (needs the cluster extra)",
    )  # fmt: skip


def _join(counts: Sequence[int]) -> str:
    items = [str(c) for c in counts]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


# ---------------------------------------------------------------------------------- text
def side_names(stats: Any) -> list[str]:
    return [("seat " if len(seats) == 1 else "seats ") + "+".join(map(str, seats)) for seats in stats.side_seats]


def _est(e: Any, digits: int = 3) -> str:
    if e.half is None:
        return f"{e.mean:.{digits}f}"
    return f"{e.mean:.{digits}f} ± {e.half:.{digits}f}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(r[k]) for r in [header, *rows]) for k in range(len(header))]
    lines = ["  ".join(cell.ljust(widths[k]) if k == 0 else cell.rjust(widths[k]) for k, cell in enumerate(r)).rstrip()
             for r in [header, *rows]]  # fmt: skip
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines) + "\n"


def _pct(count: int, total: int) -> str:
    return f"{100 * count / total:.1f}%"


def _share(count: int, total: int) -> str:
    return f"{count:,} ({_pct(count, total)})"


def format_hands(stats: Any) -> str:
    """The text report of `simulate`: category × side, mean points per hand ± 95% half width."""
    names = side_names(stats)
    rows = [[cat, *(_est(e) for e in stats.points[cat])] for cat in stats.categories]
    rows.append(["total", *(_est(e) for e in stats.total)])
    out = [
        f"{stats.ruleset}: {stats.hands:,} hands, {stats.players} players, bots {','.join(stats.bots)}, seed {stats.seed}",
        "mean points per hand, ± half width of the 95% confidence interval",
        "",
        _table(["category", *names], rows),
        f"escobas per hand (all sides): {_est(stats.escobas)}",
        "hands won: " + ", ".join(f"{n} {_share(w, stats.hands)}" for n, w in zip(names, stats.wins))
        + f", tied {_share(stats.tied, stats.hands)}",
    ]
    o = stats.opening
    if any(o.values()):
        parts = []
        if o["taken"]:
            parts.append(f"the dealer took it in {o['taken']:,} hands ({_pct(o['taken'], stats.hands)}), {o['escobas']:,} opening escobas")
        if o["set_aside"]:
            parts.append(f"set aside in {o['set_aside']:,} hands ({_pct(o['set_aside'], stats.hands)})")
        if o["redeals"]:
            parts.append(f"{o['redeals']:,} redeals")
        out.append("opening table: " + "; ".join(parts))
    return "\n".join(out) + "\n"


def format_matches(stats: Any) -> str:
    """The text report of `simulate --matches`."""
    names = side_names(stats)
    rows = [
        ["win rate", *(_est(e) for e in stats.win_rate)],
        ["matches won", *(f"{w:,}" for w in stats.wins)],
        ["final total", *(_est(e, 2) for e in stats.final_total)],
    ]
    if stats.shared:
        rows.append(["shared wins", *(f"{w:,}" for w in stats.shared_by_side)])
    out = [
        f"{stats.ruleset}: {stats.matches:,} matches to {stats.target}, {stats.players} players, "
        f"bots {','.join(stats.bots)}, seed {stats.seed}",
        "± half width of the 95% confidence interval",
        "",
        _table(["", *names], rows),
        f"hands per match: {_est(stats.hands_per_match, 2)}",
        f"shared wins: {_share(stats.shared, stats.matches)}",
    ]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------- progress
class progress_bar:
    """A one-line bar on `stream`, drawn only when it is a terminal (never in pipes or logs)."""

    WIDTH = 30

    def __init__(self, stream: TextIO, unit: str):
        self.stream, self.unit = stream, unit
        self.live = hasattr(stream, "isatty") and stream.isatty()
        self.drawn = False

    def __call__(self, done: int, total: int) -> None:
        if not self.live:
            return
        filled = self.WIDTH * done // total
        bar = "#" * filled + "." * (self.WIDTH - filled)
        self.stream.write(f"\r[{bar}] {100 * done // total:3d}%  {done:,}/{total:,} {self.unit}")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\r\033[K")  # erase the bar so that the report starts clean
            self.stream.flush()
