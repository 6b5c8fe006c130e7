"""The table: how many play, who partners whom, the direction of play, who leads and who
deals next. Seats and offsets mean what `game/seats.py` says."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from escoba.game.seats import leader, next_seat
from escoba.rules.points.base import ANY, Recipe, RulePoint, always

_STEP = {"counterclockwise": 1, "clockwise": -1}
_OFFSET = {"dealer_right": 1, "dealer_left": -1, "right": 1, "left": -1}


def _at_least(n: int) -> Any:
    return lambda position, facts: facts.players >= n


def _partnerships_text(value: Any, doc: Mapping[str, Any]) -> str:
    if not value:
        return "none (each for themselves)"
    out = []
    for p in sorted(value, key=lambda p: p.get("players", 0)):
        sides = " v ".join("+".join(str(s) for s in side) for side in p.get("sides", []))
        out.append(f"at {p.get('players')}: seats {sides}")
    return "; ".join(out)


def _partnerships_meaning(value: Any, doc: Mapping[str, Any]) -> Any:
    return sorted((p.get("players"), tuple(sorted(tuple(sorted(s)) for s in p.get("sides", [])))) for p in value or [])


def _partnership_at(position: Any, facts: Any) -> str:
    """The sides at the case's table: `0+2/1+3`, or `none`."""
    for p in facts.doc["players"].get("partnerships") or []:
        if p["players"] == facts.players:
            return "/".join("+".join(str(s) for s in side) for side in p["sides"])
    return "none"


def _partnership_readings(value: Any, doc: Mapping[str, Any]) -> list[Any]:
    """Each for themselves, or partners facing each other at four (the family's usual pairing)
    or sitting side by side."""
    found: list[Any] = [[]] if value else []
    if 4 in doc["players"]["counts"]:
        for sides in ([[0, 2], [1, 3]], [[0, 1], [2, 3]]):
            reading = [{"players": 4, "sides": sides}]
            if _partnerships_meaning(reading, doc) != _partnerships_meaning(value, doc):
                found.append(reading)
    return found


def _next_dealer_matters(position: Any, facts: Any) -> bool:
    return facts.target is not None and facts.players >= 3 and len(facts.hands) >= 2


POINTS = (
    RulePoint(
        "players.counts", "players", "player counts",
        text=lambda v, doc: ", ".join(str(c) for c in sorted(v or [])), meaning=lambda v, doc: tuple(sorted(set(v or []))),
        fields=("player_counts",), compile=lambda v, doc: tuple(v), fast_path=ANY, fixed="a case names its own table",
        exercised=always, when="always: the case's number of players", assumed=(),
        feature_key="players", feature_value=lambda p, f: str(f.players), forms="the case's number of players: `players:2`",
    ),
    RulePoint(
        "players.partnerships", "players", "partnerships", default=[],
        text=_partnerships_text, meaning=_partnerships_meaning, values=_partnership_readings,
        fields=("partnerships",),
        compile=lambda v, doc: MappingProxyType({p["players"]: tuple(tuple(side) for side in p["sides"]) for p in v}),
        in_play=lambda rules, players: rules.sides(players), fast_path=ANY,
        exercised=_at_least(4), when="four players or more", assumed=("none",),
        feature_value=_partnership_at, forms="`none`, or the sides at the case's table: `0+2/1+3`",
        shows_in=("score", "escoba", "hand_end", "totals", "opening", "leftovers", "state"), recipe=Recipe(min_players=4),
    ),
    # The seat after each seat and the leader of each dealer: at two players both ways are one.
    RulePoint(
        "turn.direction", "players", "direction of play", fields=("direction",), compile=lambda v, doc: _STEP[v],
        in_play=lambda rules, n: tuple(next_seat(d, rules.direction, n) for d in range(n)), fast_path=frozenset({1, -1}),
        exercised=_at_least(3), when="three players or more (at two, both ways are the same)", assumed=("counterclockwise",),
        shows_in=("deal", "legal"), recipe=Recipe(min_players=3),
    ),
    RulePoint(
        "turn.leader", "players", "who leads", fields=("leader_offset",), compile=lambda v, doc: _OFFSET[v],
        in_play=lambda rules, n: tuple(leader(d, rules.leader_offset, n) for d in range(n)), fast_path=ANY,
        exercised=_at_least(3), when="three players or more (at two, the dealer's right is the left)", assumed=("dealer_right",),
        shows_in=("hand_start", "deal", "legal"), recipe=Recipe(min_players=3),
    ),
    RulePoint(
        "turn.next_dealer", "players", "the deal passes to the", fields=("next_dealer_offset",), compile=lambda v, doc: _OFFSET[v],
        fast_path=ANY, shows_in=("hand_start",), recipe=Recipe(min_players=3, match=True),
        exercised=_next_dealer_matters, when="a match of two hands or more, at three players or more", assumed=("right",),
    ),
)  # fmt: skip
