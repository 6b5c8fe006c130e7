"""The ruleset audit (`escoba cases audit`, escoba/mutation): the readings it tries, what
detects a mutant, the search for a game telling one apart, the bundled audit kept current and
meeting its bar, and the command.

The full audit, every verdict computed again, runs under HYPOTHESIS_PROFILE=deep (about two
CPU-minutes of replays and searches: docs/conformance.md); every run checks the bundled audit
against a quick recomputation of what changed.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from functools import cache

import pytest

from escoba.conformance.runner import collect
from escoba.mutation.audit import (
    BAR,
    DETECTED,
    EQUIVALENT,
    INVALID,
    bundled_cache,
    read_audit,
    read_cache,
    written_reasons,
)
from escoba.mutation.audit import run as audit
from escoba.mutation.detect import detects
from escoba.mutation.equivalence import Effort, reason_of, search, tells_apart
from escoba.mutation.mutants import known_rulesets, mutants
from escoba.mutation.operators import award_readings, measure_readings
from escoba.rules import load_resolved
from escoba.rules.compile import compile_rules
from escoba.rules.points import with_value

DEEP = os.environ.get("HYPOTHESIS_PROFILE") == "deep"


@cache
def cases() -> dict[str, object]:
    return {e.case.id: e.case for e in collect() if e.case is not None}


@cache
def rulesets():
    return known_rulesets(list(cases().values()))


@cache
def all_mutants():
    return mutants(rulesets())


def _mutant(label: str):
    return next(m for m in all_mutants() if m.label == label)


def _rules(ruleset: str, key: str, value):
    return compile_rules(with_value(copy.deepcopy(load_resolved(ruleset).doc), key, value))


# ---------------------------------------------------------------------------------- readings
def test_a_card_filter_is_read_with_each_literal_changed_and_widened():
    """The velo filter of velo-escoba-double is read with every other suit, the ranks beside 7,
    widened to its rank and to its suit, and the sweeps read as every capture."""
    doc = load_resolved("velo-escoba-double").doc
    found = measure_readings("escobas + count(made_with(sweeps, card(deck, 7, oros)))", doc)
    assert sorted(found) == sorted([
        "escobas + count(made_with(captures, card(deck, 7, oros)))",
        "escobas + count(made_with(sweeps, rank(deck, 7)))",
        "escobas + count(made_with(sweeps, suit(deck, oros)))",
        "escobas + count(made_with(sweeps, card(deck, 6, oros)))",
        "escobas + count(made_with(sweeps, card(deck, sota, oros)))",
        "escobas + count(made_with(sweeps, card(deck, 7, copas)))",
        "escobas + count(made_with(sweeps, card(deck, 7, espadas)))",
        "escobas + count(made_with(sweeps, card(deck, 7, bastos)))",
    ])  # fmt: skip


def test_the_history_filters_are_read_as_their_siblings():
    """The first play is read as the last play and as the first deal round; the cards played as
    the cards taken; a named rank as the ranks beside it."""
    doc = load_resolved("base").doc
    assert sorted(measure_readings("escobas - count(first_play(sweeps))", doc)) == sorted([
        "escobas - count(last_play(sweeps))", "escobas - count(in_round(sweeps, 1))", "escobas - count(first_play(captures))",
    ])  # fmt: skip
    assert sorted(measure_readings("count(rank(played(sweeps), sota))", doc)) == sorted([
        "count(rank(taken(sweeps), sota))", "count(rank(played(captures), sota))",
        "count(rank(played(sweeps), 7))", "count(rank(played(sweeps), caballo))",
    ])  # fmt: skip


def test_an_award_is_read_with_a_card_beside_it_and_a_threshold_one_higher():
    """The holder of 7 oros is read as the holder of 6 and sota of oros and of the other
    sevens; a threshold of more than 20 as more than 21; `most` has no reading of the audit's."""
    doc = load_resolved("da").doc
    cards = [a["card"] for a in award_readings({"policy": "holder", "card": "7 oros"}, doc)]
    assert sorted(cards) == sorted(["6 oros", "sota oros", "7 copas", "7 espadas", "7 bastos"])
    assert award_readings({"policy": "threshold", "more_than": "count(deck) / 2"}, doc) == [{"policy": "threshold", "more_than": 21}]
    assert award_readings({"policy": "most", "ties": "nobody"}, doc) == []


def test_a_mutant_applies_to_every_ruleset_that_says_what_it_misreads():
    """Card-level compulsory capture read as optional is one mutant, made by da and sv and
    applied to each ruleset that says card level, and to no other."""
    mutant = _mutant("capture.compulsory: card level (a played card that can capture must) → optional")
    assert {"da", "sv"} <= set(mutant.origins) <= {a.ruleset.name for a in mutant.applied}
    for applied in mutant.applied:
        assert applied.ruleset.doc["capture"]["compulsory"] == "card"
        assert applied.doc is not None and applied.doc["capture"]["compulsory"] == "optional"
    assert "fr" not in {a.ruleset.name for a in mutant.applied}  # fr's capture is optional already


