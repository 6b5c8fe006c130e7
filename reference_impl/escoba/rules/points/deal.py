"""The deal: cards per hand and on the table, which comes first, a stock that does not divide
into whole rounds, and hands played face up. How a deck order is dealt is `engine/deal.py`."""

from __future__ import annotations

from typing import Any

from escoba.rules.points.base import ANY, Recipe, RulePoint, always, count, flag, never

_DEALT = "a case's deck orders are dealt under it: no other value deals them"


def _stock_divides_not(position: Any, facts: Any) -> bool:
    deal = facts.doc["deal"]
    rest = len(facts.rules.deck) - int(deal["table_size"])
    return rest % (facts.players * int(deal["hand_size"])) != 0


def _short_stock_possible(rules: Any, counts: list[int]) -> bool:
    rest = len(rules.deck) - rules.table_size
    return any(rest % (p * rules.hand_size) for p in counts)


POINTS = (
    count("deal.hand_size", "deal", "cards per hand", "hand_size", in_play=True, fast_path=ANY,
          exercised=always, when="always", fixed=_DEALT, shows_in=("deal",)),
    count("deal.table_size", "deal", "cards on the table", "table_size", in_play=True, fast_path=ANY,
          exercised=always, when="always", fixed=_DEALT, shows_in=("deal",)),
    # A replayed hand keeps its cards: which came first off the stock changes nothing of play.
    flag("deal.table_first", "deal", "table dealt before the hands", "table_first", default=False, in_play=None,
         exercised=always, when="always (it changes which cards go where)", assumed=("no",), shows_in=("deal", "table")),
    RulePoint(
        "deal.short_stock", "deal", "a stock that does not divide", default="forbid",
        fields=("short_stock",), in_play=True, fast_path=ANY,
        exercised=_stock_divides_not, when="the stock does not divide into whole rounds at this table", assumed=("forbid",),
        shows_in=("deal",), recipe=Recipe(possible=_short_stock_possible),
    ),
    # Who sees which cards: it changes what a bot may know, not the rules of play.
    flag("deal.open_hands", "deal", "hands played face up", "open_hands", default=False, in_play=None,
         exercised=never, when="never: no event depends on it"),
)  # fmt: skip
