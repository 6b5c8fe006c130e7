"""Issue 35's acceptance on the outside engines (tests/engines/outside/, written as others write
engines, each with a manifest of its departures from base and its planted bugs):

- with the engine's own rules.yaml declared, at least 90% of the bundled scenarios run and the
  bug section names each planted bug and nothing else;
- with `base` declared instead, the variant's "seen in this run" names every departure the
  declared rules can express and that some event shows, and nothing but departures and bugs.

A departure is named by the rule point its feature belongs to (`scoring.velo.points:2` is
`scoring.velo.points`, whatever point the manifest files it under; `scoring.cards.ties:all` is
`scoring.cards.award`), and a point the variant
names is one the manifest knows when one of the two contains the other (`scoring.primera`, the
category not scored, for `scoring.primera.award`).

A whole run (every bundled case on a real engine process) costs from 10 s to a minute of CPU:
the default run plays ENGINES_BY_DEFAULT's, the rest run with ESCOBA_SLOW=1 or in the deep
profile (HYPOTHESIS_PROFILE=deep); the scenario count runs always.
"""

from __future__ import annotations

import os
import shlex
import shutil
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from escoba.conformance.declared import OPTION, load_declared
from escoba.conformance.runner import Runner, collect
from escoba.conformance.scenario import Skip, scenario_plan

ROOT = Path(__file__).parent.parent
OUTSIDE = ROOT / "tests" / "engines" / "outside"
MANIFEST = OUTSIDE / "manifest.yaml"

pytestmark = pytest.mark.skipif(not MANIFEST.exists(), reason="the outside engines (tests/engines/outside/) are not in this checkout")


@cache
def engines() -> dict[str, dict]:
    import yaml

    if not MANIFEST.exists():
        return {}
    return {e["name"]: e for e in yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))["engines"]}


def names() -> list[str]:
    return sorted(engines()) or ["(none)"]


def runnable(engine: dict) -> bool:
    return shutil.which(shlex.split(engine["command"])[0]) is not None


@pytest.mark.parametrize("name", names())
def test_nine_in_ten_bundled_scenarios_run_under_each_engines_rules(name):
    """Each outside engine's rules.yaml, declared, makes at least 90% of the bundled cases
    scenarios it can play (at the player counts it plays)."""
    engine = engines()[name]
    rules = load_declared(str(ROOT / engine["rules"]), OPTION)
    plans = [scenario_plan(e.case, rules) for e in collect() if e.case is not None and e.case.players in engine["players"]]
    ran = [p for p in plans if not isinstance(p, Skip)]
    assert len(ran) >= 0.9 * len(list(collect())), [p.reason for p in plans if isinstance(p, Skip)][:5]


def _report(engine: dict, rules: str) -> Any:
    from escoba.protocol.client import SubprocessSession

    argv = shlex.split(engine["command"])
    declared = load_declared(str(ROOT / rules) if rules.endswith(".yaml") else rules, OPTION)
    cwd = os.getcwd()
    os.chdir(ROOT)  # the manifest's commands run from the repository's root
    try:
        return Runner(lambda: SubprocessSession(argv, timeout=20), command=engine["command"], rules=declared).run(collect())
    finally:
        os.chdir(cwd)


def _matches(bug: Any, planted: dict) -> bool:
    """A report's bug is a planted one: its rule point (or the common point its event concerns)
    is one the manifest says the bug can show in, or no rule point explains it and its class is
    one of the bug's events."""
    events = {str(e) for e in planted.get("events", ())}
    cls = str(bug.cls or "")
    by_class = cls.replace("scoring:", "score:") in events or cls.split(":")[0] in {e.split(":")[0] for e in events}
    return bug.point in planted.get("points", ()) or (bug.explained is None and by_class)


