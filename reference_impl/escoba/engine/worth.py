"""What a card (and an escoba) is worth under a ruleset's own scoring categories.

Bots must play any ruleset, house rules included, without a rank, suit or card named in
Python. So the worth of a card is measured, not written down: deal the whole deck into the
sides' piles at random many times, score each deal with the ruleset's compiled categories
(`score_hand`, exactly as a hand is scored), and see how much a side's lead grows when one card
is in its pile rather than in another side's. The same for one more escoba. A category that
rewards the seven of coins, most sevens, a threshold of cards, a bonus for all four of a rank,
or anything the measure language can say, gets its weight that way.

The lead is a side's points minus the mean of the other sides' points, the quantity a hand
decides. The deals are seeded (the same worth on every machine) and every card is tried in the
same deals (common random numbers), so differences between cards are not sampling noise.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from escoba.engine.history import SideHistory
from escoba.engine.scoring import score_hand
from escoba.rules.compile import Rules

DEALS = 64  # random end-of-hand deals per ruleset and table: a fraction of a second, once per process
SEED = 15


@dataclass(frozen=True)
class Worth:
    """Per card, and per escoba, the expected gain in a side's lead from holding it."""

    card: tuple[float, ...]
    escoba: float


_cache: dict[tuple[int, int], tuple[Rules, Worth]] = {}


def worth_of(rules: Rules, sides: int) -> Worth:
    """The worth of every card and of an escoba when `sides` sides score (cached per process)."""
    key = (id(rules), sides)
    hit = _cache.get(key)
    if hit is not None and hit[0] is rules:
        return hit[1]
    worth = _measure(rules, max(sides, 2))
    if len(_cache) > 64:
        _cache.clear()
    _cache[key] = (rules, worth)
    return worth


def _lead(rules: Rules, piles: list[list[int]], escobas: list[int]) -> float:
    # A random deal has no history of captures: categories that read it (event measures) see
    # none, so their worth is what the piles alone give them (a known limit of these bots).
    history = [SideHistory((), False) for _ in piles] if rules.needs_history else None
    scores = score_hand(rules, piles, escobas, history)
    points = [sum(s.points[side] for s in scores) for side in range(len(piles))]
    return points[0] - sum(points[1:]) / (len(points) - 1)


def _measure(rules: Rules, sides: int) -> Worth:
    rng = random.Random(SEED)
    cards = list(rules.deck.cards)
    gain = [0.0] * len(cards)
    escoba = 0.0
    for _ in range(DEALS):
        owner = [rng.randrange(sides) for _ in cards]
        escobas = [rng.choice((0, 0, 1, 1, 2, 3)) for _ in range(sides)]
        piles: list[list[int]] = [[] for _ in range(sides)]
        for c in cards:
            piles[owner[c]].append(c)
        for c in cards:  # the card in side 0's pile, then in side 1's
            piles[owner[c]].remove(c)
            piles[0].append(c)
            mine = _lead(rules, piles, escobas)
            piles[0].pop()
            piles[1].append(c)
            theirs = _lead(rules, piles, escobas)
            piles[1].pop()
            piles[owner[c]].append(c)
            gain[c] += mine - theirs
        more = list(escobas)
        more[0] += 1
        escoba += _lead(rules, piles, more) - _lead(rules, piles, escobas)
    return Worth(tuple(g / DEALS for g in gain), escoba / DEALS)
