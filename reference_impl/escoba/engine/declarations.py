"""Declarations: categories measured on cards as they are dealt, not on the pile.

A category `measured_on: dealt` is measured on each hand as it is dealt to a player (every
round), and the values of a side's hands are added up when the hand is scored; `measured_on:
table` is measured on the opening table as it is turned up, for the dealer's side. A hand
that scores is shown at once (a `declaration` event): a player who is dealt three
cards worth 9 or less shows them for a point. Their award is `per_unit` (rules/semantics.py):
points for each declaration.

The deck's `declaration_wild` card stands for any card its holder chooses when a dealt hand is
measured, and for nothing else: the hand is read with it as each other card of the
deck in turn, and the reading that scores the most points in all the declarations counts (the
card as itself first, then the others in deck order, among equals). One reading for the whole
hand: a wild card named a four for three of a kind is not an ace for the low hand too.

`Hand` and the fused simulation path (`engine/fused.py`) both score a dealt hand with
`declared`, so they cannot disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from escoba.rules.compile import Rules

Values = tuple[Any, ...]  # per category of the ruleset: the hand's measure (0 where not declared on it)


def declared(rules: Rules, cards: Sequence[int], on: str) -> Values | None:
    """What the cards `cards` declare, dealt as a hand (`on="dealt"`) or turned up as the
    opening table (`"table"`): per category, its value (a number; a condition counts 1); None
    when they score no category."""
    indices = [i for i in rules.declarations if rules.categories[i].measured_on == on]
    if not indices:
        return None
    wild = rules.declaration_wild
    if on == "dealt" and wild is not None and wild in cards:
        held = [c for c in cards if c != wild]
        readings = [list(cards)] + [[*held, other] for other in rules.deck.cards if other != wild and other not in held]
    else:
        readings = [list(cards)]
    best: Values | None = None
    best_points = 0.0
    for reading in readings:
        values = _values(rules, indices, reading)
        points = sum(rules.categories[i].points * values[i] for i in indices)
        if best is None or points > best_points:
            best, best_points = values, points
    return best if best is not None and any(best[i] for i in indices) else None


def _values(rules: Rules, indices: Sequence[int], cards: Sequence[int]) -> Values:
    found: list[Any] = [0] * len(rules.categories)
    for i in indices:
        measure = rules.categories[i].measure
        assert measure is not None  # a declaration is per_unit: it has a measure (rules/semantics.py)
        value = measure(cards, 0)
        found[i] = 0 if value is None or value is False else 1 if value is True else value
    return tuple(found)


def scoring_categories(values: Values | None, rules: Rules) -> list[str]:
    """The ids of the categories a declaration scores in."""
    return [rules.categories[i].id for i in rules.declarations if values is not None and values[i]]
