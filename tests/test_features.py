"""The feature vocabulary: every rule point of the rules matrix has features with explicit values,
a case needs only the features its expected events exercise (stored in the case), the first
vocabulary's names keep working, and docs/protocol.md shows the table the code uses."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from escoba.protocol.features import (
    LEGACY,
    Declared,
    features_markdown,
    legacy_markdown,
    point_of,
    reference_features,
    required_features,
    ruleset_features,
)
from escoba.rules import bundled_ids, load_resolved
from escoba.rules.points import positions
from escoba.transcript.case import load_cases

DOCS = Path(__file__).parent.parent / "docs"


@cache
def cases() -> dict:
    return {c.id: c for c in load_cases(replay=False)}


@pytest.mark.parametrize("ruleset", bundled_ids())
def test_every_rule_point_of_every_bundled_ruleset_has_features(ruleset):
    """Each position of each bundled ruleset gives at least one feature with an explicit value
    (a category: its award's); a new point without a feature value fails here."""
    doc = load_resolved(ruleset).doc
    features = ruleset_features(doc, 2)
    for point in positions(doc):
        named = point.key.removesuffix(".award") if point.key.endswith(".award") else point.key
        if point.rule.key == "scoring.*":
            named = f"{point.key}.award"
        mine = [f for f in features if point_of(f) in (point.key, named)]
        assert mine, f"{ruleset}: {point.key} gives no feature"
        assert all(":" in f and not f.endswith(":") for f in mine)


def test_features_name_their_point():
    """A feature names its rule point; the tie rule of an award is part of the award's point."""
    assert point_of("capture.compulsory:optional") == "capture.compulsory"
    assert point_of("scoring.cards.ties:all") == "scoring.cards.award"
    assert point_of("players:3") == "players.counts"
    assert point_of("match") is None and point_of("measures") is None


def test_a_case_needs_only_what_its_events_exercise():
    """Requirements follow what a case plays, not its ruleset: a split 30 only where a 30 opens,
    a tie rule only where the leaders tie, leftovers to nobody only where nobody captured."""
    c = cases()
    split = [i for i, case in c.items() if "opening_table.max_groups:2" in case.requires]
    assert "opening.thirty-splits.fr" in split and len(split) <= 20, split  # of 316 (19: the audit's cirulla and escova games open 30s)
    assert "opening_table.max_groups:2" not in c["opening.fifteen.escoba.da"].requires
    assert "leftovers.if_nobody_captured:discard" in c["leftovers.nobody-captured.fr"].requires
    assert "capture.escoba_on_last_play:yes" in c["capture.escoba-on-last-play.de-jokers"].requires
    assert "scoring.sevens.ties:all" in c["scoring.sevens.tie-all.most-sevens-all-tied"].requires
    assert not any(f.endswith(".ties:all") for f in c["base.2p.1"].requires)
    probe = c["probe.compulsory.card.da"].requires
    assert "capture.compulsory:card" in probe and not any(f.startswith("scoring.") for f in probe)
    # Of the cases whose rules split a 30 (most of the suite), only those where a 30 opens need it.
    splitting = [case for case in c.values() if case.document["opening_table"].get("max_groups") == 2]
    assert len(split) < len(splitting) / 10, (len(split), len(splitting))


def test_stored_requirements_are_what_the_events_exercise():
    """Every bundled case stores its requirements, and they are what its events give now."""
    for case in cases().values():
        assert case.requires is not None, case.id
        computed = required_features(case.document, case.players, case.target, case.expect, case.probe.reason if case.probe else None)
        assert set(case.requires) == computed, case.id


def test_a_case_without_requirements_has_them_computed():
    """A case file written without `requires` (an engine author's own) gets them from its events."""
    import dataclasses

    case = cases()["opening.thirty-splits.fr"]
    bare = dataclasses.replace(case, requires=None)
    assert bare.required_features() == frozenset(case.requires)


def test_legacy_names_keep_their_meaning():
    """The first vocabulary's names stand for what they meant: `opening:dealer_takes` covers the
    dealer taking (and no opening at all) but not a set-aside; `turn:clockwise` adds clockwise
    play to the default; `award:threshold` covers any threshold."""
    old = Declared(["players:2", "compulsory:card", "opening:dealer_takes", "award:most", "award:threshold", "turn:clockwise"])
    assert old.supports("capture.compulsory:card") and not old.supports("capture.compulsory:hand")
    assert old.supports("opening_table.action:dealer_takes") and old.supports("opening_table.action:none")
    assert not old.supports("opening_table.action:set_aside")
    assert old.supports("turn.direction:clockwise") and old.supports("turn.direction:counterclockwise")
    assert old.supports("scoring.cards.award:more-than-20") and not old.supports("scoring.velo.award:holder-7d")
    assert not old.supports("players:3") and not old.supports("match")
    assert set(LEGACY) >= {"partnerships", "jokers", "short_stock", "ties:all", "tie:shared_win", "table_first"}


def test_undeclared_points_take_their_defaults_and_declared_ones_narrow():
    """A point the engine says nothing about follows the documented default; declaring a value
    of it means exactly the declared values; patterns match."""
    nothing = Declared(["players:2"])
    assert nothing.supports("opening_table.escobas:none")  # default: any value
    assert nothing.supports("turn.leader:dealer_right") and not nothing.supports("turn.leader:dealer_left")
    assert not nothing.supports("capture.compulsory:card")  # no default: declare it
    narrow = Declared(["opening_table.escobas:per_group", "scoring.*.award:holder-*"])
    assert narrow.supports("opening_table.escobas:per_group") and not narrow.supports("opening_table.escobas:none")
    assert narrow.supports("scoring.velo.award:holder-7d") and not narrow.supports("scoring.cards.award:most")
    assert narrow.declared_values("opening_table.escobas") == ["per_group"]
    assert Declared(["measures"]).measures and not nothing.measures


def test_the_reference_engine_declares_every_feature_of_every_case():
    """The reference engine's features cover every requirement of every bundled case."""
    declared = Declared(reference_features())
    for case in cases().values():
        assert not declared.missing(case.requires), case.id


def test_docs_show_the_feature_table_the_code_uses():
    """docs/protocol.md holds the generated table of points and features, and of the old names."""
    text = (DOCS / "protocol.md").read_text(encoding="utf-8")
    assert features_markdown() in text
    assert legacy_markdown() in text


def test_a_point_named_exactly_wins_over_a_pattern():
    """`scoring.coins.ties:all` beside `scoring.*.ties:*` narrows coins only."""
    declared = Declared(["scoring.*.ties:*", "scoring.coins.ties:all"])
    assert declared.supports("scoring.coins.ties:all") and not declared.supports("scoring.coins.ties:nobody")
    assert declared.supports("scoring.cards.ties:nobody")
