"""The deck: its suits and ranks (with the capture value of each rank), the suit that scores
as coins, and the jokers. The four compile together into `Rules.deck` (`game/cards.py`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from escoba.rules.points.base import RulePoint, always, never, number

_INTO_DECK = "compiled with the other deck points into Rules.deck (game/cards.py)"
_DEALT = "a case's deck orders are dealt under it: no other value deals them"


def _suits_text(value: Any, doc: Mapping[str, Any]) -> str:
    deck = doc["deck"]
    suits, ranks = deck.get("suits") or [], deck.get("ranks") or []
    count = len(suits) * len(ranks) + int(deck.get("jokers") or 0)
    names = ", ".join(f"{s.get('id')} {s.get('symbol', '')}".strip() for s in suits)
    return f"{count} cards: {len(suits)} suits ({names}) × {len(ranks)} ranks"


def _values_text(ranks: Any, doc: Mapping[str, Any]) -> str:
    """`1–7 face value, sota 8, caballo 9, rey 10`."""
    parts: list[str] = []
    run: list[str] = []

    def close() -> None:
        if run:
            parts.append(f"{run[0]}–{run[-1]} face value" if len(run) > 1 else f"{run[0]} = {run[0]}")
            run.clear()

    for r in ranks or []:
        rid, value = str(r.get("id")), r.get("value")
        if rid.isdigit() and value == int(rid):
            run.append(rid)
            continue
        close()
        parts.append(f"{rid} {value}")
    close()
    return ", ".join(parts)


POINTS = (
    RulePoint(
        "deck.suits", "deck", "deck",
        text=_suits_text,
        meaning=lambda v, doc: tuple(s.get("id") for s in v or ()) + ("×",) + tuple(str(r.get("id")) for r in doc["deck"].get("ranks") or ()),
        no_field=_INTO_DECK,
        exercised=always, when="always (every case deals the deck)",
        feature_value=lambda p, f: ",".join(str(s["id"]) for s in p.value or ()),
        forms="the suit ids in order: `oros,copas,espadas,bastos`",
        fixed=_DEALT,
        shows_in=("deal",),
        in_play=lambda rules, players: rules.deck.code,
    ),
    RulePoint(
        "deck.ranks", "deck", "capture values",
        text=_values_text,
        meaning=lambda v, doc: tuple((str(r.get("id")), number(r.get("value"))) for r in v or ()),
        no_field=_INTO_DECK,
        exercised=always, when="always (capture values decide every capture)",
        feature_value=lambda p, f: ",".join(f"{r['id']}={number(r['value'])}" for r in p.value or ()),
        forms="`id=value` per rank in order: `1=1,2=2,…,rey=10`",
        fixed=_DEALT,
        shows_in=("deal", "legal"),
        in_play=lambda rules, players: rules.deck.value,
    ),
    RulePoint(
        "deck.scoring_suit", "deck", "scoring suit (coins)",
        no_field=_INTO_DECK,
        exercised=never, when="never: no event depends on it (measures name their suit)",
        forms="a suit id: `oros`",
        fixed=_DEALT,
    ),
    RulePoint(
        "deck.jokers", "deck", "jokers", default=0,
        no_field=_INTO_DECK,
        exercised=always, when="always (jokers change the deal)", assumed=("0",),
        forms="a number: `0`, `2`",
        fixed=_DEALT,
        shows_in=("deal",),
        in_play=lambda rules, players: rules.deck.code,
    ),
)  # fmt: skip
