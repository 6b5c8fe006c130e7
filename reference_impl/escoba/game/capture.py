"""Which table cards a played card can take, and how an opening table splits.

This is the engine's hot path. Subsets are grown card by card over the table, dropping any whose
sum passes what is needed, so a table of ten cards costs a few dozen steps instead of 1,024
subsets. The last table's answer is kept, since every
card in the hand asks about the same table. Only the last: tables almost never recur across
positions, and a memo of thousands of dicts of lists cost a third of simulation time in garbage
collector passes over objects that were never asked for again (measured with `escoba bench`).

Jokers are wild: a capture with `j` jokers (played or taken) is good when the other cards'
values leave between `j × lowest` and `j × highest` card value to reach the target.

What a played card may take is the ruleset's choice (`capture.kinds`, docs/dsl.md): a list of
kinds, each a sum to reach and a priority among the captures it allows.

- `sum: target`: the played card and the taken cards add up to the target (15 in Escoba);
- `sum: card`: the taken cards add up to the played card's own value (the Italian games);
- `priority: single_card`: when the kind can take a single card, only single cards may be
  taken by it ("a card of equal value before any combination"); `fewest_cards`: only its
  captures with the fewest cards; `none`: all of them.

A capture any kind allows is legal; each kind's priority filters only that kind's captures, so
with `[{sum: card, priority: fewest_cards}, {sum: target}]` a 7 on 3 5 7 may take the 7 (by
value, the fewest cards) or 3 5 (15 with the 7). No ruleset is named here: the games are data.
The default, `[{sum: target}]`, keeps the single lookup of the hot path (`simple`).

One kind sums nothing: `sum: table` (`TableKind`), a card of the ranks it names takes every
card on the table, and that is then its only capture ("the ace takes everything"); with
`unless_same_rank` a card of its rank on the table stops it, and the card captures by the other
kinds as any card would. It is kept apart from `kinds` (the sums), which the capture searches
read: `whole_table` answers it before they are asked.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import NamedTuple

Subset = tuple[int, ...]
Kind = tuple[str, str]  # (sum: "target" | "card", priority: "none" | "single_card" | "fewest_cards")


class TableKind(NamedTuple):
    """The capture kind `sum: table`: a card of `ranks` (rank ids) takes the whole table."""

    ranks: tuple[str, ...]
    unless_same_rank: bool = False  # a card of the played card's rank on the table stops it
    escoba: bool = True  # taking the whole table this way is an escoba

DEFAULT_KINDS: tuple[Kind, ...] = (("target", "none"),)
_NONE: list[Subset] = []  # no capture: shared, never mutated


class CaptureFinder:
    """Capture subsets for one deck, target and list of capture kinds; the last table's subsets
    are kept."""

    __slots__ = (
        "_last", "has_jokers", "high", "is_joker", "kinds", "limit", "low", "rank", "simple", "takes_table", "target",
        "unless_same_rank", "value",
    )  # fmt: skip

    def __init__(
        self,
        value: Sequence[int],
        is_joker: Sequence[bool],
        target: int | None,
        low: int,
        high: int,
        kinds: Sequence[Kind] = DEFAULT_KINDS,
        takes_table: Sequence[bool] | None = None,
        rank: Sequence[int] | None = None,
        unless_same_rank: bool = False,
    ):
        self.value = tuple(value)
        self.is_joker = tuple(is_joker)
        self.has_jokers = any(self.is_joker)
        # The target is None only when no kind sums to it and no opening rule uses it (checked
        # by rules/semantics.py); 0 then makes every target search come back empty.
        self.target = target if target is not None else 0
        self.low, self.high = low, high
        self.kinds = tuple(kinds)
        # `sum: table` (TableKind): per card, whether it takes the whole table (None: no card
        # does), each card's rank index, and whether a card of the same rank on the table stops it.
        self.takes_table = tuple(takes_table) if takes_table is not None and any(takes_table) else None
        self.rank = tuple(rank) if rank is not None else tuple(range(len(self.value)))
        self.unless_same_rank = unless_same_rank
        # Escoba's one kind: legal moves use the single-lookup path in Hand.legal_moves.
        self.simple = self.kinds == DEFAULT_KINDS and self.takes_table is None
        # The largest sum any kind can ask of the table: one `sums` call serves every card.
        self.limit = max(self.target - low if s == "target" else high for s, _ in self.kinds)
        # ((limit, *sorted table), subsets by sum): one attribute, so that a reader in another
        # thread never pairs one table's key with another table's answer.
        self._last: tuple[tuple[int, ...], dict[int, list[Subset]]] = ((), {})

    def sums(self, table: Sequence[int], limit: int | None = None) -> dict[int, list[Subset]]:
        """All non-empty subsets of the joker-free table, by sum, for sums up to `limit`
        (default: what the lowest card needs to make the target, the largest need of a played
        card: just below the target, or the target itself with a card worth 0).

        Each subset is a tuple of card indices in ascending deck order, and each list is sorted.
        """
        if limit is None:
            limit = self.target - min(self.low, 1)
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
        """Every set of table cards that `card` can take, sorted (the list may be shared: do not
        change it)."""
        if self.simple:
            return self.target_captures(card, table)
        whole = self.whole_table(card, table)
        if whole is not None:
            return [whole]
        return self.by_kinds(card, self.sums(table, self.limit))

    def whole_table(self, card: int, table: Sequence[int]) -> Subset | None:
        """The capture of the `sum: table` kind, every card on the table, when it is `card`'s
        (its only capture then); None when the kind does not apply: the card is not of its
        ranks, the table is empty, or a card of its rank lies there (`unless_same_rank`)."""
        takes = self.takes_table
        if takes is None or not takes[card] or not table:
            return None
        if self.unless_same_rank:
            rank = self.rank[card]
            if any(self.rank[c] == rank for c in table):
                return None
        return tuple(sorted(table))

    def kinds_captures(self, card: int, table: Sequence[int], sums: dict[int, list[Subset]]) -> list[Subset]:
        """`captures` of a card, from the table's subsets by sum (`sums`, as `by_kinds` takes
        them): what `Hand.legal_moves` asks of each held card when the ruleset is not `simple`."""
        whole = self.whole_table(card, table)
        return [whole] if whole is not None else self.by_kinds(card, sums)

    def by_kinds(self, card: int, sums: dict[int, list[Subset]]) -> list[Subset]:
        """What `card` may take under every kind, from the table's subsets by sum (`sums`, with
        a limit of at least `self.limit`). Rulesets with jokers have only the default kind."""
        v = self.value[card]
        found: list[Subset] | None = None
        for total, priority in self.kinds:
            need = self.target - v if total == "target" else v
            subsets = sums.get(need, _NONE) if need > 0 else _NONE
            if subsets and priority != "none":
                fewest = 1 if priority == "single_card" else min(map(len, subsets))
                kept = [s for s in subsets if len(s) == fewest]
                if kept:  # single_card with no single card to take: every combination stays
                    subsets = kept
            if found is None or not found:
                found = subsets
            elif subsets:
                found = sorted(set(found).union(subsets))
        return found if found is not None else _NONE

    def fits(self, card: int, take: Sequence[int]) -> bool:
        """Do these taken cards make some kind's sum with `card` (whatever the priorities)?"""
        if not take:
            return False
        if self.simple:
            return self.makes_target((card, *take))
        total, v = sum(self.value[c] for c in take), self.value[card]
        return any(total == (self.target - v if kind == "target" else v) for kind, _ in self.kinds)

    def target_captures(self, card: int, table: Sequence[int]) -> list[Subset]:
        """Every set of table cards that makes the target with `card`, sorted."""
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

    def total_groups(self, table: Sequence[int], max_groups: int) -> int:
        """How many times the target the whole table adds up to, at most `max_groups` (0 if it
        is no such multiple): `trigger: total`, where 30 is two groups whether or not it splits.
        Jokers fill any value between one card's lowest and highest; the fewest groups win."""
        jokers = sum(1 for c in table if self.is_joker[c])
        total = sum(self.value[c] for c in table if not self.is_joker[c])
        for groups in range(1, max_groups + 1):
            if jokers * self.low <= groups * self.target - total <= jokers * self.high:
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
        return any(self.target_captures(c, cards[:i] + cards[i + 1 :]) for i, c in enumerate(cards))