def test_only_the_named_rulesets_make_mutants():
    """`mutants(rulesets, only)` keeps the mutants those rulesets make, each whole: made and
    applied as in the whole list."""
    found = mutants(rulesets(), ["scopa"])
    assert found and all("scopa" in m.origins for m in found)
    whole = {m.ident: m for m in all_mutants()}
    assert all(m.origins == whole[m.ident].origins and len(m.applied) == len(whole[m.ident].applied) for m in found)
    assert any(len(m.origins) > 1 for m in found)  # scopone and scopone-classico say much the same


# ---------------------------------------------------------------------------------- detection
@pytest.mark.parametrize("ruleset", ["base", "fr", "de-jokers", "cirulla"])
def test_the_rules_a_case_plays_detect_nothing(ruleset):
    """Replayed under its own rules, no case of the ruleset (games, probes, perft counts) differs
    from its expected events: a detection is the mutant's doing."""
    played = [c for c in cases().values() if c.ruleset == ruleset]
    assert played
    for case in played:
        assert not detects(case, case.rules), case.id


def test_a_misread_point_is_detected_where_the_case_pins_it():
    """Optional capture for da fails compulsory.card.da (a placement that must not be offered);
    a perft count and a probe detect what changes their move generation and refusals."""
    case = cases()
    optional = _rules("da", "capture.compulsory", "optional")
    assert detects(case["compulsory.card.da"], optional)
    assert detects(case["perft.fr.2p.d4"], _rules("fr", "capture.compulsory", "card"))
    assert detects(case["probe.compulsory.card.da"], optional)  # the probe's move is legal then
    assert not detects(case["compulsory.card.da"], _rules("da", "deal.open_hands", True))


# ---------------------------------------------------------------------------------- the search
def test_the_registry_says_why_some_mutants_cannot_be_told_apart():
    """Face-up hands change no event; jokers' escobas cannot matter without jokers."""
    open_hands = _mutant("deal.open_hands: no → yes").applied[0]
    assert reason_of(open_hands) == "no event depends on deal.open_hands (never: no event depends on it)"
    jokers = next(a for a in _mutant("capture.joker_escobas_score: yes → no").applied if a.ruleset.name == "base")
    assert reason_of(jokers).startswith("no game of {rulesets} can exercise it (it shows when an escoba")
    compulsory = _mutant("capture.compulsory: card level (a played card that can capture must) → optional").applied[0]
    assert reason_of(compulsory) == ""


def test_a_game_tells_a_mutant_apart_and_the_search_finds_one():
    """A mutant of velo-escoba-double's measure that counts every capture made with the velo is
    told apart by some seeded game, which it replays differently; an equivalent one (face-up
    hands) by none, with its reason."""
    mutant = _mutant("scoring.escobas.measure: escobas + count(made_with(sweeps, card(deck, 7, oros))) → escobas + count(made_with(captures, card(deck, 7, oros)))")  # fmt: skip
    found = search(mutant, Effort(4, 8, 2))
    assert not found.equivalent and found.ruleset == "velo-escoba-double" and found.case is not None
    applied = next(a for a in mutant.applied if a.ruleset.name == "velo-escoba-double")
    assert tells_apart(found.case, applied.ruleset.rules, applied.rules)
    assert not tells_apart(found.case, applied.ruleset.rules, applied.ruleset.rules)
    same = search(_mutant("deal.open_hands: yes → no"), Effort(4, 8, 2))
    assert same.equivalent and same.reason.startswith("no event depends on deal.open_hands") and same.games == 4


def test_a_survivor_is_shrunk_and_a_suggestion_brings_it_to_the_bar():
    """The game that tells a mutant apart shrinks to a case the mutant served as an engine still
    fails, no longer than the game; the suggested games each tell it apart, enough of them to
    reach the bar, and each is a valid case with its expected events."""
    from escoba.mutation.equivalence import shrunk
    from escoba.mutation.gaps import suggest
    from escoba.transcript.case import case_from_data

    mutant = _mutant("scoring.escobas.measure: escobas + count(made_with(sweeps, card(deck, 7, oros))) → escobas + count(made_with(captures, card(deck, 7, oros)))")  # fmt: skip
    applied = next(a for a in mutant.applied if a.ruleset.name == "velo-escoba-double")
    found = search(mutant, Effort(4, 8, 2))
    assert found.case is not None
    from escoba.explore.harness import fill_case

    case, steps = shrunk(applied, found.case)
    assert tells_apart(case, applied.ruleset.rules, applied.rules)
    whole = len(fill_case(found.case)["expect"])
    assert len(case["expect"]) <= whole and (steps or len(case["expect"]) == whole)
    games = suggest([mutant], {mutant.ident: 1}, 3, games=30)
    assert len(games) == 2, [g["id"] for g in games]
    for game in games:
        assert tells_apart(game, applied.ruleset.rules, applied.rules)
        assert case_from_data(game, replay=True).expect == tuple(game["expect"])
        assert any(n == f"Detects the mutant {mutant.label}." for n in game["notes"])


