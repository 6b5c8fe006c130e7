"""Rule features: what an engine declares in `hello`, and what a case requires.

A feature names one way a ruleset can differ from the commonest game, so that an engine which
implements part of the rules can say so and see the cases it cannot play reported as
`unsupported` rather than failed. The vocabulary is the one in docs/protocol.md; a case's
requirements are computed from its resolved ruleset and table (players, target), never written
by hand, so they cannot drift from the rules they stand for.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

FEATURES: tuple[str, ...] = (
    "players:2",
    "players:3",
    "players:4",
    "partnerships",
    "compulsory:optional",
    "compulsory:card",
    "compulsory:hand",
    "opening:dealer_takes",
    "opening:set_aside",
    "opening:redeal",
    "opening:any_combination",
    "opening:split",
    "jokers",
    "short_stock",
    "award:most",
    "award:threshold",
    "award:holder",
    "award:per_unit",
    "award:bonus",
    "ties:all",
    "match",
    "tie:shared_win",
    "table_first",
    "turn:clockwise",
    "leader:dealer_left",
    "next_dealer:left",
)


def required_features(doc: Mapping[str, Any], players: int, target: int | None) -> frozenset[str]:
    """The features an engine needs to play `players` seats of the resolved ruleset `doc`.

    `target` is None for a single hand: rules that only act between hands (the next dealer,
    the match tie rule) are then not required.
    """
    need = {f"players:{players}", f"compulsory:{doc['capture']['compulsory']}"}
    partnerships = doc["players"].get("partnerships") or []
    if any(p["players"] == players for p in partnerships):
        need.add("partnerships")
    opening = doc["opening_table"]
    if opening["action"] != "none":
        need.add(f"opening:{opening['action']}")
        if opening["trigger"] == "any_combination":
            need.add("opening:any_combination")
        if int(opening.get("max_groups", 1)) >= 2:
            need.add("opening:split")
    if int(doc["deck"].get("jokers", 0)) > 0:
        need.add("jokers")
    deal = doc["deal"]
    if deal.get("short_stock", "forbid") != "forbid":
        need.add("short_stock")
    if deal.get("table_first", False):
        need.add("table_first")
    turn = doc["turn"]
    if turn["direction"] == "clockwise":
        need.add("turn:clockwise")
    if turn["leader"] == "dealer_left":
        need.add("leader:dealer_left")
    for category in doc["scoring"]["categories"]:
        award = category["award"]
        need.add(f"award:{award['policy']}")
        if award["policy"] == "most" and award.get("ties", "nobody") == "all":
            need.add("ties:all")
    if target is not None:
        need.add("match")
        if doc["match"]["tie"] == "shared_win":
            need.add("tie:shared_win")
        if turn["next_dealer"] == "left":
            need.add("next_dealer:left")
    return frozenset(need)
