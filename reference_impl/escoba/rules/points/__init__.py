"""The rule points: each rule of the game declared once (`base.RulePoint`), one module per
concern, listed in `catalogue.POINTS`; everything else is a view of them. docs/architecture.md
walks through adding one."""

from escoba.rules.points.base import ANY, REQUIRED, Recipe, RulePoint, number, plain, word
from escoba.rules.points.catalogue import (
    CONCERN_TITLES,
    CONCERNS,
    DERIVED,
    POINTS,
    Citation,
    Position,
    by_key,
    category_ids,
    other_values,
    positions,
    rule_of,
    with_value,
)
from escoba.rules.points.meanings import Meanings, meanings_of

__all__ = [
    "ANY", "CONCERNS", "CONCERN_TITLES", "DERIVED", "POINTS", "REQUIRED", "Citation", "Meanings", "Position",
    "Recipe", "RulePoint", "by_key", "category_ids", "meanings_of", "number", "other_values", "plain",
    "positions", "rule_of", "with_value", "word",
]  # fmt: skip
