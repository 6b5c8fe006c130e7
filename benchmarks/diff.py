"""Wall and CPU time of `escoba diff` (the goal: `escoba diff da sv --hands 10000 --jobs 2`
under 10 s on a 2-core machine). A benchmark, never a test: other work on the machine moves it.

    python benchmarks/diff.py [--hands N] [--jobs J] [--repeat R] [A B]

Each run is a fresh `escoba diff` process, so start-up and imports count as they do for a user;
the best wall time of the runs is the figure to quote, with the CPU time beside it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a", nargs="?", default="da")
    parser.add_argument("b", nargs="?", default="sv")
    parser.add_argument("--hands", type=int, default=10000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    command = [sys.executable, "-m", "escoba", "diff", args.a, args.b, "--hands", str(args.hands), "--jobs", str(args.jobs)]
    runs = []
    for _ in range(args.repeat):
        before = os.times()
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - start
        after = os.times()
        cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
        runs.append((wall, cpu))
        print(f"wall {wall:5.2f} s   cpu {cpu:5.2f} s   load {os.getloadavg()[0]:.1f}")
    wall, cpu = min(runs)
    print(f"best: {wall:.2f} s wall ({cpu:.2f} s cpu) for escoba diff {args.a} {args.b} --hands {args.hands} --jobs {args.jobs}")


if __name__ == "__main__":
    main()
