"""The suite has teeth: every mutant engine (one rule wrong, tests/engines/mutants.py) fails at
least one golden case, while the reference engine passes them all.

A mutant that survives means a rule point no case pins: the fix is a new golden case, not a
change here. Cases waiting to move into conformance/cases/ may wait in tests/engines/extra_cases/ (empty now).
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

import pytest

from escoba.conformance.runner import Entry, Runner, collect
from escoba.protocol.client import InProcessSession, SubprocessSession

ENGINES = Path(__file__).parent / "engines"
EXTRA = ENGINES / "extra_cases"
sys.path.insert(0, str(ENGINES))

from mutants import DESCRIPTIONS, MUTANTS  # noqa: E402


@cache
def suite() -> tuple[Entry, ...]:
    entries = collect()
    if EXTRA.is_dir() and any(EXTRA.rglob("*.json")):
        known = {e.id for e in entries}
        entries += [e for e in collect(EXTRA) if e.id not in known]
    return tuple(entries)


@cache
def first_kill(name: str) -> tuple[str, str, str | None]:
    """(case id, outcome, class) of the first case the mutant does not pass."""
    report = Runner(lambda: InProcessSession(MUTANTS[name])).run(suite(), first_failure=True)
    last = report.results[-1]
    return last.id, last.outcome, last.cls


def test_there_are_enough_mutants():
    """At least 25 distinct rule bugs, each described."""
    assert len(MUTANTS) >= 25
    assert set(DESCRIPTIONS) == set(MUTANTS)


def test_extra_cases_load_and_pass_the_reference():
    """Cases kept beside the mutants are valid cases the reference engine passes."""
    report = Runner(InProcessSession).run([e for e in suite() if e.case is None or str(EXTRA) in str(e.case.path)])
    assert all(r.outcome == "pass" for r in report.results), [(r.id, r.outcome, r.message) for r in report.results]


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_mutant_is_killed(name):
    """The mutant fails a case by diverging (not by crashing or refusing: that would be a
    broken mutant, not a caught bug)."""
    case, outcome, cls = first_kill(name)
    assert outcome != "pass", f"mutant {name!r} ({DESCRIPTIONS[name]}) passes every case: a golden case is missing"
    assert outcome == "fail" and cls not in (None, "protocol"), f"{name}: {case} {outcome} {cls}"


@pytest.mark.parametrize("name", ["capture-optional", "leftovers-to-dealer", "primera-capture-values"])
def test_mutants_are_killed_through_the_subprocess_path(name):
    """A mutant served by tests/engines/mutant_engine.py fails the same case over a real pipe."""
    case, _, cls = first_kill(name)
    entry = next(e for e in suite() if e.id == case)
    argv = [sys.executable, str(ENGINES / "mutant_engine.py"), name]
    report = Runner(lambda: SubprocessSession(argv, timeout=20)).run([entry])
    result = report.results[0]
    assert (result.outcome, result.cls) == ("fail", cls)
    assert report.engine.name == f"mutant-{name}"
