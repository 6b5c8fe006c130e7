"""escoba explore and escoba shrink: seeded games against the reference until an engine departs,
each divergence shrunk to the smallest case that still shows it (escoba.explore)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from escoba.conformance.runner import Runner, collect
from escoba.explore.harness import Harness, case_length, signature
from escoba.explore.lockstep import explore, write_cases
from escoba.explore.shrinking import WHY_NOT_SHORTER, shrink, spot
from escoba.protocol.client import InProcessSession
from escoba.transcript.case import cases_dir, is_ruleset_path, load_case

ENGINES = Path(__file__).parent / "engines"
sys.path.insert(0, str(ENGINES))

from mutants import BEYOND_EXPLORE, MUTANTS  # noqa: E402


def mutant(name: str) -> Harness:
    return Harness(lambda: InProcessSession(MUTANTS[name]))


def test_the_reference_engine_never_departs_from_itself():
    """Forty games on three rulesets, probes and matches included: the reference finds nothing."""
    run = explore(InProcessSession, rulesets=["base", "da-app", "de-jokers"], games=40, seed=3)
    assert run.ok and run.findings == []
    assert run.games == 40 and run.cases > 40  # the probes ran too


def test_a_divergence_is_shrunk_to_the_first_decision_of_a_two_player_deal(tmp_path):
    """Optional capture where base forces it: found at once, shrunk to a deal and one legal
    list (4 events), written as a case that escoba conformance fails the same way."""
    run = explore(mutant("capture-optional"), games=20, stop_after=1)
    [finding] = run.findings
    assert finding.signature == ("fail", "capture.compulsory", "legal-moves")
    case = finding.case
    assert case["kind"] == "perft" and case["players"] == 2 and case["hands"][0]["moves"] == []
    assert [e["event"] for e in case["expect"]] == ["hand_start", "deal", "table", "legal"]
    assert any(note.startswith("Shrunk by escoba shrink") for note in case["notes"])
    write_cases(run.findings, tmp_path)
    report = Runner(lambda: InProcessSession(MUTANTS["capture-optional"])).run(collect(tmp_path))
    [result] = report.results
    assert (result.outcome, result.cls, result.divergence.point) == ("fail", "legal-moves", "capture.compulsory")
    assert Runner(InProcessSession).run(collect(tmp_path)).results[0].outcome == "pass"


def test_a_match_divergence_is_shrunk_to_fewer_hands():
    """Leftovers to the dealer, first seen in a long match: the case ends up one hand long."""
    harness = mutant("leftovers-to-dealer")
    run = explore(harness, rulesets=["da-30"], games=50, stop_after=1)
    [finding] = run.findings
    assert finding.signature == ("fail", "leftovers.to", "leftovers")
    assert finding.case["target"] is None and len(finding.case["hands"]) == 1
    assert case_length(finding.case) <= case_length(finding.found)


def test_shrink_keeps_the_rule_point_and_class():
    """Shrinking a bundled failing case keeps its signature and never grows it."""
    case = load_case(next(cases_dir().rglob("compulsory.card.da.json")))
    data = json.loads(case.path.read_text(encoding="utf-8"))
    harness = mutant("capture-optional")
    before = harness.run(data)
    shrunk = shrink(harness, data, before)
    assert signature(shrunk.result) == signature(before) == ("fail", "capture.compulsory", "legal-moves")
    assert shrunk.length < case_length(data) and shrunk.steps and shrunk.tried >= len(shrunk.steps)


def test_a_hand_end_divergence_says_why_it_is_a_whole_hand():
    """The velo never scored: the case must play the hand out, and its notes say so."""
    run = explore(mutant("velo-ignored"), games=10, stop_after=1)
    [finding] = run.findings
    notes = " ".join(finding.case["notes"])
    assert WHY_NOT_SHORTER in notes and "whole hand" in notes


def test_spot_names_the_hand_and_decision_of_an_event():
    """Event indices map to (hand, plays before it, is it a decision's legal event)."""
    expect = [
        {"event": "hand_start"}, {"event": "deal"}, {"event": "table"},
        {"event": "legal"}, {"event": "play"}, {"event": "legal"}, {"event": "play"}, {"event": "hand_end"},
        {"event": "hand_start"}, {"event": "legal"},
    ]  # fmt: skip
    assert spot(expect, 2) == spot(expect, 0)
    assert (spot(expect, 3).plays, spot(expect, 3).at_legal) == (0, True)
    assert (spot(expect, 4).plays, spot(expect, 4).at_legal) == (1, False)
    assert (spot(expect, 9).hand, spot(expect, 9).plays) == (1, 0)


def test_explore_through_the_command_line(tmp_path):
    """escoba explore on a mutant served over a pipe: exit 1, the finding, a case file that
    escoba conformance --cases-dir fails at the same rule point."""
    engine = f"{sys.executable} {ENGINES / 'mutant_engine.py'} opening-15-not-escoba"
    out = tmp_path / "found"
    cmd = [sys.executable, "-m", "escoba", "explore", "--engine", engine, "--ruleset", "da", "--games", "30", "--first", "--out", str(out)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stderr
    assert "FOUND opening_table.escobas (opening-table)" in done.stdout
    [case] = sorted(out.glob("*.json"))
    again = subprocess.run(
        [sys.executable, "-m", "escoba", "conformance", "--engine", engine, "--cases-dir", str(out), "--format", "json"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    report = json.loads(again.stdout)
    assert [r["outcome"] for r in report["cases"]] == ["fail"]
    assert report["cases"][0]["divergence"]["point"] == "opening_table.escobas"
    assert load_case(case).kind in ("game", "perft", "probe")


def test_explore_json_on_the_reference_engine():
    """--format json: a machine-readable run; the reference engine agrees with itself (exit 0)."""
    cmd = [sys.executable, "-m", "escoba", "explore", "--games", "4", "--format", "json"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["ok"] is True and data["games"] == 4 and data["findings"] == []


def test_explore_where_nothing_could_run_fails_with_the_reason():
    """An engine whose declared features skip every game (a plain base engine sent da's
    thresholds) is never OK: exit 1, one sentence saying why, in the text and in the JSON."""
    engine = f"{sys.executable} {Path(__file__).parents[1] / 'docs' / 'examples' / 'minimal_engine.py'}"
    cmd = [sys.executable, "-m", "escoba", "explore", "--engine", engine, "--ruleset", "da", "--games", "3"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("FAILED: no case could run: ") and "which the engine does not declare" in last, done.stdout
    assert "OK" not in done.stdout
    data = json.loads(subprocess.run([*cmd, "--format", "json"], capture_output=True, text=True, timeout=600).stdout)
    assert data["ok"] is False and data["findings"] == [] and data["nothing_ran"].startswith("no case could run: ")


def test_explore_at_no_table_the_engine_plays_fails_with_the_reason():
    """A two-player engine explored at three players plays no game: exit 1, and the reason."""
    engine = f"{sys.executable} {ENGINES / 'fake_engine.py'} two-players"
    cmd = [sys.executable, "-m", "escoba", "explore", "--engine", engine, "--players", "3", "--games", "2"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stderr
    assert done.stdout.strip().splitlines()[-1].startswith("FAILED: no game could run: 2 of 2 games had no table size")


@pytest.mark.parametrize(
    "args, message",
    [
        (["--engine", "/nonexistent/engine"], "the engine did not start (/nonexistent/engine)"),
        (["--games", "0"], "--games must be at least 1"),
        (["--players", "2,9"], "--players: table sizes from 2 to 4"),
        (["--ruleset", "nosuch"], "nosuch"),
        (["--ruleset", str(Path(__file__).parents[1] / "spec" / "house" / "escoba-doble.yaml"), "--out", "found"], "name a bundled ruleset"),
    ],
)
def test_explore_usage_errors_are_one_line_and_exit_2(args, message):
    """A missing engine, a bad count, an unknown ruleset, case files for a ruleset file: one
    line on stderr, exit 2."""
    done = subprocess.run([sys.executable, "-m", "escoba", "explore", *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and message in done.stderr
    assert "Traceback" not in done.stderr


def test_shrink_command_writes_a_smaller_case(tmp_path):
    """escoba shrink on a bundled case a mutant fails: a smaller case, written, same failure."""
    engine = f"{sys.executable} {ENGINES / 'mutant_engine.py'} capture-optional"
    source = next(cases_dir().rglob("compulsory.card.da.json"))
    done = subprocess.run(
        [sys.executable, "-m", "escoba", "shrink", str(source), "--engine", engine, "--out", str(tmp_path), "--format", "json"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["divergence"] == "capture.compulsory (legal-moves)"
    shrunk = load_case(Path(report["shrunk"]["path"]))
    assert shrunk.id == "compulsory.card.da.shrunk" and len(shrunk.expect) < len(load_case(source).expect)


def test_shrink_command_on_a_passing_case_exits_1(tmp_path):
    """The reference engine passes every bundled case: nothing to shrink, exit 1."""
    source = next(cases_dir().rglob("compulsory.card.da.json"))
    done = subprocess.run([sys.executable, "-m", "escoba", "shrink", str(source), "--out", str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 1 and "nothing to shrink" in done.stdout
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(set(MUTANTS) - BEYOND_EXPLORE))  # tests/engines/mutants.py says why
def test_explore_finds_every_mutant_and_shrinks_it(name, tmp_path):
    """Within 200 games of the ruleset of the first bundled case that kills it, explore finds
    the mutant; the shrunk case, written as a file, fails the same way; and no bundled case
    shorter than it kills the mutant, unless its notes say why it cannot be shorter."""
    from test_mutants import suite

    # The cases of bundled rulesets (the coverage cases name a ruleset file beside them).
    bundled = [e for e in suite() if e.case is not None and not is_ruleset_path(e.case.ruleset)]
    ruleset = Runner(lambda: InProcessSession(MUTANTS[name])).run(bundled, first_failure=True).results[-1].ruleset
    run = explore(mutant(name), rulesets=[ruleset], games=200, stop_after=1)
    assert run.findings, f"{name}: no divergence in 200 games of {ruleset}"
    [finding] = run.findings
    write_cases([finding], tmp_path)
    [again] = Runner(lambda: InProcessSession(MUTANTS[name])).run(collect(tmp_path)).results
    assert signature(again) == finding.signature
    length = case_length(finding.case)
    shorter = [e for e in bundled if len(e.case.expect) < length]
    results = Runner(lambda: InProcessSession(MUTANTS[name])).run(shorter, first_failure=True).results
    if results and results[-1].outcome != "pass":
        notes = " ".join(finding.case["notes"])
        assert WHY_NOT_SHORTER in notes, f"{name}: {results[-1].id} ({len(results[-1].case.expect)} events) kills it, the shrunk case has {length}"