# ---------------------------------------------------------------------------------- the bundled audit
@cache
def bundled():
    return read_audit(bundled_cache())


def test_the_bundled_audit_is_current():
    """conformance/audit.json holds a verdict for every mutant the bundled rulesets make now,
    each fingerprint still that of its rulesets and cases: a new rule point, a new ruleset or a
    changed case that brings a mutant is computed here, and fails this test until the audit is
    written again (`escoba cases audit --cache --write conformance/audit.json`)."""
    again = audit(cache=read_cache(bundled_cache()))
    news = [e.label for e in again.entries if not e.reused]
    assert again.stale == [] and news == [], f"the audit is not current: {news[:5]} (and {max(0, len(again.stale) - 5)} more)"
    assert again.ok, [e.label for e in again.survivors + again.weak]


def test_the_bundled_audit_has_no_survivor_and_meets_the_bar():
    """No mutant survives, every detected mutant is detected by three cases or more, and every
    equivalent one is explained: by the registry's reason or by conformance/equivalent.yaml."""
    found = bundled()
    assert found.survivors == [] and found.weak == [] and found.ok and found.bar == BAR
    assert all(e.cases >= BAR for e in found.entries if e.verdict == DETECTED)
    unexplained = [e.label for e in found.entries if e.verdict == EQUIVALENT and not (e.reason or e.why)]
    assert unexplained == []
    assert sum(e.verdict != INVALID for e in found.entries) >= 300


def test_every_written_reason_is_for_an_equivalent_mutant():
    """Each entry of conformance/equivalent.yaml names a mutant the audit finds equivalent, by its
    id and its label."""
    by_id = {e.ident: e for e in bundled().entries}
    for ident, written in written_reasons().items():
        assert ident in by_id, ident
        assert by_id[ident].label == written["mutant"] and by_id[ident].verdict == EQUIVALENT, ident


def test_a_reason_without_its_parts_is_one_error(tmp_path):
    """A reasons file whose entry lacks `why` is refused in one line naming the file."""
    from escoba.errors import EscobaError

    bad = tmp_path / "equivalent.yaml"
    bad.write_text("mutants:\n  abc:\n    mutant: x\n", encoding="utf-8")
    with pytest.raises(EscobaError, match=r"equivalent.yaml: each mutant needs `mutant` and `why`"):
        written_reasons(bad)


@pytest.mark.skipif(not DEEP, reason="the full audit: HYPOTHESIS_PROFILE=deep")
def test_the_full_audit_gives_the_bundled_verdicts():
    """Every verdict computed again gives the bundled audit's: the same mutants, verdicts and
    numbers of detecting cases."""
    again = {e.ident: (e.verdict, e.cases) for e in audit(jobs=2).entries}
    assert again == {e.ident: (e.verdict, e.cases) for e in bundled().entries}


# ---------------------------------------------------------------------------------- the command
def _escoba(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "escoba", *args], capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--ruleset", "nosuch"], "--ruleset nosuch: not a bundled ruleset"),
        (["--check"], "--check compares with a cache: give --cache too"),
        (["--ruleset", "da", "--write", "x.json"], "--write keeps a whole audit: leave out --ruleset"),
        (["--games", "-1"], "--games must be 0 or more, got -1"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(args, says):
    """Arguments that make no sense are refused before any work, in one line, with status 2."""
    done = _escoba("cases", "audit", *args)
    assert done.returncode == 2 and says in done.stderr and done.stderr.count("\n") == 1, done.stderr


def test_a_cache_that_is_no_audit_is_a_usage_error(tmp_path):
    """--cache naming a file that is not an audit's JSON is one line and status 2, no traceback."""
    for text in ("not json", json.dumps({"format": 9}), json.dumps({"format": 1})):
        bad = tmp_path / "bad.json"
        bad.write_text(text)
        done = _escoba("cases", "audit", "--cache", str(bad), "--check")
        assert done.returncode == 2 and "--cache:" in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_check_fails_on_a_cache_that_is_not_current(tmp_path):
    """A cache one of whose fingerprints no longer matches is not current: --check computes that
    mutant again and exits 1, writing nothing; the bundled cache passes."""
    data = json.loads(bundled_cache().read_text(encoding="utf-8"))
    entry = next(e for e in data["mutants"] if e["origins"] == ["cirulla"] and e["verdict"] == DETECTED)
    entry["fingerprint"] = "0" * 16
    stale = tmp_path / "stale.json"
    stale.write_text(json.dumps(data))
    done = _escoba("cases", "audit", "--cache", str(stale), "--check", "--ruleset", "cirulla")
    assert done.returncode == 1 and "the cache is not current: 1 mutants" in done.stderr, done.stderr
    assert json.loads(stale.read_text()) == data
    done = _escoba("cases", "audit", "--cache", "--check", "--ruleset", "cirulla", "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] and report["rulesets"] == ["cirulla"] and report["figures"]["survivors"] == 0
