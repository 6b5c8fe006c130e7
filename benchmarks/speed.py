"""The project's speed goals, measured and checked; prints the README's performance section.

    python benchmarks/speed.py [--hands N] [--rows N] [--repeat R] [--table-repeat R] [--yardstick FILE] [--skip-tests]

Goals (issue 12), each measured here, never in a timed test:

1. `escoba simulate sv --hands 20000`, as a whole process, at least 1.5× the plain
   hand-written loop (`../shared/bench/limit_sim.py`) in hands per CPU-second, same run (the
   C loop `../shared/bench/limit_sim.c`, the practical ceiling, is measured beside them when a
   C compiler is there: built in a temporary folder, never in the project);
2. every bundled ruleset within 25% of sv's speed (2 players, `simulate()` in process, each
   row in a process of its own); for a ruleset below it, the same share once both have
   filled their capture memos (the same hands played twice in one process, the second time
   timed), with how many tables of values each memo holds: the cost of filling the memo told
   from the cost per hand;
3. 3 and 4 players no more than 25% below 2 players, ruleset by ruleset (2 and 3: hands per
   CPU-second of `simulate(R, hands=N)` at the headline's number of hands, as a user meets
   them: the fused path's memos are cleared before each row, so each row pays its own warm-up,
   and a row of a few hundred or a thousand hands would measure mostly that warm-up). Each row
   runs in a new Python process (after a 10-hand run that compiles the ruleset), so that no
   row inherits a heap shaped by the rows before it: run one after the other in one process,
   a second run of sv was 8% faster than the first. Each
   share is the median over the rounds of a ratio of runs made around the same moment: each
   round runs sv, the ruleset at 2, 3 and 4 players, at 2 again, and sv again (`sandwich`),
   and compares its two 2-player runs with the two of sv, and each 3- and 4-player run with
   the mean of its two 2-player runs. On a shared machine whose speed drifts by a third from
   one minute to the next, a ratio of two medians taken minutes apart measures the drift as
   much as the rules, and so does, in part, a ratio of two runs made one after the other (in
   one run that way, a ruleset at 4 players came out at 74% of its speed at 2, at 81 to 83%
   in others). A ruleset with a share within 5 points of 75% after the rounds is measured for
   as many rounds again (`near_goal`), its shares the medians of all;
4. the equivalence tests (`tests/test_fused.py` at the issue's 2,000 hands of every bundled
   ruleset at every player count, run under HYPOTHESIS_PROFILE=deep) pass, and which
   rulesets fall back;
5. random playouts from dealt hands at the speed of simulated hands (within 10%) (the bots'
   own speed is benchmarks/bots.py's);
6. the bundled conformance suite (`escoba conformance`) under 4 s and `escoba check sv` under
   100 ms of wall time (3 runs, median, once the cache folder holds what a first run keeps
   there: the first run's time is shown beside), run as the installed `escoba` command (or
   `python -m escoba` where this Python has none); `escoba conformance --jobs 2` is timed
   beside it (the goal is the command as it runs by default);
7. `escoba simulate sv --hands 10000 --cluster local --format json` identical, byte for byte,
   to `--jobs 1`.

Runs are interleaved rounds (every measurement once per round) and figures are medians of the
rounds. The table of rulesets (92 rows, some 185 runs of 20,000 hands a round) is most of the
run: about 6 minutes a round on an idle 2-core machine, so `--repeat 3 --skip-tests` takes
about 20 minutes;
`--table-repeat 1` measures the table in one round only (its figures are then single runs). Hands per CPU-second count user + system time, so other work on a shared machine
counts against a run far less than in wall time (a loaded machine still slows every process
somewhat: caches and memory are shared); wall times (check, conformance) depend on the load,
which is printed with them.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NEAR = 0.05  # a share this close to the goal (75%) gets as many rounds again (`main`)

# A row of the table (goals 2 and 3), in a process of its own: args ruleset, players, hands.
ROW = """
import sys
from escoba import load_ruleset
from escoba.cli.bench import simulate_in_process
rules, players, hands = load_ruleset(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
simulate_in_process(rules, players, 10, seed=0)  # the ruleset's fused form compiled
print(simulate_in_process(rules, players, hands, seed=1))
"""

# A ruleset with its capture memo filled (2 players), in a process of its own: a first run of
# `hands` fills it, and the same hands played again are timed, every table they meet already in
# the memo (another seed would meet new ones: fr's next 20,000 hands meet 7,000 more). Printed:
# its rate and how many tables of values the memo holds. Args ruleset, hands.
FILLED_ROW = """
import sys
from escoba import load_ruleset
from escoba.cli.bench import call_cpu, simulate_in_process
from escoba.engine.fused import fused
from escoba.simulate import simulate
rules, hands = load_ruleset(sys.argv[1]), int(sys.argv[2])
simulate_in_process(rules, 2, hands, seed=1)
tables = fused(rules).tables_remembered
print(hands / call_cpu(lambda: simulate(rules, hands, 2, 1)), tables)
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=20000, help="hands of the headline runs (default 20000)")
    parser.add_argument("--rows", type=int, help="hands per ruleset row (default: --hands)")
    parser.add_argument("--repeat", type=int, default=3, help="interleaved rounds (default 3)")
    parser.add_argument("--table-repeat", type=int, help="rounds that measure the table of rulesets (default: --repeat)")
    parser.add_argument("--yardstick", help="the plain loop (default: as escoba bench finds it)")
    parser.add_argument("--skip-tests", action="store_true", help="do not run the equivalence test")
    args = parser.parse_args()
    args.rows = args.hands if args.rows is None else args.rows
    args.table_repeat = args.repeat if args.table_repeat is None else min(args.table_repeat, args.repeat)

    import escoba
    from escoba.cli.bench import find_yardstick, playouts_per_second, process_cpu, simulate_in_process
    from escoba.engine.fused import fallback_reason
    from escoba.rules import bundled_ids

    yardstick = find_yardstick(args.yardstick)
    python = [sys.executable]
    # Byte-compile the package first, as an installed wheel is: a checkout run with
    # PYTHONDONTWRITEBYTECODE would otherwise compile every module at every start.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([*python, "-m", "compileall", "-q", str(Path(escoba.__file__).parent)], check=True,
                   stdout=subprocess.DEVNULL, env=env)  # fmt: skip
    load_before = os.getloadavg()[0]
    say(f"yardstick {yardstick['path']}; {args.repeat} rounds")

    # 1 and 2, 3, 5: headline whole-process runs, per-ruleset rows and playouts, interleaved round by round.
    sim_argv = [*python, "-m", "escoba", "simulate", "sv", "--hands", str(args.hands), "--format", "json"]
    c_loop = build_c_loop(Path(yardstick["path"]).with_suffix(".c"))
    c_hands = 20 * args.hands  # the C loop is about 30 times faster: enough hands to time it
    rows = [(rid, n) for rid in bundled_ids() for n in escoba.load_ruleset(rid).player_counts]
    loaded = {rid: escoba.load_ruleset(rid) for rid, _ in rows}
    plain: list[float] = []
    whole: list[float] = []
    ceiling: list[float] = []
    played_out: list[float] = []
    inproc: dict[tuple[str, int], list[float]] = {row: [] for row in rows}  # each in a new process (ROW)
    counts = {rid: [n for r, n in rows if r == rid] for rid, _ in rows}  # each ruleset's player counts
    shares: dict[tuple[str, int], list[float]] = {}  # a round's share of sv (players 2) or of 2 players (`sandwich`)
    small: list[float] = []  # sv at 1,000 hands, memos cleared: the warm-up's share of a short run

    def table_round(rid: str) -> None:  # one round of a ruleset's rows (`sandwich`)
        runs = sandwich(lambda r, n: row_rate(python, env, r, n, args.rows), rid, counts[rid])
        for (r, n), rate in runs.items():
            if r == rid:
                inproc[(rid, n)] += rate
        for n, share in round_shares(runs, rid, counts[rid]).items():
            shares.setdefault((rid, n), []).append(share)

    for k in range(args.repeat):
        say(f"round {k + 1}: the yardstick and escoba simulate sv, {args.hands:,} hands each, whole processes")
        plain.append(args.hands / process_cpu([*yardstick["argv"], str(args.hands)]))
        whole.append(args.hands / process_cpu(sim_argv))
        if c_loop is not None:
            ceiling.append(c_hands / process_cpu([c_loop, str(c_hands)]))
        if k < args.table_repeat:
            say(f"round {k + 1}: {len(rows)} rulesets × players, a process each, {args.rows:,} hands each")
            for rid in counts:
                table_round(rid)
        say(f"round {k + 1}: sv at 1,000 hands; playouts")
        small.append(simulate_in_process(loaded["sv"], 2, 1000, seed=1))
        played_out.append(playouts_per_second(loaded["sv"], 2, args.rows, seed=1))
    near = near_goal(shares)
    for k in range(args.table_repeat if near else 0):
        say(f"round {k + 1} again: {', '.join(near)}, within {NEAR * 100:.0f} points of 75% after {args.table_repeat} rounds")
        for rid in near:
            table_round(rid)
    med = {row: statistics.median(v) for row, v in inproc.items()}
    # The shares, round by round, of runs made around the same moment (the module docstring, 2 and 3).
    of_sv = {rid: statistics.median(v) for (rid, n), v in shares.items() if n == 2}
    of_two = {(rid, n): statistics.median(v) for (rid, n), v in shares.items() if n != 2}
    plain_m, whole_m = statistics.median(plain), statistics.median(whole)

    # 2, where it is missed: the same shares with the memos filled first, to tell the one-time
    # cost of filling them (a ruleset meeting many more tables of values) from the cost per hand.
    missed = [rid for rid, share in of_sv.items() if share < 0.75]
    filled: dict[str, list[float]] = {rid: [] for rid in missed}
    tables: dict[str, int] = {}
    for k in range(args.table_repeat if missed else 0):
        say(f"round {k + 1}: {', '.join(missed)} and sv with their memos filled, {args.rows:,} hands a run")
        for rid in missed:
            sv_rate, tables["sv"] = filled_rate(python, env, "sv", args.rows)
            rate, tables[rid] = filled_rate(python, env, rid, args.rows)
            filled[rid].append(rate / sv_rate)
    sv2 = med[("sv", 2)]
    small_m = statistics.median(small)
    playout_m = statistics.median(played_out)

    # 4: the equivalence tests, at the 2,000 hands.
    if args.skip_tests:
        tests = "not run (--skip-tests)"
        tests_ok = None
    else:
        say("the equivalence tests (tests/test_fused.py, deep)")
        test_files = [str(ROOT / "tests" / "test_fused.py")]
        result = subprocess.run([*python, "-m", "pytest", "-q", "-p", "no:cacheprovider", *test_files],
                                capture_output=True, text=True, cwd=ROOT,
                                env={**os.environ, "HYPOTHESIS_PROFILE": "deep"})  # fmt: skip
        last = (result.stdout.strip().splitlines() or ["no output"])[-1].strip("= ")
        tests_ok = result.returncode == 0
        tests = last
    fallbacks = {rid: fallback_reason(loaded[rid]) for rid in loaded if fallback_reason(loaded[rid])}

    # 6: the conformance suite and check, wall time (interleaved).
    say("escoba conformance and escoba check sv, wall time")
    # The `escoba` command itself, as a user runs it (the script installed beside this Python),
    # else `python -m escoba`, which also pays for runpy.
    script = Path(sys.executable).parent / "escoba"
    escoba_command = [str(script)] if script.is_file() and os.access(script, os.X_OK) else [*python, "-m", "escoba"]
    timed = "the installed `escoba` script" if len(escoba_command) == 1 else "`python -m escoba`"
    check_walls: list[float] = []
    conformance_walls: list[float] = []
    side_by_side_walls: list[float] = []  # `escoba conformance --jobs 2`: two engine sessions
    # In a cache folder of their own (escoba/cachedir.py): the first runs fill it (the verdicts
    # of the rulesets, their parsed YAML, the expression parser), as a user's first run does,
    # and are reported apart; the timed runs then find it as every later run does.
    with tempfile.TemporaryDirectory() as cache:
        cached = {**os.environ, "XDG_CACHE_HOME": cache}
        cached.pop("ESCOBA_NO_CACHE", None)
        cold_conformance = wall([*escoba_command, "conformance"], cached)
        cold_check = wall([*escoba_command, "check", "sv"], {**cached, "XDG_CACHE_HOME": cache + "/check"})
        for _ in range(3):
            conformance_walls.append(wall([*escoba_command, "conformance"], cached))
            check_walls.append(wall([*escoba_command, "check", "sv"], cached))
            side_by_side_walls.append(wall([*escoba_command, "conformance", "--jobs", "2"], cached))
    check_ms = 1000 * statistics.median(check_walls)
    conformance_s = statistics.median(conformance_walls)
    side_by_side_s = statistics.median(side_by_side_walls)
    load_walls = os.getloadavg()[0]

    # 6: the cluster against one process.
    say("escoba simulate sv --hands 10000 --format json, --jobs 1 and --cluster local --jobs 2")
    one = subprocess.run([*python, "-m", "escoba", "simulate", "sv", "--hands", "10000", "--format", "json"],
                         check=True, capture_output=True).stdout  # fmt: skip
    try:
        clustered = subprocess.run(
            [*python, "-m", "escoba", "simulate", "sv", "--hands", "10000", "--format", "json", "--cluster", "local", "--jobs", "2"],
            check=True, capture_output=True,
        ).stdout  # fmt: skip
        cluster_same: bool | None = clustered == one
    except subprocess.CalledProcessError as error:
        cluster_same = None
        clustered = error.stderr
    load_after = os.getloadavg()[0]

    # The report (Markdown: the README's performance section).
    ratio = whole_m / plain_m
    worst_ruleset = min(of_sv, key=of_sv.__getitem__)
    worst_share = of_sv[worst_ruleset]
    by_count = [(rid, n, share) for (rid, n), share in of_two.items()]
    worst_count = min(by_count, key=lambda x: x[2])
    out = [
        "## Performance",
        "",
        f"Measured with `{' '.join(['python', 'benchmarks/speed.py', *sys.argv[1:]])}` on {date.today().isoformat()}: "
        f"{platform.python_implementation()} "
        f"{platform.python_version()}, {platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, load average "
        f"{load_before:.1f} at the start and {load_after:.1f} at the end (a shared machine: other work slows hands per CPU-second "
        f"a little, through shared caches and memory, and wall times a lot). {args.repeat} interleaved rounds, medians. The yardstick is "
        f"`{_short(yardstick['path'])}`, a plain hand-written Python loop of the sv rules (random play, two players).",
        "",
        "| goal | measured | met |",
        "|---|---|---|",
        f"| `escoba simulate sv --hands {args.hands}`, whole process, ≥ 1.5× the plain loop | {whole_m:,.0f} vs "
        f"{plain_m:,.0f} hands per CPU-second: **{ratio:.2f}×** | {_met(ratio >= 1.5)} |",
        f"| random playouts from dealt hands as fast as simulated hands (sv, 2 players, in process) | "
        f"{playout_m:,.0f} playouts vs {sv2:,.0f} hands per CPU-second: {playout_m / sv2:.2f}× | "
        f"{_met(playout_m >= 0.9 * sv2)} |",
        f"| every bundled ruleset within 25% of sv (2 players, in process, {args.rows:,} hands, a process per run) | "
        f"slowest: {worst_ruleset} at "
        f"{worst_share:.0%} of sv | {_met(worst_share >= 0.75)} |",
        f"| 3 and 4 players no more than 25% below 2 ({args.rows:,} hands) | lowest: {worst_count[0]} at {worst_count[1]} players, "
        f"{worst_count[2]:.0%} of its 2-player speed | {_met(worst_count[2] >= 0.75)} |",
        f"| the equivalence test passes for every bundled ruleset | {tests}; "
        f"{'no ruleset falls back to Hand' if not fallbacks else 'falls back: ' + ', '.join(fallbacks)} | "
        f"{_met(tests_ok) if tests_ok is not None else '—'} |",
        f"| the bundled conformance suite (`escoba conformance`) < 4 s wall | {conformance_s:.1f} s (runs: "
        f"{', '.join(f'{w:.1f}' for w in conformance_walls)}; load average {load_walls:.1f}; the first run, with an empty "
        f"cache folder: {cold_conformance:.1f} s; with `--jobs 2`, two engine sessions side by side: {side_by_side_s:.1f} s, "
        f"runs {', '.join(f'{w:.1f}' for w in side_by_side_walls)}) | {_met(conformance_s < 4)} |",
        f"| `escoba check sv` < 100 ms wall | {check_ms:.0f} ms (runs: {', '.join(f'{1000 * w:.0f}' for w in check_walls)}; "
        f"the first run, with an empty cache folder: {1000 * cold_check:.0f} ms; {timed}) | "
        f"{_met(check_ms < 100)} |",
        f"| `--cluster local` output identical to `--jobs 1` (10,000 hands, `--format json`) | "
        f"{'identical' if cluster_same else 'DIFFERENT' if cluster_same is False else 'failed: ' + _first(clustered)} | "
        f"{_met(bool(cluster_same))} |",
        "",
        f"Hands per CPU-second of `simulate(R, hands={args.rows})` in process, each row in a new process (after 10 hands "
        f"that compile the ruleset, memos cleared, so each row pays for filling them; {args.table_repeat} round{'s' if args.table_repeat != 1 else ''}, "
        f"{'medians' if args.table_repeat > 1 else 'single runs'}). A short run is slower per hand: the capture memo "
        f"starts empty and fills over the first thousands of hands (sv at 1,000 hands: {small_m:,.0f} hands per "
        f"CPU-second, {small_m / sv2:.2f}× its rate at {args.rows:,}). The shares (the last column, and the goals "
        f"above) are medians of each round's ratios of runs made around the same moment: a round runs sv, the ruleset "
        f"at 2, 3 and 4 players, at 2 again and sv again, and compares its two 2-player runs with the two of sv, and "
        f"each 3- and 4-player run with its 2-player runs: this machine's speed drifts from one minute to the next, "
        f"and a ratio of runs made minutes apart measures that drift too. "
        + (f"A ruleset with a share within {NEAR * 100:.0f} points of 75% after those rounds ({', '.join(near)}) was measured for as "
           f"many rounds again, its figures the medians of all {2 * args.table_repeat}: runs scatter by a tenth, above the "
           f"goal as below." if near else f"No share came within {NEAR * 100:.0f} points of 75%, where a ruleset's rows are measured "
           f"for as many rounds again."),
        "",
        "| ruleset | 2 players | 3 players | 4 players | 2p vs sv |",
        "|---|---:|---:|---:|---:|",
    ]
    for rid in dict.fromkeys(rid for rid, _ in rows):
        cells = [f"{med[(rid, n)]:,.0f}" if (rid, n) in med else "—" for n in (2, 3, 4)]
        share = f"{of_sv[rid]:.2f}×" if rid in of_sv else "—"
        out.append(f"| {rid}{' (Hand)' if rid in fallbacks else ''} | {' | '.join(cells)} | {share} |")
    if missed:
        each = [
            f"{rid} {statistics.median(filled[rid]):.0%} of sv, its memo holding {tables[rid]:,} tables of values "
            f"against sv's {tables['sv']:,}"
            for rid in missed
        ]
        out += [
            "",
            f"Below 75% of sv, and with the capture memo filled first (a first run of {args.rows:,} hands in the same "
            f"process, then the same hands timed again, every table they meet in the memo; sv likewise, just before): "
            f"{'; '.join(each)}. What remains of the gap with the memo filled is a cost per hand; the rest is the cost "
            "of filling the memo, which a longer run spreads over more hands (though a ruleset meeting many tables "
            "keeps meeting new ones).",
        ]
    out += [
        "",
        f"The plain loop's runs: {', '.join(f'{v:,.0f}' for v in plain)}; `escoba simulate sv` whole process: "
        f"{', '.join(f'{v:,.0f}' for v in whole)} hands per CPU-second.",
    ]
    if ceiling:
        ceiling_m = statistics.median(ceiling)
        out += [
            f"The C loop (`{_short(str(Path(yardstick['path']).with_suffix('.c')))}`, `cc -O2`, {c_hands:,} hands a run): "
            f"{', '.join(f'{v:,.0f}' for v in ceiling)} hands per CPU-second, median {ceiling_m / plain_m:.0f}× the plain "
            f"loop and {ceiling_m / whole_m:.0f}× `escoba simulate`.",
        ]
    if fallbacks:
        out += ["", "Rulesets played by `Hand` (the fused path does not implement a rule they use):", ""]
        out += [f"- {rid}: {why}" for rid, why in fallbacks.items()]
    print("\n".join(out))
    return 0




