"""Every divergence with its rule point, the rules profile, measures compared on request, and
`unsupported` as a skip: what a run tells an engine author beyond the first failing event."""

from __future__ import annotations

import dataclasses
import json
import sys
from functools import cache
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from escoba.cli.main import main
from escoba.conformance import expectations
from escoba.conformance.profile import AGREES, DIFFERS, NOT_CLAIMED, NOT_EXERCISED
from escoba.conformance.report import render_markdown, render_text, stderr_tail, to_json
from escoba.conformance.runner import Entry, Runner, collect
from escoba.data import schemas_dir
from escoba.protocol.client import InProcessSession
from escoba.protocol.features import reference_features
from escoba.protocol.server import ReferenceEngine

ENGINES = Path(__file__).parent / "engines"
sys.path.insert(0, str(ENGINES))

from mutants import MUTANTS  # noqa: E402


@cache
def bundled() -> dict[str, Entry]:
    return {e.id: e for e in collect()}


def pick(*ids: str) -> list[Entry]:
    return [bundled()[i] for i in ids]


@cache
def report_schema() -> Draft202012Validator:
    return Draft202012Validator(json.loads((schemas_dir() / "report.schema.json").read_text(encoding="utf-8")))


def run(engine: type[ReferenceEngine], entries: list[Entry], **kw):  # type: ignore[no-untyped-def]
    return Runner(lambda: InProcessSession(engine), **kw).run(entries)


def differing(report) -> dict[str, int]:  # type: ignore[no-untyped-def]
    return {p.point: len(p.differ) for p in report.profile() if p.status == DIFFERS}


# ------------------------------------------------------------------------------ every divergence
def test_after_the_first_divergence_the_case_goes_on_and_every_one_is_reported():
    """An engine with optional capture diverges at many decisions of one case; each divergence
    is listed, each attributed to `capture.compulsory` with the value the engine behaves as if
    it had, and the first stays the one that decides the outcome."""
    report = run(MUTANTS["capture-optional"], pick("base.2p.1"))
    result = report.results[0]
    assert result.outcome == "fail" and result.divergence is not None
    assert len(result.divergences) >= 3
    assert {d.point for d in result.divergences} == {"capture.compulsory"}
    assert {d.inferred for d in result.divergences} == {"optional"}
    assert result.divergences[0].index == result.divergence.index == result.index
    assert result.divergence.point == "capture.compulsory"
    text = render_text(report, all_divergences=True)
    assert "rule point: capture.compulsory (the engine behaves as if optional)" in text
    assert f"later divergences ({len(result.divergences) - 1}):" in text
    short = render_text(report)
    assert f"and {len(result.divergences) - 1} later divergences (--all-divergences lists them)" in short
    document = to_json(report)
    assert not list(report_schema().iter_errors(document))
    assert len(document["cases"][0]["divergences"]) == len(result.divergences)


@pytest.mark.parametrize(
    "mutant, point, case",
    [
        ("opening-15-not-escoba", "opening_table.escobas", "opening.fifteen.escoba.da"),
        ("ties-to-all", "scoring.coins.award", "scoring.coins.five-each.base"),
        ("leftovers-to-dealer", "leftovers.to", "leftovers.last-capturer.da"),
        ("hands-before-table", "deal.table_first", "sv.2p.1"),
        ("last-play-escoba-ignored", "capture.escoba_on_last_play", "capture.escoba-on-last-play.de-jokers"),
        ("legal-moves-unsorted", "common.move_order", "base.2p.1"),
        ("shared-win-ignored", "match.tie", "match.tie.shared-win.da-app"),
        ("escobas-one-point", "scoring.escobas.points", "scoring.escobas-double.escoba-doble"),
    ],
)
def test_divergences_name_their_rule_point_and_consequences_follow_it(mutant, point, case):
    """A mutant's divergences are attributed to the point it breaks; what follows from them
    (scores of other piles, hand totals) names the same point."""
    report = run(MUTANTS[mutant], pick(case))
    result = report.results[0]
    assert result.outcome == "fail", result.message
    assert {d.point for d in result.divergences} == {point}, [(d.index, d.point, d.cls) for d in result.divergences]
    assert differing(report) == {point: 1}


