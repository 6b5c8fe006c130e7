"""Bots: a random player and a greedy one. A seeded bot is deterministic."""

from __future__ import annotations

import random
from collections.abc import Callable

from escoba.engine.hand import Hand, Move

Bot = Callable[[Hand], Move]


def random_bot(seed: int | None = None) -> Bot:
    rng = random.Random(seed)

    def play(hand: Hand) -> Move:
        moves = hand.legal_moves()
        return moves[rng.randrange(len(moves))]

    return play


def greedy_bot(seed: int | None = None) -> Bot:
    """Prefers an escoba, then the velo, then coins and sevens, then the most cards; when it
    cannot capture it leaves the table as far from the target as it can. Ties break at random."""
    rng = random.Random(seed)

    def play(hand: Hand) -> Move:
        moves = hand.legal_moves()
        deck, rules = hand.rules.deck, hand.rules
        coins, sevens = deck.scoring_suit, _seven_rank(deck)
        velo = next((c for c in deck.cards if deck.suit[c] == coins and deck.rank[c] == sevens), None)
        table_total = sum(deck.value[c] for c in hand.table)

        def worth(move: Move) -> tuple:
            taken = (move.card, *move.take)
            if move.take:
                escoba = len(move.take) == len(hand.table)
                return (
                    1,
                    escoba,
                    velo in taken,
                    sum(deck.suit[c] == coins for c in taken) + sum(deck.rank[c] == sevens for c in taken),
                    len(taken),
                    rng.random(),
                )
            left = table_total + deck.value[move.card]
            # Keep coins and sevens in hand; leave a table an opponent cannot sweep in one card
            # (by any capture kind: the target with the card, or the card's own value).
            sweepable = any((rules.finder.target - left if kind == "target" else left) in deck.rank_values
                            for kind, _ in rules.capture_kinds)
            return (0, not sweepable, -(deck.suit[move.card] == coins), -(deck.rank[move.card] == sevens), rng.random())

        return max(moves, key=worth)

    return play


def _seven_rank(deck) -> int:
    try:
        return deck.rank_ids.index("7")
    except ValueError:
        return -1


BOTS: dict[str, Callable[[int | None], Bot]] = {"random": random_bot, "greedy": greedy_bot}
