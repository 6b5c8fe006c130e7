"""Count, for every mutant engine (tests/engines/mutants.py), the golden cases it fails.

    python scripts/mutant_kills.py                 # every mutant, the whole bundled corpus
    python scripts/mutant_kills.py refusal-removes-card thirty-splits-everywhere

tests/test_mutants.py stops at three kills per mutant (enough to pass); this script runs each
mutant through every case, in process, and prints one line per mutant: the number of cases it
diverges on, then the hand-audited ones (probes, rules, text) by id, and the cases it refused.
Exit 1 if a mutant diverges on fewer than three cases or fails one by crashing, timing out or
breaking the protocol (a broken mutant).
"""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

from escoba.conformance.runner import Entry, Runner, collect
from escoba.protocol.client import InProcessSession

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "engines"))

from mutants import MUTANTS

AUDITED = ("probes", "rules", "text")


def folder(entry: Entry) -> str:
    return entry.case.path.parent.name if entry.case is not None and entry.case.path is not None else ""


def main(names: list[str]) -> int:
    entries = collect()
    bad = 0
    for name in names or sorted(MUTANTS):
        runner = Runner(partial(InProcessSession, MUTANTS[name]), stop_at_divergence=True)
        killed: list[Entry] = []
        refused: list[str] = []
        broken: list[str] = []
        try:
            for entry in entries:
                result = runner.run_one(entry)
                if result.outcome == "fail" and result.cls not in (None, "protocol"):
                    killed.append(entry)  # a divergence: what tests/test_mutants.py counts
                elif result.outcome == "error":
                    refused.append(entry.id)
                elif result.outcome != "pass":
                    broken.append(f"{entry.id} {result.outcome} {result.cls}")
        finally:
            runner.close()
        audited = [e.id for e in killed if folder(e) in AUDITED]
        flag = "" if len(killed) >= 3 and not broken else "  <-- " + ("broken: " + "; ".join(broken) if broken else "too few")
        also = f"; refused {' '.join(refused)}" if refused else ""
        bad += bool(flag)
        print(f"{name:36} {len(killed):3} cases ({len(audited)} audited: {' '.join(audited)}{also}){flag}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
