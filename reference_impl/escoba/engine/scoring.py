"""Award policies: how a category's measures per side become points.

The vocabulary is closed on purpose. "Most coins" and "more than 5 of 10" agree with two sides
and disagree with three, so a ruleset must say which one it means; each policy here is one
such meaning, with its tie rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from escoba.engine.history import SideHistory
from escoba.rules.compile import Category, Rules


@dataclass(frozen=True)
class CategoryScore:
    category: str
    measures: tuple[Any, ...]  # per side; None = not eligible
    points: tuple[int, ...]  # per side
    reason: str

    def to_event(self) -> dict:
        return {
            "event": "score",
            "category": self.category,
            "measures": list(self.measures),
            "points": list(self.points),
            "reason": self.reason,
        }


def score_category(
    cat: Category,
    piles: Sequence[list[int]],
    escobas: Sequence[int],
    history: Sequence[SideHistory] | None = None,
    declared: Sequence[Any] | None = None,
) -> CategoryScore:
    """Score one category. `history` (per side) is required when the category's measure reads
    the hand's history (`cat.needs_history`); `declared` (per side) are the measures of a
    category measured on dealt cards (`cat.measured_on`: engine/declarations.py), added up as
    they were dealt."""
    sides = len(piles)
    points = [0] * sides
    measures: tuple[Any, ...]
    if cat.policy == "holder":
        measures = tuple(cat.card in pile for pile in piles)
        holders = [s for s in range(sides) if measures[s]]
        for s in holders:
            points[s] = cat.points
        reason = f"side {holders[0]} holds the card" if holders else "nobody holds the card"
        return CategoryScore(cat.id, measures, tuple(points), reason)

    assert cat.measure is not None  # every policy but holder has a measure (schema)
    if cat.measured_on != "pile":
        measures = tuple(_number(v) for v in declared) if declared is not None else (0,) * sides
    elif cat.needs_history:
        assert history is not None, f"category {cat.id} reads the hand's history: pass it"
        measures = tuple(_number(cat.measure(p, e, h)) for p, e, h in zip(piles, escobas, history))
    else:
        measures = tuple(_number(cat.measure(pile, esc)) for pile, esc in zip(piles, escobas))
    eligible = [s for s in range(sides) if measures[s] is not None]
    if cat.policy == "per_unit":
        for s in eligible:
            points[s] = cat.points * int(measures[s])
        reason = f"{cat.points} per unit"
    elif cat.policy == "bonus":
        for s in eligible:
            if measures[s]:
                points[s] = cat.points
        reason = "condition holds" if any(points) else "condition holds for nobody"
    elif cat.policy == "threshold":
        bound = cat.more_than
        assert bound is not None
        winners = [s for s in eligible if measures[s] > bound]
        for s in winners:
            points[s] = cat.points
        reason = f"more than {_fmt(bound)}" + ("" if winners else ": nobody")
    elif cat.policy == "most":
        if not eligible:
            reason = "nobody eligible"
        else:
            best = max(measures[s] for s in eligible)
            leaders = [s for s in eligible if measures[s] == best]
            if len(leaders) == 1 or cat.ties == "all":
                for s in leaders:
                    points[s] = cat.points
                reason = f"most ({_fmt(best)})" + (" shared by tied leaders" if len(leaders) > 1 else "")
            else:
                reason = f"tie at {_fmt(best)}: nobody"
    else:  # the schema admits no other policy
        raise AssertionError(f"unknown award policy {cat.policy!r}")
    return CategoryScore(cat.id, measures, tuple(points), reason)


def score_hand(
    rules: Rules,
    piles: Sequence[list[int]],
    escobas: Sequence[int],
    history: Sequence[SideHistory] | None = None,
    declared: Sequence[Sequence[Any]] | None = None,
) -> list[CategoryScore]:
    """Score every category; `history` per side when `rules.needs_history`; `declared` per side
    and category (`Hand.declared`) when the ruleset has declarations (none declared: zeros)."""
    return [
        score_category(cat, piles, escobas, history, None if declared is None else [mine[k] for mine in declared])
        for k, cat in enumerate(rules.categories)
    ]


def _number(value: Any) -> Any:
    # Measures are numbers, booleans or None; 7.0 and 7 are the same measure.
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _fmt(x: Any) -> str:
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return str(x)


def leads(values: Sequence[float]) -> list[float]:
    """Each side's lead: its value less the mean of the other sides' (its own with one side).
    Zero-sum over the sides; what bots and the research bridges (`escoba.research`) return."""
    sides = len(values)
    if sides == 1:
        return [float(v) for v in values]
    total = sum(values)
    return [v - (total - v) / (sides - 1) for v in values]
