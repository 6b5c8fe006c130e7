"""What one seat knows: the information state of a hand seen from a seat.

A seat sees its own hand, the table, the cards every side has captured, the cards set aside,
the escobas, how many cards each seat holds and how many are left in the stock, who captured
last and whose turn it is. It does not see the other seats' hands (unless the ruleset plays
them face up, `deal.open_hands`) nor the stock.

Captured cards count as seen. Piles are face down (de: "verdeckt auf Ihren Aufnahmestapel"),
but every card in them was face up when it was taken: the played card, the table cards, the
opening table, leftovers. A seat with perfect recall knows every pile, so the view gives them
whole; the same holds for the opening table set aside face down (de), which was dealt face up.
Partners see each other's cards only through play, like everybody else.

The view keeps card *locations*, not the order of plays: two histories that leave every card
in the same place give the same view and the same `key()`, which lets a search share what it
learned across them. (A bot that needs the order of plays keeps it itself; the OpenSpiel
bridge does, for its information-state strings.) The one exception is a ruleset whose measures
score the hand's history (`Rules.needs_history`: escobas made with a seven, a point for the
last capture): the captures made so far, public to every seat, are then part of the view, since
the score depends on them.

`determinize(rng)` deals the unseen cards at random into the hidden hands (with their sizes)
and the stock: a full `Hand` that agrees with the view, every such deal equally likely. It
does not reason about what an opponent's past choices reveal (under compulsory capture a
placed card says that the placer could not capture with it); the hidden cards are uniform
given the view.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from escoba.engine.history import Capture
from escoba.errors import EscobaError

if TYPE_CHECKING:
    from escoba.engine.hand import Hand
    from escoba.rules.compile import Rules


@dataclass(frozen=True)
class View:
    """The information state of `seat` (cards are ints, sorted by deck order)."""

    rules: Rules = field(repr=False, compare=False)
    players: int
    seat: int
    dealer: int
    to_play: int | None
    hands: tuple[tuple[int, ...] | None, ...]  # per seat: the cards this seat can see, None if hidden
    hand_sizes: tuple[int, ...]
    table: tuple[int, ...]
    piles: tuple[tuple[int, ...], ...]  # per side
    escobas: tuple[int, ...]  # per side
    set_aside: tuple[int, ...]
    stock_size: int
    last_capturer: int | None
    plays: int
    points: tuple[int, ...] | None  # per side, once the hand is over
    # Only for rulesets whose measures read the hand's history (engine/history.py): the deal
    # round and each side's captures so far, in order. Public: every capture is made face up.
    round: int = 0
    captures: tuple[tuple[Capture, ...], ...] | None = None

    @property
    def hand(self) -> tuple[int, ...]:
        """This seat's own cards."""
        own = self.hands[self.seat]
        assert own is not None
        return own

    @cached_property
    def unseen(self) -> tuple[int, ...]:
        """The cards this seat cannot see: hidden hands and the stock, in deck order."""
        seen = set(self.table)
        seen.update(self.set_aside)
        for cards in self.hands:
            if cards is not None:
                seen.update(cards)
        for pile in self.piles:
            seen.update(pile)
        return tuple(c for c in self.rules.deck.cards if c not in seen)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON-ready data; cards in the ruleset's ASCII codes, hidden hands as null."""
        code = self.rules.deck.code

        def codes(cards: tuple[int, ...]) -> list[str]:
            return [code[c] for c in cards]

        return {
            "ruleset": self.rules.id,
            "players": self.players,
            "seat": self.seat,
            "dealer": self.dealer,
            "to_play": self.to_play,
            "hands": [None if h is None else codes(h) for h in self.hands],
            "hand_sizes": list(self.hand_sizes),
            "table": codes(self.table),
            "piles": [codes(p) for p in self.piles],
            "escobas": list(self.escobas),
            "set_aside": codes(self.set_aside),
            "stock_size": self.stock_size,
            "last_capturer": self.last_capturer,
            "plays": self.plays,
            "points": None if self.points is None else list(self.points),
        } | self._history_json()

    def _history_json(self) -> dict[str, Any]:
        if self.captures is None:
            return {}
        code = self.rules.deck.code
        return {"round": self.round,
                "captures": [c.to_json(code, side) for side, mine in enumerate(self.captures) for c in mine]}

    def key(self) -> str:
        """A stable string that two views share exactly when they hold the same information.

        Canonical JSON (sorted keys, no spaces) of `to_json()`: the same on any machine and in
        any process, so it can name a node of a search tree or an OpenSpiel observation.
        """
        return json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    def determinize(self, rng: random.Random, *, record: bool = False) -> Hand:
        """A full hand that agrees with this view, the unseen cards dealt uniformly at random:
        into each hidden hand (keeping its size), the rest into the stock in a random order."""
        from escoba.engine.hand import Hand

        hidden = list(self.unseen)
        rng.shuffle(hidden)
        hands: list[list[int]] = []
        pos = 0
        for seat, cards in enumerate(self.hands):
            if cards is not None:
                hands.append(list(cards))
            else:
                size = self.hand_sizes[seat]
                hands.append(hidden[pos : pos + size])
                pos += size
        stock = hidden[pos:]
        if len(stock) != self.stock_size:  # a view built by hand that does not add up
            raise EscobaError(
                f"the view does not add up: {len(hidden)} unseen cards for hidden hands and a stock of {self.stock_size}"
            )
        return Hand.assemble(
            self.rules,
            self.players,
            self.dealer,
            hands=hands,
            table=list(self.table),
            piles=[list(p) for p in self.piles],
            escobas=list(self.escobas),
            set_aside=list(self.set_aside),
            stock=stock,
            last_capturer=self.last_capturer,
            to_play=self.to_play,
            plays=self.plays,
            points=None if self.points is None else list(self.points),
            record=record,
            round=self.round,
            captures=None if self.captures is None else [list(mine) for mine in self.captures],
            check=False,  # every card is placed once by construction (tests/test_view.py checks)
        )


def view_of(hand: Hand, seat: int) -> View:
    """The view of `seat` on `hand` (`Hand.view(seat)` calls this)."""
    if not 0 <= seat < hand.players:
        raise EscobaError(f"seat must be from 0 to {hand.players - 1}, got {seat}")
    open_hands = hand.rules.open_hands
    return View(
        rules=hand.rules,
        players=hand.players,
        seat=seat,
        dealer=hand.dealer,
        to_play=hand.to_play,
        hands=tuple(tuple(sorted(h)) if s == seat or open_hands else None for s, h in enumerate(hand.hands)),
        hand_sizes=tuple(len(h) for h in hand.hands),
        table=tuple(sorted(hand.table)),
        piles=tuple(tuple(sorted(p)) for p in hand.piles),
        escobas=tuple(hand.escobas),
        set_aside=tuple(sorted(hand.set_aside)),
        stock_size=hand.stock_size,
        last_capturer=hand.last_capturer,
        plays=hand.plays,
        points=None if hand.points is None else tuple(hand.points),
        round=hand.round,
        captures=None if hand.captures is None else tuple(tuple(mine) for mine in hand.captures),
    )
