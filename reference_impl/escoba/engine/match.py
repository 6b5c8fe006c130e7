"""A match: hands until a side reaches the target, the deal passing as the ruleset says."""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from escoba.engine.hand import Hand, shuffled_decks
from escoba.errors import EscobaError
from escoba.game.seats import next_dealer
from escoba.rules.compile import Rules

MAX_HANDS = 1000  # a match that runs this long has a rule that never lets it end


class Match:
    """Totals per side across hands. Deck orders come from `decks` (in order) or a seed."""

    hand_class: type[Hand] = Hand  # what each hand is dealt as (mutant engines change a step of it)

    def __init__(
        self,
        rules: Rules,
        players: int,
        *,
        dealer: int = 0,
        target: int | None = None,
        decks: Iterable[Sequence[int]] | None = None,
        seed: int | None = None,
        record: bool = True,
    ):
        self.rules, self.players = rules, players
        self.target = rules.match_target if target is None else int(target)
        if self.target < 1:
            raise EscobaError(f"the target must be a positive number of points, got {self.target}")
        self.dealer = dealer
        self.record = record
        self._decks: Iterator[Sequence[int]] = (
            iter(decks) if decks is not None else shuffled_decks(rules, random.Random(seed))
        )
        self.sides = len(rules.sides(players))
        self.totals = [0] * self.sides
        self.hands_played = 0
        self.hand: Hand | None = None
        self.winners: list[int] | None = None
        self.events: list[dict] = []

    @property
    def is_over(self) -> bool:
        return self.winners is not None

    @property
    def next_dealer(self) -> int:
        """Who deals the next hand: the first dealer, then the deal passes as the ruleset says."""
        if self.hand is None:
            return self.dealer
        return next_dealer(self.dealer, self.rules.next_dealer_offset, self.players)

    def new_hand(self, decks: Iterable[Sequence[int]] | None = None) -> Hand:
        """Deal the next hand (the previous one must be finished) from the match's deck orders,
        or from `decks` (a game framework's chance draws them: escoba.research). A deal that
        fails (DeckError: a redeal with no further order) leaves the match as it was."""
        if self.is_over:
            raise EscobaError("the match is over")
        if self.hand is not None and not self.hand.is_over:
            raise EscobaError("the current hand is not finished")
        if self.hands_played >= MAX_HANDS:
            raise EscobaError(f"no winner after {MAX_HANDS} hands")
        dealer = self.next_dealer
        orders = self._decks if decks is None else iter(decks)
        self.hand = self.hand_class(self.rules, self.players, dealer, orders, record=self.record)
        self.dealer = dealer
        return self.hand

    def end_hand(self) -> list[dict]:
        """Add the finished hand's points and decide whether the match is over."""
        hand = self.hand
        if hand is None or not hand.is_over or hand.points is None:
            raise EscobaError("no finished hand to count")
        self.hands_played += 1
        for side, pts in enumerate(hand.points):
            self.totals[side] += pts
        events = [{"event": "totals", "hand": self.hands_played, "totals": list(self.totals)}]
        reached = [s for s in range(self.sides) if self.totals[s] >= self.target]
        outright = self._outright(hand)
        if outright is not None:  # won at once (match.wins_outright), whatever the totals
            sides, title = outright
            if len(sides) == 1 or self.rules.tie == "shared_win":
                self.winners = sides
                events.append({"event": "match_end", "winners": list(sides), "totals": list(self.totals),
                               "reason": f"won at once: {title}"})  # fmt: skip
            else:  # several sides at once: another hand, as for an exact tie
                events.append({"event": "tie", "sides": list(sides), "totals": list(self.totals)})
        elif reached:
            best = max(self.totals[s] for s in reached)
            leaders = [s for s in reached if self.totals[s] == best]
            if len(leaders) == 1:
                self.winners = leaders
                reason = "highest total at or over the target" if len(reached) > 1 else "reached the target"
            elif self.rules.tie == "shared_win":
                self.winners = leaders
                reason = "exact tie over the target: a shared win"
            else:
                reason = None  # exact tie: another hand
                events.append({"event": "tie", "sides": leaders, "totals": list(self.totals)})
            if self.winners is not None:
                events.append(
                    {"event": "match_end", "winners": list(self.winners), "totals": list(self.totals), "reason": reason}
                )
        if self.record:
            self.events.extend(events)
        return events

    def _outright(self, hand: Hand) -> tuple[list[int], str] | None:
        """The sides whose captures meet a condition of `match.wins_outright` as the hand ends,
        and the titles of the conditions they met (None: no side's do)."""
        conditions = self.rules.wins_outright
        if not conditions:
            return None
        history: list[Any] = hand.history() or [None] * self.sides
        sides, titles = [], []
        for side in range(self.sides):
            met = next((o for o in conditions if o.measure(hand.piles[side], hand.escobas[side], history[side])), None)
            if met is not None:
                sides.append(side)
                titles.append(met.title)
        return (sides, ", ".join(dict.fromkeys(titles))) if sides else None
