"""The deck: its suits and ranks (with the capture value of each rank), the suit that scores
as coins, and the jokers. The four compile together into `Rules.deck` (`game/cards.py`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from escoba.rules.points.base import ANY, RulePoint, always, never, number
from escoba.rules.points.meanings import meanings_of

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


def _wild_card(value: Any, doc: Mapping[str, Any]) -> int | None:
    """The declaration wild card as a card index (None: no wild card)."""
    return None if value is None else meanings_of(doc).deck().card(str(value))


def _wild_held(position: Any, facts: Any) -> bool:
    """A hand dealt with the wild card in it: the declarations could read it otherwise."""
    if position.value is None:
        return False
    code = meanings_of(facts.doc).card_code(position.value)
    return any(code in cards for h in facts.hands for cards in h.dealt)


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
        "deck.declaration_wild", "deck", "wild card in declarations", default=None,
        text=lambda v, doc: "—" if v is None else meanings_of(doc).card_text(v),
        meaning=lambda v, doc: None if v is None else meanings_of(doc).card(v),
        fields=("declaration_wild",), compile=_wild_card,
        exercised=_wild_held, when="a hand is dealt with the wild card in it",
        assumed=("none",),
        feature_value=lambda p, f: "none" if p.value is None else meanings_of(f.doc).card_code(p.value),
        forms="a card code: `7h`; `none`",
        values=lambda v, doc: [None] if v is not None else [],
        shows_in=("declaration", "score"),
        fast_path=ANY,
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
