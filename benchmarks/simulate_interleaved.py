"""`escoba simulate` hands per CPU-second, interleaved with the plain Python yardstick, medians.

    python benchmarks/simulate_interleaved.py [--hands N] [--rounds R] [--baseline DIR] [RULESET…]

Each round runs, one after the other, `escoba simulate RULESET --hands N` for every ruleset
given (default: sv, the yardstick's rules; base; last-capture-point, whose measure reads the
hand's history so the engine records it), then `/work/shared/bench/limit_sim.py N` if it exists
(or `--yardstick PATH`). With `--baseline DIR` (another checkout, e.g. `git archive main`
unpacked), each simulate also runs from that checkout's package (PYTHONPATH=DIR/reference_impl)
right before this one, so the two are compared on the same load. The figure is the median of
the rounds of hands per CPU-second (user + system of the child process): the machine is shared,
and CPU time is what moves least with other work. A benchmark, never a test.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def cpu_of(command: list[str], env: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rulesets", nargs="*", default=["sv", "base", "last-capture-point"])
    parser.add_argument("--hands", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", type=Path, help="another checkout to compare with, run from its own package")
    parser.add_argument("--yardstick", type=Path, default=Path("/work/shared/bench/limit_sim.py"))
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(HERE / "reference_impl")}
    runs: dict[str, tuple[list[str], dict[str, str]]] = {}
    for ruleset in args.rulesets:
        command = [sys.executable, "-m", "escoba", "simulate", ruleset, "--hands", str(args.hands)]
        if args.baseline is not None:
            runs[f"baseline {ruleset}"] = (command, {**os.environ, "PYTHONPATH": str(args.baseline / "reference_impl")})
        runs[f"this {ruleset}"] = (command, env)
    if args.yardstick.is_file():
        runs["limit_sim.py"] = ([sys.executable, str(args.yardstick), str(args.hands)], dict(os.environ))
    times: dict[str, list[float]] = {name: [] for name in runs}
    for r in range(args.rounds):
        for name, (command, run_env) in runs.items():
            try:
                cpu = cpu_of(command, run_env)
            except subprocess.CalledProcessError:  # a ruleset the baseline does not know
                continue
            times[name].append(cpu)
            print(f"round {r + 1}: {name:30s} {args.hands / cpu:8.0f} hands/cpu-s   load {os.getloadavg()[0]:.1f}", flush=True)
    print()
    for name, found in times.items():
        if found:
            print(f"median {name:30s} {args.hands / statistics.median(found):8.0f} hands/cpu-s  ({len(found)} rounds)")


if __name__ == "__main__":
    main()
