"""A move, and why a move is refused: one ordered check that gives the reason's code and words.

A move plays one card from the hand and takes a set of table cards (none: the card stays on
the table). The engine never picks a capture: every subset a card can take is a move of its own.

A move that is not legal is refused for the first rule it breaks, in the order a player would
notice: the hand is over; the card is not in the hand; a taken card is not on the table (or is
named twice); the cards do not make a capture kind's sum; they do, but a priority keeps them
back (`capture.kinds`), or the card takes the whole table and nothing less (`sum: table`); the
card was placed although capture is compulsory. The protocol sends
the code (`REASONS`, docs/protocol.md "Errors"), the terminal and the engine's error messages
show the words; both come from `refusal`, so they can never disagree.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from escoba.game.capture import CaptureFinder
    from escoba.game.cards import Deck

#: the reason codes of a refused move, in the order they are checked (`malformed`: it does
#: not even parse, which the notation decides before any rule is asked)
REASONS = ("not_in_hand", "not_on_table", "wrong_sum", "priority", "compulsory", "hand_over", "malformed")


class Move(NamedTuple):
    """Play `card`; take the table cards in `take` (empty: the card stays on the table)."""

    card: int
    take: tuple[int, ...] = ()


class Refusal(NamedTuple):
    """Why a move is refused: a code of `REASONS` and the rule in words."""

    reason: str
    words: str


def refusal(
    move: Move,
    held: Sequence[int] | None,
    table: Sequence[int],
    finder: CaptureFinder,
    compulsory: str,
    deck: Deck,
    seat: int | None = None,
) -> Refusal | None:
    """The first rule `move` breaks for a player holding `held` (None: the hand is over) at
    this table; None when the move is legal."""
    if held is None:
        return Refusal("hand_over", "the hand is over")
    card, take = move.card, tuple(move.take)
    if card not in held:
        whose = f"the hand of seat {seat}" if seat is not None else "the hand"
        return Refusal("not_in_hand", f"{deck.text[card]} is not in {whose}")
    if len(set(take)) != len(take):
        return Refusal("not_on_table", "a card is named twice in the capture")
    for c in take:
        if c not in table:
            return Refusal("not_on_table", f"{deck.text[c]} is not on the table")
    if take:
        whole = finder.whole_table(card, table)
        if whole is not None:  # `sum: table`: the whole table is this card's one capture
            if tuple(sorted(take)) == whole:
                return None
            return Refusal("priority", f"{deck.text[card]} takes the whole table ({_texts(deck, whole)}), not {_texts(deck, take)}")
        allowed = finder.captures(card, table)
        if not finder.fits(card, take):
            return Refusal("wrong_sum", _wrong_sum(finder, deck, card, take))
        if tuple(sorted(take)) not in allowed:
            return Refusal("priority", _priority(finder, deck, card, take, allowed))
        return None
    if compulsory in ("card", "hand"):
        own = finder.captures(card, table)
        if own:
            return Refusal("compulsory", f"capture is compulsory: {deck.text[card]} can take {_texts(deck, own[0])}")
    if compulsory == "hand":
        for other in sorted(held):
            found = finder.captures(other, table)
            if found:
                return Refusal("compulsory", f"capture is compulsory: {deck.text[other]} can take {_texts(deck, found[0])}")
    return None


def _texts(deck: Deck, cards: Iterable[int]) -> str:
    return " ".join(deck.text[c] for c in cards)


def _wrong_sum(finder: CaptureFinder, deck: Deck, card: int, take: tuple[int, ...]) -> str:
    """Why taken cards make no kind's sum: `7♦ 3♣ make 10, not 15` (one clause per kind)."""
    clauses = []
    for total, _ in finder.kinds:
        if total == "target":
            made = sum(deck.value[c] for c in (card, *take))
            clauses.append(f"{_texts(deck, (card, *take))} make {made}, not {finder.target}")
        else:
            made = sum(deck.value[c] for c in take)
            clauses.append(f"{_texts(deck, take)} make {made}, not {deck.value[card]} (the value of {deck.text[card]})")
    if finder.takes_table is not None and finder.takes_table[card]:
        clauses.append(f"{deck.text[card]} takes the whole table only when no card of its rank lies there")
    return "; ".join(clauses)


def _priority(finder: CaptureFinder, deck: Deck, card: int, take: tuple[int, ...], allowed: list[tuple[int, ...]]) -> str:
    """Why a capture that makes its sum is still refused: a kind's priority (capture.kinds)."""
    fewest = min(allowed, key=len)
    rule = "a single card first" if any(p == "single_card" for _, p in finder.kinds) else "the fewest cards"
    return f"{deck.text[card]} must take {rule}: it can take {_texts(deck, fewest)}, not {_texts(deck, take)}"
