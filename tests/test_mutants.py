"""The suite has teeth: every mutant engine (one rule wrong, tests/engines/mutants.py) fails at
least three golden cases, while the reference engine passes them all.

A mutant that survives, or that only one or two cases kill, means a rule point the suite pins
too thinly (one regenerated `expect` away from a blind spot): the fix is new golden cases, not
a change here. Cases waiting to move into conformance/cases/ may wait in
tests/engines/extra_cases/ (empty now).
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

import pytest

from escoba.conformance.runner import CaseResult, Entry, Runner, collect
from escoba.protocol.client import InProcessSession, SubprocessSession

ENGINES = Path(__file__).parent / "engines"
EXTRA = ENGINES / "extra_cases"
sys.path.insert(0, str(ENGINES))

from mutants import DESCRIPTIONS, MUTANTS  # noqa: E402

KILLS = 3  # independent cases each mutant must fail

# Hand-audited cases first: each pins a point, so a mutant's three kills come soonest from them
# (and the search stops there); then the seeded games, then perft (each replays many lines).
_ORDER = {"probes": 0, "rules": 1, "text": 2, "generated": 3, "perft": 4}


@cache
def corpus() -> tuple[Entry, ...]:
    """The bundled cases in their own order, and the extra ones."""
    entries = collect()
    if EXTRA.is_dir() and any(EXTRA.rglob("*.json")):
        known = {e.id for e in entries}
        entries += [e for e in collect(EXTRA) if e.id not in known]
    return tuple(entries)


@cache
def suite() -> tuple[Entry, ...]:
    """The corpus, hand-audited cases first."""
    folder = lambda e: e.case.path.parent.name if e.case is not None and e.case.path is not None else ""
    return tuple(sorted(corpus(), key=lambda e: _ORDER.get(folder(e), 9)))


def diverged(result: CaseResult) -> bool:
    """A kill: the mutant answered every request and its events differ from the case's."""
    return result.outcome == "fail" and result.cls not in (None, "protocol")


@cache
def kills(name: str) -> tuple[tuple[CaseResult, ...], tuple[CaseResult, ...]]:
    """The first `KILLS` cases the mutant diverges on (fewer if the whole suite lets it by),
    and the cases it failed otherwise on the way (refused, crashed, broke the protocol)."""
    runner = Runner(lambda: InProcessSession(MUTANTS[name]), stop_at_divergence=True)
    found: list[CaseResult] = []
    other: list[CaseResult] = []
    try:
        for entry in suite():
            result = runner.run_one(entry)
            if diverged(result):
                found.append(result)
                if len(found) == KILLS:
                    break
            elif result.outcome != "pass":
                other.append(result)
    finally:
        runner.close()
    return tuple(found), tuple(other)


def test_there_are_enough_mutants():
    """At least 25 distinct rule bugs, each described."""
    assert len(MUTANTS) >= 25
    assert set(DESCRIPTIONS) == set(MUTANTS)


def test_extra_cases_load_and_pass_the_reference():
    """Cases kept beside the mutants are valid cases the reference engine passes."""
    report = Runner(InProcessSession).run([e for e in suite() if e.case is None or str(EXTRA) in str(e.case.path)])
    assert all(r.outcome == "pass" for r in report.results), [(r.id, r.outcome, r.message) for r in report.results]


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_mutant_is_killed_by_three_cases(name):
    """The mutant diverges on at least three cases, and fails no case by crashing, timing out
    or breaking the protocol (that would be a broken mutant, not a caught bug). A refusal is
    no kill but no fault either: a wrong rule can make an engine ask for what a case does not
    give (thirty-without-split wants a redeal of opening.redeal.de-redeal's good table)."""
    found, other = kills(name)
    assert len(found) >= KILLS, f"mutant {name!r} ({DESCRIPTIONS[name]}) diverges only on {[r.id for r in found]}: golden cases are missing"
    broken = [f"{r.id} {r.outcome} {r.cls} {r.message}" for r in other if r.outcome != "error"]
    assert not broken, f"{name}: {broken}"


@pytest.mark.parametrize("name", ["capture-optional", "leftovers-to-dealer", "primera-capture-values", "refusal-removes-card"])
def test_mutants_are_killed_through_the_subprocess_path(name):
    """A mutant served by tests/engines/mutant_engine.py fails the same case over a real pipe."""
    first = kills(name)[0][0]
    entry = next(e for e in suite() if e.id == first.id)
    argv = [sys.executable, str(ENGINES / "mutant_engine.py"), name]
    report = Runner(lambda: SubprocessSession(argv, timeout=20)).run([entry])
    result = report.results[0]
    assert (result.outcome, result.cls) == ("fail", first.cls)
    assert report.engine.name == f"mutant-{name}"
