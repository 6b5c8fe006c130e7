"""The expert bot: the greedy judge while cards are hidden, exact play once every card is known.

While some card's place is unknown to the seat, a move is judged as the greedy bot judges it
(`Judge`: what it captures by the ruleset's own scoring, less what the next player can be
expected to capture from the table it leaves, the unseen cards counted). Once the seat knows
where every card is (at two players, the whole last round), it plays the rest of the hand
exactly (`escoba.engine.bots.endgame`): the leftovers, the last capture and every category
are then worked out to the end rather than estimated. At three or four players the last cards
stay in several hidden hands; for the last few plays it solves a sample of their deals.

With `learned=True` (spec `learned`) the judge is the learned judgement instead
(`escoba.engine.bots.evaluation`: more of the position a move leaves, weighed by fitted
weights), the rest unchanged.

Every choice is made from `hand.view(seat)` (tests/test_bots.py deals the hidden cards again
and requires the same move), and the game is known only through the compiled ruleset.
"""

from __future__ import annotations

from escoba.engine.bots.basic import Bot, Seed, generator, thinking
from escoba.engine.bots.endgame import best_move, known_hand, sampled_move
from escoba.engine.bots.evaluation import Evaluation
from escoba.engine.bots.greedy import Judge
from escoba.engine.hand import Hand, Move
from escoba.engine.worth import worth_of

# Late in a hand at three or four players (the stock empty, at most LATE cards in all hands,
# in several hidden hands), the move of the best mean lead over WORLDS deals of the hidden
# cards, each solved exactly. Measured at 4 players (de, duplicate format, 400 deals against
# the expert without it): +0.15 ± 0.07 points a hand with 16 deals from 6 cards left, at 0.27 ms
# a decision; +0.15 ± 0.08 from 8 cards at 0.80 ms; from 12 cards (the whole last round)
# +0.32 ± 0.13 with 16 deals but 15.8 ms a decision, too slow for the bot diff plays by default.
LATE = 6
WORLDS = 16


def expert_bot(seed: Seed = None, *, learned: bool = False) -> Bot:
    """The greedy judge (the learned one with `learned`), exact play once every card is known,
    a sampled solve for the last few plays at three or four players (ties break at random in
    the judge's moves, to the first legal move when solving)."""
    judgement = Evaluation if learned else Judge
    rng = generator(seed)

    def choose(hand: Hand, seat: int) -> Move:
        view = hand.view(seat)
        known = known_hand(view)
        if known is not None:
            return best_move(known)
        if view.stock_size == 0 and sum(view.hand_sizes) <= LATE:
            return sampled_move(view, hand.legal_moves(), rng, WORLDS)
        judge = judgement(view, worth_of(hand.rules, hand.sides))
        return max(hand.legal_moves(), key=lambda m: (judge.move(m), rng.random()))

    return thinking(choose)
