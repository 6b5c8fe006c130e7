"""escoba identify: which rules an engine plays, the closest bundled ruleset, each departing
rule point with a minimal case, and a house rule the engine then passes (escoba.explore.inference)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from escoba.explore.harness import Harness
from escoba.explore.inference import identify
from escoba.explore.lockstep import explore
from escoba.protocol.client import InProcessSession
from escoba.rules import load_resolved

ENGINES = Path(__file__).parent / "engines"
sys.path.insert(0, str(ENGINES))

from mutants import BEYOND_IDENTIFY, MUTANTS, impostor  # noqa: E402

IDENTIFIED = sorted(set(MUTANTS) - BEYOND_IDENTIFY)  # the rest: tests/engines/mutants.py says why

GAMES = 16
MOST_NOBODY = {"policy": "most", "ties": "nobody"}
AT_LEAST_20, AT_LEAST_5 = {"policy": "threshold", "more_than": 19}, {"policy": "threshold", "more_than": 4}
# What each mutant plays, read off its description in tests/engines/mutants.py (never off
# identify's output): the ruleset it is sent, the points where it departs from that ruleset
# with the value it plays (None: a category it never scores), and the points where it plays a
# rule no value of the point expresses. A third field, when present, is the games it takes
# for the situation to come up (a tie over the target, an opening 30 that splits...).
EXPECTED: dict[str, tuple[str, dict[str, Any], list[str]] | tuple[str, dict[str, Any], list[str], int]] = {
    "any-combination-as-whole-table": ("de-jokers", {"opening_table.trigger": "all_cards"}, []),
    "bonus-ignored": ("ru-escova", {"scoring.all-coins": None}, []),  # its one bonus: all-sevens is removed
    "capture-compulsory-where-optional": ("fr", {"capture.compulsory": "card"}, []),
    "capture-optional": ("base", {"capture.compulsory": "optional"}, []),
    "card-level-where-hand": ("de", {"capture.compulsory": "card"}, []),
    "dealer-rotates-wrong-way": ("de", {"turn.next_dealer": "left"}, []),
    "engine-picks-the-capture": ("base", {}, ["common.captures"]),
    "escobas-one-point": ("escoba-doble", {"scoring.escobas.points": 1}, []),
    # No value of any point says it: the match's end is no rule point's (common.match).
    "exact-tie-first-side-wins": ("da", {}, ["common.match"]),
    # Two sides reaching the target with the same total is where it first shows: base plays
    # another hand, the engine names the first side, which no value of match.tie says.
    "first-to-reach-wins": ("base", {}, ["common.match"]),
    "hands-before-table": ("sv", {"deal.table_first": False}, []),
    "kinds-ignored": ("cirulla", {"capture.kinds": [{"sum": "target", "priority": "none"}]}, []),
    "joker-escobas-score": ("de-jokers", {"capture.joker_escobas_score": True}, []),
    "last-play-escoba-counted": ("scopa", {"capture.escoba_on_last_play": True}, []),
    "last-play-escoba-ignored": ("de-jokers", {"capture.escoba_on_last_play": False}, []),
    "leader-wrong-side": ("de", {"turn.leader": "dealer_left"}, []),
    "leftovers-are-an-escoba": ("fr", {"leftovers.escoba": True}, []),
    "leftovers-to-dealer": ("da", {"leftovers.to": "dealer"}, []),
    # No value of leftovers.to names the next player: no rule point explains it, and none is named.
    "leftovers-to-next-player": ("base", {}, [""]),
    "legal-moves-duplicated": ("base", {}, ["common.captures"]),
    "legal-moves-unsorted": ("base", {}, ["common.move_order"]),
    "opening-15-not-escoba": ("da", {"opening_table.escobas": "none"}, []),
    "opening-escoba-always": ("ru", {"opening_table.escobas": "per_group"}, []),
    "opening-one-escoba-only": ("fr", {"opening_table.escobas": "one"}, []),
    "opening-total-as-split": ("cirulla", {"opening_table.trigger": "all_cards"}, []),
    "partnership-points-per-player": ("de", {"players.partnerships": []}, []),
    # No reading of the primera table, measure or award gives it: the divergence names the
    # category it scores, no aspect of it (conformance/attribute.py).
    "primera-capture-values": ("base", {}, ["scoring.primera"]),
    # A missing suit counting nothing is one of the primera's readings (rules/points/scoring.py).
    "primera-missing-suit-eligible": (
        "base",
        {"scoring.primera.measure": " + ".join(f"(best(suit(cards, {s}), primera) if count(suit(cards, {s})) > 0 else 0)" for s in ("oros", "copas", "espadas", "bastos"))},
        [],
    ),
    "priorities-ignored": ("scopa", {"capture.kinds": [{"sum": "card", "priority": "none"}]}, []),
    "redeal-ignored": ("de-redeal", {"opening_table.action": "none"}, []),
    "scopa-single-card-first": ("de-jokers", {}, ["common.captures"]),
    "set-aside-as-dealer-takes": ("de-escova31", {"opening_table.action": "dealer_takes"}, []),
    "sevens-count-sixes": ("fr", {}, ["scoring.sevens"]),
    "shared-win-ignored": ("da-app", {"match.tie": "extra_hand"}, []),
    "single-card-captures-missed": ("base", {}, ["common.captures"]),
    "table-before-hands": ("base", {"deal.table_first": True}, []),
    "thirty-without-split": ("base", {"opening_table.trigger": "total"}, []),
    "threshold-as-most": ("da", {"scoring.cards.award": MOST_NOBODY, "scoring.coins.award": MOST_NOBODY}, []),
    # A pile of exactly 20 cards tells "at least 20" from "more than 20": game 30 of seed 0 has one.
    "threshold-at-least": ("da", {"scoring.cards.award": AT_LEAST_20, "scoring.coins.award": AT_LEAST_5}, [], 32),
    "ties-to-all": ("da", {"scoring.primera.award": {"policy": "most", "ties": "all"}}, []),
    "ties-to-nobody": ("most-sevens-all-tied", {"scoring.sevens.award": MOST_NOBODY}, []),
    "turn-wrong-direction": ("de", {"turn.direction": "clockwise"}, []),
    "velo-ignored": ("base", {"scoring.velo": None}, []),
    "whole-table-captures-missed": ("de-jokers", {}, ["common.captures"]),
}


def departures_from(found: Any, sent: str) -> dict[str, Any]:
    """The decided points where the engine departs from the ruleset it was sent, and the
    value it plays there (None: a category not scored)."""
    from escoba.rules.points import positions

    if found.closest == sent:
        return {d.point: d.value for d in found.departures}
    closest = {p.key: p.value for p in positions(load_resolved(found.closest).doc)}
    plays = {**closest, **{d.point: d.value for d in found.departures}}
    return {k: plays.get(k) for k in found.from_sent}


def test_every_mutant_has_an_expectation():
    """The table above covers every bundled mutant engine identify was built to name."""
    assert set(EXPECTED) == set(IDENTIFIED)


@pytest.mark.slow
@pytest.mark.parametrize("name", IDENTIFIED)
def test_identify_names_what_each_mutant_plays(name):
    """Each mutant, sent its ruleset: exactly the departing points it plays (with their values),
    or "no value matches" at the point a rule the DSL cannot express shows, nothing more."""
    sent, departs, unmatched, *more = EXPECTED[name]
    found = identify(lambda: InProcessSession(MUTANTS[name]), ruleset=sent, games=more[0] if more else GAMES, shrinking=False, targeted=False)
    assert sorted(u.point or "" for u in found.unmatched) == sorted(unmatched), found.adopted
    if not unmatched:
        assert departures_from(found, sent) == departs, (found.closest, found.adopted)


# Mutants whose departure shows only in a position seeded games reach by luck (an opening 30
# that does not split; a second hand of a match). Two games alone name neither (nor
# opening-one-escoba-only or opening-total-as-split, which the positions also name: left out
# to keep the file's runtime).
BY_POSITION = ["thirty-without-split", "dealer-rotates-wrong-way"]


@pytest.mark.slow
@pytest.mark.parametrize("name", BY_POSITION)
def test_targeted_positions_name_what_two_games_miss(name):
    """With two seeded games only, the targeted positions (escoba.explore.targeted) name the
    departing point and its value, and the point is decided."""
    sent, departs, _unmatched = EXPECTED[name][:3]
    found = identify(lambda: InProcessSession(MUTANTS[name]), ruleset=sent, games=2, shrinking=False)
    assert found.positions > 0 and departures_from(found, sent) == departs, (found.closest, found.adopted)
    assert set(departs) <= set(found.decided)


@pytest.mark.parametrize("ruleset", ["sv", "de", "da-app"])
def test_identify_names_the_ruleset_an_impostor_plays(ruleset):
    """The reference engine playing `ruleset` while sent base: that ruleset, no departure."""
    found = identify(lambda: InProcessSession(impostor(ruleset)), ruleset="base", games=GAMES, targeted=False)
    assert (found.closest, found.departures, found.unmatched, found.exact) == (ruleset, [], [], True)
    assert "deal.table_first" in found.decided or ruleset != "sv"


def test_the_reference_engine_plays_what_it_is_sent():
    """Sent da, the reference engine plays da: no change to the hypothesis, nothing departs."""
    found = identify(InProcessSession, ruleset="da", games=8)
    assert (found.closest, found.departures, found.unmatched, found.adopted, found.from_sent) == ("da", [], [], [], [])
    assert found.exact and "capture.compulsory" in found.decided and found.positions > 0


def test_the_house_rule_checks_and_the_engine_passes_under_it(tmp_path):
    """The inferred house rule extends the closest ruleset, marks each point inferred, loads
    (escoba check), and the engine, sent what it was sent, passes games played under it and
    every case `escoba cases generate` makes for it; the departure's minimal case is a case
    file escoba conformance fails the same way."""
    from escoba.conformance.runner import Runner, collect
    from escoba.explore.inference import cases_of
    from escoba.transcript.build import dump_case
    from escoba.transcript.suite import write_suite

    connect = lambda: InProcessSession(MUTANTS["leftovers-to-dealer"])
    found = identify(connect, ruleset="da", games=8)
    [departure] = found.departures
    assert (departure.point, departure.value, found.closest) == ("leftovers.to", "dealer", "da")
    rule = tmp_path / "house.yaml"
    rule.write_text(found.house_rule, encoding="utf-8")
    doc = load_resolved(str(rule)).doc
    assert doc["leftovers"]["to"] == "dealer" and doc["leftovers"]["provenance"]["to"]["status"] == "inferred"
    with Harness(connect, sent=load_resolved("da").doc) as harness:
        assert explore(harness, rulesets=[str(rule)], games=6, probes=False).ok
    suite = write_suite(str(rule), tmp_path / "generated")
    run = Runner(connect, sent=load_resolved("da").doc).run(collect(tmp_path / "generated"))
    assert len(run.results) == len(suite.cases) > 10
    assert [(r.id, r.message) for r in run.results if r.outcome != "pass"] == []
    [case] = cases_of(found)
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / f"{case['id']}.json").write_text(dump_case(case), encoding="utf-8")
    [result] = Runner(connect).run(collect(tmp_path / "cases")).results
    assert (result.outcome, result.divergence.point) == ("fail", "leftovers.to")


def test_identify_through_the_command_line(tmp_path):
    """escoba identify on a mutant over a pipe, --no-targeted --format json --out DIR: exit 1, the
    departure, the house rule and the case written; escoba check accepts the house rule."""
    engine = f"{sys.executable} {ENGINES / 'mutant_engine.py'} capture-optional"
    cmd = [sys.executable, "-m", "escoba", "identify", "--engine", engine, "--games", "4", "--no-targeted", "--format", "json", "--out", str(tmp_path)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["closest"] == "base" and [(d["point"], d["value"]) for d in report["departures"]] == [("capture.compulsory", "optional")]
    rule = Path(report["written"]["house_rule"])
    assert rule.parent == tmp_path and Path(report["written"][report["departures"][0]["case"]]).exists()
    checked = subprocess.run([sys.executable, "-m", "escoba", "check", str(rule)], capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_an_engine_that_refuses_every_game_decides_nothing():
    """Every start refused: no point decided, each said so with the reason, exit 1, no guess."""
    engine = f"{sys.executable} {ENGINES / 'fake_engine.py'} refuse"
    done = subprocess.run([sys.executable, "-m", "escoba", "identify", "--engine", engine, "--games", "3", "--format", "json"],
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["refused"] == 3 and report["decided"] == [] and report["departures"] == [] and not report["exact"]
    assert "capture.compulsory" in report["undecided"] and "refused" in report["undecided"]["capture.compulsory"]


def test_identify_where_nothing_could_run_fails_with_the_reason():
    """An engine whose every game is skipped (a plain base engine sent da's thresholds) is
    never OK: exit 1, the last line one sentence saying why, the JSON's nothing_ran too."""
    engine = f"{sys.executable} {Path(__file__).parents[1] / 'docs' / 'examples' / 'minimal_engine.py'}"
    cmd = [sys.executable, "-m", "escoba", "identify", "--engine", engine, "--ruleset", "da", "--games", "3", "--no-check"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("FAILED: no case could run: ") and "unsupported" in last, done.stdout
    assert "OK" not in done.stdout
    data = json.loads(subprocess.run([*cmd, "--format", "json"], capture_output=True, text=True, timeout=600).stdout)
    assert data["exact"] is False and data["decided"] == [] and data["nothing_ran"].startswith("no case could run: ")


@pytest.mark.parametrize(
    "args, message",
    [
        (["--engine", "/nonexistent/engine"], "the engine did not start (/nonexistent/engine)"),
        (["--games", "0"], "--games must be at least 1"),
        (["--ruleset", "nosuch"], "nosuch"),
    ],
)
def test_identify_usage_errors_are_one_line_and_exit_2(args, message):
    """A missing engine, a bad count or an unknown ruleset: one line on stderr, exit 2."""
    done = subprocess.run([sys.executable, "-m", "escoba", "identify", *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and message in done.stderr and "Traceback" not in done.stderr
