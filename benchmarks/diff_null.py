"""How often `escoba diff` claims a headline difference that is not there: a ruleset against a
relabelled copy of itself (escoba.diff.null), seed after seed. A benchmark, never a test (the
short version is tests/test_diff_null.py).

    python benchmarks/diff_null.py [--ruleset da] [--seeds 40] [--hands 2000] [--matches 50] [--jobs 2]
                                   [--bots greedy] [--second-bots random]

Each seed is one default `escoba diff` of the ruleset against the copy (the bots and the second
strength of cli/diff.py's DEFAULT_BOTS unless given; `--second-bots none` for one strength):
2,000 hands and 50 matches per ruleset under each strength, the headline rows of both corrected
together as the diff corrects them. A seed *rejects* when some headline's interval excludes zero
(Holm bounds the share of such seeds at 5%); it *claims* when some headline is labelled higher
or lower (a rejection inside the negligible band is labelled `below`, not a claim). Prints a line
per seed, then the shares with 95% Clopper–Pearson intervals, beside the share four (or eight)
plain 95% intervals would have claimed on the same runs.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import as_completed
from typing import Any

from escoba.cli.diff import DEFAULT_BOTS
from escoba.diff.distributions import beta_quantile
from escoba.diff.null import NullRun, null_runs
from escoba.processes import worker_pool
from escoba.rules import load_resolved


def one_seed(ruleset: str, seed: int, hands: int, matches: int, bots: list[tuple[str, ...]]) -> tuple[NullRun, float]:
    start = time.process_time()
    found = null_runs(load_resolved(ruleset).doc, [seed], hands, matches, bots)[0]
    return found, time.process_time() - start


def share(k: int, n: int) -> str:
    """k of n as a percentage with its 95% Clopper–Pearson interval."""
    low = beta_quantile(0.025, k, n - k + 1) if k else 0.0
    high = beta_quantile(0.975, k + 1, n - k) if k < n else 1.0
    return f"{k} of {n} ({100 * k / n:.1f}%, 95% interval {100 * low:.1f}–{100 * high:.1f}%)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ruleset", default="da")
    parser.add_argument("--seeds", type=int, default=40)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--matches", type=int, default=50)
    parser.add_argument("--bots", default=DEFAULT_BOTS[0])
    parser.add_argument("--second-bots", default=DEFAULT_BOTS[1])
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    bots = [tuple(args.bots.split(","))]
    if args.second_bots != "none":
        bots.append(tuple(args.second_bots.split(",")))
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    print(f"null diff of {args.ruleset} against its relabelled copy: {args.seeds} seeds, {args.hands} hands and "
          f"{args.matches} matches each, bots {' then '.join(','.join(b) for b in bots)}; load {os.getloadavg()[0]:.1f}",
          flush=True)  # fmt: skip
    runs: list[NullRun] = []
    cpu = 0.0
    wall = time.perf_counter()
    with worker_pool(args.jobs, len(seeds)) as pool:
        futures: dict[Any, int] = {pool.submit(one_seed, args.ruleset, s, args.hands, args.matches, bots): s for s in seeds}
        for future in as_completed(futures):
            found, seconds = future.result()
            runs.append(found)
            cpu += seconds
            marks = [f"{v.headline.key}={v.status}" for v in found.rejections]
            print(f"seed {found.seed}: {'; '.join(marks) if marks else 'nothing'}", flush=True)
    wall = time.perf_counter() - wall
    n = len(runs)
    rejected = sum(1 for r in runs if r.rejections)
    claimed = sum(1 for r in runs if r.claims)
    plain = sum(1 for r in runs if any(v.difference.p_value < 0.05 for s in r.strengths for v in s))
    rows = sum(len(s) for s in runs[0].strengths)
    print(f"seeds whose headlines (corrected together, Holm over {rows} rows) exclude zero somewhere: {share(rejected, n)}")
    print(f"seeds labelling a headline higher or lower: {share(claimed, n)}")
    print(f"seeds where {rows} plain 95% intervals would exclude zero somewhere: {share(plain, n)}")
    print(f"{cpu:.0f} CPU-seconds in the workers ({cpu / n:.1f} a seed), {wall:.0f} s wall, load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    sys.exit(main())
