"""Hard positions for the research bridges, dealt with `arrange_deck` and reached by real moves."""

from __future__ import annotations

import escoba
from escoba.engine.arrange import arrange_deck
from escoba.game.moves import Move

# da, two players, dealer 0 (found among 40,000 seeded random hands: seed 12626 of a
# random.Random per hand): after these 24 plays under compulsory capture the table holds 14
# cards and 1♠ has 87 ways to make 15, the most in those hands and the case that ended every
# long IS-MCTS run of the first bridge (63 captures a card at most).
DA_87_TABLE = "3h 5c 7s 1h"
DA_87_ROUNDS = [["4d Cc 7c", "3s 7h 1d"], ["Rc 5d 4c", "Sc 6s 4s"], ["Ss 2c 6h", "Sd Ch Rh"],
                ["6c 2h 2d", "Rs 4h Sh"], ["1c Cs 7d", "2s 5h 1s"], ["Rd 3d 3c", "6d 5s Cd"]]  # fmt: skip
DA_87_PLAYS = ("7hx1h+7s 7cx3h+5c 1d Cc 3s 4d Scx4d+3s 5dx1d+Cc 4s 4c 6s Rc Rh 6h Chx6s Ss Sd 2c Rs 2d Sh 6c "
               "4h 2h")  # fmt: skip


def da_87() -> tuple[list[int], list[Move]]:
    """The deck order and the plays that reach the position."""
    rules = escoba.load_ruleset("da")
    deck = rules.deck
    order = arrange_deck(rules, 2, 0, DA_87_TABLE.split(), [[h.split() for h in hands] for hands in DA_87_ROUNDS])
    plays = []
    for text in DA_87_PLAYS.split():
        card, _, take = text.partition("x")
        plays.append(Move(deck.card(card), tuple(sorted(deck.card(t) for t in take.split("+") if t))))
    return order, plays
