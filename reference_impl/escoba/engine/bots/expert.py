"""The expert bot: the greedy judge while cards are hidden, exact play once every card is known.

While some card's place is unknown to the seat, a move is judged as the greedy bot judges it
(`Judge`: what it captures by the ruleset's own scoring, less what the next player can be
expected to capture from the table it leaves, the unseen cards counted). Once the seat knows
where every card is (at two players, the whole last round), it plays the rest of the hand
exactly (`escoba.engine.bots.endgame`): the leftovers, the last capture and every category
are then worked out to the end rather than estimated.
"""

from __future__ import annotations

from escoba.engine.bots.basic import Bot, Seed, generator, thinking
from escoba.engine.bots.endgame import best_move, known_hand
from escoba.engine.bots.greedy import Judge
from escoba.engine.hand import Hand, Move
from escoba.engine.worth import worth_of


def expert_bot(seed: Seed = None) -> Bot:
    """The greedy judge, and exact play once every card is known (ties break at random in the
    judge's moves, to the first legal move in exact play)."""
    rng = generator(seed)

    def choose(hand: Hand, seat: int) -> Move:
        view = hand.view(seat)
        known = known_hand(view)
        if known is not None:
            return best_move(known)
        judge = Judge(view, worth_of(hand.rules, hand.sides))
        return max(hand.legal_moves(), key=lambda m: (judge.move(m), rng.random()))

    return thinking(choose)
