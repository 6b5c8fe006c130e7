"""Bounds a game framework asks for, worked out from the ruleset: how long a hand can last in
actions, and how far a side's lead can go.

Nothing is measured from play: each figure follows from the deal (how many cards each seat is
dealt), the capture rules (whether a card may be placed beside a capture, whether one capture
can contain another) and the scoring categories (each one's points; a per-unit category's
measure at its extremes). `tests/test_research.py` pins them against hand-counted figures.
"""

from __future__ import annotations

from dataclasses import dataclass

from escoba.engine.deal import deal_plan
from escoba.engine.history import Capture, SideHistory
from escoba.rules.compile import Category, Rules


def dealt(rules: Rules, players: int) -> list[int]:
    """How many cards each seat is dealt from one deck order (every one of them is played)."""
    plan = deal_plan(rules, players, 0, list(rules.deck.cards))  # counts do not depend on the order
    return [sum(len(hands[seat]) for hands in plan.rounds) for seat in range(players)]


def max_decisions(rules: Rules, players: int) -> int:
    """The most actions the players can take in one hand (`escoba.research.moves` spelling).

    With `P` cards played, `k` of them capturing: a placed card is one action, two where capture
    is optional (`stop` says "place it" beside the captures it could make); a capture is its
    card, the cards it names and a `stop` where one capture can contain another (jokers, or
    several capture kinds). The cards taken come from the table, so they number at most the
    table dealt plus the `P - k` cards placed. The total falls as `k` grows, so it is largest
    with one capture: `(P-1)·place + (1 + nest) + table + (P-1)`.
    """
    plays = sum(dealt(rules, players))
    place = 2 if rules.compulsory == "optional" else 1
    nest = 1 if rules.finder.has_jokers or len(rules.capture_kinds) > 1 else 0
    if plays == 0:
        return 0
    return (plays - 1) * place + (1 + nest) + rules.table_size + (plays - 1)


def max_escobas(rules: Rules, players: int) -> list[int]:
    """Per side, the most escobas it can make in one hand: one per card its seats play, the
    dealer's opening take (if the dealer sits on that side) and the leftovers' escoba."""
    cards = dealt(rules, players)
    opening = 0
    if rules.opening_action == "dealer_takes":
        opening = {"none": 0, "one": 1, "per_group": rules.opening_max_groups}[rules.opening_escobas]
    return [sum(cards[s] for s in seats) + opening + int(rules.leftovers_escoba) for seats in rules.sides(players)]


@dataclass(frozen=True)
class Range:
    low: float
    high: float


def category_range(rules: Rules, cat: Category, escobas: int) -> Range:
    """The fewest and most points one side can score in `cat`, given at most `escobas` escobas.

    Awards of one prize (most, threshold, holder, bonus) give it or not. A per-unit category
    gives `points × measure`; its measure is taken at its extremes: every card or none in the
    pile, no escoba or the most there can be, and a history of nothing or of every card played
    as a sweep (first and last play at once, in each deal round). The measures of every bundled
    ruleset only grow with what the side captured, so these are their extremes;
    `escoba.research.state` checks every hand's returns against the bounds and stops with an
    error rather than report a lead outside them. A declaration (`measured_on` dealt or table)
    is bounded by `declaration_range` instead."""
    if cat.policy != "per_unit" or cat.measure is None:
        return Range(min(0, cat.points), max(0, cat.points))
    size = len(rules.deck)
    cards = list(rules.deck.cards)
    histories: list[SideHistory | None] = [None]
    if cat.needs_history:
        everything = (1 << size) - 1
        rounds = -(-size // max(1, rules.hand_size))
        histories = [SideHistory(tuple(Capture(c, everything, r, True, True, True) for c in cards), last)
                     for r in range(1, rounds + 1) for last in (True, False)]  # fmt: skip
        histories += [SideHistory((), True), SideHistory((), False)]
    measures = [0.0]
    for pile in (cards, []):
        for e in (0, escobas):
            for h in histories:
                value = cat.measure(pile, e, h) if cat.needs_history else cat.measure(pile, e)
                if isinstance(value, (int, float)):  # booleans too; None scores nothing
                    measures.append(float(value))
    ends = (cat.points * min(measures), cat.points * max(measures))
    return Range(min(ends), max(ends))


def declared_range(rules: Rules, cat: Category, players: int) -> Range:
    """The least and most one side's value of the declaration `cat` (measured_on dealt or table)
    adds up to in a hand: its measure at its extremes (a condition 0 or 1, a number at every
    card or none) once for every hand a side can be dealt (a hand per round per seat, the
    largest side's count), or once for the table, which is turned up for the dealer."""
    assert cat.measure is not None  # a declaration is per_unit (rules/semantics.py)
    cards = list(rules.deck.cards)
    measures = [0.0, 1.0] + [float(v) for v in (cat.measure(cards, 0), cat.measure([], 0)) if isinstance(v, (int, float))]
    hands = 1
    if cat.measured_on == "dealt":
        per_seat = dealt(rules, players)
        hands = max(sum(-(-per_seat[s] // max(1, rules.hand_size)) for s in seats) for seats in rules.sides(players))
    return Range(min(measures) * hands, max(measures) * hands)


def declaration_range(rules: Rules, cat: Category, players: int) -> Range:
    """The fewest and most points one side can score in the declaration `cat`, its values at
    their extremes (`declared_range`) as though every hand could score in every declaration
    (Cirulla's are one per hand, so its bound is loose, never short)."""
    values = declared_range(rules, cat, players)
    ends = (cat.points * values.low, cat.points * values.high)
    return Range(min(ends), max(ends))


def points_range(rules: Rules, players: int) -> Range:
    """The fewest and most points one side can score in a hand (every side alike: the largest
    side's escobas, the most hands dealt to a side)."""
    escobas = max(max_escobas(rules, players))
    ranges = [category_range(rules, cat, escobas) if cat.measured_on == "pile" else declaration_range(rules, cat, players)
              for cat in rules.categories]  # fmt: skip
    return Range(sum(r.low for r in ranges), sum(r.high for r in ranges))


def lead_range(rules: Rules, players: int) -> Range:
    """A seat's return for a hand, its side's points less the mean of the others' points, lies in
    `[low - high, high - low]` of a side's points: one side at one end while the rest are at
    the other (with two sides exactly; with more, a mean can only be nearer the middle)."""
    points = points_range(rules, players)
    if len(rules.sides(players)) == 1:
        return points
    return Range(points.low - points.high, points.high - points.low)
