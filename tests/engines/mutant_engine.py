"""Serve one mutant engine over stdin/stdout: `python tests/engines/mutant_engine.py NAME`
(or `plays:ID`: the reference engine playing bundled ruleset ID whatever it is sent).

The same JSON-lines protocol as `escoba engine`, with one rule wrong (tests/engines/mutants.py),
so a mutant can be run through the real subprocess path:

    escoba conformance --engine 'python tests/engines/mutant_engine.py capture-optional'
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mutants import MUTANTS, impostor

from escoba.protocol.server import serve


def main() -> int:
    if len(sys.argv) == 2 and sys.argv[1].startswith("plays:"):
        engine = impostor(sys.argv[1].removeprefix("plays:"))
    elif len(sys.argv) != 2 or sys.argv[1] not in MUTANTS:
        print(f"usage: mutant_engine.py NAME\nmutants: {', '.join(sorted(MUTANTS))}", file=sys.stderr)
        return 2
    else:
        engine = MUTANTS[sys.argv[1]]
    stdout = sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing but replies on the reply stream
    return serve(engine(), sys.stdin.buffer, stdout)


if __name__ == "__main__":
    sys.exit(main())