def test_a_divergence_no_single_point_reproduces_is_no_rule_points():
    """A primera scored from the capture values, which no reading of the primera table, its
    measure or its award gives, is not blamed on `values.primera`: no rule point explains it,
    with its class and the category it scores; the hand's total is no point's either."""
    report = run(MUTANTS["primera-capture-values"], pick("scoring.primera.missing-suit.da"))
    result = report.results[0]
    assert result.outcome == "fail"
    first = result.divergences[0]
    assert first.cls == "scoring:primera" and first.explained is None and first.point == "scoring.primera"
    assert "rule point: no rule point explains it (scoring:primera; it concerns scoring.primera)" in render_text(report)
    assert all(d.explained is None for d in result.divergences)
    assert set(differing(report)) <= {"scoring.primera", "common.hand_total"}


def test_the_profile_of_a_one_point_mutant_over_the_suite_names_that_point_only():
    """Run over every bundled case, an engine that breaks one rule differs on that point only;
    the other points agree or were not exercised."""
    report = run(MUTANTS["opening-15-not-escoba"], list(bundled().values()))
    profile = {p.point: p for p in report.profile()}
    assert differing(report) == {"opening_table.escobas": report.counts()["fail"]}
    entry = profile["opening_table.escobas"]
    assert entry.inferred == ["none"] and entry.example is not None and entry.example["case"] in entry.differ
    assert profile["capture.compulsory"].status == AGREES
    assert profile["deal.open_hands"].status == NOT_EXERCISED
    values = {v.feature: (v.agree, v.differ) for v in entry.values.values()}
    assert values["opening_table.escobas:per_group"][1] >= 1
    text = render_text(report)
    assert "DIFFERS  opening_table.escobas (opening table: escobas)" in text
    assert "not exercised: " in text and "deal.open_hands" in text
    assert "`opening_table.escobas`" in render_markdown(report)


def test_the_reference_engine_agrees_on_every_exercised_point():
    """The reference engine differs on nothing; the profile lists what the suite never exercises."""
    report = run(ReferenceEngine, list(bundled().values()))
    profile = report.profile()
    assert not [p.point for p in profile if p.status == DIFFERS]
    idle = {p.point for p in profile if p.status == NOT_EXERCISED}
    assert {"deck.scoring_suit", "deal.open_hands", "match.target"} <= idle
    assert "capture.compulsory" not in idle and "common.refusals" not in idle
    document = to_json(report)
    assert not list(report_schema().iter_errors(document))
    assert {p["point"] for p in document["profile"]} >= {"capture.compulsory", "values.primera", "common.deal"}


def test_declaring_another_value_is_not_claimed_never_differs():
    """An engine that honestly declares optional capture is not run on card-level cases; the
    profile says it does not claim that rule (information), never that it differs."""

    class Optional(MUTANTS["capture-optional"]):  # type: ignore[valid-type,misc]
        features = tuple(f for f in reference_features() if not f.startswith("capture.compulsory")) + ("capture.compulsory:optional",)

    report = run(Optional, pick("compulsory.card.da", "compulsory.optional.fr"))
    assert [r.outcome for r in report.results] == ["unsupported", "pass"]
    entry = next(p for p in report.profile() if p.point == "capture.compulsory")
    assert entry.status == AGREES and entry.declared == ["optional"] and entry.unclaimed == ["compulsory.card.da"]
    assert not differing(report)
    alone = run(Optional, pick("compulsory.card.da"))
    entry = next(p for p in alone.profile() if p.point == "capture.compulsory")
    assert entry.status == NOT_CLAIMED
    assert "the engine declares optional; the case needs capture.compulsory:card" in entry.example["message"]
    assert "NOT CLAIMED capture.compulsory: the engine declares optional; 1 case needing another value not run" in render_text(alone)
    assert not list(report_schema().iter_errors(to_json(alone)))


# ------------------------------------------------------------------------------ measures
class OtherPrimera(ReferenceEngine):
    """Reports primera on a 17.5/14/11-style scale: other measures, the same winners."""

    def play_events(self, hand, move):  # type: ignore[no-untyped-def]
        events = super().play_events(hand, move)
        return [
            {**e, "measures": [None if m is None else m * 2 + 1 for m in e["measures"]]}
            if e.get("event") == "score" and e.get("category") == "primera" else e
            for e in events
        ]  # fmt: skip


def test_measures_are_compared_only_for_an_engine_that_declares_them():
    """Other primera measures with the same points pass, with a note, for an engine that does not
    declare `measures`; the same engine declaring it fails on the measure."""
    entries = pick("scoring.primera.tie.base")
    silent = type("Silent", (OtherPrimera,), {"features": tuple(f for f in reference_features() if f != "measures")})
    report = run(silent, entries)
    result = report.results[0]
    assert result.outcome == "pass" and report.ok
    assert result.notes and "score primera: measures" in result.notes[0] and "does not declare `measures`" in result.notes[0]
    strict = run(OtherPrimera, entries)
    assert strict.results[0].outcome == "fail" and strict.results[0].cls == "scoring:primera"


