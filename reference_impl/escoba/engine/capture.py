"""Which table cards a played card can take, and how an opening table splits.

This is the engine's hot path. Subsets are grown card by card over the table, dropping any whose
sum passes what is needed, so a table of ten cards costs a few dozen steps instead of 1,024
subsets. The last table's answer is kept, since every
card in the hand asks about the same table. Only the last: tables almost never recur across
positions, and a memo of thousands of dicts of lists cost a third of simulation time in garbage
collector passes over objects that were never asked for again (measured with `escoba bench`).

Jokers are wild: a capture with `j` jokers (played or taken) is good when the other cards'
values leave between `j × lowest` and `j × highest` card value to reach the target.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

Subset = tuple[int, ...]


class CaptureFinder:
    """Capture subsets for one deck and target; the last table's subsets are kept."""

    __slots__ = ("_last", "has_jokers", "high", "is_joker", "low", "target", "value")

    def __init__(self, value: Sequence[int], is_joker: Sequence[bool], target: int, low: int, high: int):
        self.value = tuple(value)
        self.is_joker = tuple(is_joker)
        self.has_jokers = any(self.is_joker)
        self.target = target
        self.low, self.high = low, high
        # ((limit, *sorted table), subsets by sum): one attribute, so that a reader in another
        # thread never pairs one table's key with another table's answer.
        self._last: tuple[tuple[int, ...], dict[int, list[Subset]]] = ((), {})

    def sums(self, table: Sequence[int], limit: int | None = None) -> dict[int, list[Subset]]:
        """All non-empty subsets of the joker-free table, by sum, for sums up to `limit`
        (default: just below the target; the hand's largest need is enough for one decision).

        Each subset is a tuple of card indices in ascending deck order, and each list is sorted.
        """
        if limit is None:
            limit = self.target - 1
        key = (limit, *sorted(table))
        last = self._last
        if key == last[0]:
            return last[1]
        value = self.value
        # Grow subsets card by card in deck order, dropping any that passes the limit: tuples
        # come out already sorted and no subset over the target is ever built.
        subsets: list[tuple[int, Subset]] = [(0, ())]
        for c in key[1:]:
            if self.is_joker[c]:
                continue
            v = value[c]
            subsets += [(s + v, combo + (c,)) for s, combo in subsets if s + v <= limit]
        found: dict[int, list[Subset]] = {}
        for s, combo in subsets[1:]:
            if s in found:
                found[s].append(combo)
            else:
                found[s] = [combo]
        for lists in found.values():
            if len(lists) > 1:
                lists.sort()
        self._last = (key, found)
        return found

    def captures(self, card: int, table: Sequence[int]) -> list[Subset]:
        """Every set of table cards that `card` can take, sorted."""
        if self.has_jokers and (self.is_joker[card] or any(self.is_joker[c] for c in table)):
            return self._captures_with_jokers(card, table)
        need = self.target - self.value[card]
        if need <= 0:
            return []
        return self.sums(table).get(need, [])

    def _captures_with_jokers(self, card: int, table: Sequence[int]) -> list[Subset]:
        # With j jokers among the played and taken cards, the other taken cards must leave
        # between j × lowest and j × highest value to reach the target: the same pruned growth
        # as without jokers, once per choice of table jokers (there are at most two).
        played_joker = self.is_joker[card]
        v = 0 if played_joker else self.value[card]
        plain = [c for c in table if not self.is_joker[c]]
        wild = sorted(c for c in table if self.is_joker[c])
        found: list[Subset] = []
        for k in range(len(wild) + 1):
            for jokers in combinations(wild, k):
                j = played_joker + k
                if j == 0:
                    lo = hi = self.target - v
                else:
                    lo, hi = self.target - v - j * self.high, self.target - v - j * self.low
                if hi < 0:
                    continue
                if lo <= 0 and jokers:
                    found.append(tuple(jokers))  # only jokers taken: they make up the rest
                for total, subsets in self.sums(plain, hi).items():
                    if lo <= total:
                        found.extend(tuple(sorted((*s, *jokers))) for s in subsets)
        found.sort()
        return found

    def makes_target(self, cards: Sequence[int]) -> bool:
        """Do these cards together make exactly the target (jokers filling any gap)?"""
        jokers = sum(1 for c in cards if self.is_joker[c])
        rest = self.target - sum(self.value[c] for c in cards if not self.is_joker[c])
        if jokers == 0:
            return rest == 0
        return jokers * self.low <= rest <= jokers * self.high

    def split_groups(self, table: Sequence[int], max_groups: int) -> int:
        """How many groups making the target the whole table splits into (0 if it does not).

        Four cards totalling 30 are two groups only on a real split: 10+5 and 7+8 is, 10+10+9+1
        is not. Tables are four cards, so trying each assignment of cards to groups is cheap.
        """
        cards = list(table)
        jokers = sum(1 for c in cards if self.is_joker[c])
        total = sum(self.value[c] for c in cards if not self.is_joker[c])
        for groups in range(1, max_groups + 1):
            if len(cards) < 2 * groups:
                break
            # k groups need k × target in all, the jokers filling between one card's lowest and
            # highest value each: a total outside that range cannot split, whatever the cards.
            rest = groups * self.target - total
            if not jokers * self.low <= rest <= jokers * self.high:
                continue
            if self._partitions(cards, groups):
                return groups
        return 0

    def _partitions(self, cards: list[int], groups: int) -> bool:
        def place(i: int, buckets: list[list[int]]) -> bool:
            if i == len(cards):
                return all(len(b) >= 2 and self.makes_target(b) for b in buckets)
            for b in buckets:
                b.append(cards[i])
                if place(i + 1, buckets):
                    return True
                b.pop()
                if not b:  # buckets are interchangeable: one empty bucket is enough to try
                    break
            return False

        return place(0, [[] for _ in range(groups)])

    def any_combination(self, table: Sequence[int]) -> bool:
        """Does some set of two or more table cards make the target? (As if one of them were
        played onto the others: the same pruned search as a capture.)"""
        cards = list(table)
        return any(self.captures(c, cards[:i] + cards[i + 1 :]) for i, c in enumerate(cards))
