"""Declared rules (issue 35): an engine states the ruleset it plays, every bundled case becomes a
scenario under it, and the report gives its bugs apart from its variant.

The engines here: the reference engine sent the declared rules (what an honest engine of those
rules does), and tests/engines/fixed_rules/engine.py, base with five departures, declaring them,
with bugs planted on request.
"""

from __future__ import annotations

import json
import os
import sys
import zlib
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from escoba.cli.main import main
from escoba.conformance.declared import HELLO, OPTION, DeclaredRulesError, contradictions, features_of, load_declared
from escoba.conformance.report import render_markdown, render_text, to_json
from escoba.conformance.runner import Entry, Runner, collect
from escoba.conformance.scenario import Skip, scenario_plan
from escoba.data import schemas_dir
from escoba.protocol.client import InProcessSession
from escoba.protocol.server import ReferenceEngine

ROOT = Path(__file__).parent.parent
FIXED = ROOT / "tests" / "engines" / "fixed_rules"
sys.path.insert(0, str(FIXED))

from engine import DEPARTURES, RULES, engine_class  # noqa: E402


@cache
def bundled() -> tuple[Entry, ...]:
    return tuple(collect())


@cache
def sample() -> tuple[Entry, ...]:
    """The cases the fixed-rules engine's reports play: every bundled case in the deep profile;
    by default one in five (chosen by the case's id, so that a case added elsewhere does not
    change the others), the cases about leftovers (the one departure few cases show) and those
    with a probe (what a refusal does), since a whole run where most cases diverge costs some
    80 s of CPU."""
    if os.environ.get("HYPOTHESIS_PROFILE") == "deep":
        return bundled()
    return tuple(
        e for e in bundled()
        if zlib.crc32(e.id.encode()) % 5 == 0 or e.id.startswith(("leftovers.", "probe."))
    )  # fmt: skip


def pick(*ids: str) -> list[Entry]:
    return [e for e in bundled() if e.id in ids]


@cache
def report_schema() -> Draft202012Validator:
    return Draft202012Validator(json.loads((schemas_dir() / "report.schema.json").read_text(encoding="utf-8")))


def fixed(*bugs: str, declare: str | None = str(RULES), features: tuple[str, ...] = ()) -> type:
    return engine_class(declare, list(features), set(bugs))


def playing(rules: Any) -> type[ReferenceEngine]:
    """The reference engine playing `rules` whatever `start` sends: an honest fixed-rules engine."""

    class Honest(ReferenceEngine):
        def compile(self, doc: Any) -> Any:
            return rules.rules

    return Honest


def run(engine: type, entries: Any, rules: Any = None, **kw: Any) -> Any:
    return Runner(lambda: InProcessSession(engine), rules=rules, **kw).run(entries)


# ------------------------------------------------------------------------------ declaring
def test_hello_names_the_rules_and_the_schema_allows_it():
    """A hello reply's `rules` is read; an empty or non-string one is a protocol violation; the
    protocol schema describes the field."""
    from escoba.protocol.messages import ProtocolViolation, parse_reply

    request = {"id": 1, "cmd": "hello", "protocol": 1}
    reply = {"id": 1, "ok": True, "protocol": 1, "engine": {"name": "x", "version": "1"}, "features": [], "rules": "base"}
    assert parse_reply(request, reply).rules == "base"
    for bad in ("", 3, " "):
        with pytest.raises(ProtocolViolation, match="rules"):
            parse_reply(request, {**reply, "rules": bad})
    schema = json.loads((schemas_dir() / "protocol.schema.json").read_text(encoding="utf-8"))
    assert schema["$defs"]["reply.hello"]["properties"]["rules"]["type"] == "string"
    assert "rules" not in schema["$defs"]["reply.hello"]["required"]


