"""Coverage variants (conformance/cases/coverage/): rulesets beside base that differ from it in one
rule point each, with a hand-audited case each, so that an engine implementing base plus one
difference has cases it can run. Each case fails an engine playing base's rules on that point."""

from __future__ import annotations

import dataclasses
from functools import cache

import escoba
from escoba.conformance.runner import Entry, Runner, collect
from escoba.protocol.client import InProcessSession
from escoba.protocol.server import ReferenceEngine
from escoba.rules import bundled_ids, load_resolved
from escoba.rules.points import positions
from escoba.transcript.case import cases_dir

COVERAGE = cases_dir() / "coverage"

# Points where bundled rulesets differ from base that base plus one change cannot show, and why.
NOT_AT_BASE_PLUS_ONE = {
    "deck.jokers": "two jokers make 42 cards, which base's deal (4 + 6 a round at two) cannot divide: the short stock rule must change too (de-jokers has the cases)",
    "deal.short_stock": "base's 40 cards divide into whole rounds at 2, 3 and 4 players: only a deck with jokers needs it",
    "capture.joker_escobas_score": "needs jokers (see deck.jokers)",
    "capture.escoba_on_last_play": "without jokers the 40 cards total 220, not a multiple of 15, so the last play never sweeps (capture.escoba-on-last-play.de-jokers shows it)",
    "players.partnerships": "partnerships play at four (partnerships.4p.de)",
    "match.target": "never exercised: a match case's start names its target",
    "match.target_options": "never exercised: a match case's start names its target",
    "deal.open_hands": "no event depends on it",
    "scoring.seven-espadas": "a holder category like seven-copas (coverage.scoring.seven-copas), for another card",
    "scoring.seven-bastos": "a holder category like seven-copas (coverage.scoring.seven-copas), for another card",
}


@cache
def entries() -> tuple[Entry, ...]:
    return tuple(collect(COVERAGE))


def meanings(doc) -> dict:  # type: ignore[no-untyped-def]
    return {p.key: p.meaning for p in positions(doc)}


def group(key: str) -> str:
    """A point, or for a scoring category's points the category: adding one adds them all."""
    parts = key.split(".")
    return ".".join(parts[:2]) if parts[0] == "scoring" else key


def differing(a, b) -> set[str]:  # type: ignore[no-untyped-def]
    ma, mb = meanings(a), meanings(b)
    return {k for k in ma.keys() | mb.keys() if k not in ma or k not in mb or ma[k] != mb[k]}


def test_every_coverage_case_loads_and_names_a_variant_beside_it():
    """Each case is hand-audited, at two players unless its point needs more, and names a
    ruleset file in its own folder."""
    assert len(entries()) >= 18
    for entry in entries():
        case = entry.case
        assert case is not None, entry.problem
        assert case.audit == "hand" and case.pins and case.notes, case.id
        assert case.ruleset.endswith(".yaml") and (COVERAGE / case.ruleset).is_file()
        assert case.players == 2 or case.clause in ("turn.leader", "turn.next_dealer", "scoring.cards.award", "scoring.coins.award")


def test_each_variant_differs_from_base_in_its_one_point():
    """A variant differs from base in the case's rule point only (for a scoring category, in that
    category), or from the variant it extends."""
    base = load_resolved("base").doc
    for entry in entries():
        case = entry.case
        doc = case.document
        changed = {group(k) for k in differing(base, doc)}
        parent = doc.get("extends") if isinstance(doc.get("extends"), str) else None
        if changed != {group(case.clause)} and parent:
            changed = {group(k) for k in differing(load_resolved(str(COVERAGE / parent)).doc, doc)}
        assert changed == {group(case.clause)}, (case.id, changed)


class BaseRules(ReferenceEngine):
    """Plays base's rules whatever ruleset it is sent."""

    name = "base-rules"

    def adjust_rules(self, rules):  # type: ignore[no-untyped-def]
        return dataclasses.replace(escoba.load_ruleset("base"), doc=rules.doc)


def test_an_engine_with_base_rules_fails_every_case_on_its_point():
    """Each case has teeth: an engine that plays base's rules fails it, and the divergence is
    attributed to the point the case is about (or to its category)."""
    report = Runner(lambda: InProcessSession(BaseRules)).run(entries())
    for r in report.results:
        assert r.outcome == "fail", (r.id, r.outcome, r.message)
        assert r.divergence is not None and group(r.divergence.point or "") == group(r.clause), (r.id, r.divergence.point)


def test_the_reference_engine_passes_them():
    """The expected events are the reference engine's reading of each variant."""
    report = Runner(InProcessSession).run(entries())
    assert report.ok and report.counts()["pass"] == len(entries())


def test_every_point_where_bundled_rulesets_differ_from_base_is_covered():
    """Each rule point on which some bundled Escoba ruleset departs from base has a case under a
    ruleset that is base plus that point (a coverage variant, or a bundled house rule that is
    one), or a reason here why base plus one change cannot show it. Escoba's family games
    (spec/family/, kind: family) are other games, not base plus one point: their golden cases
    are in cases/rules/."""
    base = load_resolved("base").doc
    departures = set()
    for ruleset in bundled_ids():
        doc = load_resolved(ruleset).doc
        if doc.get("kind") != "family":
            departures |= {group(k) for k in differing(base, doc)}
    covered = {group(e.case.clause) for e in entries()}
    for entry in collect(cases_dir() / "rules"):
        if entry.case is not None and not entry.case.ruleset.endswith(".yaml"):
            changed = {group(k) for k in differing(base, entry.case.document)}
            # A bundled house rule that is base plus one point (and the values table it reads).
            if len({g for g in changed if not g.startswith("values.")}) == 1:
                covered |= changed
    titles = {"scoring.escobas"}  # "Escovas" is a title: the category's meaning is the same
    missing = departures - covered - set(NOT_AT_BASE_PLUS_ONE) - titles
    assert not missing, sorted(missing)
