"""The hand-written baseline loop on its own (the loop itself is `escoba.baseline`).

    python benchmarks/handwritten.py [--hands N]

`escoba bench` runs the same loop beside the interpreter, in the same process.
"""

from __future__ import annotations

import argparse

from escoba.baseline import hands_per_second

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=5000)
    args = parser.parse_args()
    print(f"hand-written loop: {hands_per_second(args.hands):,.0f} hands/s")