def test_declared_rules_load_by_id_or_file_and_refuse_in_one_line(tmp_path):
    """A bundled id and a house-rule file load (with their extends chain); an unknown name, a
    path of no ruleset and an invalid file are refused in one line naming who declared them."""
    base = load_declared("base", HELLO)
    assert (base.id, base.kind, base.extends, base.label()) == ("base", "base", (), "base (bundled)")
    mine = load_declared(str(RULES), OPTION)
    assert (mine.id, mine.kind, mine.extends) == ("fixed-rules-test", "house", ("base",))
    assert mine.digest != base.digest and load_declared(str(RULES), HELLO).digest == mine.digest
    bad = tmp_path / "bad.yaml"
    bad.write_text("dsl: 1\nid: bad\nkind: house\nextends: base\ncapture: {compulsory: sometimes}\n", encoding="utf-8")
    for name, said in (("basse", "neither a bundled ruleset id"), (str(tmp_path / "none.yaml"), "do not load"), (str(bad), "do not load")):
        with pytest.raises(DeclaredRulesError, match=said) as caught:
            load_declared(name, HELLO)
        assert "\n" not in str(caught.value) and "the engine's hello" in str(caught.value)


def test_features_follow_from_the_declared_rules():
    """An engine's features are its declared rules' at the player counts it names (all, if it
    names none), with `match`, and `measures` only if it says so."""
    rules = load_declared("sv", OPTION)
    every = features_of(rules, [])
    assert {"players:2", "players:3", "players:4", "match", "turn.leader:dealer_left"} <= set(every)
    assert "measures" not in every
    two = features_of(rules, ["players:2", "measures"])
    assert "players:3" not in two and "measures" in two and "turn.leader:dealer_left" in two


def test_features_that_contradict_the_declared_rules_are_said_in_one_line():
    """Declared rules and rule-point features that say otherwise give one line naming the point
    (the declared rules win); agreeing features, or none, give nothing."""
    base = load_declared("base", HELLO)
    line = contradictions(base, ["capture.compulsory:optional", "players:2"])
    assert line is not None and "\n" not in line
    assert "capture.compulsory: declares optional, the rules say card" in line and "declared rules are used" in line
    assert contradictions(base, ["capture.compulsory:card", "players:2", "measures"]) is None
    assert contradictions(base, []) is None
    assert "players" in (contradictions(load_declared("scopone", HELLO), ["players:2"]) or "")


# ------------------------------------------------------------------------------ scenarios
def test_a_case_under_its_own_rules_is_itself():
    """Declared rules equal to a case's own make the scenario the case: the same expected
    events, no substitution, every pin checked."""
    rules = load_declared("da", OPTION)
    for entry in [e for e in bundled() if e.ruleset == "da"]:
        plan = scenario_plan(entry.case, rules)
        assert not isinstance(plan, Skip), entry.id
        assert plan.expected == [dict(e) for e in entry.case.expect] + ([plan.expected[-1]] if entry.case.kind != "game" and plan.expected[-1]["event"] in ("perft", "rejected") else []), entry.id
        assert plan.scenario.substitutions == 0 and not plan.scenario.pins_broken
        assert plan.scenario.pins_checked == len(entry.case.pins), entry.id


@pytest.mark.parametrize("declared", ["base", "fr", "scopa", "spec/house/no-opening-escoba.yaml", str(RULES)])
def test_at_least_nine_in_ten_bundled_scenarios_run_under_honest_declared_rules(declared):
    """Whatever the declared rules (another capture rule, Scopa's deck and capture by value, a
    house rule), at least 90% of the bundled cases are scenarios of them, and no hand-audited pin
    that applies is broken."""
    rules = load_declared(declared, OPTION)
    plans = [scenario_plan(e.case, rules) for e in bundled()]
    ran = [p for p in plans if not isinstance(p, Skip)]
    assert len(ran) >= 0.9 * len(plans), [p.reason for p in plans if isinstance(p, Skip)][:5]
    assert not [b for p in ran for b in p.scenario.pins_broken]