# ------------------------------------------------------------------------------ skips
def two_players_only() -> type[ReferenceEngine]:
    return type("TwoPlayers", (ReferenceEngine,), {"features": tuple(f for f in reference_features() if f not in ("players:3", "players:4"))})


def test_unsupported_is_a_skip_unless_strict():
    """Passing cases and skips make a green run; --strict makes an unpinned skip fail; a run
    where no case could run is not green."""
    entries = pick("base.2p.1", "base.3p.1")
    report = run(two_players_only(), entries)
    assert [r.outcome for r in report.results] == ["pass", "unsupported"]
    assert report.ok and report.ran == 1
    assert "OK: 2 cases: 1 pass, 1 skipped (unsupported)" in render_text(report)
    assert "SKIP" in render_text(report)
    assert not run(two_players_only(), entries, strict=True).ok
    nothing = run(two_players_only(), pick("base.3p.1"))
    assert not nothing.ok and "no case could run" in render_text(nothing)


def test_a_pinned_unsupported_stays_a_skip_and_keeps_strict_green():
    """An expectations file pinning `unsupported` keeps working: the case is a skip (not xfail),
    and even --strict accepts it."""
    pins = expectations.parse({"cases": {"base.3p.1": "unsupported"}})
    report = run(two_players_only(), pick("base.2p.1", "base.3p.1"), expectations=pins, strict=True)
    assert [r.outcome for r in report.results] == ["pass", "unsupported"]
    assert report.ok and report.counts()["xfail"] == 0


def test_cli_exit_status_follows_skips(capsys):
    """The minimal example engine, run as the README says, exits 0 (its skips are not failures),
    and 1 under --strict."""
    example = Path(__file__).parent.parent / "docs" / "examples" / "minimal_engine.py"
    engine = f"{sys.executable} {example}"
    args = ["conformance", "--engine", engine, "--case", "match.several-reach.base", "--case", "base.2p.1"]
    assert main(args) == 0
    assert "skipped (unsupported)" in capsys.readouterr().out
    assert main([*args, "--strict"]) == 1
    assert main(["conformance", "--engine", engine, "--case", "match.several-reach.base"]) == 1
    assert "no case could run" in capsys.readouterr().out


def test_list_honours_format_json(capsys):
    """`conformance --list --format json` prints the cases and their requirements as JSON."""
    assert main(["conformance", "--list", "--case", "opening.thirty-splits.fr", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (case,) = data["cases"]
    assert case["id"] == "opening.thirty-splits.fr" and "opening_table.max_groups:2" in case["requires"]


# ------------------------------------------------------------------------------ stderr
def test_the_stderr_tail_keeps_the_line_that_names_the_problem():
    """A long stack trace after `Error: Cannot find module` keeps that line, then the last lines
    within the byte budget."""
    text = "node:internal/modules/cjs/loader:1080\n  throw err;\n\nError: Cannot find module '/x/engine.js'\n" + "".join(
        f"    at Module._load (node:internal/modules/cjs/loader:{n}:12)\n" for n in range(200)
    )
    tail = stderr_tail(text, budget=1024)
    assert tail[0] == "Error: Cannot find module '/x/engine.js'" and tail[1] == "…"
    assert tail[-1].strip().startswith("at Module._load") and sum(len(t) + 1 for t in tail[2:]) <= 1024
    assert stderr_tail("short\nlines") == ["short", "lines"]


def test_a_crash_report_shows_the_error_line(tmp_path):
    """An engine that dies with a long stderr shows the first error-looking line in the report."""
    script = tmp_path / "dies.py"
    script.write_text(
        "import sys\nsys.stderr.write('Error: Cannot find module engine.js\\n' + 'at frame\\n' * 400)\nsys.exit(1)\n",
        encoding="utf-8",
    )
    from escoba.protocol.client import SubprocessSession

    report = Runner(lambda: SubprocessSession([sys.executable, str(script)], timeout=5)).run(pick("base.2p.1"))
    assert report.results[0].outcome == "crash"
    assert "| Error: Cannot find module engine.js" in render_text(report)


def test_dataclass_fields_of_a_divergence_are_in_the_json():
    """A divergence's point, inferred value and consequence are part of its JSON."""
    from escoba.conformance.compare import Divergence

    names = {f.name for f in dataclasses.fields(Divergence)}
    assert {"point", "inferred", "consequence_of"} <= names
    assert {"point", "inferred", "consequence_of"} <= set(Divergence(0, None, None).to_json())
