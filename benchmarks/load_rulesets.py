"""Time to load, resolve, validate and compile every bundled ruleset
(YAML → extends → schema → semantics → compiled Rules the engine runs).

    python benchmarks/load_rulesets.py [--repeat N]

The first pass is cold (imports, the compiled JSON Schema validator, the expression grammar);
later passes reuse the parsed files and show the steady cost.
"""

from __future__ import annotations

import argparse
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5, help="warm passes after the cold one (default 5)")
    args = parser.parse_args()

    start = time.perf_counter()
    from escoba.rules import bundled_ids, load_resolved
    from escoba.rules.compile import compile_rules

    ids = bundled_ids()
    for ruleset in ids:
        compile_rules(load_resolved(ruleset).doc)
    cold = time.perf_counter() - start

    warm = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        for ruleset in ids:
            compile_rules(load_resolved(ruleset).doc)
        warm.append(time.perf_counter() - start)
    print(f"{len(ids)} bundled rulesets: cold {cold * 1000:.0f} ms (imports included), "
          f"warm best {min(warm) * 1000:.0f} ms, {min(warm) / len(ids) * 1000:.1f} ms each")


if __name__ == "__main__":
    main()
