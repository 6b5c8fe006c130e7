"""Engines that differ from base in exactly one rule point each (tests/engines/one_point.py),
declaring honest features, get a rules profile that names that point and only that point: as
`not claimed` where they declare their value (information, never `differs`), as `differs` where
they cannot declare it (move validation, move order) or declare everything; the reference
engine's profile over the same cases differs nowhere."""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

import pytest

from escoba.conformance.profile import DIFFERS
from escoba.conformance.runner import Entry, Runner, collect
from escoba.protocol.client import InProcessSession, SubprocessSession

ENGINES = Path(__file__).parent / "engines"
sys.path.insert(0, str(ENGINES))

from one_point import ENGINES as ONE_POINT  # noqa: E402


@cache
def cases() -> tuple[Entry, ...]:
    """The hand-audited cases and the probes: every rule point the suite pins, in short hands."""
    return tuple(e for e in collect() if e.case is not None and e.case.audit in ("hand", "text"))


def test_there_are_enough_one_point_engines():
    """At least twelve, each on a different point or value, each described."""
    assert len(ONE_POINT) >= 12
    assert len({(e.point, e.description) for e in ONE_POINT.values()}) == len(ONE_POINT)


@pytest.mark.parametrize("name", sorted(ONE_POINT))
def test_the_profile_names_the_one_point_and_only_it(name):
    """Run over every audited case, the engine's profile names its point and nothing else: not
    claimed where it declares its own value (the cases needing another are not run), differs
    where it cannot declare it; where it ran, every case passed or failed on that point only."""
    engine = ONE_POINT[name]
    report = Runner(lambda: InProcessSession(engine.engine)).run(cases())
    profile = {p.point: p for p in report.profile()}
    differing = [p.point for p in profile.values() if p.status == DIFFERS]
    unclaimed = [p.point for p in profile.values() if p.unclaimed]
    shown = [(r.id, r.outcome, r.message) for r in report.results if r.outcome not in ("pass", "unsupported")]
    if engine.point.startswith("common."):
        assert differing == [engine.point] and not unclaimed, shown
    else:
        assert not differing, shown
        assert unclaimed == [engine.point]
    for r in report.results:
        assert r.outcome in ("pass", "fail", "unsupported"), (r.id, r.outcome, r.message)
        assert {d.point for d in r.divergences} <= {engine.point}, r.id


# 6 of the 8 primera scores this engine changes in the Spanish-deck cases are left unexplained
# ("scoring.primera"), rightly: they differ in their measures only (the engine declares
# `measures`), and no value tried for values.primera is the engine's table (the figures at 8, 9,
# 10 with base's numbers): no bundled ruleset holds it, whatever the comment below once said.
# The other 2 are explained by a table that happens to give the same measures there.
_UNEXPLAINED = pytest.mark.xfail(strict=True, reason="the engine's primera table is no value identify or the runner tries: 6 of 8 rightly unexplained")


# Each engine here runs about a tenth of the corpus, up to 12 s: two run on every CI run, the
# rest with ESCOBA_SLOW=1 or the deep profile (tests/conftest.py).
_EVERY_RUN = {"coins-ties-all", "opening-15-no-escoba"}


def _marks(name: str) -> list:
    return [_UNEXPLAINED] if name == "primera-figures-face-value" else [] if name in _EVERY_RUN else [pytest.mark.whole_run]


@pytest.mark.parametrize("name", [pytest.param(n, marks=_marks(n)) for n in sorted(ONE_POINT)])
def test_declaring_everything_the_differences_are_seen_on_that_point(name):
    """The same engine declaring every feature (so nothing is skipped) fails the cases that
    exercise its point, each divergence attributed to that point: what it does, not only what
    it says."""
    from escoba.protocol.features import point_of, reference_features

    engine = ONE_POINT[name]
    loud = type("Loud", (engine.engine,), {"features": reference_features()})
    chosen = [e for e in cases() if engine.point in {point_of(f) for f in e.case.required_features()} or e.case.kind == "probe"]
    if name == "primera-figures-face-value":
        # Its table (the figures at 8, 9, 10) is no bundled ruleset's (see _UNEXPLAINED); with
        # the Italian deck no value of values.primera reproduces it, and the runner rightly says
        # no rule point explains it (scoring.primera), tested apart below.
        chosen = [e for e in chosen if "sota" in str(e.case.required_features())]
    report = Runner(lambda: InProcessSession(loud)).run(chosen)
    assert report.counts()["fail"] >= 1
    assert [p.point for p in report.profile() if p.status == DIFFERS] == [engine.point]


def test_a_primera_table_no_bundled_ruleset_holds_is_explained_by_no_rule_point():
    """The figures at 8, 9, 10 with the Italian deck (no bundled ruleset's table): the primera
    score diverges and no value of values.primera reproduces it, so the report names the
    category (scoring.primera), never a guess."""
    from escoba.protocol.features import reference_features

    engine = ONE_POINT["primera-figures-face-value"]
    loud = type("Loud", (engine.engine,), {"features": reference_features()})
    chosen = [e for e in cases() if e.id == "capture.any-combination.3p.scopa"]
    report = Runner(lambda: InProcessSession(loud)).run(chosen)
    assert [p.point for p in report.profile() if p.status == DIFFERS] == ["scoring.primera"]


def test_the_reference_engine_differs_nowhere_on_the_same_cases():
    """The baseline the one-point engines are measured against."""
    report = Runner(InProcessSession).run(cases())
    assert not [p.point for p in report.profile() if p.status == DIFFERS]


def test_a_one_point_engine_through_the_subprocess_path():
    """Served over a real pipe, an engine's profile is the same."""
    engine = ONE_POINT["opening-15-no-escoba"]
    argv = [sys.executable, str(ENGINES / "one_point_engine.py"), engine.name]
    chosen = [e for e in cases() if e.id.startswith("opening.")]
    report = Runner(lambda: SubprocessSession(argv, timeout=20)).run(chosen)
    assert [p.point for p in report.profile() if p.unclaimed] == [engine.point]
    assert not [p.point for p in report.profile() if p.status == DIFFERS]
    assert report.engine.name == f"one-point-{engine.name}"
