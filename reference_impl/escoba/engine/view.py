"""What one seat knows: the information state of a hand seen from a seat.

A seat sees its own hand, the table, the cards every side has captured, the cards set aside,
the escobas, how many cards each seat holds and how many are left in the stock, who captured
last and whose turn it is. It does not see the other seats' hands (unless the ruleset plays
them face up, `deal.open_hands`) nor the stock, but for the cards a declaration showed as they
were dealt (categories `measured_on: dealt`, engine/declarations.py), which every seat sees
until they are played (`shown`), with each side's declarations so far.

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

`Hand.from_view(view, rng)` deals the unseen cards at random into the hidden hands (with their
sizes) and the stock: a full `Hand` that agrees with the view, every such deal equally likely. It
does not reason about what an opponent's past choices reveal (under compulsory capture a
placed card could not capture; a player seldom places while another card could): the hidden
cards are uniform given the view. The strong search weighs its deals by those choices
(`escoba.engine.bots.inference`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from escoba.engine.history import Capture

if TYPE_CHECKING:
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
    # Only for rulesets with declarations (categories measured on dealt cards): each side's
    # values so far, per category. Public: a declaration is shown.
    declared: tuple[tuple[Any, ...], ...] | None = None
    # Per seat, the cards a declaration showed that it still holds: known to every seat.
    shown: tuple[tuple[int, ...], ...] | None = None

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
        for cards in self.shown or ():
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
        } | self._history_json() | self._declared_json()

    def _declared_json(self) -> dict[str, Any]:
        if self.declared is None:
            return {}
        code = self.rules.deck.code
        return {"declared": [list(d) for d in self.declared],
                "shown": [[code[c] for c in mine] for mine in (self.shown or ())]}  # fmt: skip

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
