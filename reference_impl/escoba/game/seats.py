"""Seats around the table: who plays next, who leads, who deals next, which side a seat is on.

Seats are numbered `0 … n-1` counter-clockwise: seat `i+1` sits on seat `i`'s right. A
ruleset's direction of play is a step (`+1` counter-clockwise, `-1` clockwise), and the
leader and the next dealer are offsets from the dealer (`+1` the dealer's right, `-1` the
left). Everything that moves around the table (the reference hand, the fast path, the bots'
look-ahead, arranging a deck, a match) asks here, so the convention is written once.
"""

from __future__ import annotations

from collections.abc import Sequence, Sized


def next_seat(seat: int, step: int, players: int) -> int:
    """The seat after `seat` in the direction of play."""
    return (seat + step) % players


def next_holding(seat: int, step: int, holding: Sequence[Sized | int]) -> int | None:
    """The next seat after `seat` (in the direction of play) that still holds a card;
    None when nobody does. `holding` is each seat's cards, or their number. Only a short last
    round (dealt a card at a time) leaves someone without cards while others still hold some."""
    players = len(holding)
    for k in range(1, players + 1):
        other = (seat + step * k) % players
        if holding[other]:
            return other
    return None


def leader(dealer: int, offset: int, players: int) -> int:
    """The seat that leads a hand (and is dealt to first)."""
    return (dealer + offset) % players


def dealer_for(leader_seat: int, offset: int, players: int) -> int:
    """The dealer who makes `leader_seat` lead: the inverse of `leader`."""
    return (leader_seat - offset) % players


def next_dealer(dealer: int, offset: int, players: int) -> int:
    """The seat that deals the next hand of a match."""
    return (dealer + offset) % players


def turn_order(first: int, step: int, players: int) -> list[int]:
    """Every seat once, from `first` in the direction of play."""
    return [(first + step * i) % players for i in range(players)]


def side_of(sides: Sequence[Sequence[int]], players: int) -> list[int]:
    """The side of each seat, from the seats of each side."""
    found = [0] * players
    for side, seats in enumerate(sides):
        for seat in seats:
            found[seat] = side
    return found
