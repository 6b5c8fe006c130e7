"""A learned judgement of a move: features of the position it leaves, weighed by fitted weights.

The greedy judge (`escoba.engine.bots.greedy.Judge`) counts what a move captures less what the
next player can be expected to take back. `Evaluation` measures more of the position the move
leaves, every feature in the ruleset's own units (card and escoba worths, `escoba.engine.worth`)
or in plain counts, so no card, rank or suit is named and any ruleset is played:

| feature | what it measures |
|---|---|
| `gain` | the worth the move captures (an escoba's included), as the judge counts it |
| `placed` | the worth of the card placed, when the move captures nothing |
| `reply` | the judge's expected capture of the next player from the table left |
| `sweep` | the chance that the next player holds a card that sweeps that table |
| `left` | the worth of the cards left on the table |
| `left_cards` | how many cards are left on the table |
| `own_next` | the best capture the seat's own remaining cards have on that table |
| `kept` | the worth of the seat's remaining cards |
| `last_capturer` | the worth left on the table, signed by who will have captured last (+ this side) |
| `late_left`, `late_gain`, `late_reply` | `left`, `gain` and `reply` times how far into the hand the play is (0 to 1) |

The value of a move is the weighted sum: an estimate of the side's lead at the end of the hand,
less what no move changes. The weights are tuning constants of the bot, like greedy's
`PLACE_COST`, not rules: `benchmarks/fit_evaluation.py` fitted them by least squares on the
hands' final leads, over self-play of the expert (one round of fitting, then a second on
self-play of this evaluation), with a fifth of the moves chosen at random so that moves the
judge would not play are seen too. Fitted on `da`; measured on the other rulesets too
(docs/bots.md).
"""

from __future__ import annotations

from math import comb

from escoba.engine.bots.greedy import Judge
from escoba.engine.hand import Move
from escoba.engine.view import View
from escoba.engine.worth import Worth

# Tuning constants, not rules: each feature's weight, fitted by `python benchmarks/fit_evaluation.py`
# (two rounds of 20,000 self-play hands of `da`, seeded 2 and 3; its output, rounded to three
# places). Units: points of final lead per unit of the feature (worths are in the ruleset's
# own units, so the weights serve every ruleset; measured on three regional rulesets and a family game: docs/bots.md).
WEIGHTS: dict[str, float] = {
    "gain": 0.445,  # near the half that search's playouts count a capture at (`Worth.card`: won *and* denied)
    "placed": 0.018,
    "reply": -0.567,  # the judge's expected reply, counted at a little over half
    "sweep": -0.484,  # the chance of leaving an escoba costs about half a point beyond the reply
    "left": 0.057,
    "left_cards": 0.032,
    "own_next": 0.179,  # what the seat's own cards could take next on the table left
    "kept": 0.025,
    "last_capturer": -0.026,
    "late_left": -0.008,
    "late_gain": 0.008,
    "late_reply": -0.009,
}
FEATURES = tuple(WEIGHTS)  # the order of `Evaluation.features`


class Evaluation:
    """Scores moves for the seat to play, from its view only: the fitted weights times the
    features of the position each move leaves."""

    def __init__(self, view: View, worth: Worth, weights: tuple[float, ...] = tuple(WEIGHTS.values())):
        self.judge = Judge(view, worth)
        self.view, self.worth, self.weights = view, worth, weights
        rules = view.rules
        side_of = rules.side_of(view.players)
        self.side_of, self.side = side_of, side_of[view.seat]
        # How far into the hand the play is: 0 with every card still to play, 1 at the end.
        self.late = 1 - (view.stock_size + sum(view.hand_sizes)) / len(rules.deck.cards)

    def move(self, move: Move) -> float:
        return sum(w * x for w, x in zip(self.weights, self.features(move)))

    def features(self, move: Move) -> list[float]:
        """The features of `move`, in the order of FEATURES."""
        judge, view, card_worth = self.judge, self.view, self.worth.card
        card, take = move
        table = view.table
        if take:
            gain, placed = judge.capture(card, take, len(take) == len(table), judge.last_play), 0.0
            left = [c for c in table if c not in take]
        else:
            gain, placed = 0.0, card_worth[card]
            left = [*table, card]
        reply = sweep = 0.0
        if judge.next_seat is not None and left:
            reply = judge.expected_reply(left)
            sweep = self.sweep_chance(left)
        left_worth = sum(card_worth[c] for c in left)
        rest = list(view.hand)
        rest.remove(card)
        own_next = max((judge.best_capture(c, left) for c in rest), default=0.0) if left else 0.0
        kept = sum(card_worth[c] for c in rest)
        if take:
            last = 1.0
        elif view.last_capturer is None:
            last = 0.0
        else:
            last = 1.0 if self.side_of[view.last_capturer] == self.side else -1.0
        late = self.late
        return [gain, placed, reply, sweep, left_worth, float(len(left)), own_next, kept, last * left_worth,
                late * left_worth, late * gain, late * reply]  # fmt: skip

    def sweep_chance(self, left: list[int]) -> float:
        """The chance that the next player holds an unseen card that takes the whole of `left`
        (a uniform draw of its hand from the unseen cards)."""
        judge = self.judge
        n, h = len(judge.unseen), judge.next_cards
        if not 0 < h <= n:
            return 0.0
        sweepers = sum(1 for c in judge.unseen if any(len(t) == len(left) for t in judge.finder.captures(c, left)))
        return 1 - comb(n - sweepers, h) / comb(n, h)