SLOW = bool(os.environ.get("ESCOBA_SLOW")) or os.environ.get("HYPOTHESIS_PROFILE") == "deep"
#: the whole runs the default run makes (the cheapest that show the most), per test
ENGINES_BY_DEFAULT: dict[str, set[str]] = {"own": {"aalborg"}, "base": set()}
#: what a run cannot yet tell apart, by engine: known and said, never hidden (strict: an
#: engine that starts passing fails the test, so the mark goes)
KNOWN: dict[tuple[str, str], str] = {
    ("base", "settebello"): (
        "a Scopa engine under base: its captures by value (capture.target none), partnerships, opening table "
        "and last-play rules are hidden behind divergences no rule point explains (common.captures) in almost "
        "every reply"
    ),
}


def whole(test: str) -> list[Any]:
    """The engines' names as parameters of a whole-run test: each marked slow unless the default
    run plays it, and with its known shortfall where it has one."""
    params = []
    for name in names():
        marks = []
        if not SLOW and name not in ENGINES_BY_DEFAULT[test]:
            marks.append(pytest.mark.skip(reason="a whole run on an outside engine: ESCOBA_SLOW=1 or HYPOTHESIS_PROFILE=deep"))
        if (test, name) in KNOWN:
            marks.append(pytest.mark.xfail(strict=True, reason=KNOWN[test, name]))
        params.append(pytest.param(name, marks=marks))
    return params


def registry_key(departure: dict) -> str:
    """The rule point a departure is: the one its feature belongs to, else the manifest's point."""
    from escoba.protocol.features import point_of

    feature = departure.get("feature")
    return (point_of(str(feature)) if feature else None) or str(departure["point"])


def related(a: str, b: str) -> bool:
    """One point is the other, or holds it (a category and one of its fields), or one is a
    values table the other, a category's measure, reads (`values.primera` and
    `scoring.primera.measure`: how the primera is measured, as far as the games tell it)."""
    if a == b or a.startswith(b + ".") or b.startswith(a + "."):
        return True
    table, measure = sorted((a, b), key=lambda p: not p.startswith("values."))
    return table.startswith("values.") and measure == f"scoring.{table.split('.', 1)[1]}.measure"


@pytest.mark.parametrize("name", whole("own"))
def test_declaring_its_rules_the_bugs_are_the_planted_ones(name):
    """With its rules.yaml declared, each engine runs at least 90% of the bundled scenarios, and
    its bug section names each planted bug and nothing else."""
    engine = engines()[name]
    if not runnable(engine):
        pytest.skip(f"{engine['command'].split()[0]} is not installed")
    report = _report(engine, engine["rules"])
    assert report.ran >= 0.9 * len(report.results)
    bugs = report.bugs()
    planted = engine.get("bugs", [])
    unplanted = [b.title for b in bugs if not any(_matches(b, p) for p in planted)]
    assert not unplanted, unplanted
    missed = [p["id"] for p in planted if not any(_matches(b, p) for b in bugs)]
    assert not missed, (missed, [b.title for b in bugs])


@pytest.mark.parametrize("name", whole("base"))
def test_declared_as_base_the_variant_names_every_departure(name):
    """With base declared, the variant's 'seen in this run' names every departure the rules can
    express and an event shows (itself, or the category or field that holds it), and nothing
    that is neither a departure nor a planted bug."""
    engine = engines()[name]
    if not runnable(engine):
        pytest.skip(f"{engine['command'].split()[0]} is not installed")
    report = _report(engine, "base")
    seen = {o.point for o in report.variant().observed}
    departures = [d for d in engine.get("departures", []) if d.get("expressible", True) and d.get("shows_in")]
    known = {registry_key(d) for d in engine.get("departures", [])} | {p for b in engine.get("bugs", []) for p in b.get("points", ())}
    unseen = {registry_key(d) for d in departures if not any(related(p, registry_key(d)) for p in seen)}
    assert not unseen, (unseen, seen)
    unknown = {p for p in seen if not any(related(p, k) for k in known)}
    assert not unknown, (unknown, known)
