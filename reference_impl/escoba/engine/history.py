"""The hand's history as measures see it: each side's captures, and who made the last capture.

A measure such as `count(made_with(sweeps, rank(deck, 7)))` (escobas made with a seven) reads
the plays of the hand, not only the piles. `Hand` keeps this record only when a compiled
ruleset's measures need it (`Rules.needs_history`, decided when the ruleset compiles), so the
simulations of every other ruleset pay nothing for it.

A record is plain data (ints and booleans), cheap to build in the hot loop and cheap to filter
in the compiled measures (rules/expr.py); `to_json`/`from_json` give the wire form used by
`Hand.to_json` snapshots.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any, NamedTuple


class Capture(NamedTuple):
    """One capture made by playing a card (not the dealer's opening take, not leftovers)."""

    card: int  # the card played
    taken: int  # bitmask of the table cards taken (bit i: card i of the deck)
    round: int  # the deal round it was made in: 1 for the first deal of the hand
    first: bool  # it was the hand's first play
    last: bool  # it was the hand's last play
    escoba: bool  # it cleared the table and scored an escoba

    def to_json(self, codes: Sequence[str], side: int) -> dict[str, Any]:
        taken = [codes[c] for c in range(len(codes)) if self.taken >> c & 1]
        return {"side": side, "card": codes[self.card], "take": taken, "round": self.round,
                "first": self.first, "last": self.last, "escoba": self.escoba}

    @staticmethod
    def from_json(data: Mapping[str, Any], index: Mapping[str, int]) -> Capture:
        taken = 0
        for code in data["take"]:
            taken |= 1 << index[code]
        return Capture(index[data["card"]], taken, int(data["round"]), bool(data["first"]),
                       bool(data["last"]), bool(data["escoba"]))


class SideHistory(NamedTuple):
    """What a side's measures may read of the hand beyond its pile."""

    captures: Sequence[Capture]  # in the order they were made
    last_capture: bool  # this side made the hand's last capture (the opening take counts)


def side_histories(captures: Sequence[Sequence[Capture]], last_side: int | None) -> list[SideHistory]:
    """Per side, from the captures each side made and the side of the last capturer."""
    return [_side_history((tuple(mine), side == last_side)) for side, mine in enumerate(captures)]


# SideHistory(*fields) without the named tuple's Python __new__: every simulated hand of a
# ruleset with history measures builds one per side.
_side_history = partial(tuple.__new__, SideHistory)
