"""Deck orders that deal a chosen position: the inverse of the deal.

Golden transcripts and hand-built test positions say "the table is 3♣ 5♥ Kn♠ 2♦, you hold
7♦ K♥ 4♣"; this turns that into the full deck order the deal convention needs (see
docs/architecture.md), so that every case is still fixed by a deck order alone.
"""

from __future__ import annotations

from collections.abc import Sequence

from escoba.engine.deal import Deal, order_for
from escoba.errors import EscobaError
from escoba.rules.compile import Rules

Cards = Sequence[str | int]


def arrange_deck(
    rules: Rules,
    players: int,
    dealer: int,
    table: Cards,
    rounds: Sequence[Sequence[Cards]],
    rest: Cards = (),
) -> list[int]:
    """The deck order that deals `table` and then `rounds[k][seat]` to each seat.

    `rest` continues the stock after the given rounds; cards named nowhere follow in deck
    order. Cards may be given as ints or in any card notation.
    """
    deck = rules.deck

    def ints(cards: Cards) -> tuple[int, ...]:
        return tuple(c if isinstance(c, int) else deck.card(c) for c in cards)

    for k, hands in enumerate(rounds):
        if len(hands) != players:
            raise EscobaError(f"round {k + 1} gives {len(hands)} hands for {players} players")
    deal = Deal(ints(table), tuple(tuple(ints(h) for h in hands) for hands in rounds))
    order = order_for(rules, players, dealer, deal) + list(ints(rest))
    if len(set(order)) != len(order):
        raise EscobaError("a card is dealt twice")
    named = set(order)
    order += [c for c in deck.cards if c not in named]
    return order