def test_a_scenario_is_skipped_only_for_a_deck_or_a_table_the_rules_do_not_have():
    """A jokers deck under rules without jokers, and three players under four-player rules, are
    skipped with those reasons; a deck of the same shape with other names is translated."""
    base = load_declared("base", OPTION)
    plan = scenario_plan(pick("jokers.wild-capture.de-jokers")[0].case, base)
    assert isinstance(plan, Skip) and "42 cards" in plan.reason and "40 cards" in plan.reason
    plan = scenario_plan(pick("base.3p.1")[0].case, load_declared("scopone", OPTION))
    assert isinstance(plan, Skip) and "a table of 3 players" in plan.reason and "played by 4" in plan.reason
    plan = scenario_plan(pick("base.2p.1")[0].case, load_declared("scopa", OPTION))
    assert not isinstance(plan, Skip) and plan.scenario.translated and "Fd for Sd" in plan.scenario.translated
    assert plan.hands[0].decks[0][0] in load_declared("scopa", OPTION).rules.deck.code


def test_a_move_the_declared_rules_forbid_is_replaced_and_said():
    """Under optional capture a card-level case plays on unchanged; under Scopa's capture by value
    the case's 15-captures are replaced by the nearest legal move, each counted, the first named."""
    case = pick("base.2p.1")[0].case
    plan = scenario_plan(case, load_declared("scopa", OPTION))
    assert plan.scenario.substitutions > 0
    assert any("replaced by the nearest legal move (first: hand 1, play" in n for n in plan.scenario.notes)
    assert scenario_plan(case, load_declared("fr", OPTION)).scenario.substitutions == 0


@pytest.mark.parametrize("declared", ["fr", "scopa", str(RULES)])
def test_an_honest_engine_of_the_declared_rules_passes_every_scenario(declared):
    """The reference engine playing the declared rules whatever `start` sends passes every
    scenario that runs: the expected events are what those rules make of each case."""
    rules = load_declared(declared, OPTION)
    report = run(playing(rules), bundled(), rules)
    counts = report.counts()
    assert counts["fail"] == counts["error"] == 0, [(r.id, r.message) for r in report.results if r.outcome == "fail"][:3]
    assert counts["pass"] >= 0.9 * len(report.results)
    assert not report.bugs()
    assert not list(report_schema().iter_errors(to_json(report)))


# ------------------------------------------------------------------------------ bugs and variant
@cache
def fixed_report(declared: str, *bugs: str) -> Any:
    rules = load_declared(declared, OPTION if declared != str(RULES) else HELLO)
    return run(fixed(*bugs), sample(), rules)


def test_an_engine_of_fixed_rules_declaring_them_has_no_bug_and_its_variant_is_its_departures():
    """The fixed-rules engine, declaring its rules, passes every scenario; its variant names
    base's five departures as the closest ruleset's differences, each with base's sentence."""
    report = fixed_report(str(RULES))
    assert report.counts()["fail"] == 0 and not report.bugs()
    variant = report.variant()
    base = next(c for c in variant.comparisons if c.id == "base")
    assert {row.key for row in base.rows} == set(DEPARTURES)
    assert variant.closest.id == "base" and not variant.observed
    text = render_text(report)
    assert "bugs: none: the engine plays the declared rules in every case that ran" in text
    assert "variant: " in text and "(information, not a failure)" in text
    assert "OK:" in text


@pytest.mark.whole_run
def test_declared_as_base_the_departures_are_bugs_each_with_its_point_and_the_variant_names_them():
    """The same engine declared as base: each of its five departures is a bug attributed to its
    rule point with the value it plays, nothing else is; the variant's 'seen in this run' names
    the five and nothing else."""
    report = fixed_report("base")
    bugs = report.bugs()
    assert {b.point for b in bugs} == set(DEPARTURES), [b.title for b in bugs]
    assert all(b.explained == "value" for b in bugs)
    for b in bugs:
        assert b.inferred == DEPARTURES[b.point], b.title
    assert {o.point for o in report.variant().observed} == set(DEPARTURES)
    text = render_text(report)
    assert "capture.compulsory: the engine plays as if optional (declared: card level (a played card that can capture must))" in text
    assert not list(report_schema().iter_errors(to_json(report)))


