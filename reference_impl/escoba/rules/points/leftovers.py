"""The cards left on the table when a hand ends: whose they are, whether taking them is an
escoba, and what happens to them when nobody captured."""

from __future__ import annotations

from typing import Any

from escoba.rules.points.base import Recipe, RulePoint, flag


def _to_matters(position: Any, facts: Any) -> bool:
    return any(h.captured for h, _ in facts.leftovers())


def _taken(position: Any, facts: Any) -> bool:
    return any(e.get("side") is not None for _, e in facts.leftovers())


def _nobody_captured(position: Any, facts: Any) -> bool:
    if facts.doc["leftovers"].get("to") != "last_capturer":
        return False
    return any(not h.captured for h, _ in facts.leftovers())


POINTS = (
    RulePoint(
        "leftovers.to", "leftovers", "leftovers go to the",
        fields=("leftovers_to",), in_play=True, fast_path=frozenset({"last_capturer", "dealer", "discard"}),
        exercised=_to_matters, when="cards are left at the end of a hand in which someone captured", shows_in=("leftovers",),
    ),
    flag("leftovers.escoba", "leftovers", "leftovers are an escoba", "leftovers_escoba", default=False,
         exercised=_taken, when="cards left at the end go to a side", shows_in=("score",)),
    RulePoint(
        "leftovers.if_nobody_captured", "leftovers", "leftovers when nobody captured", default="discard",
        fields=("if_nobody_captured",), in_play=True, fast_path=frozenset({"discard", "dealer"}),
        exercised=_nobody_captured, when="cards are left at the end of a hand in which nobody captured", shows_in=("leftovers",),
        # Only placing cards leaves a hand in which nobody captured: where capture is optional.
        recipe=Recipe(bots=("placer",), possible=lambda rules, counts: rules.compulsory == "optional" and rules.leftovers_to == "last_capturer"),
    ),
)  # fmt: skip
