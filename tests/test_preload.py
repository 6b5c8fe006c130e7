"""Cases collected `lazy` load later: in a thread of their own while a run's first cases go to
the engine (`preload`, what `escoba conformance` does), or when a runner first needs one.
Either way the entries, and the run's results, are those of loading them all first."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

from escoba.conformance.runner import Entry, Runner, collect, preload
from escoba.protocol.client import InProcessSession
from escoba.transcript.case import cases_dir


def _shown(entries: list[Entry]) -> list[tuple]:
    return [(e.id, e.ruleset, e.case is not None and e.case.id, str(e.problem) if e.problem else None) for e in entries]


def _folder(tmp_path: Path) -> Path:
    """A few bundled cases and a broken one, in a folder of the user's (checked in full)."""
    for path in sorted(cases_dir().rglob("opening.*.json"))[:4]:
        shutil.copy(path, tmp_path / path.name)
    (tmp_path / "broken.one.json").write_text('{"format": 1, "id": "broken.one", "ruleset": "fr"', encoding="utf-8")
    return tmp_path


def test_lazy_entries_are_found_at_once_and_loaded_as_eager_ones(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    lazy = collect(folder, lazy=True)
    assert lazy and all(e.case is None and e.problem is None and e.path is not None for e in lazy)
    finished = threading.Event()
    preload(lazy, finished.set).join(60)
    assert finished.is_set() and all(e.path is None for e in lazy)
    eager = _shown(collect(folder))
    assert any(problem for *_, problem in eager)  # the broken case is broken both ways
    assert _shown(lazy) == eager


def test_a_lazy_selection_by_ruleset_is_the_eager_one() -> None:
    for rulesets in (["fr"], ["sv", "base"]):
        lazy = [e.load() for e in collect(patterns=["*"], rulesets=rulesets, lazy=True)]
        assert _shown(lazy) == _shown(collect(patterns=["*"], rulesets=rulesets))


def test_a_run_loads_what_the_preloader_has_not_reached(tmp_path: Path) -> None:
    """No preloader at all: each case loads when its turn comes (and the case after it, to be
    sent ahead), with the same results as loaded cases."""
    folder = _folder(tmp_path)
    lazy = Runner(InProcessSession).run(collect(folder, lazy=True))
    eager = Runner(InProcessSession).run(collect(folder))
    outcomes = [(r.id, r.outcome, r.message) for r in eager.results]
    assert [(r.id, r.outcome, r.message) for r in lazy.results] == outcomes
    assert {o for _, o, _ in outcomes} == {"pass", "broken-case"}


def test_the_rule_points_of_the_report_are_extracted_once_per_ruleset(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`escoba conformance` extracts them while its engine works (`ruleset_points`, once its cases
    are loaded); the report then finds them, the same as extracting them there."""
    from escoba import rules
    from escoba.conformance import profile

    doc = collect(patterns=["opening.*"])[0].case.document
    first = profile.ruleset_points(doc)
    assert first == [(p.key, p.label, p.concern) for p in rules.points.positions(doc)]
    monkeypatch.setattr(rules.points, "positions", lambda doc: [])  # extracting again would find nothing
    assert profile.ruleset_points(doc) == first