PLANTED = {
    # bug → the bug keys (conformance/bugs.py) allowed to name it
    "three-card-captures": {("none", "legal-moves", "common.captures"), ("none", "capture", "common.captures")},
    "velo-twice": {("none", "hand-score", "common.hand_total"), ("none", "match-end", "common.match")},
}


@pytest.mark.parametrize("planted", [pytest.param(p, marks=pytest.mark.whole_run) if p == "three-card-captures" else p for p in sorted(PLANTED)])
def test_the_bug_section_names_each_planted_bug_and_nothing_else(planted):
    """With its own rules declared, an engine with a planted bug runs at least 90% of the
    scenarios, and its bugs are that bug, under the names it can have, and nothing else: its
    departures are its rules, not bugs."""
    report = fixed_report(str(RULES), planted)
    assert report.ran >= 0.9 * len(report.results)
    keys = {b.key for b in report.bugs()}
    assert keys and keys <= PLANTED[planted], [b.title for b in report.bugs()]


@pytest.mark.whole_run
def test_two_planted_bugs_are_two_bugs():
    """Two bugs planted together are both found, each under its own name."""
    report = fixed_report(str(RULES), "three-card-captures", "velo-twice")
    keys = {b.key for b in report.bugs()}
    assert keys & PLANTED["three-card-captures"] and keys & PLANTED["velo-twice"]
    assert keys <= PLANTED["three-card-captures"] | PLANTED["velo-twice"]


def test_reports_in_every_format_keep_the_two_answers_apart():
    """Markdown has a Bugs and a Variant section; JSON has `bugs` and `variant`; JUnit still
    has one test case per case, and the two answers in the suite's output."""
    from escoba.conformance.junit import to_junit

    report = fixed_report(str(RULES), "velo-twice")  # the run of a test above (the whole run declared as base costs a minute)
    md = render_markdown(report)
    assert md.index("### Bugs") < md.index("### Variant")
    assert "`capture.compulsory`" in md  # a departure of its rules from base, in the variant
    data = to_json(report)
    assert data["rules"]["name"] == str(RULES) and len(data["bugs"]) == 1 and data["variant"]["closest"] == "base"
    xml = to_junit([report])
    assert xml.count("<testcase ") == len(report.results)
    assert f'<property name="escoba.rules" value="{RULES}" />' in xml and "bugs: 1 kind of departure from the declared rules" in xml


# ------------------------------------------------------------------------------ resync
def test_each_later_divergence_is_judged_from_the_engines_own_state():
    """Declared as base, the engine departs at decisions (optional capture) and at the hand's end
    (ties, the velo, leftovers): after each divergence the reference goes on from the engine's
    state, so each later one gets its own point, none merely 'follows'."""
    report = fixed_report("base")
    failing = [r for r in report.results if r.outcome == "fail"]
    points = {d.point for r in failing for d in r.divergences}
    assert "capture.compulsory" in points and "scoring.velo.points" in points
    for r in failing:
        assert all(d.resync is None for d in r.divergences), r.id
        assert all(d.consequence_of is None or d.explained == "follows" for d in r.divergences), r.id
    mixed = [r for r in failing if len({d.point for d in r.divergences if d.explained == "value"}) >= 2]
    assert mixed, "some case shows two departures, each named"


def test_without_state_later_divergences_follow_with_the_reason():
    """An engine that refuses `state` cannot be followed: the divergences after the first are
    said to follow it, with that reason, never attributed on a guess."""
    report = fixed_report("base", "no-state")
    r = next(r for r in report.results if r.outcome == "fail" and len(r.divergences) > 2)
    assert r.divergences[0].resync and "refused `state`" in r.divergences[0].resync
    later = [d for d in r.divergences if d.chunk is not None and d.chunk > r.divergences[0].chunk]
    assert later and all(d.consequence_of == r.divergences[0].index for d in later)
    assert "refused `state`" in render_text(report, all_divergences=True)


