"""A move as a short sequence of actions with fixed meanings: the card, then the cards it takes.

A move of escoba is a card and a subset of the table (`Move(card, take)`). How many subsets one
card may take has no useful bound: with optional capture (`fr`) every card of a hand can be
placed, so at the last play the other 39 cards may all lie on the table, and an ace then has
6,405 ways to make 15 (`tests/test_research.py` builds that position). Numbering each card's
subsets (action `card × 64 + k`, the first bridge) ran out at 63; numbering them all would make
a quarter of a million actions whose meaning changes with the table.

So a move is spelled out, one action at a time, in an action space of `2 × deck + 1`:

- `card` (0 … deck-1): play this card from the hand;
- `deck + card`: take this table card (taken cards are named in deck order, so each subset has
  one spelling);
- `2 × deck` (`stop`): the cards named so far are the whole move (no card named: place it).

Only actions that lead to a legal move are legal, so every legal position is covered and
nothing else is: the legal actions after a prefix are the next cards of the legal moves that
start with it, and `stop` where the prefix is itself a legal move. Once a single legal move
starts with the prefix, the move is made at once: a card with one legal move is one action, a
capture of three cards at most four. Each action means the same card in every state.

This module knows nothing of OpenSpiel or PettingZoo: both bridges (`escoba.research`) spell
moves through it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from escoba.engine.hand import Hand
from escoba.game.moves import Move


@dataclass(frozen=True)
class Actions:
    """The action numbers of a deck of `size` cards."""

    size: int

    @property
    def stop(self) -> int:
        return 2 * self.size

    @property
    def count(self) -> int:
        """How many distinct actions there are (OpenSpiel's `num_distinct_actions`)."""
        return 2 * self.size + 1

    def play(self, card: int) -> int:
        return card

    def take(self, card: int) -> int:
        return self.size + card


@dataclass(frozen=True)
class Pending:
    """A move being spelled out: its card once chosen, the cards named so far, and the takes
    of the legal moves of that card that start with them (at least two while pending)."""

    card: int | None = None
    taken: tuple[int, ...] = ()
    options: tuple[tuple[int, ...], ...] = ()


NOTHING = Pending()


def legal_actions(actions: Actions, hand: Hand, pending: Pending) -> list[int]:
    """The legal actions of the seat to play, in increasing order."""
    if pending.card is None:
        return sorted({m.card for m in hand.legal_moves()})
    n = len(pending.taken)
    found = sorted({actions.take(t[n]) for t in pending.options if len(t) > n})
    if pending.taken in pending.options:
        found.append(actions.stop)  # stop is the highest action: the list stays sorted
    return found


def step(actions: Actions, hand: Hand, pending: Pending, action: int) -> tuple[Pending, Move | None]:
    """Apply one action: the pending move that follows, and the move once it is complete (the
    caller applies it to the hand). ValueError for an action that is not legal here."""
    if pending.card is None:
        card = actions.play(action) if 0 <= action < actions.size else -1
        options = tuple(m.take for m in hand.legal_moves() if m.card == card)
        if not options:
            raise ValueError(f"action {action} does not play a card of the hand")
        return _narrowed(card, (), options)
    if action == actions.stop:
        if pending.taken not in pending.options:
            raise ValueError("stop: the cards named so far are not a legal move")
        return NOTHING, Move(pending.card, pending.taken)
    card, n = action - actions.size, len(pending.taken)
    options = tuple(t for t in pending.options if len(t) > n and t[n] == card)
    if not 0 <= card < actions.size or not options:
        raise ValueError(f"action {action} does not name a card this move can take next")
    return _narrowed(pending.card, (*pending.taken, card), options)


def _narrowed(card: int, taken: tuple[int, ...], options: tuple[tuple[int, ...], ...]) -> tuple[Pending, Move | None]:
    if len(options) == 1:  # one legal move left: it is made without further actions
        return NOTHING, Move(card, options[0])
    return Pending(card, taken, options), None


def actions_of(actions: Actions, hand: Hand, move: Move | Sequence) -> list[int]:
    """The actions that spell a legal move of the seat to play (ValueError for an illegal one)."""
    card, take = move[0], tuple(sorted(move[1]))
    pending, done = step(actions, hand, NOTHING, actions.play(card))
    spelled = [actions.play(card)]
    for t in take:
        if done is not None:
            break
        pending, done = step(actions, hand, pending, actions.take(t))
        spelled.append(actions.take(t))
    if done is None:
        pending, done = step(actions, hand, pending, actions.stop)
        spelled.append(actions.stop)
    if done != (card, take):
        raise ValueError(f"{move} is not a legal move here")
    return spelled


def action_text(actions: Actions, codes: Sequence[str], action: int) -> str:
    """`7d` (play), `+3c` (take), `stop`."""
    if action == actions.stop:
        return "stop"
    if actions.size <= action < actions.stop:
        return "+" + codes[action - actions.size]
    return codes[action]


def move_text(codes: Sequence[str], move: Move) -> str:
    """`7d` (placed) or `7dx3c+5h` (a capture)."""
    card, take = move
    return codes[card] + ("x" + "+".join(codes[c] for c in take) if take else "")
