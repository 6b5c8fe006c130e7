"""The bundled scenarios under declared rules, timed: issue 35's goal is that every bundled case,
run as a scenario of a declared house rule on the reference engine, takes under 5 s wall, the
expected events (computed for those rules, not read from the case files) included.

    python benchmarks/declared_rules.py [--rules spec/house/no-opening-escoba.yaml] [--rounds 5]

Each round runs, one after the other, as whole processes (start-up, imports, the engine's
process included):

- A: `escoba conformance --rules RULES --no-targeted -q` (the bundled scenarios);
- B: `escoba conformance -q` (the bundled cases as they are: the yardstick);
- C: `escoba conformance --rules RULES -q` (with the cases generated for the declared rules).

Rounds are interleaved (A B C, A B C, …) so that the machine's drift from one minute to the next
falls on all three alike; the figures are medians over the rounds: wall seconds, CPU seconds
(the command and every process it waited for: the engine), and A/B taken round by round. The
load average before and after is printed: on a shared machine wall time says as much about
the others as about this code.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time


def timed(command: list[str]) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of the command and its children, exit status)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rules", default="spec/house/no-opening-escoba.yaml", help="the declared rules (default: a house rule on fr)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    args = parser.parse_args()
    escoba = [sys.executable, "-m", "escoba", "conformance", "-q"]
    commands = {
        "A": [*escoba, "--rules", args.rules, "--no-targeted"],
        "B": escoba,
        "C": [*escoba, "--rules", args.rules],
    }
    for name, command in commands.items():  # a first run of each fills the cache folder (parsed YAML, verdicts)
        if timed(command)[2] not in (0, 1):
            print(f"{name} failed: {' '.join(command)}", file=sys.stderr)
            return 1
    load = os.getloadavg()[0]
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(args.rounds):
        for name, command in commands.items():
            wall, cpu, _status = timed(command)
            runs[name].append((wall, cpu))
    end_load = os.getloadavg()[0]
    print(f"{args.rounds} interleaved rounds; load average {load:.1f} at the start, {end_load:.1f} at the end; {os.cpu_count()} CPUs")
    for name, command in commands.items():
        walls, cpus = [w for w, _ in runs[name]], [c for _, c in runs[name]]
        shown = " ".join(command[1:]).replace("-m escoba ", "escoba ")
        print(f"{name} `{shown}`: wall median {statistics.median(walls):.2f} s (runs {', '.join(f'{w:.2f}' for w in walls)}); "
              f"CPU median {statistics.median(cpus):.2f} s")  # fmt: skip
    ratios = [a[0] / b[0] for a, b in zip(runs["A"], runs["B"])]
    print(f"A/B wall, round by round: median {statistics.median(ratios):.2f} ({', '.join(f'{r:.2f}' for r in ratios)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