def sandwich(rate: Callable[[str, int], float], rid: str, players: list[int]) -> dict[tuple[str, int], list[float]]:
    """One round of a ruleset's rows, each run by `rate(ruleset, players)`, in an order that
    cancels a steady drift of the machine's speed: sv, the ruleset at each of its player
    counts, at 2 again, then sv again (the two runs of sv around the same middle as the two
    at 2 players). Its runs by (ruleset, players), in order. sv is not run beside itself; a
    ruleset not played by 2 has its rows alone."""
    runs: dict[tuple[str, int], list[float]] = {}
    order = [(rid, n) for n in players]
    if 2 in players and len(players) > 1:
        order.append((rid, 2))
    if 2 in players and rid != "sv":
        order = [("sv", 2), *order, ("sv", 2)]
    for r, n in order:
        runs.setdefault((r, n), []).append(rate(r, n))
    return runs


def near_goal(shares: dict[tuple[str, int], list[float]]) -> list[str]:
    """The rulesets with a share (of sv at 2 players, or of 2 players at 3 and 4) whose median
    is within `NEAR` of the goal, 75%, above it or below: `main` measures their rows for as many
    rounds again and takes the medians of all of them. Runs on this machine scatter by a tenth
    (fr and no-opening-escoba, which differ only in whether the opening 15 scores, came out 9
    points apart in one run), which would otherwise decide a share a few points from 75% by
    chance; every ruleset near the goal is measured again, above it as below, and all its
    rounds count, so the extra rounds favour no verdict."""
    return sorted({rid for (rid, _), v in shares.items() if abs(statistics.median(v) - 0.75) < NEAR})


