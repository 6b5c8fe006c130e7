"""The rule point registry: every compiled field has exactly one rule point, every rule point has
each of its parts (or says why not), and the views built from it agree with it."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

import escoba
from escoba.rules import bundled_ids, load_resolved
from escoba.rules.compile import Category, Rules
from escoba.rules.points import CONCERNS, DERIVED, POINTS, REQUIRED, other_values, positions, rule_of, with_value

ROOT = Path(__file__).parent.parent
SCHEMA = json.loads((ROOT / "schemas" / "ruleset.schema.json").read_text(encoding="utf-8"))


def _owners(kind: type, prefix: str) -> dict[str, list[str]]:
    """Each field of `kind`, with the rule points (and derived entries) that claim it."""
    points = [p for p in POINTS if p.key.startswith("scoring.*")] if kind is Category else [p for p in POINTS if not p.key.startswith("scoring.*")]
    owners: dict[str, list[str]] = {f.name: [] for f in dataclasses.fields(kind)}
    for point in points:
        for name in point.fields:
            owners.setdefault(name, []).append(point.key)
    for name in DERIVED:
        if name.startswith(prefix):
            owners.setdefault(name.split(".", 1)[1], []).append(f"derived: {DERIVED[name]}")
    return owners


@pytest.mark.parametrize(("kind", "prefix"), [(Rules, "Rules."), (Category, "Category.")])
def test_every_compiled_field_has_exactly_one_rule_point(kind, prefix):
    """Each field of the compiled rules is owned by one rule point, or derived from points
    with the reason written down; no point names a field that does not exist."""
    owners = _owners(kind, prefix)
    names = {f.name for f in dataclasses.fields(kind)}
    assert {name: who for name, who in owners.items() if len(who) != 1} == {}
    assert set(owners) == names


def test_every_rule_point_has_each_of_its_parts():
    """Every declaration says: where it lives (a key the schema knows), its group and title,
    what it compiles to (or why nothing), when a case exercises it, its other values (or why
    a case fixes it), and where a different value shows."""
    concerns = {c for c, _ in CONCERNS}
    for point in POINTS:
        assert point.concern in concerns and point.title, point.key
        assert bool(point.fields) != bool(point.no_field), f"{point.key}: fields, or no_field saying why not"
        assert point.when, f"{point.key}: when a case exercises it, in words"
        if point.per_item:
            continue
        section = SCHEMA["properties"][point.section]
        assert point.name in section["properties"], f"{point.key} is not in the ruleset schema"
        required = point.name in section.get("required", [])
        assert required == (point.default is REQUIRED), f"{point.key}: a default exactly when the schema does not require it"
        spec = section["properties"][point.name]
        readings = point.values is not None or "enum" in spec or spec.get("type") == "boolean"
        assert readings or point.fixed, f"{point.key}: its other values, or why a case fixes it"
        if point.exercised.__name__ != "never":
            assert point.shows_in or point.fixed or point.key.startswith("match."), f"{point.key}: where it shows"


def test_the_declarations_are_the_schemas_sections():
    """Every key of a rule-bearing section of the ruleset schema is a rule point (provenance
    and free text aside), so no rule can be written that the registry does not know."""
    sections = {p.section for p in POINTS if not p.per_item}
    for section in sections:
        for name in SCHEMA["properties"][section]["properties"]:
            if name in ("provenance", "notes"):
                continue
            assert rule_of(f"{section}.{name}") is not None, f"{section}.{name} has no rule point"


@pytest.mark.parametrize("ruleset", bundled_ids())
def test_a_point_set_to_another_value_changes_that_position_alone(ruleset):
    """`with_value` writes one other value of a point into a copy of the document: the
    document's positions then differ at that point and nowhere else, and it still compiles."""
    doc = load_resolved(ruleset).doc
    before = {p.key: p.meaning for p in positions(doc)}
    tried = 0
    for position in positions(doc):
        for value in other_values(doc, position)[:1]:
            changed = with_value(doc, position.key, value)
            if changed is None:
                continue
            after = {p.key: p.meaning for p in positions(changed)}
            differ = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
            if value is None:  # a category not scored: its points go
                assert differ and all(k.startswith(f"{position.key}.") or k == position.key for k in differ), (position.key, differ)
            else:
                assert differ == {position.key}, (position.key, value, differ)
            tried += 1
    assert tried >= 10


def test_compiled_defaults_are_the_declared_defaults():
    """A ruleset that leaves a key out compiles to the point's declared default: base writes
    none of these, and its compiled fields are the defaults' compiled values."""
    rules = escoba.load_ruleset("base")
    doc = load_resolved("base").doc
    for point in POINTS:
        if point.per_item or point.default is REQUIRED or not point.fields or point.name in (doc.get(point.section) or {}):
            continue
        default = point.default(doc) if callable(point.default) else point.default
        compiled = point.compile(default, doc)
        values = compiled if len(point.fields) > 1 else (compiled,)
        assert tuple(getattr(rules, f) for f in point.fields) == tuple(values), point.key
