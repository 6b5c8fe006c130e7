"""The greedy bot: one move ahead, by the ruleset's own scoring, from the seat's view only.

`Judge` scores a move for the seat to play: what it captures, less what the next player can be
expected to capture from the table it leaves. It knows the game only through the compiled
ruleset (capture values and target, the deal, the scoring categories through
`escoba.engine.worth`): no rank, suit or card is named here, so a house rule with a category of
its own is played as well as a regional ruleset. The search and expert bots build on it.
"""

from __future__ import annotations

from functools import cache, cached_property
from math import comb

from escoba.engine.bots.basic import Bot, Seed, generator, thinking
from escoba.engine.hand import Hand, Move
from escoba.engine.view import View
from escoba.engine.worth import Worth, worth_of

PLACE_COST = 0.25  # share of a placed card's worth counted as lost: a card on the table can be taken later


def greedy_bot(seed: Seed = None) -> Bot:
    """One ply deep, by the ruleset's own scoring: each move is worth what it captures (each
    card's and an escoba's worth under the ruleset's categories, `escoba.engine.worth`) less
    what the next player can be expected to capture from the table it leaves, given the cards
    that player may hold (the seat's unseen cards, or the hand itself when hands are open).
    Ties break at random."""
    rng = generator(seed)

    def choose(hand: Hand, seat: int) -> Move:
        judge = Judge(hand.view(seat), worth_of(hand.rules, hand.sides))
        return max(hand.legal_moves(), key=lambda m: (judge.move(m), rng.random()))

    return thinking(choose)


class Judge:
    """Scores moves for the seat to play, from its view only."""

    def __init__(self, view: View, worth: Worth):
        self.view, self.worth = view, worth
        rules = view.rules
        self.rules, self.finder = rules, rules.finder
        self.next_seat, self.next_cards, self.next_known = _next_player(view)
        # Cards the next player showed in a declaration: known, and not among the ones to guess.
        self.next_shown: tuple[int, ...] = ()
        if view.shown is not None and self.next_seat is not None and self.next_known is None:
            self.next_shown = tuple(view.shown[self.next_seat])
            self.next_cards -= len(self.next_shown)
        sides = rules.sides(view.players)
        side_of = {seat: s for s, seats in enumerate(sides) for seat in seats}
        self.next_is_partner = self.next_seat is not None and side_of[self.next_seat] == side_of[view.seat]
        self.last_play = view.stock_size == 0 and sum(view.hand_sizes) == 1
        self.unseen = view.unseen

    def move(self, move: Move) -> float:
        card, take = move
        table = self.view.table
        if take:
            gain = self.capture(card, take, len(take) == len(table), self.last_play)
            left = [c for c in table if c not in take]
        else:
            gain = -PLACE_COST * self.worth.card[card]
            left = [*table, card]
        if self.next_seat is None or not left:
            return gain
        reply = self.expected_reply(left)
        return gain + reply if self.next_is_partner else gain - reply

    def capture(self, card: int, take: tuple[int, ...], sweeps: bool, last_play: bool) -> float:
        worth, rules = self.worth, self.rules
        gain = worth.card[card] + sum(worth.card[c] for c in take)
        counts = rules.escoba_on_last_play or not last_play
        if sweeps and counts and (rules.joker_escobas_score or not any(self.finder.is_joker[c] for c in (card, *take))):
            gain += worth.escoba
        return gain

    def best_capture(self, card: int, table: list[int]) -> float:
        best = 0.0
        for take in self.finder.captures(card, table):
            best = max(best, self.capture(card, take, len(take) == len(table), False))
        return best

    def expected_reply(self, table: list[int]) -> float:
        """What the next player can be expected to capture from `table` with one card."""
        if self.next_known is not None:  # open hands: the very cards
            return max((self.best_capture(c, table) for c in self.next_known), default=0.0)
        gains = sorted(self.reply_gains(table), reverse=True)
        weights = _best_is_kth(len(self.unseen), self.next_cards)
        if not self.next_shown:
            return sum(g * w for g, w in zip(gains, weights))
        # The best of the shown cards is certain; an unseen card counts where it beats it.
        known = max((self.best_capture(c, table) for c in self.next_shown), default=0.0)
        return sum(max(g, known) * w for g, w in zip(gains, weights)) + known * (1 - sum(weights[: len(gains)]))

    def reply_gains(self, table: list[int]) -> list[float]:
        """The best capture of each unseen card on `table` that captures something, when it is
        worth more than nothing (in no particular order)."""
        finder = self.finder
        if finder.has_jokers or not finder.simple:
            return [g for g in (self.best_capture(c, table) for c in self.unseen) if g > 0]
        # Without jokers, with the one capture kind, a capture depends on the card's value
        # only: one look per value.
        card_worth, escoba, target = self.worth.card, self.worth.escoba, finder.target
        sums = finder.sums(table)
        gains: list[float] = []
        for v, worths in self.unseen_by_value:
            takes = sums.get(target - v) if target > v else None
            if takes:
                taken = max(sum(card_worth[t] for t in take) + (escoba if len(take) == len(table) else 0.0) for take in takes)
                gains.extend([g for g in [w + taken for w in worths] if g > 0])
        return gains

    @cached_property
    def unseen_by_value(self) -> list[tuple[int, list[float]]]:
        """The unseen cards' worths, grouped by the cards' values."""
        value, card_worth = self.finder.value, self.worth.card
        groups: dict[int, list[float]] = {}
        for c in self.unseen:
            groups.setdefault(value[c], []).append(card_worth[c])
        return list(groups.items())


@cache
def _best_is_kth(n: int, h: int) -> tuple[float, ...]:
    """The chance that the k-th best of n unseen cards is the best one the next player holds:
    a uniform draw of h of the n misses the k-1 better ones with probability
    C(n-k+1, h) / C(n, h) and then holds the k-th."""
    if h <= 0 or n == 0 or h > n:
        return ()
    total = comb(n, h)
    none = [comb(n - k, h) / total for k in range(n + 1)]
    return tuple(none[k - 1] - none[k] for k in range(1, n + 1))


def _next_player(view: View) -> tuple[int | None, int, tuple[int, ...] | None]:
    """After this seat plays one card: who plays next, how many cards they hold, and those
    cards when the seat can see them (None: hidden). (None, 0, None) when the hand ends."""
    rules, n = view.rules, view.players
    sizes = list(view.hand_sizes)
    sizes[view.seat] -= 1
    if any(sizes):
        nxt = (view.seat + rules.direction) % n
        while not sizes[nxt]:
            nxt = (nxt + rules.direction) % n
        return nxt, sizes[nxt], view.hands[nxt]
    if view.stock_size == 0:
        return None, 0, None
    leader = (view.dealer + rules.leader_offset) % n
    dealt = min(rules.hand_size, view.stock_size // n) or 1
    return leader, dealt, None