def round_shares(runs: dict[tuple[str, int], list[float]], rid: str, players: list[int]) -> dict[int, float]:
    """A round's shares (`sandwich`'s runs): at 2 players, the mean of the ruleset's 2-player
    runs over the mean of sv's; at 3 and 4, each run over the mean of the 2-player runs."""
    if 2 not in players:
        return {}
    two = statistics.fmean(runs[(rid, 2)])
    found = {2: two / statistics.fmean(runs[("sv", 2)])}
    found.update({n: runs[(rid, n)][0] / two for n in players if n != 2})
    return found


def row_rate(python: list[str], env: dict[str, str], rid: str, players: int, hands: int) -> float:
    """Hands per CPU-second of `simulate()` in a new process (`ROW`)."""
    result = subprocess.run([*python, "-c", ROW, rid, str(players), str(hands)], capture_output=True, text=True,
                            env=env, check=True)  # fmt: skip
    return float(result.stdout)


def filled_rate(python: list[str], env: dict[str, str], rid: str, hands: int) -> tuple[float, int]:
    """Hands per CPU-second of a second run of `simulate()` in a new process (`FILLED_ROW`),
    and how many tables of values the first run left in the capture memo."""
    result = subprocess.run([*python, "-c", FILLED_ROW, rid, str(hands)], capture_output=True, text=True,
                            env=env, check=True)  # fmt: skip
    rate, tables = result.stdout.split()
    return float(rate), int(tables)


def build_c_loop(source: Path) -> str | None:
    """The C yardstick built with `cc -O2` in a temporary folder (None without it or a compiler)."""
    compiler = shutil.which("cc")
    if compiler is None or not source.is_file():
        return None
    binary = Path(tempfile.mkdtemp(prefix="escoba-bench-")) / "limit_sim"
    subprocess.run([compiler, "-O2", "-o", str(binary), str(source)], check=True)
    return str(binary)


def wall(argv: list[str], env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start


def say(text: str) -> None:
    print(f"· {text}", file=sys.stderr, flush=True)


def _met(ok: bool | None) -> str:
    return "yes" if ok else "**no**"


def _short(path: str) -> str:
    try:
        return os.path.relpath(path, ROOT)
    except ValueError:
        return path


def _first(data: bytes) -> str:
    lines = data.decode(errors="replace").strip().splitlines()
    return lines[-1] if lines else "no message"


if __name__ == "__main__":
    sys.exit(main())
