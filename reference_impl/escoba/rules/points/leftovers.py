"""The cards left on the table when a hand ends: whose they are, whether taking them is an
escoba, and what happens to them when nobody captured."""

from __future__ import annotations

from typing import Any

from escoba.rules.points.base import Recipe, RulePoint


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
        fields=("leftovers_to",),
        exercised=_to_matters, when="cards are left at the end of a hand in which someone captured",
        shows_in=("leftovers",),
        in_play=lambda rules, players: rules.leftovers_to,
        fast_path=frozenset({"last_capturer", "dealer", "discard"}),
    ),
    RulePoint(
        "leftovers.escoba", "leftovers", "leftovers are an escoba", default=False,
        fields=("leftovers_escoba",), compile=lambda v, doc: bool(v),
        exercised=_taken, when="cards left at the end go to a side",
        shows_in=("score",),
        in_play=lambda rules, players: rules.leftovers_escoba,
        fast_path=frozenset({True, False}),
    ),
    RulePoint(
        "leftovers.if_nobody_captured", "leftovers", "leftovers when nobody captured", default="discard",
        fields=("if_nobody_captured",),
        exercised=_nobody_captured, when="cards are left at the end of a hand in which nobody captured",
        shows_in=("leftovers",),
        # Only placing cards leaves a hand in which nobody captured: where capture is optional.
        recipe=Recipe(bots=("placer",), possible=lambda rules, counts: rules.compulsory == "optional" and rules.leftovers_to == "last_capturer"),
        in_play=lambda rules, players: rules.if_nobody_captured,
        fast_path=frozenset({"discard", "dealer"}),
    ),
)  # fmt: skip