def test_a_refusal_that_changes_the_hand_is_the_refusals_rule():
    """A refused move that still takes the card changes the state the probe then reads: a
    common rule broken by shape (common.refusals), found as its own bug."""
    report = fixed_report(str(RULES), "refusal-takes-card")
    assert ("shape", "common.refusals") in {b.key for b in report.bugs()}


# ------------------------------------------------------------------------------ the command
def test_the_command_line_declares_rules_and_says_which_wins(capsys):
    """`--rules` makes every case a scenario; over an engine whose hello declares other rules it
    wins, and the report says so; an unknown name is a usage error in one line."""
    engine = f"{sys.executable} {FIXED / 'engine.py'}"
    assert main(["conformance", "--engine", engine, "--rules", "base", "--case", "compulsory.card.da", "--no-targeted"]) == 1
    out = capsys.readouterr().out
    assert f"rules: base (bundled), declared by --rules; the engine's hello names '{RULES}', the option wins" in out
    assert "capture.compulsory: the engine plays as if optional" in out
    assert main(["conformance", "--rules", "basse"]) == 2
    err = capsys.readouterr().err
    assert "neither a bundled ruleset id" in err and len(err.strip().splitlines()) == 1


def test_rules_the_engine_declares_that_do_not_load_stop_the_run_in_one_line(capsys):
    """An engine whose hello names rules that do not load: exit 2, one line naming the engine."""
    engine = f"{sys.executable} {FIXED / 'engine.py'} --declare no-such-rules.yaml"
    assert main(["conformance", "--engine", engine, "--case", "base.2p.1"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "no-such-rules.yaml" in err and "do not load" in err


def test_a_run_where_nothing_ran_says_why_in_one_sentence_and_fails(capsys):
    """Every selected case skipped (a four-player engine, two-player cases) is no OK: exit 1,
    and the summary says why in one sentence; the JSON report has it too."""
    assert main(["conformance", "--rules", "scopone", "--case", "base.2p.*", "--no-targeted"]) == 1
    out = capsys.readouterr().out
    assert "FAILED: " in out and "no case could run: " in out and "are not scenarios of the declared rules (a table of 2 players" in out
    assert main(["conformance", "--rules", "scopone", "--case", "base.2p.*", "--no-targeted", "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is False and data["why"].startswith("no case could run: ")


def test_targeted_cases_for_the_declared_rules_join_the_scenarios(capsys):
    """With declared rules, the cases generated for them (targeted positions for every point they
    set) run too; --no-targeted leaves them out."""
    assert main(["conformance", "--rules", str(RULES), "--case", "fixed-rules-test.*", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["summary"]["pass"] >= 5 and all(c["id"].startswith("fixed-rules-test.") for c in data["cases"])
    assert main(["conformance", "--rules", str(RULES), "--case", "fixed-rules-test.*", "--no-targeted"]) == 2
    assert "no case matches" in capsys.readouterr().err


# ------------------------------------------------------------------------------ totals that add up
def _hand_end_chunk(velo: list[int], hand: list[int], totals: list[int]) -> Any:
    """A hand's last reply as the reference expects it, and as an engine scoring the velo `velo`,
    the hand `hand` and the match `totals` says it, judged."""
    from types import SimpleNamespace

    from escoba.conformance.attribute import Chunk, _carried
    from escoba.conformance.compare import all_divergences

    def reply(v: list[int], h: list[int], t: list[int]) -> list[dict]:
        return [
            {"event": "score", "category": "velo", "measures": [True, False], "points": v},
            {"event": "score", "category": "primera", "measures": [70, 80], "points": [0, 1]},
            {"event": "hand_end", "points": h, "cards": [20, 20]},
            {"event": "totals", "hand": 1, "totals": t},
            {"event": "match_end", "winners": [1], "totals": t, "reason": "target"},
        ]

    expected, observed = reply([1, 0], [1, 1], [1, 1]), reply(velo, hand, totals)
    chunk = Chunk(SimpleNamespace(expected=expected), observed, all_divergences(expected, observed, [(0, len(observed))]), [])
    _carried(chunk)
    return chunk


def test_a_hands_total_that_adds_up_the_engines_own_scores_follows_them():
    """A score no rule point explains carries into the hand's total, the match's totals and its
    end: those follow it when they add up what the engine scored, and stay divergences of their
    own when they do not (a total counted twice)."""
    follows = _hand_end_chunk([0, 0], [0, 1], [0, 1])
    score, *rest = follows.divergences
    assert score.consequence_of is None and [d.consequence_of for d in rest] == [score.index] * 3
    wrong = _hand_end_chunk([1, 0], [2, 1], [2, 1])
    assert [d.consequence_of for d in wrong.divergences] == [None, wrong.divergences[0].index, wrong.divergences[0].index]
    added_wrong = _hand_end_chunk([0, 0], [1, 2], [1, 2])  # the velo lost, a point added elsewhere
    score, hand, *rest = added_wrong.divergences
    assert score.consequence_of is hand.consequence_of is None and [d.consequence_of for d in rest] == [hand.index] * 2


def test_scores_after_leftovers_given_to_another_seat_follow_them():
    """Leftovers no rule point explains, given to another seat, change the piles the hand's
    categories are scored from: the scores of that reply follow them."""
    from types import SimpleNamespace

    from escoba.conformance.attribute import Chunk, _carried
    from escoba.conformance.compare import all_divergences

    def reply(seat: int, cards: list[int]) -> list[dict]:
        return [
            {"event": "leftovers", "seat": seat, "side": seat, "cards": ["7d", "1c"]},
            {"event": "score", "category": "cards", "measures": cards, "points": [int(cards[0] > cards[1]), int(cards[1] > cards[0])]},
        ]

    expected, observed = reply(0, [21, 19]), reply(1, [19, 21])
    chunk = Chunk(SimpleNamespace(expected=expected), observed, all_divergences(expected, observed, [(0, 2)]), [])
    _carried(chunk)
    leftovers, score = chunk.divergences
    assert leftovers.consequence_of is None and score.consequence_of == leftovers.index


def test_what_a_refused_move_would_have_brought_follows_the_refusal():
    """A move the engine refuses, whose reply should also have dealt the next round: the deal
    it did not make follows the refusal, it is no departure of the deal."""
    from types import SimpleNamespace

    from escoba.conformance.attribute import Chunk, _carried
    from escoba.conformance.compare import all_divergences

    expected = [{"event": "play", "seat": 1, "card": "6d", "take": ["Cs"]}, {"event": "deal", "hands": [["1d", "2d", "3d"], ["4d", "5d", "6d"]]}]
    observed = [{"event": "rejected", "move": {"card": "6d", "take": ["Cs"]}, "kind": "illegal_move", "rule": "priority"}]
    chunk = Chunk(SimpleNamespace(expected=expected), observed, all_divergences(expected, observed, [(0, 1)]), [])
    _carried(chunk)
    refused, deal = chunk.divergences
    assert refused.consequence_of is None and deal.observed is None and deal.consequence_of == refused.index


# ------------------------------------------------------------------------------ what a value is tried as
def test_two_categories_scores_are_two_divergences():
    """A score of one category where the rules score another is two divergences: the category
    the engine left out (expected, nothing said) and the one it scored (said, none expected),
    so that each is explained on its own ("not scored", "scored as ...")."""
    from escoba.conformance.compare import all_divergences

    expected = [{"event": "score", "category": "primera", "measures": [70, 80], "points": [0, 1]}]
    observed = [{"event": "score", "category": "sevens", "measures": [3, 1], "points": [1, 0]}]
    left_out, scored = all_divergences(expected, observed, [(0, 1)])
    assert (left_out.expected, left_out.observed) == (expected[0], None)
    assert (scored.expected, scored.observed) == (None, observed[0])


def test_the_most_of_a_count_is_also_read_as_more_than_half():
    """`most` cards or coins is also tried as more than half of them (da's "more than 20 cards"):
    20 of base's 40 cards, 5 of its 10 coins; a primera, which counts nothing, is not."""
    from escoba.rules import load_resolved
    from escoba.rules.points import other_values, positions

    doc = load_resolved("base").doc
    readings = {p.key: other_values(doc, p) for p in positions(doc) if p.key.endswith(".award")}
    assert {"policy": "threshold", "more_than": 20} in readings["scoring.cards.award"]
    assert {"policy": "threshold", "more_than": 5} in readings["scoring.coins.award"]
    assert not any(r.get("policy") == "threshold" for r in readings["scoring.primera.award"])


def test_a_category_the_rules_lack_can_be_scored_as_a_bundled_ruleset_scores_it():
    """`with_value` with a whole category of an id the document lacks scores it after the
    others (sv's most sevens added to base), and one of an id it has replaces it in place."""
    from escoba.rules import load_resolved
    from escoba.rules.compile import rules_from_document
    from escoba.rules.points import with_value

    base = load_resolved("base").doc
    sevens = next(c for c in load_resolved("sv").doc["scoring"]["categories"] if c["id"] == "sevens")
    added = with_value(base, "scoring.sevens", sevens)
    assert [c["id"] for c in added["scoring"]["categories"]] == [c["id"] for c in base["scoring"]["categories"]] + ["sevens"]
    assert "sevens" in [c.id for c in rules_from_document(added).categories]
    velo = {"id": "velo", "title": "Seven of cups", "award": {"policy": "holder", "card": "7 copas"}, "points": 1}
    replaced = with_value(base, "scoring.velo", velo)
    assert [c["id"] for c in replaced["scoring"]["categories"]] == [c["id"] for c in base["scoring"]["categories"]]
    assert next(c for c in replaced["scoring"]["categories"] if c["id"] == "velo")["award"]["card"] == "7 copas"


def test_a_primera_is_also_read_as_players_misread_it():
    """A primera that adds up the best card of each suit is also read as the two misreadings
    the outside engines play, as their authors wrote them by hand: a missing suit counting
    nothing (settebello's, over scopa) and most sevens, then sixes, aces … (tucuman's, over base)."""
    import yaml

    from escoba.rules import load_resolved
    from escoba.rules.points import other_values, positions
    from escoba.rules.points.meanings import meanings_of

    outside = ROOT / "tests" / "engines" / "outside"
    for engine, parent in (("tucuman", "base"), ("settebello", "scopa")):
        doc = load_resolved(parent).doc
        written = yaml.safe_load((outside / engine / "rules.yaml").read_text(encoding="utf-8"))
        measure = next(c for c in written["scoring"]["categories"] if c["id"] == "primera")["measure"]
        primera = next(p for p in positions(doc) if p.key == "scoring.primera.measure")
        assert meanings_of(doc).measure(measure) in other_values(doc, primera), engine


# ------------------------------------------------------------------------------ not expressible
def test_a_category_declared_not_expressible_is_compared_without_its_points():
    """Under rules that declare a category's points not expressible, its score is compared on
    being scored, each hand's points less that category's, a match's totals and winners not at
    all; every other event as it is. Pinned by hand on a made-up stream."""
    from escoba.conformance.unexpressed import NOT_COMPARED, view

    doc = {"unsupported": [{"id": "x", "source": "house", "point": "scoring.primera.measure"}, {"id": "y", "source": "house"}]}
    events = [
        {"event": "play", "seat": 0, "card": "7o", "take": []},
        {"event": "score", "category": "cards", "measures": [22, 18], "points": [1, 0]},
        {"event": "score", "category": "primera", "measures": [84, 70], "points": [2, 0]},
        {"event": "hand_end", "points": [3, 0], "cards": [22, 18]},
        {"event": "totals", "hand": 1, "totals": [3, 0]},
        {"event": "match_end", "winners": [0], "totals": [3, 0]},
    ]
    seen = view(doc, events)
    assert seen[:2] == events[:2]
    assert seen[2] == {"event": "score", "category": "primera", "measures": NOT_COMPARED, "points": NOT_COMPARED}
    assert seen[3] == {"event": "hand_end", "points": [1, 0], "cards": [22, 18], "without": ["primera"]}
    assert seen[4] == {"event": "totals", "hand": 1, "totals": NOT_COMPARED}
    assert seen[5] == {"event": "match_end", "winners": NOT_COMPARED, "totals": NOT_COMPARED}
    assert view(doc, seen) == seen  # a view of a view is itself
    assert view({"unsupported": [{"id": "y", "source": "house"}]}, events) == events


def test_a_point_declared_not_expressible_names_a_category_the_rules_score(tmp_path, capsys):
    """`unsupported[].point` must name a category the ruleset scores: otherwise `check` says so
    in one line, with the categories it does score."""
    mine = tmp_path / "mine.yaml"
    mine.write_text(
        "dsl: 1\nid: mine\nkind: house\nextends: base\nunsupported:\n"
        "  - {id: own, source: house, note: our own primera, closest: base's, point: scoring.primerra}\n",
        encoding="utf-8",
    )
    assert main(["check", str(mine)]) == 1
    out = capsys.readouterr().out.strip()
    assert "\n" not in out and "$.unsupported[0].point: no category 'primerra' is scored here (scored: cards, coins, escobas, primera, velo)" in out


def test_a_null_among_the_rules_not_expressible_is_a_located_error(tmp_path, capsys):
    """An `unsupported` entry that is not a mapping (a null, as the ruleset fuzzer wrote one)
    is the schema's one-line error at its place, not a traceback from the check of its point."""
    mine = tmp_path / "mine.yaml"
    mine.write_text(
        "dsl: 1\nid: mine\nkind: house\nextends: base\nunsupported:\n  - null\n"
        "  - {id: own, source: house, note: our own primera, closest: base's, point: scoring.primerra}\n",
        encoding="utf-8",
    )
    assert main(["check", str(mine)]) == 1
    out = capsys.readouterr().out
    assert "$.unsupported[0]" in out and "Traceback" not in out
    assert "$.unsupported[1].point: no category 'primerra' is scored here" in out


# Cases where a side takes all four sevens (the engine's primera is then worth two), two of them matches.
FOUR_SEVENS_CASES = ("scoring.all-sevens.ru", "coverage.scoring.all-sevens", "sv.example-game", "match.tie.extra-hand.fr",
                     "turn.3p.match.sv", "da.2p.2")  # fmt: skip


@pytest.mark.parametrize("declared, bugs", [("four-sevens", ()), ("four-sevens", ("velo-twice",)), ("rules", ())])
def test_a_rule_declared_not_expressible_is_no_bug_and_the_report_lists_it(declared, bugs):
    """An engine whose primera is worth two for all four sevens (no file can say it), declaring
    that primera not expressible, passes where it takes them, or shows only a planted bug; the
    variant lists the declaration, in every format. Declaring the rules without it, the primera
    is a bug."""
    from engine import FOUR_SEVENS

    path = str(FOUR_SEVENS if declared == "four-sevens" else RULES)
    engine = engine_class(path, [], set(bugs), four_sevens=True)
    report = run(engine, pick(*FOUR_SEVENS_CASES), load_declared(path, HELLO))
    assert report.ran == len(FOUR_SEVENS_CASES)
    keys = {b.key for b in report.bugs()}
    unsaid = report.variant().unsaid
    if declared == "rules":
        assert any("primera" in k[2] for k in keys) and not unsaid, keys
        assert "if the engine means it and no key can say it: declare scoring.primera not expressible" in render_text(report)
        return
    assert keys <= (PLANTED["velo-twice"] if bugs else set()) and bool(keys) == bool(bugs), keys
    assert [(u.point, u.id) for u in unsaid] == [("scoring.primera", "primera-worth-two-for-four-sevens")]
    assert "not expressible: scoring.primera (primera-worth-two-for-four-sevens)" in render_text(report)
    assert "`scoring.primera` (primera-worth-two-for-four-sevens)" in render_markdown(report)
    as_json = to_json(report)
    assert as_json["variant"]["not_expressible"][0]["point"] == "scoring.primera"
    assert not list(report_schema().iter_errors(as_json))
