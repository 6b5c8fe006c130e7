"""What every bot shares: the bot's type, its generator, and the random bot.

A bot is a function `bot(hand) -> Move` for the seat whose turn it is; a bot maker builds one
from a seed (an int, None for a fresh one, or a `random.Random` to draw from: `escoba.simulate`
hands every seat of a hand the hand's own generator, docs/simulate.md). A seeded bot is
deterministic.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from escoba.engine.hand import Hand, Move

Bot = Callable[[Hand], Move]
Seed = int | random.Random | None
BotMaker = Callable[[Seed], Bot]


def generator(seed: Seed) -> random.Random:
    """The generator a bot draws from: the one given, or a new one seeded with `seed`."""
    return seed if isinstance(seed, random.Random) else random.Random(seed)


def random_bot(seed: Seed = None) -> Bot:
    """Plays `moves[rng.randrange(len(moves))]` of the sorted legal moves (the fused simulation
    path, `escoba.engine.fused`, plays exactly this)."""
    rng = generator(seed)

    def play(hand: Hand) -> Move:
        moves = hand.legal_moves()
        return moves[rng.randrange(len(moves))]

    return play


def thinking(choose: Callable[[Hand, int], Move]) -> Bot:
    """A bot that calls `choose(hand, seat)` only when there is a choice to make."""

    def play(hand: Hand) -> Move:
        moves = hand.legal_moves()
        if len(moves) == 1:
            return moves[0]
        seat = hand.to_play
        assert seat is not None
        return choose(hand, seat)

    return play
