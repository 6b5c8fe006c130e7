"""Wall and CPU time of `escoba diff`, interleaved with the plain Python yardstick. A benchmark,
never a test: other work on the machine moves it.

    python benchmarks/diff.py [--hands N] [--jobs J] [--bots SPEC] [--rounds R] [A B]
    python benchmarks/diff.py --bots expert --rounds 3      # the skilled-play goal (docs/bots.md)
    python benchmarks/diff.py base fr --defaults            # `escoba diff base fr`, nothing else

Goals on a 2-core machine: `escoba diff da sv --hands 10000 --jobs 2` under 10 s with random
bots, and under 2 minutes with the strongest bot `diff` uses (both sides played by it).

Each round runs a fresh `escoba diff` process (start-up and imports count as they do for a
user), then the plain yardstick loop `escoba bench` uses (`../shared/bench/limit_sim.py`, or
`--yardstick PATH`; `escoba.cli.bench.find_yardstick`) for `--yardstick-hands` hands: how fast
the machine is at that moment, in hands per CPU-second. The figures are the medians of the rounds, with each round's wall
and CPU time (user + system of the child) and the load average before and after it: on a
shared machine wall time moves with the load, CPU time much less.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

from escoba.cli.bench import find_yardstick


def timed(command: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a", nargs="?", default="da")
    parser.add_argument("b", nargs="?", default="sv")
    parser.add_argument("--hands", type=int, default=10000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--bots", help="the --bots of escoba diff (default: diff's own default)")
    parser.add_argument("--defaults", action="store_true", help="time `escoba diff A B` with no options, as a user first runs it")
    parser.add_argument("--rounds", "--repeat", type=int, default=3, dest="rounds")
    parser.add_argument("--yardstick", help="the plain loop to run between rounds (default: as escoba bench finds it)")
    parser.add_argument("--yardstick-hands", type=int, default=20000)
    return parser


def round_line(r: int, shown: str, wall: float, cpu: float, loads: tuple[float, float], speed: float) -> str:
    return (f"round {r}: {shown}: wall {wall:6.1f} s, cpu {cpu:6.1f} s, load {loads[0]:.1f} -> {loads[1]:.1f}; "
            f"yardstick {speed:,.0f} hands per cpu-s")  # fmt: skip


def median_line(rounds: int, shown: str, walls: list[float], cpus: list[float], speeds: list[float]) -> str:
    return (f"median of {rounds} rounds: {shown}: wall {statistics.median(walls):.1f} s, cpu {statistics.median(cpus):.1f} s; "
            f"yardstick {statistics.median(speeds):,.0f} hands per cpu-s")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    command = [sys.executable, "-m", "escoba", "diff", args.a, args.b]
    if not args.defaults:
        command += ["--hands", str(args.hands), "--jobs", str(args.jobs)] + (["--bots", args.bots] if args.bots else [])
    shown = " ".join(["escoba", *command[3:]])
    yardstick = find_yardstick(args.yardstick)
    print(f"yardstick: {yardstick['path']}")
    walls, cpus, speeds = [], [], []
    for r in range(args.rounds):
        before = os.getloadavg()[0]
        wall, cpu = timed(command)
        loads = (before, os.getloadavg()[0])
        walls.append(wall)
        cpus.append(cpu)
        _, yard_cpu = timed([*yardstick["argv"], str(args.yardstick_hands)])
        speeds.append(args.yardstick_hands / max(yard_cpu, 0.01))
        print(round_line(r + 1, shown, wall, cpu, loads, speeds[-1]), flush=True)
    print(median_line(args.rounds, shown, walls, cpus, speeds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
