"""What an opponent's plays say about the cards it still holds: deals of the unseen cards
weighed by them.

`Hand.from_view` deals the unseen cards uniformly: every deal that agrees with what the seat
sees is as likely as any other. But the seat has also *watched* the opponent play, and players
rarely give up a better play they hold. An opponent that put a card on the table when another
card of its hand would have captured from it gave up a capture (under the card-level compulsory
capture of da and sv the placed card itself could not capture, but another card could have been
played to); one that took part of the table when another card would have swept it gave up an
escoba. So after such a play, the deals in which the opponent still holds a card that would
have done better on the table it faced are unlikely, and a search that draws them as often as
the others plans against replies that the opponent's own play has all but ruled out.

`PlayLog` is that inference for a bot seat at two players: one opponent and one play between
the seat's turns, so each play is read off two consecutive views. At more players the plays
between two turns cannot be told apart from the views, and the log deals uniformly. It sees
only what the seat sees: the view at each of its turns and the move it made. It keeps the
opponent's plays of the current deal round (the cards of an earlier round are all played and
seen), from the seat's first turn of the hand on.

`deal(view, rng)` draws a deal by rejection: a deal in which the opponent holds a card that
would have done better than one of its plays is kept with probability SLIP per such play. SLIP
is the model's doubt, not zero: a player may place on purpose (to leave no escoba), and a deal
is never ruled out by a guess about how the opponent plays. A play made while a card the
opponent played *later* in the round would have done better shows that this opponent does not
play so; that play is not used. (The greedy bot gives up a capture in 5 of its 6,761
placements over 300 hands of da: tests/test_bot_inference.py.)
"""

from __future__ import annotations

import random

from escoba.engine.hand import Hand, Move
from escoba.engine.view import View

PLACED, TOOK, SWEPT = "placed", "took", "swept"  # what a play did with the table it faced
SLIP = 0.15  # the chance kept for a deal in which the opponent gave up a better play it held
TRIES = 40  # deals drawn at most before the last one drawn is taken as it is


class PlayLog:
    """The opponent's plays of the current round, as one seat at two players saw them."""

    def __init__(self) -> None:
        self.after: View | None = None  # the seat's view just after its own last move
        self.plays: list[tuple[tuple[int, ...], int, str]] = []  # (table faced, card, PLACED/TOOK/SWEPT)
        # What the plays say, for the view it was read for: a search draws all its deals of one
        # decision from one view, so it is read once a decision, not once a deal.
        self._read: tuple[View, list[set[int]]] | None = None

    def observe(self, view: View) -> None:
        """At the seat's turn: read the opponent's play since the seat's last move."""
        after, self.after, self._read = self.after, None, None
        if after is None or view.players != 2 or view.plays != after.plays + 1:
            self.plays = []
            return
        opponent = 1 - view.seat
        mine, theirs = view.hand_sizes[view.seat], view.hand_sizes[opponent]
        if view.stock_size != after.stock_size:  # a deal since: it came after the opponent's play
            self.plays = []
            return
        if theirs not in (mine, mine - 1):
            return
        faced = after.table
        if len(view.table) == len(faced) + 1 and set(faced) <= set(view.table):
            (card,) = set(view.table) - set(faced)
            self.plays.append((faced, card, PLACED))
            return
        gained = {c for pile in view.piles for c in pile} - {c for pile in after.piles for c in pile}
        played = gained - set(faced)
        if len(played) == 1:
            self.plays.append((faced, played.pop(), SWEPT if faced and not view.table else TOOK))

    def played(self, hand: Hand, seat: int, move: Move) -> None:
        """After the seat's own move: remember the table it leaves (a new round, if its move
        ended one, begins a new log)."""
        nxt = hand.clone()
        nxt.apply(move)
        if nxt.stock_size != hand.stock_size:
            self.plays = []
        self.after = nxt.view(seat)

    def deal(self, view: View, rng: random.Random) -> Hand:
        """A deal of the unseen cards that agrees with `view`, drawn as the plays weigh it."""
        if self._read is None or self._read[0] is not view:
            self._read = (view, self._telling(view))
        telling = self._read[1]
        world = Hand.from_view(view, rng)
        if not telling:
            return world
        opponent = 1 - view.seat
        for _ in range(TRIES):
            held = set(world.hands[opponent])
            keep = 1.0
            for would_capture in telling:
                if held & would_capture:
                    keep *= SLIP
            if keep == 1.0 or rng.random() < keep:
                return world
            world = Hand.from_view(view, rng)
        return world

    def _telling(self, view: View) -> list[set[int]]:
        """For each play this round that says something: the unseen cards with which the
        opponent would have done better on the table it faced (captured where it placed; swept
        the table where it took only part of it)."""
        if view.players != 2:
            return []
        finder = view.rules.finder
        unseen = view.unseen

        def better(card: int, faced: tuple[int, ...], did: str) -> bool:
            takes = finder.captures(card, list(faced))
            return bool(takes) if did == PLACED else any(len(take) == len(faced) for take in takes)

        telling = []
        for k, (faced, _, did) in enumerate(self.plays):
            if did == SWEPT:
                continue
            later = [c for _, c, _ in self.plays[k + 1 :]]
            if any(better(c, faced, did) for c in later):
                continue  # it held a better play and did not make it: not its habit
            would = {c for c in unseen if better(c, faced, did)}
            if would:
                telling.append(would)
        return telling
