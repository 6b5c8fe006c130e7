"""Serve one engine of tests/engines/one_point.py over stdin/stdout:
`python tests/engines/one_point_engine.py NAME` (an engine that differs from base in one rule point)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from one_point import ENGINES

from escoba.protocol.server import serve


def main() -> int:
    if len(sys.argv) != 2 or sys.argv[1] not in ENGINES:
        print(f"usage: one_point_engine.py NAME\nengines: {', '.join(sorted(ENGINES))}", file=sys.stderr)
        return 2
    stdout = sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing but replies on the reply stream
    return serve(ENGINES[sys.argv[1]].engine(), sys.stdin.buffer, stdout)


if __name__ == "__main__":
    sys.exit(main())
